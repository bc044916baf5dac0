#pragma once
// InMemoryWindowStore (SI/InMemoryWindowStore.java): window start -> (key -> value), ordered both
// ways. Retention is driven by the observed stream time, the largest window start ever put: a
// window whose start is at or below observedStreamTime - retention is expired. Not persistent:
// a restart rebuilds it from the changelog and starts from an empty position.
//
// With retainDuplicates every put gets a fresh 4-byte sequence number appended to its key, so
// nothing is overwritten and a null value is a no-op.
//
// Transactional (KIP-892, enable.transactional.statestores at the 2026-08-20 pin, pin deltas 5
// and 7; d2328ff720, 360b381cfb; docs/kafka-2026-08-20.md §3.3, §3.4.3): puts that are not expired
// are staged in an InMemoryWindowTransactionBuffer keyed by (window start, stored key), and every
// put's position (expired ones too) in its pending position; commit(offsets) merges the pending
// position into the committed one and applies the staged writes to the segment map. Reads take a
// level: READ_UNCOMMITTED merges the staged writes of the time range over the segments (a staged
// tombstone hides the base entry), READ_COMMITTED reads the segments alone. position() is
// committed + pending (a copy); query() bounds and labels READ_UNCOMMITTED with it, READ_COMMITTED
// with the committed position. close() rolls the buffer back. At the new pin restoration writes
// the segment map and the committed position directly, without put() (and so without the record
// context's position), and removes expired segments once per batch.

#include <map>
#include <memory>

#include "state/state_store_context.h"
#include "state/transaction_buffer.h"
#include "state/window_store.h"

namespace iq {

// InMemoryWindowTransactionBuffer.WindowEntryKey: (window start, stored key), ordered by time,
// then key bytes, as the segment map iterates.
struct WindowEntryKey {
  int64_t timestamp = 0;
  Bytes key;
  friend bool operator==(const WindowEntryKey&, const WindowEntryKey&) = default;
  friend std::strong_ordering operator<=>(const WindowEntryKey&, const WindowEntryKey&) = default;
};
// estimateKeySize: Long.BYTES + the key's length.
inline int64_t staged_key_bytes(const WindowEntryKey& k) {
  return 8 + static_cast<int64_t>(k.key.size());
}

class InMemoryWindowStore final : public WindowBytesStore {
 public:
  InMemoryWindowStore(std::string name, int64_t retention_period_ms, int64_t window_size_ms,
                      bool retain_duplicates);

  const std::string& name() const override { return name_; }
  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override { return ok_status(); }
  // Clears the data but not the position, as in Kafka; a transactional store's staged writes and
  // pending position are rolled back first.
  void close() override {
    if (buffer_) buffer_->rollback();
    segment_map_.clear();
    open_ = false;
  }
  bool persistent() const override { return false; }
  bool is_open() const override { return open_; }
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override;
  Position position() const override;
  ReadOnlyWindowBytes& read_only(IsolationLevel level) override {
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
    return "class org.apache.kafka.streams.state.internals.InMemoryWindowStore";
  }

  Status put(const Bytes& key, const ValueBytes& value, int64_t window_start_ms) override;
  StoreResult<ValueBytes> fetch(const Bytes& key, int64_t window_start_ms) override {
    return fetch_at(key, window_start_ms, IsolationLevel::READ_UNCOMMITTED);
  }
  StoreResult<WindowStoreBytesIterator> fetch(const Bytes& key, int64_t time_from_ms,
                                              int64_t time_to_ms, bool forward) override {
    return fetch_at(key, time_from_ms, time_to_ms, forward, IsolationLevel::READ_UNCOMMITTED);
  }
  StoreResult<WindowedBytesIterator> fetch_all(int64_t time_from_ms, int64_t time_to_ms,
                                               bool forward) override {
    return fetch_all_at(time_from_ms, time_to_ms, forward, IsolationLevel::READ_UNCOMMITTED);
  }
  StoreResult<WindowedBytesIterator> all(bool forward) override;

  int64_t observed_stream_time_ms() const { return observed_stream_time_ms_; }
  // The window starts held, ascending (for tests of expiry).
  std::vector<int64_t> window_starts() const;

 private:
  using Segment = std::map<Bytes, Bytes>;
  using SegmentMap = std::map<int64_t, Segment>;
  using WindowTransactionBuffer = BasicTransactionBuffer<WindowEntryKey>;

  // Kafka's ReadOnlyView at READ_COMMITTED: the segment map alone.
  class CommittedView final : public ReadOnlyWindowBytes {
   public:
    explicit CommittedView(InMemoryWindowStore& store) : store_(store) {}
    StoreResult<WindowStoreBytesIterator> fetch(const Bytes& key, int64_t time_from_ms,
                                                int64_t time_to_ms, bool forward) override {
      return store_.fetch_at(key, time_from_ms, time_to_ms, forward,
                             IsolationLevel::READ_COMMITTED);
    }
    StoreResult<WindowedBytesIterator> fetch_all(int64_t time_from_ms, int64_t time_to_ms,
                                                 bool forward) override {
      return store_.fetch_all_at(time_from_ms, time_to_ms, forward, IsolationLevel::READ_COMMITTED);
    }

   private:
    InMemoryWindowStore& store_;
  };

  StoreResult<ValueBytes> fetch_at(const Bytes& key, int64_t window_start_ms, IsolationLevel level);
  StoreResult<WindowStoreBytesIterator> fetch_at(const Bytes& key, int64_t time_from_ms,
                                                 int64_t time_to_ms, bool forward,
                                                 IsolationLevel level);
  StoreResult<WindowedBytesIterator> fetch_all_at(int64_t time_from_ms, int64_t time_to_ms,
                                                  bool forward, IsolationLevel level);
  // putInternal: the segment map alone (no position): every non-transactional put, restoration at
  // the new pin, and each staged write at commit (flushToBase).
  void put_internal(const Bytes& key, const ValueBytes& value, int64_t window_start_ms);
  // The segment map a read at `level` sees over [min_time, max_time]: the map itself, or (a
  // transactional store under READ_UNCOMMITTED) a copy of that range with the staged writes of
  // the range applied, which is what Kafka's StagedMergeIterator yields in (time, key) order.
  const SegmentMap& view_for(int64_t min_time, int64_t max_time, IsolationLevel level,
                             SegmentMap& scratch) const;
  Status restore_batch(const std::vector<ConsumerRecord>& records);
  void remove_expired_segments();
  int64_t fetch_floor(int64_t time_from_ms) const;
  // Entries of the windows in [min_time, max_time] whose key (without seqnum) is in
  // [key_from, key_to] (nullopt = open), in window order then key order, reversed if !forward.
  std::vector<std::pair<int64_t, KeyValue<Bytes, Bytes>>> scan(const SegmentMap& segments,
                                                               int64_t min_time, int64_t max_time,
                                                               const std::optional<Bytes>& key_from,
                                                               const std::optional<Bytes>& key_to,
                                                               bool forward) const;
  Bytes strip_seqnum(const Bytes& stored) const;

  std::string name_;
  int64_t retention_period_ms_;
  int64_t window_size_ms_;
  bool retain_duplicates_;
  SegmentMap segment_map_;
  int32_t seqnum_ = 0;
  int64_t observed_stream_time_ms_ = -1;  // ConsumerRecord.NO_TIMESTAMP
  Position position_ = Position::empty_position();
  StateStoreContext* context_ = nullptr;
  bool consistency_enabled_ = false;
  bool open_ = false;
  KafkaPin pin_ = KafkaPin::k2024_10_25;
  std::unique_ptr<WindowTransactionBuffer> buffer_;  // transactional only
  CommittedView committed_view_{*this};
};

}  // namespace iq
