// EventuallyAvailable on hand-made traces: every partition answering by the deadline passes;
// a partition that never answered or answered late, a liveness failure and the time limit fail.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using testing::kSeed;
using testing::no_task;
using testing::pos;
using testing::text;
using testing::TraceBuilder;

TraceBuilder three_partitions() {
  TraceBuilder b(TopologyKind::Count, KeyValueSupplier::kRocksDbTimestamped, false, 3);
  sim::LivenessRecord liveness;
  liveness.faults_stopped_ms = testing::instant(1'000);
  liveness.timeout_ms = base::Duration::millis(500);
  liveness.bound = pos(0, 4);
  b.trace().liveness = liveness;
  return b;
}

TEST(EventuallyAvailableTest, EveryPartitionAnsweringByTheDeadlinePasses) {
  TraceBuilder b = three_partitions();
  b.trace().liveness->first_success_ms = {{0, testing::instant(1'000)},
                                          {1, testing::instant(1'200)},
                                          {2, testing::instant(1'500)}};  // 1500 is in time
  JudgeContext context(b.trace());
  const auto vs = check_eventually_available(context);
  EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(context.tallies().at("EventuallyAvailable").judged, 3u) << "seed " << kSeed;
}

TEST(EventuallyAvailableTest, NoLivenessPhaseHasNothingToJudge) {
  TraceBuilder b(TopologyKind::Count);
  JudgeContext context(b.trace());
  EXPECT_TRUE(check_eventually_available(context).empty()) << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("EventuallyAvailable").judged, 0u) << "seed " << kSeed;
}

TEST(EventuallyAvailableTest, MissingAndLatePartitionsFail) {
  TraceBuilder b = three_partitions();
  b.trace().liveness->first_success_ms = {
      {0, testing::instant(1'000)}, {1, std::nullopt}, {2, testing::instant(1'501)}};
  // The last probe of partition 1 explains why it never answered.
  b.add(b.key_query(1, 1)
            .source(sim::QueryRecord::Source::kLiveness)
            .bound(pos(1, 4))
            .fail(FailureReason::NOT_UP_TO_BOUND, pos(1, 2))
            .replica(testing::standby(1, pos(1, 2))));
  b.fault(900, sim::FaultKind::kCrash, "instance-1");
  const auto vs = check_eventually_available(JudgeContext(b.trace()));
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].summary, "partition 1 never answered a bounded query") << "seed " << kSeed;
  EXPECT_EQ(vs[0].at_ms, 1'500) << "seed " << kSeed;
  EXPECT_NE(vs[0].returned.find("NOT_UP_TO_BOUND"), std::string::npos) << vs[0].returned;
  EXPECT_NE(vs[0].query.find("last probe #1"), std::string::npos) << vs[0].query;
  EXPECT_EQ(vs[0].events_before, (std::vector<std::string>{"@900 crash instance-1 (test)"}))
      << "seed " << kSeed;
  EXPECT_EQ(vs[1].summary, "partition 2 first answered at 1501 ms, after the deadline")
      << "seed " << kSeed;

  TraceBuilder absent = three_partitions();
  absent.trace().liveness->first_success_ms = {{0, testing::instant(1'000)},
                                               {1, testing::instant(1'000)}};  // partition 2 absent
  const auto missing = check_eventually_available(JudgeContext(absent.trace()));
  ASSERT_EQ(missing.size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(missing[0].returned, "no liveness probe of this partition was recorded")
      << "seed " << kSeed;
}

TEST(EventuallyAvailableTest, LivenessFailuresAndTheTimeLimitFail) {
  TraceBuilder b(TopologyKind::Count);
  b.trace().liveness_failures.push_back(
      {testing::instant(4'000), "run_until quiescent: not quiescent after 60000 ms"});
  b.trace().time_limit_reached = true;
  b.trace().end_ms = testing::instant(600'000);
  const auto vs = check_eventually_available(JudgeContext(b.trace()));
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].summary, "liveness failure: run_until quiescent: not quiescent after 60000 ms")
      << "seed " << kSeed;
  EXPECT_EQ(vs[1].at_ms, 600'000) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
