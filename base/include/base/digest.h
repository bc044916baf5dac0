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

class Digest {
 public:
  static constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ULL;
  static constexpr uint64_t kPrime = 0x100000001b3ULL;

  Digest& add(std::string_view s) {
    add(static_cast<int64_t>(s.size()));
    return add_bytes(s);
  }

  Digest& add(int64_t v) {
    const auto u = static_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i) {
      add_byte(static_cast<uint8_t>(u >> (8 * i)));
    }
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

  uint64_t state_ = kOffsetBasis;
};

// The FNV-1a 64 hash of a byte string (add_bytes on a fresh Digest).
inline uint64_t fnv1a64(std::string_view s) {
  return Digest().add_bytes(s).value();
}

}  // namespace iq::base
