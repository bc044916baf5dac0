#pragma once
// Keys as a key-value store sees them: serialized bytes, ordered the way Kafka's Bytes comparator
// orders them (unsigned bytes, lexicographic, a prefix before every longer key it starts).

#include <cstdint>
#include <string>
#include <string_view>

namespace iq::model {

using KeyBytes = std::string;

// Negative, zero or positive like memcmp. Written out instead of relying on std::string's
// operator< so that the order is visibly Kafka's (Bytes.BYTES_LEXICO_COMPARATOR compares bytes as
// unsigned values) and not an accident of char_traits.
int compare_key_bytes_general(std::string_view a, std::string_view b);
// Every map of the model orders keys with this, and nearly every key is a serialized int32: two
// 4-byte keys compare as their big-endian unsigned values (the same unsigned, lexicographic byte
// order), inline and without a memcmp call. Any other length takes the general comparison.
inline int compare_key_bytes(std::string_view a, std::string_view b) {
  if (a.size() == 4 && b.size() == 4) {
    const auto be = [](std::string_view k) {
      return static_cast<uint32_t>(static_cast<unsigned char>(k[0])) << 24 |
             static_cast<uint32_t>(static_cast<unsigned char>(k[1])) << 16 |
             static_cast<uint32_t>(static_cast<unsigned char>(k[2])) << 8 |
             static_cast<uint32_t>(static_cast<unsigned char>(k[3]));
    };
    const uint32_t x = be(a);
    const uint32_t y = be(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  return compare_key_bytes_general(a, b);
}

struct KeyBytesLess {
  bool operator()(std::string_view a, std::string_view b) const {
    return compare_key_bytes(a, b) < 0;
  }
};

// Big-endian two's complement, 4 bytes, as Kafka's IntegerSerializer writes it. So negative keys
// sort after every non-negative key.
KeyBytes serialize_int32_key(int32_t key);
int32_t deserialize_int32_key(std::string_view bytes);

// "0x0000002a": keys appear in failure messages, and raw bytes would not print.
std::string key_to_hex(std::string_view bytes);

}  // namespace iq::model
