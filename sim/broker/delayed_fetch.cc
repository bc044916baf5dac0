#include "broker/delayed_fetch.h"

#include "base/assert.h"

namespace iq::sim {

bool DelayedFetchPurgatory::park(uint64_t id, const std::vector<TopicPartition>& partitions,
                                 int64_t deadline_ms) {
  IQ_ASSERT(!parked_.contains(id), "fetch {} parked twice", id);
  IQ_ASSERT(!partitions.empty(), "fetch {} parked without partitions", id);
  if (parked_.size() >= parked_max_) {
    ++refused_;
    return false;
  }
  for (const TopicPartition& tp : partitions) watched_by_[tp].insert(id);
  deadlines_.emplace(deadline_ms, id);
  parked_.emplace(id, Parked{partitions, deadline_ms});
  return true;
}

std::vector<uint64_t> DelayedFetchPurgatory::watchers(const TopicPartition& tp) const {
  auto it = watched_by_.find(tp);
  if (it == watched_by_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

void DelayedFetchPurgatory::remove(uint64_t id) {
  auto it = parked_.find(id);
  if (it == parked_.end()) return;
  for (const TopicPartition& tp : it->second.partitions) {
    auto w = watched_by_.find(tp);
    IQ_ASSERT(w != watched_by_.end() && w->second.erase(id) == 1, "fetch {} not watching {}-{}", id,
              tp.first, tp.second);
    if (w->second.empty()) watched_by_.erase(w);
  }
  deadlines_.erase({it->second.deadline_ms, id});
  parked_.erase(it);
  IQ_ASSERT(deadlines_.size() == parked_.size(), "{} deadlines for {} parked", deadlines_.size(),
            parked_.size());
}

std::vector<uint64_t> DelayedFetchPurgatory::take_expired(int64_t now_ms) {
  std::vector<uint64_t> out;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ms) {
    out.push_back(deadlines_.begin()->second);
    remove(out.back());
  }
  return out;
}

std::optional<int64_t> DelayedFetchPurgatory::next_deadline_ms() const {
  if (deadlines_.empty()) return std::nullopt;
  return deadlines_.begin()->first;
}

}  // namespace iq::sim
