#include "model/key_bytes.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "base/assert.h"

namespace iq::model {

int compare_key_bytes_general(std::string_view a, std::string_view b) {
  const size_t common = std::min(a.size(), b.size());
  // memcmp compares as unsigned char, which is exactly the Bytes comparator's per-byte rule.
  const int by_bytes = common == 0 ? 0 : std::memcmp(a.data(), b.data(), common);
  if (by_bytes != 0) return by_bytes;
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

KeyBytes serialize_int32_key(int32_t key) {
  const auto bits = static_cast<uint32_t>(key);
  KeyBytes bytes(4, '\0');
  for (int i = 0; i < 4; ++i) {
    bytes[static_cast<size_t>(i)] = static_cast<char>((bits >> (24 - 8 * i)) & 0xffU);
  }
  IQ_ASSERT(deserialize_int32_key(bytes) == key, "key={}", key);
  return bytes;
}

int32_t deserialize_int32_key(std::string_view bytes) {
  IQ_ASSERT(bytes.size() == 4, "an int32 key has 4 bytes, got {}", bytes.size());
  uint32_t bits = 0;
  for (const char byte : bytes) bits = (bits << 8) | static_cast<unsigned char>(byte);
  return static_cast<int32_t>(bits);
}

std::string key_to_hex(std::string_view bytes) {
  std::string hex = "0x";
  for (const char byte : bytes) hex += fmt::format("{:02x}", static_cast<unsigned char>(byte));
  return hex;
}

}  // namespace iq::model
