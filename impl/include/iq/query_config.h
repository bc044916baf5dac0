#pragma once

#include "iq/isolation_level.h"

namespace iq {

// org.apache.kafka.streams.query.QueryConfig: whether to collect execution info and, from the
// 2026-08-20 pin on (KIP-892, pin delta 6), the isolation level the stores read at. The
// one-argument form is READ_UNCOMMITTED, as Kafka's old constructor is at the new pin; at the old
// pin the level does not exist and nothing reads it.
class QueryConfig {
 public:
  explicit QueryConfig(bool collect_execution_info)
      : QueryConfig(collect_execution_info, IsolationLevel::READ_UNCOMMITTED) {}
  QueryConfig(bool collect_execution_info, IsolationLevel level)
      : collect_(collect_execution_info), level_(level) {}
  bool is_collect_execution_info() const { return collect_; }
  IsolationLevel isolation_level() const { return level_; }

 private:
  bool collect_;
  IsolationLevel level_;
};

}  // namespace iq
