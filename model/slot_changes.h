#pragma once
// Internal to model/ (not under include/): what WindowHistory and SessionHistory keep per store
// slot so that a query at any offset reads the slot's state without a replay.
//
// - SlotChanges<V>: a slot's states by offset (nullopt: absent), at most one per offset, the
//   first two inline (most slots are put, then dropped with their segment; a fold builds
//   thousands of them).
// - SlotIndex: one key's slots sorted by a pair of times ((start, seqnum) for a window,
//   (end, start) for a session) with each slot's place in the partition's arena. A sorted vector:
//   the times mostly come in rising order, so an insert is nearly always an append.
// - SegmentHeap: the slots that became present, smallest segment first, so that a rising floor
//   pops exactly the dropped segments (a listed slot may have been deleted since: its pop then
//   changes nothing).

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace iq::model::internal {

template <typename V>
class SlotChanges {
 public:
  // The state after the changes up to offset_inclusive; nullptr if none came by then.
  const std::optional<V>* at(int64_t offset_inclusive) const {
    if (size_ == 0) return nullptr;
    if (get(size_ - 1).offset <= offset_inclusive) return &get(size_ - 1).state;  // usual case
    // The first change above offset_inclusive; the one before it answers.
    size_t lo = 0, hi = size_ - 1;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (get(mid).offset <= offset_inclusive) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo == 0 ? nullptr : &get(lo - 1).state;
  }
  // Sets the state at `offset`, the newest offset so far (it replaces a change at that offset).
  void set(int64_t offset, std::optional<V> state) {
    if (size_ > 0 && get(size_ - 1).offset == offset) {
      get(size_ - 1).state = std::move(state);
      return;
    }
    if (size_ < kInline) {
      inline_[size_] = Change{offset, std::move(state)};
    } else {
      more_.push_back(Change{offset, std::move(state)});
    }
    ++size_;
  }
  bool present() const { return size_ > 0 && get(size_ - 1).state.has_value(); }

 private:
  struct Change {
    int64_t offset;
    std::optional<V> state;
  };
  // Two inline: most slots are put once and then deleted or dropped with their segment.
  static constexpr size_t kInline = 2;
  const Change& get(size_t i) const { return i < kInline ? inline_[i] : more_[i - kInline]; }
  Change& get(size_t i) { return i < kInline ? inline_[i] : more_[i - kInline]; }

  Change inline_[kInline]{};
  std::vector<Change> more_;
  size_t size_ = 0;
};

class SlotIndex {
 public:
  using Times = std::pair<int64_t, int64_t>;
  struct Entry {
    Times times;
    uint32_t slot;  // the place in the partition's arena
  };
  // The slot at `times`, or nullopt.
  std::optional<uint32_t> find(Times times) const {
    const auto it = lower_bound(times);
    if (it == entries_.end() || it->times != times) return std::nullopt;
    return it->slot;
  }
  // The slot at `times`; `make()` gives the arena place of a new one.
  template <typename Make>
  uint32_t find_or_add(Times times, Make make) {
    if (entries_.empty() || entries_.back().times < times) {
      const uint32_t slot = make();
      entries_.push_back(Entry{times, slot});
      return slot;
    }
    const auto it = lower_bound(times);
    if (it != entries_.end() && it->times == times) return it->slot;
    const uint32_t slot = make();
    entries_.insert(it, Entry{times, slot});
    return slot;
  }
  // The entries from the first at or after `from`, in order.
  std::vector<Entry>::const_iterator from(Times times) const { return lower_bound(times); }
  std::vector<Entry>::const_iterator end() const { return entries_.end(); }

 private:
  std::vector<Entry>::const_iterator lower_bound(Times times) const {
    return std::lower_bound(entries_.begin(), entries_.end(), times,
                            [](const Entry& e, const Times& t) { return e.times < t; });
  }
  std::vector<Entry>::iterator lower_bound(Times times) {
    return std::lower_bound(entries_.begin(), entries_.end(), times,
                            [](const Entry& e, const Times& t) { return e.times < t; });
  }
  std::vector<Entry> entries_;
};

class SegmentHeap {
 public:
  void push(int64_t segment, uint32_t slot) {
    heap_.emplace_back(segment, slot);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  }
  // Calls drop(slot) for every listed slot of a segment below live_from and unlists it.
  template <typename Drop>
  void pop_below(int64_t live_from, Drop drop) {
    while (!heap_.empty() && heap_.front().first < live_from) {
      const uint32_t slot = heap_.front().second;
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      heap_.pop_back();
      drop(slot);
    }
  }

 private:
  std::vector<std::pair<int64_t, uint32_t>> heap_;  // a min-heap by segment
};

}  // namespace iq::model::internal
