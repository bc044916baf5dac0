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

// ---- The 2026-08-20 pin (pin delta 16, e0e7323f9b; delta 17, 67fa3656cc) ----
// Ported from Kafka's StateQueryResultTest at 8f4e08b5a3 (getOnlyPartitionResult* cases), plus
// the cases the new rule decides that Kafka's test does not name.

namespace iq {
namespace {

constexpr KafkaPin kNewPin = KafkaPin::k2026_08_20;

TEST(StateQueryResultNewPinTest, OnlyPartitionResultOfASingleFailureIsTheFailure) {
  // Proves getOnlyPartitionResultWithSingleFailureResultTest: at the new pin a lone failure is the
  // only result; at the old pin (quirk 9) it is dropped and the answer is null.
  for (KafkaPin pin : {KafkaPin::k2024_10_25, kNewPin}) {
    StateQueryResult result(pin);
    result.add_result(0, QueryResult::for_failure(FailureReason::DOES_NOT_EXIST, "Does not exist"));
    auto only = result.only_partition_result<std::string>();
    ASSERT_TRUE(only.has_value()) << only.error().to_string();
    if (pin == kNewPin) {
      ASSERT_NE(*only, nullptr);
      EXPECT_TRUE((*only)->is_failure());
    } else {
      EXPECT_EQ(*only, nullptr);
    }
  }
}

TEST(StateQueryResultNewPinTest, NullSuccessAndMultipleResultsAreAsBefore) {
  // Proves getOnlyPartitionResultNoResultsTest, ...WithSingleResultTest and
  // ...MultipleResults hold unchanged at the new pin.
  StateQueryResult none(kNewPin);
  none.add_result(0, success(std::nullopt));
  auto n = none.only_partition_result<std::string>();
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(*n, nullptr);

  StateQueryResult one(kNewPin);
  one.add_result(0, success("Foo"));
  auto o = one.only_partition_result<std::string>();
  ASSERT_TRUE(o.has_value());
  ASSERT_NE(*o, nullptr);
  EXPECT_EQ((*o)->result<StringResult>(), StringResult("Foo"));

  StateQueryResult two(kNewPin);
  two.add_result(0, success("Foo"));
  two.add_result(1, success("Foo"));
  auto t = two.only_partition_result<std::string>();
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().kind, StreamsError::Kind::IllegalArgument);
}

TEST(StateQueryResultNewPinTest, AFailureBesideAHitOrAFailureThrows) {
  // Proves the new filter (isFailure() || result != null) counts failures: a failure beside a hit,
  // or two failures, is more than one result (IllegalArgumentException), where the old pin
  // returned the hit, or null.
  StateQueryResult mixed(kNewPin);
  mixed.add_result(0, QueryResult::for_failure(FailureReason::NOT_UP_TO_BOUND, "behind"));
  mixed.add_result(1, success("Foo"));
  auto m = mixed.only_partition_result<std::string>();
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().kind, StreamsError::Kind::IllegalArgument);

  StateQueryResult failures(kNewPin);
  failures.add_result(0, QueryResult::for_failure(FailureReason::NOT_UP_TO_BOUND, "behind"));
  failures.add_result(1, QueryResult::for_failure(FailureReason::NOT_ACTIVE, "standby"));
  EXPECT_FALSE(failures.only_partition_result<std::string>().has_value());

  // A null success beside a failure: the failure is the only one.
  StateQueryResult null_and_failure(kNewPin);
  null_and_failure.add_result(0, success(std::nullopt));
  null_and_failure.add_result(1, QueryResult::for_failure(FailureReason::NOT_ACTIVE, "standby"));
  auto f = null_and_failure.only_partition_result<std::string>();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(*f, &null_and_failure.partition_results().at(1));
}

TEST(StateQueryResultNewPinTest, PositionDropsEmptyTopicsOnlyAtTheNewPin) {
  // Proves getPosition() merges through Position.merge of its pin: a partition result whose
  // position names a topic without partitions adds that topic at the old pin, not at the new one.
  for (KafkaPin pin : {KafkaPin::k2024_10_25, kNewPin}) {
    StateQueryResult result(pin);
    result.add_result(0, with_position(success("Foo"), {{"input", {{0, 5}}}}));
    result.add_result(1, with_position(success(std::nullopt), {{"other", {}}}));
    const Position::Map want = pin == kNewPin ? Position::Map{{"input", {{0, 5}}}}
                                              : Position::Map{{"input", {{0, 5}}}, {"other", {}}};
    EXPECT_EQ(result.position(), Position::from_map(want)) << to_string(pin);
  }
}

}  // namespace
}  // namespace iq
