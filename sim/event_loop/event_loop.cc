#include "event_loop/event_loop.h"

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
  // Each destroyed handler may enqueue a few more (aborted waits); they are destroyed in turn. The
  // bound only catches a handler whose destruction schedules work without end.
  const uint64_t destroyed_max = 4 * limits_.events_pending_max;
  for (uint64_t destroyed = 0; !queue_.empty(); ++destroyed) {
    IQ_ASSERT(destroyed < destroyed_max,
              "handlers keep scheduling work while the loop is destroyed");
    auto node = queue_.extract(queue_.begin());
    node.mapped().handler = nullptr;
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
  if (queue_.empty()) {
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
    const bool due = !queue_.empty() && next_event_time() <= until;
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
// io_context.
void EventLoop::dispatch_earliest() {
  IQ_ASSERT(!dispatching_, "step() from inside an event handler");
  IQ_ASSERT(!queue_.empty());
  auto node = queue_.extract(queue_.begin());
  const auto [at_ms, seq] = node.key();
  const base::Instant at = base::Instant::from_ms(at_ms);
  IQ_ASSERT(at >= now_, "event {} at {} is before now {}", seq, at, now_);
  now_ = at;
  ++events_dispatched_;
  Pending& event = node.mapped();
  digest_.add(at_ms).add(static_cast<int64_t>(seq)).add(event.label);
  if (on_event_) {
    on_event_(EventRecord{at, seq, event.label});
  }

  // Resets the flag even when the handler throws (a test's failed expectation may).
  struct Dispatching {
    bool& flag;
    explicit Dispatching(bool& f) : flag(f) { flag = true; }
    ~Dispatching() { flag = false; }
  } dispatching(dispatching_);
  io_.restart();  // poll() leaves the context stopped once it runs out of work
  boost::asio::post(io_, std::move(event.handler));
  const size_t ran = io_.poll();
  IQ_ASSERT(ran == 1,
            "event {} '{}' ran {} handlers in the io_context: work was posted to it directly "
            "instead of through EventLoop::executor()",
            seq, event.label, ran);
}

EventId EventLoop::schedule_at(base::Instant at, std::string label, Handler handler) {
  IQ_ASSERT(at >= now_, "'{}' scheduled at {}, before now {}", label, at, now_);
  IQ_ASSERT(static_cast<bool>(handler), "'{}' scheduled without a handler", label);
  IQ_ASSERT(queue_.size() < limits_.events_pending_max,
            "event queue full ({} pending) when scheduling '{}'", queue_.size(), label);
  const uint64_t seq = seq_next_++;
  const auto [it, inserted] =
      queue_.emplace(Key{at.ms_since_epoch(), seq}, Pending{std::move(label), std::move(handler)});
  IQ_ASSERT(inserted, "sequence number {} reused", seq);
  (void)it;
  return EventId{seq, at};
}

EventId EventLoop::schedule_after(base::Duration d, std::string label, Handler handler) {
  IQ_ASSERT(d >= base::Duration::zero(), "'{}' scheduled {} in the past", label, d);
  return schedule_at(now_ + d, std::move(label), std::move(handler));
}

EventId EventLoop::post(std::string label, Handler handler) {
  return schedule_at(now_, std::move(label), std::move(handler));
}

bool EventLoop::cancel(EventId id) {
  if (!id.valid()) {
    return false;
  }
  return queue_.erase(Key{id.at.ms_since_epoch(), id.seq}) == 1;
}

base::Instant EventLoop::next_event_time() const {
  if (queue_.empty()) {
    return base::Instant::max();
  }
  return base::Instant::from_ms(queue_.begin()->first.first);
}

}  // namespace iq::sim
