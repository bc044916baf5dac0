#include "state/change_logging_key_value_bytes_store.h"
#include "base/probe.h"

#include "iq/serdes.h"
#include "state/memory_navigable_lru_cache.h"
#include "state/state_store_context.h"

namespace iq {

Status ChangeLoggingKeyValueBytesStore::init(StateStoreContext& context, StateStore& root) {
  auto s = WrappedKeyValueBytesStore::init(context, root);
  if (!s) return s;
  context_ = &context;
  // maybeSetEvictionListener: only a plain LRU store directly below gets the tombstone-on-evict
  // listener. Under the timestamped builder a marker sits in between, so KTable LRU stores log
  // no eviction tombstones (a Kafka quirk kept as is).
  if (auto* lru = dynamic_cast<MemoryNavigableLRUCache*>(&wrapped())) {
    lru->set_when_eldest_removed([this](const Bytes& key, const Bytes&) {
      IQ_PROBE("lru.eviction_tombstone_logged",
               "an LRU eviction logged a changelog tombstone (only a plain-builder LRU store "
               "logs them: the PapiWriter topology over store_backend 'lru'; the DSL's "
               "timestamped builder puts a marker between the layers)");
      return log(key, std::nullopt, context_timestamp());
    });
  }
  return ok_status();
}

int64_t ChangeLoggingKeyValueBytesStore::context_timestamp() const {
  const RecordContext* rc = context_ != nullptr ? context_->record_context() : nullptr;
  return rc != nullptr ? rc->timestamp : 0;
}

Status ChangeLoggingKeyValueBytesStore::log(const Bytes& key, const ValueBytes& value,
                                            int64_t timestamp) {
  IQ_ASSERT(context_ != nullptr, "change-logging store {} written before init", name());
  // The inner position AFTER the write: the whole vector, this record's component included.
  return context_->log_change(name(), key, value, timestamp, wrapped().position());
}

Status ChangeLoggingKeyValueBytesStore::put(const Bytes& key, const ValueBytes& value) {
  auto s = wrapped().put(key, value);
  if (!s) return s;
  auto [logged, ts] = changelog_value(value);
  return log(key, logged, ts);
}

StoreResult<ValueBytes> ChangeLoggingKeyValueBytesStore::put_if_absent(const Bytes& key,
                                                                       const ValueBytes& value) {
  auto previous = wrapped().put_if_absent(key, value);
  if (!previous) return previous;
  if (!previous->has_value()) {
    auto [logged, ts] = changelog_value(value);
    auto s = log(key, logged, ts);
    if (!s) return base::unexpected(s.error());
  }
  return previous;
}

Status ChangeLoggingKeyValueBytesStore::put_all(const std::vector<KeyValueBytes>& entries) {
  auto s = wrapped().put_all(entries);
  if (!s) return s;
  for (const auto& e : entries) {
    auto [logged, ts] = changelog_value(e.value);
    s = log(e.key, logged, ts);
    if (!s) return s;
  }
  return ok_status();
}

StoreResult<ValueBytes> ChangeLoggingKeyValueBytesStore::delete_key(const Bytes& key) {
  auto old = wrapped().delete_key(key);
  if (!old) return old;
  auto s = log(key, std::nullopt, context_timestamp());
  if (!s) return base::unexpected(s.error());
  return old;
}

std::pair<ValueBytes, int64_t> ChangeLoggingTimestampedKeyValueBytesStore::changelog_value(
    const ValueBytes& stored) const {
  if (!stored) return {std::nullopt, context_timestamp()};
  return {timestamped_bytes::raw_value(*stored), timestamped_bytes::timestamp(*stored)};
}

}  // namespace iq
