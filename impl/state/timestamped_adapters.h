#pragma once
// The two ways the timestamped builder makes a plain supplier store look timestamped:
// - KeyValueToTimestampedKeyValueByteStoreAdapter, for persistent plain stores (a plain RocksDB
//   store behind the DSL): timestamps are dropped on write and read back as -1.
// - InMemoryTimestampedKeyValueStoreMarker, for non-persistent ones: a pass-through that declares
//   the store timestamped, so the [timestamp][value] bytes are kept as they are.

#include "state/wrapped_state_store.h"

namespace iq {

class KeyValueToTimestampedKeyValueByteStoreAdapter final : public WrappedKeyValueBytesStore {
 public:
  explicit KeyValueToTimestampedKeyValueByteStoreAdapter(std::unique_ptr<KeyValueBytesStore> plain);

  bool is_timestamped() const override {
    return false;
  }  // KAFKA-16141: not a TimestampedBytesStore
  bool is_adapter() const override { return true; }
  std::string_view java_class() const override {
    return "class "
           "org.apache.kafka.streams.state.internals.KeyValueToTimestampedKeyValueByteStoreAdapter";
  }
  Status init(StateStoreContext& context, StateStore& root) override;
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override;

  Status put(const Bytes& key, const ValueBytes& value_and_timestamp) override;
  StoreResult<ValueBytes> put_if_absent(const Bytes& key,
                                        const ValueBytes& value_and_timestamp) override;
  Status put_all(const std::vector<KeyValueBytes>& entries) override;
  StoreResult<ValueBytes> delete_key(const Bytes& key) override;
  StoreResult<ValueBytes> get(const Bytes& key) override;
  StoreResult<BytesIterator> range(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                                   bool reverse) override;
  StoreResult<BytesIterator> all(bool reverse) override;

 private:
  KafkaPin pin_ = KafkaPin::k2024_10_25;
};

class InMemoryTimestampedKeyValueStoreMarker final : public WrappedKeyValueBytesStore {
 public:
  using WrappedKeyValueBytesStore::WrappedKeyValueBytesStore;
  bool is_timestamped() const override { return true; }
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.InMemoryTimestampedKeyValueStoreMarker";
  }
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    auto result = wrapped().query(q, bound, config);
    if (result && config.is_collect_execution_info()) {
      result->add_execution_info(store_query_utils::execution_info(java_class()));
    }
    return result;
  }
};

}  // namespace iq
