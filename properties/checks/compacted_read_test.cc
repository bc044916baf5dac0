// The compacted-read fold (changelog_witness.cc, compacted_read.cc) under exactly_once_v2: a
// replica reads the changelog read_committed, so an aborted record, or one whose transaction was
// not decided by the answer, is neither a record it read nor one the cleaner made it skip. Kafka's
// LogCleaner (core/src/main/scala/kafka/log/LogCleaner.scala: buildOffsetMapForSegment leaves
// aborted batches out of the offset map; CleanedTransactionMetadata.onBatchRead discards them)
// removes aborted records in its own time, and a read_committed fetch drops them whether or not
// it has yet.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using namespace testing;  // NOLINT

// Source and changelog: key 1 = 1 (offset 0, committed at 15 ms), key 2 = 2 (1, committed at
// 15 ms), key 2 = 9 (2, aborted at 30 ms; removed by the cleaner at `aborted_removed_ms`, if
// given), key 1 = 3 (3, committed at 35 ms). The cleaner removed offset 0 at 50 ms (key 1's
// committed offset 3 supersedes it). All written by instance-1.
TraceBuilder compacted_with_abort(std::optional<int64_t> aborted_removed_ms) {
  TraceBuilder b(TopologyKind::SourceTable);
  b.produce(0, 1, 1);
  b.produce(0, 2, 2);
  b.produce(0, 2, 9);
  b.produce(0, 1, 3);
  b.log(0, 1, 1, 100, pos(0, 0), "instance-1", 10);
  b.log(0, 2, 2, 200, pos(0, 1), "instance-1", 11);
  b.log(0, 2, 9, 300, pos(0, 2), "instance-1", 12);
  b.log(0, 1, 3, 400, pos(0, 3), "instance-1", 13);
  b.txn(0, 0, sim::TxnOutcome::kCommitted, 15);
  b.txn(0, 1, sim::TxnOutcome::kCommitted, 15);
  b.txn(0, 2, sim::TxnOutcome::kAborted, 30);
  b.txn(0, 3, sim::TxnOutcome::kCommitted, 35);
  b.removed(0, 0, 50);
  if (aborted_removed_ms) b.removed(0, 2, *aborted_removed_ms);
  return b;
}

// A standby on instance-2 that applied changelog [.., 2] answers the range [1, 2] at 60 ms with
// key 2 = 2 only, under the position {0=1} of the one header it read: it fetched offset 0 after
// the cleaner removed it (key 1's newer record lies beyond its offset) and, reading
// read_committed, never saw the aborted offset 2, removed or not. ChangelogWitness holds: the
// fold of what it could read of the compacted log. Before the fix the aborted record counted as a
// record the standby read (when still in the log: no fold at all) or skipped through compaction.
TEST(CompactedReadTest, AbortedRecordsAreNeitherReadNorSkippedUnderReadCommitted) {
  for (std::optional<int64_t> aborted_removed_ms :
       {std::optional<int64_t>{}, std::optional<int64_t>{40}, std::optional<int64_t>{70}}) {
    TraceBuilder b = compacted_with_abort(aborted_removed_ms);
    b.add(b.range_query(0, 1, 2)
              .target("instance-2")
              .at(60, 60)
              .ok_entries({{2, 2}}, pos(0, 1))
              .replica(applied(standby(0, pos(0, 1), "instance-2"), 2)));
    JudgeContext context(b.trace());
    const auto witness = check_changelog_witness(context);
    EXPECT_TRUE(witness.empty()) << "seed " << kSeed << " aborted removed at "
                                 << aborted_removed_ms.value_or(-1) << "\n"
                                 << text(witness);
  }
}

// The aborted value itself is still no answer a read_committed standby could give, compacted log
// or not: the witness fails.
TEST(CompactedReadTest, AnAbortedValueStaysUnexplained) {
  TraceBuilder b = compacted_with_abort(40);
  b.add(b.range_query(0, 1, 2)
            .target("instance-2")
            .at(60, 60)
            .ok_entries({{2, 9}}, pos(0, 2))
            .replica(applied(standby(0, pos(0, 2), "instance-2"), 2)));
  JudgeContext context(b.trace());
  const auto witness = check_changelog_witness(context);
  EXPECT_EQ(witness.size(), 1u) << "seed " << kSeed << "\n" << text(witness);
}

}  // namespace
}  // namespace iq::properties
