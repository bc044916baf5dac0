#include "model/reference_history.h"

#include "base/assert.h"

namespace iq::model {

ReferenceHistory::ReferenceHistory(int64_t records_max) : records_max_(records_max) {
  IQ_ASSERT(records_max_ > 0, "records_max={}", records_max_);
}

void ReferenceHistory::append(int32_t partition, SourceRecord record) {
  IQ_ASSERT(partition >= 0, "partition={}", partition);
  IQ_ASSERT(size_ < records_max_, "history is full: records_max={}", records_max_);
  assert_valid_record(record);
  const int64_t last_offset = end_offset(partition);
  IQ_ASSERT(record.offset >= last_offset, "partition={} offset={} after offset={}", partition,
            record.offset, last_offset);
  records_[partition].push_back(std::move(record));
  ++size_;
  IQ_ASSERT(end_offset(partition) >= last_offset);
}

const std::vector<SourceRecord>& ReferenceHistory::records(int32_t partition) const {
  static const std::vector<SourceRecord> kNone;
  const auto it = records_.find(partition);
  return it == records_.end() ? kNone : it->second;
}

std::vector<int32_t> ReferenceHistory::partitions() const {
  std::vector<int32_t> result;
  result.reserve(records_.size());
  for (const auto& [partition, records] : records_) result.push_back(partition);
  return result;
}

int64_t ReferenceHistory::end_offset(int32_t partition) const {
  const std::vector<SourceRecord>& list = records(partition);
  return list.empty() ? -1 : list.back().offset;
}

void assert_valid_record(const SourceRecord& record) {
  IQ_ASSERT(record.offset >= 0, "offset={}", record.offset);
  IQ_ASSERT(record.kind == WriteKind::kPut || !record.value.has_value(),
            "a tombstone or delete carries no value: offset={} key={}", record.offset,
            key_to_hex(record.key));
}

}  // namespace iq::model
