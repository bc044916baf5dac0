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

#include "checks/check.h"
#include "checks/check_util.h"
#include "model/key_bytes.h"

namespace iq::properties::detail {
namespace {

// What a window or session answer should hold, with whether it depends on unpersisted stream time.
struct WindowWant {
  sim::WindowedList entries;
  std::vector<int64_t> timestamps;  // empty unless the store answers ValueAndTimestamp
  bool uncertain = false;
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

bool outcome_is(const sim::PartitionOutcome& outcome, const WindowWant& want) {
  const auto* got = std::get_if<sim::WindowedList>(&outcome.value);
  return got != nullptr && *got == want.entries && outcome.timestamps == want.timestamps;
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
bool grace_dropped_up_to(const JudgeContext& context, int32_t partition,
                         std::optional<int32_t> key, int64_t offset) {
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
    if (!request.from_time_ms || !request.to_time_ms) return "a window query without its time range";
    if (request.kind == QueryKind::WindowKeyQuery && !request.key) {
      return "a key query without a recorded key";
    }
    return std::nullopt;
  }
  if (request.kind != QueryKind::WindowRangeQuery || !request.key) {
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
                                             const sim::QueryRequestRecord& request,
                                             int32_t partition, int64_t offset) {
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
  if (window_want(context, request, partition, offset).uncertain) {
    return std::string(
        "window: a window the retention floor hides sits in a live segment (a segmented store's "
        "observed stream time is not persisted)");
  }
  return std::nullopt;
}

std::optional<std::string> window_position_implausible(const JudgeContext& context,
                                                       const Position& position,
                                                       int32_t partition, int64_t offset) {
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
// holds. A segmented store reopened from a .checkpoint (ReplicaSnapshot::restored_from) kept the
// records up to it on disk and restarted its stream time from -1 (not persisted): the fold
// reopens there. The caching window and session layers answer IQv2 from the store below
// (CachingWindowStore.query and CachingSessionStore.query pass the query down), so the record
// cache's unlogged writes do not count. The position, with the switch on, is the highest header
// component of the applied records (the inner store's position after each logged put).
//
// Not judged (counted): a difference where the fold hides a window in a live segment (a
// segmented store's stream time depends on where its store object was opened), and one on a
// persistent store whose instance crashed, restarted or closed before (the store may hold an
// earlier life's records beneath its restore, as the key-value witness's older_life says).
WitnessResult window_changelog_witness(const JudgeContext& context, const sim::QueryRecord& record,
                                       const sim::PartitionOutcome& outcome,
                                       const sim::ReplicaSnapshot& replica,
                                       ChangelogOffset applied) {
  const sim::RunTrace& trace = context.trace();
  const TopologyConfig& topology = trace.topology;
  WitnessResult result;
  result.replica = &replica;
  result.applied_offset = applied;
  const base::Instant at_ms =
      record.placement_at_answer ? record.placement_at_answer->at_ms : record.complete_ms;
  const int32_t partition = outcome.partition;
  const bool segmented = topology.supplier != KeyValueSupplier::kInMemory;
  const int64_t records_max = std::max<int64_t>(1, static_cast<int64_t>(trace.changelog.size()));
  std::optional<model::WindowHistory> window;
  std::optional<model::SessionHistory> session;
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
  SourceOffset header(-1);
  bool foreign_header = false;
  bool reopened = false;
  int64_t last = -1;
  const std::string& topic = topology.source_topic;
  for (const sim::ChangelogRecord& r : trace.changelog) {
    if (r.partition != partition || r.offset > applied) continue;
    if (!applied_by(replica, applied, r, at_ms)) continue;
    IQ_ASSERT(r.window_start_ms.has_value(), "changelog-{} offset {} has no window", partition,
              r.offset);
    const int64_t o = r.offset.value();
    IQ_ASSERT(o > last, "changelog-{} offsets out of order at {}", partition, o);
    last = o;
    if (segmented && !reopened && replica.restored_from && r.offset > *replica.restored_from) {
      if (window) window->reopen_store(partition, o, -1);
      if (session) session->reopen_store(partition, o, -1);
      reopened = true;
    }
    const model::KeyBytes key = model::serialize_int32_key(r.key);
    if (window) {
      window->put(partition, o, key, r.value, r.timestamp_ms, *r.window_start_ms);
    } else {
      IQ_ASSERT(r.window_end_ms.has_value(), "session changelog-{} offset {} has no end",
                partition, o);
      session->put(partition, o, key, *r.window_start_ms, *r.window_end_ms, r.value);
    }
    if (r.position) {
      for (const auto& [t, offsets] : r.position->map()) {
        for (const auto& [p, component] : offsets) {
          if (t != topic || p != partition) {
            foreign_header = true;
          } else {
            header = std::max(header, SourceOffset(component));
          }
        }
      }
    }
  }
  const WindowWant want = want_of(topology, window ? &*window : nullptr,
                                  session ? &*session : nullptr, record.request, partition,
                                  std::numeric_limits<int64_t>::max());
  if (!outcome_is(outcome, want)) {
    if (want.uncertain) {
      result.verdict = Witness::kNotJudged;
      result.why =
          "window: the fold hides a window in a live segment (a segmented store's observed "
          "stream time depends on where its store object was opened)";
      return result;
    }
    if (segmented && restarted_before(context, replica.instance, record.complete_ms)) {
      result.verdict = Witness::kNotJudged;
      result.why =
          "window: a persistent store of an instance that crashed, restarted or closed before "
          "(it may keep an earlier life's records beneath its restore)";
      return result;
    }
    result.verdict = Witness::kDiffers;
    result.why = fmt::format("the answer is not the fold of changelog-{} [.., {}] that {}'s {} had "
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
  Position folded = Position::empty_position();
  if (header >= SourceOffset(0)) folded.with_component(topic, partition, header);
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

}  // namespace iq::properties::detail
