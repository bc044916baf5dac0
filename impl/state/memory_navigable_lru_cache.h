#pragma once
// MemoryNavigableLRUCache (SI/MemoryLRUCache.java + SI/MemoryNavigableLRUCache.java): an
// in-memory store bounded by entry count, evicting the least recently ACCESSED key (Java's
// access-ordered LinkedHashMap: get() and an overwriting put() both refresh recency). Eviction
// happens only when a NEW key is inserted, never while restoring, and does not advance the
// position. Range scans read a sorted snapshot, which does not touch recency.

#include <functional>
#include <list>
#include <map>

#include "state/state_store.h"
#include "state/state_store_context.h"
#include "state/store_query_utils.h"

namespace iq {

class MemoryNavigableLRUCache final : public KeyValueBytesStore {
 public:
  // Called with the evicted key and value; the plain change-logging layer logs a tombstone.
  using EldestRemovedListener = std::function<Status(const Bytes& key, const Bytes& value)>;

  MemoryNavigableLRUCache(std::string name, int64_t max_cache_size);

  void set_when_eldest_removed(EldestRemovedListener listener) { listener_ = std::move(listener); }

  const std::string& name() const override { return name_; }
  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override { return ok_status(); }
  void close() override { open_ = false; }  // Kafka does not clear the map here
  bool persistent() const override { return false; }
  bool is_open() const override { return open_; }
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    return store_query_utils::handle_basic_queries(q, bound, config, *this, position_, context_);
  }
  Position position() const override { return position_; }
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.MemoryNavigableLRUCache";
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
  int64_t approximate_num_entries() override { return static_cast<int64_t>(map_.size()); }

  // Keys from least to most recently accessed, for tests of the eviction order.
  std::vector<Bytes> keys_in_access_order() const { return {recency_.begin(), recency_.end()}; }

 private:
  struct Entry {
    Bytes value;
    std::list<Bytes>::iterator recency;
  };
  void touch(Entry& e);
  Status insert_or_overwrite(const Bytes& key, const Bytes& value);
  StoreResult<ValueBytes> remove(const Bytes& key);
  Status restore_batch(const std::vector<ConsumerRecord>& records);

  std::string name_;
  int64_t max_cache_size_;
  std::map<Bytes, Entry> map_;
  std::list<Bytes> recency_;  // front: eldest (least recently accessed)
  EldestRemovedListener listener_;
  Position position_ = Position::empty_position();
  StateStoreContext* context_ = nullptr;
  bool consistency_enabled_ = false;
  bool restoring_ = false;
  bool open_ = true;  // MemoryLRUCache is open from construction
};

}  // namespace iq
