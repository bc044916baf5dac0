#include "state/in_memory_key_value_store.h"

#include "state/key_value_ranges.h"

namespace iq {

Status InMemoryKeyValueStore::init(StateStoreContext& context, StateStore& root) {
  consistency_enabled_ = context.consistency_enabled();
  context.register_store(
      root, [this](const std::vector<ConsumerRecord>& records) { return restore_batch(records); },
      /*commit=*/nullptr);  // in-memory stores never persist their position (KAFKA-13605)
  open_ = true;
  // Kafka assigns the context after registering: between the two a query answers "not
  // initialized" (docs/iqv2-semantics.md §2).
  context_ = &context;
  // pin delta 5: enable.transactional.statestores, read at every init.
  if (context.transactional_state_stores()) {
    buffer_ = std::make_unique<TransactionBuffer>();
  } else {
    buffer_.reset();
  }
  return ok_status();
}

// pin delta 7: the staged position (committed + pending, a copy) when transactional.
Position InMemoryKeyValueStore::position() const {
  return buffer_ ? buffer_->staged_over(position_) : position_;
}

// pin delta 7 (§3.3): READ_UNCOMMITTED on a transactional store is bounded by and labelled with
// the staged position; READ_COMMITTED (and any level on a non-transactional store) with the
// committed one.
QueryOutcome InMemoryKeyValueStore::query(const Query& q, const PositionBound& bound,
                                          const QueryConfig& config) {
  if (buffer_ && config.isolation_level() == IsolationLevel::READ_UNCOMMITTED) {
    return store_query_utils::handle_basic_queries(q, bound, config, *this, position(), context_);
  }
  return store_query_utils::handle_basic_queries(q, bound, config, *this, position_, context_);
}

ReadOnlyKeyValueBytes& InMemoryKeyValueStore::read_only(IsolationLevel level) {
  if (buffer_ && level == IsolationLevel::READ_COMMITTED) return committed_view_;
  return *this;
}

void InMemoryKeyValueStore::put_internal(const Bytes& key, const ValueBytes& value) {
  if (value) {
    map_.insert_or_assign(key, *value);
  } else {
    map_.erase(key);
  }
  store_query_utils::update_position(position_, context_);
}

Status InMemoryKeyValueStore::put(const Bytes& key, const ValueBytes& value) {
  if (buffer_) {
    buffer_->stage(key, value);
    buffer_->update_position(context_);
    return ok_status();
  }
  put_internal(key, value);
  return ok_status();
}

StoreResult<ValueBytes> InMemoryKeyValueStore::put_if_absent(const Bytes& key,
                                                             const ValueBytes& value) {
  auto original = get(key);
  if (!original->has_value()) {
    auto s = put(key, value);
    if (!s) return base::unexpected(s.error());
  }
  return original;
}

Status InMemoryKeyValueStore::put_all(const std::vector<KeyValueBytes>& entries) {
  for (const auto& e : entries) {
    auto s = put(e.key, e.value);  // one position update per entry, as Kafka's putAll
    if (!s) return s;
  }
  return ok_status();
}

// Kafka quirk (docs/iqv2-semantics.md §7, quirk 6): delete() removes the key WITHOUT advancing the
// position; only put(k, null) advances it. Transactional: the old value as READ_UNCOMMITTED sees
// it, and a staged tombstone, still with no position update.
StoreResult<ValueBytes> InMemoryKeyValueStore::delete_key(const Bytes& key) {
  if (buffer_) {
    ValueBytes old = get_at(key, IsolationLevel::READ_UNCOMMITTED);
    buffer_->stage(key, std::nullopt);
    return old;
  }
  auto it = map_.find(key);
  if (it == map_.end()) return ValueBytes{};
  ValueBytes old = std::move(it->second);
  map_.erase(it);
  return old;
}

StoreResult<ValueBytes> InMemoryKeyValueStore::get(const Bytes& key) {
  return get_at(key, IsolationLevel::READ_UNCOMMITTED);
}

ValueBytes InMemoryKeyValueStore::get_at(const Bytes& key, IsolationLevel level) const {
  if (buffer_ && level == IsolationLevel::READ_UNCOMMITTED) {
    if (const ValueBytes* staged = buffer_->get(key)) return *staged;
  }
  auto it = map_.find(key);
  if (it == map_.end()) return ValueBytes{};
  return ValueBytes(it->second);
}

StoreResult<BytesIterator> InMemoryKeyValueStore::range(const std::optional<Bytes>& from,
                                                        const std::optional<Bytes>& to,
                                                        bool reverse) {
  return range_at(from, to, reverse, IsolationLevel::READ_UNCOMMITTED);
}

// A transactional store's range goes through its buffer at either level (Kafka's
// transactionBuffer.range(from, to, forward, true, level)): under READ_COMMITTED the staged copy
// is empty and the merge is the map's range.
BytesIterator InMemoryKeyValueStore::range_at(const std::optional<Bytes>& from,
                                              const std::optional<Bytes>& to, bool reverse,
                                              IsolationLevel level) const {
  if (!buffer_ || ranges::inverted(from, to)) {
    return ranges::scan_sorted_map(map_, from, to, reverse, IteratorOrigin::InMemoryIterator);
  }
  BytesIterator base =
      ranges::scan_sorted_map(map_, from, to, reverse, IteratorOrigin::InMemoryIterator);
  return BytesIterator{
      staged_merge(buffer_->staging_snapshot(from, to, /*to_inclusive=*/true, level), base.entries,
                   reverse),
      IteratorOrigin::StagedMergeIterator};
}

Status InMemoryKeyValueStore::get_into(const Bytes& key, RawValueSink& sink) {
  if (buffer_) {
    const ValueBytes value = get_at(key, IsolationLevel::READ_UNCOMMITTED);
    sink.value(value ? std::optional<std::string_view>(value->view()) : std::nullopt);
    return ok_status();
  }
  auto it = map_.find(key);
  sink.value(it == map_.end() ? std::nullopt : std::optional<std::string_view>(it->second.view()));
  return ok_status();
}

StoreResult<IteratorOrigin> InMemoryKeyValueStore::range_into(const std::optional<Bytes>& from,
                                                              const std::optional<Bytes>& to,
                                                              bool reverse, RawEntrySink& sink) {
  if (buffer_) {
    const BytesIterator it = range_at(from, to, reverse, IsolationLevel::READ_UNCOMMITTED);
    for (const auto& kv : it.entries) sink.entry(kv.key.view(), kv.value.view());
    return it.origin;
  }
  return ranges::scan_sorted_map_into(map_, from, to, reverse, IteratorOrigin::InMemoryIterator,
                                      sink);
}

// commitStagedWrites: the pending position into the committed one, then the staged writes into
// the map. A store that is not transactional has nothing to commit.
Status InMemoryKeyValueStore::commit(const ChangelogOffsets& /*offsets*/) {
  if (!buffer_) return ok_status();
  buffer_->merge_pending_position_into(position_);
  return buffer_->commit([this](const StagedWrites& staged) -> Status {
    for (const auto& [key, value] : staged) {
      if (value) {
        map_.insert_or_assign(key, *value);
      } else {
        map_.erase(key);
      }
    }
    return ok_status();
  });
}

Status InMemoryKeyValueStore::restore_batch(const std::vector<ConsumerRecord>& records) {
  for (const auto& record : records) {
    if (!record.key) continue;
    // putInternal: the map and the committed position, past any transaction buffer (restored
    // data is committed on arrival). It also applies the current record context: empty while
    // restoring, except on a revived active task, which re-adds its last (already included)
    // component.
    put_internal(*record.key, record.value);
    auto s = store_query_utils::apply_checks_and_update_position(record, consistency_enabled_,
                                                                 position_);
    if (!s) return s;
  }
  return ok_status();
}

}  // namespace iq
