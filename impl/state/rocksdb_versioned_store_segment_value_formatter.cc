#include "state/rocksdb_versioned_store_segment_value_formatter.h"

#include "base/assert.h"
#include "iq/serdes.h"

namespace iq::versioned_segment_value {
namespace {

constexpr size_t kTimestampSize = 8;
constexpr size_t kValueSizeSize = 4;
constexpr size_t kHeaderSize = 2 * kTimestampSize;
constexpr int32_t kTombstoneSize = -1;

int64_t read_long(std::string_view bytes, size_t at) {
  IQ_ASSERT(bytes.size() >= at + kTimestampSize, "segment value of {} bytes, long at {}",
            bytes.size(), at);
  return static_cast<int64_t>(
      serde_detail::from_big_endian<uint64_t>(bytes.substr(at, kTimestampSize)));
}

int32_t read_int(std::string_view bytes, size_t at) {
  IQ_ASSERT(bytes.size() >= at + kValueSizeSize, "segment value of {} bytes, int at {}",
            bytes.size(), at);
  return static_cast<int32_t>(
      serde_detail::from_big_endian<uint32_t>(bytes.substr(at, kValueSizeSize)));
}

}  // namespace

int64_t next_timestamp(std::string_view bytes) {
  return read_long(bytes, 0);
}

int64_t min_timestamp(std::string_view bytes) {
  return read_long(bytes, kTimestampSize);
}

SegmentValue SegmentValue::with_record(const ValueBytes& value, int64_t valid_from,
                                       int64_t valid_to) {
  SegmentValue out;
  out.initialize_with_record(value, valid_from, valid_to);
  return out;
}

// Walks the (timestamp, size) list until the entry whose timestamp is min_timestamp, as Kafka's
// reader does; the values then follow oldest first, so a version's bytes end where the next
// newer version's begin.
SegmentValue SegmentValue::deserialize(std::string_view bytes) {
  SegmentValue out;
  out.next_timestamp_ = versioned_segment_value::next_timestamp(bytes);
  out.min_timestamp_ = versioned_segment_value::min_timestamp(bytes);
  std::vector<std::pair<int64_t, int32_t>> entries;
  const size_t entries_max = (bytes.size() - kHeaderSize) / (kTimestampSize + kValueSizeSize);
  for (size_t at = kHeaderSize;; at += kTimestampSize + kValueSizeSize) {
    IQ_ASSERT(entries.size() < entries_max,
              "segment value ran past its end before min_timestamp {}", out.min_timestamp_);
    entries.emplace_back(read_long(bytes, at), read_int(bytes, at + kTimestampSize));
    if (entries.back().first == out.min_timestamp_) break;
  }
  size_t value_end = bytes.size();  // values are oldest first, so newest is last
  for (const auto& [timestamp, size] : entries) {
    const size_t length = size < 0 ? 0 : static_cast<size_t>(size);
    IQ_ASSERT(value_end >= length, "segment value sizes exceed its {} bytes", bytes.size());
    value_end -= length;
    ValueBytes value;
    if (size >= 0) value = Bytes(std::string(bytes.substr(value_end, length)));
    out.versions_.push_back({timestamp, std::move(value)});
  }
  IQ_ASSERT(value_end == kHeaderSize + entries.size() * (kTimestampSize + kValueSizeSize),
            "segment value has {} stray bytes", value_end);
  return out;
}

Bytes SegmentValue::serialize() const {
  IQ_ASSERT(!versions_.empty(), "an empty segment value");
  IQ_ASSERT(versions_.back().timestamp == min_timestamp_, "oldest version {} is not min {}",
            versions_.back().timestamp, min_timestamp_);
  std::string out = serde_detail::to_big_endian(static_cast<uint64_t>(next_timestamp_)) +
                    serde_detail::to_big_endian(static_cast<uint64_t>(min_timestamp_));
  for (const Version& v : versions_) {
    const int32_t size = v.value ? static_cast<int32_t>(v.value->size()) : kTombstoneSize;
    out += serde_detail::to_big_endian(static_cast<uint64_t>(v.timestamp));
    out += serde_detail::to_big_endian(static_cast<uint32_t>(size));
  }
  for (auto it = versions_.rbegin(); it != versions_.rend(); ++it) {
    if (it->value) out += it->value->get();
  }
  return Bytes(std::move(out));
}

SegmentSearchResult SegmentValue::find(int64_t timestamp, bool include_value) const {
  IQ_ASSERT(timestamp >= min_timestamp_, "Timestamp is too small to be found in this segment.");
  IQ_ASSERT(timestamp < next_timestamp_, "Timestamp is too large to be found in this segment.");
  int64_t valid_to = next_timestamp_;
  for (size_t i = 0; i < versions_.size(); ++i) {
    const Version& v = versions_[i];
    if (v.timestamp <= timestamp) {
      return {static_cast<int>(i), v.timestamp, valid_to, include_value ? v.value : ValueBytes{}};
    }
    valid_to = v.timestamp;
  }
  IQ_ASSERT(false, "Search in segment expected to find result but did not.");
  return {};
}

std::vector<SegmentSearchResult> SegmentValue::find_all(int64_t from_ms, int64_t to_ms) const {
  std::vector<SegmentSearchResult> out;
  int64_t valid_to = next_timestamp_;
  for (size_t i = 0; i < versions_.size(); ++i) {
    const Version& v = versions_[i];
    if (v.value && v.timestamp <= to_ms && valid_to > from_ms) {
      out.push_back({static_cast<int>(i), v.timestamp, valid_to, v.value});
    }
    valid_to = v.timestamp;
  }
  return out;
}

void SegmentValue::insert_as_latest(int64_t valid_from, int64_t valid_to, const ValueBytes& value) {
  if (valid_from < next_timestamp_) {
    // Kafka logs "Detected inconsistency among versioned store segments" and recovers: a put
    // that moved a version into this (older) row and then failed to update the newer one.
    truncate_records_to_timestamp(valid_from);
  }
  if (next_timestamp_ == valid_from) {
    if (is_degenerate()) {
      initialize_with_record(value, valid_from, valid_to);
    } else {
      insert(valid_from, value, 0);
    }
  } else {
    // The gap from next_timestamp to valid_from was a deletion: record it as a tombstone.
    if (is_degenerate()) {
      initialize_with_record(std::nullopt, next_timestamp_, valid_from);
    } else {
      insert(next_timestamp_, std::nullopt, 0);
    }
    insert(valid_from, value, 0);
  }
  next_timestamp_ = valid_to;
}

void SegmentValue::insert_as_earliest(int64_t timestamp, const ValueBytes& value) {
  if (is_degenerate()) {
    initialize_with_record(value, timestamp, next_timestamp_);
    return;
  }
  IQ_ASSERT(timestamp < min_timestamp_, "earliest {} not below min {}", timestamp, min_timestamp_);
  insert(timestamp, value, static_cast<int>(versions_.size()));
}

void SegmentValue::insert(int64_t timestamp, const ValueBytes& value, int index) {
  IQ_ASSERT(!is_degenerate() && index >= 0 && static_cast<size_t>(index) <= versions_.size(),
            "Cannot insert at index {} of {} (degenerate: {})", index, versions_.size(),
            is_degenerate());
  const bool oldest = static_cast<size_t>(index) == versions_.size();
  versions_.insert(versions_.begin() + index, Version{timestamp, value});
  if (oldest) min_timestamp_ = timestamp;
}

void SegmentValue::update_record(int64_t timestamp, const ValueBytes& value, int index) {
  IQ_ASSERT(index >= 0 && static_cast<size_t>(index) < versions_.size(), "update at {} of {}",
            index, versions_.size());
  versions_[static_cast<size_t>(index)] = Version{timestamp, value};
  if (static_cast<size_t>(index) + 1 == versions_.size()) min_timestamp_ = timestamp;
}

void SegmentValue::initialize_with_record(const ValueBytes& value, int64_t valid_from,
                                          int64_t valid_to) {
  next_timestamp_ = valid_to;
  min_timestamp_ = valid_from;
  versions_ = {Version{valid_from, value}};
}

// Drops every version newer than or at `timestamp` and cuts the one spanning it, so that
// next_timestamp becomes `timestamp`. At or below min_timestamp the whole row goes, replaced by a
// degenerate tombstone at `timestamp`.
void SegmentValue::truncate_records_to_timestamp(int64_t timestamp) {
  if (timestamp <= min_timestamp_) {
    initialize_with_record(std::nullopt, timestamp, timestamp);
    return;
  }
  const SegmentSearchResult found = find(timestamp, false);
  size_t drop = static_cast<size_t>(found.index);
  if (found.valid_from == timestamp) ++drop;
  IQ_ASSERT(drop < versions_.size(), "truncation above min {} dropped every version",
            min_timestamp_);
  versions_.erase(versions_.begin(), versions_.begin() + static_cast<std::ptrdiff_t>(drop));
  next_timestamp_ = timestamp;
}

}  // namespace iq::versioned_segment_value
