#pragma once
// What CachingWindowStore and CachingSessionStore each hold around the thread's record cache, as
// Kafka's caching classes each repeat it: the store's named cache, the dirty-entry flush listener
// (registered again when the context hands over another ThreadCache), dirty puts under the
// current record context, flush, clear and close, and putAndMaybeForward's write of a flushed
// entry under ITS OWN record context. Also SegmentedCacheFunction's cache key, which both layers
// use: the 8-byte big-endian segment id, then the store key.
//
// The layer keeps what differs: its key schema, the merged reads, and the write below.

#include <functional>
#include <string>
#include <string_view>

#include "iq/bytes.h"
#include "iq/serdes.h"
#include "state/state_store_context.h"
#include "state/thread_cache.h"

namespace iq {

namespace segmented_cache_function {

inline constexpr size_t kSegmentIdSize = 8;

inline Bytes cache_key(int64_t segment_id, const Bytes& store_key) {
  return Bytes(serde_detail::to_big_endian(static_cast<uint64_t>(segment_id)) + store_key.get());
}
// SegmentedCacheFunction.key: the store key without the segment id.
inline Bytes key(const Bytes& cache_key) {
  IQ_ASSERT(cache_key.size() >= kSegmentIdSize, "cache key of {} bytes", cache_key.size());
  return Bytes(std::string(cache_key.view().substr(kSegmentIdSize)));
}

}  // namespace segmented_cache_function

class RecordCacheBinding {
 public:
  // What a DSL processor receives on flush: the store key bytes, new and old raw values, and the
  // record context of the cached entry.
  using FlushForwarder =
      std::function<void(const Bytes& store_key, const ValueBytes& new_value,
                         const ValueBytes& old_value, const RecordContext& context)>;
  // The layer's write of one flushed entry to the store below (its putAndMaybeForward).
  using EntryWriter = std::function<Status(const DirtyEntry& entry)>;

  // `layer` names the layer in assertion messages ("window", "session").
  explicit RecordCacheBinding(std::string_view layer) : layer_(layer) {}

  void set_flush_listener(FlushForwarder forwarder, bool send_old_values) {
    forwarder_ = std::move(forwarder);
    send_old_values_ = send_old_values;
  }

  // The layer's init: name the cache "<task>-<store>" and register the listener now, as Kafka's
  // init does.
  void init(StateStoreContext& context, const std::string& store_name, EntryWriter writer);
  // The thread's cache, with this store's flush listener registered on it.
  ThreadCache& cache();
  StateStoreContext& context() {
    IQ_ASSERT(context_ != nullptr, "caching {} store {} used before init", layer_, store_name_);
    return *context_;
  }
  const std::string& cache_name() const { return cache_name_; }

  // A dirty entry under the current record context. No position update here: the position
  // advances only when the flush writes the entry below.
  [[nodiscard]] Status put_dirty(const Bytes& cache_key, const ValueBytes& value);
  // Every cached entry, eldest first, without refreshing recency (a snapshot for merged reads).
  template <typename Visit>
  void for_each_cached(Visit visit) const {
    const NamedCache* named = context_->cache()->named_cache(cache_name_);
    if (named == nullptr) return;
    for (const Bytes& ck : named->keys_eldest_first()) visit(ck, named->peek(ck)->value);
  }

  // Write the dirty entries down without flushing the store below (commit's flushCache).
  [[nodiscard]] Status flush_cache() { return cache().flush(cache_name_); }
  // Drop every cached entry without writing it (recycle). The store below keeps its position.
  void clear_cache() { cache().clear(cache_name_); }
  // The layer's close, before the store below closes: flush what is dirty, then drop the cache.
  // Nothing to do when init never ran.
  void close();

  // putAndMaybeForward. With a listener, the old value is read below (fetch_old) when the entry is
  // a tombstone or old values are sent, and a tombstone for an entry absent below is neither
  // written nor forwarded. The write (write) runs under the entry's own record context
  // (KAFKA-13714); the current one is put back afterwards.
  template <typename FetchOld, typename Write>
  [[nodiscard]] Status put_and_maybe_forward(const DirtyEntry& entry, const Bytes& store_key,
                                             FetchOld fetch_old, Write write) {
    ValueBytes old_value;
    if (forwarder_) {
      if (!entry.new_value || send_old_values_) {
        StoreResult<ValueBytes> old = fetch_old();
        if (!old) return base::unexpected(old.error());
        old_value = *old;
      }
      if (!entry.new_value && !old_value) return ok_status();
    }
    const RecordContext* current = context_->record_context();
    std::optional<RecordContext> saved =
        current ? std::optional<RecordContext>(*current) : std::nullopt;
    context_->set_record_context(entry.context);
    Status s = write();
    if (s && forwarder_)
      forwarder_(store_key, entry.new_value, send_old_values_ ? old_value : std::nullopt,
                 entry.context);
    context_->set_record_context(saved);
    return s;
  }

 private:
  std::string_view layer_;
  std::string store_name_;
  std::string cache_name_;
  StateStoreContext* context_ = nullptr;
  ThreadCache* listener_registered_on_ = nullptr;
  EntryWriter writer_;
  FlushForwarder forwarder_;
  bool send_old_values_ = false;
};

}  // namespace iq
