#include "scenario/scenario_writer.h"
#include "io/operation_marker.h"

#include <gtest/gtest.h>

#include <string>

#include "scenario/scenario_parser.h"

namespace iq::sim {
namespace {

// parse(to_toml(s)) == s, apart from where it was read from; the second writing is identical.
void expect_round_trip(const Scenario& s, const std::string& what) {
  const std::string text = to_toml(s);
  auto back = parse_scenario_text(text, "written.toml", std::nullopt);
  ASSERT_TRUE(back.has_value()) << what << " seed=" << s.seed << ": " << back.error().to_string()
                                << "\n"
                                << text;
  EXPECT_EQ(back->file, "written.toml") << what;
  EXPECT_TRUE(without_locations(*back) == without_locations(s))
      << what << " seed=" << s.seed << "\nwritten:\n"
      << text << "\nread back and written again:\n"
      << to_toml(*back);
  EXPECT_EQ(to_toml(without_locations(*back)), to_toml(without_locations(s)))
      << what << " seed=" << s.seed;
}

const std::string kChoices = R"(
title = { one_of = ['alpha', 'beta'] }
[configuration]
instances = { range = [1, 5] }
store_backend = { one_of = ['rocksdb', 'rocksdb_plain', 'in_memory', 'lru'] }
link_delay_ms_max = { range = [1, 20] }
link_loss_one_in = { one_of = [0, 100] }
lru_max_entries = { one_of = [0, 3, 1_000] }

[streams_config]
"num.standby.replicas" = { one_of = [0, 1, 2] }
"commit.interval.ms" = { range = [10, 30_000] }
"statestore.cache.max.bytes" = { one_of = [0, 1_048_576] }
"max.poll.records" = { range = [1, 2_000] }

[topology]
name = { one_of = ['Count', 'Sum', 'SourceTable', 'PapiWriter'] }
source_partitions = { range = [2, 8] }
caching = { one_of = [true, false] }

[knobs]
lag_probe_interval_ms = { one_of = [0, 250] }
offset_delta_threshold_for_checkpoint = { one_of = [0, 100, 10_000] }

[[test]]
duration_ms = { range = [5_000, 20_000] }
checks = { one_of = [[], ['BoundHonored', 'SessionMonotonic']] }

  [[test.workload]]
  name = 'Producer'
  records_per_second = { range = [10, 1_000] }
  key_distribution = { one_of = ['uniform', 'skewed'] }
  value = { range = [-3, 3] }

  [[test.workload]]
  name = 'QueryClients'
  clients = { range = [1, 8] }
  position_bound = { one_of = ['unbounded', ['session', 'produced']] }
  range_one_in = { one_of = [0, 1, 4] }
  retry_on = { one_of = [[], ['TIMEOUT']] }

  [[test.workload]]
  name = 'Pause'
  instance = 1
  at_ms = { range = [0, 5_000] }

  [[test.workload]]
  name = 'Fault'
  action = { one_of = ['crash', 'close'] }
  instance = { range = [1, 1] }
  undo_after_ms = { range = [100, 10_000] }
  state_directory = { one_of = ['keep', 'wipe'] }

  [[test.workload]]
  name = 'CrashInside'
  instance = 1
  crash_at = { one_of = ['disk', 'send', 'commit', 'restore_poll'] }
  crash_at_n = { range = [1, 9] }
  during = { one_of = ['any', 'close', 'cleaner'] }
  restart_after_ms = { range = [0, 500] }

  [[test.workload]]
  name = 'CrashInside'
  instance = 1
  during = 'cleaner'
  crash_at_path = { one_of = ['/state/app/0_0', '/state/app/0_1/rocksdb'] }

  [[test.workload]]
  name = 'RandomFaults'
  interval_ms = { range = [100, 1_000] }
  undo_ms_min = { range = [0, 500] }
  crash_inside_one_in = { one_of = [0, 5] }
  crash_inside_n_max = { range = [1, 100] }

[[test]]
  [[test.step]]
  produce = { records = [ { partition = { range = [0, 1] }, key = { range = [0, 100] }, value = { range = [-5, 5] } }, { key = 3 } ] }

  [[test.step]]
  run_until = 'quiescent'
  ms_max = { range = [1_000, 9_000] }

  [[test.step]]
  query = { type = { one_of = ['RangeQuery', 'TimestampedRangeQuery'] }, lower = 1, bound = { one_of = ['produced', 'unbounded', { input-topic = { 0 = 0 } }, {}] } }
  expect = { partition = 1, entries = [[1, 2]], position = { input-topic = {} } }

[liveness]
enabled = { one_of = [true, false] }
audit_replicas = { one_of = [true, false] }
)";

TEST(ScenarioWriterTest, RoundTripOfAFileWithChoicesOverSeeds) {
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    auto parsed = parse_scenario_text(kChoices, "choices.toml", seed);
    ASSERT_TRUE(parsed.has_value()) << "seed=" << seed << ": " << parsed.error().to_string();
    expect_round_trip(*parsed, "choices.toml");
  }
}

// The written file has no choice left and says everything.
TEST(ScenarioWriterTest, WrittenFileIsConcreteAndExplicit) {
  auto parsed = parse_scenario_text(kChoices, "choices.toml", 3);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().to_string();
  const std::string text = to_toml(*parsed);
  EXPECT_EQ(text.find("one_of"), std::string::npos) << text;
  EXPECT_EQ(text.find("range ="), std::string::npos) << text;
  for (const char* key :
       {"\"num.stream.threads\" = ", "\"group.max.size\" = ", "coordinator_pending_outputs_max = ",
        "retry_backoff_ms = ", "max_down = ", "probe_interval_ms = ", "request.timeout.ms",
        "lru_max_entries = ", "\"max.poll.records\" = ",
        "offset_delta_threshold_for_checkpoint = "}) {
    EXPECT_NE(text.find(key), std::string::npos) << key << " missing (seed=3)\n" << text;
  }
}

Scenario hand_built() {
  Scenario s;
  s.title = "It's \"quoted\"\nand two lines \x01";
  s.description = "émoji-free ünïcode";
  s.tags = {"a", "b c"};
  s.expected_failures = {"LagReported"};
  s.allowed_behaviours = {"restart_without_checkpoint", "alos_reprocessing"};
  s.expect_probes = {"crash.point.close", "lru.evicted"};
  s.seed = 18'446'744'073'709'551'615ull;  // does not fit a TOML integer
  s.cluster.seed = s.seed;
  s.cluster.instances = 2;
  s.cluster.topology.kind = TopologyKind::PapiWriter;
  s.cluster.topology.supplier = KeyValueSupplier::kRocksDb;
  s.cluster.topology.source_topic = "in.topic";
  s.cluster.topology.source_partitions = 3;
  s.cluster.link.loss = {1, 7};
  s.cluster.streams.assignment.acceptable_recovery_lag = AssignmentConfigs::kUnboundedRecoveryLag;
  s.start_instances = false;
  s.keys = 5;

  TestSpec t;
  t.title = "";
  t.duration_ms = 2'000;
  ProducerConfig producer;
  producer.stop_ms = 1'000;
  producer.value = -9'223'372'036'854'775'807 - 1;
  producer.records_max = 0;
  t.workloads.push_back(ProducerWorkloadSpec{producer});
  QueryClientConfig clients;
  clients.store = "kv-store";  // the topology's store: a workload naming another is refused
  clients.bound_modes = {BoundMode::kProduced};
  clients.retry = RetryPolicy{1, 0, false, false, false, false, false, false};
  clients.stop_ms = 2'000;
  t.workloads.push_back(QueryClientsWorkloadSpec{clients});
  t.workloads.push_back(
      FaultWorkloadSpec{FaultAction::kAddInstance, 0, 5, std::nullopt, false, std::nullopt});
  t.workloads.push_back(FaultWorkloadSpec{FaultAction::kClose, 3, 10, 20, true, std::nullopt});
  t.workloads.push_back(
      FaultWorkloadSpec{FaultAction::kCrash, 1, 10, std::nullopt, false, std::nullopt});
  t.workloads.push_back(FaultWorkloadSpec{FaultAction::kIsolate, 2, 0, 0, false, std::nullopt});
  // Crashes inside operations: every event kind and operation, with and without a restart.
  t.workloads.push_back(FaultWorkloadSpec{
      FaultAction::kCrash, 2, 7, 300, true,
      CrashInsideSpec{CrashInsideAt::kDiskOp, 3,
                      static_cast<uint32_t>(iq::Operation::kWriteCheckpoint), ""}});
  t.workloads.push_back(FaultWorkloadSpec{FaultAction::kCrash, 1, 8, std::nullopt, false,
                                          CrashInsideSpec{CrashInsideAt::kRestorePoll, 1, 0, ""}});
  t.workloads.push_back(FaultWorkloadSpec{
      FaultAction::kCrash, 2, 9, 40, false,
      CrashInsideSpec{CrashInsideAt::kDiskOp, 1,
                      static_cast<uint32_t>(iq::Operation::kStateDirectoryCleaner),
                      "/state/app/0_0"}});
  RandomFaultsWorkloadSpec random;
  random.stop_ms = 2'000;
  random.crash_odds = {0, 1};
  random.crash_inside_odds = {1, 3};
  random.crash_inside_n_max = 17;
  t.workloads.push_back(random);
  t.steps.push_back(FaultStep{FaultAction::kStart, 1});
  t.steps.push_back(FaultStep{FaultAction::kAddInstance, 0});
  t.steps.push_back(FaultStep{FaultAction::kRemoveInstance, 4});
  t.steps.push_back(ProduceStep{{{2, -1, std::nullopt, 1'700'000'000'000}}});
  t.steps.push_back(RunUntilStep{false, 0, 60'000});
  QueryStep q;
  q.store = "kv-store";
  q.type = QueryKind::TimestampedKeyQuery;
  q.key = -4;
  q.partitions = std::set<int32_t>{0, 2};
  q.bound = Position::empty_position();
  ExpectedPartition e;
  e.partition = 2;
  e.success = true;
  e.value.emplace(std::nullopt);
  e.timestamps = std::vector<int64_t>{-1};
  e.position = Position::from_map({{"in.topic", {{0, 3}, {2, 9'000'000'000}}}, {"other", {}}});
  q.expect = {e};
  q.expect_partitions = std::set<int32_t>{2};
  t.steps.push_back(q);
  QueryStep custom;
  custom.store = "kv-store";
  custom.type = QueryKind::Custom;
  custom.partitions = std::set<int32_t>{};
  custom.expect_error = "StreamsNotStartedException";
  t.steps.push_back(custom);
  s.tests.push_back(t);
  TestSpec only_wait;
  only_wait.duration_ms = 1;
  only_wait.checks = {"Deterministic"};
  s.tests.push_back(only_wait);
  s.liveness.enabled = false;
  s.liveness.checks = {};
  return s;
}

TEST(ScenarioWriterTest, RoundTripOfHandBuiltScenarios) {
  expect_round_trip(hand_built(), "hand-built");
  Scenario defaults;
  defaults.tests.push_back(TestSpec{"t", 1, {}, {}, {}});
  expect_round_trip(defaults, "defaults");
  Scenario seeded = hand_built();
  seeded.seed = seeded.cluster.seed = 12;
  seeded.cluster.streams.application_id = "app-1.x";
  seeded.cluster.link = LinkConfig{0, 0, {0, 1}};
  expect_round_trip(seeded, "hand-built, small seed");
}

// The pin and the new pin's keys, drawn: each seed's file round-trips, the old-pin ones without
// the new pin's config key (which that pin refuses), the new-pin ones with it.
TEST(ScenarioWriterTest, RoundTripOfBothKafkaPins) {
  const std::string text = R"(
[configuration]
kafka = { one_of = ['2024-10-25', '2026-08-20'] }
[streams_config]
"default.interactive.query.isolation.level" = { one_of = ['READ_UNCOMMITTED', 'READ_COMMITTED'] }
[topology]
name = 'SourceTable'
[[test]]
duration_ms = 1_000
)";
  bool seen[2] = {false, false};
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto parsed = parse_scenario_text(text, "pins.toml", seed);
    ASSERT_TRUE(parsed.has_value()) << "seed=" << seed << ": " << parsed.error().to_string();
    const StreamsConfig& c = parsed->cluster.streams;
    const bool new_pin = c.kafka_pin == KafkaPin::k2026_08_20;
    seen[new_pin] = true;
    if (!new_pin) {
      EXPECT_EQ(c.default_iq_isolation_level, IsolationLevel::READ_UNCOMMITTED);
    }
    const std::string written = to_toml(*parsed);
    EXPECT_NE(written.find(std::string("kafka = '") + to_string(c.kafka_pin) + "'"),
              std::string::npos)
        << written;
    EXPECT_EQ(written.find("default.interactive.query.isolation.level") != std::string::npos,
              new_pin)
        << written;
    expect_round_trip(*parsed, "pins.toml");
  }
  EXPECT_TRUE(seen[0] && seen[1]) << "20 seeds drew one pin only";
}

// Strings the writer must escape come back unchanged; large seeds are written as strings.
TEST(ScenarioWriterTest, EscapesAndLargeSeeds) {
  const std::string text = to_toml(hand_built());
  EXPECT_NE(text.find("seed = '18446744073709551615'"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(title = "It's \"quoted\"\nand two lines \u0001")"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"in.topic\" = { 0 = 3, 2 = 9_000_000_000 }"), std::string::npos) << text;
}

}  // namespace
}  // namespace iq::sim
