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
  cache_.init(context, name(), [this](const DirtyEntry& e) { return put_and_maybe_forward(e); });
  return WrappedWindowBytesStore::init(context, root);
}

StreamsError CachingWindowStore::closed_error() const {
  return {StreamsError::Kind::InvalidStateStore, "Store " + name() + " is currently closed"};
}

// SegmentedCacheFunction.cacheKey: the 8-byte segment id, then the store key with seqnum 0.
Bytes CachingWindowStore::cache_key(const Bytes& key, int64_t window_start_ms) const {
  return segmented_cache_function::cache_key(
      window_start_ms / segment_interval_ms_,
      window_key_schema::to_store_key_binary(key, window_start_ms, 0));
}

Status CachingWindowStore::put(const Bytes& key, const ValueBytes& value, int64_t window_start_ms) {
  if (!is_open()) return base::unexpected(closed_error());
  return cache_.put_dirty(cache_key(key, window_start_ms), value);
}

// A hit refreshes the entry's LRU recency; a miss reads below without caching (unlike the
// key-value layer, the window layer never caches what it reads).
StoreResult<ValueBytes> CachingWindowStore::fetch(const Bytes& key, int64_t window_start_ms) {
  if (!is_open()) return base::unexpected(closed_error());
  if (const LRUCacheEntry* entry =
          cache_.cache().get(cache_.cache_name(), cache_key(key, window_start_ms)))
    return entry->value;
  return wrapped().fetch(key, window_start_ms);
}

std::map<std::pair<int64_t, Bytes>, ValueBytes> CachingWindowStore::cached(
    const std::optional<Bytes>& key, int64_t from, int64_t to) const {
  std::map<std::pair<int64_t, Bytes>, ValueBytes> out;
  cache_.for_each_cached([&](const Bytes& ck, const ValueBytes& value) {
    const Bytes store_key = segmented_cache_function::key(ck);
    const int64_t start = window_key_schema::extract_store_timestamp(store_key);
    const Bytes k = window_key_schema::extract_store_key_bytes(store_key);
    if (start < from || start > to || (key && k != *key)) return;
    out.insert_or_assign({start, k}, value);
  });
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
                                                                 int64_t time_to_ms, bool forward) {
  if (!is_open()) return base::unexpected(closed_error());
  auto below = wrapped().fetch_all(time_from_ms, time_to_ms, /*forward=*/true);
  if (!below) return below;
  std::map<std::pair<int64_t, Bytes>, ValueBytes> merged;
  for (auto& e : below->entries) merged.emplace(std::pair{e.key.start_ms, e.key.key}, e.value);
  for (auto& [k, v] : cached(std::nullopt, time_from_ms, time_to_ms)) merged.insert_or_assign(k, v);
  WindowedBytesIterator out{{}, IteratorOrigin::Converted};
  for (auto& [k, v] : merged) {
    if (!v) continue;
    out.entries.push_back({Windowed<Bytes>{k.second, k.first,
                                           window_key_schema::window_end(k.first, window_size_ms_)},
                           *v});
  }
  if (!forward) std::reverse(out.entries.begin(), out.entries.end());
  return out;
}

StoreResult<WindowedBytesIterator> CachingWindowStore::all(bool forward) {
  return fetch_all(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                   forward);
}

Status CachingWindowStore::flush() {
  auto s = cache_.flush_cache();
  if (!s) return s;
  return wrapped().flush();
}

void CachingWindowStore::close() {
  cache_.close();
  wrapped().close();
}

// putAndMaybeForward (RecordCacheBinding): with a listener, a tombstone for a window absent below
// is skipped.
Status CachingWindowStore::put_and_maybe_forward(const DirtyEntry& entry) {
  const Bytes store_key = segmented_cache_function::key(entry.key);
  const int64_t start = window_key_schema::extract_store_timestamp(store_key);
  const Bytes key = window_key_schema::extract_store_key_bytes(store_key);
  return cache_.put_and_maybe_forward(
      entry, store_key, [&] { return wrapped().fetch(key, start); },
      [&] { return wrapped().put(key, entry.new_value, start); });
}

}  // namespace iq
