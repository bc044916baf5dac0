#include "state/in_memory_session_store.h"

#include "base/probe.h"

namespace iq {

InMemorySessionStore::InMemorySessionStore(std::string name, int64_t retention_period_ms)
    : name_(std::move(name)), retention_period_ms_(retention_period_ms) {
  IQ_ASSERT(retention_period_ms_ >= 0, "retention {}", retention_period_ms_);
}

Status InMemorySessionStore::init(StateStoreContext& context, StateStore& root) {
  context_ = &context;
  consistency_enabled_ = context.consistency_enabled();
  context.register_store(
      root, [this](const std::vector<ConsumerRecord>& records) { return restore_batch(records); },
      /*commit=*/nullptr);  // in-memory stores never persist their position
  open_ = true;
  return ok_status();
}

// Expiry runs before the observed stream time advances to this session's end; the position
// advances even for a dropped put.
Status InMemorySessionStore::put(const Windowed<Bytes>& session, const ValueBytes& value) {
  remove_expired_segments();
  const int64_t end = session.end_ms;
  observed_stream_time_ms_ = std::max(observed_stream_time_ms_, end);
  if (end <= observed_stream_time_ms_ - retention_period_ms_) {
    IQ_PROBE("session.in_memory.expired_put",
             "an in-memory session store dropped an expired session");
    if (end == observed_stream_time_ms_ - retention_period_ms_) {
      IQ_PROBE("session.put_dropped_at_retention",
               "an in-memory session store dropped a session ending exactly at stream time - "
               "retention");
    }
    // Kafka records the dropped-records sensor and logs "Skipping record for expired segment."
  } else if (value) {
    end_time_map_[end][session.key].insert_or_assign(session.start_ms, *value);
  } else {
    auto s = remove(session);
    IQ_ASSERT(s.has_value());
  }
  store_query_utils::update_position(position_, context_);
  return ok_status();
}

// remove() neither expires nor advances the position (only put does).
Status InMemorySessionStore::remove(const Windowed<Bytes>& session) {
  auto keys = end_time_map_.find(session.end_ms);
  if (keys == end_time_map_.end()) return ok_status();
  auto starts = keys->second.find(session.key);
  if (starts == keys->second.end()) return ok_status();
  starts->second.erase(session.start_ms);
  if (starts->second.empty()) {
    keys->second.erase(starts);
    if (keys->second.empty()) end_time_map_.erase(keys);
  }
  return ok_status();
}

StoreResult<ValueBytes> InMemorySessionStore::fetch_session(const Bytes& key,
                                                            int64_t session_start_ms,
                                                            int64_t session_end_ms) {
  remove_expired_segments();
  if (session_end_ms <= observed_stream_time_ms_ - retention_period_ms_) return ValueBytes{};
  auto keys = end_time_map_.find(session_end_ms);
  if (keys == end_time_map_.end()) return ValueBytes{};
  auto starts = keys->second.find(key);
  if (starts == keys->second.end()) return ValueBytes{};
  auto it = starts->second.find(session_start_ms);
  if (it == starts->second.end()) return ValueBytes{};
  return ValueBytes(it->second);
}

StoreResult<SessionBytesIterator> InMemorySessionStore::find_sessions(
    const Bytes& key, int64_t earliest_session_end_ms, int64_t latest_session_start_ms,
    bool forward) {
  remove_expired_segments();
  SessionBytesIterator out{{}, IteratorOrigin::InMemoryIterator};
  auto emit = [&](int64_t end, const StartMap& starts) {
    // headMap(latestSessionStartTime, inclusive): forward reads it descending (the quirk).
    auto last = starts.upper_bound(latest_session_start_ms);
    if (forward) {
      for (auto it = std::make_reverse_iterator(last); it != starts.rend(); ++it)
        out.entries.push_back({Windowed<Bytes>{key, it->first, end}, it->second});
    } else {
      for (auto it = starts.begin(); it != last; ++it)
        out.entries.push_back({Windowed<Bytes>{key, it->first, end}, it->second});
    }
  };
  auto first = end_time_map_.lower_bound(earliest_session_end_ms);
  if (forward) {
    for (auto e = first; e != end_time_map_.end(); ++e) {
      auto k = e->second.find(key);
      if (k != e->second.end()) emit(e->first, k->second);
    }
  } else {
    for (auto e = end_time_map_.rbegin(); e != std::make_reverse_iterator(first); ++e) {
      auto k = e->second.find(key);
      if (k != e->second.end()) emit(e->first, k->second);
    }
  }
  return out;
}

std::vector<int64_t> InMemorySessionStore::end_times() const {
  std::vector<int64_t> out;
  for (const auto& [end, keys] : end_time_map_) out.push_back(end);
  return out;
}

// Kafka quirk 21 (shared with the in-memory window store): the live floor is clamped at 0, so a
// session ending before 0 is removed by the next operation whatever the retention. (Kafka also
// keeps end times an open iterator still reads; iqsim's iterators are materialized.)
void InMemorySessionStore::remove_expired_segments() {
  const int64_t min_live_time =
      std::max<int64_t>(0, observed_stream_time_ms_ - retention_period_ms_ + 1);
  end_time_map_.erase(end_time_map_.begin(), end_time_map_.lower_bound(min_live_time));
}

// Each changelog key is SessionKeySchema's [key][end][start]; restore goes through put() (which
// drops sessions expired by the stream time the restore reached), then merges the position.
Status InMemorySessionStore::restore_batch(const std::vector<ConsumerRecord>& records) {
  for (const auto& record : records) {
    if (!record.key) continue;
    auto s = put(session_key_schema::from(*record.key), record.value);
    if (!s) return s;
    s = store_query_utils::apply_checks_and_update_position(record, consistency_enabled_,
                                                            position_);
    if (!s) return s;
  }
  return ok_status();
}

}  // namespace iq
