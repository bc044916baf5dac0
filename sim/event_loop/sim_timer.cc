#include "event_loop/sim_timer.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace iq::sim {

SimTimer::SimTimer(EventLoop& loop, std::string label)
    : loop_(loop), label_(std::move(label)), expiry_(loop.now()) {}

SimTimer::~SimTimer() {
  cancel();
}

size_t SimTimer::expires_at(base::Instant at) {
  const size_t cancelled = cancel();
  expiry_ = at;
  return cancelled;
}

size_t SimTimer::expires_after(base::Duration d) {
  IQ_ASSERT(d >= base::Duration::zero(), "timer '{}' set {} in the past", label_, d);
  return expires_at(loop_.now() + d);
}

// The pending waits complete with operation_aborted as events at now(), in the order they began.
// Their completions own the handlers, not the timer, so they may run after the timer is gone.
size_t SimTimer::cancel() {
  std::map<uint64_t, PendingWait> waits = std::move(waits_);
  waits_.clear();
  for (auto& [id, pending] : waits) {
    WaitHandler handler = std::move(pending.wait->handler);
    pending.wait->timer = nullptr;
    const bool was_pending = loop_.cancel(pending.event);  // destroys the Wait
    IQ_ASSERT(was_pending, "timer '{}' wait {} had already completed", label_, id);
    loop_.post(label_ + ".aborted",
               [h = std::move(handler)]() mutable { h(boost::asio::error::operation_aborted); });
  }
  return waits.size();
}

void SimTimer::start_wait(WaitHandler handler) {
  IQ_ASSERT(static_cast<bool>(handler));
  const uint64_t id = wait_id_next_++;
  const base::Instant at = std::max(expiry_, loop_.now());
  auto wait = std::make_unique<Wait>(this, id, std::move(handler));
  Wait* const raw = wait.get();
  const EventId event =
      loop_.schedule_at(at, label_ + ".expired", [w = std::move(wait)] { w->fire(); });
  const bool inserted = waits_.emplace(id, PendingWait{event, raw}).second;
  IQ_ASSERT(inserted);
}

SimTimer::Wait::~Wait() {
  if (timer != nullptr) {
    timer->waits_.erase(id);
  }
}

// The expiry event of one wait.
void SimTimer::Wait::fire() {
  IQ_ASSERT(timer != nullptr, "wait {} fired after it was cancelled", id);
  const size_t erased = timer->waits_.erase(id);
  IQ_ASSERT(erased == 1, "wait {} fired but was not pending", id);
  timer = nullptr;
  handler(boost::system::error_code{});
}

}  // namespace iq::sim
