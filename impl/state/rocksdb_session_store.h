#pragma once
// RocksDBSessionStore (SI/RocksDBSessionStore.java, SI/RocksDbSessionBytesStoreSupplier.java):
// the persistent session store, a SessionKeySchema view over a RocksDBSegmentedBytesStore whose
// segments are chosen by session END time, with segment interval max(retention / 2, 60 s). This
// layer is the position owner IQv2 reaches.
//
// Differences from the in-memory session store that a caller can see: findSessions orders a
// key's sessions by (end, start) ascending (key-byte order) rather than start-descending; the
// read floor is observedStreamTime - retention + 1 per session end, and a put is dropped only when
// its whole segment has expired; an expired put and a remove() leave the position as it was
// (Kafka quirk 20, rocksdb_segmented_bytes_store.cc).

#include "state/rocksdb_segmented_bytes_store.h"
#include "state/session_store.h"

namespace iq {

class RocksDBSessionStore final : public SessionBytesStore {
 public:
  static int64_t default_segment_interval_ms(int64_t retention_period_ms) {
    return std::max<int64_t>(retention_period_ms / 2, 60000);
  }

  RocksDBSessionStore(std::string name, int64_t retention_period_ms, int64_t segment_interval_ms);

  const std::string& name() const override { return bytes_store_.name(); }
  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override { return bytes_store_.flush(); }
  void close() override { bytes_store_.close(); }
  // KIP-1035 at the new pin: the segments keep the offsets (rocksdb_segmented_bytes_store.h).
  bool manages_offsets() const override { return bytes_store_.manages_offsets(); }
  Status commit(const ChangelogOffsets& offsets) override { return bytes_store_.commit(offsets); }
  StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& changelog) override {
    return bytes_store_.committed_offset(changelog);
  }
  bool persistent() const override { return true; }
  bool is_open() const override { return bytes_store_.is_open(); }
  // pin delta 7 (704fcb2655): READ_COMMITTED is bounded by and labelled with the segmented
  // store's committed position (getCommittedPosition), READ_UNCOMMITTED with getPosition().
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    const Position position = config.isolation_level() == IsolationLevel::READ_COMMITTED
                                  ? bytes_store_.committed_position()
                                  : bytes_store_.position();
    return store_query_utils::handle_basic_queries(q, bound, config, *this, position, context_);
  }
  Position position() const override { return bytes_store_.position(); }
  // KIP-892: the committed view (each segment's readOnly(READ_COMMITTED)) when transactional.
  ReadOnlySessionBytes& read_only(IsolationLevel level) override {
    if (bytes_store_.transactional() && level == IsolationLevel::READ_COMMITTED)
      return committed_view_;
    return *this;
  }
  int64_t approximate_num_uncommitted_bytes() const override {
    return bytes_store_.approximate_num_uncommitted_bytes();
  }
  std::optional<Position> committed_position() const override {
    if (!bytes_store_.transactional()) return std::nullopt;
    return bytes_store_.committed_position();
  }
  std::optional<int64_t> observed_stream_time() const override {
    return bytes_store_.observed_stream_time_ms();
  }
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.RocksDBSessionStore";
  }

  Status put(const Windowed<Bytes>& session, const ValueBytes& value) override {
    return bytes_store_.put(session_key_schema::to_binary(session), value);
  }
  Status remove(const Windowed<Bytes>& session) override {
    return bytes_store_.remove(session_key_schema::to_binary(session));
  }
  StoreResult<ValueBytes> fetch_session(const Bytes& key, int64_t session_start_ms,
                                        int64_t session_end_ms) override {
    return bytes_store_.get(session_key_schema::to_binary(key, session_start_ms, session_end_ms));
  }
  StoreResult<SessionBytesIterator> find_sessions(const Bytes& key, int64_t earliest_session_end_ms,
                                                  int64_t latest_session_start_ms,
                                                  bool forward) override {
    return find_sessions_at(key, earliest_session_end_ms, latest_session_start_ms, forward,
                            IsolationLevel::READ_UNCOMMITTED);
  }

  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) override {
    return bytes_store_.kept_entries(out);
  }
  RocksDBSegmentedBytesStore& bytes_store() { return bytes_store_; }

 private:
  // Kafka's ReadOnlyView at READ_COMMITTED: fetch(key) is findSessions(key, 0, Long.MAX_VALUE)
  // through the segments' committed views.
  class CommittedView final : public ReadOnlySessionBytes {
   public:
    explicit CommittedView(RocksDBSessionStore& store) : store_(store) {}
    StoreResult<SessionBytesIterator> fetch(const Bytes& key, bool forward) override {
      return store_.find_sessions_at(key, 0, std::numeric_limits<int64_t>::max(), forward,
                                     IsolationLevel::READ_COMMITTED);
    }

   private:
    RocksDBSessionStore& store_;
  };

  StoreResult<SessionBytesIterator> find_sessions_at(const Bytes& key,
                                                     int64_t earliest_session_end_ms,
                                                     int64_t latest_session_start_ms, bool forward,
                                                     IsolationLevel level);

  RocksDBSegmentedBytesStore bytes_store_;
  StateStoreContext* context_ = nullptr;
  CommittedView committed_view_{*this};
};

}  // namespace iq
