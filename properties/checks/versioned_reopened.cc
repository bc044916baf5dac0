// The proof of ViolationClass::kVersionedStoreReopened (quirk 17 of docs/iqv2-semantics.md).
//
// Kafka's LogicalKeyValueSegments.openExisting opens the versioned store's RocksDB and registers
// none of its segments (unlike AbstractSegments.openExisting, which lists them from disk), so a
// RocksDBVersionedStore opened over what an earlier store object left, after a restart on a kept
// disk or when its task comes back to the instance, searches only the segments a put has
// re-created since: versions in the others are invisible to get(key, asOf) and to the
// multi-version read, and never expire; a put that misses them lands in the latest-value store
// or appends to a row it never searched (insertAsEarliest, unchecked; the formatter's header).
// What such a store answers is a function of which segments its puts touched since it opened, and
// of its own observed stream time, which no fold of the changelog decides.
//
// A violation gets the class only when both hold for its answer:
// 1. the simulator recorded that the answering replica's store object opened a physical RocksDB
//    that already held entries (ReplicaSnapshot::versioned_store_reopened, from
//    RocksDBVersionedStore::opened_over_existing_data): the quirk's condition;
// 2. the changelog witness found every version of the answer to be one the replica could have
//    been given (changelog_witness_versioned.cc, step 3): the store invented nothing, it only
//    shows a different selection of its log's versions than the fold.
// Anything else stays a failure: a store that never reopened, or a version no record gives.

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties::detail {

ClassProof prove_versioned_store_reopened(const JudgeContext& context,
                                          const sim::QueryRecord& record,
                                          const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  if (!context.trace().topology.versioned()) {
    proof.text = fmt::format("record #{} is not from a versioned store", record.id);
    return proof;
  }
  const WitnessResult w = changelog_witness(context, record, outcome);
  if (w.verdict != Witness::kNotJudged || !w.versions_from_log || w.replica == nullptr) {
    proof.text = fmt::format(
        "record #{} is not a reopened versioned store's selection of its log's versions ({})",
        record.id, w.verdict == Witness::kHolds ? "it is the fold" : w.why);
    return proof;
  }
  if (!w.replica->versioned_store_reopened) {
    proof.text = fmt::format(
        "record #{} came from {}'s {}, whose versioned store did not open over an earlier store "
        "object's data",
        record.id, w.replica->instance, sim::to_string(w.replica->role));
    return proof;
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{} came from {}'s {}, whose versioned store opened over an earlier store object's "
      "data (quirk 17: segments not re-created since are invisible), and holds only versions of "
      "key {} that changelog-{} [.., {}] gives",
      record.id, w.replica->instance, sim::to_string(w.replica->role), *record.request.key,
      outcome.partition, w.applied_offset);
  return proof;
}

}  // namespace iq::properties::detail
