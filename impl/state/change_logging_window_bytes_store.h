#pragma once
// ChangeLoggingWindowBytesStore and ChangeLoggingTimestampedWindowBytesStore
// (SI/ChangeLogging*WindowBytesStore.java): every put is applied below FIRST, then logged under
// the WindowKeySchema store key [key][window start][seqnum] with the inner store's position
// after the write. The seqnum is this layer's own counter, advanced only with retainDuplicates
// (otherwise always 0); it is independent of the in-memory store's counter.

#include "state/window_store.h"

namespace iq {

class ChangeLoggingWindowBytesStore : public WrappedWindowBytesStore {
 public:
  ChangeLoggingWindowBytesStore(std::unique_ptr<WindowBytesStore> wrapped, bool retain_duplicates)
      : WrappedWindowBytesStore(std::move(wrapped)), retain_duplicates_(retain_duplicates) {}

  Status init(StateStoreContext& context, StateStore& root) override;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.ChangeLoggingWindowBytesStore";
  }
  Status put(const Bytes& key, const ValueBytes& value, int64_t window_start_ms) override;

 protected:
  // context.timestamp(): the current record's timestamp, 0 with no record context.
  int64_t context_timestamp() const;
  // The value and record timestamp that go to the changelog for a value written below.
  virtual std::pair<ValueBytes, int64_t> changelog_value(const ValueBytes& stored) const {
    return {stored, context_timestamp()};
  }

 private:
  bool retain_duplicates_;
  int32_t seqnum_ = 0;
  StateStoreContext* context_ = nullptr;
};

// The timestamped variant: the store holds [timestamp][value]; the changelog gets the plain value
// with the embedded timestamp as the record timestamp.
class ChangeLoggingTimestampedWindowBytesStore final : public ChangeLoggingWindowBytesStore {
 public:
  using ChangeLoggingWindowBytesStore::ChangeLoggingWindowBytesStore;
  std::string_view java_class() const override {
    return "class "
           "org.apache.kafka.streams.state.internals.ChangeLoggingTimestampedWindowBytesStore";
  }

 protected:
  std::pair<ValueBytes, int64_t> changelog_value(const ValueBytes& stored) const override {
    if (!stored) return {std::nullopt, context_timestamp()};
    return {timestamped_bytes::raw_value(*stored), timestamped_bytes::timestamp(*stored)};
  }
};

}  // namespace iq
