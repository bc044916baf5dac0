// Two proofs about the aggregations (Count, Sum) whose answers the model, which folds each input
// record once and knows no eviction, cannot give: ViolationClass::kLruEvictedAggregate and, for
// cached writes the changelog cannot date, ViolationClass::kAtLeastOnceReprocessing.
//
// 1. An LRU store's evicted aggregate restarts from zero (prove_lru_evicted_aggregate).
// Kafka's KStreamAggregate reads the old aggregate from the store (get), adds the record and puts
// the result. A MemoryLRUCache that evicted the key answers get with null, so the aggregate starts
// again from the initializer (0) and counts only the key's records after the eviction; that
// restarted aggregate is what the store holds and logs, so every replica that folds the changelog
// agrees, and the model, which knows no eviction, does not. Under the DSL's timestamped builder
// Kafka logs no tombstone for the eviction (quirk of ChangeLoggingKeyValueBytesStore: its eviction
// listener needs a MemoryLRUCache it wraps directly), so the changelog shows the restart only as
// a smaller aggregate. A ResultMatchesModel violation gets the class only when all of these hold:
// a. the topology is Count or Sum over an LRU store;
// b. ChangelogWitness holds for the answer (for an LRU store, for every key the answer holds):
//    the replica served the changelog faithfully;
// c. the answer has a position, and each key it holds either has the model's aggregate at the
//    reported offset or is exactly the aggregate of a strict suffix of that key's records up to
//    that offset (the records after a restart: for Count their number, for Sum their sum), with
//    more distinct keys written to the partition than the store's capacity by the first record
//    of that suffix (so the store could have evicted the key just before it). Keys the answer
//    lacks are evicted ones, as ResultMatchesModel's LRU rule already allows.
// Limits: a restart and at-least-once reprocessing of the same key together make no suffix; the
// reprocessing proof (2) folds them together. For Count, every count below the model's is
// some suffix's, so the proof of a count rests on b and c's capacity bound; a sum is pinned more
// tightly by its values.
//
// 2. An aggregate that is the fold of the input with its replays (prove_replayed_aggregate).
// Under at-least-once a task that restored a changelog reaching past its committed input offset
// processes that input again and adds it to aggregates that already hold it. The reprocessing
// proof of violation_class.cc finds the reprocessing's own writes in the applied changelog prefix
// by their append time; a record cache flushes them at the next commit, after the reprocessed
// range closed, so that proof cannot date them. This one folds the input instead: each input
// record of the answer's partition up to its reported offset counts once, plus once more for
// every range the ProcessingLedger shows processed again (begun by the answer) whose replay of
// it the aggregate holds: per range, the first j of the key's records in it (a prefix;
// is_replayed_fold says why no other subset can be). It holds when ChangelogWitness holds for
// the answer (checked by the caller), the ledger is whole, such a range begins at or below the
// reported offset, and every aggregate the answer holds is one such fold of its key's records (a
// count between the model's and the model's plus the replays of its records; a sum one of the
// sums of the model's and one prefix per range, searched exactly, bounded by kReplayedFoldsMax
// sums, a bound whose reach is reported as undecided and stays a failure), while a key the model
// holds is in the answer (no key of a count or sum disappears). Anything else stays a failure.
// (Seeds 335 and 984 of templates/default.toml: sums over 74 and more replayed records, each
// the model's plus the whole replayed prefix; any subset of them, as this proof allowed before,
// is 2^74 sums, and almost any value between the model's and the model's plus every replay.)
// Over an LRU store the fold may also start after a restart (1): from a record before which the
// capacity allows an eviction, with the replays of every range that closed at or after that
// record (a range that closed before it was replayed before the restart and is dropped with it),
// each again a prefix of the key's records in the range. (Seed 483 of templates/default.toml: a
// sum restarted at offset 552 on instance-5, logged by instance-2 up to offset 740, restored by
// instance-3, which replayed offsets 639-742 over it: the answer is the records from 552 up to
// its offset plus the replay of the key's seven records in 639-742.) A restart inside a replay
// is not searched and stays a failure.

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"
#include "model/key_bytes.h"

namespace iq::properties::detail {
namespace {

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

// The reprocessed ranges of `partition` begun at or before at_ms.
std::vector<const sim::ReprocessedRange*> ranges_begun(const sim::RunTrace& trace,
                                                       int32_t partition, base::Instant at_ms) {
  std::vector<const sim::ReprocessedRange*> out;
  for (const sim::ReprocessedRange& r : trace.reprocessed) {
    if (r.partition == partition && r.start_ms <= at_ms) out.push_back(&r);
  }
  return out;
}

// Whether `value` is a fold of `key`'s records up to `offset` (or, in an LRU store, from a record
// where it may have restarted after an eviction) in which each record counts once,
// plus once more for each range of `ranges` whose replay of it reached the value: per range, a
// prefix of the key's records in it (the first j of them, 0 <= j <= n). Why a prefix: a range is
// one instance replaying consecutive input in order into one store (a first processing, a skip,
// or a jump back closes it), so the key's aggregate holds that replay of a record only with the
// replay of every earlier record of the key in the range; and a replay counts twice only over
// the restored aggregate that already held the record's first processing, which the restored
// value holds for the key's records up to where it was last logged: again a prefix. (Where the
// same instance's replay resumes in a later life, the ledger joins both into one range only if
// the later one began right after the last record the earlier one processed, i.e. at its
// committed offset, whose flush logged all of it: the union is still a prefix.) The reachable
// sums are searched exactly, at most kReplayedFoldsMax of them; beyond, the answer is undecided
// (nullopt), reported as such and never passed.
constexpr size_t kReplayedFoldsMax = 1'000'000;

std::optional<bool> is_replayed_fold(const JudgeContext& context, int32_t partition, int32_t key,
                                     int64_t value, int64_t offset,
                                     const std::vector<const sim::ReprocessedRange*>& ranges,
                                     size_t& folds_seen) {
  const sim::RunTrace& trace = context.trace();
  const bool count = trace.topology.kind == TopologyKind::Count;
  std::vector<std::pair<int64_t, int64_t>> writes;  // (offset, addend), offsets ascending
  for (int64_t o : context.key_write_offsets(partition, key)) {
    if (o > offset) break;
    const sim::SourceLogRecord* r = source_record(trace, partition, o);
    IQ_ASSERT(r != nullptr && r->value, "seed {}: key {} offset {}", trace.seed, key, o);
    writes.emplace_back(o, count ? 1 : *r->value);
  }
  folds_seen = 0;
  // Each start: the key's first record (no restart), or, in an LRU store, a record before which
  // the store could have evicted the key (the aggregate restarts there from zero).
  for (size_t start = 0; start < writes.size() || start == 0; ++start) {
    const int64_t from = start < writes.size() ? writes[start].first : 0;
    if (start > 0 && !lru_may_have_evicted(context, partition, from)) continue;
    int64_t once = 0;
    for (size_t i = start; i < writes.size(); ++i) once += writes[i].second;
    std::set<int64_t> folds{once};
    for (const sim::ReprocessedRange* g : ranges) {
      // A range replayed wholly before the restart's record was first processed is dropped with
      // everything before the restart.
      if (start > 0 && g->last_offset < SourceOffset(from)) continue;
      // The sums of the first j records of the key in the range, j = 1..n (j = 0 adds nothing).
      std::vector<int64_t> prefix_sums;
      int64_t sum = 0;
      for (const auto& [o, addend] : writes) {
        if (SourceOffset(o) < g->first_offset || SourceOffset(o) > g->last_offset) continue;
        sum += addend;
        prefix_sums.push_back(sum);
      }
      if (prefix_sums.empty()) continue;
      std::set<int64_t> next = folds;
      for (int64_t f : folds) {
        for (int64_t p : prefix_sums) next.insert(f + p);
        if (next.size() > kReplayedFoldsMax) {
          folds_seen += next.size();
          return std::nullopt;
        }
      }
      folds = std::move(next);
    }
    folds_seen += folds.size();
    if (folds.contains(value)) return true;
    if (writes.empty()) break;
  }
  return false;
}

// The keys the model holds for the query at `offset` (the key of a key query, a range's keys).
std::vector<int32_t> model_keys(const JudgeContext& context, const sim::QueryRequestRecord& q,
                                int32_t partition, int64_t offset) {
  std::vector<int32_t> out;
  if (is_key_kind(q.kind)) {
    if (q.key && context.store().get(partition, model::serialize_int32_key(*q.key), offset)) {
      out.push_back(*q.key);
    }
    return out;
  }
  const auto bound = [](const std::optional<int32_t>& k) {
    return k ? std::optional(model::serialize_int32_key(*k)) : std::nullopt;
  };
  for (const model::Entry& e : context.store().range(partition, bound(q.lower), bound(q.upper),
                                                     model::Order::kAscending, offset)) {
    out.push_back(model::deserialize_int32_key(e.key));
  }
  return out;
}

}  // namespace

ClassProof prove_replayed_aggregate(const JudgeContext& context, const sim::QueryRecord& record,
                                    const sim::PartitionOutcome& outcome) {
  const sim::RunTrace& trace = context.trace();
  if (trace.topology.windowed() || trace.topology.session()) {
    return prove_replayed_window_aggregate(context, record, outcome);
  }
  ClassProof proof;
  if (trace.topology.kind != TopologyKind::Count && trace.topology.kind != TopologyKind::Sum) {
    proof.text = "not an aggregation";
    return proof;
  }
  if (trace.reprocessed_dropped > 0 || !outcome.position) {
    proof.text = trace.reprocessed_dropped > 0 ? "the processing ledger is not whole"
                                               : "the answer has no position";
    return proof;
  }
  const int64_t offset = reported_offset(context, *outcome.position, outcome.partition);
  const auto ranges = ranges_begun(trace, outcome.partition, record.complete_ms);
  if (std::none_of(ranges.begin(), ranges.end(),
                   [&](const auto* g) { return g->first_offset <= SourceOffset(offset); })) {
    proof.text = "no input of its partition was processed again beneath its position";
    return proof;
  }
  const auto entries = answered_entries(record.request, outcome);
  if (trace.topology.supplier != KeyValueSupplier::kLruMap) {
    for (int32_t key : model_keys(context, record.request, outcome.partition, offset)) {
      if (std::none_of(entries.begin(), entries.end(),
                       [&](const auto& e) { return e.first == key; })) {
        proof.text = fmt::format("key {} of the model is missing from the answer", key);
        return proof;
      }
    }
  }
  for (const auto& [key, value] : entries) {
    size_t folds_seen = 0;
    const std::optional<bool> fold =
        is_replayed_fold(context, outcome.partition, key, value, offset, ranges, folds_seen);
    if (!fold) {
      proof.text = fmt::format(
          "key {} = {} is not decided as a fold of its records up to offset {} with their "
          "replays: the search bound kReplayedFoldsMax ({}) was reached",
          key, value, offset, kReplayedFoldsMax);
      return proof;
    }
    if (!*fold) {
      proof.text = fmt::format(
          "key {} = {} is no fold of its records up to offset {} with a replayed prefix of them "
          "per range ({} folds searched)",
          key, value, offset, folds_seen);
      return proof;
    }
  }
  proof.proven = true;
  proof.text = fmt::format(
      "each aggregate of record #{} is the fold of its key's records up to offset {} with replays "
      "of the {} ranges of partition {} the processing ledger shows processed again by then",
      record.id, offset, ranges.size(), outcome.partition);
  return proof;
}

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
