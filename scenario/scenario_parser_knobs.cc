// The scenario parser, [knobs] and [liveness].
// scenario_parser_reader.h holds the machinery and the class; scenarios/README.md the keys.

#include <fmt/format.h>

#include "scenario/scenario_names.h"
#include "scenario_parser_reader.h"

namespace iq::sim::parsing {

void ScenarioParser::parse_knobs(const toml::table* section) {
  Table t(r_, or_empty(section), KeyPath().key("knobs"));
  t.allow({"lag_probe_interval_ms", "history_records_max", "consumer_fetch_interval_ms",
           "consumer_fetch_records_max", "broker_records_max", "broker_partitions_per_topic_max",
           "coordinator_new_member_join_timeout_ms", "coordinator_groups_max",
           "coordinator_pending_outputs_max", "broker_transactional_ids_max",
           "broker_transactions_open_max", "broker_transaction_partitions_max",
           "broker_cleaner_records_per_step_max", "offset_delta_threshold_for_checkpoint"});
  // Removed: consumers fetch on demand (long polls), not on a tick.
  if (t.has("consumer_fetch_interval_ms")) {
    t.fail_key("consumer_fetch_interval_ms",
               "removed: consumers no longer fetch on a fixed tick; the broker holds a fetch up "
               "to \"fetch.max.wait.ms\" in [streams_config] (Kafka's default 500)");
  }
  Knobs& k = s_.knobs;
  k.lag_probe_interval_ms =
      t.integer("lag_probe_interval_ms", k.lag_probe_interval_ms, kTimeMs).value;
  k.history_records_max = static_cast<size_t>(
      t.integer("history_records_max", static_cast<int64_t>(k.history_records_max), {1, kInt64Max})
          .value);
  SimConsumerConfig& consumer = s_.cluster.consumer;
  consumer.max_records_per_fetch =
      t.integer("consumer_fetch_records_max", consumer.max_records_per_fetch, {1, kInt32Max})
          .as_int32();
  SimBrokerConfig& broker = s_.cluster.broker;
  broker.max_total_records =
      t.integer("broker_records_max", broker.max_total_records, {1, kInt64Max}).value;
  const IntValue partitions_max =
      t.integer("broker_partitions_per_topic_max", broker.max_partitions_per_topic, {1, kInt32Max});
  require_le(r_, source_partitions_, "topology.source_partitions", partitions_max,
             "knobs.broker_partitions_per_topic_max");
  broker.max_partitions_per_topic = partitions_max.as_int32();
  GroupCoordinatorConfig& g = broker.coordinator;
  g.new_member_join_timeout_ms = t.integer("coordinator_new_member_join_timeout_ms",
                                           g.new_member_join_timeout_ms, kPositiveTimeMs)
                                     .value;
  g.max_groups = t.integer("coordinator_groups_max", g.max_groups, {1, kInt32Max}).as_int32();
  g.max_pending_outputs =
      t.integer("coordinator_pending_outputs_max", g.max_pending_outputs, {1, kInt64Max}).value;
  TransactionCoordinatorConfig& x = broker.transactions;
  x.max_transactional_ids =
      t.integer("broker_transactional_ids_max", x.max_transactional_ids, {1, kInt32Max}).as_int32();
  x.max_open_transactions =
      t.integer("broker_transactions_open_max", x.max_open_transactions, {1, kInt32Max}).as_int32();
  x.max_transaction_partitions =
      t.integer("broker_transaction_partitions_max", x.max_transaction_partitions, {1, kInt32Max})
          .as_int32();
  broker.cleaner.records_per_step_max =
      t.integer("broker_cleaner_records_per_step_max", broker.cleaner.records_per_step_max,
                {1, kInt64Max})
          .value;
  // Kafka's constant (StateManagerUtil.OFFSET_DELTA_THRESHOLD_FOR_CHECKPOINT), settable here.
  StreamsConfig& streams = s_.cluster.streams;
  streams.offset_delta_threshold_for_checkpoint =
      t.integer("offset_delta_threshold_for_checkpoint",
                streams.offset_delta_threshold_for_checkpoint, {0, kInt64Max})
          .value;
  t.finish();
}

void ScenarioParser::parse_liveness(const toml::table* section) {
  Table t(r_, or_empty(section), KeyPath().key("liveness"));
  t.allow({"enabled", "timeout_ms", "probe_interval_ms", "checks", "audit_replicas"});
  LivenessSpec& l = s_.liveness;
  l.enabled = t.boolean("enabled", l.enabled);
  l.timeout_ms = t.integer("timeout_ms", l.timeout_ms, kPositiveTimeMs).value;
  l.probe_interval_ms = t.integer("probe_interval_ms", l.probe_interval_ms, kPositiveTimeMs).value;
  l.checks = t.name_list("checks", l.checks, names::kPropertyNames, "property name");
  l.audit_replicas = t.boolean("audit_replicas", l.audit_replicas);
  t.finish();
}

}  // namespace iq::sim::parsing
