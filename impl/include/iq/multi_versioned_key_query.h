#pragma once
#include "iq/query.h"
#include "iq/result_order.h"
#include "iq/versioned_record.h"

namespace iq {

// MultiVersionedKeyQuery (KIP-968): the versions of a key valid within [fromTime, toTime]; either
// end open. Default order ANY, which the versioned store executes newest first. Result type:
// VersionedRecordIterator<V> (see versioned_record.h).
template <typename K, typename V>
class MultiVersionedKeyQuery final : public Query {
 public:
  using Result = VersionedRecordIterator<V>;
  static MultiVersionedKeyQuery with_key(K key) {
    return MultiVersionedKeyQuery(std::move(key), std::nullopt, std::nullopt, ResultOrder::ANY);
  }
  MultiVersionedKeyQuery from_time(std::optional<int64_t> from_ms) const {
    return MultiVersionedKeyQuery(key_, from_ms, to_, order_);
  }
  MultiVersionedKeyQuery to_time(std::optional<int64_t> to_ms) const {
    return MultiVersionedKeyQuery(key_, from_, to_ms, order_);
  }
  MultiVersionedKeyQuery with_ascending_timestamps() const {
    return MultiVersionedKeyQuery(key_, from_, to_, ResultOrder::ASCENDING);
  }
  MultiVersionedKeyQuery with_descending_timestamps() const {
    return MultiVersionedKeyQuery(key_, from_, to_, ResultOrder::DESCENDING);
  }

  const K& key() const { return key_; }
  std::optional<int64_t> from_time() const { return from_; }
  std::optional<int64_t> to_time() const { return to_; }
  ResultOrder result_order() const { return order_; }

  QueryKind kind() const override { return QueryKind::MultiVersionedKeyQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  std::string to_string() const override {
    return java_object_string("org.apache.kafka.streams.query.MultiVersionedKeyQuery", describe());
  }
  std::string describe() const override {
    return "MultiVersionedKeyQuery{key=" + display(key_) + ", fromTime=" + instant(from_) +
           ", toTime=" + instant(to_) + ", order=" + iq::to_string(order_) + "}";
  }

 private:
  MultiVersionedKeyQuery(K key, std::optional<int64_t> f, std::optional<int64_t> t, ResultOrder o)
      : key_(std::move(key)), from_(f), to_(t), order_(o) {}
  static std::string instant(const std::optional<int64_t>& t) {
    return t ? "Optional[" + instant_to_string(*t) + "]" : "Optional.empty";
  }
  K key_;
  std::optional<int64_t> from_;
  std::optional<int64_t> to_;
  ResultOrder order_;
};

}  // namespace iq
