#include "event_loop/event_loop.h"

#include <algorithm>

#include <boost/asio/post.hpp>

namespace iq::sim {

const char* to_string(RunStop stop) {
  switch (stop) {
    case RunStop::kTimeReached:
      return "time reached";
    case RunStop::kQuiescent:
      return "quiescent";
    case RunStop::kEventBudgetExhausted:
      return "event budget exhausted";
    case RunStop::kStopRequested:
      return "stop requested";
  }
  return "?";
}

EventLoop::EventLoop(EventLoopLimits limits) : limits_(limits) {
  IQ_ASSERT(limits_.events_pending_max > 0 && limits_.events_per_run_max > 0);
}

EventLoop::~EventLoop() {
  // Each destroyed handler may enqueue a few more (aborted waits); they are destroyed in turn, in
  // (time, sequence) order. The bound only catches a handler whose destruction schedules work
  // without end.
  const uint64_t destroyed_max = 4 * limits_.events_pending_max;
  for (uint64_t destroyed = 0; pending_ > 0; ++destroyed) {
    IQ_ASSERT(destroyed < destroyed_max,
              "handlers keep scheduling work while the loop is destroyed");
    Popped event = pop_earliest();
    event.handler = nullptr;
  }
}

RunResult EventLoop::run_until(base::Instant until) {
  return run_until(until, limits_.events_per_run_max);
}

RunResult EventLoop::run_until(base::Instant until, uint64_t events_max) {
  IQ_ASSERT(until >= now_, "run_until({}) would move time back from {}", until, now_);
  return run(until, /*stop_at_time=*/true, events_max);
}

RunResult EventLoop::run_until_quiescent(uint64_t events_max) {
  return run(base::Instant::max(), /*stop_at_time=*/false, events_max);
}

bool EventLoop::step() {
  if (pending_ == 0) {
    return false;
  }
  dispatch_earliest();
  return true;
}

// The one loop of the simulator: bounded by events_max, never waiting on anything but the queue.
RunResult EventLoop::run(base::Instant until, bool stop_at_time, uint64_t events_max) {
  IQ_ASSERT(!dispatching_, "a run of the event loop from inside one of its handlers");
  RunResult result;
  for (;;) {
    if (stop_check_ && stop_check_()) {
      result.stop = RunStop::kStopRequested;
      return result;
    }
    const bool due = pending_ > 0 && next_event_time() <= until;
    if (!due) {
      result.stop = stop_at_time ? RunStop::kTimeReached : RunStop::kQuiescent;
      if (stop_at_time) {
        now_ = until;
      }
      return result;
    }
    if (result.events == events_max) {
      result.stop = RunStop::kEventBudgetExhausted;
      return result;
    }
    dispatch_earliest();
    ++result.events;
  }
}

// Pops the earliest event, moves the clock to it, records it, and runs its handler inside the
// io_context. The label is read from the event's slot, freed by the pop but not reused before the
// handler runs (nothing schedules in between).
void EventLoop::dispatch_earliest() {
  IQ_ASSERT(!dispatching_, "step() from inside an event handler");
  IQ_ASSERT(pending_ > 0);
  Popped event = pop_earliest();
  const base::Instant at = base::Instant::from_ms(event.at_ms);
  IQ_ASSERT(at >= now_, "event {} at {} is before now {}", event.seq, at, now_);
  now_ = at;
  ++events_dispatched_;
  {
    const std::string_view label = slots_[event.slot].label;
    digest_.add(event.at_ms).add(static_cast<int64_t>(event.seq)).add(label);
    if (on_event_) {
      on_event_(EventRecord{at, event.seq, label});
    }
  }

  // Resets the flag even when the handler throws (a test's failed expectation may).
  struct Dispatching {
    bool& flag;
    explicit Dispatching(bool& f) : flag(f) { flag = true; }
    ~Dispatching() { flag = false; }
  } dispatching(dispatching_);
  io_.restart();  // poll() leaves the context stopped once it runs out of work
  boost::asio::post(io_, Posted{std::move(event.handler), &op_block_});
  const size_t ran = io_.poll();
  IQ_ASSERT(ran == 1,
            "event {} at {} ran {} handlers in the io_context: work was posted to it directly "
            "instead of through EventLoop::post()",
            event.seq, at, ran);
}

void* EventLoop::OpBlock::allocate(size_t bytes, size_t align) {
  if (!in_use_ && bytes <= kBytes && align <= alignof(std::max_align_t)) {
    in_use_ = true;
    return block_;
  }
  return ::operator new(bytes);
}

void EventLoop::OpBlock::deallocate(void* p) {
  if (p == static_cast<void*>(block_)) {
    IQ_ASSERT(in_use_);
    in_use_ = false;
    return;
  }
  ::operator delete(p);
}

EventLoop::Slot& EventLoop::claim_slot(uint64_t seq, uint32_t* slot_out) {
  uint32_t slot = 0;
  if (free_slots_.empty()) {
    IQ_ASSERT(slots_.size() < limits_.events_pending_max);
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Slot& s = slots_[slot];
  IQ_ASSERT(s.seq == 0, "slot {} of event {} is still in use by event {}", slot, seq, s.seq);
  s.seq = seq;
  *slot_out = slot;
  return s;
}

EventId EventLoop::enqueue(base::Instant at, uint64_t seq, uint32_t slot) {
  heap_.push_back(HeapEntry{at.ms_since_epoch(), seq, slot});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  ++pending_;
  return EventId{seq, at, slot};
}

EventId EventLoop::schedule_at(base::Instant at, std::string_view label, Handler handler) {
  return schedule_at(at, {}, label, std::move(handler));
}

EventId EventLoop::schedule_at(base::Instant at, std::string_view label_prefix,
                               std::string_view label, Handler handler) {
  return schedule_at(at, label_prefix, label, {}, std::move(handler));
}

EventId EventLoop::schedule_at(base::Instant at, std::string_view label_prefix,
                               std::string_view label, std::string_view label_suffix,
                               Handler handler) {
  IQ_ASSERT(at >= now_, "'{}{}{}' scheduled at {}, before now {}", label_prefix, label,
            label_suffix, at, now_);
  IQ_ASSERT(static_cast<bool>(handler), "'{}{}{}' scheduled without a handler", label_prefix, label,
            label_suffix);
  IQ_ASSERT(pending_ < limits_.events_pending_max,
            "event queue full ({} pending) when scheduling '{}{}{}'", pending_, label_prefix, label,
            label_suffix);
  const uint64_t seq = seq_next_++;
  uint32_t slot = 0;
  Slot& s = claim_slot(seq, &slot);
  s.label.assign(label_prefix);
  s.label.append(label);
  s.label.append(label_suffix);
  s.handler = std::move(handler);
  return enqueue(at, seq, slot);
}

EventId EventLoop::schedule_after(base::Duration d, std::string_view label, Handler handler) {
  IQ_ASSERT(d >= base::Duration::zero(), "'{}' scheduled {} in the past", label, d);
  return schedule_at(now_ + d, label, std::move(handler));
}

EventId EventLoop::post(std::string_view label, Handler handler) {
  return schedule_at(now_, label, std::move(handler));
}

// The slot is freed and the heap made consistent before the handler is destroyed, because a
// handler's destructor may schedule or cancel other events.
bool EventLoop::cancel(EventId id) {
  if (!id.valid() || id.slot >= slots_.size() || slots_[id.slot].seq != id.seq) {
    return false;
  }
  Handler handler = std::move(slots_[id.slot].handler);
  free_slot(id.slot);
  drop_stale_top();
  compact_if_stale();
  return true;
}

base::Instant EventLoop::next_event_time() const {
  if (pending_ == 0) {
    return base::Instant::max();
  }
  IQ_ASSERT(!heap_.empty() && is_live(heap_.front()));
  return base::Instant::from_ms(heap_.front().at_ms);
}

// Removes the earliest event from the queue and hands back its contents.
EventLoop::Popped EventLoop::pop_earliest() {
  IQ_ASSERT(pending_ > 0 && !heap_.empty() && is_live(heap_.front()));
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  const HeapEntry top = heap_.back();
  heap_.pop_back();
  Slot& s = slots_[top.slot];
  Popped out{top.at_ms, top.seq, top.slot, std::move(s.handler)};
  free_slot(top.slot);
  drop_stale_top();
  return out;
}

void EventLoop::free_slot(uint32_t slot) {
  IQ_ASSERT(pending_ > 0 && slots_[slot].seq != 0);
  slots_[slot].seq = 0;  // the label stays: see Slot
  slots_[slot].handler = nullptr;
  free_slots_.push_back(slot);
  --pending_;
}

// Restores the invariant that the heap's front is live. Bounded by the heap's size.
void EventLoop::drop_stale_top() {
  while (!heap_.empty() && !is_live(heap_.front())) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
  }
  IQ_ASSERT(heap_.size() >= pending_);
}

// Keeps the heap within twice the live events (plus a floor), so that cancelled timers far in the
// future cannot pile up: a linear rebuild, paid for by the cancellations that made it necessary.
void EventLoop::compact_if_stale() {
  constexpr size_t kStaleFloor = 1024;
  if (heap_.size() <= 2 * pending_ + kStaleFloor) {
    return;
  }
  std::erase_if(heap_, [this](const HeapEntry& e) { return !is_live(e); });
  std::make_heap(heap_.begin(), heap_.end(), Later{});
  IQ_ASSERT(heap_.size() == pending_);
}

}  // namespace iq::sim
