#pragma once
// The versioned store supplier and builder (S/state/Stores.java persistentVersionedKeyValueStore,
// SI/RocksDbVersionedKeyValueBytesStoreSupplier.java, SI/VersionedKeyValueStoreBuilder.java):
//   MeteredVersionedKeyValueStore -> [ChangeLoggingVersionedKeyValueBytesStore]
//   -> VersionedKeyValueToBytesStoreAdapter -> RocksDBVersionedStore
// No caching layer: Kafka's builder has none and throws on withCachingEnabled.

#include <memory>
#include <optional>

#include "state/metered_versioned_key_value_store.h"
#include "state/rocksdb_versioned_store.h"
#include "state/versioned_store.h"

namespace iq {

struct VersionedStoreOptions {
  int64_t history_retention_ms = 24 * 60 * 60 * 1000;  // IQv2VersionedStoreIntegrationTest: 1 day
  // nullopt: the supplier's default for the history retention (default_segment_interval_ms).
  std::optional<int64_t> segment_interval_ms;
  bool logging = true;  // withLoggingEnabled (Kafka's default)
};

namespace stores {

// RocksDbVersionedKeyValueBytesStoreSupplier.defaultSegmentInterval.
inline int64_t default_segment_interval_ms(int64_t history_retention_ms) {
  if (history_retention_ms <= 60'000) return std::max<int64_t>(history_retention_ms / 3, 2'000);
  if (history_retention_ms <= 300'000) return std::max<int64_t>(history_retention_ms / 5, 20'000);
  if (history_retention_ms <= 3'600'000)
    return std::max<int64_t>(history_retention_ms / 12, 60'000);
  return std::max<int64_t>(history_retention_ms / 24, 300'000);
}

// Stores.persistentVersionedKeyValueStore's argument checks, as values (Kafka throws
// IllegalArgumentException).
inline Status validate_versioned_options(const VersionedStoreOptions& v) {
  auto illegal = [](const char* m) {
    return base::unexpected(StreamsError{StreamsError::Kind::IllegalArgument, m});
  };
  if (v.history_retention_ms < 0) return illegal("historyRetention cannot be negative");
  if (v.segment_interval_ms && *v.segment_interval_ms < 1)
    return illegal("segmentInterval cannot be zero or negative");
  return ok_status();
}

// Stores.versionedKeyValueStoreBuilder(persistentVersionedKeyValueStore(...)).build()
template <typename K, typename V>
std::unique_ptr<MeteredVersionedKeyValueStore<K, V>> versioned_key_value_store(
    const std::string& name, const VersionedStoreOptions& v) {
  IQ_ASSERT(validate_versioned_options(v).has_value(), "invalid versioned options for {}", name);
  const int64_t interval_ms =
      v.segment_interval_ms.value_or(default_segment_interval_ms(v.history_retention_ms));
  std::unique_ptr<VersionedBytesStore> store =
      std::make_unique<VersionedKeyValueToBytesStoreAdapter>(
          std::make_unique<RocksDBVersionedStore>(name, v.history_retention_ms, interval_ms));
  if (v.logging)
    store = std::make_unique<ChangeLoggingVersionedKeyValueBytesStore>(std::move(store));
  return std::make_unique<MeteredVersionedKeyValueStore<K, V>>(std::move(store));
}

}  // namespace stores
}  // namespace iq
