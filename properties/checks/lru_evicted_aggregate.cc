// The proof of ViolationClass::kLruEvictedAggregate: a count or sum kept in an LRU store
// (Stores.lruMap) restarts from nothing after the store evicts its key.
//
// Kafka's KStreamAggregate reads the old aggregate from the store (get), adds the record and puts
// the result. A MemoryLRUCache that evicted the key answers get with null, so the aggregate starts
// again from the initializer (0) and counts only the key's records after the eviction; that
// restarted aggregate is what the store holds and logs, so every replica that folds the changelog
// agrees, and the model, which knows no eviction, does not. Under the DSL's timestamped builder
// Kafka logs no tombstone for the eviction (quirk of ChangeLoggingKeyValueBytesStore: its eviction
// listener needs a MemoryLRUCache it wraps directly), so the changelog shows the restart only as
// a smaller aggregate.
//
// A ResultMatchesModel violation gets the class only when all of these hold:
// 1. the topology is Count or Sum over an LRU store;
// 2. ChangelogWitness holds for the answer (for an LRU store, for every key the answer holds):
//    the replica served the changelog faithfully;
// 3. the answer has a position, and each key it holds either has the model's aggregate at the
//    reported offset or is exactly the aggregate of a strict suffix of that key's records up to
//    that offset (the records after a restart: for Count their number, for Sum their sum), with
//    more distinct keys written to the partition than the store's capacity by the first record
//    of that suffix (so the store could have evicted the key just before it). Keys the answer
//    lacks are evicted ones, as ResultMatchesModel's LRU rule already allows.
// Limits: a restart and at-least-once reprocessing of the same key together make no suffix, and
// stay a failure unless the reprocessing proof holds. For Count, every count below the model's is
// some suffix's, so the proof of a count rests on conditions 2 and 3's capacity bound; a sum is
// pinned more tightly by its values.

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties::detail {
namespace {

// The source record at `offset` of `partition` (the source log is partition-major, offsets
// ascending), or nullptr.
const sim::SourceLogRecord* source_record(const sim::RunTrace& trace, int32_t partition,
                                          int64_t offset) {
  auto it = std::lower_bound(
      trace.source_log.begin(), trace.source_log.end(), std::pair(partition, offset),
      [](const sim::SourceLogRecord& r, const std::pair<int32_t, int64_t>& p) {
        if (r.partition != p.first) return r.partition < p.first;
        return r.offset.value() < p.second;
      });
  if (it == trace.source_log.end() || it->partition != partition || it->offset.value() != offset) {
    return nullptr;
  }
  return &*it;
}

// The answer's (key, value) entries: one for a key query that found its key, every entry of a
// range.
std::vector<std::pair<int32_t, int64_t>> answered_entries(const sim::QueryRequestRecord& q,
                                                          const sim::PartitionOutcome& outcome) {
  std::vector<std::pair<int32_t, int64_t>> out;
  if (const auto* got = std::get_if<std::optional<int64_t>>(&outcome.value)) {
    if (got->has_value() && q.key) out.emplace_back(*q.key, **got);
  } else if (const auto* list = std::get_if<sim::KeyValueList>(&outcome.value)) {
    out.assign(list->begin(), list->end());
  }
  return out;
}

// Why `value` is neither the model's aggregate of `key` at `offset` nor that of a strict suffix
// of the key's records after a possible eviction; nullopt when it is one of them.
std::optional<std::string> not_a_restarted_aggregate(const JudgeContext& context, int32_t partition,
                                                     int32_t key, int64_t value, int64_t offset) {
  const sim::RunTrace& trace = context.trace();
  const bool count = trace.topology.kind == TopologyKind::Count;
  std::vector<int64_t> writes;
  for (int64_t o : context.key_write_offsets(partition, key)) {
    if (o <= offset) writes.push_back(o);
  }
  int64_t aggregate = 0;
  for (size_t i = writes.size(); i-- > 0;) {
    const sim::SourceLogRecord* r = source_record(trace, partition, writes[i]);
    IQ_ASSERT(r != nullptr && r->value, "seed {}: key {} offset {}", trace.seed, key, writes[i]);
    aggregate += count ? 1 : *r->value;
    if (aggregate != value) continue;
    if (i == 0) return std::nullopt;  // the whole history: the model's aggregate
    if (lru_may_have_evicted(context, partition, writes[i])) return std::nullopt;
  }
  return fmt::format(
      "key {} = {} is no aggregate of its records at or below offset {} after an "
      "eviction the capacity ({}) allows",
      key, value, offset, trace.topology.lru_max_entries);
}

}  // namespace

ClassProof prove_lru_evicted_aggregate(const JudgeContext& context, const sim::QueryRecord& record,
                                       const sim::PartitionOutcome& outcome) {
  const TopologyConfig& topology = context.trace().topology;
  ClassProof proof;
  if ((topology.kind != TopologyKind::Count && topology.kind != TopologyKind::Sum) ||
      topology.supplier != KeyValueSupplier::kLruMap) {
    proof.text = "not an aggregation over an LRU store";
    return proof;
  }
  const WitnessResult w = changelog_witness(context, record, outcome);
  const bool witness =
      w.verdict == Witness::kHolds || (w.verdict == Witness::kNotJudged && w.present_keys_hold);
  if (!witness) {
    proof.text = fmt::format("record #{} is not its replica's changelog fold ({})", record.id,
                             w.verdict == Witness::kDiffers ? "it differs" : w.why);
    return proof;
  }
  if (!outcome.position) {
    proof.text = fmt::format("record #{} has no position", record.id);
    return proof;
  }
  const int64_t offset = reported_offset(context, *outcome.position, outcome.partition);
  for (const auto& [key, value] : answered_entries(record.request, outcome)) {
    if (auto why = not_a_restarted_aggregate(context, outcome.partition, key, value, offset)) {
      proof.text = fmt::format("record #{}: {}", record.id, *why);
      return proof;
    }
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{} is the changelog fold of {}'s {}, and each aggregate it holds counts its key's "
      "records since a point where the LRU store (capacity {}) could have evicted it, up to "
      "offset {}",
      record.id, w.replica->instance, sim::to_string(w.replica->role), topology.lru_max_entries,
      offset);
  return proof;
}

}  // namespace iq::properties::detail
