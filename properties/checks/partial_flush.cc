// The proof that a ResultMatchesModel violation is a replica that stopped inside one record-cache
// flush of the changelog (ViolationClass::kCacheFlushPartlyApplied; scenarios/findings/
// cache_flush_partly_applied_overclaims.toml and cache_flush_cut_by_crash_overclaims.toml).
//
// Kafka's behaviour (streams/src/main/java/org/apache/kafka/streams/state/internals/):
// NamedCache keeps one dirty entry per key and moves a key to the end of its dirty set on every
// write, so a flush (at commit, or when an eviction flushes the namespace, the evicted entry
// first) writes each key once, under the record context of its LAST write, in last-write order.
// CachingKeyValueStore.putAndMaybeForward writes each entry down under that context, the inner
// store's position keeps the largest offset it saw, and ChangeLoggingKeyValueBytesStore.log sends
// wrapped().getPosition() as the position header. So inside a flush the header of a record
// already covers the writes whose keys come later in the flush (or were coalesced into a later
// write of the same key). A standby, warmup or restoring active applies the changelog record by
// record (ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition) and answers between
// two records of one flush: a key it has not reached yet is missing or older beneath a position
// that covers its write. The records of one flush are sent within one event of the writer
// (RecordCollectorImpl.send through the producer, in order per partition); when the writer dies
// inside the flush (kill -9 with records not yet sent), the log keeps only a prefix of it, and a
// replica that applied that prefix stays inside the flush until the next owner writes again.
//
// The proof, for one successful answer on one partition, with the consistency switch on:
// 1. ChangelogWitness holds for it, value and position: the answer is the fold of the changelog
//    prefix [.., A] its replica had applied, its position P is the headers' fold, and, for a key
//    answer, the replica has no unlogged writes (a running active never stops inside its own
//    flush; a range answer does not read the cache, so an active that restored into a flush cut
//    by its earlier life's crash and has cached writes of its own since still answers from it);
// 2. record A belongs to a flush that goes on after it: the flush group G is the run of
//    consecutive records around A written by A's writer W at A's append time T (one event, so one
//    flush, or flushes of one event, which end consistent), and either G holds records after A,
//    or W crashed at T inside a send to this changelog partition (the trace's fault record says
//    where the crash landed), so the rest of G never reached the log;
// 3. every key on which the answer differs from the model at P (an LRU store may lack a key the
//    model holds) is one the flush had still to write: either a record of G after A writes it,
//    carrying the model's value (and timestamp) at that record's own header offset h >= P (the
//    flush was right; it was only not applied yet), or G was cut by W's crash and the key was
//    written in the source after the offsets the log covered before G (header of the record
//    before G) and appended by T, so it was dirty in W's cache when W died;
// 4. the answer's keys come in the request's order (ANY runs ascending).
// Anything else stays a failure, and the returned text says which condition failed. A window or
// session store's flush is proven slot by slot instead (prove_window_flush_cut_by_crash in
// window_judge.cc): its cut form only, since a replica inside a flush that goes on in the log is
// kReplicaInsideOneRecordsWrites there.
//
// Limits: the records a crash cut off are not in the trace, so for a cut flush condition 3 can
// only say the key was dirty, not which value the lost record held. A group of one writer's
// records appended in one millisecond may hold more than one flush (an eviction's, then a
// commit's); each ends consistent, so the group's end is as good a bound as a flush's. The order
// inside a flush is not checked (an eviction flush writes the evicted entry first, so headers may
// plateau): a flush in another order than Kafka's would be classified alike; impl/'s order is
// pinned by NamedCacheTest.DirtyEvictionFlushesEvictedFirstThenAllDirtyInLastWriteOrder
// (impl/state/thread_cache_test.cc).

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/check_util.h"
#include "model/expected_answer.h"
#include "model/key_bytes.h"

namespace iq::properties::detail {
namespace {

// The changelog records of one partition, in offset order (the trace is partition-major).
std::pair<size_t, size_t> partition_span(const sim::RunTrace& trace, int32_t partition) {
  const auto& log = trace.changelog;
  const auto lo =
      std::lower_bound(log.begin(), log.end(), partition,
                       [](const sim::ChangelogRecord& r, int32_t p) { return r.partition < p; });
  const auto hi =
      std::upper_bound(lo, log.end(), partition,
                       [](int32_t p, const sim::ChangelogRecord& r) { return p < r.partition; });
  return {static_cast<size_t>(lo - log.begin()), static_cast<size_t>(hi - log.begin())};
}

// A source write of `key` in `partition` at an offset above `after`, appended by at_ms.
bool written_after(const JudgeContext& context, int32_t partition, int32_t key, int64_t after,
                   base::Instant at_ms) {
  const auto& log = context.trace().source_log;
  for (int64_t offset : context.key_write_offsets(partition, key)) {
    if (offset <= after) continue;
    // key_write_offsets holds the source log's offsets as longs (they index Position numbers).
    const SourceOffset source_offset(offset);
    const auto it =
        std::lower_bound(log.begin(), log.end(), std::pair(partition, source_offset),
                         [](const sim::SourceLogRecord& r, std::pair<int32_t, SourceOffset> k) {
                           return std::pair(r.partition, r.offset) < k;
                         });
    if (it != log.end() && it->partition == partition && it->offset == source_offset &&
        it->appended_ms <= at_ms) {
      return true;
    }
  }
  return false;
}

// Whether a record of log[first..last] writes `key`.
bool logged_in(const std::vector<sim::ChangelogRecord>& log, size_t first, size_t last,
               int32_t key) {
  for (size_t i = first; i <= last; ++i) {
    if (log[i].key == key) return true;
  }
  return false;
}

}  // namespace

// The answer by key, or why its shape is not one the request gives.
std::variant<std::map<int32_t, GotEntry>, std::string> answer_by_key(
    const sim::QueryRequestRecord& q, const sim::PartitionOutcome& outcome) {
  std::map<int32_t, GotEntry> out;
  const bool timestamped = is_timestamped_kind(q.kind);
  if (is_key_kind(q.kind)) {
    const auto* got = std::get_if<std::optional<int64_t>>(&outcome.value);
    if (got == nullptr) return std::string("a key query answered with another shape");
    if (!got->has_value()) return out;
    if (outcome.timestamps.size() != (timestamped ? 1u : 0u)) {
      return std::string("one timestamp per entry");
    }
    out[*q.key] = GotEntry{**got, timestamped ? outcome.timestamps[0] : 0};
    return out;
  }
  const auto* got = std::get_if<sim::KeyValueList>(&outcome.value);
  if (got == nullptr) return std::string("a range query answered with another shape");
  if (outcome.timestamps.size() != (timestamped ? got->size() : 0)) {
    return std::string("one timestamp per entry");
  }
  for (size_t i = 0; i < got->size(); ++i) {
    const int32_t key = (*got)[i].first;
    if (i > 0) {
      const int c = model::compare_key_bytes(model::serialize_int32_key((*got)[i - 1].first),
                                             model::serialize_int32_key(key));
      const bool in_order = q.order == ResultOrder::DESCENDING ? c > 0 : c < 0;
      if (!in_order) return fmt::format("keys in the order {} asks for", to_string(q.order));
    }
    out[key] = GotEntry{(*got)[i].second, timestamped ? outcome.timestamps[i] : 0};
  }
  return out;
}

// The keys the answer is compared on: the key of a key query; for a range, every key written in
// the partition within its bounds, and every key the answer holds.
std::vector<int32_t> compared_keys(const JudgeContext& context, const sim::QueryRequestRecord& q,
                                   int32_t partition, const std::map<int32_t, GotEntry>& answer) {
  if (is_key_kind(q.kind)) return {*q.key};
  std::vector<int32_t> keys;
  const auto lower = q.lower ? std::optional(model::serialize_int32_key(*q.lower)) : std::nullopt;
  const auto upper = q.upper ? std::optional(model::serialize_int32_key(*q.upper)) : std::nullopt;
  for (int32_t key : context.keys_written(partition)) {
    const model::KeyBytes bytes = model::serialize_int32_key(key);
    if (lower && model::compare_key_bytes(bytes, *lower) < 0) continue;
    if (upper && model::compare_key_bytes(bytes, *upper) > 0) continue;
    keys.push_back(key);
  }
  for (const auto& [key, got] : answer) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::optional<model::ExpectedValue> model_at(const JudgeContext& context, int32_t partition,
                                             int32_t key, int64_t offset) {
  return model::expected_key_query(context.store(), partition, model::serialize_int32_key(key),
                                   offset, model::TimestampMode::kReal);
}

// Whether the answer's entry for `key` (absent: nullptr) is the model's at `offset`.
bool key_matches(const JudgeContext& context, const sim::QueryRequestRecord& q, int32_t partition,
                 int32_t key, const GotEntry* got, int64_t offset, bool lru_evicted) {
  const auto want = model_at(context, partition, key, offset);
  if (!got) return !want || lru_evicted;
  if (!want || got->value != want->value) return false;
  return !is_timestamped_kind(q.kind) ||
         timestamp_ok(context, q.kind, got->timestamp_ms, *want->timestamp_ms);
}

namespace {

// Whether a changelog record carries the model's state of its key at offset `h`.
bool record_is_model(const JudgeContext& context, const sim::ChangelogRecord& r, int64_t h) {
  const auto want = model_at(context, r.partition, r.key, h);
  if (!r.value) {
    // A tombstone: the key is gone at h, or an LRU store evicted it (and logged the eviction).
    return !want || lru_may_have_evicted(context, r.partition, h);
  }
  return want && *r.value == want->value && r.timestamp_ms == *want->timestamp_ms;
}

}  // namespace

// Whether `writer` crashed at `at_ms` with the crash landing inside a send to changelog partition
// `partition` of the topology's store (the fault record's landing: a send, its topic
// "<application>-<store>-changelog", its partition).
bool crashed_inside_send(const JudgeContext& context, const std::string& writer,
                         base::Instant at_ms, int32_t partition) {
  const std::string suffix = "-" + context.trace().topology.store_name + "-changelog";
  for (const sim::FaultRecord& f : context.trace().faults) {
    if (f.at_ms != at_ms || f.instance != writer || !f.is(sim::FaultKind::kCrashLanded) ||
        !f.landed)
      continue;
    const sim::CrashPointRecord& l = *f.landed;
    if (l.event != "send" || l.partition != partition) continue;
    if (l.topic.size() > suffix.size() &&
        l.topic.compare(l.topic.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return true;
    }
  }
  return false;
}

bool died_inside_cache_flush(const sim::RunTrace& trace, int32_t partition,
                             const sim::ChangelogRecord& first, const sim::ChangelogRecord& last) {
  using Kind = sim::StoreLifeEvent::Kind;
  for (const sim::StoreLife& life : trace.store_lives) {
    if (life.instance != last.writer || life.partition != partition ||
        life.store != trace.topology.store_name || life.end != sim::StoreLifeEnd::kProcessDied) {
      continue;
    }
    // Event indices; -1: none.
    int64_t begin = -1, wrote_first = -1, wrote_last = -1, last_write = -1;
    for (size_t i = 0; i < life.events.size(); ++i) {
      const sim::StoreLifeEvent& e = life.events[i];
      const auto at = static_cast<int64_t>(i);
      if (e.kind == Kind::kCacheFlushBegin) begin = at;
      if (e.kind == Kind::kCacheFlushEnd) begin = -1;
      if (e.kind != Kind::kWrote) continue;
      last_write = at;
      if (e.first <= first.offset && first.offset <= e.last) wrote_first = at;
      if (e.first <= last.offset && last.offset <= e.last) wrote_last = at;
    }
    if (wrote_last == -1) continue;  // another life of the writer
    return begin != -1 && wrote_first != -1 && begin < wrote_first && wrote_last == last_write &&
           life.events[static_cast<size_t>(wrote_last)].last == last.offset;
  }
  return false;
}

ClassProof prove_partial_flush(const JudgeContext& context, const sim::QueryRecord& record,
                               const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  const auto fail = [&](std::string why) {
    proof.text = fmt::format("record #{} is not inside a cached flush: {}", record.id, why);
    return proof;
  };
  const sim::RunTrace& trace = context.trace();
  if (trace.topology.windowed() || trace.topology.session()) {
    return prove_window_flush_cut_by_crash(context, record, outcome);
  }
  if (!trace.topology.caching) return fail("the store has no record cache");
  if (!trace.consistency_offset_vector_enabled || !outcome.position) {
    return fail("no position headers (consistency switch off)");
  }
  const WitnessResult w = changelog_witness(context, record, outcome);
  if (w.verdict != Witness::kHolds || !w.position_not_judged.empty()) {
    return fail(w.verdict == Witness::kDiffers
                    ? "the answer is not the changelog fold"
                    : "the changelog witness cannot judge it (" +
                          (w.why.empty() ? w.position_not_judged : w.why) + ")");
  }
  // An active's own cached writes enter key answers only: Kafka's caching store answers range
  // queries from the store below it (the witness folds them the same way).
  if (is_key_kind(record.request.kind) && !w.replica->unlogged_writes.empty()) {
    return fail("its replica holds unlogged writes, which a key answer reads");
  }
  const int32_t p = outcome.partition;
  const auto [begin, end] = partition_span(trace, p);
  const auto& log = trace.changelog;
  // Record A: the last one the replica applied (offsets of one partition are dense unless
  // compacted, which the witness refuses).
  const size_t a = static_cast<size_t>(
      std::lower_bound(
          log.begin() + static_cast<std::ptrdiff_t>(begin),
          log.begin() + static_cast<std::ptrdiff_t>(end), w.applied_offset,
          [](const sim::ChangelogRecord& r, ChangelogOffset o) { return r.offset < o; }) -
      log.begin());
  if (a == end || log[a].offset != w.applied_offset) return fail("no record at the applied offset");
  const std::string& writer = log[a].writer;
  const base::Instant t = log[a].appended_ms;
  const auto same_flush = [&](size_t i) {
    return i >= begin && i < end && log[i].writer == writer && log[i].appended_ms == t;
  };
  size_t first = a;
  while (first > begin && same_flush(first - 1)) --first;
  size_t last = a;
  while (same_flush(last + 1)) ++last;
  const bool cut = crashed_inside_send(context, writer, t, p) ||
                   (last == a && died_inside_cache_flush(trace, p, log[first], log[a]));
  if (last == a && !cut) {
    return fail(fmt::format("changelog-{} offset {} ends its flush (by {} at {} ms)", p,
                            w.applied_offset, writer, t));
  }
  const int64_t position = reported_offset(context, *outcome.position, p);
  const int64_t before_flush = first > begin ? header_of(context, log[first - 1]) : -1;
  const auto answer = answer_by_key(record.request, outcome);
  if (const auto* why = std::get_if<std::string>(&answer)) return fail("the answer lacks " + *why);
  const auto& got = std::get<std::map<int32_t, GotEntry>>(answer);
  const bool lru = lru_may_have_evicted(context, p, position);
  std::vector<std::string> later;
  for (int32_t key : compared_keys(context, record.request, p, got)) {
    const auto it = got.find(key);
    const GotEntry* entry = it == got.end() ? nullptr : &it->second;
    if (key_matches(context, record.request, p, key, entry, position, lru)) continue;
    std::optional<size_t> rest;
    for (size_t i = a + 1; i <= last; ++i) {
      if (log[i].key == key) rest = i;
    }
    if (rest) {
      const int64_t h = header_of(context, log[*rest]);
      if (h < position || !record_is_model(context, log[*rest], h)) {
        return fail(
            fmt::format("key {} is logged later in the flush (changelog-{} offset {}) "
                        "but not with the model's state at its header offset {}",
                        key, p, log[*rest].offset, h));
      }
      later.push_back(fmt::format("{} at changelog-{} offset {}", key, p, log[*rest].offset));
    } else if (cut && !logged_in(log, first, a, key) &&
               written_after(context, p, key, before_flush, t)) {
      later.push_back(fmt::format("{} (dirty: written after offset {})", key, before_flush));
    } else {
      return fail(
          fmt::format("key {} differs from the model at offset {} and the rest of the "
                      "flush does not write it",
                      key, position));
    }
  }
  if (later.empty()) return fail("it differs from the model on no key");
  proof.proven = true;
  std::string keys;
  for (const std::string& k : later) keys += (keys.empty() ? "" : ", ") + k;
  proof.text = fmt::format(
      "record #{} is the changelog fold of {}'s {} (changelog-{} [.., {}], position {}), inside "
      "the flush {} wrote at {} ms (changelog-{} offsets {}-{}{}); the keys it lacks come later in "
      "that flush: {}",
      record.id, w.replica->instance, sim::to_string(w.replica->role), p, w.applied_offset,
      position, writer, t, p, log[first].offset, log[last].offset,
      cut ? fmt::format(", then {} crashed inside it", writer) : "", keys);
  return proof;
}

}  // namespace iq::properties::detail
