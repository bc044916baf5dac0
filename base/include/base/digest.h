#pragma once
// Digest: a running 64-bit hash of everything a run did, used by the determinism check (the same
// seed and scenario must give the same digest, run after run). It is FNV-1a 64 over a defined byte
// encoding, which is simple to reimplement elsewhere and fully specified:
//   add_bytes(s)  hashes the bytes of s as they are (this is plain FNV-1a; see the test vectors);
//   add(int64_t)  hashes the 8 bytes of the value, little-endian (independent of the host);
//   add(string)   hashes the length as an int64, then the bytes, so that ("ab", "c") and
//                 ("a", "bc") give different digests.
// It is not a cryptographic hash and not meant to resist crafted collisions, only to make an
// accidental divergence between two runs visible.

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace iq::base {

namespace detail {
// kPrime^n modulo 2^64.
constexpr uint64_t fnv_prime_power(int n) {
  uint64_t p = 1;
  for (int i = 0; i < n; ++i) p *= 0x100000001b3ULL;
  return p;
}
}  // namespace detail

class Digest {
 public:
  static constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ULL;
  static constexpr uint64_t kPrime = 0x100000001b3ULL;

  Digest& add(std::string_view s) {
    add(static_cast<int64_t>(s.size()));
    return add_bytes(s);
  }

  // Hashing a zero byte is a multiply by kPrime alone, so the high zero bytes of a small value
  // (an event's time, sequence number, a label's length: 17 of their 24 bytes) are one multiply
  // by a power of kPrime instead of one multiply each: the same value, a shorter dependency chain
  // (docs/performance.md, fourth pass).
  Digest& add(int64_t v) {
    auto u = static_cast<uint64_t>(v);
    int i = 0;
    for (; i < 8 && u != 0; ++i, u >>= 8) {
      add_byte(static_cast<uint8_t>(u));
    }
    state_ *= kPrimePowers[8 - i];
    return *this;
  }

  Digest& add_bytes(std::string_view s) {
    for (char c : s) {
      add_byte(static_cast<uint8_t>(c));
    }
    return *this;
  }

  uint64_t value() const { return state_; }
  // Sixteen lowercase hex digits, zero-padded: "cbf29ce484222325".
  std::string hex() const { return fmt::format("{:016x}", state_); }

  friend bool operator==(const Digest&, const Digest&) = default;

 private:
  void add_byte(uint8_t b) {
    state_ ^= b;
    state_ *= kPrime;
  }

  // kPrime^n for n = 0..8.
  static constexpr uint64_t kPrimePowers[9] = {
      detail::fnv_prime_power(0), detail::fnv_prime_power(1), detail::fnv_prime_power(2),
      detail::fnv_prime_power(3), detail::fnv_prime_power(4), detail::fnv_prime_power(5),
      detail::fnv_prime_power(6), detail::fnv_prime_power(7), detail::fnv_prime_power(8)};

  uint64_t state_ = kOffsetBasis;
};

// The FNV-1a 64 hash of a byte string (add_bytes on a fresh Digest).
inline uint64_t fnv1a64(std::string_view s) {
  return Digest().add_bytes(s).value();
}

}  // namespace iq::base
