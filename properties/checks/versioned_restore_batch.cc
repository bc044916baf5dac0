// The candidate for ViolationClass::kVersionedRestoreDroppedExpired (quirk 18 of
// docs/iqv2-semantics.md; versioned seeds 53 and 174 of scenarios/templates/versioned.toml).
//
// Kafka's RocksDBVersionedStore.restoreBatch (streams/src/main/java/org/apache/kafka/streams/
// state/internals/RocksDBVersionedStore.java) fast-forwards the stream time it hands to doPut to
// the end of the whole batch, while it admits each record by the running stream time. By that
// end-of-batch stream time, a version moved out of the latest-value store into an expired segment
// is dropped (getOrCreateSegmentIfLive), and a late put behind a segment row older than the
// history retention is discarded (maybePutToSegments: "this can happen during restore"), leaving
// the version before it unsplit. Live processing, whose stream time is the running one, keeps
// those versions until their segment expires. So a replica that was given its changelog in
// restore batches can answer without versions its active, and the model, still hold; which ones
// depends on the batches, the segment rows and every earlier put, which no argument from the
// record settles in general.
//
// So this class is attributed by experiment, not proven by argument (docs/design.md, "Quirks as
// switches"). impl/ has the quirk behind a switch (iq/kafka_quirks.h); this file names the
// candidate, and properties/runner.cc reruns the seed with the quirk off and keeps the class only
// when the rerun is the same run (every query, position and changelog record) without this
// violation and with no other new one. A candidate is a ResultMatchesModel violation where:
// 1. the store is versioned and the query a versioned one;
// 2. the answering store object was given changelog records (restore or standby update: its
//    recorded life has a given event; in a hand-made trace without lives, a standby) and did not
//    open over an earlier store object's data (that is quirk 17's class).

#include <algorithm>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties::detail {

ClassProof prove_versioned_restore_dropped_expired(const JudgeContext& context,
                                                   const sim::QueryRecord& record,
                                                   const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  const auto fail = [&](const std::string& why) {
    proof.text = fmt::format(
        "record #{} is not a versioned store given its changelog in restore batches: {}", record.id,
        why);
    return proof;
  };
  const sim::RunTrace& trace = context.trace();
  if (!trace.topology.versioned() || !is_versioned_kind(record.request.kind)) {
    return fail("not a versioned store's answer");
  }
  const WitnessResult w = changelog_witness(context, record, outcome);
  if (w.replica == nullptr) return fail("no answering replica");
  if (w.replica->versioned_store_reopened) return fail("its store opened over kept data");
  const sim::StoreLife* life = trace.store_life(w.replica->store_life);
  const bool given = life != nullptr
                         ? std::any_of(life->events.begin(), life->events.end(),
                                       [](const sim::StoreLifeEvent& e) {
                                         return e.kind == sim::StoreLifeEvent::Kind::kGiven;
                                       })
                         : w.replica->role == sim::ReplicaRole::kStandby;
  if (!given)
    return fail(fmt::format("{}'s store was never given changelog records", w.replica->instance));
  proof.proven = true;
  proof.text = fmt::format(
      "record #{} came from {}'s {}, whose versioned store was given changelog-{} in restore "
      "batches, which judge history by the batch's end stream time (quirk 18)",
      record.id, w.replica->instance, sim::to_string(w.replica->role), outcome.partition);
  return proof;
}

}  // namespace iq::properties::detail
