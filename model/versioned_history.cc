#include "model/versioned_history.h"

#include <algorithm>
#include <limits>
#include <ostream>

#include "base/assert.h"
#include "model/time_math.h"

namespace iq::model {

std::ostream& operator<<(std::ostream& out, const Version& v) {
  out << v.value << "@[" << v.valid_from_ms << ",";
  if (v.valid_to_ms) out << *v.valid_to_ms;
  return out << ")";
}

VersionedHistory::VersionedHistory(int64_t history_retention_ms, int64_t segment_interval_ms,
                                   int64_t records_max)
    : history_retention_ms_(history_retention_ms),
      segment_interval_ms_(segment_interval_ms),
      records_max_(records_max) {
  IQ_ASSERT(history_retention_ms >= 0, "history retention {}", history_retention_ms);
  IQ_ASSERT(segment_interval_ms >= 1, "segment interval {}", segment_interval_ms);
}

void VersionedHistory::apply(int32_t partition, const SourceRecord& record) {
  assert_valid_record(record);
  IQ_ASSERT(record.kind != WriteKind::kDelete, "a versioned table never calls delete()");
  IQ_ASSERT(records_applied_ < records_max_, "more than {} records", records_max_);
  ++records_applied_;
  PartitionState& p = partitions_[partition];
  const int64_t before = p.stream_times.empty() ? -1 : p.stream_times.back().second;
  IQ_ASSERT(p.stream_times.empty() || p.stream_times.back().first <= record.offset,
            "offset {} after {}", record.offset, p.stream_times.back().first);
  // The grace check comes first and a dropped record leaves the stream time alone; it could not
  // raise it anyway, being older than it.
  const bool dropped = record.timestamp_ms < saturating_minus(before, history_retention_ms_);
  const int64_t after = dropped ? before : std::max(before, record.timestamp_ms);
  p.stream_times.emplace_back(record.offset, after);
  p.keys[record.key].push_back(Record{record.offset, record.value, record.timestamp_ms, dropped});
}

const VersionedHistory::PartitionState* VersionedHistory::find(int32_t partition) const {
  const auto it = partitions_.find(partition);
  return it == partitions_.end() ? nullptr : &it->second;
}

int64_t VersionedHistory::stream_time(int32_t partition, int64_t offset_inclusive) const {
  const PartitionState* p = find(partition);
  if (p == nullptr) return -1;
  // The last entry with offset <= offset_inclusive.
  const auto it =
      std::upper_bound(p->stream_times.begin(), p->stream_times.end(), offset_inclusive,
                       [](int64_t o, const std::pair<int64_t, int64_t>& e) { return o < e.first; });
  return it == p->stream_times.begin() ? -1 : std::prev(it)->second;
}

VersionedHistory::Timeline VersionedHistory::timeline(int32_t partition, const KeyBytes& key,
                                                      int64_t offset_inclusive) const {
  Timeline out;
  const PartitionState* p = find(partition);
  if (p == nullptr) return out;
  const auto it = p->keys.find(key);
  if (it == p->keys.end()) return out;
  for (const Record& r : it->second) {
    if (r.offset > offset_inclusive) break;
    if (!r.dropped) out[r.timestamp_ms] = r.value;  // the same timestamp replaces
  }
  return out;
}

bool VersionedHistory::grace_dropped(int32_t partition, const KeyBytes& key,
                                     int64_t offset_inclusive) const {
  const PartitionState* p = find(partition);
  if (p == nullptr) return false;
  const auto it = p->keys.find(key);
  if (it == p->keys.end()) return false;
  for (const Record& r : it->second) {
    if (r.offset > offset_inclusive) break;
    if (r.dropped) return true;
  }
  return false;
}

std::optional<Version> VersionedHistory::get(int32_t partition, const KeyBytes& key,
                                             int64_t offset_inclusive) const {
  // The timeline's newest entry, without building the timeline: the kept record with the largest
  // timestamp, the last of them when several share it (the same timestamp replaces).
  const PartitionState* p = find(partition);
  if (p == nullptr) return std::nullopt;
  const auto it = p->keys.find(key);
  if (it == p->keys.end()) return std::nullopt;
  const Record* newest = nullptr;
  for (const Record& r : it->second) {
    if (r.offset > offset_inclusive) break;
    if (!r.dropped && (newest == nullptr || r.timestamp_ms >= newest->timestamp_ms)) newest = &r;
  }
  if (newest == nullptr || !newest->value) return std::nullopt;
  return Version{*newest->value, newest->timestamp_ms, std::nullopt};
}

std::optional<Version> VersionedHistory::get_as_of(int32_t partition, const KeyBytes& key,
                                                   int64_t as_of_ms,
                                                   int64_t offset_inclusive) const {
  const Timeline t = timeline(partition, key, offset_inclusive);
  if (t.empty()) return std::nullopt;
  // The latest version never expires.
  if (t.rbegin()->second && t.rbegin()->first <= as_of_ms) {
    return Version{*t.rbegin()->second, t.rbegin()->first, std::nullopt};
  }
  const int64_t st = stream_time(partition, offset_inclusive);
  if (as_of_ms < saturating_minus(st, history_retention_ms_)) return std::nullopt;
  auto it = t.upper_bound(as_of_ms);
  if (it == t.begin()) return std::nullopt;  // no version started by as_of
  const auto next = it;
  --it;
  if (!it->second) return std::nullopt;  // a tombstone was valid at as_of
  IQ_ASSERT(next != t.end(), "the latest version at {} should have answered", it->first);
  return Version{*it->second, it->first, next->first};
}

VersionedRange VersionedHistory::get_range(int32_t partition, const KeyBytes& key, int64_t from_ms,
                                           int64_t to_ms, Order order,
                                           int64_t offset_inclusive) const {
  VersionedRange out;
  const Timeline t = timeline(partition, key, offset_inclusive);
  const int64_t floor_ms =
      saturating_minus(stream_time(partition, offset_inclusive), history_retention_ms_);
  const bool latest_only = to_ms < floor_ms;
  // Java's long division (towards zero), as the store's segment ids are computed.
  const auto segment = [this](int64_t ts) { return ts / segment_interval_ms_; };
  const int64_t first_live_segment = segment(floor_ms);
  std::optional<int64_t> valid_to;  // the newer neighbour's start, walking newest first
  for (auto it = t.rbegin(); it != t.rend(); valid_to = it->first, ++it) {
    if (!it->second) continue;  // tombstones are never returned
    const Version v{*it->second, it->first, valid_to};
    if (!valid_to) {  // the latest version: only its start is compared
      if (v.valid_from_ms <= to_ms) out.versions.push_back(v);
      continue;
    }
    const bool overlaps = v.valid_from_ms <= to_ms && *valid_to > from_ms;
    if (!overlaps || segment(*valid_to) > segment(to_ms)) continue;
    if (latest_only || segment(*valid_to) < first_live_segment) {
      // Gone under the model's stream time; a store with a lower one still returns it.
      out.uncertain = true;
      continue;
    }
    out.versions.push_back(v);
  }
  if (order == Order::kAscending) std::reverse(out.versions.begin(), out.versions.end());
  return out;
}

}  // namespace iq::model
