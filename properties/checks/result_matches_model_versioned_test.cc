// ResultMatchesModel on versioned answers (VersionedTable): VersionedKeyQuery and
// MultiVersionedKeyQuery results equal to the model's version history pass, wrong validity
// intervals fail, and answers that hang on the replica's observed stream time are not judged.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using testing::kSeed;
using testing::pos;
using testing::text;
using testing::TraceBuilder;

using testing::versioned_table;

testing::Q versioned(TraceBuilder& b, QueryKind kind, sim::VersionedList answer, int64_t offset) {
  testing::Q q = b.key_query(0, 1, kind);
  q.ok(std::nullopt, pos(0, offset));
  q.r.partitions.back().value = std::move(answer);
  return q;
}

TEST(ResultMatchesModelVersionedTest, ModelHistoriesPassAndWrongIntervalsFail) {
  TraceBuilder b = versioned_table();
  // asOf 2500 before and after the out-of-order record at offset 2.
  auto before = versioned(b, QueryKind::VersionedKeyQuery, {{10, 1'000, 3'000}}, 1);
  before.r.request.as_of_ms = 2'500;
  b.add(before);
  auto after = versioned(b, QueryKind::VersionedKeyQuery, {{11, 2'000, 3'000}}, 2);
  after.r.request.as_of_ms = 2'500;
  b.add(after);
  b.add(versioned(b, QueryKind::VersionedKeyQuery, {{12, 3'000, std::nullopt}}, 2));
  auto range = versioned(b, QueryKind::MultiVersionedKeyQuery,
                         {{10, 1'000, 2'000}, {11, 2'000, 3'000}, {12, 3'000, std::nullopt}}, 2);
  range.r.request.order = ResultOrder::ASCENDING;
  b.add(range);
  // The interval the out-of-order record shortened, reported as it was before it.
  auto wrong = versioned(b, QueryKind::VersionedKeyQuery, {{10, 1'000, 3'000}}, 2);
  wrong.r.request.as_of_ms = 1'500;
  b.add(wrong);
  JudgeContext context(b.trace());
  const auto vs = check_result_matches_model(context);
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 5u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].expected, "[10@[1000,2000)]") << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("ResultMatchesModel").judged, 5u) << "seed " << kSeed;
}

TEST(ResultMatchesModelVersionedTest, AnswersOnTheObservedStreamTimeAreNotJudged) {
  TraceBuilder b = versioned_table();
  b.produce(0, 2, 20, 20'000);  // stream time 20000: history from 10000
  b.produce(0, 1, 13, 5'000);   // beyond grace: dropped (offset 4)
  // A reopened store (stream time -1) would answer asOf 2500 from its segments.
  auto as_of = versioned(b, QueryKind::VersionedKeyQuery, {{11, 2'000, 3'000}}, 3);
  as_of.r.request.key = 2;
  as_of.r.request.as_of_ms = 2'500;
  b.add(as_of);
  auto dropped = versioned(b, QueryKind::VersionedKeyQuery, {{13, 5'000, std::nullopt}}, 4);
  b.add(dropped);
  JudgeContext context(b.trace());
  const auto vs = check_result_matches_model(context);
  EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
  const CheckTally& tally = context.tallies().at("ResultMatchesModel");
  EXPECT_EQ(tally.judged, 0u) << "seed " << kSeed;
  EXPECT_EQ(tally.not_judged.size(), 2u) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
