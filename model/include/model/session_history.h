#pragma once
// What a session store must answer after the source records up to an offset: the sessions of a
// session-windowed count or sum (groupByKey().windowedBy(SessionWindows)), or of a PAPI writer
// put()ting each record as the session [ts, ts], with stream time, gap, grace and retention.
//
// Rules, written from Kafka's main sources at 1eb7644, not from impl/:
// - KStreamSessionWindowAggregate.process: the processor's observed stream time is the largest
//   record timestamp since it was initialized (-1 after every init: restart_processor()). The
//   record's session [ts, ts] merges with every visible session of the key whose end >= ts - gap
//   and whose start <= ts + gap (findSessions); the merged session spans them all and its
//   aggregate is theirs merged (a + b) plus the record's step (count: 1, null values included;
//   sum: the value, a null value as 0, as impl/topology's aggregator takes it where Java's
//   agg + v would throw). When the merged end < stream time - grace - gap the record is skipped and
//   nothing is written. Otherwise each merged session is removed, then the merged one is put.
// - The store (InMemorySessionStore, or RocksDBSessionStore over the segmented bytes store with
//   segments by session end) keeps its own stream time, the largest session end put (a segmented
//   remove raises it too). Reads show sessions with end > stream time - retention (and end >= 0).
//   A put is dropped as expired when, after raising the stream time, its end is <= stream time -
//   retention (in-memory) or its segment is below the segment of stream time - retention
//   (segmented). So with retention == gap + grace, a new session ending exactly at the close
//   time passes the processor (end >= close) and is dropped by the store (end <= stream time -
//   retention), while the in-memory store still updates its position.
// - Positions: a put updates the position (in-memory: always; segmented: into a live segment);
//   remove never does.
// - Order of fetch(key) (WindowRangeQuery.withKey): by session end; for one end, the in-memory
//   store iterates starts descending (quirk 23), the segmented one ascending.

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
#include "model/window_history.h"

namespace iq::model {

enum class SessionAggregation {
  kCount,   // windowedBy(SessionWindows).count()
  kSum,     // windowedBy(SessionWindows).aggregate(() -> 0, (k, v, agg) -> agg + v, a + b)
  kLatest,  // a PAPI writer: put(Windowed(key, [ts, ts]), value)
};

struct SessionSpec {
  SessionAggregation aggregation = SessionAggregation::kCount;
  int64_t gap_ms = 60'000;
  int64_t grace_ms = 0;  // DSL only
  int64_t retention_ms = 60'000;
  StoreBacking backing = StoreBacking::kInMemory;
  int64_t segment_interval_ms = 1;  // kSegmented only
  // A caching layer over a record cache that never evicts (DSL only): the processor's
  // findSessions merges the cache with the store (CachingSessionStore.findSessions), and the
  // cache keeps every session put and not removed, flushed or not, with no retention floor. So a
  // late record can merge with a session the store already expired or dropped. Eviction and a
  // cache emptied by a task closing are not modelled.
  bool processor_reads_cache = false;
};

struct SessionEntry {
  KeyBytes key;
  int64_t start_ms;
  int64_t end_ms;
  int64_t value;
  bool operator==(const SessionEntry&) const = default;
};

std::ostream& operator<<(std::ostream& out, const SessionEntry& e);

struct SessionAnswer {
  std::vector<SessionEntry> entries;  // in the store's iteration order
  bool uncertain = false;             // as WindowAnswer::uncertain, for segmented stores
};

class SessionHistory {
 public:
  explicit SessionHistory(SessionSpec spec,
                          int64_t records_max = ReferenceHistory::kRecordsMaxDefault);
  SessionHistory(const SessionHistory& o);
  SessionHistory& operator=(const SessionHistory& o);
  SessionHistory(SessionHistory&&) noexcept;
  SessionHistory& operator=(SessionHistory&&) noexcept;
  ~SessionHistory();

  // The topology's processing of one source record. Timestamps must be >= 0.
  void apply(int32_t partition, const SourceRecord& record);
  // Store-level operations under the record context's offset: put (nullopt value: a remove
  // through put, which still updates the position) and remove.
  void put(int32_t partition, int64_t offset, const KeyBytes& key, int64_t start_ms, int64_t end_ms,
           std::optional<int64_t> value);
  void remove(int32_t partition, int64_t offset, const KeyBytes& key, int64_t start_ms,
              int64_t end_ms);
  void restart_processor(int32_t partition);
  // A segmented store reopened at this offset, its unpersisted stream time back to
  // `stream_time_ms` (see WindowHistory::reopen_store).
  void reopen_store(int32_t partition, int64_t offset, int64_t stream_time_ms);
  // One session a segmented store found in its files when it opened (an earlier store object's
  // data, kept on disk): held whatever the stream time, which it neither raises nor uses to drop
  // anything. Load them before anything else is put.
  void load_kept(int32_t partition, int64_t offset, const KeyBytes& key, int64_t start_ms,
                 int64_t end_ms, int64_t value);

  // WindowRangeQuery.withKey(key): SessionStore.fetch(key).
  SessionAnswer fetch(int32_t partition, const KeyBytes& key, int64_t offset_inclusive) const;

  int64_t store_stream_time(int32_t partition, int64_t offset_inclusive) const;
  std::optional<int64_t> position_offset(int32_t partition, int64_t offset_inclusive) const;
  // Whether the record at this offset was skipped as beyond grace.
  bool grace_dropped_at(int32_t partition, int64_t offset) const;
  // processor_reads_cache only: whether a record of `key` in `partition` at or below
  // offset_inclusive merged a session the cache view held but the store's own view (its retention
  // floor) no longer showed. Kafka's answer then depends on whether the record cache still held
  // that session (an eviction flushes it down, where the store's retention hides it), which the
  // model does not know: it keeps every session in the cache.
  bool cache_only_merge_up_to(int32_t partition, const KeyBytes& key,
                              int64_t offset_inclusive) const;

  const SessionSpec& spec() const { return spec_; }

 private:
  // The live and cached sessions, each session slot's states by offset (so that fetch reads a
  // binary search per session of its key instead of replaying the partition), the segment index,
  // stream times and steps: session_history.cc.
  struct PartitionState;
  struct Slot;

  bool store_put(PartitionState& p, int64_t offset, const Slot& slot, std::optional<int64_t> value);
  void store_remove(PartitionState& p, int64_t offset, const Slot& slot);
  // The slot's content at `offset` (nullopt: absent), when the store took the operation.
  void set_content(PartitionState& p, int64_t offset, const Slot& slot,
                   std::optional<int64_t> value);
  // A put's cleanupExpiredSegments (segmented) under the stream time it raised.
  void drop_expired_segments(PartitionState& p, int64_t offset);
  bool visible(int64_t end_ms, int64_t stream_time_ms) const;
  bool segment_live(int64_t end_ms, int64_t stream_time_ms) const;
  PartitionState& begin_offset(int32_t partition, int64_t offset);
  PartitionState& state(int32_t partition);
  const PartitionState* find(int32_t partition) const;

  SessionSpec spec_;
  int64_t records_max_;
  int64_t records_applied_ = 0;
  // Behind a pointer: PartitionState is defined in the .cc.
  std::map<int32_t, std::unique_ptr<PartitionState>> partitions_;
};

}  // namespace iq::model
