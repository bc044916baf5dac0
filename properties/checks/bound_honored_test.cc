// BoundHonored on hand-made traces: successes must dominate the bound on their own partition,
// NOT_UP_TO_BOUND must come from a replica that really was behind, and requireActive's discarded
// bound (Kafka's quirk) is applied as Kafka applies it.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using testing::active;
using testing::kSeed;
using testing::pos;
using testing::standby;
using testing::text;
using testing::TraceBuilder;

TraceBuilder log_of_ten(bool caching = false, int32_t partitions = 2) {
  TraceBuilder b(TopologyKind::SourceTable, KeyValueSupplier::kRocksDbTimestamped, caching,
                 partitions);
  for (int32_t i = 0; i < 10; ++i) b.produce(0, i, i);
  return b;
}

TEST(BoundHonoredTest, SuccessesThatDominateTheBoundPass) {
  TraceBuilder b = log_of_ten();
  b.add(b.key_query(0, 5).bound(pos(0, 5)).ok(5, pos(0, 5)));  // equal offsets pass
  b.add(b.key_query(0, 5).bound(pos(0, 5)).ok(5, pos(0, 9)));
  // A bound entry for another partition does not constrain partition 0.
  b.add(b.key_query(0, 5).bound(pos(1, 99)).ok(std::nullopt, pos(0, 0)));
  Position both = pos(0, 3);
  both.with_component(testing::kTopic, 1, 99);
  b.add(b.key_query(0, 5).bound(both).ok(5, pos(0, 5)));
  JudgeContext context(b.trace());
  const auto vs = check_bound_honored(context);
  EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(context.tallies().at("BoundHonored").judged, 4u) << "seed " << kSeed;
}

TEST(BoundHonoredTest, SuccessesBehindTheBoundFail) {
  TraceBuilder b = log_of_ten();
  b.add(b.key_query(0, 5).bound(pos(0, 5)).ok(std::nullopt, pos(0, 4)));
  b.add(b.key_query(0, 5).bound(pos(0, 5)).ok(std::nullopt, Position::empty_position()));
  b.add(b.key_query(0, 5).bound(pos(0, 5, "other-topic")).ok(5, pos(0, 9)));  // topic missing
  b.add(b.key_query(0, 5).bound(pos(0, 5)).ok(5, std::nullopt));
  const auto vs = check_bound_honored(JudgeContext(b.trace()));
  ASSERT_EQ(vs.size(), 4u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].returned, "Position{position={input-topic={0=4}}}") << "seed " << kSeed;
}

// A transactional store (KIP-892, 2026-08-20 pin) checks a READ_COMMITTED bound against its
// committed position and a READ_UNCOMMITTED one against its staged position: the same refusal
// without a position of its own (as a cached range's) is honest under READ_COMMITTED when the
// committed position is behind, and a violation under READ_UNCOMMITTED when the staged one
// dominates; the run's default level decides for a query that sets none.
TEST(BoundHonoredTest, ATransactionalStoreChecksTheBoundAgainstThePositionOfItsLevel) {
  for (const auto& [level, default_level, violations] :
       {std::tuple{std::optional(IsolationLevel::READ_COMMITTED), IsolationLevel::READ_UNCOMMITTED,
                   0u},
        std::tuple{std::optional(IsolationLevel::READ_UNCOMMITTED), IsolationLevel::READ_COMMITTED,
                   1u},
        std::tuple{std::optional<IsolationLevel>(), IsolationLevel::READ_COMMITTED, 0u},
        std::tuple{std::optional<IsolationLevel>(), IsolationLevel::READ_UNCOMMITTED, 1u}}) {
    TraceBuilder b = log_of_ten();
    b.trace().kafka_pin = KafkaPin::k2026_08_20;
    b.trace().default_iq_isolation_level = default_level;
    sim::ReplicaSnapshot replica = active(0, pos(0, 9));  // staged: every record
    replica.committed_position = pos(0, 3);               // committed: up to offset 3
    testing::Q q = b.key_query(0, 5)
                       .bound(pos(0, 9))
                       .fail(FailureReason::NOT_UP_TO_BOUND, std::nullopt)
                       .replica(replica);
    q.r.request.isolation_level = level;
    b.add(q);
    JudgeContext context(b.trace());
    const auto vs = check_bound_honored(context);
    EXPECT_EQ(vs.size(), violations)
        << "seed " << kSeed << " level " << (level ? to_string(*level) : "default") << "\n"
        << text(vs);
  }
}

TEST(BoundHonoredTest, NotUpToBoundFromAReplicaThatWasBehindPasses) {
  TraceBuilder b = log_of_ten();
  // The position owner's failure carries its position.
  b.add(b.key_query(0, 5).bound(pos(0, 9)).fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 3)));
  // A cached KeyQuery's refusal carries none: the snapshot's (merged) position shows it.
  TraceBuilder c = log_of_ten(/*caching=*/true);
  c.add(c.key_query(0, 5)
            .bound(pos(0, 9))
            .fail(FailureReason::NOT_UP_TO_BOUND)
            .replica(standby(0, pos(0, 3))));
  // A bound on a topic the store never saw can never be met.
  c.add(c.key_query(0, 5)
            .bound(pos(0, 0, "other-topic"))
            .fail(FailureReason::NOT_UP_TO_BOUND)
            .replica(active(0, pos(0, 9))));
  EXPECT_TRUE(check_bound_honored(JudgeContext(b.trace())).empty()) << "seed " << kSeed;
  JudgeContext context(c.trace());
  EXPECT_TRUE(check_bound_honored(context).empty()) << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("BoundHonored").judged, 2u) << "seed " << kSeed;
}

TEST(BoundHonoredTest, NotUpToBoundFromAReplicaThatWasUpToTheBoundFails) {
  TraceBuilder b = log_of_ten(/*caching=*/true);
  b.add(b.key_query(0, 5).bound(pos(0, 5)).fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 6)));
  b.add(b.key_query(0, 5)
            .bound(pos(0, 5))
            .fail(FailureReason::NOT_UP_TO_BOUND)
            .replica(active(0, pos(0, 5))));
  // The bound names another partition only: nothing on partition 0 can be behind it.
  b.add(b.key_query(0, 5).bound(pos(1, 5)).fail(FailureReason::NOT_UP_TO_BOUND,
                                                Position::empty_position()));
  const auto vs = check_bound_honored(JudgeContext(b.trace()));
  ASSERT_EQ(vs.size(), 3u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_NE(vs[1].summary.find("the replica's position at the answer"), std::string::npos)
      << vs[1].summary;
}

// requireActive replaces the bound with unbounded (docs/iqv2-semantics.md quirk 3): a success below
// the caller's bound is Kafka's behaviour and a violation of the property (a finding), and a
// NOT_UP_TO_BOUND is never due.
TEST(BoundHonoredTest, RequireActiveDiscardsTheBound) {
  TraceBuilder b = log_of_ten();
  b.add(b.key_query(0, 5).bound(pos(0, 9)).require_active().ok(std::nullopt, pos(0, 9)));
  EXPECT_TRUE(check_bound_honored(JudgeContext(b.trace())).empty()) << "seed " << kSeed;
  b.add(b.key_query(0, 5).bound(pos(0, 9)).require_active().ok(std::nullopt, pos(0, 3)));
  {
    const auto vs = check_bound_honored(JudgeContext(b.trace()));
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
    EXPECT_NE(vs[0].summary.find("requireActive"), std::string::npos) << vs[0].summary;
  }
  b = log_of_ten();
  b.add(b.key_query(0, 5).bound(pos(0, 9)).require_active().fail(FailureReason::NOT_UP_TO_BOUND,
                                                                 pos(0, 3)));
  const auto vs = check_bound_honored(JudgeContext(b.trace()));
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_NE(vs[0].expected.find("requireActive discards the bound"), std::string::npos)
      << vs[0].expected;
}

// A cached store's snapshot shows the merged position, more than a range query checks: a range
// refusal without a position cannot be judged from it.
TEST(BoundHonoredTest, CachedRangeRefusalWithoutPositionIsNotJudged) {
  TraceBuilder b = log_of_ten(/*caching=*/true);
  b.add(b.range_query(0, 0, 9)
            .bound(pos(0, 5))
            .fail(FailureReason::NOT_UP_TO_BOUND)
            .replica(active(0, pos(0, 9))));
  JudgeContext context(b.trace());
  EXPECT_TRUE(check_bound_honored(context).empty()) << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("BoundHonored").judged, 0u) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
