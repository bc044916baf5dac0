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

namespace iq {

// KeyValueIterator<Windowed<Bytes>, byte[]> of sessions.
using SessionBytesIterator = KeyValueIterator<Windowed<Bytes>, Bytes>;

class SessionBytesStore : public StateStore {
 public:
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
  [[nodiscard]] virtual StoreResult<SessionBytesIterator> fetch(const Bytes& key, bool forward) {
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
class WrappedSessionBytesStore : public SessionBytesStore {
 public:
  explicit WrappedSessionBytesStore(std::unique_ptr<SessionBytesStore> wrapped)
      : wrapped_(std::move(wrapped)) {
    IQ_ASSERT(wrapped_ != nullptr);
  }

  const std::string& name() const override { return wrapped_->name(); }
  Status init(StateStoreContext& context, StateStore& root) override {
    return wrapped_->init(context, root);
  }
  Status flush() override { return wrapped_->flush(); }
  void close() override { wrapped_->close(); }
  bool persistent() const override { return wrapped_->persistent(); }
  bool is_open() const override { return wrapped_->is_open(); }
  Position position() const override { return wrapped_->position(); }

  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    auto result = wrapped_->query(q, bound, config);
    if (result && config.is_collect_execution_info()) {
      result->add_execution_info(store_query_utils::execution_info(java_class()) +
                                 " via WrappedStateStore");
    }
    return result;
  }

  Status put(const Windowed<Bytes>& session, const ValueBytes& value) override {
    return wrapped_->put(session, value);
  }
  Status remove(const Windowed<Bytes>& session) override { return wrapped_->remove(session); }
  StoreResult<ValueBytes> fetch_session(const Bytes& key, int64_t session_start_ms,
                                        int64_t session_end_ms) override {
    return wrapped_->fetch_session(key, session_start_ms, session_end_ms);
  }
  StoreResult<SessionBytesIterator> find_sessions(const Bytes& key, int64_t earliest_session_end_ms,
                                                  int64_t latest_session_start_ms,
                                                  bool forward) override {
    return wrapped_->find_sessions(key, earliest_session_end_ms, latest_session_start_ms, forward);
  }
  StoreResult<SessionBytesIterator> fetch(const Bytes& key, bool forward) override {
    return wrapped_->fetch(key, forward);
  }

  SessionBytesStore& wrapped() { return *wrapped_; }
  const SessionBytesStore& wrapped() const { return *wrapped_; }

 private:
  std::unique_ptr<SessionBytesStore> wrapped_;
};

}  // namespace iq
