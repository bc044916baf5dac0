#pragma once
// InMemorySessionStore (SI/InMemorySessionStore.java): session end -> key -> session start ->
// aggregate. Retention follows the observed stream time, the largest session END ever put: a
// session whose end is at or below observedStreamTime - retention is dropped on put, and every
// operation first removes the end times below max(0, observedStreamTime - retention + 1).
// Not persistent: a restart rebuilds it from the changelog and starts from an empty position.
//
// Iteration order (findSessions / fetch): end times ascending, then keys ascending, then, Kafka
// quirk 23 (docs/iqv2-semantics.md §10), start times DESCENDING within one (end, key); backward
// reverses end times and keys and gives start times ascending.
//
// Transactional (KIP-892, enable.transactional.statestores at the 2026-08-20 pin, pin deltas 5
// and 7; d2328ff720, 59596de362; docs/kafka-2026-08-20.md §3.3, §3.4.3): puts that are not expired
// and removes are staged in an InMemorySessionTransactionBuffer keyed by (end, key, start
// descending), every put's position (expired ones too; a remove advances none) in its pending
// position; commit(offsets) merges the pending position into the committed one and applies the
// staged writes. Reads take a level: READ_UNCOMMITTED merges the staged writes over the map
// (staged sessions whose end has since expired are skipped), READ_COMMITTED reads the map alone.
// position() is committed + pending; query() bounds and labels READ_UNCOMMITTED with it,
// READ_COMMITTED with the committed position. close() rolls the buffer back. At the new pin
// restoration writes the map and the committed position directly, without put().

#include <limits>
#include <map>
#include <memory>

#include "state/session_store.h"
#include "state/state_store_context.h"
#include "state/transaction_buffer.h"

namespace iq {

// InMemorySessionTransactionBuffer.SessionEntryKey: (end, key, start), ordered by end, then key
// bytes, then start DESCENDING, the order the store's map iterates forward (quirk 23).
struct SessionEntryKey {
  int64_t end = 0;
  Bytes key;
  int64_t start = 0;
  friend bool operator==(const SessionEntryKey&, const SessionEntryKey&) = default;
  friend std::strong_ordering operator<=>(const SessionEntryKey& a, const SessionEntryKey& b) {
    if (auto c = a.end <=> b.end; c != 0) return c;
    if (auto c = a.key <=> b.key; c != 0) return c;
    return b.start <=> a.start;
  }
};
// estimateKeySize: 2 * Long.BYTES + the key's length.
inline int64_t staged_key_bytes(const SessionEntryKey& k) {
  return 16 + static_cast<int64_t>(k.key.size());
}

class InMemorySessionStore final : public SessionBytesStore {
 public:
  InMemorySessionStore(std::string name, int64_t retention_period_ms);

  const std::string& name() const override { return name_; }
  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override { return ok_status(); }
  // Clears the data but not the position, as in Kafka; a transactional store's staged writes and
  // pending position are rolled back first.
  void close() override {
    if (buffer_) buffer_->rollback();
    end_time_map_.clear();
    open_ = false;
  }
  bool persistent() const override { return false; }
  bool is_open() const override { return open_; }
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override;
  Position position() const override;
  ReadOnlySessionBytes& read_only(IsolationLevel level) override {
    if (buffer_ && level == IsolationLevel::READ_COMMITTED) return committed_view_;
    return *this;
  }
  Status commit(const ChangelogOffsets& offsets) override;
  int64_t approximate_num_uncommitted_bytes() const override {
    return buffer_ ? buffer_->approximate_num_uncommitted_bytes() : 0;
  }
  std::optional<Position> committed_position() const override {
    if (!buffer_) return std::nullopt;
    return position_;
  }
  bool transactional() const { return buffer_ != nullptr; }
  std::optional<int64_t> observed_stream_time() const override { return observed_stream_time_ms_; }
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.InMemorySessionStore";
  }

  Status put(const Windowed<Bytes>& session, const ValueBytes& value) override;
  Status remove(const Windowed<Bytes>& session) override;
  StoreResult<ValueBytes> fetch_session(const Bytes& key, int64_t session_start_ms,
                                        int64_t session_end_ms) override;
  StoreResult<SessionBytesIterator> find_sessions(const Bytes& key, int64_t earliest_session_end_ms,
                                                  int64_t latest_session_start_ms,
                                                  bool forward) override {
    return find_sessions_at(key, earliest_session_end_ms, latest_session_start_ms, forward,
                            IsolationLevel::READ_UNCOMMITTED);
  }

  int64_t observed_stream_time_ms() const { return observed_stream_time_ms_; }
  // The session end times held, ascending (for tests of expiry).
  std::vector<int64_t> end_times() const;

 private:
  using StartMap = std::map<int64_t, Bytes>;
  using KeyMap = std::map<Bytes, StartMap>;
  using EndTimeMap = std::map<int64_t, KeyMap>;
  using SessionTransactionBuffer = BasicTransactionBuffer<SessionEntryKey>;

  // Kafka's ReadOnlyView at READ_COMMITTED: fetch(key) over the map alone.
  class CommittedView final : public ReadOnlySessionBytes {
   public:
    explicit CommittedView(InMemorySessionStore& store) : store_(store) {}
    StoreResult<SessionBytesIterator> fetch(const Bytes& key, bool forward) override {
      return store_.find_sessions_at(key, 0, std::numeric_limits<int64_t>::max(), forward,
                                     IsolationLevel::READ_COMMITTED);
    }

   private:
    InMemorySessionStore& store_;
  };

  StoreResult<SessionBytesIterator> find_sessions_at(const Bytes& key,
                                                     int64_t earliest_session_end_ms,
                                                     int64_t latest_session_start_ms, bool forward,
                                                     IsolationLevel level);
  // The map a READ_UNCOMMITTED read of `key`'s sessions ending at or after `earliest_end` sees on
  // a transactional store: that part of the map, copied, with the staged writes of it applied
  // (those whose end expired since they were staged skipped), as Kafka's
  // TransactionalSessionIterator over its StagedMergeIterator yields.
  EndTimeMap staged_view_of(const Bytes& key, int64_t earliest_end) const;
  // putInternal / removeFromBase: the map alone (no position).
  void put_internal(const Windowed<Bytes>& session, const ValueBytes& value);
  void remove_from_base(const Windowed<Bytes>& session);
  Status restore_batch(const std::vector<ConsumerRecord>& records);
  void remove_expired_segments();

  std::string name_;
  int64_t retention_period_ms_;
  EndTimeMap end_time_map_;
  int64_t observed_stream_time_ms_ = -1;  // ConsumerRecord.NO_TIMESTAMP
  Position position_ = Position::empty_position();
  StateStoreContext* context_ = nullptr;
  bool consistency_enabled_ = false;
  bool open_ = false;
  KafkaPin pin_ = KafkaPin::k2024_10_25;
  std::unique_ptr<SessionTransactionBuffer> buffer_;  // transactional only
  CommittedView committed_view_{*this};
};

}  // namespace iq
