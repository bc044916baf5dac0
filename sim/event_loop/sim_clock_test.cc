// Proves that SimClock reads the event loop's virtual time (moved only by the loop), and the
// virtual time arithmetic the simulator relies on.
#include "event_loop/sim_clock.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace iq::sim {
namespace {

using base::Duration;
using base::Instant;
using namespace base::literals;

TEST(SimClock, ReadsTheLoopsVirtualTime) {
  EventLoop loop;
  SimClock sim_clock(loop);
  const Clock& clock = sim_clock;
  EXPECT_EQ(clock.now(), Instant::epoch());
  Instant seen_in_handler;
  loop.schedule_at(Instant::from_ms(250), "read", [&] { seen_in_handler = clock.now(); });
  (void)loop.run_until(Instant::from_ms(1'000));
  EXPECT_EQ(seen_in_handler, Instant::from_ms(250));
  EXPECT_EQ(clock.now(), Instant::from_ms(1'000));
}

TEST(VirtualTime, ArithmeticComparisonAndPrinting) {
  const Instant t = Instant::from_ms(1'500);
  EXPECT_EQ(t + 500_ms, Instant::from_ms(2'000));
  EXPECT_EQ(t - Duration::seconds(1), Instant::from_ms(500));
  EXPECT_EQ(Instant::from_ms(2'000) - t, 500_ms);
  EXPECT_EQ(2 * 300_ms, Duration::millis(600));
  EXPECT_LT(t, t + 1_ms);
  EXPECT_GT(1_ms, Duration::zero());
  Instant u = t;
  u += 5_ms;
  EXPECT_EQ(u.ms_since_epoch(), 1'505);
  EXPECT_EQ(t.to_string(), "t=1500ms");
  EXPECT_EQ((-3_ms).to_string(), "-3ms");
  EXPECT_EQ(fmt::format("{} {}", t, 7_ms), "t=1500ms 7ms");
  EXPECT_DEATH((void)(Instant::max() + 1_ms), "virtual time overflow");
}

}  // namespace
}  // namespace iq::sim
