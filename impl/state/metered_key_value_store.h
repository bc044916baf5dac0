#pragma once
// MeteredKeyValueStore<K, V> and MeteredTimestampedKeyValueStore<K, V> (SI/Metered*.java): the
// typed outermost layer. Processors write typed keys and values through it; it serializes them.
// For queries it translates the typed queries it knows into raw (Bytes) ones, deserializes the
// raw results, and passes every query class it does not know down unchanged (docs/iqv2-semantics.md
// §5). Metrics are not modelled.

#include <memory>

#include "iq/key_query.h"
#include "iq/range_query.h"
#include "iq/serdes.h"
#include "iq/timestamped_key_query.h"
#include "iq/timestamped_range_query.h"
#include "state/state_store.h"
#include "state/store_query_utils.h"

namespace iq {

// The shared part: owns the bytes stack, serializes keys, converts stored values with Codec
// (plain V, or ValueAndTimestamp<V>), and runs the query translation of the derived class.
template <typename K, typename Stored, typename Codec>
class MeteredKeyValueStoreBase : public StateStore {
 public:
  explicit MeteredKeyValueStoreBase(std::unique_ptr<KeyValueBytesStore> wrapped)
      : wrapped_(std::move(wrapped)) {
    IQ_ASSERT(wrapped_ != nullptr);
  }

  const std::string& name() const override { return wrapped_->name(); }
  Status init(StateStoreContext& context, StateStore& root) override {
    return wrapped_->init(context, root);
  }
  Status flush() override { return wrapped_->flush(); }
  void close() override { wrapped_->close(); }
  bool persistent() const override { return wrapped_->persistent(); }
  bool is_open() const override { return wrapped_->is_open(); }
  Position position() const override { return wrapped_->position(); }
  bool is_timestamped() const override { return wrapped_->is_timestamped(); }
  bool is_adapter() const override { return wrapped_->is_adapter(); }

  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    std::optional<QueryOutcome> handled = run_typed_query(q, bound, config);
    if (!handled) {  // unknown class: straight through, typed as it is
      auto result = wrapped_->query(q, bound, config);
      if (result && config.is_collect_execution_info()) {
        result->add_execution_info(store_query_utils::execution_info(java_class()));
      }
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
  [[nodiscard]] Status put(const K& key, const std::optional<Stored>& value) {
    return wrapped_->put(Serde<K>::serialize(key), encode(value));
  }
  [[nodiscard]] StoreResult<std::optional<Stored>> put_if_absent(
      const K& key, const std::optional<Stored>& value) {
    return decode_result(wrapped_->put_if_absent(Serde<K>::serialize(key), encode(value)));
  }
  [[nodiscard]] Status put_all(const std::vector<KeyValue<K, std::optional<Stored>>>& entries) {
    std::vector<KeyValueBytes> raw;
    raw.reserve(entries.size());
    for (const auto& e : entries) raw.push_back({Serde<K>::serialize(e.key), encode(e.value)});
    return wrapped_->put_all(raw);
  }
  [[nodiscard]] StoreResult<std::optional<Stored>> get(const K& key) {
    return decode_result(wrapped_->get(Serde<K>::serialize(key)));
  }
  [[nodiscard]] StoreResult<std::optional<Stored>> delete_key(const K& key) {
    return decode_result(wrapped_->delete_key(Serde<K>::serialize(key)));
  }
  [[nodiscard]] StoreResult<KeyValueIterator<K, Stored>> range(const std::optional<K>& from,
                                                               const std::optional<K>& to,
                                                               bool reverse) {
    auto raw = wrapped_->range(serialize_key(from), serialize_key(to), reverse);
    if (!raw) return base::unexpected(raw.error());
    KeyValueIterator<K, Stored> out{{}, raw->origin};
    for (const auto& kv : raw->entries)
      out.entries.push_back({Serde<K>::deserialize(kv.key), Codec::decode(kv.value)});
    return out;
  }

  KeyValueBytesStore& wrapped() { return *wrapped_; }

 protected:
  // nullopt: this layer has no handler for the query's class.
  virtual std::optional<QueryOutcome> run_typed_query(const Query& q, const PositionBound& bound,
                                                      const QueryConfig& config) = 0;

  static std::optional<Bytes> serialize_key(const std::optional<K>& k) {
    return k ? std::optional<Bytes>(Serde<K>::serialize(*k)) : std::nullopt;
  }
  static ValueBytes encode(const std::optional<Stored>& v) {
    return v ? ValueBytes(Codec::encode(*v)) : std::nullopt;
  }
  static StoreResult<std::optional<Stored>> decode_result(StoreResult<ValueBytes> raw) {
    if (!raw) return base::unexpected(raw.error());
    if (!raw->has_value()) return std::optional<Stored>{};
    return std::optional<Stored>(Codec::decode(**raw));
  }

  // KeyQuery and TimestampedKeyQuery both become a raw KeyQuery, rebuilt with with_key(): the
  // skipCache flag is dropped here (docs/iqv2-semantics.md quirk 1).
  template <typename Out>
  QueryOutcome run_key(const K& key, const PositionBound& bound, const QueryConfig& config,
                       Out convert) {
    const auto raw = KeyQuery<Bytes, Bytes>::with_key(Serde<K>::serialize(key));
    auto result = wrapped_->query(raw, bound, config);
    if (!result || result->is_failure()) return result;
    const auto& bytes = result->template result<ValueBytes>();
    if (bytes) {
      if (auto e = Codec::size_error(*bytes)) return base::unexpected(*e);
    }
    auto converted = convert(bytes);
    return std::move(*result).with_substituted_result(std::move(converted));
  }

  template <typename Typed, typename Convert>
  QueryOutcome run_range(const Typed& typed, const PositionBound& bound, const QueryConfig& config,
                         Convert convert) {
    auto raw = RangeQuery<Bytes, Bytes>::with_range(serialize_key(typed.lower_bound()),
                                                    serialize_key(typed.upper_bound()));
    if (typed.result_order() == ResultOrder::DESCENDING) raw = raw.with_descending_keys();
    if (typed.result_order() == ResultOrder::ASCENDING) raw = raw.with_ascending_keys();
    auto result = wrapped_->query(raw, bound, config);
    if (!result || result->is_failure()) return result;
    const auto& it = result->template result<BytesIterator>();
    using Value = decltype(convert(std::declval<const Bytes&>()));
    KeyValueIterator<K, Value> out{{}, it.origin};
    out.entries.reserve(it.entries.size());
    for (const auto& kv : it.entries) {
      if (auto e = Codec::size_error(kv.value)) return base::unexpected(*e);
      out.entries.push_back({Serde<K>::deserialize(kv.key), convert(kv.value)});
    }
    return std::move(*result).with_substituted_result(std::move(out));
  }

 private:
  std::unique_ptr<KeyValueBytesStore> wrapped_;
};

// size_error: where Kafka's value deserializer throws a SerializationException out of the
// metered store's query (the deserialization there is not caught, so it leaves
// KafkaStreams#query). Reachable by a plain builder over a timestamped supplier
// (Stores.keyValueStoreBuilder(persistentTimestampedKeyValueStore)): restoration prepends
// timestamps (StateManagerUtil.converterForStore looks at the innermost store), processing does
// not, so restored values are 16 bytes where LongDeserializer wants 8.
template <typename V>
struct PlainCodec {
  static Bytes encode(const V& v) { return Serde<V>::serialize(v); }
  static V decode(const Bytes& b) { return Serde<V>::deserialize(b); }
  static std::optional<StreamsError> size_error(const Bytes& b) {
    auto message = Serde<V>::size_error(b);
    if (!message) return std::nullopt;
    return StreamsError{StreamsError::Kind::Serialization, *message};
  }
};

template <typename V>
struct TimestampedCodec {
  static Bytes encode(const ValueAndTimestamp<V>& vt) {
    return timestamped_bytes::make(vt.timestamp, Serde<V>::serialize(vt.value));
  }
  static ValueAndTimestamp<V> decode(const Bytes& b) {
    return deserialize_value_and_timestamp<V>(b);
  }
  // ValueAndTimestampDeserializer hands the bytes after the 8-byte timestamp to the value's.
  static std::optional<StreamsError> size_error(const Bytes& b) {
    if (b.size() < 8) {
      return StreamsError{StreamsError::Kind::BufferUnderflow, "java.nio.BufferUnderflowException"};
    }
    // A view of the bytes after the timestamp: no copy per entry of a range.
    auto message = Serde<V>::size_error(b.view().substr(8));
    if (!message) return std::nullopt;
    return StreamsError{StreamsError::Kind::Serialization, *message};
  }
};

// The plain builder's outer layer: handles KeyQuery and RangeQuery, results plain V.
template <typename K, typename V>
class MeteredKeyValueStore final : public MeteredKeyValueStoreBase<K, V, PlainCodec<V>> {
  using Base = MeteredKeyValueStoreBase<K, V, PlainCodec<V>>;

 public:
  using Base::Base;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.MeteredKeyValueStore";
  }

 protected:
  std::optional<QueryOutcome> run_typed_query(const Query& q, const PositionBound& bound,
                                              const QueryConfig& config) override {
    auto plain = [](const Bytes& b) { return Serde<V>::deserialize(b); };
    // kind() first: a failed dynamic_cast walks the type hierarchy, and each cast below can only
    // succeed for its own kind (the query classes are final).
    const QueryKind kind = q.kind();
    if (kind == QueryKind::KeyQuery) {
      if (const auto* kq = dynamic_cast<const KeyQuery<K, V>*>(&q)) {
        return this->run_key(kq->key(), bound, config, [&](const ValueBytes& b) {
          return b ? std::optional<V>(plain(*b)) : std::nullopt;
        });
      }
    }
    if (kind == QueryKind::RangeQuery) {
      if (const auto* rq = dynamic_cast<const RangeQuery<K, V>*>(&q))
        return this->run_range(*rq, bound, config, plain);
    }
    return std::nullopt;
  }
};

// The timestamped builder's outer layer (every DSL key-value store): KeyQuery and RangeQuery
// answer plain V (since KIP-992), the Timestamped* queries ValueAndTimestamp<V>.
template <typename K, typename V>
class MeteredTimestampedKeyValueStore final
    : public MeteredKeyValueStoreBase<K, ValueAndTimestamp<V>, TimestampedCodec<V>> {
  using Base = MeteredKeyValueStoreBase<K, ValueAndTimestamp<V>, TimestampedCodec<V>>;

 public:
  using Base::Base;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.MeteredTimestampedKeyValueStore";
  }

 protected:
  std::optional<QueryOutcome> run_typed_query(const Query& q, const PositionBound& bound,
                                              const QueryConfig& config) override {
    auto vat = [](const Bytes& b) { return deserialize_value_and_timestamp<V>(b); };
    auto value_only = [&](const Bytes& b) { return vat(b).value; };
    // kind() first, as in MeteredKeyValueStore: only the cast of the query's own kind can succeed.
    switch (q.kind()) {
      case QueryKind::KeyQuery:
        if (const auto* kq = dynamic_cast<const KeyQuery<K, V>*>(&q)) {
          return this->run_key(kq->key(), bound, config, [&](const ValueBytes& b) {
            return b ? std::optional<V>(value_only(*b)) : std::nullopt;
          });
        }
        break;
      case QueryKind::TimestampedKeyQuery:
        if (const auto* tq = dynamic_cast<const TimestampedKeyQuery<K, V>*>(&q)) {
          return this->run_key(tq->key(), bound, config, [&](const ValueBytes& b) {
            return b ? std::optional<ValueAndTimestamp<V>>(vat(*b)) : std::nullopt;
          });
        }
        break;
      case QueryKind::RangeQuery:
        if (const auto* rq = dynamic_cast<const RangeQuery<K, V>*>(&q))
          return this->run_range(*rq, bound, config, value_only);
        break;
      case QueryKind::TimestampedRangeQuery:
        if (const auto* tr = dynamic_cast<const TimestampedRangeQuery<K, V>*>(&q))
          return this->run_range(*tr, bound, config, vat);
        break;
      default:
        break;
    }
    return std::nullopt;
  }
};

}  // namespace iq
