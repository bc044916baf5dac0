#pragma once
// InMemoryKeyValueStore (SI/InMemoryKeyValueStore.java): an ordered map of bytes. Not persistent:
// its position is never written to disk, so a restart starts from an empty position.

#include <map>

#include "state/state_store.h"
#include "state/state_store_context.h"
#include "state/store_query_utils.h"

namespace iq {

class InMemoryKeyValueStore final : public KeyValueBytesStore {
 public:
  explicit InMemoryKeyValueStore(std::string name) : name_(std::move(name)) {}

  const std::string& name() const override { return name_; }
  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override { return ok_status(); }
  // Clears the data but, as in Kafka, not the position (docs/iqv2-semantics.md §8).
  void close() override {
    map_.clear();
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
    return "class org.apache.kafka.streams.state.internals.InMemoryKeyValueStore";
  }

  Status put(const Bytes& key, const ValueBytes& value) override;
  StoreResult<ValueBytes> put_if_absent(const Bytes& key, const ValueBytes& value) override;
  Status put_all(const std::vector<KeyValueBytes>& entries) override;
  StoreResult<ValueBytes> delete_key(const Bytes& key) override;
  StoreResult<ValueBytes> get(const Bytes& key) override;
  StoreResult<BytesIterator> range(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                                   bool reverse) override;
  StoreResult<BytesIterator> all(bool reverse) override {
    return range(std::nullopt, std::nullopt, reverse);
  }
  int64_t approximate_num_entries() override { return static_cast<int64_t>(map_.size()); }
  // The query path's reads, as views of the map's own bytes.
  Status get_into(const Bytes& key, RawValueSink& sink) override;
  StoreResult<IteratorOrigin> range_into(const std::optional<Bytes>& from,
                                         const std::optional<Bytes>& to, bool reverse,
                                         RawEntrySink& sink) override;

 private:
  Status restore_batch(const std::vector<ConsumerRecord>& records);

  std::string name_;
  std::map<Bytes, Bytes> map_;
  Position position_ = Position::empty_position();
  StateStoreContext* context_ = nullptr;
  bool consistency_enabled_ = false;
  bool open_ = false;
};

}  // namespace iq
