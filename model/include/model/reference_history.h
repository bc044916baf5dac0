#pragma once
// The acknowledged input records of each source partition, in offset order: what the reference
// model replays to know what a store must hold.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "model/key_bytes.h"

namespace iq::model {

enum class WriteKind {
  kPut,        // put(key, value); a null value makes it a tombstone
  kTombstone,  // put(key, null)
  kDelete,     // store.delete(key), which an in-memory store does not record in its position
};

struct SourceRecord {
  // Several records may share one offset: a processor's putAll under one record context.
  int64_t offset;
  KeyBytes key;
  // The logical value; nullopt for a tombstone, a delete, or a null-valued input record.
  std::optional<int64_t> value;
  int64_t timestamp_ms;
  WriteKind kind = WriteKind::kPut;
};

// Asserts what every consumer of a record relies on: a real offset, and no value on a removal.
void assert_valid_record(const SourceRecord& record);

class ReferenceHistory {
 public:
  static constexpr int64_t kRecordsMaxDefault = 10'000'000;

  explicit ReferenceHistory(int64_t records_max = kRecordsMaxDefault);

  // Offsets must not decrease within a partition; equal offsets are kept in append order.
  void append(int32_t partition, SourceRecord record);

  // Empty for a partition that never had a record.
  const std::vector<SourceRecord>& records(int32_t partition) const;
  std::vector<int32_t> partitions() const;
  // The last offset appended to the partition, -1 if none.
  int64_t end_offset(int32_t partition) const;
  int64_t size() const { return size_; }
  int64_t records_max() const { return records_max_; }

 private:
  int64_t records_max_;
  int64_t size_ = 0;
  std::map<int32_t, std::vector<SourceRecord>> records_;
};

}  // namespace iq::model
