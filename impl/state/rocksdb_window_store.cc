#include "state/rocksdb_window_store.h"

namespace iq {

RocksDBWindowStore::RocksDBWindowStore(std::string name, int64_t retention_period_ms,
                                       int64_t segment_interval_ms, int64_t window_size_ms,
                                       bool retain_duplicates, bool timestamped)
    : bytes_store_(std::move(name), retention_period_ms, segment_interval_ms,
                   SegmentKeySchema::kWindow, timestamped),
      window_size_ms_(window_size_ms),
      retain_duplicates_(retain_duplicates) {
  IQ_ASSERT(retention_period_ms >= 0 && window_size_ms >= 0 && segment_interval_ms >= 1,
            "retention {} size {} interval {}", retention_period_ms, window_size_ms,
            segment_interval_ms);
}

// The segmented store registers the OUTERMOST layer and restores; this layer only keeps the
// context for its queries.
Status RocksDBWindowStore::init(StateStoreContext& context, StateStore& root) {
  if (auto s = bytes_store_.init(context, root); !s) return s;
  context_ = &context;
  return ok_status();
}

Status RocksDBWindowStore::put(const Bytes& key, const ValueBytes& value, int64_t window_start_ms) {
  // Kafka quirk 26 (docs/iqv2-semantics.md §10; SI/RocksDBWindowStore.java put): with duplicates
  // a delete is a no-op, skipped before anything else happens (no stream time, no position),
  // though the change-logging layer above logs it and a restore takes its window start.
  if (!value && retain_duplicates_) return ok_status();
  if (retain_duplicates_) seqnum_ = (seqnum_ + 1) & 0x7FFFFFFF;
  return bytes_store_.put(window_key_schema::to_store_key_binary(key, window_start_ms, seqnum_),
                          value);
}

// Kafka quirk 22 (docs/iqv2-semantics.md §10; SI/RocksDBWindowStore.java fetch(key, time)): the
// lookup key carries the store's current sequence number, so with duplicates only the latest put is
// found, and only while no other put came after it.
StoreResult<ValueBytes> RocksDBWindowStore::fetch(const Bytes& key, int64_t window_start_ms) {
  return bytes_store_.get(window_key_schema::to_store_key_binary(key, window_start_ms, seqnum_));
}

StoreResult<WindowStoreBytesIterator> RocksDBWindowStore::fetch_at(const Bytes& key,
                                                                   int64_t time_from_ms,
                                                                   int64_t time_to_ms, bool forward,
                                                                   IsolationLevel level) {
  auto raw = bytes_store_.fetch(key, time_from_ms, time_to_ms, forward, level);
  if (!raw) return base::unexpected(raw.error());
  WindowStoreBytesIterator out{{}, IteratorOrigin::RocksDbIterator};
  out.entries.reserve(raw->size());
  for (auto& e : *raw)
    out.entries.push_back({window_key_schema::extract_store_timestamp(e.key), std::move(e.value)});
  return out;
}

StoreResult<WindowedBytesIterator> RocksDBWindowStore::windowed(
    StoreResult<std::vector<KeyValue<Bytes, Bytes>>> raw) const {
  if (!raw) return base::unexpected(raw.error());
  WindowedBytesIterator out{{}, IteratorOrigin::RocksDbIterator};
  out.entries.reserve(raw->size());
  for (auto& e : *raw) {
    const int64_t start = window_key_schema::extract_store_timestamp(e.key);
    out.entries.push_back({Windowed<Bytes>{window_key_schema::extract_store_key_bytes(e.key), start,
                                           window_key_schema::window_end(start, window_size_ms_)},
                           std::move(e.value)});
  }
  return out;
}

StoreResult<WindowedBytesIterator> RocksDBWindowStore::all(bool forward) {
  return windowed(bytes_store_.all(forward));
}

}  // namespace iq
