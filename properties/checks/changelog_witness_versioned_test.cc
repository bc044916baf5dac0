// ChangelogWitness on a versioned store (changelog_witness_versioned.cc) and the class of quirk 17
// (versioned_reopened.cc): an answer that is the fold of the applied prefix holds, a selection of
// the prefix's versions that is not the fold is passed over, a version no record gives fails; a
// ResultMatchesModel violation is a reopened store's (quirk 17) only when the simulator recorded
// the reopening and the answer holds only the log's versions, and a restore batch's (quirk 18,
// versioned_restore_batch.cc) only when a standby lacks versions beyond the history retention.

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
  EXPECT_EQ(vs[1].violation_class, ViolationClass::kFailure) << "seed " << kSeed;
  EXPECT_NE(vs[1].class_evidence.find("did not open over an earlier store object's data"),
            std::string::npos)
      << vs[1].class_evidence;
}

// Quirk 18's class (versioned_restore_batch.cc): with a 2 s history retention, key 1's versions
// 10@[1000,2000) and 11@[2000,3000) end beyond the retention once key 2's record at 6000 ms has
// moved the stream time on, yet live processing keeps them (their segment, [0, 5000), has not
// expired). A standby lacking 10@[1000,2000) is proven; lacking the latest version, lacking a
// version inside the retention (the stream time only reached 3000 ms when it answered), or an
// active lacking the same version, stays a failure.
TEST(VersionedRestoreDroppedExpiredTest, ProvenOnlyForAStandbyLackingVersionsBeyondRetention) {
  struct Case {
    const char* what;
    sim::VersionedList answer;
    int64_t applied;  // the applied prefix's last offset (3: key 2's record included)
    bool standby;
    bool proven;
  };
  const std::vector<Case> cases = {
      {"beyond retention", {{11, 2'000, 3'000}, {12, 3'000, std::nullopt}}, 3, true, true},
      {"the latest", {{10, 1'000, 2'000}, {11, 2'000, 3'000}}, 3, true, false},
      {"inside retention", {{11, 2'000, 3'000}, {12, 3'000, std::nullopt}}, 2, true, false},
      {"an active", {{11, 2'000, 3'000}, {12, 3'000, std::nullopt}}, 3, false, false},
  };
  for (const Case& c : cases) {
    TraceBuilder b = versioned_log();
    b.trace().topology.history_retention_ms = 2'000;
    b.trace().topology.segment_interval_ms = 5'000;
    b.produce(0, 2, 5, 6'000);
    b.log(0, 2, 5, 6'000, pos(0, 3));
    Q q = b.key_query(0, 1, QueryKind::MultiVersionedKeyQuery);
    q.ok(std::nullopt, pos(0, c.applied));
    q.r.partitions.back().value = c.answer;
    q.r.request.order = ResultOrder::ASCENDING;
    q.replica(applied(c.standby ? standby(0, pos(0, c.applied)) : active(0, pos(0, c.applied)),
                      c.applied));
    b.add(q);
    JudgeContext context(b.trace());
    std::vector<Violation> vs = check_result_matches_model(context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << " " << c.what << "\n" << text(vs);
    classify_violations(context, vs);
    EXPECT_EQ(vs[0].violation_class,
              c.proven ? ViolationClass::kVersionedRestoreDroppedExpired : ViolationClass::kFailure)
        << "seed " << kSeed << " " << c.what << "\n"
        << vs[0].class_evidence;
  }
}

}  // namespace
}  // namespace iq::properties
