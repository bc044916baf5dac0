// Scenario driver tests: concrete Scenarios built in C++ run through drive_scenario, and the
// RunTrace holds what happened: scripted answers with their values and positions, timed
// workloads with faults, lag samples and the liveness phase, the source log, determinism per
// seed, and the failures the driver records (not quiescent in time, queried before start, the
// virtual time limit).
#include "scenario/scenario_driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "io/operation_marker.h"
#include "iq/default_partitioner.h"
#include "iq/serdes.h"

namespace iq::sim {
namespace {

// Kafka's window start W (IQv2StoreIntegrationTest's WINDOW_START): timestamps are W + 120 000 i.
constexpr int64_t kW = 1'700'000'100'000;

// The trace's instants, from the virtual milliseconds the tests reason in.
base::Instant instant(int64_t ms) {
  return base::Instant::from_ms(ms);
}

std::string seed_text(const Scenario& s) {
  return "seed=" + std::to_string(s.seed) + " scenario='" + s.title + "'";
}

Position position(std::map<int32_t, int64_t> offsets, const std::string& topic = "input-topic") {
  Position p = Position::empty_position();
  for (const auto& [partition, offset] : offsets) p.with_component(topic, partition, offset);
  return p;
}

// IQv2StoreIntegrationTest's world: one instance, a SourceTable over 2 partitions of
// "input-topic" into "kv-store", committing every 100 ms.
Scenario kafka_store_scenario(uint64_t seed) {
  Scenario s;
  s.title = "kafka store 10";
  s.seed = seed;
  s.cluster.instances = 1;
  s.cluster.streams.application_id = "app";
  s.cluster.streams.commit_interval_ms = 100;
  s.cluster.streams.assignment.num_standby_replicas = 1;
  s.cluster.topology.kind = TopologyKind::SourceTable;
  s.cluster.topology.source_topic = "input-topic";
  s.cluster.topology.source_partitions = 2;
  s.cluster.topology.store_name = "kv-store";
  s.keys = 5;
  s.liveness.enabled = false;
  s.knobs.lag_probe_interval_ms = 0;
  return s;
}

// IQV2_STORE_10 (IQv2StoreIntegrationTest's input): key i/2, value i, timestamp W + 120 000 i,
// partition key%2.
ProduceStep store_10() {
  ProduceStep step;
  for (int32_t i = 0; i < 10; ++i) {
    ProduceRecordSpec r;
    r.key = i / 2;
    r.partition = r.key % 2;
    r.value = i;
    r.timestamp_ms = kW + 120'000 * i;
    step.records.push_back(r);
  }
  return step;
}

QueryStep query(QueryKind type, int32_t line) {
  QueryStep q;
  q.store = "kv-store";
  q.type = type;
  q.partitions = std::set<int32_t>{0, 1};
  q.bound = position({{0, 5}, {1, 3}});
  q.where = SourceLocation{"driver_test.toml", line};
  return q;
}

const PartitionOutcome& partition_of(const QueryRecord& r, int32_t partition) {
  for (const auto& p : r.partitions) {
    if (p.partition == partition) return p;
  }
  ADD_FAILURE() << "no partition " << partition << " in " << r.to_string();
  static const PartitionOutcome none;
  return none;
}

// Proves a scripted Kafka-style scenario (IQV2_STORE_10 at explicit partitions, run until
// quiescent, bounded KeyQuery, TimestampedKeyQuery, RangeQuery, an unknown query type, a
// descending RangeQuery bounded by everything produced) records Kafka's values and positions.
TEST(ScenarioDriverTest, ScriptedKafkaStoreQueriesGiveKafkasAnswers) {
  Scenario s = kafka_store_scenario(11);
  TestSpec test;
  test.title = "Store10";
  test.steps.push_back(store_10());
  test.steps.push_back(RunUntilStep{.quiescent = true, .ms_max = 60'000});
  QueryStep key = query(QueryKind::KeyQuery, 10);
  key.key = 2;
  ExpectedPartition five;
  five.partition = 0;
  five.value = std::optional<int64_t>(5);
  key.expect.push_back(five);
  test.steps.push_back(key);
  QueryStep timestamped = query(QueryKind::TimestampedKeyQuery, 20);
  timestamped.key = 2;
  test.steps.push_back(timestamped);
  QueryStep range = query(QueryKind::RangeQuery, 30);
  range.lower = 0;
  range.upper = 4;
  test.steps.push_back(range);
  QueryStep unknown = query(QueryKind::Custom, 40);
  unknown.bound.reset();
  test.steps.push_back(unknown);
  QueryStep produced = query(QueryKind::RangeQuery, 50);
  produced.bound.reset();
  produced.bound_produced = true;
  produced.order = ResultOrder::DESCENDING;
  test.steps.push_back(produced);
  s.tests.push_back(test);

  const RunTrace trace = drive_scenario(s);
  ASSERT_TRUE(trace.liveness_failures.empty())
      << seed_text(s) << " " << trace.liveness_failures[0].what;
  EXPECT_TRUE(trace.instance_errors.empty()) << seed_text(s);
  EXPECT_FALSE(trace.time_limit_reached) << seed_text(s);
  ASSERT_EQ(trace.history.size(), 5u) << seed_text(s) << "\n" << trace.history.to_string();
  for (const QueryRecord& r : trace.history.records()) {
    EXPECT_EQ(r.source, QueryRecord::Source::kScripted) << seed_text(s);
    EXPECT_EQ(r.target_instance, "instance-1") << seed_text(s);
    ASSERT_EQ(r.outcome, OutcomeKind::kAnswered) << seed_text(s) << " " << r.to_string();
    ASSERT_EQ(r.partitions.size(), 2u) << seed_text(s) << " " << r.to_string();
    ASSERT_TRUE(r.placement_at_answer.has_value()) << seed_text(s);
    EXPECT_EQ(r.placement_at_invoke.count(0, ReplicaRole::kActive), 1) << seed_text(s);
  }
  const auto& records = trace.history.records();
  const Position p0 = position({{0, 5}});
  const Position p1 = position({{1, 3}});

  // KeyQuery(2): 5 on p0 at {0:5}; absent on p1 at {1:3}.
  EXPECT_EQ(records[0].request.kind, QueryKind::KeyQuery) << seed_text(s);
  EXPECT_EQ(records[0].request.bound, position({{0, 5}, {1, 3}})) << seed_text(s);
  const PartitionOutcome& k0 = partition_of(records[0], 0);
  EXPECT_TRUE(k0.success) << seed_text(s) << " " << k0.to_string();
  EXPECT_EQ(k0.value, ResultValue(std::optional<int64_t>(5))) << seed_text(s) << k0.to_string();
  EXPECT_EQ(k0.position, p0) << seed_text(s) << " " << k0.to_string();
  const PartitionOutcome& k1 = partition_of(records[0], 1);
  EXPECT_TRUE(k1.success) << seed_text(s) << " " << k1.to_string();
  EXPECT_EQ(k1.value, ResultValue(std::optional<int64_t>())) << seed_text(s) << k1.to_string();
  EXPECT_EQ(k1.position, p1) << seed_text(s) << " " << k1.to_string();

  // TimestampedKeyQuery(2): (5, W + 600 000).
  const PartitionOutcome& t0 = partition_of(records[1], 0);
  EXPECT_EQ(t0.value, ResultValue(std::optional<int64_t>(5))) << seed_text(s) << t0.to_string();
  EXPECT_EQ(t0.timestamps, std::vector<int64_t>{kW + 600'000}) << seed_text(s) << t0.to_string();

  // RangeQuery [0, 4]: 1, 5, 9 on p0 and 3, 7 on p1, in key order.
  EXPECT_EQ(records[2].request.lower, 0) << seed_text(s);
  EXPECT_EQ(records[2].request.upper, 4) << seed_text(s);
  EXPECT_EQ(partition_of(records[2], 0).value, ResultValue(KeyValueList{{0, 1}, {2, 5}, {4, 9}}))
      << seed_text(s) << " " << records[2].to_string();
  EXPECT_EQ(partition_of(records[2], 1).value, ResultValue(KeyValueList{{1, 3}, {3, 7}}))
      << seed_text(s) << " " << records[2].to_string();
  EXPECT_EQ(partition_of(records[2], 0).position, p0) << seed_text(s);
  EXPECT_EQ(partition_of(records[2], 1).position, p1) << seed_text(s);

  // An unknown query type: UNKNOWN_QUERY_TYPE with Kafka's message on both partitions.
  for (int32_t p : {0, 1}) {
    const PartitionOutcome& u = partition_of(records[3], p);
    EXPECT_FALSE(u.success) << seed_text(s) << " " << u.to_string();
    EXPECT_EQ(u.failure_reason, FailureReason::UNKNOWN_QUERY_TYPE) << seed_text(s);
    EXPECT_NE(u.failure_message.find("doesn't know how to execute the given query"),
              std::string::npos)
        << seed_text(s) << " " << u.failure_message;
  }

  // bound_produced: the source end offsets - 1; descending keys.
  EXPECT_EQ(records[4].request.bound, position({{0, 5}, {1, 3}})) << seed_text(s);
  EXPECT_EQ(records[4].request.order, ResultOrder::DESCENDING) << seed_text(s);
  EXPECT_EQ(partition_of(records[4], 0).value, ResultValue(KeyValueList{{4, 9}, {2, 5}, {0, 1}}))
      << seed_text(s) << " " << records[4].to_string();

  // One expectation per scripted query, by record id, with its location.
  ASSERT_EQ(trace.expectations.size(), 5u) << seed_text(s);
  EXPECT_EQ(trace.expectations[0].record_id, records[0].id) << seed_text(s);
  EXPECT_EQ(trace.expectations[0].where, "driver_test.toml:10") << seed_text(s);
  ASSERT_EQ(trace.expectations[0].partitions.size(), 1u) << seed_text(s);
  EXPECT_EQ(trace.expectations[0].partitions[0].value, std::optional<int64_t>(5)) << seed_text(s);

  // The source log: partition-major, exactly IQV2_STORE_10.
  ASSERT_EQ(trace.source_log.size(), 10u) << seed_text(s);
  const int32_t order[] = {0, 1, 4, 5, 8, 9, 2, 3, 6, 7};  // i, partition 0 first
  for (size_t j = 0; j < 10; ++j) {
    const SourceLogRecord& r = trace.source_log[j];
    const int32_t i = order[j];
    EXPECT_EQ(r.partition, (i / 2) % 2) << seed_text(s) << " record " << j;
    EXPECT_EQ(r.offset, SourceOffset(static_cast<int64_t>(j < 6 ? j : j - 6)))
        << seed_text(s) << " " << j;
    EXPECT_EQ(r.key, i / 2) << seed_text(s) << " record " << j;
    EXPECT_EQ(r.value, std::optional<int64_t>(i)) << seed_text(s) << " record " << j;
    EXPECT_EQ(r.timestamp_ms, kW + 120'000 * i) << seed_text(s) << " record " << j;
  }
  ASSERT_EQ(trace.phases.size(), 1u) << seed_text(s);
  EXPECT_EQ(trace.phases[0].title, "Store10") << seed_text(s);
  EXPECT_EQ(trace.phases[0].end_ms, trace.end_ms) << seed_text(s);
  EXPECT_EQ(trace.scenario, "kafka store 10") << seed_text(s);
  EXPECT_EQ(trace.seed, 11u) << seed_text(s);
  EXPECT_FALSE(trace.liveness.has_value()) << seed_text(s);
}

// Proves a tombstone goes to the broker as a null value, shows in the source log without a value,
// and deletes the key from the source table.
TEST(ScenarioDriverTest, TombstoneDeletesFromTheSourceTable) {
  Scenario s = kafka_store_scenario(12);
  TestSpec test;
  ProduceStep produce = store_10();
  ProduceRecordSpec tombstone_spec;  // no value: a tombstone
  tombstone_spec.partition = 0;
  tombstone_spec.key = 2;
  produce.records.push_back(tombstone_spec);
  test.steps.push_back(produce);
  test.steps.push_back(RunUntilStep{.quiescent = true, .ms_max = 60'000});
  QueryStep key = query(QueryKind::KeyQuery, 1);
  key.key = 2;
  key.bound_produced = true;
  key.bound.reset();
  test.steps.push_back(key);
  s.tests.push_back(test);
  const RunTrace trace = drive_scenario(s);
  ASSERT_TRUE(trace.liveness_failures.empty()) << seed_text(s);
  ASSERT_EQ(trace.source_log.size(), 11u) << seed_text(s);
  const SourceLogRecord& tombstone = trace.source_log[6];  // partition 0, offset 6
  EXPECT_EQ(tombstone.partition, 0) << seed_text(s);
  EXPECT_EQ(tombstone.offset, SourceOffset(6)) << seed_text(s);
  EXPECT_EQ(tombstone.key, 2) << seed_text(s);
  EXPECT_FALSE(tombstone.value.has_value()) << seed_text(s);
  ASSERT_EQ(trace.history.size(), 1u) << seed_text(s);
  const PartitionOutcome& p0 = partition_of(trace.history.records()[0], 0);
  EXPECT_TRUE(p0.success) << seed_text(s) << " " << p0.to_string();
  EXPECT_EQ(p0.value, ResultValue(std::optional<int64_t>())) << seed_text(s) << p0.to_string();
  EXPECT_EQ(p0.position, position({{0, 6}})) << seed_text(s) << " " << p0.to_string();
}

// A 3-instance Count cluster with a standby per task under a producer and query clients, a crash
// of instance-2 at 10 s undone by a restart at 18 s, then the liveness phase.
Scenario timed_scenario(uint64_t seed) {
  Scenario s;
  s.title = "timed crash and restart";
  s.seed = seed;
  s.cluster.instances = 3;
  s.cluster.link = LinkConfig{.delay_ms_min = 1, .delay_ms_max = 5};
  s.cluster.streams.application_id = "app";
  s.cluster.streams.commit_interval_ms = 100;
  s.cluster.streams.assignment.num_standby_replicas = 1;
  s.cluster.session_timeout_ms = 10'000;
  s.cluster.heartbeat_interval_ms = 2'000;
  s.cluster.topology.kind = TopologyKind::Count;
  s.cluster.topology.source_topic = "words";
  s.cluster.topology.source_partitions = 4;
  s.cluster.topology.store_name = "counts";
  s.keys = 16;
  TestSpec test;
  test.title = "CrashUnderLoad";
  test.duration_ms = 30'000;
  test.workloads.push_back(ProducerWorkloadSpec{
      ProducerConfig{.start_ms = 1'000, .stop_ms = 25'000, .records_per_second = 100, .keys = 16}});
  QueryClientConfig q;
  q.clients = 2;
  q.interval_ms = 100;
  q.keys = 16;
  q.store = "counts";
  q.stop_ms = 0;  // the phase's end
  test.workloads.push_back(QueryClientsWorkloadSpec{q});
  test.workloads.push_back(FaultWorkloadSpec{.action = FaultAction::kCrash,
                                             .instance = 2,
                                             .at_ms = 10'000,
                                             .undo_after_ms = 8'000,
                                             .wipe = false,
                                             .inside = std::nullopt});
  s.tests.push_back(test);
  s.liveness.timeout_ms = 60'000;
  s.liveness.probe_interval_ms = 500;
  s.knobs.lag_probe_interval_ms = 1'000;
  return s;
}

// Proves a timed scenario records the query clients' attempts, the crash and its restart, lag
// samples beside the observer's view, a first successful liveness probe for every partition, and
// a source log holding exactly what the producer wrote.
TEST(ScenarioDriverTest, TimedWorkloadsFaultsLagsAndLiveness) {
  const Scenario s = timed_scenario(21);
  const RunTrace trace = drive_scenario(s);
  EXPECT_TRUE(trace.liveness_failures.empty()) << seed_text(s);
  EXPECT_FALSE(trace.time_limit_reached) << seed_text(s);
  EXPECT_TRUE(trace.instance_errors.empty())
      << seed_text(s) << " " << (trace.instance_errors.empty() ? "" : trace.instance_errors[0]);

  std::map<QueryRecord::Source, int32_t> by_source;
  for (const QueryRecord& r : trace.history.records()) ++by_source[r.source];
  EXPECT_GT(by_source[QueryRecord::Source::kClient], 200) << seed_text(s);
  EXPECT_GE(by_source[QueryRecord::Source::kLiveness], 4) << seed_text(s);
  EXPECT_EQ(by_source[QueryRecord::Source::kScripted], 0) << seed_text(s);

  ASSERT_GE(trace.faults.size(), 2u) << seed_text(s);
  EXPECT_EQ(trace.faults[0].to_string(), "@10000 crash instance-2 (test 0 workload 2)")
      << seed_text(s);
  EXPECT_EQ(trace.faults[1].to_string(), "@18000 restart instance-2 (test 0 workload 2: undo)")
      << seed_text(s);
  for (size_t i = 2; i < trace.faults.size(); ++i)
    EXPECT_EQ(trace.faults[i].detail, "liveness") << seed_text(s) << trace.faults[i].to_string();

  // Lag samples every second from every running instance, each beside the observer's replica.
  ASSERT_GT(trace.lags.size(), 100u) << seed_text(s);
  std::set<std::string> sampled;
  for (const LagRecord& l : trace.lags) {
    EXPECT_EQ(l.at_ms.ms_since_epoch() % 1'000, 0) << seed_text(s);
    EXPECT_EQ(l.store, "counts") << seed_text(s);
    EXPECT_EQ(l.actual.instance, l.instance) << seed_text(s);
    EXPECT_EQ(l.actual.partition, l.partition) << seed_text(s);
    EXPECT_NE(l.actual.role, ReplicaRole::kNone) << seed_text(s) << " " << l.actual.to_string();
    sampled.insert(l.instance);
    if (l.instance == "instance-2") {
      EXPECT_FALSE(l.at_ms > instant(10'000) && l.at_ms < instant(18'000))
          << seed_text(s) << " sample of a dead "
          << "instance at " << l.at_ms;
    }
  }
  EXPECT_EQ(sampled.size(), 3u) << seed_text(s);

  // Liveness: every partition answered a query bounded by everything produced.
  ASSERT_TRUE(trace.liveness.has_value()) << seed_text(s);
  EXPECT_EQ(trace.liveness->faults_stopped_ms, instant(30'000)) << seed_text(s);
  EXPECT_EQ(trace.liveness->timeout_ms, base::Duration::millis(60'000)) << seed_text(s);
  ASSERT_EQ(trace.liveness->first_success_ms.size(), 4u) << seed_text(s);
  for (const auto& [p, first] : trace.liveness->first_success_ms) {
    ASSERT_TRUE(first.has_value()) << seed_text(s) << " partition " << p << " never answered";
    EXPECT_GE(*first, instant(30'000)) << seed_text(s);
    EXPECT_LE(*first, instant(90'000)) << seed_text(s);
  }

  // The source log is what the producer wrote: 2 400 records of value 1, keys in [0, 16), each on
  // its key's partition, offsets contiguous from 0 per partition, stamped within [1 s, 25 s).
  ASSERT_EQ(trace.source_log.size(), 2'400u) << seed_text(s);
  std::map<int32_t, int64_t> next_offset;
  int64_t bound_total = 0;
  for (const auto& [topic, partitions] : trace.liveness->bound.map()) {
    for (const auto& [p, offset] : partitions) bound_total += offset + 1;
  }
  EXPECT_EQ(bound_total, 2'400) << seed_text(s) << " " << trace.liveness->bound.to_string();
  for (const SourceLogRecord& r : trace.source_log) {
    EXPECT_EQ(r.value, std::optional<int64_t>(1)) << seed_text(s);
    EXPECT_TRUE(r.key >= 0 && r.key < 16) << seed_text(s);
    EXPECT_EQ(r.partition, partition_for_key(Serde<int32_t>::serialize(r.key).view(), 4))
        << seed_text(s);
    EXPECT_EQ(r.offset, SourceOffset(next_offset[r.partition]++)) << seed_text(s);
    EXPECT_TRUE(r.timestamp_ms >= 1'000 && r.timestamp_ms < 25'000) << seed_text(s);
  }
  EXPECT_GT(trace.events, 0u) << seed_text(s);
  EXPECT_EQ(trace.digest.size(), 16u) << seed_text(s);
}

// Proves a run is a function of its scenario and seed: the same scenario twice gives the same
// digest, history, faults and lags; another seed gives another digest and history.
TEST(ScenarioDriverTest, SameSeedSameTraceOtherSeedOtherTrace) {
  Scenario s = timed_scenario(31);
  s.tests[0].duration_ms = 20'000;
  std::get<ProducerWorkloadSpec>(s.tests[0].workloads[0]).config.stop_ms = 15'000;
  s.cluster.link = LinkConfig{.delay_ms_min = 1, .delay_ms_max = 20};
  const RunTrace a = drive_scenario(s);
  const RunTrace b = drive_scenario(s);
  EXPECT_EQ(a.digest, b.digest) << seed_text(s);
  EXPECT_EQ(a.events, b.events) << seed_text(s);
  EXPECT_EQ(a.history.to_string(), b.history.to_string()) << seed_text(s);
  ASSERT_EQ(a.faults.size(), b.faults.size()) << seed_text(s);
  for (size_t i = 0; i < a.faults.size(); ++i)
    EXPECT_EQ(a.faults[i].to_string(), b.faults[i].to_string()) << seed_text(s);
  EXPECT_EQ(a.lags.size(), b.lags.size()) << seed_text(s);
  EXPECT_EQ(a.source_log, b.source_log) << seed_text(s);
  EXPECT_GT(a.history.size(), 100u) << seed_text(s);

  Scenario other = s;
  other.seed = 32;
  const RunTrace c = drive_scenario(other);
  EXPECT_NE(a.digest, c.digest) << seed_text(s) << " vs " << seed_text(other);
  EXPECT_NE(a.history.to_string(), c.history.to_string())
      << seed_text(s) << " vs " << seed_text(other);
}

// Proves the trace keeps each changelog as it was appended when the broker's log cleaner compacts
// it: every offset from 0 to the end holds a record (those the cleaner removed included, each
// once), so the changelog is whole and the witness can fold any prefix a replica applied.
TEST(ScenarioDriverTest, CompactedChangelogIsRecordedAsAppended) {
  Scenario s = timed_scenario(41);
  s.cluster.broker.cleaner.enable = true;
  s.cluster.broker.cleaner.backoff_ms = 1'000;
  s.cluster.broker.topic_defaults.segment_bytes = 2'000;
  const RunTrace t = drive_scenario(s);
  ASSERT_TRUE(std::find(t.probes_hit.begin(), t.probes_hit.end(), "log_cleaner.cleaned") !=
              t.probes_hit.end())
      << seed_text(s) << ": the cleaner never compacted, so this test shows nothing";
  EXPECT_FALSE(t.changelog_compacted) << seed_text(s);
  EXPECT_EQ(t.changelog_dropped, 0u) << seed_text(s);
  std::map<int32_t, int64_t> next;  // the offset each partition's next record must have
  for (const ChangelogRecord& r : t.changelog) {
    EXPECT_EQ(r.offset.value(), next[r.partition])
        << seed_text(s) << " changelog-" << r.partition << " has a gap or a repeat";
    next[r.partition] = r.offset.value() + 1;
  }
  EXPECT_EQ(next.size(), 4u) << seed_text(s);
}

// Proves that under exactly_once_v2 the trace keeps the changelog whole with its transactions:
// every offset holds a record or a marker, every record is transactional with the outcome the
// broker's markers gave it, and a crash inside a run leaves aborted records (the crashed
// instance's open transaction, aborted when it comes back) that a read_committed reader skips.
TEST(ScenarioDriverTest, ExactlyOnceChangelogRecordsEachTransactionsOutcome) {
  Scenario s = timed_scenario(43);
  s.cluster.streams.processing_guarantee = ProcessingGuarantee::EXACTLY_ONCE_V2;
  s.cluster.streams.commit_interval_ms = 1'000;
  s.cluster.streams.statestore_cache_max_bytes = 0;  // writes reach the changelog as they happen
  const RunTrace t = drive_scenario(s);
  // Records and markers together fill every offset below each partition's end.
  EXPECT_FALSE(t.changelog_compacted) << seed_text(s);
  EXPECT_GT(t.changelog_markers, 0u) << seed_text(s);
  std::map<TxnOutcome, int64_t> outcomes;
  for (const ChangelogRecord& r : t.changelog) {
    ++outcomes[r.txn];
    ASSERT_NE(r.txn, TxnOutcome::kNone) << seed_text(s) << " changelog-" << r.partition << " "
                                        << r.offset.value() << " is not transactional";
    if (r.txn == TxnOutcome::kOpen) continue;
    ASSERT_TRUE(r.decided_ms.has_value()) << seed_text(s);
    EXPECT_GE(*r.decided_ms, r.appended_ms) << seed_text(s) << " offset " << r.offset.value();
  }
  EXPECT_GT(outcomes[TxnOutcome::kCommitted], 0) << seed_text(s);
  EXPECT_GT(outcomes[TxnOutcome::kAborted], 0)
      << seed_text(s) << ": the crash aborted nothing, so this test shows nothing";
}

// Proves InternalTopologyBuilder.rewriteTopology's rule: under statestore.cache.max.bytes = 0
// KafkaStreams builds the store without its caching layer, whatever Materialized asked, and the
// trace the judge reads says so (its models then read the store, not a record cache); with a
// cache of one byte the layer stays.
TEST(ScenarioDriverTest, ACacheOfZeroBytesBuildsNoCachingLayer) {
  Scenario s = timed_scenario(44);
  s.cluster.topology.caching = true;
  s.cluster.streams.statestore_cache_max_bytes = 0;
  EXPECT_FALSE(drive_scenario(s).topology.caching) << seed_text(s);
  EXPECT_FALSE(rewrite_topology(s.cluster.topology, s.cluster.streams).cached()) << seed_text(s);
  s.cluster.streams.statestore_cache_max_bytes = 1;
  EXPECT_TRUE(rewrite_topology(s.cluster.topology, s.cluster.streams).cached()) << seed_text(s);
}

// Proves that a run_until quiescent that cannot be reached within ms_max (the group's first join
// phase alone waits group.initial.rebalance.delay.ms = 3 s) is recorded as a liveness failure at
// its deadline, and the run goes on.
TEST(ScenarioDriverTest, QuiescenceNotReachedInMsMaxIsRecorded) {
  Scenario s = kafka_store_scenario(13);
  TestSpec test;
  test.title = "TooShort";
  test.steps.push_back(store_10());
  test.steps.push_back(RunUntilStep{.quiescent = true, .ms_max = 500});
  test.steps.push_back(RunUntilStep{.quiescent = true, .ms_max = 60'000});
  s.tests.push_back(test);
  const RunTrace trace = drive_scenario(s);
  ASSERT_EQ(trace.liveness_failures.size(), 1u) << seed_text(s);
  EXPECT_EQ(trace.liveness_failures[0].at_ms, instant(500)) << seed_text(s);
  EXPECT_NE(trace.liveness_failures[0].what.find("run_until quiescent: not quiescent after 500 ms"),
            std::string::npos)
      << seed_text(s) << " " << trace.liveness_failures[0].what;
  EXPECT_GT(trace.end_ms, instant(3'000)) << seed_text(s) << ": the second wait reached quiescence";
  EXPECT_LT(trace.end_ms, instant(60'500)) << seed_text(s);
}

// Proves a query before start() answers StreamsNotStartedException (IQv2IntegrationTest) and, once
// a start step started the instance and it is quiescent, the same query succeeds.
TEST(ScenarioDriverTest, QueryBeforeStartIsStreamsNotStarted) {
  Scenario s = kafka_store_scenario(14);
  s.start_instances = false;
  TestSpec test;
  test.steps.push_back(store_10());
  QueryStep before = query(QueryKind::KeyQuery, 1);
  before.key = 2;
  before.expect_error = "StreamsNotStartedException";
  test.steps.push_back(before);
  test.steps.push_back(FaultStep{.action = FaultAction::kStart, .instance = 1});
  test.steps.push_back(RunUntilStep{.quiescent = true, .ms_max = 60'000});
  QueryStep after = query(QueryKind::KeyQuery, 2);
  after.key = 2;
  test.steps.push_back(after);
  s.tests.push_back(test);
  const RunTrace trace = drive_scenario(s);
  ASSERT_TRUE(trace.liveness_failures.empty()) << seed_text(s);
  ASSERT_EQ(trace.history.size(), 2u) << seed_text(s);
  const QueryRecord& first = trace.history.records()[0];
  EXPECT_EQ(first.invoke_ms, instant(0)) << seed_text(s);
  ASSERT_EQ(first.outcome, OutcomeKind::kStreamsError) << seed_text(s) << " " << first.to_string();
  EXPECT_EQ(first.error->kind, StreamsError::Kind::StreamsNotStarted) << seed_text(s);
  EXPECT_EQ(trace.expectations[0].error, "StreamsNotStartedException") << seed_text(s);
  const QueryRecord& second = trace.history.records()[1];
  ASSERT_EQ(second.outcome, OutcomeKind::kAnswered) << seed_text(s) << " " << second.to_string();
  EXPECT_EQ(partition_of(second, 0).value, ResultValue(std::optional<int64_t>(5))) << seed_text(s);
  ASSERT_EQ(trace.faults.size(), 1u) << seed_text(s);
  EXPECT_EQ(trace.faults[0].to_string(), "@0 start instance-1 (test 0 step 2)") << seed_text(s);
}

// Proves the run stops at virtual_time_ms_max: the flag is set, nothing runs past it, and the
// liveness phase is skipped.
TEST(ScenarioDriverTest, VirtualTimeLimitStopsTheRun) {
  Scenario s = timed_scenario(15);
  s.virtual_time_ms_max = 5'000;
  const RunTrace trace = drive_scenario(s);
  EXPECT_TRUE(trace.time_limit_reached) << seed_text(s);
  EXPECT_EQ(trace.end_ms, instant(5'000)) << seed_text(s);
  EXPECT_FALSE(trace.liveness.has_value()) << seed_text(s);
  ASSERT_EQ(trace.phases.size(), 1u) << seed_text(s);
  EXPECT_EQ(trace.phases[0].end_ms, instant(5'000)) << seed_text(s);
  for (const QueryRecord& r : trace.history.records()) EXPECT_LE(r.complete_ms, instant(5'000));
}

// Bounds a scenario sets (history_records_max, broker_records_max,
// coordinator_pending_outputs_max) end the run with a verdict naming the knob when reached, where
// they used to abort the process; a Producer's records_max and retry_attempts up to the
// documented 100 just run.
TEST(ScenarioDriverTest, ReachedKnobBoundsEndTheRunWithAVerdict) {
  struct Case {
    const char* knob;
    void (*set)(Scenario&);
  };
  const Case cases[] = {
      {"history_records_max", [](Scenario& s) { s.knobs.history_records_max = 50; }},
      {"broker_records_max", [](Scenario& s) { s.cluster.broker.max_total_records = 300; }},
      {"coordinator_pending_outputs_max",
       [](Scenario& s) { s.cluster.broker.coordinator.max_pending_outputs = 1; }},
  };
  for (const Case& c : cases) {
    Scenario s = timed_scenario(33);
    c.set(s);
    const RunTrace trace = drive_scenario(s);
    const std::string prefix = std::string("knob ") + c.knob + " = ";
    EXPECT_EQ(trace.bound_reached.rfind(prefix, 0), 0u)
        << seed_text(s) << ": " << trace.bound_reached;
    EXPECT_NE(trace.bound_reached.find(" ms"), std::string::npos) << trace.bound_reached;
    EXPECT_LT(trace.end_ms, instant(30'000)) << seed_text(s) << " " << c.knob;
    EXPECT_FALSE(trace.liveness.has_value()) << seed_text(s) << " " << c.knob;
  }
  Scenario s = timed_scenario(34);
  std::get<ProducerWorkloadSpec>(s.tests[0].workloads[0]).config.records_max = 20;
  auto& q = std::get<QueryClientsWorkloadSpec>(s.tests[0].workloads[1]).config;
  q.retry.attempts_max = 100;
  q.bound_modes = {BoundMode::kProduced};
  const RunTrace trace = drive_scenario(s);
  EXPECT_EQ(trace.bound_reached, "") << seed_text(s);
  EXPECT_EQ(trace.source_log.size(), 20u) << seed_text(s);
}

// Replays the fault list: which instances are down (crashed, closed, paused or isolated) after
// each applied fault; returns the most at once and leaves the last state in `down`.
int32_t max_down(const std::vector<FaultRecord>& faults, std::string& log,
                 std::set<std::string>& down) {
  size_t most = 0;
  for (const FaultRecord& f : faults) {
    log += f.to_string() + "\n";
    // A skipped fault is typed as such and says why in its detail.
    EXPECT_EQ(!f.applied, f.detail.find("skipped") != std::string::npos) << f.to_string();
    if (f.stopped() || f.cut_off()) down.insert(f.instance);
    if (f.started() || f.reconnected()) down.erase(f.instance);
    most = std::max(most, down.size());
  }
  return static_cast<int32_t>(most);
}

// Proves random faults (attrition) are seeded, recorded, undone, never more than max_down at
// once and never a removal, and that the liveness phase brings every partition back.
TEST(ScenarioDriverTest, RandomFaultsStayWithinMaxDownAndLivenessRecovers) {
  Scenario s = timed_scenario(47);
  TestSpec& test = s.tests[0];
  test.workloads.pop_back();  // no scheduled crash
  // With the switch off, an active restored from the changelog has an empty position until new
  // records arrive (docs/iqv2-semantics.md §8), so once the producer stopped a probe bounded by
  // everything produced can never succeed on it (seed 47 shows it on partitions 0 and 3).
  s.cluster.streams.consistency_offset_vector_enabled = true;
  test.workloads.push_back(RandomFaultsWorkloadSpec{.start_ms = 2'000,
                                                    .stop_ms = 29'500,
                                                    .interval_ms = 1'000,
                                                    .crash_odds = {1, 3},
                                                    .pause_odds = {1, 3},
                                                    .isolate_odds = {1, 3},
                                                    .close_odds = {1, 2},
                                                    .undo_ms_min = 500,
                                                    .undo_ms_max = 12'000,
                                                    .max_down = 1});
  const RunTrace trace = drive_scenario(s);
  std::string log;
  std::set<std::string> down;
  EXPECT_LE(max_down(trace.faults, log, down), 1) << seed_text(s) << "\n" << log;
  // After the liveness phase healed everything, nothing is left down.
  EXPECT_TRUE(down.empty()) << seed_text(s) << "\n" << log;
  int32_t random = 0;
  int32_t healed = 0;
  for (const FaultRecord& f : trace.faults) {
    EXPECT_NE(f.kind, FaultKind::kRemoveInstance) << seed_text(s);
    random += f.detail == "random-faults" ? 1 : 0;
    healed += f.detail == "liveness" ? 1 : 0;
  }
  EXPECT_GE(random, 4) << seed_text(s) << "\n" << log;
  // With this seed a fault is still down when the phase ends at 30 s: its pending undo is
  // cancelled and the liveness phase undoes it instead.
  EXPECT_EQ(healed, 1) << seed_text(s) << "\n" << log;
  ASSERT_TRUE(trace.liveness.has_value()) << seed_text(s);
  for (const auto& [p, first] : trace.liveness->first_success_ms)
    EXPECT_TRUE(first.has_value()) << seed_text(s) << " partition " << p << "\n" << log;

  const RunTrace again = drive_scenario(s);
  EXPECT_EQ(again.digest, trace.digest) << seed_text(s);
  std::string log_again;
  std::set<std::string> down_again;
  (void)max_down(again.faults, log_again, down_again);
  EXPECT_EQ(log_again, log) << seed_text(s);
}

// Proves a long outage is drawn at most once, lasts its drawn length whatever the phase's
// duration (the phase runs on until it is undone, so the liveness phase does not heal it early),
// and is recorded with its own detail.
TEST(ScenarioDriverTest, LongOutageRunsPastThePhaseAndIsUndoneByItsOwnUndo) {
  Scenario s = timed_scenario(47);
  TestSpec& test = s.tests[0];
  test.workloads.pop_back();  // no scheduled crash
  s.cluster.streams.consistency_offset_vector_enabled = true;
  test.workloads.push_back(RandomFaultsWorkloadSpec{.start_ms = 2'000,
                                                    .stop_ms = 29'500,
                                                    .interval_ms = 1'000,
                                                    .crash_odds = {0, 1},
                                                    .pause_odds = {0, 1},
                                                    .isolate_odds = {0, 1},
                                                    .close_odds = {0, 1},
                                                    .max_down = 1,
                                                    .long_outage_odds = {1, 1},
                                                    .long_outage_ms_min = 50'000,
                                                    .long_outage_ms_max = 60'000});
  const RunTrace trace = drive_scenario(s);
  std::vector<const FaultRecord*> outages;
  std::vector<const FaultRecord*> undos;
  for (const FaultRecord& f : trace.faults) {
    if (f.detail == "random-faults: long outage") outages.push_back(&f);
    if (f.detail == "random-faults: long outage: undo") undos.push_back(&f);
  }
  ASSERT_EQ(outages.size(), 1u) << seed_text(s);
  ASSERT_EQ(undos.size(), 1u) << seed_text(s);
  EXPECT_TRUE(outages[0]->is(FaultKind::kPause) || outages[0]->is(FaultKind::kIsolate))
      << outages[0]->to_string();
  const int64_t lasted = undos[0]->at_ms.ms_since_epoch() - outages[0]->at_ms.ms_since_epoch();
  EXPECT_GE(lasted, 50'000) << seed_text(s);
  EXPECT_LE(lasted, 60'000) << seed_text(s);
  ASSERT_TRUE(trace.liveness.has_value()) << seed_text(s);
  EXPECT_GE(trace.liveness->faults_stopped_ms, undos[0]->at_ms) << seed_text(s);
  for (const auto& [p, first] : trace.liveness->first_success_ms)
    EXPECT_TRUE(first.has_value()) << seed_text(s) << " partition " << p;
}

// Proves a storage error armed by the random faults fails a key query's disk read, which the
// query answers STORE_EXCEPTION for that partition, and that both the arming and the landing are
// recorded as faults (arm_read_error, read_error, naming the file).
TEST(ScenarioDriverTest, ReadErrorInsideAKeyQueryAnswersStoreException) {
  Scenario s = timed_scenario(47);
  TestSpec& test = s.tests[0];
  test.workloads.pop_back();  // no scheduled crash
  s.cluster.streams.consistency_offset_vector_enabled = true;
  s.cluster.streams.statestore_cache_max_bytes = 0;
  s.cluster.topology.caching = false;
  // The smallest memtable (1 KiB), so table files exist for a read to fail on: a commit flushes
  // no store. At 4 KiB, since the consumer loop runs as Kafka's (issue 28), the four keys of a
  // partition all sat in the memtable whenever this seed's queries read them, and no armed read
  // error landed.
  s.cluster.streams.rocksdb_write_buffer_size = 1024;
  test.workloads.push_back(RandomFaultsWorkloadSpec{.start_ms = 2'000,
                                                    .stop_ms = 29'500,
                                                    .interval_ms = 1'000,
                                                    .crash_odds = {0, 1},
                                                    .pause_odds = {0, 1},
                                                    .isolate_odds = {0, 1},
                                                    .close_odds = {0, 1},
                                                    .max_down = 1,
                                                    .read_error_odds = {1, 1}});
  const RunTrace trace = drive_scenario(s);
  int armed = 0;
  int landed = 0;
  for (const FaultRecord& f : trace.faults) {
    armed += f.kind == FaultKind::kReadErrorArmed ? 1 : 0;
    if (f.kind == FaultKind::kReadErrorLanded) {
      ++landed;
      EXPECT_NE(f.detail.find("key_query"), std::string::npos) << f.to_string();
    }
  }
  EXPECT_GE(armed, 1) << seed_text(s);
  EXPECT_GE(landed, 1) << seed_text(s);
  int store_exceptions = 0;
  for (const QueryRecord& r : trace.history.records()) {
    for (const PartitionOutcome& o : r.partitions) {
      store_exceptions += o.failure_reason == FailureReason::STORE_EXCEPTION ? 1 : 0;
    }
  }
  EXPECT_GE(store_exceptions, 1) << seed_text(s);
  EXPECT_LE(store_exceptions, landed) << seed_text(s);
}

// Proves a crash that lands inside an operation is recorded with its landing as fields (the
// event, the path, the operations in progress and the crash points), that the same seed records
// the same landing again (replay), and that the end-of-run audit reads every replica the live
// instances host, standbys included, once every partition answered (source kAudit).
TEST(ScenarioDriverTest, CrashLandingIsRecordedAsFieldsAndTheAuditReadsEveryReplica) {
  Scenario s = timed_scenario(53);
  s.cluster.streams.offset_delta_threshold_for_checkpoint = 0;  // checkpoint on every commit
  s.liveness.audit_replicas = true;
  FaultWorkloadSpec& crash = std::get<FaultWorkloadSpec>(s.tests[0].workloads.back());
  crash.inside = CrashInsideSpec{CrashInsideAt::kDiskOp, 3,
                                 static_cast<uint32_t>(Operation::kWriteCheckpoint), ""};
  const RunTrace trace = drive_scenario(s);
  const FaultRecord* landed = nullptr;
  for (const FaultRecord& f : trace.faults) {
    if (f.is(FaultKind::kCrashLanded)) landed = &f;
  }
  ASSERT_NE(landed, nullptr) << seed_text(s);
  // The arming came first as a record of its own kind, no crash; the landing prints as a crash.
  const auto armed = std::find_if(trace.faults.begin(), trace.faults.end(), [&](const auto& f) {
    return f.is(FaultKind::kCrashArmed) && f.instance == landed->instance;
  });
  ASSERT_NE(armed, trace.faults.end()) << seed_text(s);
  EXPECT_FALSE(armed->crashed() || armed->stopped() || armed->landed) << seed_text(s);
  EXPECT_LT(armed->at_ms, landed->at_ms) << seed_text(s);
  EXPECT_TRUE(landed->crashed() && landed->stopped()) << seed_text(s);
  EXPECT_EQ(landed->to_string().substr(landed->to_string().find(' ') + 1, 6), "crash ")
      << landed->to_string();
  const CrashPointRecord& l = *landed->landed;
  EXPECT_EQ(l.event, "disk") << seed_text(s);
  EXPECT_TRUE(l.has_point("position_checkpoint")) << seed_text(s) << " " << landed->to_string();
  EXPECT_FALSE(l.has_point("cleaner")) << seed_text(s);
  EXPECT_NE(std::find(l.operations.begin(), l.operations.end(), "write_checkpoint"),
            l.operations.end())
      << seed_text(s);
  // The path names the task's .checkpoint, and the detail says the same in words.
  EXPECT_NE(l.path.find("/.checkpoint"), std::string::npos) << seed_text(s) << " " << l.path;
  EXPECT_NE(landed->detail.find(l.what), std::string::npos) << seed_text(s);
  const std::string task = l.path.substr(0, l.path.rfind('/'));
  EXPECT_TRUE(l.on_task_file(task.substr(task.rfind('/') + 1), ".checkpoint")) << seed_text(s);
  EXPECT_FALSE(l.on_task_file("9_9", ".checkpoint")) << seed_text(s);
  EXPECT_FALSE(l.on_task_file(task.substr(task.rfind('/') + 1), ".position")) << seed_text(s);

  const RunTrace again = drive_scenario(s);
  EXPECT_EQ(again.faults, trace.faults) << seed_text(s);

  std::set<std::pair<std::string, int32_t>> audited;
  for (const QueryRecord& r : trace.history.records()) {
    if (r.source != QueryRecord::Source::kAudit) continue;
    ASSERT_TRUE(r.request.partitions.has_value()) << seed_text(s);
    audited.insert({r.target_instance, *r.request.partitions->begin()});
    EXPECT_EQ(r.request.kind, QueryKind::RangeQuery) << seed_text(s);
  }
  ASSERT_TRUE(trace.liveness.has_value()) << seed_text(s);
  // Every partition has an active and a standby (num_standby_replicas 1, three instances up).
  for (const auto& [p, first] : trace.liveness->first_success_ms) {
    ASSERT_TRUE(first.has_value()) << seed_text(s) << " partition " << p;
    int32_t replicas = 0;
    for (const auto& [instance, partition] : audited) replicas += partition == p ? 1 : 0;
    EXPECT_GE(replicas, 2) << seed_text(s) << " partition " << p;
  }
}

}  // namespace
}  // namespace iq::sim
