#pragma once
// The header-aware query types of KIP-1356 (2026-08-20 pin only, pin delta 15):
// TimestampedKeyWithHeadersQuery, TimestampedRangeWithHeadersQuery,
// TimestampedWindowKeyWithHeadersQuery and TimestampedWindowRangeWithHeadersQuery
// (org.apache.kafka.streams.query). Only the Metered*WithHeaders layers of header stores
// (dsl.store.format = HEADERS) answer them; impl/ builds no header store yet, so every store
// answers them UNKNOWN_QUERY_TYPE: no metered, caching or adapter layer has a handler for their
// classes, and StoreQueryUtils.handleBasicQueries' exact-class map does not know them, which it
// answers before its bound check, with the store's position (docs/kafka-2026-08-20.md §5).
// The results (ReadOnlyRecord, ReadOnlyRecordIterator) are not modelled until header stores are.

#include <optional>

#include "iq/query.h"
#include "iq/result_order.h"

namespace iq {

namespace with_headers_detail {
inline std::string instant_optional(const std::optional<int64_t>& t) {
  return t ? "Optional[" + instant_to_string(*t) + "]" : "Optional.empty";
}
}  // namespace with_headers_detail

// withKey(key), skipCache() (kept by the header metered layer, unlike KeyQuery's: quirk 1).
template <typename K, typename V>
class TimestampedKeyWithHeadersQuery final : public Query {
 public:
  static TimestampedKeyWithHeadersQuery with_key(K key) {
    return TimestampedKeyWithHeadersQuery(std::move(key), false);
  }
  TimestampedKeyWithHeadersQuery skip_cache() const { return {key_, true}; }
  const K& key() const { return key_; }
  bool is_skip_cache() const { return skip_cache_; }

  QueryKind kind() const override { return QueryKind::TimestampedKeyWithHeadersQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  // No toString of its own in Kafka: Object.toString.
  std::string to_string() const override {
    return java_object_string("org.apache.kafka.streams.query.TimestampedKeyWithHeadersQuery",
                              describe());
  }
  std::string describe() const override {
    return "TimestampedKeyWithHeadersQuery{key=" + display(key_) +
           (skip_cache_ ? ", skipCache}" : "}");
  }

 private:
  TimestampedKeyWithHeadersQuery(K key, bool skip_cache)
      : key_(std::move(key)), skip_cache_(skip_cache) {}
  K key_;
  bool skip_cache_;
};

// withRange/withLowerBound/withUpperBound/withNoBounds, with{Ascending,Descending}Keys.
template <typename K, typename V>
class TimestampedRangeWithHeadersQuery final : public Query {
 public:
  static TimestampedRangeWithHeadersQuery with_range(std::optional<K> lower,
                                                     std::optional<K> upper) {
    return TimestampedRangeWithHeadersQuery(std::move(lower), std::move(upper), ResultOrder::ANY);
  }
  TimestampedRangeWithHeadersQuery with_descending_keys() const {
    return {lower_, upper_, ResultOrder::DESCENDING};
  }
  TimestampedRangeWithHeadersQuery with_ascending_keys() const {
    return {lower_, upper_, ResultOrder::ASCENDING};
  }
  const std::optional<K>& lower_bound() const { return lower_; }
  const std::optional<K>& upper_bound() const { return upper_; }
  ResultOrder result_order() const { return order_; }

  QueryKind kind() const override { return QueryKind::TimestampedRangeWithHeadersQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  std::string to_string() const override {
    return java_object_string("org.apache.kafka.streams.query.TimestampedRangeWithHeadersQuery",
                              describe());
  }
  std::string describe() const override {
    return "TimestampedRangeWithHeadersQuery{lower=" + display_optional(lower_) +
           ", upper=" + display_optional(upper_) + "}";
  }

 private:
  TimestampedRangeWithHeadersQuery(std::optional<K> lower, std::optional<K> upper,
                                   ResultOrder order)
      : lower_(std::move(lower)), upper_(std::move(upper)), order_(order) {}
  std::optional<K> lower_;
  std::optional<K> upper_;
  ResultOrder order_;
};

// withKeyAndWindowStartRange(key, from, to): the getters are not swapped (unlike quirk 2).
template <typename K, typename V>
class TimestampedWindowKeyWithHeadersQuery final : public Query {
 public:
  static TimestampedWindowKeyWithHeadersQuery with_key_and_window_start_range(K key,
                                                                              int64_t time_from_ms,
                                                                              int64_t time_to_ms) {
    return TimestampedWindowKeyWithHeadersQuery(std::move(key), time_from_ms, time_to_ms);
  }
  const K& key() const { return key_; }
  std::optional<int64_t> time_from() const { return time_from_; }
  std::optional<int64_t> time_to() const { return time_to_; }

  QueryKind kind() const override { return QueryKind::TimestampedWindowKeyWithHeadersQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  std::string describe() const override { return to_string(); }
  std::string to_string() const override {
    return "TimestampedWindowKeyWithHeadersQuery{key=" + display(key_) +
           ", timeFrom=" + with_headers_detail::instant_optional(time_from_) +
           ", timeTo=" + with_headers_detail::instant_optional(time_to_) + "}";
  }

 private:
  TimestampedWindowKeyWithHeadersQuery(K key, int64_t from, int64_t to)
      : key_(std::move(key)), time_from_(from), time_to_(to) {}
  K key_;
  std::optional<int64_t> time_from_;
  std::optional<int64_t> time_to_;
};

// withKey(key) (session stores) or withWindowStartRange(from, to) (window stores).
template <typename K, typename V>
class TimestampedWindowRangeWithHeadersQuery final : public Query {
 public:
  static TimestampedWindowRangeWithHeadersQuery with_key(K key) {
    return TimestampedWindowRangeWithHeadersQuery(std::move(key), std::nullopt, std::nullopt);
  }
  static TimestampedWindowRangeWithHeadersQuery with_window_start_range(int64_t time_from_ms,
                                                                        int64_t time_to_ms) {
    return TimestampedWindowRangeWithHeadersQuery(std::nullopt, time_from_ms, time_to_ms);
  }
  const std::optional<K>& key() const { return key_; }
  std::optional<int64_t> time_from() const { return time_from_; }
  std::optional<int64_t> time_to() const { return time_to_; }

  QueryKind kind() const override { return QueryKind::TimestampedWindowRangeWithHeadersQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  std::string describe() const override { return to_string(); }
  std::string to_string() const override {
    return "TimestampedWindowRangeWithHeadersQuery{key=" + display_optional(key_) +
           ", timeFrom=" + with_headers_detail::instant_optional(time_from_) +
           ", timeTo=" + with_headers_detail::instant_optional(time_to_) + "}";
  }

 private:
  TimestampedWindowRangeWithHeadersQuery(std::optional<K> key, std::optional<int64_t> from,
                                         std::optional<int64_t> to)
      : key_(std::move(key)), time_from_(from), time_to_(to) {}
  std::optional<K> key_;
  std::optional<int64_t> time_from_;
  std::optional<int64_t> time_to_;
};

}  // namespace iq
