#pragma once
// Windowed<K> (org.apache.kafka.streams.kstream.Windowed) with its window's bounds: a window
// store's TimeWindow [start, end) or a session store's SessionWindow [start, end]. The window kind
// is not kept: which one it is follows from the store that produced it.

#include <cstdint>
#include <string>

#include "iq/query.h"

namespace iq {

template <typename K>
struct Windowed {
  K key;
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  friend bool operator==(const Windowed&, const Windowed&) = default;
  // Windowed.toString: "[key@start/end]".
  std::string to_string() const {
    return "[" + display(key) + "@" + std::to_string(start_ms) + "/" + std::to_string(end_ms) + "]";
  }
};

}  // namespace iq
