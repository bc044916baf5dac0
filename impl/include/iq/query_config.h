#pragma once

namespace iq {

// org.apache.kafka.streams.query.QueryConfig: carries only whether to collect execution info.
class QueryConfig {
 public:
  explicit QueryConfig(bool collect_execution_info) : collect_(collect_execution_info) {}
  bool is_collect_execution_info() const { return collect_; }

 private:
  bool collect_;
};

}  // namespace iq
