#pragma once
// SimClock: a Clock whose time is the event loop's virtual time. It cannot be set or advanced by
// anyone: only the EventLoop moves time, when it dispatches the next event.

#include "event_loop/clock.h"
#include "event_loop/event_loop.h"

namespace iq::sim {

class SimClock final : public Clock {
 public:
  explicit SimClock(const EventLoop& loop) : loop_(loop) {}
  base::Instant now() const override { return loop_.now(); }

 private:
  const EventLoop& loop_;
};

}  // namespace iq::sim
