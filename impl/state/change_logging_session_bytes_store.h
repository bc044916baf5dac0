#pragma once
// ChangeLoggingSessionBytesStore (SI/ChangeLoggingSessionBytesStore.java): every put and remove
// is applied below FIRST, then logged under SessionKeySchema's [key][end][start] with the record
// timestamp of the current context and the inner store's position after the write. A remove is
// logged as a tombstone even when it removed nothing.

#include "state/session_store.h"

namespace iq {

class ChangeLoggingSessionBytesStore final : public WrappedSessionBytesStore {
 public:
  using WrappedSessionBytesStore::WrappedSessionBytesStore;

  Status init(StateStoreContext& context, StateStore& root) override;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.ChangeLoggingSessionBytesStore";
  }
  Status put(const Windowed<Bytes>& session, const ValueBytes& value) override;
  Status remove(const Windowed<Bytes>& session) override;

 private:
  Status log(const Windowed<Bytes>& session, const ValueBytes& value);

  StateStoreContext* context_ = nullptr;
};

}  // namespace iq
