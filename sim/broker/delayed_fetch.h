#pragma once
// DelayedFetchPurgatory: the fetch half of Kafka's DelayedOperationPurgatory (DelayedFetch at the
// pinned commit). A fetch that found less than fetch.min.bytes to read waits here, watched by each
// partition it asked for, until a write to one of them may satisfy it (the driver tries it again
// then: tryCompleteElseWatch / checkAndComplete) or its fetch.max.wait.ms passes (it is answered
// with whatever is there, usually nothing). A state machine only: the driver
// (cluster/broker_service.h) holds the requests, asks it what to try and when the next deadline
// is, and schedules that one event.
//
// Bounded: at most `parked_max` fetches wait at once. A consumer has at most one fetch in flight
// to a node (Kafka's nodesWithPendingFetchRequests), so the bound is one per consumer; a fetch
// that finds it full is answered at once (counted in refused()), never dropped.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "iq/topic_partition.h"

namespace iq::sim {

class DelayedFetchPurgatory {
 public:
  static constexpr size_t kParkedMaxDefault = 10'000;
  explicit DelayedFetchPurgatory(size_t parked_max = kParkedMaxDefault) : parked_max_(parked_max) {}

  // Parks fetch `id` (unique among the parked) until `deadline_ms`, watched by `partitions`.
  // False when the purgatory is full: the caller answers the fetch now.
  [[nodiscard]] bool park(uint64_t id, const std::vector<TopicPartition>& partitions,
                          int64_t deadline_ms);
  // The parked fetches that watch `tp`, oldest first: the ones a write to it may complete.
  std::vector<uint64_t> watchers(const TopicPartition& tp) const;
  // Takes a parked fetch out (completed); a no-op for one that is not parked.
  void remove(uint64_t id);
  // Takes out and returns every fetch whose deadline is at or before now_ms, by deadline, then
  // by id (park order).
  std::vector<uint64_t> take_expired(int64_t now_ms);
  // The earliest deadline of a parked fetch.
  std::optional<int64_t> next_deadline_ms() const;
  size_t size() const { return parked_.size(); }
  uint64_t refused() const { return refused_; }

 private:
  struct Parked {
    std::vector<TopicPartition> partitions;
    int64_t deadline_ms = 0;
  };
  size_t parked_max_;
  uint64_t refused_ = 0;
  std::map<uint64_t, Parked> parked_;
  std::set<std::pair<int64_t, uint64_t>> deadlines_;         // (deadline, id)
  std::map<TopicPartition, std::set<uint64_t>> watched_by_;  // ids ascending = park order
};

}  // namespace iq::sim
