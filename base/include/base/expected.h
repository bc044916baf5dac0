#pragma once
// Expected<T, E>: a value or an error, for operations whose failure is an operating condition.
// C++23's std::expected would do; g++ 12 in C++20 mode does not ship it, so this is the small
// subset the project uses.

#include <utility>
#include <variant>

#include "base/assert.h"

namespace iq::base {

template <typename E>
struct Unexpected {
  E error;
};
template <typename E>
Unexpected<std::decay_t<E>> unexpected(E&& e) {
  return {std::forward<E>(e)};
}

template <typename T, typename E>
class [[nodiscard]] Expected {
 public:
  // A copy or a move into place (one move fewer than taking T by value: a QueryResult passes up
  // every layer of a store stack this way).
  Expected(const T& value) : v_(std::in_place_index<0>, value) {}  // NOLINT: implicit on purpose
  Expected(T&& value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit
  template <typename G>
  Expected(Unexpected<G> u) : v_(std::in_place_index<1>, E(std::move(u.error))) {}  // NOLINT

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & {
    IQ_ASSERT(has_value(), "Expected::value() on an error");
    return std::get<0>(v_);
  }
  const T& value() const& {
    IQ_ASSERT(has_value(), "Expected::value() on an error");
    return std::get<0>(v_);
  }
  T&& value() && {
    IQ_ASSERT(has_value(), "Expected::value() on an error");
    return std::get<0>(std::move(v_));
  }
  const E& error() const {
    IQ_ASSERT(!has_value(), "Expected::error() on a value");
    return std::get<1>(v_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, E> v_;
};

}  // namespace iq::base
