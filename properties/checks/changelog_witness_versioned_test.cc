// ChangelogWitness on a versioned store (changelog_witness_versioned.cc) and the class of quirk 17
// (versioned_reopened.cc): an answer that is the fold of the applied prefix holds, a selection of
// the prefix's versions that is not the fold is passed over, a version no record gives fails; a
// ResultMatchesModel violation is a reopened store's (quirk 17) only when the simulator recorded
// the reopening and the answer holds only the log's versions.

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
  b.fault(0, "crash", "instance-1");
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

}  // namespace
}  // namespace iq::properties
