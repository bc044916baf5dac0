#pragma once
// CachingKeyValueStore (SI/CachingKeyValueStore.java): writes go to the thread's record cache as
// dirty entries and reach the store below on flush (every commit) or eviction, each under the
// record context it was written with. The layer keeps a position of its own (advanced on every
// cached write, never reset) and answers with the merge of it and the inner position.
//
// Queries (docs/iqv2-semantics.md §4): only KeyQuery is served here, from the cache when the key is
// cached (a cached tombstone answers null) and from below otherwise, with the merged position.
// Every other query bypasses the cache, sees only flushed data and carries the inner position.

#include <functional>

#include "state/thread_cache.h"
#include "state/wrapped_state_store.h"

namespace iq {

class CachingKeyValueStore final : public WrappedKeyValueBytesStore {
 public:
  // What the DSL's TimestampedCacheFlushListener receives on flush: key, new and old raw values,
  // and the record context of the cached entry.
  using FlushForwarder =
      std::function<void(const Bytes& key, const ValueBytes& new_value, const ValueBytes& old_value,
                         const RecordContext& context)>;

  CachingKeyValueStore(std::unique_ptr<KeyValueBytesStore> wrapped, bool timestamped_schema)
      : WrappedKeyValueBytesStore(std::move(wrapped)), timestamped_schema_(timestamped_schema) {}

  // CachedStateStore.setFlushListener: DSL processors forward downstream on flush. With a
  // listener, a flushed tombstone for a key absent below is neither written nor forwarded.
  void set_flush_listener(FlushForwarder forwarder, bool send_old_values) {
    forwarder_ = std::move(forwarder);
    send_old_values_ = send_old_values;
  }

  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override;
  void close() override;
  Position position() const override;
  // KIP-892 (docs/kafka-2026-08-20.md §3.4.6): readOnly(READ_COMMITTED) skips the cache and is
  // the store below's committed view; READ_UNCOMMITTED reads through the cache as get() does.
  // Only IQv1 reads through it: query() serves a KeyQuery from the cache whatever the level
  // (pin delta 8), and passes every other query down with its level.
  ReadOnlyKeyValueBytes& read_only(IsolationLevel level) override {
    if (level == IsolationLevel::READ_COMMITTED) return wrapped().read_only(level);
    return *this;
  }
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.CachingKeyValueStore";
  }

  Status put(const Bytes& key, const ValueBytes& value) override;
  StoreResult<ValueBytes> put_if_absent(const Bytes& key, const ValueBytes& value) override;
  Status put_all(const std::vector<KeyValueBytes>& entries) override;
  StoreResult<ValueBytes> delete_key(const Bytes& key) override;
  StoreResult<ValueBytes> get(const Bytes& key) override;
  StoreResult<BytesIterator> range(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                                   bool reverse) override;
  StoreResult<BytesIterator> all(bool reverse) override {
    return range(std::nullopt, std::nullopt, reverse);
  }

  // Write the dirty entries down without flushing the store below (commit's flushCache).
  [[nodiscard]] Status flush_cache() override;
  // Drop every cached entry without writing it (recycle, KAFKA-14172). The position stays.
  void clear_cache();
  const std::string& cache_name() const { return cache_name_; }

 private:
  Status put_internal(const Bytes& key, const ValueBytes& value);
  Status put_and_maybe_forward(const DirtyEntry& entry);
  QueryOutcome run_key_query(const Query& q, Position merged, const QueryConfig& config);
  // The context's current cache (Kafka calls context.cache() on every access: a recycled task's
  // context switches between the thread's cache and a standby's zero-byte one). The flush
  // listener is registered on each cache the first time this store uses it.
  ThreadCache& cache();
  StreamsError closed_error() const;

  bool timestamped_schema_;
  std::string cache_name_;
  StateStoreContext* context_ = nullptr;
  ThreadCache* listener_registered_on_ = nullptr;
  Position position_ = Position::empty_position();
  FlushForwarder forwarder_;
  bool send_old_values_ = false;
};

}  // namespace iq
