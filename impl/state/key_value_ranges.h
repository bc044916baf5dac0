#pragma once
// The inclusive range scan over a sorted map that the in-memory and LRU stores share, with
// Kafka's "from > to gives an empty iterator" rule.

#include <algorithm>
#include <iterator>
#include <map>

#include "state/state_store.h"

namespace iq::ranges {

inline bool inverted(const std::optional<Bytes>& from, const std::optional<Bytes>& to) {
  return from && to && *from > *to;
}

inline BytesIterator scan_sorted_map(const std::map<Bytes, Bytes>& map,
                                     const std::optional<Bytes>& from,
                                     const std::optional<Bytes>& to, bool reverse,
                                     IteratorOrigin origin) {
  // Kafka logs "Returning empty iterator for fetch with invalid key range: from > to ..." here.
  if (inverted(from, to)) return BytesIterator{{}, IteratorOrigin::EmptyIterator};
  auto first = from ? map.lower_bound(*from) : map.begin();
  auto last = to ? map.upper_bound(*to) : map.end();
  BytesIterator out{{}, origin};
  // Filled in the order asked for, with no reversing pass. Counting the entries first
  // (std::distance) walks the tree twice, which measured slower than the vector's regrowths; a
  // fixed first reserve, capped by the map's size, avoids both for a query's range of up to
  // kScanReserve entries (docs/performance.md).
  constexpr size_t kScanReserve = 128;
  if (first != last) out.entries.reserve(std::min(map.size(), kScanReserve));
  if (reverse) {
    for (auto it = std::make_reverse_iterator(last); it != std::make_reverse_iterator(first);
         ++it) {
      out.entries.push_back({it->first, it->second});
    }
  } else {
    for (auto it = first; it != last; ++it) out.entries.push_back({it->first, it->second});
  }
  return out;
}

}  // namespace iq::ranges
