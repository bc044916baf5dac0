// ProcessingLedger: first processings record nothing, a second processing opens a range that the
// same instance extends until it processes something new, and the cap drops and counts.
#include "cluster/processing_ledger.h"

#include <gtest/gtest.h>

namespace iq::sim {
namespace {

constexpr uint64_t kSeed = 0;  // the ledger draws nothing; printed for the house rule

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
  for (int64_t o = 0; o <= 5; ++o) ledger.processed(100 + o, "instance-1", 3, o);
  for (int64_t o = 2; o <= 8; ++o) ledger.processed(200 + o, "instance-2", 3, o);
  ASSERT_EQ(ledger.ranges().size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[0], (ReprocessedRange{3, 2, 5, "instance-2", 202, 205}))
      << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[0].to_string(),
            "offsets 2-5 of partition 3 again on instance-2 at 202-205 ms")
      << "seed " << kSeed;

  // A zombie instance-1 comes back and processes 6 and 7 again (instance-2 had them): a second
  // range, on instance-1; then it goes on to 9, new input, and the range closes.
  ledger.processed(300, "instance-1", 3, 6);
  ledger.processed(301, "instance-1", 3, 7);
  ledger.processed(302, "instance-1", 3, 9);
  // The same instance restarting from its own committed offset is reprocessing too.
  ledger.processed(400, "instance-1", 3, 9);
  ASSERT_EQ(ledger.ranges().size(), 3u) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[1], (ReprocessedRange{3, 6, 7, "instance-1", 300, 301}))
      << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[2].to_string(), "offset 9 of partition 3 again on instance-1 at 400 ms")
      << "seed " << kSeed;
  // Partitions are independent.
  ledger.processed(500, "instance-1", 4, 2);
  EXPECT_EQ(ledger.ranges().size(), 3u) << "seed " << kSeed;
}

// Going back below the range's last offset (a second restart while reprocessing) opens a new one.
TEST(ProcessingLedgerTest, GoingBackOpensANewRange) {
  ProcessingLedger ledger;
  for (int64_t o = 0; o <= 9; ++o) ledger.processed(o, "instance-1", 0, o);
  ledger.processed(20, "instance-2", 0, 3);
  ledger.processed(21, "instance-2", 0, 4);
  ledger.processed(30, "instance-2", 0, 3);
  ASSERT_EQ(ledger.ranges().size(), 2u) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[0].last_offset, 4) << "seed " << kSeed;
  EXPECT_EQ(ledger.ranges()[1].first_offset, 3) << "seed " << kSeed;
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
}

}  // namespace
}  // namespace iq::sim
