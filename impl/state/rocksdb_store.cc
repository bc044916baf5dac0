#include "state/rocksdb_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "base/assert.h"
#include "base/probe.h"
#include "io/operation_marker.h"
#include "state/offsets_column_family.h"
#include "state/store_query_utils.h"

namespace iq {
namespace {

// Kafka's constants (RocksDBStore.java); the write buffer is configured (rocksdb_store_options()).
constexpr size_t kBlockCacheSizeBytes = 50 * 1024 * 1024;
constexpr size_t kBlockSizeBytes = 4096;
constexpr int kMaxWriteBuffers = 3;
constexpr int kBloomBitsPerKey = 10;  // Java's `new BloomFilter()` default
// RocksDB's level0_file_num_compaction_trigger default, which Kafka keeps: universal compaction
// starts once a column family holds this many sorted runs.
constexpr size_t kCompactionTriggerSortedRuns = 4;
// RocksDB's own write_buffer_size is at least this and 4 times the configured one: RocksDB's
// size-triggered flush (which counts whole arena blocks, with slack) would run on a background
// thread at a time the simulator does not choose, so it must never come before
// flush_if_memtable_full, which flushes at the configured size on the calling thread.
constexpr size_t kRocksDbOwnWriteBufferSizeMin = 64 * 1024 * 1024;
// A scan ends with the iterator; the bound only turns a runaway loop into a clear failure.
constexpr size_t kScanEntriesMax = size_t{1} << 28;
// What a scan reserves before it knows its length (RocksDB cannot count a range without walking
// it): a query's range of up to this many entries fills its vector with no regrowth, instead of
// eight regrowths, each moving every entry, for a range of 100. A larger scan grows from here.
constexpr size_t kScanReserve = 128;

StreamsError processor_state(std::string message) {
  return {StreamsError::Kind::ProcessorState, std::move(message)};
}

bool in_bounds(std::string_view key, const std::optional<Bytes>& from,
               const std::optional<Bytes>& to) {
  if (from && Bytes::compare(key, from->view()) < 0) return false;
  if (to && Bytes::compare(key, to->view()) > 0) return false;
  return true;
}

std::string_view view_of(const rocksdb::Slice& slice) {
  return {slice.data(), slice.size()};
}

}  // namespace

rocksdb::Options rocksdb_store_options(rocksdb::Env* env, size_t write_buffer_size) {
  IQ_ASSERT(write_buffer_size >= 1 && write_buffer_size <= kRocksDbOwnWriteBufferSizeMin * 16,
            "write_buffer_size {}", write_buffer_size);
  rocksdb::Options options;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(kBlockCacheSizeBytes);
  table.block_size = kBlockSizeBytes;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(kBloomBitsPerKey));
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.optimize_filters_for_hits = true;
  options.write_buffer_size = std::max(kRocksDbOwnWriteBufferSizeMin, 4 * write_buffer_size);
  options.compression = rocksdb::kNoCompression;
  options.compaction_style = rocksdb::kCompactionStyleUniversal;
  // Kafka compacts automatically (universal style). Here RocksDB's own compaction would run on a
  // background thread whenever RocksDB decides, so it is off, and compact_if_triggered() stands in
  // for it at each flush; reads give the same answers either way.
  options.disable_auto_compactions = true;
  options.max_write_buffer_number = kMaxWriteBuffers;
  options.create_if_missing = true;
  options.error_if_exists = false;
  options.create_missing_column_families = true;
  // avoid_flush_during_shutdown is left at RocksDB's default (false), as Kafka leaves it: with the
  // WAL off, DB::Close flushes whatever the memtables hold, so a store closed dirty (lost tasks,
  // a failed thread) keeps its unflushed writes on disk. A killed process never gets there: the
  // simulator freezes the disk before it tears a crashed process down (sim/cluster/instance.cc).
  options.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
  // Kafka's setIncreaseParallelism(cores) is left out: thread counts would vary by machine, and
  // the only background work left is the flush we wait for.
  // RocksDB's default (16) opens a reopened store's table files on up to 16 threads it starts
  // and joins inside DB::Open; a seed reopens stores and segments hundreds of times, so that was
  // about a thousand thread starts per seed (strace, seed 1 of the default template). One opens
  // the same files on the calling thread; Kafka leaves the default, which only parallelises the
  // opening and changes nothing a read returns.
  options.max_file_opening_threads = 1;
  options.env = env;
  return options;
}

rocksdb::WriteOptions rocksdb_store_write_options() {
  rocksdb::WriteOptions options;
  options.disableWAL = true;  // as Kafka: the changelog, not the WAL, makes the store durable
  return options;
}

// RocksDB's universal picker (compaction_picker_universal.cc), with Kafka's defaults, starts at
// the same count of sorted runs (each level-0 file is one, each non-empty higher level one) and
// then merges either all of them (when the runs above the last exceed 200 % of its size), or the
// newest runs of similar size (size_ratio 1 %, at least 2), or enough of the newest to get below
// the trigger; it repeats until no rule applies, so after a burst of flushes fewer than 4 runs are
// left. This stand-in always takes the first rule's choice: the same bound on the runs a read
// merges (below 4 once the flush returns), more bytes rewritten than the size-ratio merges would
// (the simulator's stores are small), and at a point the caller chooses instead of a background
// thread's. CompactFiles runs the compaction job and deletes the inputs on the calling thread.
rocksdb::Status compact_if_triggered(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf) {
  rocksdb::ColumnFamilyMetaData meta;
  db.GetColumnFamilyMetaData(cf, &meta);
  size_t sorted_runs = 0;
  for (const rocksdb::LevelMetaData& level : meta.levels) {
    sorted_runs += level.level == 0 ? level.files.size() : (level.files.empty() ? 0 : 1);
  }
  if (sorted_runs < kCompactionTriggerSortedRuns) return rocksdb::Status::OK();
  std::vector<std::string> files;
  files.reserve(meta.file_count);
  for (const rocksdb::LevelMetaData& level : meta.levels) {
    for (const rocksdb::SstFileMetaData& file : level.files) files.push_back(file.name);
  }
  rocksdb::CompactionOptions options;
  options.compression = rocksdb::kDisableCompressionOption;  // the column family's: none
  options.max_subcompactions = 1;                            // no helper threads
  IQ_ASSERT(!meta.levels.empty());
  return db.CompactFiles(options, cf, files, static_cast<int>(meta.levels.size()) - 1);
}

// RocksDB switches a memtable that reached write_buffer_size to immutable and a background job
// writes it to a level-0 file some time later; the writes in it need not be committed (a commit
// flushes only the caches, the WAL is off). The simulator flushes at the write that filled the
// memtable, on the calling thread, and waits: the earliest moment RocksDB could finish that job,
// chosen so that the outcome depends on the seed only, never on a thread's timing. What it hides:
// a crash between the memtable filling and RocksDB's background flush finishing, which would lose
// those writes (the same outcome as a crash before the memtable filled, which the simulator has).
// The size is counted by the store itself (memtable_entry_bytes per write, a WriteBatch's data
// size per batch), not read from rocksdb.cur-size-active-mem-table: that property is the
// memtable's ConcurrentArena usage, whose core-local shards make it depend on the CPU core the
// writing thread runs on (the same seed gave two digests, one per core).
size_t memtable_entry_bytes(size_t key_bytes, size_t value_bytes) {
  return key_bytes + value_bytes + kMemtableEntryOverheadBytes;
}

base::Expected<bool, StreamsError> flush_if_memtable_full(
    rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf, size_t write_buffer_size,
    size_t& memtable_bytes, const std::vector<rocksdb::ColumnFamilyHandle*>* atomic_group) {
  if (memtable_bytes < write_buffer_size) return false;
  memtable_bytes = 0;
  rocksdb::FlushOptions options;
  options.wait = true;
  const bool flushed = atomic_group != nullptr
                           ? flush_atomically(db, *atomic_group).ok()
                           : db.Flush(options, cf).ok() && compact_if_triggered(db, cf).ok();
  if (!flushed) {
    return base::unexpected(
        StreamsError{StreamsError::Kind::ProcessorState, "Error while flushing a full memtable"});
  }
  // Outside a restore, the store's writes since its last checkpoint are its task's own, not all
  // committed: they are on disk now, and a crash keeps them (exactly_once_v2 must not trust them).
  if ((operations_in_progress() & static_cast<uint32_t>(Operation::kRestore)) == 0) {
    IQ_PROBE("rocksdb.memtable_flushed_uncommitted",
             "a full memtable was flushed by itself with the task's writes since its checkpoint");
  }
  return true;
}

rocksdb::Status flush_atomically(rocksdb::DB& db,
                                 const std::vector<rocksdb::ColumnFamilyHandle*>& group) {
  rocksdb::FlushOptions options;
  options.wait = true;
  rocksdb::Status status = db.Flush(options, group);
  for (rocksdb::ColumnFamilyHandle* cf : group) {
    if (status.ok()) status = compact_if_triggered(db, cf);
  }
  return status;
}

RocksDBStore::RocksDBStore(std::string name) : name_(std::move(name)) {
  IQ_ASSERT(!name_.empty());
}

// Destroying an open store is what the simulator's crash does to every object (on a frozen disk):
// the DB goes without the "closed" marker of the new pin; its Close flushes the memtables, which a
// frozen disk drops. At the old pin this is what close() does too.
RocksDBStore::~RocksDBStore() {
  open_ = false;
  close_db();
}

Status RocksDBStore::init(StateStoreContext& context, StateStore& root) {
  IQ_ASSERT(!open_, "store {} initialized twice", name_);
  if (auto opened = open_db(context); !opened) return opened;
  position_checkpoint_ = std::make_unique<OffsetCheckpoint>(
      context.file_system(), context.state_dir() + "/" + name_ + ".position");
  auto position = read_position_from_checkpoint(*position_checkpoint_);
  if (!position) {
    close_db();
    return base::unexpected(position.error());
  }
  CommitCallback commit_callback = [this] {
    return checkpoint_position(*position_checkpoint_, position_);
  };
  if (manages_offsets_) {
    // pin delta 13: StoreQueryUtils.maybeMigrateExistingPositionFile merges an old .position file
    // into the position read from the offsets column family at every init (never deletes it);
    // writePosition, the commit callback, is a no-op: commit() writes the position.
    position_.merge(*position, context.kafka_pin());
    commit_callback = [] { return ok_status(); };
  } else {
    position_ = std::move(*position);
  }
  context.register_store(
      root, [this](const std::vector<ConsumerRecord>& records) { return restore_batch(records); },
      std::move(commit_callback));
  consistency_enabled_ = context.consistency_enabled();
  context_ = &context;
  open_ = true;
  return ok_status();
}

Status RocksDBStore::open_without_registering(StateStoreContext& context) {
  IQ_ASSERT(!open_, "store {} opened twice", name_);
  if (auto opened = open_db(context); !opened) return opened;
  consistency_enabled_ = context.consistency_enabled();
  context_ = &context;
  open_ = true;
  return ok_status();
}

void RocksDBStore::stage(const Bytes& key, const ValueBytes& value) {
  buffer_->stage(key, value);
  const rocksdb::Status status = value ? staged_batch_->Put(cf_, key.get(), value->get())
                                       : staged_batch_->Delete(cf_, key.get());
  IQ_ASSERT(status.ok(), "WriteBatch refused a staged write: {}", status.ToString());
}

Status RocksDBStore::put(const Bytes& key, const ValueBytes& value) {
  if (auto s = validate_store_open(); !s) return s;
  if (buffer_) {
    // pin delta 5: staged, its position pending; nothing reaches RocksDB before the commit.
    stage(key, value);
    buffer_->update_position(context_);
    return ok_status();
  }
  return write_direct(key, value, /*update_position=*/true);
}

Status RocksDBStore::write_past_buffer(const Bytes& key, const ValueBytes& value) {
  if (auto s = validate_store_open(); !s) return s;
  return write_direct(key, value, /*update_position=*/false);
}

Status RocksDBStore::write_direct(const Bytes& key, const ValueBytes& value, bool update_position) {
  const rocksdb::WriteOptions options = rocksdb_store_write_options();
  const rocksdb::Status status = value ? db_->Put(options, cf_, key.get(), value->get())
                                       : db_->Delete(options, cf_, key.get());
  if (!status.ok()) {
    return base::unexpected(processor_state((value ? "Error while putting key/value into store "
                                                   : "Error while removing key from store ") +
                                            name_));
  }
  if (update_position) store_query_utils::update_position(position_, context_);
  return maybe_flush_memtable(
      memtable_entry_bytes(key.get().size(), value ? value->get().size() : 0));
}

StoreResult<ValueBytes> RocksDBStore::put_if_absent(const Bytes& key, const ValueBytes& value) {
  auto original = get(key);
  if (!original) return original;
  if (!original->has_value()) {
    if (auto s = put(key, value); !s) return base::unexpected(s.error());
  }
  return original;
}

Status RocksDBStore::put_all(const std::vector<KeyValueBytes>& entries) {
  // Kafka's putAll skips validateStoreOpen and dies on the null db; the closed-store error is
  // the value that NullPointerException stands for here.
  if (auto s = validate_store_open(); !s) return s;
  if (buffer_) {
    for (const KeyValueBytes& entry : entries) stage(entry.key, entry.value);
    buffer_->update_position(context_);  // once for the whole batch, as the direct write
    return ok_status();
  }
  rocksdb::WriteBatch batch;
  for (const KeyValueBytes& entry : entries) {
    const rocksdb::Status status = entry.value ? batch.Put(cf_, entry.key.get(), entry.value->get())
                                               : batch.Delete(cf_, entry.key.get());
    IQ_ASSERT(status.ok(), "WriteBatch refused an entry: {}", status.ToString());
  }
  IQ_ASSERT(static_cast<size_t>(batch.Count()) == entries.size());
  if (auto s = write(batch, "Error while batch writing to store " + name_); !s) return s;
  store_query_utils::update_position(position_, context_);  // once for the whole batch
  return maybe_flush_memtable(batch.GetDataSize());
}

StoreResult<ValueBytes> RocksDBStore::delete_key(const Bytes& key) {
  auto old = get(key);
  if (!old) return old;
  // Through put so that the position advances, as Kafka's delete does.
  if (auto s = put(key, std::nullopt); !s) return base::unexpected(s.error());
  return old;
}

// The transactional accessor reads the buffer first (a staged tombstone is null), then RocksDB.
StoreResult<ValueBytes> RocksDBStore::get(const Bytes& key) {
  if (buffer_) {
    if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
    if (const ValueBytes* staged = buffer_->get(key)) return *staged;
  }
  return direct_get(key);
}

StoreResult<ValueBytes> RocksDBStore::direct_get(const Bytes& key) {
  if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
  std::string value;
  const rocksdb::Status status = db_->Get(rocksdb::ReadOptions(), cf_, key.get(), &value);
  if (status.IsNotFound()) return ValueBytes{};
  if (!status.ok()) {
    return base::unexpected(
        processor_state("Error while getting value for key from store " + name_));
  }
  return ValueBytes{Bytes(std::move(value))};
}

StoreResult<BytesIterator> RocksDBStore::range(const std::optional<Bytes>& from,
                                               const std::optional<Bytes>& to, bool reverse) {
  if (buffer_) return staged_range(from, to, reverse);
  return direct_range(from, to, reverse);
}

StoreResult<BytesIterator> RocksDBStore::all(bool reverse) {
  if (buffer_) return staged_range(std::nullopt, std::nullopt, reverse);
  return direct_all(reverse);
}

// A StagedMergeIterator over the buffer's range and RocksDB's (the same checks first as the
// direct range: an inverted range is Kafka's empty iterator, before the open check).
StoreResult<BytesIterator> RocksDBStore::staged_range(const std::optional<Bytes>& from,
                                                      const std::optional<Bytes>& to,
                                                      bool reverse) {
  if (from && to && *from > *to) return BytesIterator{{}, IteratorOrigin::EmptyIterator};
  if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
  auto base = scan_to_vector(from, to, reverse);
  if (!base) return base;
  return BytesIterator{staged_merge(buffer_->staging_snapshot(from, to, /*to_inclusive=*/true,
                                                              IsolationLevel::READ_UNCOMMITTED),
                                    base->entries, reverse),
                       IteratorOrigin::StagedMergeIterator};
}

StoreResult<BytesIterator> RocksDBStore::direct_range(const std::optional<Bytes>& from,
                                                      const std::optional<Bytes>& to,
                                                      bool reverse) {
  if (from && to && *from > *to) {
    // Kafka warns and returns KeyValueIterators.emptyIterator(), before checking that the store
    // is open; the origin matters to the timestamped adapter's cast (docs/iqv2-semantics.md quirk
    // 10).
    return BytesIterator{{}, IteratorOrigin::EmptyIterator};
  }
  if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
  return scan_to_vector(from, to, reverse);
}

StoreResult<BytesIterator> RocksDBStore::direct_all(bool reverse) {
  if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
  return scan_to_vector(std::nullopt, std::nullopt, reverse);
}

// get() without the value's copy: a PinnableSlice reads the value in place (in the block cache or
// the memtable) for as long as the sink runs.
Status RocksDBStore::get_into(const Bytes& key, RawValueSink& sink) {
  if (buffer_) {
    auto value = get(key);
    if (!value) return base::unexpected(value.error());
    sink.value(*value ? std::optional<std::string_view>((*value)->view()) : std::nullopt);
    return ok_status();
  }
  return direct_get_into(key, sink);
}

Status RocksDBStore::direct_get_into(const Bytes& key, RawValueSink& sink) {
  if (auto s = validate_store_open(); !s) return s;
  rocksdb::PinnableSlice value;
  const rocksdb::Status status = db_->Get(rocksdb::ReadOptions(), cf_, key.get(), &value);
  if (status.IsNotFound()) {
    sink.value(std::nullopt);
    return ok_status();
  }
  if (!status.ok()) {
    return base::unexpected(
        processor_state("Error while getting value for key from store " + name_));
  }
  sink.value(view_of(value));
  return ok_status();
}

// range() and all() (both bounds open) with the entries handed to the sink as they are read: the
// same checks in the same order, the same origins.
StoreResult<IteratorOrigin> RocksDBStore::range_into(const std::optional<Bytes>& from,
                                                     const std::optional<Bytes>& to, bool reverse,
                                                     RawEntrySink& sink) {
  if (buffer_) {
    auto it = staged_range(from, to, reverse);
    if (!it) return base::unexpected(it.error());
    for (const auto& kv : it->entries) sink.entry(kv.key.view(), kv.value.view());
    return it->origin;
  }
  return direct_range_into(from, to, reverse, sink);
}

StoreResult<IteratorOrigin> RocksDBStore::direct_range_into(const std::optional<Bytes>& from,
                                                            const std::optional<Bytes>& to,
                                                            bool reverse, RawEntrySink& sink) {
  if (from && to && *from > *to) return IteratorOrigin::EmptyIterator;  // as range()
  if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
  auto scanned = scan(from, to, reverse, [&](std::string_view key, std::string_view value) {
    sink.entry(key, value);
  });
  if (!scanned) return base::unexpected(scanned.error());
  return IteratorOrigin::RocksDbIterator;
}

int64_t RocksDBStore::approximate_num_entries() {
  IQ_ASSERT(open_, "approximate_num_entries on closed store {}", name_);
  uint64_t estimate = 0;
  const bool known = db_->GetIntProperty(cf_, "rocksdb.estimate-num-keys", &estimate);
  IQ_ASSERT(known, "rocksdb.estimate-num-keys missing for store {}", name_);
  // Kafka maps a negative (overflowed) long to Long.MAX_VALUE.
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  return static_cast<int64_t>(estimate > kMax ? kMax : estimate);
}

bool collect_kept_entries(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf,
                          std::vector<KeyValue<Bytes, Bytes>>* out) {
  const OperationScope observing(Operation::kObserve);
  rocksdb::ReadOptions options;
  options.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(options, cf));
  bool any = false;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    any = true;
    if (out == nullptr) break;
    out->push_back(
        {Bytes(std::string(view_of(it->key()))), Bytes(std::string(view_of(it->value())))});
  }
  // Paired with the store's own reads: an observer's read of an open store does not fail.
  IQ_ASSERT(it->status().ok(), "kept entries: iterator failed: {}", it->status().ToString());
  return any;
}

bool RocksDBStore::kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) {
  IQ_ASSERT(open_, "kept_entries on closed store {}", name_);
  return collect_kept_entries(*db_, cf_, out);
}

bool RocksDBStore::holds_any_entry() {
  IQ_ASSERT(open_, "holds_any_entry on closed store {}", name_);
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf_));
  it->SeekToFirst();
  IQ_ASSERT(it->status().ok(), "store {}: iterator failed: {}", name_, it->status().ToString());
  return it->Valid();
}

// pin delta 7 (§3.3): READ_COMMITTED is bounded by and labelled with the committed position, the
// live one; READ_UNCOMMITTED with the committed position merged with the pending deltas (the same
// as the committed one when the store is not transactional).
QueryOutcome RocksDBStore::query(const Query& query, const PositionBound& bound,
                                 const QueryConfig& config) {
  if (buffer_ && config.isolation_level() == IsolationLevel::READ_UNCOMMITTED) {
    return store_query_utils::handle_basic_queries(query, bound, config, *this, position(),
                                                   context_);
  }
  return store_query_utils::handle_basic_queries(query, bound, config, *this, position_, context_);
}

Position RocksDBStore::position() const {
  return buffer_ ? buffer_->staged_over(position_) : position_.copy();
}

ReadOnlyKeyValueBytes& RocksDBStore::read_only(IsolationLevel level) {
  if (buffer_ && level == IsolationLevel::READ_COMMITTED) return committed_view_;
  return *this;
}

int64_t RocksDBStore::approximate_num_uncommitted_bytes() const {
  if (!buffer_) return 0;
  return buffer_->approximate_num_uncommitted_bytes() +
         static_cast<int64_t>(staged_batch_->GetDataSize());
}

Status RocksDBStore::restore_batch(const std::vector<ConsumerRecord>& records) {
  IQ_ASSERT(open_, "restoring into closed store {}", name_);
  rocksdb::WriteBatch batch;
  for (const ConsumerRecord& record : records) {
    // StoreChangelogReader drops null keys with a warning before the store sees them.
    if (!record.key) continue;
    // The position first, then the data, as Kafka's restoreBatch does.
    auto checked = store_query_utils::apply_checks_and_update_position(record, consistency_enabled_,
                                                                       position_);
    if (!checked) return checked;
    const rocksdb::Status status = record.value
                                       ? batch.Put(cf_, record.key->get(), record.value->get())
                                       : batch.Delete(cf_, record.key->get());
    IQ_ASSERT(status.ok(), "WriteBatch refused a record: {}", status.ToString());
  }
  IQ_ASSERT(static_cast<size_t>(batch.Count()) <= records.size());
  if (auto s = write(batch, "Error restoring batch to store " + name_); !s) return s;
  return maybe_flush_memtable(batch.GetDataSize());
}

Status RocksDBStore::flush() {
  if (!open_) return ok_status();  // Kafka: `if (db == null) return;`
  rocksdb::FlushOptions options;
  options.wait = true;
  const rocksdb::Status status = db_->Flush(options, cf_);
  if (!status.ok()) {
    return base::unexpected(processor_state("Error while executing flush from store " + name_));
  }
  if (!compact_if_triggered(*db_, cf_).ok()) {
    return base::unexpected(processor_state("Error while executing flush from store " + name_));
  }
  memtable_bytes_ = 0;
  return ok_status();
}

Status RocksDBStore::maybe_flush_memtable(size_t bytes_written) {
  memtable_bytes_ += bytes_written;
  // pin delta 2: at the new pin the instance flushes atomically, the offsets with the data.
  auto flushed = flush_if_memtable_full(*db_, cf_, write_buffer_size_, memtable_bytes_,
                                        manages_offsets_ ? &cf_handles_ : nullptr);
  if (!flushed) return base::unexpected(flushed.error());
  if (*flushed && manages_offsets_) {
    if ((operations_in_progress() & static_cast<uint32_t>(Operation::kRestore)) == 0) {
      IQ_PROBE("kip1035.data_flushed_between_commits",
               "a full memtable flushed a store's data past the offsets and position its last "
               "commit wrote (new pin)");
    }
  }
  return ok_status();
}

void RocksDBStore::close() {
  if (!open_) return;
  open_ = false;
  // TransactionalDBAccessor.close: the staged writes are dropped, never written.
  if (buffer_) {
    if (!buffer_->is_empty()) {
      IQ_PROBE("kip892.close_discarded_staged_writes",
               "a transactional store closed with staged writes, which it discarded (a dirty "
               "close: new pin, enable.transactional.statestores)"
               " (not in the default campaign: reached by only 3 of default.toml's seeds "
               "1..500, too few to require; scenarios/fast/kafka_2026_txn_*.toml reach it)");
    }
    buffer_->rollback();
    staged_batch_->Clear();
  }
  if (manages_offsets_) close_offsets();
  close_db();
  IQ_ASSERT(db_ == nullptr && cf_ == nullptr);
}

Status RocksDBStore::commit(const ChangelogOffsets& offsets) {
  if (!open_) return ok_status();  // Kafka: `if (db == null) return;`
  IQ_ASSERT(manages_offsets_, "store {}: commit(offsets) at the old pin", name_);
  if (buffer_) return commit_transactional(offsets);
  if (!offsets_cf::commit(*db_, offsets_cf_, position_, offsets)) {
    return base::unexpected(processor_state("Error while executing commit from store " + name_));
  }
  return ok_status();
}

// AbstractColumnFamilyAccessor.commit through the transactional accessor: the offsets and the
// staged position (committed + pending, the pending emptied) join the staged batch, which one
// db.write applies (commitStagedWrites); only then does the committed position take the pending
// deltas. A failed write leaves the committed position as it was.
Status RocksDBStore::commit_transactional(const ChangelogOffsets& offsets) {
  Position merged = position_.copy();
  buffer_->merge_pending_position_into(merged);
  if (!offsets_cf::commit(*db_, offsets_cf_, merged, offsets, staged_batch_.get())) {
    return base::unexpected(processor_state("Error while executing commit from store " + name_));
  }
  const size_t bytes = staged_batch_->GetDataSize();
  if (!buffer_->is_empty()) {
    IQ_PROBE("kip892.commit_applied_staged_writes",
             "a transactional store's commit wrote its staged writes to RocksDB (new pin, "
             "enable.transactional.statestores)");
  }
  auto committed = buffer_->commit([&](const StagedWrites&) {
    return write(*staged_batch_, "Error committing transaction buffer for store " + name_);
  });
  if (!committed) return committed;
  staged_batch_->Clear();
  position_.merge(merged, KafkaPin::k2026_08_20);
  // The batch went into the memtable like any write: a full one flushes (pin delta 2).
  return maybe_flush_memtable(bytes);
}

StoreResult<std::optional<ChangelogOffset>> RocksDBStore::committed_offset(
    const TopicPartition& changelog) {
  if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
  if (!manages_offsets_) return std::optional<ChangelogOffset>{};
  return offsets_cf::committed_offset(*db_, offsets_cf_, changelog);
}

std::optional<int64_t> RocksDBStore::stored_status() {
  IQ_ASSERT(open_ && manages_offsets_, "stored_status of store {}", name_);
  return offsets_cf::status(*db_, offsets_cf_);
}

Status RocksDBStore::open_offsets(const StateStoreContext& context) {
  // "open" on disk: a memtable flush since the last open put it there with data written after the
  // offsets stored beside it, and the process died before a clean close (a dirty close writes
  // "closed" and flushes too).
  if (offsets_cf::status(*db_, offsets_cf_) == 1) {
    IQ_PROBE("kip1035.crash_between_data_flush_and_offsets",
             "a store reopened after its process died between a memtable flush that put data past "
             "its stored offsets and position and a clean close (new pin)");
  }
  auto stored = offsets_cf::open(*db_, offsets_cf_, /*ignore_invalid_state=*/!context.eos_enabled(),
                                 transactional_);
  if (!stored) {
    // pin delta 4: RocksDBStore.openDB turns the invalid state into TaskCorruptedException.
    IQ_PROBE("kip1035.eos_open_marker_task_corrupted",
             "under exactly_once_v2 a store found its on-disk status \"open\" (a memtable flushed "
             "since its last open, no clean close): TaskCorrupted, the task is wiped (new pin; not "
             "in the default campaign: reached by only 3 of default.toml's seeds 1..500, too few "
             "to require; scenarios/templates/kafka_2026.toml reaches it)");
    return base::unexpected(
        StreamsError{StreamsError::Kind::TaskCorrupted,
                     "State store " + name_ +
                         " didn't find a valid state, since under EOS it has the risk of "
                         "getting uncommitted data in stores (" +
                         stored.error().message + ")"});
  }
  status_open_set_ = true;
  position_ = std::move(*stored);
  return ok_status();
}

void RocksDBStore::close_offsets() {
  // Kafka logs a failed status write and closes anyway; the flush is RocksDB's own at close.
  // A transactional store writes no marker (KAFKA-20753).
  if (status_open_set_ && !transactional_) (void)offsets_cf::close(*db_, offsets_cf_);
  status_open_set_ = false;
  const rocksdb::Status flushed = flush_atomically(*db_, cf_handles_);
  IQ_ASSERT(flushed.ok(), "store {}: flush at close: {}", name_, flushed.ToString());
  memtable_bytes_ = 0;
}

std::string RocksDBStore::column_family_name() const {
  return rocksdb::kDefaultColumnFamilyName;
}

void RocksDBStore::on_open(rocksdb::DB& /*db*/) {}

Status RocksDBStore::open_db(StateStoreContext& context) {
  const std::string dir = context.state_dir() + "/rocksdb/" + name_;
  if (auto made = context.file_system().create_directories(dir); !made) return made;
  rocksdb::Env* env =
      context.rocksdb_env() != nullptr ? context.rocksdb_env() : rocksdb::Env::Default();
  write_buffer_size_ = context.rocksdb_write_buffer_size();
  // pin delta 1 (77d1641673, KAFKA-20212): the new pin's stores manage their offsets.
  manages_offsets_ = at_least(context.kafka_pin(), KafkaPin::k2026_08_20);
  // pin delta 5: enable.transactional.statestores (true only at the new pin).
  transactional_ = manages_offsets_ && context.transactional_state_stores();
  rocksdb::Options options = rocksdb_store_options(env, write_buffer_size_);
  options.atomic_flush = manages_offsets_;  // dbOptions.setAtomicFlush(true) at the new pin
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  families.emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(options));
  const std::string data_family = column_family_name();
  if (data_family != rocksdb::kDefaultColumnFamilyName) {
    families.emplace_back(data_family, rocksdb::ColumnFamilyOptions(options));
  }
  // Kafka gives the offsets column family a 1 MiB buffer; here RocksDB never flushes by itself
  // (rocksdb_store_options), so the data's options serve: every flush is atomic and explicit.
  if (manages_offsets_) {
    families.emplace_back(offsets_cf::kColumnFamilyName, rocksdb::ColumnFamilyOptions(options));
  }
  rocksdb::DB* db = nullptr;
  const rocksdb::Status status =
      rocksdb::DB::Open(rocksdb::DBOptions(options), dir, families, &cf_handles_, &db);
  if (!status.ok()) {
    return base::unexpected(processor_state("Error opening store " + name_ + " at location " + dir +
                                            ": " + status.ToString()));
  }
  IQ_ASSERT(db != nullptr && cf_handles_.size() == families.size());
  db_.reset(db);
  cf_ = cf_handles_.at(data_family != rocksdb::kDefaultColumnFamilyName ? 1 : 0);
  offsets_cf_ = manages_offsets_ ? cf_handles_.back() : nullptr;
  on_open(*db_);
  if (!manages_offsets_) return ok_status();
  if (auto opened = open_offsets(context); !opened) {
    close_db();
    return opened;
  }
  if (transactional_) {
    buffer_ = std::make_unique<TransactionBuffer>();
    staged_batch_ = std::make_unique<rocksdb::WriteBatch>();
  } else {
    buffer_.reset();
    staged_batch_.reset();
  }
  return ok_status();
}

Status RocksDBStore::validate_store_open() const {
  if (open_) return ok_status();
  return base::unexpected(StreamsError{StreamsError::Kind::InvalidStateStore,
                                       "Store " + name_ + " is currently closed"});
}

Status RocksDBStore::write(rocksdb::WriteBatch& batch, const std::string& error_message) {
  const rocksdb::Status status = db_->Write(rocksdb_store_write_options(), &batch);
  // Kafka's message alone: the RocksDBException is the cause, not part of it.
  if (!status.ok()) return base::unexpected(processor_state(error_message));
  return ok_status();
}

// Forward: Seek(from) or SeekToFirst, until a key above `to`. Reverse: SeekForPrev(to) or
// SeekToLast, until a key below `from`.
template <typename Visit>
Status RocksDBStore::scan(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                          bool reverse, Visit&& visit) {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf_));
  if (reverse && to) {
    it->SeekForPrev(to->get());
  } else if (reverse) {
    it->SeekToLast();
  } else if (from) {
    it->Seek(from->get());
  } else {
    it->SeekToFirst();
  }
  // The previous key, to check the order RocksDB hands them out in (its slice does not outlive
  // the step): copied into a buffer that only grows, so it allocates only for a key longer than
  // any before.
  std::string previous_buffer;
  size_t previous_size = 0;
  size_t count = 0;
  for (; it->Valid() && in_bounds(view_of(it->key()), from, to);
       reverse ? it->Prev() : it->Next()) {
    IQ_ASSERT(count < kScanEntriesMax, "scan of store {} did not end", name_);
    const std::string_view key = view_of(it->key());
    if (count > 0) {
      const int order = Bytes::compare({previous_buffer.data(), previous_size}, key);
      IQ_ASSERT(reverse ? order > 0 : order < 0, "store {} iterated keys out of order", name_);
    }
    if (key.size() > previous_buffer.size()) previous_buffer.resize(2 * key.size());
    if (!key.empty()) std::memcpy(previous_buffer.data(), key.data(), key.size());
    previous_size = key.size();
    ++count;
    visit(key, view_of(it->value()));
  }
  // Kafka's RocksDbIterator ends silently on an iterator error; iqsim reports it rather than
  // answer with a truncated range nobody would notice.
  if (!it->status().ok()) {
    return base::unexpected(
        processor_state("Error while iterating store " + name_ + ": " + it->status().ToString()));
  }
  return ok_status();
}

// The entries materialized (key_value_iterator.h says why), for range() and all().
StoreResult<BytesIterator> RocksDBStore::scan_to_vector(const std::optional<Bytes>& from,
                                                        const std::optional<Bytes>& to,
                                                        bool reverse) {
  BytesIterator out{{}, IteratorOrigin::RocksDbIterator};
  auto scanned = scan(from, to, reverse, [&](std::string_view key, std::string_view value) {
    if (out.entries.empty()) out.entries.reserve(kScanReserve);
    out.entries.push_back({Bytes(std::string(key)), Bytes(std::string(value))});
  });
  if (!scanned) return base::unexpected(scanned.error());
  return out;
}

void RocksDBStore::close_db() {
  if (db_ == nullptr) return;
  for (rocksdb::ColumnFamilyHandle* handle : cf_handles_) {
    const rocksdb::Status destroyed = db_->DestroyColumnFamilyHandle(handle);
    IQ_ASSERT(destroyed.ok(), "{}", destroyed.ToString());
  }
  cf_handles_.clear();
  cf_ = nullptr;
  offsets_cf_ = nullptr;
  // RocksDB's Close flushes the memtables (the WAL is off and avoid_flush_during_shutdown keeps
  // its default): through the Env, so a crash can land inside it. Close()'s status is ignored on
  // purpose: the DB is gone either way and Kafka's close does not report errors either.
  (void)db_->Close();
  db_.reset();
}

}  // namespace iq
