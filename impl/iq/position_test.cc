// Unit tests of Position and PositionBound, ported from Kafka's PositionTest and
// PositionBoundTest (docs/iqv2-semantics.md §1).
#include "iq/position.h"

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "iq/position_bound.h"

namespace iq {

// How gtest prints a Position in a failure message (Kafka's toString).
static void PrintTo(const Position& p, std::ostream* os) {
  *os << p.to_string();
}
static void PrintTo(const PositionBound& b, std::ostream* os) {
  *os << b.to_string();
}

namespace {

// Kafka makes hashCode throw so that a Position can never be a hash key; here the same intent
// is kept at compile time by not providing std::hash for either class.
static_assert(!std::is_default_constructible_v<std::hash<Position>>,
              "Position must not be usable as a hash key");
static_assert(!std::is_default_constructible_v<std::hash<PositionBound>>,
              "PositionBound must not be usable as a hash key");

Position::Map example_map() {
  return {{"topic", {{0, 5}}}, {"topic1", {{0, 5}, {7, 0}}}};
}

// ---------------------------------------------------------------------------------------------
// PositionTest

TEST(PositionTest, FromMapIsADeepCopy) {
  // Proves from_map copies its input, so later changes to the source map do not show.
  Position::Map source = example_map();
  const Position position = Position::from_map(source);
  source["topic"][0] = 99;
  source["topic1"].erase(7);
  source["topic2"][1] = 1;
  EXPECT_EQ(position.map(), example_map());
  EXPECT_EQ(position.partition_positions("topic"), (Position::PartitionOffsets{{0, 5}}));
  EXPECT_EQ(position.partition_positions("topic1"), (Position::PartitionOffsets{{0, 5}, {7, 0}}));
  EXPECT_TRUE(position.partition_positions("topic2").empty());
}

TEST(PositionTest, FromEmptyMapIsEmpty) {
  // Proves the C++ counterpart of fromMap(null), from_map of an empty map, is the empty position.
  const Position position = Position::from_map({});
  EXPECT_TRUE(position.is_empty());
  EXPECT_EQ(position, Position::empty_position());
  EXPECT_TRUE(position.topics().empty());
}

TEST(PositionTest, MergeKeepsTheMaxOfEveryComponentAndAddsNewOnes) {
  // Proves Kafka's merge example gives exactly {topic:{0:7}, topic1:{0:5,7:0,8:1}, topic2:{9:5}}.
  Position position = Position::from_map(example_map());
  const Position other =
      Position::from_map({{"topic", {{0, 7}}}, {"topic1", {{8, 1}}}, {"topic2", {{9, 5}}}});
  position.merge(other);
  const Position expected = Position::from_map(
      {{"topic", {{0, 7}}}, {"topic1", {{0, 5}, {7, 0}, {8, 1}}}, {"topic2", {{9, 5}}}});
  EXPECT_EQ(position, expected);
  EXPECT_EQ(position.to_string(),
            "Position{position={topic={0=7}, topic1={0=5, 7=0, 8=1}, topic2={9=5}}}");
  // The argument is left alone.
  EXPECT_EQ(other,
            Position::from_map({{"topic", {{0, 7}}}, {"topic1", {{8, 1}}}, {"topic2", {{9, 5}}}}));
}

TEST(PositionTest, MergeMutatesAndReturnsTheReceiver) {
  // Proves merge changes the receiver in place and returns a reference to it, as Kafka's does.
  Position position = Position::from_map({{"t", {{0, 1}}}});
  Position& returned = position.merge(Position::from_map({{"t", {{0, 2}}}}));
  EXPECT_EQ(&returned, &position);
  EXPECT_EQ(*position.offset("t", 0), 2);
}

TEST(PositionTest, MergeNeverLowersAComponent) {
  // Proves a merge with lower offsets leaves the existing higher offsets in place.
  Position position = Position::from_map({{"t", {{0, 10}, {1, 3}}}});
  position.merge(Position::from_map({{"t", {{0, 4}, {1, 3}}}}));
  EXPECT_EQ(position, Position::from_map({{"t", {{0, 10}, {1, 3}}}}));
}

TEST(PositionTest, MergeWithEmptyIsNoChange) {
  // Proves the C++ counterpart of merge(null), a merge with the empty position, changes nothing.
  Position position = Position::from_map(example_map());
  position.merge(Position::empty_position());
  EXPECT_EQ(position, Position::from_map(example_map()));
}

TEST(PositionTest, MergeCreatesATopicEvenWhenItsPartitionMapIsEmpty) {
  // Proves merge creates every topic of the argument, even one whose partition map is empty.
  Position position = Position::empty_position();
  position.merge(Position::from_map({{"t", {}}}));
  EXPECT_FALSE(position.is_empty());
  EXPECT_EQ(position, Position::from_map({{"t", {}}}));
  EXPECT_EQ(position.to_string(), "Position{position={t={}}}");
}

TEST(PositionTest, MergeAtTheNewPinCreatesNoEmptyTopic) {
  // Proves pin delta 17 (67fa3656cc): at the 2026-08-20 pin merge goes through withComponent, so
  // {t:{}} merged into {} leaves {} (still empty), and a non-empty topic beside it is merged.
  Position position = Position::empty_position();
  position.merge(Position::from_map({{"t", {}}}), KafkaPin::k2026_08_20);
  EXPECT_TRUE(position.is_empty());
  EXPECT_EQ(position, Position::empty_position());
  position.merge(Position::from_map({{"t", {}}, {"u", {{1, 4}}}}), KafkaPin::k2026_08_20);
  EXPECT_EQ(position, Position::from_map({{"u", {{1, 4}}}}));
  // An empty topic already present stays (merge never removes).
  Position with_empty = Position::from_map({{"t", {}}});
  with_empty.merge(Position::from_map({{"t", {}}}), KafkaPin::k2026_08_20);
  EXPECT_EQ(with_empty, Position::from_map({{"t", {}}}));
}

TEST(PositionTest, WithComponentIsMonotonic) {
  // Proves with_component keeps the max: (t,3,5) then (t,3,4) gives 5, then (t,3,6) gives 6.
  Position position = Position::empty_position();
  position.with_component("t", 3, 5);
  position.with_component("t", 3, 4);
  EXPECT_EQ(*position.offset("t", 3), 5);
  position.with_component("t", 3, 5);
  EXPECT_EQ(*position.offset("t", 3), 5);
  position.with_component("t", 3, 6);
  EXPECT_EQ(*position.offset("t", 3), 6);
  EXPECT_EQ(position.to_string(), "Position{position={t={3=6}}}");
}

TEST(PositionTest, WithComponentMutatesAndReturnsTheReceiver) {
  // Proves with_component returns the receiver, so calls chain on one object.
  Position position = Position::empty_position();
  Position& returned = position.with_component("a", 0, 1).with_component("b", 2, 3);
  EXPECT_EQ(&returned, &position);
  EXPECT_EQ(position, Position::from_map({{"a", {{0, 1}}}, {"b", {{2, 3}}}}));
}

TEST(PositionTest, WithComponentAcceptsNegativeOffsets) {
  // Proves with_component does no validation: a negative first offset is stored as given.
  Position position = Position::empty_position();
  position.with_component("t", 0, -1);
  ASSERT_NE(position.offset("t", 0), nullptr);
  EXPECT_EQ(*position.offset("t", 0), -1);
}

TEST(PositionTest, CopyIsIndependent) {
  // Proves copy() is deep: changes to the original after the copy do not show in the copy.
  Position original = Position::from_map(example_map());
  const Position copied = original.copy();
  original.with_component("topic", 0, 100);
  original.with_component("topic3", 1, 1);
  original.merge(Position::from_map({{"topic1", {{9, 9}}}}));
  EXPECT_EQ(copied, Position::from_map(example_map()));
  EXPECT_NE(copied, original);
}

TEST(PositionTest, EqualityComparesEveryComponent) {
  // Proves two positions are equal only when every (topic, partition, offset) matches.
  const Position a = Position::from_map(example_map());
  EXPECT_EQ(a, a);
  EXPECT_EQ(a, Position::from_map(example_map()));
  EXPECT_NE(a, Position::from_map({{"topic", {{0, 5}}}, {"topic1", {{0, 5}, {7, 1}}}}));
  EXPECT_NE(a, Position::from_map({{"topic", {{0, 5}}}, {"topic1", {{0, 5}, {8, 0}}}}));
  EXPECT_NE(a, Position::from_map({{"topic", {{0, 5}}}, {"topic1", {{0, 5}}}}));
  EXPECT_NE(a, Position::from_map({{"topic", {{0, 5}}}, {"topicX", {{0, 5}, {7, 0}}}}));
  EXPECT_NE(a, Position::empty_position());
}

TEST(PositionTest, TopicWithEmptyPartitionMapIsNotEmpty) {
  // Proves Kafka's empty rules: {t:{}} is not empty and is not equal to {}.
  const Position with_empty_topic = Position::from_map({{"t", {}}});
  EXPECT_FALSE(with_empty_topic.is_empty());
  EXPECT_TRUE(Position::empty_position().is_empty());
  EXPECT_NE(with_empty_topic, Position::empty_position());
  EXPECT_EQ(with_empty_topic.topics(), (std::vector<std::string>{"t"}));
  EXPECT_TRUE(with_empty_topic.partition_positions("t").empty());
}

TEST(PositionTest, OffsetLookupOfAbsentComponentsIsNull) {
  // Proves offset() and partition_positions() answer "absent" for unknown topics and partitions.
  const Position position = Position::from_map({{"t", {{0, 5}}}});
  EXPECT_EQ(position.offset("u", 0), nullptr);
  EXPECT_EQ(position.offset("t", 1), nullptr);
  ASSERT_NE(position.offset("t", 0), nullptr);
  EXPECT_EQ(*position.offset("t", 0), 5);
  EXPECT_TRUE(position.partition_positions("u").empty());
}

TEST(PositionTest, ToStringMatchesKafka) {
  // Proves to_string renders Kafka's format, which failure messages embed.
  EXPECT_EQ(Position::from_map({{"topic", {{0, 5}, {1, 3}}}}).to_string(),
            "Position{position={topic={0=5, 1=3}}}");
  EXPECT_EQ(Position::empty_position().to_string(), "Position{position={}}");
  EXPECT_EQ(Position::from_map({{"a", {{0, 1}}}, {"b", {{2, 3}}}}).to_string(),
            "Position{position={a={0=1}, b={2=3}}}");
}

// ---------------------------------------------------------------------------------------------
// PositionBoundTest

TEST(PositionBoundTest, AtSnapshotsThePosition) {
  // Proves at(p) copies p, so changing p afterwards does not change the bound (shouldCopyPosition).
  Position position = Position::from_map({{"a", {{0, 1}}}});
  const PositionBound bound = PositionBound::at(position);
  position.with_component("a", 0, 2);
  position.with_component("b", 0, 1);
  EXPECT_EQ(bound.position(), Position::from_map({{"a", {{0, 1}}}}));
}

TEST(PositionBoundTest, UnboundedIsUnboundedAroundTheEmptyPosition) {
  // Proves unbounded().is_unbounded() holds and its position is the empty position.
  const PositionBound bound = PositionBound::unbounded();
  EXPECT_TRUE(bound.is_unbounded());
  EXPECT_EQ(bound.position(), Position::empty_position());
  EXPECT_EQ(bound.to_string(), "PositionBound{position=Position{position={}}}");
}

TEST(PositionBoundTest, Equality) {
  // Proves bounds compare by position: at(empty)==at(empty), unbounded==unbounded, self-equality.
  const PositionBound at_empty = PositionBound::at(Position::empty_position());
  EXPECT_EQ(at_empty, at_empty);
  EXPECT_EQ(at_empty, PositionBound::at(Position::empty_position()));
  EXPECT_EQ(PositionBound::unbounded(), PositionBound::unbounded());
  const PositionBound at_a = PositionBound::at(Position::from_map({{"a", {{0, 1}}}}));
  EXPECT_EQ(at_a, PositionBound::at(Position::from_map({{"a", {{0, 1}}}})));
  EXPECT_NE(at_a, PositionBound::at(Position::from_map({{"a", {{0, 2}}}})));
  EXPECT_NE(at_a, PositionBound::unbounded());
}

TEST(PositionBoundTest, AtEmptyIsUnbounded) {
  // Proves is_unbounded() is position().is_empty(), so at(empty) is unbounded and equals
  // unbounded().
  const PositionBound at_empty = PositionBound::at(Position::empty_position());
  EXPECT_TRUE(at_empty.is_unbounded());
  EXPECT_EQ(at_empty, PositionBound::unbounded());
}

TEST(PositionBoundTest, AtTopicWithEmptyMapIsNotUnbounded) {
  // Proves at({t:{}}) is not "unbounded" by the predicate and differs from unbounded().
  const PositionBound bound = PositionBound::at(Position::from_map({{"t", {}}}));
  EXPECT_FALSE(bound.is_unbounded());
  EXPECT_NE(bound, PositionBound::unbounded());
  EXPECT_EQ(bound.to_string(), "PositionBound{position=Position{position={t={}}}}");
}

TEST(PositionBoundTest, ToStringMatchesKafka) {
  // Proves to_string renders Kafka's "PositionBound{position=...}" form.
  EXPECT_EQ(PositionBound::at(Position::from_map({{"topic", {{0, 1}}}})).to_string(),
            "PositionBound{position=Position{position={topic={0=1}}}}");
}

}  // namespace
}  // namespace iq
