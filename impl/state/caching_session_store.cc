#include "state/caching_session_store.h"

#include <map>

namespace iq {

CachingSessionStore::CachingSessionStore(std::unique_ptr<SessionBytesStore> wrapped,
                                         int64_t segment_interval_ms)
    : WrappedSessionBytesStore(std::move(wrapped)), segment_interval_ms_(segment_interval_ms) {
  IQ_ASSERT(segment_interval_ms_ > 0, "segment interval {}", segment_interval_ms_);
}

Status CachingSessionStore::init(StateStoreContext& context, StateStore& root) {
  cache_.init(context, name(), [this](const DirtyEntry& e) { return put_and_maybe_forward(e); });
  return WrappedSessionBytesStore::init(context, root);
}

StreamsError CachingSessionStore::closed_error() const {
  return {StreamsError::Kind::InvalidStateStore, "Store " + name() + " is currently closed"};
}

// SegmentedCacheFunction.cacheKey: the 8-byte segment id of the session end, then the store key.
Bytes CachingSessionStore::cache_key(const Bytes& binary_key) const {
  return segmented_cache_function::cache_key(
      session_key_schema::extract_end_timestamp(binary_key) / segment_interval_ms_, binary_key);
}

Status CachingSessionStore::put(const Windowed<Bytes>& session, const ValueBytes& value) {
  if (!is_open()) return base::unexpected(closed_error());
  return cache_.put_dirty(cache_key(session_key_schema::to_binary(session)), value);
}

StoreResult<ValueBytes> CachingSessionStore::fetch_session(const Bytes& key,
                                                           int64_t session_start_ms,
                                                           int64_t session_end_ms) {
  if (!is_open()) return base::unexpected(closed_error());
  const Bytes binary = session_key_schema::to_binary(key, session_start_ms, session_end_ms);
  if (const LRUCacheEntry* entry = cache_.cache().get(cache_.cache_name(), cache_key(binary)))
    return entry->value;
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
  cache_.for_each_cached([&](const Bytes& ck, const ValueBytes& value) {
    const Bytes binary = segmented_cache_function::key(ck);
    const Windowed<Bytes> s = session_key_schema::from(binary);
    // SessionKeySchema.hasNextCondition on the cached entries.
    if (s.key != key || s.end_ms < earliest_session_end_ms ||
        s.start_ms > latest_session_start_ms) {
      return;
    }
    merged.insert_or_assign(binary, value);
  });
  SessionBytesIterator out{{}, IteratorOrigin::Converted};
  for (auto& [binary, v] : merged)
    if (v) out.entries.push_back({session_key_schema::from(binary), *v});
  if (!forward) std::reverse(out.entries.begin(), out.entries.end());
  return out;
}

Status CachingSessionStore::flush() {
  auto s = cache_.flush_cache();
  if (!s) return s;
  return wrapped().flush();
}

void CachingSessionStore::close() {
  cache_.close();
  wrapped().close();
}

// putAndMaybeForward (RecordCacheBinding): with a listener, a tombstone for a session absent
// below is skipped (neither written nor forwarded).
Status CachingSessionStore::put_and_maybe_forward(const DirtyEntry& entry) {
  const Bytes binary = segmented_cache_function::key(entry.key);
  const Windowed<Bytes> session = session_key_schema::from(binary);
  return cache_.put_and_maybe_forward(
      entry, binary,
      [&] { return wrapped().fetch_session(session.key, session.start_ms, session.end_ms); },
      [&] { return wrapped().put(session, entry.new_value); });
}

}  // namespace iq
