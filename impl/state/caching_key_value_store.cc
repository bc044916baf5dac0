#include "state/caching_key_value_store.h"

#include "iq/key_query.h"
#include "iq/serdes.h"
#include "state/key_value_ranges.h"

namespace iq {

Status CachingKeyValueStore::init(StateStoreContext& context, StateStore& root) {
  context_ = &context;
  cache_name_ = ThreadCache::name_space(context.task_id(), name());
  (void)cache();  // register the flush listener now, as Kafka's init does
  return WrappedKeyValueBytesStore::init(context, root);
}

ThreadCache& CachingKeyValueStore::cache() {
  IQ_ASSERT(context_ != nullptr, "caching store {} used before init", name());
  ThreadCache* current = context_->cache();
  IQ_ASSERT(current != nullptr, "caching store {} needs a thread cache", name());
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

StreamsError CachingKeyValueStore::closed_error() const {
  return {StreamsError::Kind::InvalidStateStore, "Store " + name() + " is currently closed"};
}

// Kafka merges both into an empty position; the merge is a per-partition max over the union of
// topics and partitions, so starting from the copy the store below hands back gives the same
// position with one copy fewer.
Position CachingKeyValueStore::position() const {
  Position merged = wrapped().position();
  merged.merge(position_);
  return merged;
}

QueryOutcome CachingKeyValueStore::query(const Query& q, const PositionBound& bound,
                                         const QueryConfig& config) {
  QueryOutcome result = [&]() -> QueryOutcome {  // built in place: no placeholder per query
    if (q.kind() != QueryKind::KeyQuery) return wrapped().query(q, bound, config);
    if (!is_open()) return base::unexpected(closed_error());  // escapes KafkaStreams#query
    const int32_t partition = context_->task_id().partition;
    Position merged = position();
    if (!store_query_utils::is_permitted(merged, bound, partition)) {
      // Kafka quirk 7: this NOT_UP_TO_BOUND carries no position, unlike the inner one.
      return QueryResult::not_up_to_bound(merged, bound, partition);
    }
    return run_key_query(q, std::move(merged), config);
  }();
  if (!result) return result;  // the closed store's error: no execution info, as before
  if (config.is_collect_execution_info()) {
    result->add_execution_info(store_query_utils::execution_info(java_class()));
  }
  return result;
}

QueryOutcome CachingKeyValueStore::run_key_query(const Query& q, Position merged,
                                                 const QueryConfig& config) {
  const auto* key_query = query_as<KeyQuery<Bytes, Bytes>>(q);
  IQ_ASSERT(key_query != nullptr, "a typed KeyQuery reached the caching layer");
  // Never true through the typed layers, which drop the flag (quirk 1); kept for custom callers.
  if (key_query->is_skip_cache()) return wrapped().query(q, PositionBound::at(merged), config);
  // A hit refreshes the entry's LRU recency: IQ reads change the eviction order (2.10).
  QueryOutcome result = [&]() -> QueryOutcome {  // built in place: no move through an optional
    const LRUCacheEntry* entry = cache().get(cache_name_, key_query->key());
    // The bound was checked on the merged position; the store below is asked unbounded.
    if (entry == nullptr) return wrapped().query(q, PositionBound::unbounded(), config);
    const bool strip_timestamp =
        timestamped_schema_ && !wrapped().is_timestamped() && !wrapped().is_adapter();
    if (RawValueSink* sink = key_query->value_sink()) {
      // The typed layer decodes from the cached bytes (raw_sinks.h): no copy of the value.
      std::optional<std::string_view> raw;
      if (entry->value) {
        raw = strip_timestamp ? timestamped_bytes::raw_value_view(*entry->value)
                              : entry->value->view();
      }
      sink->value(raw);
      return QueryResult::for_result(AnyResult());
    }
    ValueBytes raw = entry->value;
    if (strip_timestamp) raw = timestamped_bytes::raw_value(raw);
    return QueryResult::for_result(std::move(raw));
  }();
  if (result) result->set_position(std::move(merged));
  return result;
}

Status CachingKeyValueStore::put(const Bytes& key, const ValueBytes& value) {
  if (!is_open()) return base::unexpected(closed_error());
  return put_internal(key, value);
}

Status CachingKeyValueStore::put_internal(const Bytes& key, const ValueBytes& value) {
  const RecordContext* rc = context_->record_context();
  LRUCacheEntry entry{value, rc != nullptr ? *rc : RecordContext{}, /*dirty=*/true};
  auto s = cache().put(cache_name_, key, std::move(entry));
  store_query_utils::update_position(position_, context_);
  return s;
}

StoreResult<ValueBytes> CachingKeyValueStore::put_if_absent(const Bytes& key,
                                                            const ValueBytes& value) {
  auto original = get(key);
  if (!original) return original;
  if (!original->has_value()) {
    auto s = put_internal(key, value);
    if (!s) return base::unexpected(s.error());
  }
  return original;
}

Status CachingKeyValueStore::put_all(const std::vector<KeyValueBytes>& entries) {
  for (const auto& e : entries) {
    auto s = put(e.key, e.value);
    if (!s) return s;
  }
  return ok_status();
}

// A delete is a dirty tombstone in the cache; the store below sees put(key, null) at flush.
StoreResult<ValueBytes> CachingKeyValueStore::delete_key(const Bytes& key) {
  auto old = get(key);
  if (!old) return old;
  auto s = put_internal(key, std::nullopt);
  if (!s) return base::unexpected(s.error());
  return old;
}

// getInternal: a miss reads below and caches the value as a CLEAN entry (only the stream thread
// reads through here; IQ goes through query()).
StoreResult<ValueBytes> CachingKeyValueStore::get(const Bytes& key) {
  if (const LRUCacheEntry* entry = cache().get(cache_name_, key)) return entry->value;
  auto raw = wrapped().get(key);
  if (!raw || !raw->has_value()) return raw;
  auto s = cache().put(cache_name_, key, LRUCacheEntry::clean(**raw));
  if (!s) return base::unexpected(s.error());
  return raw;
}

// The merged view a processor sees (cache over store). IQv2 ranges never come here. Kafka's
// merged iterator reads cache entries with get(), refreshing recency; this merge reads a
// snapshot instead, so a processor's range scan does not reorder the LRU list.
StoreResult<BytesIterator> CachingKeyValueStore::range(const std::optional<Bytes>& from,
                                                       const std::optional<Bytes>& to,
                                                       bool reverse) {
  if (ranges::inverted(from, to)) return BytesIterator{{}, IteratorOrigin::EmptyIterator};
  auto below = wrapped().range(from, to, /*reverse=*/false);
  if (!below) return below;
  // Both sides are in key order: merge them in one pass, a cached entry overriding the store's
  // entry of the same key and a cached tombstone hiding it.
  std::vector<KeyValue<Bytes, Bytes>>& stored = below->entries;
  BytesIterator out{{}, IteratorOrigin::Converted};
  const NamedCache* named = cache().named_cache(cache_name_);
  out.entries.reserve(stored.size() + (named != nullptr ? named->entries() : 0));
  auto next = stored.begin();
  if (named != nullptr) {
    named->for_each_in_range(from, to, [&](const Bytes& key, const LRUCacheEntry& entry) {
      for (; next != stored.end() && next->key < key; ++next)
        out.entries.push_back(std::move(*next));
      if (next != stored.end() && next->key == key) ++next;
      if (entry.value) out.entries.push_back({key, *entry.value});
    });
  }
  for (; next != stored.end(); ++next) out.entries.push_back(std::move(*next));
  IQ_ASSERT(std::is_sorted(out.entries.begin(), out.entries.end(),
                           [](const auto& a, const auto& b) { return a.key < b.key; }),
            "merged range of {} out of order", cache_name_);
  if (reverse) std::reverse(out.entries.begin(), out.entries.end());
  return out;
}

Status CachingKeyValueStore::flush_cache() {
  return cache().flush(cache_name_);
}

void CachingKeyValueStore::clear_cache() {
  cache().clear(cache_name_);
}

Status CachingKeyValueStore::flush() {
  auto s = cache().flush(cache_name_);
  if (!s) return s;
  return wrapped().flush();
}

void CachingKeyValueStore::close() {
  if (context_ != nullptr) {
    auto s = cache().flush(cache_name_);
    IQ_ASSERT(s.has_value(), "flushing cache of {} on close: {}", name(),
              s ? "" : s.error().to_string());
    cache().close(cache_name_);
  }
  wrapped().close();
}

// putAndMaybeForward: write a flushed entry down under ITS OWN record context (KAFKA-13714), then
// put the current context back.
Status CachingKeyValueStore::put_and_maybe_forward(const DirtyEntry& entry) {
  ValueBytes old_value;
  if (forwarder_) {
    if (!entry.new_value || send_old_values_) {
      auto old = wrapped().get(entry.key);
      if (!old) return base::unexpected(old.error());
      old_value = *old;
    }
    // Nothing below and nothing new: skip the write (and so the position update) and the forward.
    if (!entry.new_value && !old_value) return ok_status();
  }
  const RecordContext* current = context_->record_context();
  std::optional<RecordContext> saved =
      current ? std::optional<RecordContext>(*current) : std::nullopt;
  context_->set_record_context(entry.context);
  auto s = wrapped().put(entry.key, entry.new_value);
  if (s && forwarder_)
    forwarder_(entry.key, entry.new_value, send_old_values_ ? old_value : std::nullopt,
               entry.context);
  context_->set_record_context(saved);
  return s;
}

}  // namespace iq
