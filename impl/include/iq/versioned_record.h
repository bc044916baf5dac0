#pragma once
// VersionedRecord<V> (org.apache.kafka.streams.state.VersionedRecord) and
// VersionedRecordIterator<V> (org.apache.kafka.streams.state.VersionedRecordIterator): one version
// of a key's value, valid from `timestamp` (inclusive) to `valid_to` (exclusive); `valid_to` is
// empty for the latest version, which is valid until further notice.
//
// VersionedKeyQuery answers std::optional<VersionedRecord<V>> (Kafka's null when no version is
// valid at the asked time); MultiVersionedKeyQuery answers VersionedRecordIterator<V>. As with
// every other iterator in impl/, the records are materialized when the query runs
// (key_value_iterator.h says why); Kafka's LogicalSegmentIterator reads from a RocksDB snapshot
// taken at its first segment, so a materialized list is what it yields too.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "iq/query.h"

namespace iq {

template <typename V>
struct VersionedRecord {
  V value;
  int64_t timestamp = 0;
  std::optional<int64_t> valid_to;
  // Value equality. (Java's equals compares the Optional<Long> validTo by reference, so two equal
  // records with a validTo are unequal there; nothing in impl/ depends on that.)
  friend bool operator==(const VersionedRecord&, const VersionedRecord&) = default;
};

// VersionedRecord.toString: "<value,timestamp,Optional[validTo]>" or
// "<value,timestamp,Optional.empty>".
template <typename V>
std::string display(const VersionedRecord<V>& r) {
  return "<" + display(r.value) + "," + std::to_string(r.timestamp) + "," +
         (r.valid_to ? "Optional[" + std::to_string(*r.valid_to) + "]" : "Optional.empty") + ">";
}

template <typename V>
struct VersionedRecordIterator {
  std::vector<VersionedRecord<V>> records;
};

}  // namespace iq
