#include "state/change_logging_session_bytes_store.h"

#include "state/state_store_context.h"

namespace iq {

Status ChangeLoggingSessionBytesStore::init(StateStoreContext& context, StateStore& root) {
  context_ = &context;
  return WrappedSessionBytesStore::init(context, root);
}

Status ChangeLoggingSessionBytesStore::put(const Windowed<Bytes>& session,
                                           const ValueBytes& value) {
  auto s = wrapped().put(session, value);
  if (!s) return s;
  return log(session, value);
}

Status ChangeLoggingSessionBytesStore::remove(const Windowed<Bytes>& session) {
  auto s = wrapped().remove(session);
  if (!s) return s;
  return log(session, std::nullopt);
}

// context.timestamp(): the current record's timestamp, 0 with no record context.
Status ChangeLoggingSessionBytesStore::log(const Windowed<Bytes>& session,
                                           const ValueBytes& value) {
  IQ_ASSERT(context_ != nullptr, "change-logging session store {} written before init", name());
  const RecordContext* rc = context_->record_context();
  return context_->log_change(name(), session_key_schema::to_binary(session), value,
                              rc != nullptr ? rc->timestamp : 0, wrapped().position());
}

}  // namespace iq
