// SessionMonotonic on hand-made traces: a session client's positions never go back below what it
// saw before on the served partition; other clients, other phases, other bound modes and
// requireActive queries (whose bound Kafka discards) are kept apart as the check says.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using sim::BoundMode;
using testing::kSeed;
using testing::pos;
using testing::text;
using testing::TraceBuilder;

TraceBuilder two_partitions() {
  TraceBuilder b(TopologyKind::SourceTable, KeyValueSupplier::kRocksDbTimestamped, false, 2);
  for (int32_t i = 0; i < 10; ++i) b.produce(0, 2 * i, i);
  for (int32_t i = 0; i < 10; ++i) b.produce(1, 2 * i + 1, i);
  return b;
}

TEST(SessionMonotonicTest, GrowingPositionsPass) {
  TraceBuilder b = two_partitions();
  b.add(b.key_query(0, 0).client(0, BoundMode::kSession).ok(0, pos(0, 3)));
  b.add(b.key_query(0, 0).client(0, BoundMode::kSession).ok(0, pos(0, 3)));  // equal is fine
  b.add(b.key_query(1, 1).client(0, BoundMode::kSession).ok(0, pos(1, 2)));  // other partition
  b.add(b.key_query(0, 0).client(0, BoundMode::kSession).ok(0, pos(0, 7)));
  JudgeContext context(b.trace());
  const auto vs = check_session_monotonic(context);
  EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(context.tallies().at("SessionMonotonic").judged, 4u) << "seed " << kSeed;
}

TEST(SessionMonotonicTest, AComponentGoingBackwardsFails) {
  TraceBuilder b = two_partitions();
  b.add(b.key_query(0, 0).client(0, BoundMode::kSession).ok(0, pos(0, 7)));
  b.add(b.key_query(1, 1).client(0, BoundMode::kSession).ok(0, pos(1, 2)));
  b.add(b.key_query(0, 0).client(0, BoundMode::kSession).ok(0, pos(0, 5)));  // 7 -> 5
  b.add(b.key_query(1, 1).client(0, BoundMode::kSession).ok(0, Position::empty_position()));
  const auto vs = check_session_monotonic(JudgeContext(b.trace()));
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_NE(vs[0].summary.find("input-topic[0]: 7 -> 5"), std::string::npos) << vs[0].summary;
  EXPECT_NE(vs[1].summary.find("input-topic[1]: 2 -> absent"), std::string::npos) << vs[1].summary;
}

// What a client saw under any bound mode feeds its merged position; only session-bound queries
// are judged, and only against their own client's history.
TEST(SessionMonotonicTest, EverySuccessFeedsTheSessionButOnlySessionQueriesAreJudged) {
  TraceBuilder b = two_partitions();
  b.add(b.key_query(0, 0).client(0, BoundMode::kUnbounded).ok(0, pos(0, 8)));
  b.add(b.key_query(0, 0).client(0, BoundMode::kUnbounded).ok(0, pos(0, 2)));  // not judged
  b.add(b.key_query(0, 0).client(1, BoundMode::kSession).ok(0, pos(0, 1)));    // client 1
  b.add(b.key_query(0, 0).client(0, BoundMode::kSession).ok(0, pos(0, 4)));    // 8 -> 4
  const auto vs = check_session_monotonic(JudgeContext(b.trace()));
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 4u) << "seed " << kSeed;
}

// Each [[test]] starts new clients, so positions are compared within a phase only. A
// requireActive session query is judged like any other: Kafka dropping its bound (quirk 3) is
// what lets it go backwards, and the property reports that.
TEST(SessionMonotonicTest, RequireActiveIsJudgedAndNewPhasesAreKeptApart) {
  TraceBuilder b = two_partitions();
  b.phase("first", 0, 100, {});
  b.phase("second", 100, 200, {});
  b.add(b.key_query(0, 0).client(0, BoundMode::kSession).at(1, 2).ok(0, pos(0, 8)));
  b.add(b.key_query(0, 0).client(0, BoundMode::kSession).at(101, 102).ok(0, pos(0, 1)));
  JudgeContext context(b.trace());
  EXPECT_TRUE(check_session_monotonic(context).empty()) << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("SessionMonotonic").judged, 2u) << "seed " << kSeed;

  b.add(b.key_query(0, 0).client(0, BoundMode::kSession).at(103, 104).ok(0, pos(0, 0)));
  b.add(b.key_query(0, 0)
            .client(0, BoundMode::kSession)
            .require_active()
            .at(105, 106)
            .ok(0, pos(0, 0)));
  const auto vs = check_session_monotonic(JudgeContext(b.trace()));
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 3u) << "seed " << kSeed;
  EXPECT_EQ(vs[1].record_id, 4u) << "seed " << kSeed;  // the requireActive one
}

TEST(SessionMonotonicTest, FailuresAndScriptedQueriesDoNotCount) {
  TraceBuilder b = two_partitions();
  b.add(b.key_query(0, 0).client(0, BoundMode::kSession).ok(0, pos(0, 8)));
  b.add(b.key_query(0, 0)
            .client(0, BoundMode::kSession)
            .fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 2)));
  b.add(b.key_query(0, 0).ok(0, pos(0, 1)));  // scripted: no client
  EXPECT_TRUE(check_session_monotonic(JudgeContext(b.trace())).empty()) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
