// Judging window and session answers against the model (issue 12): WindowKeyQuery and
// WindowRangeQuery over the stores of WindowedCount, WindowedSum, WindowPapiWriter (window stores)
// and SessionCount, SessionSum, SessionPapiWriter (session stores), compared with
// model::WindowHistory and model::SessionHistory (built by JudgeContext from the source log).
//
// What is compared, entry by entry and in the store's order:
// - WindowKeyQuery (WindowStore.fetch(key, from, to)): window start and value; Kafka gives no
//   window end there, and the entry's key is the queried one;
// - WindowRangeQuery.withWindowStartRange (fetchAll(from, to)) on a window store: key, window
//   start, end (start + size) and value;
// - WindowRangeQuery.withKey (SessionStore.fetch(key)) on a session store: key, session start and
//   end (both inclusive) and value;
// - timestamps: a timestamped window store (the timestamped builder over an in-memory or a
//   timestamped RocksDB supplier) answers ValueAndTimestamp, the aggregate's timestamp (the
//   largest record timestamp in it); the adapter over a plain RocksDB window supplier answers
//   plain values (quirk 24), and so do the plain builder and every session store: no timestamps.
// - the position (result_matches_model.cc): a window or session store's position moves only on a
//   put that reaches it (not on a record whose every window closed beyond grace, nor, segmented,
//   on a put into an expired segment), so the reported offset must be one whose record moved it.
//
// What cannot be known from the source log alone, and is therefore not judged when (and only
// when) the answer differs from the model (counted in the tally with the reason):
// - the processor's observed stream time is per incarnation (KStreamWindowAggregate and
//   KStreamSessionWindowAggregate keep it in a field that starts at -1 on every init), and the
//   trace does not say where a task was initialized again; a restarted processor has a lower
//   stream time and so drops fewer late records. The model's single incarnation drops a superset
//   of them, so only an answer touching a key with a record the model dropped beyond grace (or
//   a window range over a partition with one) can depend on it;
// - a segmented store does not persist its observed stream time (AbstractRocksDBSegmentedBytes
//   Store starts at -1 when reopened), so windows the retention floor hides in the model but
//   whose segment is live may show again (model `uncertain`).

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <vector>

#include "checks/check.h"
#include "checks/check_util.h"
#include "model/key_bytes.h"
#include "model/session_history.h"
#include "model/window_history.h"

namespace iq::properties::detail {
namespace {

// What a window or session answer should hold, with whether it depends on unpersisted stream time.
struct WindowWant {
  sim::WindowedList entries;
  std::vector<int64_t> timestamps;  // empty unless the store answers ValueAndTimestamp
  bool uncertain = false;
  // A window store retaining duplicates orders one window's duplicates by their sequence number,
  // which a new store object starts again at 0 (RocksDBWindowStore.seqnum, a field; finding
  // window_duplicates_seqnum_resets_on_reopen): after a restart, a restore or a move to another
  // instance, the new duplicates sort before the restored ones. The trace does not say where each
  // store object began, so the order inside one (key, window) is not compared, its content is.
  bool duplicates_unordered = false;
};

// Whether the store's IQv2 answers carry ValueAndTimestamp (see the header).
bool answers_timestamps(const TopologyConfig& t) {
  return t.windowed() && t.supplier != KeyValueSupplier::kRocksDb;
}

// The answer of `window` or `session` (one of them set) to `request` after offset.
WindowWant want_of(const TopologyConfig& topology, const model::WindowHistory* window,
                   const model::SessionHistory* session, const sim::QueryRequestRecord& request,
                   int32_t partition, int64_t offset) {
  WindowWant want;
  want.duplicates_unordered =
      topology.kind == TopologyKind::WindowPapiWriter && topology.retain_duplicates;
  const bool timestamps = answers_timestamps(topology);
  if (const model::WindowHistory* w = window) {
    model::WindowAnswer answer;
    const bool key_query = request.kind == QueryKind::WindowKeyQuery;
    IQ_ASSERT(request.from_time_ms && request.to_time_ms, "{}", request.to_string());
    if (key_query) {
      answer = w->fetch(partition, model::serialize_int32_key(*request.key), *request.from_time_ms,
                        *request.to_time_ms, offset);
    } else {
      answer = w->fetch_all(partition, *request.from_time_ms, *request.to_time_ms, offset);
    }
    want.uncertain = answer.uncertain;
    for (const model::WindowEntry& e : answer.entries) {
      want.entries.push_back(sim::WindowedValue{
          key_query ? *request.key : model::deserialize_int32_key(e.key), e.window_start_ms,
          key_query ? std::nullopt : std::optional(e.window_end_ms), e.value});
      if (timestamps) want.timestamps.push_back(e.timestamp_ms);
    }
    return want;
  }
  const model::SessionHistory* s = session;
  IQ_ASSERT(s != nullptr && request.key, "{}", request.to_string());
  const model::SessionAnswer answer =
      s->fetch(partition, model::serialize_int32_key(*request.key), offset);
  want.uncertain = answer.uncertain;
  for (const model::SessionEntry& e : answer.entries) {
    want.entries.push_back(
        sim::WindowedValue{model::deserialize_int32_key(e.key), e.start_ms, e.end_ms, e.value});
  }
  return want;
}

WindowWant window_want(const JudgeContext& context, const sim::QueryRequestRecord& request,
                       int32_t partition, int64_t offset) {
  return want_of(context.trace().topology, context.window_history(), context.session_history(),
                 request, partition, offset);
}

// `entries` (with their timestamps, when given) with each run of one (key, window start) sorted by
// value and timestamp: the order WindowWant::duplicates_unordered leaves open, fixed.
std::vector<std::pair<sim::WindowedValue, int64_t>> duplicates_sorted(
    const sim::WindowedList& entries, const std::vector<int64_t>& timestamps) {
  std::vector<std::pair<sim::WindowedValue, int64_t>> out;
  for (size_t i = 0; i < entries.size(); ++i) {
    out.emplace_back(entries[i], timestamps.size() == entries.size() ? timestamps[i] : 0);
  }
  const auto same_window = [](const sim::WindowedValue& a, const sim::WindowedValue& b) {
    return a.key == b.key && a.start_ms == b.start_ms && a.end_ms == b.end_ms;
  };
  for (size_t begin = 0; begin < out.size();) {
    size_t end = begin + 1;
    while (end < out.size() && same_window(out[begin].first, out[end].first)) ++end;
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(begin),
              out.begin() + static_cast<std::ptrdiff_t>(end), [](const auto& a, const auto& b) {
                return std::pair(a.first.value, a.second) < std::pair(b.first.value, b.second);
              });
    begin = end;
  }
  return out;
}

bool outcome_is(const sim::PartitionOutcome& outcome, const WindowWant& want) {
  const auto* got = std::get_if<sim::WindowedList>(&outcome.value);
  if (got == nullptr || outcome.timestamps.size() != want.timestamps.size()) return false;
  if (*got == want.entries && outcome.timestamps == want.timestamps) return true;
  return want.duplicates_unordered && got->size() == want.entries.size() &&
         duplicates_sorted(*got, outcome.timestamps) ==
             duplicates_sorted(want.entries, want.timestamps);
}

std::string want_text(const WindowWant& want) {
  std::string text = "[";
  for (size_t i = 0; i < want.entries.size(); ++i) {
    if (i > 0) text += ", ";
    text += sim::to_string(want.entries[i]);
    if (!want.timestamps.empty()) text += " ts=" + std::to_string(want.timestamps[i]);
  }
  return text + "]";
}

// Whether the model dropped a record beyond grace in [0, offset] of `partition`, of `key` when
// given (a window range reads every key).
bool grace_dropped_up_to(const JudgeContext& context, int32_t partition, std::optional<int32_t> key,
                         int64_t offset) {
  for (const sim::SourceLogRecord& r : context.trace().source_log) {
    if (r.partition != partition || r.offset.value() > offset) continue;
    if (key && r.key != *key) continue;
    const int64_t o = r.offset.value();
    const bool dropped = context.window_history() != nullptr
                             ? context.window_history()->grace_dropped_at(partition, o)
                             : context.session_history()->grace_dropped_at(partition, o);
    if (dropped) return true;
  }
  return false;
}

}  // namespace

bool is_window_kind(QueryKind kind) {
  return kind == QueryKind::WindowKeyQuery || kind == QueryKind::WindowRangeQuery;
}

std::optional<std::string> window_not_answerable(const JudgeContext& context,
                                                 const sim::QueryRequestRecord& request) {
  IQ_ASSERT(context.window_history() != nullptr || context.session_history() != nullptr, "{}",
            request.to_string());
  if (!is_window_kind(request.kind)) {
    return std::string("a query kind a window or session store does not answer: ") +
           to_string(request.kind);
  }
  // Kafka answers only these forms successfully (a session store takes WindowRangeQuery.withKey,
  // a window store WindowKeyQuery and withWindowStartRange); others fail before any data.
  if (context.window_history() != nullptr) {
    if (!request.from_time_ms || !request.to_time_ms)
      return "a window query without its time range";
    if (request.kind == QueryKind::WindowKeyQuery && !request.key) {
      return "a key query without a recorded key";
    }
    return std::nullopt;
  }
  if (request.kind != QueryKind::WindowRangeQuery || !request.key || request.from_time_ms) {
    return "a session query other than WindowRangeQuery.withKey";
  }
  return std::nullopt;
}

std::optional<std::string> window_differs(const JudgeContext& context,
                                          const sim::QueryRequestRecord& request,
                                          const sim::PartitionOutcome& outcome, int64_t offset) {
  const WindowWant want = window_want(context, request, outcome.partition, offset);
  if (outcome_is(outcome, want)) return std::nullopt;
  return want_text(want);
}

std::optional<std::string> window_not_judged(const JudgeContext& context,
                                             const sim::QueryRecord& record, int32_t partition,
                                             int64_t offset) {
  const sim::QueryRequestRecord& request = record.request;
  if (context.window_history() == nullptr && context.session_history() == nullptr) {
    return std::nullopt;
  }
  if (!is_window_kind(request.kind)) return std::nullopt;
  // A window range reads every key; a key query (and a session fetch) only its key.
  const std::optional<int32_t> key =
      request.kind == QueryKind::WindowRangeQuery && context.window_history() != nullptr
          ? std::nullopt
          : request.key;
  if (grace_dropped_up_to(context, partition, key, offset)) {
    return std::string(
        "window: a record it reads came beyond grace in the model (the processor's observed "
        "stream time restarts with its task)");
  }
  // Only a store object reopened over kept data has a stream time other than the model's.
  if (window_want(context, request, partition, offset).uncertain &&
      served_over_kept_data(context, record, partition)) {
    return std::string(
        "window: a window the retention floor hides sits in a live segment, and the store object "
        "opened over kept data (its observed stream time is not persisted)");
  }
  // The model's record cache never evicts; Kafka's does, and an evicted session falls under the
  // store's retention floor, so a merge with a session only the cache showed is the cache's luck.
  if (const model::SessionHistory* s = context.session_history();
      s != nullptr && key &&
      s->cache_only_merge_up_to(partition, model::serialize_int32_key(*key), offset)) {
    return std::string(
        "session: a record of the key merged a session only the record cache still showed (the "
        "store's retention had hidden it; whether Kafka's cache still held it depends on its "
        "evictions, which the model does not know)");
  }
  return std::nullopt;
}

std::optional<std::string> window_position_implausible(const JudgeContext& context,
                                                       const Position& position, int32_t partition,
                                                       int64_t offset) {
  const std::string& topic = context.trace().topology.source_topic;
  const std::optional<int64_t> moved =
      context.window_history() != nullptr
          ? context.window_history()->position_offset(partition, offset)
          : context.session_history()->position_offset(partition, offset);
  Position want = Position::empty_position();
  if (moved) want.with_component(topic, partition, SourceOffset(*moved));
  if (want.map() == position.map()) return std::nullopt;
  return want.to_string() + " (the last record at or before offset " + std::to_string(offset) +
         " that reached the store)";
}

std::optional<std::string> window_position_not_judged(const JudgeContext& context,
                                                      int32_t partition, int64_t offset) {
  if (offset < 0) return std::nullopt;
  const std::optional<int64_t> moved =
      context.window_history() != nullptr
          ? context.window_history()->position_offset(partition, offset)
          : context.session_history()->position_offset(partition, offset);
  if (moved == offset) return std::nullopt;  // implausible for another reason than the record
  const bool grace_dropped = context.window_history() != nullptr
                                 ? context.window_history()->grace_dropped_at(partition, offset)
                                 : context.session_history()->grace_dropped_at(partition, offset);
  // A restarted processor (lower stream time) may have taken the record the model dropped.
  if (grace_dropped) {
    return std::string(
        "window: the reported offset's record came beyond grace in the model (the processor's "
        "observed stream time restarts with its task)");
  }
  // A reopened segmented store (stream time from -1) may have taken a put the model's store
  // dropped into an expired segment; an in-memory store moves its position on every put.
  if (context.trace().topology.supplier != KeyValueSupplier::kInMemory &&
      source_record(context.trace(), partition, offset) != nullptr) {
    return std::string(
        "window: the reported offset's put went to an expired segment in the model (a segmented "
        "store's observed stream time is not persisted)");
  }
  return std::nullopt;
}

// ---- ChangelogWitness for window and session stores ----
//
// A window or session store is the fold of its changelog as the store itself would take it: each
// record is a put of its windowed key ([key][start][seqnum], or a session's [key][end][start]),
// a tombstone a delete (a session's remove), through the store's retention: an in-memory store
// drops a put whose window the floor already hides, a segmented store one into an expired segment
// and drops whole segments as its observed stream time rises, and reads hide what lies beneath
// stream time - retention. The change-logging layer logs every put the processor makes,
// dropped or not (ChangeLoggingWindowBytesStore.put, ChangeLoggingSessionBytesStore.put), and a
// restore replays the records through the same put, so folding the records the replica applied
// through a fresh store model (the model's store-level put, not the processor) gives what it
// holds. With duplicates a RocksDB store's restore is not that put: it writes each record's key
// as the log holds it ([key][start][seqnum], the writer's change-logging counter, a null deleting
// exactly that key, and a null put, which the live store skipped, raising the stream time: quirk
// 26), while the store's own puts number duplicates with its RocksDBWindowStore's
// counter from 0, so the fold restores the records the replica did not write itself
// (`written_by_store`) under their logged sequence numbers (ChangelogRecord::window_seqnum). A
// segmented store reopened from a .checkpoint (ReplicaSnapshot::restored_from) kept the records up
// to it on disk and restarted its stream time from -1 (not persisted): the fold reopens there. The
// caching window and session layers answer IQv2 from the store below (CachingWindowStore.query and
// CachingSessionStore.query pass the query down), so the record cache's unlogged writes do not
// count. The position, with the switch on, is the highest header component of the applied records
// (the inner store's position after each logged put).
//
// Not judged (counted): a difference where the fold hides a window in a live segment (a
// segmented store's stream time depends on where its store object was opened), one with
// duplicates on a RocksDB store whose older runs of own writes were not kept, and one on a
// persistent store whose instance crashed, restarted or closed, or was paused or cut off before
// (reopened_before: the store may hold an earlier life's records beneath its restore; a member
// out of the group closes its tasks dirty, without a .checkpoint, and reopens their stores over
// what it had written when they come back).
namespace {

// The fold of changelog-`partition` [.., applied] as `replica`'s store holds it at `at_ms` (the
// records it applied, through a fresh store model's put and retention), with the highest header
// component among them.
struct WindowFold {
  WindowWant answer;
  SourceOffset header{-1};
  bool foreign_header = false;
  // Folds the position header of a record of changelog-`partition` in: its component for (the
  // source topic, partition) raises `header`; a component of another names a foreign header.
  void fold_header(const std::string& topic, int32_t partition, const std::optional<Position>& h) {
    if (!h) return;
    for (const auto& [t, offsets] : h->map()) {
      for (const auto& [p, component] : offsets) {
        if (t != topic || p != partition) {
          foreign_header = true;
        } else {
          header = std::max(header, SourceOffset(component));
        }
      }
    }
  }
};

}  // namespace
}  // namespace iq::properties::detail

namespace iq::properties {

// ---- The folds' models, kept for the next answer (issue 14) ----
//
// A fold is a fresh store model (the topology's window or session spec with store puts only,
// records_max the changelog's size) given a sequence of calls, then queried. window_fold writes
// that sequence down first, as a list of FoldOps, each naming one call exactly: a put or a
// restore_put of one changelog record (its fields are the call's arguments, its partition the
// fold's) or a reopen of the store at one record's offset. The model has no state but what its
// constructor and those calls give it, and its queries are const, so:
// - two folds with equal lists (and partitions) hold equal models: the list is the key, whole,
//   not a summary of the inputs that chose it. Everything else window_fold reads (the replica's
//   instance, its runs of own writes and whether older ones were dropped, restored_from, the
//   applied offset, at_ms through applied_by's read_committed_holds, live_null_puts) only decides
//   which calls the list holds and of what kind, and is read again for every fold; the header,
//   the foreign-header flag and the restored null puts are counted in that same pass, never kept;
// - a model given a prefix of a list, then the rest of its calls, is the model of the whole list
//   (a replica's next answer usually applied the same records and a few more): the cache extends
//   the entry with the longest prefix in place instead of starting again.
// Folds with an overlay (an active's dirty writes) or with records a compacted read skipped are
// searched over, not repeated, and are built fresh, outside the cache, from the same list.
// Entries are bounded in number and in the calls they hold (a multiple of the changelog's size,
// so memory stays a small multiple of one fold's), the least recently used evicted first. The
// cache also keeps the window judge's indexes of the trace: the changelog by partition and the
// source log by partition and key.
struct WindowFoldCache {
  struct FoldOp {
    enum class Kind : uint8_t { kPut, kRestorePut, kReopen };
    const sim::ChangelogRecord* record;  // kReopen: the store reopens at its offset
    Kind kind;
    bool operator==(const FoldOp&) const = default;
  };
  struct Model {
    int32_t partition = -1;
    std::vector<FoldOp> ops;  // the calls it was given, in order
    std::optional<model::WindowHistory> window;
    std::optional<model::SessionHistory> session;
    uint64_t used = 0;  // the cache's clock when last returned
  };
  static constexpr size_t kModelsMax = 8;
  // Calls held over all entries, per changelog record, as a ratio (plus a floor for tiny
  // traces). Seed 77 of the default template, user time and peak RSS on one loaded machine: no
  // cache 3.2 s, 72 MB; 1: 2.8 s, 78 MB; 3/2: 2.6 s, 82 MB; 2: 2.4 s, 86 MB.
  static constexpr size_t kOpsPerRecordNum = 3;
  static constexpr size_t kOpsPerRecordDen = 2;
  static constexpr size_t kOpsFloor = 4'096;

  // Each changelog partition's records in the trace's order (offsets ascending), built once.
  std::map<int32_t, std::vector<const sim::ChangelogRecord*>> by_partition;
  // Each (partition, key)'s source records, offsets ascending, built on first use
  // (explained_below reads a key's records only).
  std::map<std::pair<int32_t, int32_t>, std::vector<const sim::SourceLogRecord*>> source_by_key;
  bool source_indexed = false;
  std::vector<std::unique_ptr<Model>> models;
  size_t ops_held = 0;
  uint64_t clock = 0;
  // How many folds took a model as it was, extended one, or built one (window_fold_counts).
  uint64_t hits = 0;
  uint64_t extended = 0;
  uint64_t built = 0;
};

namespace {

void delete_fold_cache(WindowFoldCache* cache) {
  delete cache;
}

}  // namespace

WindowFoldCache& JudgeContext::window_fold_cache() const {
  if (window_fold_cache_) return *window_fold_cache_;
  window_fold_cache_ = std::unique_ptr<WindowFoldCache, void (*)(WindowFoldCache*)>(
      new WindowFoldCache(), &delete_fold_cache);
  for (const sim::ChangelogRecord& r : trace_.changelog) {
    std::vector<const sim::ChangelogRecord*>& log = window_fold_cache_->by_partition[r.partition];
    IQ_ASSERT(log.empty() || log.back()->offset < r.offset,
              "seed {}: changelog-{} offset {} out of order", trace_.seed, r.partition, r.offset);
    log.push_back(&r);
  }
  return *window_fold_cache_;
}

}  // namespace iq::properties

namespace iq::properties::detail {
namespace {

using FoldOp = WindowFoldCache::FoldOp;

// A fresh store model for a fold of this topology (what every fold starts from).
void start_fold_model(const sim::RunTrace& trace, int64_t records_max,
                      std::optional<model::WindowHistory>& window,
                      std::optional<model::SessionHistory>& session) {
  const TopologyConfig& topology = trace.topology;
  if (topology.windowed()) {
    model::WindowSpec spec = window_spec_of(topology);
    spec.aggregation = model::WindowAggregation::kLatest;  // store puts only
    window.emplace(spec, records_max);
  } else {
    model::SessionSpec spec = session_spec_of(topology);
    spec.aggregation = model::SessionAggregation::kLatest;
    spec.processor_reads_cache = false;
    session.emplace(spec, records_max);
  }
}

// The calls `ops` name, in order, given to the model (one of window, session set).
void apply_fold_ops(int32_t partition, std::span<const FoldOp> ops, model::WindowHistory* window,
                    model::SessionHistory* session) {
  for (const FoldOp& op : ops) {
    const sim::ChangelogRecord& r = *op.record;
    const int64_t o = r.offset.value();
    if (op.kind == FoldOp::Kind::kReopen) {
      if (window) window->reopen_store(partition, o, -1);
      if (session) session->reopen_store(partition, o, -1);
      continue;
    }
    const model::KeyBytes key = model::serialize_int32_key(r.key);
    if (op.kind == FoldOp::Kind::kRestorePut) {
      window->restore_put(partition, o, key, r.value, r.timestamp_ms, *r.window_start_ms,
                          *r.window_seqnum);
    } else if (window) {
      window->put(partition, o, key, r.value, r.timestamp_ms, *r.window_start_ms);
    } else {
      session->put(partition, o, key, *r.window_start_ms, *r.window_end_ms, r.value);
    }
  }
}

// Whether `prefix` is a prefix of `ops` (the last call compared first: the usual mismatch).
bool ops_prefix(const std::vector<FoldOp>& prefix, const std::vector<FoldOp>& ops) {
  if (prefix.size() > ops.size()) return false;
  if (!prefix.empty() && !(prefix.back() == ops[prefix.size() - 1])) return false;
  return std::equal(prefix.begin(), prefix.end(), ops.begin());
}

// The cached model of `ops` on `partition`: one given exactly these calls, or the entry with the
// longest prefix of them given the rest, or a new one; then the least recently used others go
// while the bounds are exceeded. The reference holds until the next call.
const WindowFoldCache::Model& cached_fold_model(const JudgeContext& context, int32_t partition,
                                                std::vector<FoldOp> ops) {
  WindowFoldCache& cache = context.window_fold_cache();
  WindowFoldCache::Model* best = nullptr;
  for (const std::unique_ptr<WindowFoldCache::Model>& m : cache.models) {
    if (m->partition != partition || (best != nullptr && m->ops.size() <= best->ops.size())) {
      continue;
    }
    if (ops_prefix(m->ops, ops)) best = m.get();
  }
  if (best == nullptr) {
    auto m = std::make_unique<WindowFoldCache::Model>();
    m->partition = partition;
    const sim::RunTrace& trace = context.trace();
    start_fold_model(trace, std::max<int64_t>(1, static_cast<int64_t>(trace.changelog.size())),
                     m->window, m->session);
    best = m.get();
    cache.models.push_back(std::move(m));
    ++cache.built;
  } else if (best->ops.size() == ops.size()) {
    ++cache.hits;
  } else {
    ++cache.extended;
  }
  const size_t had = best->ops.size();
  apply_fold_ops(partition, std::span<const FoldOp>(ops).subspan(had),
                 best->window ? &*best->window : nullptr,
                 best->session ? &*best->session : nullptr);
  cache.ops_held += ops.size() - had;
  best->ops = std::move(ops);
  best->used = ++cache.clock;
  const size_t ops_max =
      std::max(WindowFoldCache::kOpsFloor, context.trace().changelog.size() *
                                               WindowFoldCache::kOpsPerRecordNum /
                                               WindowFoldCache::kOpsPerRecordDen);
  while (cache.models.size() > WindowFoldCache::kModelsMax ||
         (cache.models.size() > 1 && cache.ops_held > ops_max)) {
    auto lru = cache.models.end();
    for (auto it = cache.models.begin(); it != cache.models.end(); ++it) {
      if (it->get() != best && (lru == cache.models.end() || (*it)->used < (*lru)->used)) lru = it;
    }
    IQ_ASSERT(lru != cache.models.end(), "seed {}: no fold model to evict", context.trace().seed);
    cache.ops_held -= (*lru)->ops.size();
    cache.models.erase(lru);
  }
  return *best;
}

}  // namespace

WindowFoldCounts window_fold_counts(const JudgeContext& context) {
  const WindowFoldCache& cache = context.window_fold_cache();
  return WindowFoldCounts{cache.hits, cache.extended, cache.built};
}

namespace {

// `overlay`: writes laid over the fold after its last record, in order, through the same puts
// (an active's dirty cache entries, flushed in thought). A record the replica's store restored
// rather than wrote itself goes through the segmented store's restore (its key's own sequence
// number; a null put with duplicates raises the stream time, quirk 26), unless `live_null_puts`:
// then such a null is skipped as the live store skips it (what the model assumes, for
// prove_restored_null_puts). The calls go down as FoldOps first (see WindowFoldCache).
WindowFold window_fold(const JudgeContext& context, const sim::QueryRequestRecord& request,
                       int32_t partition, const sim::ReplicaSnapshot& replica,
                       ChangelogOffset applied, base::Instant at_ms,
                       const std::vector<const sim::UnloggedWrite*>& overlay = {},
                       bool live_null_puts = false, int64_t* restored_null_puts = nullptr,
                       const std::vector<ChangelogOffset>* skipped = nullptr) {
  const sim::RunTrace& trace = context.trace();
  const TopologyConfig& topology = trace.topology;
  const bool segmented = topology.supplier != KeyValueSupplier::kInMemory;
  WindowFold out;
  // With duplicates the sequence number orders a window's entries. A RocksDB store restores
  // (and a standby applies) each record under the one its key holds, the writer's change-logging
  // counter; its own puts take its RocksDBWindowStore's counter (from 0 with the store object,
  // one more per non-null put), which the fold's put counts over the store's own writes.
  const bool raw_keys = topology.windowed() && segmented && topology.retain_duplicates;
  bool reopened = false;
  const sim::ChangelogRecord* last_record = nullptr;
  int64_t last = -1;
  const std::string& topic = topology.source_topic;
  std::vector<FoldOp> ops;
  for (const sim::ChangelogRecord* rp : context.window_fold_cache().by_partition[partition]) {
    const sim::ChangelogRecord& r = *rp;
    if (r.offset > applied) break;  // offsets ascend (window_fold_cache asserts it)
    if (!applied_by(replica, applied, r, at_ms)) continue;
    if (skipped != nullptr && std::binary_search(skipped->begin(), skipped->end(), r.offset)) {
      continue;  // removed by the log cleaner before the replica fetched it: never read
    }
    IQ_ASSERT(r.window_start_ms.has_value(), "seed {}: changelog-{} offset {} has no window",
              trace.seed, partition, r.offset);
    const int64_t o = r.offset.value();
    IQ_ASSERT(o > last, "seed {}: changelog-{} offsets out of order at {}", trace.seed, partition,
              o);
    last = o;
    last_record = &r;
    // Reopened from its .checkpoint: what lies beneath stayed on disk, the stream time did not.
    if (segmented && !reopened && replica.restored_from && r.offset > *replica.restored_from) {
      ops.push_back(FoldOp{&r, FoldOp::Kind::kReopen});
      reopened = true;
    }
    if (topology.windowed() && raw_keys && !written_by_store(replica, r)) {
      IQ_ASSERT(r.window_seqnum.has_value(), "seed {}: changelog-{} offset {} has no seqnum",
                trace.seed, partition, o);
      if (!r.value && restored_null_puts != nullptr) ++*restored_null_puts;
      const bool live = !r.value && live_null_puts;
      ops.push_back(FoldOp{&r, live ? FoldOp::Kind::kPut : FoldOp::Kind::kRestorePut});
    } else {
      IQ_ASSERT(topology.windowed() || r.window_end_ms.has_value(),
                "seed {}: session changelog-{} offset {} has no end", trace.seed, partition, o);
      ops.push_back(FoldOp{&r, FoldOp::Kind::kPut});
    }
    out.fold_header(topic, partition, r.position);
  }
  // Reopened from a .checkpoint no record lies above: nothing replayed has raised its stream time.
  if (segmented && !reopened && replica.restored_from && last_record != nullptr) {
    ops.push_back(FoldOp{last_record, FoldOp::Kind::kReopen});
  }
  const auto query = [&](const model::WindowHistory* window, const model::SessionHistory* session) {
    out.answer =
        want_of(topology, window, session, request, partition, std::numeric_limits<int64_t>::max());
    // The fold knows each duplicate's sequence number (its own puts', and the logged ones it
    // restores), so the witness compares their order exactly; only the model, one continuous
    // store object, leaves it open (WindowWant::duplicates_unordered).
    out.answer.duplicates_unordered = false;
  };
  if (overlay.empty() && skipped == nullptr) {
    const WindowFoldCache::Model& m = cached_fold_model(context, partition, std::move(ops));
    query(m.window ? &*m.window : nullptr, m.session ? &*m.session : nullptr);
    return out;
  }
  std::optional<model::WindowHistory> window;
  std::optional<model::SessionHistory> session;
  start_fold_model(
      trace, std::max<int64_t>(1, static_cast<int64_t>(trace.changelog.size() + overlay.size())),
      window, session);
  apply_fold_ops(partition, ops, window ? &*window : nullptr, session ? &*session : nullptr);
  for (const sim::UnloggedWrite* u : overlay) {
    IQ_ASSERT(u->window_start_ms.has_value() && (window || u->window_end_ms.has_value()),
              "seed {}: an unlogged write of key {} without its window", trace.seed, u->key);
    const model::KeyBytes key = model::serialize_int32_key(u->key);
    ++last;
    if (window) {
      window->put(partition, last, key, u->value, u->timestamp_ms, *u->window_start_ms);
    } else {
      session->put(partition, last, key, *u->window_start_ms, *u->window_end_ms, u->value);
    }
  }
  query(window ? &*window : nullptr, session ? &*session : nullptr);
  return out;
}

// ---- A replica reading a compacted window or session changelog ----
//
// The log cleaner keeps the latest record per changelog key (a window store's [key][start][seq],
// a session store's [key][end][start]), so a record superseded by a newer one (a window's later
// value, a merged-away session's tombstone) may be gone when a standby or restoring active
// fetches its offset: the replica never reads it (changelog_witness.cc states the bounds a
// removal time puts on a fetch). Which removed records a replica skipped is recorded by its store
// object's life (the changelog offsets it was given, trace/store_life.h): a removable record it
// was not given is one it skipped, and one fold decides.

// The skips of `skipped` (ascending offsets of `removable`), one per key.
std::vector<CompactedSkip> skips_of(const std::vector<const sim::ChangelogRecord*>& removable,
                                    const std::vector<ChangelogOffset>& skipped) {
  std::map<int32_t, CompactedSkip> by_key;
  for (const sim::ChangelogRecord* r : removable) {
    if (!std::binary_search(skipped.begin(), skipped.end(), r->offset)) continue;
    CompactedSkip& skip = by_key[r->key];
    skip.key = r->key;
    skip.skipped.push_back(r->offset);
    skip.removed_ms_max = std::max(skip.removed_ms_max, *r->removed_ms);
  }
  std::vector<CompactedSkip> skips;
  for (auto& [key, skip] : by_key) skips.push_back(std::move(skip));
  return skips;
}

std::optional<std::pair<WindowFold, std::vector<CompactedSkip>>> window_compacted_read(
    const JudgeContext& context, const sim::QueryRecord& record,
    const sim::PartitionOutcome& outcome, const sim::ReplicaSnapshot& replica,
    ChangelogOffset applied) {
  const sim::RunTrace& trace = context.trace();
  const int32_t partition = outcome.partition;
  std::vector<const sim::ChangelogRecord*> removable;
  for (const sim::ChangelogRecord& r : trace.changelog) {
    if (r.partition != partition || r.offset > applied || !r.removed_ms) continue;
    if (!applied_by(replica, applied, r, answered_at(record))) continue;
    if (removed_before_fetch(context, replica, r, record.complete_ms)) removable.push_back(&r);
  }
  // The store object's life records exactly the records it was given: the removable ones it was
  // not given are what it skipped, and one fold decides. A life over kept data is judged by its
  // own exact fold (judge_kept_life), which applies only what was given; a trace without lives
  // says nothing of what was read, so no skip is assumed.
  const sim::StoreLife* life = trace.store_life(replica.store_life);
  if (life == nullptr || life->over_kept_data) return std::nullopt;
  std::vector<ChangelogOffset> skipped;
  for (const sim::ChangelogRecord* r : removable) {
    if (!life_holds(*life, r->offset, true, false)) skipped.push_back(r->offset);
  }
  if (skipped.empty()) return std::nullopt;
  WindowFold fold = window_fold(context, record.request, partition, replica, applied,
                                answered_at(record), {}, false, nullptr, &skipped);
  if (!outcome_is(outcome, fold.answer)) return std::nullopt;
  return std::pair(std::move(fold), skips_of(removable, skipped));
}

// The changelog record at `offset` of `partition` (nullptr: not recorded, e.g. past the bound).
const sim::ChangelogRecord* record_at(const JudgeContext& context, int32_t partition,
                                      ChangelogOffset offset) {
  const auto& records = context.window_fold_cache().by_partition[partition];
  auto it = std::lower_bound(
      records.begin(), records.end(), offset,
      [](const sim::ChangelogRecord* r, ChangelogOffset o) { return r->offset < o; });
  return it != records.end() && (*it)->offset == offset ? *it : nullptr;
}

// The exact fold of the store object that served (its recorded life, trace/store_life.h): what
// its files kept when it opened, loaded as they lay on disk (its observed stream time restarts at
// -1: AbstractSegments.openExisting drops nothing), then each changelog record given to it
// (through the segmented store's restore, under the record's logged sequence number) and each it
// wrote (its own put, numbered by its own counter from 0), up to `applied`. The header is the
// highest of its loaded .position's component and the applied records' headers. nullopt when a
// record it applied is not in the trace.
std::optional<WindowFold> window_life_fold(const JudgeContext& context,
                                           const sim::QueryRequestRecord& request,
                                           int32_t partition, const sim::StoreLife& life,
                                           ChangelogOffset applied) {
  const sim::RunTrace& trace = context.trace();
  const TopologyConfig& topology = trace.topology;
  const bool raw_keys = topology.windowed() && topology.retain_duplicates;
  std::optional<model::WindowHistory> window;
  std::optional<model::SessionHistory> session;
  start_fold_model(trace, static_cast<int64_t>(life.kept.size() + trace.changelog.size()) + 2,
                   window, session);
  WindowFold out;
  int64_t step = 0;
  for (const sim::KeptEntry& e : life.kept) {
    IQ_ASSERT(e.window_start_ms.has_value(), "seed {}: life {} kept key {} without its window",
              trace.seed, life.id, e.key);
    const model::KeyBytes key = model::serialize_int32_key(e.key);
    if (window) {
      window->load_kept(partition, step++, key, e.value, e.timestamp_ms.value_or(-1),
                        *e.window_start_ms, e.window_seqnum.value_or(0));
    } else {
      session->load_kept(partition, step++, key, *e.window_start_ms, *e.window_end_ms, e.value);
    }
  }
  if (window) window->reopen_store(partition, step++, -1);
  if (session) session->reopen_store(partition, step++, -1);
  out.header = SourceOffset(reported_offset(context, life.loaded_position, partition));
  out.foreign_header = life.loaded_position.map().size() > 1;
  for (const sim::StoreLifeEvent& e : life.events) {
    const bool given = e.kind == sim::StoreLifeEvent::Kind::kGiven;
    if (!given && e.kind != sim::StoreLifeEvent::Kind::kWrote) continue;
    for (ChangelogOffset o = e.first; o <= e.last && o <= applied; o = o + 1) {
      const sim::ChangelogRecord* r = record_at(context, partition, o);
      if (r == nullptr) return std::nullopt;
      const model::KeyBytes key = model::serialize_int32_key(r->key);
      if (window && raw_keys && given) {
        window->restore_put(partition, step++, key, r->value, r->timestamp_ms, *r->window_start_ms,
                            r->window_seqnum.value_or(0));
      } else if (window) {
        window->put(partition, step++, key, r->value, r->timestamp_ms, *r->window_start_ms);
      } else {
        session->put(partition, step++, key, *r->window_start_ms, *r->window_end_ms, r->value);
      }
      out.fold_header(topology.source_topic, partition, r->position);
    }
  }
  out.answer = want_of(topology, window ? &*window : nullptr, session ? &*session : nullptr,
                       request, partition, std::numeric_limits<int64_t>::max());
  out.answer.duplicates_unordered = false;  // a fold: exact
  return out;
}

// Why what `life` kept is older than the .checkpoint its task loaded (the store lost data the
// checkpoint claims), or nullopt. Each kept entry must be a state its window or session had in
// the changelog appended before the life opened, at or after its last record at or below the
// checkpoint: the value of that record or of a later one (a segment's memtable flushes by itself,
// so each segment may hold a later state than another). With duplicates a window's kept entries
// are matched by value (their own numbers may differ from the logged ones, quirk 26).
std::optional<std::string> kept_older_than_checkpoint(const JudgeContext& context,
                                                      int32_t partition,
                                                      const sim::StoreLife& life) {
  const ChangelogOffset checkpoint = life.loaded_checkpoint.value_or(ChangelogOffset(-1));
  const TopologyConfig& topology = context.trace().topology;
  const bool by_value = topology.retain_duplicates;
  // Per slot, whether a record with each value is a state at or after the checkpoint: the last
  // record at or below it (superseding the earlier ones), or any later one.
  using Slot = std::tuple<int32_t, int64_t, int64_t, int32_t>;  // key, start, end, seqnum
  const auto slot_of = [&](int32_t key, std::optional<int64_t> start, std::optional<int64_t> end,
                           std::optional<int32_t> seqnum) {
    return Slot{key, start.value_or(-1), topology.session() ? end.value_or(-1) : -1,
                by_value ? 0 : seqnum.value_or(0)};
  };
  std::map<Slot, std::set<int64_t>> states;
  std::map<Slot, std::set<int64_t>> at_checkpoint;  // the values of the slot's last record there
  for (const sim::ChangelogRecord* r : context.window_fold_cache().by_partition[partition]) {
    if (r->appended_ms > life.opened_ms) break;
    const Slot slot = slot_of(r->key, r->window_start_ms, r->window_end_ms, r->window_seqnum);
    if (r->offset <= checkpoint) {
      // With duplicates every non-null put is a slot of its own: keep each value seen.
      if (!by_value) at_checkpoint[slot].clear();
      if (r->value) at_checkpoint[slot].insert(*r->value);
    } else if (r->value) {
      states[slot].insert(*r->value);
    }
  }
  for (const sim::KeptEntry& e : life.kept) {
    const Slot slot = slot_of(e.key, e.window_start_ms, e.window_end_ms, e.window_seqnum);
    const auto in = [&](const std::map<Slot, std::set<int64_t>>& m) {
      auto it = m.find(slot);
      return it != m.end() && it->second.count(e.value) > 0;
    };
    if (in(states) || in(at_checkpoint)) continue;
    return fmt::format(
        "key {} window {} kept value {}, no state of its slot at or after .checkpoint {} in the "
        "changelog appended before the store opened",
        e.key, e.window_start_ms.value_or(-1), e.value, checkpoint);
  }
  return std::nullopt;
}

// ChangelogWitness on a store object that opened over data an earlier one kept: the answer must be
// its life's exact fold (window_life_fold), value and position, and what it kept no older than its
// .checkpoint claims. Holds then, naming the life (WitnessResult::kept_life).
void judge_kept_life(const JudgeContext& context, const sim::QueryRecord& record,
                     const sim::PartitionOutcome& outcome, const sim::StoreLife& life,
                     WitnessResult& result) {
  const int32_t partition = outcome.partition;
  const std::optional<WindowFold> fold =
      window_life_fold(context, record.request, partition, life, result.applied_offset);
  if (!fold) {
    result.verdict = Witness::kNotJudged;
    result.why = "window: a record the store object applied is not in the trace";
    return;
  }
  kept_life_verdict(
      context, life, outcome,
      outcome_is(outcome, fold->answer) ? std::nullopt : std::optional(want_text(fold->answer)),
      [&] { return kept_older_than_checkpoint(context, partition, life); },
      context.trace().consistency_offset_vector_enabled && !fold->foreign_header
          ? std::optional(fold->header)
          : std::nullopt,
      result);
}

}  // namespace

WitnessResult window_changelog_witness(const JudgeContext& context, const sim::QueryRecord& record,
                                       const sim::PartitionOutcome& outcome,
                                       const sim::ReplicaSnapshot& replica,
                                       ChangelogOffset applied) {
  const sim::RunTrace& trace = context.trace();
  const TopologyConfig& topology = trace.topology;
  WitnessResult result;
  result.replica = &replica;
  result.applied_offset = applied;
  const int32_t partition = outcome.partition;
  const bool segmented = topology.supplier != KeyValueSupplier::kInMemory;
  WindowFold fold =
      window_fold(context, record.request, partition, replica, applied, answered_at(record));
  if (!outcome_is(outcome, fold.answer)) {
    if (auto read = window_compacted_read(context, record, outcome, replica, applied)) {
      fold = std::move(read->first);
      result.compacted_skips = std::move(read->second);
    }
  }
  const WindowWant& want = fold.answer;
  const SourceOffset header = fold.header;
  const bool foreign_header = fold.foreign_header;
  if (!outcome_is(outcome, want)) {
    // What the store object kept when it opened is recorded: its exact fold decides, stream time
    // included.
    if (const sim::StoreLife* life = trace.store_life(replica.store_life);
        life != nullptr && life->over_kept_data && segmented) {
      judge_kept_life(context, record, outcome, *life, result);
      return result;
    }
    if (want.uncertain) {
      result.verdict = Witness::kNotJudged;
      result.why =
          "window: the fold hides a window in a live segment (a segmented store's observed "
          "stream time depends on where its store object was opened)";
      return result;
    }
    result.verdict = Witness::kDiffers;
    result.why = fmt::format(
        "the answer is not the fold of changelog-{} [.., {}] that {}'s {} had "
        "applied (through the store's retention)",
        partition, applied, replica.instance, sim::to_string(replica.role));
    result.expected = want_text(want);
    return result;
  }
  result.verdict = Witness::kHolds;
  if (!trace.consistency_offset_vector_enabled) {
    result.position_not_judged = "position not judged: consistency switch off (no headers to fold)";
    return result;
  }
  if (foreign_header) {
    result.position_not_judged = "position not judged: a header names another topic or partition";
    return result;
  }
  const Position folded = position_of(context, partition, header);
  if (!outcome.position || outcome.position->map() != folded.map()) {
    result.verdict = Witness::kDiffers;
    result.why = fmt::format(
        "the position is not the fold of the headers of changelog-{} [.., {}] that {}'s {} had "
        "applied",
        partition, applied, replica.instance, sim::to_string(replica.role));
    result.expected = "position " + folded.to_string();
    result.folded_position = folded;
  }
  return result;
}

// ---- H7: staged puts raise a transactional window or session store's stream time ----
//
// docs/kafka-2026-08-20.md §10, H7 (ViolationClass::kStagedStreamTimeExpiresCommitted). At the
// 2026-08-20 pin a transactional window or session store raises its observedStreamTime on every
// put before it stages the write: InMemoryWindowStore.put and InMemorySessionStore.put (the raise
// is not part of the transaction buffer), AbstractRocksDBSegmentedBytesStore.put (whose
// getOrCreateSegmentIfLive then drops the segments below the raised floor, committed data
// included). Every read applies that one floor whatever its level (the in-memory stores'
// removeExpiredSegments and fetch bounds, the segmented store's getActualFrom), so a
// READ_COMMITTED answer lacks the committed windows at or below the raised stream time less the
// retention, which the committed state's own stream time still retains.
//
// The proof rests on recorded facts only: the replica's observed stream time at the answer
// (ReplicaSnapshot::observed_stream_time_ms, read from the store), its last store commit
// (committed_changelog_offset) and its store life's own writes (trace/store_life.h). The observed
// stream time must be exactly the largest segment time (a window's start, a session's end) of
// the records that life wrote after its last store commit, its staged puts, so the raise is
// theirs; and the answer must be exactly the fold of the committed prefix (the witness's fold)
// with the windows at or below that raised floor taken out, at least one of them.

namespace {

// The time a window or session store keys its retention by: a window's start, a session's end.
int64_t segment_time(const TopologyConfig& topology, std::optional<int64_t> start_ms,
                     std::optional<int64_t> end_ms) {
  return topology.session() ? end_ms.value_or(-1) : start_ms.value_or(-1);
}

// The largest segment time among the records `life` wrote after changelog offset `committed`, up
// to `applied` (its staged puts); nullopt when it wrote none there or one is not in the trace.
std::optional<int64_t> staged_stream_time(const JudgeContext& context, int32_t partition,
                                          const sim::StoreLife& life, ChangelogOffset committed,
                                          ChangelogOffset applied) {
  const TopologyConfig& topology = context.trace().topology;
  std::optional<int64_t> out;
  for (const sim::StoreLifeEvent& e : life.events) {
    if (e.kind != sim::StoreLifeEvent::Kind::kWrote) continue;
    for (ChangelogOffset o = std::max(e.first, committed + 1); o <= e.last && o <= applied;
         o = o + 1) {
      const sim::ChangelogRecord* r = record_at(context, partition, o);
      if (r == nullptr) return std::nullopt;
      const int64_t t = segment_time(topology, r->window_start_ms, r->window_end_ms);
      out = std::max(out.value_or(t), t);
    }
  }
  return out;
}

// The committed fold's answer with the windows at or below `floor_ms` taken out (into `expired`).
WindowWant above_floor(const TopologyConfig& topology, const WindowWant& fold, int64_t floor_ms,
                       sim::WindowedList& expired) {
  WindowWant kept = fold;
  kept.entries.clear();
  kept.timestamps.clear();
  for (size_t i = 0; i < fold.entries.size(); ++i) {
    const sim::WindowedValue& e = fold.entries[i];
    if (segment_time(topology, e.start_ms, e.end_ms) <= floor_ms) {
      expired.push_back(e);
      continue;
    }
    kept.entries.push_back(e);
    if (fold.timestamps.size() == fold.entries.size())
      kept.timestamps.push_back(fold.timestamps[i]);
  }
  return kept;
}

}  // namespace

ClassProof prove_staged_stream_time_expired(const JudgeContext& context,
                                            const sim::QueryRecord& record,
                                            const sim::PartitionOutcome& outcome) {
  const sim::RunTrace& trace = context.trace();
  const TopologyConfig& topology = trace.topology;
  if (!read_committed_at_new_pin(context, record.request)) {
    return {false, "not a READ_COMMITTED answer at the 2026-08-20 pin"};
  }
  if ((!topology.windowed() && !topology.session()) || !is_window_kind(record.request.kind) ||
      !trace.transactional_state_stores) {
    return {false, "not a window or session answer of a transactional store"};
  }
  const sim::ReplicaSnapshot* replica =
      record.placement_at_answer
          ? find_replica(*record.placement_at_answer, record.target_instance, outcome.partition)
          : nullptr;
  if (replica == nullptr || !replica->committed_position || !replica->observed_stream_time_ms) {
    return {false, "the answering replica recorded no committed position or observed stream time"};
  }
  const sim::StoreLife* life = trace.store_life(replica->store_life);
  if (life == nullptr) return {false, "the answering store object's life is not recorded"};
  const int32_t partition = outcome.partition;
  const ChangelogOffset applied = replica->changelog_offset.value_or(ChangelogOffset(-1));
  const ChangelogOffset committed =
      std::min(applied, replica->committed_changelog_offset.value_or(ChangelogOffset(-1)));
  const int64_t observed = *replica->observed_stream_time_ms;
  const std::optional<int64_t> staged =
      staged_stream_time(context, partition, *life, committed, applied);
  if (!staged || *staged != observed) {
    return {false, fmt::format("{}'s observed stream time {} is not the largest window of the "
                               "writes its store life {} staged after changelog-{} {} ({})",
                               replica->instance, observed, life->id, partition, committed,
                               staged ? std::to_string(*staged) : "none")};
  }
  const bool segmented = topology.supplier != KeyValueSupplier::kInMemory;
  const std::optional<WindowFold> fold =
      life->over_kept_data && segmented
          ? window_life_fold(context, record.request, partition, *life, committed)
          : std::optional(window_fold(context, record.request, partition, *replica, committed,
                                      answered_at(record)));
  if (!fold) return {false, "a record the store object applied is not in the trace"};
  const int64_t retention_ms = context.window_history() != nullptr
                                   ? context.window_history()->spec().retention_ms
                                   : context.session_history()->spec().retention_ms;
  const int64_t floor_ms = observed - retention_ms;
  sim::WindowedList expired;
  const WindowWant kept = above_floor(topology, fold->answer, floor_ms, expired);
  if (expired.empty()) {
    return {false, fmt::format("no window of the committed fold of changelog-{} [.., {}] lies at "
                               "or below the raised floor {}",
                               partition, committed, floor_ms)};
  }
  if (!outcome_is(outcome, kept)) {
    return {false, fmt::format("record #{} is not the committed fold of changelog-{} [.., {}] "
                               "above the raised floor {}: {}",
                               record.id, partition, committed, floor_ms, want_text(kept))};
  }
  if (trace.consistency_offset_vector_enabled && !fold->foreign_header) {
    Position folded = Position::empty_position();
    if (fold->header >= SourceOffset(0)) {
      folded.with_component(topology.source_topic, partition, fold->header);
    }
    if (!outcome.position || outcome.position->map() != folded.map()) {
      return {false, fmt::format("record #{}'s position is not the committed fold's {}", record.id,
                                 folded.to_string())};
    }
  }
  WindowWant gone;
  gone.entries = expired;
  return {true,
          fmt::format("record #{} is the fold of changelog-{} [.., {}], {}'s committed state, "
                      "without {} at or below {} (its observed stream time {}, raised by the "
                      "writes its store life {} staged after that commit, less the retention {})",
                      record.id, partition, committed, replica->instance, want_text(gone), floor_ms,
                      observed, life->id, retention_ms)};
}

namespace {

// What the window and session proofs start from: the switch on, the answer a window query's with
// a position, and its replica's changelog fold, position included (ChangelogWitness holds). Else
// nullopt, with `proof.text` saying why (`no_position` when there is no position to judge).
std::optional<WitnessResult> fold_with_position(const JudgeContext& context,
                                                const sim::QueryRecord& record,
                                                const sim::PartitionOutcome& outcome,
                                                const char* no_position, ClassProof& proof) {
  if (!context.trace().consistency_offset_vector_enabled || !outcome.position ||
      !is_window_kind(record.request.kind)) {
    proof.text = no_position;
    return std::nullopt;
  }
  WitnessResult w = changelog_witness(context, record, outcome);
  if (w.verdict != Witness::kHolds || w.replica == nullptr || !w.position_not_judged.empty()) {
    proof.text =
        fmt::format("record #{} is not its replica's changelog fold, position included", record.id);
    return std::nullopt;
  }
  return w;
}

}  // namespace

// ---- A replica between one input record's changelog writes ----
//
// One input record makes several store writes: a session merge removes every session it merges
// and puts the merged one (KStreamSessionWindowAggregate.process), a hopping window's record
// updates each window it falls in (KStreamWindowAggregate.process); with a record cache, a flush
// writes all dirty entries at once (NamedCache.flush). Each write is logged as its own changelog
// record under the store's position after it (a removal leaves the position, so it carries the
// one before), all appended by the writer in one go. A standby or restoring active applies the
// log record by record and a poll can end between them, so a replica may hold a position while
// lacking the rest of those writes: a merged-away session removed and its merged successor not
// put yet. The proof (ViolationClass::kReplicaInsideOneRecordsWrites): the store is a window or
// session store, the switch is on, the answer is its replica's changelog fold (ChangelogWitness
// holds, position included), the records right after the applied prefix were appended by the
// same writer in the same millisecond as its last record, and the fold with them is exactly the
// model's answer at the highest offset among their headers and the reported one.
//
// Its cut form, for a store without a record cache: the prefix ends with the last record its
// writer W appended in one millisecond, W's crash then landed inside a send to this changelog
// partition (nothing of W follows), and every slot where the fold differs from the model is one
// those writes had still to write (prove_writes_cut_by_crash, the uncached twin of the cut flush
// below). Under exactly_once_v2 the cut writes abort and the proof's committed() check fails.
ClassProof prove_writes_cut_by_crash(const JudgeContext& context, const sim::QueryRecord& record,
                                     const sim::PartitionOutcome& outcome, bool cached);

ClassProof prove_inside_record_writes(const JudgeContext& context, const sim::QueryRecord& record,
                                      const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  const sim::RunTrace& trace = context.trace();
  const TopologyConfig& topology = trace.topology;
  if (!topology.windowed() && !topology.session()) {
    proof.text = "not a window or session store";
    return proof;
  }
  const std::optional<WitnessResult> held = fold_with_position(
      context, record, outcome, "no position from the changelog headers to be inside of", proof);
  if (!held) return proof;
  const WitnessResult& w = *held;
  const int32_t partition = outcome.partition;
  const int64_t reported = reported_offset(context, *outcome.position, partition);
  base::Instant at_ms = answered_at(record);
  ChangelogOffset rest_last(-1);
  size_t rest = 0;
  // The writes the prefix stops inside: the records after it that its last record's writer
  // appended in the same millisecond (one input record's writes, or one record-cache flush of
  // several), up to the last one. Their highest header is the offset whose state they complete.
  const sim::ChangelogRecord* last_applied = nullptr;
  for (const sim::ChangelogRecord& r : trace.changelog) {
    if (r.partition == partition && r.offset == w.applied_offset) last_applied = &r;
  }
  int64_t target = reported;
  for (const sim::ChangelogRecord& r : trace.changelog) {
    if (last_applied == nullptr) break;
    if (r.partition != partition || r.offset <= w.applied_offset) continue;
    if (r.writer != last_applied->writer || r.appended_ms != last_applied->appended_ms ||
        !r.position || !r.committed()) {
      break;
    }
    target = std::max(target, reported_offset(context, *r.position, partition));
    if (r.decided_ms) at_ms = std::max(at_ms, *r.decided_ms);
    rest_last = r.offset;
    ++rest;
  }
  if (rest == 0) {
    proof.text = fmt::format(
        "record #{}: no changelog-{} record after its replica's offset {} was appended with it "
        "(same writer, same millisecond)",
        record.id, partition, w.applied_offset);
    if (topology.cached()) return proof;  // a cut flush is kCacheFlushPartlyApplied's
    ClassProof cut = prove_writes_cut_by_crash(context, record, outcome, /*cached=*/false);
    if (!cut.proven) cut.text = proof.text + ", nor cut by a crash: " + cut.text;
    return cut;
  }
  const WindowFold completed =
      window_fold(context, record.request, partition, *w.replica, rest_last, at_ms);
  const WindowWant want = window_want(context, record.request, partition, target);
  if (completed.answer.entries != want.entries || completed.answer.timestamps != want.timestamps) {
    proof.text = fmt::format(
        "record #{}: with the rest of source offset {}'s writes (changelog-{} ({}, {}]) its fold "
        "is {}, not the model's {}",
        record.id, target, partition, w.applied_offset, rest_last, want_text(completed.answer),
        want_text(want));
    return proof;
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{} is the fold of changelog-{} [.., {}] that {}'s {} had applied, which stops "
      "inside the writes of source offset {}: with the {} record(s) ({}, {}] that complete them "
      "it is the model's answer at that offset",
      record.id, partition, w.applied_offset, w.replica->instance, sim::to_string(w.replica->role),
      target, rest, w.applied_offset, rest_last);
  return proof;
}

namespace {

// One entry's place in a window or session store: key, window (or session) start, session end.
using Slot = std::tuple<int32_t, int64_t, std::optional<int64_t>>;
struct SlotState {
  int64_t value = 0;
  std::optional<int64_t> timestamp_ms;
  bool operator==(const SlotState&) const = default;
};

std::map<Slot, SlotState> slots_of(const WindowWant& want) {
  std::map<Slot, SlotState> out;
  for (size_t i = 0; i < want.entries.size(); ++i) {
    const sim::WindowedValue& e = want.entries[i];
    out[Slot{e.key, e.start_ms, e.end_ms}] = SlotState{
        e.value, want.timestamps.empty() ? std::nullopt : std::optional(want.timestamps[i])};
  }
  return out;
}

std::vector<Slot> differing_slots(const std::map<Slot, SlotState>& a,
                                  const std::map<Slot, SlotState>& b) {
  std::vector<Slot> out;
  for (const auto& [slot, state] : a) {
    const auto it = b.find(slot);
    if (it == b.end() || it->second != state) out.push_back(slot);
  }
  for (const auto& [slot, state] : b) {
    if (!a.contains(slot)) out.push_back(slot);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<SlotState> slot_at(const JudgeContext& context,
                                 const sim::QueryRequestRecord& request, int32_t partition,
                                 const Slot& slot, int64_t offset) {
  const std::map<Slot, SlotState> at = slots_of(window_want(context, request, partition, offset));
  const auto it = at.find(slot);
  return it == at.end() ? std::nullopt : std::optional(it->second);
}

// The latest write of `slot`'s key at or below `reported` after which the model's state of the
// slot is its state at `reported` (the write that made it), read back through every write of the
// key the trace recorded; nullopt when the state at `reported` is the one before any of them.
std::optional<int64_t> model_write_beneath(const JudgeContext& context,
                                           const sim::QueryRequestRecord& request,
                                           int32_t partition, const Slot& slot, int64_t reported) {
  const std::optional<SlotState> at_reported = slot_at(context, request, partition, slot, reported);
  const std::vector<int64_t>& writes = context.key_write_offsets(partition, std::get<0>(slot));
  auto it = std::upper_bound(writes.begin(), writes.end(), reported);
  while (it != writes.begin()) {
    --it;
    if (slot_at(context, request, partition, slot, *it - 1) != at_reported) return *it;
  }
  return std::nullopt;
}

std::string slot_text(const Slot& slot) {
  const auto& [key, start, end] = slot;
  return end ? fmt::format("{}@[{}, {}]", key, start, *end) : fmt::format("{}@{}", key, start);
}

// Whether `r`, the last record of session `slot` the replica applied, is not the flush of o's
// (`written`'s) write that made the model's state but of o's removal of the same session before
// it: KStreamSessionWindowAggregate removes every session it merges and then puts the merged one,
// which can be a merged session's own window (an out-of-order record inside it); an eviction
// between the two (NamedCache.evict flushes every dirty entry) logs the removal under o's header,
// and o's put of the window goes into the cache dirty. Then the header is exactly o, the record is
// a tombstone, and the model holds a session in the slot at `reported`.
bool removal_before_own_put(const JudgeContext& context, const sim::QueryRequestRecord& request,
                            int32_t partition, const Slot& slot, const sim::ChangelogRecord& r,
                            int64_t header, int64_t written, int64_t reported) {
  if (!std::get<2>(slot) || r.value || header != written) return false;
  return slot_at(context, request, partition, slot, reported).has_value();
}

// Why `slot`'s state in the model at `reported` is not a write the active's cache holds unflushed
// under a later dirty write, or nullopt when it is: the active holds a dirty entry of the slot
// from a source offset above `reported`; the model's state at `reported` comes from the key's
// record at some offset o <= reported (the latest where it changed), and no record of the slot in
// the replica's applied prefix carries a header at or above o (a flushed write of o would: a
// record's header is the store's position after it), but for o's removal of the session flushed
// before o's put of it (removal_before_own_put). The dirty entry then holds o's write coalesced
// with later ones.
std::optional<std::string> unflushed_beneath(const JudgeContext& context,
                                             const sim::QueryRecord& record, int32_t partition,
                                             const sim::ReplicaSnapshot& replica,
                                             ChangelogOffset applied,
                                             const sim::ReplicaSnapshot& active, const Slot& slot,
                                             int64_t reported) {
  const auto& [key, start, end] = slot;
  const bool dirty_above = std::any_of(active.unlogged_writes.begin(), active.unlogged_writes.end(),
                                       [&](const sim::UnloggedWrite& u) {
                                         return u.key == key && u.window_start_ms == start &&
                                                (!end || u.window_end_ms == end) &&
                                                u.source_offset.value() > reported;
                                       });
  if (!dirty_above) {
    return fmt::format("slot {} differs and no dirty entry above offset {} covers it",
                       slot_text(slot), reported);
  }
  // o: the record whose write the model's state comes from
  const std::optional<int64_t> written =
      model_write_beneath(context, record.request, partition, slot, reported);
  if (!written) {
    return fmt::format(
        "slot {}: no write of key {} at or below offset {} found that made the "
        "model's state there",
        slot_text(slot), key, reported);
  }
  std::vector<const sim::ChangelogRecord*> logged;  // the slot's records the replica applied
  for (const sim::ChangelogRecord& r : context.trace().changelog) {
    if (r.partition == partition && r.offset <= applied && r.key == key &&
        r.window_start_ms == start && (!end || r.window_end_ms == end) && r.position &&
        applied_by(replica, applied, r, answered_at(record))) {
      logged.push_back(&r);
    }
  }
  for (const sim::ChangelogRecord* r : logged) {
    const int64_t header = reported_offset(context, *r->position, partition);
    if (header < *written) continue;
    if (r == logged.back() && removal_before_own_put(context, record.request, partition, slot, *r,
                                                     header, *written, reported)) {
      continue;
    }
    return fmt::format(
        "slot {}: changelog-{} offset {} carries a header at or above source "
        "offset {}, whose write the model holds there: it may have been flushed",
        slot_text(slot), partition, r->offset, *written);
  }
  return std::nullopt;
}

// The recorded life of the topology's store that wrote changelog-`partition` `offset`, or nullptr.
const sim::StoreLife* writing_life(const sim::RunTrace& trace, int32_t partition,
                                   ChangelogOffset offset) {
  for (const sim::StoreLife& life : trace.store_lives) {
    if (life.partition == partition && life.store == trace.topology.store_name &&
        life_holds(life, offset, /*given=*/false, /*wrote=*/true)) {
      return &life;
    }
  }
  return nullptr;
}

// Why `slot`'s difference between `replica`'s fold of changelog-`partition` [.., applied] and
// the model at `reported` is not a write its active held dirty in its cache when it logged
// `applied`, or nullopt when it is. A lagging replica's prefix was the active's log at an earlier
// time, when the trace kept no copy of the active's cache, so the proof reads the log and the
// recorded store lives: the slot's next record after `applied` (its flush) holds the model's
// state at some write of the key at or above o, the latest write at or below `reported` that made
// the model's state there; the first record whose header reached o (the active had taken o by
// then: a header is the store's position after a write, and no earlier header held o to restore
// it from) and every record of the partition from it through that flush were written by one store
// life, committed (one cache's life: a crash, a dirty close or a reopen ends the store object and
// drops its dirty entries, and a reprocessed write would be another life's or another record).
// The write of o then sat in that cache, dirty, from before `applied` was logged until the flush,
// beneath the header.
std::optional<std::string> dirty_when_logged(const JudgeContext& context,
                                             const sim::QueryRecord& record, int32_t partition,
                                             ChangelogOffset applied, const Slot& slot,
                                             int64_t reported) {
  const sim::RunTrace& trace = context.trace();
  const auto& [key, start, end] = slot;
  const auto of_slot = [&](const sim::ChangelogRecord& r) {
    return r.partition == partition && r.key == key && r.window_start_ms == start &&
           (!end || r.window_end_ms == end);
  };
  const std::optional<int64_t> written =  // o
      model_write_beneath(context, record.request, partition, slot, reported);
  const std::vector<int64_t>& writes = context.key_write_offsets(partition, key);
  if (!written) {
    return fmt::format("slot {}: no write of key {} at or below offset {} made the model's state",
                       slot_text(slot), key, reported);
  }
  // The flush: the slot's next record. A session store's cache drops a dirty session that a later
  // merge removed before any flush (CachingSessionStore.putAndMaybeForward skips a tombstone for
  // a session absent beneath): then the key's next record of a session containing it, the merge.
  const sim::ChangelogRecord* flush = nullptr;
  bool merged = false;
  for (const sim::ChangelogRecord& r : trace.changelog) {
    if (r.offset > applied && of_slot(r) && (flush == nullptr || r.offset < flush->offset)) {
      flush = &r;
    }
  }
  if (flush == nullptr && context.trace().topology.session() && end) {
    for (const sim::ChangelogRecord& r : trace.changelog) {
      if (r.partition == partition && r.offset > applied && r.key == key && r.value &&
          r.window_start_ms && r.window_end_ms && *r.window_start_ms <= start &&
          *r.window_end_ms >= *end && (flush == nullptr || r.offset < flush->offset)) {
        flush = &r;
        merged = true;
      }
    }
  }
  if (flush == nullptr) {
    return fmt::format(
        "slot {}: no changelog-{} record of it (nor of a session of key {} holding "
        "it) after offset {}",
        slot_text(slot), partition, key, applied);
  }
  const Slot flushed_slot{key, *flush->window_start_ms, flush->window_end_ms};
  // The flush holds the model's state at some write of the key at or above o (a merge: the
  // containing session's, at a write where the model holds the slot no more).
  bool matches = false;
  auto from = std::lower_bound(writes.begin(), writes.end(), *written);
  for (; from != writes.end() && !matches; ++from) {
    const std::optional<SlotState> state =
        slot_at(context, record.request, partition, merged ? flushed_slot : slot, *from);
    matches = flush->value
                  ? state && state->value == *flush->value &&
                        (!state->timestamp_ms || *state->timestamp_ms == flush->timestamp_ms)
                  : !state.has_value();
    if (merged && matches) {
      matches = !slot_at(context, record.request, partition, slot, *from).has_value();
    }
  }
  if (!matches) {
    return fmt::format(
        "slot {}: changelog-{} offset {}, its next record, is no state the model gives it at a "
        "write of key {} from offset {} on",
        slot_text(slot), partition, flush->offset, key, *written);
  }
  const sim::ChangelogRecord* first_header = nullptr;
  for (const sim::ChangelogRecord& r : trace.changelog) {
    if (r.partition == partition && r.offset <= applied && r.position &&
        reported_offset(context, *r.position, partition) >= *written &&
        (first_header == nullptr || r.offset < first_header->offset)) {
      first_header = &r;
    }
  }
  if (first_header == nullptr) {
    return fmt::format("slot {}: no header at or above offset {} in changelog-{} [.., {}]",
                       slot_text(slot), *written, partition, applied);
  }
  const sim::StoreLife* writer = writing_life(trace, partition, first_header->offset);
  if (writer == nullptr) {
    return fmt::format("slot {}: no recorded store life wrote changelog-{} offset {}",
                       slot_text(slot), partition, first_header->offset);
  }
  for (const sim::ChangelogRecord& r : trace.changelog) {
    if (r.partition != partition || r.offset < first_header->offset || r.offset > flush->offset) {
      continue;
    }
    if (!life_holds(*writer, r.offset, /*given=*/false, /*wrote=*/true) || !r.committed()) {
      return fmt::format(
          "slot {}: changelog-{} offset {} (by {}) lies between offset {} (written by store life "
          "{} of {}), the first header at or above offset {}, and the slot's flush at {}: not "
          "one cache's life",
          slot_text(slot), partition, r.offset, r.writer, first_header->offset, writer->id,
          writer->instance, *written, flush->offset);
    }
  }
  return std::nullopt;
}

// The model's first source offset whose put raised the store's observed stream time to at least
// `floor_ms` (the model's store is continuous, so its stream time never falls), or nullopt when
// no offset at or below `reported` did.
std::optional<int64_t> first_offset_raising(const model::WindowHistory& history, int32_t partition,
                                            int64_t floor_ms, int64_t reported) {
  if (history.store_stream_time(partition, reported) < floor_ms) return std::nullopt;
  int64_t low = 0;
  int64_t high = reported;
  while (low < high) {
    const int64_t mid = low + (high - low) / 2;
    if (history.store_stream_time(partition, mid) >= floor_ms) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return low;
}

// The key whose source record at `offset` wrote the store, or nullopt.
std::optional<int32_t> key_written_at(const JudgeContext& context, int32_t partition,
                                      int64_t offset) {
  for (const int32_t key : context.keys_written(partition)) {
    const std::vector<int64_t>& writes = context.key_write_offsets(partition, key);
    if (std::binary_search(writes.begin(), writes.end(), offset)) return key;
  }
  return std::nullopt;
}

// Why a window `slot` that a lagging replica's fold holds and the model at `reported` does not is
// not hidden from the model by a stream time its active's cache had not yet passed down, or
// nullopt when it is. The store's retention floor follows its own observed stream time, the
// largest window start put into it; beneath a record cache the put that raises it reaches the
// store (and the changelog) only when the cache flushes, while the position header of earlier
// flushed writes already covers its offset. So the replica keeps the slot visible at a position
// where the model, whose store takes every put in processing order, has expired it. Proven when
// the fold's state of the slot is the model's just before the offset o whose put raised the
// model's stream time to the slot's floor (start + retention), o is at or below `reported`, no
// record of the replica's applied prefix has a window start at or above that floor, and the
// window o put was dirty in the cache that logged the prefix (dirty_when_logged).
std::optional<std::string> floor_raised_by_dirty_write(
    const JudgeContext& context, const sim::QueryRecord& record, int32_t partition,
    const sim::ReplicaSnapshot& replica, ChangelogOffset applied, const Slot& slot,
    const std::optional<SlotState>& folded, int64_t reported) {
  const model::WindowHistory* history = context.window_history();
  const auto& [key, start, end] = slot;
  // A session store's retention has no such floor; a window slot carries its end only when a
  // range query's windowed keys named it, so the store kind decides, not the slot.
  if (history == nullptr || context.trace().topology.session() || !folded ||
      slot_at(context, record.request, partition, slot, reported)) {
    return fmt::format("slot {}: not a window the fold holds and the model hides", slot_text(slot));
  }
  const int64_t floor_ms = start + history->spec().retention_ms;
  const std::optional<int64_t> raised =
      first_offset_raising(*history, partition, floor_ms, reported);
  if (!raised || *raised == 0 ||
      slot_at(context, record.request, partition, slot, *raised - 1) != folded) {
    return fmt::format(
        "slot {}: the model does not hold the fold's state of it until a put at "
        "or below offset {} raised its stream time to {}",
        slot_text(slot), reported, floor_ms);
  }
  for (const sim::ChangelogRecord& r : context.trace().changelog) {
    if (r.partition == partition && r.offset <= applied && r.window_start_ms &&
        *r.window_start_ms >= floor_ms && applied_by(replica, applied, r, answered_at(record))) {
      return fmt::format(
          "slot {}: changelog-{} offset {} in the replica's prefix has window "
          "start {}, at or above the slot's floor {}",
          slot_text(slot), partition, r.offset, *r.window_start_ms, floor_ms);
    }
  }
  const std::optional<int32_t> raiser = key_written_at(context, partition, *raised);
  if (!raiser) {
    return fmt::format("slot {}: no key's record wrote offset {}", slot_text(slot), *raised);
  }
  const Slot raising{*raiser, history->store_stream_time(partition, *raised), std::nullopt};
  // The raising window is outside the query's own keys and times: read it through a WindowKeyQuery
  // of exactly that window, so the model's state of it is what the slot proofs compare.
  sim::QueryRecord of_raising = record;
  of_raising.request.kind = QueryKind::WindowKeyQuery;
  of_raising.request.key = *raiser;
  of_raising.request.from_time_ms = std::get<1>(raising);
  of_raising.request.to_time_ms = std::get<1>(raising);
  if (auto why = dirty_when_logged(context, of_raising, partition, applied, raising, reported)) {
    return fmt::format("slot {} is hidden by the stream time offset {} raised through {}, but {}",
                       slot_text(slot), *raised, slot_text(raising), *why);
  }
  return std::nullopt;
}

// A replica behind its active's log (no active at the answer had logged exactly its prefix): its
// fold must differ from the model at the reported offset only in slots whose write beneath that
// offset its active held dirty when it logged the prefix's last record (dirty_when_logged), or
// that the model's retention floor hides by a stream time such a dirty write raised
// (floor_raised_by_dirty_write).
ClassProof prove_lagging_replica(const JudgeContext& context, const sim::QueryRecord& record,
                                 const sim::PartitionOutcome& outcome, const WitnessResult& w) {
  ClassProof proof;
  const int32_t partition = outcome.partition;
  const int64_t reported = reported_offset(context, *outcome.position, partition);
  const WindowFold fold = window_fold(context, record.request, partition, *w.replica,
                                      w.applied_offset, answered_at(record));
  const WindowWant want = window_want(context, record.request, partition, reported);
  const std::vector<Slot> slots = differing_slots(slots_of(fold.answer), slots_of(want));
  if (slots.empty()) {
    proof.text =
        fmt::format("record #{}: its fold is the model's answer at offset {}", record.id, reported);
    return proof;
  }
  const std::map<Slot, SlotState> folded = slots_of(fold.answer);
  for (const Slot& slot : slots) {
    std::optional<std::string> why =
        dirty_when_logged(context, record, partition, w.applied_offset, slot, reported);
    if (!why) continue;
    const auto in_fold = folded.find(slot);
    const std::optional<std::string> floor_why = floor_raised_by_dirty_write(
        context, record, partition, *w.replica, w.applied_offset, slot,
        in_fold == folded.end() ? std::nullopt : std::optional(in_fold->second), reported);
    if (floor_why) {
      *why += "; " + *floor_why;
      proof.text = fmt::format(
          "record #{}: {}'s {} is behind its active's log at changelog-{} [.., {}], whose fold "
          "is not the model's at offset {}; {}",
          record.id, w.replica->instance, sim::to_string(w.replica->role), partition,
          w.applied_offset, reported, *why);
      return proof;
    }
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{} is the fold of changelog-{} [.., {}] that {}'s {} had applied, behind its "
      "active's log; it differs from the model's answer at its position's {} only in {} slot(s) "
      "whose write at or below that offset (or the put that raised the stream time hiding them) "
      "the active that logged the prefix held dirty in its cache, one cache's life, until a "
      "later flush",
      record.id, partition, w.applied_offset, w.replica->instance, sim::to_string(w.replica->role),
      reported, slots.size());
  return proof;
}

}  // namespace

// ---- A caching store answering from beneath its cache (quirk 19) ----
//
// CachingWindowStore and CachingSessionStore override neither query() nor getPosition(), so IQv2
// answers from the store beneath the record cache, under that store's position. The cache writes
// down on commit and when the thread's cache evicts from the namespace (NamedCache.evict flushes
// every dirty entry, the evicted one first), each entry under its own record context, and an
// eviction can fall in the middle of one input record's writes: the hopping windows the record
// updates after it, or a session merge's put after its removals, go into the cache dirty, while
// the store beneath already holds a write of that record and so its offset. Until the next flush
// the answer lacks those writes beneath the position it reports, on the active and on every
// replica that applied what the active has logged (the position header is the inner store's).
// The proof (ViolationClass::kCachedWritesBeneathPosition): a cached window or session store,
// the switch on, the answer its replica's changelog fold (ChangelogWitness holds, position
// included), the partition's active at the answer holding dirty entries and having logged exactly
// the prefix the replica applied (the replica is that active, or a replica at its changelog
// offset), and the fold overlaid with the active's dirty entries at or below the reported offset
// (put through the store's retention) exactly the model's answer at that offset; or, for a replica
// behind every active's log (a restoring active among them), each slot where its fold differs from
// the model proven dirty in the cache that logged its prefix from the log alone
// (prove_lagging_replica, dirty_when_logged). Dirty entries above the offset are not laid over: the
// model at the offset lacks them too. Limits: a dirty entry keeps only its key's last write, so a
// window written beneath the offset and again above it cannot be shown to have held the model's
// value: such an answer stays a failure.
ClassProof prove_cached_writes_beneath_position(const JudgeContext& context,
                                                const sim::QueryRecord& record,
                                                const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  const sim::RunTrace& trace = context.trace();
  const TopologyConfig& topology = trace.topology;
  if ((!topology.windowed() && !topology.session()) || !topology.cached()) {
    proof.text = "not a caching window or session store";
    return proof;
  }
  const std::optional<WitnessResult> held = fold_with_position(
      context, record, outcome, "no position from the changelog headers to lie beneath", proof);
  if (!held) return proof;
  const WitnessResult& w = *held;
  const int32_t partition = outcome.partition;
  // The active whose store beneath the cache is the replica's fold: the replica itself, or the
  // active at the answer that had logged exactly the replica's prefix.
  // A restoring active is behind the log too: what its cache holds says nothing of the prefix.
  const bool restoring = w.replica->role == sim::ReplicaRole::kActive &&
                         w.replica->task_state == sim::ReplicaSnapshot::TaskState::RESTORING;
  const sim::ReplicaSnapshot* active = nullptr;
  if (w.replica->role == sim::ReplicaRole::kActive && !restoring) {
    active = w.replica;
  } else if (record.placement_at_answer && !restoring) {
    for (const sim::ReplicaSnapshot& r : record.placement_at_answer->replicas) {
      if (r.partition == partition && r.role == sim::ReplicaRole::kActive &&
          r.changelog_offset == w.applied_offset) {
        active = &r;
      }
    }
  }
  if (active == nullptr && (w.replica->role != sim::ReplicaRole::kActive || restoring)) {
    return prove_lagging_replica(context, record, outcome, w);
  }
  if (active == nullptr || active->unlogged_writes.empty()) {
    proof.text = fmt::format(
        "record #{}: no active of partition {} at the answer with dirty cache entries over "
        "changelog-{} [.., {}]",
        record.id, partition, partition, w.applied_offset);
    return proof;
  }
  const int64_t reported = reported_offset(context, *outcome.position, partition);
  std::vector<const sim::UnloggedWrite*> beneath;
  for (const sim::UnloggedWrite& u : active->unlogged_writes) {
    if (u.source_offset.value() <= reported) beneath.push_back(&u);
  }
  const WindowFold flushed = window_fold(context, record.request, partition, *w.replica,
                                         w.applied_offset, answered_at(record), beneath);
  const WindowWant want = window_want(context, record.request, partition, reported);
  // Each slot where the fold with them still differs must hold a dirty entry above the offset
  // over a write the model has at the offset that was never flushed.
  const std::map<Slot, SlotState> got = slots_of(flushed.answer);
  const std::map<Slot, SlotState> wanted = slots_of(want);
  size_t overwritten = 0;
  for (const Slot& slot : differing_slots(got, wanted)) {
    if (auto why = unflushed_beneath(context, record, partition, *w.replica, w.applied_offset,
                                     *active, slot, reported)) {
      proof.text = fmt::format(
          "record #{}: its fold with {}'s {} dirty cache entries at or below offset {} is {}, not "
          "the model's {}; {}",
          record.id, active->instance, beneath.size(), reported, want_text(flushed.answer),
          want_text(want), *why);
      return proof;
    }
    ++overwritten;
  }
  if (beneath.empty() && overwritten == 0) {
    proof.text = fmt::format("record #{}: none of {}'s {} dirty cache entries explains it",
                             record.id, active->instance, active->unlogged_writes.size());
    return proof;
  }
  proof.proven = true;
  const std::string rest =
      overwritten == 0
          ? std::string()
          : fmt::format(
                ", but in {} slot(s) whose write beneath the offset was never flushed and "
                "is dirty in the cache under a later write",
                overwritten);
  proof.text = fmt::format(
      "record #{} is the fold of changelog-{} [.., {}] that {}'s {} had applied, the store "
      "beneath {}'s cache; with the {} dirty cache entries of source offsets at or below its "
      "position's {} laid over it, it is the model's answer at that offset{}",
      record.id, partition, w.applied_offset, w.replica->instance, sim::to_string(w.replica->role),
      active->instance, beneath.size(), reported, rest);
  return proof;
}

// ---- A replica inside a record-cache flush its writer's crash cut ----
//
// A caching window or session store writes its dirty entries down at a commit (NamedCache.flush),
// each under its last write's record context, in last-write order; ChangeLoggingWindowBytesStore
// and ChangeLoggingSessionBytesStore log each under the inner store's position after it, and the
// writer sends them all in one event. A writer killed inside that send leaves a prefix of the
// flush in the log: the rest, and the dirty entries of writes the prefix's last header covers
// (a hopping record's later windows, an entry coalesced with a write above that header), are
// gone with the cache. A standby or restoring active that applied the prefix holds its position
// without them until the next owner writes the slots again: the window form of
// kCacheFlushPartlyApplied (partial_flush.cc states the key-value form). The proof: a caching
// window or session store, the switch on, the answer its replica's changelog fold (ChangelogWitness
// holds, position included); the prefix's last record A the last one its writer W appended in that
// millisecond T (the flush ends there in the log) and W's crash at T landed inside a send to this
// changelog partition (FaultRecord::landed); and every slot where the fold differs from the model
// at the reported offset P is one the cut flush had still to write: no record of W's flush up to
// A writes it, and the write that made the model's state of it at P lies above every header
// beneath the flush (so no earlier flush carried it: it was dirty in W's cache at T).
ClassProof prove_window_flush_cut_by_crash(const JudgeContext& context,
                                           const sim::QueryRecord& record,
                                           const sim::PartitionOutcome& outcome) {
  const sim::RunTrace& trace = context.trace();
  if ((!trace.topology.windowed() && !trace.topology.session()) || !trace.topology.cached()) {
    return ClassProof{.proven = false, .text = "not a caching window or session store"};
  }
  return prove_writes_cut_by_crash(context, record, outcome, /*cached=*/true);
}

// Why `slot`, where the fold of the cut `run` (`held`) differs from the model at `reported`, is
// not a write the run had still to send, or nullopt when it is. The write that made the model's
// state there lies above `covered`, the largest header before the run, and: cached (a flush), no
// record of the run writes the slot (a dirty entry is flushed once); uncached, no record of the
// run carries that write (each is one input record's write, under its offset), and the fold holds
// the slot's state from before it.
static std::optional<std::string> why_not_lost(const JudgeContext& context,
                                               const sim::QueryRequestRecord& request,
                                               int32_t partition,
                                               const std::vector<const sim::ChangelogRecord*>& run,
                                               const Slot& slot, int64_t reported, int64_t covered,
                                               const std::map<Slot, SlotState>& held, bool cached) {
  const auto& [key, start, end] = slot;
  const std::optional<int64_t> written =
      model_write_beneath(context, request, partition, slot, reported);
  for (const sim::ChangelogRecord* r : run) {
    if (r->key != key || r->window_start_ms != start || (end && r->window_end_ms != end)) continue;
    if (cached || !written || !r->position ||
        reported_offset(context, *r->position, partition) >= *written) {
      return fmt::format("but the cut {} wrote it (changelog-{} offset {})",
                         cached ? "flush" : "writes", partition, r->offset);
    }
  }
  if (!written || *written <= covered) {
    return fmt::format(
        "and the write that made the model's state there ({}) is not above offset {}, the largest "
        "header before the cut {}",
        written ? fmt::format("offset {}", *written) : std::string("not found"), covered,
        cached ? "flush" : "writes");
  }
  if (cached) return std::nullopt;
  const std::optional<SlotState> before = slot_at(context, request, partition, slot, *written - 1);
  const auto it = held.find(slot);
  const std::optional<SlotState> kept = it == held.end() ? std::nullopt : std::optional(it->second);
  if (kept != before) {
    return fmt::format("and the fold does not hold its state from before offset {}, which wrote it",
                       *written);
  }
  return std::nullopt;
}

// The proof above, for a run of writes: a caching store's flush (`cached`), or, without a cache,
// the writes of the input records one send carried (a hopping window's record updates each of its
// windows, each logged as its own record).
ClassProof prove_writes_cut_by_crash(const JudgeContext& context, const sim::QueryRecord& record,
                                     const sim::PartitionOutcome& outcome, bool cached) {
  const char* what = cached ? "flush" : "writes";
  ClassProof proof;
  const sim::RunTrace& trace = context.trace();
  const std::optional<WitnessResult> held =
      fold_with_position(context, record, outcome, "no position from the changelog headers", proof);
  if (!held) return proof;
  const WitnessResult& w = *held;
  const int32_t partition = outcome.partition;
  // The flush: the run of records of A's writer and millisecond that ends at A.
  std::vector<const sim::ChangelogRecord*> flush;
  const sim::ChangelogRecord* after = nullptr;
  for (const sim::ChangelogRecord& r : trace.changelog) {
    if (r.partition != partition) continue;
    if (r.offset <= w.applied_offset) {
      flush.push_back(&r);
    } else if (after == nullptr) {
      after = &r;
    }
  }
  if (flush.empty() || flush.back()->offset != w.applied_offset) {
    proof.text = fmt::format("record #{}: no changelog-{} record at its replica's offset {}",
                             record.id, partition, w.applied_offset);
    return proof;
  }
  const sim::ChangelogRecord& last = *flush.back();
  size_t first = flush.size() - 1;
  while (first > 0 && flush[first - 1]->writer == last.writer &&
         flush[first - 1]->appended_ms == last.appended_ms) {
    --first;
  }
  // What the log covered before the flush: the largest header beneath it (any writer's).
  int64_t covered = -1;
  for (size_t i = 0; i < first; ++i) {
    if (flush[i]->position) {
      covered = std::max(covered, reported_offset(context, *flush[i]->position, partition));
    }
  }
  flush.erase(flush.begin(), flush.begin() + static_cast<std::ptrdiff_t>(first));
  for (const sim::ChangelogRecord* r : flush) {
    if (!r->committed()) {
      proof.text = fmt::format("record #{}: changelog-{} offset {} of its flush is {}", record.id,
                               partition, r->offset, sim::to_string(r->txn));
      return proof;
    }
  }
  if (after != nullptr && after->writer == last.writer && after->appended_ms == last.appended_ms) {
    proof.text = fmt::format("record #{}: the {} of changelog-{} offset {} goes on in the log",
                             record.id, what, partition, w.applied_offset);
    return proof;
  }
  if (!crashed_inside_send(context, last.writer, last.appended_ms, partition) &&
      !(cached && died_inside_cache_flush(trace, partition, *flush.front(), last))) {
    proof.text = fmt::format(
        "record #{}: {}, which wrote changelog-{} offset {} at {} ms, did not crash inside a send "
        "to it then{}",
        record.id, last.writer, partition, w.applied_offset, last.appended_ms.ms_since_epoch(),
        cached ? ", nor did its store life die inside the cache flush that wrote it" : "");
    return proof;
  }
  const int64_t reported = reported_offset(context, *outcome.position, partition);
  const WindowFold fold = window_fold(context, record.request, partition, *w.replica,
                                      w.applied_offset, answered_at(record));
  const std::vector<Slot> slots = differing_slots(
      slots_of(fold.answer), slots_of(window_want(context, record.request, partition, reported)));
  if (slots.empty()) {
    proof.text =
        fmt::format("record #{}: its fold is the model's answer at offset {}", record.id, reported);
    return proof;
  }
  const std::map<Slot, SlotState> fold_slots = slots_of(fold.answer);
  for (const Slot& slot : slots) {
    if (auto why = why_not_lost(context, record.request, partition, flush, slot, reported, covered,
                                fold_slots, cached)) {
      proof.text = fmt::format("record #{}: slot {} differs from the model at offset {}, {}",
                               record.id, slot_text(slot), reported, *why);
      return proof;
    }
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{} is the fold of changelog-{} [.., {}] that {}'s {} had applied, the end of the "
      "{} {} wrote at {} ms (changelog-{} offsets {}-{}) before it crashed inside it; the "
      "{} slot(s) it differs from the model on at offset {} were written above offset {}, the "
      "largest header before that {}, and not by it: {}",
      record.id, partition, w.applied_offset, w.replica->instance, sim::to_string(w.replica->role),
      what, last.writer, last.appended_ms.ms_since_epoch(), partition, flush.front()->offset,
      w.applied_offset, slots.size(), reported, covered, what,
      cached ? "dirty in the cache the crash lost" : "writes the crash lost before they were sent");
  return proof;
}

// ---- A replica inside a compacted window or session changelog ----
//
// kReplicaInsideCompactedChangelog for a window or session store (compacted_read.cc states the
// key-value form): the answer is its replica's fold of what it could read of the compacted log
// (ChangelogWitness holds, position included, only by skipping records the cleaner removed before
// the replica fetched them: window_compacted_read), and the fold of the whole prefix, those
// records read, is exactly the model's answer at the reported offset.
ClassProof prove_window_compacted_read(const JudgeContext& context, const sim::QueryRecord& record,
                                       const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  const std::optional<WitnessResult> held =
      fold_with_position(context, record, outcome, "no position from the changelog headers", proof);
  if (!held) return proof;
  const WitnessResult& w = *held;
  if (w.compacted_skips.empty()) {
    proof.text =
        fmt::format("record #{} is not the fold of a compacted read of its changelog", record.id);
    return proof;
  }
  const int32_t partition = outcome.partition;
  const int64_t reported = reported_offset(context, *outcome.position, partition);
  const WindowFold whole = window_fold(context, record.request, partition, *w.replica,
                                       w.applied_offset, answered_at(record));
  const WindowWant want = window_want(context, record.request, partition, reported);
  if (whole.answer.entries != want.entries || whole.answer.timestamps != want.timestamps) {
    proof.text = fmt::format(
        "record #{}: with the records the cleaner removed read, its replica's fold of "
        "changelog-{} [.., {}] is {}, not the model's {} at offset {}",
        record.id, partition, w.applied_offset, want_text(whole.answer), want_text(want), reported);
    return proof;
  }
  size_t skipped = 0;
  base::Instant removed_ms_max{};
  for (const CompactedSkip& s : w.compacted_skips) {
    skipped += s.skipped.size();
    removed_ms_max = std::max(removed_ms_max, s.removed_ms_max);
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{} is the fold of what {}'s {} could read of the compacted changelog-{} [.., {}]: "
      "{} record(s) of {} key(s) the cleaner removed by {} ms skipped; with them read it is the "
      "model's answer at offset {}",
      record.id, w.replica->instance, sim::to_string(w.replica->role), partition, w.applied_offset,
      skipped, w.compacted_skips.size(), removed_ms_max.ms_since_epoch(), reported);
  return proof;
}

// ---- A window or session aggregate that counts a replayed prefix twice ----
//
// At-least-once reprocessing of a windowed or session Count or Sum: the next owner restores the
// aggregates its predecessor logged (covering input past the committed offset) and processes that
// input again, adding each replayed record to the window or session that already counts it. A
// record cache may flush those writes only after the range closed and coalesced into later ones,
// so neither append times nor headers date them (reprocessed_write in violation_class.cc); the
// values do. The proof, for the at-least-once class when ChangelogWitness holds (the caller checks
// that): the switch on, a range R of the partition processed again begun by the answer with R's
// first offset at or below the reported offset P, the answer's windows or sessions exactly the
// model's at P (keys, bounds, timestamps), and each value that differs exceeding the model's by
// the aggregate (count, or sum of values) of a non-empty prefix of the key's non-null records of
// one such R at or below P that fall in that window or session.
ClassProof prove_replayed_window_aggregate(const JudgeContext& context,
                                           const sim::QueryRecord& record,
                                           const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  const sim::RunTrace& trace = context.trace();
  const TopologyConfig& topology = trace.topology;
  const bool sum =
      topology.kind == TopologyKind::WindowedSum || topology.kind == TopologyKind::SessionSum;
  const auto* got = std::get_if<sim::WindowedList>(&outcome.value);
  if (!sum && topology.kind != TopologyKind::WindowedCount &&
      topology.kind != TopologyKind::SessionCount) {
    proof.text = "not a window or session aggregation";
    return proof;
  }
  if (trace.reprocessed_dropped > 0 || !outcome.position || got == nullptr ||
      !trace.consistency_offset_vector_enabled) {
    proof.text = "not a window or session aggregate answer with a whole ledger and a position";
    return proof;
  }
  const int32_t partition = outcome.partition;
  const int64_t reported = reported_offset(context, *outcome.position, partition);
  std::vector<const sim::ReprocessedRange*> ranges;
  for (const sim::ReprocessedRange& r : trace.reprocessed) {
    if (r.partition == partition && r.start_ms <= record.complete_ms &&
        r.first_offset <= SourceOffset(reported)) {
      ranges.push_back(&r);
    }
  }
  if (ranges.empty()) {
    proof.text = "no input of its partition was processed again beneath its position";
    return proof;
  }
  const WindowWant want = window_want(context, record.request, partition, reported);
  WindowWant answer;
  answer.entries = *got;
  answer.timestamps = outcome.timestamps;
  const std::map<Slot, SlotState> got_slots = slots_of(answer);
  const std::map<Slot, SlotState> want_slots = slots_of(want);
  // The model's retention floor is the store's unless the store object opened over kept data
  // (window_not_judged reads the same recorded fact).
  if ((want.uncertain && served_over_kept_data(context, record, partition)) ||
      got_slots.size() != want_slots.size() || got_slots.size() != got->size()) {
    proof.text = fmt::format("its windows or sessions are not the model's at offset {}", reported);
    return proof;
  }
  size_t doubled = 0;
  for (const Slot& slot : differing_slots(got_slots, want_slots)) {
    const auto& [key, start, end] = slot;
    const auto g = got_slots.find(slot);
    const auto w = want_slots.find(slot);
    if (g == got_slots.end() || w == want_slots.end() ||
        g->second.timestamp_ms != w->second.timestamp_ms || g->second.value <= w->second.value) {
      proof.text = fmt::format("slot {} is not the model's at offset {} plus a replay",
                               slot_text(slot), reported);
      return proof;
    }
    const int64_t last_ms = end ? *end : start + topology.window_size_ms - 1;
    const int64_t extra = g->second.value - w->second.value;
    bool found = false;
    for (const sim::ReprocessedRange* r : ranges) {
      int64_t replayed = 0;
      for (const sim::SourceLogRecord& s : trace.source_log) {
        if (s.partition != partition || s.offset < r->first_offset || s.offset > r->last_offset ||
            s.offset > SourceOffset(reported) || s.key != key || !s.value ||
            s.timestamp_ms < start || s.timestamp_ms > last_ms) {
          continue;
        }
        replayed += sum ? *s.value : 1;
        if (replayed == extra) found = true;
        if (found || replayed > extra) break;
      }
      if (found) break;
    }
    if (!found) {
      proof.text = fmt::format(
          "slot {}: {} above the model's at offset {} is the {} of no prefix of key {}'s records "
          "in a range processed again",
          slot_text(slot), extra, reported, sum ? "sum" : "count", key);
      return proof;
    }
    ++doubled;
  }
  if (doubled == 0) {
    proof.text = fmt::format("its fold is the model's answer at offset {}", reported);
    return proof;
  }
  proof.proven = true;
  proof.text = fmt::format(
      "its {} window(s) or session(s) that differ from the model's at offset {} each count a "
      "prefix of their key's records in a range processed again twice",
      doubled, reported);
  return proof;
}

// ---- A replica that restored null puts a retainDuplicates window store skipped live ----
//
// Quirk 26: with retainDuplicates, RocksDBWindowStore.put returns before anything for a null value
// (no write, no observed stream time, no position), while ChangeLoggingWindowBytesStore logs it,
// under the position before it. A store that restores the record instead
// (AbstractRocksDBSegmentedBytesStore.restoreAllInternal: a standby, a restoring active) takes its
// window start into its observed stream time, so its retention floor rises above the live
// store's at the same position and hides windows the active and the model still show. The proof
// (ViolationClass::kDuplicatesNullPutSkipped): a retainDuplicates RocksDB window store, the switch
// on, the answer its replica's changelog fold as restore takes it (ChangelogWitness holds,
// position included), the replica restored at least one such null put, and the same records with
// those nulls skipped as the live store skips them fold to exactly the model's answer at the
// reported offset.
ClassProof prove_restored_null_puts(const JudgeContext& context, const sim::QueryRecord& record,
                                    const sim::PartitionOutcome& outcome) {
  ClassProof proof;
  const sim::RunTrace& trace = context.trace();
  const TopologyConfig& topology = trace.topology;
  if (!topology.windowed() || !topology.retain_duplicates ||
      topology.supplier == KeyValueSupplier::kInMemory) {
    proof.text = "not a retainDuplicates RocksDB window store";
    return proof;
  }
  const std::optional<WitnessResult> held =
      fold_with_position(context, record, outcome, "no position from the changelog headers", proof);
  if (!held) return proof;
  const WitnessResult& w = *held;
  const int32_t partition = outcome.partition;
  int64_t nulls = 0;
  const WindowFold live = window_fold(context, record.request, partition, *w.replica,
                                      w.applied_offset, answered_at(record), {}, true, &nulls);
  if (nulls == 0) {
    proof.text =
        fmt::format("record #{}: its replica restored no null put of changelog-{} [.., {}]",
                    record.id, partition, w.applied_offset);
    return proof;
  }
  const int64_t reported = reported_offset(context, *outcome.position, partition);
  const WindowWant want = window_want(context, record.request, partition, reported);
  if (live.answer.entries != want.entries || live.answer.timestamps != want.timestamps) {
    proof.text = fmt::format(
        "record #{}: with the {} restored null put(s) skipped as the live store skips them, its "
        "fold is {}, not the model's {}",
        record.id, nulls, want_text(live.answer), want_text(want));
    return proof;
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{} is the fold of changelog-{} [.., {}] as {}'s {} restored it, {} null put(s) "
      "raising its stream time (quirk 26); with them skipped, as the live store skips them, it "
      "is the model's answer at offset {}",
      record.id, partition, w.applied_offset, w.replica->instance, sim::to_string(w.replica->role),
      nulls, reported);
  return proof;
}

namespace {

// Whether a record of the key at or below source offset `bound` explains `r` (see
// window_record_unexplained).
bool explained_below(const JudgeContext& context, const sim::ChangelogRecord& r, int64_t bound) {
  const TopologyConfig& t = context.trace().topology;
  const int64_t start = *r.window_start_ms;
  const bool papi =
      t.kind == TopologyKind::WindowPapiWriter || t.kind == TopologyKind::SessionPapiWriter;
  bool found_start = false;
  bool found_end = false;
  bool explained = false;
  // Only the key's records of the partition up to the bound: what follows is a disjunction over
  // them, so their order does not matter (a pass over the partition per changelog record was 1-2 %
  // of a heavy default seed, a pass over the whole log 6 % of a window seed before).
  WindowFoldCache& cache = context.window_fold_cache();
  if (!cache.source_indexed) {
    for (const sim::SourceLogRecord& s : context.trace().source_log) {
      cache.source_by_key[{s.partition, s.key}].push_back(&s);
    }
    cache.source_indexed = true;
  }
  const auto it = cache.source_by_key.find({r.partition, r.key});
  if (it == cache.source_by_key.end()) return false;
  // Walked down from the bound (the record that wrote `r` usually lies right at its header), and
  // left as soon as the result is settled: every flag only turns true, by a test of one record.
  const bool needs_bounds = t.session() && !papi && r.value.has_value();
  const std::vector<const sim::SourceLogRecord*>& records = it->second;
  const auto above = std::upper_bound(
      records.begin(), records.end(), bound,
      [](int64_t b, const sim::SourceLogRecord* s) { return b < s->offset.value(); });
  for (auto down = std::make_reverse_iterator(above); down != records.rend(); ++down) {
    if (explained && (!needs_bounds || (found_start && found_end))) break;
    const sim::SourceLogRecord& s = **down;
    const int64_t ts = s.timestamp_ms;
    if (t.windowed()) {
      const bool in_window = ts >= start && ts - start < t.window_size_ms;
      if (papi) {
        explained = explained || (in_window && ts == r.timestamp_ms && s.value == r.value &&
                                  start == ts / t.window_size_ms * t.window_size_ms);
      } else {
        explained = explained || (r.value && in_window && ts == r.timestamp_ms);
      }
      continue;
    }
    const int64_t end = *r.window_end_ms;
    found_start = found_start || ts == start;
    found_end = found_end || ts == end;
    if (papi) {
      explained =
          explained || (start == ts && end == ts && ts == r.timestamp_ms && s.value == r.value);
    } else if (r.value) {
      explained = explained || (ts == r.timestamp_ms && ts >= start && ts <= end);
    } else {
      explained = explained || (ts == r.timestamp_ms && ts >= start - t.session_gap_ms &&
                                ts <= end + t.session_gap_ms);
    }
  }
  if (needs_bounds) explained = explained && found_start && found_end;
  return explained;
}

// Why the put that logged `r` may have left the store's position where it was, so that `r`'s
// header (offset `header` of its partition) is the position before the record that wrote it; ""
// when it cannot have. Both happen on a RocksDB (segmented) store only, whose change-logging layer
// logs every put with the inner store's position after it (ChangeLoggingWindowBytesStore.log,
// ChangeLoggingSessionBytesStore.put), while the in-memory stores update theirs on every put:
// - RocksDBWindowStore.put skips a null put under retainDuplicates before the bytes store;
// - AbstractRocksDBSegmentedBytesStore.put skips a put into a segment that is not live at the
//   store's observed stream time (getOrCreateSegmentIfLive), updating no position. The segment
//   is the window start's or the session end's. That stream time is at most the largest
//   timestamp of the partition's records at or below the header: a put that raises it is live and
//   moves the position to its record's offset, and a put a restore replays carries a header at
//   or above the records it aggregates (or is itself older than its writer's stream time). So the
//   segment must be dead at that largest timestamp: at any lower one it may be too.
std::string put_may_keep_position(const JudgeContext& context, const sim::ChangelogRecord& r,
                                  int64_t header) {
  const TopologyConfig& t = context.trace().topology;
  if (t.supplier == KeyValueSupplier::kInMemory) return {};
  if (t.windowed() && t.kind == TopologyKind::WindowPapiWriter && t.retain_duplicates && !r.value) {
    return "RocksDBWindowStore skips a null put under retainDuplicates and logs it under the "
           "position before it";
  }
  int64_t retention_ms = 0;
  int64_t interval_ms = 1;
  if (t.windowed()) {
    const model::WindowSpec spec = window_spec_of(t);
    retention_ms = spec.retention_ms;
    interval_ms = spec.segment_interval_ms;
  } else {
    const model::SessionSpec spec = session_spec_of(t);
    retention_ms = spec.retention_ms;
    interval_ms = spec.segment_interval_ms;
  }
  IQ_ASSERT(interval_ms > 0, "seed {}: segment interval {}", context.trace().seed, interval_ms);
  std::optional<int64_t> stream_time_max_ms;
  for (const sim::SourceLogRecord& s : context.trace().source_log) {
    if (s.partition != r.partition || s.offset.value() > header) continue;
    stream_time_max_ms = std::max(stream_time_max_ms.value_or(s.timestamp_ms), s.timestamp_ms);
  }
  if (!stream_time_max_ms) return {};
  const int64_t segment_ms = t.windowed() ? *r.window_start_ms : *r.window_end_ms;
  // Java's long division, towards zero, as C++'s: AbstractSegments.segmentId.
  const int64_t min_live_segment = (*stream_time_max_ms - retention_ms) / interval_ms;
  if (segment_ms / interval_ms >= min_live_segment) return {};
  return fmt::format(
      "its segment {} was not live at stream time {} (the largest timestamp at or below the "
      "header), where AbstractRocksDBSegmentedBytesStore skips the put and the log keeps the "
      "position before it",
      segment_ms / interval_ms, *stream_time_max_ms);
}

}  // namespace

// ---- Every windowed changelog record explained by a source record ----
//
// A window store's record [key][start] is the aggregate of the window [start, start + size)
// written while processing a record of the key in that window, whose timestamp the record
// carries (the timestamped store's ValueAndTimestamp carries the aggregate's, the largest of the
// window's records; the plain store's log takes the processed record's: either way a record of
// the key in the window with that timestamp). A PAPI window writer's record is a record of the
// key with that value and timestamp, in the window floor(ts / size) * size. A session store's
// record [key][start, end] with a value is a merged session written while processing a record
// of the key inside it (the log carries the processed record's timestamp), whose bounds are
// timestamps of the key's records; its tombstone removes a session a record of the key within
// the gap merged (the log carries that record's timestamp). The PAPI session writer puts each
// record as [ts, ts] (a null value logs a tombstone). All at or below the record's header offset,
// except where the store's put left its position where it was (`put_may_keep_position`): then
// the header is the position before the record, which lies above it, anywhere in the input.
std::optional<std::string> window_record_unexplained(const JudgeContext& context,
                                                     const sim::ChangelogRecord& r) {
  const TopologyConfig& t = context.trace().topology;
  IQ_ASSERT(t.windowed() || t.session(), "seed {}", context.trace().seed);
  if (!r.window_start_ms || (t.session() && !r.window_end_ms)) {
    return std::string("a windowed changelog record without its window");
  }
  // A session removal does not move the store's position (InMemorySessionStore.remove and
  // AbstractRocksDBSegmentedBytesStore.remove leave it), so its header is the position before the
  // merging record's put: that record lies above it, anywhere in the input.
  const bool removal = t.session() && !r.value;
  const int64_t header = r.position && !removal ? reported_offset(context, *r.position, r.partition)
                                                : std::numeric_limits<int64_t>::max();
  if (explained_below(context, r, header)) return std::nullopt;
  std::string kept;
  if (header != std::numeric_limits<int64_t>::max()) {
    kept = put_may_keep_position(context, r, header);
    if (!kept.empty() && explained_below(context, r, std::numeric_limits<int64_t>::max())) {
      return std::nullopt;
    }
  }
  const std::string below = header == std::numeric_limits<int64_t>::max()
                                ? std::string("in the input")
                                : fmt::format("at or below source offset {}", header);
  return fmt::format("{} of key {} [{}, {}] at timestamp {}: no record of the key {} explains it{}",
                     r.value ? "a write" : "a tombstone", r.key, *r.window_start_ms,
                     r.window_end_ms ? std::to_string(*r.window_end_ms) : std::string("+size"),
                     r.timestamp_ms, below,
                     kept.empty() ? std::string() : fmt::format(" ({}, nor any above it)", kept));
}

// Two window or session answers at one position of a segmented store that differ only in entries
// the model hides beneath the retention floor: one replica's store object was reopened from its
// .checkpoint, so its observed stream time (not persisted) is lower and the floor has not hidden
// them yet. True when the model at that offset has such a hidden entry in a live segment, one
// answer is the model's, and the other is its replica's changelog fold with the reopen
// (ChangelogWitness holds, on a replica restored from a .checkpoint) holding the model's entries
// in order.
bool window_reopened_difference(const JudgeContext& context, const sim::QueryRecord& record_a,
                                const sim::PartitionOutcome& a, const sim::QueryRecord& record_b,
                                const sim::PartitionOutcome& b) {
  const sim::QueryRequestRecord& request = record_a.request;
  if (!is_window_kind(request.kind) ||
      context.trace().topology.supplier == KeyValueSupplier::kInMemory) {
    return false;
  }
  if (not_answerable(context, request) || !a.position) return false;
  const int64_t offset = reported_offset(context, *a.position, a.partition);
  const WindowWant want = window_want(context, request, a.partition, offset);
  if (!want.uncertain) return false;
  const bool a_is = outcome_is(a, want);
  if (a_is == outcome_is(b, want)) return false;
  const sim::QueryRecord& record = a_is ? record_b : record_a;
  const sim::PartitionOutcome& more = a_is ? b : a;
  const WitnessResult w = changelog_witness(context, record, more);
  if (w.verdict != Witness::kHolds || w.replica == nullptr || !w.replica->restored_from) {
    return false;
  }
  const auto* got = std::get_if<sim::WindowedList>(&more.value);
  if (got == nullptr || got->size() <= want.entries.size()) return false;
  size_t i = 0;
  for (const sim::WindowedValue& e : *got) {
    if (i < want.entries.size() && e == want.entries[i]) ++i;
  }
  return i == want.entries.size();
}

// Whether the store skips the record at `s` without a write, as the model's history says:
// dropped beyond grace by the aggregation (quirk 25), or a null put into a retainDuplicates
// RocksDB window store (quirk 26: RocksDBWindowStore.put returns before anything for it).
static bool duplicates_null_put(const TopologyConfig& t, const sim::SourceLogRecord& s) {
  return t.kind == TopologyKind::WindowPapiWriter && t.retain_duplicates &&
         t.supplier != KeyValueSupplier::kInMemory && !s.value;
}

TailProof prove_window_skipped_tail(const JudgeContext& context, int32_t partition) {
  TailProof tail;
  ClassProof& proof = tail.proof;
  const sim::RunTrace& trace = context.trace();
  const model::WindowHistory* window = context.window_history();
  const model::SessionHistory* session = context.session_history();
  if ((window == nullptr && session == nullptr) || !trace.liveness) {
    proof.text = fmt::format(
        "partition {} is not a window or session store's under a liveness phase", partition);
    return tail;
  }
  const std::optional<StuckProbe> stuck = stuck_probe_of(context, partition, proof);
  if (!stuck) return tail;
  const int64_t position = stuck->position;
  const int64_t bound = stuck->bound;
  // The model's store took no record after the position, up to the bound.
  const std::optional<int64_t> moved = window != nullptr
                                           ? window->position_offset(partition, bound)
                                           : session->position_offset(partition, bound);
  if (moved.value_or(-1) != position) {
    proof.text = fmt::format("the model's store position at the bound {} is {}, not the probe's {}",
                             bound, moved.value_or(-1), position);
    return tail;
  }
  int64_t dropped = 0;
  int64_t null_puts = 0;
  for (const sim::SourceLogRecord& s : trace.source_log) {
    if (s.partition != partition || s.offset.value() <= position) continue;
    if (s.offset.value() > bound) break;
    const bool grace = window != nullptr ? window->grace_dropped_at(partition, s.offset.value())
                                         : session->grace_dropped_at(partition, s.offset.value());
    if (grace) {
      ++dropped;
    } else if (duplicates_null_put(trace.topology, s)) {
      ++null_puts;
    } else {
      proof.text = fmt::format(
          "source offset {} of partition {} lies beyond the position {} but was neither dropped "
          "beyond grace in the model nor a null put a retainDuplicates RocksDB window store skips",
          s.offset.value(), partition, position);
      return tail;
    }
  }
  // No replica anywhere could have reached past the position: no logged write covers more.
  for (const sim::ChangelogRecord& r : trace.changelog) {
    if (r.partition != partition || !r.position) continue;
    if (reported_offset(context, *r.position, partition) > position) {
      proof.text = fmt::format("changelog-{} offset {} carries a header past {}", partition,
                               r.offset, position);
      return tail;
    }
  }
  IQ_ASSERT(dropped + null_puts > 0, "seed {}: partition {} has no source record in ({}, {}]",
            trace.seed, partition, position, bound);
  // The aggregations drop late records; only the PAPI writer puts nulls: never both in one run.
  IQ_ASSERT(dropped == 0 || null_puts == 0, "seed {}: partition {}: {} drops and {} null puts",
            trace.seed, partition, dropped, null_puts);
  proof.proven = true;
  if (null_puts > 0) {
    tail.duplicates_null_puts = true;
    proof.text = fmt::format(
        "partition {}'s offsets ({}, {}] are {} null put(s) into a retainDuplicates RocksDB "
        "window store, which skips each before anything (quirk 26): no position covers them and "
        "no changelog header passes {}",
        partition, position, bound, null_puts, position);
    return tail;
  }
  proof.text = fmt::format(
      "partition {}'s offsets ({}, {}] are {} record(s) late beyond the grace period, which the "
      "window or session aggregation drops without a store write (quirk 25): no position covers "
      "them and no changelog header passes {}",
      partition, position, bound, dropped, position);
  return tail;
}

std::vector<int32_t> window_differing_keys(const JudgeContext& context,
                                           const sim::QueryRecord& record,
                                           const sim::PartitionOutcome& outcome, int64_t reported) {
  WindowWant answer;
  if (const auto* got = std::get_if<sim::WindowedList>(&outcome.value)) answer.entries = *got;
  answer.timestamps = outcome.timestamps;
  const WindowWant want = window_want(context, record.request, outcome.partition, reported);
  std::vector<int32_t> keys;
  for (const Slot& slot : differing_slots(slots_of(answer), slots_of(want))) {
    keys.push_back(std::get<0>(slot));
  }
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

}  // namespace iq::properties::detail
