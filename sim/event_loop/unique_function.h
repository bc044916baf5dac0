#pragma once
// UniqueFunction<R(Args...)>: a move-only std::function. C++23's std::move_only_function would
// do; g++ 12 in C++20 mode does not ship it. Event handlers and Asio completion handlers are often
// move-only (they own a message, a coroutine frame, a unique_ptr), so the event loop stores them in
// this instead of std::function, which demands copyable targets.
//
// Small targets live inside the object (kInlineBytes; most handlers capture a pointer or three):
// every event has a handler, and a heap block per handler was one malloc and one free per event
// (docs/performance.md, fourth pass). A larger target, or one whose move may throw, goes to the
// heap as before. A moved-from UniqueFunction is empty either way. Unlike a heap target, an inline
// one moves with its UniqueFunction: nothing may keep a pointer into a target across a move of the
// UniqueFunction that holds it (nothing here does: a handler runs after its last move).

#include <cstddef>
#include <cstring>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

#include "base/assert.h"

namespace iq::sim {

template <typename Signature>
class UniqueFunction;

template <typename R, typename... Args>
class UniqueFunction<R(Args...)> {
 public:
  static constexpr size_t kInlineBytes = 48;

  UniqueFunction() = default;
  UniqueFunction(std::nullptr_t) {}  // NOLINT: implicit, like std::function

  template <typename F,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, UniqueFunction> &&
                                        std::is_invocable_r_v<R, std::decay_t<F>&, Args...>>>
  UniqueFunction(F&& f) {  // NOLINT: implicit, like std::function
    using T = std::decay_t<F>;
    if constexpr (fits_inline<T>()) {
      ::new (static_cast<void*>(storage_)) T(std::forward<F>(f));
      ops_ = &kInlineOps<T>;
    } else {
      heap() = new T(std::forward<F>(f));
      ops_ = &kHeapOps<T>;
    }
  }

  UniqueFunction(UniqueFunction&& other) noexcept { take(other); }
  UniqueFunction& operator=(UniqueFunction&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  UniqueFunction(const UniqueFunction&) = delete;
  UniqueFunction& operator=(const UniqueFunction&) = delete;
  ~UniqueFunction() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }

  R operator()(Args... args) {
    IQ_ASSERT(ops_ != nullptr, "call of an empty UniqueFunction");
    return ops_->call(storage_, std::forward<Args>(args)...);
  }

 private:
  // What a stored target type can do: call it, move it from one storage to another (leaving the
  // source with nothing to destroy), destroy it. A null `move` relocates by copying the storage's
  // bytes (a heap target's pointer; an inline target that is trivially copyable, such as a lambda
  // capturing pointers and numbers), a null `destroy` has nothing to do: a handler moves several
  // times between its scheduling and its call, so these are the common case kept off indirect
  // calls.
  struct Ops {
    R (*call)(unsigned char* storage, Args&&... args);
    void (*move)(unsigned char* from, unsigned char* to) noexcept;
    void (*destroy)(unsigned char* storage) noexcept;
  };
  template <typename T>
  static constexpr bool kTrivial =
      std::is_trivially_copyable_v<T>&& std::is_trivially_destructible_v<T>;

  template <typename T>
  static constexpr bool fits_inline() {
    return sizeof(T) <= kInlineBytes && alignof(T) <= alignof(void*) &&
           std::is_nothrow_move_constructible_v<T>;
  }
  template <typename T>
  static T* inline_target(unsigned char* storage) {
    return std::launder(reinterpret_cast<T*>(storage));
  }
  void*& heap() { return *reinterpret_cast<void**>(storage_); }

  template <typename T>
  static constexpr Ops kInlineOps{
      [](unsigned char* s, Args&&... args) -> R {
        return std::invoke(*inline_target<T>(s), std::forward<Args>(args)...);
      },
      kTrivial<T> ? nullptr
                  : +[](unsigned char* from, unsigned char* to) noexcept {
                      T* source = inline_target<T>(from);
                      ::new (static_cast<void*>(to)) T(std::move(*source));
                      source->~T();
                    },
      kTrivial<T> ? nullptr : +[](unsigned char* s) noexcept { inline_target<T>(s)->~T(); },
  };
  template <typename T>
  static constexpr Ops kHeapOps{
      [](unsigned char* s, Args&&... args) -> R {
        return std::invoke(**reinterpret_cast<T**>(s), std::forward<Args>(args)...);
      },
      nullptr,
      [](unsigned char* s) noexcept { delete *reinterpret_cast<T**>(s); },
  };

  void take(UniqueFunction& other) noexcept {
    if (other.ops_ == nullptr) return;
    if (other.ops_->move == nullptr) {
      std::memcpy(storage_, other.storage_, kInlineBytes);
    } else {
      other.ops_->move(other.storage_, storage_);
    }
    ops_ = other.ops_;
    other.ops_ = nullptr;
  }
  // Empties this first, then destroys the target, so a destructor that looks at this function
  // finds it empty.
  void reset() noexcept {
    if (ops_ == nullptr) return;
    const Ops* ops = ops_;
    ops_ = nullptr;
    if (ops->destroy != nullptr) ops->destroy(storage_);
  }

  const Ops* ops_ = nullptr;
  alignas(void*) unsigned char storage_[kInlineBytes];
};

}  // namespace iq::sim
