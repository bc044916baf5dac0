// FailureReasonCorrect: each failure reason is the one Kafka's rules give for the placement at
// query time (NOT_ACTIVE, NOT_PRESENT, NOT_UP_TO_BOUND, UNKNOWN_QUERY_TYPE, ...) and a success is
// not returned where a failure was due.
//
// An oracle, written from docs/iqv2-semantics.md §4-§6 rather than from impl/, derives
// what KafkaStreams#query on the answering instance must return from that instance's replicas in
// placement_at_answer (taken in the same event as the query, so nothing moved in between):
//   1. a store the topology does not have     -> UnknownStateStoreException (before any state);
//      client CREATED                          -> StreamsNotStartedException;
//      PENDING_SHUTDOWN, PENDING_ERROR, NOT_RUNNING, ERROR -> StreamsStoppedException;
//      each with Kafka's exact message (the store name, or the state, in it); a closed client in
//      a live application (not running, NOT_RUNNING in the snapshot) is judged so too;
//   2. per partition (the named ones, or every partition for an all-partitions request):
//      no task with the store registered       -> NOT_PRESENT if named, no entry otherwise
//                                                 (out-of-range partitions too: DOES_NOT_EXIST is
//                                                 never produced, quirk 4);
//      requireActive and (the owning THREAD is not RUNNING or the task is a standby)
//                                              -> NOT_ACTIVE (a restoring active on a RUNNING
//                                                 thread passes: Kafka's quirk, 3.6);
//      otherwise the store runs the query with the bound, or unbounded under requireActive
//      (quirk 3):
//        a Timestamped* query on a plain (PAPI) store, a custom query class, or a KIP-1356
//        header query (2026-08-20 pin; no store here has headers)
//                                              -> UNKNOWN_QUERY_TYPE, before the bound check;
//        the position checked does not dominate the bound -> NOT_UP_TO_BOUND;
//        a window/versioned query on a key-value store -> UNKNOWN_QUERY_TYPE, after the bound
//                                                 check (quirk 11);
//        a range whose serialized lower bound exceeds its upper, on the DSL adapter over a plain
//        RocksDB store                         -> ClassCastException escapes the call (2.3);
//        else success (or STORE_EXCEPTION, which comes from store I/O the snapshot cannot show).
// The position checked: a cached store's KeyQuery (and a DSL store's TimestampedKeyQuery, which
// the metered layer turns into a KeyQuery) checks the cache position merged with the inner one,
// which is exactly the snapshot's store_position; every other query on a cached store checks the
// inner position alone, which the snapshot does not show. There the oracle knows only that the
// inner position is at most the merged one: not dominating the merged one means NOT_UP_TO_BOUND,
// dominating it allows either outcome.
//
// Not judged (counted): records that never reached a live instance, records without
// placement_at_answer, and exceptions thrown from inside a store (InvalidStateStoreException on a
// closed store, RocksDB errors) where the oracle expects the store to run: the snapshot cannot
// see those causes.

#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>

#include "base/assert.h"
#include "checks/check.h"
#include "checks/check_util.h"
#include "model/key_bytes.h"

namespace iq::properties {
namespace {

constexpr const char* kFailureReasonCorrectName = sim::property_names::kFailureReasonCorrect.data();
// One partition's outcome as the oracle names it, in the order a set of them is printed.
enum class Outcome : uint32_t {
  kSuccess,
  kStoreException,
  kUnknownQueryType,
  kNotActive,
  kNotUpToBound,
  kNotPresent,
  kDoesNotExist,
  kNoEntry,    // no result for the partition at all
  kClassCast,  // the call throws ClassCastException instead of answering
  kNoReason,   // a failure without a reason: never Kafka's
  kCount,
};

const char* name(Outcome o) {
  switch (o) {
    case Outcome::kSuccess:
      return "success";
    case Outcome::kStoreException:
      return "STORE_EXCEPTION";
    case Outcome::kUnknownQueryType:
      return "UNKNOWN_QUERY_TYPE";
    case Outcome::kNotActive:
      return "NOT_ACTIVE";
    case Outcome::kNotUpToBound:
      return "NOT_UP_TO_BOUND";
    case Outcome::kNotPresent:
      return "NOT_PRESENT";
    case Outcome::kDoesNotExist:
      return "DOES_NOT_EXIST";
    case Outcome::kNoEntry:
      return "no entry";
    case Outcome::kClassCast:
      return "ClassCastException";
    case Outcome::kNoReason:
      return "a failure without a reason";
    case Outcome::kCount:
      break;
  }
  return "?";
}

Outcome outcome_of(const sim::PartitionOutcome& o) {
  if (o.success) return Outcome::kSuccess;
  if (!o.failure_reason) return Outcome::kNoReason;
  switch (*o.failure_reason) {
    case FailureReason::UNKNOWN_QUERY_TYPE:
      return Outcome::kUnknownQueryType;
    case FailureReason::NOT_ACTIVE:
      return Outcome::kNotActive;
    case FailureReason::NOT_UP_TO_BOUND:
      return Outcome::kNotUpToBound;
    case FailureReason::NOT_PRESENT:
      return Outcome::kNotPresent;
    case FailureReason::DOES_NOT_EXIST:
      return Outcome::kDoesNotExist;
    case FailureReason::STORE_EXCEPTION:
      return Outcome::kStoreException;
  }
  return Outcome::kNoReason;
}

// A set of outcomes as a bit set: the oracle runs once per partition result, so no allocation.
class Allowed {
 public:
  Allowed() = default;
  Allowed(std::initializer_list<Outcome> outcomes) {
    for (Outcome o : outcomes) add(o);
  }
  void add(Outcome o) { bits_ |= bit(o); }
  bool has(Outcome o) const { return (bits_ & bit(o)) != 0; }
  bool only(Outcome o) const { return bits_ == bit(o); }
  std::string to_string() const {
    std::string out;
    for (uint32_t i = 0; i < static_cast<uint32_t>(Outcome::kCount); ++i) {
      if (!has(static_cast<Outcome>(i))) continue;
      out += (out.empty() ? "" : " or ") + std::string(name(static_cast<Outcome>(i)));
    }
    return out;
  }

 private:
  static uint32_t bit(Outcome o) { return 1u << static_cast<uint32_t>(o); }
  uint32_t bits_ = 0;
};

bool is_stopped(sim::ReplicaSnapshot::StreamsState s) {
  return s == sim::ReplicaSnapshot::StreamsState::PENDING_SHUTDOWN ||
         s == sim::ReplicaSnapshot::StreamsState::PENDING_ERROR ||
         s == sim::ReplicaSnapshot::StreamsState::NOT_RUNNING ||
         s == sim::ReplicaSnapshot::StreamsState::ERROR;
}

// The error KafkaStreams#query throws before looking at any task, if any.
std::optional<StreamsError::Kind> expected_error(const JudgeContext& context,
                                                 const sim::QueryRecord& record,
                                                 sim::ReplicaSnapshot::StreamsState client_state) {
  if (record.request.store != context.trace().topology.store_name) {
    return StreamsError::Kind::UnknownStateStore;
  }
  if (client_state == sim::ReplicaSnapshot::StreamsState::CREATED)
    return StreamsError::Kind::StreamsNotStarted;
  if (is_stopped(client_state)) return StreamsError::Kind::StreamsStopped;
  return std::nullopt;
}

// The message KafkaStreams#query gives with that error (KafkaStreams.java at 1eb7644), written
// from Kafka's source: the store name or the client state is part of it.
std::string kafka_error_message(StreamsError::Kind kind, const std::string& store,
                                sim::ReplicaSnapshot::StreamsState client_state) {
  switch (kind) {
    case StreamsError::Kind::UnknownStateStore:
      return "Cannot get state store " + store +
             " because no such store is registered in the topology.";
    case StreamsError::Kind::StreamsNotStarted:
      return "KafkaStreams has not been started, you can retry after calling start().";
    case StreamsError::Kind::StreamsStopped:
      return std::string("KafkaStreams has been stopped (") + sim::to_string(client_state) +
             "). This instance can no longer serve queries.";
    default:
      break;
  }
  IQ_ASSERT(false, "no query-path message for {}", StreamsError::kind_name(kind));
  return "";
}

bool inverted_range(const sim::QueryRequestRecord& request) {
  return request.lower && request.upper &&
         model::compare_key_bytes(model::serialize_int32_key(*request.lower),
                                  model::serialize_int32_key(*request.upper)) > 0;
}

// What the store stack answers once the query reaches it, given whether the checked position
// dominates the bound.
Allowed store_outcomes(const JudgeContext& context, const sim::QueryRequestRecord& request) {
  const TopologyConfig& topology = context.trace().topology;
  if (topology.versioned()) {
    // MeteredVersionedKeyValueStore answers the versioned queries; it throws on KeyQuery and
    // RangeQuery (quirk 15) and on an inverted MultiVersionedKeyQuery, which escape the call: an
    // error this oracle leaves unjudged when the store runs. Window queries reach the position
    // owner, bound-checked, and are unknown there.
    if (request.kind == QueryKind::WindowKeyQuery || request.kind == QueryKind::WindowRangeQuery) {
      return {Outcome::kUnknownQueryType};
    }
    return {Outcome::kSuccess, Outcome::kStoreException};
  }
  if (topology.windowed() || topology.session()) {
    // StoreQueryUtils' handlers below the bound check: runWindowKeyQuery answers on a WindowStore
    // only; runWindowRangeQuery answers withWindowStartRange on a WindowStore and withKey on a
    // SessionStore, and fails the other form UNKNOWN_QUERY_TYPE; every key-value kind is unknown
    // to a window or session store. The record tells the forms apart by the window-start range,
    // which only withWindowStartRange has (every client record holds the key it routed by).
    const bool start_range = request.from_time_ms.has_value();
    const bool answers = topology.windowed()
                             ? request.kind == QueryKind::WindowKeyQuery ||
                                   (request.kind == QueryKind::WindowRangeQuery && start_range)
                             : request.kind == QueryKind::WindowRangeQuery && !start_range;
    if (!answers) return {Outcome::kUnknownQueryType};
    return {Outcome::kSuccess, Outcome::kStoreException};
  }
  switch (request.kind) {
    case QueryKind::WindowKeyQuery:
    case QueryKind::WindowRangeQuery:
    case QueryKind::VersionedKeyQuery:
    case QueryKind::MultiVersionedKeyQuery:
      return {Outcome::kUnknownQueryType};
    default:
      break;
  }
  const bool adapter = topology.timestamped() && topology.supplier == KeyValueSupplier::kRocksDb;
  if (detail::is_range_kind(request.kind) && adapter && inverted_range(request)) {
    return {Outcome::kClassCast};
  }
  // STORE_EXCEPTION comes from the store's own I/O, which no snapshot shows.
  return {Outcome::kSuccess, Outcome::kStoreException};
}

// The outcomes Kafka allows for one partition on the answering instance.
Allowed partition_oracle(const JudgeContext& context, const sim::QueryRecord& record,
                         const sim::ReplicaSnapshot& replica, bool named) {
  const sim::QueryRequestRecord& request = record.request;
  const TopologyConfig& topology = context.trace().topology;
  if (replica.role == sim::ReplicaRole::kNone || !replica.store_position) {
    return {named ? Outcome::kNotPresent : Outcome::kNoEntry};
  }
  if (request.require_active &&
      (replica.thread_state != sim::ReplicaSnapshot::ThreadState::RUNNING ||
       replica.role != sim::ReplicaRole::kActive)) {
    return {Outcome::kNotActive};
  }
  const bool plain = !topology.timestamped();
  // A Timestamped* query passes the versioned metered layer and is unknown to the store below.
  // KIP-1356's header queries (2026-08-20 pin) are known only to header stores' metered layers,
  // which no topology here has: every layer passes them down to the same refusal.
  if ((detail::is_timestamped_kind(request.kind) && (plain || topology.versioned())) ||
      request.kind == QueryKind::Custom || is_with_headers_kind(request.kind)) {
    return {Outcome::kUnknownQueryType};  // not in the position owner's handler map: no bound check
  }
  // MeteredWindowStore and MeteredSessionStore refuse the other WindowRangeQuery form themselves
  // (runRangeQuery: a window store needs both window-start ends, a session store the key),
  // before any store below checks the bound.
  if (request.kind == QueryKind::WindowRangeQuery &&
      ((topology.windowed() && !request.from_time_ms) ||
       (topology.session() && request.from_time_ms))) {
    return {Outcome::kUnknownQueryType};
  }
  // Below them, StoreQueryUtils.handleBasicQueries answers a query class missing from its handler
  // map (the Timestamped* kinds, which only the timestamped key-value metered layer translates)
  // UNKNOWN_QUERY_TYPE before its bound check.
  if ((topology.windowed() || topology.session()) && detail::is_timestamped_kind(request.kind)) {
    return {Outcome::kUnknownQueryType};
  }
  const Position bound = request.require_active ? Position::empty_position() : request.bound;
  // A transactional store's committed position under READ_COMMITTED (docs/kafka-2026-08-20.md
  // §3.7); store_position, checked present above, otherwise.
  const std::optional<Position>& checked = detail::bounding_position(context, request, replica);
  const bool dominates =
      checked.has_value() && detail::permitted(*checked, bound, replica.partition);
  const bool cache_checks = request.kind == QueryKind::KeyQuery ||
                            (request.kind == QueryKind::TimestampedKeyQuery && !plain);
  const bool exact = !topology.caching || cache_checks;
  if (!dominates) return {Outcome::kNotUpToBound};
  Allowed allowed = store_outcomes(context, request);
  if (!exact) allowed.add(Outcome::kNotUpToBound);  // the inner position may still be behind
  return allowed;
}

struct Verdict {
  std::vector<std::pair<int32_t, Allowed>> partitions;  // the ones the oracle could judge
  bool class_cast_certain = false;                      // some partition's store must throw
  bool class_cast_possible = false;
  bool store_runs = false;  // some partition reaches the store (so a store exception may escape)
};

// What one record's judgement needs besides the verdict: its partition results by partition
// (ascending; the last result of a partition listed twice). Kept across records so that judging
// one allocates nothing (a map per record was a fifth of this check's cost).
struct Scratch {
  Verdict verdict;
  std::vector<std::pair<int32_t, const sim::PartitionOutcome*>> got;
};

// The oracle for one partition of the request, added to the verdict.
void judge_partition(const JudgeContext& context, const sim::QueryRecord& record, int32_t p,
                     bool named, Verdict& verdict) {
  Allowed allowed;
  if (p < 0 || p >= context.trace().topology.source_partitions) {
    allowed = {named ? Outcome::kNotPresent : Outcome::kNoEntry};
  } else if (const auto* replica =
                 detail::find_replica(*record.placement_at_answer, record.target_instance, p)) {
    allowed = partition_oracle(context, record, *replica, named);
  } else {
    return;  // the snapshot does not cover this partition: nothing to judge it by
  }
  if (allowed.has(Outcome::kClassCast)) {
    verdict.class_cast_possible = true;
    verdict.class_cast_certain = verdict.class_cast_certain || allowed.only(Outcome::kClassCast);
  }
  verdict.store_runs =
      verdict.store_runs || allowed.has(Outcome::kSuccess) || allowed.has(Outcome::kClassCast);
  verdict.partitions.emplace_back(p, allowed);
}

void oracle(const JudgeContext& context, const sim::QueryRecord& record, Verdict& verdict) {
  verdict.partitions.clear();
  verdict.class_cast_certain = false;
  verdict.class_cast_possible = false;
  verdict.store_runs = false;
  if (record.request.partitions) {
    for (int32_t p : *record.request.partitions) judge_partition(context, record, p, true, verdict);
  } else {
    for (int32_t p = 0; p < context.trace().topology.source_partitions; ++p) {
      judge_partition(context, record, p, false, verdict);
    }
  }
}

void judge_answer(const JudgeContext& context, const sim::QueryRecord& record,
                  const Verdict& verdict,
                  std::vector<std::pair<int32_t, const sim::PartitionOutcome*>>& got,
                  std::vector<Violation>& out) {
  if (verdict.class_cast_certain) {
    out.push_back(detail::record_violation(
        context, kFailureReasonCorrectName, record, nullptr,
        "answered although the adapter's range iterator cast must throw",
        std::string(name(Outcome::kClassCast)) + " (docs/iqv2-semantics.md quirk 10)", "answered"));
    return;
  }
  got.clear();
  for (const auto& o : record.partitions) got.emplace_back(o.partition, &o);
  // By partition, the last of equal partitions kept (a map's got[partition] = &o). An insertion
  // sort, stable: a record has a handful of partitions, and std::stable_sort allocates a buffer.
  for (size_t i = 1; i < got.size(); ++i) {
    for (size_t j = i; j > 0 && got[j - 1].first > got[j].first; --j) std::swap(got[j - 1], got[j]);
  }
  got.erase(got.begin(), std::unique(got.rbegin(), got.rend(), [](const auto& a, const auto& b) {
                           return a.first == b.first;
                         }).base());
  for (const auto& [p, allowed] : verdict.partitions) {
    auto it = std::lower_bound(got.begin(), got.end(), p,
                               [](const auto& entry, int32_t q) { return entry.first < q; });
    if (it != got.end() && it->first != p) it = got.end();
    const Outcome actual = it == got.end() ? Outcome::kNoEntry : outcome_of(*it->second);
    if (allowed.has(actual)) continue;
    out.push_back(detail::record_violation(
        context, kFailureReasonCorrectName, record, it == got.end() ? nullptr : it->second,
        "partition " + std::to_string(p) + ": " + name(actual) + " where Kafka's rules give " +
            allowed.to_string(),
        allowed.to_string(),
        it == got.end() ? name(Outcome::kNoEntry) : detail::outcome_string(*it->second)));
  }
  // Entries for partitions the request did not ask for are never Kafka's.
  for (const auto& [p, outcome] : got) {
    const bool asked = record.request.partitions
                           ? record.request.partitions->count(p) != 0
                           : p >= 0 && p < context.trace().topology.source_partitions;
    if (asked) continue;
    out.push_back(detail::record_violation(
        context, kFailureReasonCorrectName, record, outcome,
        "an entry for partition " + std::to_string(p) + ", which the request did not ask for",
        name(Outcome::kNoEntry), detail::outcome_string(*outcome)));
  }
}

// Returns false when the error cannot be judged from the snapshot.
bool judge_error(const JudgeContext& context, const sim::QueryRecord& record,
                 const Verdict& verdict, std::vector<Violation>& out) {
  const StreamsError& error = *record.error;
  if (error.kind == StreamsError::Kind::ClassCast && verdict.class_cast_possible) return true;
  const bool state_error = error.kind == StreamsError::Kind::UnknownStateStore ||
                           error.kind == StreamsError::Kind::StreamsNotStarted ||
                           error.kind == StreamsError::Kind::StreamsStopped ||
                           error.kind == StreamsError::Kind::ClassCast;
  if (!state_error && verdict.store_runs) return false;
  std::string expected;
  for (const auto& [p, allowed] : verdict.partitions) {
    expected += (expected.empty() ? "" : "; ") + std::to_string(p) + ": " + allowed.to_string();
  }
  out.push_back(detail::record_violation(
      context, kFailureReasonCorrectName, record, nullptr,
      std::string(StreamsError::kind_name(error.kind)) + " where Kafka's rules give an answer",
      expected.empty() ? "an answer" : expected, error.to_string()));
  return true;
}

void judge_record(const JudgeContext& context, const sim::QueryRecord& record, detail::Tally& tally,
                  Scratch& scratch, std::vector<Violation>& out) {
  const sim::ReplicaSnapshot* any = nullptr;
  for (const auto& r : record.placement_at_answer->replicas) {
    if (r.instance == record.target_instance) any = &r;
  }
  // A closed client (not running, NOT_RUNNING) still answers: StreamsStoppedException.
  if (any == nullptr || !any->client_state) {
    tally.not_judged("the answering instance is not in placement_at_answer");
    return;
  }
  if (auto error = expected_error(context, record, *any->client_state)) {
    tally.judged();
    const std::string message =
        kafka_error_message(*error, record.request.store, *any->client_state);
    if (record.outcome == sim::OutcomeKind::kStreamsError && record.error->kind == *error) {
      if (record.error->message == message) return;
      out.push_back(detail::record_violation(
          context, kFailureReasonCorrectName, record, nullptr,
          std::string(StreamsError::kind_name(*error)) + " with a message that is not Kafka's",
          message, record.error->message));
      return;
    }
    out.push_back(detail::record_violation(
        context, kFailureReasonCorrectName, record, nullptr,
        std::string("expected ") + StreamsError::kind_name(*error) + " (client " +
            sim::to_string(*any->client_state) + ")",
        StreamsError::kind_name(*error),
        record.outcome == sim::OutcomeKind::kStreamsError ? record.error->to_string()
                                                          : "answered"));
    return;
  }
  Verdict& verdict = scratch.verdict;
  oracle(context, record, verdict);
  if (record.outcome == sim::OutcomeKind::kStreamsError) {
    if (judge_error(context, record, verdict, out)) {
      tally.judged();
    } else {
      tally.not_judged("an exception from inside a store, which the snapshot cannot foresee");
    }
    return;
  }
  tally.judged();
  judge_answer(context, record, verdict, scratch.got, out);
}

}  // namespace

std::vector<Violation> check_failure_reason_correct(const JudgeContext& context) {
  std::vector<Violation> out;
  detail::Tally tally(context, kFailureReasonCorrectName);
  Scratch scratch;
  for (const sim::QueryRecord& record : context.trace().history.records()) {
    const bool reached = record.outcome == sim::OutcomeKind::kAnswered ||
                         record.outcome == sim::OutcomeKind::kStreamsError;
    if (!reached || !context.judged_by(record, kFailureReasonCorrectName)) continue;
    if (!record.placement_at_answer) {
      tally.not_judged("no placement at the answer");
      continue;
    }
    if (record.outcome == sim::OutcomeKind::kStreamsError && !record.error) {
      tally.not_judged("a streams error without the error recorded");
      continue;
    }
    judge_record(context, record, tally, scratch, out);
  }
  return out;
}

}  // namespace iq::properties
