#pragma once
// AssignmentConfigs (org.apache.kafka.streams.processor.assignment.AssignmentConfigs), the
// settings the HighAvailabilityTaskAssignor reads, as AssignorConfiguration hands them over from
// StreamsConfig. Defaults and lower bounds are StreamsConfig's.
//
// Not carried: rack.aware.assignment.tags, rack.aware.assignment.strategy and the rack-aware
// traffic/non-overlap costs. iqsim reproduces Kafka with those at their defaults (no tags,
// strategy "none"), under which Kafka never builds the rack-aware or tag-aware assignors.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace iq {

struct AssignmentConfigs {
  // StreamsConfig defaults.
  static constexpr int64_t kDefaultAcceptableRecoveryLag = 10'000;
  static constexpr int32_t kDefaultMaxWarmupReplicas = 2;
  static constexpr int32_t kDefaultNumStandbyReplicas = 0;
  static constexpr int64_t kDefaultProbingRebalanceIntervalMs = 10 * 60 * 1000;
  // acceptable.recovery.lag = Long.MAX_VALUE means "every client is caught up".
  static constexpr int64_t kUnboundedRecoveryLag = std::numeric_limits<int64_t>::max();

  int64_t acceptable_recovery_lag = kDefaultAcceptableRecoveryLag;  // atLeast(0)
  int32_t max_warmup_replicas = kDefaultMaxWarmupReplicas;          // atLeast(1)
  int32_t num_standby_replicas = kDefaultNumStandbyReplicas;        // no validator in Kafka
  int64_t probing_rebalance_interval_ms = kDefaultProbingRebalanceIntervalMs;  // atLeast(60000)

  // AssignmentConfigs' constructor runs StreamsConfig's validators and throws a ConfigException.
  // Here the same check returns Kafka's message instead, e.g.
  // "Invalid value 0 for configuration max.warmup.replicas: Value must be at least 1".
  std::optional<std::string> validate() const;

  // AssignmentConfigs.toString without the rack-aware fields.
  std::string to_string() const;

  friend bool operator==(const AssignmentConfigs&, const AssignmentConfigs&) = default;
};

}  // namespace iq
