#pragma once
// MeteredVersionedKeyValueStore<K, V> (SI/MeteredVersionedKeyValueStore.java): the typed
// outermost layer of a versioned store. Processors write typed keys and values with a version
// timestamp; queries are translated as Kafka's MeteredVersionedKeyValueStoreInternal does:
//
// - VersionedKeyQuery -> a raw one (asOf kept); the result std::optional<VersionedRecord<V>>
//   (nullopt where Kafka's result is null), validTo kept.
// - MultiVersionedKeyQuery -> a raw one with both times set (an open end becomes Long.MIN_VALUE
//   or Long.MAX_VALUE) and the order kept (ANY stays ANY: the store runs it newest first); the
//   result VersionedRecordIterator<V>. fromTime > toTime throws IllegalArgumentException here,
//   before any bound check.
// - KeyQuery and RangeQuery throw UnsupportedOperationException here ("reserved for the future"),
//   which leaves KafkaStreams#query as an exception, not a failed QueryResult (quirk 15).
// - every other class passes down unchanged (TimestampedKeyQuery then meets the position owner,
//   which does not know it: UNKNOWN_QUERY_TYPE without a bound check; the window queries are
//   bound-checked first, then UNKNOWN_QUERY_TYPE).
//
// The typed get() methods go through VersionedBytesStore, whose bytes carry no validTo, so they
// return VersionedRecords without one, as Kafka's do. Metrics are not modelled.

#include <limits>
#include <memory>

#include "iq/key_query.h"
#include "iq/multi_versioned_key_query.h"
#include "iq/range_query.h"
#include "iq/serdes.h"
#include "iq/versioned_key_query.h"
#include "state/versioned_store.h"
#include "state/wrapped_state_store.h"

namespace iq {

template <typename K, typename V>
class MeteredVersionedKeyValueStore final
    : public WrappedStateStore<VersionedBytesStore, StateStore> {
 public:
  explicit MeteredVersionedKeyValueStore(std::unique_ptr<VersionedBytesStore> wrapped)
      : WrappedStateStore(std::move(wrapped)) {}

  // getClass() inside the delegate that answers every query.
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals."
           "MeteredVersionedKeyValueStore$MeteredVersionedKeyValueStoreInternal";
  }

  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    std::optional<QueryOutcome> handled;
    if (dynamic_cast<const KeyQuery<K, V>*>(&q) != nullptr) {
      handled = unsupported("KeyQuery");
    } else if (dynamic_cast<const RangeQuery<K, V>*>(&q) != nullptr) {
      handled = unsupported("RangeQuery");
    } else if (const auto* vq = dynamic_cast<const VersionedKeyQuery<K, V>*>(&q)) {
      handled = run_versioned_key_query(*vq, bound, config);
    } else if (const auto* mq = dynamic_cast<const MultiVersionedKeyQuery<K, V>*>(&q)) {
      handled = run_multi_versioned_key_query(*mq, bound, config);
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

  // The typed API processors use (VersionedKeyValueStore<K, V>).
  [[nodiscard]] StoreResult<int64_t> put(const K& key, const std::optional<V>& value,
                                         int64_t timestamp_ms) {
    return wrapped().put(Serde<K>::serialize(key), encode(value), timestamp_ms);
  }
  [[nodiscard]] StoreResult<std::optional<VersionedRecord<V>>> delete_key(const K& key,
                                                                          int64_t timestamp_ms) {
    return decode(wrapped().delete_key(Serde<K>::serialize(key), timestamp_ms));
  }
  [[nodiscard]] StoreResult<std::optional<VersionedRecord<V>>> get(const K& key) {
    return decode(wrapped().get(Serde<K>::serialize(key)));
  }
  [[nodiscard]] StoreResult<std::optional<VersionedRecord<V>>> get(const K& key, int64_t as_of_ms) {
    return decode(wrapped().get(Serde<K>::serialize(key), as_of_ms));
  }

 private:
  static ValueBytes encode(const std::optional<V>& v) {
    return v ? ValueBytes(Serde<V>::serialize(*v)) : std::nullopt;
  }
  static StoreResult<std::optional<VersionedRecord<V>>> decode(StoreResult<ValueBytes> raw) {
    if (!raw) return base::unexpected(raw.error());
    if (!raw->has_value()) return std::optional<VersionedRecord<V>>{};
    const auto vat = deserialize_value_and_timestamp<V>(**raw);
    return std::optional<VersionedRecord<V>>(VersionedRecord<V>{vat.value, vat.timestamp, {}});
  }
  static VersionedRecord<V> typed(const VersionedRecord<Bytes>& raw) {
    return {Serde<V>::deserialize(raw.value), raw.timestamp, raw.valid_to};
  }

  // Kafka quirk (docs/iqv2-semantics.md quirk 15): thrown, not a failed result.
  static QueryOutcome unsupported(const char* query_class) {
    return base::unexpected(StreamsError{
        StreamsError::Kind::UnsupportedOperation,
        std::string("Versioned stores do not support ") + query_class + " queries at this time."});
  }

  QueryOutcome run_versioned_key_query(const VersionedKeyQuery<K, V>& typed_query,
                                       const PositionBound& bound, const QueryConfig& config) {
    auto raw = VersionedKeyQuery<Bytes, Bytes>::with_key(Serde<K>::serialize(typed_query.key()));
    if (typed_query.as_of_timestamp()) raw = raw.as_of(*typed_query.as_of_timestamp());
    auto result = wrapped().query(raw, bound, config);
    if (!result || result->is_failure()) return result;
    const auto& record = result->template result<std::optional<VersionedRecord<Bytes>>>();
    if (auto e = size_error(record ? &record->value : nullptr)) return base::unexpected(*e);
    return result->with_substituted_result(
        record ? std::optional<VersionedRecord<V>>(typed(*record)) : std::nullopt);
  }

  QueryOutcome run_multi_versioned_key_query(const MultiVersionedKeyQuery<K, V>& typed_query,
                                             const PositionBound& bound,
                                             const QueryConfig& config) {
    const int64_t from = typed_query.from_time().value_or(std::numeric_limits<int64_t>::min());
    const int64_t to = typed_query.to_time().value_or(std::numeric_limits<int64_t>::max());
    if (from > to) {
      return base::unexpected(
          StreamsError{StreamsError::Kind::IllegalArgument,
                       "The `fromTime` timestamp must be smaller than the `toTime` timestamp."});
    }
    auto raw =
        MultiVersionedKeyQuery<Bytes, Bytes>::with_key(Serde<K>::serialize(typed_query.key()))
            .from_time(from)
            .to_time(to);
    if (typed_query.result_order() == ResultOrder::DESCENDING)
      raw = raw.with_descending_timestamps();
    if (typed_query.result_order() == ResultOrder::ASCENDING) raw = raw.with_ascending_timestamps();
    auto result = wrapped().query(raw, bound, config);
    if (!result || result->is_failure()) return result;
    const auto& it = result->template result<VersionedRecordIterator<Bytes>>();
    VersionedRecordIterator<V> out;
    out.records.reserve(it.records.size());
    for (const auto& record : it.records) {
      if (auto e = size_error(&record.value)) return base::unexpected(*e);
      out.records.push_back(typed(record));
    }
    return result->with_substituted_result(std::move(out));
  }

  // Where Kafka's value deserializer would throw a SerializationException out of the query.
  static std::optional<StreamsError> size_error(const Bytes* value) {
    if (value == nullptr) return std::nullopt;
    auto message = Serde<V>::size_error(*value);
    if (!message) return std::nullopt;
    return StreamsError{StreamsError::Kind::Serialization, *message};
  }
};

}  // namespace iq
