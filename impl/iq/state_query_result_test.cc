// Unit tests of StateQueryResult, ported from Kafka's StateQueryResultTest (docs/iqv2-semantics.md
// §6).
#include "iq/state_query_result.h"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>

namespace iq {

// How gtest prints a Position in a failure message (Kafka's toString).
static void PrintTo(const Position& p, std::ostream* os) {
  *os << p.to_string();
}

namespace {

using StringResult = std::optional<std::string>;

QueryResult success(StringResult value) {
  return QueryResult::for_result(std::move(value));
}

QueryResult with_position(QueryResult r, Position::Map map) {
  r.set_position(Position::from_map(map));
  return r;
}

TEST(StateQueryResultTest, OnlyPartitionResultOfASingleNullSuccessIsNull) {
  // Proves a single success with a null result gives null (Kafka: getOnlyPartitionResult() ==
  // null).
  StateQueryResult result;
  result.add_result(0, success(std::nullopt));
  auto only = result.only_partition_result<std::string>();
  ASSERT_TRUE(only.has_value()) << only.error().to_string();
  EXPECT_EQ(*only, nullptr);
}

TEST(StateQueryResultTest, OnlyPartitionResultOfASingleSuccessIsIt) {
  // Proves a single success with "Foo" is returned as the only partition result.
  StateQueryResult result;
  result.add_result(0, success("Foo"));
  auto only = result.only_partition_result<std::string>();
  ASSERT_TRUE(only.has_value()) << only.error().to_string();
  ASSERT_NE(*only, nullptr);
  EXPECT_EQ((*only)->result<StringResult>(), StringResult("Foo"));
  EXPECT_EQ(*only, &result.partition_results().at(0));
}

TEST(StateQueryResultTest, TwoNonNullSuccessesAreAnIllegalArgument) {
  // Proves two successes with non-null results fail with Kafka's IllegalArgumentException message.
  StateQueryResult result;
  result.add_result(0, success("Foo"));
  result.add_result(1, success("Bar"));
  auto only = result.only_partition_result<std::string>();
  ASSERT_FALSE(only.has_value());
  EXPECT_EQ(only.error().kind, StreamsError::Kind::IllegalArgument);
  const std::string prefix = "The query did not return exactly one partition result";
  EXPECT_EQ(only.error().message.rfind(prefix, 0), 0u) << only.error().message;
  // The message goes on with the partition map, as Java's HashMap.toString renders it.
  EXPECT_EQ(only.error().message.rfind(prefix + ": {0=", 0), 0u) << only.error().message;
}

TEST(StateQueryResultTest, NullSuccessesDoNotCountAgainstTheOnlyResult) {
  // Proves null successes are filtered out, so one non-null among several nulls is returned.
  StateQueryResult result;
  result.add_result(0, success(std::nullopt));
  result.add_result(1, success("Foo"));
  result.add_result(2, success(std::nullopt));
  auto only = result.only_partition_result<std::string>();
  ASSERT_TRUE(only.has_value()) << only.error().to_string();
  ASSERT_NE(*only, nullptr);
  EXPECT_EQ((*only)->result<StringResult>(), StringResult("Foo"));
}

TEST(StateQueryResultTest, FailuresAreIgnored) {
  // Proves failed partitions are silently skipped: with one success it wins, with none it is null.
  StateQueryResult result;
  result.add_result(0, QueryResult::for_failure(FailureReason::NOT_UP_TO_BOUND, "behind"));
  result.add_result(1, success("Foo"));
  result.add_result(2, QueryResult::for_failure(FailureReason::STORE_EXCEPTION, "boom"));
  auto only = result.only_partition_result<std::string>();
  ASSERT_TRUE(only.has_value()) << only.error().to_string();
  ASSERT_NE(*only, nullptr);
  EXPECT_EQ(*only, &result.partition_results().at(1));

  StateQueryResult all_failed;
  all_failed.add_result(0, QueryResult::for_failure(FailureReason::NOT_UP_TO_BOUND, "behind"));
  all_failed.add_result(1, QueryResult::for_failure(FailureReason::NOT_ACTIVE, "standby"));
  auto none = all_failed.only_partition_result<std::string>();
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(*none, nullptr);
}

TEST(StateQueryResultTest, NoPartitionResultsIsNull) {
  // Proves an empty result has no only partition result, and that is not an error.
  StateQueryResult result;
  auto only = result.only_partition_result<std::string>();
  ASSERT_TRUE(only.has_value());
  EXPECT_EQ(*only, nullptr);
}

TEST(StateQueryResultTest, AddResultOverwritesADuplicatePartition) {
  // Proves adding a second result for a partition replaces the first, as HashMap.put does.
  StateQueryResult result;
  result.add_result(0, success("Foo"));
  result.add_result(0, success("Bar"));
  ASSERT_EQ(result.partition_results().size(), 1u);
  auto only = result.only_partition_result<std::string>();
  ASSERT_TRUE(only.has_value());
  ASSERT_NE(*only, nullptr);
  EXPECT_EQ((*only)->result<StringResult>(), StringResult("Bar"));
}

TEST(StateQueryResultTest, PositionMergesEveryPartitionIncludingFailures) {
  // Proves position() merges the positions of all partition results, failed ones included, and
  // skips results that carry none.
  StateQueryResult result;
  result.add_result(0, with_position(success("Foo"), {{"input", {{0, 5}}}}));
  result.add_result(1, with_position(QueryResult::for_failure(FailureReason::NOT_UP_TO_BOUND, "b"),
                                     {{"input", {{1, 3}}}, {"other", {{1, 7}}}}));
  result.add_result(2, QueryResult::for_failure(FailureReason::NOT_ACTIVE, "no position"));
  result.add_result(3, with_position(success(std::nullopt), {{"input", {{0, 2}}}}));
  const auto position = result.position();
  ASSERT_TRUE(position.has_value());
  EXPECT_EQ(*position, Position::from_map({{"input", {{0, 5}, {1, 3}}}, {"other", {{1, 7}}}}));
}

TEST(StateQueryResultTest, PositionOfNoResultsIsEmpty) {
  // Proves a result with no partitions has the empty position (not null).
  StateQueryResult result;
  const auto position = result.position();
  ASSERT_TRUE(position.has_value());
  EXPECT_TRUE(position->is_empty());
}

TEST(StateQueryResultTest, GlobalResultPositionIsReturned) {
  // Proves a global result's own position is returned, partition results notwithstanding.
  StateQueryResult result;
  result.add_result(0, with_position(success("Foo"), {{"input", {{0, 5}}}}));
  result.set_global_result(with_position(success("G"), {{"global", {{0, 1}}}}));
  const auto position = result.position();
  ASSERT_TRUE(position.has_value());
  EXPECT_EQ(*position, Position::from_map({{"global", {{0, 1}}}}));
}

TEST(StateQueryResultTest, GlobalResultWithoutPositionGivesNull) {
  // Proves a global result with no position makes position() null, as it is in Kafka today.
  StateQueryResult result;
  result.set_global_result(success("G"));
  EXPECT_FALSE(result.position().has_value());
  EXPECT_TRUE(result.global_result().has_value());
}

}  // namespace
}  // namespace iq
