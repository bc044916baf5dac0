// The scenario parser, [[test.workload]]: Producer, QueryClients, RandomFaults and the timed fault
// workloads. scenario_parser_reader.h holds the machinery and the class; scenarios/README.md the
// keys.

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "scenario/scenario_names.h"
#include "scenario_parser_reader.h"

namespace iq::sim::parsing {

namespace {

constexpr size_t kCrashAtPathBytesMax = 1'024;

// Why `s` cannot be a path an instance's disk events carry, or nullopt: an absolute path under
// the simulated state directory (sim::Instance::kStateDir), in normal form (no empty, '.' or '..'
// component, no trailing '/'), printable, at most kCrashAtPathBytesMax bytes. A path that is not in
// normal form would never equal an event's path, and the arm would silently never fire.
std::optional<std::string> why_not_state_path(std::string_view s) {
  const std::string_view root = "/state/";
  if (s.size() > kCrashAtPathBytesMax) {
    return fmt::format("is longer than {} bytes", kCrashAtPathBytesMax);
  }
  if (!s.starts_with(root)) return "is not a path in the state directory (it must start /state/)";
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "holds a control character";
  }
  size_t from = 1;  // each component after the leading '/'
  while (from <= s.size()) {
    const size_t slash = std::min(s.find('/', from), s.size());
    const std::string_view part = s.substr(from, slash - from);
    if (part.empty() || part == "." || part == "..") {
      return "is not in normal form (an empty, '.' or '..' component, or a trailing '/')";
    }
    from = slash + 1;
  }
  return std::nullopt;
}

}  // namespace

WorkloadSpec ScenarioParser::parse_workload(const toml::table& table, const KeyPath& path,
                                            const TestContext& context) {
  Table w(r_, table, path);
  const toml::node* name_node = w.peek("name");
  if (name_node == nullptr) w.missing("name");
  const std::string name = r_.plain_string(*name_node, path.key("name"));
  WorkloadSpec spec;
  if (name == "Producer") {
    spec = parse_producer(w, context);
  } else if (name == "QueryClients") {
    spec = parse_query_clients(w, context);
  } else if (name == "RandomFaults") {
    spec = parse_random_faults(w, context);
  } else if (name == "Fault" || name == "CrashRestart" || name == "CrashInside" ||
             name == "Pause" || name == "Partition" || name == "ScaleOut" || name == "ScaleIn") {
    spec = parse_fault_workload(w, name, context);
  } else {
    r_.fail(*name_node, path.key("name"),
            fmt::format("unknown workload '{}' (expected 'Producer' | 'QueryClients' | 'Fault' | "
                        "'CrashRestart' | 'CrashInside' | 'Pause' | 'Partition' | 'ScaleOut' | "
                        "'ScaleIn' | 'RandomFaults')",
                        name));
  }
  w.find("name");
  w.finish();
  return spec;
}

std::pair<int64_t, int64_t> ScenarioParser::start_stop(Table& w, const TestContext& context) {
  const IntValue start = w.integer("start_ms", 0, kTimeMs);
  IntValue stop = w.integer("stop_ms", context.duration.value, kTimeMs);
  if (!stop.given) stop.lo = stop.hi = context.duration.lo;
  require_le(r_, start, "start_ms", stop, "stop_ms");
  require_le(r_, stop, "stop_ms", context.duration, "duration_ms");
  return {start.value, stop.value};
}

ProducerWorkloadSpec ScenarioParser::parse_producer(Table& w, const TestContext& context) {
  w.allow({"name", "start_ms", "stop_ms", "records_per_second", "tick_ms", "keys",
           "key_distribution", "value", "records_max", "out_of_order_one_in", "out_of_order_ms_max",
           "stream_time_jump_one_in", "stream_time_jump_ms_max", "tombstone_one_in",
           "grace_edge_one_in", "sequence_values"});
  ProducerConfig c;
  std::tie(c.start_ms, c.stop_ms) = start_stop(w, context);
  c.records_per_second =
      w.integer("records_per_second", c.records_per_second, {0, 1'000'000}).value;
  c.tick_ms = w.integer("tick_ms", c.tick_ms, kPositiveTimeMs).value;
  c.keys = w.integer("keys", s_.keys, {1, kKeysMax}).as_int32();
  c.distribution = w.enumeration("key_distribution", c.distribution, names::kKeyDistributions,
                                 "key distribution");
  c.value = w.integer("value", c.value, kAnyInt64).value;
  c.records_max = static_cast<uint64_t>(
      w.integer("records_max", static_cast<int64_t>(c.records_max), {0, kInt64Max}).value);
  c.out_of_order_odds = w.one_in("out_of_order_one_in", 0);
  c.out_of_order_ms_max = w.integer("out_of_order_ms_max", c.out_of_order_ms_max, kTimeMs).value;
  c.stream_time_jump_odds = w.one_in("stream_time_jump_one_in", 0);
  c.stream_time_jump_ms_max =
      w.integer("stream_time_jump_ms_max", c.stream_time_jump_ms_max, kPositiveTimeMs).value;
  c.tombstone_odds = w.one_in("tombstone_one_in", 0);
  c.grace_edge_odds = w.one_in("grace_edge_one_in", 0);
  c.sequence_values = w.boolean("sequence_values", c.sequence_values);
  return ProducerWorkloadSpec{c};
}

QueryClientsWorkloadSpec ScenarioParser::parse_query_clients(Table& w, const TestContext& context) {
  w.allow({"name",
           "clients",
           "start_ms",
           "stop_ms",
           "interval_ms",
           "store",
           "keys",
           "key_distribution",
           "range_one_in",
           "timestamped_one_in",
           "range_width",
           "position_bound",
           "require_active_one_in",
           "standby_one_in",
           "timeout_ms",
           "retry_attempts",
           "retry_backoff_ms",
           "retry_on",
           "multi_partition_one_in",
           "all_partitions_one_in",
           "range_order",
           "open_range_one_in",
           "absent_key_one_in",
           "skip_cache_one_in",
           "inverted_range_one_in",
           "window_query_one_in",
           "window_range_one_in",
           "time_edge_one_in",
           "unknown_store_one_in",
           "direct_one_in",
           "require_active_bounded",
           "isolation_level_one_in"});
  QueryClientConfig c;
  c.clients = w.integer("clients", c.clients, {1, 1'000}).as_int32();
  std::tie(c.start_ms, c.stop_ms) = start_stop(w, context);
  c.interval_ms = w.integer("interval_ms", c.interval_ms, kPositiveTimeMs).value;
  c.store = w.name("store", s_.cluster.topology.store_name);
  // A typo here used to give a green run: every query failed with UnknownStateStoreException and
  // no property had anything to judge. Scripted query steps may still name an unknown store on
  // purpose (expect_error = 'UnknownStateStoreException'); a workload never does.
  if (c.store != s_.cluster.topology.store_name) {
    w.fail_key("store", "names no store of the topology (its store is '" +
                            s_.cluster.topology.store_name + "')");
  }
  c.keys = w.integer("keys", s_.keys, {1, kKeysMax}).as_int32();
  c.distribution = w.enumeration("key_distribution", c.distribution, names::kKeyDistributions,
                                 "key distribution");
  c.range_odds = w.one_in("range_one_in", 4);
  c.timestamped_odds = w.one_in("timestamped_one_in", 2);
  c.range_width = w.integer("range_width", c.range_width, {1, kKeysMax}).as_int32();
  c.bound_modes =
      w.get<std::vector<BoundMode>>("position_bound", [&](const toml::node& n, const KeyPath& p) {
         return bound_modes(n, p);
       }).value_or(c.bound_modes);
  c.require_active_odds = w.one_in("require_active_one_in", 2);
  c.standby_odds = w.one_in("standby_one_in", 3);
  c.require_active_bounded = w.boolean("require_active_bounded", c.require_active_bounded);
  c.multi_partition_odds = w.one_in("multi_partition_one_in", 0);
  c.all_partitions_odds = w.one_in("all_partitions_one_in", 0);
  std::vector<std::string_view> order_names;
  for (const auto& o : names::kResultOrders) order_names.push_back(o.name);
  const std::vector<std::string> orders =
      w.name_list("range_order", {"ANY"}, order_names, "result order");
  if (orders.empty()) w.fail_key("range_order", "needs at least one result order");
  c.range_orders.clear();
  for (const auto& o : names::kResultOrders) {
    if (std::find(orders.begin(), orders.end(), o.name) != orders.end()) {
      c.range_orders.push_back(o.value);
    }
  }
  c.open_range_odds = w.one_in("open_range_one_in", 0);
  c.absent_key_odds = w.one_in("absent_key_one_in", 0);
  c.skip_cache_odds = w.one_in("skip_cache_one_in", 0);
  c.inverted_range_odds = w.one_in("inverted_range_one_in", 0);
  c.window_query_odds = w.one_in("window_query_one_in", 0);
  c.window_range_odds = w.one_in("window_range_one_in", 4);
  c.time_edge_odds = w.one_in("time_edge_one_in", 0);
  c.unknown_store_odds = w.one_in("unknown_store_one_in", 0);
  c.direct_odds = w.one_in("direct_one_in", 0);
  // StateQueryRequest.withIsolationLevel exists only at the new pin: refused in a file that cannot
  // run it, ignored at the old pin of a file that may (as
  // default.interactive.query.isolation.level).
  if (w.has("isolation_level_one_in") && !pin_may_be_new_) {
    w.fail_key("isolation_level_one_in",
               "exists only at kafka = '2026-08-20' ([configuration] kafka)");
  }
  const base::Ratio isolation_odds = w.one_in("isolation_level_one_in", 0);
  if (at_least(s_.cluster.streams.kafka_pin, KafkaPin::k2026_08_20)) {
    c.isolation_level_odds = isolation_odds;
  }
  c.timeout_ms = w.integer("timeout_ms", c.timeout_ms, kPositiveTimeMs).value;
  c.retry.attempts_max = w.integer("retry_attempts", c.retry.attempts_max, {1, 100}).as_int32();
  c.retry.backoff_ms = w.integer("retry_backoff_ms", c.retry.backoff_ms, kTimeMs).value;
  std::vector<std::string_view> outcome_names;
  std::vector<std::string> all_outcomes;
  for (const auto& o : names::kRetryOutcomes) {
    outcome_names.push_back(o.name);
    all_outcomes.emplace_back(o.name);
  }
  const std::vector<std::string> retry_on =
      w.name_list("retry_on", all_outcomes, outcome_names, "retry outcome");
  for (const auto& o : names::kRetryOutcomes) {
    c.retry.*o.flag = std::find(retry_on.begin(), retry_on.end(), o.name) != retry_on.end();
  }
  return QueryClientsWorkloadSpec{c};
}

std::vector<BoundMode> ScenarioParser::bound_modes(const toml::node& n, const KeyPath& p) const {
  if (n.is_string()) return {r_.plain_enum(n, p, names::kBoundModes, "position bound")};
  const toml::array* a = n.as_array();
  if (a == nullptr) {
    r_.fail(n, p,
            fmt::format("expected a position bound or an array of them, got {}", type_name(n)));
  }
  if (a->empty()) r_.fail(n, p, "needs at least one position bound");
  std::vector<BoundMode> out;
  // Bounded: past three items one is necessarily unknown or listed twice, which fails.
  for (size_t i = 0; i < a->size(); ++i) {
    const BoundMode m = r_.plain_enum(*a->get(i), p.index(i), names::kBoundModes, "position bound");
    if (std::find(out.begin(), out.end(), m) != out.end()) {
      r_.fail(*a->get(i), p.index(i),
              fmt::format("'{}' is listed twice", names::name_of(names::kBoundModes, m)));
    }
    out.push_back(m);
  }
  return out;
}

RandomFaultsWorkloadSpec ScenarioParser::parse_random_faults(Table& w, const TestContext& context) {
  w.allow({"name", "start_ms", "stop_ms", "interval_ms", "crash_one_in", "wipe_one_in",
           "pause_one_in", "isolate_one_in", "close_one_in", "undo_ms_min", "undo_ms_max",
           "max_down", "crash_inside_one_in", "crash_inside_n_max", "long_outage_one_in",
           "long_outage_ms_min", "long_outage_ms_max", "read_error_one_in"});
  RandomFaultsWorkloadSpec c;
  std::tie(c.start_ms, c.stop_ms) = start_stop(w, context);
  c.interval_ms = w.integer("interval_ms", c.interval_ms, kPositiveTimeMs).value;
  c.crash_odds = w.one_in("crash_one_in", 4);
  c.wipe_odds = w.one_in("wipe_one_in", 4);
  c.pause_odds = w.one_in("pause_one_in", 8);
  c.isolate_odds = w.one_in("isolate_one_in", 8);
  c.close_odds = w.one_in("close_one_in", 8);
  const IntValue undo_min = w.integer("undo_ms_min", c.undo_ms_min, kTimeMs);
  const IntValue undo_max = w.integer("undo_ms_max", c.undo_ms_max, kTimeMs);
  require_le(r_, undo_min, "undo_ms_min", undo_max, "undo_ms_max");
  c.undo_ms_min = undo_min.value;
  c.undo_ms_max = undo_max.value;
  c.max_down = w.integer("max_down", c.max_down, {1, kInstancesMax}).as_int32();
  c.crash_inside_odds = w.one_in("crash_inside_one_in", 0);
  c.crash_inside_n_max =
      w.integer("crash_inside_n_max", c.crash_inside_n_max, {1, kCrashAtNMax}).value;
  c.long_outage_odds = w.one_in("long_outage_one_in", 0);
  const IntValue long_min = w.integer("long_outage_ms_min", c.long_outage_ms_min, kTimeMs);
  const IntValue long_max = w.integer("long_outage_ms_max", c.long_outage_ms_max, kTimeMs);
  require_le(r_, long_min, "long_outage_ms_min", long_max, "long_outage_ms_max");
  c.long_outage_ms_min = long_min.value;
  c.long_outage_ms_max = long_max.value;
  c.read_error_odds = w.one_in("read_error_one_in", 0);
  return c;
}

FaultWorkloadSpec ScenarioParser::parse_fault_workload(Table& w, const std::string& name,
                                                       const TestContext& context) {
  FaultWorkloadSpec c;
  std::string_view undo_key;
  if (name == "Fault") {
    w.allow({"name", "action", "instance", "at_ms", "undo_after_ms", "state_directory"});
    if (!w.has("action")) w.missing("action");
    c.action = *w.optional_enumeration("action", names::kFaultActions, "fault action");
    undo_key = "undo_after_ms";
  } else if (name == "CrashRestart") {
    w.allow({"name", "instance", "at_ms", "restart_after_ms", "state_directory"});
    c.action = FaultAction::kCrash;
    undo_key = "restart_after_ms";
  } else if (name == "CrashInside") {
    w.allow({"name", "instance", "at_ms", "crash_at", "crash_at_n", "during", "crash_at_path",
             "restart_after_ms", "state_directory"});
    c.action = FaultAction::kCrash;
    undo_key = "restart_after_ms";
    CrashInsideSpec inside;
    inside.at = w.enumeration("crash_at", inside.at, names::kCrashInsideAt, "crash_at event");
    inside.n = static_cast<uint64_t>(w.integer("crash_at_n", 1, {1, kCrashAtNMax}).value);
    inside.during = w.enumeration("during", uint32_t{0}, names::kCrashDuring, "operation");
    inside.path = crash_at_path(w, inside.at);
    c.inside = inside;
  } else if (name == "Pause") {
    w.allow({"name", "instance", "at_ms", "resume_after_ms"});
    c.action = FaultAction::kPause;
    undo_key = "resume_after_ms";
  } else if (name == "Partition") {
    w.allow({"name", "instance", "at_ms", "heal_after_ms"});
    c.action = FaultAction::kIsolate;
    undo_key = "heal_after_ms";
  } else if (name == "ScaleOut") {
    w.allow({"name", "at_ms", "start_after_ms"});
    c.action = FaultAction::kAddInstance;
    undo_key = "start_after_ms";
  } else {
    IQ_ASSERT(name == "ScaleIn", "{}", name);
    w.allow({"name", "instance", "at_ms"});
    c.action = FaultAction::kRemoveInstance;
  }
  const IntValue at = w.integer("at_ms", 0, kTimeMs);
  require_le(r_, at, "at_ms", context.duration, "duration_ms");
  c.at_ms = at.value;
  c.instance = fault_instance(w, c.action);
  if (!undo_key.empty() && w.has(undo_key)) {
    // An added instance's "undo" is its start: created at at_ms, started this long after.
    if (!undoable(c.action) && c.action != FaultAction::kAddInstance) {
      w.fail_key(undo_key, fmt::format("a '{}' fault has nothing to undo", to_string(c.action)));
    }
    c.undo_after_ms = w.integer(undo_key, 0, kTimeMs).value;
    // An instance added with start_after_ms = 0 is started at once, as without the key.
    if (c.action == FaultAction::kAddInstance && *c.undo_after_ms == 0) c.undo_after_ms.reset();
  }
  if (w.has("state_directory")) {
    if (c.action != FaultAction::kCrash && c.action != FaultAction::kClose) {
      w.fail_key("state_directory", "only a crash or a close restarts on a kept or wiped disk");
    }
    c.wipe = state_directory_wipes(w);
    if (c.wipe && !c.undo_after_ms) {
      w.fail_key("state_directory",
                 fmt::format("'wipe' applies to the restart, which needs {}", undo_key));
    }
  }
  return c;
}

// A CrashInside's crash_at_path: absent, or a normalized absolute path in the simulated state
// directory (/state/...), for disk events only, whatever crash_at a template draws. Every
// alternative of a choice is checked.
std::string ScenarioParser::crash_at_path(Table& w, CrashInsideAt at) {
  if (!w.has("crash_at_path")) return "";
  for (CrashInsideAt other :
       {CrashInsideAt::kSend, CrashInsideAt::kCommit, CrashInsideAt::kRestorePoll}) {
    if (at == other ||
        w.may_be("crash_at", other, names::kCrashInsideAt, "crash_at event").value_or(false)) {
      w.fail_key(
          "crash_at_path",
          fmt::format("only a 'disk' event has a path (crash_at may be '{}')", to_string(other)));
    }
  }
  return *w.get<std::string>("crash_at_path", [&](const toml::node& n, const KeyPath& p) {
    std::string s = r_.plain_string(n, p);
    if (const std::optional<std::string> why = why_not_state_path(s)) {
      r_.fail(n, p, fmt::format("'{}' {}", s, *why));
    }
    return s;
  });
}

bool ScenarioParser::state_directory_wipes(Table& w) {
  return *w.get<bool>("state_directory", [&](const toml::node& n, const KeyPath& p) {
    const std::string s = r_.plain_string(n, p);
    if (s != "keep" && s != "wipe") {
      r_.fail(n, p, fmt::format("expected 'keep' | 'wipe', got '{}'", s));
    }
    return s == "wipe";
  });
}

int32_t ScenarioParser::fault_instance(Table& t, FaultAction action) {
  if (action == FaultAction::kAddInstance) {
    if (t.has("instance")) t.fail_key("instance", "add_instance takes no instance");
    ++instances_added_;
    require_instances_at_most_max(t.at(), t.path());
    return 0;
  }
  if (action == FaultAction::kUpgrade &&
      at_least(s_.cluster.streams.kafka_pin, KafkaPin::k2026_08_20)) {
    t.fail_key(
        "action",
        "an upgrade restarts an instance at the 2026-08-20 pin over its old pin's disk; this "
        "scenario already runs that pin ([configuration] kafka = '2026-08-20')");
  }
  if (!t.has("instance")) t.missing("instance");
  return reference_instance(t.instance("instance"));
}

}  // namespace iq::sim::parsing
