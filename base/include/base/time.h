#pragma once
// Virtual time. Every clock reading in iqsim is an Instant: milliseconds since the simulation
// epoch (the moment a simulated world starts), never a wall-clock reading. A Duration is a signed
// span of milliseconds. There is deliberately no type here that can hold or obtain real time: a
// run's behaviour must depend only on its seed and its scenario.
//
// Both are thin strong types over int64_t so that "a point in time" and "a span of time" cannot be
// mixed up: Instant + Duration is an Instant, Instant - Instant is a Duration, Instant + Instant
// does not compile. Arithmetic asserts on int64 overflow instead of wrapping.

#include <compare>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "base/assert.h"

namespace iq::base {

namespace time_detail {
inline int64_t checked_add(int64_t a, int64_t b) {
  int64_t out = 0;
  IQ_ASSERT(!__builtin_add_overflow(a, b, &out), "virtual time overflow: {} + {}", a, b);
  return out;
}
inline int64_t checked_sub(int64_t a, int64_t b) {
  int64_t out = 0;
  IQ_ASSERT(!__builtin_sub_overflow(a, b, &out), "virtual time overflow: {} - {}", a, b);
  return out;
}
inline int64_t checked_mul(int64_t a, int64_t b) {
  int64_t out = 0;
  IQ_ASSERT(!__builtin_mul_overflow(a, b, &out), "virtual time overflow: {} * {}", a, b);
  return out;
}
}  // namespace time_detail

// A signed span of virtual milliseconds.
class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration millis(int64_t ms) { return Duration(ms); }
  static constexpr Duration seconds(int64_t s) { return Duration(s * 1000); }
  static constexpr Duration zero() { return Duration(0); }
  static constexpr Duration max() { return Duration(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t ms() const { return ms_; }

  friend Duration operator+(Duration a, Duration b) {
    return Duration(time_detail::checked_add(a.ms_, b.ms_));
  }
  friend Duration operator-(Duration a, Duration b) {
    return Duration(time_detail::checked_sub(a.ms_, b.ms_));
  }
  friend Duration operator-(Duration a) { return Duration(time_detail::checked_sub(0, a.ms_)); }
  friend Duration operator*(Duration a, int64_t k) {
    return Duration(time_detail::checked_mul(a.ms_, k));
  }
  friend Duration operator*(int64_t k, Duration a) { return a * k; }
  Duration& operator+=(Duration other) { return *this = *this + other; }
  Duration& operator-=(Duration other) { return *this = *this - other; }
  friend constexpr auto operator<=>(Duration, Duration) = default;
  friend constexpr bool operator==(Duration, Duration) = default;

  // "250ms", "-3ms".
  std::string to_string() const { return fmt::format("{}ms", ms_); }
  friend std::ostream& operator<<(std::ostream& os, Duration d) { return os << d.to_string(); }

 private:
  constexpr explicit Duration(int64_t ms) : ms_(ms) {}
  int64_t ms_ = 0;
};

// A point in virtual time: milliseconds since the simulation epoch. The default is the epoch.
class Instant {
 public:
  constexpr Instant() = default;
  static constexpr Instant epoch() { return Instant(0); }
  static constexpr Instant from_ms(int64_t ms_since_epoch) { return Instant(ms_since_epoch); }
  // Later than every reachable instant: "never", for timers that are not armed.
  static constexpr Instant max() { return Instant(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t ms_since_epoch() const { return ms_; }

  friend Instant operator+(Instant t, Duration d) {
    return Instant(time_detail::checked_add(t.ms_, d.ms()));
  }
  friend Instant operator+(Duration d, Instant t) { return t + d; }
  friend Instant operator-(Instant t, Duration d) {
    return Instant(time_detail::checked_sub(t.ms_, d.ms()));
  }
  friend Duration operator-(Instant a, Instant b) {
    return Duration::millis(time_detail::checked_sub(a.ms_, b.ms_));
  }
  Instant& operator+=(Duration d) { return *this = *this + d; }
  Instant& operator-=(Duration d) { return *this = *this - d; }
  friend constexpr auto operator<=>(Instant, Instant) = default;
  friend constexpr bool operator==(Instant, Instant) = default;

  // "t=1500ms": the t= keeps an instant from being read as a duration in traces.
  std::string to_string() const { return fmt::format("t={}ms", ms_); }
  friend std::ostream& operator<<(std::ostream& os, Instant t) { return os << t.to_string(); }

 private:
  constexpr explicit Instant(int64_t ms) : ms_(ms) {}
  int64_t ms_ = 0;
};

namespace literals {
// 250_ms is Duration::millis(250).
constexpr Duration operator""_ms(unsigned long long ms) {
  return Duration::millis(static_cast<int64_t>(ms));
}
}  // namespace literals

}  // namespace iq::base

// So that IQ_ASSERT messages and fmt::format can print virtual time directly.
template <>
struct fmt::formatter<iq::base::Duration> : fmt::formatter<std::string> {
  template <typename FormatContext>
  auto format(iq::base::Duration d, FormatContext& ctx) const {
    return fmt::formatter<std::string>::format(d.to_string(), ctx);
  }
};
template <>
struct fmt::formatter<iq::base::Instant> : fmt::formatter<std::string> {
  template <typename FormatContext>
  auto format(iq::base::Instant t, FormatContext& ctx) const {
    return fmt::formatter<std::string>::format(t.to_string(), ctx);
  }
};
