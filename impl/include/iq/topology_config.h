#pragma once
// What application a cluster runs, as plain values: the topology's shape, its one source topic
// and its one store (the supplier, caching, logging). The runtime builds it (topology/topologies.h,
// state/stores.h); the recorded trace carries it, so that the checks know what the store was
// without linking the runtime.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace iq {

// The supplier kinds of IQv2StoreIntegrationTest's key-value store types.
enum class KeyValueSupplier {
  kInMemory,            // Stores.inMemoryKeyValueStore
  kLruMap,              // Stores.lruMap(name, max entries)
  kRocksDb,             // Stores.persistentKeyValueStore
  kRocksDbTimestamped,  // Stores.persistentTimestampedKeyValueStore
};

inline const char* to_string(KeyValueSupplier s) {
  switch (s) {
    case KeyValueSupplier::kInMemory:
      return "in_memory";
    case KeyValueSupplier::kLruMap:
      return "lru";
    case KeyValueSupplier::kRocksDb:
      return "rocksdb";
    case KeyValueSupplier::kRocksDbTimestamped:
      return "rocksdb_timestamped";
  }
  return "?";
}

// The registered topologies (topology/topologies.h says what each does). The windowed and session
// shapes store into a window or session store; their supplier is read from `supplier` as the
// backing: kInMemory (Stores.inMemoryWindowStore / inMemorySessionStore), kRocksDb
// (persistentWindowStore / persistentSessionStore) or kRocksDbTimestamped
// (persistentTimestampedWindowStore; a session store has no timestamped form). kLruMap has no
// window or session form.
enum class TopologyKind {
  SourceTable,
  Count,
  Sum,
  PapiWriter,
  VersionedTable,
  WindowedCount,      // groupByKey().windowedBy(TimeWindows).count()
  WindowedSum,        // groupByKey().windowedBy(TimeWindows).aggregate(0, agg + v)
  SessionCount,       // groupByKey().windowedBy(SessionWindows).count()
  SessionSum,         // groupByKey().windowedBy(SessionWindows).aggregate(0, agg + v, a + b)
  WindowPapiWriter,   // a Processor put()ting each record into its window [floor(ts/size)*size)
  SessionPapiWriter,  // a Processor put()ting each record as a session [ts, ts]
  // A Processor over Stores.versionedKeyValueStoreBuilder: put(key, value, ts) for each record,
  // VersionedKeyValueStore#delete(key, ts) for a null value.
  VersionedPapiWriter,
};

inline const char* to_string(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::SourceTable:
      return "SourceTable";
    case TopologyKind::Count:
      return "Count";
    case TopologyKind::Sum:
      return "Sum";
    case TopologyKind::PapiWriter:
      return "PapiWriter";
    case TopologyKind::VersionedTable:
      return "VersionedTable";
    case TopologyKind::WindowedCount:
      return "WindowedCount";
    case TopologyKind::WindowedSum:
      return "WindowedSum";
    case TopologyKind::SessionCount:
      return "SessionCount";
    case TopologyKind::SessionSum:
      return "SessionSum";
    case TopologyKind::WindowPapiWriter:
      return "WindowPapiWriter";
    case TopologyKind::SessionPapiWriter:
      return "SessionPapiWriter";
    case TopologyKind::VersionedPapiWriter:
      return "VersionedPapiWriter";
  }
  return "?";
}

struct TopologyConfig {
  TopologyKind kind = TopologyKind::SourceTable;
  std::string source_topic = "input-topic";
  int32_t source_partitions = 1;
  std::string store_name = "kv-store";
  KeyValueSupplier supplier = KeyValueSupplier::kRocksDbTimestamped;
  bool caching = true;  // Kafka's default for DSL stores
  bool logging = true;
  int64_t lru_max_entries = 1000;  // Stores.lruMap(name, maxCacheSize), when supplier is kLruMap
  // VersionedTable and VersionedPapiWriter only: Stores.persistentVersionedKeyValueStore(name,
  // historyRetention[, segmentInterval]); the supplier is then ignored (the store is always the
  // RocksDB versioned one) and so is caching (Kafka's materializer refuses caching for versioned
  // stores).
  int64_t history_retention_ms = 60'000;
  std::optional<int64_t> segment_interval_ms;  // nullopt: the supplier's default for the retention

  // Window topologies: TimeWindows.ofSizeAndGrace(size, grace).advanceBy(advance); nullopt
  // advance is a tumbling window (advance = size), and a grace of 0 is ofSizeWithNoGrace.
  int64_t window_size_ms = 300'000;
  std::optional<int64_t> window_advance_ms;
  int64_t grace_ms = 0;
  // Session topologies: SessionWindows.ofInactivityGapAndGrace(gap, grace).
  int64_t session_gap_ms = 60'000;
  // The window or session store's retention: nullopt is the DSL's default when Materialized
  // names none (size + grace for windows, gap + grace for sessions, as TimeWindowedKStreamImpl
  // and SessionWindowedKStreamImpl materialize). The PAPI writers require it set.
  std::optional<int64_t> window_retention_ms;
  // WindowPapiWriter only: Stores.*WindowStore(..., retainDuplicates).
  bool retain_duplicates = false;

  // DSL stores are built with the timestamped builder; the key-value PAPI writer uses the plain
  // one. The window PAPI writer is IQv2StoreIntegrationTest's: the plain builder over
  // Stores.persistentWindowStore (kRocksDb), the timestamped builder (putting
  // ValueAndTimestamp(value, record timestamp)) over every other supplier. Session stores are
  // never timestamped.
  bool timestamped() const {
    if (kind == TopologyKind::WindowPapiWriter) return supplier != KeyValueSupplier::kRocksDb;
    return kind != TopologyKind::PapiWriter && !session();
  }
  bool versioned() const {
    return kind == TopologyKind::VersionedTable || kind == TopologyKind::VersionedPapiWriter;
  }
  bool windowed() const {
    return kind == TopologyKind::WindowedCount || kind == TopologyKind::WindowedSum ||
           kind == TopologyKind::WindowPapiWriter;
  }
  bool session() const {
    return kind == TopologyKind::SessionCount || kind == TopologyKind::SessionSum ||
           kind == TopologyKind::SessionPapiWriter;
  }
  int64_t effective_window_advance_ms() const { return window_advance_ms.value_or(window_size_ms); }
  int64_t effective_window_retention_ms() const {
    if (window_retention_ms) return *window_retention_ms;
    return (session() ? session_gap_ms : window_size_ms) + grace_ms;
  }
  // The segment interval the versioned store runs with: the given one, or Kafka's default for the
  // history retention (RocksDbVersionedKeyValueBytesStoreSupplier.defaultSegmentInterval).
  int64_t effective_segment_interval_ms() const {
    if (segment_interval_ms) return *segment_interval_ms;
    const int64_t r = history_retention_ms;
    if (r <= 60'000) return std::max<int64_t>(r / 3, 2'000);
    if (r <= 300'000) return std::max<int64_t>(r / 5, 20'000);
    if (r <= 3'600'000) return std::max<int64_t>(r / 12, 60'000);
    return std::max<int64_t>(r / 24, 300'000);
  }
  // Whether a caching layer sits in the store stack: never over a versioned store.
  bool cached() const { return caching && !versioned(); }
  bool operator==(const TopologyConfig&) const = default;
};

}  // namespace iq
