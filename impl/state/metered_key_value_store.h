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
  Status flush_cache() override { return wrapped_->flush_cache(); }
  void close() override { wrapped_->close(); }
  bool persistent() const override { return wrapped_->persistent(); }
  bool is_open() const override { return wrapped_->is_open(); }
  Position position() const override { return wrapped_->position(); }
  bool is_timestamped() const override { return wrapped_->is_timestamped(); }
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) override {
    return wrapped_->kept_entries(out);
  }
  bool manages_offsets() const override { return wrapped_->manages_offsets(); }
  Status commit(const ChangelogOffsets& offsets) override { return wrapped_->commit(offsets); }
  StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& changelog) override {
    return wrapped_->committed_offset(changelog);
  }
  // KIP-892: MeteredKeyValueStore passes the uncommitted bytes down (Kafka also gauges them);
  // the committed position is the simulator's observation (StateStore::committed_position).
  int64_t approximate_num_uncommitted_bytes() const override {
    return wrapped_->approximate_num_uncommitted_bytes();
  }
  std::optional<Position> committed_position() const override {
    return wrapped_->committed_position();
  }
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
  // skipCache flag is dropped here (docs/iqv2-semantics.md quirk 1). The raw query carries this
  // layer's decoder (raw_sinks.h), so the value is decoded from the bytes where they lie; a store
  // that does not take the sink answers with the bytes, which the same decoder then reads.
  // `convert` turns a present value's bytes into the typed value.
  template <typename Convert>
  QueryOutcome run_key(const K& key, const PositionBound& bound, const QueryConfig& config,
                       Convert convert) {
    ValueDecoder<Convert> decoder(convert);
    const auto raw =
        KeyQuery<Bytes, Bytes>::with_key(Serde<K>::serialize(key)).with_value_sink(&decoder);
    auto result = wrapped_->query(raw, bound, config);
    if (!result || result->is_failure()) return result;
    if (!decoder.delivered()) {
      const auto& bytes = result->template result<ValueBytes>();
      decoder.value(bytes ? std::optional<std::string_view>(bytes->view()) : std::nullopt);
    }
    if (decoder.error()) return base::unexpected(*decoder.error());
    return std::move(*result).with_substituted_result(decoder.take());
  }

  // The same for the range queries: the entries are decoded as the store iterates, or from the
  // raw iterator's entries when the store did not take the sink.
  template <typename Typed, typename Convert>
  QueryOutcome run_range(const Typed& typed, const PositionBound& bound, const QueryConfig& config,
                         Convert convert) {
    EntryDecoder<Convert> decoder(convert);
    auto raw = RangeQuery<Bytes, Bytes>::with_range(serialize_key(typed.lower_bound()),
                                                    serialize_key(typed.upper_bound()));
    if (typed.result_order() == ResultOrder::DESCENDING) raw = raw.with_descending_keys();
    if (typed.result_order() == ResultOrder::ASCENDING) raw = raw.with_ascending_keys();
    raw = raw.with_entry_sink(&decoder);
    auto result = wrapped_->query(raw, bound, config);
    if (!result || result->is_failure()) return result;
    const auto& it = result->template result<BytesIterator>();
    if (!decoder.begun()) {
      decoder.begin();
      decoder.reserve(it.entries.size());
      for (const auto& kv : it.entries) decoder.entry(kv.key.view(), kv.value.view());
    }
    if (decoder.error()) return base::unexpected(*decoder.error());
    return std::move(*result).with_substituted_result(decoder.take(it.origin));
  }

 private:
  // The typed value of a KeyQuery, decoded once from the bytes the store hands over. The first
  // deserialization error is kept; the query answers it once the store's own result is known to
  // be a success (a failed result comes first, as when the bytes were returned).
  template <typename Convert>
  class ValueDecoder final : public RawValueSink {
   public:
    using Value = decltype(std::declval<Convert&>()(std::string_view()));
    explicit ValueDecoder(Convert& convert) : convert_(convert) {}
    void value(std::optional<std::string_view> bytes) override {
      IQ_ASSERT(!delivered_, "a KeyQuery's value delivered twice");
      delivered_ = true;
      if (!bytes) return;
      error_ = Codec::size_error(*bytes);
      if (!error_) value_.emplace(convert_(*bytes));
    }
    bool delivered() const { return delivered_; }
    const std::optional<StreamsError>& error() const { return error_; }
    std::optional<Value> take() { return std::move(value_); }

   private:
    Convert& convert_;
    bool delivered_ = false;
    std::optional<StreamsError> error_;
    std::optional<Value> value_;
  };

  // The typed entries of a range, decoded as they arrive; after the first deserialization error
  // the rest are skipped (the query answers the error, as the decoding loop over returned bytes
  // stopped at it).
  template <typename Convert>
  class EntryDecoder final : public RawEntrySink {
   public:
    using Value = decltype(std::declval<Convert&>()(std::string_view()));
    explicit EntryDecoder(Convert& convert) : convert_(convert) {}
    void begin() override {
      IQ_ASSERT(!begun_, "a RangeQuery's entries begun twice");
      begun_ = true;
    }
    void entry(std::string_view key, std::string_view value) override {
      IQ_ASSERT(begun_, "a RangeQuery's entry before begin()");
      if (error_) return;
      error_ = Codec::size_error(value);
      if (error_) return;
      // A range's entries arrive one by one, so the count is not known: the first reserve covers
      // a query's range of up to kReserve entries, a longer one grows from there.
      constexpr size_t kReserve = 128;
      if (entries_.capacity() == 0) entries_.reserve(kReserve);
      entries_.push_back({Serde<K>::deserialize(key), convert_(value)});
    }
    void reserve(size_t n) { entries_.reserve(n); }
    bool begun() const { return begun_; }
    const std::optional<StreamsError>& error() const { return error_; }
    KeyValueIterator<K, Value> take(IteratorOrigin origin) {
      return KeyValueIterator<K, Value>{std::move(entries_), origin};
    }

   private:
    Convert& convert_;
    bool begun_ = false;
    std::optional<StreamsError> error_;
    std::vector<KeyValue<K, Value>> entries_;
  };

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
  static std::optional<StreamsError> size_error(std::string_view b) {
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
  static std::optional<StreamsError> size_error(std::string_view b) {
    if (b.size() < 8) {
      return StreamsError{StreamsError::Kind::BufferUnderflow, "java.nio.BufferUnderflowException"};
    }
    // A view of the bytes after the timestamp: no copy per entry of a range.
    auto message = Serde<V>::size_error(b.substr(8));
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
    auto plain = [](std::string_view b) { return Serde<V>::deserialize(b); };
    // kind() first: each cast below can only succeed for its own kind.
    const QueryKind kind = q.kind();
    if (kind == QueryKind::KeyQuery) {
      if (const auto* kq = query_as<KeyQuery<K, V>>(q)) {
        return this->run_key(kq->key(), bound, config, plain);
      }
    }
    if (kind == QueryKind::RangeQuery) {
      if (const auto* rq = query_as<RangeQuery<K, V>>(q))
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
    auto vat = [](std::string_view b) { return deserialize_value_and_timestamp<V>(b); };
    auto value_only = [](std::string_view b) { return Serde<V>::deserialize(b.substr(8)); };
    // kind() first, as in MeteredKeyValueStore: only the cast of the query's own kind can succeed.
    switch (q.kind()) {
      case QueryKind::KeyQuery:
        if (const auto* kq = query_as<KeyQuery<K, V>>(q)) {
          return this->run_key(kq->key(), bound, config, value_only);
        }
        break;
      case QueryKind::TimestampedKeyQuery:
        if (const auto* tq = query_as<TimestampedKeyQuery<K, V>>(q)) {
          return this->run_key(tq->key(), bound, config, vat);
        }
        break;
      case QueryKind::RangeQuery:
        if (const auto* rq = query_as<RangeQuery<K, V>>(q))
          return this->run_range(*rq, bound, config, value_only);
        break;
      case QueryKind::TimestampedRangeQuery:
        if (const auto* tr = query_as<TimestampedRangeQuery<K, V>>(q))
          return this->run_range(*tr, bound, config, vat);
        break;
      default:
        break;
    }
    return std::nullopt;
  }
};

}  // namespace iq
