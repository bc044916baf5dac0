#pragma once
// AnyResult: what a QueryResult holds for Java's erased result type R. It is std::any with a
// larger inline buffer: std::any (libstdc++) keeps only a value of one pointer's size in place and
// puts every other on the heap, so each typed KeyQuery answer (an optional<int64_t> is 16 bytes,
// an optional<ValueAndTimestamp<int64_t>> 24) cost an allocation and a free. Here a value of up to
// kInlineBytes that moves without throwing stays inside the object; a larger one (an iterator's
// vector is 24 bytes and stays inline too; a versioned record list may not) goes to the heap.
//
// Only what QueryResult's users need: construction from any copyable value, has_value(), type(),
// and the typed pointer (get_if, or any_cast as std::any_cast reads).

#include <cstddef>
#include <new>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace iq {

class AnyResult {
 public:
  static constexpr size_t kInlineBytes = 32;

  AnyResult() noexcept = default;

  template <typename T, typename D = std::decay_t<T>,
            typename = std::enable_if_t<!std::is_same_v<D, AnyResult>>>
  AnyResult(T&& value) {  // NOLINT(google-explicit-constructor): implicit, as std::any's
    static_assert(std::is_copy_constructible_v<D>, "a query result must be copyable");
    if constexpr (kFitsInline<D>) {
      ::new (static_cast<void*>(storage_.buffer)) D(std::forward<T>(value));
    } else {
      storage_.heap = new D(std::forward<T>(value));
    }
    ops_ = &kOps<D>;
  }

  AnyResult(const AnyResult& other) {
    if (other.ops_ != nullptr) other.ops_->copy(other.storage_, storage_);
    ops_ = other.ops_;
  }
  AnyResult(AnyResult&& other) noexcept {
    if (other.ops_ != nullptr) other.ops_->move(other.storage_, storage_);
    ops_ = std::exchange(other.ops_, nullptr);
  }
  AnyResult& operator=(const AnyResult& other) {
    if (this != &other) *this = AnyResult(other);
    return *this;
  }
  AnyResult& operator=(AnyResult&& other) noexcept {
    if (this == &other) return *this;
    reset();
    if (other.ops_ != nullptr) other.ops_->move(other.storage_, storage_);
    ops_ = std::exchange(other.ops_, nullptr);
    return *this;
  }
  ~AnyResult() { reset(); }

  bool has_value() const noexcept { return ops_ != nullptr; }
  const std::type_info& type() const noexcept {
    return ops_ != nullptr ? ops_->type() : typeid(void);
  }

  // The value if it is a T, else nullptr.
  template <typename T>
  const T* get_if() const noexcept {
    if (ops_ == nullptr) return nullptr;
    // The same ops object means the same type; a type from another copy of the template (another
    // shared object) is still recognized by its type_info, as std::any does.
    if (ops_ != &kOps<T> && ops_->type() != typeid(T)) return nullptr;
    if constexpr (kFitsInline<T>) {
      return std::launder(reinterpret_cast<const T*>(storage_.buffer));
    } else {
      return static_cast<const T*>(storage_.heap);
    }
  }

  void reset() noexcept {
    if (ops_ != nullptr) std::exchange(ops_, nullptr)->destroy(storage_);
  }

 private:
  union Storage {
    alignas(std::max_align_t) unsigned char buffer[kInlineBytes];
    void* heap;
  };
  // The moves are noexcept on the inline path only when the value's own move is, which kFitsInline
  // requires; a heap value moves by handing over its pointer.
  template <typename D>
  static constexpr bool kFitsInline =
      sizeof(D) <= kInlineBytes &&
      alignof(D) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<D>;

  struct Ops {
    const std::type_info& (*type)() noexcept;
    void (*destroy)(Storage&) noexcept;
    void (*move)(Storage& from, Storage& to) noexcept;  // leaves `from` destroyed
    void (*copy)(const Storage& from, Storage& to);
  };

  template <typename D>
  static D* inline_ptr(Storage& s) noexcept {
    return std::launder(reinterpret_cast<D*>(s.buffer));
  }
  template <typename D>
  static const D* inline_ptr(const Storage& s) noexcept {
    return std::launder(reinterpret_cast<const D*>(s.buffer));
  }

  template <typename D>
  static constexpr Ops make_ops() noexcept {
    if constexpr (kFitsInline<D>) {
      return {[]() noexcept -> const std::type_info& { return typeid(D); },
              [](Storage& s) noexcept { inline_ptr<D>(s)->~D(); },
              [](Storage& from, Storage& to) noexcept {
                D* source = inline_ptr<D>(from);
                ::new (static_cast<void*>(to.buffer)) D(std::move(*source));
                source->~D();
              },
              [](const Storage& from, Storage& to) {
                ::new (static_cast<void*>(to.buffer)) D(*inline_ptr<D>(from));
              }};
    } else {
      return {
          []() noexcept -> const std::type_info& { return typeid(D); },
          [](Storage& s) noexcept { delete static_cast<D*>(s.heap); },
          [](Storage& from, Storage& to) noexcept { to.heap = std::exchange(from.heap, nullptr); },
          [](const Storage& from, Storage& to) {
            to.heap = new D(*static_cast<const D*>(from.heap));
          }};
    }
  }
  template <typename D>
  static constexpr Ops kOps = make_ops<D>();

  Storage storage_{};
  const Ops* ops_ = nullptr;  // nullptr: empty
};

// std::any_cast's pointer form, for readers written against std::any.
template <typename T>
const T* any_cast(const AnyResult* result) noexcept {
  return result != nullptr ? result->template get_if<T>() : nullptr;
}

}  // namespace iq
