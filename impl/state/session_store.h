#pragma once
// The bytes session store (SessionStore<Bytes, byte[]>) that every session layer below the typed
// one implements, the pass-through layer (WrappedStateStore over a session store), and
// SessionKeySchema's store key, which the changelog, the record cache and the RocksDB session
// store use.
//
// A session is (key, start, end), both ends inclusive (SessionWindow). Session stores are never
// timestamped (IQv2StoreIntegrationTest: "Idiosyncratically, SessionStores are _never_
// timestamped").

#include <limits>
#include <memory>

#include "iq/key_value_iterator.h"
#include "iq/serdes.h"
#include "iq/windowed.h"
#include "state/state_store.h"
#include "state/store_query_utils.h"
#include "state/wrapped_state_store.h"

namespace iq {

// KeyValueIterator<Windowed<Bytes>, byte[]> of sessions.
using SessionBytesIterator = KeyValueIterator<Windowed<Bytes>, Bytes>;

// ReadOnlySessionStore<Bytes, byte[]>: the read IQv2 makes of a session store (a WindowRangeQuery
// withKey is fetch(key)), which a session store is, and what SessionBytesStore::read_only(level)
// hands out.
class ReadOnlySessionBytes {
 public:
  virtual ~ReadOnlySessionBytes() = default;
  [[nodiscard]] virtual StoreResult<SessionBytesIterator> fetch(const Bytes& key, bool forward) = 0;
};

class SessionBytesStore : public StateStore, public ReadOnlySessionBytes {
 public:
  // KIP-892 (pin delta 5; docs/kafka-2026-08-20.md §3.4.3-4): SessionStore.readOnly(level), through
  // which StoreQueryUtils reads; the store itself by default (both levels alike), a transactional
  // position owner's committed view for READ_COMMITTED.
  virtual ReadOnlySessionBytes& read_only(IsolationLevel /*level*/) { return *this; }
  // put(sessionKey, aggregate): a null aggregate removes the session.
  [[nodiscard]] virtual Status put(const Windowed<Bytes>& session, const ValueBytes& value) = 0;
  [[nodiscard]] virtual Status remove(const Windowed<Bytes>& session) = 0;
  // fetchSession(key, sessionStartTime, sessionEndTime): one session's aggregate, or nullopt.
  [[nodiscard]] virtual StoreResult<ValueBytes> fetch_session(const Bytes& key,
                                                              int64_t session_start_ms,
                                                              int64_t session_end_ms) = 0;
  // findSessions(key, earliestSessionEndTime, latestSessionStartTime) and backwardFindSessions:
  // the sessions of `key` with end >= earliest_end and start <= latest_start.
  [[nodiscard]] virtual StoreResult<SessionBytesIterator> find_sessions(
      const Bytes& key, int64_t earliest_session_end_ms, int64_t latest_session_start_ms,
      bool forward) = 0;
  // fetch(key) / backwardFetch(key): findSessions(key, 0, Long.MAX_VALUE) in every store Kafka
  // has (the in-memory one iterates its whole map, with the same result).
  [[nodiscard]] StoreResult<SessionBytesIterator> fetch(const Bytes& key, bool forward) override {
    return find_sessions(key, 0, std::numeric_limits<int64_t>::max(), forward);
  }
};

namespace session_key_schema {

inline constexpr size_t kTimestampSize = 8;

// [key][8-byte big-endian end][8-byte big-endian start]: the end first, so a key's sessions are
// ordered by end time.
inline Bytes to_binary(const Bytes& key, int64_t start_ms, int64_t end_ms) {
  return Bytes(key.get() + serde_detail::to_big_endian(static_cast<uint64_t>(end_ms)) +
               serde_detail::to_big_endian(static_cast<uint64_t>(start_ms)));
}
inline Bytes to_binary(const Windowed<Bytes>& session) {
  return to_binary(session.key, session.start_ms, session.end_ms);
}
inline Bytes extract_key_bytes(const Bytes& binary) {
  IQ_ASSERT(binary.size() >= 2 * kTimestampSize, "session key of {} bytes", binary.size());
  return Bytes(std::string(binary.view().substr(0, binary.size() - 2 * kTimestampSize)));
}
inline int64_t extract_end_timestamp(const Bytes& binary) {
  IQ_ASSERT(binary.size() >= 2 * kTimestampSize, "session key of {} bytes", binary.size());
  return static_cast<int64_t>(serde_detail::from_big_endian<uint64_t>(
      binary.view().substr(binary.size() - 2 * kTimestampSize, kTimestampSize)));
}
inline int64_t extract_start_timestamp(const Bytes& binary) {
  IQ_ASSERT(binary.size() >= 2 * kTimestampSize, "session key of {} bytes", binary.size());
  return static_cast<int64_t>(serde_detail::from_big_endian<uint64_t>(
      binary.view().substr(binary.size() - kTimestampSize, kTimestampSize)));
}
inline Windowed<Bytes> from(const Bytes& binary) {
  return {extract_key_bytes(binary), extract_start_timestamp(binary),
          extract_end_timestamp(binary)};
}

}  // namespace session_key_schema

// WrappedStateStore over a session store: owns the layer below and passes everything through.
class WrappedSessionBytesStore : public WrappedStateStore<SessionBytesStore> {
 public:
  using WrappedStateStore::WrappedStateStore;

  Status put(const Windowed<Bytes>& session, const ValueBytes& value) override {
    return wrapped().put(session, value);
  }
  Status remove(const Windowed<Bytes>& session) override { return wrapped().remove(session); }
  StoreResult<ValueBytes> fetch_session(const Bytes& key, int64_t session_start_ms,
                                        int64_t session_end_ms) override {
    return wrapped().fetch_session(key, session_start_ms, session_end_ms);
  }
  StoreResult<SessionBytesIterator> find_sessions(const Bytes& key, int64_t earliest_session_end_ms,
                                                  int64_t latest_session_start_ms,
                                                  bool forward) override {
    return wrapped().find_sessions(key, earliest_session_end_ms, latest_session_start_ms, forward);
  }
  StoreResult<SessionBytesIterator> fetch(const Bytes& key, bool forward) override {
    return wrapped().fetch(key, forward);
  }
};

}  // namespace iq
