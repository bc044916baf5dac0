// Progress (progress.cc): a run is judged by what trace.progress recorded as it happened: the
// cluster quiescent by the liveness deadline passes; not quiescent fails, naming the gap, whether
// every partition answered its probe (the wait began there) or some never did (the cluster read
// at the deadline); only a run without a liveness phase or one a bound stopped is not judged.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using testing::kSeed;
using testing::text;
using testing::TraceBuilder;

TraceBuilder with_liveness(std::optional<sim::ProgressRecord> progress) {
  TraceBuilder b(TopologyKind::SourceTable);
  b.trace().liveness = sim::LivenessRecord{};
  b.trace().progress = std::move(progress);
  return b;
}

sim::ProgressRecord progress(bool quiescent, bool probes_answered) {
  sim::ProgressRecord r;
  r.since_ms = base::Instant::from_ms(probes_answered ? 5'000 : 9'000);
  r.deadline_ms = base::Instant::from_ms(9'000);
  r.probes_answered = probes_answered;
  if (quiescent) {
    r.quiescent_ms = base::Instant::from_ms(9'000);
  } else {
    r.gap = "instance-2 is REBALANCING";
  }
  return r;
}

TEST(ProgressTest, EveryRunWithALivenessPhaseIsJudgedByTheClusterAtTheDeadline) {
  for (const bool answered : {true, false}) {
    TraceBuilder settled = with_liveness(progress(true, answered));
    JudgeContext settled_context(settled.trace());
    EXPECT_TRUE(check_progress(settled_context).empty()) << "seed " << kSeed;
    EXPECT_EQ(settled_context.tallies().at("Progress").judged, 1u) << "seed " << kSeed;

    TraceBuilder stuck = with_liveness(progress(false, answered));
    JudgeContext stuck_context(stuck.trace());
    const auto vs = check_progress(stuck_context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << " answered " << answered;
    EXPECT_EQ(vs[0].returned, "instance-2 is REBALANCING") << "seed " << kSeed;
    EXPECT_NE(vs[0].expected.find(answered ? "every partition answered at 5000 ms"
                                           : "some partition never answered its probe"),
              std::string::npos)
        << "seed " << kSeed << "\n"
        << text(vs);
  }
}

TEST(ProgressTest, OnlyARunWithoutALivenessPhaseOrStoppedByABoundIsNotJudged) {
  TraceBuilder none(TopologyKind::SourceTable);
  JudgeContext none_context(none.trace());
  EXPECT_TRUE(check_progress(none_context).empty()) << "seed " << kSeed;
  EXPECT_EQ(none_context.tallies().at("Progress").not_judged.count("no liveness phase"), 1u)
      << "seed " << kSeed;
  TraceBuilder stopped = with_liveness(std::nullopt);
  JudgeContext stopped_context(stopped.trace());
  EXPECT_TRUE(check_progress(stopped_context).empty()) << "seed " << kSeed;
  EXPECT_EQ(stopped_context.tallies().at("Progress").not_judged.count("a bound stopped the run"),
            1u)
      << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
