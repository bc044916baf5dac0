#pragma once
// SimTimer: an asynchronous timer on virtual time, used like boost::asio::steady_timer.
//
//   SimTimer t(loop, "commit");
//   t.expires_after(100_ms);
//   t.async_wait([](boost::system::error_code ec) { ... });      // a callback, or
//   co_await t.async_wait(boost::asio::use_awaitable);            // any Asio completion token
//
// As with Asio's timers: a wait completes with a default error_code when the expiry is reached, or
// with boost::asio::error::operation_aborted when the timer is cancelled, its expiry changed, or
// the timer destroyed first; a completion is never run inside the call that caused it (it becomes
// an event at now()); several waits may be pending at once. A wait whose expiry is already past
// completes at now(). A fresh timer expires at the loop's current time.

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include <boost/asio/async_result.hpp>
#include <boost/asio/error.hpp>
#include <boost/system/error_code.hpp>

#include "event_loop/event_loop.h"

namespace iq::sim {

class SimTimer {
 public:
  using executor_type = SimExecutor;
  using WaitHandler = UniqueFunction<void(boost::system::error_code)>;

  SimTimer(EventLoop& loop, std::string label);
  // Pending waits complete with operation_aborted, as with Asio.
  ~SimTimer();
  SimTimer(const SimTimer&) = delete;
  SimTimer& operator=(const SimTimer&) = delete;

  template <typename CompletionToken>
  auto async_wait(CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, void(boost::system::error_code)>(
        [this](auto handler) { start_wait(WaitHandler(std::move(handler))); }, token);
  }

  // Each of these cancels the pending waits first and returns how many it cancelled.
  size_t expires_at(base::Instant at);
  size_t expires_after(base::Duration d);
  size_t cancel();

  base::Instant expiry() const { return expiry_; }
  size_t waits_pending() const { return waits_.size(); }
  executor_type get_executor() const { return loop_.executor(label_.c_str()); }

 private:
  // One pending wait. Its expiry event in the loop's queue owns it (and so the completion handler),
  // as an Asio execution context owns its pending operations: destroying the loop destroys pending
  // handlers even when the handler (a coroutine frame) owns this timer. The timer only points at
  // it.
  struct Wait {
    Wait(SimTimer* t, uint64_t wait_id, WaitHandler h)
        : timer(t), id(wait_id), handler(std::move(h)) {}
    Wait(const Wait&) = delete;
    Wait& operator=(const Wait&) = delete;
    ~Wait();  // unregisters from the timer, if still registered, before the handler is destroyed
    void fire();

    SimTimer* timer;  // null once completed or cancelled
    uint64_t id;
    WaitHandler handler;
  };
  struct PendingWait {
    EventId event;
    Wait* wait;  // owned by the event
  };

  void start_wait(WaitHandler handler);

  EventLoop& loop_;
  std::string label_;
  base::Instant expiry_;
  uint64_t wait_id_next_ = 0;
  std::map<uint64_t, PendingWait> waits_;  // by wait id: cancel() aborts in the order waits began
};

}  // namespace iq::sim
