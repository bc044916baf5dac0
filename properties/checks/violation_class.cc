// The class of a violation: a declared Kafka behaviour only when the run's record proves it,
// otherwise a failure.
//
// Known Kafka behaviour: at-least-once reprocessing (docs/iqv2-semantics.md §9,
// docs/cluster-model.md §6; scenarios/findings/alos_*). Under at-least-once a task's store writes
// reach the changelog before its input offsets are committed; after a crash or a handoff the
// next owner restores that changelog (which reaches past the committed offset), then processes
// the input again from the committed offset, writing older (or, for aggregations, doubled) values
// under a position that already covers them, because a position component only grows. A
// ResultMatchesModel or SamePositionSameAnswer violation gets this class only when all of these
// hold for its answer (for SamePositionSameAnswer, for both answers, and the proof for one):
// 1. ChangelogWitness holds for it: the answer is the fold of the changelog prefix its replica had
//    applied (plus an active's unlogged writes), so the replica served the log faithfully;
// 2. the ProcessingLedger recorded a range R of that partition's input processed again, begun by
//    the answer, with R's first offset at or below the answer's position component (the position
//    covers input that was processed twice);
// 3. the replica's applied prefix holds a changelog record R's instance appended while it
//    reprocessed R (appended within [R.start_ms, R.end_ms]), or the replica is that instance's
//    active holding an unlogged write of an offset in R: the reprocessing reached this answer.
// Anything else stays a failure, and class_evidence says which condition failed.
//
// Known Kafka behaviour: a store restarted without a checkpoint keeps its data under an empty
// position (scenarios/findings/alos_standby_restart_without_checkpoint_underclaims.toml; Kafka's
// ProcessorStateManager.initializeStoreOffsetsFromCheckpoint keeps a persistent store's data
// when no .checkpoint exists under at-least-once, and the store's position comes from the missing
// .position file as empty). A ResultMatchesModel violation gets this class only when its answer
// carries an empty position, the consistency switch is on (off, an empty position is passed over
// anyway), and ChangelogWitness found the answer to be the applied prefix's fold over the fold of
// a longer prefix (the store's earlier life) on a persistent store whose instance crashed,
// restarted or closed before the answer.
//
// Limits (conservative: they leave a violation a failure, never excuse one): a cached write
// flushed after its reprocessed range closed is not attributed to it; a record written by R's
// instance in the very millisecond R ended, for a new input record, is attributed to R.

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties {
namespace {

// The ALOS proof for one successful answer, or why there is none.
struct Proof {
  bool witness_holds = false;
  bool proven = false;
  std::string text;
};

const sim::PartitionOutcome* outcome_of(const sim::QueryRecord& record, int32_t partition) {
  for (const auto& o : record.partitions) {
    if (o.partition == partition && o.success) return &o;
  }
  return nullptr;
}

// Whether R's reprocessing wrote into the replica's applied prefix (condition 3).
std::optional<std::string> reprocessed_write(const JudgeContext& context,
                                             const sim::ReprocessedRange& range,
                                             const sim::ReplicaSnapshot& replica,
                                             ChangelogOffset applied) {
  const sim::RunTrace& trace = context.trace();
  // Changelog records of one partition are appended in offset order, so their times ascend.
  auto first = std::lower_bound(trace.changelog.begin(), trace.changelog.end(), range,
                                [](const sim::ChangelogRecord& r, const sim::ReprocessedRange& g) {
                                  if (r.partition != g.partition) return r.partition < g.partition;
                                  return r.appended_ms < g.start_ms;
                                });
  for (auto it = first; it != trace.changelog.end() && it->partition == range.partition &&
                        it->appended_ms <= range.end_ms && it->offset <= applied;
       ++it) {
    if (it->writer == range.instance) {
      return fmt::format("changelog-{} offset {} (written by {} at {} ms while it processed {})",
                         it->partition, it->offset, it->writer, it->appended_ms.ms_since_epoch(),
                         range.to_string());
    }
  }
  if (replica.role == sim::ReplicaRole::kActive && replica.instance == range.instance) {
    for (const auto& w : replica.unlogged_writes) {
      if (w.source_offset >= range.first_offset && w.source_offset <= range.last_offset) {
        return fmt::format("an unlogged write of key {} from reprocessed offset {} ({})", w.key,
                           w.source_offset, range.to_string());
      }
    }
  }
  return std::nullopt;
}

Proof prove(const JudgeContext& context, const sim::QueryRecord& record,
            const sim::PartitionOutcome& outcome) {
  Proof proof;
  const detail::WitnessResult w = detail::changelog_witness(context, record, outcome);
  if (w.verdict != detail::Witness::kHolds) {
    proof.text = w.verdict == detail::Witness::kDiffers
                     ? "record #" + std::to_string(record.id) + " is not the changelog fold"
                     : "the changelog witness cannot judge record #" + std::to_string(record.id) +
                           " (" + w.why + ")";
    return proof;
  }
  proof.witness_holds = true;
  const int64_t covered =
      outcome.position ? detail::reported_offset(context, *outcome.position, outcome.partition)
                       : -1;
  for (const sim::ReprocessedRange& range : context.trace().reprocessed) {
    // The covered offset is a position component, so a source offset like the range's.
    if (range.partition != outcome.partition || range.start_ms > record.complete_ms ||
        range.first_offset > SourceOffset(covered)) {
      continue;
    }
    if (auto write = reprocessed_write(context, range, *w.replica, w.applied_offset)) {
      proof.proven = true;
      proof.text = fmt::format(
          "record #{} is the changelog fold of {}'s {} (changelog-{} [.., {}]), which holds {}, "
          "beneath its position {}",
          record.id, w.replica->instance, sim::to_string(w.replica->role), outcome.partition,
          w.applied_offset, *write, covered);
      return proof;
    }
  }
  proof.text = "record #" + std::to_string(record.id) +
               " is the changelog fold, but no reprocessed write lies beneath its position";
  return proof;
}

void classify_one(const JudgeContext& context,
                  const std::map<uint64_t, const sim::QueryRecord*>& records, Violation& v) {
  v.violation_class = ViolationClass::kFailure;
  const bool rmm = v.property == sim::property_names::kResultMatchesModel;
  const bool spsa = v.property == sim::property_names::kSamePositionSameAnswer;
  if ((!rmm && !spsa) || v.record_id == 0 || v.partition < 0) return;
  const auto it = records.find(v.record_id);
  const sim::PartitionOutcome* outcome =
      it == records.end() ? nullptr : outcome_of(*it->second, v.partition);
  if (outcome == nullptr) return;
  if (rmm && context.trace().consistency_offset_vector_enabled && outcome->position &&
      outcome->position->is_empty()) {
    const detail::WitnessResult w = detail::changelog_witness(context, *it->second, *outcome);
    if (w.earlier_life_offset) {
      v.violation_class = ViolationClass::kRestartWithoutCheckpoint;
      v.class_evidence = fmt::format(
          "record #{} has an empty position and is the fold of changelog-{} [.., {}] over the "
          "fold of [.., {}] (data {} kept from before a crash or restart of {})",
          v.record_id, v.partition, w.applied_offset, *w.earlier_life_offset,
          sim::to_string(w.replica->role), w.replica->instance);
      return;
    }
  }
  Proof proof = prove(context, *it->second, *outcome);
  if (spsa) {
    const auto other = records.find(v.other_record_id);
    const sim::PartitionOutcome* other_outcome =
        other == records.end() ? nullptr : outcome_of(*other->second, v.partition);
    if (other_outcome == nullptr) {
      v.class_evidence = "not at-least-once reprocessing: the earlier answer is not recorded";
      return;
    }
    const Proof earlier = prove(context, *other->second, *other_outcome);
    if (!earlier.witness_holds) {
      v.class_evidence = "not at-least-once reprocessing: " + earlier.text;
      return;
    }
    if (!proof.proven && earlier.proven) proof = earlier;
    if (!proof.witness_holds) {
      v.class_evidence = "not at-least-once reprocessing: " + proof.text;
      return;
    }
  }
  if (!proof.proven) {
    v.class_evidence = "not at-least-once reprocessing: " + proof.text;
    return;
  }
  v.violation_class = ViolationClass::kAtLeastOnceReprocessing;
  v.class_evidence = proof.text;
}

}  // namespace

void classify_violations(const JudgeContext& context, std::vector<Violation>& violations) {
  const bool any = std::any_of(violations.begin(), violations.end(), [](const Violation& v) {
    return v.property == sim::property_names::kResultMatchesModel ||
           v.property == sim::property_names::kSamePositionSameAnswer;
  });
  std::map<uint64_t, const sim::QueryRecord*> records;
  if (any) {
    for (const sim::QueryRecord& r : context.trace().history.records()) records.emplace(r.id, &r);
  }
  for (Violation& v : violations) classify_one(context, records, v);
}

}  // namespace iq::properties
