#include "checks/dirty_reads.h"

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using namespace testing;  // NOLINT

TraceBuilder transactions() {
  return eos_aborted_write_trace();
}

// The writer's active answering its open transaction's write is a dirty read; that the
// transaction aborted 100 ms later and the instance then answered at a lower position (wiped and
// restored) is recorded; answers from committed data are not dirty.
TEST(DirtyReadsTest, AnActiveAnsweringItsOpenTransactionIsADirtyRead) {
  TraceBuilder b = transactions();
  b.add(b.key_query(0, 1)
            .at(400, 400)
            .target("instance-2")
            .ok(11, pos(0, 1))
            .replica(own_runs(applied(active(0, pos(0, 1), "instance-2"), 1), {{0, 1}})));
  b.add(b.key_query(0, 1)
            .at(600, 600)
            .target("instance-2")
            .ok(10, pos(0, 0))
            .replica(applied(active(0, pos(0, 0), "instance-2"), 0)));
  b.add(b.key_query(0, 2)
            .at(800, 800)
            .target("instance-3")
            .ok(5, pos(0, 2))
            .replica(applied(standby(0, pos(0, 2), "instance-3"), 2)));
  JudgeContext context(b.trace());
  const DirtyReadStats stats = dirty_reads(context);
  EXPECT_EQ(stats.answers, 3u) << "seed " << kSeed;
  ASSERT_EQ(stats.dirty, 1u) << "seed " << kSeed;
  EXPECT_EQ(stats.aborted, 1u) << "seed " << kSeed;
  EXPECT_EQ(stats.lower_followed, 1u) << "seed " << kSeed;
  EXPECT_EQ(stats.by_standby, 0u) << "seed " << kSeed;
  EXPECT_EQ(stats.uncommitted_ms_max, 100) << "seed " << kSeed;
  ASSERT_EQ(stats.listed.size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(stats.listed[0].instance, "instance-2") << "seed " << kSeed;
  EXPECT_EQ(stats.listed[0].outcome, sim::TxnOutcome::kAborted) << "seed " << kSeed;
}

// A write committed later counts for as long as it stayed open; the position alone can make an
// answer dirty (a key the open write did not touch, under its header); cached unsent writes count.
// Only with the switch on do positions carry headers (TraceBuilder turns it on).
TraceBuilder committed_later_trace() {
  TraceBuilder b = transactions();
  // Key 2's own write, committed 300 ms after the answer.
  b.add(b.key_query(0, 2)
            .at(400, 400)
            .target("instance-1")
            .ok(5, pos(0, 2))
            .replica(own_runs(applied(active(0, pos(0, 2), "instance-1"), 2), {{1, 2}})));
  // Key 1 is committed data, but the position covers key 2's open write.
  b.add(b.key_query(0, 1)
            .at(450, 450)
            .target("instance-1")
            .ok(10, pos(0, 2))
            .replica(own_runs(applied(active(0, pos(0, 2), "instance-1"), 2), {{1, 2}})));
  // A cached write of key 3 not sent yet.
  b.produce(0, 3, 7);
  const std::vector<sim::UnloggedWrite> cache{
      {3, 7, 400, SourceOffset(3), std::nullopt, std::nullopt}};
  b.add(b.key_query(0, 3)
            .at(460, 460)
            .target("instance-1")
            .ok(7, pos(0, 3))
            .replica(own_runs(applied(active(0, pos(0, 3), "instance-1"), 2, cache), {{1, 2}})));
  return b;
}

TEST(DirtyReadsTest, CommittedLaterPositionOnlyAndUnsentWritesCount) {
  TraceBuilder b = committed_later_trace();
  JudgeContext context(b.trace());
  const DirtyReadStats stats = dirty_reads(context);
  EXPECT_EQ(stats.dirty, 3u) << "seed " << kSeed;
  EXPECT_EQ(stats.aborted, 0u) << "seed " << kSeed;
  // The third reflects key 2's open write too, through the position its header lifted.
  EXPECT_EQ(stats.unsent_only, 0u) << "seed " << kSeed;
  ASSERT_EQ(stats.listed.size(), 3u) << "seed " << kSeed;
  EXPECT_TRUE(stats.listed[2].unsent) << "seed " << kSeed;
  EXPECT_EQ(stats.listed[2].uncommitted_records, 1u) << "seed " << kSeed;
  EXPECT_EQ(stats.uncommitted_ms_count, 3u) << "seed " << kSeed;
  EXPECT_EQ(stats.uncommitted_ms_max, 300) << "seed " << kSeed;
  EXPECT_EQ(stats.uncommitted_ms_sum, 300 + 250 + 240) << "seed " << kSeed;
}

// dirty_reads takes the witness's verdicts ChangelogWitness already reached (witness_verdict):
// the counts are the same whether that check ran first or not, for both traces above.
TEST(DirtyReadsTest, TheSameWhetherChangelogWitnessJudgedFirst) {
  for (TraceBuilder b : {committed_later_trace(), transactions()}) {
    JudgeContext alone(b.trace());
    const DirtyReadStats fresh = dirty_reads(alone);
    JudgeContext after_check(b.trace());
    check_changelog_witness(after_check);
    const DirtyReadStats reused = dirty_reads(after_check);
    EXPECT_EQ(fresh, reused) << "seed " << kSeed;
  }
  TraceBuilder b = committed_later_trace();
  JudgeContext context(b.trace());
  check_changelog_witness(context);
  EXPECT_EQ(dirty_reads(context).dirty, 3u) << "seed " << kSeed;
}

// Without transactional records (at-least-once) nothing is counted.
TEST(DirtyReadsTest, AtLeastOnceTracesCountNothing) {
  TraceBuilder b(TopologyKind::SourceTable, KeyValueSupplier::kRocksDbTimestamped);
  b.produce(0, 1, 10);
  b.log(0, 1, 10, 100, pos(0, 0));
  b.add(b.key_query(0, 1).ok(10, pos(0, 0)).replica(applied(active(0, pos(0, 0)), 0)));
  JudgeContext context(b.trace());
  EXPECT_FALSE(transactional(context.trace())) << "seed " << kSeed;
  EXPECT_EQ(dirty_reads(context), DirtyReadStats{}) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
