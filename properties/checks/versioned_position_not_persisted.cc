// The proofs of ViolationClass::kVersionedPositionNotPersisted (pin delta 10 of
// docs/kafka-2026-08-20.md; docs/fidelity-2026-08-20.md row "1, 10").
//
// At 8f4e08b5a3 RocksDBVersionedStore keeps its offsets in its one physical RocksDBStore
// (KIP-1035): commit(offsets) is LogicalKeyValueSegments.commit, which is the physical store's,
// and that writes the physical store's own position beside the offsets. The physical store is
// opened with openDB alone (LogicalKeyValueSegments.openExisting), never init, so it has no
// context and StoreQueryUtils.updatePosition never advances its position: every versioned put,
// and every restored record (restoreBatch updates the segments' position object, not the physical
// store's), leaves it as it was read at open. The versioned store's position starts as a copy of
// it merged into the segments' (plus a stale <store>.position file of the old pin, which a run
// configured at the new pin never writes). So a store object that opens over the data an earlier
// one kept (a restart, a standby or an active reopened on its kept disk) starts from the empty
// position under all that data, and carries only what happens to it since: the headers of the
// changelog records it is given (restore, standby updates) and of its own writes.
//
// An answer (ResultMatchesModel, SamePositionSameAnswer) gets the class only when all hold:
// 1. the run is at the 2026-08-20 pin, the topology versioned, the consistency switch on;
// 2. ChangelogWitness holds for it (its versions are the fold of the prefix its replica applied);
// 3. the replica's store life (trace/store_life.h) opened over kept data and loaded the empty
//    position (nothing at this pin persists a put's position, and no .position file exists);
// 4. its position is exactly the highest header of the changelog records that life was given or
//    wrote, up to the replica's applied offset (empty when none): no more, no less; and that is
//    below the highest header of the prefix it applied (the position is low for this reason).
// A probe refused NOT_UP_TO_BOUND (EventuallyAvailable: a partition that never answered) gets it
// when its replica's life meets 1 and 3, the refusal's position is exactly that of 4, and the
// highest header of the prefix the replica applied meets the bound: with the position its data
// carries, the probe would have passed. Anything else stays a failure (a versioned answer whose
// position is low for another reason among them).

#include <algorithm>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties::detail {
namespace {

// Condition 1, or why the run is not this case: asked before anything is folded.
std::optional<std::string> not_this_run(const sim::RunTrace& trace) {
  if (!at_least(trace.kafka_pin, KafkaPin::k2026_08_20)) {
    return std::string("not the 2026-08-20 pin");
  }
  if (!trace.topology.versioned() || !trace.consistency_offset_vector_enabled) {
    return std::string("not a versioned store with the consistency switch on");
  }
  return std::nullopt;
}

// Conditions 1 and 3, then the position condition 4 names for `replica`'s store object (the
// highest header its life was given or wrote up to `applied`, -1 for none), or why the answer is
// not this case.
std::variant<int64_t, std::string> position_left(const JudgeContext& context,
                                                 const sim::ReplicaSnapshot& replica,
                                                 ChangelogOffset applied) {
  const sim::RunTrace& trace = context.trace();
  if (auto why = not_this_run(trace)) return *why;
  const sim::StoreLife* life = trace.store_life(replica.store_life);
  if (life == nullptr) return fmt::format("{}'s store life is not recorded", replica.instance);
  if (!life->over_kept_data) {
    return fmt::format(
        "{}'s store object (life {}) opened over nothing, so every record it holds "
        "advanced its position",
        replica.instance, life->id);
  }
  if (!life->loaded_position.is_empty()) {
    return fmt::format("life {} loaded the position {}, not the empty one its commit persists",
                       life->id, life->loaded_position.to_string());
  }
  return header_max_where(context, replica.partition, [&](const sim::ChangelogRecord& r) {
    return r.offset <= applied && life_holds(*life, r.offset, true, true);
  });
}

// The highest header of the records `replica` applied up to `applied`: the position its data
// carries (-1: none).
int64_t prefix_header(const JudgeContext& context, const sim::ReplicaSnapshot& replica,
                      ChangelogOffset applied) {
  return header_max_where(context, replica.partition, [&](const sim::ChangelogRecord& r) {
    return applied_by(replica, applied, r);
  });
}

}  // namespace

ClassProof prove_versioned_position_not_persisted(const JudgeContext& context,
                                                  const sim::QueryRecord& record,
                                                  const sim::PartitionOutcome& outcome) {
  if (auto why = not_this_run(context.trace())) return {false, *why};
  if (!is_versioned_kind(record.request.kind) || !outcome.position) {
    return {false, "not a versioned answer with a position"};
  }
  const WitnessResult w = witness_verdict(context, record, outcome);
  if (w.verdict != Witness::kHolds || w.replica == nullptr) {
    return {false, fmt::format("record #{} is not its replica's changelog fold", record.id)};
  }
  auto left = position_left(context, *w.replica, w.applied_offset);
  if (auto* why = std::get_if<std::string>(&left)) return {false, *why};
  const int64_t component = std::get<int64_t>(left);
  const int64_t held = prefix_header(context, *w.replica, w.applied_offset);
  if (component >= held) {
    return {false, fmt::format("record #{}'s store life was given or wrote the highest header of "
                               "its prefix ({}): its position is not low",
                               record.id, held)};
  }
  if (!is_position_of(context, *outcome.position, outcome.partition, SourceOffset(component))) {
    return {false, fmt::format("record #{}'s position {} is not the highest header its store "
                               "life was given or wrote ({})",
                               record.id, outcome.position->to_string(), component)};
  }
  return {true,
          fmt::format("record #{} is the fold of changelog-{} [.., {}] that {}'s store object "
                      "(life {}, opened over kept data under the empty position) holds, under "
                      "the position of only the records given to it or written by it since ({}): "
                      "its commit persists no position of its puts (pin delta 10)",
                      record.id, outcome.partition, w.applied_offset, w.replica->instance,
                      w.replica->store_life, component)};
}

ClassProof prove_versioned_position_not_persisted_tail(const JudgeContext& context,
                                                       int32_t partition) {
  ClassProof proof;
  if (!context.trace().liveness || !context.trace().topology.versioned()) {
    proof.text =
        fmt::format("partition {} is not a versioned store's under a liveness phase", partition);
    return proof;
  }
  const std::optional<StuckProbe> stuck = stuck_probe_of(context, partition, proof);
  if (!stuck) return proof;
  const sim::QueryRecord& probe = *stuck->probe;
  const sim::ReplicaSnapshot* replica =
      find_replica(explaining_placement(probe), probe.target_instance, partition);
  if (replica == nullptr || !replica->changelog_offset) {
    proof.text = fmt::format("probe #{} has no replica with an applied changelog", probe.id);
    return proof;
  }
  auto left = position_left(context, *replica, *replica->changelog_offset);
  if (auto* why = std::get_if<std::string>(&left)) {
    proof.text = *why;
    return proof;
  }
  if (std::get<int64_t>(left) != stuck->position) {
    proof.text = fmt::format(
        "probe #{}'s position {} is not the highest header its store life "
        "was given or wrote ({})",
        probe.id, stuck->position, std::get<int64_t>(left));
    return proof;
  }
  const int64_t held = prefix_header(context, *replica, *replica->changelog_offset);
  if (held < stuck->bound) {
    proof.text = fmt::format(
        "the prefix {} applied reaches only {}, below the bound {}: not the position alone",
        replica->instance, held, stuck->bound);
    return proof;
  }
  proof.proven = true;
  proof.text = fmt::format(
      "probe #{} was refused by {}'s store object (life {}, opened over kept data under the "
      "empty position) at {}, the highest header of the records given to it or written by it "
      "since, while the changelog-{} prefix it holds reaches {} >= the bound {}: its commit "
      "persists no position of its puts (pin delta 10)",
      probe.id, replica->instance, replica->store_life, stuck->position, partition, held,
      stuck->bound);
  return proof;
}

}  // namespace iq::properties::detail
