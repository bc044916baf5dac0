#pragma once
// Stores and the key-value store builders (S/state/Stores.java, SI/KeyValueStoreBuilder.java,
// SI/TimestampedKeyValueStoreBuilder.java): which layers a store gets, outermost first:
//   plain:        MeteredKeyValueStore -> [Caching(false)] -> [ChangeLogging] -> supplier store
//   timestamped:  MeteredTimestampedKeyValueStore -> [Caching(true)] -> [ChangeLoggingTimestamped]
//                 -> supplier store if timestamped, else the adapter (persistent) or the marker

#include <memory>

#include "state/caching_key_value_store.h"
#include "state/change_logging_key_value_bytes_store.h"
#include "state/in_memory_key_value_store.h"
#include "state/memory_navigable_lru_cache.h"
#include "state/metered_key_value_store.h"
#include "state/rocksdb_store.h"
#include "state/rocksdb_timestamped_store.h"
#include "iq/topology_config.h"
#include "state/timestamped_adapters.h"

namespace iq {

struct StoreBuilderOptions {
  bool caching = false;  // withCachingEnabled
  bool logging = true;   // withLoggingEnabled (Kafka's default)
  int64_t lru_max_entries = 100;
};

namespace stores {

inline std::unique_ptr<KeyValueBytesStore> supply(KeyValueSupplier s, const std::string& name,
                                                  const StoreBuilderOptions& o) {
  switch (s) {
    case KeyValueSupplier::kInMemory:
      return std::make_unique<InMemoryKeyValueStore>(name);
    case KeyValueSupplier::kLruMap:
      return std::make_unique<MemoryNavigableLRUCache>(name, o.lru_max_entries);
    case KeyValueSupplier::kRocksDb:
      return std::make_unique<RocksDBStore>(name);
    case KeyValueSupplier::kRocksDbTimestamped:
      return std::make_unique<RocksDBTimestampedStore>(name);
  }
  IQ_ASSERT(false, "unknown supplier");
  return nullptr;
}

// Stores.keyValueStoreBuilder(...).build()
template <typename K, typename V>
std::unique_ptr<MeteredKeyValueStore<K, V>> key_value_store(KeyValueSupplier s,
                                                            const std::string& name,
                                                            const StoreBuilderOptions& o) {
  std::unique_ptr<KeyValueBytesStore> store = supply(s, name, o);
  if (o.logging) store = std::make_unique<ChangeLoggingKeyValueBytesStore>(std::move(store));
  if (o.caching)
    store = std::make_unique<CachingKeyValueStore>(std::move(store), /*timestamped_schema=*/false);
  return std::make_unique<MeteredKeyValueStore<K, V>>(std::move(store));
}

// Stores.timestampedKeyValueStoreBuilder(...).build(), also what every DSL KTable gets.
template <typename K, typename V>
std::unique_ptr<MeteredTimestampedKeyValueStore<K, V>> timestamped_key_value_store(
    KeyValueSupplier s, const std::string& name, const StoreBuilderOptions& o) {
  std::unique_ptr<KeyValueBytesStore> store = supply(s, name, o);
  if (!store->is_timestamped()) {
    if (store->persistent()) {
      store = std::make_unique<KeyValueToTimestampedKeyValueByteStoreAdapter>(std::move(store));
    } else {
      store = std::make_unique<InMemoryTimestampedKeyValueStoreMarker>(std::move(store));
    }
  }
  if (o.logging)
    store = std::make_unique<ChangeLoggingTimestampedKeyValueBytesStore>(std::move(store));
  if (o.caching)
    store = std::make_unique<CachingKeyValueStore>(std::move(store), /*timestamped_schema=*/true);
  return std::make_unique<MeteredTimestampedKeyValueStore<K, V>>(std::move(store));
}

}  // namespace stores
}  // namespace iq
