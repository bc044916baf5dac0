#pragma once
// KeyDistribution: how producers and query clients draw keys from [0, keys).
// - kUniform: every key equally likely.
// - kSkewed: key = floor(keys * u^2) for u uniform in [0, 1), in integer arithmetic (u has 20
//   bits), so low keys are hot: key 0 gets about 1/sqrt(keys) of the draws. A simple deterministic
//   stand-in for a zipfian distribution.

#include <cstdint>

#include "base/prng.h"

namespace iq::sim {

enum class KeyDistribution { kUniform, kSkewed };

inline int32_t draw_key(base::Prng& prng, KeyDistribution distribution, int32_t keys) {
  IQ_ASSERT(keys >= 1 && keys <= (1 << 20), "keys={}", keys);
  if (distribution == KeyDistribution::kUniform) {
    return static_cast<int32_t>(prng.below(static_cast<uint64_t>(keys)));
  }
  constexpr uint64_t kBits = 20;
  const uint64_t u = prng.below(uint64_t{1} << kBits);
  const uint64_t key = (static_cast<uint64_t>(keys) * u * u) >> (2 * kBits);  // < 2^60, no overflow
  IQ_ASSERT(key < static_cast<uint64_t>(keys), "key {} of {}", key, keys);
  return static_cast<int32_t>(key);
}

}  // namespace iq::sim
