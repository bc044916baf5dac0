// LagReported on hand-made samples: Kafka's convention over the observer's snapshot, including
// its quirk that a RUNNING active reports current = end (lag 0) whatever its changelog offset.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using testing::active;
using testing::kSeed;
using testing::no_task;
using testing::pos;
using testing::standby;
using testing::text;
using testing::TraceBuilder;

sim::ReplicaSnapshot with_changelog(sim::ReplicaSnapshot r, std::optional<int64_t> offset,
                                    std::optional<int64_t> end) {
  r.changelog_offset = offset ? std::optional(ChangelogOffset(*offset)) : std::nullopt;
  r.changelog_end_offset = end ? std::optional(ChangelogOffset(*end)) : std::nullopt;
  return r;
}

sim::LagRecord sample(int64_t at_ms, sim::ReplicaSnapshot actual, int64_t current, int64_t end) {
  return {testing::instant(at_ms), actual.instance,       testing::kStore,
          actual.partition,        LagInfo{current, end}, std::move(actual)};
}

TEST(LagReportedTest, KafkasConventionPasses) {
  TraceBuilder b;
  // A RUNNING active 3 records behind its changelog end still reports current = end (quirk).
  b.trace().lags.push_back(sample(10, with_changelog(active(0, pos(0, 1)), 6, 10), 10, 10));
  // A standby: last applied offset + 1.
  b.trace().lags.push_back(sample(20, with_changelog(standby(0, pos(0, 1)), 4, 10), 5, 10));
  // A restoring active is not "running": offset + 1 as well.
  b.trace().lags.push_back(sample(
      30,
      with_changelog(active(0, pos(0, 1), "instance-1", sim::ReplicaSnapshot::TaskState::RESTORING),
                     7, 10),
      8, 10));
  // Nothing applied yet: current 0.
  b.trace().lags.push_back(
      sample(40, with_changelog(standby(0, std::nullopt), std::nullopt, 10), 0, 10));
  JudgeContext context(b.trace());
  const auto vs = check_lag_reported(context);
  EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(context.tallies().at("LagReported").judged, 4u) << "seed " << kSeed;
}

TEST(LagReportedTest, OtherConventionsFail) {
  TraceBuilder b;
  // A RUNNING active reporting its changelog offset + 1 (the "honest" lag Kafka does not give).
  b.trace().lags.push_back(sample(10, with_changelog(active(0, pos(0, 1)), 6, 10), 7, 10));
  // A standby reporting the changelog offset itself (off by one).
  b.trace().lags.push_back(sample(20, with_changelog(standby(0, pos(0, 1)), 4, 10), 4, 10));
  // A standby reported as caught up.
  b.trace().lags.push_back(sample(30, with_changelog(standby(0, pos(0, 1)), 4, 10), 10, 10));
  // A stale end offset.
  b.trace().lags.push_back(sample(40, with_changelog(standby(0, pos(0, 1)), 4, 12), 5, 10));
  // A lag for a partition the instance does not host.
  b.trace().lags.push_back(sample(50, no_task(0), 0, 10));
  const auto vs = check_lag_reported(JudgeContext(b.trace()));
  ASSERT_EQ(vs.size(), 5u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, "current=10 end=10 lag=0") << "seed " << kSeed;
  EXPECT_EQ(vs[0].returned, "current=7 end=10 lag=3") << "seed " << kSeed;
  EXPECT_EQ(vs[1].expected, "current=5 end=10 lag=5") << "seed " << kSeed;
  EXPECT_EQ(vs[3].expected, "current=5 end=12 lag=7") << "seed " << kSeed;
  EXPECT_EQ(vs[4].expected, "no entry") << "seed " << kSeed;
}

TEST(LagReportedTest, SamplesWithoutAnEndOffsetOrOutsideTheirPhaseAreNotJudged) {
  TraceBuilder b;
  b.phase("no lags", 0, 100, {"ResultMatchesModel"});
  b.trace().lags.push_back(sample(10, with_changelog(standby(0, pos(0, 1)), 4, 10), 0, 0));
  b.trace().lags.push_back(
      sample(200, with_changelog(standby(0, pos(0, 1)), 4, std::nullopt), 0, 0));
  JudgeContext context(b.trace());
  EXPECT_TRUE(check_lag_reported(context).empty()) << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("LagReported").judged, 0u) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
