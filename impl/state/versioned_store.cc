#include "state/versioned_store.h"

#include "state/state_store_context.h"

namespace iq {

Status ChangeLoggingVersionedKeyValueBytesStore::init(StateStoreContext& context,
                                                      StateStore& root) {
  if (auto s = wrapped_->init(context, root); !s) return s;
  context_ = &context;
  return ok_status();
}

StoreResult<int64_t> ChangeLoggingVersionedKeyValueBytesStore::put(const Bytes& key,
                                                                   const ValueBytes& value,
                                                                   int64_t timestamp_ms) {
  auto valid_to = wrapped_->put(key, value, timestamp_ms);
  if (!valid_to) return valid_to;
  if (auto s = log(key, value, timestamp_ms); !s) return base::unexpected(s.error());
  return valid_to;
}

StoreResult<ValueBytes> ChangeLoggingVersionedKeyValueBytesStore::delete_key(const Bytes& key,
                                                                             int64_t timestamp_ms) {
  auto old = wrapped_->delete_key(key, timestamp_ms);
  if (!old) return old;
  if (auto s = log(key, std::nullopt, timestamp_ms); !s) return base::unexpected(s.error());
  return old;
}

Status ChangeLoggingVersionedKeyValueBytesStore::log(const Bytes& key, const ValueBytes& value,
                                                     int64_t timestamp_ms) {
  IQ_ASSERT(context_ != nullptr, "change-logging store {} written before init", name());
  // Kafka quirk 13 (versioned_store.h): logged even when the store below dropped the write.
  return context_->log_change(name(), key, value, timestamp_ms, wrapped_->position());
}

}  // namespace iq
