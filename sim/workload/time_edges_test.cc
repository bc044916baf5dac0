// time_edges: each grace edge is the oldest timestamp the family's processor or store keeps (the
// record one ms older is dropped, by the same comparison impl/ makes), and the query edges are
// the window starts, retention floors and version timestamps the stores compare against.
#include "workload/time_edges.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace iq::sim {
namespace {

TopologyConfig topology(TopologyKind kind) {
  TopologyConfig t;
  t.kind = kind;
  t.source_partitions = 1;
  return t;
}

// KStreamWindowAggregateProcessor's rule (topologies.cc): kept while the newest window of ts ends
// after stream time - grace.
bool window_aggregate_keeps(const TopologyConfig& t, int64_t ts, int64_t stream_time_ms) {
  const int64_t advance = t.effective_window_advance_ms();
  return ts / advance * advance + t.window_size_ms > stream_time_ms - t.grace_ms;
}

TEST(TimeEdgesTest, WindowAggregateEdgeIsTheOldestKeptTimestamp) {
  for (const int64_t advance : {500, 1'000}) {
    for (const int64_t grace : {0, 500, 2'000}) {
      TopologyConfig t = topology(TopologyKind::WindowedCount);
      t.window_size_ms = 1'000;
      t.window_advance_ms = advance;
      t.grace_ms = grace;
      for (int64_t st = 9'990; st <= 10'510; st += 13) {
        const auto edge = time_edges::grace_edge_ms(t, st);
        ASSERT_TRUE(edge.has_value()) << "stream time " << st;
        EXPECT_TRUE(window_aggregate_keeps(t, *edge, st))
            << "advance " << advance << " grace " << grace << " st " << st << " edge " << *edge;
        EXPECT_FALSE(window_aggregate_keeps(t, *edge - 1, st))
            << "advance " << advance << " grace " << grace << " st " << st << " edge " << *edge;
      }
    }
  }
}

TEST(TimeEdgesTest, StoreAndSessionEdges) {
  TopologyConfig session = topology(TopologyKind::SessionSum);
  session.session_gap_ms = 1'000;
  session.grace_ms = 500;
  EXPECT_EQ(time_edges::grace_edge_ms(session, 10'000), 8'500);  // a lone [t, t] ends >= close

  TopologyConfig session_papi = topology(TopologyKind::SessionPapiWriter);
  session_papi.window_retention_ms = 2'000;
  EXPECT_EQ(time_edges::grace_edge_ms(session_papi, 10'000), 8'001);  // end <= st - R dropped

  // The window PAPI writer puts at (ts / size) * size; the store drops a start <= its newest
  // start (10,000) - retention.
  TopologyConfig window_papi = topology(TopologyKind::WindowPapiWriter);
  window_papi.window_size_ms = 1'000;
  window_papi.window_retention_ms = 5'000;
  EXPECT_EQ(time_edges::grace_edge_ms(window_papi, 10'400), 6'000);

  TopologyConfig versioned = topology(TopologyKind::VersionedTable);
  versioned.history_retention_ms = 2'000;
  EXPECT_EQ(time_edges::grace_edge_ms(versioned, 10'000), 8'000);        // put < st - grace dropped
  EXPECT_EQ(time_edges::grace_edge_ms(versioned, 1'500), std::nullopt);  // edge not above 0
  EXPECT_EQ(time_edges::grace_edge_ms(topology(TopologyKind::Count), 10'000), std::nullopt);
}

TEST(TimeEdgesTest, QueryEdgesComeFromTheRunsRecords) {
  base::Prng prng(29);
  TopologyConfig window = topology(TopologyKind::WindowedCount);
  window.window_size_ms = 1'000;
  window.window_advance_ms = 500;
  window.grace_ms = 500;  // retention = size + grace = 1,500
  std::set<int64_t> seen;
  for (int i = 0; i < 200; ++i) {
    for (int64_t e : time_edges::window_query_edges(window, {7'321}, 10'250, prng)) seen.insert(e);
  }
  // The two windows of 7,321 (starts 7,000 and 6,500), their ends, and the floor 10,000 - 1,500
  // + 1.
  EXPECT_EQ(seen, (std::set<int64_t>{6'500, 7'000, 7'500, 8'000, 8'501}));

  TopologyConfig versioned = topology(TopologyKind::VersionedTable);
  versioned.history_retention_ms = 2'000;
  seen.clear();
  for (int i = 0; i < 200; ++i) {
    for (int64_t e : time_edges::versioned_query_edges(versioned, {100, 4'000, 5'000}, 9'000, prng))
      seen.insert(e);
  }
  EXPECT_EQ(seen, (std::set<int64_t>{100, 4'000, 5'000, 7'000}));
  EXPECT_TRUE(
      time_edges::window_query_edges(topology(TopologyKind::SessionSum), {5}, 9, prng).empty());
}

TEST(TimeEdgesTest, NearDrawsEachSideAndNeverBelowZero) {
  base::Prng prng(7);
  std::set<int64_t> seen;
  for (int i = 0; i < 100; ++i) seen.insert(time_edges::near(prng, 50));
  EXPECT_EQ(seen, (std::set<int64_t>{49, 50, 51}));
  for (int i = 0; i < 100; ++i) EXPECT_GE(time_edges::near(prng, 0), 0);
}

}  // namespace
}  // namespace iq::sim
