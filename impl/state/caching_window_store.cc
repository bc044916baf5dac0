#include "state/caching_window_store.h"

namespace iq {

CachingWindowStore::CachingWindowStore(std::unique_ptr<WindowBytesStore> wrapped,
                                       int64_t window_size_ms, int64_t segment_interval_ms)
    : WrappedWindowBytesStore(std::move(wrapped)),
      window_size_ms_(window_size_ms),
      segment_interval_ms_(segment_interval_ms) {
  IQ_ASSERT(segment_interval_ms_ > 0, "segment interval {}", segment_interval_ms_);
}

Status CachingWindowStore::init(StateStoreContext& context, StateStore& root) {
  context_ = &context;
  cache_name_ = ThreadCache::name_space(context.task_id(), name());
  (void)cache();  // register the flush listener now, as Kafka's init does
  return WrappedWindowBytesStore::init(context, root);
}

ThreadCache& CachingWindowStore::cache() {
  IQ_ASSERT(context_ != nullptr, "caching window store {} used before init", name());
  ThreadCache* current = context_->cache();
  IQ_ASSERT(current != nullptr, "caching window store {} needs a thread cache", name());
  if (current != listener_registered_on_) {
    current->add_dirty_entry_flush_listener(cache_name_,
                                            [this](const std::vector<DirtyEntry>& entries) {
                                              for (const auto& e : entries) {
                                                auto s = put_and_maybe_forward(e);
                                                if (!s) return s;
                                              }
                                              return ok_status();
                                            });
    listener_registered_on_ = current;
  }
  return *current;
}

StreamsError CachingWindowStore::closed_error() const {
  return {StreamsError::Kind::InvalidStateStore, "Store " + name() + " is currently closed"};
}

// SegmentedCacheFunction.cacheKey: the 8-byte segment id, then the store key with seqnum 0.
Bytes CachingWindowStore::cache_key(const Bytes& key, int64_t window_start_ms) const {
  const int64_t segment_id = window_start_ms / segment_interval_ms_;
  return Bytes(serde_detail::to_big_endian(static_cast<uint64_t>(segment_id)) +
               window_key_schema::to_store_key_binary(key, window_start_ms, 0).get());
}

// No position update here: the position advances only when the flush writes the entry below.
Status CachingWindowStore::put(const Bytes& key, const ValueBytes& value,
                               int64_t window_start_ms) {
  if (!is_open()) return base::unexpected(closed_error());
  const RecordContext* rc = context_->record_context();
  LRUCacheEntry entry{value, rc != nullptr ? *rc : RecordContext{}, /*dirty=*/true};
  return cache().put(cache_name_, cache_key(key, window_start_ms), std::move(entry));
}

// A hit refreshes the entry's LRU recency; a miss reads below without caching (unlike the
// key-value layer, the window layer never caches what it reads).
StoreResult<ValueBytes> CachingWindowStore::fetch(const Bytes& key, int64_t window_start_ms) {
  if (!is_open()) return base::unexpected(closed_error());
  if (const LRUCacheEntry* entry = cache().get(cache_name_, cache_key(key, window_start_ms)))
    return entry->value;
  return wrapped().fetch(key, window_start_ms);
}

std::map<std::pair<int64_t, Bytes>, ValueBytes> CachingWindowStore::cached(
    const std::optional<Bytes>& key, int64_t from, int64_t to) const {
  std::map<std::pair<int64_t, Bytes>, ValueBytes> out;
  const NamedCache* named = context_->cache()->named_cache(cache_name_);
  if (named == nullptr) return out;
  for (const Bytes& ck : named->keys_eldest_first()) {
    const Bytes store_key(std::string(ck.view().substr(8)));
    const int64_t start = window_key_schema::extract_store_timestamp(store_key);
    const Bytes k = window_key_schema::extract_store_key_bytes(store_key);
    if (start < from || start > to || (key && k != *key)) continue;
    out.insert_or_assign({start, k}, named->peek(ck)->value);
  }
  return out;
}

// The merged view a processor sees: cached windows override the store's, cached tombstones hide
// them. Kafka's merged iterators read cache entries with get(), refreshing recency; this merge
// reads a snapshot, so a processor's fetch does not reorder the LRU list. Cached windows are
// returned whatever the retention floor of the store below, as Kafka's cache range is by time only.
StoreResult<WindowStoreBytesIterator> CachingWindowStore::fetch(const Bytes& key,
                                                                int64_t time_from_ms,
                                                                int64_t time_to_ms, bool forward) {
  if (!is_open()) return base::unexpected(closed_error());
  auto below = wrapped().fetch(key, time_from_ms, time_to_ms, /*forward=*/true);
  if (!below) return below;
  std::map<int64_t, ValueBytes> merged;
  for (auto& e : below->entries) merged.emplace(e.key, e.value);
  for (auto& [k, v] : cached(key, time_from_ms, time_to_ms)) merged.insert_or_assign(k.first, v);
  WindowStoreBytesIterator out{{}, IteratorOrigin::Converted};
  for (auto& [start, v] : merged)
    if (v) out.entries.push_back({start, *v});
  if (!forward) std::reverse(out.entries.begin(), out.entries.end());
  return out;
}

StoreResult<WindowedBytesIterator> CachingWindowStore::fetch_all(int64_t time_from_ms,
                                                                 int64_t time_to_ms,
                                                                 bool forward) {
  if (!is_open()) return base::unexpected(closed_error());
  auto below = wrapped().fetch_all(time_from_ms, time_to_ms, /*forward=*/true);
  if (!below) return below;
  std::map<std::pair<int64_t, Bytes>, ValueBytes> merged;
  for (auto& e : below->entries) merged.emplace(std::pair{e.key.start_ms, e.key.key}, e.value);
  for (auto& [k, v] : cached(std::nullopt, time_from_ms, time_to_ms)) merged.insert_or_assign(k, v);
  WindowedBytesIterator out{{}, IteratorOrigin::Converted};
  for (auto& [k, v] : merged) {
    if (!v) continue;
    out.entries.push_back(
        {Windowed<Bytes>{k.second, k.first, window_key_schema::window_end(k.first, window_size_ms_)},
         *v});
  }
  if (!forward) std::reverse(out.entries.begin(), out.entries.end());
  return out;
}

StoreResult<WindowedBytesIterator> CachingWindowStore::all(bool forward) {
  return fetch_all(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                   forward);
}

Status CachingWindowStore::flush_cache() {
  return cache().flush(cache_name_);
}

void CachingWindowStore::clear_cache() {
  cache().clear(cache_name_);
}

Status CachingWindowStore::flush() {
  auto s = cache().flush(cache_name_);
  if (!s) return s;
  return wrapped().flush();
}

void CachingWindowStore::close() {
  if (context_ != nullptr) {
    auto s = cache().flush(cache_name_);
    IQ_ASSERT(s.has_value(), "flushing cache of {} on close: {}", name(),
              s ? "" : s.error().to_string());
    cache().close(cache_name_);
  }
  wrapped().close();
}

// putAndMaybeForward: write a flushed entry below under ITS OWN record context, then put the
// current context back. With a listener, a tombstone for a window absent below is skipped.
Status CachingWindowStore::put_and_maybe_forward(const DirtyEntry& entry) {
  const Bytes store_key(std::string(entry.key.view().substr(8)));
  const int64_t start = window_key_schema::extract_store_timestamp(store_key);
  const Bytes key = window_key_schema::extract_store_key_bytes(store_key);
  ValueBytes old_value;
  if (forwarder_) {
    if (!entry.new_value || send_old_values_) {
      auto old = wrapped().fetch(key, start);
      if (!old) return base::unexpected(old.error());
      old_value = *old;
    }
    if (!entry.new_value && !old_value) return ok_status();
  }
  const RecordContext* current = context_->record_context();
  std::optional<RecordContext> saved =
      current ? std::optional<RecordContext>(*current) : std::nullopt;
  context_->set_record_context(entry.context);
  auto s = wrapped().put(key, entry.new_value, start);
  if (s && forwarder_)
    forwarder_(store_key, entry.new_value, send_old_values_ ? old_value : std::nullopt,
               entry.context);
  context_->set_record_context(saved);
  return s;
}

}  // namespace iq
