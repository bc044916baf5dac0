// StreamsPartitionAssignor: subscriptions to clients, the HA assignor's placement over threads,
// cooperative withholding with an immediate follow-up, host maps, and probing.
#include <gtest/gtest.h>

#include "assignment/process_id.h"
#include "base/probe.h"
#include "processor/streams_partition_assignor.h"
#include "processor/test_fakes.h"

namespace iq {
namespace {

using namespace testing_fakes;  // NOLINT: test doubles only

class StreamsPartitionAssignorTest : public testing::Test {
 protected:
  void SetUp() override {
    topology_.kind = TopologyKind::Count;
    topology_.source_topic = "words";
    topology_.source_partitions = 4;
    topology_.store_name = "counts";
  }
  JoinedMember member(const std::string& id, int client, std::map<TaskId, int64_t> sums,
                      std::vector<TopicPartition> owned = {}) {
    SubscriptionInfo s{ProcessId::for_int(client).to_string(),
                       "instance-" + std::to_string(client) + ":8080", std::move(sums)};
    return JoinedMember{id, s.encode(), std::move(owned)};
  }
  // Fill changelog partition p with n records.
  void changelog(int32_t p, int n) {
    for (int i = 0; i < n; ++i)
      broker_.append(ConsumerRecord{
          "app-counts-changelog", p, 0, 0, Bytes(std::string("k")), Bytes(std::string("v")), {}});
  }
  StreamsPartitionAssignor assignor(AssignmentConfigs configs = {}) {
    return StreamsPartitionAssignor("app", topology_, configs, admin_);
  }

  TopologyConfig topology_;
  FakeBroker broker_;
  FakeAdmin admin_{broker_};
};

// Proves one client with two threads gets every task, two per thread, with itself as the only host.
TEST_F(StreamsPartitionAssignorTest, OneClientSpreadsTasksOverItsThreads) {
  auto r = assignor().assign({member("m1", 1, {}), member("m2", 1, {})}, 0);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->assignments.at("m1").active_tasks.size(), 2u);
  EXPECT_EQ(r->assignments.at("m2").active_tasks.size(), 2u);
  EXPECT_FALSE(r->followup_rebalance_needed);
  const auto& hosts = r->assignments.at("m1").partitions_by_host;
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts.begin()->first, (HostInfo{"instance-1", 8080}));
  EXPECT_EQ(hosts.begin()->second.size(), 4u);
}

// Proves a task owned elsewhere is withheld from its new owner, which rejoins at once.
TEST_F(StreamsPartitionAssignorTest, TaskOwnedElsewhereIsWithheldUntilTheFollowUp) {
  std::vector<TopicPartition> owned{{"words", 0}, {"words", 1}, {"words", 2}, {"words", 3}};
  std::map<TaskId, int64_t> running{{{0, 0}, -2}, {{0, 1}, -2}, {{0, 2}, -2}, {{0, 3}, -2}};
  AssignmentConfigs configs;
  configs.acceptable_recovery_lag =
      AssignmentConfigs::kUnboundedRecoveryLag;  // anyone may take over
  auto r = assignor(configs).assign({member("a", 1, running, owned), member("b", 2, {})}, 0);
  ASSERT_TRUE(r.has_value());
  const auto& b = r->assignments.at("b");
  EXPECT_TRUE(b.active_tasks.empty()) << "every task b was given is still owned by a";
  EXPECT_EQ(b.next_rebalance_ms, std::optional<int64_t>(0));
  EXPECT_TRUE(r->followup_rebalance_needed);
  // The host map already names b for the tasks it will get.
  EXPECT_EQ(b.partitions_by_host.count({"instance-2", 8080}), 1u);
}

// Proves a new client that is far behind gets warmups, not actives, and a probing rebalance is
// scheduled on the leader.
TEST_F(StreamsPartitionAssignorTest, LaggingNewcomerGetsWarmupsAndProbing) {
  for (int32_t p = 0; p < 4; ++p) changelog(p, 50);
  std::vector<TopicPartition> owned{{"words", 0}, {"words", 1}, {"words", 2}, {"words", 3}};
  std::map<TaskId, int64_t> running{{{0, 0}, -2}, {{0, 1}, -2}, {{0, 2}, -2}, {{0, 3}, -2}};
  AssignmentConfigs configs;
  configs.acceptable_recovery_lag = 10;
  configs.probing_rebalance_interval_ms = 600'000;
  auto r = assignor(configs).assign({member("a", 1, running, owned), member("b", 2, {})}, 1'000);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->probing_rebalance_needed);
  EXPECT_EQ(r->assignments.at("a").active_tasks.size(), 4u)
      << "actives stay on the caught-up client";
  EXPECT_FALSE(r->assignments.at("b").standby_tasks.empty()) << "warmups";
  EXPECT_LE(r->assignments.at("b").standby_tasks.size(), 2u) << "max.warmup.replicas";
  EXPECT_EQ(r->assignments.at("a").next_rebalance_ms, std::optional<int64_t>(601'000));
}

// Proves the probe on a warmup that became active fires when the leader's next assignment (a new
// assignor, given the last warmups, as StreamThread::assign does) makes a caught-up warmup
// active, and not without those warmups.
TEST_F(StreamsPartitionAssignorTest, CaughtUpWarmupBecomesActiveAndIsProbed) {
  for (int32_t p = 0; p < 4; ++p) changelog(p, 50);
  std::vector<TopicPartition> owned{{"words", 0}, {"words", 1}, {"words", 2}, {"words", 3}};
  std::map<TaskId, int64_t> running{{{0, 0}, -2}, {{0, 1}, -2}, {{0, 2}, -2}, {{0, 3}, -2}};
  AssignmentConfigs configs;
  configs.acceptable_recovery_lag = 10;
  auto first = assignor(configs).assign({member("a", 1, running, owned), member("b", 2, {})}, 0);
  ASSERT_TRUE(first.has_value());
  const std::set<TaskId> warm = first->assignments.at("b").standby_tasks;
  ASSERT_FALSE(warm.empty()) << "warmups";
  std::map<TaskId, int64_t> caught_up;  // b reports its warmups at the changelog end
  for (const TaskId& t : warm) caught_up[t] = 50;
  for (const bool with_warmups : {true, false}) {
    base::ProbeHits hits;
    base::ProbeScope scope(hits);
    StreamsPartitionAssignor next("app", topology_, configs, admin_,
                                  with_warmups ? first->warmups : Warmups{});
    auto second = next.assign({member("a", 1, running, owned), member("b", 2, caught_up)}, 60'000);
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(hits.hit("assignor.warmup_became_active"), with_warmups)
        << "with the last warmups: " << with_warmups;
  }
}

// Proves standbys go to another client than the active, one per task.
TEST_F(StreamsPartitionAssignorTest, StandbysLandOnOtherClients) {
  AssignmentConfigs configs;
  configs.num_standby_replicas = 1;
  auto r = assignor(configs).assign({member("a", 1, {}), member("b", 2, {})}, 0);
  ASSERT_TRUE(r.has_value());
  for (const auto& [id, info] : r->assignments) {
    for (const TaskId& t : info.active_tasks) EXPECT_EQ(info.standby_tasks.count(t), 0u);
  }
  EXPECT_EQ(
      r->assignments.at("a").standby_tasks.size() + r->assignments.at("b").standby_tasks.size(),
      4u);
}

// Proves StreamsPartitionAssignor.assignTasksToThreads' stickiness: a consumer gets back the
// stateful tasks it reported offset sums for (prevTasksByLag), standbys included, not only the
// partitions it owned, up to its share; the others go smallest first to the consumers below it.
// Here m2 reported tasks 0 and 1 (a standby's offsets: it owned no partition), m1 nothing: m2 keeps
// 0 and 1, m1 gets 2 and 3. Before, only owned partitions counted and the four went round-robin
// (m1 0 and 2, m2 1 and 3), so a standby could move to another thread of the same client at each
// rebalance, its directory lock passing between the two threads.
TEST_F(StreamsPartitionAssignorTest, ThreadsGetBackTheTasksTheyReportedOffsetsFor) {
  auto r = assignor().assign({member("m1", 1, {}), member("m2", 1, {{{0, 0}, 0}, {{0, 1}, 0}})}, 0);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->assignments.at("m1").active_tasks, (std::vector<TaskId>{{0, 2}, {0, 3}}));
  EXPECT_EQ(r->assignments.at("m2").active_tasks, (std::vector<TaskId>{{0, 0}, {0, 1}}));
}

// Proves the same for standbys, with the load carried from the actives to the standbys (one
// threadLoad for both): client 2 (b1, b2) gets two actives and two standbys; b2 reported every task
// at the changelog's end, so it takes the smaller active and the smaller standby (the larger ones
// are beyond its share of one each), and b1, below its share, the other two. Before, b1 took the
// smaller of each (round-robin in member order).
TEST_F(StreamsPartitionAssignorTest, AStandbyStaysWithTheThreadThatReportedIt) {
  AssignmentConfigs configs;
  configs.num_standby_replicas = 1;
  configs.acceptable_recovery_lag = AssignmentConfigs::kUnboundedRecoveryLag;
  const std::map<TaskId, int64_t> all{{{0, 0}, 0}, {{0, 1}, 0}, {{0, 2}, 0}, {{0, 3}, 0}};
  auto r = assignor(configs).assign(
      {member("a1", 1, {}), member("a2", 1, {}), member("b1", 2, {}), member("b2", 2, all)}, 0);
  ASSERT_TRUE(r.has_value());
  // The HA assignor gives client 2 actives 1 and 3 and standbys 0 and 2.
  const auto& b1 = r->assignments.at("b1");
  const auto& b2 = r->assignments.at("b2");
  EXPECT_EQ(b2.active_tasks, (std::vector<TaskId>{{0, 1}}));
  EXPECT_EQ(b2.standby_tasks, (std::set<TaskId>{{0, 0}}));
  EXPECT_EQ(b1.active_tasks, (std::vector<TaskId>{{0, 3}}));
  EXPECT_EQ(b1.standby_tasks, (std::set<TaskId>{{0, 2}}));
}

}  // namespace
}  // namespace iq
