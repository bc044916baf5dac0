// The proof of ViolationClass::kVersionedRestoreDroppedExpired (quirk 18 of
// docs/iqv2-semantics.md; versioned seed 174 of scenarios/templates/versioned.toml).
//
// Kafka's RocksDBVersionedStore.restoreBatch (streams/src/main/java/org/apache/kafka/streams/
// state/internals/RocksDBVersionedStore.java) fast-forwards the stream time it hands to doPut to
// the end of the whole batch, while it admits each record by the running stream time. A late put
// (within the grace period when admitted) that lands behind a segment row whose earliest version is
// older than that end-of-batch stream time minus the history retention is discarded
// (maybePutToSegments: "the record being inserted does not affect version history ... this can
// happen during restore"): by the batch's end its version ends beyond the history retention. Live
// processing, whose stream time is the running one, keeps the version in its segment until the
// segment expires, and a MultiVersionedKeyQuery without a time range (or with one reaching that
// far back) returns it, since get(key, from, to) refuses only a range that ends beyond the
// retention. So a standby answers without versions its active, and the model, still hold; Kafka
// guarantees neither (history retention bounds what is kept, not what is dropped).
//
// A ResultMatchesModel violation gets the class only when all hold for its answer:
// 1. the store is versioned and the answer is a list of versions of the queried key;
// 2. the replica is a standby (it applies the changelog only in restore batches) whose store did
//    not open over an earlier store object's data (that is quirk 17's class);
// 3. the answer is the applied prefix's fold (ChangelogWitness's versioned fold) with some of its
//    versions left out and nothing else changed: the same versions, in the same order;
// 4. every version left out has a validTo earlier than T minus the history retention, T the
//    highest timestamp among the records the standby applied since its store object began (after
//    its .checkpoint, if it restored from one): the stream time it reached, and so a bound on
//    every batch's end. The versions it lacks are ones the history retention no longer covers.
// Anything else stays a failure: a version missing inside the retention, the latest version
// missing, a version added or changed, an active's answer.

#include <algorithm>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties::detail {
namespace {

bool same_version(const sim::VersionedValue& got, const model::Version& want) {
  return got == sim::VersionedValue{want.value, want.valid_from_ms, want.valid_to_ms};
}

// The highest timestamp among changelog-<partition> records `replica` applied after its store
// object began (after restored_from, when it restored from a checkpoint); -1 if none.
int64_t stream_time_reached(const JudgeContext& context, const sim::ReplicaSnapshot& replica,
                            ChangelogOffset applied, int32_t partition) {
  int64_t out = -1;
  for (const sim::ChangelogRecord& r : context.trace().changelog) {
    if (r.partition != partition || !applied_by(replica, applied, r)) continue;
    if (replica.restored_from && r.offset <= *replica.restored_from) continue;
    out = std::max(out, r.timestamp_ms);
  }
  return out;
}

}  // namespace

ClassProof prove_versioned_restore_dropped_expired(const JudgeContext& context,
                                                   const sim::QueryRecord& record,
                                                   const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  const auto fail = [&](const std::string& why) {
    proof.text = fmt::format(
        "record #{} is not a standby's versioned restore that discarded versions beyond the "
        "history retention: {}",
        record.id, why);
    return proof;
  };
  const TopologyConfig& topology = context.trace().topology;
  const auto* answer = std::get_if<sim::VersionedList>(&outcome.value);
  if (!topology.versioned() || !is_versioned_kind(record.request.kind) || answer == nullptr) {
    return fail("not a versioned store's list of versions");
  }
  const WitnessResult w = changelog_witness(context, record, outcome);
  if (w.replica == nullptr || w.replica->role != sim::ReplicaRole::kStandby ||
      w.replica->versioned_store_reopened) {
    return fail("not a standby's store that opened empty");
  }
  const std::vector<model::Version>& fold = w.versioned_fold;
  const int64_t t = stream_time_reached(context, *w.replica, w.applied_offset, outcome.partition);
  const int64_t horizon = t - topology.history_retention_ms;
  // Walk the fold; every fold version the answer skips must end before the horizon.
  size_t next = 0;
  size_t left_out = 0;
  for (const model::Version& v : fold) {
    if (next < answer->size() && same_version((*answer)[next], v)) {
      ++next;
      continue;
    }
    if (!v.valid_to_ms || *v.valid_to_ms >= horizon) {
      return fail(fmt::format(
          "it lacks {}@[{},{}) of the fold of changelog-{} [.., {}], which ends at or after its "
          "stream time {} minus the history retention {}",
          v.value, v.valid_from_ms, v.valid_to_ms ? std::to_string(*v.valid_to_ms) : "",
          outcome.partition, w.applied_offset, t, topology.history_retention_ms));
    }
    ++left_out;
  }
  if (next != answer->size() || left_out == 0) {
    return fail(fmt::format("it is not the fold of changelog-{} [.., {}] with versions left out",
                            outcome.partition, w.applied_offset));
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{} came from {}'s standby and is the fold of changelog-{} [.., {}] without {} "
      "version(s) of key {} that end before {} ms, its stream time {} minus the history retention "
      "{}: a restore batch judges history by its end-of-batch stream time (quirk 18)",
      record.id, w.replica->instance, outcome.partition, w.applied_offset, left_out,
      *record.request.key, horizon, t, topology.history_retention_ms);
  return proof;
}

}  // namespace iq::properties::detail
