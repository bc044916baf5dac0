// The class of quirk 14 on EventuallyAvailable (versioned_grace_tail.cc): a versioned partition
// whose trailing record is older than the grace period never reaches a restored replica's
// position, and the violation is Kafka's only when the record proves every condition.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using namespace testing;  // NOLINT

// History retention (the grace period) 2 s: key 1 at 10 000 (offset 0), then key 2 at 5 000
// (offset 1), older than 10 000 - 2 000: dropped, and logged all the same (quirk 13) with the
// writer's position after it. The liveness phase's bound is offset 1; partition 0 never answered.
TraceBuilder late_tail(int64_t retention_ms = 2'000) {
  TraceBuilder b(TopologyKind::VersionedTable);
  b.trace().topology.history_retention_ms = retention_ms;
  b.trace().topology.segment_interval_ms = 1'000;
  b.produce(0, 1, 10, 10'000);
  b.produce(0, 2, 20, 5'000);
  b.log(0, 1, 10, 10'000, pos(0, 0), "instance-1", 100);
  b.log(0, 2, 20, 5'000, pos(0, 1), "instance-1", 200);
  sim::LivenessRecord liveness;
  liveness.faults_stopped_ms = instant(1'000);
  liveness.timeout_ms = base::Duration::millis(500);
  liveness.bound = pos(0, 1);
  liveness.first_success_ms = {{0, std::nullopt}};
  b.trace().liveness = liveness;
  return b;
}

// The last probe, refused NOT_UP_TO_BOUND at offset 0 by `replica`.
void probe(TraceBuilder& b, sim::ReplicaSnapshot replica) {
  Q q = b.key_query(0, 1, QueryKind::VersionedKeyQuery);
  q.source(sim::QueryRecord::Source::kLiveness).bound(pos(0, 1));
  q.fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 0));
  q.target(replica.instance);
  q.replica(std::move(replica));
  b.add(std::move(q));
}

sim::ReplicaSnapshot caught_up(sim::ReplicaSnapshot r) {
  r = applied(std::move(r), 1);
  r.changelog_end_offset = ChangelogOffset(2);
  r.lag = 0;
  return r;
}

Violation classified(TraceBuilder& b) {
  JudgeContext context(b.trace());
  std::vector<Violation> vs = check_eventually_available(context);
  IQ_ASSERT(vs.size() == 1, "seed {}: expected one violation, got {}", kSeed, text(vs));
  classify_violations(context, vs);
  return vs[0];
}

TEST(VersionedGraceTailTest, AStandbyThatRestoredTheLateTailIsKafkas) {
  TraceBuilder b = late_tail();
  probe(b, caught_up(standby(0, pos(0, 0), "instance-2")));
  const Violation v = classified(b);
  EXPECT_EQ(v.violation_class, ViolationClass::kVersionedGraceDroppedTail)
      << "seed " << kSeed << "\n"
      << v.to_string();
  EXPECT_NE(v.class_evidence.find("quirk 14"), std::string::npos) << v.class_evidence;
}

// An active whose store object wrote the dropped put itself processed it live, which advances
// the position: a position below it is not the quirk.
TEST(VersionedGraceTailTest, AnActiveThatProcessedTheDroppedPutLiveStaysAFailure) {
  TraceBuilder b = late_tail();
  probe(b, own_runs(caught_up(active(0, pos(0, 0))), {{-1, 1}}));
  const Violation v = classified(b);
  EXPECT_EQ(v.violation_class, ViolationClass::kFailure) << "seed " << kSeed;
  EXPECT_NE(v.class_evidence.find("itself"), std::string::npos) << v.class_evidence;
  // The same active without that run (the task came back anew and restored it) is Kafka's.
  TraceBuilder again = late_tail();
  probe(again, caught_up(active(0, pos(0, 0))));
  EXPECT_EQ(classified(again).violation_class, ViolationClass::kVersionedGraceDroppedTail)
      << "seed " << kSeed;
}

// Within the grace period the record is applied and its header read: nothing excuses the stuck
// position; nor does a replica with changelog still to apply (a record past its offset). Under
// exactly_once_v2 a lag of only the trailing transaction marker, or of aborted records (seed 558
// of the default template), is a whole changelog; a record of a transaction still open past its
// offset is not, nor is a lag with no record past it under at_least_once.
TEST(VersionedGraceTailTest, ARecordWithinGraceOrAReplicaBehindStaysAFailure) {
  TraceBuilder within = late_tail(/*retention_ms=*/10'000);
  probe(within, caught_up(standby(0, pos(0, 0), "instance-2")));
  const Violation v = classified(within);
  EXPECT_EQ(v.violation_class, ViolationClass::kFailure) << "seed " << kSeed;
  EXPECT_NE(v.class_evidence.find("within the grace period"), std::string::npos)
      << v.class_evidence;

  sim::ReplicaSnapshot r = caught_up(standby(0, pos(0, 0), "instance-2"));
  r.lag = 1;
  TraceBuilder behind = late_tail();
  behind.log(0, 1, 11, 10'000, pos(0, 1), "instance-1", 300);
  probe(behind, r);
  const Violation late = classified(behind);
  EXPECT_EQ(late.violation_class, ViolationClass::kFailure) << "seed " << kSeed;
  EXPECT_NE(late.class_evidence.find("had not applied its whole changelog"), std::string::npos)
      << late.class_evidence;
  const auto eos_lag = [&](std::optional<sim::TxnOutcome> past) {
    TraceBuilder b = late_tail();
    b.trace().guarantee = sim::Guarantee::kExactlyOnceV2;
    if (past) {
      // Late beyond grace like offset 1, so only the lag rule decides.
      b.log(0, 2, 21, 5'000, pos(0, 1), "instance-1", 300);
      b.txn(0, 2, *past, *past == sim::TxnOutcome::kOpen ? std::nullopt : std::optional(400));
    }
    probe(b, r);
    const Violation got = classified(b);
    return std::pair(got.violation_class, got.class_evidence);
  };
  EXPECT_EQ(eos_lag(std::nullopt).first, ViolationClass::kVersionedGraceDroppedTail)
      << "seed " << kSeed;
  EXPECT_EQ(eos_lag(sim::TxnOutcome::kAborted).first, ViolationClass::kVersionedGraceDroppedTail)
      << "seed " << kSeed << " " << eos_lag(sim::TxnOutcome::kAborted).second;
  EXPECT_EQ(eos_lag(sim::TxnOutcome::kOpen).first, ViolationClass::kFailure) << "seed " << kSeed;
  EXPECT_EQ(eos_lag(sim::TxnOutcome::kCommitted).first, ViolationClass::kFailure)
      << "seed " << kSeed;
  TraceBuilder bounded = late_tail();
  bounded.trace().guarantee = sim::Guarantee::kExactlyOnceV2;
  bounded.trace().changelog_dropped = 1;  // the trace's changelog is not whole
  probe(bounded, r);
  EXPECT_EQ(classified(bounded).violation_class, ViolationClass::kFailure) << "seed " << kSeed;
  TraceBuilder alos = late_tail();
  probe(alos, r);
  EXPECT_EQ(classified(alos).violation_class, ViolationClass::kFailure) << "seed " << kSeed;

  TraceBuilder off = late_tail();
  off.consistency(false);
  probe(off, caught_up(standby(0, pos(0, 0), "instance-2")));
  EXPECT_EQ(classified(off).violation_class, ViolationClass::kFailure) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
