#include "model/session_history.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "base/assert.h"
#include "model/time_math.h"

namespace iq::model {

std::ostream& operator<<(std::ostream& out, const SessionEntry& e) {
  return out << key_to_hex(e.key) << "@[" << e.start_ms << "," << e.end_ms << "]=" << e.value;
}

// The segmented store's order inside one key: [key][end][start].
bool SessionHistory::Slot::operator<(const Slot& o) const {
  const int c = compare_key_bytes(key, o.key);
  if (c != 0) return c < 0;
  return std::tie(end_ms, start_ms) < std::tie(o.end_ms, o.start_ms);
}

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

const SessionHistory::PartitionState* SessionHistory::find(int32_t partition) const {
  const auto it = partitions_.find(partition);
  return it == partitions_.end() ? nullptr : &it->second;
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
  PartitionState& p = partitions_[partition];
  p.steps.check_offset(offset);
  return p;
}

bool SessionHistory::store_put(PartitionState& p, int64_t offset, const Slot& slot,
                               std::optional<int64_t> value) {
  const bool segmented = spec_.backing == StoreBacking::kSegmented;
  p.store_stream_time_ms = std::max(p.store_stream_time_ms, slot.end_ms);
  const bool expired =
      segmented ? !segment_live(slot.end_ms, p.store_stream_time_ms)
                : slot.end_ms <= saturating_minus(p.store_stream_time_ms, spec_.retention_ms);
  p.writes.push_back(Write{offset, slot, value, !expired, true, p.store_stream_time_ms});
  if (!expired) {
    if (value) {
      p.live[slot] = *value;
    } else {
      p.live.erase(slot);
    }
  }
  return segmented ? !expired : true;
}

// InMemorySessionStore.remove leaves the stream time; the segmented remove raises it, and finds
// nothing in a segment already dropped.
void SessionHistory::store_remove(PartitionState& p, int64_t offset, const Slot& slot) {
  if (spec_.backing == StoreBacking::kSegmented) {
    p.store_stream_time_ms = std::max(p.store_stream_time_ms, slot.end_ms);
  }
  const bool found = p.live.erase(slot) > 0;
  p.writes.push_back(Write{offset, slot, std::nullopt, found, false, p.store_stream_time_ms});
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

void SessionHistory::restart_processor(int32_t partition) {
  partitions_[partition].processor_stream_time_ms = -1;
}

void SessionHistory::reopen_store(int32_t partition, int64_t offset, int64_t stream_time_ms) {
  IQ_ASSERT(spec_.backing == StoreBacking::kSegmented, "only a segmented store forgets it");
  IQ_ASSERT(stream_time_ms >= -1, "stream time {}", stream_time_ms);
  PartitionState& p = partitions_[partition];
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
  for (const auto& [slot, value] : from_cache ? p.cached : p.live) {
    if (slot.key != record.key) continue;
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
  std::map<Slot, int64_t> content;
  const bool segmented = spec_.backing == StoreBacking::kSegmented;
  int64_t floor_segment = std::numeric_limits<int64_t>::min();  // segments below are gone
  for (const Write& w : p->writes) {
    if (w.offset > offset_inclusive) break;
    // Only the key's sessions are answered: the others are not kept (every put still moves the
    // segment floor below).
    if (w.applied && w.slot.key == key) {
      if (w.value) {
        content[w.slot] = *w.value;
      } else {
        content.erase(w.slot);
      }
    }
    // As WindowHistory::content: a put's cleanupExpiredSegments drops whole segments for good.
    if (segmented && w.is_put) {
      const int64_t live_from =
          saturating_minus(w.stream_time_after_ms, spec_.retention_ms) / spec_.segment_interval_ms;
      if (live_from > floor_segment || w.slot.end_ms / spec_.segment_interval_ms < floor_segment) {
        std::erase_if(content, [&](const auto& e) {
          return e.first.end_ms / spec_.segment_interval_ms < live_from;
        });
      }
      floor_segment = live_from;
    }
  }
  const int64_t st = store_stream_time(partition, offset_inclusive);
  for (const auto& [slot, value] : content) {
    if (slot.key != key) continue;
    if (!visible(slot.end_ms, st)) {
      if (segmented && slot.end_ms >= 0 && segment_live(slot.end_ms, st)) out.uncertain = true;
      continue;
    }
    out.entries.push_back(SessionEntry{slot.key, slot.start_ms, slot.end_ms, value});
  }
  // content is ordered by end, then start ascending: the segmented order. The in-memory store
  // runs the starts of one end descending.
  if (!segmented) {
    std::stable_sort(out.entries.begin(), out.entries.end(),
                     [](const SessionEntry& a, const SessionEntry& b) {
                       return a.end_ms != b.end_ms ? a.end_ms < b.end_ms : a.start_ms > b.start_ms;
                     });
  }
  return out;
}

}  // namespace iq::model
