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
  pin_ = context.kafka_pin();
  // pin delta 5: enable.transactional.statestores, read at every init (true only at the new pin).
  if (context.transactional_state_stores()) {
    buffer_ = std::make_unique<SessionTransactionBuffer>();
  } else {
    buffer_.reset();
  }
  return ok_status();
}

// pin delta 7: the staged position (committed + pending, a copy) when transactional.
Position InMemorySessionStore::position() const {
  return buffer_ ? buffer_->staged_over(position_) : position_;
}

// pin delta 7 (§3.3): READ_UNCOMMITTED on a transactional store is bounded by and labelled with
// the staged position; READ_COMMITTED (and any level on a non-transactional store) with the
// committed one.
QueryOutcome InMemorySessionStore::query(const Query& q, const PositionBound& bound,
                                         const QueryConfig& config) {
  if (buffer_ && config.isolation_level() == IsolationLevel::READ_UNCOMMITTED) {
    return store_query_utils::handle_basic_queries(q, bound, config, *this, position(), context_);
  }
  return store_query_utils::handle_basic_queries(q, bound, config, *this, position_, context_);
}

// commit: the pending position into the committed one, then the staged writes into the map
// (flushToBase).
Status InMemorySessionStore::commit(const ChangelogOffsets& /*offsets*/) {
  if (!buffer_) return ok_status();
  buffer_->merge_pending_position_into(position_);
  return buffer_->commit([this](const SessionTransactionBuffer::Writes& staged) -> Status {
    for (const auto& [entry, value] : staged) {
      const Windowed<Bytes> session{entry.key, entry.start, entry.end};
      if (value) {
        put_internal(session, value);
      } else {
        remove_from_base(session);
      }
    }
    return ok_status();
  });
}

void InMemorySessionStore::put_internal(const Windowed<Bytes>& session, const ValueBytes& value) {
  if (value) {
    end_time_map_[session.end_ms][session.key].insert_or_assign(session.start_ms, *value);
  } else {
    remove_from_base(session);
  }
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
  } else if (buffer_) {
    buffer_->stage({end, session.key, session.start_ms}, value);  // pin delta 5
  } else {
    put_internal(session, value);
  }
  if (buffer_) {
    buffer_->update_position(context_);
  } else {
    store_query_utils::update_position(position_, context_);
  }
  return ok_status();
}

// remove() neither expires nor advances the position (only put does); a transactional store
// stages a tombstone.
Status InMemorySessionStore::remove(const Windowed<Bytes>& session) {
  if (buffer_) {
    buffer_->stage({session.end_ms, session.key, session.start_ms}, std::nullopt);
    return ok_status();
  }
  remove_from_base(session);
  return ok_status();
}

void InMemorySessionStore::remove_from_base(const Windowed<Bytes>& session) {
  auto keys = end_time_map_.find(session.end_ms);
  if (keys == end_time_map_.end()) return;
  auto starts = keys->second.find(session.key);
  if (starts == keys->second.end()) return;
  starts->second.erase(session.start_ms);
  if (starts->second.empty()) {
    keys->second.erase(starts);
    if (keys->second.empty()) end_time_map_.erase(keys);
  }
}

StoreResult<ValueBytes> InMemorySessionStore::fetch_session(const Bytes& key,
                                                            int64_t session_start_ms,
                                                            int64_t session_end_ms) {
  remove_expired_segments();
  if (session_end_ms <= observed_stream_time_ms_ - retention_period_ms_) return ValueBytes{};
  if (buffer_) {
    if (const ValueBytes* staged = buffer_->get({session_end_ms, key, session_start_ms}))
      return *staged;
  }
  auto keys = end_time_map_.find(session_end_ms);
  if (keys == end_time_map_.end()) return ValueBytes{};
  auto starts = keys->second.find(key);
  if (starts == keys->second.end()) return ValueBytes{};
  auto it = starts->second.find(session_start_ms);
  if (it == starts->second.end()) return ValueBytes{};
  return ValueBytes(it->second);
}

InMemorySessionStore::EndTimeMap InMemorySessionStore::staged_view_of(const Bytes& key,
                                                                      int64_t earliest_end) const {
  EndTimeMap view;
  for (auto e = end_time_map_.lower_bound(earliest_end); e != end_time_map_.end(); ++e) {
    auto k = e->second.find(key);
    if (k != e->second.end()) view[e->first].emplace(key, k->second);
  }
  const int64_t oldest_retained_end = observed_stream_time_ms_ - retention_period_ms_;
  const auto staged = buffer_->staging_snapshot(
      SessionEntryKey{earliest_end, Bytes(), std::numeric_limits<int64_t>::max()}, std::nullopt,
      /*to_inclusive=*/true, IsolationLevel::READ_UNCOMMITTED);
  for (const auto& [entry, value] : staged) {
    if (entry.key != key || entry.end <= oldest_retained_end) continue;
    if (value) {
      view[entry.end][key].insert_or_assign(entry.start, *value);
      continue;
    }
    auto keys = view.find(entry.end);
    if (keys == view.end()) continue;
    auto starts = keys->second.find(key);
    if (starts == keys->second.end()) continue;
    starts->second.erase(entry.start);
    if (starts->second.empty()) view.erase(keys);
  }
  return view;
}

StoreResult<SessionBytesIterator> InMemorySessionStore::find_sessions_at(
    const Bytes& key, int64_t earliest_session_end_ms, int64_t latest_session_start_ms,
    bool forward, IsolationLevel level) {
  remove_expired_segments();
  EndTimeMap staged_view;
  const EndTimeMap* map = &end_time_map_;
  if (buffer_ && level == IsolationLevel::READ_UNCOMMITTED && !buffer_->is_empty()) {
    staged_view = staged_view_of(key, earliest_session_end_ms);
    map = &staged_view;
  }
  const EndTimeMap& end_time_map = *map;
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
  auto first = end_time_map.lower_bound(earliest_session_end_ms);
  if (forward) {
    for (auto e = first; e != end_time_map.end(); ++e) {
      auto k = e->second.find(key);
      if (k != e->second.end()) emit(e->first, k->second);
    }
  } else {
    for (auto e = end_time_map.rbegin(); e != std::make_reverse_iterator(first); ++e) {
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
// pin delta 5 (d2328ff720): at the new pin the restore writes the map directly (restored records
// are committed, never staged), drops expired sessions as put does, applies no record context to
// the position, and removes expired end times once per batch.
Status InMemorySessionStore::restore_batch(const std::vector<ConsumerRecord>& records) {
  if (at_least(pin_, KafkaPin::k2026_08_20)) {
    for (const auto& record : records) {
      if (!record.key) continue;
      const Windowed<Bytes> session = session_key_schema::from(*record.key);
      observed_stream_time_ms_ = std::max(observed_stream_time_ms_, session.end_ms);
      if (session.end_ms > observed_stream_time_ms_ - retention_period_ms_) {
        put_internal(session, record.value);
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
    auto s = put(session_key_schema::from(*record.key), record.value);
    if (!s) return s;
    s = store_query_utils::apply_checks_and_update_position(record, consistency_enabled_,
                                                            position_);
    if (!s) return s;
  }
  return ok_status();
}

}  // namespace iq
