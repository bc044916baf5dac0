#include "workload/query_conversion.h"

#include <any>
#include <optional>

#include "iq/key_value_iterator.h"
#include "iq/value_and_timestamp.h"
#include "iq/versioned_record.h"

namespace iq::sim {

// Every key-value result shape: plain or timestamped, point or range.
PartitionOutcome convert_partition_result(int32_t partition, const QueryResult& r) {
  PartitionOutcome o;
  o.partition = partition;
  o.success = r.is_success();
  o.position = r.position();
  if (!o.success) {
    o.failure_reason = r.failure_reason();
    o.failure_message = r.failure_message().value_or("");
    return o;
  }
  const std::any& raw = r.raw_result();
  if (const auto* it = std::any_cast<KeyValueIterator<int32_t, int64_t>>(&raw)) {
    KeyValueList entries;
    for (const auto& e : it->entries) entries.emplace_back(e.key, e.value);
    o.value = std::move(entries);
  } else if (const auto* tit =
                 std::any_cast<KeyValueIterator<int32_t, ValueAndTimestamp<int64_t>>>(&raw)) {
    KeyValueList entries;
    for (const auto& e : tit->entries) {
      entries.emplace_back(e.key, e.value.value);
      o.timestamps.push_back(e.value.timestamp);
    }
    o.value = std::move(entries);
  } else if (const auto* v = std::any_cast<std::optional<int64_t>>(&raw)) {
    o.value = *v;
  } else if (const auto* tv = std::any_cast<std::optional<ValueAndTimestamp<int64_t>>>(&raw)) {
    o.value = *tv ? std::optional<int64_t>((*tv)->value) : std::nullopt;
    if (*tv) o.timestamps.push_back((*tv)->timestamp);
  } else if (const auto* vr = std::any_cast<std::optional<VersionedRecord<int64_t>>>(&raw)) {
    VersionedList versions;
    if (*vr) versions.push_back({(*vr)->value, (*vr)->timestamp, (*vr)->valid_to});
    o.value = std::move(versions);
  } else if (const auto* vit = std::any_cast<VersionedRecordIterator<int64_t>>(&raw)) {
    VersionedList versions;
    for (const auto& rec : vit->records)
      versions.push_back({rec.value, rec.timestamp, rec.valid_to});
    o.value = std::move(versions);
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
    record.partitions.push_back(convert_partition_result(partition, result));
  }
}

}  // namespace iq::sim
