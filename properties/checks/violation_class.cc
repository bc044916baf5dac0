// The class of a violation: a declared Kafka behaviour only when the run's record proves it and
// the class's rule admits the run's processing guarantee (class_rules.cc: no proof is tried for a
// class the guarantee does not admit, and a last gate turns any such class into a failure),
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
//    reprocessed R (appended within [R.start_ms, R.end_ms]), or, for a caching window or session
//    store, appended after R began under a position header within R (a record cache's flush of
//    reprocessed writes after R closed: the header, a largest offset, dates the write), or the
//    replica is that instance's active holding an unlogged write of an offset in R: the
//    reprocessing reached this answer.
// For Count and Sum, condition 3 may instead be that every aggregate the answer holds is a fold
// of its key's input with the replays the ledger shows (a record cache flushes the reprocessing's
// writes after its range closed, where append times cannot date them; aggregate_proofs.cc).
// Anything else stays a failure, and class_evidence says which condition failed. On an LRU store
// condition 1 may hold for the keys the answer holds only (the others evicted without a logged
// tombstone, so the witness cannot judge the whole answer): each present key is the fold's, and a
// range is within the store's capacity where no record cache above adds entries.
//
// Known Kafka behaviour: a fenced member's late writes
// (scenarios/findings/alos_fenced_member_late_write_beneath_newer_position.toml). A member paused
// or cut off past its session timeout still flushes its cache and sends what it processed at its
// next commit (TaskManager.commitTasksAndMaybeUpdateCommittableOffsets prepares, i.e. flushes,
// every task before TaskExecutor.commitOffsetsOrTransaction fails with CommitFailedException), and
// under at-least-once nothing fences those sends. They land after the new owner began processing
// the same input again, with their old position headers, over the new owner's newer writes. A
// ResultMatchesModel or SamePositionSameAnswer violation gets this class, when the at-least-once
// proof fails, only when conditions 1 and 2 hold and the replica applied a changelog record whose
// writer is not R's instance, was paused or isolated before the record was appended, whose header
// component lies within R, and which was appended after R began: the earlier processing of R's
// input, arriving late.
//
// Known Kafka behaviour: a store reopened without a current checkpoint keeps its data under a lower
// position (scenarios/findings/alos_standby_restart_without_checkpoint_underclaims.toml; Kafka's
// ProcessorStateManager.initializeStoreOffsetsFromCheckpoint keeps a persistent store's data
// when no .checkpoint exists under at-least-once, and the store's position comes from the missing
// .position file as empty). A ResultMatchesModel violation gets this class only when its answer
// carries an empty position, the consistency switch is on (off, an empty position is passed over
// anyway), and ChangelogWitness found the answer to be the applied prefix's fold over the fold of
// a longer prefix (the store's earlier life) on a persistent store whose instance crashed,
// restarted or closed before the answer. The same class covers a store restored from a
// .checkpoint older than the data it kept (a crash after a flush, before its .checkpoint was
// durable): Kafka replays only the records after the checkpoint, so until the replay passes the
// kept data the store answers newer values under an older position (an under-claim). The answer
// then has a position, the replica a checkpoint offset (ReplicaSnapshot::restored_from), and the
// witness's proof is the replayed records' fold over the kept longer prefix's. And a store reopened
// without a .checkpoint whose replay from the log start is under way: the answer is the kept
// longer prefix's fold under the position of the headers replayed so far, as long as the
// instance stopped and started on its kept disk after the earlier life applied that prefix
// (why_not_replaying_from_start; a versioned store keeps its newer versions through the replay
// of older ones, so the answer stays ahead of the position until the replay passes them).
//
// Known Kafka behaviour: a replica inside one cached flush of the changelog over-claims
// (kCacheFlushPartlyApplied, a ResultMatchesModel violation; partial_flush.cc holds the proof),
// and a store restored under a .position newer than its .checkpoint over-claims
// (kPositionAheadOfCheckpoint, quirk 12, a ResultMatchesModel or ChangelogWitness violation;
// position_file_ahead.cc holds the proof), a count or sum in an LRU store restarts from zero
// after an eviction (kLruEvictedAggregate; aggregate_proofs.cc holds the proof), and a reopened
// versioned store does not see its older segments (kVersionedStoreReopened, quirk 17;
// versioned_reopened.cc holds the proof), and a replica inside a compacted changelog lacks keys
// whose superseded records the cleaner removed before it read them
// (kReplicaInsideCompactedChangelog; compacted_read.cc holds the proof), and a store whose task
// directory the cleaner was deleting when its process died keeps its .checkpoint without its data
// (kCleanerCutByCrash, a ResultMatchesModel, SamePositionSameAnswer or ChangelogWitness
// violation; cleaner_cut.cc holds the proof). Each is tried when reprocessing is not proven. A
// SamePositionSameAnswer violation gets one of these when one answer is proven it and the other
// is proven alike, is the model's answer, or is proven a declared behaviour of its own.
//
// Limits (conservative: they leave a violation a failure, never excuse one): a cached write
// flushed after its reprocessed range closed is attributed to it only through a position header
// within the range (window and session stores) or a fold of the replays (Count, Sum); a record
// written by R's instance in the very millisecond R ended, for a new input record, is attributed
// to R.

#include <algorithm>
#include <map>
#include <string_view>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties {
namespace {

// The proof for one successful answer (its class), or why there is none.
struct Proof {
  bool witness_holds = false;
  bool proven = false;
  ViolationClass proven_class = ViolationClass::kFailure;
  std::string text;
};

// Whether class c can be Kafka's behaviour under the run's processing guarantee (class_rules.cc).
bool admitted(const JudgeContext& context, ViolationClass c) {
  return holds_under(c, context.trace().guarantee);
}

// The class rule admits kRestartWithoutCheckpoint under at_least_once only, for its forms without
// a .checkpoint (under exactly_once_v2 ProcessorStateManager.initializeStoreOffsetsFromCheckpoint
// throws TaskCorruptedException and the task is wiped). Its form restored from an older
// .checkpoint is Kafka's under exactly_once_v2 too: a .checkpoint found at restart is loaded (and
// only then deleted), the store is kept, and whatever RocksDB flushed by itself after that
// checkpoint (a full memtable; a standby checkpoints under the threshold rule under EOS too) stays
// under the checkpoint's older .position until the restore passes it. Seed 103 of
// templates/default.toml: instance-4's exactly_once_v2 standby restarted from .checkpoint 1481
// over a store that held changelog-1 up to 1539. Its form over a .checkpoint whose entry is the
// unknown sentinel is Kafka's under exactly_once_v2 too, when the store life before it wrote one
// and was not wiped: the state updater enforces a checkpoint when an active completes restoration
// (DefaultStateUpdater.maybeCompleteRestoration, under every guarantee), with the unknown offset
// when the changelog was empty, and nothing deletes it while the task processes, so the restart
// finds it and keeps the store: the store life records the entry it opened on
// (StoreLife::checkpoint_found). Seed 37 of templates/default.toml, and seed 536 of
// templates/kafka_2026.toml at the old pin, whose versioned store then restored from the log's
// start under an empty position over what the first life's RocksDB had flushed.
// Whether the store object that answered opened on a .checkpoint entry of its changelog.
bool opened_on_checkpoint_entry(const JudgeContext& context, const sim::ReplicaSnapshot& replica) {
  const sim::StoreLife* life = context.trace().store_life(replica.store_life);
  return life != nullptr && life->checkpoint_found();
}

bool admitted(const JudgeContext& context, const Violation& v) {
  if (admitted(context, v.violation_class)) return true;
  return v.violation_class == ViolationClass::kRestartWithoutCheckpoint &&
         context.trace().guarantee == sim::Guarantee::kExactlyOnceV2 && v.restored_from_checkpoint;
}

// Whether `instance` was paused or isolated before at_ms (it may have dropped out of the group
// while it could not reach the coordinator, and written afterwards).
bool cut_off_before(const JudgeContext& context, const std::string& instance, base::Instant at_ms) {
  for (const sim::FaultRecord& f : context.trace().faults) {
    if (f.at_ms < at_ms && f.instance == instance && f.cut_off()) return true;
  }
  return false;
}

// The first changelog record of R's partition appended at or after R began. Records of one
// partition are appended in offset order (the recorder merges the cleaner's removed records back
// in offset order), so their append times ascend.
std::vector<sim::ChangelogRecord>::const_iterator first_appended_since(
    const sim::RunTrace& trace, const sim::ReprocessedRange& range) {
  return std::lower_bound(trace.changelog.begin(), trace.changelog.end(), range,
                          [](const sim::ChangelogRecord& r, const sim::ReprocessedRange& g) {
                            if (r.partition != g.partition) return r.partition < g.partition;
                            return r.appended_ms < g.start_ms;
                          });
}

// A fenced member's late write of R's input in the replica's applied prefix (the fenced proof's
// condition 3): a record by another instance than R's, paused or isolated before, whose position
// header lies in R, appended after R began.
std::optional<std::string> fenced_late_write(const JudgeContext& context,
                                             const sim::ReprocessedRange& range,
                                             const sim::ReplicaSnapshot& replica,
                                             ChangelogOffset applied) {
  const sim::RunTrace& trace = context.trace();
  const auto first = first_appended_since(trace, range);
  for (auto it = first;
       it != trace.changelog.end() && it->partition == range.partition && it->offset <= applied;
       ++it) {
    if (it->writer == range.instance || it->writer.empty() || !it->position) continue;
    // A position header's component is a source offset (Position holds them as longs).
    const SourceOffset header(detail::reported_offset(context, *it->position, it->partition));
    if (header < range.first_offset || header > range.last_offset) continue;
    if (!detail::applied_by(replica, applied, *it)) continue;
    if (!cut_off_before(context, it->writer, it->appended_ms)) continue;
    return fmt::format(
        "changelog-{} offset {} (written by {} at {} ms under position {}, after it was paused or "
        "isolated, while {})",
        it->partition, it->offset, it->writer, it->appended_ms.ms_since_epoch(), header,
        range.to_string());
  }
  return std::nullopt;
}

// Why `w`'s replica, restored without a checkpoint, cannot be replaying its changelog from the
// start over data an earlier life kept, or nullopt if it can: its instance's last stop before the
// answer (a crash or close, or a pause or isolation after which the group took its tasks and it
// closed them dirty, without a checkpoint) was followed by a start on its kept disk (a restart,
// start, resume or heal; not a wiped restart), the earlier life's record (the witness's
// earlier_life_offset) was appended before that stop, and the answer's position is one the
// replayed headers alone give (a single component, for the queried source partition, no higher
// than the headers of the applied prefix). Without a .checkpoint the store's position starts from
// the .position file, which is written with a checkpoint, so a position above the replayed
// headers is not this behaviour.
std::optional<std::string> why_not_replaying_from_start(const JudgeContext& context,
                                                        const sim::QueryRecord& record,
                                                        const Position& position, int32_t p,
                                                        const detail::WitnessResult& w) {
  const sim::RunTrace& trace = context.trace();
  const auto [stop, start] =
      detail::last_stop(trace, w.replica->instance, record.complete_ms, true);
  if (start == nullptr || start->kind == sim::FaultKind::kRestartWiped) {
    return fmt::format("{} did not stop and start again on its kept disk before the answer",
                       w.replica->instance);
  }
  int64_t header_max = -1;
  bool earlier_appended_before_stop = false;
  for (const sim::ChangelogRecord& r : trace.changelog) {
    if (r.partition != p) continue;
    if (r.offset == *w.earlier_life_offset) {
      earlier_appended_before_stop = r.appended_ms <= stop->at_ms;
    }
    if (r.offset <= w.applied_offset && r.position) {
      header_max = std::max(header_max, detail::reported_offset(context, *r.position, p));
    }
  }
  if (!earlier_appended_before_stop) {
    return fmt::format("changelog-{} offset {} was not appended before {}'s {} at {} ms", p,
                       *w.earlier_life_offset, w.replica->instance, sim::to_string(stop->kind),
                       stop->at_ms.ms_since_epoch());
  }
  const int64_t q = detail::reported_offset(context, position, p);
  if (!detail::is_position_of(context, position, p, SourceOffset(q)) || q > header_max) {
    return fmt::format("its position {} is not one the replayed headers give (at most {})",
                       position.to_string(), header_max);
  }
  return std::nullopt;
}

// Whether `instance`'s last start at or before at_ms was on a wiped disk (nothing kept).
bool last_start_wiped(const JudgeContext& context, const std::string& instance,
                      base::Instant at_ms) {
  bool wiped = false;
  for (const sim::FaultRecord& f : context.trace().faults) {
    if (f.at_ms > at_ms || f.instance != instance) continue;
    if (f.is(sim::FaultKind::kRestartWiped)) wiped = true;
    if (f.is(sim::FaultKind::kRestart) || f.is(sim::FaultKind::kStart)) wiped = false;
  }
  return wiped;
}

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
  const auto first = first_appended_since(trace, range);
  for (auto it = first; it != trace.changelog.end() && it->partition == range.partition &&
                        it->appended_ms <= range.end_ms && it->offset <= applied;
       ++it) {
    if (it->writer == range.instance && detail::applied_by(replica, applied, *it)) {
      return fmt::format("changelog-{} offset {} (written by {} at {} ms while it processed {})",
                         it->partition, it->offset, it->writer, it->appended_ms.ms_since_epoch(),
                         range.to_string());
    }
  }
  // A window or session store's record cache flushes the reprocessing's writes after the range
  // closed, where the append time cannot date them (a key-value Count or Sum is proven by folding
  // its input with the replays instead, aggregate_proofs.cc); the position header can:
  // Position.withComponent keeps the largest offset, so a record R's instance appended after R
  // began (its task's life starts at R's first offset with an empty cache) under a header within
  // R came from a write of an offset in R.
  const TopologyConfig& topology = trace.topology;
  const bool cached_windows = (topology.windowed() || topology.session()) && topology.cached();
  for (auto it = first; cached_windows && it != trace.changelog.end() &&
                        it->partition == range.partition && it->offset <= applied;
       ++it) {
    if (it->writer != range.instance || !it->position ||
        !detail::applied_by(replica, applied, *it)) {
      continue;
    }
    const SourceOffset header(detail::reported_offset(context, *it->position, it->partition));
    if (header >= range.first_offset && header <= range.last_offset) {
      return fmt::format(
          "changelog-{} offset {} (written by {} at {} ms under position {}, a flush of what it "
          "cached while it processed {})",
          it->partition, it->offset, it->writer, it->appended_ms.ms_since_epoch(), header,
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

// An LRU store's answer whose present keys are the fold's (the others evicted without a logged
// tombstone), within the store's capacity where no record cache above adds entries: for the
// proof, the replica served the log faithfully for every key it answered.
bool lru_present_keys_hold(const JudgeContext& context, const detail::WitnessResult& w,
                           const sim::PartitionOutcome& outcome) {
  if (w.verdict != detail::Witness::kNotJudged || !w.present_keys_hold) return false;
  const TopologyConfig& topology = context.trace().topology;
  const auto* list = std::get_if<sim::KeyValueList>(&outcome.value);
  return list == nullptr || topology.caching ||
         static_cast<int64_t>(list->size()) <= topology.lru_max_entries;
}

Proof prove(const JudgeContext& context, const sim::QueryRecord& record,
            const sim::PartitionOutcome& outcome) {
  Proof proof;
  const detail::WitnessResult w = detail::changelog_witness(context, record, outcome);
  if (w.verdict != detail::Witness::kHolds && !lru_present_keys_hold(context, w, outcome)) {
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
  // The proof, naming the answer's replica and its applied prefix, then `what` in that prefix.
  const auto proven = [&](ViolationClass c, const std::string& what) {
    proof.proven = true;
    proof.proven_class = c;
    proof.text =
        fmt::format("record #{} is the changelog fold of {}'s {} (changelog-{} [.., {}]), {}",
                    record.id, w.replica->instance, sim::to_string(w.replica->role),
                    outcome.partition, w.applied_offset, what);
    return proof;
  };
  // Under exactly_once_v2 neither reprocessing nor a fenced member's late write reaches a
  // committed changelog: the answer is not proven either way, and the other classes are tried.
  const bool alos = admitted(context, ViolationClass::kAtLeastOnceReprocessing);
  const bool fenced = admitted(context, ViolationClass::kFencedLateWrite);
  if (!alos && !fenced) {
    proof.text = fmt::format(
        "record #{} is the changelog fold; reprocessing and a fenced member's late writes are "
        "Kafka's behaviour under at_least_once only, and this run is {}",
        record.id, sim::to_string(context.trace().guarantee));
    return proof;
  }
  for (const sim::ReprocessedRange& range : context.trace().reprocessed) {
    // The covered offset is a position component, so a source offset like the range's.
    if (!alos || range.partition != outcome.partition || range.start_ms > record.complete_ms ||
        range.first_offset > SourceOffset(covered)) {
      continue;
    }
    if (auto write = reprocessed_write(context, range, *w.replica, w.applied_offset)) {
      return proven(ViolationClass::kAtLeastOnceReprocessing,
                    fmt::format("which holds {}, beneath its position {}", *write, covered));
    }
  }
  for (const sim::ReprocessedRange& range : context.trace().reprocessed) {
    if (!fenced || range.partition != outcome.partition || range.start_ms > record.complete_ms ||
        range.first_offset > SourceOffset(covered)) {
      continue;
    }
    if (auto write = fenced_late_write(context, range, *w.replica, w.applied_offset)) {
      return proven(ViolationClass::kFencedLateWrite,
                    fmt::format("which holds a fenced member's late write, {}, beneath its "
                                "position {}",
                                *write, covered));
    }
  }
  // A record cache flushes the reprocessing's writes after its range closed, where the append
  // times above cannot date them: an aggregate is then proven by folding its input with the
  // replays (aggregate_proofs.cc).
  const detail::ClassProof replayed =
      alos ? detail::prove_replayed_aggregate(context, record, outcome)
           : detail::ClassProof{.proven = false, .text = "reprocessing is not admitted"};
  if (replayed.proven) {
    return proven(ViolationClass::kAtLeastOnceReprocessing, "and " + replayed.text);
  }
  proof.text = "record #" + std::to_string(record.id) +
               " is the changelog fold, but no reprocessed write (nor a fenced member's late "
               "write of reprocessed input) lies beneath its position, and " +
               replayed.text;
  return proof;
}

// The declared behaviours besides reprocessing, tried in turn on one answer: the first the record
// proves, or kFailure with each one's reason.
struct OtherClass {
  ViolationClass c = ViolationClass::kFailure;
  std::string text;
};

OtherClass other_class(const JudgeContext& context, const sim::QueryRecord& record,
                       const sim::PartitionOutcome& outcome) {
  // The three 2026-08-20 pin classes first: each is refused at once outside its pin and family.
  const detail::ClassProof miss = detail::prove_cached_key_query_miss(context, record, outcome);
  if (miss.proven && admitted(context, ViolationClass::kCachedKeyQueryMissReadsCommitted))
    return {ViolationClass::kCachedKeyQueryMissReadsCommitted, miss.text};
  const detail::ClassProof staged =
      detail::prove_staged_stream_time_expired(context, record, outcome);
  if (staged.proven && admitted(context, ViolationClass::kStagedStreamTimeExpiresCommitted))
    return {ViolationClass::kStagedStreamTimeExpiresCommitted, staged.text};
  const detail::ClassProof unpersisted =
      detail::prove_versioned_position_not_persisted(context, record, outcome);
  if (unpersisted.proven && admitted(context, ViolationClass::kVersionedPositionNotPersisted))
    return {ViolationClass::kVersionedPositionNotPersisted, unpersisted.text};
  const detail::ClassProof unstaged =
      detail::prove_versioned_position_not_staged(context, record, outcome);
  if (unstaged.proven && admitted(context, ViolationClass::kVersionedPositionNotStaged))
    return {ViolationClass::kVersionedPositionNotStaged, unstaged.text};
  const detail::ClassProof flush = detail::prove_partial_flush(context, record, outcome);
  if (flush.proven && admitted(context, ViolationClass::kCacheFlushPartlyApplied))
    return {ViolationClass::kCacheFlushPartlyApplied, flush.text};
  const detail::ClassProof ahead =
      detail::prove_position_ahead_of_checkpoint(context, record, outcome);
  if (ahead.proven && admitted(context, ViolationClass::kPositionAheadOfCheckpoint))
    return {ViolationClass::kPositionAheadOfCheckpoint, ahead.text};
  const detail::ClassProof lru = detail::prove_lru_evicted_aggregate(context, record, outcome);
  if (lru.proven && admitted(context, ViolationClass::kLruEvictedAggregate))
    return {ViolationClass::kLruEvictedAggregate, lru.text};
  const detail::ClassProof reopened =
      detail::prove_versioned_store_reopened(context, record, outcome);
  if (reopened.proven && admitted(context, ViolationClass::kVersionedStoreReopened))
    return {ViolationClass::kVersionedStoreReopened, reopened.text};
  const detail::ClassProof compacted =
      detail::prove_compacted_changelog_read(context, record, outcome);
  if (compacted.proven && admitted(context, ViolationClass::kReplicaInsideCompactedChangelog))
    return {ViolationClass::kReplicaInsideCompactedChangelog, compacted.text};
  const detail::ClassProof inside = detail::prove_inside_record_writes(context, record, outcome);
  if (inside.proven && admitted(context, ViolationClass::kReplicaInsideOneRecordsWrites))
    return {ViolationClass::kReplicaInsideOneRecordsWrites, inside.text};
  const detail::ClassProof cleaner = detail::prove_cleaner_cut_by_crash(context, record, outcome);
  if (cleaner.proven && admitted(context, ViolationClass::kCleanerCutByCrash))
    return {ViolationClass::kCleanerCutByCrash, cleaner.text};
  const detail::ClassProof batch =
      detail::prove_versioned_restore_dropped_expired(context, record, outcome);
  if (batch.proven && admitted(context, ViolationClass::kVersionedRestoreDroppedExpired))
    return {ViolationClass::kVersionedRestoreDroppedExpired, batch.text};
  const detail::ClassProof nulls = detail::prove_restored_null_puts(context, record, outcome);
  if (nulls.proven && admitted(context, ViolationClass::kDuplicatesNullPutSkipped))
    return {ViolationClass::kDuplicatesNullPutSkipped, nulls.text};
  const detail::ClassProof cached =
      detail::prove_cached_writes_beneath_position(context, record, outcome);
  if (cached.proven && admitted(context, ViolationClass::kCachedWritesBeneathPosition))
    return {ViolationClass::kCachedWritesBeneathPosition, cached.text};
  const detail::ClassProof kept = detail::prove_eos_kept_aborted_answer(context, record, outcome);
  if (kept.proven && admitted(context, ViolationClass::kEosKeptAbortedWrites))
    return {ViolationClass::kEosKeptAbortedWrites, kept.text};
  return {ViolationClass::kFailure,
          miss.text + "; " + staged.text + "; " + unpersisted.text + "; " + unstaged.text + "; " +
              flush.text + "; " + ahead.text + "; " + lru.text + "; " + reopened.text + "; " +
              compacted.text + "; " + inside.text + "; " + cleaner.text + "; " + batch.text + "; " +
              nulls.text + "; " + cached.text + "; " + kept.text};
}

// Whether a successful answer is the model's at the offset its position reports.
bool is_the_models_answer(const JudgeContext& context, const sim::QueryRecord& record,
                          const sim::PartitionOutcome& outcome) {
  if (!outcome.position || detail::not_answerable(context, record.request)) return false;
  const int64_t offset = detail::reported_offset(context, *outcome.position, outcome.partition);
  return detail::fit_answer(context, record, outcome, offset).fit == detail::Fit::kMatches;
}

void classify_one(const JudgeContext& context,
                  const std::map<uint64_t, const sim::QueryRecord*>& records, Violation& v) {
  v.violation_class = ViolationClass::kFailure;
  if (v.property == sim::property_names::kEventuallyAvailable && v.partition >= 0) {
    const detail::ClassProof tail =
        detail::prove_versioned_grace_dropped_tail(context, v.partition);
    if (tail.proven) {
      v.violation_class = ViolationClass::kVersionedGraceDroppedTail;
      v.class_evidence = tail.text;
      return;
    }
    const detail::TailProof window = detail::prove_window_skipped_tail(context, v.partition);
    if (window.proof.proven) {
      v.violation_class = window.duplicates_null_puts ? ViolationClass::kDuplicatesNullPutSkipped
                                                      : ViolationClass::kWindowGraceDroppedTail;
      v.class_evidence = window.proof.text;
      return;
    }
    const detail::ClassProof unpersisted =
        detail::prove_versioned_position_not_persisted_tail(context, v.partition);
    if (unpersisted.proven) {
      v.violation_class = ViolationClass::kVersionedPositionNotPersisted;
      v.class_evidence = unpersisted.text;
      return;
    }
    v.class_evidence = tail.text + "; " + window.proof.text + "; " + unpersisted.text;
    return;
  }
  const bool rmm = v.property == sim::property_names::kResultMatchesModel;
  const bool spsa = v.property == sim::property_names::kSamePositionSameAnswer;
  const bool witness = v.property == sim::property_names::kChangelogWitness;
  if (witness && v.record_id == 0 && v.changelog_offset && v.partition >= 0) {
    const detail::ClassProof kept =
        detail::prove_eos_kept_aborted_record(context, v.partition, *v.changelog_offset);
    if (kept.proven && admitted(context, ViolationClass::kEosKeptAbortedWrites)) {
      v.violation_class = ViolationClass::kEosKeptAbortedWrites;
    }
    v.class_evidence = kept.text;
    return;
  }
  if ((!rmm && !spsa && !witness) || v.record_id == 0 || v.partition < 0) return;
  const auto it = records.find(v.record_id);
  const sim::PartitionOutcome* outcome =
      it == records.end() ? nullptr : outcome_of(*it->second, v.partition);
  if (outcome == nullptr) return;
  if (witness && v.read_committed_dirty) {
    ViolationClass proven = ViolationClass::kFailure;
    const detail::ClassProof level =
        detail::prove_read_committed_not_honoured(context, *it->second, *outcome, proven);
    if (level.proven && admitted(context, proven)) v.violation_class = proven;
    v.class_evidence = level.text;
    return;
  }
  if (witness) {
    // Five declared behaviours make a replica's answer differ from its changelog's fold: a
    // cached KeyQuery that missed the cache under READ_COMMITTED (the committed fold under the
    // staged label, while the witness folds the staged prefix for a cached KeyQuery), a
    // transactional window or session store whose staged puts raised its stream time over
    // committed windows (H7), a transactional versioned store's committed versions under its one,
    // staged position (delta 9), a position loaded from a .position file newer than the
    // .checkpoint it restored from, and a store emptied by a cleaner a crash cut, under the
    // .checkpoint the cleaner left.
    const detail::ClassProof miss =
        detail::prove_cached_key_query_miss(context, *it->second, *outcome);
    if (miss.proven) {
      v.violation_class = ViolationClass::kCachedKeyQueryMissReadsCommitted;
      v.class_evidence = miss.text;
      return;
    }
    const detail::ClassProof staged =
        detail::prove_staged_stream_time_expired(context, *it->second, *outcome);
    if (staged.proven) {
      v.violation_class = ViolationClass::kStagedStreamTimeExpiresCommitted;
      v.class_evidence = staged.text;
      return;
    }
    const detail::ClassProof unstaged =
        detail::prove_versioned_position_not_staged(context, *it->second, *outcome);
    if (unstaged.proven) {
      v.violation_class = ViolationClass::kVersionedPositionNotStaged;
      v.class_evidence = unstaged.text;
      return;
    }
    const detail::ClassProof ahead =
        detail::prove_position_ahead_of_checkpoint(context, *it->second, *outcome);
    if (ahead.proven) {
      v.violation_class = ViolationClass::kPositionAheadOfCheckpoint;
      v.class_evidence = ahead.text;
      return;
    }
    const detail::ClassProof cleaner =
        detail::prove_cleaner_cut_by_crash(context, *it->second, *outcome);
    if (cleaner.proven) v.violation_class = ViolationClass::kCleanerCutByCrash;
    v.class_evidence = cleaner.proven ? cleaner.text : ahead.text + "; " + cleaner.text;
    return;
  }
  if (rmm && context.trace().guarantee == sim::Guarantee::kExactlyOnceV2) {
    // An exactly-once store object that kept aborted writes is that class before it is a kept
    // life's (the kept-life form below describes data newer than a position, not aborted data).
    const detail::ClassProof kept =
        detail::prove_eos_kept_aborted_answer(context, *it->second, *outcome);
    if (kept.proven && admitted(context, ViolationClass::kEosKeptAbortedWrites)) {
      v.violation_class = ViolationClass::kEosKeptAbortedWrites;
      v.class_evidence = kept.text;
      return;
    }
  }
  if (rmm && context.trace().consistency_offset_vector_enabled && outcome->position) {
    // Empty: restarted without a checkpoint (no .position either). Not empty: restored from a
    // .checkpoint older than the data the store kept, under the position of its .position file
    // and the replayed headers; the witness proves the answer is that kept data's fold.
    const detail::WitnessResult w = detail::changelog_witness(context, *it->second, *outcome);
    // The answer is exactly what its store object held, recorded: the entries an earlier store
    // object left on disk, no older than the .checkpoint it loaded, with the records given to it
    // since, under the position of its .position and their headers (window and session stores).
    if (w.verdict == detail::Witness::kHolds && w.kept_life != 0) {
      const sim::StoreLife& life = *context.trace().store_life(w.kept_life);
      v.violation_class = ViolationClass::kRestartWithoutCheckpoint;
      v.restored_from_checkpoint = life.checkpoint_found();
      v.class_evidence = fmt::format(
          "record #{} is exactly what {}'s store object (life {}, opened at {} ms) held: the {} "
          "entries its files kept from an earlier store object, no older than the .checkpoint it "
          "loaded ({}), with the changelog records given to it up to changelog-{} {}, under its "
          ".position {} and their headers: data newer than its position",
          v.record_id, life.instance, life.id, life.opened_ms.ms_since_epoch(), life.kept.size(),
          life.loaded_checkpoint ? fmt::format("{}", *life.loaded_checkpoint) : "none", v.partition,
          w.applied_offset, life.loaded_position.to_string());
      return;
    }
    // Neither empty nor from a checkpoint: restored from the log start, the replay under way.
    const bool from_start = w.earlier_life_offset && w.replica && !w.replica->restored_from &&
                            !outcome->position->is_empty();
    const std::optional<std::string> not_from_start =
        from_start
            ? why_not_replaying_from_start(context, *it->second, *outcome->position, v.partition, w)
            : std::nullopt;
    if (from_start && !not_from_start) {
      v.violation_class = ViolationClass::kRestartWithoutCheckpoint;
      v.restored_from_checkpoint = opened_on_checkpoint_entry(context, *w.replica);
      v.class_evidence = fmt::format(
          "record #{} is the fold of changelog-{} [.., {}] as an earlier life of {} kept it (its "
          "{} reopened without a .checkpoint after the instance stopped), while its replay from "
          "the log start has reached [.., {}] under the replayed headers' position {}",
          v.record_id, v.partition, *w.earlier_life_offset, w.replica->instance,
          sim::to_string(w.replica->role), w.applied_offset, outcome->position->to_string());
      return;
    }
    // The stop that dropped the store's checkpoint may come after the earlier life's last write
    // (a member that resumed, wrote, and then lost its tasks, closing them dirty): the replay from
    // the log's start is still proven when the position is exactly the applied prefix's headers
    // and the instance did not come back on a wiped disk.
    const bool replayed_from_start =
        from_start && w.prefix_position && outcome->position->map() == w.prefix_position->map() &&
        !last_start_wiped(context, w.replica->instance, it->second->complete_ms);
    if (w.earlier_life_offset && (outcome->position->is_empty() ||
                                  (w.replica && w.replica->restored_from) || replayed_from_start)) {
      v.violation_class = ViolationClass::kRestartWithoutCheckpoint;
      v.restored_from_checkpoint = (!outcome->position->is_empty() && w.replica->restored_from) ||
                                   opened_on_checkpoint_entry(context, *w.replica);
      v.class_evidence =
          outcome->position->is_empty()
              ? fmt::format(
                    "record #{} has an empty position and is the fold of changelog-{} [.., {}] "
                    "over the fold of [.., {}] (data {} kept from before a crash, restart or drop "
                    "out of the group of {})",
                    v.record_id, v.partition, w.applied_offset, *w.earlier_life_offset,
                    sim::to_string(w.replica->role), w.replica->instance)
          : !w.replica->restored_from
              ? fmt::format(
                    "record #{} is the fold of changelog-{} [.., {}] replayed from the log's start "
                    "(no .checkpoint) under the position of its headers {} over the fold of [.., "
                    "{}] (data {} kept from before a crash, restart or drop out of the group of "
                    "{})",
                    v.record_id, v.partition, w.applied_offset, outcome->position->to_string(),
                    *w.earlier_life_offset, sim::to_string(w.replica->role), w.replica->instance)
              : fmt::format(
                    "record #{} is the fold of changelog-{} ({}, {}] replayed from its "
                    ".checkpoint over the fold of [.., {}] (data {} kept from before a crash or "
                    "restart of {}, newer than that checkpoint)",
                    v.record_id, v.partition, *w.replica->restored_from, w.applied_offset,
                    *w.earlier_life_offset, sim::to_string(w.replica->role), w.replica->instance);
      return;
    }
  }
  Proof proof = prove(context, *it->second, *outcome);
  if (rmm) {
    if (proof.proven) {
      v.violation_class = proof.proven_class;
      v.class_evidence = proof.text;
      return;
    }
    const OtherClass o = other_class(context, *it->second, *outcome);
    v.violation_class = o.c;
    v.class_evidence = o.c != ViolationClass::kFailure
                           ? o.text
                           : "not a known Kafka behaviour (at-least-once reprocessing, a fenced "
                             "member's late writes): " +
                                 proof.text + "; " + o.text;
    return;
  }
  const auto other = records.find(v.other_record_id);
  const sim::PartitionOutcome* other_outcome =
      other == records.end() ? nullptr : outcome_of(*other->second, v.partition);
  if (other_outcome == nullptr) {
    v.class_evidence = "not a known Kafka behaviour: the earlier answer is not recorded";
    return;
  }
  const Proof earlier = prove(context, *other->second, *other_outcome);
  // Both answers must be the folds of the changelog prefixes their replicas applied (the witness
  // holds for each), and one of them proven: two folds of one log at one position differ only
  // where that log holds records written by processing input again (or a fenced member's late
  // writes), which the proof shows.
  if (earlier.witness_holds && proof.witness_holds && (proof.proven || earlier.proven)) {
    const Proof& proven = proof.proven ? proof : earlier;
    v.violation_class = proven.proven_class;
    v.class_evidence = proven.text;
    return;
  }
  const std::string alos_why = !earlier.witness_holds ? earlier.text : proof.text;
  // Another declared behaviour explains the difference when one answer is proven to be it and the
  // other is proven alike or is the model's answer at the position both report.
  const std::pair<const sim::QueryRecord*, const sim::PartitionOutcome*> answers[2] = {
      {it->second, outcome}, {other->second, other_outcome}};
  const OtherClass classes[2] = {other_class(context, *answers[0].first, *answers[0].second),
                                 other_class(context, *answers[1].first, *answers[1].second)};
  // Or the other is proven a declared behaviour of its own (reprocessing, a fenced member's late
  // write, or another class): each answer's difference from the log's true state is then one
  // the record proves.
  const Proof* reprocessing[2] = {&proof, &earlier};
  for (int i = 0; i < 2; ++i) {
    if (classes[i].c == ViolationClass::kFailure) continue;
    const auto& [r, o] = answers[1 - i];
    const char* explained = nullptr;
    if (classes[1 - i].c == classes[i].c) {
      explained = "proven alike";
    } else if (is_the_models_answer(context, *r, *o)) {
      explained = "the model's answer at that position";
    } else if (classes[1 - i].c != ViolationClass::kFailure) {
      explained = iq::properties::to_string(classes[1 - i].c);
    } else if (reprocessing[1 - i]->proven) {
      explained = iq::properties::to_string(reprocessing[1 - i]->proven_class);
    }
    if (explained != nullptr) {
      v.violation_class = classes[i].c;
      v.rerun_record_id = answers[i].first->id;
      v.class_evidence = classes[i].text + fmt::format("; record #{} is {}", r->id, explained);
      return;
    }
  }
  v.class_evidence =
      "not a known Kafka behaviour (at-least-once reprocessing, a fenced member's late writes): " +
      alos_why + "; " + classes[0].text;
}

}  // namespace

void classify_violations(const JudgeContext& context, std::vector<Violation>& violations) {
  const bool any = std::any_of(violations.begin(), violations.end(), [](const Violation& v) {
    return v.property == sim::property_names::kResultMatchesModel ||
           v.property == sim::property_names::kSamePositionSameAnswer ||
           v.property == sim::property_names::kChangelogWitness;
  });
  std::map<uint64_t, const sim::QueryRecord*> records;
  if (any) {
    for (const sim::QueryRecord& r : context.trace().history.records()) records.emplace(r.id, &r);
  }
  for (Violation& v : violations) {
    classify_one(context, records, v);
    // The last word is the class's rule: no class is given where the run's guarantee is not one
    // its rule admits (the proof chain above skips most of them before; this catches them all).
    if (v.violation_class != ViolationClass::kFailure && !admitted(context, v)) {
      v.class_evidence = fmt::format(
          "not a known Kafka behaviour: proven \"{}\", which is Kafka's under {} only, but this "
          "run is {}: {}",
          to_string(v.violation_class), guarantees_text(v.violation_class),
          sim::to_string(context.trace().guarantee), v.class_evidence);
      v.violation_class = ViolationClass::kFailure;
    }
    // And the pin: a class its rule names for one Kafka pin is a failure at the other.
    if (v.violation_class != ViolationClass::kFailure &&
        !holds_at(v.violation_class, context.trace().kafka_pin)) {
      v.class_evidence = fmt::format(
          "not a known Kafka behaviour: proven \"{}\", which is Kafka's at the {} pin only, but "
          "this run is at {}: {}",
          to_string(v.violation_class), to_string(*class_rule(v.violation_class).pin),
          to_string(context.trace().kafka_pin), v.class_evidence);
      v.violation_class = ViolationClass::kFailure;
    }
    v.needs_rerun = attributed_by_rerun(v.violation_class);
    if (v.needs_rerun && v.rerun_record_id == 0) v.rerun_record_id = v.record_id;
  }
}

}  // namespace iq::properties
