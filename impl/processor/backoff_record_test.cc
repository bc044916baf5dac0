// ExponentialBackoff and TaskManager.BackoffRecord: the waits Kafka draws, from a seeded Prng.
#include "processor/backoff_record.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace iq {
namespace {

// Proves ExponentialBackoff(1000, 2, 10000, 0.5).backoff(n) lies in [0.5, 1.5) times 2 s, 4 s,
// 8 s, then 10 s, capped at 10 s, and that the jitter spreads over that whole range.
TEST(ExponentialBackoffTest, DrawsWithinKafkasBoundsForEachAttempt) {
  const ExponentialBackoff backoff(1000, 2, 10'000, base::Ratio{1, 2});
  struct Case {
    int64_t attempts, lo, hi;  // hi excluded, except at the cap
  };
  for (const Case c : {Case{1, 1000, 3000}, Case{2, 2000, 6000}, Case{3, 4000, 10'001},
                       Case{4, 5000, 10'001}, Case{9, 5000, 10'001}}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      base::Prng random(seed);
      int64_t low = INT64_MAX, high = 0;
      for (int i = 0; i < 2000; ++i) {
        const int64_t b = backoff.backoff(c.attempts, random);
        low = std::min(low, b);
        high = std::max(high, b);
      }
      EXPECT_GE(low, c.lo) << "attempts " << c.attempts << " seed " << seed;
      EXPECT_LT(high, c.hi) << "attempts " << c.attempts << " seed " << seed;
      EXPECT_LT(low, c.lo + (c.hi - c.lo) / 10) << "attempts " << c.attempts << " seed " << seed;
      if (c.attempts <= 2) {
        EXPECT_GT(high, c.hi - (c.hi - c.lo) / 10) << "attempts " << c.attempts << " seed " << seed;
      } else {
        EXPECT_EQ(high, 10'000) << "capped; attempts " << c.attempts << " seed " << seed;
      }
    }
  }
}

// Proves the same seed draws the same waits, and a constant backoff (max <= initial) draws none.
TEST(ExponentialBackoffTest, IsDeterministicForASeed) {
  const ExponentialBackoff backoff(1000, 2, 10'000, base::Ratio{1, 2});
  base::Prng a(42), b(42);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(backoff.backoff(i % 5, a), backoff.backoff(i % 5, b));
  const ExponentialBackoff constant(5000, 2, 3000, base::Ratio{1, 2});
  base::Prng c(42);
  EXPECT_EQ(constant.backoff(3, c), 3000);
  EXPECT_EQ(c.next(), base::Prng(42).next()) << "no jitter drawn";
}

// Proves BackoffRecord: attempts count the failures; canAttempt measures from the last one.
TEST(BackoffRecordTest, WaitsFromTheLastFailedAttempt) {
  base::Prng random(5);
  BackoffRecord record(100);
  EXPECT_FALSE(record.can_attempt(1'099, random)) << "under 1 s";
  EXPECT_TRUE(record.can_attempt(3'100, random)) << "3 s is past any first backoff";
  record.record_attempt(3'100);
  EXPECT_EQ(record.attempts(), 2);
  EXPECT_FALSE(record.can_attempt(5'099, random)) << "under 2 s after the second";
  EXPECT_TRUE(record.can_attempt(9'100, random));
}

}  // namespace
}  // namespace iq
