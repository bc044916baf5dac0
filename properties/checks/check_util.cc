#include "checks/check_util.h"

#include <algorithm>
#include <limits>
#include <variant>

#include <fmt/format.h>

#include "base/assert.h"
#include "model/key_bytes.h"

namespace iq::properties::detail {
namespace {

model::Order to_model_order(ResultOrder order) {
  switch (order) {
    case ResultOrder::ANY:
      return model::Order::kAny;
    case ResultOrder::ASCENDING:
      return model::Order::kAscending;
    case ResultOrder::DESCENDING:
      return model::Order::kDescending;
  }
  return model::Order::kAny;
}

std::optional<model::KeyBytes> bound_bytes(const std::optional<int32_t>& key) {
  if (!key) return std::nullopt;
  return model::serialize_int32_key(*key);
}

}  // namespace

bool timestamp_ok(const JudgeContext& context, QueryKind kind, int64_t got, int64_t real) {
  switch (context.timestamp_mode()) {
    case model::TimestampMode::kReal:
      return got == real;
    case model::TimestampMode::kMinusOne:
      // The adapter's -1; a cached TimestampedKeyQuery that hit the cache returns the real one.
      return got == -1 || (kind == QueryKind::TimestampedKeyQuery &&
                           context.trace().topology.caching && got == real);
    case model::TimestampMode::kNone:
      return false;  // a plain store answers no timestamped query (UNKNOWN_QUERY_TYPE)
  }
  return false;
}

namespace {

// A cached aggregate over a plain RocksDB store: its timestamp is the maximum of the record
// timestamps since the aggregation last read the key through Kafka's adapter (which answers -1),
// so any such suffix maximum (ReferenceStore::timestamp_after_reload_possible).
bool reloaded_timestamp_ok(const JudgeContext& context, const sim::QueryRequestRecord& request,
                           const sim::PartitionOutcome& outcome, int64_t offset) {
  if (context.timestamp_mode() != model::TimestampMode::kMinusOne ||
      request.kind != QueryKind::TimestampedKeyQuery || !context.trace().topology.caching) {
    return false;
  }
  IQ_ASSERT(outcome.timestamps.size() == 1 && request.key.has_value());
  return context.store().timestamp_after_reload_possible(
      outcome.partition, model::serialize_int32_key(*request.key), offset, outcome.timestamps[0]);
}

std::string timestamp_text(const JudgeContext& context, QueryKind kind, int64_t real) {
  switch (context.timestamp_mode()) {
    case model::TimestampMode::kReal:
      return std::to_string(real);
    case model::TimestampMode::kMinusOne:
      if (kind == QueryKind::TimestampedKeyQuery && context.trace().topology.caching) {
        return "-1|" + std::to_string(real);
      }
      return "-1";
    case model::TimestampMode::kNone:
      return "none";
  }
  return "?";
}

std::optional<std::string> key_differs(const JudgeContext& context,
                                       const sim::QueryRequestRecord& request,
                                       const sim::PartitionOutcome& outcome, int64_t offset,
                                       Describe describe) {
  const bool timestamped = is_timestamped_kind(request.kind);
  const std::optional<model::ExpectedValue> want = model::expected_key_query(
      context.store(), outcome.partition, model::serialize_int32_key(*request.key), offset,
      model::TimestampMode::kReal);
  const auto* got = std::get_if<std::optional<int64_t>>(&outcome.value);
  bool same = got != nullptr;
  if (same && !want) same = !got->has_value() && outcome.timestamps.empty();
  if (same && want) {
    same = got->has_value() && **got == want->value;
    if (timestamped) {
      same = same && outcome.timestamps.size() == 1 &&
             (timestamp_ok(context, request.kind, outcome.timestamps[0], *want->timestamp_ms) ||
              reloaded_timestamp_ok(context, request, outcome, offset));
    } else {
      same = same && outcome.timestamps.empty();
    }
  }
  if (same) return std::nullopt;
  if (describe == Describe::kNo) return std::string();
  if (!want) return std::string("null");
  std::string text = "value=" + std::to_string(want->value);
  if (timestamped) text += " ts=" + timestamp_text(context, request.kind, *want->timestamp_ms);
  return text;
}

// The model's answer to range query `request` on `partition` at `offset`, rendered.
std::string range_text(const JudgeContext& context, const sim::QueryRequestRecord& request,
                       int32_t partition, int64_t offset) {
  const auto want = model::expected_range_query(
      context.store(), partition, bound_bytes(request.lower), bound_bytes(request.upper),
      to_model_order(request.order), offset, model::TimestampMode::kReal);
  std::string text = "[";
  for (size_t i = 0; i < want.size(); ++i) {
    if (i > 0) text += ", ";
    text += fmt::format("{}={}", model::deserialize_int32_key(want[i].first), want[i].second.value);
    if (is_timestamped_kind(request.kind)) {
      text += "@" + timestamp_text(context, request.kind, *want[i].second.timestamp_ms);
    }
  }
  return text + "]";
}

std::optional<std::string> range_differs(const JudgeContext& context,
                                         const sim::QueryRequestRecord& request,
                                         const sim::PartitionOutcome& outcome, int64_t offset,
                                         Describe describe) {
  const bool timestamped = is_timestamped_kind(request.kind);
  const auto lower = bound_bytes(request.lower);
  const auto upper = bound_bytes(request.upper);
  const auto* got = std::get_if<sim::KeyValueList>(&outcome.value);
  // Entry by entry against the model's range as it is walked, stopping at the first difference:
  // the model's answer is built only to describe one.
  bool same = got != nullptr && outcome.timestamps.size() == (timestamped ? got->size() : 0);
  size_t next = 0;  // the next returned entry
  if (same) {
    context.store().visit_range(
        outcome.partition, lower, upper, to_model_order(request.order), offset,
        [&](const model::KeyBytes& key, const model::ValueAndTimestamp& vt) {
          same = next < got->size() && (*got)[next].first == model::deserialize_int32_key(key) &&
                 (*got)[next].second == vt.value &&
                 (!timestamped ||
                  timestamp_ok(context, request.kind, outcome.timestamps[next], vt.timestamp_ms));
          ++next;
          return same;
        });
    same = same && next == got->size();
  }
  if (same) return std::nullopt;
  if (describe == Describe::kNo) return std::string();
  return range_text(context, request, outcome.partition, offset);
}

// A VersionedKeyQuery or MultiVersionedKeyQuery answer against the model's VersionedHistory.
std::optional<std::string> versioned_differs(const JudgeContext& context,
                                             const sim::QueryRequestRecord& request,
                                             const sim::PartitionOutcome& outcome, int64_t offset) {
  const std::vector<model::Version> want =
      versioned_expected(*context.versioned(), request, outcome.partition, offset);
  if (versioned_equal(outcome, want)) return std::nullopt;
  return versions_text(want);
}

// The keys whose writes can change the answer to `request` on `partition`.
std::vector<int32_t> keys_involved(const JudgeContext& context,
                                   const sim::QueryRequestRecord& request, int32_t partition) {
  if (is_key_kind(request.kind) || is_versioned_kind(request.kind)) return {*request.key};
  // A window key query or a session fetch reads its key; a window range every key.
  if (is_window_kind(request.kind) && request.key) return {*request.key};
  const auto lower = bound_bytes(request.lower);
  const auto upper = bound_bytes(request.upper);
  std::vector<int32_t> keys;
  for (int32_t key : context.keys_written(partition)) {
    const model::KeyBytes bytes = model::serialize_int32_key(key);
    if (lower && model::compare_key_bytes(bytes, *lower) < 0) continue;
    if (upper && model::compare_key_bytes(bytes, *upper) > 0) continue;
    keys.push_back(key);
  }
  return keys;
}

}  // namespace

std::string versions_text(const std::vector<model::Version>& versions) {
  std::string text = "[";
  for (const model::Version& v : versions) {
    if (text.size() > 1) text += ", ";
    text += sim::to_string(sim::VersionedValue{v.value, v.valid_from_ms, v.valid_to_ms});
  }
  return text + "]";
}

std::vector<model::Version> versioned_expected(const model::VersionedHistory& model,
                                               const sim::QueryRequestRecord& request,
                                               int32_t partition, int64_t offset_inclusive) {
  IQ_ASSERT(is_versioned_kind(request.kind) && request.key, "{}", request.to_string());
  const model::KeyBytes key = model::serialize_int32_key(*request.key);
  if (request.kind == QueryKind::VersionedKeyQuery) {
    const auto one = request.as_of_ms
                         ? model.get_as_of(partition, key, *request.as_of_ms, offset_inclusive)
                         : model.get(partition, key, offset_inclusive);
    if (one) return {*one};
    return {};
  }
  return model
      .get_range(partition, key, request.from_time_ms.value_or(std::numeric_limits<int64_t>::min()),
                 request.to_time_ms.value_or(std::numeric_limits<int64_t>::max()),
                 to_model_order(request.order), offset_inclusive)
      .versions;
}

bool versioned_equal(const sim::PartitionOutcome& outcome,
                     const std::vector<model::Version>& want) {
  const auto* got = std::get_if<sim::VersionedList>(&outcome.value);
  if (got == nullptr || got->size() != want.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    if ((*got)[i] != sim::VersionedValue{want[i].value, want[i].valid_from_ms, want[i].valid_to_ms})
      return false;
  }
  return true;
}

bool permitted(const Position& store, const Position& bound, int32_t partition) {
  for (const auto& [topic, offsets] : bound.map()) {
    const auto wanted = offsets.find(partition);
    if (wanted == offsets.end()) continue;  // this topic does not constrain this partition
    const int64_t* have = store.offset(topic, partition);
    if (have == nullptr || *have < wanted->second) return false;
  }
  return true;
}

bool is_key_kind(QueryKind kind) {
  return kind == QueryKind::KeyQuery || kind == QueryKind::TimestampedKeyQuery;
}

bool is_range_kind(QueryKind kind) {
  return kind == QueryKind::RangeQuery || kind == QueryKind::TimestampedRangeQuery;
}

bool is_versioned_kind(QueryKind kind) {
  return kind == QueryKind::VersionedKeyQuery || kind == QueryKind::MultiVersionedKeyQuery;
}

bool served_over_kept_data(const JudgeContext& context, const sim::QueryRecord& record,
                           int32_t partition) {
  const sim::RunTrace& trace = context.trace();
  if (trace.store_lives.empty()) return true;
  if (!record.placement_at_answer) return false;
  const sim::ReplicaSnapshot* replica =
      find_replica(*record.placement_at_answer, record.target_instance, partition);
  if (replica == nullptr) return false;
  const sim::StoreLife* life = trace.store_life(replica->store_life);
  return life != nullptr && life->over_kept_data;
}

std::optional<std::string> versioned_not_judged(const JudgeContext& context,
                                                const sim::QueryRecord& record, int32_t partition,
                                                int64_t offset) {
  const sim::QueryRequestRecord& request = record.request;
  const model::VersionedHistory* model = context.versioned();
  if (model == nullptr || !is_versioned_kind(request.kind)) return std::nullopt;
  // A store object that began empty took every record through the model's puts: its stream time
  // is the model's, and the answer is judged.
  if (!served_over_kept_data(context, record, partition)) return std::nullopt;
  const model::KeyBytes key = model::serialize_int32_key(*request.key);
  // Kafka does not persist a versioned store's observed stream time (RocksDBVersionedStore
  // starts at -1 when reopened), so what lies beyond the grace period or the history retention
  // of the partition's stream time depends on the replica's history, which the model lacks.
  if (model->grace_dropped(partition, key, offset)) {
    return std::string("versioned: a record of the key came beyond grace (observed stream time)");
  }
  const int64_t floor_ms = model->stream_time(partition, offset) - model->history_retention_ms();
  if (request.kind == QueryKind::VersionedKeyQuery && request.as_of_ms &&
      *request.as_of_ms < floor_ms) {
    return std::string("versioned: asOf beyond history retention (observed stream time)");
  }
  if (request.kind == QueryKind::MultiVersionedKeyQuery &&
      model
          ->get_range(partition, key,
                      request.from_time_ms.value_or(std::numeric_limits<int64_t>::min()),
                      request.to_time_ms.value_or(std::numeric_limits<int64_t>::max()),
                      to_model_order(request.order), offset)
          .uncertain) {
    return std::string("versioned: a version in an expired segment (observed stream time)");
  }
  return std::nullopt;
}

bool persistent(const TopologyConfig& t) {
  return t.supplier == KeyValueSupplier::kRocksDb ||
         t.supplier == KeyValueSupplier::kRocksDbTimestamped;
}

bool is_timestamped_kind(QueryKind kind) {
  return kind == QueryKind::TimestampedKeyQuery || kind == QueryKind::TimestampedRangeQuery;
}

const sim::ReplicaSnapshot* find_replica(const sim::PlacementSnapshot& snapshot,
                                         const std::string& instance, int32_t partition) {
  for (const auto& r : snapshot.replicas) {
    if (r.partition == partition && r.instance == instance) return &r;
  }
  return nullptr;
}

const sim::ReplicaSnapshot* transactional_answering_replica(const sim::QueryRecord& record,
                                                            const sim::PartitionOutcome& outcome) {
  const sim::ReplicaSnapshot* replica =
      record.placement_at_answer
          ? find_replica(*record.placement_at_answer, record.target_instance, outcome.partition)
          : nullptr;
  return replica != nullptr && replica->committed_position ? replica : nullptr;
}

const sim::PlacementSnapshot& explaining_placement(const sim::QueryRecord& record) {
  return record.placement_at_answer ? *record.placement_at_answer : record.placement_at_invoke;
}

StopAndStart last_stop(const sim::RunTrace& trace, const std::string& instance, base::Instant at_ms,
                       bool cut_off) {
  StopAndStart out;
  for (const sim::FaultRecord& f : trace.faults) {
    if (f.at_ms > at_ms || f.instance != instance) continue;
    if (f.stopped() || (cut_off && f.cut_off())) {
      out = StopAndStart{&f, nullptr};
    } else if (out.stop != nullptr && out.start == nullptr &&
               (f.started() || (cut_off && f.reconnected()))) {
      out.start = &f;
    }
  }
  return out;
}

bool life_holds(const sim::StoreLife& life, ChangelogOffset offset, bool given, bool wrote) {
  return std::any_of(life.events.begin(), life.events.end(), [&](const sim::StoreLifeEvent& e) {
    const bool kind = (given && e.kind == sim::StoreLifeEvent::Kind::kGiven) ||
                      (wrote && e.kind == sim::StoreLifeEvent::Kind::kWrote);
    return kind && e.first <= offset && offset <= e.last;
  });
}

const sim::QueryRecord* last_liveness_probe(const JudgeContext& context, int32_t partition) {
  const auto& records = context.trace().history.records();
  for (auto it = records.rbegin(); it != records.rend(); ++it) {
    if (it->source != sim::QueryRecord::Source::kLiveness) continue;
    if (it->request.partitions && it->request.partitions->count(partition) != 0) return &*it;
  }
  return nullptr;
}

base::Instant answered_at(const sim::QueryRecord& record) {
  return record.placement_at_answer ? record.placement_at_answer->at_ms : record.complete_ms;
}

Violation record_violation(const JudgeContext& context, std::string_view property,
                           const sim::QueryRecord& record, const sim::PartitionOutcome* outcome,
                           std::string summary, std::string expected, std::string returned) {
  Violation v;
  v.property = std::string(property);
  v.record_id = record.id;
  if (outcome != nullptr) v.partition = outcome->partition;
  v.at_ms = record.complete_ms.ms_since_epoch();  // a Violation holds its instant as a number
  v.summary = std::move(summary);
  v.query = record.request.to_string();
  v.expected = std::move(expected);
  v.returned = std::move(returned);
  const sim::PlacementSnapshot& placement = explaining_placement(record);
  std::optional<int32_t> partition;
  if (outcome != nullptr) {
    partition = outcome->partition;
  } else if (record.request.partitions && record.request.partitions->size() == 1) {
    partition = *record.request.partitions->begin();
  }
  if (partition) {
    if (const auto* r = find_replica(placement, record.target_instance, *partition)) {
      v.replica = r->to_string();
    }
  }
  v.placement = placement.to_string();
  v.events_before = context.events_before(record.complete_ms);
  if (partition) v.reprocessed_before = context.reprocessed_before(record.complete_ms, *partition);
  return v;
}

std::string record_outcome_text(const sim::QueryRecord& record, bool partitions) {
  std::string out = sim::to_string(record.outcome);
  if (record.error) out += " " + record.error->to_string();
  if (!record.not_routed_reason.empty()) out += " '" + record.not_routed_reason + "'";
  if (partitions) {
    for (const auto& p : record.partitions) out += " " + p.to_string();
  }
  return out;
}

std::string outcome_string(const sim::PartitionOutcome& outcome) {
  return outcome.to_string();
}

std::optional<std::string> not_answerable(const JudgeContext& context,
                                          const sim::QueryRequestRecord& request) {
  if (request.store != context.trace().topology.store_name) return "not the topology's store";
  if (context.versioned() != nullptr) {
    if (!is_versioned_kind(request.kind)) {
      return std::string("a query kind a versioned store does not answer: ") +
             to_string(request.kind);
    }
    if (!request.key) return "a key query without a recorded key";
    return std::nullopt;
  }
  if (context.window_history() != nullptr || context.session_history() != nullptr) {
    return window_not_answerable(context, request);
  }
  if (!is_key_kind(request.kind) && !is_range_kind(request.kind)) {
    return std::string("a query kind the model does not cover: ") + to_string(request.kind);
  }
  if (is_key_kind(request.kind) && !request.key) return "a key query without a recorded key";
  return std::nullopt;
}

std::optional<std::string> differs_from_model(const JudgeContext& context,
                                              const sim::QueryRequestRecord& request,
                                              const sim::PartitionOutcome& outcome, int64_t offset,
                                              Describe describe) {
  IQ_ASSERT(!not_answerable(context, request), "{}", request.to_string());
  IQ_ASSERT(offset >= -1, "offset={}", offset);
  if (is_versioned_kind(request.kind)) return versioned_differs(context, request, outcome, offset);
  if (is_window_kind(request.kind)) return window_differs(context, request, outcome, offset);
  if (lru_may_have_evicted(context, outcome.partition, offset)) {
    return differs_from_model_with_eviction(context, request, outcome, offset, describe);
  }
  if (is_key_kind(request.kind)) return key_differs(context, request, outcome, offset, describe);
  return range_differs(context, request, outcome, offset, describe);
}

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

bool lru_may_have_evicted(const JudgeContext& context, int32_t partition, int64_t offset) {
  const TopologyConfig& topology = context.trace().topology;
  if (topology.supplier != KeyValueSupplier::kLruMap) return false;
  int64_t keys = 0;
  for (int32_t key : context.keys_written(partition)) {
    const std::vector<int64_t>& offsets = context.key_write_offsets(partition, key);
    if (!offsets.empty() && offsets.front() <= offset) ++keys;
    if (keys > topology.lru_max_entries) return true;
  }
  return false;
}

std::optional<std::string> differs_from_model_with_eviction(const JudgeContext& context,
                                                            const sim::QueryRequestRecord& request,
                                                            const sim::PartitionOutcome& outcome,
                                                            int64_t offset, Describe describe) {
  IQ_ASSERT(!not_answerable(context, request), "{}", request.to_string());
  const bool timestamped = is_timestamped_kind(request.kind);
  if (is_key_kind(request.kind)) {
    const auto* got = std::get_if<std::optional<int64_t>>(&outcome.value);
    // Absent: evicted, or absent in the model too.
    if (got != nullptr && !got->has_value() && outcome.timestamps.empty()) return std::nullopt;
    return key_differs(context, request, outcome, offset, describe);
  }
  const auto lower = bound_bytes(request.lower);
  const auto upper = bound_bytes(request.upper);
  const auto* got = std::get_if<sim::KeyValueList>(&outcome.value);
  // At most the capacity, unless a record cache above the store adds its unflushed entries.
  const TopologyConfig& topology = context.trace().topology;
  bool same = got != nullptr &&
              (topology.caching || static_cast<int64_t>(got->size()) <= topology.lru_max_entries) &&
              outcome.timestamps.size() == (timestamped ? got->size() : 0);
  // Each returned entry is the next model entry of its key (the model's keys are distinct, so
  // this is the first one at or after the previous match), walked without building the range.
  size_t next = 0;  // the next returned entry to match
  if (same && !got->empty()) {
    context.store().visit_range(
        outcome.partition, lower, upper, to_model_order(request.order), offset,
        [&](const model::KeyBytes& key, const model::ValueAndTimestamp& vt) {
          if ((*got)[next].first != model::deserialize_int32_key(key)) return true;
          same = (*got)[next].second == vt.value &&
                 (!timestamped ||
                  timestamp_ok(context, request.kind, outcome.timestamps[next], vt.timestamp_ms));
          ++next;
          return same && next < got->size();
        });
    same = same && next == got->size();
  }
  if (same) return std::nullopt;
  if (describe == Describe::kNo) return std::string();
  return "a subsequence (LRU evictions) of " +
         range_text(context, request, outcome.partition, offset);
}

int64_t last_source_offset_appended(const sim::RunTrace& trace, int32_t partition,
                                    base::Instant at_ms) {
  const auto& log = trace.source_log;
  const auto first =
      std::partition_point(log.begin(), log.end(),
                           [&](const sim::SourceLogRecord& r) { return r.partition < partition; });
  const auto last = std::partition_point(
      first, log.end(), [&](const sim::SourceLogRecord& r) { return r.partition == partition; });
  const auto after = std::partition_point(
      first, last, [&](const sim::SourceLogRecord& r) { return r.appended_ms <= at_ms; });
  return after == first ? -1 : std::prev(after)->offset.value();
}

FitResult fit_answer(const JudgeContext& context, const sim::QueryRecord& record,
                     const sim::PartitionOutcome& outcome, int64_t reported) {
  const sim::QueryRequestRecord& request = record.request;
  FitResult result;
  const auto diff = differs_from_model(context, request, outcome, reported);
  if (!diff) {
    result.fit = Fit::kMatches;
    result.matched_at = reported;
    return result;
  }
  result.expected = *diff;
  const int32_t partition = outcome.partition;
  // An in-memory store's delete() changes the data but not the position (docs/iqv2-semantics.md
  // quirk 6): the reported position stands for every state up to the next write that advances it.
  if (!context.deletes_advance()) {
    const int64_t next = context.next_advancing_write(partition, reported)
                             .value_or(std::numeric_limits<int64_t>::max());
    for (int64_t o : context.silent_writes_between(partition, reported, next)) {
      if (!differs_from_model(context, request, outcome, o, Describe::kNo)) {
        result.fit = Fit::kMatches;
        result.matched_at = o;
        return result;
      }
    }
  }
  // An under-claim: the answer is a state the store reached after the reported offset, by a
  // source record appended before the answer completed (none later can be in it).
  const int64_t last = last_source_offset_appended(context.trace(), partition, record.complete_ms);
  std::vector<int64_t> candidates;
  if (is_versioned_kind(request.kind) || is_window_kind(request.kind)) {
    // Every record of the partition moves the stream time, which the answer depends on (a
    // window's retention floor too).
    for (auto next = context.next_advancing_write(partition, reported); next && *next <= last;
         next = context.next_advancing_write(partition, *next)) {
      candidates.push_back(*next);
    }
  }
  for (int32_t key : keys_involved(context, request, partition)) {
    const auto& offsets = context.key_write_offsets(partition, key);
    candidates.insert(candidates.end(), std::upper_bound(offsets.begin(), offsets.end(), reported),
                      std::upper_bound(offsets.begin(), offsets.end(), last));
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (int64_t o : candidates) {
    if (!differs_from_model(context, request, outcome, o, Describe::kNo)) {
      result.fit = Fit::kUnderClaim;
      result.matched_at = o;
      return result;
    }
  }
  result.fit = Fit::kMismatch;
  return result;
}

int64_t reported_offset(const JudgeContext& context, const Position& position, int32_t partition) {
  const int64_t* offset = position.offset(context.trace().topology.source_topic, partition);
  return offset == nullptr ? -1 : *offset;
}

int64_t header_of(const JudgeContext& context, const sim::ChangelogRecord& r) {
  return r.position ? reported_offset(context, *r.position, r.partition) : -1;
}

Position position_of(const JudgeContext& context, int32_t partition, SourceOffset component) {
  Position p = Position::empty_position();
  if (component >= SourceOffset(0))
    p.with_component(context.trace().topology.source_topic, partition, component);
  return p;
}

bool is_position_of(const JudgeContext& context, const Position& position, int32_t partition,
                    SourceOffset component) {
  const Position::Map& map = position.map();
  if (component < SourceOffset(0)) return map.empty();
  return map.size() == 1 && map.begin()->first == context.trace().topology.source_topic &&
         map.begin()->second.size() == 1 && map.begin()->second.begin()->first == partition &&
         map.begin()->second.begin()->second == component.value();
}

IsolationLevel effective_level(const JudgeContext& context,
                               const sim::QueryRequestRecord& request) {
  return request.isolation_level.value_or(context.trace().default_iq_isolation_level);
}

bool read_committed_at_new_pin(const JudgeContext& context,
                               const sim::QueryRequestRecord& request) {
  return at_least(context.trace().kafka_pin, KafkaPin::k2026_08_20) &&
         effective_level(context, request) == IsolationLevel::READ_COMMITTED;
}

std::span<const sim::ChangelogRecord> partition_log(const sim::RunTrace& trace, int32_t partition) {
  const auto by_partition = [](const sim::ChangelogRecord& r, int32_t p) {
    return r.partition < p;
  };
  const auto first =
      std::lower_bound(trace.changelog.begin(), trace.changelog.end(), partition, by_partition);
  auto last = first;
  while (last != trace.changelog.end() && last->partition == partition) ++last;
  return {first, last};
}

bool is_cached_key_query(const JudgeContext& context, const sim::QueryRequestRecord& request) {
  // The caching layer intercepts a KeyQuery (a TimestampedKeyQuery reaches it as one on a
  // timestamped store), as failure_reason_correct's cache_checks reads it.
  const TopologyConfig& topology = context.trace().topology;
  return topology.caching &&
         (request.kind == QueryKind::KeyQuery ||
          (request.kind == QueryKind::TimestampedKeyQuery && topology.timestamped()));
}

bool reads_committed(const JudgeContext& context, const sim::QueryRequestRecord& request,
                     const sim::ReplicaSnapshot& replica) {
  const IsolationLevel level = effective_level(context, request);
  return level == IsolationLevel::READ_COMMITTED && replica.committed_position.has_value() &&
         !is_cached_key_query(context, request);
}

const std::optional<Position>& bounding_position(const JudgeContext& context,
                                                 const sim::QueryRequestRecord& request,
                                                 const sim::ReplicaSnapshot& replica) {
  // Pin delta 9: the versioned store checks both levels against its one position, which every put
  // advances at once (the staged one); it reads committed data all the same (reads_committed).
  const bool versioned = context.trace().topology.versioned();
  return reads_committed(context, request, replica) && !versioned ? replica.committed_position
                                                                  : replica.store_position;
}

}  // namespace iq::properties::detail
