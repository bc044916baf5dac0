#include "assignment/assignment_configs.h"

#include <fmt/format.h>

namespace iq {

namespace {

// ConfigDef.Range.atLeast(min).ensureValid, worded as ConfigException words it.
std::optional<std::string> at_least(const char* name, int64_t value, int64_t min) {
  if (value >= min) return std::nullopt;
  return fmt::format("Invalid value {} for configuration {}: Value must be at least {}", value,
                     name, min);
}

}  // namespace

std::optional<std::string> AssignmentConfigs::validate() const {
  // Kafka validates in field order and stops at the first failure.
  if (auto e = at_least("acceptable.recovery.lag", acceptable_recovery_lag, 0)) return e;
  if (auto e = at_least("max.warmup.replicas", max_warmup_replicas, 1)) return e;
  if (auto e = at_least("probing.rebalance.interval.ms", probing_rebalance_interval_ms, 60'000)) {
    return e;
  }
  return std::nullopt;
}

std::string AssignmentConfigs::to_string() const {
  return fmt::format(
      "AssignmentConfigs{{\n  acceptableRecoveryLag={}\n  maxWarmupReplicas={}\n"
      "  numStandbyReplicas={}\n  probingRebalanceIntervalMs={}\n}}",
      acceptable_recovery_lag, max_warmup_replicas, num_standby_replicas,
      probing_rebalance_interval_ms);
}

}  // namespace iq
