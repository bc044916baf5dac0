#pragma once
// Clock: the seam through which code reads virtual time. SimClock (sim_clock.h) implements it over
// the EventLoop. This interface lives in sim/ for now; impl/ will get its own seam in impl/io/ (its
// layer may not include sim/), and SimClock will then implement that one instead of this one.

#include "base/time.h"

namespace iq {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual base::Instant now() const = 0;
};

}  // namespace iq
