#pragma once
// WrappedStateStore (SI/WrappedStateStore.java): a layer that owns the store below it and passes
// the StateStore half through (lifecycle, position, persistence and the stack's traits, which are
// the inner store's); layers override what they change. WrappedKeyValueBytesStore is the
// pass-through layer over a KeyValueStore<Bytes, byte[]>; window_store.h and session_store.h hold
// the window and session ones, and the metered layers derive from it too, as in Kafka.

#include <memory>

#include "state/state_store.h"
#include "state/store_query_utils.h"

namespace iq {

// `Inner` is the store below; `Face` the interface this layer presents: the same bytes interface
// for the layers between the position owner and the typed one, StateStore for the typed (metered)
// layers, whose put/get speak K and V instead.
template <typename Inner, typename Face = Inner>
class WrappedStateStore : public Face {
 public:
  explicit WrappedStateStore(std::unique_ptr<Inner> wrapped) : wrapped_(std::move(wrapped)) {
    IQ_ASSERT(wrapped_ != nullptr);
  }

  const std::string& name() const override { return wrapped_->name(); }
  Status init(StateStoreContext& context, StateStore& root) override {
    return wrapped_->init(context, root);
  }
  Status flush() override { return wrapped_->flush(); }
  Status flush_cache() override { return wrapped_->flush_cache(); }
  void close() override { wrapped_->close(); }
  bool persistent() const override { return wrapped_->persistent(); }
  bool is_open() const override { return wrapped_->is_open(); }
  Position position() const override { return wrapped_->position(); }
  bool is_timestamped() const override { return wrapped_->is_timestamped(); }
  bool is_adapter() const override { return wrapped_->is_adapter(); }
  bool is_versioned() const override { return wrapped_->is_versioned(); }
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) override {
    return wrapped_->kept_entries(out);
  }
  bool manages_offsets() const override { return wrapped_->manages_offsets(); }
  Status commit(const ChangelogOffsets& offsets) override { return wrapped_->commit(offsets); }
  StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& changelog) override {
    return wrapped_->committed_offset(changelog);
  }
  int64_t approximate_num_uncommitted_bytes() const override {
    return wrapped_->approximate_num_uncommitted_bytes();
  }
  std::optional<Position> committed_position() const override {
    return wrapped_->committed_position();
  }
  std::optional<int64_t> observed_stream_time() const override {
    return wrapped_->observed_stream_time();
  }

  // WrappedStateStore.query: pass down, then note this layer in the execution info.
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    auto result = wrapped_->query(q, bound, config);
    if (result && config.is_collect_execution_info()) {
      result->add_execution_info(store_query_utils::execution_info(this->java_class()) +
                                 " via WrappedStateStore");
    }
    return result;
  }

  Inner& wrapped() { return *wrapped_; }
  const Inner& wrapped() const { return *wrapped_; }

 private:
  std::unique_ptr<Inner> wrapped_;
};

class WrappedKeyValueBytesStore : public WrappedStateStore<KeyValueBytesStore> {
 public:
  using WrappedStateStore::WrappedStateStore;

  Status put(const Bytes& key, const ValueBytes& value) override {
    return wrapped().put(key, value);
  }
  StoreResult<ValueBytes> put_if_absent(const Bytes& key, const ValueBytes& value) override {
    return wrapped().put_if_absent(key, value);
  }
  Status put_all(const std::vector<KeyValueBytes>& entries) override {
    return wrapped().put_all(entries);
  }
  StoreResult<ValueBytes> delete_key(const Bytes& key) override {
    return wrapped().delete_key(key);
  }
  StoreResult<ValueBytes> get(const Bytes& key) override { return wrapped().get(key); }
  StoreResult<BytesIterator> range(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                                   bool reverse) override {
    return wrapped().range(from, to, reverse);
  }
  StoreResult<BytesIterator> all(bool reverse) override { return wrapped().all(reverse); }
  int64_t approximate_num_entries() override { return wrapped().approximate_num_entries(); }
};

}  // namespace iq
