// Unit tests of the DelayedFetchPurgatory (Kafka's DelayedFetch purgatory as a state machine).
#include "broker/delayed_fetch.h"

#include <gtest/gtest.h>

namespace iq::sim {
namespace {

const TopicPartition kA{"t", 0};
const TopicPartition kB{"t", 1};

// Proves a parked fetch is watched by each of its partitions, oldest first, and leaves every
// watch list when it is removed.
TEST(DelayedFetchPurgatoryTest, WatchersByPartitionInParkOrder) {
  DelayedFetchPurgatory p;
  ASSERT_TRUE(p.park(2, {kA, kB}, 500));
  ASSERT_TRUE(p.park(1, {kA}, 400));
  EXPECT_EQ(p.watchers(kA), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(p.watchers(kB), (std::vector<uint64_t>{2}));
  p.remove(2);
  EXPECT_EQ(p.watchers(kA), (std::vector<uint64_t>{1}));
  EXPECT_TRUE(p.watchers(kB).empty());
  p.remove(2);  // no longer parked: a no-op
  EXPECT_EQ(p.size(), 1u);
}

// Proves fetches expire by deadline, only once their deadline is reached, and leave the
// purgatory; the next deadline follows.
TEST(DelayedFetchPurgatoryTest, ExpiresByDeadline) {
  DelayedFetchPurgatory p;
  ASSERT_TRUE(p.park(1, {kA}, 500));
  ASSERT_TRUE(p.park(2, {kB}, 300));
  EXPECT_EQ(p.next_deadline_ms(), std::optional<int64_t>(300));
  EXPECT_TRUE(p.take_expired(299).empty());
  EXPECT_EQ(p.take_expired(300), (std::vector<uint64_t>{2}));
  EXPECT_EQ(p.next_deadline_ms(), std::optional<int64_t>(500));
  EXPECT_EQ(p.take_expired(1'000), (std::vector<uint64_t>{1}));
  EXPECT_EQ(p.next_deadline_ms(), std::nullopt);
  EXPECT_TRUE(p.watchers(kA).empty());
}

// Proves the bound: a full purgatory refuses a fetch (the caller answers it at once) and counts it.
TEST(DelayedFetchPurgatoryTest, FullPurgatoryRefuses) {
  DelayedFetchPurgatory p(1);
  ASSERT_TRUE(p.park(1, {kA}, 500));
  EXPECT_FALSE(p.park(2, {kA}, 500));
  EXPECT_EQ(p.refused(), 1u);
  EXPECT_EQ(p.watchers(kA), (std::vector<uint64_t>{1}));
}

}  // namespace
}  // namespace iq::sim
