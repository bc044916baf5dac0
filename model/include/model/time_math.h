#pragma once
// Arithmetic on event times shared by the model's histories.

#include <cstdint>
#include <limits>

namespace iq::model {

// a - b without overflow: stream time starts at -1 and retentions may be as large as a long, so
// "stream time minus retention" saturates at the smallest long instead of wrapping.
inline int64_t saturating_minus(int64_t a, int64_t b) {
  if (b > 0 && a < std::numeric_limits<int64_t>::min() + b) {
    return std::numeric_limits<int64_t>::min();
  }
  return a - b;
}

}  // namespace iq::model
