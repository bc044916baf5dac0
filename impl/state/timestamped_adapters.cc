#include "state/timestamped_adapters.h"

#include "iq/key_query.h"
#include "iq/range_query.h"
#include "iq/serdes.h"
#include "state/state_store_context.h"

namespace iq {
namespace {

BytesIterator to_timestamped(BytesIterator plain) {
  for (auto& kv : plain.entries)
    kv.value = *timestamped_bytes::convert_to_timestamped_format(kv.value);
  plain.origin = IteratorOrigin::Converted;
  return plain;
}

}  // namespace

KeyValueToTimestampedKeyValueByteStoreAdapter::KeyValueToTimestampedKeyValueByteStoreAdapter(
    std::unique_ptr<KeyValueBytesStore> plain)
    : WrappedKeyValueBytesStore(std::move(plain)) {
  // Kafka: IllegalArgumentException "Provided store must be a persistent store, but it is not."
  IQ_ASSERT(wrapped().persistent(), "Provided store must be a persistent store, but it is not.");
}

Status KeyValueToTimestampedKeyValueByteStoreAdapter::put(const Bytes& key, const ValueBytes& vt) {
  return wrapped().put(key, timestamped_bytes::raw_value(vt));  // the timestamp is dropped
}

StoreResult<ValueBytes> KeyValueToTimestampedKeyValueByteStoreAdapter::put_if_absent(
    const Bytes& key, const ValueBytes& vt) {
  auto previous = wrapped().put_if_absent(key, timestamped_bytes::raw_value(vt));
  if (!previous) return previous;
  return timestamped_bytes::convert_to_timestamped_format(*previous);
}

Status KeyValueToTimestampedKeyValueByteStoreAdapter::put_all(
    const std::vector<KeyValueBytes>& entries) {
  for (const auto& e : entries) {  // one by one, not the inner putAll, as Kafka does
    auto s = put(e.key, e.value);
    if (!s) return s;
  }
  return ok_status();
}

StoreResult<ValueBytes> KeyValueToTimestampedKeyValueByteStoreAdapter::delete_key(
    const Bytes& key) {
  auto old = wrapped().delete_key(key);
  if (!old) return old;
  return timestamped_bytes::convert_to_timestamped_format(*old);
}

StoreResult<ValueBytes> KeyValueToTimestampedKeyValueByteStoreAdapter::get(const Bytes& key) {
  auto plain = wrapped().get(key);
  if (!plain) return plain;
  return timestamped_bytes::convert_to_timestamped_format(*plain);
}

StoreResult<BytesIterator> KeyValueToTimestampedKeyValueByteStoreAdapter::range(
    const std::optional<Bytes>& from, const std::optional<Bytes>& to, bool reverse) {
  auto plain = wrapped().range(from, to, reverse);
  if (!plain) return plain;
  return to_timestamped(std::move(*plain));
}

StoreResult<BytesIterator> KeyValueToTimestampedKeyValueByteStoreAdapter::all(bool reverse) {
  auto plain = wrapped().all(reverse);
  if (!plain) return plain;
  return to_timestamped(std::move(*plain));
}

Status KeyValueToTimestampedKeyValueByteStoreAdapter::init(StateStoreContext& context,
                                                           StateStore& root) {
  pin_ = context.kafka_pin();  // the cast of quirk 10 names a class that changed (pin delta 19)
  return WrappedKeyValueBytesStore::init(context, root);
}

QueryOutcome KeyValueToTimestampedKeyValueByteStoreAdapter::query(const Query& q,
                                                                  const PositionBound& bound,
                                                                  const QueryConfig& config) {
  // This layer rewrites the plain bytes the store below answers with, so a typed layer's sink
  // (raw_sinks.h) must not receive them: the query goes down without it, the typed layer decodes
  // the converted bytes itself.
  std::optional<KeyQuery<Bytes, Bytes>> key_without_sink;
  std::optional<RangeQuery<Bytes, Bytes>> range_without_sink;
  const Query* down = &q;
  if (const auto* kq = query_as<KeyQuery<Bytes, Bytes>>(q);
      kq != nullptr && kq->value_sink() != nullptr) {
    down = &key_without_sink.emplace(kq->with_value_sink(nullptr));
  } else if (const auto* rq = query_as<RangeQuery<Bytes, Bytes>>(q);
             rq != nullptr && rq->entry_sink() != nullptr) {
    down = &range_without_sink.emplace(rq->with_entry_sink(nullptr));
  }
  auto result = wrapped().query(*down, bound, config);
  if (!result) return result;
  if (result->is_failure()) {  // failures pass through, noted in the execution info
    if (config.is_collect_execution_info())
      result->add_execution_info(store_query_utils::execution_info(java_class()));
    return result;
  }
  const QueryKind kind = q.kind();
  if (kind == QueryKind::KeyQuery || kind == QueryKind::TimestampedKeyQuery) {
    const auto& plain = result->result<ValueBytes>();
    result =
        result->with_substituted_result(timestamped_bytes::convert_to_timestamped_format(plain));
  } else if (kind == QueryKind::RangeQuery || kind == QueryKind::TimestampedRangeQuery) {
    const auto& plain = result->result<BytesIterator>();
    // Kafka quirk 10 (docs/iqv2-semantics.md): the adapter casts the inner iterator to
    // RocksDbIterator. The empty iterator a RocksDB store returns for lower > upper is not one, and
    // the ClassCastException escapes KafkaStreams#query. Pin delta 19 (9ffc78db8a, KAFKA-20760):
    // the 2026-08-20 adapter casts to ManagedKeyValueIterator instead, which every store iterator
    // is but KeyValueIterators.emptyIterator() still is not, so the same range still throws; only
    // the class named in the message changes.
    // A transactional store's READ_UNCOMMITTED range is a StagedMergeIterator, a
    // ManagedKeyValueIterator: the new pin's cast takes it (the old pin has no such store).
    const bool managed = at_least(pin_, KafkaPin::k2026_08_20);
    const bool casts = plain.origin == IteratorOrigin::RocksDbIterator ||
                       (managed && plain.origin == IteratorOrigin::StagedMergeIterator);
    if (!casts) {
      return base::unexpected(StreamsError{
          StreamsError::Kind::ClassCast,
          std::string("class org.apache.kafka.streams.state.internals.KeyValueIterators$"
                      "EmptyKeyValueIterator cannot be cast to class "
                      "org.apache.kafka.streams.state.internals.") +
              (managed ? "ManagedKeyValueIterator" : "RocksDbIterator")});
    }
    result = result->with_substituted_result(to_timestamped(plain));
  } else {
    return base::unexpected(StreamsError{StreamsError::Kind::IllegalArgument,
                                         "Unsupported query type: class " + q.to_string()});
  }
  if (config.is_collect_execution_info()) {
    result->add_execution_info(store_query_utils::execution_info(java_class()));
  }
  return result;
}

}  // namespace iq
