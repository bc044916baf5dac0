#pragma once
// RocksDBVersionedStore (SI/RocksDBVersionedStore.java) over LogicalKeyValueSegments
// (SI/LogicalKeyValueSegments.java, SI/LogicalKeyValueSegment.java): the persistent versioned
// key-value store and the position owner of the versioned stack.
//
// One physical RocksDB (a RocksDBStore at <task dir>/rocksdb/<name>, opened without a context of
// its own, as Kafka opens it) holds every logical segment: each row's key is an 8-byte big-endian
// segment id followed by the record key. The reserved segment -1 is the latest-value store
// ([timestamp][value] per key, never expiring, never holding a tombstone); segments 0, 1, ... hold
// the older versions of each key in Kafka's segment value format
// (rocksdb_versioned_store_segment_value_formatter.h), each version in the segment of its validTo
// (segment id = timestamp / segment interval). Segments older than the history retention behind
// the observed stream time are deleted on the next write.
//
// History retention doubles as the grace period: a put or delete older than
// observedStreamTime - historyRetention is dropped. A get as of a time older than that answers
// only from the latest value, even if older versions are still in a segment.
//
// Restore replays the changelog (value, version timestamp) through the same put procedure, with
// the observed stream time fast-forwarded to the end of the batch as Kafka does; Kafka buffers the
// batch's writes (RocksDBVersionedStoreRestoreWriteBuffer) and writes them as two RocksDB batches,
// impl/ writes them through directly. With the WAL off nothing between two flushes survives a
// crash either way, so no reader can tell the difference.
//
// Transactional (KIP-892 at the 2026-08-20 pin, enable.transactional.statestores; pin delta 5,
// docs/kafka-2026-08-20.md §3.4.5): Kafka opens the physical store with openDB(appConfigs), so it
// is a transactional RocksDBStore: every put, delete and expired-segment destroy of the versioned
// store is staged in the physical store's transaction buffer (rocksdb_store.h) and reaches RocksDB
// only at commit(offsets), with the offsets, in one write; close() and a crash discard it. Restore
// writes RocksDB directly past the buffer (Kafka's restore WriteBatch), but its segment destroys
// are staged like any. Reads take the level (KAFKA-20500, 8cfdfaaacc): READ_UNCOMMITTED reads the
// staged writes over RocksDB, READ_COMMITTED RocksDB alone (the segments' readOnly(level) views
// over the DirectDBAccessor); the segments read are those this object knows, staged creations and
// expiries included, and the observed stream time is raised by staged puts as by any. The position
// is not staged (pin delta 9): every put advances the one position at once, and query() bounds and
// labels both levels with it, so a READ_COMMITTED answer carries the position of writes it does not
// show.

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "iq/isolation_level.h"
#include "iq/result_order.h"
#include "state/offset_checkpoint.h"
#include "state/rocksdb_store.h"
#include "state/versioned_store.h"

namespace iq {

class RocksDBVersionedStore final : public VersionedKeyValueBytesStore {
 public:
  RocksDBVersionedStore(std::string name, int64_t history_retention_ms,
                        int64_t segment_interval_ms);
  ~RocksDBVersionedStore() override;
  RocksDBVersionedStore(const RocksDBVersionedStore&) = delete;
  RocksDBVersionedStore& operator=(const RocksDBVersionedStore&) = delete;

  // StateStore.
  const std::string& name() const override { return name_; }
  [[nodiscard]] Status init(StateStoreContext& context, StateStore& root) override;
  [[nodiscard]] Status flush() override;
  void close() override;
  bool persistent() const override { return true; }
  bool is_open() const override { return open_; }
  QueryOutcome query(const Query& query, const PositionBound& bound,
                     const QueryConfig& config) override;
  Position position() const override { return position_.copy(); }
  // KIP-1035 at the new pin: the physical store keeps the offsets (one RocksDB for every logical
  // segment and the latest values); its commit writes the physical store's own position, which no
  // versioned put advances (pin delta 10, docs/kafka-2026-08-20.md §10 H3).
  bool manages_offsets() const override;
  [[nodiscard]] Status commit(const ChangelogOffsets& offsets) override;
  StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& changelog) override;
  // For tests: the physical store (its stored status and position).
  RocksDBStore& physical_store() { return *physical_store_; }
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.RocksDBVersionedStore";
  }

  // VersionedKeyValueStore<Bytes, byte[]>.
  [[nodiscard]] StoreResult<int64_t> put(const Bytes& key, const ValueBytes& value,
                                         int64_t timestamp_ms) override;
  [[nodiscard]] StoreResult<std::optional<VersionedBytesRecord>> delete_key(
      const Bytes& key, int64_t timestamp_ms) override;
  [[nodiscard]] StoreResult<std::optional<VersionedBytesRecord>> get(const Bytes& key) override;
  [[nodiscard]] StoreResult<std::optional<VersionedBytesRecord>> get(const Bytes& key,
                                                                     int64_t as_of_ms) override;
  // get(key, fromTime, toTime, order), what MultiVersionedKeyQuery runs: the versions valid at
  // some time in [from_ms, to_ms], newest first unless `order` is ASCENDING (so ANY runs
  // descending). See the .cc for which segments it reads.
  [[nodiscard]] StoreResult<VersionedRecordIterator<Bytes>> get(
      const Bytes& key, int64_t from_ms, int64_t to_ms, ResultOrder order,
      IsolationLevel level = IsolationLevel::READ_UNCOMMITTED);
  // readOnly(level) (8cfdfaaacc): the store itself for READ_UNCOMMITTED, else a view whose gets
  // read at that level (RocksDB past the physical store's transaction buffer, when it has one).
  ReadOnlyVersionedBytes& read_only(IsolationLevel level) override;
  // KIP-892: the physical store's buffer (every logical segment shares it), 0 when not
  // transactional.
  int64_t approximate_num_uncommitted_bytes() const override {
    return physical_store_->approximate_num_uncommitted_bytes();
  }
  bool transactional() const { return physical_store_->transactional(); }
  // Not Kafka, an observation for the trace (StateStore::committed_position): Kafka keeps one
  // position for both levels (pin delta 9), so the committed one is recorded beside it, as it
  // happens: the position at this object's open, after each restore batch and at each commit, when
  // every write its position covers is in RocksDB. nullopt when not transactional.
  std::optional<Position> committed_position() const override {
    if (!transactional()) return std::nullopt;
    return committed_position_.copy();
  }

  // The batching restore callback registered at init: changelog records in offset order, each
  // carrying its version timestamp as the record timestamp.
  [[nodiscard]] Status restore_batch(const std::vector<ConsumerRecord>& records);

  int64_t observed_stream_time_ms() const { return observed_stream_time_ms_; }
  int64_t history_retention_ms() const { return history_retention_ms_; }
  int64_t segment_interval_ms() const { return segment_interval_ms_; }
  // The ids of the regular segments this store object knows (open), ascending.
  std::vector<int64_t> segment_ids() const;
  // Whether this store object's init opened a physical RocksDB that already held entries (an
  // earlier store object's, kept on disk): the condition of quirk 17, under which the versions in
  // segments it has not re-created are invisible to it. Observation only (the simulator records
  // it for the checks); Kafka keeps no such flag and impl/ never reads it.
  bool opened_over_existing_data() const { return opened_over_existing_data_; }
  // The flag above; the entries stay unread (a versioned store's segments are not plain entries).
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* /*out*/) override {
    return opened_over_existing_data_;
  }

 private:
  class PhysicalContext;
  struct PutStatus {
    bool complete;
    int64_t found_ts;
  };

  [[nodiscard]] Status validate_store_open() const;
  [[nodiscard]] Status restore_records(const std::vector<ConsumerRecord>& records);
  [[nodiscard]] Status open_physical_managing_offsets(const Position& position_file);
  [[nodiscard]] StoreResult<int64_t> do_put(int64_t stream_time_ms, const Bytes& key,
                                            const ValueBytes& value, int64_t timestamp_ms);
  [[nodiscard]] StoreResult<PutStatus> maybe_put_to_latest_value_store(int64_t stream_time_ms,
                                                                       const Bytes& key,
                                                                       const ValueBytes& value,
                                                                       int64_t timestamp_ms);
  [[nodiscard]] StoreResult<PutStatus> maybe_put_to_segments(int64_t stream_time_ms,
                                                             const Bytes& key,
                                                             const ValueBytes& value,
                                                             int64_t timestamp_ms,
                                                             int64_t prev_found_ts);
  [[nodiscard]] StoreResult<int64_t> put_to_segment(int64_t stream_time_ms, int64_t segment_id,
                                                    const Bytes& raw_segment_value,
                                                    const Bytes& key, const ValueBytes& value,
                                                    int64_t timestamp_ms);
  [[nodiscard]] StoreResult<int64_t> finish_put(int64_t stream_time_ms, const Bytes& key,
                                                const ValueBytes& value, int64_t timestamp_ms,
                                                int64_t found_ts);
  [[nodiscard]] StoreResult<std::optional<VersionedBytesRecord>> get_from_segments(
      const Bytes& key, int64_t as_of_ms, IsolationLevel level);
  // The private get(key, level) and get(key, asOf, level) of KAFKA-20500, which the view calls.
  [[nodiscard]] StoreResult<std::optional<VersionedBytesRecord>> get_latest(const Bytes& key,
                                                                            IsolationLevel level);
  [[nodiscard]] StoreResult<std::optional<VersionedBytesRecord>> get_as_of(const Bytes& key,
                                                                           int64_t as_of_ms,
                                                                           IsolationLevel level);

  // LogicalKeyValueSegments.
  int64_t segment_id(int64_t timestamp_ms) const { return timestamp_ms / segment_interval_ms_; }
  // getOrCreateSegmentIfLive: the id, created if need be, or nullopt when the segment is older
  // than the history retention behind `stream_time_ms`.
  std::optional<int64_t> get_or_create_segment_if_live(int64_t id, int64_t stream_time_ms);
  // segments(timeFrom, timeTo, forward): the known segments with ids in
  // [segment_id(from), segment_id(to)], in id order or reversed.
  std::vector<int64_t> segments(int64_t time_from_ms, int64_t time_to_ms, bool forward) const;
  [[nodiscard]] Status cleanup_expired_segments(int64_t stream_time_ms);
  // A segment's row through the view of `level` (LogicalKeyValueSegment.readOnly(level)): under
  // READ_COMMITTED the physical store's committed view, else the store (staged over RocksDB).
  [[nodiscard]] StoreResult<ValueBytes> segment_get(
      int64_t id, const Bytes& key, IsolationLevel level = IsolationLevel::READ_UNCOMMITTED);
  [[nodiscard]] Status segment_put(int64_t id, const Bytes& key, const ValueBytes& value);
  [[nodiscard]] Status destroy_segment(int64_t id);

  std::string name_;
  int64_t history_retention_ms_;
  int64_t grace_period_ms_;  // history retention doubles as grace period, as in Kafka
  int64_t segment_interval_ms_;
  // Kept across close and re-init of this object, like Kafka's field; a new object starts at -1.
  int64_t observed_stream_time_ms_ = -1;  // ConsumerRecord.NO_TIMESTAMP
  StateStoreContext* context_ = nullptr;  // nullptr until init: queries answer "not initialized"
  bool open_ = false;
  bool consistency_enabled_ = false;
  // Quirk 18 on (Kafka's): restore hands doPut the batch's end stream time (iq/kafka_quirks.h).
  bool end_of_batch_stream_time_ = true;
  Position position_ = Position::empty_position();
  std::unique_ptr<OffsetCheckpoint> position_checkpoint_;
  std::unique_ptr<PhysicalContext> physical_context_;
  std::unique_ptr<RocksDBStore> physical_store_;
  // The ids of the regular segments this object knows (Kafka's TreeMap of LogicalKeyValueSegment).
  std::set<int64_t> segments_;
  bool opened_over_existing_data_ = false;
  // Restore writes RocksDB directly (RocksDBVersionedStoreRestoreWriteBuffer.flush's WriteBatch),
  // past a transaction buffer; set only while restore_batch runs.
  bool restoring_ = false;
  Position committed_position_ = Position::empty_position();  // observation only, see above
  class ReadCommittedView;
  std::unique_ptr<ReadCommittedView> read_committed_view_;
};

}  // namespace iq
