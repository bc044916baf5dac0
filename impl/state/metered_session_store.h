#pragma once
// MeteredSessionStore<K, V> (SI/MeteredSessionStore.java): the typed outermost session layer. It
// serializes what processors write and read, and handles one query class, WindowRangeQuery:
// withKey(k) goes down as a raw withKey query and its sessions come back as
// KeyValueIterator<Windowed<K>, V>; the window-start form fails HERE with UNKNOWN_QUERY_TYPE,
// Kafka's message ("SessionStores only support WindowRangeQuery.withKey") and no position. Every
// other query class passes down unchanged, so KeyQuery, RangeQuery and WindowKeyQuery reach the
// position owner, which checks the bound and answers UNKNOWN_QUERY_TYPE. Session values are never
// timestamped. Metrics are not modelled.

#include <memory>

#include "base/probe.h"
#include "iq/window_range_query.h"
#include "state/metered_key_value_store.h"
#include "state/session_store.h"
#include "state/wrapped_state_store.h"

namespace iq {

template <typename K, typename V>
class MeteredSessionStore final : public WrappedStateStore<SessionBytesStore, StateStore> {
 public:
  explicit MeteredSessionStore(std::unique_ptr<SessionBytesStore> wrapped)
      : WrappedStateStore(std::move(wrapped)) {}

  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.MeteredSessionStore";
  }

  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    const auto* rq = dynamic_cast<const WindowRangeQuery<K, V>*>(&q);
    if (rq == nullptr) {  // no handler: straight through, typed as it is
      auto result = wrapped().query(q, bound, config);
      if (result && config.is_collect_execution_info())
        result->add_execution_info(store_query_utils::execution_info(java_class()));
      return result;
    }
    auto result = run_range_query(*rq, bound, config);
    if (result && config.is_collect_execution_info()) {
      result->add_execution_info(
          store_query_utils::execution_info(java_class()) + " with serdes " +
          java_object_string("org.apache.kafka.streams.state.StateSerdes", name()));
    }
    return result;
  }

  // The typed API processors use.
  [[nodiscard]] Status put(const Windowed<K>& session, const std::optional<V>& value) {
    return wrapped().put(raw(session),
                         value ? ValueBytes(Serde<V>::serialize(*value)) : ValueBytes{});
  }
  [[nodiscard]] Status remove(const Windowed<K>& session) { return wrapped().remove(raw(session)); }
  [[nodiscard]] StoreResult<std::optional<V>> fetch_session(const K& key, int64_t start_ms,
                                                            int64_t end_ms) {
    auto v = wrapped().fetch_session(Serde<K>::serialize(key), start_ms, end_ms);
    if (!v) return base::unexpected(v.error());
    if (!v->has_value()) return std::optional<V>{};
    return std::optional<V>(Serde<V>::deserialize(**v));
  }
  [[nodiscard]] StoreResult<KeyValueIterator<Windowed<K>, V>> find_sessions(
      const K& key, int64_t earliest_session_end_ms, int64_t latest_session_start_ms,
      bool forward = true) {
    return typed(wrapped().find_sessions(Serde<K>::serialize(key), earliest_session_end_ms,
                                         latest_session_start_ms, forward));
  }
  [[nodiscard]] StoreResult<KeyValueIterator<Windowed<K>, V>> fetch(const K& key,
                                                                    bool forward = true) {
    return typed(wrapped().fetch(Serde<K>::serialize(key), forward));
  }

 private:
  static Windowed<Bytes> raw(const Windowed<K>& s) {
    return {Serde<K>::serialize(s.key), s.start_ms, s.end_ms};
  }
  static KeyValueIterator<Windowed<K>, V> typed_entries(const SessionBytesIterator& it) {
    KeyValueIterator<Windowed<K>, V> out{{}, it.origin};
    out.entries.reserve(it.entries.size());
    for (const auto& e : it.entries) {
      out.entries.push_back(
          {Windowed<K>{Serde<K>::deserialize(e.key.key), e.key.start_ms, e.key.end_ms},
           Serde<V>::deserialize(e.value)});
    }
    return out;
  }
  static StoreResult<KeyValueIterator<Windowed<K>, V>> typed(StoreResult<SessionBytesIterator> r) {
    if (!r) return base::unexpected(r.error());
    return typed_entries(*r);
  }

  // runRangeQuery: withKey only.
  QueryOutcome run_range_query(const WindowRangeQuery<K, V>& typed_query,
                               const PositionBound& bound, const QueryConfig& config) {
    if (!typed_query.key()) {
      IQ_PROBE("session.window_start_range_rejected",
               "a session store rejected WindowRangeQuery.withWindowStartRange");
      return QueryResult::for_failure(
          FailureReason::UNKNOWN_QUERY_TYPE,
          store_query_utils::session_range_with_time_message(java_class(), typed_query));
    }
    const auto raw_query =
        WindowRangeQuery<Bytes, Bytes>::with_key(Serde<K>::serialize(*typed_query.key()));
    auto result = wrapped().query(raw_query, bound, config);
    if (!result || result->is_failure()) return result;
    return result->with_substituted_result(
        typed_entries(result->template result<SessionBytesIterator>()));
  }
};

}  // namespace iq
