#pragma once
// The bytes window store (WindowStore<Bytes, byte[]>) that every window layer below the typed one
// implements, the pass-through layer (WrappedStateStore over a window store), and the parts of
// WindowKeySchema that the changelog and the record cache use.

#include <limits>
#include <memory>

#include "iq/key_value_iterator.h"
#include "iq/serdes.h"
#include "iq/windowed.h"
#include "state/state_store.h"
#include "state/store_query_utils.h"
#include "state/wrapped_state_store.h"

namespace iq {

// WindowStoreIterator<byte[]>: (window start ms, value), ascending window start when forward.
using WindowStoreBytesIterator = KeyValueIterator<int64_t, Bytes>;
// KeyValueIterator<Windowed<Bytes>, byte[]>.
using WindowedBytesIterator = KeyValueIterator<Windowed<Bytes>, Bytes>;

// ReadOnlyWindowStore<Bytes, byte[]>: the reads IQv2 makes of a window store (StoreQueryUtils'
// runWindowKeyQuery and runWindowRangeQuery), which a window store is, and what
// WindowBytesStore::read_only(level) hands out.
class ReadOnlyWindowBytes {
 public:
  virtual ~ReadOnlyWindowBytes() = default;
  [[nodiscard]] virtual StoreResult<WindowStoreBytesIterator> fetch(const Bytes& key,
                                                                    int64_t time_from_ms,
                                                                    int64_t time_to_ms,
                                                                    bool forward) = 0;
  [[nodiscard]] virtual StoreResult<WindowedBytesIterator> fetch_all(int64_t time_from_ms,
                                                                     int64_t time_to_ms,
                                                                     bool forward) = 0;
};

class WindowBytesStore : public StateStore, public ReadOnlyWindowBytes {
 public:
  // KIP-892 (pin delta 5; docs/kafka-2026-08-20.md §3.4.3-4): WindowStore.readOnly(level), through
  // which StoreQueryUtils reads. The default is the store itself (both levels alike), which every
  // non-transactional store keeps; a transactional position owner returns its committed view for
  // READ_COMMITTED.
  virtual ReadOnlyWindowBytes& read_only(IsolationLevel /*level*/) { return *this; }
  // A null value deletes the (key, window) entry; a put into an expired window is dropped.
  [[nodiscard]] virtual Status put(const Bytes& key, const ValueBytes& value,
                                   int64_t window_start_ms) = 0;
  // The value of one window, or nullopt.
  [[nodiscard]] virtual StoreResult<ValueBytes> fetch(const Bytes& key,
                                                      int64_t window_start_ms) = 0;
  // The windows of `key` whose start lies in [time_from, time_to] and above the retention floor.
  [[nodiscard]] virtual StoreResult<WindowStoreBytesIterator> fetch(const Bytes& key,
                                                                    int64_t time_from_ms,
                                                                    int64_t time_to_ms,
                                                                    bool forward) = 0;
  // Every key's windows whose start lies in [time_from, time_to] above the retention floor.
  [[nodiscard]] virtual StoreResult<WindowedBytesIterator> fetch_all(int64_t time_from_ms,
                                                                     int64_t time_to_ms,
                                                                     bool forward) = 0;
  [[nodiscard]] virtual StoreResult<WindowedBytesIterator> all(bool forward) = 0;
};

// WindowKeySchema's store key: [key][8-byte big-endian window start][4-byte big-endian seqnum],
// what ChangeLoggingWindowBytesStore logs and restore reads back.
namespace window_key_schema {

inline constexpr size_t kTimestampSize = 8;
inline constexpr size_t kSeqnumSize = 4;

inline Bytes to_store_key_binary(const Bytes& key, int64_t window_start_ms, int32_t seqnum) {
  return Bytes(key.get() + serde_detail::to_big_endian(static_cast<uint64_t>(window_start_ms)) +
               serde_detail::to_big_endian(static_cast<uint32_t>(seqnum)));
}
inline Bytes extract_store_key_bytes(const Bytes& binary) {
  IQ_ASSERT(binary.size() >= kTimestampSize + kSeqnumSize, "window store key of {} bytes",
            binary.size());
  return Bytes(std::string(binary.view().substr(0, binary.size() - kTimestampSize - kSeqnumSize)));
}
inline int64_t extract_store_timestamp(const Bytes& binary) {
  IQ_ASSERT(binary.size() >= kTimestampSize + kSeqnumSize, "window store key of {} bytes",
            binary.size());
  return static_cast<int64_t>(serde_detail::from_big_endian<uint64_t>(
      binary.view().substr(binary.size() - kTimestampSize - kSeqnumSize, kTimestampSize)));
}
inline int32_t extract_store_sequence_number(const Bytes& binary) {
  IQ_ASSERT(binary.size() >= kTimestampSize + kSeqnumSize, "window store key of {} bytes",
            binary.size());
  return static_cast<int32_t>(serde_detail::from_big_endian<uint32_t>(
      binary.view().substr(binary.size() - kSeqnumSize, kSeqnumSize)));
}
// TimeWindow end for a window size, truncated to Long.MAX_VALUE on overflow as Kafka does.
inline int64_t window_end(int64_t start_ms, int64_t window_size_ms) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  return start_ms > max - window_size_ms ? max : start_ms + window_size_ms;
}

}  // namespace window_key_schema

// WrappedStateStore over a window store: owns the layer below and passes everything through.
class WrappedWindowBytesStore : public WrappedStateStore<WindowBytesStore> {
 public:
  using WrappedStateStore::WrappedStateStore;

  Status put(const Bytes& key, const ValueBytes& value, int64_t window_start_ms) override {
    return wrapped().put(key, value, window_start_ms);
  }
  StoreResult<ValueBytes> fetch(const Bytes& key, int64_t window_start_ms) override {
    return wrapped().fetch(key, window_start_ms);
  }
  StoreResult<WindowStoreBytesIterator> fetch(const Bytes& key, int64_t time_from_ms,
                                              int64_t time_to_ms, bool forward) override {
    return wrapped().fetch(key, time_from_ms, time_to_ms, forward);
  }
  StoreResult<WindowedBytesIterator> fetch_all(int64_t time_from_ms, int64_t time_to_ms,
                                               bool forward) override {
    return wrapped().fetch_all(time_from_ms, time_to_ms, forward);
  }
  StoreResult<WindowedBytesIterator> all(bool forward) override { return wrapped().all(forward); }
};

// InMemoryTimestampedWindowStoreMarker: what the timestamped builder puts over a non-persistent
// plain supplier, so the stack holds [timestamp][value] bytes natively.
class InMemoryTimestampedWindowStoreMarker final : public WrappedWindowBytesStore {
 public:
  using WrappedWindowBytesStore::WrappedWindowBytesStore;
  bool is_timestamped() const override { return true; }
  std::string_view java_class() const override {
    return "class "
           "org.apache.kafka.streams.state.internals.TimestampedWindowStoreBuilder$"
           "InMemoryTimestampedWindowStoreMarker";
  }
};

}  // namespace iq
