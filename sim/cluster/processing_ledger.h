#pragma once
// ProcessingLedger: which input records were processed more than once, across every instance and
// every process lifetime of a run. It is the simulator's omniscient view of at-least-once
// processing (impl/'s ProcessedRecordListener reports each processed record; Kafka has no such
// view): a task that resumes from a committed offset behind what an earlier owner (a crashed
// process, a fenced zombie, its own previous lifetime) had processed handles those records again.
//
// Reprocessing is kept as ranges: consecutive re-processed offsets of one partition by one
// instance (each the one after the last) coalesce into one ReprocessedRange, which closes when
// that instance processes a record nobody had processed before, or skips or goes back. The ranges
// say only that a record was processed again, not that its effect reached a store twice (a cached
// effect lost in a crash is processed "again" once).
//
//   ProcessingLedger ledger;
//   ledger.processed(100, "instance-2", 1, 40);  // at 100 ms, the first time: nothing recorded
//   ledger.processed(900, "instance-3", 1, 40);  // again: a range [40, 40] of partition 1
//   ledger.ranges();

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "trace/reprocessed_range.h"

namespace iq::sim {

class ProcessingLedger {
 public:
  // Ranges kept (a bound on the trace; a run reprocesses in a handful of ranges per handoff).
  static constexpr size_t kRangesMax = 100'000;

  // `instance` processed `offset` of input partition `partition` at virtual time now_ms.
  void processed(int64_t now_ms, const std::string& instance, int32_t partition, int64_t offset);

  // Every range, in the order they opened.
  const std::vector<ReprocessedRange>& ranges() const { return ranges_; }
  // Ranges not kept past kRangesMax (each counted once, however many records it would hold).
  uint64_t ranges_dropped() const { return ranges_dropped_; }
  // Input records processed, counting each processing (first time or again).
  uint64_t processed_count() const { return processed_count_; }

 private:
  std::map<int32_t, int64_t> high_water_;  // partition -> highest offset processed by anyone
  // The range an instance is extending in a partition: its index in ranges_ (kDropped for one
  // past the cap) and its last offset.
  struct Open {
    static constexpr size_t kDropped = static_cast<size_t>(-1);
    size_t index = kDropped;
    int64_t last_offset = 0;
  };
  std::map<std::pair<std::string, int32_t>, Open> open_;  // by (instance, partition)
  std::vector<ReprocessedRange> ranges_;
  uint64_t ranges_dropped_ = 0;
  uint64_t processed_count_ = 0;
};

}  // namespace iq::sim
