// Workload tests: the producer's acknowledged positions, and query clients routing through
// KeyQueryMetadata over the simulated network into a History, on a Count topology.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "cluster/cluster_test_utils.h"
#include "trace/history.h"
#include "workload/producer_workload.h"
#include "workload/query_client_workload.h"

namespace iq::sim {
namespace {

using namespace testing_utils;  // NOLINT: shared test helpers

QueryClientConfig client_config(int32_t clients, int64_t start_ms, int64_t stop_ms) {
  QueryClientConfig q;
  q.clients = clients;
  q.start_ms = start_ms;
  q.stop_ms = stop_ms;
  q.keys = 20;
  return q;
}

base::Prng world(const Cluster& cluster) {
  return base::Prng(cluster.config().seed);
}

// The value a KeyQuery must see for `key` once everything produced is processed.
std::optional<int64_t> expected_count(const ProducerWorkload& producer, int32_t key) {
  auto it = producer.count_per_key().find(key);
  if (it == producer.count_per_key().end()) return std::nullopt;
  return it->second;
}

// Proves the producer's acknowledged position is, per partition, the broker's end offset - 1, and
// that explicit records land on the partition asked for.
TEST(ProducerWorkloadTest, AcknowledgedPositionMatchesBrokerEndOffsets) {
  Cluster cluster(count_config(41, 0, 4));
  ProducerWorkload producer(cluster,
                            {.start_ms = 100,
                             .stop_ms = 2'100,
                             .records_per_second = 250,
                             .keys = 50,
                             .distribution = KeyDistribution::kSkewed},
                            world(cluster).split("producer"));
  producer.start();
  ASSERT_EQ(cluster.run_until(3'000).stop, RunStop::kTimeReached) << cluster.seed_text();
  EXPECT_EQ(producer.records_produced(), 500u) << cluster.seed_text();
  const int64_t exact_offset = producer.produce_exact(3, 7, 1, kNoTimestamp);
  int64_t total = 0;
  for (int32_t p = 0; p < 4; ++p) {
    const int64_t end = *cluster.broker().broker().end_offset({"words", p});
    total += end;
    const int64_t* ack = producer.acknowledged().offset("words", p);
    ASSERT_NE(ack, nullptr) << cluster.seed_text() << " partition " << p;
    EXPECT_EQ(*ack, end - 1) << cluster.seed_text() << " partition " << p;
  }
  EXPECT_EQ(exact_offset, *producer.acknowledged().offset("words", 3)) << cluster.seed_text();
  EXPECT_EQ(static_cast<uint64_t>(total), producer.records_produced()) << cluster.seed_text();
  // Skewed keys: the lowest key is drawn far more often than the highest.
  EXPECT_GT(producer.count_per_key().at(0), 5 * expected_count(producer, 49).value_or(0))
      << cluster.seed_text();
}

// Proves that once the producer stopped and the cluster is quiet, every successful KeyQuery and
// RangeQuery answer equals the number of records produced for its keys.
TEST(QueryClientWorkloadTest, AnswersEqualProducedCountsOnceQuiet) {
  Cluster cluster(count_config(42, 2, 4));
  cluster.start_all();
  History history(10'000);
  ProducerWorkload producer(cluster, {.start_ms = 1'000, .stop_ms = 6'000, .keys = 20},
                            world(cluster).split("producer"));
  QueryClientWorkload clients(cluster, history, client_config(3, 20'000, 30'000),
                              world(cluster).split("query-clients"), &producer);
  producer.start();
  clients.start();
  ASSERT_EQ(cluster.run_until(40'000).stop, RunStop::kTimeReached) << cluster.seed_text();
  int key_answers = 0;
  int range_answers = 0;
  int timestamped_answers = 0;
  for (const QueryRecord& r : history.records()) {
    ASSERT_EQ(r.outcome, OutcomeKind::kAnswered) << cluster.seed_text() << " " << r.to_string();
    const PartitionOutcome* only = r.only_partition();
    ASSERT_NE(only, nullptr) << cluster.seed_text() << " " << r.to_string();
    ASSERT_TRUE(only->success) << cluster.seed_text() << " " << r.to_string();
    const bool timestamped = r.request.query.find("Timestamped") != std::string::npos;
    if (timestamped) ++timestamped_answers;
    // The Timestamped* queries carry the aggregate's timestamp: the newest record's, which the
    // producer stamped between its start and stop.
    for (int64_t ts : only->timestamps) {
      EXPECT_GE(ts, 1'000) << cluster.seed_text() << " " << r.to_string();
      EXPECT_LE(ts, 6'000) << cluster.seed_text() << " " << r.to_string();
    }
    if (const auto* v = std::get_if<std::optional<int64_t>>(&only->value)) {
      ++key_answers;
      EXPECT_EQ(*v, expected_count(producer, *r.request.key))
          << cluster.seed_text() << " " << r.to_string();
      EXPECT_EQ(only->timestamps.size(), timestamped && v->has_value() ? 1u : 0u) << r.to_string();
    } else {
      ++range_answers;
      const auto& entries = std::get<KeyValueList>(only->value);
      for (const auto& [k, v2] : entries) {
        EXPECT_EQ(std::optional<int64_t>(v2), expected_count(producer, k))
            << cluster.seed_text() << " " << r.to_string();
      }
      EXPECT_EQ(only->timestamps.size(), timestamped ? entries.size() : 0u) << r.to_string();
    }
  }
  EXPECT_GT(key_answers, 50) << cluster.seed_text();
  EXPECT_GT(range_answers, 10) << cluster.seed_text();
  EXPECT_GT(timestamped_answers, 20)
      << cluster.seed_text() << ": all four query types should occur";
  EXPECT_LT(timestamped_answers, key_answers + range_answers) << cluster.seed_text();
}

// True if every component of `earlier` is present in `later` at an offset at least as high.
bool covers(const Position& later, const Position& earlier) {
  for (const auto& [topic, partitions] : earlier.map()) {
    for (const auto& [partition, offset] : partitions) {
      const int64_t* o = later.offset(topic, partition);
      if (o == nullptr || *o < offset) return false;
    }
  }
  return true;
}

// Proves a client's session bound never goes backwards while the producer keeps writing.
TEST(QueryClientWorkloadTest, SessionBoundsNeverGoBackwards) {
  ClusterConfig config = count_config(43, 2, 4);
  config.link = LinkConfig{.delay_ms_min = 1, .delay_ms_max = 20};
  Cluster cluster(config);
  cluster.start_all();
  History history(10'000);
  ProducerWorkload producer(cluster, {.start_ms = 1'000, .stop_ms = 30'000, .keys = 20},
                            world(cluster).split("producer"));
  QueryClientConfig q = client_config(2, 5'000, 30'000);
  q.interval_ms = 50;
  q.bound_modes = {BoundMode::kSession};
  // Session bounds on requireActive queries too (the default drops them, as Kafka does: quirk 3).
  q.require_active_bounded = true;
  QueryClientWorkload clients(cluster, history, q, world(cluster).split("query-clients"),
                              &producer);
  producer.start();
  clients.start();
  ASSERT_EQ(cluster.run_until(35'000).stop, RunStop::kTimeReached) << cluster.seed_text();
  std::map<int32_t, Position> last;
  int non_empty = 0;
  for (const QueryRecord& r : history.records()) {
    auto [it, first] = last.try_emplace(r.client, Position::empty_position());
    EXPECT_TRUE(covers(r.request.bound, it->second))
        << cluster.seed_text() << " client " << r.client << " went from " << it->second.to_string()
        << " to " << r.to_string();
    it->second = r.request.bound;
    non_empty += r.request.bound.is_empty() ? 0 : 1;
  }
  EXPECT_GT(non_empty, 100) << cluster.seed_text();
  for (int32_t c = 0; c < 2; ++c) {
    EXPECT_TRUE(covers(clients.session_position(c), last.at(c))) << cluster.seed_text();
  }
}

// Proves that a require_active query a client routes to a standby host fails with NOT_ACTIVE.
TEST(QueryClientWorkloadTest, RequireActiveOnStandbyIsNotActive) {
  ClusterConfig config = count_config(44, 2, 4);
  config.streams.assignment.num_standby_replicas = 1;
  Cluster cluster(config);
  cluster.start_all();
  History history(10'000);
  QueryClientConfig q = client_config(2, 20'000, 25'000);
  q.require_active_odds = {1, 1};
  q.standby_odds = {1, 1};
  q.bound_modes = {BoundMode::kUnbounded};
  q.retry.attempts_max = 1;
  QueryClientWorkload clients(cluster, history, q, world(cluster).split("query-clients"), nullptr);
  clients.start();
  ASSERT_EQ(cluster.run_until(26'000).stop, RunStop::kTimeReached) << cluster.seed_text();
  int standby_answers = 0;
  for (const QueryRecord& r : history.records()) {
    ASSERT_TRUE(r.to_standby) << cluster.seed_text() << " " << r.to_string();
    ASSERT_EQ(r.outcome, OutcomeKind::kAnswered) << cluster.seed_text() << " " << r.to_string();
    ASSERT_NE(r.only_partition(), nullptr) << cluster.seed_text() << " " << r.to_string();
    EXPECT_EQ(r.only_partition()->failure_reason, FailureReason::NOT_ACTIVE)
        << cluster.seed_text() << " " << r.to_string();
    ++standby_answers;
  }
  EXPECT_GT(standby_answers, 50) << cluster.seed_text();
}

// Runs producer and clients over a 2-instance, 1-standby cluster with network delays and a crash
// of instance-2, and returns the history's text.
std::string scenario_history(uint64_t seed) {
  ClusterConfig config = count_config(seed, 2, 4);
  config.link = LinkConfig{.delay_ms_min = 1, .delay_ms_max = 20};
  config.streams.assignment.num_standby_replicas = 1;
  Cluster cluster(config);
  cluster.start_all();
  History history(20'000);
  ProducerWorkload producer(cluster, {.start_ms = 1'000, .stop_ms = 40'000, .keys = 20},
                            world(cluster).split("producer"));
  QueryClientWorkload clients(cluster, history, client_config(2, 2'000, 40'000),
                              world(cluster).split("query-clients"), &producer);
  producer.start();
  clients.start();
  (void)cluster.run_until(20'000);
  cluster.instance(2).crash();
  (void)cluster.run_until(45'000);
  return history.to_string();
}

// Proves a run's history depends only on its seed: the same seed twice prints the same history,
// another seed another one.
TEST(QueryClientWorkloadTest, SameSeedSameHistory) {
  const std::string a = scenario_history(45);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, scenario_history(45)) << "seed=45 ran twice with different histories";
  EXPECT_NE(a, scenario_history(46)) << "seeds 45 and 46 gave the same history";
  EXPECT_NE(a.find("outcome=timed_out"), std::string::npos) << "seed=45: no query timed out";
}

}  // namespace
}  // namespace iq::sim

namespace iq::sim {
namespace {
// Proves the refused requests the query clients draw reach Kafka's answers: sent without metadata
// to an added instance not started yet they raise StreamsNotStartedException, to one whose client
// was closed StreamsStoppedException (its application still answers), with a store the topology
// does not have UnknownStateStoreException (first, whatever the client's state), and a window
// query against the key-value store answers UNKNOWN_QUERY_TYPE.
TEST(QueryClientWorkloadTest, RefusedRequestsGetKafkasErrors) {
  Cluster cluster(count_config(43, 3, 4));
  cluster.instance(1).start();
  cluster.instance(2).start();
  cluster.instance(3).create();  // added, not started
  History history(10'000);
  QueryClientConfig q = client_config(3, 1'000, 20'000);
  q.direct_odds = {1, 1};
  q.window_query_odds = {1, 3};
  q.unknown_store_odds = {1, 4};
  q.bound_modes = {BoundMode::kUnbounded};
  q.retry.attempts_max = 1;
  QueryClientWorkload clients(cluster, history, q, world(cluster).split("query-clients"),
                              QueryClientWorkload::ProducedBound());
  clients.start();
  ASSERT_EQ(cluster.run_until(10'000).stop, RunStop::kTimeReached) << cluster.seed_text();
  ASSERT_TRUE(cluster.instance(2).close().has_value()) << cluster.seed_text();
  ASSERT_EQ(cluster.run_until(20'000).stop, RunStop::kTimeReached) << cluster.seed_text();
  std::map<std::string, int> seen;
  for (const QueryRecord& r : history.records()) {
    const bool unknown_store = r.request.store != "counts";
    // Closed at 10 s: a query served after it raises; one invoked after it is surely served so.
    const bool closed =
        r.target_instance == "instance-2" &&
        (r.invoke_ms > base::Instant::from_ms(10'000) || r.outcome == OutcomeKind::kStreamsError);
    if (r.outcome == OutcomeKind::kTimedOut) continue;  // lost on a cut or a late reply
    ASSERT_TRUE(r.outcome == OutcomeKind::kAnswered || r.outcome == OutcomeKind::kStreamsError)
        << cluster.seed_text() << " " << r.to_string();
    if (unknown_store) {
      ASSERT_EQ(r.outcome, OutcomeKind::kStreamsError) << cluster.seed_text() << r.to_string();
      EXPECT_EQ(r.error->kind, StreamsError::Kind::UnknownStateStore) << r.to_string();
      EXPECT_EQ(r.request.store, std::string("counts") + QueryClientWorkload::kUnknownStoreSuffix);
      ++seen["unknown store"];
    } else if (r.target_instance == "instance-3") {
      ASSERT_EQ(r.outcome, OutcomeKind::kStreamsError) << cluster.seed_text() << r.to_string();
      EXPECT_EQ(r.error->kind, StreamsError::Kind::StreamsNotStarted) << r.to_string();
      ++seen["not started"];
    } else if (closed) {
      ASSERT_EQ(r.outcome, OutcomeKind::kStreamsError) << cluster.seed_text() << r.to_string();
      EXPECT_EQ(r.error->kind, StreamsError::Kind::StreamsStopped) << r.to_string();
      EXPECT_EQ(r.error->message,
                "KafkaStreams has been stopped (NOT_RUNNING). This instance can no longer serve "
                "queries.");
      ++seen["stopped"];
    } else if (r.request.kind == QueryKind::WindowKeyQuery ||
               r.request.kind == QueryKind::WindowRangeQuery) {
      ASSERT_EQ(r.outcome, OutcomeKind::kAnswered) << cluster.seed_text() << r.to_string();
      for (const PartitionOutcome& p : r.partitions) {
        EXPECT_FALSE(p.success) << cluster.seed_text() << r.to_string();
        if (p.failure_reason == FailureReason::UNKNOWN_QUERY_TYPE) ++seen["unknown query type"];
      }
    }
  }
  for (const char* what : {"unknown store", "not started", "stopped", "unknown query type"}) {
    EXPECT_GT(seen[what], 3) << cluster.seed_text() << ": too few '" << what << "'";
  }
}

// Every record of the source topic, in partition then offset order.
std::vector<ConsumerRecord> source_records(Cluster& cluster) {
  std::vector<ConsumerRecord> out;
  const TopologyConfig& t = cluster.config().topology;
  for (int32_t p = 0; p < t.source_partitions; ++p) {
    auto records = cluster.broker().broker().fetch({t.source_topic, p}, 0, 1'000'000);
    IQ_ASSERT(records.has_value(), "fetch {}-{}", t.source_topic, p);
    out.insert(out.end(), records->begin(), records->end());
  }
  return out;
}

// Proves the producer's event-time draws: with jumps the event time runs ahead of now (and
// Cluster::max_timestamp_ms follows it), records go out of order, never below 0 nor past the
// event time, and tombstones go to an event-time topology but never to a key-value one.
TEST(ProducerWorkloadTest, EventTimeDrawsStampLateJumpedAndTombstoneRecords) {
  for (const TopologyKind kind : {TopologyKind::WindowedCount, TopologyKind::Count}) {
    ClusterConfig config = count_config(44, 0, 3);
    config.topology.kind = kind;
    Cluster cluster(config);
    ProducerWorkload producer(cluster,
                              {.stop_ms = 3'000,
                               .records_per_second = 300,
                               .keys = 10,
                               .out_of_order_odds = {1, 4},
                               .out_of_order_ms_max = 5'000,
                               .stream_time_jump_odds = {1, 50},
                               .stream_time_jump_ms_max = 10'000,
                               .tombstone_odds = {1, 10}},
                              world(cluster).split("producer"));
    producer.start();
    ASSERT_EQ(cluster.run_until(4'000).stop, RunStop::kTimeReached) << cluster.seed_text();
    const std::vector<ConsumerRecord> records = source_records(cluster);
    ASSERT_EQ(records.size(), producer.records_produced()) << cluster.seed_text();
    EXPECT_GT(producer.event_time_offset_ms(), 10'000) << cluster.seed_text() << ": few jumps";
    int64_t max_ts = 0;
    int late = 0;
    int tombstones = 0;
    std::map<int32_t, int64_t> partition_max;
    for (const ConsumerRecord& r : records) {
      EXPECT_GE(r.timestamp, 0) << cluster.seed_text();
      EXPECT_LE(r.timestamp, 3'000 + producer.event_time_offset_ms()) << cluster.seed_text();
      if (partition_max.count(r.partition) == 1 && r.timestamp < partition_max[r.partition]) {
        ++late;
      }
      partition_max[r.partition] = std::max(partition_max[r.partition], r.timestamp);
      max_ts = std::max(max_ts, r.timestamp);
      if (!r.value) ++tombstones;
    }
    EXPECT_EQ(cluster.max_timestamp_ms(), max_ts) << cluster.seed_text();
    EXPECT_GT(max_ts, 4'000) << cluster.seed_text() << ": the event time never ran ahead of now";
    EXPECT_GT(late, 20) << cluster.seed_text() << ": too few records out of order";
    if (kind == TopologyKind::Count) {
      EXPECT_EQ(tombstones, 0) << cluster.seed_text() << ": a key-value topology got tombstones";
    } else {
      EXPECT_GT(tombstones, 20) << cluster.seed_text() << ": too few tombstones";
    }
  }
}

// Proves the window and session query draws: against a window store WindowKeyQuery and
// WindowRangeQuery.withWindowStartRange over recorded window-start ranges inside [0, event time]
// (sorted, or upside down when inverted), successful once the store runs; against a session store
// WindowRangeQuery.withKey, successful; and the forms each store refuses (window_query_odds)
// answer UNKNOWN_QUERY_TYPE.
TEST(QueryClientWorkloadTest, WindowAndSessionStoresGetTheirQueriesOverRandomRanges) {
  for (const TopologyKind kind : {TopologyKind::WindowedCount, TopologyKind::SessionCount}) {
    ClusterConfig config = count_config(45, 2, 4);
    config.topology.kind = kind;
    config.topology.window_size_ms = 1'000;
    config.topology.session_gap_ms = 1'000;
    config.topology.supplier = KeyValueSupplier::kInMemory;
    Cluster cluster(config);
    cluster.start_all();
    History history(20'000);
    ProducerWorkload producer(cluster,
                              {.start_ms = 1'000,
                               .stop_ms = 20'000,
                               .records_per_second = 100,
                               .keys = 20,
                               .stream_time_jump_odds = {1, 100},
                               .stream_time_jump_ms_max = 5'000},
                              world(cluster).split("producer"));
    QueryClientConfig q = client_config(3, 2'000, 25'000);
    q.bound_modes = {BoundMode::kUnbounded};
    q.window_range_odds = {1, 3};
    q.inverted_range_odds = {1, 6};
    q.window_query_odds = {1, 5};
    QueryClientWorkload clients(cluster, history, q, world(cluster).split("query-clients"),
                                &producer);
    producer.start();
    clients.start();
    ASSERT_EQ(cluster.run_until(30'000).stop, RunStop::kTimeReached) << cluster.seed_text();
    std::map<std::string, int> seen;
    for (const QueryRecord& r : history.records()) {
      ASSERT_TRUE(r.request.kind == QueryKind::WindowKeyQuery ||
                  r.request.kind == QueryKind::WindowRangeQuery)
          << cluster.seed_text() << " " << r.to_string();
      const bool by_key = r.request.kind == QueryKind::WindowRangeQuery && !r.request.from_time_ms;
      if (!by_key) {
        ASSERT_TRUE(r.request.from_time_ms && r.request.to_time_ms) << r.to_string();
        EXPECT_GE(std::min(*r.request.from_time_ms, *r.request.to_time_ms), 0) << r.to_string();
        EXPECT_LE(std::max(*r.request.from_time_ms, *r.request.to_time_ms),
                  std::max(r.invoke_ms.ms_since_epoch(), cluster.max_timestamp_ms()))
            << cluster.seed_text() << " " << r.to_string();
        if (*r.request.from_time_ms > *r.request.to_time_ms) ++seen["inverted"];
      }
      const bool refused = kind == TopologyKind::WindowedCount
                               ? by_key
                               : (r.request.kind == QueryKind::WindowKeyQuery || !by_key);
      for (const PartitionOutcome& p : r.partitions) {
        if (refused) {
          EXPECT_FALSE(p.success) << cluster.seed_text() << " " << r.to_string();
          if (p.failure_reason == FailureReason::UNKNOWN_QUERY_TYPE) ++seen["refused"];
        } else if (p.success) {
          ++seen[r.request.kind == QueryKind::WindowKeyQuery ? "key" : "range"];
          const auto* entries = std::get_if<WindowedList>(&p.value);
          ASSERT_NE(entries, nullptr) << cluster.seed_text() << " " << r.to_string();
          if (!entries->empty()) ++seen["entries"];
        }
      }
    }
    std::vector<const char*> wanted{"refused", "range", "entries"};
    if (kind == TopologyKind::WindowedCount) {
      wanted.push_back("key");
      wanted.push_back("inverted");
    }
    for (const char* what : wanted) {
      EXPECT_GT(seen[what], 3) << cluster.seed_text() << " " << to_string(kind) << ": too few '"
                               << what << "'";
    }
  }
}

}  // namespace
}  // namespace iq::sim
