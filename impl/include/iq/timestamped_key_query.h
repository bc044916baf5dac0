#pragma once
#include "iq/query.h"
#include "iq/value_and_timestamp.h"

namespace iq {

// TimestampedKeyQuery (KIP-992): like KeyQuery but answered with ValueAndTimestamp<V>. Only the
// timestamped typed layer knows it; everywhere else it reaches the position owner unchanged and
// gets UNKNOWN_QUERY_TYPE. Result type: std::optional<ValueAndTimestamp<V>>.
template <typename K, typename V>
class TimestampedKeyQuery final : public Query {
 public:
  using Result = std::optional<ValueAndTimestamp<V>>;
  static TimestampedKeyQuery with_key(K key) { return TimestampedKeyQuery(std::move(key), false); }
  TimestampedKeyQuery skip_cache() const { return TimestampedKeyQuery(key_, true); }

  const K& key() const { return key_; }
  bool is_skip_cache() const { return skip_cache_; }

  QueryKind kind() const override { return QueryKind::TimestampedKeyQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  std::string to_string() const override {
    return java_object_string("org.apache.kafka.streams.query.TimestampedKeyQuery", describe());
  }
  std::string describe() const override {
    return "TimestampedKeyQuery{key=" + display(key_) +
           ", skipCache=" + (skip_cache_ ? "true" : "false") + "}";
  }

 private:
  TimestampedKeyQuery(K key, bool skip) : key_(std::move(key)), skip_cache_(skip) {}
  K key_;
  bool skip_cache_;
};

}  // namespace iq
