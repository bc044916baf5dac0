#pragma once
// RocksDBStore (SI/RocksDBStore.java): the persistent bytes key-value store, on real RocksDB.
//
// Kafka's options are kept where they do not make results depend on RocksDB's background threads;
// where they would (automatic compaction, size-triggered flushes) they are replaced by the same
// work done on the calling thread at a point the simulator fixes: a memtable that reaches the
// configured write_buffer_size is flushed at the write that filled it (flush_if_memtable_full),
// besides the explicit Flush(wait=true) of a checkpoint, and each flush runs the compaction it
// triggers (compact_if_triggered). With the WAL off, as in Kafka, only flushed data is on disk.
// Closing the DB flushes the memtables (avoid_flush_during_shutdown is left false, as Kafka leaves
// it), so a store closed while its process lives keeps its writes; a killed process keeps only
// what was flushed, because the simulator freezes its disk before it drops the process's objects
// (Instance::crash; unit tests copy the directory, kill_leaving_disk). What a memtable flush wrote
// by itself (uncommitted writes included) survives a crash, as in Kafka.
//
// The store also owns its position: advanced from the record context on every write, merged from
// the "c" headers on restore, persisted to <task dir>/<name>.position by the commit callback at
// the old pin. At the new pin (KIP-1035, offsets_column_family.h) the position, the changelog
// offsets and an open/closed status marker go into an "offsets" column family by commit(); a
// clean close() writes "closed" and flushes every memtable (Kafka's db.close() with the WAL off);
// destroying an open store writes no "closed" marker (its DB close still flushes, see above).
//
// Transactional (KIP-892, enable.transactional.statestores at the new pin, pin deltas 5 and 7;
// docs/kafka-2026-08-20.md §3.3, §3.4.1, §3.8): Kafka's TransactionalDBAccessor over a
// RocksDBTransactionBuffer. Writes are staged in the buffer and in a WriteBatch, their position in
// the buffer's pending position; nothing reaches RocksDB until commit(offsets), which adds the
// offsets and the staged position (committed + pending) to that batch and writes it in one
// db.write, then merges the pending position into the committed one. No status marker is written.
// Restoration writes RocksDB and the committed position directly. position() is committed +
// pending; query() bounds READ_COMMITTED by the committed position, READ_UNCOMMITTED by the staged
// one; read_only(READ_COMMITTED) reads RocksDB alone (Kafka's DirectDBAccessor), the store itself
// reads the buffer over RocksDB. close() and a crash discard the staged writes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iq/position.h"
#include "state/offset_checkpoint.h"
#include "state/state_store.h"
#include "state/state_store_context.h"
#include "state/transaction_buffer.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
class Env;
class Status;
struct Options;
class WriteBatch;
struct WriteOptions;
}  // namespace rocksdb

namespace iq {

// The options Kafka's RocksDBStore opens a database with (rocksdb_store.cc says where and why they
// differ from Kafka's) and writes with (no WAL). Every RocksDB-backed store uses them: in Kafka a
// segment of a segmented store is a RocksDBStore too.
// `write_buffer_size` is the configured one; RocksDB is given a larger one (see the .cc) so that
// only flush_if_memtable_full decides when a full memtable is flushed.
rocksdb::Options rocksdb_store_options(rocksdb::Env* env, size_t write_buffer_size);
rocksdb::WriteOptions rocksdb_store_write_options();

// The deterministic stand-in for Kafka's automatic universal compaction, run after every flush of
// a RocksDB-backed store (RocksDBStore and a segment): once the column family holds as many sorted
// runs as RocksDB's level0_file_num_compaction_trigger (4, Kafka keeps the default), every file is
// merged into one run at the last level, on the calling thread, before the flush returns
// (rocksdb_store.cc says how this differs from RocksDB's own universal picker). Without it every
// commit leaves one more level-0 file, and every Get and iterator merges across all of them.
rocksdb::Status compact_if_triggered(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf);

// The deterministic stand-in for RocksDB's size-triggered flush: once the column family's active
// memtable uses `write_buffer_size` bytes or more (rocksdb.cur-size-active-mem-table), it is
// flushed to a table file and compacted if that triggers, on the calling thread, before the write
// returns. Returns whether it flushed. Called after every write of a RocksDB-backed store.
// StateStore::kept_entries over one column family: whether it holds any entry, and (`out` not
// null) every entry in key order. Read under Operation::kObserve, without filling the block cache,
// so that the read changes nothing a later read of the run does.
bool collect_kept_entries(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf,
                          std::vector<KeyValue<Bytes, Bytes>>* out);
// What one put or delete adds to a memtable: its key and value plus RocksDB's per-entry overhead
// (the 8-byte sequence and type, the length varints, the skip-list node), about 16 bytes.
inline constexpr size_t kMemtableEntryOverheadBytes = 16;
size_t memtable_entry_bytes(size_t key_bytes, size_t value_bytes);
// `memtable_bytes` is the caller's count of what it wrote since its last flush; reset when it
// flushes.
// `atomic_group` (not null): the instance flushes atomically (the new pin's setAtomicFlush(true),
// pin delta 2), so every column family in it is flushed with `cf`, offsets and data together.
base::Expected<bool, StreamsError> flush_if_memtable_full(
    rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf, size_t write_buffer_size,
    size_t& memtable_bytes,
    const std::vector<rocksdb::ColumnFamilyHandle*>* atomic_group = nullptr);
// Flushes every column family of `group` at once (atomic flush) and runs the compaction each
// triggers: what closing a DB does to unflushed memtables with the WAL off (Kafka's db.close()).
[[nodiscard]] rocksdb::Status flush_atomically(
    rocksdb::DB& db, const std::vector<rocksdb::ColumnFamilyHandle*>& group);

class RocksDBStore : public KeyValueBytesStore {
 public:
  explicit RocksDBStore(std::string name);
  ~RocksDBStore() override;
  RocksDBStore(const RocksDBStore&) = delete;
  RocksDBStore& operator=(const RocksDBStore&) = delete;

  // StateStore.
  const std::string& name() const override { return name_; }
  [[nodiscard]] Status init(StateStoreContext& context, StateStore& root) override;
  // RocksDBStore.openDB alone, as LogicalKeyValueSegments opens the versioned store's physical
  // store at the new pin: the DB and, there, the offsets column family (status check, stored
  // position), without registering and without merging a .position file.
  [[nodiscard]] Status open_without_registering(StateStoreContext& context);
  [[nodiscard]] Status flush() override;
  void close() override;
  bool persistent() const override { return true; }
  bool is_open() const override { return open_; }
  QueryOutcome query(const Query& query, const PositionBound& bound,
                     const QueryConfig& config) override;
  Position position() const override;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.RocksDBStore";
  }
  // KIP-892: the committed view for READ_COMMITTED when transactional, else the store itself.
  ReadOnlyKeyValueBytes& read_only(IsolationLevel level) override;
  // RocksDBTransactionBuffer.approximateNumUncommittedBytes: the staged key and value bytes plus
  // the staged WriteBatch's data size (Kafka counts the data twice, and an empty batch is 12 bytes:
  // its header), 0 when not transactional.
  int64_t approximate_num_uncommitted_bytes() const override;
  bool transactional() const { return buffer_ != nullptr; }
  std::optional<Position> committed_position() const override {
    if (!buffer_) return std::nullopt;
    return position_.copy();
  }

  // KeyValueBytesStore.
  [[nodiscard]] Status put(const Bytes& key, const ValueBytes& value) override;
  [[nodiscard]] StoreResult<ValueBytes> put_if_absent(const Bytes& key,
                                                      const ValueBytes& value) override;
  [[nodiscard]] Status put_all(const std::vector<KeyValueBytes>& entries) override;
  [[nodiscard]] StoreResult<ValueBytes> delete_key(const Bytes& key) override;
  [[nodiscard]] StoreResult<ValueBytes> get(const Bytes& key) override;
  [[nodiscard]] StoreResult<BytesIterator> range(const std::optional<Bytes>& from,
                                                 const std::optional<Bytes>& to,
                                                 bool reverse) override;
  [[nodiscard]] StoreResult<BytesIterator> all(bool reverse) override;
  // The query path's reads, from RocksDB's own buffers: no copy of the value or the entries.
  [[nodiscard]] Status get_into(const Bytes& key, RawValueSink& sink) override;
  [[nodiscard]] StoreResult<IteratorOrigin> range_into(const std::optional<Bytes>& from,
                                                       const std::optional<Bytes>& to, bool reverse,
                                                       RawEntrySink& sink) override;
  // Kafka throws InvalidStateStoreException on a closed store; this interface has no error
  // channel, so asking a closed store is treated as the caller's bug (an assertion).
  int64_t approximate_num_entries() override;
  // Whether the data column family holds any entry, exactly: approximate_num_entries() is RocksDB's
  // estimate-num-keys, which subtracts deletions and overwrites and can read 0 over live data.
  bool holds_any_entry();
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) override;

  // KIP-1035 at the new pin (pin deltas 1, 2, 4; offsets_column_family.h): the changelog offsets,
  // the position and the open/closed status marker live in the "offsets" column family, written
  // into the memtable by commit() and made durable only by a memtable flush or a clean close.
  bool manages_offsets() const override { return manages_offsets_; }
  [[nodiscard]] Status commit(const ChangelogOffsets& offsets) override;
  StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& changelog) override;
  // The status marker as the store reads it now (memtable included), for tests: none, 1 or 0.
  std::optional<int64_t> stored_status();

  // The batching restore callback registered at init: changelog records in offset order.
  [[nodiscard]] Status restore_batch(const std::vector<ConsumerRecord>& records);
  // RocksDBStore.addToBatch + write, what the versioned store's restore writes its physical store
  // with (RocksDBVersionedStoreRestoreWriteBuffer.flush): RocksDB itself, past a transaction
  // buffer, and no position (the versioned store owns it). The same write as a non-transactional
  // put.
  [[nodiscard]] Status write_past_buffer(const Bytes& key, const ValueBytes& value);

 protected:
  // The column family holding the data; the timestamped store keeps its own. The default column
  // family is always opened too, since RocksDB requires it.
  virtual std::string column_family_name() const;
  // Runs once the DB is open, before the store registers itself: a subclass checks what it
  // assumes about the files it found.
  virtual void on_open(rocksdb::DB& db);

 private:
  // Kafka's ReadOnlyView over the DirectDBAccessor: RocksDB alone, past the transaction buffer.
  class CommittedView final : public ReadOnlyKeyValueBytes {
   public:
    explicit CommittedView(RocksDBStore& store) : store_(store) {}
    StoreResult<ValueBytes> get(const Bytes& key) override { return store_.direct_get(key); }
    StoreResult<BytesIterator> range(const std::optional<Bytes>& from,
                                     const std::optional<Bytes>& to, bool reverse) override {
      return store_.direct_range(from, to, reverse);
    }
    StoreResult<BytesIterator> all(bool reverse) override { return store_.direct_all(reverse); }
    Status get_into(const Bytes& key, RawValueSink& sink) override {
      return store_.direct_get_into(key, sink);
    }
    StoreResult<IteratorOrigin> range_into(const std::optional<Bytes>& from,
                                           const std::optional<Bytes>& to, bool reverse,
                                           RawEntrySink& sink) override {
      return store_.direct_range_into(from, to, reverse, sink);
    }
    int64_t approximate_num_entries() override { return store_.approximate_num_entries(); }

   private:
    RocksDBStore& store_;
  };

  // The reads of RocksDB itself (the DirectDBAccessor's), which a non-transactional store and the
  // committed view make.
  [[nodiscard]] StoreResult<ValueBytes> direct_get(const Bytes& key);
  [[nodiscard]] StoreResult<BytesIterator> direct_range(const std::optional<Bytes>& from,
                                                        const std::optional<Bytes>& to,
                                                        bool reverse);
  [[nodiscard]] StoreResult<BytesIterator> direct_all(bool reverse);
  [[nodiscard]] Status direct_get_into(const Bytes& key, RawValueSink& sink);
  [[nodiscard]] StoreResult<IteratorOrigin> direct_range_into(const std::optional<Bytes>& from,
                                                              const std::optional<Bytes>& to,
                                                              bool reverse, RawEntrySink& sink);
  // The transactional store's READ_UNCOMMITTED range: the staged writes merged over RocksDB.
  [[nodiscard]] StoreResult<BytesIterator> staged_range(const std::optional<Bytes>& from,
                                                        const std::optional<Bytes>& to,
                                                        bool reverse);
  // TransactionalDBAccessor.put/putAll: staged in the buffer and the batch.
  void stage(const Bytes& key, const ValueBytes& value);
  [[nodiscard]] Status commit_transactional(const ChangelogOffsets& offsets);

  // A put or delete written to RocksDB at once (the DirectDBAccessor's), then the memtable check.
  [[nodiscard]] Status write_direct(const Bytes& key, const ValueBytes& value,
                                    bool update_position);
  [[nodiscard]] Status open_db(StateStoreContext& context);
  [[nodiscard]] Status validate_store_open() const;
  [[nodiscard]] Status write(rocksdb::WriteBatch& batch, const std::string& error_message);
  // Calls visit(key, value) for each entry in range, as views valid only during the call.
  template <typename Visit>
  [[nodiscard]] Status scan(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                            bool reverse, Visit&& visit);
  [[nodiscard]] StoreResult<BytesIterator> scan_to_vector(const std::optional<Bytes>& from,
                                                          const std::optional<Bytes>& to,
                                                          bool reverse);
  void close_db();
  // The new pin's open of the offsets column family: the status check (TaskCorrupted under
  // exactly_once_v2 when the stored status says "open") and the stored position.
  [[nodiscard]] Status open_offsets(const StateStoreContext& context);
  // The new pin's clean close before the DB goes: status "closed" (only if this object set
  // "open"), then every memtable flushed, as Kafka's db.close() does with the WAL off.
  void close_offsets();

  // After a write: a full memtable is flushed (flush_if_memtable_full).
  [[nodiscard]] Status maybe_flush_memtable(size_t bytes_written);

  std::string name_;
  size_t write_buffer_size_ = StateStoreContext::kRocksDbWriteBufferSizeDefault;
  size_t memtable_bytes_ = 0;             // written since the last flush (memtable_entry_bytes)
  StateStoreContext* context_ = nullptr;  // nullptr until init: queries answer "not initialized"
  bool open_ = false;
  bool consistency_enabled_ = false;
  Position position_ = Position::empty_position();
  std::unique_ptr<OffsetCheckpoint> position_checkpoint_;
  std::unique_ptr<rocksdb::DB> db_;
  // Every handle Open returned (default first); all are destroyed before the DB.
  std::vector<rocksdb::ColumnFamilyHandle*> cf_handles_;
  rocksdb::ColumnFamilyHandle* cf_ = nullptr;  // the data column family, one of cf_handles_
  // The new pin (pin delta 1): the offsets column family (one of cf_handles_), null at the old.
  bool manages_offsets_ = false;
  rocksdb::ColumnFamilyHandle* offsets_cf_ = nullptr;
  bool status_open_set_ = false;  // AbstractColumnFamilyAccessor.storeOpen
  // KIP-892 (the new pin, enable.transactional.statestores): the buffer and its WriteBatch.
  bool transactional_ = false;
  std::unique_ptr<TransactionBuffer> buffer_;
  std::unique_ptr<rocksdb::WriteBatch> staged_batch_;
  CommittedView committed_view_{*this};
};

}  // namespace iq
