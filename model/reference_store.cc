#include "model/reference_store.h"

#include <algorithm>
#include <limits>
#include <ostream>

#include <fmt/format.h>

#include "base/assert.h"

namespace iq::model {

namespace {

bool is_removal(const SourceRecord& record);
int64_t checked_add(int64_t a, int64_t b);
void push_distinct(std::vector<int64_t>& offsets, int64_t offset);

}  // namespace

ReferenceStore::ReferenceStore(Aggregation aggregation, int64_t records_max)
    : aggregation_(aggregation), records_max_(records_max) {
  IQ_ASSERT(records_max_ > 0, "records_max={}", records_max_);
}

ReferenceStore::ReferenceStore(const ReferenceHistory& history, Aggregation aggregation)
    : ReferenceStore(aggregation, history.records_max()) {
  for (const int32_t partition : history.partitions()) {
    for (const SourceRecord& record : history.records(partition)) apply(partition, record);
  }
  IQ_ASSERT(records_applied_ == history.size(), "applied={} history={}", records_applied_,
            history.size());
}

void ReferenceStore::apply(int32_t partition, const SourceRecord& record) {
  IQ_ASSERT(partition >= 0, "partition={}", partition);
  IQ_ASSERT(records_applied_ < records_max_, "store is full: records_max={}", records_max_);
  assert_valid_record(record);
  PartitionState& state = partitions_[partition];
  IQ_ASSERT(record.offset >= state.end_offset, "partition={} offset={} after offset={}", partition,
            record.offset, state.end_offset);
  ++records_applied_;
  state.end_offset = record.offset;
  if (!writes_store(aggregation_, record)) return;

  Versions& versions = state.keys[record.key];
  const std::optional<ValueAndTimestamp> next = next_value(versions, record);
  if (!versions.empty() && versions.back().offset == record.offset) {
    versions.back().vt = next;  // Same record context: nothing can observe the older value.
    versions.back().record_timestamp_ms =
        std::max(versions.back().record_timestamp_ms, record.timestamp_ms);
  } else {
    versions.push_back({record.offset, next, record.timestamp_ms});
  }
  push_distinct(state.write_offsets, record.offset);
  if (record.kind != WriteKind::kDelete) {
    push_distinct(state.non_delete_write_offsets, record.offset);
  }
  IQ_ASSERT(value_at(versions, record.offset) == next);
}

std::optional<ValueAndTimestamp> ReferenceStore::get(int32_t partition, const KeyBytes& key,
                                                     int64_t offset_inclusive) const {
  IQ_ASSERT(offset_inclusive >= -1, "offset_inclusive={}", offset_inclusive);
  const PartitionState* state = find_partition(partition);
  if (state == nullptr) return std::nullopt;
  const auto it = state->keys.find(key);
  if (it == state->keys.end()) return std::nullopt;
  return value_at(it->second, offset_inclusive);
}

bool ReferenceStore::timestamp_after_reload_possible(int32_t partition, const KeyBytes& key,
                                                     int64_t offset_inclusive,
                                                     int64_t timestamp_ms) const {
  const std::optional<ValueAndTimestamp> now = get(partition, key, offset_inclusive);
  if (!now) return false;
  if (now->timestamp_ms == timestamp_ms) return true;
  if (aggregation_ == Aggregation::kLatest) return false;
  const Versions& versions = find_partition(partition)->keys.find(key)->second;
  // The versions up to offset_inclusive, newest first: the maxima from each one on only grow, so
  // the walk stops at the first one above the timestamp (or at the key's removal).
  auto it = std::upper_bound(
      versions.begin(), versions.end(), offset_inclusive,
      [](int64_t offset, const Version& version) { return offset < version.offset; });
  int64_t max_ms = std::numeric_limits<int64_t>::min();
  while (it != versions.begin()) {
    --it;
    if (!it->vt) return false;
    max_ms = std::max(max_ms, it->record_timestamp_ms);
    if (max_ms == timestamp_ms) return true;
    if (max_ms > timestamp_ms) return false;
  }
  return false;
}

std::vector<Entry> ReferenceStore::range(int32_t partition, const std::optional<KeyBytes>& lower,
                                         const std::optional<KeyBytes>& upper, Order order,
                                         int64_t offset_inclusive) const {
  std::vector<Entry> entries;
  visit_range(partition, lower, upper, order, offset_inclusive,
              [&](const KeyBytes& key, const ValueAndTimestamp& vt) {
                entries.push_back({key, vt});
                return true;
              });
  return entries;
}

void ReferenceStore::check_offset(int64_t offset_inclusive) {
  IQ_ASSERT(offset_inclusive >= -1, "offset_inclusive={}", offset_inclusive);
}

std::optional<int64_t> ReferenceStore::last_write_offset(int32_t partition,
                                                         int64_t offset_inclusive) const {
  const PartitionState* state = find_partition(partition);
  if (state == nullptr) return std::nullopt;
  return last_offset_at(state->write_offsets, offset_inclusive);
}

std::optional<int64_t> ReferenceStore::last_write_offset_excluding_deletes(
    int32_t partition, int64_t offset_inclusive) const {
  const PartitionState* state = find_partition(partition);
  if (state == nullptr) return std::nullopt;
  return last_offset_at(state->non_delete_write_offsets, offset_inclusive);
}

int64_t ReferenceStore::end_offset(int32_t partition) const {
  const PartitionState* state = find_partition(partition);
  return state == nullptr ? -1 : state->end_offset;
}

std::vector<int32_t> ReferenceStore::partitions() const {
  std::vector<int32_t> result;
  result.reserve(partitions_.size());
  for (const auto& [partition, state] : partitions_) result.push_back(partition);
  return result;
}

bool writes_store(Aggregation aggregation, const SourceRecord& record) {
  if (aggregation == Aggregation::kLatest) return true;
  // An aggregation skips a null-valued input record before touching its store.
  return record.kind != WriteKind::kPut || record.value.has_value();
}

std::ostream& operator<<(std::ostream& out, const ValueAndTimestamp& vt) {
  return out << fmt::format("ValueAndTimestamp{{value={}, timestamp_ms={}}}", vt.value,
                            vt.timestamp_ms);
}

std::ostream& operator<<(std::ostream& out, const Entry& entry) {
  return out << key_to_hex(entry.key) << " -> " << entry.vt;
}

// The store's value for the record's key once the record is applied, given the key's versions
// so far (records arrive in offset order, so the last version is the current value).
std::optional<ValueAndTimestamp> ReferenceStore::next_value(const Versions& versions,
                                                            const SourceRecord& record) const {
  if (is_removal(record)) return std::nullopt;
  const std::optional<ValueAndTimestamp> previous =
      versions.empty() ? std::nullopt : versions.back().vt;
  const int64_t value = *record.value;
  const int64_t timestamp_ms =
      previous ? std::max(previous->timestamp_ms, record.timestamp_ms) : record.timestamp_ms;
  switch (aggregation_) {
    case Aggregation::kLatest:
      return ValueAndTimestamp{value, record.timestamp_ms};
    case Aggregation::kCount:
      return ValueAndTimestamp{previous ? checked_add(previous->value, 1) : 1, timestamp_ms};
    case Aggregation::kSum:
      return ValueAndTimestamp{checked_add(previous ? previous->value : 0, value), timestamp_ms};
  }
  IQ_ASSERT(false, "unknown aggregation {}", static_cast<int>(aggregation_));
  return std::nullopt;
}

const ReferenceStore::PartitionState* ReferenceStore::find_partition(int32_t partition) const {
  const auto it = partitions_.find(partition);
  return it == partitions_.end() ? nullptr : &it->second;
}

std::optional<ValueAndTimestamp> ReferenceStore::value_at(const Versions& versions,
                                                          int64_t offset_inclusive) {
  const auto after = std::upper_bound(
      versions.begin(), versions.end(), offset_inclusive,
      [](int64_t offset, const Version& version) { return offset < version.offset; });
  if (after == versions.begin()) return std::nullopt;
  return std::prev(after)->vt;
}

std::optional<int64_t> ReferenceStore::last_offset_at(const std::vector<int64_t>& offsets,
                                                      int64_t offset_inclusive) {
  IQ_ASSERT(offset_inclusive >= -1, "offset_inclusive={}", offset_inclusive);
  const auto after = std::upper_bound(offsets.begin(), offsets.end(), offset_inclusive);
  if (after == offsets.begin()) return std::nullopt;
  IQ_ASSERT(*std::prev(after) <= offset_inclusive);
  return *std::prev(after);
}

namespace {

// put(key, null) and delete(key) both leave the key absent.
bool is_removal(const SourceRecord& record) {
  return record.kind != WriteKind::kPut || !record.value.has_value();
}

int64_t checked_add(int64_t a, int64_t b) {
  int64_t sum = 0;
  IQ_ASSERT(!__builtin_add_overflow(a, b, &sum), "aggregate overflows: {} + {}", a, b);
  return sum;
}

void push_distinct(std::vector<int64_t>& offsets, int64_t offset) {
  IQ_ASSERT(offsets.empty() || offsets.back() <= offset, "offset={} after {}", offset,
            offsets.empty() ? -1 : offsets.back());
  if (offsets.empty() || offsets.back() != offset) offsets.push_back(offset);
}

}  // namespace

}  // namespace iq::model
