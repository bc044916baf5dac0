// The proof that a violation is a persistent store whose task directory the state-directory
// cleaner was deleting when its process died (ViolationClass::kCleanerCutByCrash;
// scenarios/findings/cleaner_cut_by_crash_keeps_checkpoint_without_store.toml).
//
// Kafka's behaviour (streams/src/main/java/org/apache/kafka/streams/): the cleaner
// (processor/internals/StateDirectory.cleanRemovedTasksCalledByCleanerThread) deletes an unowned
// task directory older than state.cleanup.delay.ms in place with Utils.delete
// (clients/.../common/utils/Utils.java: Files.walkFileTree, deleting each file and then each
// directory, with no fsync and no rename of the directory out of the way first). A process killed
// in the middle leaves whatever the file system made durable: the store's subdirectory
// (rocksdb/<store>) may be gone while the task directory's `.checkpoint` and `<store>.position`
// files are still there. On restart the task directory is taken again,
// ProcessorStateManager.initializeStoreOffsetsFromCheckpoint trusts `.checkpoint` for a persistent
// store whatever the store holds (it looks at the store directory only under exactly-once, and
// only when the checkpoint is missing), RocksDBStore.init reads its position from `.position`, and
// the restore replays only the changelog records after the checkpoint into the empty store. So the
// store answers without the data beneath its checkpoint under a position that covers it, until
// the task is wiped (it never is: exactly-once wipes a task only when .checkpoint lacks the store's
// offset, and deletes the file only after trusting it;
// scenarios/findings/eos_cleaner_cut_by_crash_keeps_checkpoint_without_store.toml).
//
// The proof, for one successful answer on one partition p:
// 1. the store is persistent (RocksDB);
// 2. the answering instance I crashed at C with the crash landing inside the cleaner (the fault
//    record's landing, FaultRecord::landed, has the crash point "cleaner" at a disk event on a path
//    inside task directory 0_<p>: every topology has one subtopology, so task 0_p), then restarted
//    on its kept disk, and neither crashed, closed nor restarted again before the answer;
// 3. the replica initialized from a checkpoint (ReplicaSnapshot::restored_from), and
//    ChangelogWitness found the answer's value to be the fold of the changelog records after that
//    checkpoint alone, up to the prefix it applied, over an empty store
//    (WitnessResult::fold_over_empty_store): everything beneath the checkpoint is missing, as a
//    deleted store directory leaves it, and nothing else differs;
// 4. with the consistency switch on, the answer's position is one the store could hold: no
//    component of another partition, and its component no higher than the headers the changelog
//    held by the crash or the headers of its applied prefix (the `.position` file's, kept from
//    before the crash, merged with the replayed headers).
// Anything else stays a failure, and the text says which condition failed. A checkpoint written
// before its flush (the checkpoint-before-flush mutant) loses only part of the data and fails 2.

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties::detail {
namespace {

// Whether a disk path lies in task directory `task` ("0_1"): one of its components is the task.
bool in_task_dir(const std::string& path, const std::string& task) {
  size_t from = 0;
  while (from <= path.size()) {
    const size_t slash = path.find('/', from);
    const size_t end = slash == std::string::npos ? path.size() : slash;
    if (path.compare(from, end - from, task) == 0 && end - from == task.size()) return true;
    if (slash == std::string::npos) break;
    from = slash + 1;
  }
  return false;
}

bool landed_in_cleaner(const sim::FaultRecord& f, int32_t partition) {
  return f.landed && f.landed->has_point("cleaner") && f.landed->event == "disk" &&
         in_task_dir(f.landed->path, "0_" + std::to_string(partition));
}

}  // namespace

ClassProof prove_cleaner_cut_by_crash(const JudgeContext& context, const sim::QueryRecord& record,
                                      const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  const auto fail = [&](const std::string& why) {
    proof.text = fmt::format(
        "record #{} is not a store whose task directory a crash cut the cleaner's deletion of: {}",
        record.id, why);
    return proof;
  };
  const sim::RunTrace& trace = context.trace();
  const int32_t p = outcome.partition;
  if (!persistent(trace.topology)) return fail("the store is not persistent");
  const WitnessResult w = changelog_witness(context, record, outcome);
  if (w.replica == nullptr || !w.replica->restored_from || !w.fold_over_empty_store) {
    return fail(
        "its value is not the fold of the changelog records after its replica's .checkpoint "
        "over an empty store");
  }
  const std::string& instance = w.replica->instance;
  const auto [crash, restart] = last_stop(trace, instance, record.complete_ms, false);
  if (crash == nullptr || restart == nullptr || !crash->crashed() ||
      restart->kind == sim::FaultKind::kRestartWiped || !landed_in_cleaner(*crash, p)) {
    return fail(fmt::format(
        "{} did not crash inside the cleaner's deletion of task directory 0_{} and restart on "
        "its kept disk as its last life before the answer",
        instance, p));
  }
  if (trace.consistency_offset_vector_enabled && outcome.position) {
    const int64_t q = reported_offset(context, *outcome.position, p);
    // The highest header of the records appended by the crash or in the applied prefix.
    const int64_t bound =
        header_max_where(context, p, [&, crashed_ms = crash->at_ms](const sim::ChangelogRecord& r) {
          return r.appended_ms <= crashed_ms || r.offset <= w.applied_offset;
        });
    if (!is_position_of(context, *outcome.position, p, SourceOffset(q)) || q > bound) {
      return fail(fmt::format(
          "its position {} is not one its .position file and replayed headers could give (at "
          "most {})",
          outcome.position->to_string(), bound));
    }
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{}: {} crashed at {} ms inside the cleaner's deletion of task directory 0_{} ({}), "
      "restarted at {} ms on its kept disk, and its {} answers the fold of changelog-{} ({}, {}] "
      "alone: the records after the .checkpoint the deletion left, over a store it emptied",
      record.id, instance, crash->at_ms.ms_since_epoch(), p, crash->landed->what,
      restart->at_ms.ms_since_epoch(), sim::to_string(w.replica->role), p,
      *w.replica->restored_from, w.applied_offset);
  return proof;
}

}  // namespace iq::properties::detail
