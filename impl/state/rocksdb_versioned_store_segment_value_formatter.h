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
// the validFrom of the oldest; the list ends at the entry whose timestamp equals min_timestamp
// (the row stores no count). value_size -1 marks a tombstone (0 is an empty value). A version's
// validTo is the next newer version's timestamp, or next_timestamp for the newest.
//
// The one exception is Kafka's "degenerate" row: a lone tombstone whose min_timestamp equals
// next_timestamp, written when a tombstone is put and no version of the key is in reach.
//
// Kafka deserializes lazily (PartiallyDeserializedSegmentValue); impl/ decodes the whole row into
// a SegmentValue and encodes it back, byte for byte the same layout. Every operation keeps Kafka's
// preconditions (as IQ_ASSERTs: Kafka throws IllegalArgument/IllegalStateException there, which
// the store never triggers).

#include <cstdint>
#include <optional>
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
  static SegmentValue deserialize(std::string_view bytes);
  Bytes serialize() const;

  int64_t next_timestamp() const { return next_timestamp_; }
  int64_t min_timestamp() const { return min_timestamp_; }
  bool is_degenerate() const { return next_timestamp_ == min_timestamp_; }
  size_t size() const { return versions_.size(); }

  // The newest version with validFrom <= timestamp; requires min <= timestamp < next (so never on
  // a degenerate row).
  SegmentSearchResult find(int64_t timestamp, bool include_value) const;
  // Every non-tombstone version with validFrom <= to_ms and validTo > from_ms, newest first.
  std::vector<SegmentSearchResult> find_all(int64_t from_ms, int64_t to_ms) const;

  // Appends a version as the newest: if valid_from is below next_timestamp (a partial write that
  // a restart left behind), the row is first truncated to valid_from, as Kafka reconciles it; a
  // gap between next_timestamp and valid_from becomes a tombstone at next_timestamp.
  void insert_as_latest(int64_t valid_from, int64_t valid_to, const ValueBytes& value);
  // Prepends a version as the oldest (timestamp < min_timestamp). On a degenerate row the lone
  // tombstone is replaced, the new version valid until the old next_timestamp.
  void insert_as_earliest(int64_t timestamp, const ValueBytes& value);
  // Inserts at `index` (as find() returned it); index == size() makes it the oldest.
  void insert(int64_t timestamp, const ValueBytes& value, int index);
  // Replaces the version at `index` (timestamp and value).
  void update_record(int64_t timestamp, const ValueBytes& value, int index);

 private:
  struct Version {
    int64_t timestamp;
    ValueBytes value;  // nullopt: tombstone
  };
  void initialize_with_record(const ValueBytes& value, int64_t valid_from, int64_t valid_to);
  void truncate_records_to_timestamp(int64_t timestamp);

  int64_t next_timestamp_ = 0;
  int64_t min_timestamp_ = 0;
  std::vector<Version> versions_;  // newest first
};

// nextTimestamp/minTimestamp read straight from the bytes, without decoding the row.
int64_t next_timestamp(std::string_view bytes);
int64_t min_timestamp(std::string_view bytes);

}  // namespace iq::versioned_segment_value
