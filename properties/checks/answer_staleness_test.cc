#include "checks/answer_staleness.h"

#include <gtest/gtest.h>

#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using namespace testing;  // NOLINT

// Partition 0 holds five source records appended at 100, 200, 300, 400 and 500 ms.
TraceBuilder five_records() {
  TraceBuilder b;
  for (int32_t i = 0; i < 5; ++i) b.produce(0, i, 10 + i);
  for (sim::SourceLogRecord& r : b.trace().source_log) {
    r.appended_ms = base::Instant::from_ms(100 * (r.offset.value() + 1));
  }
  return b;
}

// Behind the source log's end at the answer's time, not at the end of the run: a standby at
// offset 1 answering at 450 ms lacks offsets 2 and 3 (appended by then), not 4, and the oldest of
// them (300 ms) is 150 ms old; an active at offset 3 answering at 450 ms lacks nothing.
TEST(AnswerStalenessTest, CountsRecordsAppendedByTheAnswerThatThePositionLacks) {
  TraceBuilder b = five_records();
  b.add(b.key_query(0, 1).at(450, 450).ok(11, pos(0, 1)).replica(standby(0, pos(0, 1))));
  b.add(b.key_query(0, 3).at(450, 450).ok(13, pos(0, 3)).replica(active(0, pos(0, 3))));
  const AnswerStaleness s = answer_staleness(b.trace());
  ASSERT_EQ(s.count("standby"), 1u) << "seed " << kSeed;
  ASSERT_EQ(s.count("active"), 1u) << "seed " << kSeed;
  EXPECT_EQ(s.at("standby").records.max(), 2) << "seed " << kSeed;
  EXPECT_EQ(s.at("standby").virtual_ms.max(), 150) << "seed " << kSeed;
  EXPECT_EQ(s.at("active").records.max(), 0) << "seed " << kSeed;
  EXPECT_EQ(s.at("active").virtual_ms.max(), 0) << "seed " << kSeed;
}

// A position without the partition lacks every record appended so far; a restoring active and a
// warmup are roles of their own; failed results and answers without the replica are not counted.
TEST(AnswerStalenessTest, EmptyPositionRolesAndSkippedAnswers) {
  TraceBuilder b = five_records();
  b.add(b.key_query(0, 1)
            .at(320, 320)
            .ok(std::nullopt, Position::empty_position())
            .replica(active(0, Position::empty_position(), "instance-1",
                            sim::ReplicaSnapshot::TaskState::RESTORING)));
  sim::ReplicaSnapshot warm = standby(0, pos(0, 0));
  warm.warmup = true;
  b.add(b.key_query(0, 1).at(500, 500).ok(10, pos(0, 0)).replica(warm));
  b.add(b.key_query(0, 1)
            .at(500, 500)
            .fail(FailureReason::NOT_UP_TO_BOUND)
            .replica(standby(0, pos(0, 0))));
  b.add(b.key_query(0, 1)
            .at(500, 500)
            .target("instance-9")
            .ok(10, pos(0, 0))
            .replica(standby(0, pos(0, 0))));
  const AnswerStaleness s = answer_staleness(b.trace());
  ASSERT_EQ(s.size(), 2u) << "seed " << kSeed;
  EXPECT_EQ(s.at("restoring").records.max(), 3) << "seed " << kSeed;  // offsets 0..2 by 320
  EXPECT_EQ(s.at("restoring").virtual_ms.max(), 220) << "seed " << kSeed;
  EXPECT_EQ(s.at("warmup").records.max(), 4) << "seed " << kSeed;  // offsets 1..4 at 500
  EXPECT_EQ(s.at("warmup").virtual_ms.max(), 300) << "seed " << kSeed;
  EXPECT_EQ(s.at("warmup").records.count(), 1u) << "seed " << kSeed;
}

TEST(AnswerStalenessTest, HistogramQuantilesAreNearestRankAndExactBelow32) {
  StalenessHistogram h;
  for (int64_t v : {5, 1, 9, 3, 7, 2, 8, 4, 6, 10}) h.add(v);
  EXPECT_EQ(h.count(), 10u) << "seed " << kSeed;
  EXPECT_EQ(h.quantile(0.5), 5) << "seed " << kSeed;
  EXPECT_EQ(h.quantile(0.9), 9) << "seed " << kSeed;
  EXPECT_EQ(h.quantile(1.0), 10) << "seed " << kSeed;
  EXPECT_EQ(h.max(), 10) << "seed " << kSeed;
  // Above 32: eight buckets per power of two, reported by their lower bound, the max exact.
  EXPECT_EQ(StalenessHistogram::bucket_of(31), 31) << "seed " << kSeed;
  EXPECT_EQ(StalenessHistogram::bucket_of(32), 32) << "seed " << kSeed;
  EXPECT_EQ(StalenessHistogram::bucket_of(35), 32) << "seed " << kSeed;
  EXPECT_EQ(StalenessHistogram::bucket_of(36), 36) << "seed " << kSeed;
  EXPECT_EQ(StalenessHistogram::bucket_of(1'000), 960) << "seed " << kSeed;
  StalenessHistogram big;
  big.add(1'000);
  EXPECT_EQ(big.quantile(0.5), 960) << "seed " << kSeed;
  EXPECT_EQ(big.max(), 1'000) << "seed " << kSeed;
}

// What a summary keeps reads back equal, merges as the histograms merge, and refuses garbage.
TEST(AnswerStalenessTest, CountsRoundTripAndMerge) {
  TraceBuilder b = five_records();
  b.add(b.key_query(0, 1).at(450, 450).ok(11, pos(0, 1)).replica(standby(0, pos(0, 1))));
  b.add(b.key_query(0, 3).at(450, 450).ok(13, pos(0, 3)).replica(active(0, pos(0, 3))));
  const AnswerStaleness s = answer_staleness(b.trace());
  const auto counts = staleness_counts(s);
  EXPECT_EQ(counts.at("standby.records.b2"), 1u) << "seed " << kSeed;
  EXPECT_EQ(counts.at("standby.ms.max"), 150u) << "seed " << kSeed;
  std::optional<AnswerStaleness> back = staleness_from_counts(counts);
  ASSERT_TRUE(back.has_value()) << "seed " << kSeed;
  EXPECT_EQ(*back, s) << "seed " << kSeed;
  AnswerStaleness twice = s;
  merge(twice, s);
  EXPECT_EQ(twice.at("standby").records.count(), 2u) << "seed " << kSeed;
  EXPECT_EQ(twice.at("standby").virtual_ms.max(), 150) << "seed " << kSeed;
  EXPECT_FALSE(staleness_from_counts({{"standby.records.b33", 1}})) << "seed " << kSeed;
  EXPECT_FALSE(staleness_from_counts({{"standby.bytes.b3", 1}})) << "seed " << kSeed;
  EXPECT_FALSE(staleness_from_counts({{"standby", 1}})) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
