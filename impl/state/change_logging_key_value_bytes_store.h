#pragma once
// ChangeLoggingKeyValueBytesStore and ChangeLoggingTimestampedKeyValueBytesStore
// (SI/ChangeLogging*.java): every write is applied to the store below FIRST, then sent to the
// store's changelog partition with the inner store's full position after the write (the header
// only appears when the consistency switch is on; ProcessorContextImpl decides).

#include "state/wrapped_state_store.h"

namespace iq {

class ChangeLoggingKeyValueBytesStore : public WrappedKeyValueBytesStore {
 public:
  explicit ChangeLoggingKeyValueBytesStore(std::unique_ptr<KeyValueBytesStore> wrapped)
      : WrappedKeyValueBytesStore(std::move(wrapped)) {}

  Status init(StateStoreContext& context, StateStore& root) override;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.ChangeLoggingKeyValueBytesStore";
  }

  Status put(const Bytes& key, const ValueBytes& value) override;
  StoreResult<ValueBytes> put_if_absent(const Bytes& key, const ValueBytes& value) override;
  Status put_all(const std::vector<KeyValueBytes>& entries) override;
  // Logs a tombstone even when the key was absent.
  StoreResult<ValueBytes> delete_key(const Bytes& key) override;
  // KIP-892: readOnly(level) is the store below's (nothing to log on a read).
  ReadOnlyKeyValueBytes& read_only(IsolationLevel level) override {
    return wrapped().read_only(level);
  }

 protected:
  Status log(const Bytes& key, const ValueBytes& value, int64_t timestamp);
  // context.timestamp(): the current record's timestamp, 0 with no record context.
  int64_t context_timestamp() const;
  // The value and timestamp that go to the changelog for a value written to the store below.
  virtual std::pair<ValueBytes, int64_t> changelog_value(const ValueBytes& stored) const {
    return {stored, context_timestamp()};
  }

  StateStoreContext* context_ = nullptr;
};

// The timestamped variant: the store holds [timestamp][value]; the changelog gets the plain value
// with the embedded timestamp as the record timestamp.
class ChangeLoggingTimestampedKeyValueBytesStore final : public ChangeLoggingKeyValueBytesStore {
 public:
  using ChangeLoggingKeyValueBytesStore::ChangeLoggingKeyValueBytesStore;
  std::string_view java_class() const override {
    return "class "
           "org.apache.kafka.streams.state.internals.ChangeLoggingTimestampedKeyValueBytesStore";
  }

 protected:
  std::pair<ValueBytes, int64_t> changelog_value(const ValueBytes& stored) const override;
};

}  // namespace iq
