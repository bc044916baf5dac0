#pragma once
// Serdes as Kafka's built-ins write them (big-endian integers), and the ValueAndTimestamp byte
// layout: [8-byte big-endian timestamp][value bytes] (ValueAndTimestampSerializer).

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/assert.h"
#include "iq/bytes.h"
#include "iq/value_and_timestamp.h"

namespace iq {

namespace serde_detail {
template <typename U>
std::string to_big_endian(U v) {
  std::string out(sizeof(U), '\0');
  for (size_t i = 0; i < sizeof(U); ++i) {
    out[sizeof(U) - 1 - i] = static_cast<char>(v & 0xFF);
    v = static_cast<U>(v >> 8);
  }
  return out;
}
// One load and one byte swap for the integer sizes (every query decodes keys, values and
// timestamps through here); the byte loop for any other size.
template <typename U>
U from_big_endian(std::string_view b) {
  IQ_ASSERT(b.size() == sizeof(U), "expected {} bytes, got {}", sizeof(U), b.size());
  static_assert(std::is_unsigned_v<U>);
  U v = 0;
  if constexpr (std::endian::native == std::endian::little && sizeof(U) == 8) {
    std::memcpy(&v, b.data(), sizeof(U));
    v = static_cast<U>(__builtin_bswap64(v));
  } else if constexpr (std::endian::native == std::endian::little && sizeof(U) == 4) {
    std::memcpy(&v, b.data(), sizeof(U));
    v = static_cast<U>(__builtin_bswap32(v));
  } else {
    for (unsigned char c : b) v = static_cast<U>((v << 8) | c);
  }
  return v;
}
}  // namespace serde_detail

template <typename T>
struct Serde;

template <>
struct Serde<int32_t> {  // IntegerSerde
  static Bytes serialize(int32_t v) {
    return Bytes(serde_detail::to_big_endian(static_cast<uint32_t>(v)));
  }
  static int32_t deserialize(const Bytes& b) { return deserialize(b.view()); }
  static int32_t deserialize(std::string_view b) {
    return static_cast<int32_t>(serde_detail::from_big_endian<uint32_t>(b));
  }
  // IntegerDeserializer's SerializationException message for bytes of another size.
  static std::optional<std::string> size_error(const Bytes& b) { return size_error(b.view()); }
  static std::optional<std::string> size_error(std::string_view b) {
    if (b.size() == 4) return std::nullopt;
    return "Size of data received by IntegerDeserializer is not 4";
  }
  static constexpr const char* kName = "IntegerSerde";
};

template <>
struct Serde<int64_t> {  // LongSerde
  static Bytes serialize(int64_t v) {
    return Bytes(serde_detail::to_big_endian(static_cast<uint64_t>(v)));
  }
  static int64_t deserialize(const Bytes& b) { return deserialize(b.view()); }
  static int64_t deserialize(std::string_view b) {
    return static_cast<int64_t>(serde_detail::from_big_endian<uint64_t>(b));
  }
  // LongDeserializer's SerializationException message for bytes of another size.
  static std::optional<std::string> size_error(const Bytes& b) { return size_error(b.view()); }
  static std::optional<std::string> size_error(std::string_view b) {
    if (b.size() == 8) return std::nullopt;
    return "Size of data received by LongDeserializer is not 8";
  }
  static constexpr const char* kName = "LongSerde";
};

template <>
struct Serde<std::string> {  // StringSerde (UTF-8)
  static Bytes serialize(const std::string& v) { return Bytes(v); }
  static std::string deserialize(const Bytes& b) { return b.get(); }
  static std::string deserialize(std::string_view b) { return std::string(b); }
  static std::optional<std::string> size_error(const Bytes&) { return std::nullopt; }  // any size
  static std::optional<std::string> size_error(std::string_view) { return std::nullopt; }
  static constexpr const char* kName = "StringSerde";
};

// ValueAndTimestamp bytes and the helpers Kafka keeps in ValueAndTimestampDeserializer and
// TimestampedBytesStore.
namespace timestamped_bytes {

inline constexpr int64_t kNoTimestamp = -1;

inline Bytes make(int64_t timestamp, const Bytes& raw_value) {
  return Bytes(serde_detail::to_big_endian(static_cast<uint64_t>(timestamp)) + raw_value.get());
}
inline ValueBytes make(int64_t timestamp, const ValueBytes& raw_value) {
  if (!raw_value) return std::nullopt;
  return make(timestamp, *raw_value);
}
inline int64_t timestamp(std::string_view value_and_timestamp) {
  IQ_ASSERT(value_and_timestamp.size() >= 8, "timestamped value of {} bytes",
            value_and_timestamp.size());
  return static_cast<int64_t>(
      serde_detail::from_big_endian<uint64_t>(value_and_timestamp.substr(0, 8)));
}
inline int64_t timestamp(const Bytes& value_and_timestamp) {
  return timestamp(value_and_timestamp.view());
}
// The value's bytes after the timestamp, as a view of `value_and_timestamp`.
inline std::string_view raw_value_view(const Bytes& value_and_timestamp) {
  IQ_ASSERT(value_and_timestamp.size() >= 8, "timestamped value of {} bytes",
            value_and_timestamp.size());
  return value_and_timestamp.view().substr(8);
}
inline Bytes raw_value(const Bytes& value_and_timestamp) {
  return Bytes(std::string(raw_value_view(value_and_timestamp)));
}
inline ValueBytes raw_value(const ValueBytes& value_and_timestamp) {
  if (!value_and_timestamp) return std::nullopt;
  return raw_value(*value_and_timestamp);
}
// TimestampedBytesStore.convertToTimestampedFormat: a plain value read back with timestamp -1.
inline ValueBytes convert_to_timestamped_format(const ValueBytes& plain) {
  return make(kNoTimestamp, plain);
}

}  // namespace timestamped_bytes

// The value is read through a view of the bytes after the timestamp: no copy per entry of a
// range (the Serdes above deserialize from a view too).
template <typename V>
ValueAndTimestamp<V> deserialize_value_and_timestamp(std::string_view b) {
  const int64_t timestamp = timestamped_bytes::timestamp(b);
  return {Serde<V>::deserialize(b.substr(8)), timestamp};
}
template <typename V>
ValueAndTimestamp<V> deserialize_value_and_timestamp(const Bytes& b) {
  return deserialize_value_and_timestamp<V>(b.view());
}

}  // namespace iq
