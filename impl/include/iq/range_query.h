#pragma once
#include <vector>

#include "iq/query.h"
#include "iq/raw_sinks.h"
#include "iq/result_order.h"

namespace iq {

// RangeQuery (KIP-805/941/985): keys in [lower, upper], both inclusive, either open. Default order
// ANY, which every built-in key-value store executes ascending. Results are per partition.
// Result type: KeyValueIterator<K, V> (see key_value_iterator.h).
template <typename K, typename V>
class RangeQuery final : public Query {
 public:
  static RangeQuery with_range(std::optional<K> lower, std::optional<K> upper) {
    return RangeQuery(std::move(lower), std::move(upper), ResultOrder::ANY, nullptr);
  }
  static RangeQuery with_lower_bound(K lower) { return with_range(std::move(lower), std::nullopt); }
  static RangeQuery with_upper_bound(K upper) { return with_range(std::nullopt, std::move(upper)); }
  static RangeQuery with_no_bounds() { return with_range(std::nullopt, std::nullopt); }
  RangeQuery with_descending_keys() const {
    return RangeQuery(lower_, upper_, ResultOrder::DESCENDING, entry_sink_);
  }
  RangeQuery with_ascending_keys() const {
    return RangeQuery(lower_, upper_, ResultOrder::ASCENDING, entry_sink_);
  }
  // The typed layer's decoder for the entries (raw_sinks.h); not part of the query's identity, so
  // to_string() and describe() do not show it.
  RangeQuery with_entry_sink(RawEntrySink* sink) const {
    return RangeQuery(lower_, upper_, order_, sink);
  }
  RawEntrySink* entry_sink() const { return entry_sink_; }

  const std::optional<K>& lower_bound() const { return lower_; }
  const std::optional<K>& upper_bound() const { return upper_; }
  ResultOrder result_order() const { return order_; }

  QueryKind kind() const override { return QueryKind::RangeQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  std::string to_string() const override {
    return java_object_string("org.apache.kafka.streams.query.RangeQuery", describe());
  }
  std::string describe() const override {
    return "RangeQuery{lower=" + display_optional(lower_) + ", upper=" + display_optional(upper_) +
           ", order=" + iq::to_string(order_) + "}";
  }

 private:
  RangeQuery(std::optional<K> l, std::optional<K> u, ResultOrder o, RawEntrySink* sink)
      : lower_(std::move(l)), upper_(std::move(u)), order_(o), entry_sink_(sink) {}
  std::optional<K> lower_;
  std::optional<K> upper_;
  ResultOrder order_;
  RawEntrySink* entry_sink_;
};

}  // namespace iq
