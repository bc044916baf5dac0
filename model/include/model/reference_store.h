#pragma once
// What a key-value state store holds after the source records up to an offset, for each store
// family the topologies build. It keeps every version of every key, indexed by offset, so one
// answer costs a binary search per key it returns rather than a replay of the log.

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <vector>

#include "model/key_bytes.h"
#include "model/reference_history.h"

namespace iq::model {

enum class Aggregation {
  kLatest,  // a KTable source, or a processor writing the store directly
  kCount,   // groupByKey().count()
  kSum,     // groupByKey().aggregate(() -> 0, (k, v, agg) -> agg + v)
};

// Kafka's ResultOrder. kAny is answered ascending, as every built-in store does.
enum class Order { kAny, kAscending, kDescending };

struct ValueAndTimestamp {
  int64_t value;
  int64_t timestamp_ms;
  bool operator==(const ValueAndTimestamp&) const = default;
};

struct Entry {
  KeyBytes key;
  ValueAndTimestamp vt;
  bool operator==(const Entry&) const = default;
};

std::ostream& operator<<(std::ostream& out, const ValueAndTimestamp& vt);
std::ostream& operator<<(std::ostream& out, const Entry& entry);

// Whether applying the record writes the store (and so advances its position). An aggregation
// drops a null-valued input record before it reaches the store; a removal always writes.
bool writes_store(Aggregation aggregation, const SourceRecord& record);

class ReferenceStore {
 public:
  explicit ReferenceStore(Aggregation aggregation,
                          int64_t records_max = ReferenceHistory::kRecordsMaxDefault);
  ReferenceStore(const ReferenceHistory& history, Aggregation aggregation);

  // Offsets must not decrease within a partition, as in ReferenceHistory::append.
  void apply(int32_t partition, const SourceRecord& record);

  // In every query offset_inclusive = -1 means "nothing applied". An offset beyond end_offset
  // sees every record applied so far: whether a reported position is plausible is the caller's
  // question, not the model's.
  std::optional<ValueAndTimestamp> get(int32_t partition, const KeyBytes& key,
                                       int64_t offset_inclusive) const;
  // Both bounds inclusive, nullopt is open; lower > upper (as bytes) gives an empty answer.
  std::vector<Entry> range(int32_t partition, const std::optional<KeyBytes>& lower,
                           const std::optional<KeyBytes>& upper, Order order,
                           int64_t offset_inclusive) const;
  // range() without the vector: calls visit(key, value) for each entry range() returns, in its
  // order, and stops as soon as visit returns false. For callers that compare an answer entry by
  // entry (the judge tries many offsets per answer; building each range was most of its cost).
  template <typename Visit>
  void visit_range(int32_t partition, const std::optional<KeyBytes>& lower,
                   const std::optional<KeyBytes>& upper, Order order, int64_t offset_inclusive,
                   Visit&& visit) const;
  // Whether the key's aggregate at offset_inclusive may carry `timestamp_ms` when the
  // aggregation read its previous aggregate through a store that keeps no timestamps. Kafka's
  // KeyValueToTimestampedKeyValueByteStoreAdapter (a plain RocksDB supplier under a timestamped
  // builder) answers a get with NO_TIMESTAMP (-1), and KStreamAggregate then takes
  // max(record.timestamp(), -1): whenever the aggregate was read from the store rather than from
  // the cache, the timestamps of the records before that read are forgotten. So a cached
  // aggregate's timestamp is the maximum of the record timestamps from some record of the key
  // on, not necessarily over all of them (docs/fidelity.md, "timestamps over a plain store").
  // For kLatest (a KTable source takes the record's timestamp) only get()'s timestamp.
  bool timestamp_after_reload_possible(int32_t partition, const KeyBytes& key,
                                       int64_t offset_inclusive, int64_t timestamp_ms) const;
  // The offset of the newest record at or before offset_inclusive that wrote the store.
  std::optional<int64_t> last_write_offset(int32_t partition, int64_t offset_inclusive) const;
  // The same, ignoring kDelete records: an in-memory store's delete() does not update its
  // position in Kafka, while put(key, null) does.
  std::optional<int64_t> last_write_offset_excluding_deletes(int32_t partition,
                                                             int64_t offset_inclusive) const;

  // The last offset applied to the partition (written or skipped), -1 if none.
  int64_t end_offset(int32_t partition) const;
  std::vector<int32_t> partitions() const;
  Aggregation aggregation() const { return aggregation_; }

 private:
  // The key's value from `offset` on; nullopt once removed. One version per offset: the records
  // sharing an offset are folded into the last one, since nothing can observe between them.
  struct Version {
    int64_t offset;
    std::optional<ValueAndTimestamp> vt;
    // The newest timestamp among the records folded into this version (their own, before the
    // aggregation's max): what timestamp_after_reload_possible walks.
    int64_t record_timestamp_ms = 0;
  };
  using Versions = std::vector<Version>;

  struct PartitionState {
    std::map<KeyBytes, Versions, KeyBytesLess> keys;
    // Distinct offsets of the records that wrote the store, ascending; and those that were not
    // a kDelete.
    std::vector<int64_t> write_offsets;
    std::vector<int64_t> non_delete_write_offsets;
    int64_t end_offset = -1;
  };

  std::optional<ValueAndTimestamp> next_value(const Versions& versions,
                                              const SourceRecord& record) const;
  const PartitionState* find_partition(int32_t partition) const;
  static std::optional<ValueAndTimestamp> value_at(const Versions& versions,
                                                   int64_t offset_inclusive);
  static std::optional<int64_t> last_offset_at(const std::vector<int64_t>& offsets,
                                               int64_t offset_inclusive);
  static void check_offset(int64_t offset_inclusive);

  Aggregation aggregation_;
  int64_t records_max_;
  int64_t records_applied_ = 0;
  std::map<int32_t, PartitionState> partitions_;
};

template <typename Visit>
void ReferenceStore::visit_range(int32_t partition, const std::optional<KeyBytes>& lower,
                                 const std::optional<KeyBytes>& upper, Order order,
                                 int64_t offset_inclusive, Visit&& visit) const {
  check_offset(offset_inclusive);
  const PartitionState* state = find_partition(partition);
  if (state == nullptr) return;
  // Kafka's stores log a warning and return an empty iterator here rather than failing.
  if (lower && upper && compare_key_bytes(*lower, *upper) > 0) return;
  const auto begin = lower ? state->keys.lower_bound(*lower) : state->keys.begin();
  const auto end = upper ? state->keys.upper_bound(*upper) : state->keys.end();
  const auto at = [&](const auto& it) {
    const std::optional<ValueAndTimestamp> vt = value_at(it->second, offset_inclusive);
    return !vt || visit(it->first, *vt);
  };
  if (order == Order::kDescending) {
    for (auto it = end; it != begin;) {
      if (!at(--it)) return;
    }
  } else {
    for (auto it = begin; it != end; ++it) {
      if (!at(it)) return;
    }
  }
}

}  // namespace iq::model
