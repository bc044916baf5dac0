// The typed offsets (iq/offsets.h): the compiler tells source offsets, changelog offsets and raw
// numbers apart where they meet (Position, the task's .checkpoint, LagInfo), and the arithmetic
// that exists means what it says.

#include "iq/offsets.h"

#include <gtest/gtest.h>

#include <type_traits>

#include "iq/position.h"
#include "iq/streams_metadata.h"
#include "iq/topic_partition.h"

namespace iq {
namespace {

// Neither kind converts into the other, nor into or from a raw number implicitly.
static_assert(!std::is_convertible_v<ChangelogOffset, SourceOffset>);
static_assert(!std::is_convertible_v<SourceOffset, ChangelogOffset>);
static_assert(!std::is_constructible_v<SourceOffset, ChangelogOffset>);
static_assert(!std::is_constructible_v<ChangelogOffset, SourceOffset>);
static_assert(!std::is_convertible_v<int64_t, SourceOffset>);
static_assert(!std::is_convertible_v<int64_t, ChangelogOffset>);
static_assert(!std::is_convertible_v<SourceOffset, int64_t>);
static_assert(!std::is_convertible_v<ChangelogOffset, int64_t>);
static_assert(std::is_constructible_v<SourceOffset, int64_t>);  // explicitly, at a boundary
static_assert(!std::is_default_constructible_v<ChangelogOffset>);

// Only same-kind comparison and difference; offset + offset is meaningless.
template <typename A, typename B>
concept Subtractable = requires(A a, B b) {
  a - b;
};
template <typename A, typename B>
concept Addable = requires(A a, B b) {
  a + b;
};
template <typename A, typename B>
concept Comparable = requires(A a, B b) {
  a < b;
};
static_assert(Subtractable<SourceOffset, SourceOffset>);
static_assert(!Subtractable<SourceOffset, ChangelogOffset>);
static_assert(!Addable<SourceOffset, SourceOffset>);
static_assert(!Addable<ChangelogOffset, SourceOffset>);
static_assert(!Comparable<ChangelogOffset, SourceOffset>);
static_assert(std::is_same_v<decltype(SourceOffset(5) - SourceOffset(3)), int64_t>);
static_assert(std::is_same_v<decltype(ChangelogOffset(5) + int64_t{1}), ChangelogOffset>);

// A Position takes source offsets; a changelog offset is refused at compile time.
template <typename O>
concept PositionTakes = requires(Position p, O o) {
  p.with_component("t", 0, o);
};
static_assert(PositionTakes<SourceOffset>);
static_assert(!PositionTakes<ChangelogOffset>);

// The checkpoint's map holds changelog offsets only.
static_assert(!std::is_convertible_v<std::map<TopicPartition, SourceOffset>, ChangelogOffsets>);

// LagInfo's typed constructor takes two changelog offsets.
template <typename O>
concept LagInfoOf = requires(O o) {
  LagInfo::of(o, o);
};
static_assert(LagInfoOf<ChangelogOffset>);
static_assert(!LagInfoOf<SourceOffset>);

TEST(OffsetsTest, ArithmeticIsOffsetPlusCountAndOffsetMinusOffset) {
  const ChangelogOffset start(10);
  EXPECT_EQ(start + 5, ChangelogOffset(15));
  EXPECT_EQ(ChangelogOffset(15) - start, 5);
  EXPECT_LT(start, ChangelogOffset(11));
  EXPECT_EQ(fmt::format("{}", start), "10");
}

TEST(OffsetsTest, PositionRoundTripsASourceOffset) {
  Position p = Position::empty_position();
  p.with_component("t", 3, SourceOffset(7));
  ASSERT_TRUE(p.source_offset("t", 3).has_value());
  EXPECT_EQ(*p.source_offset("t", 3), SourceOffset(7));
  EXPECT_FALSE(p.source_offset("t", 4).has_value());
  // Monotone max holds through the typed entry too.
  p.with_component("t", 3, SourceOffset(2));
  EXPECT_EQ(*p.source_offset("t", 3), SourceOffset(7));
}

TEST(OffsetsTest, LagInfoOfIsEndMinusCurrent) {
  const LagInfo lag = LagInfo::of(ChangelogOffset(4), ChangelogOffset(10));
  EXPECT_EQ(lag.current_offset_position, 4);
  EXPECT_EQ(lag.end_offset_position, 10);
  EXPECT_EQ(lag.offset_lag(), 6);
}

}  // namespace
}  // namespace iq
