#pragma once
// CachingWindowStore (SI/CachingWindowStore.java): puts go to the thread's record cache as dirty
// entries keyed [segment id][key][window start][seqnum 0] (SegmentedCacheFunction), and reach the
// store below on flush or eviction, each under the record context it was written with.
//
// Kafka quirk 19 (docs/iqv2-semantics.md §10): this layer overrides neither query()
// nor getPosition(), so IQv2 sees only flushed data and the inner position: `{}` until the first
// flush, even though the cache already holds the writes. Only the processor-facing fetches merge
// the cache over the store.

#include <functional>

#include "state/record_cache_binding.h"
#include "state/window_store.h"

namespace iq {

class CachingWindowStore final : public WrappedWindowBytesStore {
 public:
  // What a DSL processor receives on flush: the windowed key bytes (store key), new and old raw
  // values, and the record context of the cached entry.
  using FlushForwarder = RecordCacheBinding::FlushForwarder;

  CachingWindowStore(std::unique_ptr<WindowBytesStore> wrapped, int64_t window_size_ms,
                     int64_t segment_interval_ms);

  void set_flush_listener(FlushForwarder forwarder, bool send_old_values) {
    cache_.set_flush_listener(std::move(forwarder), send_old_values);
  }

  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override;
  void close() override;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.CachingWindowStore";
  }

  Status put(const Bytes& key, const ValueBytes& value, int64_t window_start_ms) override;
  StoreResult<ValueBytes> fetch(const Bytes& key, int64_t window_start_ms) override;
  StoreResult<WindowStoreBytesIterator> fetch(const Bytes& key, int64_t time_from_ms,
                                              int64_t time_to_ms, bool forward) override;
  StoreResult<WindowedBytesIterator> fetch_all(int64_t time_from_ms, int64_t time_to_ms,
                                               bool forward) override;
  StoreResult<WindowedBytesIterator> all(bool forward) override;

  // Write the dirty entries down without flushing the store below (commit's flushCache).
  [[nodiscard]] Status flush_cache() override { return cache_.flush_cache(); }
  // Drop every cached entry without writing it (recycle). The store below keeps its position.
  void clear_cache() { cache_.clear_cache(); }
  const std::string& cache_name() const { return cache_.cache_name(); }

 private:
  Bytes cache_key(const Bytes& key, int64_t window_start_ms) const;
  // The cached windows in [from, to] (all keys when key is nullopt), tombstones included.
  std::map<std::pair<int64_t, Bytes>, ValueBytes> cached(const std::optional<Bytes>& key,
                                                         int64_t from, int64_t to) const;
  Status put_and_maybe_forward(const DirtyEntry& entry);
  StreamsError closed_error() const;

  int64_t window_size_ms_;
  int64_t segment_interval_ms_;
  RecordCacheBinding cache_{"window"};
};

}  // namespace iq
