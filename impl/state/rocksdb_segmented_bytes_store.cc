#include "state/rocksdb_segmented_bytes_store.h"

#include <rocksdb/db.h>

#include <algorithm>
#include <limits>
#include <map>

#include "base/assert.h"
#include "base/probe.h"
#include "state/rocksdb_timestamped_store.h"
#include "state/session_store.h"
#include "state/store_query_utils.h"
#include "state/window_store.h"

namespace iq {
namespace {

constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();

}  // namespace

RocksDBSegmentedBytesStore::RocksDBSegmentedBytesStore(std::string name,
                                                       int64_t retention_period_ms,
                                                       int64_t segment_interval_ms,
                                                       SegmentKeySchema schema, bool timestamped)
    : name_(name),
      retention_period_ms_(retention_period_ms),
      schema_(schema),
      segments_(std::move(name), retention_period_ms, segment_interval_ms,
                timestamped ? RocksDBTimestampedStore::kTimestampedValuesColumnFamilyName
                            : rocksdb::kDefaultColumnFamilyName) {}

Status RocksDBSegmentedBytesStore::init(StateStoreContext& context, StateStore& root) {
  IQ_ASSERT(!open_, "store {} initialized twice", name_);
  context_ = &context;
  position_checkpoint_ = std::make_unique<OffsetCheckpoint>(
      context.file_system(), context.state_dir() + "/" + name_ + ".position");
  auto position = read_position_from_checkpoint(*position_checkpoint_);
  if (!position) return base::unexpected(position.error());
  CommitCallback commit_callback = [this] {
    return checkpoint_position(*position_checkpoint_, position_);
  };
  const bool offsets_in_segments = at_least(context.kafka_pin(), KafkaPin::k2026_08_20);
  if (offsets_in_segments) {
    // pin delta 1 (77d1641673, 53b1a77b59): the segments keep offsets and position; each merges
    // what it stored into the (shared) position as it opens, below.
    position_ = Position::empty_position();
    segments_.manage_offsets(position_);
    // segments::writePosition is a no-op there: commit() writes the position.
    commit_callback = [] { return ok_status(); };
  } else {
    position_ = std::move(*position);
  }
  // Kafka quirk 21 (docs/iqv2-semantics.md §10): the observed stream time is -1 here (not
  // persisted), so open_existing drops nothing: data of segments that expired before a restart is
  // visible again until stream time moves on.
  if (auto s = segments_.open_existing(context, observed_stream_time_ms_); !s) {
    // Kafka never registers a store whose init threw, so nothing closes its open segments.
    if (offsets_in_segments) {
      segments_.drop_all();
    } else {
      segments_.close();
    }
    return s;
  }
  // pin delta 13: StoreQueryUtils.maybeMigrateExistingPositionFile merges an old .position file
  // at every init, after the segments opened, and never deletes it.
  if (offsets_in_segments) position_.merge(*position, KafkaPin::k2026_08_20);
  context.register_store(
      root, [this](const std::vector<ConsumerRecord>& records) { return restore_all(records); },
      std::move(commit_callback));
  open_ = true;
  consistency_enabled_ = context.consistency_enabled();
  // pin delta 5: read at every init (true only at the new pin).
  transactional_ = offsets_in_segments && context.transactional_state_stores();
  pending_position_ = Position::empty_position();
  return ok_status();
}

Position RocksDBSegmentedBytesStore::position() const {
  if (!transactional_) return position_.copy();
  Position staged = position_.copy();
  staged.merge(pending_position_, KafkaPin::k2026_08_20);
  return staged;
}

Status RocksDBSegmentedBytesStore::commit(const ChangelogOffsets& offsets) {
  // Kafka's segmented commit has no open check; a closed store holds no segments.
  IQ_ASSERT(segments_.manages_offsets(), "store {}: commit(offsets) at the old pin", name_);
  if (transactional_) {
    // Published with the segments' staged writes below (704fcb2655).
    position_.merge(pending_position_, KafkaPin::k2026_08_20);
    pending_position_ = Position::empty_position();
  }
  return segments_.commit(offsets);
}

StoreResult<std::optional<ChangelogOffset>> RocksDBSegmentedBytesStore::committed_offset(
    const TopicPartition& changelog) {
  if (!segments_.manages_offsets()) return std::optional<ChangelogOffset>{};
  return segments_.committed_offset(changelog);
}

void RocksDBSegmentedBytesStore::close() {
  open_ = false;
  segments_.close();
  // The segments discarded their staged writes; their position goes too.
  pending_position_ = Position::empty_position();
}

Status RocksDBSegmentedBytesStore::validate_open() const {
  // Kafka's segmented store has no open check and would reopen segments after close; iqsim
  // answers as the key-value RocksDB store does.
  if (open_) return ok_status();
  return base::unexpected(StreamsError{StreamsError::Kind::InvalidStateStore,
                                       "Store " + name_ + " is currently closed"});
}

int64_t RocksDBSegmentedBytesStore::segment_timestamp(const Bytes& store_key) const {
  return schema_ == SegmentKeySchema::kWindow
             ? window_key_schema::extract_store_timestamp(store_key)
             : session_key_schema::extract_end_timestamp(store_key);
}

int64_t RocksDBSegmentedBytesStore::actual_from(int64_t from) const {
  const int64_t floor_ms = observed_stream_time_ms_ - retention_period_ms_ + 1;
  if (schema_ == SegmentKeySchema::kWindow && from == floor_ms && from > 0) {
    IQ_PROBE("window.fetch_from_at_retention_floor",
             "a window fetch's lower time bound equals the store's retention floor");
  }
  return std::max(from, floor_ms);
}

// Kafka quirk 20 (docs/iqv2-semantics.md §10; SI/AbstractRocksDBSegmentedBytesStore.java put): a
// record whose segment is expired is dropped before the position update, so unlike the in-memory
// window store an expired put does not advance the position.
Status RocksDBSegmentedBytesStore::put(const Bytes& store_key, const ValueBytes& value) {
  if (auto s = validate_open(); !s) return s;
  const int64_t timestamp = segment_timestamp(store_key);
  observed_stream_time_ms_ = std::max(observed_stream_time_ms_, timestamp);
  auto segment = segments_.get_or_create_segment_if_live(segments_.segment_id(timestamp), *context_,
                                                         observed_stream_time_ms_);
  if (!segment) return base::unexpected(segment.error());
  if (*segment == nullptr) {
    // Dropped: Kafka records the dropped-records sensor.
    return ok_status();
  }
  // pin delta 7: a transactional put stages its position with its data.
  store_query_utils::update_position(transactional_ ? pending_position_ : position_, context_);
  return (*segment)->put(store_key, value);
}

Status RocksDBSegmentedBytesStore::remove(const Bytes& store_key) {
  if (auto s = validate_open(); !s) return s;
  const int64_t timestamp = segment_timestamp(store_key);
  observed_stream_time_ms_ = std::max(observed_stream_time_ms_, timestamp);
  KeyValueSegment* segment = segments_.segment_for_timestamp(timestamp);
  if (segment == nullptr) return ok_status();
  return segment->put(store_key, std::nullopt);
}

StoreResult<ValueBytes> RocksDBSegmentedBytesStore::get(const Bytes& store_key,
                                                        IsolationLevel level) {
  if (auto s = validate_open(); !s) return base::unexpected(s.error());
  const int64_t timestamp = segment_timestamp(store_key);
  if (timestamp < observed_stream_time_ms_ - retention_period_ms_ + 1) return ValueBytes{};
  KeyValueSegment* segment = segments_.segment_for_timestamp(timestamp);
  if (segment == nullptr) return ValueBytes{};
  return segment->get(store_key, level);
}

StoreResult<std::vector<KeyValue<Bytes, Bytes>>> RocksDBSegmentedBytesStore::scan(
    const std::vector<KeyValueSegment*>& search_space, const std::optional<Bytes>& from,
    const std::optional<Bytes>& to, bool forward, const KeyValueSegment::KeyFilter& keep,
    IsolationLevel level) {
  std::vector<KeyValue<Bytes, Bytes>> out;
  for (KeyValueSegment* segment : search_space) {
    if (auto s = segment->scan(from, to, forward, keep, out, level); !s)
      return base::unexpected(s.error());
  }
  return out;
}

StoreResult<std::vector<KeyValue<Bytes, Bytes>>> RocksDBSegmentedBytesStore::fetch(
    const Bytes& key, int64_t from, int64_t to, bool forward, IsolationLevel level) {
  if (auto s = validate_open(); !s) return base::unexpected(s.error());
  const int64_t actual = actual_from(from);
  if (schema_ == SegmentKeySchema::kWindow) {
    if (to < actual) return std::vector<KeyValue<Bytes, Bytes>>{};
    // lowerRangeFixedSize clamps the start at 0; hasNextCondition keeps [actualFrom, to].
    const Bytes lower =
        window_key_schema::to_store_key_binary(key, std::max<int64_t>(0, actual), 0);
    const Bytes upper =
        window_key_schema::to_store_key_binary(key, to, std::numeric_limits<int32_t>::max());
    return scan(
        segments_.segments(actual, to, forward), lower, upper, forward,
        [&](const Bytes& k) {
          const int64_t t = window_key_schema::extract_store_timestamp(k);
          return window_key_schema::extract_store_key_bytes(k) == key && t >= actual && t <= to;
        },
        level);
  }
  // SessionKeySchema: no early return, every segment from actualFrom on (segmentsToSearch), the
  // range [key][max(0, from)][0] .. [key][MAX][to], then end >= actualFrom and start <= to.
  const Bytes lower = session_key_schema::to_binary(key, 0, std::max<int64_t>(0, actual));
  const Bytes upper = session_key_schema::to_binary(key, to, kLongMax);
  return scan(
      segments_.segments(actual, kLongMax, forward), lower, upper, forward,
      [&](const Bytes& k) {
        return session_key_schema::extract_key_bytes(k) == key &&
               session_key_schema::extract_end_timestamp(k) >= actual &&
               session_key_schema::extract_start_timestamp(k) <= to;
      },
      level);
}

StoreResult<std::vector<KeyValue<Bytes, Bytes>>> RocksDBSegmentedBytesStore::fetch_all(
    int64_t time_from_ms, int64_t time_to_ms, bool forward, IsolationLevel level) {
  if (auto s = validate_open(); !s) return base::unexpected(s.error());
  IQ_ASSERT(schema_ == SegmentKeySchema::kWindow, "fetchAll by time is a window store's");
  const int64_t actual = actual_from(time_from_ms);
  if (time_to_ms < actual) return std::vector<KeyValue<Bytes, Bytes>>{};
  return scan(
      segments_.segments(actual, time_to_ms, forward), std::nullopt, std::nullopt, forward,
      [&](const Bytes& k) {
        const int64_t t = window_key_schema::extract_store_timestamp(k);
        return t >= actual && t <= time_to_ms;
      },
      level);
}

StoreResult<std::vector<KeyValue<Bytes, Bytes>>> RocksDBSegmentedBytesStore::all(
    bool forward, IsolationLevel level) {
  if (auto s = validate_open(); !s) return base::unexpected(s.error());
  const int64_t actual = actual_from(0);
  return scan(
      segments_.segments(actual, kLongMax, forward), std::nullopt, std::nullopt, forward,
      [&](const Bytes& k) {
        if (schema_ == SegmentKeySchema::kWindow)
          return window_key_schema::extract_store_timestamp(k) >= actual;
        return session_key_schema::extract_end_timestamp(k) >= actual;
      },
      level);
}

// restoreAllInternal: the stream time first advances to the batch's largest segment time, so a
// record expired by a LATER record of the same batch is dropped too; the kept records' positions
// are merged and they are written one batch per segment.
Status RocksDBSegmentedBytesStore::restore_all(const std::vector<ConsumerRecord>& records) {
  IQ_ASSERT(open_, "restoring into closed store {}", name_);
  for (const ConsumerRecord& record : records) {
    if (!record.key) continue;  // StoreChangelogReader drops null keys before the store
    observed_stream_time_ms_ = std::max(observed_stream_time_ms_, segment_timestamp(*record.key));
  }
  // Ordered by segment id so that the writes happen in a defined order (Kafka: a HashMap).
  std::map<int64_t, std::pair<KeyValueSegment*, std::vector<std::pair<Bytes, ValueBytes>>>> batches;
  for (const ConsumerRecord& record : records) {
    if (!record.key) continue;
    const int64_t id = segments_.segment_id(segment_timestamp(*record.key));
    auto segment = segments_.get_or_create_segment_if_live(id, *context_, observed_stream_time_ms_);
    if (!segment) return base::unexpected(segment.error());
    if (*segment == nullptr) {
      IQ_PROBE("segmented.restore_dropped_expired",
               "a segmented store's restore dropped an expired record");
      continue;
    }
    auto checked = store_query_utils::apply_checks_and_update_position(record, consistency_enabled_,
                                                                       position_);
    if (!checked) return checked;
    auto& batch = batches[id];
    batch.first = *segment;
    batch.second.emplace_back(*record.key, record.value);
  }
  for (auto& [id, batch] : batches) {
    // A later record's cleanup may have dropped an earlier record's segment in this batch only
    // if the stream time moved during the loop, which it does not (it was advanced first).
    if (auto s = batch.first->write_batch(batch.second); !s) return s;
  }
  return ok_status();
}

}  // namespace iq
