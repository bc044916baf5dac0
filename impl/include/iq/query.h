#pragma once
// Query: the base of every IQv2 query (org.apache.kafka.streams.query.Query<R>).
//
// Java dispatches on a query's exact class and erases the result type; C++ does the same with
// kind() (the class, without its type arguments) plus is_raw() (whether K and V are Bytes, i.e.
// whether the typed outer layer already translated it). The result travels type-erased in
// QueryResult (AnyResult, any_result.h), as Java's erased R does.

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>

#include "iq/bytes.h"

namespace iq {

enum class QueryKind {
  KeyQuery,
  RangeQuery,
  TimestampedKeyQuery,
  TimestampedRangeQuery,
  WindowKeyQuery,
  WindowRangeQuery,
  VersionedKeyQuery,
  MultiVersionedKeyQuery,
  Custom,  // any class a user defines; no built-in store knows it
  // KIP-1356, 2026-08-20 pin only (iq/with_headers_queries.h).
  TimestampedKeyWithHeadersQuery,
  TimestampedRangeWithHeadersQuery,
  TimestampedWindowKeyWithHeadersQuery,
  TimestampedWindowRangeWithHeadersQuery,
};

// Whether the kind is one of KIP-1356's header-aware query types.
constexpr bool is_with_headers_kind(QueryKind kind) {
  return kind == QueryKind::TimestampedKeyWithHeadersQuery ||
         kind == QueryKind::TimestampedRangeWithHeadersQuery ||
         kind == QueryKind::TimestampedWindowKeyWithHeadersQuery ||
         kind == QueryKind::TimestampedWindowRangeWithHeadersQuery;
}

// Kafka's class name of each query kind ("KeyQuery", "TimestampedRangeQuery", ...).
inline const char* to_string(QueryKind kind) {
  switch (kind) {
    case QueryKind::KeyQuery:
      return "KeyQuery";
    case QueryKind::RangeQuery:
      return "RangeQuery";
    case QueryKind::TimestampedKeyQuery:
      return "TimestampedKeyQuery";
    case QueryKind::TimestampedRangeQuery:
      return "TimestampedRangeQuery";
    case QueryKind::WindowKeyQuery:
      return "WindowKeyQuery";
    case QueryKind::WindowRangeQuery:
      return "WindowRangeQuery";
    case QueryKind::VersionedKeyQuery:
      return "VersionedKeyQuery";
    case QueryKind::MultiVersionedKeyQuery:
      return "MultiVersionedKeyQuery";
    case QueryKind::Custom:
      return "Custom";
    case QueryKind::TimestampedKeyWithHeadersQuery:
      return "TimestampedKeyWithHeadersQuery";
    case QueryKind::TimestampedRangeWithHeadersQuery:
      return "TimestampedRangeWithHeadersQuery";
    case QueryKind::TimestampedWindowKeyWithHeadersQuery:
      return "TimestampedWindowKeyWithHeadersQuery";
    case QueryKind::TimestampedWindowRangeWithHeadersQuery:
      return "TimestampedWindowRangeWithHeadersQuery";
  }
  return "?";
}

class Query {
 public:
  virtual ~Query() = default;
  virtual QueryKind kind() const = 0;
  // True when key and value types are Bytes: the form a store below the typed layer receives.
  virtual bool is_raw() const = 0;
  // Kafka's toString of the query, which appears inside failure messages. Most query classes do
  // not override Object.toString, so Kafka prints "org.apache.kafka.streams.query.KeyQuery@<hash>";
  // the hash here is a digest of describe(), so messages are deterministic.
  virtual std::string to_string() const = 0;
  // A readable description for traces and reports (not part of Kafka's messages).
  virtual std::string describe() const = 0;
};

// Object.toString of a query class without its own toString, with a deterministic "hash".
std::string java_object_string(std::string_view java_class, std::string_view description);

// How a key or value prints inside Kafka's toString (Integer, Long, String, Bytes).
inline std::string display(const Bytes& b) {
  return b.to_string();
}
inline std::string display(const std::string& s) {
  return s;
}
template <typename T>
requires std::is_arithmetic_v<T> std::string display(T v) {
  return std::to_string(v);
}
// Java's Optional.toString.
template <typename T>
std::string display_optional(const std::optional<T>& o) {
  return o ? "Optional[" + display(*o) + "]" : "Optional.empty";
}

template <typename K, typename V>
constexpr bool kIsRaw = std::is_same_v<K, Bytes>&& std::is_same_v<V, Bytes>;

// The query as the class T, or nullptr: what dynamic_cast answers for a final class (every query
// class is final), from one comparison of type_info objects, where a dynamic_cast walks the class
// hierarchy and compares type names. The store stack casts each query several times on its way
// down.
template <typename T>
const T* query_as(const Query& q) {
  static_assert(std::is_final_v<T> && std::is_base_of_v<Query, T>);
  return typeid(q) == typeid(T) ? static_cast<const T*>(&q) : nullptr;
}

// Java's Instant.toString for an epoch-millisecond instant: ISO-8601 UTC, e.g.
// 2023-11-14T22:15:00Z or 2023-11-14T22:15:00.100Z. Used inside window query toStrings.
std::string instant_to_string(int64_t epoch_ms);

}  // namespace iq
