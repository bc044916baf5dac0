#pragma once
// Prng: the only source of randomness in iqsim. Seeded, deterministic, and splittable per
// component so that each part of the simulated world draws from its own stream.
//
// Generator: xoshiro256** (Blackman and Vigna), its 256-bit state filled from the seed by
// SplitMix64, as the xoshiro authors recommend. Both are written out here so that the sequence for
// a seed is fixed by this file alone, not by a standard library's implementation.
//
// Splitting: split(name) derives a child from the parent's SEED and the name only. It does not read
// or advance the parent's state, so
//   - the child for "broker" is the same whether or not "network" (or anything else) was split
//     first, and however many numbers the parent has drawn; adding a component to the world does
//     not reshuffle the streams of the others;
//   - splitting the same name twice gives the same stream twice: give each component its own name
//     ("instance-1", "instance-2"), and split further for sub-components (a child's split uses the
//     child's seed, so the names form a path).
//
// Draws: below(), range_inclusive(), chance() and shuffle() are unbiased (rejection sampling, never
// a bare modulo of a random word). Odds are integer ratios (Ratio{1, 100}), never floating point,
// so a seed gives the same outcomes on every machine and compiler.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "base/assert.h"
#include "base/digest.h"

namespace iq::base {

// Integer odds: num out of den. Ratio{0, 1} never happens, Ratio{1, 1} always does.
struct Ratio {
  uint64_t num = 0;
  uint64_t den = 1;
  friend bool operator==(const Ratio&, const Ratio&) = default;
};

// SplitMix64's output function (Steele, Lea, Flood): a bijective mix of 64 bits.
constexpr uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One step of SplitMix64: advances `state` and returns the next output.
constexpr uint64_t splitmix64_next(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  return splitmix64_mix(state);
}

class Prng {
 public:
  explicit Prng(uint64_t seed) : seed_(seed) {
    uint64_t sm = seed;
    for (auto& word : s_) {
      word = splitmix64_next(sm);
    }
    // xoshiro's one forbidden state; SplitMix64 cannot produce four zero words in a row, but the
    // generator would be stuck forever if it did.
    IQ_ASSERT((s_[0] | s_[1] | s_[2] | s_[3]) != 0, "seed {}", seed);
  }

  // The child stream for a named component; depends only on seed() and the name (see above).
  Prng split(std::string_view component_name) const {
    return Prng(splitmix64_mix(seed_ ^ splitmix64_mix(fnv1a64(component_name))));
  }

  uint64_t seed() const { return seed_; }

  // The next 64 random bits (xoshiro256**).
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n), n > 0. Rejection sampling: words below 2^64 mod n are redrawn, so every
  // residue is equally likely. Each draw is rejected with probability < 1/2, so the bound on
  // attempts is reached with probability < 2^-128: reaching it means the generator is broken.
  uint64_t below(uint64_t n) {
    IQ_ASSERT(n > 0);
    const uint64_t threshold = (0 - n) % n;  // == 2^64 mod n
    constexpr int kAttemptsMax = 128;
    for (int attempt = 0; attempt < kAttemptsMax; ++attempt) {
      const uint64_t r = next();
      if (r >= threshold) {
        return r % n;
      }
    }
    IQ_ASSERT(false, "below({}): {} draws rejected in a row", n, kAttemptsMax);
    return 0;
  }

  // Uniform in [lo, hi], both included; lo <= hi. The full int64 range is allowed.
  int64_t range_inclusive(int64_t lo, int64_t hi) {
    IQ_ASSERT(lo <= hi, "range_inclusive({}, {})", lo, hi);
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (span == UINT64_MAX) {
      return static_cast<int64_t>(next());
    }
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + below(span + 1));
  }

  // True with probability odds.num / odds.den. Always consumes exactly one draw (barring
  // rejections), whatever the odds, so changing one ratio in a scenario does not shift which later
  // numbers other draws see more than necessary.
  bool chance(Ratio odds) {
    IQ_ASSERT(odds.den > 0 && odds.num <= odds.den, "Ratio{{{}, {}}}", odds.num, odds.den);
    return below(odds.den) < odds.num;
  }

  // One element, uniformly; the span must not be empty.
  template <typename T, size_t Extent>
  T& pick(std::span<T, Extent> items) {
    IQ_ASSERT(!items.empty(), "pick from an empty span");
    return items[below(items.size())];
  }
  template <typename Container>
  auto& pick(Container& items) {
    return pick(std::span(items));
  }

  // Fisher-Yates: every permutation equally likely.
  template <typename T, size_t Extent>
  void shuffle(std::span<T, Extent> items) {
    for (size_t i = items.size(); i > 1; --i) {
      const size_t j = below(i);
      using std::swap;
      swap(items[i - 1], items[j]);
    }
  }
  template <typename Container>
  void shuffle(Container& items) {
    shuffle(std::span(items));
  }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t seed_;
  std::array<uint64_t, 4> s_{};
};

}  // namespace iq::base
