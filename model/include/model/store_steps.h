#pragma once
// StoreSteps: what WindowHistory and SessionHistory remember of a store per source offset, so
// that a query at any offset can ask the store's observed stream time, its position and whether
// the record was skipped beyond grace. One step per offset: the operations of one record (several
// windows, a remove and a put) fold into one.

#include <cstdint>
#include <optional>
#include <vector>

namespace iq::model {

struct StoreStep {
  int64_t offset;
  int64_t store_stream_time_ms;  // the store's observed stream time after the step
  bool position_updated;         // some operation of the step updated the store's position
  bool grace_dropped;            // some window or session of the record was closed beyond grace
};

class StoreSteps {
 public:
  // Asserts that offsets do not decrease within a partition.
  void check_offset(int64_t offset) const;
  // Appends the step, or folds it into the last one when that has the same offset: the stream
  // time is the new one, the flags the union.
  void record(const StoreStep& step);

  // The store's observed stream time after the offset; -1 if no step came by then.
  int64_t store_stream_time(int64_t offset_inclusive) const;
  // The last offset <= offset_inclusive whose step updated the position; nullopt if none did.
  std::optional<int64_t> position_offset(int64_t offset_inclusive) const;
  // Whether the step at exactly this offset was skipped beyond grace.
  bool grace_dropped_at(int64_t offset) const;

 private:
  // The last step with offset <= offset_inclusive, or nullptr.
  const StoreStep* at(int64_t offset_inclusive) const;

  std::vector<StoreStep> steps_;  // in offset order, one per offset
  // Per step, the last offset at or before it whose step updated the position (nullopt if none
  // did), so that position_offset costs a binary search, not a walk back over the steps.
  std::vector<std::optional<int64_t>> position_after_;
};

}  // namespace iq::model
