#include "scenario/scenario_parser.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "base/prng.h"
#include "scenario/scenario_writer.h"

namespace iq::sim {
namespace {

// The line (1-based) of the n-th occurrence (0-based) of `needle` in `text`.
int32_t line_of(const std::string& text, const std::string& needle, int occurrence = 0) {
  size_t at = 0;
  for (int i = 0; i <= occurrence; ++i) {
    at = text.find(needle, i == 0 ? 0 : at + 1);
    if (at == std::string::npos) return -1;
  }
  return 1 +
         static_cast<int32_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

Scenario parse_ok(const std::string& text, std::optional<uint64_t> seed) {
  auto parsed = parse_scenario_text(text, "t.toml", seed);
  if (!parsed) {
    ADD_FAILURE() << "seed=" << (seed ? std::to_string(*seed) : "file") << ": "
                  << parsed.error().to_string();
    return Scenario{};
  }
  return *parsed;
}

const std::string kFullFile = R"(# A full scenario: every section, most keys.
title = 'Full'
description = 'every section'
tags = ['fast', 'crash-restart']
seed = 99
expected_failures = ['BoundHonored']
allowed_behaviours = ['alos_reprocessing', 'cached_writes_beneath_position']

[configuration]
instances = 3
start = true
store_backend = 'in_memory'
lru_max_entries = 7
virtual_time_ms_max = 300_000
link_delay_ms_min = 2
link_delay_ms_max = 5
link_loss_one_in = 1000

[streams_config]
"application.id" = 'app'
"num.stream.threads" = 2
"num.standby.replicas" = 1
"commit.interval.ms" = 100
"statestore.cache.max.bytes" = 0
"acceptable.recovery.lag" = 1_000
"max.warmup.replicas" = 3
"probing.rebalance.interval.ms" = 60_000
"session.timeout.ms" = 10_000
"heartbeat.interval.ms" = 1_000
"max.poll.interval.ms" = 20_000
"request.timeout.ms" = 5_000
"poll.ms" = 20
"fetch.max.wait.ms" = 5
"__iq.consistency.offset.vector.enabled__" = true
"state.cleanup.delay.ms" = 1_000
"max.poll.records" = 25

[broker]
"group.initial.rebalance.delay.ms" = 0
"group.min.session.timeout.ms" = 1_000
"group.max.session.timeout.ms" = 100_000
"group.max.size" = 10

[topology]
name = 'Count'
source_topic = 'words'
source_partitions = 4
store = 'counts'
keys = 64
caching = false
logging = true

[knobs]
lag_probe_interval_ms = 500
history_records_max = 5_000
consumer_fetch_records_max = 100
broker_records_max = 1_000_000
broker_partitions_per_topic_max = 16
coordinator_new_member_join_timeout_ms = 60_000
coordinator_groups_max = 4
coordinator_pending_outputs_max = 1_000
offset_delta_threshold_for_checkpoint = 50

[[test]]
title = 'Timed'
duration_ms = 60_000
checks = ['ResultMatchesModel']

    [[test.workload]]
    name = 'Producer'
    records_per_second = 400
    key_distribution = 'skewed'
    stop_ms = 45_000

    [[test.workload]]
    name = 'QueryClients'
    clients = 4
    interval_ms = 20
    range_one_in = 3
    timestamped_one_in = 0
    position_bound = ['session', 'produced']
    require_active_one_in = 1
    retry_on = ['NOT_UP_TO_BOUND', 'TIMEOUT']

    [[test.workload]]
    name = 'CrashRestart'
    instance = 'instance-1'
    at_ms = 20_000
    restart_after_ms = 5_000
    state_directory = 'wipe'

    [[test.workload]]
    name = 'RandomFaults'
    start_ms = 1_000
    stop_ms = 30_000
    crash_one_in = 2
    max_down = 2

    [[test.check]]
    name = 'BoundHonored'

[[test]]
title = 'Scripted'

    [[test.step]]
    produce = { topic = 'words', records = [
      { partition = 0, key = 1, value = 7, timestamp_ms = 0 },
      { key = 2 },
    ] }

    [[test.step]]
    run_until = 'quiescent'
    ms_max = 30_000

    [[test.step]]
    crash = 'instance-2'

    [[test.step]]
    run_for_ms = 1_000

    [[test.step]]
    query = { type = 'KeyQuery', key = 1, partitions = [0], bound = { words = { 0 = 0 } } }
    expect = { partition = 0, value = 1, position = { words = { 0 = 0 } } }

    [[test.step]]
    query = { type = 'RangeQuery', lower = 0, upper = 5, order = 'ASCENDING', bound = 'produced', require_active = true, instance = 3 }
    expect = [
      { partition = 0, entries = [[1, 1]], timestamps = [0] },
      { partition = 1, success = false, failure_reason = 'NOT_ACTIVE', message_contains = 'not active' },
    ]
    expect_partitions = [0, 1, 2, 3]

    [[test.step]]
    fault = { action = 'restart', instance = 2 }

    [[test.step]]
    query = { key = 3, store = 'missing' }
    expect_error = 'UnknownStateStoreException'

    [[test.step]]
    add_instance = true

[liveness]
enabled = true
timeout_ms = 30_000
probe_interval_ms = 250
checks = ['EventuallyAvailable', 'LagReported']
audit_replicas = true
)";

// The full file, as the Scenario it must parse to (with the file's own seed).
Scenario full_file_scenario(const std::string& text) {
  Scenario s;
  s.title = "Full";
  s.description = "every section";
  s.tags = {"fast", "crash-restart"};
  s.expected_failures = {"BoundHonored"};
  s.allowed_behaviours = {"alos_reprocessing", "cached_writes_beneath_position"};
  s.file = "t.toml";
  s.seed = 99;
  ClusterConfig& c = s.cluster;
  c.seed = 99;
  c.instances = 3;
  c.topology.supplier = KeyValueSupplier::kInMemory;
  s.virtual_time_ms_max = 300'000;
  c.link = LinkConfig{2, 5, base::Ratio{1, 1000}};
  c.poll_ms = 20;
  c.streams.application_id = "app";
  c.streams.num_stream_threads = 2;
  c.streams.assignment.num_standby_replicas = 1;
  c.streams.commit_interval_ms = 100;
  c.streams.statestore_cache_max_bytes = 0;
  c.streams.assignment.acceptable_recovery_lag = 1'000;
  c.streams.assignment.max_warmup_replicas = 3;
  c.streams.assignment.probing_rebalance_interval_ms = 60'000;
  c.session_timeout_ms = 10'000;
  c.heartbeat_interval_ms = 1'000;
  c.rebalance_timeout_ms = 20'000;
  c.consumer.request_timeout_ms = 5'000;
  c.streams.consistency_offset_vector_enabled = true;
  c.streams.state_cleanup_delay_ms = 1'000;
  c.streams.max_poll_records = 25;
  c.streams.offset_delta_threshold_for_checkpoint = 50;
  c.topology.lru_max_entries = 7;
  c.broker.coordinator.group_initial_rebalance_delay_ms = 0;
  c.broker.coordinator.group_min_session_timeout_ms = 1'000;
  c.broker.coordinator.group_max_session_timeout_ms = 100'000;
  c.broker.coordinator.group_max_size = 10;
  c.topology.kind = TopologyKind::Count;
  c.topology.source_topic = "words";
  c.topology.source_partitions = 4;
  c.topology.store_name = "counts";
  s.keys = 64;
  c.topology.caching = false;
  c.topology.logging = true;
  s.knobs.lag_probe_interval_ms = 500;
  s.knobs.history_records_max = 5'000;
  c.consumer.fetch_max_wait_ms = 5;
  c.consumer.max_records_per_fetch = 100;
  c.broker.max_total_records = 1'000'000;
  c.broker.max_partitions_per_topic = 16;
  c.broker.coordinator.new_member_join_timeout_ms = 60'000;
  c.broker.coordinator.max_groups = 4;
  c.broker.coordinator.max_pending_outputs = 1'000;

  TestSpec timed;
  timed.title = "Timed";
  timed.duration_ms = 60'000;
  timed.checks = {"ResultMatchesModel", "BoundHonored"};
  ProducerConfig producer;
  producer.stop_ms = 45'000;
  producer.records_per_second = 400;
  producer.keys = 64;
  producer.distribution = KeyDistribution::kSkewed;
  timed.workloads.push_back(ProducerWorkloadSpec{producer});
  QueryClientConfig clients;
  clients.clients = 4;
  clients.stop_ms = 60'000;
  clients.interval_ms = 20;
  clients.store = "counts";
  clients.keys = 64;
  clients.range_odds = {1, 3};
  clients.timestamped_odds = {0, 1};
  clients.bound_modes = {BoundMode::kSession, BoundMode::kProduced};
  clients.require_active_odds = {1, 1};
  clients.retry.on_not_active = false;
  clients.retry.on_not_present = false;
  clients.retry.on_streams_error = false;
  clients.retry.on_not_routed = false;
  timed.workloads.push_back(QueryClientsWorkloadSpec{clients});
  timed.workloads.push_back(
      FaultWorkloadSpec{FaultAction::kCrash, 1, 20'000, 5'000, true, std::nullopt});
  RandomFaultsWorkloadSpec random;
  random.start_ms = 1'000;
  random.stop_ms = 30'000;
  random.crash_odds = {1, 2};
  random.max_down = 2;
  timed.workloads.push_back(random);
  s.tests.push_back(timed);

  TestSpec scripted;
  scripted.title = "Scripted";
  scripted.steps.push_back(
      ProduceStep{{{0, 1, 7, 0}, {std::nullopt, 2, std::nullopt, std::nullopt}}});
  scripted.steps.push_back(RunUntilStep{true, 0, 30'000});
  scripted.steps.push_back(FaultStep{FaultAction::kCrash, 2});
  scripted.steps.push_back(RunUntilStep{false, 1'000, 60'000});
  QueryStep key_query;
  key_query.store = "counts";
  key_query.key = 1;
  key_query.partitions = std::set<int32_t>{0};
  key_query.bound = Position::from_map({{"words", {{0, 0}}}});
  ExpectedPartition p0;
  p0.value.emplace(1);
  p0.position = Position::from_map({{"words", {{0, 0}}}});
  key_query.expect = {p0};
  key_query.where = SourceLocation{"t.toml", line_of(text, "[[test.step]]", 4)};
  scripted.steps.push_back(key_query);
  QueryStep range_query;
  range_query.store = "counts";
  range_query.type = QueryKind::RangeQuery;
  range_query.lower = 0;
  range_query.upper = 5;
  range_query.order = ResultOrder::ASCENDING;
  range_query.bound_produced = true;
  range_query.require_active = true;
  range_query.instance = 3;
  ExpectedPartition r0;
  r0.entries = KeyValueList{{1, 1}};
  r0.timestamps = std::vector<int64_t>{0};
  ExpectedPartition r1;
  r1.partition = 1;
  r1.success = false;
  r1.failure_reason = FailureReason::NOT_ACTIVE;
  r1.message_contains = "not active";
  range_query.expect = {r0, r1};
  range_query.expect_partitions = std::set<int32_t>{0, 1, 2, 3};
  range_query.where = SourceLocation{"t.toml", line_of(text, "[[test.step]]", 5)};
  scripted.steps.push_back(range_query);
  scripted.steps.push_back(FaultStep{FaultAction::kRestart, 2});
  QueryStep missing_store;
  missing_store.store = "missing";
  missing_store.key = 3;
  missing_store.expect_error = "UnknownStateStoreException";
  missing_store.where = SourceLocation{"t.toml", line_of(text, "[[test.step]]", 7)};
  scripted.steps.push_back(missing_store);
  scripted.steps.push_back(FaultStep{FaultAction::kAddInstance, 0});
  s.tests.push_back(scripted);

  s.liveness.timeout_ms = 30'000;
  s.liveness.probe_interval_ms = 250;
  s.liveness.checks = {"EventuallyAvailable", "LagReported"};
  s.liveness.audit_replicas = true;
  return s;
}

// Every key of every section lands in the right field; defaults fill the rest.
TEST(ScenarioParserTest, FullFileParsesToTheExpectedScenario) {
  const std::string text = kFullFile;
  const Scenario parsed = parse_ok(text, std::nullopt);
  const Scenario expected = full_file_scenario(text);
  EXPECT_TRUE(parsed == expected) << "parsed:\n"
                                  << to_toml(parsed) << "\nexpected:\n"
                                  << to_toml(expected);
  // Spot checks that say which part differs when the whole does.
  EXPECT_TRUE(parsed.cluster == expected.cluster);
  ASSERT_EQ(parsed.tests.size(), 2u);
  EXPECT_TRUE(parsed.tests[0] == expected.tests[0]);
  EXPECT_TRUE(parsed.tests[1] == expected.tests[1]);
  const auto& where = std::get<QueryStep>(parsed.tests[1].steps[4]).where;
  EXPECT_EQ(where.to_string(), "t.toml:" + std::to_string(line_of(text, "[[test.step]]", 4)));
}

// [topology] and one [[test]] with a Producer are a whole scenario: everything else defaults.
TEST(ScenarioParserTest, MinimalFileGetsUsefulDefaults) {
  const Scenario s = parse_ok(R"(
[topology]
name = 'Count'

[[test]]
  [[test.workload]]
  name = 'Producer'
  [[test.workload]]
  name = 'QueryClients'
)",
                              std::nullopt);
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.cluster.seed, 1u);
  EXPECT_EQ(s.cluster.instances, 1);
  EXPECT_TRUE(s.start_instances);
  EXPECT_EQ(s.cluster.topology.kind, TopologyKind::Count);
  EXPECT_EQ(s.cluster.topology.supplier, KeyValueSupplier::kRocksDbTimestamped);
  EXPECT_EQ(s.cluster.topology.source_topic, "input-topic");
  EXPECT_EQ(s.keys, 16);
  ASSERT_EQ(s.tests.size(), 1u);
  EXPECT_EQ(s.tests[0].duration_ms, 10'000);
  EXPECT_TRUE(s.tests[0].checks.empty());
  ASSERT_EQ(s.tests[0].workloads.size(), 2u);
  const auto& producer = std::get<ProducerWorkloadSpec>(s.tests[0].workloads[0]).config;
  EXPECT_EQ(producer.start_ms, 0);
  EXPECT_EQ(producer.stop_ms, 10'000);  // the test's timed phase
  EXPECT_EQ(producer.keys, 16);
  const auto& clients = std::get<QueryClientsWorkloadSpec>(s.tests[0].workloads[1]).config;
  EXPECT_EQ(clients.store, "kv-store");
  EXPECT_EQ(clients.stop_ms, 10'000);
  EXPECT_EQ(clients.bound_modes.size(), 3u);
  EXPECT_TRUE(s.liveness.enabled);
  EXPECT_EQ(s.liveness.checks, std::vector<std::string>{"EventuallyAvailable"});
  EXPECT_FALSE(s.liveness.audit_replicas);
}

TEST(ScenarioParserTest, TransactionAndCompactionKeysReachTheBrokerConfigAndRoundTrip) {
  // The [broker] keys of transactions and the log cleaner and the [knobs] of their bounds land in
  // SimBrokerConfig (defaults: cleaner off, Kafka's values otherwise), the writer writes them
  // back, and an out-of-range value is refused naming its key.
  const char* text = R"(
[broker]
"transaction.max.timeout.ms" = 60_000
"transaction.abort.timed.out.transaction.cleanup.interval.ms" = 5_000
"log.cleaner.enable" = true
"log.cleaner.backoff.ms" = 1_000
"log.segment.bytes" = 4_096
"log.roll.ms" = 30_000
"log.cleaner.delete.retention.ms" = 2_000
"log.cleaner.min.cleanable.ratio" = 0.25

[knobs]
broker_transactional_ids_max = 7
broker_transactions_open_max = 3
broker_transaction_partitions_max = 5
broker_cleaner_records_per_step_max = 11

[[test]]
  [[test.workload]]
  name = 'Producer'
)";
  const Scenario s = parse_ok(text, 1);
  const SimBrokerConfig& b = s.cluster.broker;
  EXPECT_EQ(b.transactions.transaction_max_timeout_ms, 60'000);
  EXPECT_EQ(b.transactions.abort_timed_out_transaction_cleanup_interval_ms, 5'000);
  EXPECT_TRUE(b.cleaner.enable);
  EXPECT_EQ(b.cleaner.backoff_ms, 1'000);
  EXPECT_EQ(b.topic_defaults.segment_bytes, 4'096);
  EXPECT_EQ(b.topic_defaults.segment_ms, 30'000);
  EXPECT_EQ(b.topic_defaults.delete_retention_ms, 2'000);
  EXPECT_EQ(b.topic_defaults.min_cleanable_dirty_ratio, (base::Ratio{1, 4}));
  EXPECT_EQ(b.transactions.max_transactional_ids, 7);
  EXPECT_EQ(b.transactions.max_open_transactions, 3);
  EXPECT_EQ(b.transactions.max_transaction_partitions, 5);
  EXPECT_EQ(b.cleaner.records_per_step_max, 11);
  auto again = parse_scenario_text(to_toml(s), "written.toml", 1);
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
  EXPECT_EQ(again->cluster.broker, b);
  EXPECT_FALSE(parse_ok("[[test]]\n[[test.workload]]\nname = 'Producer'\n", 1)
                   .cluster.broker.cleaner.enable);

  auto bad = parse_scenario_text("[knobs]\nbroker_transactions_open_max = 0\n", "bad.toml", 1);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().to_string().find("broker_transactions_open_max"), std::string::npos)
      << bad.error().to_string();
}

TEST(ScenarioParserTest, ProcessingGuaranteeIsParsedDefaultedAndWrittenBack) {
  // processing.guarantee reaches StreamsConfig (at_least_once by default), an exactly_once_v2
  // file without commit.interval.ms gets Kafka's EOS default of 100 ms, the writer writes both
  // back, and an unknown guarantee is refused at its file:line:col.
  const std::string workload = "\n[[test]]\n[[test.workload]]\nname = 'Producer'\n";
  const Scenario alos = parse_ok(workload, 1);
  EXPECT_EQ(alos.cluster.streams.processing_guarantee, ProcessingGuarantee::AT_LEAST_ONCE);
  EXPECT_EQ(alos.cluster.streams.commit_interval_ms, 30'000);
  const Scenario eos =
      parse_ok("[streams_config]\n\"processing.guarantee\" = 'exactly_once_v2'" + workload, 1);
  EXPECT_EQ(eos.cluster.streams.processing_guarantee, ProcessingGuarantee::EXACTLY_ONCE_V2);
  EXPECT_EQ(eos.cluster.streams.commit_interval_ms, 100);
  const Scenario eos_slow = parse_ok(
      "[streams_config]\n\"processing.guarantee\" = 'exactly_once_v2'\n"
      "\"commit.interval.ms\" = 2_000" +
          workload,
      1);
  EXPECT_EQ(eos_slow.cluster.streams.commit_interval_ms, 2'000);
  const std::string written = to_toml(eos_slow);
  EXPECT_NE(written.find("\"processing.guarantee\" = 'exactly_once_v2'"), std::string::npos)
      << written;
  auto again = parse_scenario_text(written, "written.toml", 1);
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
  EXPECT_EQ(again->cluster.streams, eos_slow.cluster.streams);

  auto bad = parse_scenario_text(
      "[streams_config]\n\"processing.guarantee\" = 'exactly_once'" + workload, "bad.toml", 1);
  ASSERT_FALSE(bad.has_value());
  const std::string error = bad.error().to_string();
  EXPECT_NE(error.find("bad.toml:2:"), std::string::npos) << error;
  EXPECT_NE(error.find("processing.guarantee"), std::string::npos) << error;
  EXPECT_NE(error.find("exactly_once_v2"), std::string::npos) << error;

  // StreamsConfig refuses a commit interval above the transaction timeout under EOS.
  auto slow = parse_scenario_text(
      "[streams_config]\n\"processing.guarantee\" = 'exactly_once_v2'\n"
      "\"commit.interval.ms\" = 30_000" +
          workload,
      "slow.toml", 1);
  ASSERT_FALSE(slow.has_value());
  EXPECT_NE(slow.error().to_string().find("slow.toml:3:"), std::string::npos)
      << slow.error().to_string();
  EXPECT_NE(slow.error().to_string().find("Transaction timeout 10000"), std::string::npos)
      << slow.error().to_string();
}

// The error of a file the parser must refuse, as file:line:col: key '...': message.
std::string refused(const std::string& text, uint64_t seed = 1) {
  auto parsed = parse_scenario_text(text, "bad.toml", seed);
  EXPECT_FALSE(parsed.has_value()) << "seed " << seed << " parsed:\n" << text;
  return parsed.has_value() ? std::string() : parsed.error().to_string();
}

TEST(ScenarioParserTest, IsolationLevelsResolveAsStreamsConfigResolvesThem) {
  // isolation.level (or consumer.isolation.level, which wins) reaches both consumers under
  // at_least_once and is dropped under exactly_once_v2; main.consumer. and restore.consumer.
  // override it under either guarantee; each is written back and read again equal; a bad level is
  // refused at its file:line:col.
  const std::string workload = "\n[[test]]\n[[test.workload]]\nname = 'Producer'\n";
  const auto clients = [&](const std::string& streams_config) {
    return parse_ok("[streams_config]\n" + streams_config + workload, 1).cluster.clients;
  };
  constexpr auto ALOS = ProcessingGuarantee::AT_LEAST_ONCE;
  constexpr auto EOS = ProcessingGuarantee::EXACTLY_ONCE_V2;
  const StreamsClientConfigs none = clients("");
  EXPECT_EQ(none.main_isolation_level(ALOS), IsolationLevel::READ_UNCOMMITTED);
  EXPECT_EQ(none.restore_isolation_level(EOS), IsolationLevel::READ_COMMITTED);
  const StreamsClientConfigs plain = clients("\"isolation.level\" = 'read_committed'");
  EXPECT_EQ(plain.main_isolation_level(ALOS), IsolationLevel::READ_COMMITTED);
  EXPECT_EQ(plain.restore_isolation_level(ALOS), IsolationLevel::READ_COMMITTED);
  const StreamsClientConfigs both = clients(
      "\"isolation.level\" = 'read_committed'\n\"consumer.isolation.level\" = 'read_uncommitted'");
  EXPECT_EQ(both.main_isolation_level(ALOS), IsolationLevel::READ_UNCOMMITTED);
  EXPECT_EQ(both.main_isolation_level(EOS), IsolationLevel::READ_COMMITTED);
  const StreamsClientConfigs restore =
      clients("\"restore.consumer.isolation.level\" = 'read_uncommitted'");
  EXPECT_EQ(restore.restore_isolation_level(EOS), IsolationLevel::READ_UNCOMMITTED);
  EXPECT_EQ(restore.main_isolation_level(EOS), IsolationLevel::READ_COMMITTED);
  const StreamsClientConfigs main = clients("\"main.consumer.isolation.level\" = 'read_committed'");
  EXPECT_EQ(main.main_isolation_level(ALOS), IsolationLevel::READ_COMMITTED);
  EXPECT_EQ(main.restore_isolation_level(ALOS), IsolationLevel::READ_UNCOMMITTED);

  const Scenario given = parse_ok(
      "[streams_config]\n\"processing.guarantee\" = 'exactly_once_v2'\n"
      "\"isolation.level\" = 'read_uncommitted'\n"
      "\"main.consumer.isolation.level\" = 'read_committed'\n"
      "\"restore.consumer.isolation.level\" = 'read_uncommitted'" +
          workload,
      1);
  auto again = parse_scenario_text(to_toml(given), "written.toml", 1);
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
  EXPECT_EQ(again->cluster.clients, given.cluster.clients);
  EXPECT_EQ(again->cluster, given.cluster);

  const std::string error =
      refused("[streams_config]\n\"restore.consumer.isolation.level\" = 'read_dirty'" + workload);
  EXPECT_NE(error.find("bad.toml:2:"), std::string::npos) << error;
  EXPECT_NE(error.find("restore.consumer.isolation.level"), std::string::npos) << error;
  EXPECT_NE(error.find("read_committed"), std::string::npos) << error;
}

TEST(ScenarioParserTest, TransactionTimeoutIsCheckedAgainstEveryDrawnCommitInterval) {
  // producer.transaction.timeout.ms lets an EOS file commit less often than 10 s, as
  // StreamsConfig's check allows; the plain transaction.timeout.ms reaches the producer but is not
  // what Kafka checks; a template that may draw exactly_once_v2 is checked for every seed, even
  // one that draws at_least_once; the broker's transaction.max.timeout.ms bounds the timeout.
  const std::string workload = "\n[[test]]\n[[test.workload]]\nname = 'Producer'\n";
  const std::string eos = "[streams_config]\n\"processing.guarantee\" = 'exactly_once_v2'\n";
  const Scenario slow = parse_ok(
      eos + "\"commit.interval.ms\" = 30_000\n\"producer.transaction.timeout.ms\" = 30_000" +
          workload,
      1);
  EXPECT_EQ(slow.cluster.clients.effective_transaction_timeout_ms(), 30'000);
  auto again = parse_scenario_text(to_toml(slow), "written.toml", 1);
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
  EXPECT_EQ(again->cluster.clients, slow.cluster.clients);

  // Kafka checks the prefixed key only: a plain 60 s timeout does not allow a 30 s interval, and a
  // plain 5 s one passes beside a 10 s interval (and is what the producer uses).
  const std::string plain_high = refused(
      eos + "\"commit.interval.ms\" = 30_000\n\"transaction.timeout.ms\" = 60_000" + workload);
  EXPECT_NE(plain_high.find("bad.toml:3:"), std::string::npos) << plain_high;
  EXPECT_NE(plain_high.find("Transaction timeout 10000"), std::string::npos) << plain_high;
  const Scenario plain_low = parse_ok(
      eos + "\"commit.interval.ms\" = 10_000\n\"transaction.timeout.ms\" = 5_000" + workload, 1);
  EXPECT_EQ(plain_low.cluster.clients.effective_transaction_timeout_ms(), 5'000);
  EXPECT_EQ(plain_low.cluster.clients.verified_transaction_timeout_ms(), 10'000);

  // A drawn guarantee: every seed is refused while one draw could be EOS with a 30 s interval.
  const std::string drawn =
      "[streams_config]\n\"processing.guarantee\" = { one_of = ['at_least_once', "
      "'exactly_once_v2'] }\n\"commit.interval.ms\" = { one_of = [100, 30_000] }\n";
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const std::string error = refused(drawn + workload, seed);
    EXPECT_NE(error.find("bad.toml:3:"), std::string::npos) << "seed " << seed << ": " << error;
    EXPECT_NE(error.find("Transaction timeout 10000"), std::string::npos) << error;
    const Scenario valid =
        parse_ok(drawn + "\"producer.transaction.timeout.ms\" = 30_000" + workload, seed);
    EXPECT_EQ(valid.cluster.clients.effective_transaction_timeout_ms(), 30'000) << seed;
  }
  // An at_least_once file may commit as rarely as it likes.
  EXPECT_EQ(parse_ok("[streams_config]\n\"commit.interval.ms\" = 60_000" + workload, 1)
                .cluster.streams.commit_interval_ms,
            60'000);

  const std::string above_max = refused(eos +
                                        "\"producer.transaction.timeout.ms\" = 20_000\n[broker]\n"
                                        "\"transaction.max.timeout.ms\" = 15_000" +
                                        workload);
  EXPECT_NE(above_max.find("bad.toml:5:"), std::string::npos) << above_max;
  EXPECT_NE(above_max.find("producer.transaction.timeout.ms (20000)"), std::string::npos)
      << above_max;
}

TEST(ScenarioParserTest, MinCleanableRatioIsAnExactFractionInZeroToOne) {
  // log.cleaner.min.cleanable.ratio takes Kafka's double (0.5 by default), 0 and 1 as integers
  // too, and a seeded choice; it is kept exact (reduced over 10^6) and written back equal; a value
  // outside [0, 1], finer than 10^-6 or not a number is refused at its file:line:col.
  const std::string workload = "\n[[test]]\n[[test.workload]]\nname = 'Producer'\n";
  const auto ratio = [&](const std::string& value, uint64_t seed = 1) {
    return parse_ok("[broker]\n\"log.cleaner.min.cleanable.ratio\" = " + value + workload, seed)
        .cluster.broker.topic_defaults.min_cleanable_dirty_ratio;
  };
  EXPECT_EQ(parse_ok(workload, 1).cluster.broker.topic_defaults.min_cleanable_dirty_ratio,
            (base::Ratio{1, 2}));
  EXPECT_EQ(ratio("0"), (base::Ratio{0, 1}));
  EXPECT_EQ(ratio("1"), (base::Ratio{1, 1}));
  EXPECT_EQ(ratio("0.000001"), (base::Ratio{1, 1'000'000}));
  EXPECT_EQ(ratio("0.1"), (base::Ratio{1, 10}));
  std::set<uint64_t> drawn;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const base::Ratio r = ratio("{ one_of = [0.01, 0.5, 0.9] }", seed);
    EXPECT_TRUE(r == (base::Ratio{1, 100}) || r == (base::Ratio{1, 2}) || r == (base::Ratio{9, 10}))
        << seed;
    drawn.insert(r.den);
  }
  EXPECT_EQ(drawn.size(), 3u);
  const Scenario s =
      parse_ok("[broker]\n\"log.cleaner.min.cleanable.ratio\" = 0.123456" + workload, 1);
  auto again = parse_scenario_text(to_toml(s), "written.toml", 1);
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
  EXPECT_EQ(again->cluster.broker, s.cluster.broker);
  for (const char* bad : {"1.5", "-0.1", "0.1234567", "'half'"}) {
    const std::string error =
        refused("[broker]\n\"log.cleaner.min.cleanable.ratio\" = " + std::string(bad) + workload);
    EXPECT_NE(error.find("bad.toml:2:"), std::string::npos) << bad << ": " << error;
    EXPECT_NE(error.find("log.cleaner.min.cleanable.ratio"), std::string::npos) << error;
  }
}

TEST(ScenarioParserTest, SeedComesFromTheCallerElseTheFileElseOne) {
  const std::string text = "seed = 42\n[[test]]\nduration_ms = 1\n";
  EXPECT_EQ(parse_ok(text, std::nullopt).seed, 42u);
  EXPECT_EQ(parse_ok(text, 7).seed, 7u);
  EXPECT_EQ(parse_ok(text, 7).cluster.seed, 7u);
  EXPECT_EQ(parse_ok("[[test]]\nduration_ms = 1\n", std::nullopt).seed, 1u);
  // A seed above 2^63 - 1 is written as a string.
  EXPECT_EQ(
      parse_ok("seed = '18446744073709551615'\n[[test]]\nduration_ms = 1\n", std::nullopt).seed,
      18446744073709551615ull);
}

struct BadInput {
  const char* what;
  std::string text;
  std::string where;    // "bad.toml:L:C: key 'path'" (or "bad.toml:L:C:" for syntax errors)
  std::string message;  // a part of the message
};

const std::string kTest = "\n[[test]]\nduration_ms = 1_000\n";  // lines 2-3 of what follows

std::vector<BadInput> bad_inputs() {
  return {
      {"TOML syntax error", "title = 'unterminated\n", "bad.toml:1:", ""},
      {"duplicate key (TOML)", "title = 'a'\ntitle = 'b'\n", "bad.toml:2:", ""},
      {"unknown top-level key", "titel = 'x'" + kTest, "bad.toml:1:1: key 'titel'",
       "unknown key (known here: title, "},
      {"unknown key in a section", "[configuration]\ninstance = 2" + kTest,
       "bad.toml:2:1: key 'configuration.instance'", "unknown key"},
      {"unknown key in a workload",
       "[[test]]\n[[test.workload]]\nname = 'QueryClients'\nclientz = 3\n",
       "bad.toml:4:1: key 'test.0.workload.0.clientz'", "unknown key"},
      {"unknown key inside an inline table",
       "[[test]]\n[[test.step]]\nquery = { store = 'kv-store', kee = 1 }\n",
       "bad.toml:3:31: key 'test.0.step.0.query.kee'", "unknown key"},
      {"unknown key inside an inline table of an array",
       "[[test]]\n[[test.step]]\nproduce = { records = [ { key = 1, vlaue = 2 } ] }\n",
       "bad.toml:3:36: key 'test.0.step.0.produce.records.0.vlaue'", "unknown key"},
      {"a workload naming no store of the topology",
       "[[test]]\n[[test.workload]]\nname = 'QueryClients'\nstore = 'no-such-store'\n",
       "bad.toml:4:9: key 'test.0.workload.0.store'",
       "names no store of the topology (its store is 'kv-store')"},
      {"wrong type", "[configuration]\ninstances = 'three'" + kTest,
       "bad.toml:2:13: key 'configuration.instances'", "expected an integer, got a string"},
      {"float for an integer", "[streams_config]\n\"poll.ms\" = 1.5" + kTest,
       "bad.toml:2:13: key 'streams_config.\"poll.ms\"'", "expected an integer, got a float"},
      {"removed loop tick", "[configuration]\npoll_interval_ms = 10" + kTest,
       "bad.toml:2:20: key 'configuration.poll_interval_ms'",
       "removed: the loop no longer runs on a fixed tick; set the stream thread's poll timeout "
       "with \"poll.ms\" in [streams_config]"},
      {"removed fetch tick", "[knobs]\nconsumer_fetch_interval_ms = 10" + kTest,
       "bad.toml:2:30: key 'knobs.consumer_fetch_interval_ms'",
       "removed: consumers no longer fetch on a fixed tick"},
      {"unknown Kafka pin", "[configuration]\nkafka = '2025-01-01'" + kTest,
       "bad.toml:2:9: key 'configuration.kafka'",
       "unknown kafka pin '2025-01-01' (expected '2024-10-25' | '2026-08-20')"},
      {"a Kafka pin that is not a string", "[configuration]\nkafka = 2026" + kTest,
       "bad.toml:2:9: key 'configuration.kafka'", "expected a string"},
      {"an unknown Kafka pin among the alternatives",
       "[configuration]\nkafka = { one_of = ['2024-10-25', 'trunk'] }" + kTest,
       "bad.toml:2:35: key 'configuration.kafka.one_of.1'", "unknown kafka pin 'trunk'"},
      {"the new pin's isolation default under the old pin",
       "[streams_config]\n\"default.interactive.query.isolation.level\" = 'READ_COMMITTED'" + kTest,
       "bad.toml:2:47: key 'streams_config.\"default.interactive.query.isolation.level\"'",
       "exists only at kafka = '2026-08-20'"},
      {"an unknown isolation level",
       "[configuration]\nkafka = '2026-08-20'\n[streams_config]\n"
       "\"default.interactive.query.isolation.level\" = 'SERIALIZABLE'" +
           kTest,
       "bad.toml:4:47: key 'streams_config.\"default.interactive.query.isolation.level\"'",
       "unknown isolation level 'SERIALIZABLE'"},
      {"a header query under the old pin",
       "[[test]]\n[[test.step]]\nquery = { type = 'TimestampedKeyWithHeadersQuery', key = 1 }\n",
       "bad.toml:3:18: key 'test.0.step.0.query.type'",
       "TimestampedKeyWithHeadersQuery exists only at kafka = '2026-08-20'"},
      {"a query's isolation level under the old pin",
       "[[test]]\n[[test.step]]\nquery = { key = 1, isolation_level = 'READ_COMMITTED' }\n",
       "bad.toml:3:38: key 'test.0.step.0.query.isolation_level'",
       "exists only at kafka = '2026-08-20'"},
      {"an upgrade in a run already at the new pin",
       "[configuration]\nkafka = '2026-08-20'\n[[test]]\n[[test.step]]\nupgrade = 'instance-1'\n",
       "bad.toml:5:11: key 'test.0.step.0.upgrade'", "this scenario already runs that pin"},
      {"an upgrade undone",
       "[[test]]\n[[test.workload]]\nname = 'Fault'\naction = 'upgrade'\n"
       "instance = 'instance-1'\nundo_after_ms = 5\n",
       "bad.toml:6:17: key 'test.0.workload.0.undo_after_ms'",
       "a 'upgrade' fault has nothing to undo"},
      {"negative LRU capacity", "[configuration]\nlru_max_entries = -1" + kTest,
       "bad.toml:2:19: key 'configuration.lru_max_entries'", "must be >= 0 (got -1)"},
      {"max.poll.records < 1", "[streams_config]\n\"max.poll.records\" = 0" + kTest,
       "bad.toml:2:22: key 'streams_config.\"max.poll.records\"'", "must be >= 1 (got 0)"},
      {"negative checkpoint delta", "[knobs]\noffset_delta_threshold_for_checkpoint = -3" + kTest,
       "bad.toml:2:41: key 'knobs.offset_delta_threshold_for_checkpoint'", "must be >= 0 (got -3)"},
      {"a bad LRU capacity among the alternatives",
       "[configuration]\nlru_max_entries = { one_of = [8, -2] }" + kTest,
       "bad.toml:2:34: key 'configuration.lru_max_entries.one_of.1'", "must be >= 0 (got -2)"},
      {"instances < 1", "[configuration]\ninstances = 0" + kTest,
       "bad.toml:2:13: key 'configuration.instances'", "must be >= 1 (got 0)"},
      {"negative time", "[[test]]\nduration_ms = -5\n", "bad.toml:2:15: key 'test.0.duration_ms'",
       "must be >= 0 (got -5)"},
      {"clients < 1", "[[test]]\n[[test.workload]]\nname = 'QueryClients'\nclients = 0\n",
       "bad.toml:4:11: key 'test.0.workload.0.clients'", "must be >= 1 (got 0)"},
      {"unknown property name", "[[test]]\nduration_ms = 1\nchecks = ['BoundHonoured']\n",
       "bad.toml:3:11: key 'test.0.checks.0'", "unknown property name 'BoundHonoured'"},
      {"unknown expected failure", "expected_failures = ['Nope']" + kTest,
       "bad.toml:1:22: key 'expected_failures.0'", "unknown property name 'Nope'"},
      {"unknown allowed behaviour",
       "allowed_behaviours = ['alos_reprocessing', 'at_least_once']" + kTest,
       "bad.toml:1:44: key 'allowed_behaviours.1'", "unknown Kafka behaviour 'at_least_once'"},
      {"allowed behaviour twice",
       "allowed_behaviours = ['fenced_late_write', 'fenced_late_write']" + kTest,
       "bad.toml:1:44: key 'allowed_behaviours.1'", "'fenced_late_write' is listed twice"},
      {"unknown expected probe", "expect_probes = ['crash.point.close', 'crash.nope']" + kTest,
       "bad.toml:1:39: key 'expect_probes.1'", "unknown probe 'crash.nope'"},
      {"unknown crash_at event",
       "[[test]]\n[[test.workload]]\nname = 'CrashInside'\ninstance = 1\ncrash_at = 'fsync'\n",
       "bad.toml:5:12: key 'test.0.workload.0.crash_at'",
       "unknown crash_at event 'fsync' (expected 'disk' | 'send' | 'commit' | 'restore_poll')"},
      {"crash_at_n < 1",
       "[[test]]\n[[test.workload]]\nname = 'CrashInside'\ninstance = 1\ncrash_at_n = 0\n",
       "bad.toml:5:14: key 'test.0.workload.0.crash_at_n'", "must be >= 1 (got 0)"},
      {"unknown operation",
       "[[test]]\n[[test.workload]]\nname = 'CrashInside'\ninstance = 1\nduring = 'flush'\n",
       "bad.toml:5:10: key 'test.0.workload.0.during'", "unknown operation 'flush'"},
      {"crash_at_path on a send",
       "[[test]]\n[[test.workload]]\nname = 'CrashInside'\ninstance = 1\ncrash_at = 'send'\n"
       "crash_at_path = '/state/app/0_0'\n",
       "bad.toml:6:17: key 'test.0.workload.0.crash_at_path'",
       "only a 'disk' event has a path (crash_at may be 'send')"},
      {"crash_at_path where a template may draw a commit",
       "[[test]]\n[[test.workload]]\nname = 'CrashInside'\ninstance = 1\n"
       "crash_at = { one_of = ['disk', 'commit'] }\ncrash_at_path = '/state/app/0_0'\n",
       "bad.toml:6:17: key 'test.0.workload.0.crash_at_path'",
       "only a 'disk' event has a path (crash_at may be 'commit')"},
      {"crash_at_path outside the state directory",
       "[[test]]\n[[test.workload]]\nname = 'CrashInside'\ninstance = 1\n"
       "crash_at_path = 'state/app/0_0'\n",
       "bad.toml:5:17: key 'test.0.workload.0.crash_at_path'",
       "'state/app/0_0' is not a path in the state directory (it must start /state/)"},
      {"crash_at_path not in normal form",
       "[[test]]\n[[test.workload]]\nname = 'CrashInside'\ninstance = 1\n"
       "crash_at_path = '/state/app/0_0/'\n",
       "bad.toml:5:17: key 'test.0.workload.0.crash_at_path'", "is not in normal form"},
      {"crash_at_path with '..' in a choice",
       "[[test]]\n[[test.workload]]\nname = 'CrashInside'\ninstance = 1\n"
       "crash_at_path = { one_of = ['/state/a/0_0', '/state/a/../0_1'] }\n",
       "bad.toml:5:45: key 'test.0.workload.0.crash_at_path.one_of.1'", "is not in normal form"},
      {"crash_at_path not a string",
       "[[test]]\n[[test.workload]]\nname = 'CrashInside'\ninstance = 1\ncrash_at_path = 3\n",
       "bad.toml:5:17: key 'test.0.workload.0.crash_at_path'", "expected a string, got an integer"},
      {"crash inside with a wipe but no restart",
       "[[test]]\n[[test.workload]]\nname = 'CrashInside'\ninstance = 1\n"
       "state_directory = 'wipe'\n",
       "bad.toml:5:19: key 'test.0.workload.0.state_directory'", "needs restart_after_ms"},
      {"crash_inside_n_max < 1",
       "[[test]]\n[[test.workload]]\nname = 'RandomFaults'\ncrash_inside_n_max = 0\n",
       "bad.toml:4:22: key 'test.0.workload.0.crash_inside_n_max'", "must be >= 1 (got 0)"},
      {"unknown enum name", "[configuration]\nstore_backend = 'leveldb'" + kTest,
       "bad.toml:2:17: key 'configuration.store_backend'",
       "unknown store backend 'leveldb' (expected 'rocksdb' | 'rocksdb_plain' | 'in_memory' | "
       "'lru')"},
      {"unknown workload", "[[test]]\n[[test.workload]]\nname = 'Producers'\n",
       "bad.toml:3:8: key 'test.0.workload.0.name'", "unknown workload 'Producers'"},
      {"instance out of range",
       "[configuration]\ninstances = 2\n[[test]]\n[[test.workload]]\nname = 'CrashRestart'\n"
       "instance = 'instance-3'\n",
       "bad.toml:6:12: key 'test.0.workload.0.instance'",
       "instance 3 does not exist: instances is 2"},
      {"instance out of range in a step", "[[test]]\n[[test.step]]\npause = 2\n",
       "bad.toml:3:9: key 'test.0.step.0.pause'", "instance 2 does not exist: instances is 1"},
      {"range with lo > hi",
       "[[test]]\n[[test.workload]]\nname = 'QueryClients'\n"
       "clients = { range = [5, 2] }\n",
       "bad.toml:4:22: key 'test.0.workload.0.clients.range'", "lo <= hi (got [5, 2])"},
      {"bad one_of alternative", "[configuration]\ninstances = { one_of = [2, 0] }" + kTest,
       "bad.toml:2:28: key 'configuration.instances.one_of.1'", "must be >= 1 (got 0)"},
      {"bad one_of enum alternative",
       "[configuration]\nstore_backend = { one_of = ['rocksdb', 'lmdb'] }" + kTest,
       "bad.toml:2:40: key 'configuration.store_backend.one_of.1'", "unknown store backend 'lmdb'"},
      {"unknown key inside a choice",
       "[configuration]\ninstances = { one_of = [1], x = 2 }" + kTest,
       "bad.toml:2:29: key 'configuration.instances.x'", "exactly one key"},
      {"nested choice", "[configuration]\ninstances = { one_of = [{ one_of = [1] }] }" + kTest,
       "bad.toml:2:25: key 'configuration.instances.one_of.0'", "do not nest"},
      {"partition out of range",
       "[topology]\nsource_partitions = 2\n[[test]]\n[[test.step]]\n"
       "produce = { records = [ { partition = 2, key = 1 } ] }\n",
       "bad.toml:5:39: key 'test.0.step.0.produce.records.0.partition'",
       "partition 2 does not exist: source_partitions is 2"},
      {"duplicate check",
       "[[test]]\nduration_ms = 1\nchecks = ['BoundHonored']\n"
       "[[test.check]]\nname = 'BoundHonored'\n",
       "bad.toml:5:8: key 'test.0.check.0.name'", "'BoundHonored' is listed twice"},
      {"duplicate partition",
       "[topology]\nsource_partitions = 4\n[[test]]\n[[test.step]]\n"
       "query = { key = 1, partitions = [1, 2, 1] }\n",
       "bad.toml:5:40: key 'test.0.step.0.query.partitions.2'", "1 is listed twice"},
      {"stop before start",
       "[[test]]\nduration_ms = 10_000\n[[test.workload]]\nname = 'Producer'\nstart_ms = 5_000\n"
       "stop_ms = 1_000\n",
       "bad.toml:6:11: key 'test.0.workload.0.stop_ms'", "must be >= start_ms (5000), got 1000"},
      {"stop after the test",
       "[[test]]\nduration_ms = 10_000\n[[test.workload]]\n"
       "name = 'Producer'\nstop_ms = 20_000\n",
       "bad.toml:5:11: key 'test.0.workload.0.stop_ms'", "must be <= duration_ms (10000)"},
      {"Kafka's AssignmentConfigs rule", "[streams_config]\n\"max.warmup.replicas\" = 0" + kTest,
       "bad.toml:2:25: key 'streams_config.\"max.warmup.replicas\"'",
       "Invalid value 0 for configuration max.warmup.replicas: Value must be at least 1"},
      {"heartbeat not below the session timeout",
       "[streams_config]\n\"session.timeout.ms\" = 6_000\n\"heartbeat.interval.ms\" = 6_000" +
           kTest,
       "bad.toml:3:27: key 'streams_config.\"heartbeat.interval.ms\"'",
       "must be < session.timeout.ms (6000), got 6000"},
      {"missing required key", "[[test]]\n[[test.workload]]\nname = 'Fault'\ninstance = 1\n",
       "bad.toml:2:1: key 'test.0.workload.0.action'", "missing"},
      {"unknown exception name",
       "[[test]]\n[[test.step]]\nquery = { key = 1 }\nexpect_error = 'NoSuchStoreException'\n",
       "bad.toml:4:16: key 'test.0.step.0.expect_error'",
       "unknown exception 'NoSuchStoreException'"},
      {"expect without a query",
       "[[test]]\n[[test.step]]\nrun_until = 'quiescent'\n"
       "expect = { partition = 0 }\n",
       "bad.toml:4:10: key 'test.0.step.0.expect'", "goes with a query step"},
      {"a step doing two things", "[[test]]\n[[test.step]]\nrun_for_ms = 5\ncrash = 1\n",
       "bad.toml:4:9: key 'test.0.step.0.crash'", "a step does one thing"},
      {"a step doing nothing", "[[test]]\n[[test.step]]\n", "bad.toml:2:1: key 'test.0.step.0'",
       "a step needs one of"},
      {"undo of an action with nothing to undo",
       "[configuration]\ninstances = 2\n[[test]]\n[[test.workload]]\nname = 'Fault'\n"
       "action = 'remove_instance'\ninstance = 2\nundo_after_ms = 5\n",
       "bad.toml:8:17: key 'test.0.workload.0.undo_after_ms'", "nothing to undo"},
      {"wipe without a restart",
       "[[test]]\n[[test.workload]]\nname = 'CrashRestart'\ninstance = 1\n"
       "state_directory = 'wipe'\n",
       "bad.toml:5:19: key 'test.0.workload.0.state_directory'", "needs restart_after_ms"},
      {"value in a range query's expectation",
       "[[test]]\n[[test.step]]\nquery = { type = 'RangeQuery' }\n"
       "expect = { partition = 0, value = 3 }\n",
       "bad.toml:4:35: key 'test.0.step.0.expect.value'", "only a key query answers a value"},
      {"value_absent = false",
       "[[test]]\n[[test.step]]\nquery = { key = 1 }\nexpect = { partition = 0, value_absent = "
       "false }\n",
       "bad.toml:4:42: key 'test.0.step.0.expect.value_absent'",
       "value_absent = true, or leave it out"},
      {"key query without a key", "[[test]]\n[[test.step]]\nquery = { type = 'KeyQuery' }\n",
       "bad.toml:3:9: key 'test.0.step.0.query.key'", "missing"},
      {"produce to another topic",
       "[[test]]\n[[test.step]]\nproduce = { topic = 'other', records = [ { key = 1 } ] }\n",
       "bad.toml:3:21: key 'test.0.step.0.produce.topic'", "records go to the source topic"},
      {"no test", "title = 'x'\n", "bad.toml:1:1: key 'test'", "at least one [[test]]"},
      {"a section that is not a table", "configuration = 3" + kTest,
       "bad.toml:1:17: key 'configuration'", "expected a table, got an integer"},
      {"test as a single table", "[test]\nduration_ms = 1\n", "bad.toml:1:1: key 'test'",
       "expected an array of tables ([[test]])"},
      {"a position with a bad partition",
       "[[test]]\n[[test.step]]\nquery = { key = 1, bound = { t = { x = 1 } } }\n",
       "bad.toml:3:36: key 'test.0.step.0.query.bound.t.x'", "a partition is a number >= 0"},
      // `[explore]`, the explorer's grid (cli/explore.cc resolves its keys against the file).
      {"[explore] not a table", "explore = 3" + kTest, "bad.toml:1:11: key 'explore'",
       "expected a table, got an integer"},
      {"[explore] without a grid", "[explore]" + kTest, "bad.toml:1:1: key 'explore.grid'",
       "missing"},
      {"[explore] with an unknown key", "[explore]\ngrid = { 'a' = [1] }\ngrids = 1" + kTest,
       "bad.toml:3:1: key 'explore.grids'", "unknown key (known here: grid)"},
      {"[explore] grid not a table", "[explore]\ngrid = [0, 1]" + kTest,
       "bad.toml:2:8: key 'explore.grid'", "expected a table of KEY = [VALUE, ...]"},
      {"[explore] grid empty", "[explore]\ngrid = {}" + kTest, "bad.toml:2:8: key 'explore.grid'",
       "expected a table of KEY = [VALUE, ...]"},
      {"[explore] grid value not an array",
       "[explore]\ngrid = { 'num.standby.replicas' = 2 }" + kTest,
       "bad.toml:2:35: key 'explore.grid.\"num.standby.replicas\"'",
       "expected a non-empty array of values"},
      {"[explore] grid value an empty array",
       "[explore]\ngrid = { 'num.standby.replicas' = [] }" + kTest,
       "bad.toml:2:35: key 'explore.grid.\"num.standby.replicas\"'",
       "expected a non-empty array of values"},
      {"an expectation outside the query's partitions",
       "[topology]\nsource_partitions = 2\n[[test]]\n[[test.step]]\n"
       "query = { key = 1, partitions = [0] }\nexpect = { partition = 1 }\n",
       "bad.toml:6:24: key 'test.0.step.0.expect.partition'", "not among the query's partitions"},
  };
}

// Each kind of bad input is an error value naming the file, the line and column, and the key.
TEST(ScenarioParserTest, BadInputIsAnErrorNamingFileLineAndKey) {
  for (const BadInput& bad : bad_inputs()) {
    auto parsed = parse_scenario_text(bad.text, "bad.toml", 1);
    ASSERT_FALSE(parsed.has_value()) << bad.what << ": parsed without an error (seed=1)";
    const std::string text = parsed.error().to_string();
    EXPECT_EQ(text.rfind(bad.where, 0), 0u) << bad.what << ": got " << text;
    EXPECT_NE(text.find(bad.message), std::string::npos) << bad.what << ": got " << text;
    EXPECT_EQ(parsed.error().file, "bad.toml") << bad.what;
  }
}

// The same bad inputs fail the same way whatever the seed.
TEST(ScenarioParserTest, ErrorsDoNotDependOnTheSeed) {
  for (const BadInput& bad : bad_inputs()) {
    const auto first = parse_scenario_text(bad.text, "bad.toml", 1);
    for (uint64_t seed = 2; seed <= 5; ++seed) {
      const auto again = parse_scenario_text(bad.text, "bad.toml", seed);
      ASSERT_FALSE(again.has_value()) << bad.what << " seed=" << seed;
      EXPECT_EQ(again.error().to_string(), first.error().to_string())
          << bad.what << " seed=" << seed;
    }
  }
}

// Keys with tens of thousands of parts and brackets nested tens of thousands deep (which overflow
// toml++'s recursive parser) are refused at the offending character before toml++ reads them,
// while the limits leave room for everything a scenario writes.
TEST(ScenarioParserTest, DeepKeysAndNestingAreRefusedBeforeTheTomlParser) {
  std::string dotted = "title = 'x'\n\na";
  for (int i = 0; i < 40'000; ++i) dotted += ".a";
  dotted += " = 1\n";
  std::string header = "[a";
  for (int i = 0; i < 40'000; ++i) header += ".a";
  header += "]\n";
  const std::string arrays = "x = " + std::string(40'000, '[') + std::string(40'000, ']') + "\n";
  std::string tables = "x = ";
  for (int i = 0; i < 40'000; ++i) tables += "{ a = ";
  tables += "1" + std::string(40'000, '}') + "\n";
  const struct {
    std::string text;
    std::string where;
    std::string message;
  } cases[] = {
      {dotted, "t.toml:3:64:", "more than 32 parts"},
      {header, "t.toml:1:65:", "more than 32 parts"},
      {arrays, "t.toml:1:37:", "nested more than 32 deep"},
      {tables, "t.toml:1:197:", "nested more than 32 deep"},
  };
  for (const auto& c : cases) {
    auto parsed = parse_scenario_text(c.text, "t.toml", 1);
    ASSERT_FALSE(parsed.has_value()) << c.message;
    const std::string text = parsed.error().to_string();
    EXPECT_EQ(text.rfind(c.where, 0), 0u) << text;
    EXPECT_NE(text.find(c.message), std::string::npos) << text;
  }
  // At the limits: 32 parts, 32 deep, and dots inside strings, comments and floats not counted.
  std::string ok =
      "title = 'x'\n# a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a\n";
  ok += "description = '" + std::string(100, '.') + "'\n[configuration]\n";
  std::string nested = std::string(32, '[') + std::string(32, ']');
  ok += "[x]\ny = " + nested + "\nz = \"" + std::string(100, '.') + "\"\nw = 1.5\n";
  std::string key = "a";
  for (int i = 1; i < 32; ++i) key += ".a";
  ok += key + " = 2.5\n";
  auto parsed = parse_scenario_text(ok, "t.toml", 1);
  ASSERT_FALSE(parsed.has_value());  // `[x]` is not a section: refused by the reader, not the scan
  EXPECT_EQ(parsed.error().line, 5) << parsed.error().to_string();
  EXPECT_NE(parsed.error().message.find("unknown key"), std::string::npos);
}

// Counts of blocks are bounded (100 tests, 32 workloads and 500 steps per test, 2,000 steps per
// file, `instances` plus add_instance at most 64) and refused at the first block past the bound;
// 2,000 add_instance steps used to run for minutes.
TEST(ScenarioParserTest, BlockCountsAreBoundedAtTheFirstBlockPast) {
  const std::string head = "[topology]\nname = 'Count'\n";  // lines 1-2
  const auto repeat = [](const std::string& block, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += block;
    return out;
  };
  const std::string step = "  [[test.step]]\n  run_until = 'quiescent'\n";
  const struct {
    std::string text;
    std::string where;
    std::string message;
  } cases[] = {
      {head + repeat("[[test]]\nduration_ms = 1\n", 101), "t.toml:203:1: key 'test.100'",
       "more than 100 [[test]] blocks (got 101)"},
      {head + "[[test]]\n" + repeat("  [[test.workload]]\n  name = 'Producer'\n", 33),
       "t.toml:68:3: key 'test.0.workload.32'", "more than 32 [[workload]] blocks (got 33)"},
      {head + "[[test]]\n" + repeat(step, 501), "t.toml:1004:3: key 'test.0.step.500'",
       "more than 500 [[step]] blocks (got 501)"},
      {head + repeat("[[test]]\n" + repeat(step, 450), 5), "t.toml:4008:3: key 'test.4.step.200'",
       "more than 2000 [[test.step]] blocks in the file"},
      {head + "[[test]]\n" + repeat("  [[test.step]]\n  add_instance = true\n", 64),
       "t.toml:130:3: key 'test.0.step.63.add_instance'",
       "`instances` (1) plus 64 add_instance would be more than 64 instances"},
  };
  for (const auto& c : cases) {
    auto parsed = parse_scenario_text(c.text, "t.toml", 1);
    ASSERT_FALSE(parsed.has_value()) << c.message;
    const std::string text = parsed.error().to_string();
    EXPECT_EQ(text.rfind(c.where, 0), 0u) << text;
    EXPECT_NE(text.find(c.message), std::string::npos) << text;
  }
  // At the bounds: 63 add_instance steps on 1 instance parse.
  parse_ok(head + "[[test]]\n" + repeat("  [[test.step]]\n  add_instance = true\n", 63), 1);
}

TEST(ScenarioParserTest, UnreadableFileIsAnErrorAtLineZero) {
  auto parsed = parse_scenario_file("/nonexistent/dir/x.toml", std::nullopt);
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().line, 0);
  EXPECT_EQ(parsed.error().to_string(), "/nonexistent/dir/x.toml: cannot open the file");
  auto directory = parse_scenario_file(::testing::TempDir(), std::nullopt);
  ASSERT_FALSE(directory.has_value());
  EXPECT_EQ(directory.error().line, 0) << directory.error().to_string();
}

TEST(ScenarioParserTest, FileIsReadAndNamedInLocations) {
  const std::string path = ::testing::TempDir() + "scenario_parser_test.toml";
  {
    std::ofstream out(path);
    out << "[[test]]\n[[test.step]]\nquery = { key = 1 }\n";
  }
  const auto parsed = parse_scenario_file(path, 3);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().to_string();
  EXPECT_EQ(parsed->file, path);
  EXPECT_EQ(std::get<QueryStep>(parsed->tests[0].steps[0]).where.to_string(), path + ":2");
}

// A file whose choices cover every kind of slot.
const std::string kChoicesFile = R"(
[configuration]
instances = { range = [1, 5] }
store_backend = { one_of = ['rocksdb', 'in_memory', 'lru'] }

[streams_config]
"num.standby.replicas" = { one_of = [0, 1, 2] }
"commit.interval.ms" = { range = [10, 30_000] }
"__iq.consistency.offset.vector.enabled__" = { one_of = [true, false] }

[topology]
name = { one_of = ['Count', 'Sum', 'SourceTable'] }
source_partitions = { range = [1, 8] }

[[test]]
duration_ms = { range = [5_000, 20_000] }

  [[test.workload]]
  name = 'Producer'
  records_per_second = { range = [10, 1_000] }
  key_distribution = { one_of = ['uniform', 'skewed'] }
  stop_ms = { range = [1_000, 5_000] }

  [[test.workload]]
  name = 'QueryClients'
  clients = { range = [1, 8] }
  position_bound = { one_of = ['unbounded', 'session', ['session', 'produced']] }
  range_one_in = { one_of = [0, 1, 4] }

  [[test.workload]]
  name = 'CrashRestart'
  instance = 1
  at_ms = { range = [0, 5_000] }
  restart_after_ms = { range = [100, 10_000] }
  state_directory = { one_of = ['keep', 'wipe'] }

[[test]]
  [[test.step]]
  produce = { records = [ { partition = 0, key = { range = [0, 100] }, value = { range = [-5, 5] } } ] }

  [[test.step]]
  run_until = 'quiescent'

  [[test.step]]
  query = { type = { one_of = ['KeyQuery', 'TimestampedKeyQuery'] }, key = 3, bound = { one_of = ['produced', 'unbounded', { input-topic = { 0 = 0 } }] } }
)";

TEST(ScenarioParserTest, SameSeedSameChoices) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Scenario a = parse_ok(kChoicesFile, seed);
    const Scenario b = parse_ok(kChoicesFile, seed);
    EXPECT_TRUE(a == b) << "seed=" << seed;
  }
}

TEST(ScenarioParserTest, SeedsDrawDifferentChoicesWithinTheAlternatives) {
  std::set<int32_t> instances;
  std::set<KeyValueSupplier> backends;
  std::set<std::string> scenarios;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const Scenario s = parse_ok(kChoicesFile, seed);
    instances.insert(s.cluster.instances);
    backends.insert(s.cluster.topology.supplier);
    EXPECT_GE(s.cluster.instances, 1) << "seed=" << seed;
    EXPECT_LE(s.cluster.instances, 5) << "seed=" << seed;
    EXPECT_NE(s.cluster.topology.supplier, KeyValueSupplier::kRocksDb) << "seed=" << seed;
    const int64_t commit = s.cluster.streams.commit_interval_ms;
    EXPECT_TRUE(commit >= 10 && commit <= 30'000) << "seed=" << seed << " commit=" << commit;
    const auto& fault = std::get<FaultWorkloadSpec>(s.tests[0].workloads[2]);
    EXPECT_LE(fault.at_ms, s.tests[0].duration_ms) << "seed=" << seed;
    scenarios.insert(to_toml(s));
  }
  EXPECT_EQ(instances.size(), 5u);  // 50 draws from 5 values
  EXPECT_EQ(backends.size(), 3u);
  EXPECT_EQ(scenarios.size(), 50u);  // dozens of independent draws: no two seeds alike
}

// A choice depends on the seed and its own key path only: adding a choice elsewhere, before it in
// the file, changes nothing about it.
TEST(ScenarioParserTest, ChoicesAreIndependentOfEachOther) {
  const std::string alone =
      "[configuration]\ninstances = { range = [1, 9] }\n[[test]]\nduration_ms = { range = [1, "
      "1000] }\n";
  const std::string with_more =
      "title = { one_of = ['a', 'b'] }\n[configuration]\nstore_backend = { one_of = ['lru', "
      "'rocksdb'] }\ninstances = { range = [1, 9] }\n[[test]]\nduration_ms = { range = [1, 1000] "
      "}\n";
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Scenario a = parse_ok(alone, seed);
    const Scenario b = parse_ok(with_more, seed);
    EXPECT_EQ(a.cluster.instances, b.cluster.instances) << "seed=" << seed;
    EXPECT_EQ(a.tests[0].duration_ms, b.tests[0].duration_ms) << "seed=" << seed;
  }
}

// Random edits of a valid file (a character deleted, replaced or inserted, a line repeated) either
// parse or give an error naming this file; none crashes the parser, and whatever parses writes
// back to an equal scenario.
TEST(ScenarioParserTest, MutatedFilesFailCleanlyOrRoundTrip) {
  constexpr uint64_t kSeed = 20'260'101;
  base::Prng prng(kSeed);
  constexpr std::string_view kAlphabet = "0123456789-_'\"=[]{}.,#\n abcxyz";
  int parsed_count = 0;
  for (int round = 0; round < 1'500; ++round) {
    std::string text = kFullFile;
    const int edits = 1 + static_cast<int>(prng.below(3));
    for (int e = 0; e < edits; ++e) {
      const size_t at = prng.below(text.size());
      switch (prng.below(4)) {
        case 0:
          text.erase(at, 1);
          break;
        case 1:
          text[at] = kAlphabet[prng.below(kAlphabet.size())];
          break;
        case 2:
          text.insert(at, 1, kAlphabet[prng.below(kAlphabet.size())]);
          break;
        default: {
          const size_t begin =
              text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
          const size_t end = text.find('\n', at);
          text.insert(begin, text.substr(begin, end - begin + 1));
        }
      }
    }
    auto result = parse_scenario_text(text, "mutant.toml", std::nullopt);
    if (!result) {
      EXPECT_EQ(result.error().file, "mutant.toml") << "seed=" << kSeed << " round=" << round;
      EXPECT_FALSE(result.error().message.empty()) << "seed=" << kSeed << " round=" << round;
      continue;
    }
    ++parsed_count;
    auto back = parse_scenario_text(to_toml(*result), "back.toml", std::nullopt);
    ASSERT_TRUE(back.has_value()) << "seed=" << kSeed << " round=" << round << ": "
                                  << back.error().to_string() << "\n"
                                  << text;
    EXPECT_TRUE(without_locations(*back) == without_locations(*result))
        << "seed=" << kSeed << " round=" << round << "\n"
        << text;
  }
  // Both outcomes happen: the test exercises the error paths and the round trip.
  EXPECT_GT(parsed_count, 50) << "seed=" << kSeed;
  EXPECT_LT(parsed_count, 1'450) << "seed=" << kSeed;
}

}  // namespace
}  // namespace iq::sim
