#include "model/window_history.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include "base/assert.h"
#include "model/time_math.h"
#include "slot_changes.h"

namespace iq::model {

std::ostream& operator<<(std::ostream& out, const WindowEntry& e) {
  return out << key_to_hex(e.key) << "@[" << e.window_start_ms << "," << e.window_end_ms
             << ")=" << e.value << "/" << e.timestamp_ms;
}

namespace {

struct Stored {
  int64_t value;
  int64_t timestamp_ms;
};

}  // namespace

struct WindowHistory::PartitionState {
  struct Slot {
    internal::SlotChanges<Stored> content;  // the store's, after every segment cleanup
    // The slot in the store's put-level view now, without the segment cleanup (what apply()'s
    // windowStore.fetch reads under the floor; it differs from `content` only after a reopen).
    std::optional<Stored> live;
    bool indexed = false;  // listed in `present_by_segment`
  };

  StoreSteps steps;  // one per record (or direct put) that reached the store or was skipped
  int64_t processor_stream_time_ms = -1;
  int64_t store_stream_time_ms = -1;
  int64_t seqnum = 0;
  std::vector<Slot> slots;  // every slot ever put, in the order they came
  // Per key, its slots by (start, seqnum): the segmented store's order inside the key.
  std::map<KeyBytes, internal::SlotIndex, KeyBytesLess> keys;
  internal::SegmentHeap present_by_segment;  // segmented: slots by segment (start / interval)

  // The slot's place, made (absent) if `make`; nullopt if absent and not made.
  std::optional<uint32_t> slot_of(const KeyBytes& key, int64_t start, int64_t seq, bool make) {
    if (!make) {
      const auto it = keys.find(key);
      return it == keys.end() ? std::nullopt : it->second.find({start, seq});
    }
    return keys[key].find_or_add({start, seq}, [&] {
      slots.emplace_back();
      return static_cast<uint32_t>(slots.size() - 1);
    });
  }
};

WindowHistory::WindowHistory(WindowSpec spec, int64_t records_max)
    : spec_(spec), records_max_(records_max) {
  IQ_ASSERT(spec.size_ms >= 1, "window size {}", spec.size_ms);
  IQ_ASSERT(spec.advance_ms >= 1 && spec.advance_ms <= spec.size_ms, "advance {} size {}",
            spec.advance_ms, spec.size_ms);
  IQ_ASSERT(spec.grace_ms >= 0 && spec.retention_ms >= 0, "grace {} retention {}", spec.grace_ms,
            spec.retention_ms);
  IQ_ASSERT(spec.segment_interval_ms >= 1, "segment interval {}", spec.segment_interval_ms);
  IQ_ASSERT(!spec.retain_duplicates || spec.aggregation == WindowAggregation::kLatest,
            "the DSL refuses retainDuplicates");
  // TimeWindowedKStreamImpl / Materialized refuse a retention below size + grace.
  IQ_ASSERT(spec.aggregation == WindowAggregation::kLatest ||
                spec.retention_ms >= spec.size_ms + spec.grace_ms,
            "retention {} below size {} + grace {}", spec.retention_ms, spec.size_ms,
            spec.grace_ms);
}

WindowHistory::WindowHistory(const WindowHistory& o)
    : spec_(o.spec_), records_max_(o.records_max_), records_applied_(o.records_applied_) {
  for (const auto& [partition, state] : o.partitions_) {
    partitions_.emplace(partition, std::make_unique<PartitionState>(*state));
  }
}

WindowHistory& WindowHistory::operator=(const WindowHistory& o) {
  if (this != &o) *this = WindowHistory(o);
  return *this;
}

WindowHistory::WindowHistory(WindowHistory&&) noexcept = default;
WindowHistory& WindowHistory::operator=(WindowHistory&&) noexcept = default;
WindowHistory::~WindowHistory() = default;

const WindowHistory::PartitionState* WindowHistory::find(int32_t partition) const {
  const auto it = partitions_.find(partition);
  return it == partitions_.end() ? nullptr : it->second.get();
}

WindowHistory::PartitionState& WindowHistory::state(int32_t partition) {
  std::unique_ptr<PartitionState>& p = partitions_[partition];
  if (p == nullptr) p = std::make_unique<PartitionState>();
  return *p;
}

void WindowHistory::count_record() {
  IQ_ASSERT(records_applied_ < records_max_, "more than {} records", records_max_);
  ++records_applied_;
}

// The read floor of both stores: a window is visible while start > stream time - retention
// (InMemoryWindowStore.fetch's minTime, AbstractRocksDBSegmentedBytesStore.getActualFrom and
// get). The in-memory store also clears every start below max(0, floor) (removeExpiredSegments),
// so a negative start never shows there; timestamps >= 0 keep starts >= 0 here.
bool WindowHistory::visible(int64_t window_start_ms, int64_t stream_time_ms) const {
  return window_start_ms > saturating_minus(stream_time_ms, spec_.retention_ms);
}

// AbstractSegments.getOrCreateSegmentIfLive and cleanupExpiredSegments: segment ids by Java's
// long division (towards zero), live from the segment of stream time - retention.
bool WindowHistory::segment_live(int64_t window_start_ms, int64_t stream_time_ms) const {
  const int64_t id = window_start_ms / spec_.segment_interval_ms;
  return id >= saturating_minus(stream_time_ms, spec_.retention_ms) / spec_.segment_interval_ms;
}

bool WindowHistory::store_put(PartitionState& p, int64_t offset, const KeyBytes& key,
                              std::optional<int64_t> value, int64_t timestamp_ms,
                              int64_t window_start_ms) {
  const bool segmented = spec_.backing == StoreBacking::kSegmented;
  // RocksDBWindowStore.put: a null put with duplicates is a no-op before the bytes store.
  if (segmented && spec_.retain_duplicates && !value) return false;
  p.store_stream_time_ms = std::max(p.store_stream_time_ms, window_start_ms);
  const bool expired = segmented ? !segment_live(window_start_ms, p.store_stream_time_ms)
                                 : !visible(window_start_ms, p.store_stream_time_ms);
  // The in-memory store takes a sequence number only for a live non-null put; RocksDBWindowStore
  // for every non-null put it passes down, expired or not. The counter is the store object's: a
  // reopened RocksDB store counts from 0 again, and its next duplicates overwrite the old ones
  // that got the same numbers (reopen_store).
  int64_t seqnum = 0;
  if (spec_.retain_duplicates && value && (segmented || !expired)) seqnum = ++p.seqnum;
  // A null put deletes its window; with duplicates it deletes nothing.
  write(p, offset, key, window_start_ms, seqnum, value, timestamp_ms, expired,
        /*erase=*/!spec_.retain_duplicates);
  // InMemoryWindowStore.put updates the position on every put; the segmented store only when the
  // segment is live (quirk 20).
  return segmented ? !expired : true;
}

void WindowHistory::write(PartitionState& p, int64_t offset, const KeyBytes& key,
                          int64_t window_start_ms, int64_t seqnum, std::optional<int64_t> value,
                          int64_t timestamp_ms, bool expired, bool erase) {
  const bool segmented = spec_.backing == StoreBacking::kSegmented;
  if (!expired && (value || erase)) {
    // A delete of a slot never put finds nothing.
    if (const auto place = p.slot_of(key, window_start_ms, seqnum, value.has_value())) {
      PartitionState::Slot& slot = p.slots[*place];
      const std::optional<Stored> now =
          value ? std::optional(Stored{*value, timestamp_ms}) : std::nullopt;
      slot.live = now;
      if (now || slot.content.present()) slot.content.set(offset, now);
      if (now && segmented && !slot.indexed) {
        slot.indexed = true;
        p.present_by_segment.push(window_start_ms / spec_.segment_interval_ms, *place);
      }
    }
  }
  // Every put reaching the segmented store runs cleanupExpiredSegments with the stream time it
  // raised: whole segments below it go, and stay gone when a reopened store's stream time is
  // lower. A put the store took lies in a live segment, so only the listed slots can go.
  if (segmented) {
    const int64_t live_from =
        saturating_minus(p.store_stream_time_ms, spec_.retention_ms) / spec_.segment_interval_ms;
    p.present_by_segment.pop_below(live_from, [&](uint32_t place) {
      PartitionState::Slot& slot = p.slots[place];
      slot.indexed = false;
      if (slot.content.present()) slot.content.set(offset, std::nullopt);
    });
  }
}

void WindowHistory::put(int32_t partition, int64_t offset, const KeyBytes& key,
                        std::optional<int64_t> value, int64_t timestamp_ms,
                        int64_t window_start_ms) {
  IQ_ASSERT(offset >= 0, "offset {}", offset);
  count_record();
  PartitionState& p = state(partition);
  p.steps.check_offset(offset);
  const bool updated = store_put(p, offset, key, value, timestamp_ms, window_start_ms);
  p.steps.record(StoreStep{offset, p.store_stream_time_ms, updated, false});
}

void WindowHistory::restore_put(int32_t partition, int64_t offset, const KeyBytes& key,
                                std::optional<int64_t> value, int64_t timestamp_ms,
                                int64_t window_start_ms, int64_t seqnum) {
  IQ_ASSERT(spec_.backing == StoreBacking::kSegmented, "only a segmented store restores raw keys");
  IQ_ASSERT(offset >= 0 && seqnum >= 0, "offset {} seqnum {}", offset, seqnum);
  count_record();
  PartitionState& p = state(partition);
  p.steps.check_offset(offset);
  p.store_stream_time_ms = std::max(p.store_stream_time_ms, window_start_ms);
  const bool expired = !segment_live(window_start_ms, p.store_stream_time_ms);
  write(p, offset, key, window_start_ms, seqnum, value, timestamp_ms, expired, /*erase=*/true);
  p.steps.record(StoreStep{offset, p.store_stream_time_ms, !expired, false});
}

void WindowHistory::load_kept(int32_t partition, int64_t offset, const KeyBytes& key, int64_t value,
                              int64_t timestamp_ms, int64_t window_start_ms, int64_t seqnum) {
  IQ_ASSERT(spec_.backing == StoreBacking::kSegmented, "only a segmented store keeps data");
  IQ_ASSERT(offset >= 0 && seqnum >= 0, "offset {} seqnum {}", offset, seqnum);
  count_record();
  PartitionState& p = state(partition);
  p.steps.check_offset(offset);
  // Loaded before any put: the stream time is still -1, so the write drops no segment.
  IQ_ASSERT(p.store_stream_time_ms == -1, "kept data loaded at stream time {}",
            p.store_stream_time_ms);
  write(p, offset, key, window_start_ms, seqnum, value, timestamp_ms, /*expired=*/false,
        /*erase=*/true);
  p.steps.record(StoreStep{offset, p.store_stream_time_ms, false, false});
}

void WindowHistory::restart_processor(int32_t partition) {
  state(partition).processor_stream_time_ms = -1;
}

void WindowHistory::reopen_store(int32_t partition, int64_t offset, int64_t stream_time_ms) {
  IQ_ASSERT(spec_.backing == StoreBacking::kSegmented, "only a segmented store forgets it");
  IQ_ASSERT(stream_time_ms >= -1, "stream time {}", stream_time_ms);
  PartitionState& p = state(partition);
  p.steps.check_offset(offset);
  p.store_stream_time_ms = stream_time_ms;
  p.seqnum = 0;
  p.steps.record(StoreStep{offset, stream_time_ms, false, false});
}

void WindowHistory::apply(int32_t partition, const SourceRecord& record) {
  assert_valid_record(record);
  IQ_ASSERT(record.kind != WriteKind::kDelete, "a windowed topology never calls delete()");
  IQ_ASSERT(record.timestamp_ms >= 0, "negative timestamp {} at offset {}", record.timestamp_ms,
            record.offset);
  count_record();
  PartitionState& p = state(partition);
  p.steps.check_offset(record.offset);
  StoreStep step{record.offset, p.store_stream_time_ms, false, false};
  if (spec_.aggregation == WindowAggregation::kLatest) {
    // The PAPI writer: no grace, the store alone decides.
    const int64_t start = record.timestamp_ms / spec_.size_ms * spec_.size_ms;
    step.position_updated =
        store_put(p, record.offset, record.key, record.value, record.timestamp_ms, start);
  } else {
    p.processor_stream_time_ms = std::max(p.processor_stream_time_ms, record.timestamp_ms);
    const int64_t close_ms = saturating_minus(p.processor_stream_time_ms, spec_.grace_ms);
    // TimeWindows.windowsFor, in ascending window start.
    int64_t start = std::max<int64_t>(0, record.timestamp_ms - spec_.size_ms + spec_.advance_ms) /
                    spec_.advance_ms * spec_.advance_ms;
    for (int64_t windows = 0; start <= record.timestamp_ms; start += spec_.advance_ms) {
      IQ_ASSERT(++windows <= spec_.size_ms / spec_.advance_ms + 1, "too many windows");
      if (start + spec_.size_ms <= close_ms) {
        step.grace_dropped = true;
        continue;
      }
      // windowStore.fetch(key, start): the current aggregate, if visible under the floor.
      std::optional<Stored> old;
      if (const auto place = p.slot_of(record.key, start, 0, false);
          place && visible(start, p.store_stream_time_ms)) {
        old = p.slots[*place].live;
      }
      const int64_t agg = spec_.aggregation == WindowAggregation::kCount
                              ? (old ? old->value : 0) + 1
                              : (old ? old->value : 0) + record.value.value_or(0);
      const int64_t ts =
          old ? std::max(old->timestamp_ms, record.timestamp_ms) : record.timestamp_ms;
      step.position_updated |= store_put(p, record.offset, record.key, agg, ts, start);
    }
  }
  step.store_stream_time_ms = p.store_stream_time_ms;
  p.steps.record(step);
}

int64_t WindowHistory::store_stream_time(int32_t partition, int64_t offset_inclusive) const {
  const PartitionState* p = find(partition);
  return p == nullptr ? -1 : p->steps.store_stream_time(offset_inclusive);
}

std::optional<int64_t> WindowHistory::position_offset(int32_t partition,
                                                      int64_t offset_inclusive) const {
  const PartitionState* p = find(partition);
  return p == nullptr ? std::nullopt : p->steps.position_offset(offset_inclusive);
}

bool WindowHistory::grace_dropped_at(int32_t partition, int64_t offset) const {
  const PartitionState* p = find(partition);
  return p != nullptr && p->steps.grace_dropped_at(offset);
}

WindowAnswer WindowHistory::select(int32_t partition, const KeyBytes* key, int64_t time_from_ms,
                                   int64_t time_to_ms, int64_t offset_inclusive) const {
  WindowAnswer out;
  const PartitionState* p = find(partition);
  if (p == nullptr) return out;
  const int64_t st = p->steps.store_stream_time(offset_inclusive);
  const bool segmented = spec_.backing == StoreBacking::kSegmented;
  // The key's slots with a start in [time_from, time_to], in (start, seqnum) order.
  const auto visit = [&](const KeyBytes& k, const internal::SlotIndex& slots) {
    for (auto it = slots.from({time_from_ms, std::numeric_limits<int64_t>::min()});
         it != slots.end() && it->times.first <= time_to_ms; ++it) {
      const std::optional<Stored>* stored = p->slots[it->slot].content.at(offset_inclusive);
      if (stored == nullptr || !*stored) continue;
      const int64_t start = it->times.first;
      if (!visible(start, st)) {
        // Hidden by the floor but still in a live segment: a store whose stream time restarted
        // from -1 shows it.
        if (segmented && segment_live(start, st)) out.uncertain = true;
        continue;
      }
      out.entries.push_back(
          WindowEntry{k, start, start + spec_.size_ms, (*stored)->value, (*stored)->timestamp_ms});
    }
  };
  if (key != nullptr) {
    if (const auto it = p->keys.find(*key); it != p->keys.end()) visit(it->first, it->second);
  } else {
    for (const auto& [k, slots] : p->keys) visit(k, slots);
  }
  // The entries are ordered by key, start, seqnum: the segmented store's order inside a segment.
  // The order of the seqnums of one (key, start) is kept by stable sorts.
  if (key != nullptr) {
    std::stable_sort(out.entries.begin(), out.entries.end(),
                     [](const WindowEntry& a, const WindowEntry& b) {
                       return a.window_start_ms < b.window_start_ms;
                     });
  } else if (segmented) {
    const int64_t interval = spec_.segment_interval_ms;
    std::stable_sort(out.entries.begin(), out.entries.end(),
                     [interval](const WindowEntry& a, const WindowEntry& b) {
                       return a.window_start_ms / interval < b.window_start_ms / interval;
                     });
  } else {
    std::stable_sort(out.entries.begin(), out.entries.end(),
                     [](const WindowEntry& a, const WindowEntry& b) {
                       return a.window_start_ms < b.window_start_ms;
                     });
  }
  return out;
}

WindowAnswer WindowHistory::fetch(int32_t partition, const KeyBytes& key, int64_t time_from_ms,
                                  int64_t time_to_ms, int64_t offset_inclusive) const {
  return select(partition, &key, time_from_ms, time_to_ms, offset_inclusive);
}

WindowAnswer WindowHistory::fetch_all(int32_t partition, int64_t time_from_ms, int64_t time_to_ms,
                                      int64_t offset_inclusive) const {
  return select(partition, nullptr, time_from_ms, time_to_ms, offset_inclusive);
}

}  // namespace iq::model
