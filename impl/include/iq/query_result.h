#pragma once
// QueryResult (org.apache.kafka.streams.query.QueryResult): one partition's outcome. Either a
// success carrying a result (possibly null) or a failure with a reason and message; plus the
// execution info lines and the position the answering layer attached (absent unless set).

#include <optional>
#include <string>
#include <vector>

#include "base/assert.h"
#include "iq/any_result.h"
#include "iq/failure_reason.h"
#include "iq/position.h"
#include "iq/position_bound.h"
#include "iq/query.h"

namespace iq {

class QueryResult {
 public:
  static QueryResult for_result(AnyResult result) { return QueryResult(std::move(result)); }
  static QueryResult for_failure(FailureReason reason, std::string message) {
    return QueryResult(reason, std::move(message));
  }
  // Kafka: QueryResult.forUnknownQueryType(query, store); `store_class` is Java's
  // store.getClass() rendering, e.g. "class org.apache.kafka.streams.state.internals.RocksDBStore".
  static QueryResult for_unknown_query_type(const Query& query, std::string_view store_class) {
    return for_failure(FailureReason::UNKNOWN_QUERY_TYPE,
                       "This store (" + std::string(store_class) +
                           ") doesn't know how to execute the given query (" + query.to_string() +
                           "). Contact the store maintainer if you need support for a new query "
                           "type.");
  }
  // Kafka: QueryResult.notUpToBound(currentPosition, positionBound, partition). A null partition
  // means the store has no context yet.
  static QueryResult not_up_to_bound(const Position& current, const PositionBound& bound,
                                     std::optional<int32_t> partition) {
    if (!partition) {
      return for_failure(FailureReason::NOT_UP_TO_BOUND,
                         "The store is not initialized yet, so it is not yet up to the bound " +
                             bound.to_string());
    }
    return for_failure(FailureReason::NOT_UP_TO_BOUND,
                       "For store partition " + std::to_string(*partition) +
                           ", the current position " + current.to_string() +
                           " is not yet up to the bound " + bound.to_string());
  }

  bool is_success() const { return !failure_reason_.has_value(); }
  bool is_failure() const { return failure_reason_.has_value(); }
  // Kafka throws IllegalArgumentException for these on the wrong kind; here they are empty.
  std::optional<FailureReason> failure_reason() const { return failure_reason_; }
  std::optional<std::string> failure_message() const {
    if (!failure_reason_) return std::nullopt;
    return failure_message_;
  }

  // The result, typed. Asking a failure or for the wrong type is a programmer error.
  template <typename R>
  const R& result() const {
    IQ_ASSERT(is_success(), "result() on a failed QueryResult: {}", failure_message_);
    const R* r = result_.get_if<R>();
    IQ_ASSERT(r != nullptr, "result() asked for the wrong type");
    return *r;
  }
  const AnyResult& raw_result() const { return result_; }

  const std::vector<std::string>& execution_info() const { return execution_info_; }
  void add_execution_info(std::string line) { execution_info_.push_back(std::move(line)); }

  const std::optional<Position>& position() const { return position_; }
  void set_position(Position p) { position_ = std::move(p); }
  void clear_position() { position_.reset(); }

  // InternalQueryResultUtil.copyAndSubstituteDeserializedResult: a success with a new result that
  // keeps the execution info and position of the raw one.
  QueryResult with_substituted_result(AnyResult result) const& {
    IQ_ASSERT(is_success(), "substituting the result of a failure");
    QueryResult out(std::move(result));
    out.execution_info_ = execution_info_;
    out.position_ = position_;
    return out;
  }
  // The same from a raw result that is no longer needed: its execution info and position move
  // over instead of being copied (the typed layers' path, once per query).
  QueryResult with_substituted_result(AnyResult result) && {
    IQ_ASSERT(is_success(), "substituting the result of a failure");
    QueryResult out(std::move(result));
    out.execution_info_ = std::move(execution_info_);
    out.position_ = std::move(position_);
    return out;
  }

  std::string to_string() const {
    if (is_success()) return "SucceededQueryResult{position=" + pos_string() + "}";
    return std::string("FailedQueryResult{failureReason=") + iq::to_string(*failure_reason_) +
           ", failure='" + failure_message_ + "', position=" + pos_string() + "}";
  }

 private:
  explicit QueryResult(AnyResult r) : result_(std::move(r)) {}
  QueryResult(FailureReason reason, std::string message)
      : failure_reason_(reason), failure_message_(std::move(message)) {}
  std::string pos_string() const { return position_ ? position_->to_string() : "null"; }

  AnyResult result_;
  std::optional<FailureReason> failure_reason_;
  std::string failure_message_;
  std::vector<std::string> execution_info_;
  std::optional<Position> position_;
};

}  // namespace iq
