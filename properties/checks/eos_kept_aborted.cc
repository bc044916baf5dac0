// ---- An exactly-once store restarted on a .checkpoint keeps aborted writes ----
//
// ViolationClass::kEosKeptAbortedWrites, exactly_once_v2 only (scenarios/findings/
// eos_restoration_checkpoint_keeps_aborted_writes_double_counts.toml). Kafka at the pin: the state
// updater enforces a checkpoint when an active completes restoration, under every guarantee
// (DefaultStateUpdater.maybeCompleteRestoration), and nothing deletes it while the task
// processes; RocksDB (WAL off) flushes full memtables by itself, uncommitted writes included. A
// crash then leaves that .checkpoint beside a store holding writes of a transaction that aborts;
// on restart ProcessorStateManager.initializeStoreOffsetsFromCheckpoint finds the changelog
// partition in it, so the exactly-once rule (TaskCorruptedException for a store without one)
// does not apply and the store is kept. The restore adds the committed records, the task
// reprocesses its input over the aborted writes, and what it logs is committed: every replica
// that applies it holds the same aggregates.
//
// The proof reads only recorded facts:
// - a tainted store life L: under exactly_once_v2, a store object (an active's, or a standby's
//   that may be promoted later, recycled with its store) that opened over kept data on a
//   .checkpoint entry of its changelog (an offset or the unknown sentinel, as recorded when it
//   opened: StoreLife::checkpoint_found); its tainted keys are those whose kept entry holds the
//   value of an aborted changelog record of the key that its own instance wrote before L opened (an
//   aborted write on disk);
// - a labelled record: a changelog record of a tainted key written by L (one of its own writes);
// - an answer (ResultMatchesModel, SamePositionSameAnswer) is the class when ChangelogWitness
//   holds for it, and every key on which it differs from the model at its reported offset is a
//   tainted key of a life L that is the answering store object itself or wrote a labelled record
//   of that key in the replica's applied prefix;
// - a changelog record that no source record explains (ChangelogWitness) is the class when it is
//   of a tainted key of a life L of its partition, appended at or after L's first labelled record
//   of that key (L's own write, or a later owner's write over L's committed aggregate).
// Anything else stays a failure, and the text says which condition failed.

#include <algorithm>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties::detail {
namespace {

// Whether kept entry `e` holds the value (and timestamp, where kept) of an aborted changelog
// record of its key that `life`'s instance wrote before the life opened.
bool kept_aborted_write(const sim::RunTrace& trace, const sim::StoreLife& life,
                        const sim::KeptEntry& e) {
  return std::any_of(trace.changelog.begin(), trace.changelog.end(), [&](const auto& r) {
    return r.partition == life.partition && r.key == e.key && r.writer == life.instance &&
           r.txn == sim::TxnOutcome::kAborted && r.appended_ms < life.opened_ms &&
           r.value == e.value && (!e.timestamp_ms || *e.timestamp_ms == r.timestamp_ms) &&
           r.window_start_ms == e.window_start_ms &&
           (!e.window_end_ms || r.window_end_ms == e.window_end_ms);
  });
}

struct TaintedLife {
  const sim::StoreLife* life = nullptr;
  std::set<int32_t> keys;
};

// The tainted store lives of `partition` (see the header), in the order they opened.
std::vector<TaintedLife> tainted_lives(const sim::RunTrace& trace, int32_t partition) {
  std::vector<TaintedLife> out;
  if (trace.guarantee != sim::Guarantee::kExactlyOnceV2) return out;
  for (const sim::StoreLife& life : trace.store_lives) {
    if (life.partition != partition || life.store != trace.topology.store_name ||
        !life.over_kept_data || !life.checkpoint_found()) {
      continue;
    }
    TaintedLife t{&life, {}};
    for (const sim::KeptEntry& e : life.kept) {
      if (kept_aborted_write(trace, life, e)) t.keys.insert(e.key);
    }
    if (!t.keys.empty()) out.push_back(std::move(t));
  }
  return out;
}

// Why `key`'s difference in an answer of `replica` (its applied prefix [.., applied]) is not a
// tainted life's, or nullopt when it is.
std::optional<std::string> why_not_tainted(const JudgeContext& context,
                                           const std::vector<TaintedLife>& lives,
                                           const sim::ReplicaSnapshot& replica,
                                           ChangelogOffset applied, int32_t key) {
  for (const TaintedLife& t : lives) {
    if (!t.keys.contains(key)) continue;
    if (replica.store_life == t.life->id) return std::nullopt;
    for (const sim::ChangelogRecord& r : context.trace().changelog) {
      if (r.partition == t.life->partition && r.key == key && r.offset <= applied &&
          life_holds(*t.life, r.offset, false, true) && applied_by(replica, applied, r)) {
        return std::nullopt;
      }
    }
  }
  return fmt::format(
      "key {} is no tainted key of a store life the replica is or applied a write of", key);
}

// The keys on which the answer differs from the model at `reported`: per window or session slot
// for a window or session store, per key for a key-value store; or why the answer's shape is not
// the request's.
std::variant<std::vector<int32_t>, std::string> differing_keys(const JudgeContext& context,
                                                               const sim::QueryRecord& record,
                                                               const sim::PartitionOutcome& outcome,
                                                               int64_t reported) {
  const TopologyConfig& topology = context.trace().topology;
  if (topology.windowed() || topology.session()) {
    return window_differing_keys(context, record, outcome, reported);
  }
  const auto answer = answer_by_key(record.request, outcome);
  if (const auto* why = std::get_if<std::string>(&answer)) return *why;
  const auto& got = std::get<std::map<int32_t, GotEntry>>(answer);
  std::vector<int32_t> out;
  for (int32_t key : compared_keys(context, record.request, outcome.partition, got)) {
    const auto it = got.find(key);
    if (!key_matches(context, record.request, outcome.partition, key,
                     it == got.end() ? nullptr : &it->second, reported, false)) {
      out.push_back(key);
    }
  }
  return out;
}

}  // namespace

ClassProof prove_eos_kept_aborted_answer(const JudgeContext& context,
                                         const sim::QueryRecord& record,
                                         const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  const std::vector<TaintedLife> lives = tainted_lives(context.trace(), outcome.partition);
  if (lives.empty()) {
    proof.text = "no exactly-once store life of the partition kept an aborted write";
    return proof;
  }
  const WitnessResult w = changelog_witness(context, record, outcome);
  if (w.verdict != Witness::kHolds || w.replica == nullptr || !outcome.position) {
    proof.text = fmt::format("record #{} is not its replica's changelog fold", record.id);
    return proof;
  }
  const int64_t reported = reported_offset(context, *outcome.position, outcome.partition);
  const std::variant<std::vector<int32_t>, std::string> keys =
      differing_keys(context, record, outcome, reported);
  if (const auto* why = std::get_if<std::string>(&keys)) {
    proof.text = "the answer lacks " + *why;
    return proof;
  }
  const std::vector<int32_t>& differing = std::get<std::vector<int32_t>>(keys);
  for (int32_t key : differing) {
    if (auto why = why_not_tainted(context, lives, *w.replica, w.applied_offset, key)) {
      proof.text = fmt::format("record #{}: {}", record.id, *why);
      return proof;
    }
  }
  if (differing.empty()) {
    proof.text = fmt::format("record #{} differs from the model on no key", record.id);
    return proof;
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{} is the changelog fold of {}'s {}, and each of the {} key(s) it differs from the "
      "model on holds an aborted write an exactly-once store object kept over its .checkpoint "
      "after a crash (the store object itself, or its own writes in the applied prefix)",
      record.id, w.replica->instance, sim::to_string(w.replica->role), differing.size());
  return proof;
}

ClassProof prove_eos_kept_aborted_record(const JudgeContext& context, int32_t partition,
                                         ChangelogOffset offset) {
  ClassProof proof;
  const sim::RunTrace& trace = context.trace();
  const auto r = std::find_if(trace.changelog.begin(), trace.changelog.end(), [&](const auto& c) {
    return c.partition == partition && c.offset == offset;
  });
  if (r == trace.changelog.end()) {
    proof.text = fmt::format("changelog-{} offset {} is not recorded", partition, offset);
    return proof;
  }
  for (const TaintedLife& t : tainted_lives(trace, partition)) {
    if (!t.keys.contains(r->key)) continue;
    for (const sim::ChangelogRecord& first : trace.changelog) {
      if (first.partition != partition || first.key != r->key || first.offset > r->offset ||
          !life_holds(*t.life, first.offset, false, true)) {
        continue;
      }
      proof.proven = true;
      proof.text = fmt::format(
          "changelog-{} offset {} is of key {}, whose aborted write {}'s exactly-once store object "
          "(life {}) kept over its .checkpoint after a crash and logged as committed at offset {}",
          partition, offset, r->key, t.life->instance, t.life->id, first.offset);
      return proof;
    }
  }
  proof.text = fmt::format(
      "changelog-{} offset {}: key {} is no key an exactly-once store object kept an aborted "
      "write of and logged at or before it",
      partition, offset, r->key);
  return proof;
}

}  // namespace iq::properties::detail
