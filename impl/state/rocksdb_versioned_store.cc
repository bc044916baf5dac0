#include "state/rocksdb_versioned_store.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "base/assert.h"
#include "base/probe.h"
#include "iq/serdes.h"
#include "state/rocksdb_versioned_store_segment_value_formatter.h"
#include "state/state_store_context.h"
#include "state/store_query_utils.h"

namespace iq {
namespace {

namespace segment_value = versioned_segment_value;
using segment_value::SegmentValue;

// RocksDBVersionedStore.SENTINEL_TIMESTAMP: "no version found yet" during a put. It equals
// PUT_RETURN_CODE_NOT_PUT (both Long.MIN_VALUE), so where Kafka's doPut discards a record and
// returns NOT_PUT, the caller maps it to VALID_TO_UNDEFINED like the sentinel; the discard only
// happens during restore, where the return value is not used.
constexpr int64_t kSentinelTimestamp = std::numeric_limits<int64_t>::min();
constexpr int64_t kLatestValueStoreId = -1;  // the reserved segment of the latest values
constexpr int64_t kTimestampMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kTimestampMin = std::numeric_limits<int64_t>::min();
// A bound on the segments one store can hold at once: retention / interval + 2 in practice.
constexpr size_t kSegmentsMax = size_t{1} << 20;

// LogicalKeyValueSegment's key prefix: the segment id as 8 big-endian bytes.
std::string prefix_of(int64_t id) {
  return serde_detail::to_big_endian(static_cast<uint64_t>(id));
}
Bytes prefixed(int64_t id, const Bytes& key) {
  return Bytes(prefix_of(id) + key.get());
}

// LatestValueFormatter: [8-byte timestamp][value], the same bytes as a ValueAndTimestamp.
VersionedBytesRecord latest_record(const Bytes& raw) {
  return {timestamped_bytes::raw_value(raw), timestamped_bytes::timestamp(raw), std::nullopt};
}

int64_t clamp_sub(int64_t a, int64_t b) {
  // observedStreamTime - historyRetention: both are small enough in practice that Java does not
  // overflow; the clamp only keeps an absurd retention from wrapping around here.
  return a < kTimestampMin + b ? kTimestampMin : a - b;
}

}  // namespace

// What the physical RocksDBStore sees of its task: the files, and no record context, so that it
// never advances a position of its own (Kafka opens it with openDB, without init). It registers
// nothing: restore and the .position file belong to the versioned store.
class RocksDBVersionedStore::PhysicalContext final : public StateStoreContext {
 public:
  explicit PhysicalContext(StateStoreContext& task) : task_(task) {}
  const std::string& application_id() const override { return task_.application_id(); }
  TaskId task_id() const override { return task_.task_id(); }
  const RecordContext* record_context() const override { return nullptr; }
  void set_record_context(std::optional<RecordContext>) override {
    IQ_ASSERT(false, "the physical store of a versioned store has no record context");
  }
  bool consistency_enabled() const override { return false; }
  Status log_change(const std::string&, const Bytes&, const ValueBytes&, int64_t,
                    const Position&) override {
    IQ_ASSERT(false, "the physical store of a versioned store never logs");
    return ok_status();
  }
  void register_store(StateStore&, RestoreCallback, CommitCallback) override {}
  ThreadCache* cache() override { return nullptr; }
  const std::string& state_dir() const override { return task_.state_dir(); }
  FileSystem& file_system() override { return task_.file_system(); }
  rocksdb::Env* rocksdb_env() override { return task_.rocksdb_env(); }
  size_t rocksdb_write_buffer_size() const override { return task_.rocksdb_write_buffer_size(); }
  // openDB reads the pin, processing.guarantee and enable.transactional.statestores from the app
  // configs, as any RocksDBStore does (LogicalKeyValueSegments.openExisting passes
  // context.appConfigs()): with the flag the physical store is transactional (pin delta 5).
  KafkaPin kafka_pin() const override { return task_.kafka_pin(); }
  bool eos_enabled() const override { return task_.eos_enabled(); }
  bool transactional_state_stores() const override { return task_.transactional_state_stores(); }

 private:
  StateStoreContext& task_;
};

// RocksDBVersionedStore.ReadOnlyView (KAFKA-20500): the gets at one isolation level. Kafka's view
// throws on writes; this interface has none.
class RocksDBVersionedStore::ReadCommittedView final : public ReadOnlyVersionedBytes {
 public:
  explicit ReadCommittedView(RocksDBVersionedStore& store) : store_(store) {}
  StoreResult<std::optional<VersionedBytesRecord>> get(const Bytes& key) override {
    return store_.get_latest(key, IsolationLevel::READ_COMMITTED);
  }
  StoreResult<std::optional<VersionedBytesRecord>> get(const Bytes& key,
                                                       int64_t as_of_ms) override {
    return store_.get_as_of(key, as_of_ms, IsolationLevel::READ_COMMITTED);
  }

 private:
  RocksDBVersionedStore& store_;
};

RocksDBVersionedStore::RocksDBVersionedStore(std::string name, int64_t history_retention_ms,
                                             int64_t segment_interval_ms)
    : name_(std::move(name)),
      history_retention_ms_(history_retention_ms),
      grace_period_ms_(history_retention_ms),
      segment_interval_ms_(segment_interval_ms),
      physical_store_(std::make_unique<RocksDBStore>(name_)),
      read_committed_view_(std::make_unique<ReadCommittedView>(*this)) {
  IQ_ASSERT(!name_.empty());
  IQ_ASSERT(history_retention_ms_ >= 0, "historyRetention {}", history_retention_ms_);
  IQ_ASSERT(segment_interval_ms_ >= 1, "segmentInterval {}", segment_interval_ms_);
}

// Destroying an open store is what the simulator's crash does (on a frozen disk): the physical
// store goes by its destructor, at the new pin without its "closed" marker.
RocksDBVersionedStore::~RocksDBVersionedStore() {
  open_ = false;
  segments_.clear();
}

Status RocksDBVersionedStore::init(StateStoreContext& context, StateStore& root) {
  IQ_ASSERT(!open_, "store {} initialized twice", name_);
  position_checkpoint_ = std::make_unique<OffsetCheckpoint>(
      context.file_system(), context.state_dir() + "/" + name_ + ".position");
  auto position = read_position_from_checkpoint(*position_checkpoint_);
  if (!position) return base::unexpected(position.error());
  // Kafka quirk (docs/iqv2-semantics.md quirk 17): LogicalKeyValueSegments.openExisting opens the
  // physical DB and nothing else, so the segments written before this store object was closed
  // are not known again: older versions stay on disk but get(key, asOf) and
  // MultiVersionedKeyQuery do not see them until a put re-creates their segment.
  IQ_ASSERT(segments_.empty());
  physical_context_ = std::make_unique<PhysicalContext>(context);
  CommitCallback commit_callback = [this] {
    return checkpoint_position(*position_checkpoint_, position_);
  };
  if (at_least(context.kafka_pin(), KafkaPin::k2026_08_20)) {
    if (auto s = open_physical_managing_offsets(*position); !s) return s;
    // segmentStores::writePosition is a no-op there: commit() writes the physical store's.
    commit_callback = [] { return ok_status(); };
  } else {
    position_ = std::move(*position);
    if (auto s = physical_store_->init(*physical_context_, *physical_store_); !s) return s;
  }
  // Exact, not estimate-num-keys: an estimate of 0 over a store whose latest values survived a
  // restart hid quirk 17 from the verdict (templates/versioned.toml seed 11).
  opened_over_existing_data_ = physical_store_->holds_any_entry();
  context.register_store(
      root, [this](const std::vector<ConsumerRecord>& records) { return restore_batch(records); },
      std::move(commit_callback));
  open_ = true;
  consistency_enabled_ = context.consistency_enabled();
  end_of_batch_stream_time_ = context.quirks().versioned_restore_end_of_batch_stream_time;
  context_ = &context;
  committed_position_ = position_.copy();  // nothing is staged at the open
  return ok_status();
}

// pin delta 1 (53b1a77b59), as LogicalKeyValueSegments.openExisting and RocksDBVersionedStore.init
// have it at the new pin: the physical store is opened with openDB (its offsets column family,
// the status check: TaskCorrupted under exactly_once_v2 on an "open" marker), the versioned
// store's position starts as the physical store's stored one, then an old .position file is
// merged in (maybeMigrateExistingPositionFile, never deleted). Pin delta 10: the versioned store
// advances its own position object only; the physical store's, which its commit writes, stays
// what it read at open.
Status RocksDBVersionedStore::open_physical_managing_offsets(const Position& position_file) {
  if (auto s = physical_store_->open_without_registering(*physical_context_); !s) return s;
  position_ = Position::empty_position();
  position_.merge(physical_store_->position(), KafkaPin::k2026_08_20);
  position_.merge(position_file, KafkaPin::k2026_08_20);
  return ok_status();
}

Status RocksDBVersionedStore::flush() {
  // Flushing the physical store flushes every segment and the latest values: one RocksDB.
  return physical_store_->flush();
}

void RocksDBVersionedStore::close() {
  open_ = false;
  segments_.clear();  // AbstractSegments.close clears the map
  physical_store_->close();
}

// LogicalKeyValueSegments.commit: the physical store's, which holds every logical segment and the
// latest values, with the physical store's own position (pin delta 10).
Status RocksDBVersionedStore::commit(const ChangelogOffsets& offsets) {
  if (auto s = physical_store_->commit(offsets); !s) return s;
  // Every write the position covers is in RocksDB now (the observation, not Kafka's).
  committed_position_ = position_.copy();
  return ok_status();
}

bool RocksDBVersionedStore::manages_offsets() const {
  return physical_store_->manages_offsets();
}

StoreResult<std::optional<ChangelogOffset>> RocksDBVersionedStore::committed_offset(
    const TopicPartition& changelog) {
  return physical_store_->committed_offset(changelog);
}

std::vector<int64_t> RocksDBVersionedStore::segment_ids() const {
  return {segments_.begin(), segments_.end()};
}

// pin delta 9 (8cfdfaaacc): the one position, advanced by every put whether staged or not, bounds
// and labels both levels; only the data read depends on the level.
QueryOutcome RocksDBVersionedStore::query(const Query& query, const PositionBound& bound,
                                          const QueryConfig& config) {
  return store_query_utils::handle_basic_queries(query, bound, config, *this, position_, context_);
}

ReadOnlyVersionedBytes& RocksDBVersionedStore::read_only(IsolationLevel level) {
  if (level == IsolationLevel::READ_UNCOMMITTED) return *this;
  return *read_committed_view_;
}

StoreResult<int64_t> RocksDBVersionedStore::put(const Bytes& key, const ValueBytes& value,
                                                int64_t timestamp_ms) {
  if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
  const int64_t grace_edge_ms = clamp_sub(observed_stream_time_ms_, grace_period_ms_);
  if (timestamp_ms < grace_edge_ms) {
    // Kafka quirk (docs/iqv2-semantics.md quirk 14): the dropped put still advances the position,
    // where the dropped delete below does not.
    IQ_PROBE("versioned.put_expired", "a versioned store dropped a put older than its grace");
    if (timestamp_ms == grace_edge_ms - 1) {
      IQ_PROBE("versioned.put_dropped_just_beyond_grace",
               "a versioned store dropped a put 1 ms older than its grace edge");
    }
    store_query_utils::update_position(position_, context_);
    return kPutReturnCodeNotPut;
  }
  if (timestamp_ms == grace_edge_ms) {
    IQ_PROBE("versioned.put_at_grace_edge",
             "a versioned store kept a put exactly at stream time - grace");
  }
  observed_stream_time_ms_ = std::max(observed_stream_time_ms_, timestamp_ms);
  auto found = do_put(observed_stream_time_ms_, key, value, timestamp_ms);
  if (!found) return found;
  store_query_utils::update_position(position_, context_);
  return found;
}

StoreResult<std::optional<VersionedBytesRecord>> RocksDBVersionedStore::delete_key(
    const Bytes& key, int64_t timestamp_ms) {
  if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
  if (timestamp_ms < clamp_sub(observed_stream_time_ms_, grace_period_ms_)) {
    // Only VersionedKeyValueStore#delete reaches here (the VersionedPapiWriter topology): the
    // versioned table (KTableSource) writes a tombstone as put(key, null, ts).
    IQ_PROBE("versioned.delete_expired",
             "a versioned store dropped a delete older than its grace (the VersionedPapiWriter "
             "topology's late tombstone)");
    return std::optional<VersionedBytesRecord>{};  // quirk 14: no position update here
  }
  auto existing = get(key, timestamp_ms);
  if (!existing) return existing;
  observed_stream_time_ms_ = std::max(observed_stream_time_ms_, timestamp_ms);
  if (auto put = do_put(observed_stream_time_ms_, key, std::nullopt, timestamp_ms); !put) {
    return base::unexpected(put.error());
  }
  store_query_utils::update_position(position_, context_);
  return existing;
}

StoreResult<std::optional<VersionedBytesRecord>> RocksDBVersionedStore::get(const Bytes& key) {
  return get_latest(key, IsolationLevel::READ_UNCOMMITTED);
}

StoreResult<std::optional<VersionedBytesRecord>> RocksDBVersionedStore::get(const Bytes& key,
                                                                            int64_t as_of_ms) {
  return get_as_of(key, as_of_ms, IsolationLevel::READ_UNCOMMITTED);
}

StoreResult<std::optional<VersionedBytesRecord>> RocksDBVersionedStore::get_latest(
    const Bytes& key, IsolationLevel level) {
  if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
  auto raw = segment_get(kLatestValueStoreId, key, level);
  if (!raw) return base::unexpected(raw.error());
  if (!raw->has_value()) return std::optional<VersionedBytesRecord>{};
  return std::optional<VersionedBytesRecord>(latest_record(**raw));
}

// The observed stream time, raised by staged puts too, sets the history floor at both levels, as
// in Kafka; READ_COMMITTED reads the segments this object knows through their committed views.
StoreResult<std::optional<VersionedBytesRecord>> RocksDBVersionedStore::get_as_of(
    const Bytes& key, int64_t as_of_ms, IsolationLevel level) {
  if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
  auto raw = segment_get(kLatestValueStoreId, key, level);
  if (!raw) return base::unexpected(raw.error());
  // The latest version never expires: it answers whenever it was valid at as_of.
  if (raw->has_value() && timestamped_bytes::timestamp(**raw) == as_of_ms) {
    IQ_PROBE("versioned.get_as_of_at_latest",
             "a versioned get's asOf equals the latest version's timestamp");
  }
  if (raw->has_value() && timestamped_bytes::timestamp(**raw) <= as_of_ms) {
    return std::optional<VersionedBytesRecord>(latest_record(**raw));
  }
  if (as_of_ms == clamp_sub(observed_stream_time_ms_, history_retention_ms_)) {
    IQ_PROBE("versioned.get_as_of_at_retention_edge",
             "a versioned get's asOf equals stream time - history retention");
  }
  if (as_of_ms < clamp_sub(observed_stream_time_ms_, history_retention_ms_)) {
    // Beyond history retention: null "for predictability", even if a segment still has it.
    IQ_PROBE("versioned.get_expired", "a versioned get asked for a time beyond history retention");
    return std::optional<VersionedBytesRecord>{};
  }
  return get_from_segments(key, as_of_ms, level);
}

// Newest segment first, from the one as_of falls in: versions sit in the segment of their validTo,
// so the version valid at as_of is in the first segment whose row spans as_of.
StoreResult<std::optional<VersionedBytesRecord>> RocksDBVersionedStore::get_from_segments(
    const Bytes& key, int64_t as_of_ms, IsolationLevel level) {
  const auto none = std::optional<VersionedBytesRecord>{};
  for (int64_t id : segments(as_of_ms, kTimestampMax, /*forward=*/false)) {
    auto raw = segment_get(id, key, level);
    if (!raw) return base::unexpected(raw.error());
    if (!raw->has_value()) continue;
    const std::string_view bytes = (*raw)->view();
    // This segment ends before as_of, so no earlier one can hold it either.
    if (segment_value::next_timestamp(bytes) <= as_of_ms) return none;
    if (segment_value::min_timestamp(bytes) == as_of_ms) {
      IQ_PROBE("versioned.get_as_of_at_segment_min",
               "a versioned get's asOf equals the oldest timestamp of a segment row it reads");
    }
    if (segment_value::min_timestamp(bytes) > as_of_ms) continue;
    const auto found = SegmentValue::deserialize(bytes).find(as_of_ms, /*include_value=*/true);
    if (!found.value) return none;  // a tombstone was valid at as_of
    return std::optional<VersionedBytesRecord>(
        VersionedBytesRecord{*found.value, found.valid_from, found.valid_to});
  }
  return none;
}

// Kafka quirk (docs/iqv2-semantics.md quirk 16): the segments read are those with ids up to
// segment_id(to), from the earliest, because the search starts "at -infinity"; but a version sits
// in the segment of its validTo, so a version valid inside [from, to] whose validTo falls in a
// later segment than `to` is not found (get(key, asOf) starts at segment_id(asOf) and upward, and
// finds it). Beyond history retention (to older than it) only the latest value is read.
StoreResult<VersionedRecordIterator<Bytes>> RocksDBVersionedStore::get(
    const Bytes& key, int64_t from_ms, int64_t to_ms, ResultOrder order, IsolationLevel level) {
  if (auto s = validate_store_open(); !s) return base::unexpected(s.error());
  const bool ascending = order == ResultOrder::ASCENDING;
  std::vector<int64_t> ids;
  if (to_ms == clamp_sub(observed_stream_time_ms_, history_retention_ms_)) {
    IQ_PROBE("versioned.multi_get_to_at_retention_edge",
             "a multi-version query's toTime equals stream time - history retention");
  }
  if (to_ms < clamp_sub(observed_stream_time_ms_, history_retention_ms_)) {
    IQ_PROBE("versioned.multi_get_expired", "a multi-version query ended beyond history retention");
    ids.push_back(kLatestValueStoreId);
  } else {
    ids = segments(kTimestampMin, to_ms, ascending);
    if (ascending) {
      ids.push_back(kLatestValueStoreId);
    } else {
      ids.insert(ids.begin(), kLatestValueStoreId);
    }
  }
  VersionedRecordIterator<Bytes> out;
  for (int64_t id : ids) {
    auto raw = segment_get(id, key, level);
    if (!raw) return base::unexpected(raw.error());
    if (!raw->has_value()) continue;
    if (id == kLatestValueStoreId) {
      // The latest version is valid until further notice, so only its start is compared.
      if (timestamped_bytes::timestamp(**raw) <= to_ms) out.records.push_back(latest_record(**raw));
      continue;
    }
    // A row lists its versions newest first; LogicalSegmentIterator walks it backwards when
    // ascending.
    auto found = SegmentValue::deserialize((*raw)->view()).find_all(from_ms, to_ms);
    if (ascending) std::reverse(found.begin(), found.end());
    for (auto& f : found) {
      if (f.valid_from == to_ms) {
        IQ_PROBE("versioned.multi_get_to_at_version",
                 "a multi-version query's toTime equals an older version's timestamp");
      }
      out.records.push_back({std::move(*f.value), f.valid_from, f.valid_to});
    }
  }
  return out;
}

Status RocksDBVersionedStore::restore_batch(const std::vector<ConsumerRecord>& records) {
  IQ_ASSERT(open_, "restoring into closed store {}", name_);
  restoring_ = true;
  auto restored = restore_records(records);
  restoring_ = false;
  return restored;
}

// The stream time at the end of the batch: segments that will have expired by then are not
// written at all (Kafka's restore optimisation, kept because it decides what survives).
// Kafka quirk (docs/iqv2-semantics.md quirk 18): records are still admitted by the RUNNING
// stream time below, so a latest tombstone whose own segment is expired by the batch's end is
// dropped, and a later out-of-order value in the same batch then stretches over its interval;
// a multi-record restore can answer differently from live processing inside the retention.
Status RocksDBVersionedStore::restore_records(const std::vector<ConsumerRecord>& records) {
  int64_t end_of_batch_stream_time_ms = observed_stream_time_ms_;
  for (const ConsumerRecord& record : records)
    end_of_batch_stream_time_ms = std::max(end_of_batch_stream_time_ms, record.timestamp);
  for (const ConsumerRecord& record : records) {
    if (!record.key) continue;  // StoreChangelogReader drops null keys before the store
    if (record.timestamp < clamp_sub(observed_stream_time_ms_, grace_period_ms_)) {
      // Never written to the store, so skipped before the position (quirk 14).
      IQ_PROBE("versioned.restore_expired", "a versioned restore skipped a record beyond grace");
      continue;
    }
    observed_stream_time_ms_ = std::max(observed_stream_time_ms_, record.timestamp);
    auto checked = store_query_utils::apply_checks_and_update_position(record, consistency_enabled_,
                                                                       position_);
    if (!checked) return checked;
    if (transactional()) {
      // Restored data is committed on arrival (written past the buffer), and so is its position
      // (the observation; staged puts, if any, keep theirs out of it).
      (void)store_query_utils::apply_checks_and_update_position(record, consistency_enabled_,
                                                                committed_position_);
    }
    // With quirk 18 off (only the judge's rerun), the running stream time, as live processing.
    auto put =
        do_put(end_of_batch_stream_time_ ? end_of_batch_stream_time_ms : observed_stream_time_ms_,
               *record.key, record.value, record.timestamp);
    if (!put) {
      return base::unexpected(StreamsError{StreamsError::Kind::ProcessorState,
                                           "Error restoring batch to store " + name_});
    }
  }
  return ok_status();
}

Status RocksDBVersionedStore::validate_store_open() const {
  if (open_) return ok_status();
  return base::unexpected(StreamsError{StreamsError::Kind::InvalidStateStore,
                                       "Store " + name_ + " is currently closed"});
}

// doPut: the latest value store first, then the segments newest to oldest, then wherever the
// versions found so far say the new one belongs. Returns the new version's validTo.
StoreResult<int64_t> RocksDBVersionedStore::do_put(int64_t stream_time_ms, const Bytes& key,
                                                   const ValueBytes& value, int64_t timestamp_ms) {
  if (auto s = cleanup_expired_segments(stream_time_ms); !s) return base::unexpected(s.error());
  auto to_return = [](int64_t found_ts) {
    return found_ts == kSentinelTimestamp ? kPutReturnCodeValidToUndefined : found_ts;
  };
  auto latest = maybe_put_to_latest_value_store(stream_time_ms, key, value, timestamp_ms);
  if (!latest) return base::unexpected(latest.error());
  if (latest->complete) return to_return(latest->found_ts);
  auto segments = maybe_put_to_segments(stream_time_ms, key, value, timestamp_ms, latest->found_ts);
  if (!segments) return base::unexpected(segments.error());
  if (segments->complete) return to_return(segments->found_ts);
  auto finished = finish_put(stream_time_ms, key, value, timestamp_ms, segments->found_ts);
  if (!finished) return finished;
  return to_return(*finished);
}

StoreResult<RocksDBVersionedStore::PutStatus>
RocksDBVersionedStore::maybe_put_to_latest_value_store(int64_t stream_time_ms, const Bytes& key,
                                                       const ValueBytes& value,
                                                       int64_t timestamp_ms) {
  auto raw = segment_get(kLatestValueStoreId, key);
  if (!raw) return base::unexpected(raw.error());
  if (!raw->has_value()) return PutStatus{false, kSentinelTimestamp};
  const int64_t latest_ts = timestamped_bytes::timestamp(**raw);
  if (timestamp_ms < latest_ts) return PutStatus{false, latest_ts};
  if (timestamp_ms > latest_ts) {
    // The old latest version moves into the segment of its new validTo, before the latest value
    // changes (a failure in between leaves a duplicate, which insert_as_latest reconciles). A
    // segment already expired needs no copy.
    if (auto id = get_or_create_segment_if_live(segment_id(timestamp_ms), stream_time_ms)) {
      IQ_PROBE("versioned.latest_moved_to_segment", "a put moved the latest version to a segment");
      const Bytes moved = timestamped_bytes::raw_value(**raw);
      auto row = segment_get(*id, key);
      if (!row) return base::unexpected(row.error());
      SegmentValue value_to_write = SegmentValue::with_record(moved, latest_ts, timestamp_ms);
      if (row->has_value()) {
        value_to_write = SegmentValue::deserialize((*row)->view());
        value_to_write.insert_as_latest(latest_ts, timestamp_ms, moved);
      }
      if (auto s = segment_put(*id, key, value_to_write.serialize()); !s) {
        return base::unexpected(s.error());
      }
    }
  }
  // A tombstone is never kept as a latest value: the moved version's validTo records it.
  const ValueBytes latest =
      value ? ValueBytes(timestamped_bytes::make(timestamp_ms, *value)) : ValueBytes{};
  if (auto s = segment_put(kLatestValueStoreId, key, latest); !s) {
    return base::unexpected(s.error());
  }
  return PutStatus{true, kSentinelTimestamp};
}

StoreResult<RocksDBVersionedStore::PutStatus> RocksDBVersionedStore::maybe_put_to_segments(
    int64_t stream_time_ms, const Bytes& key, const ValueBytes& value, int64_t timestamp_ms,
    int64_t prev_found_ts) {
  int64_t found_ts = prev_found_ts;
  for (int64_t id : segments(timestamp_ms, kTimestampMax, /*forward=*/false)) {
    auto raw = segment_get(id, key);
    if (!raw) return base::unexpected(raw.error());
    if (!raw->has_value()) continue;
    const std::string_view bytes = (*raw)->view();
    // This row (and every older one) ends at or before the new version: it goes where found_ts
    // says.
    if (segment_value::next_timestamp(bytes) <= timestamp_ms) return PutStatus{false, found_ts};
    const int64_t found_min_ts = segment_value::min_timestamp(bytes);
    if (found_min_ts <= timestamp_ms) {
      auto valid_to = put_to_segment(stream_time_ms, id, **raw, key, value, timestamp_ms);
      if (!valid_to) return base::unexpected(valid_to.error());
      return PutStatus{true, *valid_to};
    }
    if (found_min_ts < clamp_sub(stream_time_ms, history_retention_ms_)) {
      // Only during restore (the stream time is the batch's end): Kafka quirk 18 again
      // (docs/iqv2-semantics.md): the version ends beyond the history retention by the batch's
      // end, so it is discarded here, while live processing kept it until its segment expired.
      IQ_PROBE("versioned.restore_put_discarded", "a restored version fell outside the history");
      return PutStatus{true, kPutReturnCodeNotPut};
    }
    found_ts = found_min_ts;  // it may belong here or in an older segment: keep looking
  }
  return PutStatus{false, found_ts};
}

StoreResult<int64_t> RocksDBVersionedStore::put_to_segment(
    int64_t stream_time_ms, int64_t segment_id_of_row, const Bytes& raw_segment_value,
    const Bytes& key, const ValueBytes& value, int64_t timestamp_ms) {
  const int64_t segment_for_timestamp = segment_id(timestamp_ms);
  // The new version shortens the validTo of the one it lands in; if that validTo now falls in an
  // older segment, the shortened version moves there.
  const bool write_to_older_segment_maybe_needed = segment_for_timestamp != segment_id_of_row;
  SegmentValue row = SegmentValue::deserialize(raw_segment_value.view());
  const auto found = row.find(timestamp_ms, write_to_older_segment_maybe_needed);
  if (found.valid_from == timestamp_ms) {
    // Same timestamp: the version is replaced and nothing else changes.
    IQ_PROBE("versioned.put_replaced_version", "a put replaced a version with the same timestamp");
    row.update_record(timestamp_ms, value, found.index);
    if (auto s = segment_put(segment_id_of_row, key, row.serialize()); !s) {
      return base::unexpected(s.error());
    }
    return found.valid_to;
  }
  if (write_to_older_segment_maybe_needed) {
    if (auto older = get_or_create_segment_if_live(segment_for_timestamp, stream_time_ms)) {
      IQ_PROBE("versioned.moved_to_older_segment", "a put moved a version to an older segment");
      auto older_raw = segment_get(*older, key);
      if (!older_raw) return base::unexpected(older_raw.error());
      SegmentValue older_row =
          SegmentValue::with_record(found.value, found.valid_from, timestamp_ms);
      if (older_raw->has_value()) {
        older_row = SegmentValue::deserialize((*older_raw)->view());
        older_row.insert_as_latest(found.valid_from, timestamp_ms, found.value);
      }
      if (auto s = segment_put(*older, key, older_row.serialize()); !s) {
        return base::unexpected(s.error());
      }
    }
    row.update_record(timestamp_ms, value, found.index);
  } else {
    row.insert(timestamp_ms, value, found.index);
  }
  if (auto s = segment_put(segment_id_of_row, key, row.serialize()); !s) {
    return base::unexpected(s.error());
  }
  return found.valid_to;
}

StoreResult<int64_t> RocksDBVersionedStore::finish_put(int64_t stream_time_ms, const Bytes& key,
                                                       const ValueBytes& value,
                                                       int64_t timestamp_ms, int64_t found_ts) {
  if (found_ts == kSentinelTimestamp && value) {
    // Nothing newer exists: a value becomes the latest.
    if (auto s =
            segment_put(kLatestValueStoreId, key, timestamped_bytes::make(timestamp_ms, *value));
        !s) {
      return base::unexpected(s.error());
    }
    return found_ts;
  }
  // A tombstone with nothing newer goes to the segment of its own timestamp; anything else to the
  // segment of found_ts, its validTo.
  const bool latest_tombstone = found_ts == kSentinelTimestamp;
  const auto id = get_or_create_segment_if_live(
      segment_id(latest_tombstone ? timestamp_ms : found_ts), stream_time_ms);
  if (!id) return kPutReturnCodeNotPut;  // only during restore, as above
  auto raw = segment_get(*id, key);
  if (!raw) return base::unexpected(raw.error());
  SegmentValue row =
      SegmentValue::with_record(value, timestamp_ms, latest_tombstone ? timestamp_ms : found_ts);
  if (!raw->has_value()) {
    if (latest_tombstone) {
      IQ_PROBE("versioned.degenerate_segment", "a tombstone made a degenerate segment row");
    }
  } else {
    const int64_t row_next_ts = segment_value::next_timestamp((*raw)->view());
    row = SegmentValue::deserialize((*raw)->view());
    if (latest_tombstone) {
      // A validTo equal to the tombstone's timestamp already records the deletion.
      if (row_next_ts == timestamp_ms) return found_ts;
      row.insert_as_latest(row_next_ts, timestamp_ms, std::nullopt);
    } else if (row_next_ts <= timestamp_ms) {
      // Possible after a degenerate row left a gap between versions.
      row.insert_as_latest(timestamp_ms, found_ts, value);
    } else {
      row.insert_as_earliest(timestamp_ms, value);
    }
  }
  if (auto s = segment_put(*id, key, row.serialize()); !s) return base::unexpected(s.error());
  return found_ts;
}

std::optional<int64_t> RocksDBVersionedStore::get_or_create_segment_if_live(
    int64_t id, int64_t stream_time_ms) {
  const int64_t min_live_segment = segment_id(clamp_sub(stream_time_ms, history_retention_ms_));
  if (id < min_live_segment) return std::nullopt;
  IQ_ASSERT(id >= 0, "Negative segment IDs are reserved for reserved segments: {}", id);
  if (segments_.insert(id).second) {
    IQ_ASSERT(segments_.size() <= kSegmentsMax, "store {} holds {} segments", name_,
              segments_.size());
  }
  return id;
}

std::vector<int64_t> RocksDBVersionedStore::segments(int64_t time_from_ms, int64_t time_to_ms,
                                                     bool forward) const {
  const int64_t from = segment_id(time_from_ms);
  const int64_t to = segment_id(time_to_ms);
  std::vector<int64_t> out;
  if (from > to) return out;  // Java's subMap would throw; no caller asks for it
  for (auto it = segments_.lower_bound(from); it != segments_.end() && *it <= to; ++it)
    out.push_back(*it);
  if (!forward) std::reverse(out.begin(), out.end());
  return out;
}

Status RocksDBVersionedStore::cleanup_expired_segments(int64_t stream_time_ms) {
  const int64_t min_live_segment = segment_id(clamp_sub(stream_time_ms, history_retention_ms_));
  while (!segments_.empty() && *segments_.begin() < min_live_segment) {
    const int64_t id = *segments_.begin();
    segments_.erase(segments_.begin());
    IQ_PROBE("versioned.segment_expired", "a versioned store dropped an expired segment");
    if (auto s = destroy_segment(id); !s) return s;
  }
  return ok_status();
}

StoreResult<ValueBytes> RocksDBVersionedStore::segment_get(int64_t id, const Bytes& key,
                                                           IsolationLevel level) {
  return physical_store_->read_only(level).get(prefixed(id, key));
}

// Restore writes RocksDB directly (Kafka's restore WriteBatch); a processed put goes through the
// physical store, staged when it is transactional.
Status RocksDBVersionedStore::segment_put(int64_t id, const Bytes& key, const ValueBytes& value) {
  if (restoring_) return physical_store_->write_past_buffer(prefixed(id, key), value);
  return physical_store_->put(prefixed(id, key), value);
}

// LogicalKeyValueSegment.destroy: deletes every row with the segment's prefix.
Status RocksDBVersionedStore::destroy_segment(int64_t id) {
  IQ_ASSERT(id >= 0, "reserved segment {} destroyed", id);
  const std::string prefix = prefix_of(id);
  auto rows = physical_store_->range(Bytes(prefix), Bytes(prefix_of(id + 1)), /*reverse=*/false);
  if (!rows) return base::unexpected(rows.error());
  std::vector<KeyValueBytes> tombstones;
  for (const auto& row : rows->entries) {
    if (row.key.view().substr(0, prefix.size()) == prefix)
      tombstones.push_back({row.key, std::nullopt});
  }
  if (tombstones.empty()) return ok_status();
  return physical_store_->put_all(tombstones);
}

}  // namespace iq
