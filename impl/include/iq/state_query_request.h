#pragma once
// StateQueryRequest (org.apache.kafka.streams.query.StateQueryRequest): which store, which
// partitions (all, or a set), the bound, whether to require an active task, whether to collect
// execution info, and (2026-08-20 pin, KIP-892) the isolation level, absent unless set: the
// client's default.interactive.query.isolation.level applies then. Immutable: every modifier
// returns a new request, and keeps every other field (the level included, as Kafka's copies do).

#include <memory>
#include <optional>
#include <set>
#include <string>

#include "base/assert.h"
#include "iq/isolation_level.h"
#include "iq/position_bound.h"
#include "iq/query.h"

namespace iq {

class StateQueryRequest {
 public:
  template <typename Q>
  static StateQueryRequest in_store_with_query(std::string store_name, Q query) {
    // shared_ptr: queries are immutable values shared by every copy of the request.
    return StateQueryRequest(std::move(store_name), std::make_shared<const Q>(std::move(query)));
  }

  StateQueryRequest with_position_bound(PositionBound b) const {
    auto r = *this;
    r.bound_ = std::move(b);
    return r;
  }
  StateQueryRequest with_all_partitions() const {
    auto r = *this;
    r.partitions_.reset();
    return r;
  }
  StateQueryRequest with_partitions(std::set<int32_t> partitions) const {
    auto r = *this;
    r.partitions_ = std::move(partitions);
    return r;
  }
  StateQueryRequest enable_execution_info() const {
    auto r = *this;
    r.execution_info_ = true;
    return r;
  }
  StateQueryRequest require_active() const {
    auto r = *this;
    r.require_active_ = true;
    return r;
  }
  // StateQueryRequest.withIsolationLevel: a method of the 2026-08-20 pin only. The request does
  // not know the pin; KafkaStreams#query of the old pin never reads the level.
  StateQueryRequest with_isolation_level(IsolationLevel level) const {
    auto r = *this;
    r.isolation_level_ = level;
    return r;
  }

  const std::string& store_name() const { return store_name_; }
  const Query& query() const { return *query_; }
  const std::shared_ptr<const Query>& query_ptr() const { return query_; }
  const PositionBound& position_bound() const { return bound_; }
  bool is_all_partitions() const { return !partitions_.has_value(); }
  // Kafka throws IllegalStateException for an all-partitions request; asking is a programmer error.
  const std::set<int32_t>& partitions() const {
    IQ_ASSERT(partitions_.has_value(), "partitions() of an all-partitions request");
    return *partitions_;
  }
  bool execution_info_enabled() const { return execution_info_; }
  bool is_require_active() const { return require_active_; }
  const std::optional<IsolationLevel>& isolation_level() const { return isolation_level_; }

 private:
  StateQueryRequest(std::string name, std::shared_ptr<const Query> q)
      : store_name_(std::move(name)), query_(std::move(q)), bound_(PositionBound::unbounded()) {}

  std::string store_name_;
  std::shared_ptr<const Query> query_;
  PositionBound bound_;
  std::optional<std::set<int32_t>> partitions_;
  bool execution_info_ = false;
  bool require_active_ = false;
  std::optional<IsolationLevel> isolation_level_;
};

}  // namespace iq
