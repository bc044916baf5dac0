#include "cluster/processing_ledger.h"

#include "base/assert.h"

namespace iq::sim {

void ProcessingLedger::processed(int64_t now_ms, const std::string& instance, int32_t partition,
                                 int64_t offset) {
  IQ_ASSERT(offset >= 0, "offset {} of partition {}", offset, partition);
  ++processed_count_;
  const auto key = std::make_pair(instance, partition);
  auto [hw, fresh] = high_water_.try_emplace(partition, offset);
  if (fresh || offset > hw->second) {
    hw->second = offset;
    open_.erase(key);  // a first processing ends this instance's range
    return;
  }
  // Processed before, by this instance or another one.
  if (auto it = open_.find(key); it != open_.end() && offset == it->second.last_offset + 1) {
    it->second.last_offset = offset;
    if (it->second.index != Open::kDropped) {
      ReprocessedRange& range = ranges_[it->second.index];
      range.last_offset = SourceOffset(offset);
      range.end_ms = base::Instant::from_ms(now_ms);
    }
    return;
  }
  if (ranges_.size() >= kRangesMax) {
    ++ranges_dropped_;
    open_[key] = Open{Open::kDropped, offset};
    return;
  }
  // The ledger counts in offsets of the input (source) partition, as the listener reports them,
  // and in virtual milliseconds (the loop's instant, as the listener reads it).
  const base::Instant now = base::Instant::from_ms(now_ms);
  ranges_.push_back(
      ReprocessedRange{partition, SourceOffset(offset), SourceOffset(offset), instance, now, now});
  open_[key] = Open{ranges_.size() - 1, offset};
}

}  // namespace iq::sim
