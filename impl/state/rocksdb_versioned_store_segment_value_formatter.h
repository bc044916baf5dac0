#pragma once
// RocksDBVersionedStoreSegmentValueFormatter (SI/RocksDBVersionedStoreSegmentValueFormatter.java):
// the bytes of one row of a versioned store segment, which holds every version of one key whose
// validTo falls in that segment:
//
//   [next_timestamp: 8][min_timestamp: 8]
//   [(timestamp: 8, value_size: 4) per version, newest first]
//   [value bytes per version, oldest first]
//
// all big-endian. next_timestamp is the validTo of the newest version in the row, min_timestamp
// the validFrom of the oldest; the list ends at the first entry whose timestamp equals
// min_timestamp (the row stores no count). value_size -1 marks a tombstone (0 is an empty value).
// A version's validTo is the next newer version's timestamp, or next_timestamp for the newest.
//
// The one exception is Kafka's "degenerate" row: a lone tombstone whose min_timestamp equals
// next_timestamp, written when a tombstone is put and no version of the key is in reach.
//
// Like Kafka's PartiallyDeserializedSegmentValue, a SegmentValue holds the row's bytes and edits
// them in place, decoding the (timestamp, size) list lazily, only as far as find() walked. This
// matters because the store can be made to write rows the format does not describe: after a
// reopen (docs/iqv2-semantics.md quirk 17) finishPut calls insertAsEarliest with a timestamp that
// is not below min_timestamp, and Kafka appends it unchecked, making it the new min_timestamp.
// Such a row is read back as Kafka reads it: the walk stops at the first entry equal to
// min_timestamp, entries and value bytes past it stay in the bytes unseen (and are carried along
// by later edits), and timestamps need not descend. impl/ keeps the same bytes, so every later
// read and write sees what Kafka's would. Where Kafka throws (IllegalArgumentException and
// IllegalStateException on an index or timestamp out of reach), impl/ asserts.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "iq/bytes.h"

namespace iq::versioned_segment_value {

// A version found in a row: its index (0 = newest), validFrom, validTo and value (nullopt for a
// tombstone, or when the caller did not ask for the value).
struct SegmentSearchResult {
  int index = 0;
  int64_t valid_from = 0;
  int64_t valid_to = 0;
  ValueBytes value;
};

class SegmentValue {
 public:
  // newSegmentValueWithRecord: one version [valid_from, valid_to). A null value with
  // valid_from == valid_to makes a degenerate row.
  static SegmentValue with_record(const ValueBytes& value, int64_t valid_from, int64_t valid_to);
  // Wraps the bytes without decoding them (Kafka's deserialize).
  static SegmentValue deserialize(std::string_view bytes);
  Bytes serialize() const { return Bytes(bytes_); }

  int64_t next_timestamp() const { return next_timestamp_; }
  int64_t min_timestamp() const { return min_timestamp_; }
  bool is_degenerate() const { return is_degenerate_; }

  // The first version, newest first, with validFrom <= timestamp; requires min <= timestamp <
  // next (so never on a degenerate row). Decodes the list up to the version found.
  SegmentSearchResult find(int64_t timestamp, bool include_value);
  // Every non-tombstone version with validFrom <= to_ms and validTo > from_ms, newest first.
  std::vector<SegmentSearchResult> find_all(int64_t from_ms, int64_t to_ms) const;

  // Appends a version as the newest: if valid_from is below next_timestamp (a partial write that
  // a restart left behind), the row is first truncated to valid_from, as Kafka reconciles it; a
  // gap between next_timestamp and valid_from becomes a tombstone at next_timestamp.
  void insert_as_latest(int64_t valid_from, int64_t valid_to, const ValueBytes& value);
  // Appends a version after the entry equal to min_timestamp and makes it the new min_timestamp.
  // The caller is meant to pass a timestamp below min_timestamp; like Kafka, nothing checks it.
  // On a degenerate row the lone tombstone is replaced, the new version valid until the old
  // next_timestamp.
  void insert_as_earliest(int64_t timestamp, const ValueBytes& value);
  // Inserts at `index`, which find() must have reached (index <= the last decoded index).
  void insert(int64_t timestamp, const ValueBytes& value, int index);
  // Replaces the version at `index` (timestamp and value), which find() must have reached.
  void update_record(int64_t timestamp, const ValueBytes& value, int index);

 private:
  struct TimestampAndValueSize {
    int64_t timestamp;
    int32_t value_size;  // -1: tombstone
  };

  void do_insert(int64_t timestamp, const ValueBytes& value, int index);
  void initialize_with_record(const ValueBytes& value, int64_t valid_from, int64_t valid_to);
  void reset_deser_helpers();
  void truncate_deser_helpers_to_index(int index);
  bool is_last_index(int index) const;
  void truncate_records_to_timestamp(int64_t timestamp);
  void write_next_timestamp(int64_t timestamp);
  void write_min_timestamp(int64_t timestamp);

  std::string bytes_;
  int64_t next_timestamp_ = 0;
  int64_t min_timestamp_ = 0;
  bool is_degenerate_ = false;  // decided when the row is wrapped or re-initialized, as in Kafka
  // The list decoded so far: entries 0..deser_index_ with the cumulative size of their values.
  int deser_index_ = -1;
  std::vector<TimestampAndValueSize> unpacked_reversed_;
  std::vector<int32_t> cumulative_value_sizes_;
};

// nextTimestamp/minTimestamp read straight from the bytes, without decoding the row.
int64_t next_timestamp(std::string_view bytes);
int64_t min_timestamp(std::string_view bytes);

}  // namespace iq::versioned_segment_value
