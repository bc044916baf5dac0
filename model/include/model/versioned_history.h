#pragma once
// What a versioned key-value store (a KTable source over Stores.persistentVersionedKeyValueStore)
// must answer after the source records up to an offset: per key a history of versions, each
// valid from its record's timestamp to the next version's (docs/iqv2-semantics.md quirks 13-18).
//
// Rules, written from Kafka's VersionedKeyValueStore contract, not from impl/:
// - Every record is a version at its own timestamp; a null value is a tombstone version. A record
//   at a timestamp the key already has replaces that version. Records may come out of order.
// - The store's observed stream time is the largest timestamp of the partition's records so far
//   (every key). A record older than observed stream time minus the history retention (the
//   grace period) is dropped, and changes nothing.
// - Latest (no asOf): the newest version, unless it is a tombstone (then null); no validTo.
// - asOf: the newest version is returned whenever it started at or before asOf (and is not a
//   tombstone). Otherwise an asOf older than stream time minus history retention answers null;
//   else the version valid at asOf, with its validTo, or null for a tombstone or no version.
// - MultiVersionedKeyQuery(from, to, order): see get_range().
//
// Kafka does not persist the observed stream time: a store reopened from its checkpoint starts
// at -1 and knows only what it restored or processed since. The model's stream time is the
// partition's; the checks decide which answers that assumption can judge (grace_dropped(),
// VersionedRange::uncertain).

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "model/reference_history.h"
#include "model/reference_store.h"

namespace iq::model {

struct Version {
  int64_t value;
  int64_t valid_from_ms;
  std::optional<int64_t> valid_to_ms;  // absent: the latest version
  bool operator==(const Version&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Version& v);

// A MultiVersionedKeyQuery's answer. `uncertain` is set when a version the query could return
// sits in a segment that has expired under the model's stream time, while a store with a lower
// stream time (one reopened from its checkpoint) keeps it: either answer is then Kafka's.
struct VersionedRange {
  std::vector<Version> versions;
  bool uncertain = false;
};

class VersionedHistory {
 public:
  VersionedHistory(int64_t history_retention_ms, int64_t segment_interval_ms,
                   int64_t records_max = ReferenceHistory::kRecordsMaxDefault);

  // Offsets must not decrease within a partition. kDelete is not a versioned-table write.
  void apply(int32_t partition, const SourceRecord& record);

  // offset_inclusive = -1: nothing applied.
  std::optional<Version> get(int32_t partition, const KeyBytes& key,
                             int64_t offset_inclusive) const;
  std::optional<Version> get_as_of(int32_t partition, const KeyBytes& key, int64_t as_of_ms,
                                   int64_t offset_inclusive) const;
  // The versions valid at some time in [from_ms, to_ms] (non-tombstones whose validFrom <= to
  // and validTo > from), newest first unless kAscending (kAny runs newest first, as the store
  // executes it). Kafka's quirks, kept: when to_ms is older than stream time minus history
  // retention only the latest version can answer; and an older version is found only when its
  // validTo lies in a segment (validTo / segment interval) no later than to_ms's (quirk 16:
  // versions sit in the segment of their validTo, and the search stops at to_ms's).
  VersionedRange get_range(int32_t partition, const KeyBytes& key, int64_t from_ms, int64_t to_ms,
                           Order order, int64_t offset_inclusive) const;

  // The largest record timestamp of the partition up to the offset, -1 if none.
  int64_t stream_time(int32_t partition, int64_t offset_inclusive) const;
  // Whether a record of `key` up to the offset was dropped as older than the grace period.
  bool grace_dropped(int32_t partition, const KeyBytes& key, int64_t offset_inclusive) const;

  int64_t history_retention_ms() const { return history_retention_ms_; }
  int64_t segment_interval_ms() const { return segment_interval_ms_; }

 private:
  struct Record {
    int64_t offset;
    std::optional<int64_t> value;
    int64_t timestamp_ms;
    bool dropped;  // older than the grace period when it came
  };
  struct PartitionState {
    std::map<KeyBytes, std::vector<Record>, KeyBytesLess> keys;
    // (offset, stream time after it), one entry per record, offsets ascending.
    std::vector<std::pair<int64_t, int64_t>> stream_times;
  };
  // timestamp -> value (nullopt: a tombstone) of the kept records up to the offset.
  using Timeline = std::map<int64_t, std::optional<int64_t>>;

  Timeline timeline(int32_t partition, const KeyBytes& key, int64_t offset_inclusive) const;
  const PartitionState* find(int32_t partition) const;

  int64_t history_retention_ms_;
  int64_t segment_interval_ms_;
  int64_t records_max_;
  int64_t records_applied_ = 0;
  std::map<int32_t, PartitionState> partitions_;
};

}  // namespace iq::model
