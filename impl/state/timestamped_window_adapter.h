#pragma once
// WindowToTimestampedWindowByteStoreAdapter (SI/WindowToTimestampedWindowByteStoreAdapter.java):
// what the timestamped window builder puts over a plain PERSISTENT supplier (a DSL windowed
// aggregation materialized with Stores.persistentWindowStore). Processors write
// [timestamp][value]; the adapter strips the timestamp on put and answers reads with the
// timestamp -1 (TimestampedBytesStore.convertToTimestampedFormat).
//
// Kafka quirk 24 (docs/iqv2-semantics.md §10): the adapter is neither a WrappedStateStore nor a
// TimestampedBytesStore, and StoreQueryUtils.isAdapter only knows the key-value adapter, so the
// metered layer sees a non-timestamped stack: IQv2 answers plain values (no ValueAndTimestamp),
// restore does not convert changelog values, and queries pass straight through to the plain
// RocksDB store.

#include <memory>

#include "state/window_store.h"

namespace iq {

class WindowToTimestampedWindowByteStoreAdapter final : public WindowBytesStore {
 public:
  explicit WindowToTimestampedWindowByteStoreAdapter(std::unique_ptr<WindowBytesStore> store);

  const std::string& name() const override { return store_->name(); }
  Status init(StateStoreContext& context, StateStore& root) override {
    return store_->init(context, root);
  }
  Status flush() override { return store_->flush(); }
  void close() override { store_->close(); }
  bool persistent() const override { return true; }
  bool is_open() const override { return store_->is_open(); }
  Position position() const override { return store_->position(); }
  // Both false on purpose: see the quirk above.
  bool is_timestamped() const override { return false; }
  bool is_adapter() const override { return false; }
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) override {
    return store_->kept_entries(out);
  }
  bool manages_offsets() const override { return store_->manages_offsets(); }
  Status commit(const ChangelogOffsets& offsets) override { return store_->commit(offsets); }
  StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& changelog) override {
    return store_->committed_offset(changelog);
  }
  // Kafka's adapter passes approximateNumUncommittedBytes down (so TaskManager's early commit
  // counts a transactional store under it); the two observations go down with it.
  int64_t approximate_num_uncommitted_bytes() const override {
    return store_->approximate_num_uncommitted_bytes();
  }
  std::optional<Position> committed_position() const override {
    return store_->committed_position();
  }
  std::optional<int64_t> observed_stream_time() const override {
    return store_->observed_stream_time();
  }
  std::string_view java_class() const override {
    return "class "
           "org.apache.kafka.streams.state.internals.WindowToTimestampedWindowByteStoreAdapter";
  }
  // Passed down; the execution-info line has no "via WrappedStateStore" (not a wrapped store).
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override;

  Status put(const Bytes& key, const ValueBytes& value, int64_t window_start_ms) override;
  StoreResult<ValueBytes> fetch(const Bytes& key, int64_t window_start_ms) override;
  StoreResult<WindowStoreBytesIterator> fetch(const Bytes& key, int64_t time_from_ms,
                                              int64_t time_to_ms, bool forward) override;
  StoreResult<WindowedBytesIterator> fetch_all(int64_t time_from_ms, int64_t time_to_ms,
                                               bool forward) override;
  StoreResult<WindowedBytesIterator> all(bool forward) override;

 private:
  std::unique_ptr<WindowBytesStore> store_;
};

}  // namespace iq
