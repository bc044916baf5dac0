#pragma once
// KeyValueIterator<K, V>: the entries a range query returns, in the order the store produced them.
//
// Kafka's iterators are lazy and some are not point-in-time (docs/iqv2-semantics.md §4). iqsim runs
// every query to completion inside one event of a single-threaded world, so no write can land
// between a query and the iteration of its result; the entries are therefore materialized when
// the query runs. `origin` records which store iterator produced them, because the DSL adapter's
// ClassCastException quirk depends on it (2.3). A typed layer's range is materialized once: the
// store hands its entries to the typed layer's decoder as it iterates (raw_sinks.h).

#include <vector>

#include "iq/bytes.h"

namespace iq {

enum class IteratorOrigin {
  RocksDbIterator,
  EmptyIterator,
  InMemoryIterator,
  TreeMapSnapshot,
  // KIP-892 (the 2026-08-20 pin): a transactional store's READ_UNCOMMITTED range, the staged
  // writes merged over the base (StagedMergeIterator, a ManagedKeyValueIterator).
  StagedMergeIterator,
  Converted
};

template <typename K, typename V>
struct KeyValueIterator {
  std::vector<KeyValue<K, V>> entries;
  IteratorOrigin origin = IteratorOrigin::Converted;
};

}  // namespace iq
