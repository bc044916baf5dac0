// ChangelogWitness on a versioned store: a replica's versions against the fold of the changelog
// prefix it applied.
//
// A versioned store's changelog carries every put and delete with the version's timestamp as the
// record timestamp (quirk 13 of docs/iqv2-semantics.md), so the prefix a replica applied holds
// every version it can have. Which of them it keeps and answers also depends on things no fold by
// offset sees: its observed stream time, which a store object starts at -1 (restored from its
// checkpoint, it knows only what it restored since), restore's batch-end stream time (quirk 18),
// and, once reopened over a kept disk, the segments it does not know (quirk 17), under which a
// put can also write rows Kafka's format does not describe (an unchecked insertAsEarliest). So the
// witness holds a versioned answer to what is always true, and to the fold where the fold decides:
//
// 1. The answer is the fold's: the model's VersionedHistory over the records the replica applied
//    (changelog offsets standing in for source offsets; grace drops by the running stream time)
//    answers the query exactly so. The witness holds. The position is judged as for a key-value
//    store (the highest header component of the records applied), or, where it differs, passed
//    over with its reason: versioned restore skips a record beyond grace before reading its
//    header (quirk 14), so a restored replica may legitimately stay below the headers' maximum.
// 2. Not that, on a store object whose recorded life opened over kept data (in a hand-made trace
//    without lives: on an instance that crashed, restarted or closed before the answer): the
//    answer is
//    the fold of a longer prefix, [.., O] with O a record of the key appended before the answer
//    (a versioned store is persistent: Kafka keeps its data when it restarts without a
//    checkpoint and restores the log from its start over it, ProcessorStateManager.
//    initializeStoreOffsetsFromCheckpoint). Passed over, with O as earlier_life_offset, as the
//    key-value witness does.
// 3. Neither: every version the answer holds must still be one the replica could have been
//    given: its value and validFrom those of a record of the key in the applied prefix (or, over
//    kept data, any record appended before the answer), and its validTo, when it has one, the
//    timestamp of such a record (a validTo is always the timestamp of the next version or of a
//    tombstone, even in the rows quirk 17 leaves). Then the answer is passed over with its reason;
//    a version no such record gives is a violation: the store answered something it never held.

#include <algorithm>
#include <limits>
#include <span>

#include <fmt/format.h>

#include "base/assert.h"
#include "checks/check.h"
#include "checks/check_util.h"
#include "model/key_bytes.h"

namespace iq::properties::detail {
namespace {

// The fold of the records `keep` admits: the model's VersionedHistory with changelog offsets for
// source offsets (a versioned table's changelog record is its input record, re-keyed by offset).
template <typename Keep>
model::VersionedHistory fold(const TopologyConfig& topology,
                             std::span<const sim::ChangelogRecord> log, Keep keep) {
  model::VersionedHistory history(topology.history_retention_ms,
                                  topology.effective_segment_interval_ms(),
                                  std::max<int64_t>(1, static_cast<int64_t>(log.size())));
  for (const sim::ChangelogRecord& r : log) {
    if (!keep(r)) continue;
    history.apply(r.partition,
                  model::SourceRecord{
                      r.offset.value(), model::serialize_int32_key(r.key), r.value, r.timestamp_ms,
                      r.value ? model::WriteKind::kPut : model::WriteKind::kTombstone});
  }
  return history;
}

// The first version of the answer that no record `admit` admits gives (step 3), rendered, or
// nullopt when every one is such a record's.
template <typename Admit>
std::optional<std::string> foreign_version(const sim::VersionedList& answer, int32_t key,
                                           std::span<const sim::ChangelogRecord> log, Admit admit) {
  for (const sim::VersionedValue& v : answer) {
    bool from_found = false;
    bool to_found = !v.valid_to_ms.has_value();
    for (const sim::ChangelogRecord& r : log) {
      if (r.key != key || !admit(r)) continue;
      from_found = from_found || (r.value == v.value && r.timestamp_ms == v.valid_from_ms);
      to_found = to_found || r.timestamp_ms == *v.valid_to_ms;
      if (from_found && to_found) break;
    }
    if (!from_found || !to_found) {
      return fmt::format("{} ({})", sim::to_string(v),
                         !from_found ? "no such value at that timestamp"
                                     : "no version or tombstone of the key at its validTo");
    }
  }
  return std::nullopt;
}

// The highest header component of the records the replica applied, as the position they give
// (empty when none has one).
Position folded_position(const JudgeContext& context, const sim::ReplicaSnapshot& replica,
                         ChangelogOffset applied) {
  const int64_t component = header_max_where(
      context, replica.partition, [&](const auto& r) { return applied_by(replica, applied, r); });
  return position_of(context, replica.partition, SourceOffset(component));
}

WitnessResult holds(const JudgeContext& context, const sim::PartitionOutcome& outcome,
                    const sim::ReplicaSnapshot& replica, WitnessResult result) {
  result.verdict = Witness::kHolds;
  if (!context.trace().consistency_offset_vector_enabled) {
    result.position_not_judged = "position not judged: consistency switch off (no headers to fold)";
    return result;
  }
  const Position want = folded_position(context, replica, result.applied_offset);
  if (!outcome.position || outcome.position->map() != want.map()) {
    result.position_not_judged =
        "position not judged: versioned restore skips a record beyond grace before its header "
        "(quirk 14)";
  }
  return result;
}

// Step 2: the fold of a longer prefix [.., O] that gives the answer, O a record of the key
// appended by the answer.
std::optional<ChangelogOffset> earlier_life(const JudgeContext& context,
                                            const sim::QueryRecord& record,
                                            const sim::PartitionOutcome& outcome,
                                            std::span<const sim::ChangelogRecord> log,
                                            ChangelogOffset applied) {
  const auto appended = [&](const sim::ChangelogRecord& r) {
    return r.appended_ms <= record.complete_ms;
  };
  std::vector<ChangelogOffset> candidates;
  for (const sim::ChangelogRecord& r : log) {
    if (r.key == *record.request.key && r.offset > applied && appended(r)) {
      candidates.push_back(r.offset);
    }
  }
  if (candidates.empty()) return std::nullopt;
  const model::VersionedHistory all = fold(context.trace().topology, log, appended);
  for (ChangelogOffset older : candidates) {
    if (versioned_equal(outcome,
                        versioned_expected(all, record.request, outcome.partition, older.value())))
      return older;
  }
  return std::nullopt;
}

}  // namespace

WitnessResult versioned_changelog_witness(const JudgeContext& context,
                                          const sim::QueryRecord& record,
                                          const sim::PartitionOutcome& outcome,
                                          const sim::ReplicaSnapshot& replica,
                                          ChangelogOffset applied) {
  IQ_ASSERT(context.trace().topology.versioned() && is_versioned_kind(record.request.kind) &&
                record.request.key,
            "record #{}", record.id);
  WitnessResult result;
  result.replica = &replica;
  result.applied_offset = applied;
  const std::span<const sim::ChangelogRecord> log =
      partition_log(context.trace(), outcome.partition);
  const auto* answer = std::get_if<sim::VersionedList>(&outcome.value);
  const auto applied_by_replica = [&](const sim::ChangelogRecord& r) {
    return applied_by(replica, applied, r);
  };
  const model::VersionedHistory applied_fold =
      fold(context.trace().topology, log, applied_by_replica);
  const std::vector<model::Version> want =
      versioned_expected(applied_fold, record.request, outcome.partition, applied.value());
  if (versioned_equal(outcome, want)) return holds(context, outcome, replica, result);

  // Whether the store object may hold an earlier object's data beneath what it was given: its
  // recorded life says so exactly; only a hand-made trace without lives falls back on the faults.
  const sim::StoreLife* life = context.trace().store_life(replica.store_life);
  const bool restarted = life != nullptr
                             ? life->over_kept_data
                             : reopened_before(context, replica.instance, record.complete_ms);
  if (restarted && answer != nullptr) {
    if (auto older = earlier_life(context, record, outcome, log, applied)) {
      result.verdict = Witness::kNotJudged;
      result.why =
          "a persistent store kept an earlier life's data beneath its restore (restarted "
          "without a checkpoint)";
      result.earlier_life_offset = older;
      if (context.trace().consistency_offset_vector_enabled) {
        result.prefix_position = folded_position(context, replica, applied);
      }
      return result;
    }
  }
  std::optional<std::string> foreign;
  if (answer == nullptr) {
    foreign = "the answer is not a list of versions";
  } else if (restarted) {
    foreign = foreign_version(*answer, *record.request.key, log,
                              [&](const auto& r) { return r.appended_ms <= record.complete_ms; });
  } else {
    foreign = foreign_version(*answer, *record.request.key, log, applied_by_replica);
  }
  if (!foreign) {
    result.verdict = Witness::kNotJudged;
    result.versions_from_log = true;
    result.why =
        "versioned: every version is a record the replica could hold, but the answer is not the "
        "fold's (the store's own observed stream time and known segments: quirks 17, 18)";
    return result;
  }
  result.verdict = Witness::kDiffers;
  result.why = fmt::format(
      "the answer holds {}, which no record of key {} in changelog-{} [.., {}]{} that {}'s {} "
      "could hold gives",
      *foreign, *record.request.key, outcome.partition, applied,
      restarted ? " (or appended before the answer, the instance having restarted or dropped out)"
                : "",
      replica.instance, sim::to_string(replica.role));
  result.expected = versions_text(want);
  return result;
}

// Pin delta 9 (ViolationClass::kVersionedPositionNotStaged; docs/kafka-2026-08-20.md §3.4.5):
// RocksDBVersionedStore keeps one position, advanced by every put as it is made, staged or not,
// and query() bounds and labels both isolation levels with it, while READ_COMMITTED reads the
// committed views of the physical store. The proof: a READ_COMMITTED VersionedKeyQuery or
// MultiVersionedKeyQuery at the 2026-08-20 pin on a transactional versioned store (the run's flag
// on, the replica's recorded committed position present) whose position is exactly the replica's
// staged position at the answer (ReplicaSnapshot::store_position) and not its committed one, and
// whose versions are exactly the fold of the records the replica had applied up to its last
// store commit (ReplicaSnapshot::committed_changelog_offset). Any other answer (the staged fold,
// any other position, the committed position) is refused: only the label is Kafka's quirk.
ClassProof prove_versioned_position_not_staged(const JudgeContext& context,
                                               const sim::QueryRecord& record,
                                               const sim::PartitionOutcome& outcome) {
  const sim::RunTrace& trace = context.trace();
  if (!read_committed_at_new_pin(context, record.request)) {
    return {false, "not a READ_COMMITTED answer at the 2026-08-20 pin"};
  }
  if (!trace.topology.versioned() || !is_versioned_kind(record.request.kind) ||
      !record.request.key || !trace.transactional_state_stores) {
    return {false, "not a versioned query of a transactional versioned store"};
  }
  if (!outcome.success || !outcome.position) return {false, "not a success with a position"};
  const sim::ReplicaSnapshot* replica = transactional_answering_replica(record, outcome);
  if (replica == nullptr) {
    return {false, "the answering replica recorded no committed position (not transactional)"};
  }
  if (!replica->store_position || outcome.position->map() != replica->store_position->map()) {
    return {false, fmt::format("record #{}'s position {} is not {}'s staged position {}", record.id,
                               outcome.position->to_string(), replica->instance,
                               replica->store_position ? replica->store_position->to_string()
                                                       : std::string("(none)"))};
  }
  if (outcome.position->map() == replica->committed_position->map()) {
    return {false, fmt::format("record #{} carries {}'s committed position: no staged label",
                               record.id, replica->instance)};
  }
  const ChangelogOffset committed =
      std::min(replica->changelog_offset.value_or(ChangelogOffset(-1)),
               replica->committed_changelog_offset.value_or(ChangelogOffset(-1)));
  const std::span<const sim::ChangelogRecord> log = partition_log(trace, outcome.partition);
  const model::VersionedHistory committed_fold =
      fold(trace.topology, log,
           [&](const sim::ChangelogRecord& r) { return applied_by(*replica, committed, r); });
  const std::vector<model::Version> want =
      versioned_expected(committed_fold, record.request, outcome.partition, committed.value());
  if (!versioned_equal(outcome, want)) {
    return {false, fmt::format("record #{} is not the fold of changelog-{} [.., {}], {}'s "
                               "committed state ({})",
                               record.id, outcome.partition, committed, replica->instance,
                               versions_text(want))};
  }
  return {true,
          fmt::format("record #{} is the fold of changelog-{} [.., {}], {}'s committed "
                      "state at its last store commit, under its staged position {} "
                      "(committed {}): the versioned store labels READ_COMMITTED with its "
                      "one position",
                      record.id, outcome.partition, committed, replica->instance,
                      outcome.position->to_string(), replica->committed_position->to_string())};
}

}  // namespace iq::properties::detail
