#pragma once
// The window store suppliers and builders (S/state/Stores.java, SI/WindowStoreBuilder.java,
// SI/TimestampedWindowStoreBuilder.java): which layers a window store gets, outermost first:
//   plain:        MeteredWindowStore -> [CachingWindowStore] -> [ChangeLoggingWindowBytesStore]
//                 -> supplier store
//   timestamped:  MeteredTimestampedWindowStore -> [CachingWindowStore]
//                 -> [ChangeLoggingTimestampedWindowBytesStore] -> the supplier store, under
//                 the in-memory marker or the persistent adapter when it is not timestamped
// Caching is switched off when the supplier retains duplicates, as both builders do.

#include <memory>

#include "state/caching_window_store.h"
#include "state/change_logging_window_bytes_store.h"
#include "state/in_memory_window_store.h"
#include "state/metered_window_store.h"
#include "state/rocksdb_window_store.h"
#include "state/stores.h"
#include "state/timestamped_window_adapter.h"

namespace iq {

// The window supplier kinds.
enum class WindowSupplier {
  kInMemory,           // Stores.inMemoryWindowStore
  kRocksDB,            // Stores.persistentWindowStore
  kRocksDBTimestamped  // Stores.persistentTimestampedWindowStore
};

inline const char* to_string(WindowSupplier s) {
  switch (s) {
    case WindowSupplier::kInMemory:
      return "in_memory";
    case WindowSupplier::kRocksDB:
      return "rocksdb";
    case WindowSupplier::kRocksDBTimestamped:
      return "rocksdb_timestamped";
  }
  return "?";
}

struct WindowStoreOptions {
  int64_t retention_period_ms = 24 * 60 * 60 * 1000;  // IQv2StoreIntegrationTest: 1 day
  int64_t window_size_ms = 5 * 60 * 1000;             // and 5 minutes
  bool retain_duplicates = false;
  // The RocksDB suppliers' segment interval; 0 takes Stores' default, max(retention / 2, 60 s).
  int64_t segment_interval_ms = 0;
};

namespace stores {

// Stores.inMemoryWindowStore's argument checks, as values (Kafka throws IllegalArgumentException).
inline Status validate_window_options(const WindowStoreOptions& w) {
  auto illegal = [](std::string m) {
    return base::unexpected(StreamsError{StreamsError::Kind::IllegalArgument, std::move(m)});
  };
  if (w.retention_period_ms < 0) return illegal("retentionPeriod cannot be negative");
  if (w.window_size_ms < 0) return illegal("windowSize cannot be negative");
  if (w.segment_interval_ms < 0) return illegal("segmentInterval cannot be zero or negative");
  if (w.window_size_ms > w.retention_period_ms) {
    return illegal(
        "The retention period of the window store must be no smaller than its window "
        "size. Got size=[" +
        std::to_string(w.window_size_ms) + "], retention=[" +
        std::to_string(w.retention_period_ms) + "]");
  }
  return ok_status();
}

// The supplier's store, and its segmentIntervalMs (the record cache's segment width).
inline std::pair<std::unique_ptr<WindowBytesStore>, int64_t> supply_window(
    WindowSupplier s, const std::string& name, const WindowStoreOptions& w) {
  IQ_ASSERT(validate_window_options(w).has_value(), "invalid window options for {}", name);
  switch (s) {
    case WindowSupplier::kInMemory:
      return {std::make_unique<InMemoryWindowStore>(name, w.retention_period_ms, w.window_size_ms,
                                                    w.retain_duplicates),
              /*segment_interval_ms=*/1};
    case WindowSupplier::kRocksDB:
    case WindowSupplier::kRocksDBTimestamped: {
      const int64_t interval =
          w.segment_interval_ms > 0
              ? w.segment_interval_ms
              : RocksDBWindowStore::default_segment_interval_ms(w.retention_period_ms);
      if (s == WindowSupplier::kRocksDB) {
        return {std::make_unique<RocksDBWindowStore>(name, w.retention_period_ms, interval,
                                                     w.window_size_ms, w.retain_duplicates),
                interval};
      }
      return {std::make_unique<RocksDBTimestampedWindowStore>(
                  name, w.retention_period_ms, interval, w.window_size_ms, w.retain_duplicates),
              interval};
    }
  }
  IQ_ASSERT(false, "unknown window supplier");
  return {nullptr, 1};
}

// Stores.windowStoreBuilder(...).build()
template <typename K, typename V>
std::unique_ptr<MeteredWindowStore<K, V>> window_store(WindowSupplier s, const std::string& name,
                                                       const WindowStoreOptions& w,
                                                       const StoreBuilderOptions& o) {
  auto [store, segment_interval_ms] = supply_window(s, name, w);
  if (o.logging)
    store = std::make_unique<ChangeLoggingWindowBytesStore>(std::move(store), w.retain_duplicates);
  if (o.caching && !w.retain_duplicates) {
    store = std::make_unique<CachingWindowStore>(std::move(store), w.window_size_ms,
                                                 segment_interval_ms);
  }
  return std::make_unique<MeteredWindowStore<K, V>>(std::move(store));
}

// Stores.timestampedWindowStoreBuilder(...).build(), also what every DSL windowed aggregation
// gets. A non-timestamped in-memory supplier gets the marker, a non-timestamped persistent one
// (kRocksDB) WindowToTimestampedWindowByteStoreAdapter, whose stack IQv2 sees as plain (quirk 24).
template <typename K, typename V>
std::unique_ptr<MeteredTimestampedWindowStore<K, V>> timestamped_window_store(
    WindowSupplier s, const std::string& name, const WindowStoreOptions& w,
    const StoreBuilderOptions& o) {
  auto [store, segment_interval_ms] = supply_window(s, name, w);
  if (!store->is_timestamped()) {
    if (store->persistent()) {
      store = std::make_unique<WindowToTimestampedWindowByteStoreAdapter>(std::move(store));
    } else {
      store = std::make_unique<InMemoryTimestampedWindowStoreMarker>(std::move(store));
    }
  }
  if (o.logging) {
    store = std::make_unique<ChangeLoggingTimestampedWindowBytesStore>(std::move(store),
                                                                       w.retain_duplicates);
  }
  if (o.caching && !w.retain_duplicates) {
    store = std::make_unique<CachingWindowStore>(std::move(store), w.window_size_ms,
                                                 segment_interval_ms);
  }
  return std::make_unique<MeteredTimestampedWindowStore<K, V>>(std::move(store));
}

}  // namespace stores
}  // namespace iq
