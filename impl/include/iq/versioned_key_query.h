#pragma once
#include "iq/query.h"
#include "iq/versioned_record.h"

namespace iq {

// VersionedKeyQuery (KIP-960): the latest version of a key, or the version valid at as_of().
// Only the versioned store answers it; on key-value stores the bound is checked first, then
// UNKNOWN_QUERY_TYPE. Result type: std::optional<VersionedRecord<V>> (nullopt where Kafka's result
// is null: no version valid then, or the key absent).
template <typename K, typename V>
class VersionedKeyQuery final : public Query {
 public:
  using Result = std::optional<VersionedRecord<V>>;
  static VersionedKeyQuery with_key(K key) {
    return VersionedKeyQuery(std::move(key), std::nullopt);
  }
  VersionedKeyQuery as_of(int64_t as_of_ms) const { return VersionedKeyQuery(key_, as_of_ms); }

  const K& key() const { return key_; }
  std::optional<int64_t> as_of_timestamp() const { return as_of_; }

  QueryKind kind() const override { return QueryKind::VersionedKeyQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  std::string to_string() const override {
    return java_object_string("org.apache.kafka.streams.query.VersionedKeyQuery", describe());
  }
  std::string describe() const override {
    return "VersionedKeyQuery{key=" + display(key_) + ", asOfTimestamp=" +
           (as_of_ ? "Optional[" + instant_to_string(*as_of_) + "]" : "Optional.empty") + "}";
  }

 private:
  VersionedKeyQuery(K key, std::optional<int64_t> as_of) : key_(std::move(key)), as_of_(as_of) {}
  K key_;
  std::optional<int64_t> as_of_;
};

}  // namespace iq
