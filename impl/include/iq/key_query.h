#pragma once
#include "iq/query.h"
#include "iq/raw_sinks.h"

namespace iq {

// KeyQuery (org.apache.kafka.streams.query.KeyQuery): the value for one key, or null (nullopt).
// Result type: std::optional<V>. Note the skipCache quirk: the typed layers rebuild the raw query
// with with_key() and drop the flag (docs/iqv2-semantics.md quirk 1), so the cache is always
// consulted.
template <typename K, typename V>
class KeyQuery final : public Query {
 public:
  using Result = std::optional<V>;
  static KeyQuery with_key(K key) { return KeyQuery(std::move(key), false, nullptr); }
  KeyQuery skip_cache() const { return KeyQuery(key_, true, value_sink_); }
  // The typed layer's decoder for the value (raw_sinks.h); not part of the query's identity, so
  // to_string() and describe() do not show it.
  KeyQuery with_value_sink(RawValueSink* sink) const { return KeyQuery(key_, skip_cache_, sink); }
  RawValueSink* value_sink() const { return value_sink_; }

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
  KeyQuery(K key, bool skip, RawValueSink* sink)
      : key_(std::move(key)), skip_cache_(skip), value_sink_(sink) {}
  K key_;
  bool skip_cache_;
  RawValueSink* value_sink_;
};

}  // namespace iq
