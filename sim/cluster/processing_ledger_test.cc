// ProcessingLedger: first processings record nothing, a second processing opens a range that the
// same instance extends until it processes something new, and the cap drops and counts.
#include "cluster/processing_ledger.h"

#include <gtest/gtest.h>

#include <string>

namespace iq::sim {
namespace {

constexpr uint64_t kSeed = 0;  // the ledger draws nothing; printed for the house rule

// `instance` processes offsets first..last of `partition`, one per millisecond from `from_ms`.
void process(ProcessingLedger& ledger, int64_t from_ms, const std::string& instance,
             int32_t partition, int64_t first, int64_t last) {
  for (int64_t o = first; o <= last; ++o) {
    ledger.processed(from_ms + (o - first), instance, partition, o);
  }
}

// The range the ledger should have recorded: offsets of the input (source) partition.
ReprocessedRange range(int32_t partition, int64_t first, int64_t last, const std::string& instance,
                       int64_t start_ms, int64_t end_ms) {
  return ReprocessedRange{partition,
                          SourceOffset(first),
                          SourceOffset(last),
                          instance,
                          base::Instant::from_ms(start_ms),
                          base::Instant::from_ms(end_ms)};
}

TEST(ProcessingLedgerTest, FirstProcessingsRecordNothing) {
  ProcessingLedger ledger;
  for (int64_t o = 0; o < 5; ++o) ledger.processed(10 * o, "instance-1", 0, o);
  for (int64_t o = 0; o < 3; ++o) ledger.processed(10 * o, "instance-2", 1, o);
  EXPECT_TRUE(ledger.ranges().empty()) << "seed " << kSeed;
  EXPECT_EQ(ledger.processed_count(), 8u) << "seed " << kSeed;
}

// A new owner resumes from committed offset 2 after instance-1 had processed 0..5: offsets 2..5
// are one range on instance-2, which closes at the first record nobody had processed (6).
TEST(ProcessingLedgerTest, ResumingBehindAnEarlierOwnerIsOneRangeUntilNewInput) {
  ProcessingLedger ledger;
  process(ledger, 100, "instance-1", 3, 0, 5);
  process(ledger, 202, "instance-2", 3, 2, 8);
  ASSERT_EQ(ledger.ranges().size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[0], range(3, 2, 5, "instance-2", 202, 205)) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[0].to_string(),
            "offsets 2-5 of partition 3 again on instance-2 at 202-205 ms")
      << "seed " << kSeed;

  // A zombie instance-1 comes back and processes 6 and 7 again (instance-2 had them): a second
  // range, on instance-1; then it goes on to 9, new input, and the range closes.
  process(ledger, 300, "instance-1", 3, 6, 7);
  ledger.processed(302, "instance-1", 3, 9);
  // The same instance restarting from its own committed offset is reprocessing too.
  ledger.processed(400, "instance-1", 3, 9);
  ASSERT_EQ(ledger.ranges().size(), 3u) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[1], range(3, 6, 7, "instance-1", 300, 301)) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[2].to_string(), "offset 9 of partition 3 again on instance-1 at 400 ms")
      << "seed " << kSeed;
  // Partitions are independent.
  ledger.processed(500, "instance-1", 4, 2);
  EXPECT_EQ(ledger.ranges().size(), 3u) << "seed " << kSeed;
}

// Another instance reprocessing in between: when the first gets the partition back past a gap,
// it opens a new range, so no offset is claimed by two ranges of which one never processed it.
TEST(ProcessingLedgerTest, AGapOpensANewRange) {
  ProcessingLedger ledger;
  process(ledger, 0, "instance-1", 0, 0, 9);
  process(ledger, 20, "instance-2", 0, 2, 3);
  process(ledger, 30, "instance-3", 0, 4, 6);
  process(ledger, 40, "instance-2", 0, 7, 7);
  ASSERT_EQ(ledger.ranges().size(), 3u) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[0], range(0, 2, 3, "instance-2", 20, 21)) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[1], range(0, 4, 6, "instance-3", 30, 32)) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[2], range(0, 7, 7, "instance-2", 40, 40)) << "seed " << kSeed;
}

// Going back below the range's last offset (a second restart while reprocessing) opens a new one.
TEST(ProcessingLedgerTest, GoingBackOpensANewRange) {
  ProcessingLedger ledger;
  process(ledger, 0, "instance-1", 0, 0, 9);
  process(ledger, 20, "instance-2", 0, 3, 4);
  ledger.processed(30, "instance-2", 0, 3);
  ASSERT_EQ(ledger.ranges().size(), 2u) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[0].last_offset, SourceOffset(4)) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[1].first_offset, SourceOffset(3)) << "seed " << kSeed;
}

TEST(ProcessingLedgerTest, RangesPastTheCapAreCountedNotKept) {
  ProcessingLedger ledger;
  ledger.processed(0, "instance-1", 0, 0);
  // Alternating instances never extend each other's range: one range per processing.
  const size_t total = ProcessingLedger::kRangesMax + 5;
  for (size_t i = 0; i < total; ++i) {
    ledger.processed(1 + static_cast<int64_t>(i), i % 2 == 0 ? "instance-2" : "instance-3", 0, 0);
  }
  EXPECT_EQ(ledger.ranges().size(), ProcessingLedger::kRangesMax) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges_dropped(), 5u) << "seed " << kSeed;
  // A dropped range that goes on is still one range, not one per record.
  process(ledger, 1, "instance-1", 0, 1, 9);
  process(ledger, 200'000, "instance-4", 0, 3, 9);
  EXPECT_EQ(ledger.ranges_dropped(), 6u) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::sim
