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
  return ok_status();
}

Status InMemoryKeyValueStore::put(const Bytes& key, const ValueBytes& value) {
  if (value) {
    map_.insert_or_assign(key, *value);
  } else {
    map_.erase(key);
  }
  store_query_utils::update_position(position_, context_);
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
// position; only put(k, null) advances it.
StoreResult<ValueBytes> InMemoryKeyValueStore::delete_key(const Bytes& key) {
  auto it = map_.find(key);
  if (it == map_.end()) return ValueBytes{};
  ValueBytes old = std::move(it->second);
  map_.erase(it);
  return old;
}

StoreResult<ValueBytes> InMemoryKeyValueStore::get(const Bytes& key) {
  auto it = map_.find(key);
  if (it == map_.end()) return ValueBytes{};
  return ValueBytes(it->second);
}

StoreResult<BytesIterator> InMemoryKeyValueStore::range(const std::optional<Bytes>& from,
                                                        const std::optional<Bytes>& to,
                                                        bool reverse) {
  return ranges::scan_sorted_map(map_, from, to, reverse, IteratorOrigin::InMemoryIterator);
}

Status InMemoryKeyValueStore::get_into(const Bytes& key, RawValueSink& sink) {
  auto it = map_.find(key);
  sink.value(it == map_.end() ? std::nullopt : std::optional<std::string_view>(it->second.view()));
  return ok_status();
}

StoreResult<IteratorOrigin> InMemoryKeyValueStore::range_into(const std::optional<Bytes>& from,
                                                              const std::optional<Bytes>& to,
                                                              bool reverse, RawEntrySink& sink) {
  return ranges::scan_sorted_map_into(map_, from, to, reverse, IteratorOrigin::InMemoryIterator,
                                      sink);
}

Status InMemoryKeyValueStore::restore_batch(const std::vector<ConsumerRecord>& records) {
  for (const auto& record : records) {
    if (!record.key) continue;
    // put() also applies the current record context: empty while restoring, except on a revived
    // active task, which re-adds its last (already included) component.
    auto s = put(*record.key, record.value);
    if (!s) return s;
    s = store_query_utils::apply_checks_and_update_position(record, consistency_enabled_,
                                                            position_);
    if (!s) return s;
  }
  return ok_status();
}

}  // namespace iq
