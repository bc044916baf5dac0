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
// The window and session shapes slot in beside these.

#include <memory>
#include <string>

#include "iq/topology_config.h"
#include "state/caching_key_value_store.h"
#include "state/stores.h"
#include "state/versioned_stores.h"

namespace iq {

// One task's instance of a topology: its store stack and its processor.
class TaskTopology {
 public:
  explicit TaskTopology(const TopologyConfig& config);

  const TopologyConfig& config() const { return config_; }
  StateStore& store() { return *store_; }
  // Ownership of the store stack stays here; the state manager registers it by reference.

  // The caching layer of the store stack, if the store is cached.
  CachingKeyValueStore* caching_layer();

  // Process one input record; the caller has installed its record context.
  [[nodiscard]] Status process(const ConsumerRecord& record);

 private:
  Status process_table(int32_t key, const std::optional<int64_t>& value, int64_t timestamp);
  Status process_aggregate(int32_t key, int64_t value, int64_t timestamp);
  Status process_papi(int32_t key, const std::optional<int64_t>& value);
  Status process_versioned_table(int32_t key, const std::optional<int64_t>& value,
                                 int64_t timestamp);

  TopologyConfig config_;
  std::unique_ptr<StateStore> store_;
  MeteredTimestampedKeyValueStore<int32_t, int64_t>* timestamped_ = nullptr;
  MeteredKeyValueStore<int32_t, int64_t>* plain_ = nullptr;
  MeteredVersionedKeyValueStore<int32_t, int64_t>* versioned_ = nullptr;
};

}  // namespace iq
