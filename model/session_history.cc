#include "model/session_history.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <tuple>

#include "base/assert.h"
#include "model/time_math.h"
#include "slot_changes.h"

namespace iq::model {

std::ostream& operator<<(std::ostream& out, const SessionEntry& e) {
  return out << key_to_hex(e.key) << "@[" << e.start_ms << "," << e.end_ms << "]=" << e.value;
}

struct SessionHistory::Slot {
  KeyBytes key;
  int64_t end_ms;
  int64_t start_ms;
  bool operator<(const Slot& o) const;
};

// The segmented store's order inside one key: [key][end][start].
bool SessionHistory::Slot::operator<(const Slot& o) const {
  const int c = compare_key_bytes(key, o.key);
  if (c != 0) return c < 0;
  return std::tie(end_ms, start_ms) < std::tie(o.end_ms, o.start_ms);
}

struct SessionHistory::PartitionState {
  StoreSteps steps;
  int64_t processor_stream_time_ms = -1;
  int64_t store_stream_time_ms = -1;
  std::map<Slot, int64_t> live;
  std::map<Slot, int64_t> cached;  // processor_reads_cache: the record cache's sessions
  // processor_reads_cache: the records (offset, key) whose merge the store's view would not have
  // made (cache_only_merge_up_to).
  std::vector<std::pair<int64_t, KeyBytes>> cache_only_merges;
  struct Content {
    internal::SlotChanges<int64_t> changes;  // after every segment cleanup
    bool indexed = false;                    // listed in `present_by_segment`
  };
  std::vector<Content> contents;  // every session ever put, in the order they came
  // Per key, its sessions by (end, start): the segmented store's order inside the key.
  std::map<KeyBytes, internal::SlotIndex, KeyBytesLess> keys;
  internal::SegmentHeap present_by_segment;  // segmented: sessions by segment (end / interval)

  std::optional<uint32_t> content_of(const Slot& slot, bool make) {
    if (!make) {
      const auto it = keys.find(slot.key);
      return it == keys.end() ? std::nullopt : it->second.find({slot.end_ms, slot.start_ms});
    }
    return keys[slot.key].find_or_add({slot.end_ms, slot.start_ms}, [&] {
      contents.emplace_back();
      return static_cast<uint32_t>(contents.size() - 1);
    });
  }
};

SessionHistory::SessionHistory(SessionSpec spec, int64_t records_max)
    : spec_(spec), records_max_(records_max) {
  IQ_ASSERT(spec.gap_ms >= 0 && spec.grace_ms >= 0 && spec.retention_ms >= 0,
            "gap {} grace {} retention {}", spec.gap_ms, spec.grace_ms, spec.retention_ms);
  IQ_ASSERT(spec.segment_interval_ms >= 1, "segment interval {}", spec.segment_interval_ms);
  // SessionWindowedKStreamImpl refuses a retention below gap + grace.
  IQ_ASSERT(spec.aggregation == SessionAggregation::kLatest ||
                spec.retention_ms >= spec.gap_ms + spec.grace_ms,
            "retention {} below gap {} + grace {}", spec.retention_ms, spec.gap_ms, spec.grace_ms);
}

SessionHistory::SessionHistory(const SessionHistory& o)
    : spec_(o.spec_), records_max_(o.records_max_), records_applied_(o.records_applied_) {
  for (const auto& [partition, state] : o.partitions_) {
    partitions_.emplace(partition, std::make_unique<PartitionState>(*state));
  }
}

SessionHistory& SessionHistory::operator=(const SessionHistory& o) {
  if (this != &o) *this = SessionHistory(o);
  return *this;
}

SessionHistory::SessionHistory(SessionHistory&&) noexcept = default;
SessionHistory& SessionHistory::operator=(SessionHistory&&) noexcept = default;
SessionHistory::~SessionHistory() = default;

const SessionHistory::PartitionState* SessionHistory::find(int32_t partition) const {
  const auto it = partitions_.find(partition);
  return it == partitions_.end() ? nullptr : it->second.get();
}

SessionHistory::PartitionState& SessionHistory::state(int32_t partition) {
  std::unique_ptr<PartitionState>& p = partitions_[partition];
  if (p == nullptr) p = std::make_unique<PartitionState>();
  return *p;
}

// Both stores read from max(0, stream time - retention + 1) on session ends: the in-memory
// store's removeExpiredSegments, the segmented store's getActualFrom over fetch's from of 0.
bool SessionHistory::visible(int64_t end_ms, int64_t stream_time_ms) const {
  return end_ms >= 0 && end_ms > saturating_minus(stream_time_ms, spec_.retention_ms);
}

bool SessionHistory::segment_live(int64_t end_ms, int64_t stream_time_ms) const {
  return end_ms / spec_.segment_interval_ms >=
         saturating_minus(stream_time_ms, spec_.retention_ms) / spec_.segment_interval_ms;
}

SessionHistory::PartitionState& SessionHistory::begin_offset(int32_t partition, int64_t offset) {
  IQ_ASSERT(offset >= 0, "offset {}", offset);
  IQ_ASSERT(records_applied_ < records_max_, "more than {} records", records_max_);
  ++records_applied_;
  PartitionState& p = state(partition);
  p.steps.check_offset(offset);
  return p;
}

void SessionHistory::set_content(PartitionState& p, int64_t offset, const Slot& slot,
                                 std::optional<int64_t> value) {
  // A remove of a session never put finds nothing.
  const std::optional<uint32_t> place = p.content_of(slot, value.has_value());
  if (!place) return;
  PartitionState::Content& c = p.contents[*place];
  if (!value && !c.changes.present()) return;
  c.changes.set(offset, value);
  if (value && spec_.backing == StoreBacking::kSegmented && !c.indexed) {
    c.indexed = true;
    p.present_by_segment.push(slot.end_ms / spec_.segment_interval_ms, *place);
  }
}

// Whole segments below the stream time's go, and stay gone when a reopened store's stream time is
// lower. A put the store took lies in a live segment, so only the listed sessions can go.
void SessionHistory::drop_expired_segments(PartitionState& p, int64_t offset) {
  if (spec_.backing != StoreBacking::kSegmented) return;
  const int64_t live_from =
      saturating_minus(p.store_stream_time_ms, spec_.retention_ms) / spec_.segment_interval_ms;
  p.present_by_segment.pop_below(live_from, [&](uint32_t place) {
    PartitionState::Content& c = p.contents[place];
    c.indexed = false;
    if (c.changes.present()) c.changes.set(offset, std::nullopt);
  });
}

bool SessionHistory::store_put(PartitionState& p, int64_t offset, const Slot& slot,
                               std::optional<int64_t> value) {
  const bool segmented = spec_.backing == StoreBacking::kSegmented;
  p.store_stream_time_ms = std::max(p.store_stream_time_ms, slot.end_ms);
  const bool expired =
      segmented ? !segment_live(slot.end_ms, p.store_stream_time_ms)
                : slot.end_ms <= saturating_minus(p.store_stream_time_ms, spec_.retention_ms);
  if (!expired) {
    if (value) {
      p.live[slot] = *value;
    } else {
      p.live.erase(slot);
    }
    set_content(p, offset, slot, value);
  }
  // Every put reaching the segmented store runs cleanupExpiredSegments, a remove does not.
  drop_expired_segments(p, offset);
  return segmented ? !expired : true;
}

// InMemorySessionStore.remove leaves the stream time; the segmented remove raises it, and finds
// nothing in a segment already dropped.
void SessionHistory::store_remove(PartitionState& p, int64_t offset, const Slot& slot) {
  if (spec_.backing == StoreBacking::kSegmented) {
    p.store_stream_time_ms = std::max(p.store_stream_time_ms, slot.end_ms);
  }
  // The content is the live view less the dropped segments: a remove that finds nothing live
  // finds nothing there either.
  if (p.live.erase(slot) > 0) set_content(p, offset, slot, std::nullopt);
}

void SessionHistory::put(int32_t partition, int64_t offset, const KeyBytes& key, int64_t start_ms,
                         int64_t end_ms, std::optional<int64_t> value) {
  IQ_ASSERT(start_ms <= end_ms, "session [{}, {}]", start_ms, end_ms);
  PartitionState& p = begin_offset(partition, offset);
  const bool updated = store_put(p, offset, Slot{key, end_ms, start_ms}, value);
  p.steps.record(StoreStep{offset, p.store_stream_time_ms, updated, false});
}

void SessionHistory::remove(int32_t partition, int64_t offset, const KeyBytes& key,
                            int64_t start_ms, int64_t end_ms) {
  IQ_ASSERT(start_ms <= end_ms, "session [{}, {}]", start_ms, end_ms);
  PartitionState& p = begin_offset(partition, offset);
  store_remove(p, offset, Slot{key, end_ms, start_ms});
  p.steps.record(StoreStep{offset, p.store_stream_time_ms, false, false});
}

void SessionHistory::load_kept(int32_t partition, int64_t offset, const KeyBytes& key,
                               int64_t start_ms, int64_t end_ms, int64_t value) {
  IQ_ASSERT(spec_.backing == StoreBacking::kSegmented, "only a segmented store keeps data");
  IQ_ASSERT(start_ms <= end_ms, "session [{}, {}]", start_ms, end_ms);
  PartitionState& p = begin_offset(partition, offset);
  IQ_ASSERT(p.store_stream_time_ms == -1, "kept data loaded at stream time {}",
            p.store_stream_time_ms);
  const Slot slot{key, end_ms, start_ms};
  p.live[slot] = value;
  set_content(p, offset, slot, value);
  p.steps.record(StoreStep{offset, p.store_stream_time_ms, false, false});
}

void SessionHistory::restart_processor(int32_t partition) {
  state(partition).processor_stream_time_ms = -1;
}

void SessionHistory::reopen_store(int32_t partition, int64_t offset, int64_t stream_time_ms) {
  IQ_ASSERT(spec_.backing == StoreBacking::kSegmented, "only a segmented store forgets it");
  IQ_ASSERT(stream_time_ms >= -1, "stream time {}", stream_time_ms);
  PartitionState& p = state(partition);
  p.steps.check_offset(offset);
  p.store_stream_time_ms = stream_time_ms;
  p.steps.record(StoreStep{offset, stream_time_ms, false, false});
}

void SessionHistory::apply(int32_t partition, const SourceRecord& record) {
  assert_valid_record(record);
  IQ_ASSERT(record.kind != WriteKind::kDelete, "a session topology never calls delete()");
  IQ_ASSERT(record.timestamp_ms >= 0, "negative timestamp {} at offset {}", record.timestamp_ms,
            record.offset);
  PartitionState& p = begin_offset(partition, record.offset);
  const int64_t ts = record.timestamp_ms;
  if (spec_.aggregation == SessionAggregation::kLatest) {
    const bool updated = store_put(p, record.offset, Slot{record.key, ts, ts}, record.value);
    p.steps.record(StoreStep{record.offset, p.store_stream_time_ms, updated, false});
    return;
  }
  p.processor_stream_time_ms = std::max(p.processor_stream_time_ms, ts);
  const int64_t close_ms =
      saturating_minus(saturating_minus(p.processor_stream_time_ms, spec_.grace_ms), spec_.gap_ms);
  // findSessions(key, ts - gap, ts + gap) over the visible sessions, in store order.
  std::vector<std::pair<Slot, int64_t>> merged;
  int64_t start = ts, end = ts, count = 0;  // count: the merged aggregates
  // Every session the store holds came through the cache, so with cached reads the cache alone
  // is the processor's view.
  const bool from_cache = spec_.processor_reads_cache;
  size_t store_view_merges = 0;  // what the store's own view (retention floor) would merge
  // The key's sessions only: Slot orders by key first.
  const std::map<Slot, int64_t>& view = from_cache ? p.cached : p.live;
  for (auto it = view.lower_bound(Slot{record.key, std::numeric_limits<int64_t>::min(),
                                       std::numeric_limits<int64_t>::min()});
       it != view.end() && it->first.key == record.key; ++it) {
    const auto& [slot, value] = *it;
    const bool shown = visible(slot.end_ms, p.store_stream_time_ms) && p.live.contains(slot);
    if (!from_cache && !shown) continue;
    if (slot.end_ms < ts - spec_.gap_ms || slot.start_ms > ts + spec_.gap_ms) continue;
    merged.emplace_back(slot, value);
    if (shown) ++store_view_merges;
    start = std::min(start, slot.start_ms);
    end = std::max(end, slot.end_ms);
    count += value;
  }
  if (from_cache && store_view_merges != merged.size()) {
    p.cache_only_merges.emplace_back(record.offset, record.key);
  }
  if (end < close_ms) {
    p.steps.record(StoreStep{record.offset, p.store_stream_time_ms, false, true});
    return;
  }
  // The merged session differs from [ts, ts] exactly when something merged, except a session
  // [ts, ts] itself, which is then put over again (its remove and put hit one slot).
  const bool grown = start != ts || end != ts;
  if (grown) {
    for (const auto& m : merged) {
      store_remove(p, record.offset, m.first);
      p.cached.erase(m.first);
    }
  }
  const int64_t step =
      spec_.aggregation == SessionAggregation::kCount ? 1 : record.value.value_or(0);
  const bool updated = store_put(p, record.offset, Slot{record.key, end, start}, count + step);
  if (from_cache) p.cached[Slot{record.key, end, start}] = count + step;
  p.steps.record(StoreStep{record.offset, p.store_stream_time_ms, updated, false});
}

int64_t SessionHistory::store_stream_time(int32_t partition, int64_t offset_inclusive) const {
  const PartitionState* p = find(partition);
  return p == nullptr ? -1 : p->steps.store_stream_time(offset_inclusive);
}

std::optional<int64_t> SessionHistory::position_offset(int32_t partition,
                                                       int64_t offset_inclusive) const {
  const PartitionState* p = find(partition);
  return p == nullptr ? std::nullopt : p->steps.position_offset(offset_inclusive);
}

bool SessionHistory::cache_only_merge_up_to(int32_t partition, const KeyBytes& key,
                                            int64_t offset_inclusive) const {
  const PartitionState* p = find(partition);
  if (p == nullptr) return false;
  return std::any_of(p->cache_only_merges.begin(), p->cache_only_merges.end(),
                     [&](const auto& m) { return m.first <= offset_inclusive && m.second == key; });
}

bool SessionHistory::grace_dropped_at(int32_t partition, int64_t offset) const {
  const PartitionState* p = find(partition);
  return p != nullptr && p->steps.grace_dropped_at(offset);
}

SessionAnswer SessionHistory::fetch(int32_t partition, const KeyBytes& key,
                                    int64_t offset_inclusive) const {
  SessionAnswer out;
  const PartitionState* p = find(partition);
  if (p == nullptr) return out;
  const bool segmented = spec_.backing == StoreBacking::kSegmented;
  const auto k = p->keys.find(key);
  if (k == p->keys.end()) return out;
  const int64_t st = p->steps.store_stream_time(offset_inclusive);
  for (auto it = k->second.from(
           {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min()});
       it != k->second.end(); ++it) {
    const std::optional<int64_t>* value = p->contents[it->slot].changes.at(offset_inclusive);
    if (value == nullptr || !*value) continue;
    const auto [end_ms, start_ms] = it->times;
    if (!visible(end_ms, st)) {
      if (segmented && end_ms >= 0 && segment_live(end_ms, st)) out.uncertain = true;
      continue;
    }
    out.entries.push_back(SessionEntry{k->first, start_ms, end_ms, **value});
  }
  // The key's sessions are ordered by end, then start ascending: the segmented order. The in-memory
  // store runs the starts of one end descending.
  if (!segmented) {
    std::stable_sort(out.entries.begin(), out.entries.end(),
                     [](const SessionEntry& a, const SessionEntry& b) {
                       return a.end_ms != b.end_ms ? a.end_ms < b.end_ms : a.start_ms > b.start_ms;
                     });
  }
  return out;
}

}  // namespace iq::model
