#include "state/change_logging_window_bytes_store.h"

#include "state/state_store_context.h"

namespace iq {

Status ChangeLoggingWindowBytesStore::init(StateStoreContext& context, StateStore& root) {
  context_ = &context;
  return WrappedWindowBytesStore::init(context, root);
}

int64_t ChangeLoggingWindowBytesStore::context_timestamp() const {
  const RecordContext* rc = context_ != nullptr ? context_->record_context() : nullptr;
  return rc != nullptr ? rc->timestamp : 0;
}

// The put is logged even when the store below dropped it as expired: Kafka logs every put.
Status ChangeLoggingWindowBytesStore::put(const Bytes& key, const ValueBytes& value,
                                          int64_t window_start_ms) {
  IQ_ASSERT(context_ != nullptr, "change-logging window store {} written before init", name());
  auto s = wrapped().put(key, value, window_start_ms);
  if (!s) return s;
  if (retain_duplicates_) seqnum_ = (seqnum_ + 1) & 0x7FFFFFFF;
  auto [logged, ts] = changelog_value(value);
  return context_->log_change(name(),
                              window_key_schema::to_store_key_binary(key, window_start_ms, seqnum_),
                              logged, ts, wrapped().position());
}

}  // namespace iq
