#include "state/in_memory_window_store.h"

#include "base/probe.h"

namespace iq {
namespace {

Bytes wrap_for_dups(const Bytes& key, int32_t seqnum) {
  return Bytes(key.get() + serde_detail::to_big_endian(static_cast<uint32_t>(seqnum)));
}

}  // namespace

InMemoryWindowStore::InMemoryWindowStore(std::string name, int64_t retention_period_ms,
                                         int64_t window_size_ms, bool retain_duplicates)
    : name_(std::move(name)),
      retention_period_ms_(retention_period_ms),
      window_size_ms_(window_size_ms),
      retain_duplicates_(retain_duplicates) {
  IQ_ASSERT(retention_period_ms_ >= 0 && window_size_ms_ >= 0, "retention {} size {}",
            retention_period_ms_, window_size_ms_);
}

Status InMemoryWindowStore::init(StateStoreContext& context, StateStore& root) {
  // Unlike the in-memory key-value store, the context is taken before registering.
  context_ = &context;
  consistency_enabled_ = context.consistency_enabled();
  context.register_store(
      root, [this](const std::vector<ConsumerRecord>& records) { return restore_batch(records); },
      /*commit=*/nullptr);  // in-memory stores never persist their position
  open_ = true;
  pin_ = context.kafka_pin();
  // pin delta 5: enable.transactional.statestores, read at every init (true only at the new pin).
  if (context.transactional_state_stores()) {
    buffer_ = std::make_unique<WindowTransactionBuffer>();
  } else {
    buffer_.reset();
  }
  return ok_status();
}

// pin delta 7: the staged position (committed + pending, a copy) when transactional.
Position InMemoryWindowStore::position() const {
  return buffer_ ? buffer_->staged_over(position_) : position_;
}

// pin delta 7 (§3.3): READ_UNCOMMITTED on a transactional store is bounded by and labelled with
// the staged position; READ_COMMITTED (and any level on a non-transactional store) with the
// committed one.
QueryOutcome InMemoryWindowStore::query(const Query& q, const PositionBound& bound,
                                        const QueryConfig& config) {
  if (buffer_ && config.isolation_level() == IsolationLevel::READ_UNCOMMITTED) {
    return store_query_utils::handle_basic_queries(q, bound, config, *this, position(), context_);
  }
  return store_query_utils::handle_basic_queries(q, bound, config, *this, position_, context_);
}

// commit: the pending position into the committed one, then the staged writes into the segment
// map (flushToBase: a tombstone removes the key, and an emptied window with it).
Status InMemoryWindowStore::commit(const ChangelogOffsets& /*offsets*/) {
  if (!buffer_) return ok_status();
  buffer_->merge_pending_position_into(position_);
  return buffer_->commit([this](const WindowTransactionBuffer::Writes& staged) -> Status {
    for (const auto& [entry, value] : staged) {
      if (value) {
        segment_map_[entry.timestamp].insert_or_assign(entry.key, *value);
      } else {
        auto segment = segment_map_.find(entry.timestamp);
        if (segment == segment_map_.end()) continue;
        segment->second.erase(entry.key);
        if (segment->second.empty()) segment_map_.erase(segment);
      }
    }
    return ok_status();
  });
}

// Kafka quirk: expired segments are removed BEFORE the observed stream time advances to this
// put's window start, so the newly expired windows stay until the next operation.
Status InMemoryWindowStore::put(const Bytes& key, const ValueBytes& value,
                                int64_t window_start_ms) {
  remove_expired_segments();
  observed_stream_time_ms_ = std::max(observed_stream_time_ms_, window_start_ms);
  if (window_start_ms <= observed_stream_time_ms_ - retention_period_ms_) {
    // Dropped: Kafka records a dropped-records metric and logs "Skipping record for expired
    // segment."
    if (window_start_ms == observed_stream_time_ms_ - retention_period_ms_) {
      IQ_PROBE("window.put_dropped_at_retention",
               "an in-memory window store dropped a put at exactly stream time - retention");
    }
  } else if (buffer_) {
    // pin delta 5: staged (a delete as a tombstone; with duplicates still a no-op).
    if (value) {
      if (retain_duplicates_) seqnum_ = (seqnum_ + 1) & 0x7FFFFFFF;
      const Bytes stored_key = retain_duplicates_ ? wrap_for_dups(key, seqnum_) : key;
      buffer_->stage({window_start_ms, stored_key}, value);
    } else if (!retain_duplicates_) {
      buffer_->stage({window_start_ms, key}, std::nullopt);
    }
  } else {
    put_internal(key, value, window_start_ms);
  }
  // The position advances even for a dropped or no-op put (pending when transactional).
  if (buffer_) {
    buffer_->update_position(context_);
  } else {
    store_query_utils::update_position(position_, context_);
  }
  return ok_status();
}

void InMemoryWindowStore::put_internal(const Bytes& key, const ValueBytes& value,
                                       int64_t window_start_ms) {
  if (value) {
    if (retain_duplicates_) seqnum_ = (seqnum_ + 1) & 0x7FFFFFFF;
    const Bytes stored_key = retain_duplicates_ ? wrap_for_dups(key, seqnum_) : key;
    segment_map_[window_start_ms].insert_or_assign(stored_key, *value);
  } else if (!retain_duplicates_) {  // with duplicates a delete is a no-op
    auto segment = segment_map_.find(window_start_ms);
    if (segment != segment_map_.end()) {
      segment->second.erase(key);
      if (segment->second.empty()) segment_map_.erase(segment);
    }
  }
}

const InMemoryWindowStore::SegmentMap& InMemoryWindowStore::view_for(int64_t min_time,
                                                                     int64_t max_time,
                                                                     IsolationLevel level,
                                                                     SegmentMap& scratch) const {
  if (!buffer_ || level == IsolationLevel::READ_COMMITTED || buffer_->is_empty() ||
      max_time < min_time) {
    return segment_map_;
  }
  scratch = SegmentMap(segment_map_.lower_bound(min_time), segment_map_.upper_bound(max_time));
  // Every staged entry whose window start lies in [min_time, max_time].
  const auto staged = buffer_->staging_snapshot(WindowEntryKey{min_time, Bytes()}, std::nullopt,
                                                /*to_inclusive=*/true, level);
  for (const auto& [entry, value] : staged) {
    if (entry.timestamp > max_time) break;
    if (value) {
      scratch[entry.timestamp].insert_or_assign(entry.key, *value);
      continue;
    }
    auto segment = scratch.find(entry.timestamp);
    if (segment == scratch.end()) continue;
    segment->second.erase(entry.key);
    if (segment->second.empty()) scratch.erase(segment);
  }
  return scratch;
}

StoreResult<ValueBytes> InMemoryWindowStore::fetch_at(const Bytes& key, int64_t window_start_ms,
                                                      IsolationLevel level) {
  remove_expired_segments();
  if (window_start_ms <= observed_stream_time_ms_ - retention_period_ms_) return ValueBytes{};
  if (buffer_ && level == IsolationLevel::READ_UNCOMMITTED) {
    if (const ValueBytes* staged = buffer_->get({window_start_ms, key})) return *staged;
  }
  auto segment = segment_map_.find(window_start_ms);
  if (segment == segment_map_.end()) return ValueBytes{};
  // With duplicates the stored keys carry a seqnum, so this exact lookup misses (as in Kafka).
  auto it = segment->second.find(key);
  if (it == segment->second.end()) return ValueBytes{};
  return ValueBytes(it->second);
}

StoreResult<WindowStoreBytesIterator> InMemoryWindowStore::fetch_at(const Bytes& key,
                                                                    int64_t time_from_ms,
                                                                    int64_t time_to_ms,
                                                                    bool forward,
                                                                    IsolationLevel level) {
  remove_expired_segments();
  // Records expire exactly retentionPeriod ms after their window start, hence the + 1.
  const int64_t min_time = fetch_floor(time_from_ms);
  WindowStoreBytesIterator out{{}, IteratorOrigin::InMemoryIterator};
  if (time_to_ms < min_time) return out;
  SegmentMap scratch;
  const SegmentMap& segments = view_for(min_time, time_to_ms, level, scratch);
  for (auto& [start, kv] : scan(segments, min_time, time_to_ms, key, key, forward))
    out.entries.push_back({start, std::move(kv.value)});
  return out;
}

StoreResult<WindowedBytesIterator> InMemoryWindowStore::fetch_all_at(int64_t time_from_ms,
                                                                     int64_t time_to_ms,
                                                                     bool forward,
                                                                     IsolationLevel level) {
  remove_expired_segments();
  const int64_t min_time = fetch_floor(time_from_ms);
  WindowedBytesIterator out{{}, IteratorOrigin::InMemoryIterator};
  if (time_to_ms < min_time) return out;
  SegmentMap scratch;
  const SegmentMap& segments = view_for(min_time, time_to_ms, level, scratch);
  for (auto& [start, kv] :
       scan(segments, min_time, time_to_ms, std::nullopt, std::nullopt, forward)) {
    out.entries.push_back({Windowed<Bytes>{strip_seqnum(kv.key), start,
                                           window_key_schema::window_end(start, window_size_ms_)},
                           std::move(kv.value)});
  }
  return out;
}

// A fetch's lower bound raised to the oldest live window start (observedStreamTime - retention +
// 1), as Kafka's fetch and fetchAll do.
int64_t InMemoryWindowStore::fetch_floor(int64_t time_from_ms) const {
  const int64_t floor_ms = observed_stream_time_ms_ - retention_period_ms_ + 1;
  if (time_from_ms == floor_ms && time_from_ms > 0) {
    IQ_PROBE("window.fetch_from_at_retention_floor",
             "a window fetch's lower time bound equals the store's retention floor");
  }
  return std::max(time_from_ms, floor_ms);
}

// all() starts strictly above observedStreamTime - retention, the same floor as the fetches.
StoreResult<WindowedBytesIterator> InMemoryWindowStore::all(bool forward) {
  remove_expired_segments();
  const int64_t min_time = observed_stream_time_ms_ - retention_period_ms_ + 1;
  WindowedBytesIterator out{{}, IteratorOrigin::InMemoryIterator};
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  SegmentMap scratch;
  const SegmentMap& segments = view_for(min_time, kMax, IsolationLevel::READ_UNCOMMITTED, scratch);
  for (auto& [start, kv] : scan(segments, min_time, kMax, std::nullopt, std::nullopt, forward)) {
    out.entries.push_back({Windowed<Bytes>{strip_seqnum(kv.key), start,
                                           window_key_schema::window_end(start, window_size_ms_)},
                           std::move(kv.value)});
  }
  return out;
}

std::vector<int64_t> InMemoryWindowStore::window_starts() const {
  std::vector<int64_t> out;
  for (const auto& [start, segment] : segment_map_) out.push_back(start);
  return out;
}

// Kafka quirk: the live floor is clamped at 0, so a window with a negative start is removed by
// the first operation even when the retention would keep it. (Kafka also keeps segments an open
// iterator still reads; iqsim's iterators are materialized, so none is ever open here.)
void InMemoryWindowStore::remove_expired_segments() {
  const int64_t min_live_time =
      std::max<int64_t>(0, observed_stream_time_ms_ - retention_period_ms_ + 1);
  segment_map_.erase(segment_map_.begin(), segment_map_.lower_bound(min_live_time));
}

std::vector<std::pair<int64_t, KeyValue<Bytes, Bytes>>> InMemoryWindowStore::scan(
    const SegmentMap& segments, int64_t min_time, int64_t max_time,
    const std::optional<Bytes>& key_from, const std::optional<Bytes>& key_to, bool forward) const {
  std::vector<std::pair<int64_t, KeyValue<Bytes, Bytes>>> out;
  if (max_time < min_time) return out;
  // With duplicates the key range spans [key+seq 0, key+seq MAX] in stored-key order, and each
  // entry's key without its seqnum is then checked against the range (isKeyWithinRange).
  std::optional<Bytes> from = key_from, to = key_to;
  if (retain_duplicates_) {
    if (from) from = wrap_for_dups(*from, 0);
    if (to) to = wrap_for_dups(*to, std::numeric_limits<int32_t>::max());
  }
  const bool all_keys = !key_from && !key_to;
  for (auto seg = segments.lower_bound(min_time); seg != segments.end() && seg->first <= max_time;
       ++seg) {
    const Segment& segment = seg->second;
    auto first = from ? segment.lower_bound(*from) : segment.begin();
    auto last = to ? segment.upper_bound(*to) : segment.end();
    std::vector<std::pair<int64_t, KeyValue<Bytes, Bytes>>> in_segment;
    for (auto it = first; it != last; ++it) {
      if (retain_duplicates_ && !all_keys) {
        const Bytes key = strip_seqnum(it->first);
        if ((key_from && key < *key_from) || (key_to && key > *key_to)) continue;
      }
      in_segment.push_back({seg->first, {it->first, it->second}});
    }
    if (!forward) std::reverse(in_segment.begin(), in_segment.end());
    for (auto& e : in_segment) out.push_back(std::move(e));
  }
  if (!forward) {
    // Backward: segments in descending order, each segment's keys descending.
    std::vector<std::pair<int64_t, KeyValue<Bytes, Bytes>>> reordered;
    reordered.reserve(out.size());
    size_t end = out.size();
    while (end > 0) {
      size_t begin = end;
      while (begin > 0 && out[begin - 1].first == out[end - 1].first) --begin;
      for (size_t i = begin; i < end; ++i) reordered.push_back(std::move(out[i]));
      end = begin;
    }
    out = std::move(reordered);
  }
  return out;
}

Bytes InMemoryWindowStore::strip_seqnum(const Bytes& stored) const {
  if (!retain_duplicates_) return stored;
  IQ_ASSERT(stored.size() >= window_key_schema::kSeqnumSize, "duplicate key of {} bytes",
            stored.size());
  return Bytes(
      std::string(stored.view().substr(0, stored.size() - window_key_schema::kSeqnumSize)));
}

// Each changelog record's key is [key][window start][seqnum]; put() drops those already expired
// by the stream time the restore has reached, as Kafka's restore goes through put().
// pin delta 5 (d2328ff720): at the new pin the restore writes the segment map directly (restored
// records are committed, never staged), advances the stream time and drops expired records as put
// does, applies no record context to the position, and removes expired segments once per batch.
Status InMemoryWindowStore::restore_batch(const std::vector<ConsumerRecord>& records) {
  if (at_least(pin_, KafkaPin::k2026_08_20)) {
    for (const auto& record : records) {
      if (!record.key) continue;
      const int64_t start = window_key_schema::extract_store_timestamp(*record.key);
      observed_stream_time_ms_ = std::max(observed_stream_time_ms_, start);
      if (start > observed_stream_time_ms_ - retention_period_ms_) {
        put_internal(window_key_schema::extract_store_key_bytes(*record.key), record.value, start);
      }
      auto s = store_query_utils::apply_checks_and_update_position(record, consistency_enabled_,
                                                                   position_);
      if (!s) return s;
    }
    remove_expired_segments();
    return ok_status();
  }
  for (const auto& record : records) {
    if (!record.key) continue;
    auto s = put(window_key_schema::extract_store_key_bytes(*record.key), record.value,
                 window_key_schema::extract_store_timestamp(*record.key));
    if (!s) return s;
    s = store_query_utils::apply_checks_and_update_position(record, consistency_enabled_,
                                                            position_);
    if (!s) return s;
  }
  return ok_status();
}

}  // namespace iq
