#pragma once
#include "iq/query.h"

namespace iq {

// KeyQuery (org.apache.kafka.streams.query.KeyQuery): the value for one key, or null (nullopt).
// Result type: std::optional<V>. Note the skipCache quirk: the typed layers rebuild the raw query
// with with_key() and drop the flag (docs/iqv2-semantics.md quirk 1), so the cache is always
// consulted.
template <typename K, typename V>
class KeyQuery final : public Query {
 public:
  using Result = std::optional<V>;
  static KeyQuery with_key(K key) { return KeyQuery(std::move(key), false); }
  KeyQuery skip_cache() const { return KeyQuery(key_, true); }

  const K& key() const { return key_; }
  bool is_skip_cache() const { return skip_cache_; }

  QueryKind kind() const override { return QueryKind::KeyQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  std::string to_string() const override {
    return java_object_string("org.apache.kafka.streams.query.KeyQuery", describe());
  }
  std::string describe() const override {
    return "KeyQuery{key=" + display(key_) + ", skipCache=" + (skip_cache_ ? "true" : "false") +
           "}";
  }

 private:
  KeyQuery(K key, bool skip) : key_(std::move(key)), skip_cache_(skip) {}
  K key_;
  bool skip_cache_;
};

}  // namespace iq
