#pragma once
// RocksDBWindowStore and RocksDBTimestampedWindowStore (SI/RocksDBWindowStore.java,
// SI/RocksDBTimestampedWindowStore.java, SI/RocksDbWindowBytesStoreSupplier.java): the persistent
// window store, a WindowKeySchema view over a RocksDBSegmentedBytesStore (plain segments, or
// TimestampedSegments whose values are [timestamp][value]). This layer is the position owner IQv2
// reaches: it runs handleBasicQueries with the segmented store's position.
//
// With retainDuplicates every put gets this store's next sequence number (1, 2, ...), a null put
// is skipped entirely (no delete, no position update), and the single-window fetch looks up the
// CURRENT sequence number (Kafka quirk, see fetch below). Without duplicates the sequence number
// is always 0.

#include <memory>

#include "state/rocksdb_segmented_bytes_store.h"
#include "state/window_store.h"

namespace iq {

class RocksDBWindowStore : public WindowBytesStore {
 public:
  // Stores.persistentWindowStore's default: max(retention / 2, 60 s).
  static int64_t default_segment_interval_ms(int64_t retention_period_ms) {
    return std::max<int64_t>(retention_period_ms / 2, 60000);
  }

  RocksDBWindowStore(std::string name, int64_t retention_period_ms, int64_t segment_interval_ms,
                     int64_t window_size_ms, bool retain_duplicates, bool timestamped = false);

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
  ReadOnlyWindowBytes& read_only(IsolationLevel level) override {
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
    return "class org.apache.kafka.streams.state.internals.RocksDBWindowStore";
  }

  Status put(const Bytes& key, const ValueBytes& value, int64_t window_start_ms) override;
  StoreResult<ValueBytes> fetch(const Bytes& key, int64_t window_start_ms) override;
  StoreResult<WindowStoreBytesIterator> fetch(const Bytes& key, int64_t time_from_ms,
                                              int64_t time_to_ms, bool forward) override {
    return fetch_at(key, time_from_ms, time_to_ms, forward, IsolationLevel::READ_UNCOMMITTED);
  }
  StoreResult<WindowedBytesIterator> fetch_all(int64_t time_from_ms, int64_t time_to_ms,
                                               bool forward) override {
    return windowed(bytes_store_.fetch_all(time_from_ms, time_to_ms, forward));
  }
  StoreResult<WindowedBytesIterator> all(bool forward) override;

  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) override {
    return bytes_store_.kept_entries(out);
  }
  // For tests of roll, expiry and restore.
  RocksDBSegmentedBytesStore& bytes_store() { return bytes_store_; }

 private:
  // Kafka's ReadOnlyView at READ_COMMITTED: the segments' committed views.
  class CommittedView final : public ReadOnlyWindowBytes {
   public:
    explicit CommittedView(RocksDBWindowStore& store) : store_(store) {}
    StoreResult<WindowStoreBytesIterator> fetch(const Bytes& key, int64_t time_from_ms,
                                                int64_t time_to_ms, bool forward) override {
      return store_.fetch_at(key, time_from_ms, time_to_ms, forward,
                             IsolationLevel::READ_COMMITTED);
    }
    StoreResult<WindowedBytesIterator> fetch_all(int64_t time_from_ms, int64_t time_to_ms,
                                                 bool forward) override {
      return store_.windowed(store_.bytes_store_.fetch_all(time_from_ms, time_to_ms, forward,
                                                           IsolationLevel::READ_COMMITTED));
    }

   private:
    RocksDBWindowStore& store_;
  };

  StoreResult<WindowStoreBytesIterator> fetch_at(const Bytes& key, int64_t time_from_ms,
                                                 int64_t time_to_ms, bool forward,
                                                 IsolationLevel level);
  StoreResult<WindowedBytesIterator> windowed(
      StoreResult<std::vector<KeyValue<Bytes, Bytes>>> raw) const;

  RocksDBSegmentedBytesStore bytes_store_;
  int64_t window_size_ms_;
  bool retain_duplicates_;
  int32_t seqnum_ = 0;
  StateStoreContext* context_ = nullptr;
  CommittedView committed_view_{*this};
};

// Stores.persistentTimestampedWindowStore: TimestampedSegments, values [timestamp][value].
class RocksDBTimestampedWindowStore final : public RocksDBWindowStore {
 public:
  RocksDBTimestampedWindowStore(std::string name, int64_t retention_period_ms,
                                int64_t segment_interval_ms, int64_t window_size_ms,
                                bool retain_duplicates)
      : RocksDBWindowStore(std::move(name), retention_period_ms, segment_interval_ms,
                           window_size_ms, retain_duplicates, /*timestamped=*/true) {}
  bool is_timestamped() const override { return true; }
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.RocksDBTimestampedWindowStore";
  }
};

}  // namespace iq
