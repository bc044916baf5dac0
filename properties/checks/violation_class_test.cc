#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using namespace testing;  // NOLINT

// Key 1 written twice (source offsets 0 and 1, changelog 0 and 1 by instance-1), then instance-1
// crashes before committing, restores changelog 0..1 (position {0=1}) and processes source offset
// 0 again at 100 ms, writing key 1 = 1 at changelog 2 under the unchanged position {0=1}.
TraceBuilder replay_after_crash(bool ledger_saw_it) {
  TraceBuilder b(TopologyKind::SourceTable);
  b.produce(0, 1, 1);
  b.produce(0, 1, 2);
  b.log(0, 1, 1, 100, pos(0, 0), "instance-1", 10);
  b.log(0, 1, 2, 200, pos(0, 1), "instance-1", 11);
  b.fault(50, "crash", "instance-1");
  b.log(0, 1, 1, 100, pos(0, 1), "instance-1", 100);
  if (ledger_saw_it) b.reprocessed(0, 0, 0, "instance-1", 100, 100);
  return b;
}

std::vector<Violation> judge_and_classify(const JudgeContext& context) {
  std::vector<Violation> vs = check_result_matches_model(context);
  for (Violation& v : check_same_position_same_answer(context)) vs.push_back(std::move(v));
  classify_violations(context, vs);
  return vs;
}

// An older value beneath a position that covers the replayed input is at-least-once reprocessing
// only when the record proves it: the answer is the changelog fold and the fold holds a record the
// reprocessing wrote beneath the position. The same answer without the ledger's range, or an
// answer that is not the fold, stays a failure, and its first line says so.
TEST(ViolationClassTest, AtLeastOnceOnlyWhenTheRecordProvesIt) {
  for (bool ledger : {true, false}) {
    TraceBuilder b = replay_after_crash(ledger);
    b.add(b.key_query(0, 1).at(90, 90).ok(2, pos(0, 1)).replica(applied(active(0, pos(0, 1)), 1)));
    b.add(
        b.key_query(0, 1).at(101, 101).ok(1, pos(0, 1)).replica(applied(active(0, pos(0, 1)), 2)));
    JudgeContext context(b.trace());
    const auto vs = judge_and_classify(context);
    // ResultMatchesModel on the second answer, SamePositionSameAnswer against the first.
    ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << " ledger=" << ledger << "\n" << text(vs);
    for (const Violation& v : vs) {
      EXPECT_EQ(v.violation_class,
                ledger ? ViolationClass::kAtLeastOnceReprocessing : ViolationClass::kFailure)
          << "seed " << kSeed << " ledger=" << ledger << "\n"
          << v.to_string();
      EXPECT_EQ(
          v.to_string().rfind(
              ledger ? "[known Kafka behaviour: at-least-once reprocessing]" : "[failure]", 0),
          0u)
          << "seed " << kSeed << "\n"
          << v.to_string();
      EXPECT_FALSE(v.class_evidence.empty()) << "seed " << kSeed;
    }
  }
}

// The same replay, but the answer is not what the replica's changelog prefix holds (a restore
// bug would look so): a failure, with the witness named as the reason.
TEST(ViolationClassTest, AnAnswerThatIsNotTheFoldStaysAFailure) {
  TraceBuilder b = replay_after_crash(true);
  // Applied only up to changelog 1 (key 1 = 2), yet answers 1.
  b.add(b.key_query(0, 1).at(101, 101).ok(1, pos(0, 1)).replica(applied(standby(0, pos(0, 1)), 1)));
  JudgeContext context(b.trace());
  const auto vs = judge_and_classify(context);
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].violation_class, ViolationClass::kFailure) << "seed " << kSeed;
  EXPECT_NE(vs[0].class_evidence.find("not the changelog fold"), std::string::npos)
      << "seed " << kSeed << "\n"
      << vs[0].to_string();
}

// Reprocessing that wrote only ABOVE the replica's applied prefix explains nothing: the replica
// never saw it.
TEST(ViolationClassTest, ReprocessingBeyondTheAppliedPrefixExplainsNothing) {
  TraceBuilder b(TopologyKind::SourceTable);
  b.produce(0, 1, 1);
  b.produce(0, 1, 2);
  b.log(0, 1, 1, 100, pos(0, 0), "instance-1", 10);
  b.log(0, 1, 2, 200, pos(0, 1), "instance-1", 11);
  b.log(0, 1, 1, 100, pos(0, 1), "instance-1", 100);
  b.reprocessed(0, 0, 0, "instance-1", 100, 100);
  // A standby that applied 0..1 answers the right value under a wrong position: no ALOS.
  b.add(b.key_query(0, 1).at(101, 101).ok(1, pos(0, 1)).replica(applied(standby(0, pos(0, 1)), 0)));
  JudgeContext context(b.trace());
  const auto vs = judge_and_classify(context);
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].violation_class, ViolationClass::kFailure) << "seed " << kSeed;
}

// Only ResultMatchesModel and SamePositionSameAnswer are ever explained by reprocessing.
TEST(ViolationClassTest, OtherPropertiesStayFailures) {
  TraceBuilder b = replay_after_crash(true);
  b.add(b.key_query(0, 1).at(101, 101).ok(1, pos(0, 1)).replica(applied(active(0, pos(0, 1)), 2)));
  JudgeContext context(b.trace());
  std::vector<Violation> vs = check_result_matches_model(context);
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed;
  vs[0].property = "BoundHonored";
  classify_violations(context, vs);
  EXPECT_EQ(vs[0].violation_class, ViolationClass::kFailure) << "seed " << kSeed;
}

// A persistent standby restarted without a checkpoint answers its pre-crash data under an empty
// position: that class only when the witness finds the answer to be the applied prefix's fold over
// an earlier life's, on an instance that crashed before; otherwise a failure.
TEST(ViolationClassTest, AStoreKeptAcrossARestartWithoutACheckpoint) {
  for (bool crashed : {true, false}) {
    TraceBuilder b(TopologyKind::SourceTable);
    b.produce(0, 1, 1);
    b.produce(0, 2, 2);
    b.log(0, 1, 1, 100, pos(0, 0), "instance-1", 10);
    b.log(0, 2, 2, 200, pos(0, 1), "instance-1", 11);
    if (crashed) b.fault(50, "crash", "instance-1");
    // Restored changelog 0 only, yet key 2 is there: kept from before the crash.
    b.add(b.key_query(0, 2)
              .at(101, 101)
              .ok(2, Position::empty_position())
              .replica(applied(standby(0, Position::empty_position()), 0)));
    JudgeContext context(b.trace());
    const auto vs = judge_and_classify(context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << " crashed=" << crashed << "\n" << text(vs);
    EXPECT_EQ(vs[0].violation_class,
              crashed ? ViolationClass::kRestartWithoutCheckpoint : ViolationClass::kFailure)
        << "seed " << kSeed << "\n"
        << vs[0].to_string();
  }
}

// Key 1 = 1 logged by instance-1; instance-1, isolated at 50 ms, still holds key 1 = 2 (source
// offset 1) in its cache; instance-2 takes over, processes offset 1 again at 100 ms (its writes
// land at 105 and 110 ms, key 1 = 2 then 3 under {0=1} and {0=2}); at 200 ms instance-1's late
// flush appends key 1 = 2 under {0=1}. A standby that applied it all answers 2 under {0=2}.
TraceBuilder fenced_late_flush(bool isolated, int64_t late_header) {
  TraceBuilder b(TopologyKind::SourceTable);
  b.produce(0, 1, 1);
  b.produce(0, 1, 2);
  b.produce(0, 1, 3);
  b.log(0, 1, 1, 100, pos(0, 0), "instance-1", 10);
  if (isolated) b.fault(50, "isolate", "instance-1");
  b.reprocessed(0, 1, 1, "instance-2", 100, 100);
  b.log(0, 1, 2, 200, pos(0, 1), "instance-2", 105);
  b.log(0, 1, 3, 300, pos(0, 2), "instance-2", 110);
  b.log(0, 1, 2, 200, pos(0, late_header), "instance-1", 200);
  b.add(b.key_query(0, 1)
            .at(250, 250)
            .target("instance-3")
            .ok(2, pos(0, 2))
            .replica(applied(standby(0, pos(0, 2), "instance-3"), 3)));
  return b;
}

// A fenced member's late write is Kafka's behaviour only when the record proves it: the answer is
// the fold, and the fold holds a write by an instance cut off before, of input (its header) that
// another instance processed again, appended after that began. Without the isolation, or with a
// header outside the reprocessed range, the same answer stays a failure.
TEST(ViolationClassTest, AFencedMembersLateWriteOnlyWhenTheRecordProvesIt) {
  struct Case {
    bool isolated;
    int64_t late_header;
    ViolationClass want;
  };
  for (const Case c :
       {Case{true, 1, ViolationClass::kFencedLateWrite}, Case{false, 1, ViolationClass::kFailure},
        Case{true, 0, ViolationClass::kFailure}}) {
    TraceBuilder b = fenced_late_flush(c.isolated, c.late_header);
    JudgeContext context(b.trace());
    const auto vs = judge_and_classify(context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << " isolated=" << c.isolated << "\n" << text(vs);
    EXPECT_EQ(vs[0].violation_class, c.want)
        << "seed " << kSeed << " isolated=" << c.isolated << " header=" << c.late_header << "\n"
        << vs[0].to_string();
    EXPECT_EQ(vs[0].to_string().rfind(c.want == ViolationClass::kFencedLateWrite
                                          ? "[known Kafka behaviour: a fenced member's late writes]"
                                          : "[failure]",
                                      0),
              0u)
        << "seed " << kSeed << "\n"
        << vs[0].to_string();
  }
}

// On an LRU store whose answer lacks keys of the fold (evicted without a logged tombstone), the
// proof stands on the keys the answer holds: each is the fold's, so a reprocessed write beneath
// the position explains the violation; a present key that is not the fold's stays a failure.
TEST(ViolationClassTest, AnLruAnswerIsProvenByTheKeysItHolds) {
  for (const bool faithful : {true, false}) {
    TraceBuilder b(TopologyKind::SourceTable, KeyValueSupplier::kLruMap);
    b.trace().topology.lru_max_entries = 1;
    b.produce(0, 1, 1);
    b.produce(0, 2, 2);
    b.produce(0, 1, 3);
    b.log(0, 1, 1, 100, pos(0, 0), "instance-1", 10);
    b.log(0, 2, 2, 200, pos(0, 1), "instance-1", 11);
    b.log(0, 1, 3, 300, pos(0, 2), "instance-1", 12);
    b.fault(50, "crash", "instance-1");
    b.reprocessed(0, 0, 0, "instance-1", 100, 100);
    b.log(0, 1, 1, 100, pos(0, 2), "instance-1", 100);  // offset 0 again, under {0=2}
    // Key 2 evicted; key 1 as the log holds it (1), or as neither the log nor the model does (7).
    b.add(b.range_query(0, 1, 2)
              .at(150, 150)
              .target("instance-2")
              .ok_entries({{1, faithful ? 1 : 7}}, pos(0, 2))
              .replica(applied(standby(0, pos(0, 2), "instance-2"), 3)));
    JudgeContext context(b.trace());
    const auto vs = judge_and_classify(context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << " faithful=" << faithful << "\n" << text(vs);
    EXPECT_EQ(vs[0].violation_class,
              faithful ? ViolationClass::kAtLeastOnceReprocessing : ViolationClass::kFailure)
        << "seed " << kSeed << "\n"
        << vs[0].to_string();
  }
}

}  // namespace
}  // namespace iq::properties
