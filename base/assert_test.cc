// Proves that IQ_ASSERT is on in every build and reports file, line and the values it was given.
#include <gtest/gtest.h>

#include "base/assert.h"
#include "base/expected.h"

TEST(Assert, FailureAbortsWithFileLineAndValues) {
  int offset = 3;
  EXPECT_DEATH(IQ_ASSERT(offset > 5, "offset={}", offset),
               "assert_test.cc:.*offset > 5 -- offset=3");
}

TEST(Assert, PassingAssertionHasNoEffect) {
  int calls = 0;
  IQ_ASSERT(++calls == 1);
  EXPECT_EQ(calls, 1);
}

TEST(Expected, HoldsValueOrError) {
  iq::base::Expected<int, std::string> ok = 5;
  iq::base::Expected<int, std::string> bad = iq::base::unexpected(std::string("boom"));
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(*ok, 5);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error(), "boom");
  EXPECT_DEATH((void)bad.value(), "Expected::value\\(\\) on an error");
}
