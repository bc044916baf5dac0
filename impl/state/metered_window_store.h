#pragma once
// MeteredWindowStore<K, V> and MeteredTimestampedWindowStore<K, V> (SI/MeteredWindowStore.java,
// SI/MeteredTimestampedWindowStore.java): the typed outermost window layer. It serializes what
// processors write, translates WindowKeyQuery and WindowRangeQuery into raw ones, deserializes
// their results, and passes every other query class down unchanged (so KeyQuery and RangeQuery
// reach the position owner, which checks the bound and answers UNKNOWN_QUERY_TYPE). Metrics are
// not modelled.
//
// Results: WindowKeyQuery gives KeyValueIterator<int64_t, V'> of (window start, value) and
// WindowRangeQuery KeyValueIterator<Windowed<K>, V'>, where V' is ValueAndTimestamp<V> when the
// stack below is timestamped and plain V otherwise (StoreQueryUtils.deserializeValue).

#include <memory>

#include "iq/window_key_query.h"
#include "iq/window_range_query.h"
#include "state/metered_key_value_store.h"
#include "state/window_store.h"
#include "state/wrapped_state_store.h"

namespace iq {

template <typename K, typename Stored, typename Codec>
class MeteredWindowStoreBase : public WrappedStateStore<WindowBytesStore, StateStore> {
 public:
  explicit MeteredWindowStoreBase(std::unique_ptr<WindowBytesStore> wrapped)
      : WrappedStateStore(std::move(wrapped)) {}

  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    std::optional<QueryOutcome> handled;
    if (const auto* kq = dynamic_cast<const WindowKeyQuery<K, ValueOf>*>(&q)) {
      handled = run_key_query(*kq, bound, config);
    } else if (const auto* rq = dynamic_cast<const WindowRangeQuery<K, ValueOf>*>(&q)) {
      handled = run_range_query(*rq, bound, config);
    }
    if (!handled) {  // unknown class: straight through, typed as it is
      auto result = wrapped().query(q, bound, config);
      if (result && config.is_collect_execution_info())
        result->add_execution_info(store_query_utils::execution_info(java_class()));
      return result;
    }
    if (*handled && config.is_collect_execution_info()) {
      (*handled)->add_execution_info(
          store_query_utils::execution_info(java_class()) + " with serdes " +
          java_object_string("org.apache.kafka.streams.state.StateSerdes", name()));
    }
    return std::move(*handled);
  }

  // The typed API processors use.
  [[nodiscard]] Status put(const K& key, const std::optional<Stored>& value,
                           int64_t window_start_ms) {
    return wrapped().put(Serde<K>::serialize(key), encode(value), window_start_ms);
  }
  [[nodiscard]] StoreResult<std::optional<Stored>> fetch(const K& key, int64_t window_start_ms) {
    auto raw = wrapped().fetch(Serde<K>::serialize(key), window_start_ms);
    if (!raw) return base::unexpected(raw.error());
    if (!raw->has_value()) return std::optional<Stored>{};
    return std::optional<Stored>(Codec::decode(**raw));
  }

 protected:
  // The V of the query classes this store answers (Stored without its timestamp).
  using ValueOf = typename Codec::Value;

 private:
  static ValueBytes encode(const std::optional<Stored>& v) {
    return v ? ValueBytes(Codec::encode(*v)) : std::nullopt;
  }

  // Deserializes each raw value with the stack's value form (deserializeValue), converting the
  // entries' keys with `key_of`.
  template <typename OutKey, typename RawIt, typename KeyOf>
  QueryOutcome typed_result(const QueryResult& raw, KeyOf key_of) {
    const auto& it = raw.template result<RawIt>();
    if (wrapped().is_timestamped() || wrapped().is_adapter()) {
      KeyValueIterator<OutKey, ValueAndTimestamp<ValueOf>> out{{}, it.origin};
      for (const auto& e : it.entries)
        out.entries.push_back({key_of(e.key), deserialize_value_and_timestamp<ValueOf>(e.value)});
      return raw.with_substituted_result(std::move(out));
    }
    KeyValueIterator<OutKey, ValueOf> out{{}, it.origin};
    for (const auto& e : it.entries)
      out.entries.push_back({key_of(e.key), Serde<ValueOf>::deserialize(e.value)});
    return raw.with_substituted_result(std::move(out));
  }

  // runKeyQuery: the raw query is rebuilt through the factory with (time_from(), time_to()),
  // which undoes the old pin's getter swap of window_key_query.h (the new pin has none).
  QueryOutcome run_key_query(const WindowKeyQuery<K, ValueOf>& typed, const PositionBound& bound,
                             const QueryConfig& config) {
    IQ_ASSERT(typed.time_from() && typed.time_to(), "the factory always sets both times");
    const auto raw = WindowKeyQuery<Bytes, Bytes>::with_key_and_window_start_range(
        Serde<K>::serialize(typed.key()), *typed.time_from(), *typed.time_to(), typed.kafka_pin());
    auto result = wrapped().query(raw, bound, config);
    if (!result || result->is_failure()) return result;
    return typed_result<int64_t, WindowStoreBytesIterator>(*result,
                                                           [](int64_t start) { return start; });
  }

  // runRangeQuery: only the time-range shape; withKey fails HERE, with no position.
  QueryOutcome run_range_query(const WindowRangeQuery<K, ValueOf>& typed,
                               const PositionBound& bound, const QueryConfig& config) {
    if (!typed.time_from() || !typed.time_to()) {
      return QueryResult::for_failure(
          FailureReason::UNKNOWN_QUERY_TYPE,
          store_query_utils::window_range_with_key_message(java_class(), typed));
    }
    const auto raw = WindowRangeQuery<Bytes, Bytes>::with_window_start_range(*typed.time_from(),
                                                                             *typed.time_to());
    auto result = wrapped().query(raw, bound, config);
    if (!result || result->is_failure()) return result;
    return typed_result<Windowed<K>, WindowedBytesIterator>(*result, [](const Windowed<Bytes>& w) {
      return Windowed<K>{Serde<K>::deserialize(w.key), w.start_ms, w.end_ms};
    });
  }
};

template <typename V>
struct PlainWindowCodec : PlainCodec<V> {
  using Value = V;
};
template <typename V>
struct TimestampedWindowCodec : TimestampedCodec<V> {
  using Value = V;
};

// Stores.windowStoreBuilder's outer layer: processors put plain V.
template <typename K, typename V>
class MeteredWindowStore final : public MeteredWindowStoreBase<K, V, PlainWindowCodec<V>> {
 public:
  using MeteredWindowStoreBase<K, V, PlainWindowCodec<V>>::MeteredWindowStoreBase;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.MeteredWindowStore";
  }
};

// Stores.timestampedWindowStoreBuilder's outer layer (every DSL windowed aggregation): processors
// put ValueAndTimestamp<V>.
template <typename K, typename V>
class MeteredTimestampedWindowStore final
    : public MeteredWindowStoreBase<K, ValueAndTimestamp<V>, TimestampedWindowCodec<V>> {
 public:
  using MeteredWindowStoreBase<K, ValueAndTimestamp<V>,
                               TimestampedWindowCodec<V>>::MeteredWindowStoreBase;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.MeteredTimestampedWindowStore";
  }
};

}  // namespace iq
