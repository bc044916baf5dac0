#pragma once
// Scenario: one scenario file with every seeded choice already drawn, as plain validated data.
//
// A file (scenarios/README.md documents every key) is parsed by parse_scenario() together with a
// seed; each `{ one_of = [...] }` or `{ range = [lo, hi] }` is drawn from a Prng split by the
// key's path ("test.0.workload.1.query_clients"), so adding a key elsewhere does not reshuffle
// the others. The Scenario that comes out is concrete: the driver runs it, the writer prints it
// back as a file with no choices left (how `iqsim shrink` and the cluster-level RapidCheck suite
// hand a minimal counterexample back to the user), and the parser reads that file back to an
// equal Scenario.
//
// Everything here is data; nothing runs. Times are virtual milliseconds from the start of the run
// (absolute) unless a field says `_after_ms` or `duration_ms` (relative).

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "cluster/cluster.h"
#include "cluster/crash_inside.h"
#include "iq/failure_reason.h"
#include "iq/position.h"
#include "iq/query.h"
#include "iq/result_order.h"
#include "trace/property_names.h"
#include "trace/query_record.h"
#include "trace/run_trace.h"
#include "workload/producer_workload.h"
#include "workload/query_client_workload.h"

namespace iq::sim {

// Where a value came from, for error messages and for scripted expectations ("file:line").
struct SourceLocation {
  std::string file;
  int32_t line = 0;
  std::string to_string() const { return file + ":" + std::to_string(line); }
  bool operator==(const SourceLocation&) const = default;
};

// ---- Timed workloads of a [[test]] (run concurrently for duration_ms) ----

struct ProducerWorkloadSpec {
  ProducerConfig config;  // start_ms/stop_ms are relative to the test's start
  bool operator==(const ProducerWorkloadSpec&) const = default;
};

struct QueryClientsWorkloadSpec {
  QueryClientConfig config;  // start_ms/stop_ms are relative to the test's start
  bool operator==(const QueryClientsWorkloadSpec&) const = default;
};

// What a fault does to one instance (or to the cluster's membership).
enum class FaultAction {
  kCrash,           // kill -9: unsynced state lost; noticed after session.timeout.ms
  kRestart,         // start again on the kept disk (after a crash or close)
  kRestartWiped,    // start again on a wiped disk (a replaced machine)
  kClose,           // KafkaStreams::close()
  kStart,           // start an instance that was never started or was closed
  kPause,           // SIGSTOP
  kResume,          // SIGCONT
  kIsolate,         // cut every link of the instance
  kHeal,            // restore its links
  kAddInstance,     // scale out: a new instance, started at once (or created, started later)
  kRemoveInstance,  // scale in: closed (if running) and retired for good
  // Pin delta 13 (docs/kafka-2026-08-20.md §4.5): start a closed or crashed instance again on its
  // kept disk with the 2026-08-20 pin (a rolling upgrade's step), in a run configured at the old
  // pin; its start-up migrates the old .checkpoint and .position files. Every instance in turn
  // upgrades the whole application. Nothing to undo (no downgrade).
  kUpgrade,
};
const char* to_string(FaultAction a);
std::optional<FaultAction> fault_action_from_string(std::string_view s);

// A scheduled fault with an optional undo: crash then restart (keep or wipe), pause then resume,
// isolate then heal. `instance` is 1-based; 0 for kAddInstance.
struct FaultWorkloadSpec {
  FaultAction action = FaultAction::kCrash;
  int32_t instance = 1;
  int64_t at_ms = 0;
  // restart / resume / heal after this long; for kAddInstance: the instance is created at at_ms
  // (KafkaStreams CREATED, not started) and started this long after
  std::optional<int64_t> undo_after_ms;
  bool wipe = false;  // a crash's restart uses a wiped disk
  // kCrash only (the 'CrashInside' workload): the crash is armed at at_ms and lands inside an
  // operation (cluster/crash_inside.h); the undo counts from when it lands.
  std::optional<CrashInsideSpec> inside;
  bool operator==(const FaultWorkloadSpec&) const = default;
};

// Attrition in FoundationDB's sense: from start_ms to stop_ms, every interval_ms, one seeded draw
// of a fault against a random live instance, each kind with its own odds; every fault is undone
// after a random time in [undo_ms_min, undo_ms_max]; at most max_down instances are down (crashed,
// paused or isolated) at once.
struct RandomFaultsWorkloadSpec {
  int64_t start_ms = 0;
  int64_t stop_ms = 0;
  int64_t interval_ms = 5'000;
  base::Ratio crash_odds{1, 4};
  base::Ratio wipe_odds{1, 4};  // of a crash: restart on a wiped disk
  base::Ratio pause_odds{1, 8};
  base::Ratio isolate_odds{1, 8};
  base::Ratio close_odds{1, 8};  // clean close and restart
  int64_t undo_ms_min = 1'000;
  int64_t undo_ms_max = 20'000;
  int32_t max_down = 1;
  // A crash armed to land inside an operation (cluster/crash_inside.h), tried after the kinds
  // above; its event kind is drawn evenly among disk, send, commit and restore_poll, its N in
  // [1, crash_inside_n_max]. Off (0) by default, and then it takes nothing from the Prng.
  base::Ratio crash_inside_odds{0, 1};
  int64_t crash_inside_n_max = 64;
  // A rare long outage, tried first on each tick: a pause or a cut of the instance's links (one
  // in two) lasting [long_outage_ms_min, long_outage_ms_max], long enough to outlast the
  // producer's delivery.timeout.ms (120 s) and any transaction timeout. At most one per workload,
  // and its test's phase runs until it is undone. Off (0) by default: nothing drawn.
  base::Ratio long_outage_odds{0, 1};
  int64_t long_outage_ms_min = 125'000;
  int64_t long_outage_ms_max = 150'000;
  // A storage error, tried last on each tick: the Nth (1..8) disk read inside a KeyQuery or
  // VersionedKeyQuery of an up instance fails with EIO (cluster/io_fault.h). Off (0) by default.
  base::Ratio read_error_odds{0, 1};
  bool operator==(const RandomFaultsWorkloadSpec&) const = default;
};

using WorkloadSpec = std::variant<ProducerWorkloadSpec, QueryClientsWorkloadSpec, FaultWorkloadSpec,
                                  RandomFaultsWorkloadSpec>;

// ---- Scripted steps of a [[test]] (run in order) ----

struct ProduceRecordSpec {
  std::optional<int32_t> partition;  // absent: the default partitioner
  int32_t key = 0;
  std::optional<int64_t> value;         // absent: a tombstone (null value)
  std::optional<int64_t> timestamp_ms;  // absent: now
  bool operator==(const ProduceRecordSpec&) const = default;
};

struct ProduceStep {
  std::vector<ProduceRecordSpec> records;
  bool operator==(const ProduceStep&) const = default;
};

// Run the world until it is quiescent (no rebalance in progress, every partition's active task
// RUNNING with every source record processed and committed, every standby caught up) or until a
// virtual time. Not reaching quiescence by `ms_max` (relative) is recorded as a liveness failure.
struct RunUntilStep {
  bool quiescent = false;
  int64_t for_ms = 0;  // !quiescent: run this long
  int64_t ms_max = 60'000;
  bool operator==(const RunUntilStep&) const = default;
};

struct FaultStep {
  FaultAction action = FaultAction::kCrash;
  int32_t instance = 1;
  bool operator==(const FaultStep&) const = default;
};

// ExpectedPartition (the expected outcome of one partition of a scripted query) lives in
// history/run_trace.h: the trace carries the same expectations for properties/ to judge.

struct QueryStep {
  std::string store;
  QueryKind type = QueryKind::KeyQuery;  // KeyQuery, TimestampedKeyQuery, RangeQuery, ...
  std::optional<int32_t> key;            // key queries
  std::optional<int32_t> lower;          // range queries; absent = open
  std::optional<int32_t> upper;
  ResultOrder order = ResultOrder::ANY;  // range queries and MultiVersionedKeyQuery
  std::optional<int64_t> as_of_ms;       // VersionedKeyQuery.asOf; absent: the latest version
  // MultiVersionedKeyQuery.fromTime/toTime (absent: open); WindowKeyQuery's and
  // WindowRangeQuery.withWindowStartRange's window-start range (both given).
  std::optional<int64_t> from_time_ms;
  std::optional<int64_t> to_time_ms;
  std::optional<std::set<int32_t>> partitions;  // absent: all partitions
  std::optional<Position> bound;                // absent: unbounded
  bool bound_produced = false;                  // the bound is everything produced so far
  bool require_active = false;
  bool collect_execution_info = false;  // StateQueryRequest.enableExecutionInfo()
  // StateQueryRequest.withIsolationLevel (2026-08-20 pin); absent: the client's default.
  std::optional<IsolationLevel> isolation_level;
  int32_t instance = 1;  // asked directly, as Kafka's tests ask their one KafkaStreams
  // Expectations; all absent means the answer is only judged by the properties.
  std::vector<ExpectedPartition> expect;
  std::optional<std::string> expect_error;  // a StreamsError kind name; the query must throw it
  std::optional<std::set<int32_t>> expect_partitions;  // exactly these partitions answered
  std::optional<std::set<int64_t>> expect_values;      // ScriptedExpectation::values
  std::optional<Position> expect_position;             // ScriptedExpectation::merged_position
  SourceLocation where;
  bool operator==(const QueryStep&) const = default;
};

using Step = std::variant<ProduceStep, RunUntilStep, FaultStep, QueryStep>;

struct TestSpec {
  std::string title;
  int64_t duration_ms = 0;  // the timed workloads' phase; 0 with steps only
  std::vector<WorkloadSpec> workloads;
  std::vector<Step> steps;          // run after the timed phase (or alone)
  std::vector<std::string> checks;  // property names; empty: every property
  bool operator==(const TestSpec&) const = default;
};

// After the tests: faults stop, isolated instances heal, paused ones resume, crashed or closed
// (not removed) ones restart; then every partition must answer a query bounded by everything
// produced within timeout_ms.
struct LivenessSpec {
  bool enabled = true;
  int64_t timeout_ms = 60'000;
  int64_t probe_interval_ms = 500;
  std::vector<std::string> checks{std::string(property_names::kEventuallyAvailable)};
  // The end-of-run audit: once every partition answered, every replica the live instances host
  // (active, standby, warmup) is read in full (ScenarioDriver::audit_replicas), so a replica
  // whose state went wrong where no client happened to look is still judged.
  bool audit_replicas = false;
  bool operator==(const LivenessSpec&) const = default;
};

// [knobs]: the simulator's own settings, not Kafka's.
struct Knobs {
  int64_t lag_probe_interval_ms = 1'000;  // 0: no lag probes (LagReported has nothing to judge)
  size_t history_records_max = 200'000;
  bool operator==(const Knobs&) const = default;
};

struct Scenario {
  // Top-level keys.
  std::string title;
  std::string description;
  std::vector<std::string> tags;
  // Properties this scenario is known to violate (findings): their violations are reported as
  // expected, and the run fails if one of them does NOT fail.
  std::vector<std::string> expected_failures;
  // Declared Kafka behaviours (trace/property_names.h's behaviour_names, the classes of
  // properties/checks/check.h) this scenario accepts: a violation of a property not in
  // expected_failures that the record proves to be one of these does not fail the run; one proven
  // to be any other declared behaviour fails it as a failure does (`--strict` fails both).
  std::vector<std::string> allowed_behaviours;
  // Coverage probes (base/probe.h) the run must hit: one that was not fails the run (reported
  // under ScriptedExpectations, as the file's own assertion).
  std::vector<std::string> expect_probes;

  std::string file;   // where it was parsed from ("<generated>" for generated ones)
  uint64_t seed = 1;  // the seed the choices were drawn with; also the world's seed

  ClusterConfig cluster;  // [configuration], [streams_config], [topology]; cluster.seed == seed
  int32_t keys = 16;      // [topology] keys: the key space [0, keys)
  int64_t virtual_time_ms_max = 600'000;  // [configuration]: reaching it fails the run
  // [configuration] start: whether every instance starts at time 0 (false: a scripted `start`
  // step starts them, as Kafka's tests that query before start()).
  bool start_instances = true;
  Knobs knobs;
  std::vector<TestSpec> tests;
  LivenessSpec liveness;

  bool operator==(const Scenario&) const = default;
};

}  // namespace iq::sim
