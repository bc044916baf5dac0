#pragma once
// InMemoryWindowStore (SI/InMemoryWindowStore.java): window start -> (key -> value), ordered both
// ways. Retention is driven by the observed stream time, the largest window start ever put: a
// window whose start is at or below observedStreamTime - retention is expired. Not persistent:
// a restart rebuilds it from the changelog and starts from an empty position.
//
// With retainDuplicates every put gets a fresh 4-byte sequence number appended to its key, so
// nothing is overwritten and a null value is a no-op.

#include <map>

#include "state/state_store_context.h"
#include "state/window_store.h"

namespace iq {

class InMemoryWindowStore final : public WindowBytesStore {
 public:
  InMemoryWindowStore(std::string name, int64_t retention_period_ms, int64_t window_size_ms,
                      bool retain_duplicates);

  const std::string& name() const override { return name_; }
  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override { return ok_status(); }
  // Clears the data but not the position, as in Kafka.
  void close() override {
    segment_map_.clear();
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
    return "class org.apache.kafka.streams.state.internals.InMemoryWindowStore";
  }

  Status put(const Bytes& key, const ValueBytes& value, int64_t window_start_ms) override;
  StoreResult<ValueBytes> fetch(const Bytes& key, int64_t window_start_ms) override;
  StoreResult<WindowStoreBytesIterator> fetch(const Bytes& key, int64_t time_from_ms,
                                              int64_t time_to_ms, bool forward) override;
  StoreResult<WindowedBytesIterator> fetch_all(int64_t time_from_ms, int64_t time_to_ms,
                                               bool forward) override;
  StoreResult<WindowedBytesIterator> all(bool forward) override;

  int64_t observed_stream_time_ms() const { return observed_stream_time_ms_; }
  // The window starts held, ascending (for tests of expiry).
  std::vector<int64_t> window_starts() const;

 private:
  using Segment = std::map<Bytes, Bytes>;
  Status restore_batch(const std::vector<ConsumerRecord>& records);
  void remove_expired_segments();
  int64_t fetch_floor(int64_t time_from_ms) const;
  // Entries of the windows in [min_time, max_time] whose key (without seqnum) is in
  // [key_from, key_to] (nullopt = open), in window order then key order, reversed if !forward.
  std::vector<std::pair<int64_t, KeyValue<Bytes, Bytes>>> scan(int64_t min_time, int64_t max_time,
                                                               const std::optional<Bytes>& key_from,
                                                               const std::optional<Bytes>& key_to,
                                                               bool forward) const;
  Bytes strip_seqnum(const Bytes& stored) const;

  std::string name_;
  int64_t retention_period_ms_;
  int64_t window_size_ms_;
  bool retain_duplicates_;
  std::map<int64_t, Segment> segment_map_;
  int32_t seqnum_ = 0;
  int64_t observed_stream_time_ms_ = -1;  // ConsumerRecord.NO_TIMESTAMP
  Position position_ = Position::empty_position();
  StateStoreContext* context_ = nullptr;
  bool consistency_enabled_ = false;
  bool open_ = false;
};

}  // namespace iq
