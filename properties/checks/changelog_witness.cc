// ChangelogWitness: a replica's successful answer equals the fold of the changelog prefix that
// replica had applied, plus, for an active, its writes not yet in the changelog.
//
// Every replica of a store, active or standby, restored or not, is a fold of the same log: a
// standby and a restoring active apply changelog records in offset order up to their changelog
// offset; a running active writes each change to the changelog as it makes it (through its
// record cache when caching is on, whose dirty entries are the writes not logged yet). So an
// answer (value, timestamp, position) must equal the fold of changelog[log start ..
// changelog_offset] of the partition, overlaid with the dirty cache entries the recorder saw at
// the answer. This holds under any processing guarantee: at-least-once reprocessing rewrites the
// log, it never makes a replica disagree with it. It is exact where ResultMatchesModel cannot be
// (after reprocessing), and catches restore, standby, checkpoint and cache bugs in crash runs.
//
// What is compared:
// - values: a key query's value (absent: null); a range's entries within its bounds, in key-byte
//   order for ASCENDING and ANY (compared as the sorted set for ANY) and reversed for DESCENDING;
// - timestamps (timestamped queries): the changelog record's timestamp, with Kafka's -1 rules
//   (the adapter over a plain RocksDB store gives -1; a cached TimestampedKeyQuery may give the
//   real one; docs/iqv2-semantics.md §4);
// - the position, with the consistency switch on: {source topic: {partition: the highest
//   component of the position headers in the prefix, or of the source offsets of the unlogged
//   writes}}, or empty when neither has one.
// - Kafka's caching layer answers only key queries from the cache, under the merged position of
//   cache and store (CachingKeyValueStore.query: its handlers hold KeyQuery alone); a range goes
//   to the store below. So the unlogged writes (and their offsets) count for key queries only.
//
// What is not judged, and why (counted in the tally under the reason, never as a pass):
// - a versioned store (VersionedTable) is judged by changelog_witness_versioned.cc: its answer is
//   the fold only where its observed stream time and known segments agree with the fold's, so
//   what it can always be held to is weaker (that file states it);
// - a trace without a recorded changelog (hand-made traces), an unlogged store, a changelog past
//   the trace's bound, a query the fold cannot answer (other stores and query kinds), a result
//   without a replica snapshot at the answer;
// - LRU stores: the fold knows no eviction when the store logs none (the timestamped builder
//   logs no eviction tombstone; restore evicts without logging), so a key of the fold that the
//   answer lacks may have been evicted; the keys the answer holds must still equal the fold's.
//   Such an answer counts under "LRU store: ..." when a key is missing;
// - a fenced member's late writes: an active never reads another instance's records appended
//   after its restore read to its fixed end offset (StoreChangelogReader fixes an active's end
//   once). The snapshot carries the store's runs of own writes (ReplicaSnapshot::own_write_runs,
//   from its recorded store life): the fold skips another instance's records inside them,
//   exactly. A store object closed and opened again is a new life, which restored what it holds
//   (or, over kept data, is judged by its own exact fold), so no other skip is passed over;
// - a persistent store on an instance that crashed, restarted or closed before: Kafka keeps the
//   data of a store restarted without a checkpoint under at-least-once and restores the log from
//   its start over it (ProcessorStateManager.initializeStoreOffsetsFromCheckpoint), so the state
//   is fold(prefix) over fold(an older, longer prefix). Likewise a store whose .checkpoint is
//   older than what it flushed (a crash after the flush, before the .checkpoint write): the
//   restore replays only the records after the checkpoint (ReplicaSnapshot::restored_from) over
//   the longer prefix's fold. A difference explained that way (the answer equals the overlay for
//   some longer prefix) is passed over with its reason. A store that kept LESS than its
//   checkpoint (a checkpoint written before the flush it claims) is never explained: the longer
//   prefix's fold holds the records the store lost;
// - the position: with the switch off (no headers to fold), or when a header names another
//   topic or partition. The value is still judged; the result then also counts under
//   "position not judged: ..." (so these reasons can exceed the results).
// - A plain-builder LRU store under a record cache (PapiWriter over 'lru', caching on): its
//   eviction tombstone may sit beneath a clean cache entry of the key that a key query on the
//   active still reads (with_evicted_entry_cached below); the key's last logged value before the
//   tombstone is then the fold's answer too, exactly that value and no other.
// - Every changelog record is explained by a source record (changelog_record_unexplained below):
//   a store write is made by processing one input record, under that record's context, and its
//   position header (the writer's store position after the write) covers that record's offset.
//   So a record of key K with a value has a source record of K at or below its header's offset
//   with the same timestamp (the aggregations' timestamp is the largest of K's records so far)
//   and, for the latest-value topologies (SourceTable, PapiWriter), the same value; a tombstone
//   is a delete of K there (a null value), or, only where Kafka logs LRU evictions (a plain-builder
//   store over Stores.lruMap: ChangeLoggingKeyValueBytesStore.maybeSetEvictionListener), the
//   eviction of a key written there. This sees a log that says what no processing wrote, e.g. an
//   eviction logged as the evicted value: replicas that fold it keep a key the active evicted.
//   Records without a header are bounded by the partition's whole input. Not judged: the traces
//   the witness does not judge (no changelog, unlogged, past the bound, not whole, versioned).
// - exactly_once_v2: a store reads the changelog read_committed (StoreChangelogReader's restore
//   consumer and the standby's: the fetcher drops aborted records through the aborted-transaction
//   index and never returns a record at or past the last stable offset, i.e. before its
//   transaction's marker). So the fold skips an aborted record, a record of a transaction open at
//   the end, and a committed one whose marker came after the answer, except in the store that
//   wrote it (a record of the replica's own_write_runs): an active holds its writes whatever
//   becomes of their transaction until it closes the task dirty, which wipes the store, and it
//   learns of an abort only at its next commit or send (a coordinator's timeout abort, a fencing
//   incarnation). detail::read_committed_holds; the trace's TxnOutcome per record, from the
//   broker's markers. Markers take offsets and hold no record: the recorder knows each marker's
//   offset, so they leave the changelog whole. This is Kafka's promise about committed data: no
//   standby, and no restored store before it processes, answers an aborted or uncommitted write,
//   and no such store's position covers input whose only effects were aborted;
// - A compacted changelog: a replica that fetched an offset after the cleaner removed its record
//   never read it; the fold is then of what it could read (compacted_read below, which states
//   the bounds), and the position of the headers it read.
// - KeyQuery.skipCache() changes nothing here: the metered layer drops the flag before the caching
//   layer sees it (quirk 1 of docs/iqv2-semantics.md), so the overlay is applied to those too.

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "base/assert.h"
#include "checks/check.h"
#include "checks/check_util.h"
#include "checks/dirty_reads.h"
#include "model/key_bytes.h"

namespace iq::properties {

struct ChangelogIndex {
  struct Partition {
    std::vector<const sim::ChangelogRecord*> records;  // offsets ascending
    std::map<int32_t, std::vector<const sim::ChangelogRecord*>> by_key;
    // header_max[i]: the highest position[source][partition] of records[0..i]'s headers, -1 none.
    std::vector<SourceOffset> header_max;
    // header[i]: records[i]'s own header component, -1 none (detail::header_of, computed once).
    std::vector<SourceOffset> header;
    bool foreign_header = false;  // a header names another topic or partition
    // Some record is one a read_committed reader may skip (aborted, or in a transaction open at
    // the end): the headers' fold must then go record by record.
    bool transactions_skipped = false;
  };
  std::map<int32_t, Partition> partitions;
  // The verdicts check_changelog_witness reached, by answer (detail::witness_verdict). Only looked
  // up, never walked, so the pointer order never reaches a report.
  struct Verdict {
    detail::Witness verdict;
    const sim::ReplicaSnapshot* replica;
    ChangelogOffset applied;
  };
  mutable std::map<const sim::PartitionOutcome*, Verdict> verdicts;

  const Partition* partition(int32_t p) const {
    auto it = partitions.find(p);
    return it == partitions.end() ? nullptr : &it->second;
  }
};

namespace {

constexpr const char* kChangelogWitnessName = sim::property_names::kChangelogWitness.data();

void delete_index(ChangelogIndex* index) {
  delete index;
}

// The latest record of `key` at or below `offset` that `replica` applied by `at_ms` (every one a
// read_committed reader returns when replica is null), or nullptr.
const sim::ChangelogRecord* latest(const ChangelogIndex::Partition& log, int32_t key,
                                   ChangelogOffset offset, base::Instant at_ms,
                                   const sim::ReplicaSnapshot* replica = nullptr) {
  auto it = log.by_key.find(key);
  if (it == log.by_key.end()) return nullptr;
  const auto& v = it->second;
  auto after = std::upper_bound(v.begin(), v.end(), offset,
                                [](ChangelogOffset o, const auto* r) { return o < r->offset; });
  while (after != v.begin()) {
    --after;
    if (replica == nullptr ? (*after)->committed()
                           : detail::applied_by(*replica, offset, **after, at_ms)) {
      return *after;
    }
  }
  return nullptr;
}

// One key of a folded state: its value and timestamp.
struct Entry {
  int64_t value = 0;
  int64_t timestamp_ms = 0;
};
using State = std::map<int32_t, Entry>;  // only the keys the query touches

// The keys whose state the query reads: the key of a key query, every key in the log or the
// unlogged writes within a range's bounds.
std::vector<int32_t> touched_keys(const sim::QueryRequestRecord& q,
                                  const ChangelogIndex::Partition* log,
                                  const std::vector<sim::UnloggedWrite>& unlogged) {
  if (detail::is_key_kind(q.kind)) return {*q.key};
  std::vector<int32_t> keys;
  const auto lower = q.lower ? std::optional(model::serialize_int32_key(*q.lower)) : std::nullopt;
  const auto upper = q.upper ? std::optional(model::serialize_int32_key(*q.upper)) : std::nullopt;
  const auto within = [&](int32_t key) {
    const model::KeyBytes bytes = model::serialize_int32_key(key);
    if (lower && model::compare_key_bytes(bytes, *lower) < 0) return false;
    if (upper && model::compare_key_bytes(bytes, *upper) > 0) return false;
    return true;
  };
  if (log != nullptr) {
    for (const auto& [key, records] : log->by_key) {
      if (within(key)) keys.push_back(key);
    }
  }
  for (const auto& w : unlogged) {
    if (within(w.key)) keys.push_back(w.key);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// fold(changelog[.. offset]) for `keys` as the replica read it by at_ms, then the unlogged writes
// on top. With `after_checkpoint`, only the records after the replica's .checkpoint offset
// (restored_from): what a restore replays over a store that kept nothing beneath it.
State fold(const ChangelogIndex::Partition* log, const sim::ReplicaSnapshot& replica,
           base::Instant at_ms, const std::vector<int32_t>& keys, ChangelogOffset offset,
           bool after_checkpoint, const std::vector<sim::UnloggedWrite>& unlogged) {
  State state;
  for (int32_t key : keys) {
    const sim::ChangelogRecord* r = log ? latest(*log, key, offset, at_ms, &replica) : nullptr;
    if (r != nullptr && after_checkpoint && replica.restored_from &&
        r->offset <= *replica.restored_from) {
      r = nullptr;  // beneath the checkpoint: never replayed, and nothing kept there
    }
    if (r != nullptr && r->value) state[key] = Entry{*r->value, r->timestamp_ms};
  }
  for (const auto& w : unlogged) {
    if (!std::binary_search(keys.begin(), keys.end(), w.key)) continue;
    if (w.value) {
      state[w.key] = Entry{*w.value, w.timestamp_ms};
    } else {
      state.erase(w.key);
    }
  }
  return state;
}

// The answer's (key, value, timestamp) entries in the order compared: key-byte order, reversed
// for DESCENDING; for ANY the answer is sorted first (the order is ResultMatchesModel's to judge).
struct Answer {
  std::vector<std::pair<int32_t, Entry>> entries;
  bool shape_ok = true;  // the value has the query's shape and one timestamp per entry
};

bool key_bytes_less(int32_t a, int32_t b) {
  return model::compare_key_bytes(model::serialize_int32_key(a), model::serialize_int32_key(b)) < 0;
}

Answer answer_of(const sim::QueryRequestRecord& q, const sim::PartitionOutcome& outcome) {
  Answer a;
  const bool timestamped = detail::is_timestamped_kind(q.kind);
  if (detail::is_key_kind(q.kind)) {
    const auto* got = std::get_if<std::optional<int64_t>>(&outcome.value);
    if (got == nullptr) return {{}, false};
    if (!got->has_value()) {
      a.shape_ok = outcome.timestamps.empty();
      return a;
    }
    if (timestamped != (outcome.timestamps.size() == 1)) return {{}, false};
    a.entries.push_back({*q.key, Entry{**got, timestamped ? outcome.timestamps[0] : 0}});
    return a;
  }
  const auto* got = std::get_if<sim::KeyValueList>(&outcome.value);
  if (got == nullptr) return {{}, false};
  if (outcome.timestamps.size() != (timestamped ? got->size() : 0)) return {{}, false};
  for (size_t i = 0; i < got->size(); ++i) {
    a.entries.push_back(
        {(*got)[i].first, Entry{(*got)[i].second, timestamped ? outcome.timestamps[i] : 0}});
  }
  if (q.order == ResultOrder::ANY) {
    std::stable_sort(a.entries.begin(), a.entries.end(),
                     [](const auto& x, const auto& y) { return key_bytes_less(x.first, y.first); });
  }
  return a;
}

// The fold's entries in the compared order.
std::vector<std::pair<int32_t, Entry>> ordered(const sim::QueryRequestRecord& q,
                                               const State& state) {
  std::vector<std::pair<int32_t, Entry>> out(state.begin(), state.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& x, const auto& y) { return key_bytes_less(x.first, y.first); });
  if (q.order == ResultOrder::DESCENDING) std::reverse(out.begin(), out.end());
  return out;
}

bool entry_equal(const JudgeContext& context, const sim::QueryRequestRecord& q,
                 const std::pair<int32_t, Entry>& got, const std::pair<int32_t, Entry>& want) {
  if (got.first != want.first || got.second.value != want.second.value) return false;
  if (!detail::is_timestamped_kind(q.kind)) return true;
  return detail::timestamp_ok(context, q.kind, got.second.timestamp_ms, want.second.timestamp_ms);
}

enum class Match { kEqual, kLruSubset, kDiffers };

// The answer against a folded state. An LRU store may lack keys the fold holds (eviction).
Match compare(const JudgeContext& context, const sim::QueryRequestRecord& q, const Answer& answer,
              const State& state) {
  if (!answer.shape_ok) return Match::kDiffers;
  const auto want = ordered(q, state);
  const bool lru = context.trace().topology.supplier == KeyValueSupplier::kLruMap;
  size_t w = 0;
  bool skipped = false;
  for (const auto& got : answer.entries) {
    while (lru && w < want.size() && want[w].first != got.first) {
      ++w;
      skipped = true;
    }
    if (w >= want.size() || !entry_equal(context, q, got, want[w])) return Match::kDiffers;
    ++w;
  }
  if (w < want.size()) {
    if (!lru) return Match::kDiffers;
    skipped = true;
  }
  return skipped ? Match::kLruSubset : Match::kEqual;
}

std::string render(const sim::QueryRequestRecord& q, const State& state) {
  const bool timestamped = detail::is_timestamped_kind(q.kind);
  if (detail::is_key_kind(q.kind)) {
    auto it = state.find(*q.key);
    if (it == state.end()) return "null";
    std::string text = "value=" + std::to_string(it->second.value);
    if (timestamped) text += " ts=" + std::to_string(it->second.timestamp_ms);
    return text;
  }
  std::string text = "[";
  bool first = true;
  for (const auto& [key, e] : ordered(q, state)) {
    if (!first) text += ", ";
    first = false;
    text += fmt::format("{}={}", key, e.value);
    if (timestamped) text += "@" + std::to_string(e.timestamp_ms);
  }
  return text + "]";
}

// The records of `keys` in the prefix that the fold skipped as a read_committed reader would
// (aborted, or not committed by the answer), for the violation's text: " (read_committed skipped:
// offset 7 by instance-2, aborted at 500 ms; ...)", the last few; empty when none.
std::string skipped_uncommitted(const ChangelogIndex::Partition& log,
                                const sim::ReplicaSnapshot& replica,
                                const std::vector<int32_t>& keys, ChangelogOffset applied,
                                base::Instant at_ms) {
  constexpr size_t kListedMax = 3;
  std::vector<const sim::ChangelogRecord*> skipped;
  for (int32_t key : keys) {
    auto it = log.by_key.find(key);
    if (it == log.by_key.end()) continue;
    for (const sim::ChangelogRecord* r : it->second) {
      if (r->offset > applied) break;
      if (detail::applied_by(replica, applied, *r) &&
          !detail::read_committed_holds(replica, *r, at_ms)) {
        skipped.push_back(r);
      }
    }
  }
  if (skipped.empty()) return {};
  std::sort(skipped.begin(), skipped.end(),
            [](const auto* a, const auto* b) { return a->offset < b->offset; });
  std::string text = fmt::format(" (read_committed skipped {} records; the last:", skipped.size());
  const size_t from = skipped.size() > kListedMax ? skipped.size() - kListedMax : 0;
  for (size_t i = from; i < skipped.size(); ++i) {
    const sim::ChangelogRecord& r = *skipped[i];
    text += fmt::format(
        " offset {} key {} by {} appended at {} ms, {}{}", r.offset, r.key,
        r.writer.empty() ? "?" : r.writer, r.appended_ms.ms_since_epoch(), sim::to_string(r.txn),
        r.decided_ms ? fmt::format(" at {} ms", r.decided_ms->ms_since_epoch()) : std::string());
    text += i + 1 < skipped.size() ? ";" : ")";
  }
  return text;
}

// The position's component (source topic, the answer's partition) the prefix and the unlogged
// writes give (-1: none, the empty position), or why it cannot be judged.
std::variant<SourceOffset, std::string> folded_component(
    const JudgeContext& context, const ChangelogIndex::Partition* log,
    const sim::ReplicaSnapshot& replica, base::Instant at_ms, ChangelogOffset applied,
    const std::vector<sim::UnloggedWrite>& unlogged, const std::vector<ChangelogOffset>& skipped) {
  if (!context.trace().consistency_offset_vector_enabled) {
    return std::string("position not judged: consistency switch off (no headers to fold)");
  }
  if (log != nullptr && log->foreign_header) {
    return std::string("position not judged: a header names another topic or partition");
  }
  SourceOffset component(-1);
  if (log != nullptr) {
    auto after = std::upper_bound(log->records.begin(), log->records.end(), applied,
                                  [](ChangelogOffset o, const auto* r) { return o < r->offset; });
    if (replica.own_write_runs.empty() && !log->transactions_skipped && skipped.empty()) {
      if (after != log->records.begin()) {
        component = log->header_max[static_cast<size_t>(after - log->records.begin() - 1)];
      }
    } else {
      // Records the replica skipped (another instance's inside its own runs, or removed by the
      // cleaner before it read them) do not count: fold the headers of those it applied. The fold
      // is a maximum, so it walks back from the applied offset and stops once no earlier header
      // can raise it (header_max), and asks whether a record was applied only when its header
      // would: the same maximum as folding every record, without a pass over the whole prefix
      // per query (it was a fifth of a seed's instructions, docs/performance.md).
      for (auto i = static_cast<size_t>(after - log->records.begin()); i-- > 0;) {
        if (log->header_max[i] <= component) break;
        if (log->header[i] <= component) continue;
        const sim::ChangelogRecord& r = *log->records[i];
        if (!detail::applied_by(replica, applied, r, at_ms)) continue;
        if (std::binary_search(skipped.begin(), skipped.end(), r.offset)) continue;
        IQ_ASSERT(SourceOffset(detail::header_of(context, r)) == log->header[i],
                  "seed {}: changelog-{} offset {}: indexed header differs", context.trace().seed,
                  r.partition, r.offset);
        component = log->header[i];
      }
    }
  }
  for (const auto& w : unlogged) component = std::max(component, w.source_offset);
  return component;
}

// ---- A replica reading a compacted changelog ----
//
// The log cleaner removes a record once a newer record of its key lies in the cleaned part of the
// log (Cleaner.doClean keeps the latest offset per key of the dirty section; the active segment
// is never cleaned). A standby or a restoring active that fetches an offset after a cleaning
// removed its record never reads it, so in the middle of the log it lacks keys whose newer
// records lie beyond its offset: its state is not the fold of the whole prefix, but of what it
// could read. The trace records when each removed record was removed (ChangelogRecord::
// removed_ms), not when each replica fetched each offset, so the fetch times are bounded:
// - a record still in the log, or removed after the answer, was read (the replica's offset at the
//   answer covers it, and it fetched that offset by then);
// - a record the replica's own instance wrote was applied when written, not fetched, unless that
//   instance crashed, restarted or closed after writing it (then it may have restored it);
// - a replica fetches offsets in ascending order over time (a new life of the store starts again
//   at its checkpoint, above what an earlier life read, or at the log start), so its fetch time
//   f(offset) is non-decreasing: a record s it skipped has f(s) >= removed(s), and a removed
//   record k it read has f(k) <= removed(k) (a fetch and a cleaning in one millisecond may run in
//   either order). So skipped records S and read removed records K are possible together iff no
//   s in S lies below a k in K with removed(s) > removed(k).
// Per key the answer names the latest record the replica read (its value; absent: a tombstone or
// nothing); the key's records after it up to the offset are the ones skipped, each of which must
// be skippable. The latest record matching the answer is taken (the fewest skips); when the
// choice across the answer's keys is not possible, the answer stays not the fold. Keys an
// unlogged write decides are not searched. The search is linear in the keys' records.

// Whether `instance` crashed (a crash that landed), restarted or closed in [from_ms, to_ms].
bool restarted_between(const JudgeContext& context, const std::string& instance,
                       base::Instant from_ms, base::Instant to_ms) {
  for (const sim::FaultRecord& f : context.trace().faults) {
    if (f.at_ms < from_ms || f.at_ms > to_ms || f.instance != instance) continue;
    if (f.stopped() || f.is(sim::FaultKind::kRestart) || f.is(sim::FaultKind::kRestartWiped)) {
      return true;
    }
  }
  return false;
}

// One key's choice: the latest record the replica read (nullptr: none) and the records of the key
// after it, up to the offset, that it skipped (descending).
struct KeyRead {
  const sim::ChangelogRecord* read = nullptr;
  std::vector<const sim::ChangelogRecord*> skipped;
};

// The choice for `key` whose answer is `want` (absent: the answer lacks the key), or nullopt when
// no skippable suffix of the key's records leaves a record with that answer.
std::optional<KeyRead> choose_key_read(const JudgeContext& context, const sim::QueryRecord& record,
                                       const ChangelogIndex::Partition& log,
                                       const sim::ReplicaSnapshot& replica, ChangelogOffset applied,
                                       int32_t key, const std::optional<Entry>& want) {
  KeyRead choice;
  auto it = log.by_key.find(key);
  if (it == log.by_key.end()) return want ? std::nullopt : std::optional(choice);
  const auto& records = it->second;
  const bool timestamped = detail::is_timestamped_kind(record.request.kind);
  // Through a pointer: GCC's -Wmaybe-uninitialized misreads the optional once this is inlined.
  const Entry* const wanted = want ? &*want : nullptr;
  for (auto r = records.rbegin(); r != records.rend(); ++r) {
    // Under exactly_once_v2 a record read_committed never hands out (aborted, or undecided at the
    // answer) is neither read nor skipped through compaction: the cleaner's removal of an
    // aborted record changes nothing a read_committed reader sees.
    if (!detail::applied_by(replica, applied, **r, detail::answered_at(record))) continue;
    const bool matches =
        wanted != nullptr
            ? (*r)->value && *(*r)->value == wanted->value &&
                  (!timestamped || detail::timestamp_ok(context, record.request.kind,
                                                        wanted->timestamp_ms, (*r)->timestamp_ms))
            : !(*r)->value;
    if (matches) {
      choice.read = *r;
      return choice;
    }
    if (!detail::removed_before_fetch(context, replica, **r, record.complete_ms)) {
      return std::nullopt;
    }
    IQ_ASSERT(choice.skipped.size() < records.size(), "seed {}: key {}", context.trace().seed, key);
    choice.skipped.push_back(*r);
  }
  if (want) return std::nullopt;
  return choice;  // every record of the key skipped
}

// Whether some non-decreasing fetch time makes every choice in `reads` hold together: no skipped
// record lies at or below a removed record read with a later removal than that one's.
bool fetch_order_possible(const std::map<int32_t, KeyRead>& reads) {
  for (const auto& [key, choice] : reads) {
    for (const sim::ChangelogRecord* s : choice.skipped) {
      IQ_ASSERT(s->removed_ms.has_value(), "key {} offset {} skipped unremoved", key, s->offset);
      for (const auto& [other_key, other] : reads) {
        const sim::ChangelogRecord* k = other.read;
        if (k != nullptr && k->removed_ms && s->offset <= k->offset &&
            *s->removed_ms > *k->removed_ms) {
          return false;
        }
      }
    }
  }
  return true;
}

// The answer as the fold of what the replica could read of the compacted changelog: the skips
// (each key's, non-empty) when that fold is the answer, else nullopt. Only for a changelog some
// cleaning removed records of before the answer.
std::optional<std::pair<std::vector<detail::CompactedSkip>, Match>> compacted_read(
    const JudgeContext& context, const sim::QueryRecord& record,
    const ChangelogIndex::Partition& log, const sim::ReplicaSnapshot& replica,
    ChangelogOffset applied, const std::vector<int32_t>& keys,
    const std::vector<sim::UnloggedWrite>& unlogged, const Answer& answer) {
  if (!answer.shape_ok) return std::nullopt;
  const bool lru = context.trace().topology.supplier == KeyValueSupplier::kLruMap;
  std::map<int32_t, Entry> answered;
  for (const auto& [key, e] : answer.entries) answered.emplace(key, e);
  std::map<int32_t, KeyRead> reads;
  for (int32_t key : keys) {
    if (std::any_of(unlogged.begin(), unlogged.end(), [&](const auto& w) { return w.key == key; }))
      continue;
    auto found = answered.find(key);
    const std::optional<Entry> want =
        found == answered.end() ? std::nullopt : std::optional(found->second);
    std::optional<KeyRead> choice =
        choose_key_read(context, record, log, replica, applied, key, want);
    if (!choice && lru && !want) {
      choice =
          KeyRead{latest(log, key, applied, detail::answered_at(record), &replica), {}};  // evicted
    }
    if (!choice) return std::nullopt;
    reads.emplace(key, std::move(*choice));
  }
  if (!fetch_order_possible(reads)) return std::nullopt;
  State state = fold(&log, replica, detail::answered_at(record), keys, applied, false, unlogged);
  std::vector<detail::CompactedSkip> skips;
  for (const auto& [key, choice] : reads) {
    if (choice.skipped.empty()) continue;
    detail::CompactedSkip skip;
    skip.key = key;
    if (auto it = state.find(key); it != state.end()) {
      skip.unskipped_value = it->second.value;
      skip.unskipped_timestamp_ms = it->second.timestamp_ms;
    }
    for (auto r = choice.skipped.rbegin(); r != choice.skipped.rend(); ++r) {
      skip.skipped.push_back((*r)->offset);
      skip.removed_ms_max = std::max(skip.removed_ms_max, *(*r)->removed_ms);
    }
    state.erase(key);
    if (choice.read != nullptr && choice.read->value) {
      state[key] = Entry{*choice.read->value, choice.read->timestamp_ms};
    }
    skips.push_back(std::move(skip));
  }
  const Match match = compare(context, record.request, answer, state);
  if (skips.empty() || match == Match::kDiffers) return std::nullopt;
  return std::pair(std::move(skips), match);
}

// The offsets the skips name, for folding the position headers of what the replica read.
std::vector<ChangelogOffset> skipped_offsets(const std::vector<detail::CompactedSkip>& skips) {
  std::vector<ChangelogOffset> out;
  for (const detail::CompactedSkip& s : skips)
    out.insert(out.end(), s.skipped.begin(), s.skipped.end());
  std::sort(out.begin(), out.end());
  return out;
}

// ---- Every changelog record is explained by a source record ----

// Whether the store's change logging logs LRU evictions as tombstones: Kafka installs the eviction
// listener only on a MemoryLRUCache the change-logging layer wraps directly, i.e. a plain-builder
// store over Stores.lruMap (the timestamped builder's adapter sits in between).
bool logs_lru_evictions(const TopologyConfig& t) {
  return !t.timestamped() && t.supplier == KeyValueSupplier::kLruMap;
}

// The source records of `r`'s key that may have made it: at or below its header's offset (the
// whole partition without a header), ascending.
std::vector<const sim::SourceLogRecord*> explaining_candidates(const JudgeContext& context,
                                                               const sim::ChangelogRecord& r,
                                                               int64_t bound) {
  std::vector<const sim::SourceLogRecord*> out;
  for (int64_t o : context.key_write_offsets(r.partition, r.key)) {
    if (o > bound) break;
    const sim::SourceLogRecord* s = detail::source_record(context.trace(), r.partition, o);
    IQ_ASSERT(s != nullptr, "seed {}: partition {} offset {}", context.trace().seed, r.partition,
              o);
    out.push_back(s);
  }
  return out;
}

// The bound of the source offsets that may explain `r`: its header's component, or none.
int64_t explaining_bound(const JudgeContext& context, const sim::ChangelogRecord& r) {
  const SourceOffset header = SourceOffset(detail::header_of(context, r));
  return header >= SourceOffset(0) ? header.value() : std::numeric_limits<int64_t>::max();
}

// Whether tombstone `r` is a delete of its key in the input (a null value at its timestamp), not
// an eviction.
bool deleted_in_source(const JudgeContext& context, const sim::ChangelogRecord& r) {
  for (const sim::SourceLogRecord* s :
       explaining_candidates(context, r, explaining_bound(context, r))) {
    if (!s->value && s->timestamp_ms == r.timestamp_ms) return true;
  }
  return false;
}

// explaining_candidates for every changelog record of a run: each key's source records (those
// of its key_write_offsets), found once per key rather than once per changelog record of the key
// and earlier write (that was quadratic in a key's writes: a ninth of a seed's instructions,
// docs/performance.md).
class KeySources {
 public:
  explicit KeySources(const JudgeContext& context) : context_(context) {}
  // The source records at key_write_offsets(partition, key), in its order (the same length).
  const std::vector<const sim::SourceLogRecord*>& of(int32_t partition, int32_t key) {
    auto [it, fresh] = sources_.try_emplace(std::pair(partition, key));
    if (fresh) {
      for (int64_t o : context_.key_write_offsets(partition, key)) {
        const sim::SourceLogRecord* s = detail::source_record(context_.trace(), partition, o);
        IQ_ASSERT(s != nullptr, "seed {}: partition {} offset {}", context_.trace().seed, partition,
                  o);
        it->second.push_back(s);
      }
    }
    return it->second;
  }

 private:
  const JudgeContext& context_;
  std::map<std::pair<int32_t, int32_t>, std::vector<const sim::SourceLogRecord*>> sources_;
};

// Why no source record explains changelog record `r`, or nullopt when one does.
std::optional<std::string> changelog_record_unexplained(const JudgeContext& context,
                                                        KeySources& sources,
                                                        const sim::ChangelogRecord& r) {
  const TopologyConfig& t = context.trace().topology;
  if (t.windowed() || t.session()) return detail::window_record_unexplained(context, r);
  const bool latest_value =
      t.kind == TopologyKind::SourceTable || t.kind == TopologyKind::PapiWriter;
  const int64_t bound = explaining_bound(context, r);
  // The candidates (explaining_candidates) are the key's source records up to the bound; each
  // question below is whether one of them fits, so they are tried from the latest down (the
  // record that made `r` is nearly always the latest of its key at its header).
  const std::vector<int64_t>& offsets = context.key_write_offsets(r.partition, r.key);
  const std::vector<const sim::SourceLogRecord*>& all = sources.of(r.partition, r.key);
  const auto count = static_cast<size_t>(std::upper_bound(offsets.begin(), offsets.end(), bound) -
                                         offsets.begin());
  const auto any_candidate = [&](const auto& fits) {
    for (size_t i = count; i-- > 0;) {
      if (fits(*all[i])) return true;
    }
    return false;
  };
  if (!r.value) {
    if (logs_lru_evictions(t) && count > 0) return std::nullopt;  // an eviction
    if (latest_value &&
        any_candidate([](const sim::SourceLogRecord& s) { return !s.value.has_value(); })) {
      return std::nullopt;
    }
  } else if (any_candidate([&](const sim::SourceLogRecord& s) {
               return s.value && s.timestamp_ms == r.timestamp_ms &&
                      (!latest_value || *s.value == *r.value);
             })) {
    return std::nullopt;
  }
  const std::string below = bound == std::numeric_limits<int64_t>::max()
                                ? std::string("in the input")
                                : fmt::format("at or below source offset {}", bound);
  if (!r.value) {
    return fmt::format("a tombstone of key {} that no delete of the key {} explains{}", r.key,
                       below, logs_lru_evictions(t) ? " (nor an LRU eviction: never written)" : "");
  }
  return fmt::format("key {} {} at timestamp {}: no record of the key {} has {}", r.key,
                     latest_value ? "= " + std::to_string(*r.value) : std::string("written"),
                     r.timestamp_ms, below,
                     latest_value ? "that value and timestamp" : "that timestamp");
}

// A plain-builder LRU store under a record cache: an eviction logs a tombstone for a key whose
// clean entry the cache may still hold (Kafka's NamedCache keeps flushed entries and drops only
// deleted ones), and a key query reads the cache first (CachingKeyValueStore.getInternal), so an
// active may answer the key's last logged value before that tombstone. The fold with that value
// instead, or nullopt when the key's latest applied record is no eviction tombstone or an
// unlogged write of the key decides the answer.
std::optional<State> with_evicted_entry_cached(
    const JudgeContext& context, const sim::QueryRecord& record,
    const ChangelogIndex::Partition& log, const sim::ReplicaSnapshot& replica,
    ChangelogOffset applied, const std::vector<sim::UnloggedWrite>& unlogged, const State& state) {
  const TopologyConfig& t = context.trace().topology;
  if (!logs_lru_evictions(t) || !t.caching || !detail::is_key_kind(record.request.kind) ||
      replica.role != sim::ReplicaRole::kActive || !record.request.key) {
    return std::nullopt;
  }
  const int32_t key = *record.request.key;
  if (std::any_of(unlogged.begin(), unlogged.end(), [&](const auto& w) { return w.key == key; })) {
    return std::nullopt;
  }
  const base::Instant at_ms = detail::answered_at(record);
  const sim::ChangelogRecord* tombstone = latest(log, key, applied, at_ms, &replica);
  if (tombstone == nullptr || tombstone->value || deleted_in_source(context, *tombstone)) {
    return std::nullopt;
  }
  const sim::ChangelogRecord* before = latest(log, key, tombstone->offset - 1, at_ms, &replica);
  if (before == nullptr || !before->value) return std::nullopt;
  State out = state;
  out[key] = Entry{*before->value, before->timestamp_ms};
  return out;
}

// One violation per unexplained record, at most kUnexplainedMax per run (the first in log order).
std::vector<Violation> unexplained_changelog_records(const JudgeContext& context) {
  constexpr size_t kUnexplainedMax = 10;
  std::vector<Violation> out;
  const sim::RunTrace& trace = context.trace();
  if (!trace.changelog_recorded || !trace.topology.logging || trace.changelog_dropped > 0 ||
      trace.changelog_compacted || trace.topology.versioned()) {
    return out;
  }
  KeySources sources(context);
  for (const sim::ChangelogRecord& r : trace.changelog) {
    std::optional<std::string> why = changelog_record_unexplained(context, sources, r);
    if (!why) continue;
    IQ_ASSERT(out.size() < kUnexplainedMax, "seed {}: {} unexplained", trace.seed, out.size());
    Violation v;
    v.property = kChangelogWitnessName;
    v.partition = r.partition;
    v.changelog_offset = r.offset;
    v.at_ms = r.appended_ms.ms_since_epoch();
    v.summary = fmt::format("changelog-{} offset {} (by {}) is explained by no source record: {}",
                            r.partition, r.offset, r.writer.empty() ? "?" : r.writer, *why);
    v.expected = "a store write of a source record, or a tombstone Kafka logs";
    v.returned = fmt::format("key={} value={} ts={} header={}", r.key,
                             r.value ? std::to_string(*r.value) : std::string("null"),
                             r.timestamp_ms, r.position ? r.position->to_string() : "none");
    v.events_before = context.events_before(r.appended_ms);
    out.push_back(std::move(v));
    if (out.size() == kUnexplainedMax) break;
  }
  return out;
}

}  // namespace

const ChangelogIndex& JudgeContext::changelog_index() const {
  if (changelog_index_) return *changelog_index_;
  changelog_index_ = std::unique_ptr<ChangelogIndex, void (*)(ChangelogIndex*)>(
      new ChangelogIndex(), &delete_index);
  const std::string& topic = trace_.topology.source_topic;
  for (const sim::ChangelogRecord& r : trace_.changelog) {
    ChangelogIndex::Partition& log = changelog_index_->partitions[r.partition];
    IQ_ASSERT(log.records.empty() || log.records.back()->offset < r.offset,
              "changelog-{} offset {} out of order", r.partition, r.offset);
    SourceOffset component = log.header_max.empty() ? SourceOffset(-1) : log.header_max.back();
    SourceOffset own(-1);
    if (r.position) {
      for (const auto& [t, offsets] : r.position->map()) {
        for (const auto& [p, o] : offsets) {
          if (t == topic && p == r.partition) {
            // A position header's component is a source offset (Position holds them as longs).
            own = SourceOffset(o);
            component = std::max(component, own);
          } else {
            log.foreign_header = true;
          }
        }
      }
    }
    log.records.push_back(&r);
    log.header_max.push_back(component);
    log.header.push_back(own);
    if (!r.committed()) log.transactions_skipped = true;
    log.by_key[r.key].push_back(&r);
  }
  return *changelog_index_;
}

namespace detail {

// Whether `instance` crashed, restarted or closed before at_ms (a store may have kept data of an
// earlier life). Only what happened counts: a crash that landed (an armed one that never did is
// no crash), an applied restart or close.
bool restarted_before(const JudgeContext& context, const std::string& instance,
                      base::Instant at_ms) {
  return restarted_between(context, instance,
                           base::Instant::from_ms(std::numeric_limits<int64_t>::min()), at_ms);
}

bool reopened_before(const JudgeContext& context, const std::string& instance,
                     base::Instant at_ms) {
  if (restarted_before(context, instance, at_ms)) return true;
  for (const sim::FaultRecord& f : context.trace().faults) {
    if (f.at_ms <= at_ms && f.instance == instance && f.cut_off()) {
      return true;
    }
  }
  return false;
}

bool written_by_store(const sim::ReplicaSnapshot& replica, const sim::ChangelogRecord& r) {
  if (r.writer != replica.instance) return false;
  for (const sim::OwnWriteRun& run : replica.own_write_runs) {
    // Before the run's first own write lie only records appended before this store wrote: an
    // earlier life's transaction the restore stopped before (at the last stable offset).
    const ChangelogOffset first = std::max(run.first_offset, run.after_offset + 1);
    if (r.offset >= first && r.offset <= run.last_offset) return true;
  }
  return false;
}

bool read_committed_holds(const sim::ReplicaSnapshot& replica, const sim::ChangelogRecord& r,
                          base::Instant at_ms) {
  if (r.txn == sim::TxnOutcome::kNone) return true;
  // The store that wrote a record holds it whatever becomes of its transaction, until Kafka
  // closes the task dirty and wipes it (TaskManager.closeDirtyAndRevive, StateManagerUtil.
  // closeStateManager under EOS), which the instance does only once it learns of the abort (a
  // fenced commit, a TaskMigrated): a coordinator's timeout abort does not reach its store.
  if (written_by_store(replica, r)) return true;
  // Every other store read it from the changelog read_committed: never an aborted record (the
  // aborted-transaction index), never one at or past the last stable offset, which stays at or
  // below a record until its transaction's marker.
  if (r.txn != sim::TxnOutcome::kCommitted) return false;
  IQ_ASSERT(r.decided_ms.has_value(), "committed changelog-{} offset {} has no decision time",
            r.partition, r.offset);
  return *r.decided_ms <= at_ms;
}

bool applied_by(const sim::ReplicaSnapshot& replica, ChangelogOffset applied,
                const sim::ChangelogRecord& r, base::Instant at_ms) {
  return applied_by(replica, applied, r) && read_committed_holds(replica, r, at_ms);
}

bool applied_by(const sim::ReplicaSnapshot& replica, ChangelogOffset applied,
                const sim::ChangelogRecord& r) {
  if (r.offset > applied) return false;
  // No run to skip the record: the usual case, decided before the writer's instance name is
  // compared (that comparison was 3 % of a heavy window seed's folds).
  if (replica.own_write_runs.empty() || r.writer == replica.instance) return true;
  for (const sim::OwnWriteRun& run : replica.own_write_runs) {
    if (r.offset > run.after_offset && r.offset <= run.last_offset) return false;
  }
  return true;
}

namespace {

// Why no answer of this trace can be witnessed (the first reasons changelog_witness gives, the
// same for every answer), or nullptr.
const char* trace_not_witnessed(const sim::RunTrace& trace) {
  if (!trace.changelog_recorded) return "the trace records no changelog";
  if (!trace.topology.logging) return "the store is not logged";
  if (trace.changelog_dropped > 0) return "the changelog exceeds the trace's bound";
  if (trace.changelog_compacted) {
    return "the changelog is not whole (removed records past the recorder's bound): the prefix a "
           "replica applied is not here";
  }
  return nullptr;
}

WitnessResult not_judged(std::string why, const sim::ReplicaSnapshot* replica = nullptr,
                         ChangelogOffset applied = ChangelogOffset(-1)) {
  WitnessResult r;
  r.verdict = Witness::kNotJudged;
  r.why = std::move(why);
  r.replica = replica;
  r.applied_offset = applied;
  return r;
}

// The exact fold of the key-value store object that served (its recorded life, trace/
// store_life.h) for `keys`: the entries its files kept when it opened, then each changelog record
// given to it or written by it up to `applied`, then the unlogged writes; with the highest of its
// loaded .position's component, the applied records' headers and the unlogged writes' offsets.
// nullopt when a record it applied is not in the trace.
std::optional<std::pair<State, SourceOffset>> life_fold(
    const JudgeContext& context, const ChangelogIndex::Partition& log, const sim::StoreLife& life,
    const std::vector<int32_t>& keys, ChangelogOffset applied,
    const std::vector<sim::UnloggedWrite>& unlogged) {
  const auto touched = [&](int32_t k) { return std::binary_search(keys.begin(), keys.end(), k); };
  State state;
  for (const sim::KeptEntry& e : life.kept) {
    if (touched(e.key)) state[e.key] = Entry{e.value, e.timestamp_ms.value_or(-1)};
  }
  SourceOffset component(detail::reported_offset(context, life.loaded_position, life.partition));
  for (const sim::StoreLifeEvent& e : life.events) {
    if (e.kind != sim::StoreLifeEvent::Kind::kGiven && e.kind != sim::StoreLifeEvent::Kind::kWrote)
      continue;
    for (ChangelogOffset o = e.first; o <= e.last && o <= applied; o = o + 1) {
      auto it = std::lower_bound(log.records.begin(), log.records.end(), o,
                                 [](const auto* r, ChangelogOffset x) { return r->offset < x; });
      if (it == log.records.end() || (*it)->offset != o) return std::nullopt;
      const sim::ChangelogRecord& r = **it;
      component = std::max(component, SourceOffset(detail::header_of(context, r)));
      if (!touched(r.key)) continue;
      if (r.value) {
        state[r.key] = Entry{*r.value, r.timestamp_ms};
      } else {
        state.erase(r.key);
      }
    }
  }
  for (const auto& w : unlogged) {
    component = std::max(component, w.source_offset);
    if (!touched(w.key)) continue;
    if (w.value) {
      state[w.key] = Entry{*w.value, w.timestamp_ms};
    } else {
      state.erase(w.key);
    }
  }
  return std::pair(std::move(state), component);
}

// Why what `life` kept is older than the .checkpoint its task loaded, or nullopt: each kept key's
// value must be a state the key had in the changelog appended before the life opened, at or after
// its last record at or below the checkpoint (a crash after a flush, before the .checkpoint
// write, keeps newer data; never older).
std::optional<std::string> kept_older_than_checkpoint(const ChangelogIndex::Partition& log,
                                                      const sim::StoreLife& life) {
  const ChangelogOffset checkpoint = life.loaded_checkpoint.value_or(ChangelogOffset(-1));
  for (const sim::KeptEntry& e : life.kept) {
    bool state = false;
    auto it = log.by_key.find(e.key);
    if (it != log.by_key.end()) {
      for (const sim::ChangelogRecord* r : it->second) {
        if (r->appended_ms > life.opened_ms) break;
        if (r->offset <= checkpoint) state = false;  // superseded by the key's next record
        if (r->value == e.value) state = true;
      }
    }
    if (!state) {
      return fmt::format(
          "key {} kept value {}, no state of the key at or after .checkpoint {} in the changelog "
          "appended before the store opened",
          e.key, e.value, checkpoint);
    }
  }
  return std::nullopt;
}

// ChangelogWitness on a key-value store object that opened over data an earlier one kept: the
// answer must be its life's exact fold (life_fold), value and position, and what it kept no older
// than its .checkpoint claims. Holds then, naming the life (WitnessResult::kept_life).
WitnessResult judge_kept_life(const JudgeContext& context, const sim::QueryRecord& record,
                              const sim::PartitionOutcome& outcome,
                              const ChangelogIndex::Partition& log, const sim::StoreLife& life,
                              const std::vector<int32_t>& keys,
                              const std::vector<sim::UnloggedWrite>& unlogged, const Answer& answer,
                              WitnessResult result) {
  const auto fold = life_fold(context, log, life, keys, result.applied_offset, unlogged);
  if (!fold) return not_judged("a record the store object applied is not in the trace");
  const bool differs = compare(context, record.request, answer, fold->first) == Match::kDiffers;
  kept_life_verdict(
      context, life, outcome,
      differs ? std::optional(render(record.request, fold->first)) : std::nullopt,
      [&] { return kept_older_than_checkpoint(log, life); },
      context.trace().consistency_offset_vector_enabled && !log.foreign_header
          ? std::optional(fold->second)
          : std::nullopt,
      result);
  return result;
}

}  // namespace

void kept_life_verdict(const JudgeContext& context, const sim::StoreLife& life,
                       const sim::PartitionOutcome& outcome,
                       std::optional<std::string> fold_differs,
                       const std::function<std::optional<std::string>()>& older,
                       std::optional<SourceOffset> header, WitnessResult& result) {
  result.verdict = Witness::kDiffers;
  if (fold_differs) {
    result.why = fmt::format(
        "the answer is not the fold of what {}'s store object (life {}) kept when it opened "
        "({} entries) with the records given to it or written by it up to changelog-{} {}",
        life.instance, life.id, life.kept.size(), outcome.partition, result.applied_offset);
    result.expected = std::move(*fold_differs);
    return;
  }
  if (auto kept_less = older()) {
    result.why =
        fmt::format("life {} kept less than its .checkpoint claims: {}", life.id, *kept_less);
    return;
  }
  if (!header) {
    result.position_not_judged = "position not judged: consistency switch off or a foreign header";
  } else if (const Position folded = position_of(context, outcome.partition, *header);
             !outcome.position || outcome.position->map() != folded.map()) {
    result.why = fmt::format(
        "the position is not the fold of life {}'s loaded .position and the headers it applied",
        life.id);
    result.folded_position = folded;
    result.expected = folded.to_string();
    return;
  }
  result.verdict = Witness::kHolds;
  result.kept_life = life.id;
}

WitnessResult changelog_witness(const JudgeContext& context, const sim::QueryRecord& record,
                                const sim::PartitionOutcome& outcome) {
  IQ_ASSERT(outcome.success, "record #{} partition {}", record.id, outcome.partition);
  WitnessResult result;
  const sim::RunTrace& trace = context.trace();
  if (const char* why = trace_not_witnessed(trace)) return not_judged(why);
  if (auto why = not_answerable(context, record.request)) return not_judged(*why);
  if (!record.placement_at_answer) {
    return not_judged("no placement snapshot at the answer");
  }
  result.replica =
      find_replica(*record.placement_at_answer, record.target_instance, outcome.partition);
  if (result.replica == nullptr || result.replica->role == sim::ReplicaRole::kNone) {
    result.why = "no replica of the partition in the snapshot at the answer";
    return result;
  }
  const sim::ReplicaSnapshot& replica = *result.replica;
  const ChangelogIndex::Partition* log = context.changelog_index().partition(outcome.partition);
  ChangelogOffset applied = replica.changelog_offset.value_or(ChangelogOffset(-1));
  // A READ_COMMITTED answer of a transactional store (KIP-892) reads its committed state: the
  // records it had applied up to its last store commit (what it loaded or restored, which is
  // committed on arrival, and what it had written or applied when its task last committed the
  // store), which the recorder reads from the state manager at the answer. Not the records under
  // the committed position's headers: a task that processes input again after a restore (at-least-
  // once) stages writes whose headers the restored position already covers (default seed 42).
  const bool committed_read = reads_committed(context, record.request, replica);
  if (committed_read) {
    const ChangelogOffset committed =
        replica.committed_changelog_offset.value_or(ChangelogOffset(-1));
    applied = std::min(applied, committed);
  }
  result.applied_offset = applied;
  if (trace.topology.versioned() || trace.topology.windowed() || trace.topology.session()) {
    // A versioned store keeps versions, not values: changelog_witness_versioned.cc judges it;
    // windows and sessions go through the store's retention: window_judge.cc.
    return trace.topology.versioned()
               ? versioned_changelog_witness(context, record, outcome, replica, applied)
               : window_changelog_witness(context, record, outcome, replica, applied);
  }
  // Kafka's caching layer answers only key queries from the cache (CachingKeyValueStore's
  // queryHandlers hold KeyQuery alone; the timestamped key query reaches it as a KeyQuery), with
  // the merged position of cache and store; ranges go to the store below, under its own position.
  static const std::vector<sim::UnloggedWrite> kNone;
  const std::vector<sim::UnloggedWrite>& unlogged =
      is_key_kind(record.request.kind) && !committed_read ? replica.unlogged_writes : kNone;
  const std::vector<int32_t> keys = touched_keys(record.request, log, unlogged);
  const Answer answer = answer_of(record.request, outcome);
  const State state =
      fold(log, replica, detail::answered_at(record), keys, applied, false, unlogged);
  Match match = compare(context, record.request, answer, state);
  if (match == Match::kDiffers && log != nullptr) {
    if (auto cached =
            with_evicted_entry_cached(context, record, *log, replica, applied, unlogged, state)) {
      match = compare(context, record.request, answer, *cached);
    }
  }
  if (match != Match::kEqual && log != nullptr) {
    // A replica in the middle of a compacted changelog never read the records the cleaner had
    // removed before it fetched their offsets (on an LRU store, rather than evicting the keys it
    // lacks, which the capacity may not even allow).
    if (auto read = compacted_read(context, record, *log, replica, applied, keys, unlogged, answer);
        read && (read->second == Match::kEqual || match == Match::kDiffers)) {
      match = read->second;
      result.compacted_skips = std::move(read->first);
    }
  }
  // What the store object kept when it opened is recorded: its exact fold decides.
  if (const sim::StoreLife* life = trace.store_life(replica.store_life);
      match != Match::kEqual && life != nullptr && life->over_kept_data && log != nullptr &&
      persistent(trace.topology)) {
    const WitnessResult kept =
        judge_kept_life(context, record, outcome, *log, *life, keys, unlogged, answer, result);
    if (kept.verdict == Witness::kHolds || match == Match::kDiffers) return kept;
  }
  if (match == Match::kDiffers) {
    result.verdict = Witness::kDiffers;
    if (log != nullptr && replica.restored_from) {
      // A store that kept nothing beneath its .checkpoint: the records after it over an empty
      // store. Still a difference; cleaner_cut.cc looks at it.
      const State replayed =
          fold(log, replica, detail::answered_at(record), keys, applied, true, unlogged);
      result.fold_over_empty_store =
          compare(context, record.request, answer, replayed) == Match::kEqual;
    }
    result.why = fmt::format(
        "the answer is not the fold of changelog-{} [.., {}]{} that {}'s {} had "
        "applied",
        outcome.partition, applied,
        unlogged.empty() ? "" : fmt::format(" + {} unlogged writes", unlogged.size()),
        replica.instance, sim::to_string(replica.role));
    result.expected =
        render(record.request, state) +
        skipped_uncommitted(*log, replica, keys, applied, detail::answered_at(record));
    return result;
  }
  if (match == Match::kLruSubset) {
    result =
        not_judged("LRU store: keys of the fold are missing (evicted without a logged tombstone)",
                   result.replica, applied);
    result.present_keys_hold = true;
    return result;
  }
  auto component = folded_component(context, log, replica, detail::answered_at(record), applied,
                                    unlogged, skipped_offsets(result.compacted_skips));
  if (auto* why = std::get_if<std::string>(&component)) {
    result.verdict = Witness::kHolds;
    result.position_not_judged = std::move(*why);
    return result;
  }
  // Compared without building the folded position; built only to describe a difference.
  const SourceOffset folded = std::get<SourceOffset>(component);
  if (!outcome.position || !is_position_of(context, *outcome.position, outcome.partition, folded)) {
    const Position want = position_of(context, outcome.partition, folded);
    IQ_ASSERT(!outcome.position || outcome.position->map() != want.map(),
              "seed {}: record #{}: the folded position's shortcut disagrees", context.trace().seed,
              record.id);
    result.verdict = Witness::kDiffers;
    result.why = fmt::format(
        "the position is not the fold of the headers of changelog-{} [.., {}] that {}'s {} had "
        "applied",
        outcome.partition, applied, replica.instance, sim::to_string(replica.role));
    result.expected = "position " + want.to_string();
    result.folded_position = want;
    return result;
  }
  result.verdict = Witness::kHolds;
  return result;
}

WitnessResult witness_verdict(const JudgeContext& context, const sim::QueryRecord& record,
                              const sim::PartitionOutcome& outcome) {
  const auto& verdicts = context.changelog_index().verdicts;
  if (const auto it = verdicts.find(&outcome); it != verdicts.end()) {
    WitnessResult w;
    w.verdict = it->second.verdict;
    w.replica = it->second.replica;
    w.applied_offset = it->second.applied;
    return w;
  }
  return changelog_witness(context, record, outcome);
}

// The uncommitted data an answer the witness holds for reflected (exactly_once_v2; dirty_reads.cc
// tallies it): for each key the query reads, the applied record its value comes from when that
// record's transaction was not decided at the answer, or an unlogged (cached, unsent) write of
// the key; and, with the switch on, the applied record whose header lifted the position above
// what the committed records give.
UncommittedReflected uncommitted_reflected(const JudgeContext& context,
                                           const sim::QueryRecord& record,
                                           const sim::PartitionOutcome& outcome,
                                           const WitnessResult& witness) {
  IQ_ASSERT(witness.verdict == Witness::kHolds && witness.replica != nullptr,
            "record #{}: the witness must hold", record.id);
  UncommittedReflected out;
  const ChangelogIndex::Partition* log = context.changelog_index().partition(outcome.partition);
  const sim::ReplicaSnapshot& replica = *witness.replica;
  const base::Instant at_ms = detail::answered_at(record);
  // A committed read (KIP-892) never reads the record cache, as the witness folds it.
  const bool key_kind =
      is_key_kind(record.request.kind) && !reads_committed(context, record.request, replica);
  static const std::vector<sim::UnloggedWrite> kNone;
  const auto& unlogged = key_kind ? replica.unlogged_writes : kNone;
  for (int32_t key : touched_keys(record.request, log, unlogged)) {
    const bool cached = std::any_of(unlogged.begin(), unlogged.end(),
                                    [&](const sim::UnloggedWrite& w) { return w.key == key; });
    if (cached) {
      out.unsent = true;
      continue;
    }
    const sim::ChangelogRecord* r =
        log ? latest(*log, key, witness.applied_offset, at_ms, &replica) : nullptr;
    if (r != nullptr && r->uncommitted_at(at_ms)) out.records.push_back(r);
  }
  if (log == nullptr || !context.trace().consistency_offset_vector_enabled) return out;
  // The applied record with the highest header lifted the position above the committed records'
  // headers when no committed applied record has as high a header: then the first uncommitted
  // one with it (in offset order) is named. Only headers at that maximum decide, so the walk goes
  // back from the applied offset and stops where the prefix maximum (header_max) falls below the
  // highest header found (a pass over the whole prefix per answer was a twelfth of a seed's
  // instructions, docs/performance.md). A header of -1 lifts nothing.
  const auto after =
      std::upper_bound(log->records.begin(), log->records.end(), witness.applied_offset,
                       [](ChangelogOffset o, const auto* r) { return o < r->offset; });
  SourceOffset highest(0);  // the highest header of an applied record so far (found: when set)
  bool found = false;
  bool committed_at_highest = false;
  const sim::ChangelogRecord* lifted = nullptr;  // the earliest uncommitted one at `highest`
  for (auto i = static_cast<size_t>(after - log->records.begin()); i-- > 0;) {
    if (log->header_max[i] < highest) break;
    const SourceOffset header = log->header[i];
    if (header < highest) continue;
    const sim::ChangelogRecord* r = log->records[i];
    if (!applied_by(replica, witness.applied_offset, *r, at_ms)) continue;
    IQ_ASSERT(SourceOffset(detail::header_of(context, *r)) == header,
              "seed {}: changelog-{} offset {}: indexed header differs", context.trace().seed,
              r->partition, r->offset);
    if (!found || header > highest) {
      highest = header;
      found = true;
      committed_at_highest = false;
      lifted = nullptr;
    }
    if (!r->uncommitted_at(at_ms)) {
      committed_at_highest = true;
    } else {
      lifted = r;
    }
  }
  if (lifted != nullptr && !committed_at_highest &&
      std::find(out.records.begin(), out.records.end(), lifted) == out.records.end()) {
    out.records.push_back(lifted);
  }
  return out;
}

bool removed_before_fetch(const JudgeContext& context, const sim::ReplicaSnapshot& replica,
                          const sim::ChangelogRecord& r, base::Instant answer_ms) {
  // See "A replica reading a compacted changelog" above.
  if (!r.removed_ms || *r.removed_ms > answer_ms) return false;
  IQ_ASSERT(*r.removed_ms >= r.appended_ms, "seed {}: changelog-{} offset {} removed before append",
            context.trace().seed, r.partition, r.offset);
  if (r.writer != replica.instance) return true;
  return restarted_between(context, replica.instance, r.appended_ms, answer_ms);
}

// Pin delta 8's miss form (docs/kafka-2026-08-20.md §3.4 item 6): CachingKeyValueStore.runKeyQuery
// checks the bound against the cache's position merged with the inner store's getPosition() (the
// staged one), and when the thread cache has no entry for the key asks the store below unbounded
// with the request's level, then sets the merged position on the result. Under READ_COMMITTED a
// transactional store answers its committed view, so the answer is the committed state under the
// staged label. Proven without the cache's contents, from what the replica had recorded at the
// answer: the answer is exactly the fold of the records it had applied up to its last store
// commit (committed_changelog_offset, none: nothing committed yet, the empty fold), as a
// READ_COMMITTED read of the store below gives it, and its position is exactly the fold of the
// headers of every record it had applied and of its unlogged writes (the staged merge, which the
// witness's staged fold checks for a hit), while the staged fold differs from it (else a miss
// changed nothing). Either guarantee: under at-least-once the committed view advances at each
// task commit too (§3.5). Limit: the trace does not record the thread cache's contents, so a
// caching layer that answered the committed value on a hit (a bug) would be taken for this miss;
// a hit that answers its cached value, as Kafka's does, is the staged fold and refused here.
ClassProof prove_cached_key_query_miss(const JudgeContext& context, const sim::QueryRecord& record,
                                       const sim::PartitionOutcome& outcome) {
  const sim::RunTrace& trace = context.trace();
  const TopologyConfig& topology = trace.topology;
  if (!read_committed_at_new_pin(context, record.request)) {
    return {false, "not a READ_COMMITTED answer at the 2026-08-20 pin"};
  }
  if (topology.windowed() || topology.session() || topology.versioned() ||
      !is_cached_key_query(context, record.request) || !trace.transactional_state_stores) {
    return {false, "not a KeyQuery the caching layer of a transactional key-value store answers"};
  }
  if (!trace.consistency_offset_vector_enabled || !outcome.position) {
    return {false, "no position to tell the staged label by (consistency switch off)"};
  }
  const sim::ReplicaSnapshot* replica = transactional_answering_replica(record, outcome);
  if (replica == nullptr) {
    return {false, "the answering replica recorded no committed position (not transactional)"};
  }
  const ChangelogIndex::Partition* log = context.changelog_index().partition(outcome.partition);
  const ChangelogOffset applied = replica->changelog_offset.value_or(ChangelogOffset(-1));
  const ChangelogOffset committed =
      std::min(applied, replica->committed_changelog_offset.value_or(ChangelogOffset(-1)));
  const std::vector<int32_t> keys{*record.request.key};
  const base::Instant at = detail::answered_at(record);
  static const std::vector<sim::UnloggedWrite> kNone;
  const State state = fold(log, *replica, at, keys, committed, false, kNone);
  if (compare(context, record.request, answer_of(record.request, outcome), state) !=
      Match::kEqual) {
    return {false, fmt::format("record #{} is not the fold of changelog-{} [.., {}], {}'s "
                               "committed state",
                               record.id, outcome.partition, committed, replica->instance)};
  }
  // A miss changes the answer only where the committed fold is not the staged one (what a hit, and
  // the store below under READ_UNCOMMITTED, give): otherwise the answer's difference from the
  // model is not this behaviour's (default seed 182: an aggregate the changelog itself holds).
  const State staged_state =
      fold(log, *replica, at, keys, applied, false, replica->unlogged_writes);
  if (compare(context, record.request, answer_of(record.request, outcome), staged_state) ==
      Match::kEqual) {
    return {false, fmt::format("record #{} is the staged fold too: a miss changes nothing here",
                               record.id)};
  }
  auto staged = folded_component(context, log, *replica, at, applied, replica->unlogged_writes, {});
  if (const auto* why = std::get_if<std::string>(&staged)) return {false, *why};
  const SourceOffset label = std::get<SourceOffset>(staged);
  if (!is_position_of(context, *outcome.position, outcome.partition, label)) {
    return {false, fmt::format("record #{}'s position {} is not the staged merge {}", record.id,
                               outcome.position->to_string(),
                               position_of(context, outcome.partition, label).to_string())};
  }
  return {true,
          fmt::format("record #{} is the fold of changelog-{} [.., {}], {}'s committed "
                      "state at its last store commit, under the caching layer's staged "
                      "merge {} (the headers of [.., {}] and {} unlogged writes): a "
                      "READ_COMMITTED read below a cache miss",
                      record.id, outcome.partition, committed, replica->instance,
                      outcome.position->to_string(), applied, replica->unlogged_writes.size())};
}

}  // namespace detail

namespace {

// A dirty read under READ_COMMITTED (issue 30; docs/kafka-2026-08-20.md §3.6): an answer the
// witness holds for, at the 2026-08-20 pin, under exactly_once_v2, whose effective level is
// READ_COMMITTED and which reflected a changelog record of a transaction not decided at the
// answer, or an unsent cache write: what dirty_reads.h counts as a dirty read, which under
// READ_UNCOMMITTED stays a statistic. A transactional store reads its committed state, which under
// exactly-once holds only writes whose transaction committed before its postCommit; the level
// changes nothing on a store that is not transactional (enable.transactional.statestores off, an
// LRU store) nor for a KeyQuery the caching layer answers (delta 8): those are classified
// (violation_class.cc), never passed over here.
std::optional<Violation> dirty_read_committed(const JudgeContext& context,
                                              const sim::QueryRecord& record,
                                              const sim::PartitionOutcome& outcome,
                                              const detail::WitnessResult& w) {
  if (!at_least(context.trace().kafka_pin, KafkaPin::k2026_08_20) ||
      detail::effective_level(context, record.request) != IsolationLevel::READ_COMMITTED ||
      !transactional(context.trace())) {
    return std::nullopt;
  }
  const detail::UncommittedReflected u = detail::uncommitted_reflected(context, record, outcome, w);
  if (u.records.empty() && !u.unsent) return std::nullopt;
  std::string summary = "a READ_COMMITTED answer reflects uncommitted writes:";
  if (!u.records.empty()) {
    const sim::ChangelogRecord& r = *u.records.front();
    summary += fmt::format(
        " {} changelog record(s) of transactions not committed at the answer (the first "
        "changelog-{} offset {} by {}, later {})",
        u.records.size(), r.partition, r.offset, r.writer, sim::to_string(r.txn));
  }
  if (u.unsent)
    summary += u.records.empty() ? " a cache write not sent yet" : ", and a cache write";
  Violation v =
      detail::record_violation(context, kChangelogWitnessName, record, &outcome, std::move(summary),
                               "the replica's committed state: no write of an "
                               "undecided transaction",
                               detail::outcome_string(outcome));
  v.read_committed_dirty = true;
  return v;
}

}  // namespace

std::vector<Violation> check_changelog_witness(const JudgeContext& context) {
  std::vector<Violation> out;
  detail::Tally tally(context, kChangelogWitnessName);
  // The witness's own first answer for every result of such a trace, without a WitnessResult
  // (and its reason's copy) per result.
  const char* whole_trace = detail::trace_not_witnessed(context.trace());
  for (const sim::QueryRecord& record : context.trace().history.records()) {
    if (record.outcome != sim::OutcomeKind::kAnswered ||
        !context.judged_by(record, kChangelogWitnessName)) {
      continue;
    }
    for (const sim::PartitionOutcome& outcome : record.partitions) {
      if (!outcome.success) continue;
      if (whole_trace != nullptr) {
        tally.not_judged(whole_trace);
        continue;
      }
      const detail::WitnessResult w = detail::changelog_witness(context, record, outcome);
      context.changelog_index().verdicts.emplace(
          &outcome, ChangelogIndex::Verdict{w.verdict, w.replica, w.applied_offset});
      switch (w.verdict) {
        case detail::Witness::kNotJudged:
          tally.not_judged(w.why);
          break;
        case detail::Witness::kHolds:
          tally.judged();
          if (!w.position_not_judged.empty()) tally.not_judged(w.position_not_judged);
          if (auto dirty = dirty_read_committed(context, record, outcome, w)) {
            out.push_back(std::move(*dirty));
          }
          break;
        case detail::Witness::kDiffers:
          tally.judged();
          out.push_back(detail::record_violation(context, kChangelogWitnessName, record, &outcome,
                                                 w.why, w.expected,
                                                 detail::outcome_string(outcome)));
          break;
      }
    }
  }
  for (Violation& v : unexplained_changelog_records(context)) out.push_back(std::move(v));
  return out;
}

}  // namespace iq::properties
