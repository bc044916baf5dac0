// The proof of ViolationClass::kVersionedGraceDroppedTail (quirk 14 of docs/iqv2-semantics.md).
//
// RocksDBVersionedStore drops a record older than its observed stream time minus the grace period
// (the history retention), and its position is asymmetric about it: put() advances the position
// for a dropped put, delete() does not for a dropped delete, and restoreBatch skips a changelog
// record beyond the grace period before ChangelogRecordDeserializationHelper reads its position
// header. The change-logging layer logs the dropped write all the same (quirk 13). So when the
// last records of a partition are late beyond the grace period, a store that restored them (a
// standby, or an active restored past them) or that dropped them as deletes never gets their
// offsets into its position, and once the producer stops nothing newer moves it: a liveness probe
// bounded by everything produced waits for ever.
//
// An EventuallyAvailable "never answered" violation of a partition gets the class only when all
// of these hold:
// 1. the topology is the versioned table, the consistency switch is on (without it, restored
//    positions never move at all: findings/switch_off_restored_position_empty.toml), and the
//    last liveness probe of the partition was answered NOT_UP_TO_BOUND with a position P below
//    the phase's bound B for that partition;
// 2. the replica that answered it had applied its whole changelog (lag 0): nothing was pending;
// 3. every source offset o in (P, B] is a record older than the stream time of the records before
//    it minus the history retention (the store dropped it, live or restored);
// 4. for each such o that is a put (a dropped put advances a live store's position), the
//    changelog holds its logged record (its key and timestamp, a position header reaching o)
//    within the replica's applied prefix, and the replica's store object did not process it
//    live: the record is not one of its own writes since its state manager was created
//    (ReplicaSnapshot::own_write_runs; it restored the record, or the task came back anew);
// 5. every changelog record of the partition whose header reaches past P is itself older than the
//    stream time of the changelog records before it minus the retention: restore skips each one
//    before reading its header, whatever stream time the replica started from is at most that.
// Anything else stays a failure, with the condition that failed.

#include <algorithm>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"
#include "model/time_math.h"

namespace iq::properties::detail {

std::optional<StuckProbe> stuck_probe_of(const JudgeContext& context, int32_t partition,
                                         ClassProof& proof) {
  IQ_ASSERT(context.trace().liveness, "seed {}: no liveness phase", context.trace().seed);
  const int64_t bound = reported_offset(context, context.trace().liveness->bound, partition);
  const sim::QueryRecord* probe = last_liveness_probe(context, partition);
  const sim::PartitionOutcome* outcome = nullptr;
  if (probe != nullptr) {
    for (const auto& o : probe->partitions) {
      if (o.partition == partition) outcome = &o;
    }
  }
  if (outcome == nullptr || outcome->success ||
      outcome->failure_reason != FailureReason::NOT_UP_TO_BOUND || !outcome->position) {
    proof.text = fmt::format(
        "partition {}'s last probe was not refused NOT_UP_TO_BOUND with a position", partition);
    return std::nullopt;
  }
  const int64_t position = reported_offset(context, *outcome->position, partition);
  if (bound < 0 || position >= bound) {
    proof.text = fmt::format("partition {}'s last probe position {} is not below the bound {}",
                             partition, position, bound);
    return std::nullopt;
  }
  return StuckProbe{probe, position, bound};
}

ClassProof prove_versioned_grace_dropped_tail(const JudgeContext& context, int32_t partition) {
  ClassProof proof;
  const sim::RunTrace& trace = context.trace();
  const model::VersionedHistory* model = context.versioned();
  if (model == nullptr || !trace.liveness) {
    proof.text =
        fmt::format("partition {} is not a versioned store's under a liveness phase", partition);
    return proof;
  }
  if (!trace.consistency_offset_vector_enabled) {
    proof.text = "the consistency switch is off (restored positions never move)";
    return proof;
  }
  const int64_t retention_ms = model->history_retention_ms();
  const std::optional<StuckProbe> stuck = stuck_probe_of(context, partition, proof);
  if (!stuck) return proof;
  const sim::QueryRecord* probe = stuck->probe;
  const int64_t position = stuck->position;
  const int64_t bound = stuck->bound;
  const sim::ReplicaSnapshot* replica =
      find_replica(explaining_placement(*probe), probe->target_instance, partition);
  // Whole: no lag, or under exactly_once_v2 a lag of only the trailing transaction marker (and
  // aborted records), which a READ_COMMITTED consumer never hands the store: the whole recorded
  // changelog holds nothing past its offset but records whose transaction aborted.
  const auto only_aborted_after = [&](ChangelogOffset applied) {
    return trace.guarantee == sim::Guarantee::kExactlyOnceV2 && trace.changelog_recorded &&
           trace.changelog_dropped == 0 &&
           std::none_of(trace.changelog.begin(), trace.changelog.end(),
                        [&](const sim::ChangelogRecord& r) {
                          return r.partition == partition && r.offset > applied &&
                                 r.txn != sim::TxnOutcome::kAborted;
                        });
  };
  if (replica == nullptr || !replica->lag || !replica->changelog_offset ||
      (*replica->lag != 0 && !only_aborted_after(*replica->changelog_offset))) {
    proof.text = fmt::format("probe #{}'s replica had not applied its whole changelog", probe->id);
    return proof;
  }
  // Conditions 3 and 4, over the source log (partition-major, offsets ascending).
  int64_t stream_time_ms = -1;
  int64_t puts = 0, deletes = 0;
  for (const sim::SourceLogRecord& s : trace.source_log) {
    if (s.partition != partition) continue;
    const int64_t offset = s.offset.value();
    if (offset > bound) break;
    const bool late = s.timestamp_ms < model::saturating_minus(stream_time_ms, retention_ms);
    stream_time_ms = std::max(stream_time_ms, s.timestamp_ms);
    if (offset <= position) continue;
    if (!late) {
      proof.text = fmt::format(
          "source offset {} of partition {} (timestamp {}) is within the grace period of the "
          "stream time {} before it, yet beyond the replica's position {}",
          offset, partition, s.timestamp_ms, stream_time_ms, position);
      return proof;
    }
    if (!s.value) {
      ++deletes;
      continue;
    }
    const auto logged = std::find_if(
        trace.changelog.begin(), trace.changelog.end(), [&](const sim::ChangelogRecord& r) {
          return r.partition == partition && r.key == s.key && r.timestamp_ms == s.timestamp_ms &&
                 r.position && reported_offset(context, *r.position, partition) >= offset &&
                 r.offset <= *replica->changelog_offset;
        });
    if (logged == trace.changelog.end()) {
      proof.text = fmt::format(
          "the dropped put at source offset {} has no logged record the "
          "replica applied",
          offset);
      return proof;
    }
    if (written_by_store(*replica, *logged)) {  // processed live: no restore skipped it
      proof.text = fmt::format(
          "{} processed the dropped put at source offset {} itself, which advances a live "
          "store's position",
          replica->instance, offset);
      return proof;
    }
    ++puts;
  }
  // Condition 5, over the changelog in offset order as a restore reads it.
  int64_t log_stream_time_ms = -1;
  for (const sim::ChangelogRecord& r : trace.changelog) {
    if (r.partition != partition) continue;
    const bool late = r.timestamp_ms < model::saturating_minus(log_stream_time_ms, retention_ms);
    if (!late) log_stream_time_ms = std::max(log_stream_time_ms, r.timestamp_ms);
    if (r.position && reported_offset(context, *r.position, partition) > position && !late) {
      proof.text = fmt::format(
          "changelog-{} offset {} carries a header past {} and is within the grace period, so "
          "a restore would have read it",
          partition, r.offset, position);
      return proof;
    }
  }
  proof.proven = true;
  proof.text = fmt::format(
      "partition {}'s offsets ({}, {}] are {} put(s) and {} delete(s) older than the stream time "
      "before them minus the history retention ({} ms): a versioned store drops them, restore "
      "skips their changelog records before reading the position header and a dropped delete "
      "never advances it (quirk 14), so {}'s {} stays at {}",
      partition, position, bound, puts, deletes, retention_ms, replica->instance,
      sim::to_string(replica->role), position);
  return proof;
}

}  // namespace iq::properties::detail
