#pragma once
// ThreadCache and NamedCache (SI/ThreadCache.java, SI/NamedCache.java): the record cache a stream
// thread shares among its caching stores, bounded in bytes.
//
// Each store has a namespace ("<task>-<store>") holding an LRU list of entries and the set of
// dirty keys in last-write order. When a put takes the thread's total over its budget, entries
// are evicted from THAT namespace only, eldest first; evicting a dirty entry flushes it and then
// every other dirty entry of the namespace, through the store's flush listener, each under the
// entry's own record context (KAFKA-13714). Tombstones are dropped from the cache once flushed.

#include <functional>
#include <list>
#include <map>
#include <string>
#include <vector>

#include "base/assert.h"
#include "iq/bytes.h"
#include "state/state_store.h"
#include "state/state_store_context.h"

namespace iq {

// LRUCacheEntry: a value (nullopt: a tombstone) with the record context it was written under.
struct LRUCacheEntry {
  ValueBytes value;
  RecordContext context;
  bool dirty = false;

  // A clean entry, as the stream thread caches a value read from the store below.
  static LRUCacheEntry clean(const Bytes& value) {
    return {value, RecordContext{std::string(""), -1, -1, -1, {}}, false};
  }
  // 1 (isDirty) + value length + ProcessorRecordContext.residentMemorySizeEstimate().
  int64_t size_bytes() const;
};

struct DirtyEntry {
  Bytes key;
  ValueBytes new_value;
  RecordContext context;
};

using FlushListener = std::function<Status(const std::vector<DirtyEntry>&)>;

class NamedCache {
 public:
  explicit NamedCache(std::string name) : name_(std::move(name)) {}

  void set_listener(FlushListener listener) { listener_ = std::move(listener); }
  const std::string& name() const { return name_; }
  int64_t size_bytes() const { return size_bytes_; }
  bool empty() const { return map_.empty(); }
  size_t entries() const { return map_.size(); }
  size_t dirty_count() const { return dirty_.size(); }

  // A hit moves the entry to most recently used.
  const LRUCacheEntry* get(const Bytes& key);
  // A look without touching recency.
  const LRUCacheEntry* peek(const Bytes& key) const {
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second.entry;
  }
  void put(const Bytes& key, LRUCacheEntry entry);
  std::optional<LRUCacheEntry> remove(const Bytes& key);
  // Drop the eldest entry; if it was dirty, flush it first and every other dirty entry after.
  [[nodiscard]] Status evict();
  [[nodiscard]] Status flush() { return flush_dirty(nullptr); }
  // Drop everything without flushing (clearCache on recycle, KAFKA-14172).
  void clear();
  // The entries with from <= key <= to (an absent bound is open) in key order, without touching
  // recency: the caching store's merged range reads the cache through this.
  template <typename Visit>
  void for_each_in_range(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                         Visit visit) const {
    auto it = from ? map_.lower_bound(*from) : map_.begin();
    const auto last = to ? map_.upper_bound(*to) : map_.end();
    for (; it != last; ++it) visit(it->first, it->second.entry);
  }
  // Keys from eldest to most recently used, for tests.
  std::vector<Bytes> keys_eldest_first() const { return {lru_.begin(), lru_.end()}; }

 private:
  struct Node {
    LRUCacheEntry entry;
    std::list<Bytes>::iterator lru;
    std::optional<std::list<Bytes>::iterator> dirty;
    int64_t size_bytes() const;
  };
  struct Evicted {
    Bytes key;
    LRUCacheEntry entry;
  };
  Status flush_dirty(const Evicted* evicted);
  void unlink(std::map<Bytes, Node>::iterator it);

  std::string name_;
  std::map<Bytes, Node> map_;
  std::list<Bytes> lru_;    // front: eldest
  std::list<Bytes> dirty_;  // in order of last dirty write
  int64_t size_bytes_ = 0;
  FlushListener listener_;
};

class ThreadCache {
 public:
  explicit ThreadCache(int64_t max_cache_size_bytes) : max_bytes_(max_cache_size_bytes) {
    IQ_ASSERT(max_bytes_ >= 0);
  }

  static std::string name_space(const TaskId& task, const std::string& store) {
    return task.to_string() + "-" + store;
  }

  void add_dirty_entry_flush_listener(const std::string& ns, FlushListener listener) {
    cache_for(ns).set_listener(std::move(listener));
  }
  const LRUCacheEntry* get(const std::string& ns, const Bytes& key);
  [[nodiscard]] Status put(const std::string& ns, const Bytes& key, LRUCacheEntry entry);
  std::optional<LRUCacheEntry> remove(const std::string& ns, const Bytes& key);
  [[nodiscard]] Status flush(const std::string& ns);
  void clear(const std::string& ns);
  void close(const std::string& ns);
  // Shrinking evicts round-robin across namespaces until under budget.
  [[nodiscard]] Status resize(int64_t max_cache_size_bytes);

  int64_t size_bytes() const { return size_bytes_; }
  int64_t max_bytes() const { return max_bytes_; }
  const NamedCache* named_cache(const std::string& ns) const {
    auto it = caches_.find(ns);
    return it == caches_.end() ? nullptr : &it->second;
  }

 private:
  NamedCache& cache_for(const std::string& ns);
  Status maybe_evict(NamedCache& cache);
  void recount();

  int64_t max_bytes_;
  int64_t size_bytes_ = 0;
  std::map<std::string, NamedCache> caches_;
};

}  // namespace iq
