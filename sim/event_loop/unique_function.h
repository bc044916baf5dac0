#pragma once
// UniqueFunction<R(Args...)>: a move-only std::function. C++23's std::move_only_function would
// do; g++ 12 in C++20 mode does not ship it. Event handlers and Asio completion handlers are often
// move-only (they own a message, a coroutine frame, a unique_ptr), so the event loop stores them in
// this instead of std::function, which demands copyable targets.

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include "base/assert.h"

namespace iq::sim {

template <typename Signature>
class UniqueFunction;

template <typename R, typename... Args>
class UniqueFunction<R(Args...)> {
 public:
  UniqueFunction() = default;
  UniqueFunction(std::nullptr_t) {}  // NOLINT: implicit, like std::function

  template <typename F,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, UniqueFunction> &&
                                        std::is_invocable_r_v<R, std::decay_t<F>&, Args...>>>
  UniqueFunction(F&& f)  // NOLINT: implicit, like std::function
      : target_(std::make_unique<Target<std::decay_t<F>>>(std::forward<F>(f))) {}

  UniqueFunction(UniqueFunction&&) noexcept = default;
  UniqueFunction& operator=(UniqueFunction&&) noexcept = default;
  UniqueFunction(const UniqueFunction&) = delete;
  UniqueFunction& operator=(const UniqueFunction&) = delete;

  explicit operator bool() const { return target_ != nullptr; }

  R operator()(Args... args) {
    IQ_ASSERT(target_ != nullptr, "call of an empty UniqueFunction");
    return target_->call(std::forward<Args>(args)...);
  }

 private:
  struct Callable {
    virtual ~Callable() = default;
    virtual R call(Args... args) = 0;
  };
  template <typename F>
  struct Target final : Callable {
    template <typename G>
    explicit Target(G&& g) : f(std::forward<G>(g)) {}
    R call(Args... args) override { return std::invoke(f, std::forward<Args>(args)...); }
    F f;
  };

  std::unique_ptr<Callable> target_;
};

}  // namespace iq::sim
