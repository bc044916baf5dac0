#pragma once
// RocksDBSegmentedBytesStore and RocksDBTimestampedSegmentedBytesStore
// (SI/AbstractRocksDBSegmentedBytesStore.java, SI/RocksDBSegmentedBytesStore.java): a bytes
// store of [key][time suffix] -> value over time segments (segments.h), with the key layout and
// search rules of one key schema:
//   - WindowKeySchema: [key][8-byte window start][4-byte seqnum]; the segment time is the window
//     start; fetch(key, from, to) finds window starts in [from, to].
//   - SessionKeySchema: [key][8-byte end][8-byte start]; the segment time is the session end;
//     fetch(key, earliestSessionEnd, latestSessionStart) finds sessions with end >= from and
//     start <= to.
//
// Retention follows the observed stream time (the largest segment time ever put or restored,
// -1 at init: it is not persisted): reads start at observedStreamTime - retention + 1 (clamped
// at 0 where Kafka's key ranges clamp it), and a put whose segment is older than
// segmentId(observedStreamTime - retention) is dropped WITHOUT advancing the position. Inside a
// segment, entries come in key-byte order (key, then time), segments in id order.
//
// The store owns the position, persisted to <task dir>/<name>.position at each commit like
// RocksDBStore; the segments have none. At the 2026-08-20 pin (KIP-1035, segments.h) the segments
// keep it instead: each merges its stored position into the store's at open, and commit(offsets)
// writes offsets and position into every segment; .position is only merged at init (pin delta 13).
//
// Transactional (KIP-892, enable.transactional.statestores at the new pin, pin deltas 5 and 7;
// 704fcb2655; docs/kafka-2026-08-20.md §3.3, §3.4.4): each segment stages its writes
// (segments.h), and this store stages the position of its puts in a pending position;
// commit(offsets) merges the pending position into the committed one, then commits every segment.
// position() is then committed + pending (a copy), committed_position() the committed one;
// close() drops the pending position with the segments' staged writes. Restoration merges into
// the committed position directly. Reads take a level: each segment's readOnly(level).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iq/position.h"
#include "state/offset_checkpoint.h"
#include "state/segments.h"
#include "state/state_store.h"
#include "state/state_store_context.h"

namespace iq {

enum class SegmentKeySchema { kWindow, kSession };

class RocksDBSegmentedBytesStore {
 public:
  // `timestamped` picks TimestampedSegments (column family "keyValueWithTimestamp").
  RocksDBSegmentedBytesStore(std::string name, int64_t retention_period_ms,
                             int64_t segment_interval_ms, SegmentKeySchema schema,
                             bool timestamped);

  const std::string& name() const { return name_; }
  // Reads <name>.position, opens the segments on disk, registers `root` with the batching restore
  // and the position commit callback.
  [[nodiscard]] Status init(StateStoreContext& context, StateStore& root);
  [[nodiscard]] Status flush() { return segments_.flush(); }
  void close();
  bool is_open() const { return open_; }
  // getPosition(): the staged position (committed + pending) when transactional, else the one.
  Position position() const;
  // getCommittedPosition(): what READ_COMMITTED queries are bounded by and labelled with.
  Position committed_position() const { return position_.copy(); }
  bool transactional() const { return transactional_; }
  // approximateNumUncommittedBytes: every segment's.
  int64_t approximate_num_uncommitted_bytes() const {
    return segments_.approximate_num_uncommitted_bytes();
  }
  StateStoreContext* context() const { return context_; }

  [[nodiscard]] Status put(const Bytes& store_key, const ValueBytes& value);
  // Deletes in the key's segment without advancing the position (Kafka's remove(Bytes)).
  [[nodiscard]] Status remove(const Bytes& store_key);
  // Every read takes the level of Kafka's ReadOnlyView (its live reads, with no level, read as
  // READ_UNCOMMITTED: the segment itself).
  [[nodiscard]] StoreResult<ValueBytes> get(
      const Bytes& store_key, IsolationLevel level = IsolationLevel::READ_UNCOMMITTED);
  // fetch(key, from, to) and backwardFetch: see the schema notes above.
  [[nodiscard]] StoreResult<std::vector<KeyValue<Bytes, Bytes>>> fetch(
      const Bytes& key, int64_t from, int64_t to, bool forward,
      IsolationLevel level = IsolationLevel::READ_UNCOMMITTED);
  // fetchAll(timeFrom, timeTo) (WindowKeySchema: every key, times in range).
  [[nodiscard]] StoreResult<std::vector<KeyValue<Bytes, Bytes>>> fetch_all(
      int64_t time_from_ms, int64_t time_to_ms, bool forward,
      IsolationLevel level = IsolationLevel::READ_UNCOMMITTED);
  // all() / backwardAll(): every live entry from max(0, floor).
  [[nodiscard]] StoreResult<std::vector<KeyValue<Bytes, Bytes>>> all(
      bool forward, IsolationLevel level = IsolationLevel::READ_UNCOMMITTED);

  [[nodiscard]] Status restore_all(const std::vector<ConsumerRecord>& records);

  // KIP-1035 at the new pin (AbstractRocksDBSegmentedBytesStore.commit, managesOffsets,
  // committedOffset): the segments keep the offsets; see segments.h.
  bool manages_offsets() const { return segments_.manages_offsets(); }
  [[nodiscard]] Status commit(const ChangelogOffsets& offsets);
  [[nodiscard]] StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& changelog);
  // For tests: the segment of `segment_id`, null when not open.
  KeyValueSegment* segment(int64_t segment_id) { return segments_.segment_for_id(segment_id); }

  // StateStore::kept_entries: every segment's entries, in segment order.
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) {
    return segments_.kept_entries(out);
  }

  int64_t observed_stream_time_ms() const { return observed_stream_time_ms_; }
  std::vector<int64_t> segment_ids() const { return segments_.segment_ids(); }
  int64_t segment_id(int64_t timestamp_ms) const { return segments_.segment_id(timestamp_ms); }

 private:
  int64_t segment_timestamp(const Bytes& store_key) const;
  int64_t actual_from(int64_t from) const;
  [[nodiscard]] Status validate_open() const;
  [[nodiscard]] StoreResult<std::vector<KeyValue<Bytes, Bytes>>> scan(
      const std::vector<KeyValueSegment*>& search_space, const std::optional<Bytes>& from,
      const std::optional<Bytes>& to, bool forward, const KeyValueSegment::KeyFilter& keep,
      IsolationLevel level);

  std::string name_;
  int64_t retention_period_ms_;
  SegmentKeySchema schema_;
  KeyValueSegments segments_;
  int64_t observed_stream_time_ms_ = -1;  // ConsumerRecord.NO_TIMESTAMP
  bool consistency_enabled_ = false;
  Position position_ = Position::empty_position();
  // KIP-892: the position of the puts staged since the last commit (pendingPosition).
  bool transactional_ = false;
  Position pending_position_ = Position::empty_position();
  std::unique_ptr<OffsetCheckpoint> position_checkpoint_;
  StateStoreContext* context_ = nullptr;
  bool open_ = false;
};

}  // namespace iq
