#pragma once
// JavaPriorityQueue: a binary min-heap that behaves exactly like java.util.PriorityQueue with a
// comparator: the same array layout after every offer, poll and remove(Object), hence the same
// order between elements that compare equal.
//
// Why not std::priority_queue: Kafka's assignor keeps clients in a PriorityQueue whose comparator
// reads each client's *current* load, and it changes the load of a client that is still inside
// the queue before removing and re-offering it (TaskMovement). While such a stale element sits in
// the heap, which client a poll returns depends on the exact heap layout. Copying Java's sift
// rules is the only way to get Kafka's answer in those cases. The comparator is called on live
// values each time, as Java's is.

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "base/assert.h"

namespace iq {

template <typename T>
class JavaPriorityQueue {
 public:
  // Returns <0, 0 or >0 like java.util.Comparator.compare.
  using Compare = std::function<int(const T&, const T&)>;

  explicit JavaPriorityQueue(Compare compare) : compare_(std::move(compare)) {}

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }

  // PriorityQueue.offer: append, then sift up.
  void offer(T element) {
    heap_.push_back(element);
    sift_up(heap_.size() - 1, std::move(element));
  }

  // PriorityQueue.poll / remove(): take the root, move the last element to the root and sift it
  // down. Must not be called on an empty queue.
  T poll() {
    IQ_ASSERT(!heap_.empty(), "poll on an empty JavaPriorityQueue");
    T result = std::move(heap_.front());
    T last = std::move(heap_.back());
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, std::move(last));
    return result;
  }

  // PriorityQueue.remove(Object): the first element equal to `element` in array order.
  bool remove(const T& element) {
    for (size_t i = 0; i < heap_.size(); ++i) {
      if (heap_[i] == element) {
        remove_at(i);
        return true;
      }
    }
    return false;
  }

  // The heap array, root first, for tests that compare layouts with Java's.
  const std::vector<T>& heap_array() const { return heap_; }

 private:
  // PriorityQueue.removeAt: fill the hole with the last element, sift it down, and if it did not
  // move, sift it up.
  void remove_at(size_t i) {
    IQ_ASSERT(i < heap_.size(), "i={} size={}", i, heap_.size());
    const size_t last = heap_.size() - 1;
    if (i == last) {
      heap_.pop_back();
      return;
    }
    T moved = std::move(heap_[last]);
    heap_.pop_back();
    if (sift_down(i, moved) == i) sift_up(i, std::move(moved));
  }

  // Returns the slot where `x` came to rest.
  size_t sift_up(size_t k, T x) {
    while (k > 0) {
      const size_t parent = (k - 1) / 2;
      if (compare_(x, heap_[parent]) >= 0) break;
      heap_[k] = heap_[parent];
      k = parent;
    }
    heap_[k] = std::move(x);
    return k;
  }

  size_t sift_down(size_t k, T x) {
    const size_t n = heap_.size();
    const size_t half = n / 2;
    while (k < half) {
      size_t child = 2 * k + 1;
      const size_t right = child + 1;
      if (right < n && compare_(heap_[child], heap_[right]) > 0) child = right;
      if (compare_(x, heap_[child]) <= 0) break;
      heap_[k] = heap_[child];
      k = child;
    }
    heap_[k] = std::move(x);
    return k;
  }

  Compare compare_;
  std::vector<T> heap_;
};

}  // namespace iq
