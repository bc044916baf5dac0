#include "state/segments.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <charconv>

#include "base/assert.h"
#include "base/probe.h"
#include "io/operation_marker.h"
#include "state/offsets_column_family.h"
#include "state/rocksdb_store.h"

namespace iq {
namespace {

// A scan ends with the iterator; the bound only turns a runaway loop into a clear failure.
constexpr size_t kScanEntriesMax = size_t{1} << 28;
// Segments are few (retention / interval + 1 live ones); the bound catches a runaway listing.
constexpr size_t kSegmentDirsMax = size_t{1} << 16;

StreamsError processor_state(std::string message) {
  return {StreamsError::Kind::ProcessorState, std::move(message)};
}

bool in_bounds(std::string_view key, const std::optional<Bytes>& from,
               const std::optional<Bytes>& to) {
  if (from && Bytes::compare(key, from->view()) < 0) return false;
  if (to && Bytes::compare(key, to->view()) > 0) return false;
  return true;
}

}  // namespace

KeyValueSegment::KeyValueSegment(std::string segment_name, int64_t id, std::string column_family)
    : name_(std::move(segment_name)), id_(id), column_family_(std::move(column_family)) {}

// Destroying an open segment is what the simulator's crash does to every object (on a frozen
// disk, so what its DB close flushes is dropped).
KeyValueSegment::~KeyValueSegment() {
  drop();
}

Status KeyValueSegment::open_db(StateStoreContext& context, const std::string& parent_dir,
                                Position* shared_position) {
  IQ_ASSERT(db_ == nullptr, "segment {} opened twice", name_);
  dir_ = parent_dir + "/" + name_;
  if (auto made = context.file_system().create_directories(dir_); !made) return made;
  rocksdb::Env* env =
      context.rocksdb_env() != nullptr ? context.rocksdb_env() : rocksdb::Env::Default();
  write_buffer_size_ = context.rocksdb_write_buffer_size();
  rocksdb::Options options = rocksdb_store_options(env, write_buffer_size_);
  const bool offsets = shared_position != nullptr;  // the new pin (KeyValueSegments decides)
  options.atomic_flush = offsets;                   // dbOptions.setAtomicFlush(true)
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  families.emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(options));
  if (column_family_ != rocksdb::kDefaultColumnFamilyName) {
    families.emplace_back(column_family_, rocksdb::ColumnFamilyOptions(options));
  }
  if (offsets) {
    families.emplace_back(offsets_cf::kColumnFamilyName, rocksdb::ColumnFamilyOptions(options));
  }
  rocksdb::DB* db = nullptr;
  const rocksdb::Status status =
      rocksdb::DB::Open(rocksdb::DBOptions(options), dir_, families, &cf_handles_, &db);
  if (!status.ok()) {
    return base::unexpected(processor_state("Error opening store " + name_ + " at location " +
                                            dir_ + ": " + status.ToString()));
  }
  IQ_ASSERT(db != nullptr && cf_handles_.size() == families.size());
  db_.reset(db);
  cf_ = cf_handles_.at(column_family_ != rocksdb::kDefaultColumnFamilyName ? 1 : 0);
  if (!offsets) return ok_status();
  offsets_cf_ = cf_handles_.back();
  // pin delta 5: RocksDBStore.openDB reads enable.transactional.statestores (true only at the new
  // pin), so each segment is transactional on its own.
  if (context.transactional_state_stores()) {
    buffer_ = std::make_unique<TransactionBuffer>();
    staged_batch_ = std::make_unique<rocksdb::WriteBatch>();
  }
  if (auto opened = open_offsets(context, *shared_position); !opened) {
    drop();
    return opened;
  }
  return ok_status();
}

Status KeyValueSegment::open_offsets(StateStoreContext& context, Position& shared_position) {
  if (offsets_cf::status(*db_, offsets_cf_) == 1) {
    IQ_PROBE("kip1035.segment_reopened_open_marker",
             "a window or session segment reopened with its status \"open\" on disk (a memtable "
             "flush since its last open, then the process died) (new pin; not in the default "
             "campaign: default.toml draws only the old pin, scenarios/templates/kafka_2026.toml "
             "reaches it)");
  }
  // A transactional segment checks the marker but writes none (KAFKA-20753).
  auto stored = offsets_cf::open(*db_, offsets_cf_,
                                 /*ignore_invalid_state=*/!context.eos_enabled(), transactional());
  if (!stored) {
    // pin delta 4: RocksDBStore.openDB turns the invalid state into TaskCorruptedException.
    return base::unexpected(
        StreamsError{StreamsError::Kind::TaskCorrupted,
                     "State store " + name_ +
                         " didn't find a valid state, since under EOS it has the risk of "
                         "getting uncommitted data in stores (" +
                         stored.error().message + ")"});
  }
  status_open_set_ = true;
  // "For segmented stores, the overall position is composed of multiple underlying stores".
  shared_position.merge(*stored, KafkaPin::k2026_08_20);
  return ok_status();
}

// A segment has no record context, so its own pending position stays empty: the position it
// writes is the segmented store's, into which that store merged its pending one first.
// Transactional: the offsets and the position join the staged batch, one db.write applies it all
// (commitStagedWrites), and the batch went into the memtable like any write.
Status KeyValueSegment::commit(const Position& position, const ChangelogOffsets& offsets) {
  if (db_ == nullptr) return ok_status();  // Kafka: `if (db == null) return;`
  IQ_ASSERT(offsets_cf_ != nullptr, "segment {}: commit(offsets) at the old pin", name_);
  if (!offsets_cf::commit(*db_, offsets_cf_, position, offsets, staged_batch_.get())) {
    return base::unexpected(processor_state("Error while executing commit from store " + name_));
  }
  if (!buffer_) return ok_status();
  if (!buffer_->is_empty()) {
    IQ_PROBE("kip892.segment_commit_applied_staged_writes",
             "a transactional window or session segment's commit wrote its staged writes to "
             "RocksDB (new pin, enable.transactional.statestores)");
  }
  const size_t bytes = staged_batch_->GetDataSize();
  auto committed = buffer_->commit([&](const StagedWrites&) -> Status {
    if (!db_->Write(rocksdb_store_write_options(), staged_batch_.get()).ok()) {
      return base::unexpected(
          processor_state("Error committing transaction buffer for store " + name_));
    }
    return ok_status();
  });
  if (!committed) return committed;
  staged_batch_->Clear();
  return maybe_flush_memtable(bytes);
}

int64_t KeyValueSegment::approximate_num_uncommitted_bytes() const {
  if (!buffer_) return 0;
  return buffer_->approximate_num_uncommitted_bytes() +
         static_cast<int64_t>(staged_batch_->GetDataSize());
}

void KeyValueSegment::rollback() {
  if (!buffer_) return;
  buffer_->rollback();
  staged_batch_->Clear();
}

StoreResult<std::optional<ChangelogOffset>> KeyValueSegment::committed_offset(
    const TopicPartition& changelog) {
  if (db_ == nullptr) {
    return base::unexpected(StreamsError{StreamsError::Kind::InvalidStateStore,
                                         "Store " + name_ + " is currently closed"});
  }
  if (offsets_cf_ == nullptr) return std::optional<ChangelogOffset>{};
  return offsets_cf::committed_offset(*db_, offsets_cf_, changelog);
}

std::optional<int64_t> KeyValueSegment::stored_status() {
  IQ_ASSERT(db_ != nullptr && offsets_cf_ != nullptr, "stored_status of segment {}", name_);
  return offsets_cf::status(*db_, offsets_cf_);
}

Status KeyValueSegment::put(const Bytes& key, const ValueBytes& value) {
  IQ_ASSERT(db_ != nullptr, "put into closed segment {}", name_);
  if (buffer_) {
    // pin delta 5: TransactionalDBAccessor.put, staged in the buffer and the batch.
    buffer_->stage(key, value);
    const rocksdb::Status staged = value ? staged_batch_->Put(cf_, key.get(), value->get())
                                         : staged_batch_->Delete(cf_, key.get());
    IQ_ASSERT(staged.ok(), "WriteBatch refused a staged write: {}", staged.ToString());
    return ok_status();
  }
  const rocksdb::Status status =
      value ? db_->Put(rocksdb_store_write_options(), cf_, key.get(), value->get())
            : db_->Delete(rocksdb_store_write_options(), cf_, key.get());
  if (!status.ok()) {
    return base::unexpected(processor_state((value ? "Error while putting key/value into store "
                                                   : "Error while removing key from store ") +
                                            name_));
  }
  return maybe_flush_memtable(
      memtable_entry_bytes(key.get().size(), value ? value->get().size() : 0));
}

// A segment is a RocksDBStore in Kafka: its memtable fills and flushes as one's does.
Status KeyValueSegment::maybe_flush_memtable(size_t bytes_written) {
  memtable_bytes_ += bytes_written;
  // pin delta 2: at the new pin the segment flushes atomically, its offsets with its data, and
  // apart from every other segment (each is its own RocksDB instance).
  auto flushed = flush_if_memtable_full(*db_, cf_, write_buffer_size_, memtable_bytes_,
                                        offsets_cf_ != nullptr ? &cf_handles_ : nullptr);
  if (!flushed) return base::unexpected(flushed.error());
  if (*flushed && offsets_cf_ != nullptr &&
      (operations_in_progress() & static_cast<uint32_t>(Operation::kRestore)) == 0) {
    IQ_PROBE("kip1035.segment_flushed_between_commits",
             "a window or session segment's full memtable flushed its data past the offsets its "
             "last commit wrote, apart from the other segments (new pin; not in the default "
             "campaign: default.toml draws only the old pin, scenarios/templates/kafka_2026.toml "
             "reaches it)");
  }
  return ok_status();
}

StoreResult<ValueBytes> KeyValueSegment::get(const Bytes& key, IsolationLevel level) {
  IQ_ASSERT(db_ != nullptr, "get from closed segment {}", name_);
  // The transactional accessor reads the buffer first (a staged tombstone is null), the
  // committed view RocksDB alone.
  if (buffer_ && level == IsolationLevel::READ_UNCOMMITTED) {
    if (const ValueBytes* staged = buffer_->get(key)) return *staged;
  }
  std::string value;
  const rocksdb::Status status = db_->Get(rocksdb::ReadOptions(), cf_, key.get(), &value);
  if (status.IsNotFound()) return ValueBytes{};
  if (!status.ok()) {
    return base::unexpected(
        processor_state("Error while getting value for key from store " + name_));
  }
  return ValueBytes{Bytes(std::move(value))};
}

// A transactional segment's READ_UNCOMMITTED scan is Kafka's StagedMergeIterator over the
// staged range and RocksDB's; `keep` is a test of the key alone, so filtering each side before the
// merge leaves what filtering the merge would.
Status KeyValueSegment::scan(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                             bool forward, const KeyFilter& keep,
                             std::vector<KeyValue<Bytes, Bytes>>& out, IsolationLevel level) {
  if (!buffer_ || level == IsolationLevel::READ_COMMITTED || buffer_->is_empty()) {
    return scan_base(from, to, forward, keep, out);
  }
  std::vector<KeyValue<Bytes, Bytes>> base;
  if (auto s = scan_base(from, to, forward, keep, base); !s) return s;
  StagedWrites staged = buffer_->staging_snapshot(from, to, /*to_inclusive=*/true, level);
  std::erase_if(staged, [&](const auto& entry) { return !keep(entry.first); });
  visit_staged_merge(staged, base, /*reverse=*/!forward, [&](const Bytes& k, const Bytes& v) {
    out.push_back({k, v});
  });
  return ok_status();
}

Status KeyValueSegment::scan_base(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                                  bool forward, const KeyFilter& keep,
                                  std::vector<KeyValue<Bytes, Bytes>>& out) {
  IQ_ASSERT(db_ != nullptr, "scan of closed segment {}", name_);
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf_));
  if (!forward && to) {
    it->SeekForPrev(to->get());
  } else if (!forward) {
    it->SeekToLast();
  } else if (from) {
    it->Seek(from->get());
  } else {
    it->SeekToFirst();
  }
  size_t seen = 0;
  for (; it->Valid(); forward ? it->Next() : it->Prev()) {
    IQ_ASSERT(++seen < kScanEntriesMax, "scan of segment {} did not end", name_);
    const std::string_view key(it->key().data(), it->key().size());
    if (!in_bounds(key, from, to)) break;
    Bytes k{std::string(key)};
    if (!keep(k)) continue;
    out.push_back({std::move(k), Bytes(it->value().ToString())});
  }
  if (!it->status().ok()) {
    return base::unexpected(
        processor_state("Error while iterating store " + name_ + ": " + it->status().ToString()));
  }
  return ok_status();
}

Status KeyValueSegment::write_batch(const std::vector<std::pair<Bytes, ValueBytes>>& entries) {
  IQ_ASSERT(db_ != nullptr, "restore into closed segment {}", name_);
  rocksdb::WriteBatch batch;
  for (const auto& [key, value] : entries) {
    const rocksdb::Status s =
        value ? batch.Put(cf_, key.get(), value->get()) : batch.Delete(cf_, key.get());
    IQ_ASSERT(s.ok(), "WriteBatch refused an entry: {}", s.ToString());
  }
  IQ_ASSERT(static_cast<size_t>(batch.Count()) == entries.size());
  if (!db_->Write(rocksdb_store_write_options(), &batch).ok()) {
    return base::unexpected(processor_state("Error restoring batch to store " + name_));
  }
  return maybe_flush_memtable(batch.GetDataSize());
}

Status KeyValueSegment::flush() {
  if (db_ == nullptr) return ok_status();
  rocksdb::FlushOptions options;
  options.wait = true;
  if (!db_->Flush(options, cf_).ok() || !compact_if_triggered(*db_, cf_).ok()) {
    return base::unexpected(processor_state("Error while executing flush from store " + name_));
  }
  memtable_bytes_ = 0;
  return ok_status();
}

void KeyValueSegment::close() {
  if (db_ == nullptr) return;
  if (buffer_ && !buffer_->is_empty()) {
    IQ_PROBE("kip892.segment_close_discarded_staged_writes",
             "a transactional window or session segment closed with staged writes, which it "
             "discarded (new pin, enable.transactional.statestores)");
  }
  rollback();
  if (offsets_cf_ != nullptr) {
    // Kafka logs a failed status write and closes anyway; db.close() flushes with the WAL off.
    // A transactional segment writes no marker (KAFKA-20753).
    if (status_open_set_ && !buffer_) (void)offsets_cf::close(*db_, offsets_cf_);
    status_open_set_ = false;
    const rocksdb::Status flushed = flush_atomically(*db_, cf_handles_);
    IQ_ASSERT(flushed.ok(), "segment {}: flush at close: {}", name_, flushed.ToString());
    memtable_bytes_ = 0;
  }
  drop();
}

void KeyValueSegment::drop() {
  rollback();
  if (db_ == nullptr) return;
  for (rocksdb::ColumnFamilyHandle* handle : cf_handles_) {
    const rocksdb::Status destroyed = db_->DestroyColumnFamilyHandle(handle);
    IQ_ASSERT(destroyed.ok(), "{}", destroyed.ToString());
  }
  cf_handles_.clear();
  cf_ = nullptr;
  offsets_cf_ = nullptr;
  status_open_set_ = false;
  // DB::Close flushes the memtables (avoid_flush_during_shutdown false, as in Kafka; see
  // rocksdb_store.h): a killed process loses them only because its disk is frozen first.
  (void)db_->Close();
  db_.reset();
}

Status KeyValueSegment::destroy(FileSystem& fs) {
  IQ_ASSERT(db_ == nullptr, "segment {} destroyed while open", name_);
  if (dir_.empty()) return ok_status();
  return fs.delete_recursively(dir_);
}

KeyValueSegments::KeyValueSegments(std::string name, int64_t retention_period_ms,
                                   int64_t segment_interval_ms, std::string column_family)
    : name_(std::move(name)),
      retention_period_ms_(retention_period_ms),
      segment_interval_ms_(segment_interval_ms),
      column_family_(std::move(column_family)) {
  IQ_ASSERT(segment_interval_ms_ >= 1 && retention_period_ms_ >= 0, "interval {} retention {}",
            segment_interval_ms_, retention_period_ms_);
}

std::string KeyValueSegments::segment_name(int64_t segment_id) const {
  return name_ + "." + std::to_string(segment_id * segment_interval_ms_);
}

KeyValueSegment* KeyValueSegments::segment_for_timestamp(int64_t timestamp_ms) {
  auto it = segments_.find(segment_id(timestamp_ms));
  return it == segments_.end() ? nullptr : it->second.get();
}

StoreResult<KeyValueSegment*> KeyValueSegments::get_or_create_segment_if_live(
    int64_t segment_id, StateStoreContext& context, int64_t stream_time_ms) {
  const int64_t min_live_segment = this->segment_id(stream_time_ms - retention_period_ms_);
  StoreResult<KeyValueSegment*> segment = static_cast<KeyValueSegment*>(nullptr);
  if (segment_id >= min_live_segment) {
    segment = get_or_create_segment(segment_id, context);
  } else {
    IQ_PROBE("segments.expired_put", "a put or restored record fell in an expired segment");
  }
  cleanup_expired_segments(stream_time_ms);
  return segment;
}

StoreResult<KeyValueSegment*> KeyValueSegments::get_or_create_segment(int64_t segment_id,
                                                                      StateStoreContext& context) {
  auto it = segments_.find(segment_id);
  if (it != segments_.end()) return it->second.get();
  context_ = &context;
  auto segment =
      std::make_unique<KeyValueSegment>(segment_name(segment_id), segment_id, column_family_);
  if (auto s = segment->open_db(context, context.state_dir() + "/" + name_, shared_position_); !s) {
    return base::unexpected(s.error());
  }
  IQ_PROBE("segments.roll", "a segmented store opened a new segment");
  return segments_.emplace(segment_id, std::move(segment)).first->second.get();
}

// Kafka parses every entry as "<name><separator><number>" and ignores any exception of the whole
// listing; the old date-formatted and ':' names are not modelled (iqsim never wrote them).
Status KeyValueSegments::open_existing(StateStoreContext& context, int64_t stream_time_ms) {
  const std::string dir = context.state_dir() + "/" + name_;
  if (!context.file_system().exists(dir)) {
    if (auto made = context.file_system().create_directories(dir); !made) return made;
  }
  std::vector<int64_t> ids;
  const std::vector<std::string> names = context.file_system().list_directory(dir);
  IQ_ASSERT(names.size() < kSegmentDirsMax, "{} entries under {}", names.size(), dir);
  for (const std::string& entry : names) {
    if (entry.size() <= name_.size() + 1 || entry.compare(0, name_.size(), name_) != 0 ||
        entry[name_.size()] != '.') {
      continue;
    }
    int64_t start = 0;
    const char* first = entry.data() + name_.size() + 1;
    const char* last = entry.data() + entry.size();
    const auto [end, ec] = std::from_chars(first, last, start);
    if (ec != std::errc() || end != last) continue;
    ids.push_back(start / segment_interval_ms_);
  }
  std::sort(ids.begin(), ids.end());
  for (int64_t id : ids) {
    if (id < 0) continue;  // Kafka filters negative ids
    auto opened = get_or_create_segment(id, context);
    if (!opened) return base::unexpected(opened.error());
  }
  cleanup_expired_segments(stream_time_ms);
  return ok_status();
}

std::vector<KeyValueSegment*> KeyValueSegments::segments(int64_t time_from_ms, int64_t time_to_ms,
                                                         bool forward) {
  std::vector<KeyValueSegment*> out;
  const int64_t from_id = segment_id(time_from_ms), to_id = segment_id(time_to_ms);
  // TreeMap.subMap throws for from > to; every caller checks its range first.
  IQ_ASSERT(from_id <= to_id, "segment range {}..{}", from_id, to_id);
  for (auto it = segments_.lower_bound(from_id); it != segments_.end() && it->first <= to_id; ++it)
    if (it->second->is_open()) out.push_back(it->second.get());
  if (!forward) std::reverse(out.begin(), out.end());
  return out;
}

Status KeyValueSegments::flush() {
  for (auto& [id, segment] : segments_) {
    if (auto s = segment->flush(); !s) return s;
  }
  return ok_status();
}

void KeyValueSegments::close() {
  for (auto& [id, segment] : segments_) segment->close();
  segments_.clear();
}

void KeyValueSegments::drop_all() {
  for (auto& [id, segment] : segments_) segment->drop();
  segments_.clear();
}

Status KeyValueSegments::commit(const ChangelogOffsets& offsets) {
  IQ_ASSERT(shared_position_ != nullptr, "segments {}: commit(offsets) at the old pin", name_);
  for (auto& [id, segment] : segments_) {
    if (auto s = segment->commit(*shared_position_, offsets); !s) return s;
  }
  return ok_status();
}

StoreResult<std::optional<ChangelogOffset>> KeyValueSegments::committed_offset(
    const TopicPartition& changelog) {
  std::optional<ChangelogOffset> newest;
  for (auto it = segments_.rbegin(); it != segments_.rend(); ++it) {
    auto offset = it->second->committed_offset(changelog);
    if (!offset) return offset;
    if (!newest) {
      newest = *offset;
      continue;
    }
    // Kafka stops at the first; reading on only to observe an older segment behind it: its
    // memtable was lost in a crash after the newer one's flush (pin delta 12, §10 H4).
    if (!*offset || **offset < *newest) {
      IQ_PROBE("kip1035.segment_flushed_apart",
               "a reopened window or session store found an older segment's committed offset "
               "behind the newest segment's: the segments flushed apart before a crash, and the "
               "store restores from the newest one's (new pin, delta 12; not in the default "
               "campaign: default.toml draws only the old pin, "
               "scenarios/templates/kafka_2026.toml reaches it)");
      break;
    }
  }
  return newest;
}

// Every segment below segmentId(streamTime - retention) is closed and its directory deleted.
void KeyValueSegments::cleanup_expired_segments(int64_t stream_time_ms) {
  const int64_t min_live_segment = segment_id(stream_time_ms - retention_period_ms_);
  auto end = segments_.lower_bound(min_live_segment);
  for (auto it = segments_.begin(); it != end; ++it) {
    IQ_PROBE("segments.expire", "a segmented store dropped an expired segment");
    it->second->close();
    IQ_ASSERT(context_ != nullptr);
    // Kafka logs a failed destroy and goes on; the segment is gone from the store either way.
    (void)it->second->destroy(context_->file_system());
  }
  segments_.erase(segments_.begin(), end);
}

bool KeyValueSegment::kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) {
  IQ_ASSERT(db_ != nullptr, "kept_entries on closed segment {}", name_);
  return collect_kept_entries(*db_, cf_, out);
}

bool KeyValueSegments::kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) {
  bool any = false;
  for (const auto& [id, segment] : segments_) {
    if (segment->kept_entries(out)) any = true;
  }
  return any;
}

int64_t KeyValueSegments::approximate_num_uncommitted_bytes() const {
  int64_t total = 0;
  for (const auto& [id, segment] : segments_) total += segment->approximate_num_uncommitted_bytes();
  return total;
}

std::vector<int64_t> KeyValueSegments::segment_ids() const {
  std::vector<int64_t> out;
  for (const auto& [id, segment] : segments_) out.push_back(id);
  return out;
}

}  // namespace iq
