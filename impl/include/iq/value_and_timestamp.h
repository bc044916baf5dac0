#pragma once
#include <cstdint>
#include <string>

#include "iq/query.h"

namespace iq {

// ValueAndTimestamp<V>: the value a timestamped store keeps, with its record timestamp. A plain
// RocksDB store behind the DSL's adapter reads back with timestamp -1 (docs/iqv2-semantics.md §4).
template <typename V>
struct ValueAndTimestamp {
  V value;
  int64_t timestamp;
  friend bool operator==(const ValueAndTimestamp&, const ValueAndTimestamp&) = default;
};

template <typename V>
std::string display(const ValueAndTimestamp<V>& vt) {
  return "ValueAndTimestamp[" + display(vt.value) + "," + std::to_string(vt.timestamp) + "]";
}

}  // namespace iq
