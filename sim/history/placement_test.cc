// Placement tests: the snapshots the recorder takes from a running cluster.
#include "history/placement.h"

#include <gtest/gtest.h>

#include "trace/history.h"
#include "workload/query_client_workload.h"

namespace iq::sim {
namespace {

// Proves the recorder copies every runtime state into the trace under the runtime's own name, so
// that a trace prints (and digests) the same as when it held the runtime's enums.
TEST(PlacementTest, RecordedStatesKeepTheRuntimeNames) {
  for (KafkaStreamsState st : {KafkaStreamsState::CREATED, KafkaStreamsState::REBALANCING, KafkaStreamsState::RUNNING,
                         KafkaStreamsState::PENDING_SHUTDOWN, KafkaStreamsState::NOT_RUNNING,
                         KafkaStreamsState::PENDING_ERROR, KafkaStreamsState::ERROR}) {
    EXPECT_STREQ(to_string(recorded(st)), iq::to_string(st));
  }
  for (ThreadState st : {ThreadState::CREATED, ThreadState::STARTING,
                         ThreadState::PARTITIONS_REVOKED, ThreadState::PARTITIONS_ASSIGNED,
                         ThreadState::RUNNING, ThreadState::PENDING_SHUTDOWN, ThreadState::DEAD}) {
    EXPECT_STREQ(to_string(recorded(st)), iq::to_string(st));
  }
  for (TaskState st : {TaskState::CREATED, TaskState::RESTORING, TaskState::RUNNING,
                       TaskState::SUSPENDED, TaskState::CLOSED}) {
    EXPECT_STREQ(to_string(recorded(st)), iq::to_string(st));
  }
}

// A Count topology "words" -> "counts" over 4 partitions, committing every 100 ms.
ClusterConfig count_cluster(uint64_t seed, int32_t instances) {
  ClusterConfig c;
  c.seed = seed;
  c.instances = instances;
  c.streams.application_id = "app";
  c.streams.commit_interval_ms = 100;
  c.topology.kind = TopologyKind::Count;
  c.topology.source_topic = "words";
  c.topology.source_partitions = 4;
  c.topology.store_name = "counts";
  return c;
}

// Proves that in a stable 2-instance, 1-standby cluster every query's placement snapshot shows
// exactly one RUNNING active and one standby of the queried partition.
TEST(PlacementTest, SnapshotsShowOneActivePerPartitionWhenStable) {
  ClusterConfig c = count_cluster(51, 2);
  c.streams.assignment.num_standby_replicas = 1;
  Cluster cluster(c);
  cluster.start_all();
  for (int32_t k = 0; k < 20; ++k) cluster.produce(k, 1);
  History history(10'000);
  QueryClientConfig q;
  q.start_ms = 20'000;
  q.stop_ms = 25'000;
  q.keys = 20;
  q.bound_modes = {BoundMode::kUnbounded};
  QueryClientWorkload clients(cluster, history, q, base::Prng(c.seed).split("query-clients"),
                              nullptr);
  clients.start();
  ASSERT_EQ(cluster.run_until(26'000).stop, RunStop::kTimeReached) << cluster.seed_text();
  ASSERT_GT(history.size(), 50u) << cluster.seed_text();
  for (const QueryRecord& r : history.records()) {
    const int32_t p = *r.request.partitions->begin();
    for (const PlacementSnapshot* s : {&r.placement_at_invoke, &*r.placement_at_answer}) {
      EXPECT_EQ(s->count(p, ReplicaRole::kActive), 1)
          << cluster.seed_text() << " " << r.to_string();
      EXPECT_EQ(s->count(p, ReplicaRole::kStandby), 1)
          << cluster.seed_text() << " " << r.to_string();
      for (const ReplicaSnapshot& replica : s->replicas) {
        EXPECT_EQ(replica.client_state, ReplicaSnapshot::StreamsState::RUNNING) << cluster.seed_text();
        EXPECT_FALSE(replica.warmup) << cluster.seed_text() << " caught-up clients need none";
        if (replica.role != ReplicaRole::kActive) continue;
        EXPECT_EQ(replica.task_state, ReplicaSnapshot::TaskState::RUNNING) << cluster.seed_text();
        EXPECT_EQ(replica.thread_state, ReplicaSnapshot::ThreadState::RUNNING) << cluster.seed_text();
        EXPECT_TRUE(replica.store_position.has_value()) << cluster.seed_text();
        EXPECT_GE(replica.lag.value_or(-1), 0) << cluster.seed_text() << " " << r.to_string();
      }
    }
  }
}

// Proves snapshots mark warmups: a second instance joining a client whose stores are far beyond
// acceptable.recovery.lag gets standbys that are warmups (never actives at first), and once a
// probing rebalance has moved actives to it, no warmup is left.
TEST(PlacementTest, SnapshotsMarkWarmupsUntilTheProbingRebalanceMovesActives) {
  ClusterConfig c = count_cluster(52, 1);
  c.streams.assignment.acceptable_recovery_lag = 10;
  c.streams.assignment.probing_rebalance_interval_ms = 60'000;
  Cluster cluster(c);
  cluster.start_all();
  // Distinct keys: the cache would fold repeats into one changelog record each.
  for (int32_t k = 0; k < 400; ++k) cluster.produce(k, 1);
  ASSERT_EQ(cluster.run_until(20'000).stop, RunStop::kTimeReached) << cluster.seed_text();
  cluster.add_instance().start();
  bool saw_warmup = false;
  PlacementSnapshot last;
  for (int64_t t = 20'500; t <= 140'000; t += 500) {
    ASSERT_EQ(cluster.run_until(t).stop, RunStop::kTimeReached) << cluster.seed_text();
    last = take_placement(cluster, "counts", {0, 1, 2, 3});
    for (const ReplicaSnapshot& r : last.replicas) {
      if (!r.warmup) continue;
      saw_warmup = true;
      EXPECT_EQ(r.role, ReplicaRole::kStandby) << cluster.seed_text() << " " << r.to_string();
      EXPECT_EQ(r.instance, "instance-2") << cluster.seed_text() << " " << r.to_string();
    }
  }
  EXPECT_TRUE(saw_warmup) << cluster.seed_text();
  int32_t actives_on_new = 0;
  for (const ReplicaSnapshot& r : last.replicas) {
    EXPECT_FALSE(r.warmup) << cluster.seed_text() << " " << last.to_string();
    if (r.instance == "instance-2" && r.role == ReplicaRole::kActive) ++actives_on_new;
  }
  EXPECT_GT(actives_on_new, 0) << cluster.seed_text() << " " << last.to_string();
}

}  // namespace
}  // namespace iq::sim
