#pragma once
#include "iq/query.h"

namespace iq {

// WindowRangeQuery (KIP-806), two shapes: with_key(k) (session stores accept only this one) and
// with_window_start_range(from, to) (window stores accept only this one).
template <typename K, typename V>
class WindowRangeQuery final : public Query {
 public:
  static WindowRangeQuery with_key(K key) {
    return WindowRangeQuery(std::move(key), std::nullopt, std::nullopt);
  }
  static WindowRangeQuery with_window_start_range(int64_t time_from_ms, int64_t time_to_ms) {
    return WindowRangeQuery(std::nullopt, time_from_ms, time_to_ms);
  }

  const std::optional<K>& key() const { return key_; }
  std::optional<int64_t> time_from() const { return time_from_; }
  std::optional<int64_t> time_to() const { return time_to_; }

  QueryKind kind() const override { return QueryKind::WindowRangeQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  std::string describe() const override { return to_string(); }
  std::string to_string() const override {
    return "WindowRangeQuery{key=" + display_optional(key_) +
           ", timeFrom=" + instant_optional(time_from_) + ", timeTo=" + instant_optional(time_to_) +
           "}";
  }

 private:
  WindowRangeQuery(std::optional<K> key, std::optional<int64_t> from, std::optional<int64_t> to)
      : key_(std::move(key)), time_from_(from), time_to_(to) {}
  static std::string instant_optional(const std::optional<int64_t>& t) {
    return t ? "Optional[" + instant_to_string(*t) + "]" : "Optional.empty";
  }
  std::optional<K> key_;
  std::optional<int64_t> time_from_;
  std::optional<int64_t> time_to_;
};

}  // namespace iq
