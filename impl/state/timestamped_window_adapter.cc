#include "state/timestamped_window_adapter.h"

namespace iq {
namespace {

template <typename It>
StoreResult<It> with_timestamps(StoreResult<It> inner) {
  if (!inner) return inner;
  for (auto& e : inner->entries)
    e.value = *timestamped_bytes::convert_to_timestamped_format(e.value);
  inner->origin = IteratorOrigin::Converted;
  return inner;
}

}  // namespace

WindowToTimestampedWindowByteStoreAdapter::WindowToTimestampedWindowByteStoreAdapter(
    std::unique_ptr<WindowBytesStore> store)
    : store_(std::move(store)) {
  IQ_ASSERT(store_ != nullptr);
  // Kafka throws IllegalArgumentException("Provided store must be a persistent store, but it is
  // not."); the builders only ever pass a persistent store, so here it is a programmer error.
  IQ_ASSERT(store_->persistent(), "the window adapter needs a persistent store: {}",
            store_->name());
}

QueryOutcome WindowToTimestampedWindowByteStoreAdapter::query(const Query& q,
                                                              const PositionBound& bound,
                                                              const QueryConfig& config) {
  auto result = store_->query(q, bound, config);
  if (result && config.is_collect_execution_info())
    result->add_execution_info(store_query_utils::execution_info(java_class()));
  return result;
}

Status WindowToTimestampedWindowByteStoreAdapter::put(const Bytes& key, const ValueBytes& value,
                                                      int64_t window_start_ms) {
  return store_->put(key, timestamped_bytes::raw_value(value), window_start_ms);
}

StoreResult<ValueBytes> WindowToTimestampedWindowByteStoreAdapter::fetch(const Bytes& key,
                                                                         int64_t window_start_ms) {
  auto plain = store_->fetch(key, window_start_ms);
  if (!plain) return plain;
  return timestamped_bytes::convert_to_timestamped_format(*plain);
}

StoreResult<WindowStoreBytesIterator> WindowToTimestampedWindowByteStoreAdapter::fetch(
    const Bytes& key, int64_t time_from_ms, int64_t time_to_ms, bool forward) {
  return with_timestamps(store_->fetch(key, time_from_ms, time_to_ms, forward));
}

StoreResult<WindowedBytesIterator> WindowToTimestampedWindowByteStoreAdapter::fetch_all(
    int64_t time_from_ms, int64_t time_to_ms, bool forward) {
  return with_timestamps(store_->fetch_all(time_from_ms, time_to_ms, forward));
}

StoreResult<WindowedBytesIterator> WindowToTimestampedWindowByteStoreAdapter::all(bool forward) {
  return with_timestamps(store_->all(forward));
}

}  // namespace iq
