#pragma once
// The session store suppliers and builder (S/state/Stores.java, SI/SessionStoreBuilder.java):
//   MeteredSessionStore -> [CachingSessionStore] -> [ChangeLoggingSessionBytesStore]
//   -> supplier store (InMemorySessionStore or RocksDBSessionStore)
// The caching layer's segment interval is the supplier's segmentIntervalMs: 1 for the in-memory
// supplier, max(retention / 2, 60 s) for the RocksDB one.

#include <memory>

#include "state/caching_session_store.h"
#include "state/change_logging_session_bytes_store.h"
#include "state/in_memory_session_store.h"
#include "state/metered_session_store.h"
#include "state/rocksdb_session_store.h"
#include "state/stores.h"

namespace iq {

enum class SessionSupplier {
  kInMemory,  // Stores.inMemorySessionStore
  kRocksDB,   // Stores.persistentSessionStore
};

inline const char* to_string(SessionSupplier s) {
  switch (s) {
    case SessionSupplier::kInMemory:
      return "in_memory";
    case SessionSupplier::kRocksDB:
      return "rocksdb";
  }
  return "?";
}

struct SessionStoreOptions {
  int64_t retention_period_ms = 24 * 60 * 60 * 1000;  // IQv2StoreIntegrationTest: 1 day
};

namespace stores {

// Stores.inMemorySessionStore / persistentSessionStore's argument check, as a value.
inline Status validate_session_options(const SessionStoreOptions& o) {
  if (o.retention_period_ms < 0) {
    return base::unexpected(
        StreamsError{StreamsError::Kind::IllegalArgument, "retentionPeriod cannot be negative"});
  }
  return ok_status();
}

// The supplier's store and its segmentIntervalMs.
inline std::pair<std::unique_ptr<SessionBytesStore>, int64_t> supply_session(
    SessionSupplier s, const std::string& name, const SessionStoreOptions& o) {
  IQ_ASSERT(validate_session_options(o).has_value(), "invalid session options for {}", name);
  switch (s) {
    case SessionSupplier::kInMemory:
      return {std::make_unique<InMemorySessionStore>(name, o.retention_period_ms), 1};
    case SessionSupplier::kRocksDB: {
      const int64_t interval =
          RocksDBSessionStore::default_segment_interval_ms(o.retention_period_ms);
      return {std::make_unique<RocksDBSessionStore>(name, o.retention_period_ms, interval),
              interval};
    }
  }
  IQ_ASSERT(false, "unknown session supplier");
  return {nullptr, 1};
}

// Stores.sessionStoreBuilder(supplier, keySerde, valueSerde).build(). Unlike the window builders,
// nothing switches caching off.
template <typename K, typename V>
std::unique_ptr<MeteredSessionStore<K, V>> session_store(SessionSupplier s, const std::string& name,
                                                         const SessionStoreOptions& so,
                                                         const StoreBuilderOptions& o) {
  auto [store, segment_interval_ms] = supply_session(s, name, so);
  if (o.logging) store = std::make_unique<ChangeLoggingSessionBytesStore>(std::move(store));
  if (o.caching)
    store = std::make_unique<CachingSessionStore>(std::move(store), segment_interval_ms);
  return std::make_unique<MeteredSessionStore<K, V>>(std::move(store));
}

}  // namespace stores
}  // namespace iq
