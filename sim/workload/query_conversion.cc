#include "workload/query_conversion.h"

#include <optional>

#include "iq/key_value_iterator.h"
#include "iq/value_and_timestamp.h"
#include "iq/versioned_record.h"
#include "iq/windowed.h"

namespace iq::sim {

namespace {

// A window or session answer: WindowKeyQuery's (window start, value) of `key`, or
// WindowRangeQuery's (Windowed(key, window), value); plain or timestamped values. False if the
// result is none of these shapes.
bool convert_windowed(const AnyResult& raw, std::optional<int32_t> key, PartitionOutcome& o) {
  WindowedList out;
  if (const auto* it = iq::any_cast<KeyValueIterator<int64_t, int64_t>>(&raw)) {
    for (const auto& e : it->entries)
      out.push_back({key.value_or(0), e.key, std::nullopt, e.value});
  } else if (const auto* tit =
                 iq::any_cast<KeyValueIterator<int64_t, ValueAndTimestamp<int64_t>>>(&raw)) {
    for (const auto& e : tit->entries) {
      out.push_back({key.value_or(0), e.key, std::nullopt, e.value.value});
      o.timestamps.push_back(e.value.timestamp);
    }
  } else if (const auto* wit = iq::any_cast<KeyValueIterator<Windowed<int32_t>, int64_t>>(&raw)) {
    for (const auto& e : wit->entries)
      out.push_back({e.key.key, e.key.start_ms, e.key.end_ms, e.value});
  } else if (const auto* twit =
                 iq::any_cast<KeyValueIterator<Windowed<int32_t>, ValueAndTimestamp<int64_t>>>(
                     &raw)) {
    for (const auto& e : twit->entries) {
      out.push_back({e.key.key, e.key.start_ms, e.key.end_ms, e.value.value});
      o.timestamps.push_back(e.value.timestamp);
    }
  } else {
    return false;
  }
  o.value = std::move(out);
  return true;
}

}  // namespace

// Every key-value, versioned, window and session result shape: plain or timestamped, point or
// range.
PartitionOutcome convert_partition_result(int32_t partition, const QueryResult& r,
                                          std::optional<int32_t> window_key) {
  PartitionOutcome o;
  o.partition = partition;
  o.success = r.is_success();
  o.position = r.position();
  const auto& info = r.execution_info();
  for (size_t i = 0; i < info.size() && i < PartitionOutcome::kExecutionInfoMax; ++i)
    o.execution_info.push_back(info[i]);
  if (!o.success) {
    o.failure_reason = r.failure_reason();
    o.failure_message = r.failure_message().value_or("");
    return o;
  }
  const AnyResult& raw = r.raw_result();
  if (const auto* it = iq::any_cast<KeyValueIterator<int32_t, int64_t>>(&raw)) {
    KeyValueList entries;
    for (const auto& e : it->entries) entries.emplace_back(e.key, e.value);
    o.value = std::move(entries);
  } else if (const auto* tit =
                 iq::any_cast<KeyValueIterator<int32_t, ValueAndTimestamp<int64_t>>>(&raw)) {
    KeyValueList entries;
    for (const auto& e : tit->entries) {
      entries.emplace_back(e.key, e.value.value);
      o.timestamps.push_back(e.value.timestamp);
    }
    o.value = std::move(entries);
  } else if (const auto* v = iq::any_cast<std::optional<int64_t>>(&raw)) {
    o.value = *v;
  } else if (const auto* tv = iq::any_cast<std::optional<ValueAndTimestamp<int64_t>>>(&raw)) {
    o.value = *tv ? std::optional<int64_t>((*tv)->value) : std::nullopt;
    if (*tv) o.timestamps.push_back((*tv)->timestamp);
  } else if (const auto* vr = iq::any_cast<std::optional<VersionedRecord<int64_t>>>(&raw)) {
    VersionedList versions;
    if (*vr) versions.push_back({(*vr)->value, (*vr)->timestamp, (*vr)->valid_to});
    o.value = std::move(versions);
  } else if (const auto* vit = iq::any_cast<VersionedRecordIterator<int64_t>>(&raw)) {
    VersionedList versions;
    for (const auto& rec : vit->records)
      versions.push_back({rec.value, rec.timestamp, rec.valid_to});
    o.value = std::move(versions);
  } else {
    convert_windowed(raw, window_key, o);
  }
  IQ_ASSERT(!std::holds_alternative<std::monostate>(o.value),
            "partition {}: a success of an unexpected result type", partition);
  return o;
}

void record_outcome(QueryRecord& record,
                    const base::Expected<StateQueryResult, StreamsError>& answer) {
  record.partitions.clear();
  if (!answer) {
    record.outcome = OutcomeKind::kStreamsError;
    record.error = answer.error();
    return;
  }
  record.outcome = OutcomeKind::kAnswered;
  record.error.reset();
  // partition_results() is a std::map: the outcomes come out ordered by partition.
  for (const auto& [partition, result] : answer->partition_results()) {
    record.partitions.push_back(convert_partition_result(partition, result, record.request.key));
  }
}

}  // namespace iq::sim
