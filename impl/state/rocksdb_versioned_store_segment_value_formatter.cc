#include "state/rocksdb_versioned_store_segment_value_formatter.h"

#include <algorithm>

#include "base/assert.h"
#include "iq/serdes.h"

namespace iq::versioned_segment_value {
namespace {

constexpr size_t kTimestampSize = 8;
constexpr size_t kValueSizeSize = 4;
constexpr size_t kEntrySize = kTimestampSize + kValueSizeSize;
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

std::string long_bytes(int64_t v) {
  return serde_detail::to_big_endian(static_cast<uint64_t>(v));
}

std::string int_bytes(int32_t v) {
  return serde_detail::to_big_endian(static_cast<uint32_t>(v));
}

// ValueAndValueSize: what a version stores, its bytes (none for a tombstone) and its size field.
int32_t value_size_of(const ValueBytes& value) {
  return value ? static_cast<int32_t>(value->size()) : kTombstoneSize;
}
std::string_view value_bytes_of(const ValueBytes& value) {
  return value ? value->view() : std::string_view{};
}

size_t entry_at(int index) {
  IQ_ASSERT(index >= 0, "entry index {}", index);
  return kHeaderSize + static_cast<size_t>(index) * kEntrySize;
}

// The value of a version whose bytes end `cum_value_size` bytes before the row's end (values are
// stored oldest first, so the newest version's bytes are last).
ValueBytes value_at(std::string_view bytes, int32_t value_size, int32_t cum_value_size) {
  if (value_size < 0) return std::nullopt;
  IQ_ASSERT(cum_value_size >= value_size && static_cast<size_t>(cum_value_size) <= bytes.size(),
            "value of {} bytes ending {} before the end of a {}-byte row", value_size,
            cum_value_size, bytes.size());
  return Bytes(std::string(bytes.substr(bytes.size() - static_cast<size_t>(cum_value_size),
                                        static_cast<size_t>(value_size))));
}

// How many (timestamp, size) entries a row of this many bytes can hold at most: the bound of
// every walk down the list (Kafka's walk would run off the buffer and throw).
int entries_max(std::string_view bytes) {
  IQ_ASSERT(bytes.size() >= kHeaderSize + kEntrySize, "segment value of {} bytes", bytes.size());
  return static_cast<int>((bytes.size() - kHeaderSize) / kEntrySize);
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

SegmentValue SegmentValue::deserialize(std::string_view bytes) {
  SegmentValue out;
  out.bytes_ = std::string(bytes);
  out.next_timestamp_ = versioned_segment_value::next_timestamp(bytes);
  out.min_timestamp_ = versioned_segment_value::min_timestamp(bytes);
  out.is_degenerate_ = out.next_timestamp_ == out.min_timestamp_;
  out.reset_deser_helpers();
  return out;
}

// Walks the list newest first, from the decoded prefix and then the bytes (remembering what it
// decodes), to the first entry at or below `timestamp`; the walk ends at the entry equal to
// min_timestamp, which is at or below it.
SegmentSearchResult SegmentValue::find(int64_t timestamp, bool include_value) {
  IQ_ASSERT(timestamp >= min_timestamp_, "Timestamp is too small to be found in this segment.");
  IQ_ASSERT(timestamp < next_timestamp_, "Timestamp is too large to be found in this segment.");
  const int index_max = entries_max(bytes_);
  int64_t curr_next_timestamp = next_timestamp_;
  int32_t cum_value_size = 0;
  for (int index = 0; index < index_max; ++index) {
    TimestampAndValueSize curr;
    if (index <= deser_index_) {
      curr = unpacked_reversed_[static_cast<size_t>(index)];
      cum_value_size = cumulative_value_sizes_[static_cast<size_t>(index)];
    } else {
      const size_t at = entry_at(index);
      curr = {read_long(bytes_, at), read_int(bytes_, at + kTimestampSize)};
      cum_value_size += std::max(curr.value_size, 0);
      deser_index_ = index;
      unpacked_reversed_.push_back(curr);
      cumulative_value_sizes_.push_back(cum_value_size);
    }
    if (curr.timestamp <= timestamp) {
      return {index, curr.timestamp, curr_next_timestamp,
              include_value ? value_at(bytes_, curr.value_size, cum_value_size) : ValueBytes{}};
    }
    IQ_ASSERT(curr.timestamp != min_timestamp_,
              "Search in segment expected to find result but did not.");
    curr_next_timestamp = curr.timestamp;
  }
  IQ_ASSERT(false, "segment value of {} bytes ran out before min_timestamp {}", bytes_.size(),
            min_timestamp_);
  return {};
}

std::vector<SegmentSearchResult> SegmentValue::find_all(int64_t from_ms, int64_t to_ms) const {
  std::vector<SegmentSearchResult> out;
  const int index_max = entries_max(bytes_);
  int64_t curr_next_timestamp = next_timestamp_;
  int32_t cum_value_size = 0;
  for (int index = 0; index < index_max; ++index) {
    const size_t at = entry_at(index);
    const int64_t curr_timestamp = read_long(bytes_, at);
    const int32_t curr_value_size = read_int(bytes_, at + kTimestampSize);
    cum_value_size += std::max(curr_value_size, 0);
    if (curr_value_size >= 0 && curr_timestamp <= to_ms && curr_next_timestamp > from_ms) {
      out.push_back({index, curr_timestamp, curr_next_timestamp,
                     value_at(bytes_, curr_value_size, cum_value_size)});
    }
    if (curr_timestamp == min_timestamp_) return out;
    curr_next_timestamp = curr_timestamp;
  }
  IQ_ASSERT(false, "segment value of {} bytes ran out before min_timestamp {}", bytes_.size(),
            min_timestamp_);
  return out;
}

void SegmentValue::insert_as_latest(int64_t valid_from, int64_t valid_to, const ValueBytes& value) {
  if (valid_from < next_timestamp_) {
    // Kafka logs "Detected inconsistency among versioned store segments" and recovers: a put
    // that moved a version into this (older) row and then failed to update the newer one.
    truncate_records_to_timestamp(valid_from);
  }
  if (next_timestamp_ == valid_from) {
    if (is_degenerate_) {
      initialize_with_record(value, valid_from, valid_to);
    } else {
      do_insert(valid_from, value, 0);
    }
  } else {
    // The gap from next_timestamp to valid_from was a deletion: record it as a tombstone.
    if (is_degenerate_) {
      initialize_with_record(std::nullopt, next_timestamp_, valid_from);
    } else {
      do_insert(next_timestamp_, std::nullopt, 0);
    }
    do_insert(valid_from, value, 0);
  }
  write_next_timestamp(valid_to);
}

void SegmentValue::insert_as_earliest(int64_t timestamp, const ValueBytes& value) {
  if (is_degenerate_) {
    initialize_with_record(value, timestamp, next_timestamp_);
    return;
  }
  // Kafka checks nothing here: a timestamp at or above min_timestamp still goes after the entry
  // equal to min_timestamp, and becomes the new min_timestamp (see the header).
  const int last_index = find(min_timestamp_, false).index;
  do_insert(timestamp, value, last_index + 1);
}

void SegmentValue::insert(int64_t timestamp, const ValueBytes& value, int index) {
  IQ_ASSERT(index <= deser_index_,
            "Must invoke find() to deserialize record before insert() at specific index.");
  do_insert(timestamp, value, index);
}

// Splices the entry in at `index` and its value just before the values of the versions newer
// than it (the last cumulative-size bytes of the row).
void SegmentValue::do_insert(int64_t timestamp, const ValueBytes& value, int index) {
  IQ_ASSERT(index <= deser_index_ + 1,
            "Must invoke find() to deserialize record before insert() at specific index.");
  IQ_ASSERT(!is_degenerate_ && index >= 0,
            "Cannot insert at negative index or into degenerate segment.");
  const bool needs_min_ts_update = is_last_index(index - 1);
  truncate_deser_helpers_to_index(index - 1);
  const std::string_view value_bytes = value_bytes_of(value);
  unpacked_reversed_.push_back({timestamp, value_size_of(value)});
  const int32_t prev_cum_value_size =
      deser_index_ == -1 ? 0 : cumulative_value_sizes_[static_cast<size_t>(deser_index_)];
  cumulative_value_sizes_.push_back(prev_cum_value_size + static_cast<int32_t>(value_bytes.size()));
  ++deser_index_;

  const size_t at = entry_at(index);
  const size_t tail = static_cast<size_t>(prev_cum_value_size);
  IQ_ASSERT(at + tail <= bytes_.size(), "insert at {} with {} newer value bytes in {} bytes", at,
            tail, bytes_.size());
  const std::string_view old = bytes_;
  std::string out;
  out.reserve(old.size() + kEntrySize + value_bytes.size());
  out.append(old.substr(0, at));
  out += long_bytes(timestamp) + int_bytes(value_size_of(value));
  out.append(old.substr(at, old.size() - at - tail));
  out.append(value_bytes);
  out.append(old.substr(old.size() - tail));
  bytes_ = std::move(out);
  if (needs_min_ts_update) write_min_timestamp(timestamp);
}

void SegmentValue::update_record(int64_t timestamp, const ValueBytes& value, int index) {
  IQ_ASSERT(index >= 0 && index <= deser_index_,
            "Must invoke find() to deserialize record before updateRecord().");
  const size_t i = static_cast<size_t>(index);
  const std::string_view value_bytes = value_bytes_of(value);
  const int32_t old_value_size = std::max(unpacked_reversed_[i].value_size, 0);
  const int32_t old_cum_value_size = cumulative_value_sizes_[i];
  const bool needs_min_ts_update = is_last_index(index);
  unpacked_reversed_[i] = {timestamp, value_size_of(value)};
  cumulative_value_sizes_[i] =
      old_cum_value_size - old_value_size + static_cast<int32_t>(value_bytes.size());
  truncate_deser_helpers_to_index(index);

  const size_t at = entry_at(index);
  const size_t old_cum = static_cast<size_t>(old_cum_value_size);
  const size_t old_size = static_cast<size_t>(old_value_size);
  const std::string_view old = bytes_;
  IQ_ASSERT(at + kEntrySize + old_cum <= old.size(), "update at {} with {} value bytes in {}", at,
            old_cum, old.size());
  std::string out;
  out.reserve(old.size() - old_size + value_bytes.size());
  out.append(old.substr(0, at));
  out += long_bytes(timestamp) + int_bytes(value_size_of(value));
  out.append(old.substr(at + kEntrySize, old.size() - (at + kEntrySize) - old_cum));
  out.append(value_bytes);
  out.append(old.substr(old.size() - old_cum + old_size, old_cum - old_size));
  bytes_ = std::move(out);
  if (needs_min_ts_update) write_min_timestamp(timestamp);
}

void SegmentValue::initialize_with_record(const ValueBytes& value, int64_t valid_from,
                                          int64_t valid_to) {
  next_timestamp_ = valid_to;
  min_timestamp_ = valid_from;
  bytes_ = long_bytes(valid_to) + long_bytes(valid_from) + long_bytes(valid_from) +
           int_bytes(value_size_of(value));
  bytes_.append(value_bytes_of(value));
  is_degenerate_ = next_timestamp_ == min_timestamp_;
  reset_deser_helpers();
}

void SegmentValue::reset_deser_helpers() {
  deser_index_ = -1;
  unpacked_reversed_.clear();
  cumulative_value_sizes_.clear();
}

void SegmentValue::truncate_deser_helpers_to_index(int index) {
  IQ_ASSERT(index >= -1 && index <= deser_index_, "truncate decoded list of {} to {}",
            deser_index_ + 1, index);
  deser_index_ = index;
  unpacked_reversed_.resize(static_cast<size_t>(index + 1));
  cumulative_value_sizes_.resize(static_cast<size_t>(index + 1));
}

// Only for a decoded index: whether the entry there is the one equal to min_timestamp.
bool SegmentValue::is_last_index(int index) const {
  if (index < 0) return false;
  IQ_ASSERT(index <= deser_index_, "entry {} not decoded ({})", index, deser_index_);
  return unpacked_reversed_[static_cast<size_t>(index)].timestamp == min_timestamp_;
}

// Drops every version newer than or at `timestamp` and cuts the one spanning it, so that
// next_timestamp becomes `timestamp`. At or below min_timestamp the whole row goes, replaced by a
// degenerate tombstone at `timestamp`.
void SegmentValue::truncate_records_to_timestamp(int64_t timestamp) {
  if (timestamp <= min_timestamp_) {
    // Kafka counts the versions only for a warning, but the search is what throws on a
    // degenerate row, so it is kept.
    (void)find(min_timestamp_, false);
    initialize_with_record(std::nullopt, timestamp, timestamp);
    return;
  }
  const SegmentSearchResult found = find(timestamp, false);
  int full_records_to_truncate = found.index;
  if (found.valid_from == timestamp) ++full_records_to_truncate;
  if (full_records_to_truncate == 0) {
    write_next_timestamp(timestamp);
    return;
  }
  const size_t values_length = static_cast<size_t>(
      cumulative_value_sizes_[static_cast<size_t>(full_records_to_truncate - 1)]);
  const size_t entries_length = kEntrySize * static_cast<size_t>(full_records_to_truncate);
  IQ_ASSERT(kHeaderSize + entries_length + values_length <= bytes_.size(),
            "truncating {} versions of a {}-byte row", full_records_to_truncate, bytes_.size());
  const size_t new_length = bytes_.size() - values_length - entries_length;
  bytes_ = long_bytes(timestamp) + long_bytes(min_timestamp_) +
           bytes_.substr(kHeaderSize + entries_length, new_length - kHeaderSize);
  next_timestamp_ = timestamp;
  reset_deser_helpers();
}

void SegmentValue::write_next_timestamp(int64_t timestamp) {
  next_timestamp_ = timestamp;
  bytes_.replace(0, kTimestampSize, long_bytes(timestamp));
  IQ_ASSERT(versioned_segment_value::next_timestamp(bytes_) == next_timestamp_);
}

void SegmentValue::write_min_timestamp(int64_t timestamp) {
  min_timestamp_ = timestamp;
  bytes_.replace(kTimestampSize, kTimestampSize, long_bytes(timestamp));
  IQ_ASSERT(versioned_segment_value::min_timestamp(bytes_) == min_timestamp_);
}

}  // namespace iq::versioned_segment_value
