#include "state/thread_cache.h"

namespace iq {

int64_t LRUCacheEntry::size_bytes() const {
  // ProcessorRecordContext: timestamp 8 + offset 8 + partition 4 + topic chars + headers.
  int64_t context_bytes = 8 + 8 + 4;
  if (context.topic) context_bytes += static_cast<int64_t>(context.topic->size());
  for (const auto& h : context.headers) {
    context_bytes += static_cast<int64_t>(h.key.size() + h.value.size());
  }
  return 1 + (value ? static_cast<int64_t>(value->size()) : 0) + context_bytes;
}

// LRUNode.size(): key + three 8-byte references + the entry.
int64_t NamedCache::Node::size_bytes() const {
  return static_cast<int64_t>(lru->size()) + 24 + entry.size_bytes();
}

const LRUCacheEntry* NamedCache::get(const Bytes& key) {
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  lru_.splice(lru_.end(), lru_, it->second.lru);
  return &it->second.entry;
}

void NamedCache::put(const Bytes& key, LRUCacheEntry entry) {
  auto it = map_.find(key);
  // Kafka: IllegalStateException "Attempting to put a clean entry for key ... when it already
  // contains a dirty entry"; the caching store never does this.
  IQ_ASSERT(entry.dirty || it == map_.end() || !it->second.dirty,
            "clean put over a dirty entry in {}", name_);
  const bool dirty = entry.dirty;
  if (it != map_.end()) {
    size_bytes_ -= it->second.size_bytes();
    it->second.entry = std::move(entry);
    lru_.splice(lru_.end(), lru_, it->second.lru);
  } else {
    lru_.push_back(key);
    it = map_.emplace(key, Node{std::move(entry), std::prev(lru_.end()), std::nullopt}).first;
  }
  if (dirty) {
    // Remove, then re-add: dirty order is the order of the LAST write to each key.
    if (it->second.dirty) dirty_.erase(*it->second.dirty);
    dirty_.push_back(key);
    it->second.dirty = std::prev(dirty_.end());
  }
  size_bytes_ += it->second.size_bytes();
}

void NamedCache::unlink(std::map<Bytes, Node>::iterator it) {
  size_bytes_ -= it->second.size_bytes();
  lru_.erase(it->second.lru);
  if (it->second.dirty) dirty_.erase(*it->second.dirty);
  map_.erase(it);
}

std::optional<LRUCacheEntry> NamedCache::remove(const Bytes& key) {
  auto it = map_.find(key);
  if (it == map_.end()) return std::nullopt;
  LRUCacheEntry entry = it->second.entry;
  unlink(it);
  return entry;
}

Status NamedCache::evict() {
  if (lru_.empty()) return ok_status();
  auto it = map_.find(lru_.front());
  IQ_ASSERT(it != map_.end());
  Evicted evicted{it->first, it->second.entry};
  const bool was_dirty = it->second.dirty.has_value();
  unlink(it);
  if (!was_dirty) return ok_status();  // a clean entry is just dropped
  return flush_dirty(&evicted);
}

Status NamedCache::flush_dirty(const Evicted* evicted) {
  IQ_ASSERT(listener_ != nullptr, "No listener for namespace {} registered with cache", name_);
  if (dirty_.empty() && evicted == nullptr) return ok_status();
  std::vector<DirtyEntry> entries;
  std::vector<Bytes> deleted;
  if (evicted != nullptr)
    entries.push_back({evicted->key, evicted->entry.value, evicted->entry.context});
  for (const Bytes& key : dirty_) {
    auto it = map_.find(key);
    IQ_ASSERT(it != map_.end(), "Key = {} found in dirty key set, but entry is null",
              key.to_string());
    entries.push_back({key, it->second.entry.value, it->second.entry.context});
    it->second.entry.dirty = false;
    it->second.dirty.reset();
    if (!it->second.entry.value) deleted.push_back(key);
  }
  dirty_.clear();  // before the listener, which may re-enter
  auto status = listener_(entries);
  for (const Bytes& key : deleted) remove(key);  // flushed tombstones leave the cache
  return status;
}

void NamedCache::clear() {
  map_.clear();
  lru_.clear();
  dirty_.clear();
  size_bytes_ = 0;
}

NamedCache& ThreadCache::cache_for(const std::string& ns) {
  auto it = caches_.find(ns);
  if (it == caches_.end()) it = caches_.emplace(ns, NamedCache(ns)).first;
  return it->second;
}

void ThreadCache::recount() {
  size_bytes_ = 0;
  for (const auto& [ns, cache] : caches_) size_bytes_ += cache.size_bytes();
}

const LRUCacheEntry* ThreadCache::get(const std::string& ns, const Bytes& key) {
  auto it = caches_.find(ns);
  if (it == caches_.end()) return nullptr;
  return it->second.get(key);
}

Status ThreadCache::put(const std::string& ns, const Bytes& key, LRUCacheEntry entry) {
  NamedCache& cache = cache_for(ns);
  cache.put(key, std::move(entry));
  recount();
  return maybe_evict(cache);
}

// Evicts only from the namespace just written: a put on one store never flushes another's.
Status ThreadCache::maybe_evict(NamedCache& cache) {
  while (size_bytes_ > max_bytes_) {
    if (cache.empty()) return ok_status();
    auto status = cache.evict();
    recount();
    if (!status) return status;
  }
  return ok_status();
}

std::optional<LRUCacheEntry> ThreadCache::remove(const std::string& ns, const Bytes& key) {
  auto it = caches_.find(ns);
  if (it == caches_.end()) return std::nullopt;
  auto removed = it->second.remove(key);
  recount();
  return removed;
}

Status ThreadCache::flush(const std::string& ns) {
  auto it = caches_.find(ns);
  if (it == caches_.end()) return ok_status();
  auto status = it->second.flush();
  recount();
  return status;
}

void ThreadCache::clear(const std::string& ns) {
  auto it = caches_.find(ns);
  if (it == caches_.end()) return;
  it->second.clear();
  recount();
}

void ThreadCache::close(const std::string& ns) {
  caches_.erase(ns);
  recount();
}

Status ThreadCache::resize(int64_t max_cache_size_bytes) {
  IQ_ASSERT(max_cache_size_bytes >= 0);
  const bool shrink = max_cache_size_bytes < max_bytes_;
  max_bytes_ = max_cache_size_bytes;
  if (!shrink) return ok_status();
  // Round-robin over namespaces, one entry each, until under budget; bounded by total entries.
  while (size_bytes_ > max_bytes_) {
    bool evicted_any = false;
    for (auto& [ns, cache] : caches_) {
      if (size_bytes_ <= max_bytes_) break;
      if (cache.empty()) continue;
      auto status = cache.evict();
      recount();
      if (!status) return status;
      evicted_any = true;
    }
    if (!evicted_any) break;
  }
  return ok_status();
}

}  // namespace iq
