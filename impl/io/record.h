#pragma once
// Records as the broker seam carries them: a changelog or source record with Kafka's headers.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "iq/bytes.h"

namespace iq {

struct Header {
  std::string key;
  Bytes value;
  friend bool operator==(const Header&, const Header&) = default;
};
using Headers = std::vector<Header>;

// Kafka's Headers.lastHeader(key).
inline const Header* last_header(const Headers& headers, std::string_view key) {
  for (auto it = headers.rbegin(); it != headers.rend(); ++it) {
    if (it->key == key) return &*it;
  }
  return nullptr;
}

struct ConsumerRecord {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp = 0;
  std::optional<Bytes> key;
  std::optional<Bytes> value;  // nullopt: a tombstone
  Headers headers;
};

}  // namespace iq
