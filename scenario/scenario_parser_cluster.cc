// The scenario parser, [configuration], [streams_config] (and its assignment configs), [broker],
// [topology]. scenario_parser_reader.h holds the machinery and the class; scenarios/README.md the
// keys.

#include <algorithm>

#include <fmt/format.h>

#include "scenario/scenario_names.h"
#include "scenario_parser_reader.h"

namespace iq::sim::parsing {

void ScenarioParser::parse_configuration(const toml::table* section) {
  Table t(r_, or_empty(section), KeyPath().key("configuration"));
  t.allow({"instances", "start", "store_backend", "lru_max_entries", "virtual_time_ms_max",
           "link_delay_ms_min", "link_delay_ms_max", "link_loss_one_in", "poll_interval_ms",
           "rocksdb_write_buffer_size", "kafka", "kafka_compared"});
  // Read first: keys further down depend on the pin (iq/kafka_pin.h).
  s_.cluster.streams.kafka_pin =
      t.enumeration("kafka", KafkaPin::k2024_10_25, names::kKafkaPins, "kafka pin");
  pin_may_be_new_ =
      t.may_be("kafka", KafkaPin::k2026_08_20, names::kKafkaPins, "kafka pin").value_or(false);
  parse_kafka_compared(t);
  // Removed: the stream thread's loop follows Kafka's poll.ms now (sim/cluster/instance.h).
  if (t.has("poll_interval_ms")) {
    t.fail_key("poll_interval_ms",
               "removed: the loop no longer runs on a fixed tick; set the stream thread's poll "
               "timeout with \"poll.ms\" in [streams_config] (Kafka's default 100)");
  }
  instances_ = t.integer("instances", 1, {1, kInstancesMax});
  s_.cluster.instances = instances_.as_int32();
  s_.start_instances = t.boolean("start", true);
  s_.cluster.topology.supplier =
      t.enumeration("store_backend", KeyValueSupplier::kRocksDbTimestamped, names::kStoreBackends,
                    "store backend");
  // Stores.lruMap(name, int maxCacheSize) refuses a negative size; read whatever the backend.
  s_.cluster.topology.lru_max_entries =
      t.integer("lru_max_entries", s_.cluster.topology.lru_max_entries, {0, kInt32Max}).value;
  s_.virtual_time_ms_max = t.integer("virtual_time_ms_max", 600'000, kPositiveTimeMs).value;
  const IntValue delay_min = t.integer("link_delay_ms_min", 1, kTimeMs);
  const IntValue delay_max = t.integer("link_delay_ms_max", 1, kTimeMs);
  require_le(r_, delay_min, "link_delay_ms_min", delay_max, "link_delay_ms_max");
  s_.cluster.link.delay_ms_min = delay_min.value;
  s_.cluster.link.delay_ms_max = delay_max.value;
  s_.cluster.link.loss = t.one_in("link_loss_one_in", 0);
  // What a rocksdb.config.setter's setWriteBufferSize gives every RocksDB store: from 1 KiB (a
  // memtable of a few dozen records) to 1 GiB.
  s_.cluster.streams.rocksdb_write_buffer_size =
      t.integer("rocksdb_write_buffer_size", s_.cluster.streams.rocksdb_write_buffer_size,
                {1'024, int64_t{1} << 30})
          .value;
  t.finish();
}

void ScenarioParser::parse_streams_config(const toml::table* section) {
  Table t(r_, or_empty(section), KeyPath().key("streams_config"));
  t.allow({"application.id",
           "num.stream.threads",
           "num.standby.replicas",
           "commit.interval.ms",
           "statestore.cache.max.bytes",
           "acceptable.recovery.lag",
           "max.warmup.replicas",
           "probing.rebalance.interval.ms",
           "session.timeout.ms",
           "heartbeat.interval.ms",
           "max.poll.interval.ms",
           "request.timeout.ms",
           "poll.ms",
           "fetch.max.wait.ms",
           "__iq.consistency.offset.vector.enabled__",
           "state.cleanup.delay.ms",
           "max.poll.records",
           "processing.guarantee",
           "isolation.level",
           "consumer.isolation.level",
           "main.consumer.isolation.level",
           "restore.consumer.isolation.level",
           "enable.transactional.statestores",
           "statestore.uncommitted.max.bytes",
           "transaction.timeout.ms",
           "producer.transaction.timeout.ms",
           "default.interactive.query.isolation.level"});
  StreamsConfig& c = s_.cluster.streams;
  c.application_id = t.name("application.id", c.application_id);
  c.num_stream_threads = t.integer("num.stream.threads", c.num_stream_threads, {1, 32}).as_int32();
  c.processing_guarantee = t.enumeration("processing.guarantee", c.processing_guarantee,
                                         names::kProcessingGuarantees, "processing guarantee");
  // StreamsConfig.postProcessParsedConfig: under exactly_once_v2 an unset commit.interval.ms is
  // EOS_DEFAULT_COMMIT_INTERVAL_MS (100), not 30 000.
  const bool eos = c.processing_guarantee == ProcessingGuarantee::EXACTLY_ONCE_V2;
  if (eos) c.commit_interval_ms = 100;
  const IntValue commit = t.integer("commit.interval.ms", c.commit_interval_ms, kTimeMs);
  c.commit_interval_ms = commit.value;
  // A template may draw the guarantee: the EOS checks below hold whenever any draw is EOS.
  const bool may_be_eos = t.may_be("processing.guarantee", ProcessingGuarantee::EXACTLY_ONCE_V2,
                                   names::kProcessingGuarantees, "processing guarantee")
                              .value_or(false);
  parse_client_configs(t, may_be_eos ? std::optional<IntValue>(commit) : std::nullopt);
  c.statestore_cache_max_bytes =
      t.integer("statestore.cache.max.bytes", c.statestore_cache_max_bytes, {0, kInt64Max}).value;
  // The cleaner's fixed rate: KafkaStreams.start hands it to scheduleAtFixedRate, which refuses a
  // period of 0 (IllegalArgumentException), so a 0 is refused here.
  c.state_cleanup_delay_ms =
      t.integer("state.cleanup.delay.ms", c.state_cleanup_delay_ms, kPositiveTimeMs).value;
  // Kafka's ConsumerConfig: atLeast(1).
  c.max_poll_records = t.integer("max.poll.records", c.max_poll_records, {1, kInt32Max}).as_int32();
  c.consistency_offset_vector_enabled =
      t.boolean("__iq.consistency.offset.vector.enabled__", c.consistency_offset_vector_enabled);
  parse_new_pin_configs(t);
  parse_assignment_configs(t, c.assignment);

  session_timeout_ = t.integer("session.timeout.ms", s_.cluster.session_timeout_ms, {1, kInt32Max});
  const IntValue heartbeat =
      t.integer("heartbeat.interval.ms", s_.cluster.heartbeat_interval_ms, {1, kInt32Max});
  // Kafka's consumer refuses a heartbeat interval that is not below the session timeout.
  require_le(r_, heartbeat, "heartbeat.interval.ms", session_timeout_, "session.timeout.ms",
             /*strict=*/true);
  s_.cluster.session_timeout_ms = session_timeout_.as_int32();
  s_.cluster.heartbeat_interval_ms = heartbeat.value;
  s_.cluster.rebalance_timeout_ms =
      t.integer("max.poll.interval.ms", s_.cluster.rebalance_timeout_ms, {1, kInt32Max}).as_int32();
  s_.cluster.consumer.request_timeout_ms =
      t.integer("request.timeout.ms", s_.cluster.consumer.request_timeout_ms, kPositiveTimeMs)
          .value;
  // StreamsConfig poll.ms (atLeast(0)) and the consumer's fetch.max.wait.ms (atLeast(0)).
  s_.cluster.poll_ms = t.integer("poll.ms", s_.cluster.poll_ms, kTimeMs).value;
  s_.cluster.consumer.fetch_max_wait_ms =
      t.integer("fetch.max.wait.ms", s_.cluster.consumer.fetch_max_wait_ms, kTimeMs).value;
  t.finish();
}

// StreamsConfig keys the 2026-08-20 pin added. A file whose pin can never be the new one is
// refused (Kafka at the old pin would only log the unknown key: refusing catches a file that
// meant the new pin); a template that may draw either pin keeps the key, and its old-pin seeds
// ignore it, as that Kafka does.
// `kafka_compared`: the pins a file is one side of a comparison across (`iqsim upgrade` writes
// each pin's template with the pin forced and this list): the keys of every listed pin are
// accepted, and ignored at a pin without them, as in a template that draws the pin. The file's own
// pin must be listed.
void ScenarioParser::parse_kafka_compared(Table& t) {
  std::vector<std::string_view> pins;
  for (const auto& p : names::kKafkaPins) pins.push_back(p.name);
  const std::vector<std::string> compared = t.name_list("kafka_compared", {}, pins, "kafka pin");
  if (compared.empty()) return;
  const std::string own(names::name_of(names::kKafkaPins, s_.cluster.streams.kafka_pin));
  if (std::find(compared.begin(), compared.end(), own) == compared.end()) {
    t.fail_key("kafka_compared", "does not list the file's own pin '" + own + "' (kafka)");
  }
  const std::string new_pin(names::name_of(names::kKafkaPins, KafkaPin::k2026_08_20));
  if (std::find(compared.begin(), compared.end(), new_pin) != compared.end()) {
    pin_may_be_new_ = true;
  }
}

void ScenarioParser::parse_new_pin_configs(Table& t) {
  StreamsConfig& c = s_.cluster.streams;
  constexpr std::string_view kLevel = "default.interactive.query.isolation.level";
  if (t.has(kLevel) && !pin_may_be_new_) {
    t.fail_key(kLevel, "exists only at kafka = '2026-08-20' ([configuration] kafka)");
  }
  const IsolationLevel level = t.enumeration(kLevel, IsolationLevel::READ_UNCOMMITTED,
                                             names::kQueryIsolationLevels, "isolation level");
  if (at_least(c.kafka_pin, KafkaPin::k2026_08_20)) c.default_iq_isolation_level = level;
  // KIP-892 (pin deltas 5 and 21): transactional state stores and the early commit on their
  // uncommitted bytes.
  for (std::string_view key :
       {"enable.transactional.statestores", "statestore.uncommitted.max.bytes"}) {
    if (t.has(key) && !pin_may_be_new_) {
      t.fail_key(key, "exists only at kafka = '2026-08-20' ([configuration] kafka)");
    }
  }
  const bool transactional = t.boolean("enable.transactional.statestores", false);
  const int64_t max_bytes = t.integer("statestore.uncommitted.max.bytes",
                                      c.statestore_uncommitted_max_bytes, {-1, kInt64Max})
                                .value;
  if (at_least(c.kafka_pin, KafkaPin::k2026_08_20)) {
    c.transactional_state_stores = transactional;
    c.statestore_uncommitted_max_bytes = max_bytes;
  }
}

// The client settings StreamsConfig passes on (sim/cluster/streams_client_configs.h), and
// StreamsConfig.verifyEOSTransactionTimeoutCompatibility when some draw is exactly_once_v2.
void ScenarioParser::parse_client_configs(Table& t, const std::optional<IntValue>& eos_commit) {
  StreamsClientConfigs& clients = s_.cluster.clients;
  const auto level = [&](std::string_view key) {
    return t.optional_enumeration(key, names::kIsolationLevels, "isolation level");
  };
  // The prefixed key wins over the plain one (getClientPropsWithPrefix).
  const std::optional<IsolationLevel> plain_level = level("isolation.level");
  clients.consumer_isolation_level = level("consumer.isolation.level");
  if (!clients.consumer_isolation_level) clients.consumer_isolation_level = plain_level;
  clients.main_consumer_isolation_level = level("main.consumer.isolation.level");
  clients.restore_consumer_isolation_level = level("restore.consumer.isolation.level");
  // ProducerConfig's transaction.timeout.ms is an int; the coordinator refuses one below 1.
  const std::optional<IntValue> plain =
      t.optional_integer("transaction.timeout.ms", {1, kInt32Max});
  const std::optional<IntValue> prefixed =
      t.optional_integer("producer.transaction.timeout.ms", {1, kInt32Max});
  if (plain) clients.transaction_timeout_ms = plain->as_int32();
  if (prefixed) clients.producer_transaction_timeout_ms = prefixed->as_int32();
  if (!eos_commit) return;
  eos_transaction_timeout_ = prefixed ? prefixed : plain;
  eos_transaction_timeout_key_ = prefixed ? "streams_config.producer.transaction.timeout.ms"
                                          : "streams_config.transaction.timeout.ms";
  // Under EOS the commit interval may not exceed the transaction timeout, or every transaction
  // would time out before its commit. Kafka compares only the prefixed key (else its default of
  // 10 000): a plain transaction.timeout.ms passes the check whatever it says (a quirk kept). An
  // unset interval is EOS_DEFAULT_COMMIT_INTERVAL_MS (100) under EOS.
  const int64_t verified =
      prefixed ? prefixed->lo : StreamsClientConfigs::kEosDefaultTransactionTimeoutMs;
  const int64_t interval = eos_commit->given ? eos_commit->hi : 100;
  if (interval > verified) {
    const toml::source_region& at = eos_commit->given ? eos_commit->at : t.at();
    r_.fail(at, eos_commit->path,
            fmt::format("Transaction timeout {} was set lower than streams commit interval {} "
                        "(processing.guarantee=exactly_once_v2; raise "
                        "producer.transaction.timeout.ms or lower commit.interval.ms)",
                        verified, interval));
  }
}

void ScenarioParser::parse_assignment_configs(Table& t, AssignmentConfigs& a) {
  const IntValue lag = t.integer("acceptable.recovery.lag", a.acceptable_recovery_lag, kAnyInt64);
  const IntValue warmups = t.integer("max.warmup.replicas", a.max_warmup_replicas, kAnyInt32);
  const IntValue standbys =
      t.integer("num.standby.replicas", a.num_standby_replicas, {0, kInstancesMax});
  const IntValue probing =
      t.integer("probing.rebalance.interval.ms", a.probing_rebalance_interval_ms, kAnyInt64);
  AssignmentConfigs lowest;
  lowest.acceptable_recovery_lag = lag.lo;
  lowest.max_warmup_replicas = static_cast<int32_t>(warmups.lo);
  lowest.num_standby_replicas = static_cast<int32_t>(standbys.lo);
  lowest.probing_rebalance_interval_ms = probing.lo;
  if (std::optional<std::string> error = lowest.validate()) {
    // Kafka's message names the setting: point at it.
    const std::pair<std::string_view, const IntValue*> settings[] = {
        {"acceptable.recovery.lag", &lag},
        {"max.warmup.replicas", &warmups},
        {"probing.rebalance.interval.ms", &probing}};
    for (const auto& [name, v] : settings) {
      if (error->find("configuration " + std::string(name) + ":") != std::string::npos) {
        r_.fail(v->at, v->path, *error);
      }
    }
    r_.fail(t.at(), t.path(), *error);
  }
  a.acceptable_recovery_lag = lag.value;
  a.max_warmup_replicas = warmups.as_int32();
  a.num_standby_replicas = standbys.as_int32();
  a.probing_rebalance_interval_ms = probing.value;
}

void ScenarioParser::parse_broker(const toml::table* section) {
  Table t(r_, or_empty(section), KeyPath().key("broker"));
  t.allow({"group.initial.rebalance.delay.ms", "group.min.session.timeout.ms",
           "group.max.session.timeout.ms", "group.max.size", "transaction.max.timeout.ms",
           "transaction.abort.timed.out.transaction.cleanup.interval.ms", "log.cleaner.enable",
           "log.cleaner.backoff.ms", "log.segment.bytes", "log.roll.ms",
           "log.cleaner.delete.retention.ms", "log.cleaner.min.cleanable.ratio"});
  GroupCoordinatorConfig& g = s_.cluster.broker.coordinator;
  g.group_initial_rebalance_delay_ms =
      t.integer("group.initial.rebalance.delay.ms", g.group_initial_rebalance_delay_ms, kTimeMs)
          .value;
  const IntValue min_session =
      t.integer("group.min.session.timeout.ms", g.group_min_session_timeout_ms, {0, kInt32Max});
  const IntValue max_session =
      t.integer("group.max.session.timeout.ms", g.group_max_session_timeout_ms, {0, kInt32Max});
  require_le(r_, min_session, "group.min.session.timeout.ms", max_session,
             "group.max.session.timeout.ms");
  // The coordinator rejects a JoinGroup whose session timeout is outside these bounds
  // (INVALID_SESSION_TIMEOUT), and Streams treats that as fatal: a configuration error.
  require_le(r_, min_session, "broker.group.min.session.timeout.ms", session_timeout_,
             "streams_config.session.timeout.ms");
  require_le(r_, session_timeout_, "streams_config.session.timeout.ms", max_session,
             "broker.group.max.session.timeout.ms");
  g.group_min_session_timeout_ms = min_session.as_int32();
  g.group_max_session_timeout_ms = max_session.as_int32();
  g.group_max_size = t.integer("group.max.size", g.group_max_size, {1, kInt32Max}).as_int32();
  // Transactions and log compaction (sim/broker/README.md). The cleaner is off unless enabled.
  TransactionCoordinatorConfig& x = s_.cluster.broker.transactions;
  const IntValue max_timeout =
      t.integer("transaction.max.timeout.ms", x.transaction_max_timeout_ms, {1, kInt32Max});
  x.transaction_max_timeout_ms = max_timeout.as_int32();
  // InitProducerId refuses a transaction.timeout.ms above the maximum
  // (INVALID_TRANSACTION_TIMEOUT), which Streams treats as fatal: a configuration error.
  if (eos_transaction_timeout_) {
    require_le(r_, *eos_transaction_timeout_, eos_transaction_timeout_key_, max_timeout,
               "broker.transaction.max.timeout.ms");
  }
  x.abort_timed_out_transaction_cleanup_interval_ms =
      t.integer("transaction.abort.timed.out.transaction.cleanup.interval.ms",
                x.abort_timed_out_transaction_cleanup_interval_ms, kPositiveTimeMs)
          .value;
  LogCleanerConfig& cleaner = s_.cluster.broker.cleaner;
  cleaner.enable = t.boolean("log.cleaner.enable", cleaner.enable);
  cleaner.backoff_ms =
      t.integer("log.cleaner.backoff.ms", cleaner.backoff_ms, kPositiveTimeMs).value;
  TopicConfig& topics = s_.cluster.broker.topic_defaults;
  topics.segment_bytes = t.integer("log.segment.bytes", topics.segment_bytes, {1, kInt32Max}).value;
  topics.segment_ms = t.integer("log.roll.ms", topics.segment_ms, kPositiveTimeMs).value;
  topics.delete_retention_ms =
      t.integer("log.cleaner.delete.retention.ms", topics.delete_retention_ms, kTimeMs).value;
  // The broker's default of the changelogs' min.cleanable.dirty.ratio (a double in [0, 1]).
  topics.min_cleanable_dirty_ratio =
      t.unit_ratio("log.cleaner.min.cleanable.ratio", topics.min_cleanable_dirty_ratio);
  t.finish();
}

void ScenarioParser::parse_topology(const toml::table* section) {
  Table t(r_, or_empty(section), KeyPath().key("topology"));
  t.allow({"name", "source_topic", "source_partitions", "store", "keys", "caching", "logging",
           "history_retention_ms", "segment_interval_ms", "window_size_ms", "window_advance_ms",
           "grace_ms", "session_gap_ms", "window_retention_ms", "retain_duplicates"});
  TopologyConfig& c = s_.cluster.topology;
  c.kind = t.enumeration("name", c.kind, names::kTopologies, "topology");
  c.source_topic = t.name("source_topic", c.source_topic);
  source_partitions_ = t.integer("source_partitions", c.source_partitions, {1, kPartitionsMax});
  c.source_partitions = source_partitions_.as_int32();
  c.store_name = t.name("store", c.store_name);
  s_.keys = t.integer("keys", s_.keys, {1, kKeysMax}).as_int32();
  c.caching = t.boolean("caching", c.caching);
  c.logging = t.boolean("logging", c.logging);
  // Stores.persistentVersionedKeyValueStore refuses a negative retention and a segment interval
  // below 1. Only the versioned topologies read them (a template may draw the topology and give
  // them for all).
  const IntValue retention = t.integer("history_retention_ms", c.history_retention_ms, kTimeMs);
  const IntValue interval = t.integer("segment_interval_ms", 0, kPositiveTimeMs);
  c.history_retention_ms = retention.value;
  if (interval.given) c.segment_interval_ms = interval.value;
  // KeyValueStoreMaterializer does not enable caching on a versioned store, whatever the
  // Materialized says; the effective value is what the run and its checks see.
  if (c.versioned()) c.caching = false;
  parse_window_topology(t);
  t.finish();
}

// The window and session shapes' settings (every topology may give them; only these read them),
// checked as TimeWindows, SessionWindows, the materializers and Stores check them, for every
// alternative of a choice (lo/hi).
void ScenarioParser::parse_window_topology(Table& t) {
  TopologyConfig& c = s_.cluster.topology;
  const IntValue size = t.integer("window_size_ms", c.window_size_ms, kPositiveTimeMs);
  const IntValue advance = t.integer("window_advance_ms", size.lo, kPositiveTimeMs);
  const IntValue grace = t.integer("grace_ms", c.grace_ms, kTimeMs);
  const IntValue gap = t.integer("session_gap_ms", c.session_gap_ms, kPositiveTimeMs);
  const IntValue retention = t.integer("window_retention_ms", 0, kTimeMs);
  const bool duplicates = t.boolean("retain_duplicates", c.retain_duplicates);
  c.window_size_ms = size.value;
  if (advance.given) c.window_advance_ms = advance.value;
  c.grace_ms = grace.value;
  c.session_gap_ms = gap.value;
  if (retention.given) c.window_retention_ms = retention.value;
  c.retain_duplicates = duplicates;
  if (!c.windowed() && !c.session()) return;
  const std::string_view kind = names::name_of(names::kTopologies, c.kind);
  if (c.supplier == KeyValueSupplier::kLruMap) {
    t.fail_key("name", fmt::format("{} needs a window or session store: store_backend 'lru' has "
                                   "none (use in_memory, rocksdb_plain or rocksdb)",
                                   kind));
  }
  // A session store has no timestamped form: Stores.persistentSessionStore either way, and the
  // effective supplier is what the run and its checks see.
  if (c.session() && c.supplier == KeyValueSupplier::kRocksDbTimestamped) {
    c.supplier = KeyValueSupplier::kRocksDb;
  }
  if (duplicates && c.kind != TopologyKind::WindowPapiWriter) {
    t.fail_key("retain_duplicates", "only the WindowPapiWriter builds a store with duplicates");
  }
  const bool papi =
      c.kind == TopologyKind::WindowPapiWriter || c.kind == TopologyKind::SessionPapiWriter;
  if (papi && !retention.given) {
    t.fail_key("name",
               fmt::format("{} needs window_retention_ms (the supplier's retention)", kind));
  }
  if (c.windowed()) {
    // TimeWindows.advanceBy: "Window advancement interval should be more than zero and less
    // than window duration".
    require_le(r_, advance, "window_advance_ms", size, "window_size_ms");
    IntValue least = size;  // Stores' check: retention >= size; the DSL's: >= size + grace
    if (!papi) least.hi = size.hi + grace.hi;
    if (retention.given) {
      require_le(r_, least, papi ? "window_size_ms" : "window_size_ms + grace_ms", retention,
                 "window_retention_ms");
    }
  } else if (retention.given && !papi) {
    // SessionWindowedKStreamImpl: retention no smaller than the inactivity gap plus grace.
    IntValue least = gap;
    least.hi = gap.hi + grace.hi;
    require_le(r_, least, "session_gap_ms + grace_ms", retention, "window_retention_ms");
  }
}

}  // namespace iq::sim::parsing
