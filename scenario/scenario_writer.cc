#include "scenario/scenario_writer.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <numeric>
#include <string_view>
#include <variant>

#include "scenario/scenario_names.h"

namespace iq::sim {
namespace {

bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

// A TOML basic string, "..." with escapes.
std::string basic(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += fmt::format("\\u{:04X}", u);
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// A TOML string: a literal '...' when the text allows one (no quote, no control character), as
// hand-written files have them; a basic "..." otherwise.
std::string str(std::string_view s) {
  if (s.find('\'') == std::string_view::npos && !has_control(s)) return "'" + std::string(s) + "'";
  return basic(s);
}

// A key: bare when TOML allows it, "quoted" otherwise ("num.stream.threads").
std::string key(std::string_view k) {
  const bool bare = !k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
  return bare ? std::string(k) : basic(k);
}

// An integer, digits grouped by three from 1'000 on (600_000), as people write them.
std::string num(int64_t v) {
  const bool negative = v < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const std::string digits = std::to_string(magnitude);
  std::string out;
  const bool group = magnitude >= 1'000;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (group && i > 0 && (digits.size() - i) % 3 == 0) out += '_';
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

std::string boolean(bool b) {
  return b ? "true" : "false";
}

std::string strings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + str(items[i]);
  return out + "]";
}

std::string ints(const std::vector<int64_t>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + num(items[i]);
  return out + "]";
}

std::string ints(const std::set<int32_t>& items) {
  return ints(std::vector<int64_t>(items.begin(), items.end()));
}

std::string ints(const std::set<int64_t>& items) {
  return ints(std::vector<int64_t>(items.begin(), items.end()));
}

// { input-topic = { 0 = 5, 1 = 3 } }; the empty position is {}.
std::string position(const Position& p) {
  if (p.map().empty()) return "{}";
  std::string out = "{ ";
  bool first_topic = true;
  for (const auto& [topic, partitions] : p.map()) {
    out += (first_topic ? "" : ", ") + key(topic) + " = {";
    first_topic = false;
    bool first = true;
    for (const auto& [partition, offset] : partitions) {
      out += (first ? " " : ", ") + std::to_string(partition) + " = " + num(offset);
      first = false;
    }
    out += partitions.empty() ? "}" : " }";
  }
  return out + " }";
}

std::string instance(int32_t n) {
  return str("instance-" + std::to_string(n));
}

// Odds as a file writes them: 1 in N, or 0 for never.
std::string one_in(base::Ratio r) {
  IQ_ASSERT((r.num == 0 && r.den == 1) || (r.num == 1 && r.den >= 1),
            "odds {}/{} are not 1 in N: a scenario file cannot say them", r.num, r.den);
  IQ_ASSERT(r.den <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  return r.num == 0 ? "0" : num(static_cast<int64_t>(r.den));
}

// A fraction in [0, 1] as a TOML float with six decimals: exact for every ratio the parser makes
// (over 10^6, reduced); another ratio cannot be said in a file.
std::string unit_ratio(base::Ratio r) {
  constexpr uint64_t kDen = 1'000'000;
  IQ_ASSERT(r.den > 0 && r.num <= r.den && kDen % r.den == 0 && std::gcd(r.num, r.den) == 1,
            "ratio {}/{} is not a reduced fraction over 10^6: a scenario file cannot say it", r.num,
            r.den);
  const uint64_t millionths = r.num * (kDen / r.den);
  return fmt::format("{}.{:06}", millionths / kDen, millionths % kDen);
}

template <typename E, size_t N>
std::string name(const std::array<names::Named<E>, N>& table, E value) {
  return str(names::name_of(table, value));
}

// Lines of one table, indented under [[test]] the way hand-written files are.
class Block {
 public:
  Block(std::string& out, std::string indent) : out_(out), indent_(std::move(indent)) {}
  void header(std::string_view h) { out_ += "\n" + indent_ + std::string(h) + "\n"; }
  void set(std::string_view k, const std::string& v) {
    out_ += indent_ + key(k) + " = " + v + "\n";
  }

 private:
  std::string& out_;
  std::string indent_;
};

void write_top(std::string& out, const Scenario& s) {
  out +=
      "# " + (s.title.empty() || has_control(s.title) ? std::string("scenario") : s.title) + "\n";
  out += "# Written by iqsim's scenario writer: every setting explicit, no seeded choice left.\n";
  if (!s.file.empty() && !has_control(s.file)) out += "# From: " + s.file + "\n";
  Block b(out, "");
  b.set("title", str(s.title));
  b.set("description", str(s.description));
  b.set("tags", strings(s.tags));
  // A TOML integer is signed 64-bit: a larger seed is written as a decimal string.
  b.set("seed", s.seed <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                    ? std::to_string(s.seed)
                    : str(std::to_string(s.seed)));
  b.set("expected_failures", strings(s.expected_failures));
  b.set("allowed_behaviours", strings(s.allowed_behaviours));
  b.set("expect_probes", strings(s.expect_probes));
}

void write_cluster(std::string& out, const Scenario& s) {
  const ClusterConfig& c = s.cluster;
  IQ_ASSERT(c.seed == s.seed, "cluster.seed {} != seed {}", c.seed, s.seed);
  Block b(out, "");
  b.header("[configuration]");
  b.set("kafka", name(names::kKafkaPins, c.streams.kafka_pin));
  b.set("instances", num(c.instances));
  b.set("start", boolean(s.start_instances));
  b.set("store_backend", name(names::kStoreBackends, c.topology.supplier));
  b.set("lru_max_entries", num(c.topology.lru_max_entries));
  b.set("virtual_time_ms_max", num(s.virtual_time_ms_max));
  b.set("link_delay_ms_min", num(c.link.delay_ms_min));
  b.set("link_delay_ms_max", num(c.link.delay_ms_max));
  b.set("link_loss_one_in", one_in(c.link.loss));
  b.set("rocksdb_write_buffer_size", num(c.streams.rocksdb_write_buffer_size));

  const StreamsConfig& sc = c.streams;
  b.header("[streams_config]");
  b.set("application.id", str(sc.application_id));
  b.set("num.stream.threads", num(sc.num_stream_threads));
  b.set("num.standby.replicas", num(sc.assignment.num_standby_replicas));
  b.set("processing.guarantee", name(names::kProcessingGuarantees, sc.processing_guarantee));
  b.set("commit.interval.ms", num(sc.commit_interval_ms));
  b.set("statestore.cache.max.bytes", num(sc.statestore_cache_max_bytes));
  b.set("acceptable.recovery.lag", num(sc.assignment.acceptable_recovery_lag));
  b.set("max.warmup.replicas", num(sc.assignment.max_warmup_replicas));
  b.set("probing.rebalance.interval.ms", num(sc.assignment.probing_rebalance_interval_ms));
  b.set("session.timeout.ms", num(c.session_timeout_ms));
  b.set("heartbeat.interval.ms", num(c.heartbeat_interval_ms));
  b.set("max.poll.interval.ms", num(c.rebalance_timeout_ms));
  b.set("request.timeout.ms", num(c.consumer.request_timeout_ms));
  b.set("poll.ms", num(c.poll_ms));
  b.set("fetch.max.wait.ms", num(c.consumer.fetch_max_wait_ms));
  b.set("__iq.consistency.offset.vector.enabled__", boolean(sc.consistency_offset_vector_enabled));
  b.set("state.cleanup.delay.ms", num(sc.state_cleanup_delay_ms));
  b.set("max.poll.records", num(sc.max_poll_records));
  if (at_least(sc.kafka_pin, KafkaPin::k2026_08_20)) {  // the old pin has no such key
    b.set("default.interactive.query.isolation.level",
          name(names::kQueryIsolationLevels, sc.default_iq_isolation_level));
    b.set("enable.transactional.statestores", boolean(sc.transactional_state_stores));
    b.set("statestore.uncommitted.max.bytes", num(sc.statestore_uncommitted_max_bytes));
  }
  // StreamsConfig's client settings, only those the file gave: which key was given matters (a
  // plain isolation.level is dropped under EOS, a prefixed one is not; only the prefixed
  // transaction timeout is checked against the commit interval).
  const StreamsClientConfigs& clients = c.clients;
  if (clients.consumer_isolation_level) {
    b.set("consumer.isolation.level",
          name(names::kIsolationLevels, *clients.consumer_isolation_level));
  }
  if (clients.main_consumer_isolation_level) {
    b.set("main.consumer.isolation.level",
          name(names::kIsolationLevels, *clients.main_consumer_isolation_level));
  }
  if (clients.restore_consumer_isolation_level) {
    b.set("restore.consumer.isolation.level",
          name(names::kIsolationLevels, *clients.restore_consumer_isolation_level));
  }
  if (clients.transaction_timeout_ms) {
    b.set("transaction.timeout.ms", num(*clients.transaction_timeout_ms));
  }
  if (clients.producer_transaction_timeout_ms) {
    b.set("producer.transaction.timeout.ms", num(*clients.producer_transaction_timeout_ms));
  }

  const GroupCoordinatorConfig& g = c.broker.coordinator;
  b.header("[broker]");
  b.set("group.initial.rebalance.delay.ms", num(g.group_initial_rebalance_delay_ms));
  b.set("group.min.session.timeout.ms", num(g.group_min_session_timeout_ms));
  b.set("group.max.session.timeout.ms", num(g.group_max_session_timeout_ms));
  b.set("group.max.size", num(g.group_max_size));
  const TransactionCoordinatorConfig& x = c.broker.transactions;
  b.set("transaction.max.timeout.ms", num(x.transaction_max_timeout_ms));
  b.set("transaction.abort.timed.out.transaction.cleanup.interval.ms",
        num(x.abort_timed_out_transaction_cleanup_interval_ms));
  b.set("log.cleaner.enable", boolean(c.broker.cleaner.enable));
  b.set("log.cleaner.backoff.ms", num(c.broker.cleaner.backoff_ms));
  b.set("log.segment.bytes", num(c.broker.topic_defaults.segment_bytes));
  b.set("log.roll.ms", num(c.broker.topic_defaults.segment_ms));
  b.set("log.cleaner.delete.retention.ms", num(c.broker.topic_defaults.delete_retention_ms));
  b.set("log.cleaner.min.cleanable.ratio",
        unit_ratio(c.broker.topic_defaults.min_cleanable_dirty_ratio));

  const TopologyConfig& t = c.topology;
  b.header("[topology]");
  b.set("name", name(names::kTopologies, t.kind));
  b.set("source_topic", str(t.source_topic));
  b.set("source_partitions", num(t.source_partitions));
  b.set("store", str(t.store_name));
  b.set("keys", num(s.keys));
  b.set("caching", boolean(t.caching));
  b.set("logging", boolean(t.logging));
  if (t.versioned()) {
    b.set("history_retention_ms", num(t.history_retention_ms));
    if (t.segment_interval_ms) b.set("segment_interval_ms", num(*t.segment_interval_ms));
  }
  if (t.windowed() || t.session()) {
    b.set("window_size_ms", num(t.window_size_ms));
    if (t.window_advance_ms) b.set("window_advance_ms", num(*t.window_advance_ms));
    b.set("grace_ms", num(t.grace_ms));
    b.set("session_gap_ms", num(t.session_gap_ms));
    if (t.window_retention_ms) b.set("window_retention_ms", num(*t.window_retention_ms));
    b.set("retain_duplicates", boolean(t.retain_duplicates));
  }

  b.header("[knobs]");
  b.set("lag_probe_interval_ms", num(s.knobs.lag_probe_interval_ms));
  b.set("history_records_max", num(static_cast<int64_t>(s.knobs.history_records_max)));
  b.set("consumer_fetch_records_max", num(c.consumer.max_records_per_fetch));
  b.set("broker_records_max", num(c.broker.max_total_records));
  b.set("broker_partitions_per_topic_max", num(c.broker.max_partitions_per_topic));
  b.set("coordinator_new_member_join_timeout_ms", num(g.new_member_join_timeout_ms));
  b.set("coordinator_groups_max", num(g.max_groups));
  b.set("coordinator_pending_outputs_max", num(g.max_pending_outputs));
  b.set("broker_transactional_ids_max", num(c.broker.transactions.max_transactional_ids));
  b.set("broker_transactions_open_max", num(c.broker.transactions.max_open_transactions));
  b.set("broker_transaction_partitions_max", num(c.broker.transactions.max_transaction_partitions));
  b.set("broker_cleaner_records_per_step_max", num(c.broker.cleaner.records_per_step_max));
  b.set("offset_delta_threshold_for_checkpoint", num(sc.offset_delta_threshold_for_checkpoint));
}

void write_workload(Block& b, const ProducerWorkloadSpec& w) {
  const ProducerConfig& c = w.config;
  b.set("name", str("Producer"));
  b.set("start_ms", num(c.start_ms));
  b.set("stop_ms", num(c.stop_ms));
  b.set("records_per_second", num(c.records_per_second));
  b.set("tick_ms", num(c.tick_ms));
  b.set("keys", num(c.keys));
  b.set("key_distribution", name(names::kKeyDistributions, c.distribution));
  b.set("value", num(c.value));
  IQ_ASSERT(c.records_max <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  b.set("records_max", num(static_cast<int64_t>(c.records_max)));
  // Event-time settings only when set, so files without them are written as before.
  if (c.out_of_order_odds.num > 0) {
    b.set("out_of_order_one_in", one_in(c.out_of_order_odds));
    b.set("out_of_order_ms_max", num(c.out_of_order_ms_max));
  }
  if (c.stream_time_jump_odds.num > 0) {
    b.set("stream_time_jump_one_in", one_in(c.stream_time_jump_odds));
    b.set("stream_time_jump_ms_max", num(c.stream_time_jump_ms_max));
  }
  if (c.tombstone_odds.num > 0) b.set("tombstone_one_in", one_in(c.tombstone_odds));
  if (c.grace_edge_odds.num > 0) b.set("grace_edge_one_in", one_in(c.grace_edge_odds));
  if (c.sequence_values) b.set("sequence_values", boolean(true));
}

void write_workload(Block& b, const QueryClientsWorkloadSpec& w) {
  const QueryClientConfig& c = w.config;
  b.set("name", str("QueryClients"));
  b.set("clients", num(c.clients));
  b.set("start_ms", num(c.start_ms));
  b.set("stop_ms", num(c.stop_ms));
  b.set("interval_ms", num(c.interval_ms));
  b.set("store", str(c.store));
  b.set("keys", num(c.keys));
  b.set("key_distribution", name(names::kKeyDistributions, c.distribution));
  b.set("range_one_in", one_in(c.range_odds));
  b.set("timestamped_one_in", one_in(c.timestamped_odds));
  b.set("range_width", num(c.range_width));
  std::vector<std::string> modes;
  for (BoundMode m : c.bound_modes) modes.emplace_back(names::name_of(names::kBoundModes, m));
  b.set("position_bound", strings(modes));
  b.set("require_active_one_in", one_in(c.require_active_odds));
  b.set("standby_one_in", one_in(c.standby_odds));
  b.set("require_active_bounded", boolean(c.require_active_bounded));
  b.set("multi_partition_one_in", one_in(c.multi_partition_odds));
  b.set("all_partitions_one_in", one_in(c.all_partitions_odds));
  std::vector<std::string> orders;
  for (ResultOrder o : c.range_orders) orders.emplace_back(names::name_of(names::kResultOrders, o));
  b.set("range_order", strings(orders));
  b.set("open_range_one_in", one_in(c.open_range_odds));
  b.set("absent_key_one_in", one_in(c.absent_key_odds));
  b.set("skip_cache_one_in", one_in(c.skip_cache_odds));
  b.set("inverted_range_one_in", one_in(c.inverted_range_odds));
  b.set("window_query_one_in", one_in(c.window_query_odds));
  b.set("window_range_one_in", one_in(c.window_range_odds));
  // Only when set, so files without time edges are written as before.
  if (c.time_edge_odds.num > 0) b.set("time_edge_one_in", one_in(c.time_edge_odds));
  b.set("unknown_store_one_in", one_in(c.unknown_store_odds));
  b.set("direct_one_in", one_in(c.direct_odds));
  // Off at the old pin (the parser leaves it off there), and the old pin refuses the key.
  if (c.isolation_level_odds.num > 0) {
    b.set("isolation_level_one_in", one_in(c.isolation_level_odds));
  }
  b.set("timeout_ms", num(c.timeout_ms));
  b.set("retry_attempts", num(c.retry.attempts_max));
  b.set("retry_backoff_ms", num(c.retry.backoff_ms));
  std::vector<std::string> retry_on;
  for (const auto& o : names::kRetryOutcomes) {
    if (c.retry.*o.flag) retry_on.emplace_back(o.name);
  }
  b.set("retry_on", strings(retry_on));
}

void write_workload(Block& b, const FaultWorkloadSpec& w) {
  if (w.inside) {
    IQ_ASSERT(w.action == FaultAction::kCrash, "a crash inside an operation is a crash");
    b.set("name", str("CrashInside"));
    b.set("instance", instance(w.instance));
    b.set("at_ms", num(w.at_ms));
    b.set("crash_at", name(names::kCrashInsideAt, w.inside->at));
    b.set("crash_at_n", num(static_cast<int64_t>(w.inside->n)));
    b.set("during", name(names::kCrashDuring, w.inside->during));
    if (!w.inside->path.empty()) b.set("crash_at_path", str(w.inside->path));
    if (w.undo_after_ms) b.set("restart_after_ms", num(*w.undo_after_ms));
    b.set("state_directory", str(w.wipe ? "wipe" : "keep"));
    return;
  }
  b.set("name", str("Fault"));
  b.set("action", name(names::kFaultActions, w.action));
  if (w.action != FaultAction::kAddInstance) b.set("instance", instance(w.instance));
  b.set("at_ms", num(w.at_ms));
  if (w.undo_after_ms) b.set("undo_after_ms", num(*w.undo_after_ms));
  if (w.action == FaultAction::kCrash || w.action == FaultAction::kClose) {
    b.set("state_directory", str(w.wipe ? "wipe" : "keep"));
  }
}

void write_workload(Block& b, const RandomFaultsWorkloadSpec& w) {
  b.set("name", str("RandomFaults"));
  b.set("start_ms", num(w.start_ms));
  b.set("stop_ms", num(w.stop_ms));
  b.set("interval_ms", num(w.interval_ms));
  b.set("crash_one_in", one_in(w.crash_odds));
  b.set("wipe_one_in", one_in(w.wipe_odds));
  b.set("pause_one_in", one_in(w.pause_odds));
  b.set("isolate_one_in", one_in(w.isolate_odds));
  b.set("close_one_in", one_in(w.close_odds));
  b.set("undo_ms_min", num(w.undo_ms_min));
  b.set("undo_ms_max", num(w.undo_ms_max));
  b.set("max_down", num(w.max_down));
  b.set("crash_inside_one_in", one_in(w.crash_inside_odds));
  b.set("crash_inside_n_max", num(w.crash_inside_n_max));
  b.set("long_outage_one_in", one_in(w.long_outage_odds));
  b.set("long_outage_ms_min", num(w.long_outage_ms_min));
  b.set("long_outage_ms_max", num(w.long_outage_ms_max));
  b.set("read_error_one_in", one_in(w.read_error_odds));
}

void write_step(Block& b, const Scenario& s, const ProduceStep& step) {
  std::string records = "[\n";
  for (const ProduceRecordSpec& r : step.records) {
    std::string fields;
    if (r.partition) fields += "partition = " + num(*r.partition) + ", ";
    fields += "key = " + num(r.key);
    if (r.value) fields += ", value = " + num(*r.value);
    if (r.timestamp_ms) fields += ", timestamp_ms = " + num(*r.timestamp_ms);
    records += "      { " + fields + " },\n";
  }
  records += "    ]";
  b.set("produce",
        "{ topic = " + str(s.cluster.topology.source_topic) + ", records = " + records + " }");
}

void write_step(Block& b, const Scenario&, const RunUntilStep& step) {
  if (step.quiescent) {
    b.set("run_until", str("quiescent"));
    b.set("ms_max", num(step.ms_max));
  } else {
    b.set("run_for_ms", num(step.for_ms));
  }
}

void write_step(Block& b, const Scenario&, const FaultStep& step) {
  if (step.action == FaultAction::kAddInstance) {
    b.set("add_instance", "true");
  } else {
    b.set(names::name_of(names::kFaultActions, step.action), instance(step.instance));
  }
}

std::string expected(const ExpectedPartition& e) {
  std::string out = "{ partition = " + num(e.partition);
  if (e.success) out += ", success = " + boolean(*e.success);
  if (e.value) out += *e.value ? ", value = " + num(**e.value) : ", value_absent = true";
  if (e.entries) {
    out += ", entries = [";
    for (size_t i = 0; i < e.entries->size(); ++i) {
      const auto& [k, v] = (*e.entries)[i];
      out += (i > 0 ? ", [" : "[") + num(k) + ", " + num(v) + "]";
    }
    out += "]";
  }
  if (e.timestamps) out += ", timestamps = " + ints(*e.timestamps);
  if (e.versions) {
    out += ", versions = [";
    for (size_t i = 0; i < e.versions->size(); ++i) {
      const VersionedValue& v = (*e.versions)[i];
      out += (i > 0 ? ", { value = " : "{ value = ") + num(v.value) +
             ", timestamp_ms = " + num(v.valid_from_ms);
      if (v.valid_to_ms) out += ", valid_to_ms = " + num(*v.valid_to_ms);
      out += " }";
    }
    out += "]";
  }
  if (e.windows) {
    out += ", windows = [";
    for (size_t i = 0; i < e.windows->size(); ++i) {
      const WindowedValue& w = (*e.windows)[i];
      out += i > 0 ? ", { " : "{ ";
      // A WindowKeyQuery's entries carry the query's key and no end (the parser refuses both).
      if (w.end_ms) out += "key = " + num(w.key) + ", end_ms = " + num(*w.end_ms) + ", ";
      out += "start_ms = " + num(w.start_ms) + ", value = " + num(w.value) + " }";
    }
    out += "]";
  }
  if (e.position) out += ", position = " + position(*e.position);
  if (e.failure_reason)
    out += ", failure_reason = " + name(names::kFailureReasons, *e.failure_reason);
  if (e.message_contains) out += ", message_contains = " + str(*e.message_contains);
  if (e.execution_info) out += ", execution_info = " + boolean(*e.execution_info);
  return out + " }";
}

void write_step(Block& b, const Scenario&, const QueryStep& q) {
  std::string query = "{ store = " + str(q.store) + ", type = " + name(names::kQueryKinds, q.type);
  if (q.key) query += ", key = " + num(*q.key);
  if (q.lower) query += ", lower = " + num(*q.lower);
  if (q.upper) query += ", upper = " + num(*q.upper);
  query += ", order = " + name(names::kResultOrders, q.order);
  if (q.as_of_ms) query += ", as_of_ms = " + num(*q.as_of_ms);
  if (q.from_time_ms) query += ", from_ms = " + num(*q.from_time_ms);
  if (q.to_time_ms) query += ", to_ms = " + num(*q.to_time_ms);
  if (q.partitions) query += ", partitions = " + ints(*q.partitions);
  IQ_ASSERT(!(q.bound && q.bound_produced), "a query bounded both by a position and 'produced'");
  query += ", bound = " +
           (q.bound ? position(*q.bound) : str(q.bound_produced ? "produced" : "unbounded"));
  query += ", require_active = " + boolean(q.require_active);
  if (q.collect_execution_info) query += ", execution_info = true";
  if (q.isolation_level) {
    query += ", isolation_level = " + name(names::kQueryIsolationLevels, *q.isolation_level);
  }
  query += ", instance = " + instance(q.instance) + " }";
  b.set("query", query);
  if (!q.expect.empty()) {
    std::string list = "[\n";
    for (const ExpectedPartition& e : q.expect) list += "      " + expected(e) + ",\n";
    b.set("expect", list + "    ]");
  }
  if (q.expect_error) b.set("expect_error", str(*q.expect_error));
  if (q.expect_partitions) b.set("expect_partitions", ints(*q.expect_partitions));
  if (q.expect_values) b.set("expect_values", ints(*q.expect_values));
  if (q.expect_position) b.set("expect_position", position(*q.expect_position));
}

void write_test(std::string& out, const Scenario& s, const TestSpec& t) {
  Block top(out, "");
  top.header("[[test]]");
  top.set("title", str(t.title));
  top.set("duration_ms", num(t.duration_ms));
  top.set("checks", strings(t.checks));
  Block b(out, "    ");
  for (const WorkloadSpec& w : t.workloads) {
    b.header("[[test.workload]]");
    std::visit([&](const auto& spec) { write_workload(b, spec); }, w);
  }
  for (const Step& step : t.steps) {
    b.header("[[test.step]]");
    std::visit([&](const auto& spec) { write_step(b, s, spec); }, step);
  }
}

void write_liveness(std::string& out, const LivenessSpec& l) {
  Block b(out, "");
  b.header("[liveness]");
  b.set("enabled", boolean(l.enabled));
  b.set("timeout_ms", num(l.timeout_ms));
  b.set("probe_interval_ms", num(l.probe_interval_ms));
  b.set("checks", strings(l.checks));
  b.set("audit_replicas", boolean(l.audit_replicas));
}

}  // namespace

std::string to_toml(const Scenario& scenario) {
  std::string out;
  write_top(out, scenario);
  write_cluster(out, scenario);
  for (const TestSpec& t : scenario.tests) write_test(out, scenario, t);
  write_liveness(out, scenario.liveness);
  return out;
}

Scenario without_locations(Scenario scenario) {
  scenario.file.clear();
  for (TestSpec& t : scenario.tests) {
    for (Step& step : t.steps) {
      if (auto* q = std::get_if<QueryStep>(&step)) q->where = SourceLocation{};
    }
  }
  return scenario;
}

}  // namespace iq::sim
