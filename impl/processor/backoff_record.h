#pragma once
// TaskManager.BackoffRecord over ExponentialBackoff(1000, 2, 10000, 0.5) (clients'
// common/utils/ExponentialBackoff.java): how long a task that hit a LockException in
// addTaskToStateUpdater waits before its next try. After the n-th failed try the wait is
// min(10000, jitter * 1000 * 2^min(n, log2(10))) ms, so 2 s, 4 s, 8 s, then 10 s, each times a
// jitter drawn uniformly in [0.5, 1.5) at *every* check (Kafka draws from ThreadLocalRandom inside
// canAttempt), and never above 10 s.
// The jitter comes from the thread's seeded Prng (the randomness seam), drawn as an integer ratio
// with 2^20 steps, not as a double: a seed gives the same waits on every machine.

#include <cstdint>

#include "base/prng.h"

namespace iq {

class ExponentialBackoff {
 public:
  ExponentialBackoff(int64_t initial_interval_ms, int64_t multiplier, int64_t max_interval_ms,
                     base::Ratio jitter);
  // ExponentialBackoff.backoff(attempts): draws one jitter from `random`.
  int64_t backoff(int64_t attempts, base::Prng& random) const;

 private:
  int64_t initial_interval_ms_;
  int64_t multiplier_;
  int64_t max_interval_ms_;
  base::Ratio jitter_;
};

class BackoffRecord {
 public:
  // The first failed try, at `now_ms`.
  explicit BackoffRecord(int64_t now_ms) : last_attempt_ms_(now_ms) {}
  void record_attempt(int64_t now_ms) {
    ++attempts_;
    last_attempt_ms_ = now_ms;
  }
  // canAttempt: a fresh jitter at each call, as Kafka's.
  bool can_attempt(int64_t now_ms, base::Prng& random) const;
  int64_t attempts() const { return attempts_; }

 private:
  int64_t attempts_ = 1;
  int64_t last_attempt_ms_;
};

}  // namespace iq
