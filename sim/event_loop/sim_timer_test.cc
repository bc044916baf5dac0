// Proves that SimTimer behaves like an Asio timer on virtual time: waits complete at the expiry,
// cancel and re-arming abort pending waits with operation_aborted (never inline), destruction
// aborts too, and Asio completion tokens (a C++20 coroutine here) work over the loop's executor.
#include "event_loop/sim_timer.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace iq::sim {
namespace {

using base::Instant;
using boost::system::error_code;
using namespace base::literals;

struct Completions {
  std::vector<std::string> seen;
  auto handler(EventLoop& loop, std::string name) {
    return [this, &loop, name = std::move(name)](error_code ec) {
      seen.push_back(name + (ec ? ":aborted@" : ":expired@") +
                     std::to_string(loop.now().ms_since_epoch()));
    };
  }
};

TEST(SimTimer, WaitCompletesAtExpiry) {
  EventLoop loop;
  Completions c;
  SimTimer timer(loop, "commit");
  timer.expires_after(100_ms);
  EXPECT_EQ(timer.expiry(), Instant::from_ms(100));
  timer.async_wait(c.handler(loop, "w"));
  (void)loop.run_until(Instant::from_ms(99));
  EXPECT_TRUE(c.seen.empty());
  (void)loop.run_until(Instant::from_ms(100));
  EXPECT_EQ(c.seen, (std::vector<std::string>{"w:expired@100"}));
  EXPECT_EQ(timer.waits_pending(), 0u);
}

// A fresh timer, or one whose expiry has passed, completes at now(): as an event, not inline.
TEST(SimTimer, PastExpiryCompletesAtNowButNotInline) {
  EventLoop loop;
  Completions c;
  (void)loop.run_until(Instant::from_ms(50));
  SimTimer timer(loop, "t");
  timer.async_wait(c.handler(loop, "fresh"));
  EXPECT_TRUE(c.seen.empty());
  timer.expires_at(Instant::from_ms(10));
  timer.async_wait(c.handler(loop, "past"));
  (void)loop.run_until_quiescent(10);
  EXPECT_EQ(c.seen, (std::vector<std::string>{"fresh:aborted@50", "past:expired@50"}));
}

TEST(SimTimer, CancelAbortsEveryPendingWaitInOrder) {
  EventLoop loop;
  Completions c;
  SimTimer timer(loop, "t");
  timer.expires_after(30_ms);
  timer.async_wait(c.handler(loop, "a"));
  timer.async_wait(c.handler(loop, "b"));
  (void)loop.run_until(Instant::from_ms(10));
  EXPECT_EQ(timer.cancel(), 2u);
  EXPECT_TRUE(c.seen.empty());  // never inline
  EXPECT_EQ(timer.cancel(), 0u);
  (void)loop.run_until(Instant::from_ms(100));
  EXPECT_EQ(c.seen, (std::vector<std::string>{"a:aborted@10", "b:aborted@10"}));
}

// Re-arming aborts the old waits; a new wait uses the new expiry.
TEST(SimTimer, ExpiresAfterAbortsPendingWaitsAndRearms) {
  EventLoop loop;
  Completions c;
  SimTimer timer(loop, "session");
  timer.expires_after(45_ms);
  timer.async_wait(c.handler(loop, "old"));
  (void)loop.run_until(Instant::from_ms(20));
  EXPECT_EQ(timer.expires_after(45_ms), 1u);
  timer.async_wait(c.handler(loop, "new"));
  (void)loop.run_until_quiescent(10);
  EXPECT_EQ(c.seen, (std::vector<std::string>{"old:aborted@20", "new:expired@65"}));
}

TEST(SimTimer, DestructionAbortsPendingWaits) {
  EventLoop loop;
  Completions c;
  {
    SimTimer timer(loop, "t");
    timer.expires_after(5_ms);
    timer.async_wait(c.handler(loop, "w"));
  }
  (void)loop.run_until_quiescent(10);
  EXPECT_EQ(c.seen, (std::vector<std::string>{"w:aborted@0"}));
}

// A periodic timer rescheduling itself from its own completion, like a commit interval.
TEST(SimTimer, PeriodicRearmFromCompletion) {
  EventLoop loop;
  SimTimer timer(loop, "tick");
  std::vector<int64_t> ticks;
  std::function<void(error_code)> on_tick = [&](error_code ec) {
    if (ec) return;
    ticks.push_back(loop.now().ms_since_epoch());
    timer.expires_after(100_ms);
    timer.async_wait(on_tick);
  };
  timer.expires_after(100_ms);
  timer.async_wait(on_tick);
  (void)loop.run_until(Instant::from_ms(450));
  EXPECT_EQ(ticks, (std::vector<int64_t>{100, 200, 300, 400}));
  EXPECT_EQ(timer.waits_pending(), 1u);
}

// The labels of timer events enter the trace, so timers are part of the digest.
TEST(SimTimer, TimerEventsAreLabelled) {
  EventLoop loop;
  std::vector<std::string> labels;
  loop.on_event([&](const EventRecord& r) { labels.emplace_back(r.label); });
  SimTimer timer(loop, "commit");
  timer.expires_after(1_ms);
  timer.async_wait([](error_code) {});
  (void)loop.run_until_quiescent(10);
  timer.expires_after(1_ms);
  timer.async_wait([](error_code) {});
  timer.cancel();
  (void)loop.run_until_quiescent(10);
  EXPECT_EQ(labels, (std::vector<std::string>{"commit.expired", "commit.aborted"}));
}

// The Asio execution model end to end: a coroutine spawned on the loop's executor sleeps on
// virtual time with use_awaitable; two of them interleave by virtual time alone.
TEST(SimTimer, CoroutinesSleepOnVirtualTime) {
  EventLoop loop;
  std::vector<std::string> seen;
  auto sleeper = [&](std::string name, int64_t step_ms) -> boost::asio::awaitable<void> {
    SimTimer timer(loop, name);
    for (int i = 0; i < 3; ++i) {
      timer.expires_after(base::Duration::millis(step_ms));
      co_await timer.async_wait(boost::asio::use_awaitable);
      seen.push_back(name + "@" + std::to_string(loop.now().ms_since_epoch()));
    }
  };
  boost::asio::co_spawn(loop.executor("spawn"), sleeper("slow", 30), boost::asio::detached);
  boost::asio::co_spawn(loop.executor("spawn"), sleeper("fast", 20), boost::asio::detached);
  const RunResult r = loop.run_until_quiescent(1'000);
  EXPECT_EQ(r.stop, RunStop::kQuiescent);
  // At 60 both wake: slow armed its timer at 30, before fast armed its own at 40, so slow's
  // expiry event has the lower sequence number and runs first.
  EXPECT_EQ(seen, (std::vector<std::string>{"fast@20", "slow@30", "fast@40", "slow@60", "fast@60",
                                            "slow@90"}));
}

// Destroying the loop while a coroutine still sleeps on a timer destroys its frame, whose timer
// then aborts its wait into the loop being destroyed: that must be safe (the asan-ubsan preset
// checks).
TEST(SimTimer, LoopDestroyedWhileCoroutinesSleep) {
  bool finished = false;
  {
    EventLoop loop;
    boost::asio::co_spawn(
        loop.executor("spawn"),
        [&]() -> boost::asio::awaitable<void> {
          SimTimer timer(loop, "long-sleep");
          timer.expires_after(base::Duration::seconds(3'600));
          co_await timer.async_wait(boost::asio::use_awaitable);
          finished = true;
        },
        boost::asio::detached);
    (void)loop.run_until(Instant::from_ms(10));
    EXPECT_EQ(loop.events_pending(), 1u);
  }
  EXPECT_FALSE(finished);
}

}  // namespace
}  // namespace iq::sim
