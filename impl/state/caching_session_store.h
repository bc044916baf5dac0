#pragma once
// CachingSessionStore (SI/CachingSessionStore.java): puts and removes go to the thread's record
// cache as dirty entries keyed [8-byte segment id of the session end][key][end][start]
// (SegmentedCacheFunction over SessionKeySchema), and reach the store below on flush or eviction,
// each under the record context it was written with.
//
// Kafka quirk 19 (docs/iqv2-semantics.md §10), as in the caching window layer: this layer overrides
// neither query() nor getPosition(), so IQv2 sees only flushed data and the inner position: `{}`
// until the first flush, although the cache already holds the writes. Only the processor-facing
// reads merge the cache over the store.

#include <functional>

#include "state/record_cache_binding.h"
#include "state/session_store.h"

namespace iq {

class CachingSessionStore final : public WrappedSessionBytesStore {
 public:
  // What a DSL processor receives on flush: the session key bytes, new and old raw values, and
  // the record context of the cached entry.
  using FlushForwarder = RecordCacheBinding::FlushForwarder;

  CachingSessionStore(std::unique_ptr<SessionBytesStore> wrapped, int64_t segment_interval_ms);

  void set_flush_listener(FlushForwarder forwarder, bool send_old_values) {
    cache_.set_flush_listener(std::move(forwarder), send_old_values);
  }

  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override;
  void close() override;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.CachingSessionStore";
  }

  Status put(const Windowed<Bytes>& session, const ValueBytes& value) override;
  // remove(sessionKey) is put(sessionKey, null): a cached tombstone.
  Status remove(const Windowed<Bytes>& session) override { return put(session, std::nullopt); }
  StoreResult<ValueBytes> fetch_session(const Bytes& key, int64_t session_start_ms,
                                        int64_t session_end_ms) override;
  // The merged view: the store's sessions with the cached ones over them (cached tombstones hide
  // them), in SessionKeySchema byte order ([end][start] ascending; reversed when !forward), the
  // order of Kafka's MergedSortedCacheSessionStoreIterator over a persistent store. (Over the
  // in-memory store Kafka merges two differently ordered iterators; iqsim sorts instead.)
  StoreResult<SessionBytesIterator> find_sessions(const Bytes& key, int64_t earliest_session_end_ms,
                                                  int64_t latest_session_start_ms,
                                                  bool forward) override;
  StoreResult<SessionBytesIterator> fetch(const Bytes& key, bool forward) override {
    return find_sessions(key, 0, std::numeric_limits<int64_t>::max(), forward);
  }

  // Write the dirty entries down without flushing the store below (commit's flushCache).
  [[nodiscard]] Status flush_cache() override { return cache_.flush_cache(); }
  // Drop every cached entry without writing it (recycle).
  void clear_cache() { cache_.clear_cache(); }
  const std::string& cache_name() const { return cache_.cache_name(); }

 private:
  Bytes cache_key(const Bytes& binary_key) const;
  Status put_and_maybe_forward(const DirtyEntry& entry);
  StreamsError closed_error() const;

  int64_t segment_interval_ms_;
  RecordCacheBinding cache_{"session"};
};

}  // namespace iq
