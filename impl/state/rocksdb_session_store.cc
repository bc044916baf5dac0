#include "state/rocksdb_session_store.h"

namespace iq {

RocksDBSessionStore::RocksDBSessionStore(std::string name, int64_t retention_period_ms,
                                         int64_t segment_interval_ms)
    : bytes_store_(std::move(name), retention_period_ms, segment_interval_ms,
                   SegmentKeySchema::kSession, /*timestamped=*/false) {}

Status RocksDBSessionStore::init(StateStoreContext& context, StateStore& root) {
  if (auto s = bytes_store_.init(context, root); !s) return s;
  context_ = &context;
  return ok_status();
}

StoreResult<SessionBytesIterator> RocksDBSessionStore::find_sessions_at(
    const Bytes& key, int64_t earliest_session_end_ms, int64_t latest_session_start_ms,
    bool forward, IsolationLevel level) {
  auto raw =
      bytes_store_.fetch(key, earliest_session_end_ms, latest_session_start_ms, forward, level);
  if (!raw) return base::unexpected(raw.error());
  SessionBytesIterator out{{}, IteratorOrigin::RocksDbIterator};
  out.entries.reserve(raw->size());
  for (auto& e : *raw) out.entries.push_back({session_key_schema::from(e.key), std::move(e.value)});
  return out;
}

}  // namespace iq
