#pragma once
// InMemorySessionStore (SI/InMemorySessionStore.java): session end -> key -> session start ->
// aggregate. Retention follows the observed stream time, the largest session END ever put: a
// session whose end is at or below observedStreamTime - retention is dropped on put, and every
// operation first removes the end times below max(0, observedStreamTime - retention + 1).
// Not persistent: a restart rebuilds it from the changelog and starts from an empty position.
//
// Iteration order (findSessions / fetch): end times ascending, then keys ascending, then, Kafka
// quirk 23 (docs/iqv2-semantics.md §10), start times DESCENDING within one (end, key); backward
// reverses end times and keys and gives start times ascending.

#include <map>

#include "state/session_store.h"
#include "state/state_store_context.h"

namespace iq {

class InMemorySessionStore final : public SessionBytesStore {
 public:
  InMemorySessionStore(std::string name, int64_t retention_period_ms);

  const std::string& name() const override { return name_; }
  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override { return ok_status(); }
  // Clears the data but not the position, as in Kafka.
  void close() override {
    end_time_map_.clear();
    open_ = false;
  }
  bool persistent() const override { return false; }
  bool is_open() const override { return open_; }
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    return store_query_utils::handle_basic_queries(q, bound, config, *this, position_, context_);
  }
  Position position() const override { return position_; }
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.InMemorySessionStore";
  }

  Status put(const Windowed<Bytes>& session, const ValueBytes& value) override;
  Status remove(const Windowed<Bytes>& session) override;
  StoreResult<ValueBytes> fetch_session(const Bytes& key, int64_t session_start_ms,
                                        int64_t session_end_ms) override;
  StoreResult<SessionBytesIterator> find_sessions(const Bytes& key, int64_t earliest_session_end_ms,
                                                  int64_t latest_session_start_ms,
                                                  bool forward) override;

  int64_t observed_stream_time_ms() const { return observed_stream_time_ms_; }
  // The session end times held, ascending (for tests of expiry).
  std::vector<int64_t> end_times() const;

 private:
  using StartMap = std::map<int64_t, Bytes>;
  using KeyMap = std::map<Bytes, StartMap>;
  Status restore_batch(const std::vector<ConsumerRecord>& records);
  void remove_expired_segments();

  std::string name_;
  int64_t retention_period_ms_;
  std::map<int64_t, KeyMap> end_time_map_;
  int64_t observed_stream_time_ms_ = -1;  // ConsumerRecord.NO_TIMESTAMP
  Position position_ = Position::empty_position();
  StateStoreContext* context_ = nullptr;
  bool consistency_enabled_ = false;
  bool open_ = false;
};

}  // namespace iq
