#include "model/store_steps.h"

#include "base/assert.h"

namespace iq::model {

void StoreSteps::check_offset(int64_t offset) const {
  IQ_ASSERT(steps_.empty() || steps_.back().offset <= offset, "offset {} after {}", offset,
            steps_.back().offset);
}

void StoreSteps::record(const StoreStep& step) {
  check_offset(step.offset);
  if (!steps_.empty() && steps_.back().offset == step.offset) {
    StoreStep& last = steps_.back();
    last.store_stream_time_ms = step.store_stream_time_ms;
    last.position_updated |= step.position_updated;
    last.grace_dropped |= step.grace_dropped;
    if (last.position_updated) position_after_.back() = last.offset;
  } else {
    const std::optional<int64_t> before =
        position_after_.empty() ? std::nullopt : position_after_.back();
    steps_.push_back(step);
    position_after_.push_back(step.position_updated ? std::optional(step.offset) : before);
  }
}

const StoreStep* StoreSteps::at(int64_t offset_inclusive) const {
  // Binary search: steps are in offset order.
  size_t lo = 0, hi = steps_.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (steps_[mid].offset <= offset_inclusive) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo > 0 ? &steps_[lo - 1] : nullptr;
}

int64_t StoreSteps::store_stream_time(int64_t offset_inclusive) const {
  const StoreStep* s = at(offset_inclusive);
  return s == nullptr ? -1 : s->store_stream_time_ms;
}

std::optional<int64_t> StoreSteps::position_offset(int64_t offset_inclusive) const {
  const StoreStep* s = at(offset_inclusive);
  return s == nullptr ? std::nullopt : position_after_[static_cast<size_t>(s - steps_.data())];
}

bool StoreSteps::grace_dropped_at(int64_t offset) const {
  const StoreStep* s = at(offset);
  return s != nullptr && s->offset == offset && s->grace_dropped;
}

}  // namespace iq::model
