// ScriptedExpectations: a scripted step's expected outcome against its record, field by field.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using testing::kSeed;
using testing::pos;
using testing::text;
using testing::TraceBuilder;
using Expected = sim::ScriptedExpectation;

sim::ExpectedPartition value_at(int32_t partition, std::optional<int64_t> value,
                                std::optional<Position> position = std::nullopt) {
  sim::ExpectedPartition p;
  p.partition = partition;
  p.success = true;
  p.value = value;
  p.position = std::move(position);
  return p;
}

TraceBuilder with_records() {
  TraceBuilder b(TopologyKind::SourceTable, KeyValueSupplier::kRocksDbTimestamped, false, 2);
  b.add(b.key_query(0, 1).ok(5, pos(0, 4)));                                        // #1
  b.add(b.range_query(0, 1, 3).ok_entries({{1, 5}, {3, 6}}, pos(0, 4), {10, 20}));  // #2
  b.add(b.key_query(1, 2).fail(FailureReason::NOT_UP_TO_BOUND, pos(1, 0), -1,
                               "For store kv-store, partition 1 is not up to the bound"));    // #3
  b.add(b.key_query(0, 1).store("nope").error(StreamsError::Kind::UnknownStateStore, "no"));  // #4
  return b;
}

TEST(ScriptedExpectationsTest, MatchingOutcomesPass) {
  TraceBuilder b = with_records();
  auto& e = b.trace().expectations;
  e.push_back({1,
               "x.toml:1",
               {value_at(0, 5, pos(0, 4))},
               std::nullopt,
               std::set<int32_t>{0},
               std::nullopt,
               std::nullopt});
  sim::ExpectedPartition range;
  range.partition = 0;
  range.entries = sim::KeyValueList{{1, 5}, {3, 6}};
  range.timestamps = std::vector<int64_t>{10, 20};
  e.push_back({2, "x.toml:2", {range}, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  sim::ExpectedPartition refused;
  refused.partition = 1;
  refused.failure_reason = FailureReason::NOT_UP_TO_BOUND;
  refused.message_contains = "not up to the bound";
  e.push_back({3, "x.toml:3", {refused}, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  e.push_back({4,
               "x.toml:4",
               {},
               std::string("UnknownStateStoreException"),
               std::nullopt,
               std::nullopt,
               std::nullopt});
  e.push_back({4,
               "x.toml:5",
               {},
               std::string("UnknownStateStore"),
               std::nullopt,
               std::nullopt,
               std::nullopt});
  JudgeContext context(b.trace());
  const auto vs = check_scripted_expectations(context);
  EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(context.tallies().at("ScriptedExpectations").judged, 5u) << "seed " << kSeed;
}

// A step's expect is the file's own assertion: judged even in a test whose checks omit it.
TEST(ScriptedExpectationsTest, JudgedWhateverTheTestsCheckList) {
  TraceBuilder b = with_records();
  b.phase("bounds only", 0, 1'000, {"BoundHonored"});
  b.trace().expectations.push_back(
      {1, "x.toml:1", {value_at(0, 6)}, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  EXPECT_EQ(check_scripted_expectations(JudgeContext(b.trace())).size(), 1u) << "seed " << kSeed;
}

TEST(ScriptedExpectationsTest, DifferingFieldsFail) {
  TraceBuilder b = with_records();
  auto& e = b.trace().expectations;
  // Value and position both differ: one violation naming both.
  e.push_back({1,
               "x.toml:1",
               {value_at(0, 6, pos(0, 5))},
               std::nullopt,
               std::nullopt,
               std::nullopt,
               std::nullopt});
  // The answered partitions differ.
  e.push_back(
      {1, "x.toml:2", {}, std::nullopt, std::set<int32_t>{0, 1}, std::nullopt, std::nullopt});
  // Another failure reason and message.
  sim::ExpectedPartition refused;
  refused.partition = 1;
  refused.failure_reason = FailureReason::NOT_ACTIVE;
  refused.message_contains = "requires a running active";
  e.push_back({3, "x.toml:3", {refused}, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  // An error where an answer came, and an answer where an error was due.
  e.push_back({1,
               "x.toml:4",
               {},
               std::string("StreamsStoppedException"),
               std::nullopt,
               std::nullopt,
               std::nullopt});
  e.push_back(
      {4, "x.toml:5", {value_at(0, 5)}, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  // A partition without a result.
  e.push_back(
      {1, "x.toml:6", {value_at(1, 5)}, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  // A record that does not exist.
  e.push_back({99, "x.toml:7", {}, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  const auto vs = check_scripted_expectations(JudgeContext(b.trace()));
  ASSERT_EQ(vs.size(), 7u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, "value=6; position=Position{position={input-topic={0=5}}}")
      << "seed " << kSeed;
  EXPECT_NE(vs[0].summary.find("x.toml:1"), std::string::npos) << vs[0].summary;
  EXPECT_EQ(vs[1].expected, "{0,1}") << "seed " << kSeed;
  EXPECT_EQ(vs[2].expected,
            "failure_reason=NOT_ACTIVE; message containing 'requires a running active'")
      << "seed " << kSeed;
  EXPECT_EQ(vs[6].record_id, 99u) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
