#pragma once
#include "iq/query.h"
#include "iq/result_order.h"
#include "iq/value_and_timestamp.h"

namespace iq {

// TimestampedRangeQuery (KIP-992): RangeQuery answered with ValueAndTimestamp<V> values. Only the
// timestamped typed layer knows it. Result type: KeyValueIterator<K, ValueAndTimestamp<V>>.
template <typename K, typename V>
class TimestampedRangeQuery final : public Query {
 public:
  static TimestampedRangeQuery with_range(std::optional<K> lower, std::optional<K> upper) {
    return TimestampedRangeQuery(std::move(lower), std::move(upper), ResultOrder::ANY);
  }
  static TimestampedRangeQuery with_lower_bound(K l) {
    return with_range(std::move(l), std::nullopt);
  }
  static TimestampedRangeQuery with_upper_bound(K u) {
    return with_range(std::nullopt, std::move(u));
  }
  static TimestampedRangeQuery with_no_bounds() { return with_range(std::nullopt, std::nullopt); }
  TimestampedRangeQuery with_descending_keys() const {
    return TimestampedRangeQuery(lower_, upper_, ResultOrder::DESCENDING);
  }
  TimestampedRangeQuery with_ascending_keys() const {
    return TimestampedRangeQuery(lower_, upper_, ResultOrder::ASCENDING);
  }

  const std::optional<K>& lower_bound() const { return lower_; }
  const std::optional<K>& upper_bound() const { return upper_; }
  ResultOrder result_order() const { return order_; }

  QueryKind kind() const override { return QueryKind::TimestampedRangeQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  std::string to_string() const override {
    return java_object_string("org.apache.kafka.streams.query.TimestampedRangeQuery", describe());
  }
  std::string describe() const override {
    return "TimestampedRangeQuery{lower=" + display_optional(lower_) +
           ", upper=" + display_optional(upper_) + ", order=" + iq::to_string(order_) + "}";
  }

 private:
  TimestampedRangeQuery(std::optional<K> l, std::optional<K> u, ResultOrder o)
      : lower_(std::move(l)), upper_(std::move(u)), order_(o) {}
  std::optional<K> lower_;
  std::optional<K> upper_;
  ResultOrder order_;
};

}  // namespace iq
