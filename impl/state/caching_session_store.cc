#include "state/caching_session_store.h"

#include <map>

namespace iq {

CachingSessionStore::CachingSessionStore(std::unique_ptr<SessionBytesStore> wrapped,
                                         int64_t segment_interval_ms)
    : WrappedSessionBytesStore(std::move(wrapped)), segment_interval_ms_(segment_interval_ms) {
  IQ_ASSERT(segment_interval_ms_ > 0, "segment interval {}", segment_interval_ms_);
}

Status CachingSessionStore::init(StateStoreContext& context, StateStore& root) {
  context_ = &context;
  cache_name_ = ThreadCache::name_space(context.task_id(), name());
  (void)cache();  // register the flush listener now, as Kafka's init does
  return WrappedSessionBytesStore::init(context, root);
}

ThreadCache& CachingSessionStore::cache() {
  IQ_ASSERT(context_ != nullptr, "caching session store {} used before init", name());
  ThreadCache* current = context_->cache();
  IQ_ASSERT(current != nullptr, "caching session store {} needs a thread cache", name());
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

StreamsError CachingSessionStore::closed_error() const {
  return {StreamsError::Kind::InvalidStateStore, "Store " + name() + " is currently closed"};
}

// SegmentedCacheFunction.cacheKey: the 8-byte segment id of the session end, then the store key.
Bytes CachingSessionStore::cache_key(const Bytes& binary_key) const {
  const int64_t segment_id =
      session_key_schema::extract_end_timestamp(binary_key) / segment_interval_ms_;
  return Bytes(serde_detail::to_big_endian(static_cast<uint64_t>(segment_id)) + binary_key.get());
}

// No position update here: the position advances only when the flush writes the entry below.
Status CachingSessionStore::put(const Windowed<Bytes>& session, const ValueBytes& value) {
  if (!is_open()) return base::unexpected(closed_error());
  const RecordContext* rc = context_->record_context();
  LRUCacheEntry entry{value, rc != nullptr ? *rc : RecordContext{}, /*dirty=*/true};
  return cache().put(cache_name_, cache_key(session_key_schema::to_binary(session)),
                     std::move(entry));
}

StoreResult<ValueBytes> CachingSessionStore::fetch_session(const Bytes& key,
                                                           int64_t session_start_ms,
                                                           int64_t session_end_ms) {
  if (!is_open()) return base::unexpected(closed_error());
  const Bytes binary = session_key_schema::to_binary(key, session_start_ms, session_end_ms);
  if (const LRUCacheEntry* entry = cache().get(cache_name_, cache_key(binary))) return entry->value;
  return wrapped().fetch_session(key, session_start_ms, session_end_ms);
}

StoreResult<SessionBytesIterator> CachingSessionStore::find_sessions(
    const Bytes& key, int64_t earliest_session_end_ms, int64_t latest_session_start_ms,
    bool forward) {
  if (!is_open()) return base::unexpected(closed_error());
  auto below = wrapped().find_sessions(key, earliest_session_end_ms, latest_session_start_ms, true);
  if (!below) return below;
  std::map<Bytes, ValueBytes> merged;  // by SessionKeySchema bytes
  for (auto& e : below->entries) merged.emplace(session_key_schema::to_binary(e.key), e.value);
  if (const NamedCache* named = context_->cache()->named_cache(cache_name_)) {
    for (const Bytes& ck : named->keys_eldest_first()) {
      const Bytes binary(std::string(ck.view().substr(8)));
      const Windowed<Bytes> s = session_key_schema::from(binary);
      // SessionKeySchema.hasNextCondition on the cached entries.
      if (s.key != key || s.end_ms < earliest_session_end_ms ||
          s.start_ms > latest_session_start_ms) {
        continue;
      }
      merged.insert_or_assign(binary, named->peek(ck)->value);
    }
  }
  SessionBytesIterator out{{}, IteratorOrigin::Converted};
  for (auto& [binary, v] : merged)
    if (v) out.entries.push_back({session_key_schema::from(binary), *v});
  if (!forward) std::reverse(out.entries.begin(), out.entries.end());
  return out;
}

Status CachingSessionStore::flush_cache() {
  return cache().flush(cache_name_);
}

void CachingSessionStore::clear_cache() {
  cache().clear(cache_name_);
}

Status CachingSessionStore::flush() {
  auto s = cache().flush(cache_name_);
  if (!s) return s;
  return wrapped().flush();
}

void CachingSessionStore::close() {
  if (context_ != nullptr) {
    auto s = cache().flush(cache_name_);
    IQ_ASSERT(s.has_value(), "flushing cache of {} on close: {}", name(),
              s ? "" : s.error().to_string());
    cache().close(cache_name_);
  }
  wrapped().close();
}

// putAndMaybeForward: write a flushed entry below under ITS OWN record context, then put the
// current context back. With a listener, a tombstone for a session absent below is skipped
// (neither written nor forwarded).
Status CachingSessionStore::put_and_maybe_forward(const DirtyEntry& entry) {
  const Bytes binary(std::string(entry.key.view().substr(8)));
  const Windowed<Bytes> session = session_key_schema::from(binary);
  ValueBytes old_value;
  if (forwarder_) {
    if (!entry.new_value || send_old_values_) {
      auto old = wrapped().fetch_session(session.key, session.start_ms, session.end_ms);
      if (!old) return base::unexpected(old.error());
      old_value = *old;
    }
    if (!entry.new_value && !old_value) return ok_status();
  }
  const RecordContext* current = context_->record_context();
  std::optional<RecordContext> saved =
      current ? std::optional<RecordContext>(*current) : std::nullopt;
  context_->set_record_context(entry.context);
  auto s = wrapped().put(session, entry.new_value);
  if (s && forwarder_)
    forwarder_(binary, entry.new_value, send_old_values_ ? old_value : std::nullopt, entry.context);
  context_->set_record_context(saved);
  return s;
}

}  // namespace iq
