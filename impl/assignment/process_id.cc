#include "assignment/process_id.h"

#include <array>

#include "base/assert.h"

namespace iq {

namespace {

// The value of one hex digit, or -1.
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Positions of the dashes in the canonical form.
constexpr std::array<size_t, 4> kDashes = {8, 13, 18, 23};

bool is_dash_position(size_t i) {
  for (size_t d : kDashes) {
    if (i == d) return true;
  }
  return false;
}

}  // namespace

ProcessId ProcessId::random_v4(uint64_t high_bits, uint64_t low_bits) {
  // Version 4 in the high nibble of byte 6, variant 10 in the top bits of byte 8.
  high_bits = (high_bits & ~uint64_t{0xF000}) | uint64_t{0x4000};
  low_bits = (low_bits & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);
  return ProcessId(static_cast<int64_t>(high_bits), static_cast<int64_t>(low_bits));
}

std::optional<ProcessId> ProcessId::from_string(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  uint64_t halves[2] = {0, 0};
  int digits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (is_dash_position(i)) {
      if (text[i] != '-') return std::nullopt;
      continue;
    }
    const int v = hex_value(text[i]);
    if (v < 0) return std::nullopt;
    uint64_t& half = halves[digits / 16];
    half = (half << 4) | static_cast<uint64_t>(v);
    ++digits;
  }
  IQ_ASSERT(digits == 32, "digits={}", digits);
  return ProcessId(static_cast<int64_t>(halves[0]), static_cast<int64_t>(halves[1]));
}

std::string ProcessId::to_string() const {
  static constexpr char kHex[] = "0123456789abcdef";
  const uint64_t halves[2] = {static_cast<uint64_t>(most_sig_bits_),
                              static_cast<uint64_t>(least_sig_bits_)};
  std::string out;
  out.reserve(36);
  for (int digit = 0; digit < 32; ++digit) {
    if (is_dash_position(out.size())) out.push_back('-');
    const uint64_t half = halves[digit / 16];
    const int shift = 60 - 4 * (digit % 16);
    out.push_back(kHex[(half >> shift) & 0xF]);
  }
  IQ_ASSERT(out.size() == 36, "size={}", out.size());
  return out;
}

int32_t ProcessId::java_hash_code() const {
  const uint64_t hilo =
      static_cast<uint64_t>(most_sig_bits_) ^ static_cast<uint64_t>(least_sig_bits_);
  return static_cast<int32_t>(static_cast<uint32_t>(hilo >> 32) ^ static_cast<uint32_t>(hilo));
}

}  // namespace iq
