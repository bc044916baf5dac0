#include "base/probe.h"
#include "state/memory_navigable_lru_cache.h"

#include "state/key_value_ranges.h"

namespace iq {

MemoryNavigableLRUCache::MemoryNavigableLRUCache(std::string name, int64_t max_cache_size)
    : name_(std::move(name)), max_cache_size_(max_cache_size) {
  // Stores.lruMap refuses a negative size with IllegalArgumentException; callers check first.
  IQ_ASSERT(max_cache_size_ >= 0, "maxCacheSize cannot be negative: {}", max_cache_size_);
}

Status MemoryNavigableLRUCache::init(StateStoreContext& context, StateStore& root) {
  consistency_enabled_ = context.consistency_enabled();
  context.register_store(
      root, [this](const std::vector<ConsumerRecord>& records) { return restore_batch(records); },
      /*commit=*/nullptr);
  context_ = &context;
  return ok_status();
}

void MemoryNavigableLRUCache::touch(Entry& e) {
  recency_.splice(recency_.end(), recency_, e.recency);
}

Status MemoryNavigableLRUCache::insert_or_overwrite(const Bytes& key, const Bytes& value) {
  auto it = map_.find(key);
  if (it != map_.end()) {
    it->second.value = value;
    touch(it->second);
    return ok_status();
  }
  recency_.push_back(key);
  map_.emplace(key, Entry{value, std::prev(recency_.end())});
  // LinkedHashMap.removeEldestEntry, consulted only after inserting a new key: at most one entry
  // goes, the least recently accessed one (possibly the one just inserted when the size is 0).
  if (static_cast<int64_t>(map_.size()) <= max_cache_size_) return ok_status();
  const Bytes eldest_key = recency_.front();
  auto eldest = map_.find(eldest_key);
  IQ_ASSERT(eldest != map_.end());
  const Bytes eldest_value = eldest->second.value;
  recency_.pop_front();
  map_.erase(eldest);
  IQ_PROBE("lru.evicted", "an LRU store evicted its least recently used entry");
  if (!restoring_ && listener_) return listener_(eldest_key, eldest_value);
  return ok_status();
}

Status MemoryNavigableLRUCache::put(const Bytes& key, const ValueBytes& value) {
  if (value) {
    auto s = insert_or_overwrite(key, *value);
    if (!s) return s;
  } else {
    auto removed = remove(key);
    if (!removed) return base::unexpected(removed.error());
  }
  store_query_utils::update_position(position_, context_);
  return ok_status();
}

StoreResult<ValueBytes> MemoryNavigableLRUCache::put_if_absent(const Bytes& key,
                                                               const ValueBytes& value) {
  auto original = get(key);
  if (!original->has_value()) {
    auto s = put(key, value);
    if (!s) return base::unexpected(s.error());
  }
  return original;
}

Status MemoryNavigableLRUCache::put_all(const std::vector<KeyValueBytes>& entries) {
  for (const auto& e : entries) {
    auto s = put(e.key, e.value);
    if (!s) return s;
  }
  return ok_status();
}

// Unlike InMemoryKeyValueStore.delete, MemoryLRUCache.delete advances the position (before the
// removal; the order cannot be observed).
StoreResult<ValueBytes> MemoryNavigableLRUCache::delete_key(const Bytes& key) {
  store_query_utils::update_position(position_, context_);
  return remove(key);
}

StoreResult<ValueBytes> MemoryNavigableLRUCache::remove(const Bytes& key) {
  auto it = map_.find(key);
  if (it == map_.end()) return ValueBytes{};
  ValueBytes old = std::move(it->second.value);
  recency_.erase(it->second.recency);
  map_.erase(it);
  return old;
}

StoreResult<ValueBytes> MemoryNavigableLRUCache::get(const Bytes& key) {
  auto it = map_.find(key);
  if (it == map_.end()) return ValueBytes{};
  touch(it->second);  // access order: a read refreshes recency, IQ reads included
  return ValueBytes(it->second.value);
}

StoreResult<BytesIterator> MemoryNavigableLRUCache::range(const std::optional<Bytes>& from,
                                                          const std::optional<Bytes>& to,
                                                          bool reverse) {
  if (ranges::inverted(from, to)) return BytesIterator{{}, IteratorOrigin::EmptyIterator};
  std::map<Bytes, Bytes> snapshot;  // the TreeMap copy Kafka iterates
  for (const auto& [k, e] : map_) snapshot.emplace(k, e.value);
  return ranges::scan_sorted_map(snapshot, from, to, reverse, IteratorOrigin::TreeMapSnapshot);
}

Status MemoryNavigableLRUCache::restore_batch(const std::vector<ConsumerRecord>& records) {
  restoring_ = true;
  Status status = ok_status();
  for (const auto& record : records) {
    if (!record.key) continue;
    status = put(*record.key, record.value);
    if (!status) break;
    status = store_query_utils::apply_checks_and_update_position(record, consistency_enabled_,
                                                                 position_);
    if (!status) break;
  }
  restoring_ = false;
  return status;
}

}  // namespace iq
