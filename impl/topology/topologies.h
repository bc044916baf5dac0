#pragma once
// The registered topologies: a few shapes that cover the key-value store family, each a few lines
// on top of the runtime rather than a general DSL. Every one has a single subtopology (0) reading
// one source topic (IntegerSerde keys, LongSerde values) into one store:
//   SourceTable  builder.table(topic, Materialized.as(store))     latest value, tombstones delete
//   Count        stream.groupByKey().count(Materialized.as(store)) null keys/values dropped
//   Sum          stream.groupByKey().aggregate(() -> 0L, (k, v, agg) -> agg + v, ...)
//   PapiWriter   a Processor that put()s each record, and delete()s on a null value
//   VersionedTable builder.table(topic, Materialized.as(Stores.persistentVersionedKeyValueStore(
//                store, historyRetention[, segmentInterval])))   each record a version at its
//                timestamp, out-of-order ones included; a null value a tombstone version; a
//                record older than the history retention behind the store's observed stream
//                time is dropped (the store's grace is its history retention). No caching layer.
//   VersionedPapiWriter a Processor over Stores.versionedKeyValueStoreBuilder(the same supplier):
//                put(key, value, ts) for each record, delete(key, ts) for a null value (the
//                versioned table writes put(key, null, ts) instead). The store and history are the
//                versioned table's; a delete older than the grace is dropped without a position
//                update (quirk 14).
// The window and session shapes (TopologyConfig's window_*/grace/session_gap settings):
//   WindowedCount / WindowedSum  stream.groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(size,
//                grace)[.advanceBy(advance)]).count() / .aggregate(() -> 0L, (k, v, agg) ->
//                agg + v) (KStreamWindowAggregate), over Stores.timestampedWindowStoreBuilder of
//                the supplier (no duplicates, retention window_retention_ms or size + grace). A
//                null value counts (only a null key is skipped at this commit) and adds 0 to a sum.
//   SessionCount / SessionSum    stream.groupByKey().windowedBy(SessionWindows.
//                ofInactivityGapAndGrace(gap, grace)).count() / .aggregate(0, agg + v, a + b)
//                (KStreamSessionWindowAggregate) over Stores.sessionStoreBuilder; null values
//                likewise count and add 0.
//   WindowPapiWriter  IQv2StoreIntegrationTest's processor: put(key, value, floor(ts / size) *
//                size), latest value per window; a null value deletes the window. Plain builder
//                over kRocksDb, timestamped builder (ValueAndTimestamp(value, ts)) otherwise.
//   SessionPapiWriter put(Windowed(key, [ts, ts]), value): every record its own session; a null
//                value removes that session.
// The DSL processors' observed stream time (window close = stream time - grace) is a field of the
// processor, as in Kafka: it starts at -1 with the TaskTopology and travels with it when a task is
// recycled (Kafka hands the same ProcessorTopology to the recycled task), but a task created anew
// (a restart, a reassignment back) starts again at -1 and accepts records its predecessor would
// have dropped as late (docs/iqv2-semantics.md quirk 25).

#include <memory>
#include <string>

#include "iq/topology_config.h"
#include "state/caching_key_value_store.h"
#include "state/session_stores.h"
#include "state/stores.h"
#include "state/versioned_stores.h"
#include "state/window_stores.h"

namespace iq {

// One task's instance of a topology: its store stack and its processor.
class TaskTopology {
 public:
  explicit TaskTopology(const TopologyConfig& config);

  const TopologyConfig& config() const { return config_; }
  StateStore& store() { return *store_; }
  // Ownership of the store stack stays here; the state manager registers it by reference.

  // The caching layer of a key-value store stack, if the store is a cached key-value store.
  CachingKeyValueStore* caching_layer();
  // Drop every cached entry of the store without writing it (any family's caching layer).
  void clear_cache();

  // The supplier kinds a window or session topology builds from its config's supplier.
  static WindowSupplier window_supplier(KeyValueSupplier s);
  static SessionSupplier session_supplier(KeyValueSupplier s);
  // The DSL processor's observed stream time (-1 before its first record; the PAPI writers keep
  // none).
  int64_t observed_stream_time_ms() const { return observed_stream_time_ms_; }

  // Process one input record; the caller has installed its record context.
  [[nodiscard]] Status process(const ConsumerRecord& record);

 private:
  Status process_table(int32_t key, const std::optional<int64_t>& value, int64_t timestamp);
  Status process_aggregate(int32_t key, int64_t value, int64_t timestamp);
  Status process_papi(int32_t key, const std::optional<int64_t>& value);
  Status process_versioned_papi(int32_t key, const std::optional<int64_t>& value,
                                int64_t timestamp);
  Status process_versioned_table(int32_t key, const std::optional<int64_t>& value,
                                 int64_t timestamp);
  void probe_window_grace_edge(int64_t timestamp, int64_t window_close_ms) const;
  Status process_window_aggregate(int32_t key, const std::optional<int64_t>& value,
                                  int64_t timestamp);
  Status process_session_aggregate(int32_t key, const std::optional<int64_t>& value,
                                   int64_t timestamp);
  Status process_window_papi(int32_t key, const std::optional<int64_t>& value, int64_t timestamp);
  Status process_session_papi(int32_t key, const std::optional<int64_t>& value, int64_t timestamp);
  void build_window_store(const StoreBuilderOptions& options);
  void build_session_store(const StoreBuilderOptions& options);
  int64_t aggregate_step(const std::optional<int64_t>& value) const;

  TopologyConfig config_;
  std::unique_ptr<StateStore> store_;
  MeteredTimestampedKeyValueStore<int32_t, int64_t>* timestamped_ = nullptr;
  MeteredKeyValueStore<int32_t, int64_t>* plain_ = nullptr;
  MeteredVersionedKeyValueStore<int32_t, int64_t>* versioned_ = nullptr;
  MeteredTimestampedWindowStore<int32_t, int64_t>* timestamped_window_ = nullptr;
  MeteredWindowStore<int32_t, int64_t>* plain_window_ = nullptr;
  MeteredSessionStore<int32_t, int64_t>* session_ = nullptr;
  // AbstractKStreamTimeWindowAggregateProcessor / KStreamSessionWindowAggregateProcessor's
  // observedStreamTime (ConsumerRecord.NO_TIMESTAMP until the first record).
  int64_t observed_stream_time_ms_ = -1;
};

// TopologyMetadata.hasPersistentStores: the topology's one store is RocksDB-backed (a versioned
// store always is; kInMemory and kLruMap are not, for windows and sessions too). Without a
// persistent store, StateDirectory takes no task locks.
inline bool has_persistent_stores(const TopologyConfig& topology) {
  return topology.versioned() || topology.supplier == KeyValueSupplier::kRocksDb ||
         topology.supplier == KeyValueSupplier::kRocksDbTimestamped;
}

}  // namespace iq
