// The scenario parser, [[test.step]]: scripted produce, run, fault and query steps, and what a
// query expects. scenario_parser_reader.h holds the machinery and the class; scenarios/README.md
// the keys.

#include <fmt/format.h>

#include "scenario/scenario_names.h"
#include "scenario_parser_reader.h"

namespace iq::sim::parsing {

Step ScenarioParser::parse_step(const toml::table& table, const KeyPath& path) {
  Table st(r_, table, path);
  st.allow(kStepKeys);
  std::vector<std::string_view> kinds;
  for (std::string_view k : kStepKinds) {
    if (st.has(k)) kinds.push_back(k);
  }
  if (kinds.empty()) {
    r_.fail(table.source(), path,
            "a step needs one of: produce, run_until, run_for_ms, query, fault, or a fault "
            "shorthand (crash = 'instance-1', ...)");
  }
  if (kinds.size() > 1) {
    st.fail_key(kinds[1], fmt::format("a step does one thing: '{}' and '{}' are both given",
                                      kinds[0], kinds[1]));
  }
  const std::string_view kind = kinds[0];
  if (kind != "run_until" && st.has("ms_max")) {
    st.fail_key("ms_max", "ms_max goes with run_until = 'quiescent'");
  }
  if (kind != "query") {
    for (std::string_view k : {"expect", "expect_error", "expect_partitions"}) {
      if (st.has(k)) st.fail_key(k, fmt::format("{} goes with a query step", k));
    }
  }
  Step step;
  if (kind == "produce") {
    step = parse_produce(st);
  } else if (kind == "run_until" || kind == "run_for_ms") {
    step = parse_run(st, kind);
  } else if (kind == "query") {
    step = parse_query(st, table);
  } else {
    step = parse_fault_step(st, kind);
  }
  st.finish();
  return step;
}

ProduceStep ScenarioParser::parse_produce(Table& st) {
  const toml::table* produce = st.subtable("produce");
  Table p(r_, *produce, st.path("produce"));
  p.allow({"topic", "records"});
  if (std::optional<std::string> topic = p.optional_name("topic")) {
    if (*topic != s_.cluster.topology.source_topic) {
      p.fail_key("topic", fmt::format("records go to the source topic '{}', not '{}'",
                                      s_.cluster.topology.source_topic, *topic));
    }
  }
  const toml::array* records = p.tables("records");
  if (records == nullptr) p.missing("records");
  if (records->empty()) p.fail_key("records", "needs at least one record");
  ProduceStep step;
  for (size_t i = 0; i < records->size(); ++i) {
    Table rec(r_, *records->get(i)->as_table(), p.path("records").index(i));
    rec.allow({"partition", "key", "value", "timestamp_ms"});
    ProduceRecordSpec r;
    if (std::optional<IntValue> partition = rec.optional_integer("partition", kAnyInt32)) {
      r.partition = checked_partition(*partition);
    }
    r.key = rec.required_integer("key", kAnyInt32).as_int32();
    if (std::optional<IntValue> value = rec.optional_integer("value", kAnyInt64)) {
      r.value = value->value;
    }
    if (std::optional<IntValue> ts = rec.optional_integer("timestamp_ms", {0, kInt64Max})) {
      r.timestamp_ms = ts->value;
    }
    rec.finish();
    step.records.push_back(r);
  }
  p.finish();
  return step;
}

RunUntilStep ScenarioParser::parse_run(Table& st, std::string_view kind) {
  RunUntilStep step;
  if (kind == "run_for_ms") {
    step.for_ms = st.integer("run_for_ms", 0, kTimeMs).value;
    return step;
  }
  st.get<bool>("run_until", [&](const toml::node& n, const KeyPath& p) {
    if (r_.plain_string(n, p) != "quiescent") {
      r_.fail(n, p, "expected 'quiescent' (or use run_for_ms = N)");
    }
    return true;
  });
  step.quiescent = true;
  step.ms_max = st.integer("ms_max", step.ms_max, kPositiveTimeMs).value;
  return step;
}

FaultStep ScenarioParser::parse_fault_step(Table& st, std::string_view kind) {
  FaultStep step;
  if (kind == "fault") {
    Table f(r_, *st.subtable("fault"), st.path("fault"));
    f.allow({"action", "instance"});
    if (!f.has("action")) f.missing("action");
    step.action = *f.optional_enumeration("action", names::kFaultActions, "fault action");
    step.instance = fault_instance(f, step.action);
    f.finish();
    return step;
  }
  step.action = *fault_action_from_string(kind);
  if (step.action == FaultAction::kAddInstance) {
    const bool yes = *st.get<bool>(
        "add_instance", [&](const toml::node& n, const KeyPath& p) { return r_.plain_bool(n, p); });
    if (!yes) st.fail_key("add_instance", "add_instance = true, or leave the step out");
    ++instances_added_;
    require_instances_at_most_max(st.at(), st.path("add_instance"));
    step.instance = 0;
    return step;
  }
  if (step.action == FaultAction::kUpgrade &&
      at_least(s_.cluster.streams.kafka_pin, KafkaPin::k2026_08_20)) {
    st.fail_key(
        "upgrade",
        "an upgrade restarts an instance at the 2026-08-20 pin over its old pin's disk; this "
        "scenario already runs that pin ([configuration] kafka = '2026-08-20')");
  }
  step.instance = reference_instance(st.instance(kind));
  return step;
}

QueryStep ScenarioParser::parse_query(Table& st, const toml::table& step_table) {
  QueryStep step;
  step.where = SourceLocation{r_.file(), static_cast<int32_t>(step_table.source().begin.line)};
  Table q(r_, *st.subtable("query"), st.path("query"));
  q.allow({"store", "type", "key", "lower", "upper", "order", "partitions", "bound",
           "require_active", "instance", "as_of_ms", "from_ms", "to_ms", "execution_info",
           "isolation_level"});
  step.store = q.name("store", s_.cluster.topology.store_name);
  step.type = q.enumeration("type", step.type, names::kQueryKinds, "query type");
  // KIP-1356's classes and StateQueryRequest.withIsolationLevel do not exist at the old pin.
  const bool new_pin = at_least(s_.cluster.streams.kafka_pin, KafkaPin::k2026_08_20);
  if (is_with_headers_kind(step.type) && !new_pin) {
    q.fail_key("type", fmt::format("{} exists only at kafka = '2026-08-20' ([configuration] kafka)",
                                   names::name_of(names::kQueryKinds, step.type)));
  }
  if (q.has("isolation_level") && !new_pin) {
    q.fail_key("isolation_level", "exists only at kafka = '2026-08-20' ([configuration] kafka)");
  }
  step.isolation_level =
      q.optional_enumeration("isolation_level", names::kQueryIsolationLevels, "isolation level");
  if (is_window_query(step.type)) {
    parse_window_query(q, step);
  } else if (is_key_query(step.type)) {
    if (!q.has("key")) q.missing("key");
    step.key = q.integer("key", 0, kAnyInt32).as_int32();
  } else if (q.has("key")) {
    q.fail_key("key",
               fmt::format("a {} takes no key", names::name_of(names::kQueryKinds, step.type)));
  }
  for (std::string_view bound_key : {"lower", "upper"}) {
    if (q.has(bound_key) && (!is_range_query(step.type) || is_window_query(step.type))) {
      q.fail_key(bound_key,
                 fmt::format("only a RangeQuery or TimestampedRangeQuery takes {}{}", bound_key,
                             is_window_query(step.type) ? " (a window query takes from_ms and "
                                                          "to_ms, window-start times)"
                                                        : ""));
    }
    if (std::optional<IntValue> v = q.optional_integer(bound_key, kAnyInt32)) {
      (bound_key == "lower" ? step.lower : step.upper) = v->as_int32();
    }
  }
  step.order = q.enumeration("order", step.order, names::kResultOrders, "result order");
  parse_versioned_times(q, step);
  step.partitions = partition_set(q, "partitions");
  const std::optional<BoundSpec> bound = q.get<BoundSpec>(
      "bound", [&](const toml::node& n, const KeyPath& p) { return bound_spec(n, p); });
  if (bound) {
    step.bound = bound->position;
    step.bound_produced = bound->produced;
  }
  step.require_active = q.boolean("require_active", false);
  step.collect_execution_info = q.boolean("execution_info", false);
  step.instance = q.has("instance") ? reference_instance(q.instance("instance")) : 1;
  q.finish();
  parse_expectations(st, step);
  return step;
}

// WindowKeyQuery.withKeyAndWindowStartRange(key, from, to): key, from_ms and to_ms all given.
// WindowRangeQuery.withKey(key) or .withWindowStartRange(from, to): a key, or both times, not
// both shapes. Times are any long (Kafka takes Instants; from > to answers nothing).
void ScenarioParser::parse_window_query(Table& q, QueryStep& step) {
  const bool key_query = is_window_key_query(step.type);
  if (key_query && !q.has("key")) q.missing("key");
  if (!key_query && q.has("key")) {
    for (std::string_view k : {"from_ms", "to_ms"}) {
      if (q.has(k)) {
        q.fail_key(k,
                   "a WindowRangeQuery takes a key (withKey) or from_ms and to_ms "
                   "(withWindowStartRange), not both");
      }
    }
  }
  if (key_query || !q.has("key")) {
    for (std::string_view k : {"from_ms", "to_ms"}) {
      if (!q.has(k)) {
        q.fail_key(
            q.has("from_ms") || q.has("to_ms") ? (k == "from_ms" ? "to_ms" : "from_ms") : "type",
            fmt::format(
                "a {} needs {}{}", names::name_of(names::kQueryKinds, step.type), k,
                key_query ? " (the window-start range)" : " (or a key: WindowRangeQuery.withKey)"));
      }
    }
  }
  if (q.has("key")) step.key = q.integer("key", 0, kAnyInt32).as_int32();
  if (auto v = q.optional_integer("from_ms", kAnyInt64)) step.from_time_ms = v->value;
  if (auto v = q.optional_integer("to_ms", kAnyInt64)) step.to_time_ms = v->value;
}

// VersionedKeyQuery.asOf and MultiVersionedKeyQuery's fromTime/toTime: any long, as Kafka takes
// them (fromTime > toTime is left for the query to refuse with IllegalArgumentException).
void ScenarioParser::parse_versioned_times(Table& q, QueryStep& step) {
  if (q.has("as_of_ms") && step.type != QueryKind::VersionedKeyQuery) {
    q.fail_key("as_of_ms", "only a VersionedKeyQuery takes as_of_ms");
  }
  if (is_window_query(step.type)) return;  // parse_window_query read from_ms and to_ms
  for (std::string_view k : {"from_ms", "to_ms"}) {
    if (q.has(k) && step.type != QueryKind::MultiVersionedKeyQuery) {
      q.fail_key(k,
                 fmt::format("only a MultiVersionedKeyQuery takes {} (and a window query, as its "
                             "window-start range)",
                             k));
    }
  }
  if (auto v = q.optional_integer("as_of_ms", kAnyInt64)) step.as_of_ms = v->value;
  if (auto v = q.optional_integer("from_ms", kAnyInt64)) step.from_time_ms = v->value;
  if (auto v = q.optional_integer("to_ms", kAnyInt64)) step.to_time_ms = v->value;
}

BoundSpec ScenarioParser::bound_spec(const toml::node& n, const KeyPath& p) const {
  if (n.is_string()) {
    const std::string s = r_.plain_string(n, p);
    if (s == "unbounded") return BoundSpec{};
    if (s == "produced") return BoundSpec{std::nullopt, true};
    r_.fail(n, p, fmt::format("expected 'unbounded', 'produced' or a position table, got '{}'", s));
  }
  if (n.is_table()) return BoundSpec{r_.plain_position(n, p), false};
  r_.fail(
      n, p,
      fmt::format("expected 'unbounded', 'produced' or a position table, got {}", type_name(n)));
}

void ScenarioParser::parse_expectations(Table& st, QueryStep& step) {
  if (st.has("expect") && st.has("expect_error")) {
    st.fail_key("expect_error", "a query either throws (expect_error) or answers (expect)");
  }
  if (st.has("expect_partitions") && st.has("expect_error")) {
    st.fail_key("expect_partitions", "a query that throws answers no partition");
  }
  if (const toml::node* expect = st.find("expect")) {
    const KeyPath path = st.path("expect");
    if (const toml::table* single = expect->as_table()) {
      step.expect.push_back(expected_partition(*single, path, step));
    } else if (const toml::array* list = expect->as_array()) {
      if (list->size() > kPartitionsMax) r_.fail(*expect, path, "too many items");
      for (size_t i = 0; i < list->size(); ++i) {
        const toml::table* item = list->get(i)->as_table();
        if (item == nullptr) {
          r_.fail(*list->get(i), path.index(i),
                  fmt::format("expected a table, got {}", type_name(*list->get(i))));
        }
        step.expect.push_back(expected_partition(*item, path.index(i), step));
      }
    } else {
      r_.fail(*expect, path,
              fmt::format("expected a table or an array of tables, got {}", type_name(*expect)));
    }
  }
  if (const toml::node* error = st.find("expect_error")) {
    const std::string name = r_.plain_string(*error, st.path("expect_error"));
    std::vector<std::string_view> known;
    for (StreamsError::Kind k : names::kStreamsErrorKinds)
      known.push_back(StreamsError::kind_name(k));
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      r_.fail(*error, st.path("expect_error"),
              fmt::format("unknown exception '{}' (expected one of: {})", name, join(known)));
    }
    step.expect_error = name;
  }
  step.expect_partitions = partition_set(st, "expect_partitions");
  if (st.has("expect_error")) {
    for (std::string_view k : {"expect_values", "expect_position"}) {
      if (st.has(k)) st.fail_key(k, fmt::format("a query that throws has no {}", k.substr(7)));
    }
  }
  step.expect_values =
      st.get<std::set<int64_t>>("expect_values", [&](const toml::node& n, const KeyPath& p) {
        const std::vector<int64_t> list = r_.plain_int_list(n, p, kAnyInt64);
        return std::set<int64_t>(list.begin(), list.end());
      });
  step.expect_position = st.get<Position>(
      "expect_position",
      [&](const toml::node& n, const KeyPath& p) { return r_.plain_position(n, p); });
}

ExpectedPartition ScenarioParser::expected_partition(const toml::table& table, const KeyPath& path,
                                                     const QueryStep& step) {
  Table e(r_, table, path);
  e.allow({"partition", "success", "value", "value_absent", "entries", "timestamps", "versions",
           "windows", "position", "failure_reason", "message_contains", "execution_info"});
  ExpectedPartition x;
  if (!e.has("partition")) e.missing("partition");
  x.partition = checked_partition(e.integer("partition", 0, kAnyInt32));
  if (step.partitions && !step.partitions->contains(x.partition)) {
    e.fail_key("partition",
               fmt::format("partition {} is not among the query's partitions", x.partition));
  }
  for (const ExpectedPartition& other : step.expect) {
    if (other.partition == x.partition) {
      e.fail_key("partition", fmt::format("partition {} is expected twice", x.partition));
    }
  }
  if (std::optional<bool> success = e.get<bool>(
          "success", [&](const toml::node& n, const KeyPath& p) { return r_.plain_bool(n, p); })) {
    x.success = success;
  }
  if ((e.has("value") || e.has("value_absent")) &&
      (!is_key_query(step.type) || is_window_query(step.type))) {
    e.fail_key(e.has("value") ? "value" : "value_absent",
               is_window_query(step.type) ? "a window query answers windows (windows = [...])"
                                          : "only a key query answers a value");
  }
  if (e.has("windows") && !is_window_query(step.type)) {
    e.fail_key("windows", "only a WindowKeyQuery or WindowRangeQuery answers windows");
  }
  x.windows = e.get<WindowedList>(
      "windows", [&](const toml::node& n, const KeyPath& p) { return windows(n, p, step); });
  const bool versioned =
      step.type == QueryKind::VersionedKeyQuery || step.type == QueryKind::MultiVersionedKeyQuery;
  if ((e.has("value") || e.has("value_absent")) && versioned) {
    e.fail_key(e.has("value") ? "value" : "value_absent",
               "a versioned query answers versions (versions = [] for null)");
  }
  if (e.has("versions") && !versioned) {
    e.fail_key("versions", "only a VersionedKeyQuery or MultiVersionedKeyQuery answers versions");
  }
  x.versions = e.get<VersionedList>(
      "versions", [&](const toml::node& n, const KeyPath& p) { return versions(n, p); });
  if (x.versions && step.type == QueryKind::VersionedKeyQuery && x.versions->size() > 1) {
    e.fail_key("versions", "a VersionedKeyQuery answers at most one version");
  }
  if (e.has("value") && e.has("value_absent")) {
    e.fail_key("value_absent", "a value is either given or absent");
  }
  if (std::optional<IntValue> v = e.optional_integer("value", kAnyInt64)) {
    x.value.emplace(v->value);
  }
  if (e.has("value_absent")) {
    if (!e.boolean("value_absent", true)) {
      e.fail_key("value_absent", "value_absent = true, or leave it out");
    }
    x.value.emplace(std::nullopt);
  }
  if (e.has("entries") && (!is_range_query(step.type) || is_window_query(step.type))) {
    e.fail_key("entries", is_window_query(step.type)
                              ? "a window query answers windows (windows = [...])"
                              : "only a range query answers entries");
  }
  x.entries = e.get<KeyValueList>(
      "entries", [&](const toml::node& n, const KeyPath& p) { return entries(n, p); });
  x.timestamps = e.get<std::vector<int64_t>>(
      "timestamps", [&](const toml::node& n, const KeyPath& p) { return timestamps(n, p); });
  x.position = e.get<Position>(
      "position", [&](const toml::node& n, const KeyPath& p) { return r_.plain_position(n, p); });
  x.failure_reason =
      e.optional_enumeration("failure_reason", names::kFailureReasons, "failure reason");
  if (x.failure_reason && (x.value || x.entries || x.versions || x.windows)) {
    e.fail_key("failure_reason", "a failed partition answers no value or entries");
  }
  if (x.failure_reason && x.success == true) {
    e.fail_key("success", "success = true contradicts failure_reason");
  }
  if (x.success == false && (x.value || x.entries || x.versions || x.windows)) {
    e.fail_key("success", "success = false contradicts an expected value or entries");
  }
  if (e.has("message_contains")) x.message_contains = e.string("message_contains", "");
  if (e.has("execution_info")) {
    x.execution_info = e.boolean("execution_info", false);
    if (*x.execution_info && !step.collect_execution_info) {
      e.fail_key("execution_info",
                 "the query collects no execution info: add execution_info = true to the query");
    }
  }
  e.finish();
  return x;
}

KeyValueList ScenarioParser::entries(const toml::node& n, const KeyPath& p) const {
  const toml::array* a = n.as_array();
  if (a == nullptr)
    r_.fail(n, p, fmt::format("expected [[key, value], ...], got {}", type_name(n)));
  if (a->size() > kListItemsMax) r_.fail(n, p, "too many items");
  KeyValueList out;
  for (size_t i = 0; i < a->size(); ++i) {
    const toml::array* pair = a->get(i)->as_array();
    if (pair == nullptr || pair->size() != 2) {
      r_.fail(*a->get(i), p.index(i), "an entry is [key, value]");
    }
    out.emplace_back(
        static_cast<int32_t>(r_.plain_int(*pair->get(0), p.index(i).index(0), kAnyInt32)),
        r_.plain_int(*pair->get(1), p.index(i).index(1), kAnyInt64));
  }
  return out;
}

// [{ value, timestamp_ms, valid_to_ms? }, ...]: VersionedRecords in order; no valid_to_ms is
// the latest version (validTo empty).
VersionedList ScenarioParser::versions(const toml::node& n, const KeyPath& p) const {
  const toml::array* a = n.as_array();
  if (a == nullptr) {
    r_.fail(n, p,
            fmt::format("expected [{{ value, timestamp_ms, valid_to_ms? }}, ...], got {}",
                        type_name(n)));
  }
  if (a->size() > kListItemsMax) r_.fail(n, p, "too many items");
  VersionedList out;
  for (size_t i = 0; i < a->size(); ++i) {
    const toml::table* item = a->get(i)->as_table();
    if (item == nullptr) {
      r_.fail(*a->get(i), p.index(i),
              fmt::format("expected a table, got {}", type_name(*a->get(i))));
    }
    Table v(r_, *item, p.index(i));
    v.allow({"value", "timestamp_ms", "valid_to_ms"});
    if (!v.has("value")) v.missing("value");
    if (!v.has("timestamp_ms")) v.missing("timestamp_ms");
    VersionedValue x;
    x.value = v.integer("value", 0, kAnyInt64).value;
    x.valid_from_ms = v.integer("timestamp_ms", 0, kAnyInt64).value;
    if (auto to = v.optional_integer("valid_to_ms", kAnyInt64)) {
      if (to->value <= x.valid_from_ms) {
        v.fail_key("valid_to_ms", fmt::format("must be > timestamp_ms ({})", x.valid_from_ms));
      }
      x.valid_to_ms = to->value;
    }
    v.finish();
    out.push_back(x);
  }
  return out;
}

// [{ key?, start_ms, end_ms?, value }, ...]: a window answer's entries in order. A WindowKeyQuery
// entry is its window start and value (Kafka gives no end, and the key is the query's); a
// WindowRangeQuery entry has its key and window [start, end) or session [start, end].
WindowedList ScenarioParser::windows(const toml::node& n, const KeyPath& p,
                                     const QueryStep& step) const {
  const toml::array* a = n.as_array();
  if (a == nullptr) {
    r_.fail(
        n, p,
        fmt::format("expected [{{ key, start_ms, end_ms, value }}, ...], got {}", type_name(n)));
  }
  if (a->size() > kListItemsMax) r_.fail(n, p, "too many items");
  const bool key_query = step.type == QueryKind::WindowKeyQuery;
  WindowedList out;
  for (size_t i = 0; i < a->size(); ++i) {
    const toml::table* item = a->get(i)->as_table();
    if (item == nullptr) {
      r_.fail(*a->get(i), p.index(i),
              fmt::format("expected a table, got {}", type_name(*a->get(i))));
    }
    Table w(r_, *item, p.index(i));
    w.allow({"key", "start_ms", "end_ms", "value"});
    for (std::string_view k : {"start_ms", "value"}) {
      if (!w.has(k)) w.missing(k);
    }
    if (key_query) {
      for (std::string_view k : {"key", "end_ms"}) {
        if (w.has(k)) {
          w.fail_key(k, fmt::format("a WindowKeyQuery answers (window start, value): no {}", k));
        }
      }
    } else {
      for (std::string_view k : {"key", "end_ms"}) {
        if (!w.has(k)) w.missing(k);
      }
    }
    WindowedValue x;
    x.key = key_query ? step.key.value_or(0) : w.integer("key", 0, kAnyInt32).as_int32();
    x.start_ms = w.integer("start_ms", 0, kAnyInt64).value;
    if (auto end = w.optional_integer("end_ms", kAnyInt64)) {
      if (end->value < x.start_ms) {
        w.fail_key("end_ms", fmt::format("must be >= start_ms ({})", x.start_ms));
      }
      x.end_ms = end->value;
    }
    x.value = w.integer("value", 0, kAnyInt64).value;
    w.finish();
    out.push_back(x);
  }
  return out;
}

std::vector<int64_t> ScenarioParser::timestamps(const toml::node& n, const KeyPath& p) const {
  const toml::array* a = n.as_array();
  if (a == nullptr)
    r_.fail(n, p, fmt::format("expected an array of integers, got {}", type_name(n)));
  if (a->size() > kListItemsMax) r_.fail(n, p, "too many items");
  std::vector<int64_t> out;
  for (size_t i = 0; i < a->size(); ++i)
    out.push_back(r_.plain_int(*a->get(i), p.index(i), kAnyInt64));
  return out;
}

std::optional<std::set<int32_t>> ScenarioParser::partition_set(Table& t, std::string_view key) {
  const int64_t limit = source_partitions_.lo;
  return t.get<std::set<int32_t>>(key, [&](const toml::node& n, const KeyPath& p) {
    const std::vector<int64_t> list = r_.plain_int_list(n, p, {0, kInt32Max});
    std::set<int32_t> out;
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i] >= limit) {
        r_.fail(
            *n.as_array()->get(i), p.index(i),
            fmt::format("partition {} does not exist: source_partitions is {}", list[i], limit));
      }
      out.insert(static_cast<int32_t>(list[i]));
    }
    return out;
  });
}

int32_t ScenarioParser::checked_partition(const IntValue& v) const {
  if (v.lo < 0) r_.fail(v.at, v.path, fmt::format("must be >= 0 (got {})", v.lo));
  if (v.hi >= source_partitions_.lo) {
    r_.fail(v.at, v.path,
            fmt::format("partition {} does not exist: source_partitions is {}", v.hi,
                        source_partitions_.lo));
  }
  return v.as_int32();
}

}  // namespace iq::sim::parsing
