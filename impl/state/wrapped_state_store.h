#pragma once
// WrappedKeyValueBytesStore (Kafka's WrappedStateStore over a KeyValueStore<Bytes, byte[]>): a
// layer that owns the store below it and passes everything through; layers override what they
// change. Position, persistence and timestamped-ness are the inner store's.

#include <memory>

#include "state/state_store.h"
#include "state/store_query_utils.h"

namespace iq {

class WrappedKeyValueBytesStore : public KeyValueBytesStore {
 public:
  explicit WrappedKeyValueBytesStore(std::unique_ptr<KeyValueBytesStore> wrapped)
      : wrapped_(std::move(wrapped)) {
    IQ_ASSERT(wrapped_ != nullptr);
  }

  const std::string& name() const override { return wrapped_->name(); }
  Status init(StateStoreContext& context, StateStore& root) override {
    return wrapped_->init(context, root);
  }
  Status flush() override { return wrapped_->flush(); }
  void close() override { wrapped_->close(); }
  bool persistent() const override { return wrapped_->persistent(); }
  bool is_open() const override { return wrapped_->is_open(); }
  Position position() const override { return wrapped_->position(); }
  bool is_timestamped() const override { return wrapped_->is_timestamped(); }
  bool is_adapter() const override { return wrapped_->is_adapter(); }

  // WrappedStateStore.query: pass down, then note this layer in the execution info.
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    auto result = wrapped_->query(q, bound, config);
    if (result && config.is_collect_execution_info()) {
      result->add_execution_info(store_query_utils::execution_info(java_class()) +
                                 " via WrappedStateStore");
    }
    return result;
  }

  Status put(const Bytes& key, const ValueBytes& value) override {
    return wrapped_->put(key, value);
  }
  StoreResult<ValueBytes> put_if_absent(const Bytes& key, const ValueBytes& value) override {
    return wrapped_->put_if_absent(key, value);
  }
  Status put_all(const std::vector<KeyValueBytes>& entries) override {
    return wrapped_->put_all(entries);
  }
  StoreResult<ValueBytes> delete_key(const Bytes& key) override {
    return wrapped_->delete_key(key);
  }
  StoreResult<ValueBytes> get(const Bytes& key) override { return wrapped_->get(key); }
  StoreResult<BytesIterator> range(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                                   bool reverse) override {
    return wrapped_->range(from, to, reverse);
  }
  StoreResult<BytesIterator> all(bool reverse) override { return wrapped_->all(reverse); }
  int64_t approximate_num_entries() override { return wrapped_->approximate_num_entries(); }

  KeyValueBytesStore& wrapped() { return *wrapped_; }
  const KeyValueBytesStore& wrapped() const { return *wrapped_; }

 private:
  std::unique_ptr<KeyValueBytesStore> wrapped_;
};

}  // namespace iq
