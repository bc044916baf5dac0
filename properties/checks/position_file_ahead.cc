// The proof that a violation is a persistent store restored under a `.position` file newer than
// its `.checkpoint` (ViolationClass::kPositionAheadOfCheckpoint; quirk 12 of
// docs/iqv2-semantics.md; scenarios/findings/position_file_ahead_of_checkpoint.toml).
//
// Kafka's behaviour (streams/src/main/java/org/apache/kafka/streams/): a task's checkpoint
// (processor/internals/ProcessorStateManager.checkpoint) first runs each store's commit callback,
// which for a RocksDB store writes `<store>.position` (state/internals/RocksDBStore.init registers
// StoreQueryUtils.checkpointPosition), and only then writes `.checkpoint` with the changelog
// offsets. The two are not written atomically. A process killed between them leaves the new
// position beside the old changelog offset. On restart RocksDBStore.init reads the position from
// `.position` (StoreQueryUtils.readPositionFromCheckpoint), the task restores the changelog from
// the old `.checkpoint` offset, and each restored record's header is merged into a position that
// only grows (ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition, Position.merge):
// until the restore passes the records the file's position covers, the store answers the older
// values it replays beneath the newer position.
//
// The proof, for one successful answer on one partition, with the consistency switch on:
// 1. the store is persistent (RocksDB), so it has `.position` files;
// 2. the answering instance I crashed at C with the crash landing inside the `.checkpoint` write
//    of this partition's task (the fault record names the point "position_checkpoint" and the file
//    `.../0_<partition>/.checkpoint...`: every topology has one subtopology, so task 0_p), after
//    its `.position` files were written; I restarted on its kept disk after C, and neither crashed,
//    closed nor restarted again before the answer;
// 3. the answer's value is what its replica holds by ChangelogWitness: the fold of the changelog
//    prefix [.., A] it applied (the witness differs on the position alone), or that fold over the
//    data the store kept from before the crash (the witness's earlier life);
// 4. the answer's position is {source: {p: Q}} with header_max(A) < Q <= the highest header of
//    the partition's changelog records appended by C: more than the prefix gives, and no more
//    than a position the store could have written to `.position` at C.
// Anything else stays a failure, and the text says which condition failed.

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties::detail {
namespace {

bool is_restart_kept(const sim::FaultRecord& f) {
  return f.is(sim::FaultKind::kRestart) || f.is(sim::FaultKind::kStart);
}

// Whether a crash's landing (the fault record's CrashPointRecord) is inside the .checkpoint write
// of task 0_<partition>, after its .position files: the point position_checkpoint, at a disk
// event on that task directory's .checkpoint (or its .tmp).
bool landed_between_position_and_checkpoint(const sim::FaultRecord& f, int32_t partition) {
  return f.landed && f.landed->has_point("position_checkpoint") &&
         f.landed->on_task_file("0_" + std::to_string(partition), ".checkpoint");
}

}  // namespace

ClassProof prove_position_ahead_of_checkpoint(const JudgeContext& context,
                                              const sim::QueryRecord& record,
                                              const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  const auto fail = [&](const std::string& why) {
    proof.text = fmt::format(
        "record #{} is not a store restored under a .position newer than its .checkpoint: {}",
        record.id, why);
    return proof;
  };
  const sim::RunTrace& trace = context.trace();
  const int32_t p = outcome.partition;
  if (!persistent(trace.topology)) return fail("the store is not persistent");
  if (!trace.consistency_offset_vector_enabled || !outcome.position) {
    return fail("no position headers (consistency switch off)");
  }
  const WitnessResult w = changelog_witness(context, record, outcome);
  const bool value_is_fold = (w.verdict == Witness::kDiffers && w.folded_position) ||
                             (w.verdict == Witness::kNotJudged && w.earlier_life_offset);
  if (!value_is_fold || w.replica == nullptr) {
    return fail("its value is not what the changelog witness says its replica holds");
  }
  const std::string& instance = w.replica->instance;
  const auto [crash, restart] = last_stop(trace, instance, record.complete_ms, false);
  if (crash == nullptr || restart == nullptr || !crash->crashed() || !is_restart_kept(*restart) ||
      !landed_between_position_and_checkpoint(*crash, p)) {
    return fail(
        fmt::format("{} did not crash inside task 0_{}'s .checkpoint write and restart on "
                    "its kept disk as its last life before the answer",
                    instance, p));
  }
  const int64_t q = reported_offset(context, *outcome.position, p);
  if (!is_position_of(context, *outcome.position, p, SourceOffset(q))) {
    return fail("its position has components of other partitions or topics");
  }
  const int64_t applied_max =
      w.folded_position ? reported_offset(context, *w.folded_position, p)
                        : header_max_where(context, p, [&](const sim::ChangelogRecord& r) {
                            return r.offset <= w.applied_offset;
                          });
  // The highest header of the records the log held at the crash.
  const int64_t at_crash = header_max_where(context, p, [crashed_ms = crash->at_ms](const auto& r) {
    return r.appended_ms <= crashed_ms;
  });
  if (q <= applied_max || q > at_crash) {
    return fail(
        fmt::format("its position {} is not above the headers of the applied prefix ({}) "
                    "and within those the log held at the crash ({})",
                    q, applied_max, at_crash));
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{}: {} crashed at {} ms inside task 0_{}'s .checkpoint write (its .position "
      "written), restarted at {} ms on its kept disk, and its {} answers the changelog fold of "
      "changelog-{} [.., {}] (headers up to {}) under position {}, which the log's headers reached "
      "by the crash ({})",
      record.id, instance, crash->at_ms, p, restart->at_ms, sim::to_string(w.replica->role), p,
      w.applied_offset, applied_max, q, at_crash);
  return proof;
}

}  // namespace iq::properties::detail
