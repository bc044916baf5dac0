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
  } else if (config.windowed()) {
    build_window_store(options);
  } else if (config.session()) {
    build_session_store(options);
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

// TimeWindowedKStreamImpl materializes through WindowStoreMaterializer: the supplier (here the
// config's) under Stores.timestampedWindowStoreBuilder, never with duplicates; the DSL sets the
// cache's flush listener (TimestampedCacheFlushListener; nothing is downstream here). The window
// PAPI writer builds as IQv2StoreIntegrationTest does (topologies.h).
void TaskTopology::build_window_store(const StoreBuilderOptions& options) {
  const TopologyConfig& c = config_;
  const WindowStoreOptions w{
      .retention_period_ms = c.effective_window_retention_ms(),
      .window_size_ms = c.window_size_ms,
      .retain_duplicates = c.kind == TopologyKind::WindowPapiWriter && c.retain_duplicates};
  IQ_ASSERT(stores::validate_window_options(w).has_value(), "window options of {}", c.store_name);
  const WindowSupplier supplier = window_supplier(c.supplier);
  if (!c.timestamped()) {
    auto store = stores::window_store<int32_t, int64_t>(supplier, c.store_name, w, options);
    plain_window_ = store.get();
    store_ = std::move(store);
    return;
  }
  auto store =
      stores::timestamped_window_store<int32_t, int64_t>(supplier, c.store_name, w, options);
  if (c.kind != TopologyKind::WindowPapiWriter) {
    if (auto* caching = dynamic_cast<CachingWindowStore*>(&store->wrapped())) {
      caching->set_flush_listener(
          [](const Bytes&, const ValueBytes&, const ValueBytes&, const RecordContext&) {},
          /*send_old_values=*/false);
    }
  }
  timestamped_window_ = store.get();
  store_ = std::move(store);
}

// SessionWindowedKStreamImpl materializes through SessionStoreMaterializer: the supplier under
// Stores.sessionStoreBuilder, with SessionCacheFlushListener on the cache for the DSL.
void TaskTopology::build_session_store(const StoreBuilderOptions& options) {
  const TopologyConfig& c = config_;
  const SessionStoreOptions so{.retention_period_ms = c.effective_window_retention_ms()};
  auto store = stores::session_store<int32_t, int64_t>(session_supplier(c.supplier), c.store_name,
                                                       so, options);
  if (c.kind != TopologyKind::SessionPapiWriter) {
    if (auto* caching = dynamic_cast<CachingSessionStore*>(&store->wrapped())) {
      caching->set_flush_listener(
          [](const Bytes&, const ValueBytes&, const ValueBytes&, const RecordContext&) {},
          /*send_old_values=*/false);
    }
  }
  session_ = store.get();
  store_ = std::move(store);
}

// kRocksDb is Stores.persistentWindowStore, kRocksDbTimestamped persistentTimestampedWindowStore.
WindowSupplier TaskTopology::window_supplier(KeyValueSupplier s) {
  switch (s) {
    case KeyValueSupplier::kInMemory:
      return WindowSupplier::kInMemory;
    case KeyValueSupplier::kRocksDb:
      return WindowSupplier::kRocksDB;
    case KeyValueSupplier::kRocksDbTimestamped:
      return WindowSupplier::kRocksDBTimestamped;
    case KeyValueSupplier::kLruMap:
      break;
  }
  IQ_ASSERT(false, "supplier {} has no window store", to_string(s));
  return WindowSupplier::kInMemory;
}

// A session store has no timestamped form: both RocksDB kinds are Stores.persistentSessionStore
// (the scenario parser writes the effective kRocksDb).
SessionSupplier TaskTopology::session_supplier(KeyValueSupplier s) {
  switch (s) {
    case KeyValueSupplier::kInMemory:
      return SessionSupplier::kInMemory;
    case KeyValueSupplier::kRocksDb:
    case KeyValueSupplier::kRocksDbTimestamped:
      return SessionSupplier::kRocksDB;
    case KeyValueSupplier::kLruMap:
      break;
  }
  IQ_ASSERT(false, "supplier {} has no session store", to_string(s));
  return SessionSupplier::kInMemory;
}

CachingKeyValueStore* TaskTopology::caching_layer() {
  if (timestamped_ != nullptr) return dynamic_cast<CachingKeyValueStore*>(&timestamped_->wrapped());
  if (plain_ != nullptr) return dynamic_cast<CachingKeyValueStore*>(&plain_->wrapped());
  return nullptr;
}

void TaskTopology::clear_cache() {
  if (CachingKeyValueStore* kv = caching_layer()) kv->clear_cache();
  WindowBytesStore* window = timestamped_window_ != nullptr ? &timestamped_window_->wrapped()
                             : plain_window_ != nullptr     ? &plain_window_->wrapped()
                                                            : nullptr;
  if (auto* caching = dynamic_cast<CachingWindowStore*>(window)) caching->clear_cache();
  if (session_ != nullptr) {
    if (auto* caching = dynamic_cast<CachingSessionStore*>(&session_->wrapped()))
      caching->clear_cache();
  }
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
      return process_window_aggregate(key, value, record.timestamp);
    case TopologyKind::SessionCount:
    case TopologyKind::SessionSum:
      return process_session_aggregate(key, value, record.timestamp);
    case TopologyKind::WindowPapiWriter:
      return process_window_papi(key, value, record.timestamp);
    case TopologyKind::SessionPapiWriter:
      return process_session_papi(key, value, record.timestamp);
    case TopologyKind::VersionedPapiWriter:
      return process_versioned_papi(key, value, record.timestamp);
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

// A Processor-API writer over the versioned store: a value is put as a version at the record's
// timestamp, a null value goes through VersionedKeyValueStore#delete(key, ts). The store treats the
// delete as put(key, null, ts) and returns the version it replaced, but one older than the grace
// period is dropped without a position update (a dropped put advances it: quirk 14), which is the
// difference from the versioned table's tombstone.
Status TaskTopology::process_versioned_papi(int32_t key, const std::optional<int64_t>& value,
                                            int64_t timestamp) {
  if (!value) {
    auto deleted = versioned_->delete_key(key, timestamp);
    if (!deleted) return base::unexpected(deleted.error());
    return ok_status();
  }
  auto put = versioned_->put(key, value, timestamp);
  if (!put) return base::unexpected(put.error());
  return ok_status();
}

}  // namespace iq

namespace iq {

// What one record adds to an aggregate: count() adds 1 (countAggregator), the sum adds the value.
// KStreamWindowAggregate and KStreamSessionWindowAggregate skip only a null KEY at this commit, so
// a null value still counts; the sum's aggregator treats it as 0 (Java's agg + v would throw).
int64_t TaskTopology::aggregate_step(const std::optional<int64_t>& value) const {
  const bool count =
      config_.kind == TopologyKind::WindowedCount || config_.kind == TopologyKind::SessionCount;
  if (count) return 1;
  if (!value) IQ_PROBE("window.null_value_aggregated", "a windowed sum took a null value as 0");
  return value.value_or(0);
}

// KStreamWindowAggregateProcessor.process: advance the observed stream time, then every window
// of TimeWindows.windowsFor(ts) whose end is after the close time (stream time - grace) is
// updated at its start; the others are skipped as expired (logSkippedRecordForExpiredWindow).
Status TaskTopology::process_window_aggregate(int32_t key, const std::optional<int64_t>& value,
                                              int64_t timestamp) {
  IQ_ASSERT(timestamp >= 0, "record timestamp {}", timestamp);
  const int64_t size = config_.window_size_ms;
  const int64_t advance = config_.effective_window_advance_ms();
  IQ_ASSERT(size > 0 && advance > 0 && advance <= size, "window size {} advance {}", size, advance);
  observed_stream_time_ms_ = std::max(observed_stream_time_ms_, timestamp);
  const int64_t window_close_ms = observed_stream_time_ms_ - config_.grace_ms;
  probe_window_grace_edge(timestamp, window_close_ms);
  // TimeWindows.windowsFor: the first start at or before ts whose window still holds ts.
  int64_t start = (std::max<int64_t>(0, timestamp - size + advance) / advance) * advance;
  for (int32_t windows = 0; start <= timestamp; start += advance, ++windows) {
    IQ_ASSERT(windows < size / advance + 1, "more windows than size / advance for ts {}",
              timestamp);
    const int64_t end = start + size;
    if (end <= window_close_ms) {
      IQ_PROBE("window.record_skipped_expired", "a windowed aggregation skipped a closed window");
      if (end == window_close_ms) {
        IQ_PROBE("window.skipped_at_close",
                 "a windowed aggregation skipped a window ending "
                 "exactly at the close time (stream time - grace)");
      }
      continue;
    }
    auto old = timestamped_window_->fetch(key, start);
    if (!old) return base::unexpected(old.error());
    int64_t aggregate = 0;  // the initializer
    int64_t new_timestamp = timestamp;
    if (old->has_value()) {
      aggregate = (*old)->value;
      new_timestamp = std::max(timestamp, (*old)->timestamp);
    }
    aggregate += aggregate_step(value);
    auto s =
        timestamped_window_->put(key, ValueAndTimestamp<int64_t>{aggregate, new_timestamp}, start);
    if (!s) return s;
  }
  return ok_status();
}

// Coverage of the grace edge: a record dropped whose next ms would have been kept (just beyond
// grace), or kept whose previous ms would have been dropped (exactly at the edge). A record is
// kept while its newest window, at (ts / advance) * advance, ends after the close time.
void TaskTopology::probe_window_grace_edge(int64_t timestamp, int64_t window_close_ms) const {
  const int64_t advance = config_.effective_window_advance_ms();
  const auto kept = [&](int64_t ts) {
    return ts / advance * advance + config_.window_size_ms > window_close_ms;
  };
  if (!kept(timestamp) && kept(timestamp + 1)) {
    IQ_PROBE("window.record_dropped_just_beyond_grace",
             "a windowed aggregation dropped a record 1 ms older than the oldest it keeps");
  }
  if (timestamp > 0 && kept(timestamp) && !kept(timestamp - 1)) {
    IQ_PROBE("window.record_kept_at_grace_edge",
             "a windowed aggregation kept a record at the oldest timestamp it keeps");
  }
}

// KStreamSessionWindowAggregateProcessor.process: the sessions of the key that end at or after
// ts - gap and start at or before ts + gap merge with the new [ts, ts] (aggregates by the merger,
// bounds by min/max); a merged session ending before the close time (stream time - grace - gap)
// is dropped; otherwise the merged-away sessions are removed (unless the only one found is
// [ts, ts] itself) and the merged one is put.
Status TaskTopology::process_session_aggregate(int32_t key, const std::optional<int64_t>& value,
                                               int64_t timestamp) {
  IQ_ASSERT(timestamp >= 0, "record timestamp {}", timestamp);
  const int64_t gap = config_.session_gap_ms;
  observed_stream_time_ms_ = std::max(observed_stream_time_ms_, timestamp);
  const int64_t window_close_ms = observed_stream_time_ms_ - config_.grace_ms - gap;
  auto found = session_->find_sessions(key, timestamp - gap, timestamp + gap);
  if (!found) return base::unexpected(found.error());
  int64_t aggregate = 0;  // the initializer
  Windowed<int32_t> merged{key, timestamp, timestamp};
  for (const auto& e : found->entries) {
    aggregate += e.value;  // countMerger and the sum's merger: agg1 + agg2
    merged.start_ms = std::min(merged.start_ms, e.key.start_ms);
    merged.end_ms = std::max(merged.end_ms, e.key.end_ms);
  }
  if (merged.end_ms < window_close_ms) {
    IQ_PROBE("session.record_skipped_expired", "a session aggregation skipped a closed session");
    if (merged.end_ms == window_close_ms - 1) {
      IQ_PROBE("session.skipped_just_beyond_close",
               "a session aggregation skipped a session ending 1 ms before the close time");
    }
    return ok_status();
  }
  if (merged.end_ms == window_close_ms) {
    IQ_PROBE("session.aggregated_at_close",
             "a session aggregation kept a session ending exactly at the close time");
  }
  if (merged != Windowed<int32_t>{key, timestamp, timestamp}) {
    IQ_PROBE("session.merged", "a session aggregation merged sessions");
    for (const auto& e : found->entries) {
      auto s = session_->remove(e.key);
      if (!s) return s;
    }
  }
  aggregate += aggregate_step(value);
  return session_->put(merged, aggregate);
}

// IQv2StoreIntegrationTest's window processor: the latest value per window, at
// (ts / size) * size; ValueAndTimestamp.make(null, ts) is null, so a null value deletes.
Status TaskTopology::process_window_papi(int32_t key, const std::optional<int64_t>& value,
                                         int64_t timestamp) {
  IQ_ASSERT(timestamp >= 0 && config_.window_size_ms > 0, "ts {} size {}", timestamp,
            config_.window_size_ms);
  const int64_t start = (timestamp / config_.window_size_ms) * config_.window_size_ms;
  if (plain_window_ != nullptr) return plain_window_->put(key, value, start);
  std::optional<ValueAndTimestamp<int64_t>> stored;
  if (value) stored = ValueAndTimestamp<int64_t>{*value, timestamp};
  return timestamped_window_->put(key, stored, start);
}

// IQv2StoreIntegrationTest's session processor: each record its own session [ts, ts]; a null
// aggregate removes the session (SessionStore.put's contract).
Status TaskTopology::process_session_papi(int32_t key, const std::optional<int64_t>& value,
                                          int64_t timestamp) {
  return session_->put(Windowed<int32_t>{key, timestamp, timestamp}, value);
}

}  // namespace iq
