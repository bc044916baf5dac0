// The window and session topologies processed record by record against their store stacks:
// Kafka's DSL semantics (windowsFor with hopping windows, the close time by observed stream time
// and grace, the session merge and its removals) and IQv2StoreIntegrationTest's PAPI writers, each
// over every supplier it takes, cached and not.

#include "topology/topologies.h"

#include <gtest/gtest.h>

#include "state/segmented_test_context.h"

namespace iq {
namespace {

struct In {
  int32_t key;
  std::optional<int64_t> value;
  int64_t ts;
};

// One task's topology over a fresh task directory, processing records at offsets 0, 1, ...
class Harness {
 public:
  explicit Harness(const TopologyConfig& config, const std::string& tag = "")
      : context_(0, tag + to_string(config.supplier) + (config.caching ? "_c" : "")),
        topology_(config) {
    EXPECT_TRUE(topology_.store().init(context_, topology_.store()).has_value());
  }
  ~Harness() { topology_.store().close(); }

  void process(const std::vector<In>& records) {
    for (const In& r : records) {
      context_.at("input-topic", offset_, r.ts);
      ConsumerRecord c{"input-topic", 0, offset_++, r.ts, Serde<int32_t>::serialize(r.key), {}, {}};
      if (r.value) c.value = Serde<int64_t>::serialize(*r.value);
      ASSERT_TRUE(topology_.process(c).has_value()) << "offset " << offset_ - 1;
    }
    ASSERT_TRUE(topology_.store().flush().has_value());
  }
  // A DSL window's (value, timestamp), or nullopt.
  std::optional<std::pair<int64_t, int64_t>> window(int32_t key, int64_t start) {
    auto* s = dynamic_cast<MeteredTimestampedWindowStore<int32_t, int64_t>*>(&topology_.store());
    IQ_ASSERT(s != nullptr);
    auto v = s->fetch(key, start);
    IQ_ASSERT(v.has_value());
    if (!v->has_value()) return std::nullopt;
    return std::pair{(*v)->value, (*v)->timestamp};
  }
  // Every session of `key` as (start, end, value), in the store's order.
  std::vector<std::tuple<int64_t, int64_t, int64_t>> sessions(int32_t key) {
    auto* s = dynamic_cast<MeteredSessionStore<int32_t, int64_t>*>(&topology_.store());
    IQ_ASSERT(s != nullptr);
    auto it = s->fetch(key);
    IQ_ASSERT(it.has_value());
    std::vector<std::tuple<int64_t, int64_t, int64_t>> out;
    for (const auto& e : it->entries) out.emplace_back(e.key.start_ms, e.key.end_ms, e.value);
    std::sort(out.begin(), out.end());
    return out;
  }
  TaskTopology& topology() { return topology_; }

 private:
  SegmentedTestContext context_;
  TaskTopology topology_;
  int64_t offset_ = 0;
};

TopologyConfig config(TopologyKind kind, KeyValueSupplier supplier, bool caching) {
  TopologyConfig c;
  c.kind = kind;
  c.supplier = supplier;
  c.caching = caching;
  c.logging = false;
  return c;
}

const KeyValueSupplier kWindowSuppliers[] = {
    KeyValueSupplier::kInMemory, KeyValueSupplier::kRocksDb, KeyValueSupplier::kRocksDbTimestamped};
using Window = std::optional<std::pair<int64_t, int64_t>>;

// IQV2_STORE_10's partition 0 through TimeWindows.ofSizeWithNoGrace(5 min) and the sum: Kafka's
// table (kafka-tests.md §1.3), with the later of the timestamps per window.
TEST(TopologiesTest, TumblingWindowedSumGivesKafkasTable) {
  for (KeyValueSupplier s : kWindowSuppliers) {
    for (bool caching : {false, true}) {
      TopologyConfig c = config(TopologyKind::WindowedSum, s, caching);
      c.window_retention_ms = 24 * 60 * 60 * 1000;
      Harness h(c);
      h.process({{0, 0, 0},
                 {0, 1, 120'000},
                 {2, 4, 480'000},
                 {2, 5, 600'000},
                 {4, 8, 960'000},
                 {4, 9, 1'080'000}});
      const std::string at = std::string(to_string(s)) + (caching ? " cached" : "");
      // A plain RocksDB supplier sits under the timestamped adapter: read back from the store,
      // every window's timestamp is -1 (quirk 24), whatever the aggregation wrote; the record
      // cache keeps the flushed entries with their timestamps, and the processor's fetch reads it.
      auto ts = [&](int64_t t) { return s == KeyValueSupplier::kRocksDb && !caching ? -1 : t; };
      EXPECT_EQ(h.window(0, 0), Window({1, ts(120'000)})) << at;
      EXPECT_EQ(h.window(2, 300'000), Window({4, ts(480'000)})) << at;
      EXPECT_EQ(h.window(2, 600'000), Window({5, ts(600'000)})) << at;
      EXPECT_EQ(h.window(4, 900'000), Window({17, ts(1'080'000)})) << at;
      EXPECT_EQ(h.window(0, 300'000), std::nullopt) << at;
    }
  }
}

// windowsFor with advance < size: a record lands in every window that holds it, none starting
// below 0; a count counts a null value (only a null key is skipped).
TEST(TopologiesTest, HoppingWindowedCountPutsEveryWindowHoldingTheRecord) {
  TopologyConfig c = config(TopologyKind::WindowedCount, KeyValueSupplier::kInMemory, false);
  c.window_size_ms = 10;
  c.window_advance_ms = 5;
  c.window_retention_ms = 100;  // the default, size + grace, would expire [0,10) at stream time 12
  Harness h(c);
  h.process({{1, 7, 3}, {1, std::nullopt, 12}});
  EXPECT_EQ(h.window(1, 0), Window({1, 3}));    // [0,10) holds 3 only
  EXPECT_EQ(h.window(1, 5), Window({1, 12}));   // [5,15) holds 12
  EXPECT_EQ(h.window(1, 10), Window({1, 12}));  // [10,20) holds 12
  EXPECT_EQ(h.window(1, 15), std::nullopt);
  EXPECT_EQ(h.topology().observed_stream_time_ms(), 12);
}

// A window whose end is at or before stream time - grace is closed: its records are skipped. With
// enough grace the same late record is aggregated, and the stored timestamp stays the later one.
TEST(TopologiesTest, WindowClosedBeyondGraceSkipsTheLateRecord) {
  for (int64_t grace : {int64_t{0}, int64_t{15}, int64_t{16}}) {
    TopologyConfig c = config(TopologyKind::WindowedSum, KeyValueSupplier::kInMemory, false);
    c.window_size_ms = 10;
    c.grace_ms = grace;
    c.window_retention_ms = 100;
    Harness h(c, "g" + std::to_string(grace));
    h.process({{1, 2, 4}, {1, 3, 25}, {1, 5, 6}});
    // Close time 25 - grace: window [0,10) is open while 10 > 25 - grace, i.e. grace >= 16.
    EXPECT_EQ(h.window(1, 0), grace >= 16 ? Window({7, 6}) : Window({2, 4})) << "grace " << grace;
    EXPECT_EQ(h.window(1, 20), Window({3, 25}));
  }
}

// The session merge: a record between two sessions within the gap merges all three; the old
// sessions are removed and the merged one holds the merged aggregate.
TEST(TopologiesTest, SessionRecordBetweenTwoSessionsMergesThem) {
  for (KeyValueSupplier s : {KeyValueSupplier::kInMemory, KeyValueSupplier::kRocksDb}) {
    for (bool caching : {false, true}) {
      for (TopologyKind kind : {TopologyKind::SessionCount, TopologyKind::SessionSum}) {
        TopologyConfig c = config(kind, s, caching);
        c.session_gap_ms = 10;
        c.window_retention_ms = 1'000;
        Harness h(c, to_string(kind));
        h.process({{1, 1, 0}, {1, 2, 20}, {2, 7, 15}});
        using S = std::vector<std::tuple<int64_t, int64_t, int64_t>>;
        const bool count = kind == TopologyKind::SessionCount;
        EXPECT_EQ(h.sessions(1), (S{{0, 0, 1}, {20, 20, count ? 1 : 2}}));
        h.process({{1, 4, 10}});
        EXPECT_EQ(h.sessions(1), (S{{0, 20, count ? 3 : 7}})) << to_string(s) << caching;
        h.process({{1, 8, 31}});  // 31 - 20 > gap: a new session
        EXPECT_EQ(h.sessions(1), (S{{0, 20, count ? 3 : 7}, {31, 31, count ? 1 : 8}}));
        EXPECT_EQ(h.sessions(2), (S{{15, 15, count ? 1 : 7}}));
      }
    }
  }
}

// A session ending before stream time - grace - gap is closed: the late record is dropped; with
// grace it is a session of its own.
TEST(TopologiesTest, SessionClosedBeyondGraceAndGapDropsTheLateRecord) {
  for (int64_t grace : {int64_t{0}, int64_t{40}}) {
    TopologyConfig c = config(TopologyKind::SessionCount, KeyValueSupplier::kInMemory, false);
    c.session_gap_ms = 10;
    c.grace_ms = grace;
    c.window_retention_ms = 1'000;
    Harness h(c, "g" + std::to_string(grace));
    h.process({{1, 1, 100}, {2, 1, 50}});
    using S = std::vector<std::tuple<int64_t, int64_t, int64_t>>;
    // Close time 100 - grace - 10: 90 drops [50,50], 50 keeps it.
    EXPECT_EQ(h.sessions(2), (grace == 0 ? S{} : S{{50, 50, 1}})) << "grace " << grace;
  }
}

// IQv2StoreIntegrationTest's window processor: the latest value per window start; a null value
// deletes the window. Over kRocksDb the plain builder, elsewhere ValueAndTimestamp(value, ts).
TEST(TopologiesTest, WindowPapiWriterKeepsTheLatestValuePerWindow) {
  for (KeyValueSupplier s : kWindowSuppliers) {
    TopologyConfig c = config(TopologyKind::WindowPapiWriter, s, true);
    c.window_retention_ms = 24 * 60 * 60 * 1000;
    Harness h(c);
    h.process({{4, 8, 960'000}, {4, 9, 1'080'000}, {3, 6, 720'000}, {3, std::nullopt, 840'000}});
    if (s == KeyValueSupplier::kRocksDb) {
      auto* plain = dynamic_cast<MeteredWindowStore<int32_t, int64_t>*>(&h.topology().store());
      ASSERT_NE(plain, nullptr);
      EXPECT_EQ(*plain->fetch(4, 900'000), std::optional<int64_t>(9));
      EXPECT_EQ(*plain->fetch(3, 600'000), std::nullopt);
    } else {
      EXPECT_EQ(h.window(4, 900'000), Window({9, 1'080'000})) << to_string(s);
      EXPECT_EQ(h.window(3, 600'000), std::nullopt) << to_string(s);
    }
  }
}

// IQv2StoreIntegrationTest's session processor: every record its own session [ts, ts], never
// merged; a null value removes that session.
TEST(TopologiesTest, SessionPapiWriterPutsEachRecordAsItsOwnSession) {
  for (KeyValueSupplier s : {KeyValueSupplier::kInMemory, KeyValueSupplier::kRocksDb}) {
    TopologyConfig c = config(TopologyKind::SessionPapiWriter, s, false);
    c.window_retention_ms = 24 * 60 * 60 * 1000;
    Harness h(c);
    h.process({{0, 0, 0}, {0, 1, 120'000}, {0, 2, 130'000}, {0, std::nullopt, 130'000}});
    using S = std::vector<std::tuple<int64_t, int64_t, int64_t>>;
    EXPECT_EQ(h.sessions(0), (S{{0, 0, 0}, {120'000, 120'000, 1}})) << to_string(s);
  }
}

// clear_cache (a recycled or dirty-closed task) drops the window and session caches' dirty
// entries without writing them below.
TEST(TopologiesTest, ClearCacheDropsUnflushedWindowAndSessionWrites) {
  for (TopologyKind kind : {TopologyKind::WindowedCount, TopologyKind::SessionCount}) {
    TopologyConfig c = config(kind, KeyValueSupplier::kInMemory, true);
    c.window_size_ms = 10;
    c.session_gap_ms = 10;
    c.window_retention_ms = 100;
    SegmentedTestContext context(0, to_string(kind));
    TaskTopology t(c);
    ASSERT_TRUE(t.store().init(context, t.store()).has_value());
    context.at("input-topic", 0, 3);
    ASSERT_TRUE(t.process({"input-topic",
                           0,
                           0,
                           3,
                           Serde<int32_t>::serialize(1),
                           Serde<int64_t>::serialize(1),
                           {}})
                    .has_value());
    t.clear_cache();
    ASSERT_TRUE(t.store().flush().has_value());
    EXPECT_TRUE(t.store().position().is_empty()) << to_string(kind);
    t.store().close();
  }
}

// The versioned PAPI writer deletes through VersionedKeyValueStore#delete: within the grace a
// tombstone version as the versioned table's put(key, null, ts) writes, beyond it dropped without
// moving the store's position, where the table's dropped put(key, null) does move it (quirk 14).
TEST(TopologiesTest, VersionedPapiWriterDeleteBeyondGraceKeepsThePosition) {
  for (TopologyKind kind : {TopologyKind::VersionedPapiWriter, TopologyKind::VersionedTable}) {
    TopologyConfig c = config(kind, KeyValueSupplier::kRocksDb, false);
    c.history_retention_ms = 2'000;
    c.segment_interval_ms = 1'000;
    Harness h(c, to_string(kind));
    // Offsets 0..3: 10 @1000, 12 @5000, a delete @4000 (within the grace), one @1500 (beyond it).
    h.process({{1, 10, 1'000}, {1, 12, 5'000}, {1, std::nullopt, 4'000}, {1, std::nullopt, 1'500}});
    auto* v = dynamic_cast<MeteredVersionedKeyValueStore<int32_t, int64_t>*>(&h.topology().store());
    ASSERT_NE(v, nullptr);
    auto latest = v->get(1);
    ASSERT_TRUE(latest.has_value());
    ASSERT_TRUE(latest->has_value()) << to_string(kind);
    EXPECT_EQ((*latest)->value, 12);
    auto at = v->get(1, 4'500);
    ASSERT_TRUE(at.has_value());
    EXPECT_FALSE(at->has_value()) << to_string(kind) << ": the tombstone at 4000 ends 10";
    const int64_t* offset = h.topology().store().position().offset("input-topic", 0);
    ASSERT_NE(offset, nullptr);
    EXPECT_EQ(*offset, kind == TopologyKind::VersionedPapiWriter ? 2 : 3) << to_string(kind);
  }
}

}  // namespace
}  // namespace iq
