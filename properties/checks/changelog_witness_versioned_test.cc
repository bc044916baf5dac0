// ChangelogWitness on a versioned store (changelog_witness_versioned.cc) and the class of quirk 17
// (versioned_reopened.cc): an answer that is the fold of the applied prefix holds, a selection of
// the prefix's versions that is not the fold is passed over, a version no record gives fails; a
// ResultMatchesModel violation is a reopened store's (quirk 17) only when the simulator recorded
// the reopening and the answer holds only the log's versions, and a restore batch's (quirk 18,
// versioned_restore_batch.cc) is a candidate that the runner's rerun decides.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using namespace testing;  // NOLINT

// testing::versioned_table() with each record logged, the writer's position after it as header.
TraceBuilder versioned_log() {
  TraceBuilder b = versioned_table();
  b.log(0, 1, 10, 1'000, pos(0, 0));
  b.log(0, 1, 12, 3'000, pos(0, 1));
  b.log(0, 1, 11, 2'000, pos(0, 2));
  return b;
}

Q versioned(TraceBuilder& b, sim::VersionedList answer, int64_t position, int64_t applied_offset,
            bool reopened = false) {
  Q q = b.key_query(0, 1, QueryKind::MultiVersionedKeyQuery);
  q.ok(std::nullopt, pos(0, position));
  q.r.partitions.back().value = std::move(answer);
  q.r.request.order = ResultOrder::ASCENDING;
  sim::ReplicaSnapshot replica = applied(standby(0, pos(0, position)), applied_offset);
  replica.versioned_store_reopened = reopened;
  q.replica(std::move(replica));
  return q;
}

TEST(ChangelogWitnessVersionedTest, FoldHoldsSelectionIsPassedOverInventionFails) {
  TraceBuilder b = versioned_log();
  // The fold of [.., 2]: the out-of-order 11 shortened 10's validity.
  b.add(versioned(b, {{10, 1'000, 2'000}, {11, 2'000, 3'000}, {12, 3'000, std::nullopt}}, 2, 2));
  // What a reopened store that never re-created the older segment answers: the latest only.
  b.add(versioned(b, {{12, 3'000, std::nullopt}}, 2, 2));
  // 10 valid until 3000 is the fold of [.., 1], not of [.., 2]; but every part of it is a record.
  b.add(versioned(b, {{10, 1'000, 3'000}, {12, 3'000, std::nullopt}}, 2, 2));
  // 11 before its record was applied, and a value no record of the key ever had.
  b.add(versioned(b, {{11, 2'000, 3'000}, {12, 3'000, std::nullopt}}, 1, 1));
  b.add(versioned(b, {{99, 1'000, 3'000}}, 2, 2));
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 4u) << "seed " << kSeed;
  EXPECT_NE(vs[0].summary.find("11@[2000,3000)"), std::string::npos) << vs[0].summary;
  EXPECT_EQ(vs[1].record_id, 5u) << "seed " << kSeed;
  const CheckTally& tally = context.tallies().at("ChangelogWitness");
  EXPECT_EQ(tally.judged, 3u) << "seed " << kSeed;
  ASSERT_EQ(tally.not_judged.size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(tally.not_judged.begin()->second, 2u) << "seed " << kSeed;
}

// After a restart the store may hold versions of records beyond its applied prefix (appended
// before the answer): still the log's, so the answer is passed over, not failed.
TEST(ChangelogWitnessVersionedTest, AfterARestartRecordsAppendedBeforeTheAnswerCount) {
  TraceBuilder b = versioned_log();
  b.fault(0, sim::FaultKind::kCrash, "instance-1");
  b.add(versioned(b, {{11, 2'000, 3'000}}, 0, 0));
  JudgeContext context(b.trace());
  EXPECT_TRUE(check_changelog_witness(context).empty()) << "seed " << kSeed;
}

// Where the store object's life is recorded, it alone says whether the store may hold an earlier
// object's data: after the same crash, a life that opened over kept data is passed over as above,
// and one that opened empty is judged by the fold of what it was given (a version of a record it
// was never given fails), whatever the faults say.
TEST(ChangelogWitnessVersionedTest, ARecordedLifeDecidesWhetherEarlierDataMayBeKept) {
  for (const bool kept : {true, false}) {
    TraceBuilder b = versioned_log();
    b.fault(0, sim::FaultKind::kCrash, "instance-1");
    sim::StoreLife life;
    life.id = 1;
    life.instance = "instance-1";
    life.partition = 0;
    life.persistent = true;
    life.over_kept_data = kept;
    life.events.push_back({sim::StoreLifeEvent::Kind::kGiven, ChangelogOffset(0),
                           ChangelogOffset(0), base::Instant{}});
    b.trace().store_lives.push_back(life);
    Q q = versioned(b, {{11, 2'000, 3'000}}, 0, 0);
    for (sim::ReplicaSnapshot& r : q.r.placement_at_invoke.replicas) r.store_life = 1;
    if (q.r.placement_at_answer) {
      for (sim::ReplicaSnapshot& r : q.r.placement_at_answer->replicas) r.store_life = 1;
    }
    b.add(q);
    JudgeContext context(b.trace());
    EXPECT_EQ(check_changelog_witness(context).size(), kept ? 0u : 1u)
        << "seed " << kSeed << " over kept data: " << kept;
  }
}

TEST(VersionedStoreReopenedTest, ProvenOnlyOnARecordedReopeningWithTheLogsVersions) {
  TraceBuilder b = versioned_log();
  // Both answer the latest only at offset 2, where the model holds all three versions.
  b.add(versioned(b, {{12, 3'000, std::nullopt}}, 2, 2, /*reopened=*/true));
  b.add(versioned(b, {{12, 3'000, std::nullopt}}, 2, 2, /*reopened=*/false));
  JudgeContext context(b.trace());
  std::vector<Violation> vs = check_result_matches_model(context);
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  classify_violations(context, vs);
  EXPECT_EQ(vs[0].violation_class, ViolationClass::kVersionedStoreReopened)
      << "seed " << kSeed << "\n"
      << vs[0].class_evidence;
  // Not reopened: no quirk 17. A standby given its changelog is quirk 18's candidate instead,
  // which only the runner's rerun can attribute.
  EXPECT_NE(vs[1].violation_class, ViolationClass::kVersionedStoreReopened) << "seed " << kSeed;
  EXPECT_TRUE(vs[1].needs_rerun) << "seed " << kSeed << "\n" << vs[1].class_evidence;
}

// Quirk 18's candidate (versioned_restore_batch.cc): a versioned answer from a store that was
// given its changelog in restore batches (in a trace without lives, a standby) is named
// kVersionedRestoreDroppedExpired with needs_rerun set, whatever versions it lacks: the rerun with
// the quirk off decides (RunnerTest.AQuirkClassIsAttributedOnlyByARerunThatIsTheSameRunWithoutIt).
// An active that processed the records itself is no candidate, nor a store reopened over kept
// data (quirk 17's class, tested above).
TEST(VersionedRestoreDroppedExpiredTest, ACandidateIsAStoreGivenItsChangelogInRestoreBatches) {
  struct Case {
    const char* what;
    sim::VersionedList answer;
    bool standby;
    // A recorded store life for the replica: given changelog offsets (true) or only its own
    // writes (false); none: a trace without lives, where the role decides.
    std::optional<bool> life_given;
    bool candidate;
  };
  const sim::VersionedList lacking = {{11, 2'000, 3'000}, {12, 3'000, std::nullopt}};
  const std::vector<Case> cases = {
      {"a standby lacking a version", lacking, true, std::nullopt, true},
      {"a standby lacking the latest",
       {{10, 1'000, 2'000}, {11, 2'000, 3'000}},
       true,
       std::nullopt,
       true},
      {"an active", lacking, false, std::nullopt, false},
      {"an active whose life restored", lacking, false, true, true},
      {"a standby whose life was given nothing", lacking, true, false, false},
  };
  for (const Case& c : cases) {
    TraceBuilder b = versioned_log();
    sim::ReplicaSnapshot replica =
        applied(c.standby ? standby(0, pos(0, 2)) : active(0, pos(0, 2)), 2);
    if (c.life_given) {
      sim::StoreLife life;
      life.id = 1;
      life.instance = "instance-1";
      life.events.push_back(
          {*c.life_given ? sim::StoreLifeEvent::Kind::kGiven : sim::StoreLifeEvent::Kind::kWrote,
           ChangelogOffset(0), ChangelogOffset(2), base::Instant{}});
      b.trace().store_lives.push_back(life);
      replica.store_life = 1;
    }
    Q q = b.key_query(0, 1, QueryKind::MultiVersionedKeyQuery);
    q.ok(std::nullopt, pos(0, 2));
    q.r.partitions.back().value = c.answer;
    q.r.request.order = ResultOrder::ASCENDING;
    q.replica(std::move(replica));
    b.add(q);
    JudgeContext context(b.trace());
    std::vector<Violation> vs = check_result_matches_model(context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << " " << c.what << "\n" << text(vs);
    classify_violations(context, vs);
    EXPECT_EQ(vs[0].violation_class, c.candidate ? ViolationClass::kVersionedRestoreDroppedExpired
                                                 : ViolationClass::kFailure)
        << "seed " << kSeed << " " << c.what << "\n"
        << vs[0].class_evidence;
    EXPECT_EQ(vs[0].needs_rerun, c.candidate) << "seed " << kSeed << " " << c.what;
  }
}

}  // namespace
}  // namespace iq::properties
