// UniqueFunction keeps small targets inline and large ones on the heap; either way a target is
// called where it is, moves with its function, is destroyed exactly once, and a moved-from
// function is empty.
#include "event_loop/unique_function.h"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace iq::sim {
namespace {

// Counts live copies of itself, so a test sees every construction and destruction.
struct Counted {
  int* live;
  explicit Counted(int* l) : live(l) { ++*live; }
  Counted(const Counted& o) : live(o.live) { ++*live; }
  Counted(Counted&& o) noexcept : live(o.live) { ++*live; }
  ~Counted() { --*live; }
};

TEST(UniqueFunction, SmallTrivialTargetCallsAndMoves) {
  int calls = 0;
  UniqueFunction<int(int)> f = [&calls](int x) {
    ++calls;
    return x + 1;
  };
  UniqueFunction<int(int)> g = std::move(f);
  EXPECT_FALSE(static_cast<bool>(f));  // NOLINT: moved-from is empty, by contract
  ASSERT_TRUE(static_cast<bool>(g));
  EXPECT_EQ(g(41), 42);
  EXPECT_EQ(calls, 1);
}

TEST(UniqueFunction, InlineAndHeapTargetsAreDestroyedExactlyOnce) {
  int live = 0;
  {
    // Small (inline) and large (heap) targets that own a Counted and a string.
    UniqueFunction<std::string()> small = [c = Counted(&live), s = std::string(40, 's')] {
      return s;
    };
    std::array<int64_t, 16> big_payload{};
    big_payload[3] = 7;
    UniqueFunction<std::string()> big = [c = Counted(&live), big_payload] {
      return std::to_string(big_payload[3]);
    };
    EXPECT_EQ(live, 2);
    std::vector<UniqueFunction<std::string()>> moved;
    moved.push_back(std::move(small));
    moved.push_back(std::move(big));
    for (int i = 0; i < 20; ++i) moved.emplace_back([] { return std::string(); });  // regrows
    EXPECT_EQ(live, 2);
    EXPECT_EQ(moved[0](), std::string(40, 's'));
    EXPECT_EQ(moved[1](), "7");
    moved[0] = nullptr;
    EXPECT_EQ(live, 1);
    moved[1] = std::move(moved[2]);  // replacing a target destroys it
    EXPECT_EQ(live, 0);
  }
  EXPECT_EQ(live, 0);
}

TEST(UniqueFunction, OwnsMoveOnlyState) {
  auto p = std::make_unique<int>(5);
  UniqueFunction<int()> f = [p = std::move(p)] { return *p; };
  UniqueFunction<int()> g;
  g = std::move(f);
  EXPECT_EQ(g(), 5);
  EXPECT_FALSE(static_cast<bool>(f));  // NOLINT: moved-from is empty, by contract
}

}  // namespace
}  // namespace iq::sim
