#include "topology/topologies.h"

#include "base/probe.h"

#include "state/caching_key_value_store.h"

namespace iq {

TaskTopology::TaskTopology(const TopologyConfig& config) : config_(config) {
  const StoreBuilderOptions options{.caching = config.caching,
                                    .logging = config.logging,
                                    .lru_max_entries = config.lru_max_entries};
  if (config.versioned()) {
    // KeyValueStoreMaterializer: a versioned supplier gets versionedKeyValueStoreBuilder, and
    // caching is not enabled on it whatever Materialized says.
    VersionedStoreOptions versioned{.history_retention_ms = config.history_retention_ms,
                                    .segment_interval_ms = config.segment_interval_ms,
                                    .logging = config.logging};
    auto store = stores::versioned_key_value_store<int32_t, int64_t>(config.store_name, versioned);
    versioned_ = store.get();
    store_ = std::move(store);
  } else if (config.timestamped()) {
    auto store = stores::timestamped_key_value_store<int32_t, int64_t>(config.supplier,
                                                                       config.store_name, options);
    // The DSL forwards downstream on flush (TimestampedCacheFlushListener); with a listener set,
    // a flushed tombstone for a key absent below is neither written nor forwarded.
    if (auto* caching = dynamic_cast<CachingKeyValueStore*>(&store->wrapped())) {
      caching->set_flush_listener(
          [](const Bytes&, const ValueBytes&, const ValueBytes&, const RecordContext&) {},
          /*send_old_values=*/false);
    }
    timestamped_ = store.get();
    store_ = std::move(store);
  } else {
    auto store =
        stores::key_value_store<int32_t, int64_t>(config.supplier, config.store_name, options);
    plain_ = store.get();
    store_ = std::move(store);
  }
}

CachingKeyValueStore* TaskTopology::caching_layer() {
  if (versioned_ != nullptr) return nullptr;
  KeyValueBytesStore& below = timestamped_ != nullptr ? timestamped_->wrapped() : plain_->wrapped();
  return dynamic_cast<CachingKeyValueStore*>(&below);
}

Status TaskTopology::process(const ConsumerRecord& record) {
  IQ_ASSERT(record.topic == config_.source_topic, "record from {} in a {} topology", record.topic,
            to_string(config_.kind));
  // Null keys are dropped by every DSL processor ("Skipping record due to null key").
  if (!record.key) return ok_status();
  const int32_t key = Serde<int32_t>::deserialize(*record.key);
  std::optional<int64_t> value;
  if (record.value) value = Serde<int64_t>::deserialize(*record.value);
  switch (config_.kind) {
    case TopologyKind::SourceTable:
      return process_table(key, value, record.timestamp);
    case TopologyKind::Count:
    case TopologyKind::Sum:
      if (!value) return ok_status();  // "Skipping record due to null key or value"
      return process_aggregate(key, *value, record.timestamp);
    case TopologyKind::PapiWriter:
      return process_papi(key, value);
    case TopologyKind::VersionedTable:
      return process_versioned_table(key, value, record.timestamp);
    case TopologyKind::WindowedCount:
    case TopologyKind::WindowedSum:
    case TopologyKind::SessionCount:
    case TopologyKind::WindowPapiWriter:
    case TopologyKind::SessionPapiWriter:
      // Declared in TopologyConfig for the window and session families (issue 12); the scenario
      // parser does not accept these names until their store stacks are built here.
      IQ_ASSERT(false, "topology {} is not built yet", to_string(config_.kind));
  }
  return ok_status();
}

// KTableSource: a null value is a delete (put of null); the stored timestamp is the record's.
Status TaskTopology::process_table(int32_t key, const std::optional<int64_t>& value,
                                   int64_t timestamp) {
  if (!value) return timestamped_->put(key, std::nullopt);
  return timestamped_->put(key, ValueAndTimestamp<int64_t>{*value, timestamp});
}

// KStreamAggregate: the new timestamp is the max of the record's and the aggregate's.
Status TaskTopology::process_aggregate(int32_t key, int64_t value, int64_t timestamp) {
  auto old = timestamped_->get(key);
  if (!old) return base::unexpected(old.error());
  int64_t aggregate = 0;  // the initializer: count() and the sum both start at 0
  int64_t new_timestamp = timestamp;
  if (old->has_value()) {
    aggregate = (*old)->value;
    new_timestamp = std::max(timestamp, (*old)->timestamp);
  }
  aggregate += config_.kind == TopologyKind::Count ? 1 : value;
  return timestamped_->put(key, ValueAndTimestamp<int64_t>{aggregate, new_timestamp});
}

Status TaskTopology::process_papi(int32_t key, const std::optional<int64_t>& value) {
  if (!value) {
    auto old = plain_->delete_key(key);
    if (!old) return base::unexpected(old.error());
    return ok_status();
  }
  return plain_->put(key, *value);
}

// KTableSource over a versioned store: it reads the latest version (only to log an out-of-order
// update and to forward the old value; nothing is downstream here), then puts the record as a
// version at its own timestamp. A put older than the grace period (= history retention) comes
// back PUT_RETURN_CODE_NOT_PUT and is not forwarded; the store and its changelog layer decide
// what is kept and logged (docs/iqv2-semantics.md quirks 13-14).
Status TaskTopology::process_versioned_table(int32_t key, const std::optional<int64_t>& value,
                                             int64_t timestamp) {
  auto latest = versioned_->get(key);
  if (!latest) return base::unexpected(latest.error());
  if (latest->has_value() && timestamp < (*latest)->timestamp) {
    IQ_PROBE("versioned.table_out_of_order", "a versioned table took an out-of-order update");
  }
  auto put = versioned_->put(key, value, timestamp);
  if (!put) return base::unexpected(put.error());
  return ok_status();
}

}  // namespace iq
