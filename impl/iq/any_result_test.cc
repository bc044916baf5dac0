// AnyResult (include/iq/any_result.h): the values QueryResult carries, inline or on the heap,
// through copies, moves and resets, each constructed and destroyed exactly once.
#include "iq/any_result.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "iq/value_and_timestamp.h"

namespace iq {
namespace {

// Counts its live instances, so that a leak or a double destruction shows.
struct Counted {
  static inline int live = 0;
  explicit Counted(int v) : value(v) { ++live; }
  Counted(const Counted& o) : value(o.value) { ++live; }
  Counted(Counted&& o) noexcept : value(o.value) { ++live; }
  ~Counted() { --live; }
  Counted& operator=(const Counted&) = default;
  int value;
};

// Larger than the inline buffer: kept on the heap.
struct Big {
  std::array<int64_t, 8> values{};
  Counted counted{0};
};
static_assert(sizeof(Big) > AnyResult::kInlineBytes);

TEST(AnyResultTest, EmptyHoldsNothing) {
  const AnyResult empty;
  EXPECT_FALSE(empty.has_value());
  EXPECT_EQ(empty.type(), typeid(void));
  EXPECT_EQ(empty.get_if<int>(), nullptr);
  EXPECT_EQ(any_cast<int>(&empty), nullptr);
  EXPECT_EQ(any_cast<int>(static_cast<const AnyResult*>(nullptr)), nullptr);
}

TEST(AnyResultTest, TheTypedAnswersOfAKeyQueryAreHeldInPlace) {
  const AnyResult plain = std::optional<int64_t>(42);
  ASSERT_NE(plain.get_if<std::optional<int64_t>>(), nullptr);
  EXPECT_EQ(**plain.get_if<std::optional<int64_t>>(), 42);
  EXPECT_EQ(plain.type(), typeid(std::optional<int64_t>));
  EXPECT_EQ(plain.get_if<int64_t>(), nullptr);  // the exact type only, as std::any_cast
  EXPECT_EQ(plain.get_if<std::optional<ValueAndTimestamp<int64_t>>>(), nullptr);
  // The held value lies inside the object: no allocation per answer.
  const auto* address =
      reinterpret_cast<const unsigned char*>(plain.get_if<std::optional<int64_t>>());
  const auto* self = reinterpret_cast<const unsigned char*>(&plain);
  EXPECT_TRUE(address >= self && address < self + sizeof(AnyResult));

  const AnyResult timestamped =
      std::optional<ValueAndTimestamp<int64_t>>(ValueAndTimestamp<int64_t>{7, 9});
  const auto* tv = any_cast<std::optional<ValueAndTimestamp<int64_t>>>(&timestamped);
  ASSERT_NE(tv, nullptr);
  EXPECT_EQ((*tv)->value, 7);
  EXPECT_EQ((*tv)->timestamp, 9);
}

TEST(AnyResultTest, CopiesMovesAndResetsKeepEveryValueOnceInlineAndOnTheHeap) {
  {
    AnyResult a = Counted(5);
    EXPECT_EQ(Counted::live, 1);
    AnyResult b = a;  // copy
    EXPECT_EQ(Counted::live, 2);
    AnyResult c = std::move(a);   // move: the source is left empty
    EXPECT_FALSE(a.has_value());  // NOLINT(bugprone-use-after-move): the moved-from state
    EXPECT_EQ(Counted::live, 2);
    EXPECT_EQ(c.get_if<Counted>()->value, 5);
    b = std::string("replaced");  // the old value is destroyed
    EXPECT_EQ(Counted::live, 1);
    EXPECT_EQ(*b.get_if<std::string>(), "replaced");
    c.reset();
    EXPECT_EQ(Counted::live, 0);
  }
  {
    Big big;
    big.values[7] = 11;
    AnyResult a = big;
    EXPECT_EQ(Counted::live, 2);
    const Big* held = a.get_if<Big>();
    ASSERT_NE(held, nullptr);
    EXPECT_EQ(held->values[7], 11);
    AnyResult b = std::move(a);  // the heap value changes hands, not place
    EXPECT_EQ(b.get_if<Big>(), held);
    AnyResult c = b;
    EXPECT_NE(c.get_if<Big>(), held);
    EXPECT_EQ(c.get_if<Big>()->values[7], 11);
    EXPECT_EQ(Counted::live, 3);
    c = std::move(b);
    EXPECT_EQ(Counted::live, 2);
    EXPECT_EQ(c.get_if<Big>(), held);
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(AnyResultTest, AVectorResultSurvivesMovesOfItsHolder) {
  std::vector<AnyResult> results;
  for (int i = 0; i < 100; ++i) results.emplace_back(std::vector<int>(static_cast<size_t>(i), i));
  for (int i = 0; i < 100; ++i) {
    const auto* v = results[static_cast<size_t>(i)].get_if<std::vector<int>>();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->size(), static_cast<size_t>(i));
  }
}

}  // namespace
}  // namespace iq
