#pragma once
#include "iq/kafka_pin.h"
#include "iq/query.h"

namespace iq {

// WindowKeyQuery (KIP-806): the windows of one key whose start lies in [timeFrom, timeTo].
//
// Kafka quirk kept on purpose at the old pin (docs/iqv2-semantics.md quirk 2): the private
// constructor declares (key, timeTo, timeFrom) while the factory passes (key, from, to), so
// time_from() returns the caller's `to` and time_to() the caller's `from`, and to_string() shows
// them swapped. The typed window layer rebuilds the raw query through the same factory with
// (time_from(), time_to()) and the query's pin, which swaps them back, so stores see the right
// range under both pins. Pin delta 18 (cacab1cc81): the 2026-08-20 constructor takes (from, to),
// so nothing is swapped. The pin is the Kafka the caller's code links against.
template <typename K, typename V>
class WindowKeyQuery final : public Query {
 public:
  static WindowKeyQuery with_key_and_window_start_range(K key, int64_t time_from_ms,
                                                        int64_t time_to_ms,
                                                        KafkaPin pin = KafkaPin::k2024_10_25) {
    if (at_least(pin, KafkaPin::k2026_08_20)) {
      return WindowKeyQuery(std::move(key), time_from_ms, time_to_ms, pin);
    }
    return WindowKeyQuery(std::move(key), /*from=*/time_to_ms, /*to=*/time_from_ms, pin);
  }

  const K& key() const { return key_; }
  std::optional<int64_t> time_from() const { return time_from_; }
  std::optional<int64_t> time_to() const { return time_to_; }
  KafkaPin kafka_pin() const { return pin_; }

  QueryKind kind() const override { return QueryKind::WindowKeyQuery; }
  bool is_raw() const override { return kIsRaw<K, V>; }
  std::string describe() const override { return to_string(); }
  std::string to_string() const override {
    return "WindowKeyQuery{key=" + display(key_) + ", timeFrom=" + instant_optional(time_from_) +
           ", timeTo=" + instant_optional(time_to_) + "}";
  }

 private:
  WindowKeyQuery(K key, int64_t time_from, int64_t time_to, KafkaPin pin)
      : key_(std::move(key)), time_from_(time_from), time_to_(time_to), pin_(pin) {}
  static std::string instant_optional(const std::optional<int64_t>& t) {
    return t ? "Optional[" + instant_to_string(*t) + "]" : "Optional.empty";
  }
  K key_;
  std::optional<int64_t> time_from_;
  std::optional<int64_t> time_to_;
  KafkaPin pin_;
};

}  // namespace iq
