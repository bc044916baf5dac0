// Proves the EventLoop's contract: (time, sequence) order, FIFO at equal times, cancellation,
// nested scheduling, exact run_until bounds, the event budget, digest determinism, and that
// handlers run inside the io_context and Asio work submitted through the loop's executor is ordered
// like any other event.
#include "event_loop/event_loop.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

namespace iq::sim {
namespace {

using base::Duration;
using base::Instant;
using namespace base::literals;

Instant at_ms(int64_t ms) {
  return Instant::from_ms(ms);
}

// Records each handler's label and the time it ran.
struct Log {
  std::vector<std::string> entries;
  Handler add(EventLoop& loop, std::string what) {
    return [this, &loop, what = std::move(what)] {
      entries.push_back(what + "@" + std::to_string(loop.now().ms_since_epoch()));
    };
  }
};

TEST(EventLoop, RunsByTimeThenSequence) {
  EventLoop loop;
  Log log;
  loop.schedule_at(at_ms(30), "c", log.add(loop, "c"));
  loop.schedule_at(at_ms(10), "a", log.add(loop, "a"));
  loop.schedule_at(at_ms(20), "b", log.add(loop, "b"));
  const RunResult r = loop.run_until_quiescent(100);
  EXPECT_EQ(r.events, 3u);
  EXPECT_EQ(r.stop, RunStop::kQuiescent);
  EXPECT_EQ(log.entries, (std::vector<std::string>{"a@10", "b@20", "c@30"}));
  EXPECT_EQ(loop.now(), at_ms(30));
}

TEST(EventLoop, SameTimeEventsRunInSchedulingOrder) {
  EventLoop loop;
  Log log;
  for (int i = 0; i < 5; ++i) {
    loop.schedule_at(at_ms(7), "e", log.add(loop, std::to_string(i)));
  }
  loop.post("p", log.add(loop, "post"));  // at now() == 0: earlier time, so first
  (void)loop.run_until_quiescent(100);
  EXPECT_EQ(log.entries, (std::vector<std::string>{"post@0", "0@7", "1@7", "2@7", "3@7", "4@7"}));
}

// post() from a handler runs after the events already queued for the same time.
TEST(EventLoop, PostRunsAfterAlreadyQueuedSameTimeEvents) {
  EventLoop loop;
  Log log;
  loop.schedule_at(at_ms(5), "first", [&] {
    log.entries.push_back("first");
    loop.post("posted", log.add(loop, "posted"));
  });
  loop.schedule_at(at_ms(5), "second", log.add(loop, "second"));
  (void)loop.run_until_quiescent(100);
  EXPECT_EQ(log.entries, (std::vector<std::string>{"first", "second@5", "posted@5"}));
}

TEST(EventLoop, CancelledEventNeverRuns) {
  EventLoop loop;
  Log log;
  const EventId a = loop.schedule_after(10_ms, "a", log.add(loop, "a"));
  loop.schedule_after(20_ms, "b", log.add(loop, "b"));
  EXPECT_TRUE(loop.cancel(a));
  EXPECT_FALSE(loop.cancel(a));  // already cancelled
  EXPECT_FALSE(loop.cancel(EventId{}));
  EXPECT_EQ(loop.events_pending(), 1u);
  (void)loop.run_until_quiescent(100);
  EXPECT_EQ(log.entries, (std::vector<std::string>{"b@20"}));
  const EventId ran = loop.post("c", log.add(loop, "c"));
  EXPECT_TRUE(loop.step());
  EXPECT_FALSE(loop.cancel(ran));  // already ran
}

// A cancelled event's slot is reused by the next event, and the old EventId can neither cancel the
// new event nor report a second cancellation.
TEST(EventLoop, StaleEventIdDoesNotCancelTheSlotsNextEvent) {
  EventLoop loop;
  Log log;
  const EventId old = loop.schedule_at(at_ms(10), "old", log.add(loop, "old"));
  ASSERT_TRUE(loop.cancel(old));
  const EventId next = loop.schedule_at(at_ms(20), "next", log.add(loop, "next"));
  EXPECT_EQ(next.slot, old.slot);  // the freed slot was taken again
  EXPECT_NE(next.seq, old.seq);
  EXPECT_FALSE(loop.cancel(old));
  EXPECT_EQ(loop.events_pending(), 1u);
  (void)loop.run_until_quiescent(10);
  EXPECT_EQ(log.entries, (std::vector<std::string>{"next@20"}));
}

// Many far-future timers cancelled in between near events (as rescheduled session timeouts are)
// leave stale heap entries behind; the heap is compacted, and the events left still run in (time,
// sequence) order, each exactly once.
TEST(EventLoop, ManyCancellationsKeepTheOrder) {
  EventLoop loop;
  std::vector<int64_t> ran;
  std::vector<EventId> far;
  constexpr int64_t kRounds = 5'000;
  for (int64_t i = 0; i < kRounds; ++i) {
    far.push_back(loop.schedule_at(at_ms(1'000'000 + i), "far", [&ran, i] { ran.push_back(-i); }));
    loop.schedule_at(at_ms(kRounds - i), "near", [&ran, i] { ran.push_back(kRounds - i); });
    if (i % 10 != 0) {
      ASSERT_TRUE(loop.cancel(far.back()));
    }
  }
  EXPECT_EQ(loop.events_pending(), static_cast<size_t>(kRounds + kRounds / 10));
  (void)loop.run_until_quiescent(3 * kRounds);
  ASSERT_EQ(ran.size(), static_cast<size_t>(kRounds + kRounds / 10));
  for (size_t k = 0; k < static_cast<size_t>(kRounds); ++k) {
    EXPECT_EQ(ran[k], static_cast<int64_t>(k + 1)) << "near event " << k;
  }
  for (size_t k = 0; k < static_cast<size_t>(kRounds / 10); ++k) {
    EXPECT_EQ(ran[kRounds + k], -static_cast<int64_t>(10 * k)) << "far event " << k;
  }
  EXPECT_EQ(loop.events_pending(), 0u);
}

// A handler cancels a later event, which then never runs (and is never dispatched or digested).
TEST(EventLoop, HandlerCanCancelAnotherEvent) {
  EventLoop loop;
  Log log;
  const EventId later = loop.schedule_at(at_ms(50), "later", log.add(loop, "later"));
  loop.schedule_at(at_ms(10), "canceller", [&] { EXPECT_TRUE(loop.cancel(later)); });
  (void)loop.run_until_quiescent(100);
  EXPECT_TRUE(log.entries.empty());
  EXPECT_EQ(loop.now(), at_ms(10));
  EXPECT_EQ(loop.events_dispatched(), 1u);
}

// Handlers schedule more work, at now and later; everything runs in order.
TEST(EventLoop, NestedSchedulingFromHandlers) {
  EventLoop loop;
  Log log;
  loop.schedule_at(at_ms(1), "outer", [&] {
    log.entries.push_back("outer");
    loop.schedule_after(2_ms, "inner-later", [&] {
      log.entries.push_back("inner-later@" + std::to_string(loop.now().ms_since_epoch()));
      loop.post("innermost", log.add(loop, "innermost"));
    });
    loop.post("inner-now", log.add(loop, "inner-now"));
  });
  loop.schedule_at(at_ms(2), "between", log.add(loop, "between"));
  (void)loop.run_until_quiescent(100);
  EXPECT_EQ(log.entries, (std::vector<std::string>{"outer", "inner-now@1", "between@2",
                                                   "inner-later@3", "innermost@3"}));
}

// Events at the bound run, events after it do not, and the clock ends exactly on the bound even
// when no event is there.
TEST(EventLoop, RunUntilStopsExactlyAtTheBound) {
  EventLoop loop;
  Log log;
  loop.schedule_at(at_ms(99), "a", log.add(loop, "a"));
  loop.schedule_at(at_ms(100), "b", log.add(loop, "b"));
  loop.schedule_at(at_ms(101), "c", log.add(loop, "c"));
  const RunResult r = loop.run_until(at_ms(100));
  EXPECT_EQ(r.stop, RunStop::kTimeReached);
  EXPECT_EQ(r.events, 2u);
  EXPECT_EQ(log.entries, (std::vector<std::string>{"a@99", "b@100"}));
  EXPECT_EQ(loop.now(), at_ms(100));
  EXPECT_EQ(loop.events_pending(), 1u);

  // Running to now() again dispatches nothing and leaves the clock where it is.
  const RunResult idle = loop.run_for(0_ms);
  EXPECT_EQ(idle.events, 0u);
  EXPECT_EQ(loop.now(), at_ms(100));

  // Work a handler schedules at the bound itself still runs within the same call.
  loop.schedule_at(at_ms(150), "d", [&] { loop.post("e", log.add(loop, "e")); });
  (void)loop.run_until(at_ms(150));
  EXPECT_EQ(log.entries, (std::vector<std::string>{"a@99", "b@100", "c@101", "e@150"}));
  EXPECT_EQ(loop.next_event_time(), Instant::max());
}

TEST(EventLoop, RunUntilAdvancesIdleClock) {
  EventLoop loop;
  (void)loop.run_until(at_ms(1'000));
  EXPECT_EQ(loop.now(), at_ms(1'000));
  EXPECT_EQ(loop.next_event_time(), Instant::max());
  EXPECT_DEATH((void)loop.run_until(at_ms(999)), "move time back");
}

// A handler that always reschedules itself at now() is a livelock: virtual time stops. The budget
// turns it into a result instead of a hang.
TEST(EventLoop, EventBudgetStopsALivelock) {
  EventLoop loop;
  std::function<void()> spin = [&] { loop.post("spin", [&] { spin(); }); };
  loop.post("spin", [&] { spin(); });
  const RunResult r = loop.run_until_quiescent(1'000);
  EXPECT_EQ(r.stop, RunStop::kEventBudgetExhausted);
  EXPECT_EQ(r.events, 1'000u);
  EXPECT_EQ(loop.now(), Instant::epoch());
  EXPECT_STREQ(to_string(r.stop), "event budget exhausted");

  const RunResult bounded = loop.run_until(at_ms(5), 10);
  EXPECT_EQ(bounded.stop, RunStop::kEventBudgetExhausted);
  EXPECT_EQ(loop.now(), Instant::epoch());  // a run stopped by its budget does not jump the clock
}

TEST(EventLoop, DefaultRunBudgetComesFromLimits) {
  EventLoop loop(EventLoopLimits{.events_pending_max = 100, .events_per_run_max = 3});
  for (int i = 0; i < 5; ++i) {
    loop.schedule_at(at_ms(i), "e", [] {});
  }
  const RunResult r = loop.run_until(at_ms(10));
  EXPECT_EQ(r.stop, RunStop::kEventBudgetExhausted);
  EXPECT_EQ(r.events, 3u);
}

TEST(EventLoop, PendingQueueIsBounded) {
  EventLoop loop(EventLoopLimits{.events_pending_max = 2, .events_per_run_max = 10});
  loop.post("a", [] {});
  loop.post("b", [] {});
  EXPECT_DEATH(loop.post("c", [] {}), "event queue full");
}

TEST(EventLoop, ProgrammerErrorsAssert) {
  EventLoop loop;
  (void)loop.run_until(at_ms(10));
  EXPECT_DEATH(loop.schedule_at(at_ms(9), "past", [] {}), "before now");
  EXPECT_DEATH(loop.schedule_after(Duration::millis(-1), "past", [] {}), "in the past");
  EXPECT_DEATH(loop.post("empty", Handler{}), "without a handler");
  loop.post("reentrant", [&] { (void)loop.run_until_quiescent(1); });
  EXPECT_DEATH((void)loop.step(), "from inside");
}

// The scenario used by the digest tests: a few events, some nested, some cancelled.
void run_scenario(EventLoop& loop, const std::string& odd_label) {
  loop.schedule_at(at_ms(5), "produce", [&] { loop.schedule_after(3_ms, odd_label, [] {}); });
  const EventId c = loop.schedule_at(at_ms(6), "cancelled", [] {});
  loop.schedule_at(at_ms(5), "fetch", [&] { loop.post("poll", [] {}); });
  loop.cancel(c);
  (void)loop.run_until(at_ms(20));
}

TEST(EventLoop, DigestIsEqualForIdenticalRunsAndDiffersOnALabel) {
  EventLoop a, b, c;
  run_scenario(a, "commit");
  run_scenario(b, "commit");
  run_scenario(c, "commit2");
  EXPECT_EQ(a.events_dispatched(), 4u);
  EXPECT_EQ(a.digest(), b.digest());
  EXPECT_EQ(a.digest().hex(), b.digest().hex());
  EXPECT_NE(a.digest(), c.digest());
  EXPECT_NE(a.digest(), base::Digest());
}

// The digest covers time too: the same labels at another time give another digest.
TEST(EventLoop, DigestCoversTime) {
  EventLoop a, b;
  a.schedule_at(at_ms(1), "x", [] {});
  b.schedule_at(at_ms(2), "x", [] {});
  (void)a.run_until_quiescent(10);
  (void)b.run_until_quiescent(10);
  EXPECT_NE(a.digest(), b.digest());
}

TEST(EventLoop, TraceHookSeesEveryDispatchedEventBeforeItsHandler) {
  EventLoop loop;
  std::vector<std::string> trace;
  loop.on_event([&](const EventRecord& r) {
    trace.push_back(std::string(r.label) + "#" + std::to_string(r.seq) + "@" +
                    std::to_string(r.at.ms_since_epoch()));
  });
  loop.schedule_at(at_ms(4), "b", [&] { trace.push_back("ran b"); });
  loop.schedule_at(at_ms(2), "a", [&] { trace.push_back("ran a"); });
  (void)loop.run_until_quiescent(10);
  EXPECT_EQ(trace, (std::vector<std::string>{"a#2@2", "ran a", "b#1@4", "ran b"}));
}

// Handlers run inside the io_context, and may own move-only state.
TEST(EventLoop, HandlersRunInsideTheIoContext) {
  EventLoop loop;
  bool inside = false;
  auto owned = std::make_unique<int>(42);
  int seen = 0;
  loop.post("check", [&, p = std::move(owned)] {
    inside = loop.io_context().get_executor().running_in_this_thread();
    seen = *p;
  });
  EXPECT_TRUE(loop.step());
  EXPECT_TRUE(inside);
  EXPECT_EQ(seen, 42);
}

// boost::asio::post and dispatch through the loop's executor become ordered events at now(): never
// inline, after the events already queued for now, labelled for the digest.
TEST(EventLoop, AsioWorkThroughTheExecutorIsOrdered) {
  static_assert(boost::asio::execution::is_executor<SimExecutor>::value);
  EventLoop loop;
  Log log;
  std::vector<std::string> labels;
  loop.on_event([&](const EventRecord& r) { labels.emplace_back(r.label); });
  loop.schedule_at(at_ms(3), "first", [&] {
    boost::asio::post(loop.executor("asio.post"), log.add(loop, "posted"));
    boost::asio::dispatch(loop.executor("asio.dispatch"), log.add(loop, "dispatched"));
    log.entries.push_back("first-done");
  });
  loop.schedule_at(at_ms(3), "second", log.add(loop, "second"));
  (void)loop.run_until_quiescent(10);
  EXPECT_EQ(log.entries,
            (std::vector<std::string>{"first-done", "second@3", "posted@3", "dispatched@3"}));
  EXPECT_EQ(labels, (std::vector<std::string>{"first", "second", "asio.post", "asio.dispatch"}));
  EXPECT_EQ(loop.executor(), loop.executor("other"));
}

// Work posted straight to the io_context would escape the order and the digest: the loop refuses.
TEST(EventLoop, WorkPostedStraightToTheIoContextAsserts) {
  EventLoop loop;
  loop.post("bad", [&] { boost::asio::post(loop.io_context(), [] {}); });
  EXPECT_DEATH((void)loop.step(), "posted to it directly");
}

}  // namespace
}  // namespace iq::sim
