#include "state/store_query_utils.h"

#include "base/assert.h"
#include "base/probe.h"
#include "io/operation_marker.h"
#include "iq/key_query.h"
#include "iq/multi_versioned_key_query.h"
#include "iq/range_query.h"
#include "iq/versioned_key_query.h"
#include "iq/window_key_query.h"
#include "iq/window_range_query.h"
#include "state/position_serde.h"
#include "state/rocksdb_versioned_store.h"
#include "state/session_store.h"
#include "state/state_store_context.h"
#include "state/window_store.h"

namespace iq::store_query_utils {
namespace {

// parseStoreException: the store class, the query, then the exception.
QueryResult store_exception(const StateStore& store, const Query& query, const StreamsError& e) {
  return QueryResult::for_failure(FailureReason::STORE_EXCEPTION,
                                  std::string(store.java_class()) + " failed to handle query " +
                                      query.to_string() + ":\n" + e.to_string());
}

// The key-value reads go through readOnly(config's level) (KIP-892; at the old pin and for every
// non-transactional store that is the store itself).
QueryResult run_key_query(const Query& query, const QueryConfig& config, StateStore& store) {
  auto* kv_store = store.as_key_value_bytes_store();
  if (kv_store == nullptr) return QueryResult::for_unknown_query_type(query, store.java_class());
  ReadOnlyKeyValueBytes* kv = &kv_store->read_only(config.isolation_level());
  const auto* raw = query_as<KeyQuery<Bytes, Bytes>>(query);
  IQ_ASSERT(raw != nullptr, "a typed KeyQuery reached the position owner: {}", query.to_string());
  const OperationScope reading(Operation::kKeyQuery);  // an observation mark only
  // With the typed layer's sink the value is decoded from the store's own bytes (raw_sinks.h);
  // the raw result then holds nothing.
  if (RawValueSink* sink = raw->value_sink()) {
    auto delivered = kv->get_into(raw->key(), *sink);
    if (!delivered) return store_exception(store, query, delivered.error());
    return QueryResult::for_result(AnyResult());
  }
  auto value = kv->get(raw->key());
  if (!value) return store_exception(store, query, value.error());
  return QueryResult::for_result(std::move(*value));
}

// Bounds and order pick all()/range() forward or reverse, as runRangeQuery does; so ANY is
// executed ascending.
QueryResult run_range_query(const Query& query, const QueryConfig& config, StateStore& store) {
  auto* kv_store = store.as_key_value_bytes_store();
  if (kv_store == nullptr) return QueryResult::for_unknown_query_type(query, store.java_class());
  ReadOnlyKeyValueBytes* kv = &kv_store->read_only(config.isolation_level());
  const auto* raw = query_as<RangeQuery<Bytes, Bytes>>(query);
  IQ_ASSERT(raw != nullptr, "a typed RangeQuery reached the position owner: {}", query.to_string());
  const bool reverse = raw->result_order() == ResultOrder::DESCENDING;
  const bool unbounded = !raw->lower_bound() && !raw->upper_bound();
  switch (raw->result_order()) {
    case ResultOrder::ANY:
      IQ_PROBE("range.order.ANY", "a store ran a range query with ResultOrder ANY");
      break;
    case ResultOrder::ASCENDING:
      IQ_PROBE("range.order.ASCENDING", "a store ran a range query with ResultOrder ASCENDING");
      break;
    case ResultOrder::DESCENDING:
      IQ_PROBE("range.order.DESCENDING", "a store ran a range query with ResultOrder DESCENDING");
      break;
  }
  if (!raw->lower_bound() || !raw->upper_bound()) {
    IQ_PROBE("range.open_end", "a store ran a range query with a null lower or upper bound");
  }
  // With the typed layer's sink the entries are decoded as the store iterates (raw_sinks.h); the
  // raw result then carries only the iterator's origin.
  if (RawEntrySink* sink = raw->entry_sink()) {
    sink->begin();
    auto origin = kv->range_into(raw->lower_bound(), raw->upper_bound(), reverse, *sink);
    if (!origin) return store_exception(store, query, origin.error());
    return QueryResult::for_result(BytesIterator{{}, *origin});
  }
  auto it =
      unbounded ? kv->all(reverse) : kv->range(raw->lower_bound(), raw->upper_bound(), reverse);
  if (!it) return store_exception(store, query, it.error());
  return QueryResult::for_result(std::move(*it));
}

// runWindowKeyQuery: a window store fetches forward over the raw query's (already un-swapped)
// range; any other store answers UNKNOWN_QUERY_TYPE after the bound check.
QueryResult run_window_key_query(const Query& query, const QueryConfig& config, StateStore& store) {
  auto* window_store = dynamic_cast<WindowBytesStore*>(&store);
  if (window_store == nullptr)
    return QueryResult::for_unknown_query_type(query, store.java_class());
  // KIP-892: read through readOnly(level) (the store itself unless transactional).
  ReadOnlyWindowBytes* window = &window_store->read_only(config.isolation_level());
  const auto* raw = dynamic_cast<const WindowKeyQuery<Bytes, Bytes>*>(&query);
  IQ_ASSERT(raw != nullptr, "a typed WindowKeyQuery reached the position owner: {}",
            query.to_string());
  // The factory always sets both times, so the "only supports closed-range queries" failure
  // Kafka has here cannot be reached.
  IQ_ASSERT(raw->time_from() && raw->time_to());
  auto it = window->fetch(raw->key(), *raw->time_from(), *raw->time_to(), /*forward=*/true);
  if (!it) return store_exception(store, query, it.error());
  for (const auto& e : it->entries) {
    if (e.key == *raw->time_from() || e.key == *raw->time_to()) {
      IQ_PROBE("window.key_query_bound_at_window_start",
               "a WindowKeyQuery's time bound equals the start of a window it returned");
    }
  }
  return QueryResult::for_result(std::move(*it));
}

// runWindowRangeQuery: a window store serves only the time-range shape (fetchAll), a session
// store only withKey (fetch(key), i.e. findSessions(key, 0, Long.MAX_VALUE)); the other shape
// fails with each family's message (a caller below the typed layer gets this far); any other
// store answers UNKNOWN_QUERY_TYPE.
QueryResult run_window_range_query(const Query& query, const QueryConfig& config,
                                   StateStore& store) {
  const auto* raw = dynamic_cast<const WindowRangeQuery<Bytes, Bytes>*>(&query);
  if (auto* window_store = dynamic_cast<WindowBytesStore*>(&store)) {
    ReadOnlyWindowBytes* window = &window_store->read_only(config.isolation_level());
    IQ_ASSERT(raw != nullptr, "a typed WindowRangeQuery reached the position owner: {}",
              query.to_string());
    if (!raw->time_from() || !raw->time_to()) {
      return QueryResult::for_failure(FailureReason::UNKNOWN_QUERY_TYPE,
                                      window_range_with_key_message(store.java_class(), query));
    }
    auto it = window->fetch_all(*raw->time_from(), *raw->time_to(), /*forward=*/true);
    if (!it) return store_exception(store, query, it.error());
    for (const auto& e : it->entries) {
      if (e.key.start_ms == *raw->time_from() || e.key.start_ms == *raw->time_to()) {
        IQ_PROBE("window.range_query_bound_at_window_start",
                 "a WindowRangeQuery's time bound equals the start of a window it returned");
      }
    }
    return QueryResult::for_result(std::move(*it));
  }
  if (auto* session_store = dynamic_cast<SessionBytesStore*>(&store)) {
    ReadOnlySessionBytes* session = &session_store->read_only(config.isolation_level());
    IQ_ASSERT(raw != nullptr, "a typed WindowRangeQuery reached the position owner: {}",
              query.to_string());
    if (!raw->key()) {
      return QueryResult::for_failure(FailureReason::UNKNOWN_QUERY_TYPE,
                                      session_range_with_time_message(store.java_class(), query));
    }
    auto it = session->fetch(*raw->key(), /*forward=*/true);
    if (!it) return store_exception(store, query, it.error());
    return QueryResult::for_result(std::move(*it));
  }
  return QueryResult::for_unknown_query_type(query, store.java_class());
}

// runVersionedKeyQuery: the latest version, or the one valid at asOf, from a versioned store;
// std::optional<VersionedRecord<Bytes>> (nullopt for Kafka's null). Any other store answers
// UNKNOWN_QUERY_TYPE after the bound check.
// At the new pin it reads through store.readOnly(level) (KAFKA-20500, 8cfdfaaacc); the old pin's
// QueryConfig is always READ_UNCOMMITTED, which is the store itself.
QueryResult run_versioned_key_query(const Query& query, const QueryConfig& config,
                                    StateStore& store) {
  auto* versioned = dynamic_cast<VersionedKeyValueBytesStore*>(&store);
  if (versioned == nullptr) return QueryResult::for_unknown_query_type(query, store.java_class());
  const auto* raw = dynamic_cast<const VersionedKeyQuery<Bytes, Bytes>*>(&query);
  IQ_ASSERT(raw != nullptr, "a typed VersionedKeyQuery reached the position owner: {}",
            query.to_string());
  const OperationScope reading(Operation::kKeyQuery);  // an observation mark only
  ReadOnlyVersionedBytes& view = versioned->read_only(config.isolation_level());
  auto record =
      raw->as_of_timestamp() ? view.get(raw->key(), *raw->as_of_timestamp()) : view.get(raw->key());
  if (!record) return store_exception(store, query, record.error());
  IQ_PROBE("versioned.key_query_answered", "a versioned store answered a VersionedKeyQuery");
  return QueryResult::for_result(std::move(*record));
}

// runMultiVersionedKeyQuery: Kafka casts any versioned store to RocksDBVersionedStore (the only
// one there is) and runs get(key, fromTime, toTime, order); the typed layer always sets both
// times, and (the new pin) the QueryConfig's level. VersionedRecordIterator<Bytes>.
QueryResult run_multi_versioned_key_query(const Query& query, const QueryConfig& config,
                                          StateStore& store) {
  if (dynamic_cast<VersionedKeyValueBytesStore*>(&store) == nullptr) {
    return QueryResult::for_unknown_query_type(query, store.java_class());
  }
  auto* rocksdb = dynamic_cast<RocksDBVersionedStore*>(&store);
  IQ_ASSERT(rocksdb != nullptr, "a versioned store that is not a RocksDBVersionedStore");
  const auto* raw = dynamic_cast<const MultiVersionedKeyQuery<Bytes, Bytes>*>(&query);
  IQ_ASSERT(raw != nullptr, "a typed MultiVersionedKeyQuery reached the position owner: {}",
            query.to_string());
  IQ_ASSERT(raw->from_time() && raw->to_time(), "the typed layer always sets both times");
  switch (raw->result_order()) {
    case ResultOrder::ANY:
      IQ_PROBE("versioned.order.ANY", "a multi-version query ran with ResultOrder ANY");
      break;
    case ResultOrder::ASCENDING:
      IQ_PROBE("versioned.order.ASCENDING", "a multi-version query ran with ResultOrder ASCENDING");
      break;
    case ResultOrder::DESCENDING:
      IQ_PROBE("versioned.order.DESCENDING",
               "a multi-version query ran with ResultOrder DESCENDING");
      break;
  }
  auto records = rocksdb->get(raw->key(), *raw->from_time(), *raw->to_time(), raw->result_order(),
                              config.isolation_level());
  if (!records) return store_exception(store, query, records.error());
  return QueryResult::for_result(std::move(*records));
}

}  // namespace

bool is_permitted(const Position& store_position, const PositionBound& bound, int32_t partition) {
  for (const auto& [topic, bound_partitions] : bound.position().map()) {
    const auto b = bound_partitions.find(partition);
    if (b == bound_partitions.end()) continue;  // this topic does not constrain this partition
    const int64_t* have = store_position.offset(topic, partition);
    if (have == nullptr) return false;
    if (*have < b->second) return false;
  }
  return true;
}

void update_position(Position& position, const StateStoreContext* context) {
  if (context == nullptr) return;
  const RecordContext* rc = context->record_context();
  if (rc == nullptr || !rc->topic.has_value()) return;
  position.with_component(*rc->topic, rc->partition, rc->offset);
}

std::string window_range_with_key_message(std::string_view store_class, const Query& query) {
  return "This store (" + std::string(store_class) +
         ") doesn't know how to execute the given query (" + query.to_string() +
         ") because WindowStores only supports WindowRangeQuery.withWindowStartRange. Contact the "
         "store maintainer if you need support for a new query type.";
}

std::string session_range_with_time_message(std::string_view store_class, const Query& query) {
  return "This store (" + std::string(store_class) +
         ") doesn't know how to execute the given query (" + query.to_string() +
         ") because SessionStores only support WindowRangeQuery.withKey. Contact the store "
         "maintainer if you need support for a new query type.";
}

std::string execution_info(std::string_view java_class) {
  return "Handled in " + std::string(java_class);
}

QueryResult handle_basic_queries(const Query& query, const PositionBound& bound,
                                 const QueryConfig& config, StateStore& store,
                                 const Position& position, const StateStoreContext* context) {
  const QueryKind kind = query.kind();
  // The handler map is keyed by exact class: the Timestamped* queries and custom classes miss.
  const bool known = kind == QueryKind::KeyQuery || kind == QueryKind::RangeQuery ||
                     kind == QueryKind::WindowKeyQuery || kind == QueryKind::WindowRangeQuery ||
                     kind == QueryKind::VersionedKeyQuery ||
                     kind == QueryKind::MultiVersionedKeyQuery;
  // Built in place (no placeholder result constructed, then overwritten): this runs per query.
  QueryResult result = [&] {
    if (!known) return QueryResult::for_unknown_query_type(query, store.java_class());
    if (context == nullptr) return QueryResult::not_up_to_bound(position, bound, std::nullopt);
    if (!is_permitted(position, bound, context->task_id().partition))
      return QueryResult::not_up_to_bound(position, bound, context->task_id().partition);
    switch (kind) {
      case QueryKind::KeyQuery:
        return run_key_query(query, config, store);
      case QueryKind::RangeQuery:
        return run_range_query(query, config, store);
      case QueryKind::WindowKeyQuery:
        return run_window_key_query(query, config, store);
      case QueryKind::WindowRangeQuery:
        return run_window_range_query(query, config, store);
      case QueryKind::VersionedKeyQuery:
        return run_versioned_key_query(query, config, store);
      default:
        IQ_ASSERT(kind == QueryKind::MultiVersionedKeyQuery);
        return run_multi_versioned_key_query(query, config, store);
    }
  }();
  if (config.is_collect_execution_info())
    result.add_execution_info(execution_info(store.java_class()));
  result.set_position(position.copy());
  return result;
}

Status apply_checks_and_update_position(const ConsumerRecord& record, bool consistency_enabled,
                                        Position& position) {
  if (!consistency_enabled) return ok_status();
  const Header* v = last_header(record.headers, kVectorVersionHeader);
  if (v == nullptr) return ok_status();
  if (v->value.empty()) {
    return base::unexpected(StreamsError{
        StreamsError::Kind::Streams, "Index 0 out of bounds for length 0 (empty \"v\" header)"});
  }
  if (static_cast<uint8_t>(v->value.get()[0]) != kVectorVersion) return ok_status();  // Kafka warns
  const Header* c = last_header(record.headers, kVectorHeader);
  if (c == nullptr) {
    return base::unexpected(StreamsError{
        StreamsError::Kind::Streams,
        "Inconsistency flag is set but no consistency vector found in the record headers"});
  }
  auto vector = position_serde::deserialize(c->value.view());
  if (!vector) return base::unexpected(vector.error());
  position.merge(*vector);
  return ok_status();
}

}  // namespace iq::store_query_utils
