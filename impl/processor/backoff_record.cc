#include "processor/backoff_record.h"

#include <algorithm>

#include "base/assert.h"

namespace iq {
namespace {

// The jitter's resolution: 2^20 equally likely factors in [1 - jitter, 1 + jitter).
constexpr uint64_t kJitterSteps = uint64_t{1} << 20;

}  // namespace

ExponentialBackoff::ExponentialBackoff(int64_t initial_interval_ms, int64_t multiplier,
                                       int64_t max_interval_ms, base::Ratio jitter)
    : initial_interval_ms_(std::min(initial_interval_ms, max_interval_ms)),
      multiplier_(multiplier),
      max_interval_ms_(max_interval_ms),
      jitter_(jitter) {
  IQ_ASSERT(initial_interval_ms_ >= 1 && multiplier_ >= 2, "backoff {} x{}", initial_interval_ms_,
            multiplier_);
  IQ_ASSERT(jitter_.den > 0 && jitter_.num <= jitter_.den, "jitter {}/{}", jitter_.num,
            jitter_.den);
}

int64_t ExponentialBackoff::backoff(int64_t attempts, base::Prng& random) const {
  // Kafka's expMax == 0: a constant interval, no jitter drawn.
  if (max_interval_ms_ <= initial_interval_ms_) return initial_interval_ms_;
  // initial * multiplier^min(attempts, expMax), where initial * multiplier^expMax is exactly the
  // maximum: the loop stops there (at most log2(max / initial) steps).
  int64_t term = initial_interval_ms_;
  for (int64_t i = 0; i < attempts; ++i) {
    if (term * multiplier_ >= max_interval_ms_) {  // term <= max: no overflow
      term = max_interval_ms_;
      break;
    }
    term *= multiplier_;
  }
  if (jitter_.num == 0) return std::min(term, max_interval_ms_);
  // factor = (1 - num/den) + (2 num/den) * k / 2^20, k uniform in [0, 2^20).
  const uint64_t k = random.below(kJitterSteps);
  const uint64_t numerator = (jitter_.den - jitter_.num) * kJitterSteps + 2 * jitter_.num * k;
  const uint64_t value =
      static_cast<uint64_t>(term) * numerator / (jitter_.den * kJitterSteps);  // floor, as (long)
  return std::min(static_cast<int64_t>(value), max_interval_ms_);
}

bool BackoffRecord::can_attempt(int64_t now_ms, base::Prng& random) const {
  // TaskManager.BackoffRecord.EXPONENTIAL_BACKOFF.
  static const ExponentialBackoff kBackoff(1000, 2, 10'000, base::Ratio{1, 2});
  return now_ms - last_attempt_ms_ >= kBackoff.backoff(attempts_, random);
}

}  // namespace iq
