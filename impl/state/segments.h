#pragma once
// KeyValueSegment, TimestampedSegment and their managers (SI/KeyValueSegment.java,
// SI/TimestampedSegment.java, SI/AbstractSegments.java, SI/KeyValueSegments.java,
// SI/TimestampedSegments.java): a segmented store keeps one RocksDB database per time segment,
// in <task dir>/<store name>/<store name>.<segment id * segment interval>. A segment is a RocksDB
// store opened without registering (no restore callback, no position of its own: the segmented
// store above owns the position). The timestamped segment keeps its data in the column family
// "keyValueWithTimestamp", as RocksDBTimestampedStore does (no upgrade mode, as there).
//
// Segment ids are timestamp / segmentInterval (Java's truncating division, as C++'s). A segment
// is live while its id is at least segmentId(streamTime - retention); getOrCreateSegmentIfLive
// then drops every older segment (closed and its directory deleted), as KeyValueSegments does.
//
// KIP-1035 at the 2026-08-20 pin (pin deltas 1, 2, 4 and 12; docs/kafka-2026-08-20.md §4): a
// segment is a RocksDBStore there, so each keeps its own "offsets" column family
// (offsets_column_family.h) with the status marker, the store's position and the changelog
// offsets. The segmented store commits into every segment (AbstractSegments.commit), and a
// reopened store takes the offset of the newest segment that holds one (committedOffset,
// f6f8b7ba26). Each segment is its own RocksDB instance and flushes its memtables on its own, so a
// crash can leave an older segment behind the newest: its unflushed writes are then lost below an
// offset the store reports as restored (§10, H4). The position is the segmented store's, shared:
// each segment merges what it stored into it when it opens, and writes it at every commit.
//
// KIP-892 (enable.transactional.statestores at the new pin, pin delta 5; docs/kafka-2026-08-20.md
// §3.4.4, 704fcb2655): a segment is a transactional RocksDBStore there, with its own
// RocksDBTransactionBuffer. Its puts are staged in the buffer and a WriteBatch; commit applies the
// batch with the offsets and the position in one write; close (clean or dirty) and a crash discard
// the staged writes; it writes no status marker (KAFKA-20753) but still checks one at open. Reads
// take a level (Kafka's segment.readOnly(level)): READ_UNCOMMITTED merges the staged writes over
// RocksDB, READ_COMMITTED reads RocksDB alone. Restoration writes RocksDB directly.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iq/key_value_iterator.h"
#include "iq/position.h"
#include "iq/topic_partition.h"
#include "state/state_store.h"
#include "state/state_store_context.h"
#include "state/transaction_buffer.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
class WriteBatch;
}  // namespace rocksdb

namespace iq {

class KeyValueSegment {
 public:
  // `column_family` is RocksDB's default one for KeyValueSegment, "keyValueWithTimestamp" for
  // TimestampedSegment.
  KeyValueSegment(std::string segment_name, int64_t id, std::string column_family);
  ~KeyValueSegment();
  KeyValueSegment(const KeyValueSegment&) = delete;
  KeyValueSegment& operator=(const KeyValueSegment&) = delete;

  // RocksDBStore.openDB into <parent_dir>/<segment name>, skipping the registering step.
  // `shared_position` (the new pin; null at the old): the segmented store's position, into which
  // the segment merges the position it stored. At the new pin the open checks the stored status
  // marker (TaskCorrupted under exactly_once_v2 when it says "open") and writes "open".
  [[nodiscard]] Status open_db(StateStoreContext& context, const std::string& parent_dir,
                               Position* shared_position = nullptr);
  bool is_open() const { return db_ != nullptr; }
  const std::string& name() const { return name_; }
  int64_t id() const { return id_; }

  // A transactional segment stages the write (no memtable, no flush) until commit.
  [[nodiscard]] Status put(const Bytes& key, const ValueBytes& value);
  // `level`: the segment's readOnly(level) view (KIP-892); a segment that is not transactional
  // reads the same at both.
  [[nodiscard]] StoreResult<ValueBytes> get(
      const Bytes& key, IsolationLevel level = IsolationLevel::READ_UNCOMMITTED);
  // The entries with keys in [from, to] (nullopt = open), ascending or descending, that `keep`
  // accepts (Kafka's HasNextCondition skips the others and goes on).
  using KeyFilter = std::function<bool(const Bytes& key)>;
  [[nodiscard]] Status scan(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                            bool forward, const KeyFilter& keep,
                            std::vector<KeyValue<Bytes, Bytes>>& out,
                            IsolationLevel level = IsolationLevel::READ_UNCOMMITTED);
  // StateStore::kept_entries: whether the segment holds any entry; `out` gets them all.
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out);
  // One write of a restore batch (null values delete).
  [[nodiscard]] Status write_batch(const std::vector<std::pair<Bytes, ValueBytes>>& entries);
  [[nodiscard]] Status flush();
  // RocksDBStore.close: at the new pin the "closed" marker (only if this object wrote "open") and
  // every memtable flushed atomically; at either pin db.close() flushes what is left (the WAL off).
  void close();
  // The object going without a marker (also what the destructor does, and the simulator's crash
  // on a frozen disk); DB::Close still flushes the memtables.
  void drop();
  // Segment.destroy: delete the segment's directory (after close).
  [[nodiscard]] Status destroy(FileSystem& fs);

  // The new pin (KIP-1035): whether this segment keeps offsets (it was opened at the new pin).
  bool manages_offsets() const { return offsets_cf_ != nullptr; }
  // RocksDBStore.commit: the offsets, then `position`, into this segment's memtable; no flush.
  [[nodiscard]] Status commit(const Position& position, const ChangelogOffsets& offsets);
  // RocksDBStore.committedOffset: what this segment holds for `changelog` (memtable included).
  [[nodiscard]] StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& changelog);
  // The status marker as the segment reads it now, for tests: none, 1 open, 0 closed.
  std::optional<int64_t> stored_status();
  // KIP-892: whether this segment stages its writes, and what it staged since its last commit
  // (RocksDBTransactionBuffer.approximateNumUncommittedBytes: the staged key and value bytes plus
  // the WriteBatch's data size, as RocksDBStore counts them).
  bool transactional() const { return buffer_ != nullptr; }
  int64_t approximate_num_uncommitted_bytes() const;

 private:
  // The segment's RocksDB reads alone (its DirectDBAccessor).
  [[nodiscard]] Status scan_base(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                                 bool forward, const KeyFilter& keep,
                                 std::vector<KeyValue<Bytes, Bytes>>& out);
  // TransactionalDBAccessor.close: the staged writes dropped.
  void rollback();

  // The new pin's open of the offsets column family (RocksDBStore.openDB's cfAccessor.open).
  [[nodiscard]] Status open_offsets(StateStoreContext& context, Position& shared_position);

  // After a write: a full memtable is flushed (flush_if_memtable_full).
  [[nodiscard]] Status maybe_flush_memtable(size_t bytes_written);

  std::string name_;
  size_t write_buffer_size_ = StateStoreContext::kRocksDbWriteBufferSizeDefault;
  size_t memtable_bytes_ = 0;  // written since the last flush (memtable_entry_bytes)
  int64_t id_;
  std::string column_family_;
  std::string dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> cf_handles_;
  rocksdb::ColumnFamilyHandle* cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* offsets_cf_ = nullptr;  // the new pin's; null at the old
  bool status_open_set_ = false;                       // AbstractColumnFamilyAccessor.storeOpen
  // KIP-892 (the new pin, enable.transactional.statestores): the buffer and its WriteBatch.
  std::unique_ptr<TransactionBuffer> buffer_;
  std::unique_ptr<rocksdb::WriteBatch> staged_batch_;
};

// AbstractSegments + KeyValueSegments / TimestampedSegments (the column family tells them apart).
class KeyValueSegments {
 public:
  KeyValueSegments(std::string name, int64_t retention_period_ms, int64_t segment_interval_ms,
                   std::string column_family);

  int64_t segment_id(int64_t timestamp_ms) const { return timestamp_ms / segment_interval_ms_; }
  // "<name>.<segment id * segment interval>".
  std::string segment_name(int64_t segment_id) const;
  KeyValueSegment* segment_for_timestamp(int64_t timestamp_ms);
  KeyValueSegment* segment_for_id(int64_t segment_id) {
    auto it = segments_.find(segment_id);
    return it == segments_.end() ? nullptr : it->second.get();
  }
  // nullptr when the segment is already expired at `stream_time_ms`; then expired segments are
  // cleaned up whatever the answer.
  [[nodiscard]] StoreResult<KeyValueSegment*> get_or_create_segment_if_live(
      int64_t segment_id, StateStoreContext& context, int64_t stream_time_ms);
  [[nodiscard]] StoreResult<KeyValueSegment*> get_or_create_segment(int64_t segment_id,
                                                                    StateStoreContext& context);
  // Opens the segment directories found under <task dir>/<name>, in id order, then drops those
  // expired at `stream_time_ms`.
  [[nodiscard]] Status open_existing(StateStoreContext& context, int64_t stream_time_ms);
  // The open segments whose ids lie in [segmentId(from), segmentId(to)], in id order or reversed.
  std::vector<KeyValueSegment*> segments(int64_t time_from_ms, int64_t time_to_ms, bool forward);
  [[nodiscard]] Status flush();
  // AbstractSegments.close: every segment closed (cleanly: at the new pin each writes "closed"
  // and flushes), the map cleared.
  void close();
  // Every segment dropped (no marker; each DB's close flushes), the map cleared: a segmented
  // store whose init failed (Kafka never registers it, so nothing closes its open segments).
  void drop_all();
  void cleanup_expired_segments(int64_t stream_time_ms);

  // KIP-1035 at the new pin: from now on every segment opened keeps offsets, and merges the
  // position it stored into `shared` (AbstractSegments.position, which the segmented store reads).
  void manage_offsets(Position& shared) { shared_position_ = &shared; }
  bool manages_offsets() const { return shared_position_ != nullptr; }
  // AbstractSegments.commit: every segment, in id order, gets the offsets and the shared position.
  [[nodiscard]] Status commit(const ChangelogOffsets& offsets);
  // AbstractSegments.committedOffset (pin delta 12): the newest segment's offset, or the next
  // newest's when it holds none, and so on; none when no segment holds one.
  [[nodiscard]] StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& changelog);
  // StateStore::kept_entries over every open segment, in id order.
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out);
  // The segmented store's approximateNumUncommittedBytes: the sum over every open segment.
  int64_t approximate_num_uncommitted_bytes() const;
  // The ids of the segments held, ascending (for tests of roll and expiry).
  std::vector<int64_t> segment_ids() const;

 private:
  std::string name_;
  int64_t retention_period_ms_;
  int64_t segment_interval_ms_;
  std::string column_family_;
  StateStoreContext* context_ = nullptr;  // set by the first segment opened (destroy needs its FS)
  Position* shared_position_ = nullptr;   // the new pin's (manage_offsets); null at the old
  std::map<int64_t, std::unique_ptr<KeyValueSegment>> segments_;
};

}  // namespace iq
