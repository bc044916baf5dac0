#pragma once
// What a window store must answer after the source records up to an offset: the windows of a
// windowed count or sum (groupByKey().windowedBy(TimeWindows)), or of a PAPI writer put()ting
// each record into its window, with per-partition stream time, grace and retention.
//
// Rules, written from Kafka's main sources at 1eb7644, not from impl/:
// - TimeWindows.windowsFor(ts): the windows [s, s + size) with s a multiple of the advance,
//   s >= max(0, ts - size + advance) rounded down, and s <= ts (hopping when advance < size).
// - KStreamWindowAggregate.process: the processor's observed stream time is the largest record
//   timestamp it processed since it was initialized (it starts at -1 on every init, so a task
//   that moves or restarts forgets it: restart_processor()). A window is updated only while its
//   end > stream time - grace; otherwise that window is skipped (the record may still land in
//   a later hopping window). The update reads the window's current value (visible under the
//   store's retention floor), applies count (+1, null values included) or sum (a null value as
//   0, as impl/topology's aggregator takes it where Java's agg + v would throw), and writes the
//   aggregate with timestamp max(record, previous).
// - The store (InMemoryWindowStore / AbstractRocksDBSegmentedBytesStore under RocksDBWindowStore)
//   keeps its own observed stream time: the largest window start put into it. A read or fetch
//   shows only windows with start > store stream time - retention. A put is dropped as expired
//   when, after raising the stream time, its window start is <= stream time - retention
//   (in-memory) or its segment (start / segment interval) is below the segment of stream time -
//   retention (segmented: such a put is kept in a live segment, just hidden by the floor).
// - Positions (StoreQueryUtils.updatePosition): the in-memory store updates its position on every
//   put, dropped or not; the segmented store only on a put into a live segment; a retainDuplicates
//   RocksDB store skips a null put entirely (no stream time, no position), the in-memory one
//   drops its value but still updates both.
// - retainDuplicates: every non-null put is a new entry with a fresh sequence number; a null put
//   deletes nothing.
// - Order: WindowKeyQuery (fetch) by window start, then sequence number; WindowRangeQuery
//   (fetchAll) on the in-memory store by window start, then key; on the segmented store segment by
//   segment, inside a segment by key, then window start (its store key is [key][start][seqnum]).
//
// Kafka does not persist a segmented store's observed stream time: a store reopened from its
// checkpoint starts at -1, so windows the floor hides here may be visible there until their
// segment is dropped. Answers flag them `uncertain` (segmented stores only).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

#include "model/key_bytes.h"
#include "model/reference_history.h"
#include "model/store_steps.h"

namespace iq::model {

// How a store enforces retention.
enum class StoreBacking {
  kInMemory,   // InMemoryWindowStore / InMemorySessionStore: per entry
  kSegmented,  // RocksDB window and session stores: whole segments of segment_interval_ms
};

enum class WindowAggregation {
  kCount,   // windowedBy(TimeWindows).count()
  kSum,     // windowedBy(TimeWindows).aggregate(() -> 0, (k, v, agg) -> agg + v)
  kLatest,  // a PAPI writer: put(key, value, floor(ts / size) * size)
};

struct WindowSpec {
  WindowAggregation aggregation = WindowAggregation::kCount;
  int64_t size_ms = 300'000;
  int64_t advance_ms = 300'000;  // == size_ms: tumbling
  int64_t grace_ms = 0;          // DSL aggregations only
  int64_t retention_ms = 300'000;
  StoreBacking backing = StoreBacking::kInMemory;
  int64_t segment_interval_ms = 1;  // kSegmented only
  bool retain_duplicates = false;   // kLatest only (the DSL refuses duplicates)
};

struct WindowEntry {
  KeyBytes key;
  int64_t window_start_ms;
  int64_t window_end_ms;  // start + size
  int64_t value;
  int64_t timestamp_ms;  // the aggregate's timestamp: the largest record timestamp in it
  bool operator==(const WindowEntry&) const = default;
};

std::ostream& operator<<(std::ostream& out, const WindowEntry& e);

struct WindowAnswer {
  std::vector<WindowEntry> entries;  // in the store's iteration order
  // A window the floor hides here sits in a live segment: a store whose stream time is lower
  // (reopened from its checkpoint) may still return it.
  bool uncertain = false;
};

class WindowHistory {
 public:
  explicit WindowHistory(WindowSpec spec,
                         int64_t records_max = ReferenceHistory::kRecordsMaxDefault);
  WindowHistory(const WindowHistory& o);
  WindowHistory& operator=(const WindowHistory& o);
  WindowHistory(WindowHistory&&) noexcept;
  WindowHistory& operator=(WindowHistory&&) noexcept;
  ~WindowHistory();

  // The topology's processing of one source record (the aggregation, or the PAPI writer).
  // Offsets must not decrease within a partition; timestamps must be >= 0 (Kafka's default
  // timestamp extractor refuses negative ones).
  void apply(int32_t partition, const SourceRecord& record);
  // One store-level put(key, value, windowStart) under the record context (offset, timestamp),
  // as a PAPI processor may write it directly. nullopt value: a delete.
  void put(int32_t partition, int64_t offset, const KeyBytes& key, std::optional<int64_t> value,
           int64_t timestamp_ms, int64_t window_start_ms);
  // One changelog record a segmented store's restore writes as the log holds it
  // (AbstractRocksDBSegmentedBytesStore.restoreAllInternal): its key [key][start][seqnum] as is,
  // not under the store's own sequence number (which it leaves alone), into its segment if live
  // at the stream time the record raises; a null value deletes exactly that key, with duplicates
  // too. The restore's stream time per batch is the caller's to approximate (record by record).
  void restore_put(int32_t partition, int64_t offset, const KeyBytes& key,
                   std::optional<int64_t> value, int64_t timestamp_ms, int64_t window_start_ms,
                   int64_t seqnum);
  // One entry a segmented store found in its files when it opened (an earlier store object's
  // data, kept on disk), as it keeps it: its slot [key][start][seqnum] holds the value, whatever
  // the stream time, which it neither raises nor uses to drop anything (a reopened store's
  // openExisting runs cleanupExpiredSegments at -1). Load them before anything else is put.
  void load_kept(int32_t partition, int64_t offset, const KeyBytes& key, int64_t value,
                 int64_t timestamp_ms, int64_t window_start_ms, int64_t seqnum);
  // The task was initialized again (moved, restarted): its processor forgets its stream time.
  // The store keeps its own (the model's store is continuous).
  void restart_processor(int32_t partition);
  // A segmented store reopened at this offset: Kafka does not persist its observed stream time,
  // so it restarts from `stream_time_ms` (-1, or what a restore advanced it to), and windows the
  // floor hid show again while their segment was never dropped. Its duplicates' sequence number
  // restarts from 0 too, so the next duplicates overwrite the first ones of their window.
  void reopen_store(int32_t partition, int64_t offset, int64_t stream_time_ms);

  // WindowKeyQuery(key, timeFrom, timeTo) after the records up to offset_inclusive (-1: none).
  WindowAnswer fetch(int32_t partition, const KeyBytes& key, int64_t time_from_ms,
                     int64_t time_to_ms, int64_t offset_inclusive) const;
  // WindowRangeQuery.withWindowStartRange(timeFrom, timeTo): every key.
  WindowAnswer fetch_all(int32_t partition, int64_t time_from_ms, int64_t time_to_ms,
                         int64_t offset_inclusive) const;

  // The store's observed stream time (largest window start put) after the offset; -1 if none.
  int64_t store_stream_time(int32_t partition, int64_t offset_inclusive) const;
  // The last offset <= offset_inclusive whose record updated the store's position; nullopt if
  // none did (the position then has no component for the partition).
  std::optional<int64_t> position_offset(int32_t partition, int64_t offset_inclusive) const;
  // Whether some window of the record at this offset was skipped as closed beyond grace.
  bool grace_dropped_at(int32_t partition, int64_t offset) const;

  const WindowSpec& spec() const { return spec_; }

 private:
  // The slots of one partition (each with its states by offset), the segment index, stream
  // times and steps: window_history.cc. Each slot ([key][start][seqnum]) keeps its changes by
  // offset (puts, deletes, segment drops), so a query reads a binary search per slot of the keys
  // and time range it asks, at any offset, instead of replaying the partition.
  struct PartitionState;

  // One store put; returns whether it updated the position.
  bool store_put(PartitionState& p, int64_t offset, const KeyBytes& key,
                 std::optional<int64_t> value, int64_t timestamp_ms, int64_t window_start_ms);
  // A put or restore that reached the store: the slot's live and content changes, then the
  // segmented store's cleanupExpiredSegments under the stream time it raised. `erase`: a null
  // value deletes the slot (otherwise it leaves it alone).
  void write(PartitionState& p, int64_t offset, const KeyBytes& key, int64_t window_start_ms,
             int64_t seqnum, std::optional<int64_t> value, int64_t timestamp_ms, bool expired,
             bool erase);
  bool visible(int64_t window_start_ms, int64_t stream_time_ms) const;
  bool segment_live(int64_t window_start_ms, int64_t stream_time_ms) const;
  void count_record();
  const PartitionState* find(int32_t partition) const;
  PartitionState& state(int32_t partition);
  WindowAnswer select(int32_t partition, const KeyBytes* key, int64_t time_from_ms,
                      int64_t time_to_ms, int64_t offset_inclusive) const;

  WindowSpec spec_;
  int64_t records_max_;
  int64_t records_applied_ = 0;
  // Behind a pointer: PartitionState is defined in the .cc.
  std::map<int32_t, std::unique_ptr<PartitionState>> partitions_;
};

}  // namespace iq::model
