// Proves murmur2 matches Kafka's Utils.murmur2 on the vectors of Kafka's UtilsTest, so keys land
// on the partitions a real producer would choose.
#include <gtest/gtest.h>

#include "iq/default_partitioner.h"
#include "iq/serdes.h"

namespace iq {
namespace {

TEST(DefaultPartitionerTest, Murmur2MatchesKafkaUtilsTestVectors) {
  EXPECT_EQ(murmur2("21"), -973932308);
  EXPECT_EQ(murmur2("foobar"), -790332482);
  EXPECT_EQ(murmur2("a-little-bit-long-string"), -985981536);
  EXPECT_EQ(murmur2("a-little-bit-longer-string"), -1486304829);
  EXPECT_EQ(murmur2("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971);
  EXPECT_EQ(murmur2("abc"), 479470107);
}

// Proves partitions are masked positive and stay in range for every int32 key we produce.
TEST(DefaultPartitionerTest, PartitionsStayInRange) {
  for (int32_t k = -1000; k < 1000; ++k) {
    const int32_t p = partition_for_key(Serde<int32_t>::serialize(k).view(), 4);
    ASSERT_GE(p, 0);
    ASSERT_LT(p, 4);
  }
}

}  // namespace
}  // namespace iq
