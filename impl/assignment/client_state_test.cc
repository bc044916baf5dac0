// ClientState: previous tasks from subscriptions, lags from offset sums with Kafka's sentinels, the
// assignment bookkeeping and its refusals. Ported from Kafka's ClientStateTest.
#include "assignment/client_state.h"

#include <gtest/gtest.h>

#include "assignment/assignment_test_utils.h"

namespace iq {
namespace {

using namespace assignment_test;  // NOLINT: test constants

constexpr int64_t kLatest = ClientState::kLatestOffset;
constexpr int64_t kUnknown = ClientState::kUnknownOffsetSum;

// The lags constructor fills only the previous assignment; the new assignment starts empty.
TEST(ClientStateTest, previousStateConstructorShouldCreateAValidObject) {
  const ClientState state(tasks({kTask0_0, kTask0_1}), tasks({kTask0_2, kTask0_3}),
                          {{kTask0_0, 5}, {kTask0_2, -1}}, 4);
  EXPECT_EQ(state.active_task_count(), 0);
  EXPECT_EQ(state.active_task_load(), 0.0);
  EXPECT_TRUE(state.active_tasks().empty());
  EXPECT_EQ(state.standby_task_count(), 0);
  EXPECT_TRUE(state.assigned_tasks().empty());
  EXPECT_EQ(state.prev_active_tasks(), tasks({kTask0_0, kTask0_1}));
  EXPECT_EQ(state.prev_standby_tasks(), tasks({kTask0_2, kTask0_3}));
  EXPECT_EQ(state.previous_assigned_tasks(), tasks({kTask0_0, kTask0_1, kTask0_2, kTask0_3}));
  EXPECT_EQ(state.capacity(), 4);
  EXPECT_EQ(state.lag_for(kTask0_0), 5);
  EXPECT_EQ(state.lag_for(kTask0_2), -1);
}

// A client holds a task at most once: as active or as standby, never both, never twice.
TEST(ClientStateTest, shouldRefuseDoubleAssignmentAndUnassigningWhatIsNotAssigned) {
  EXPECT_DEATH(
      {
        ClientState s(1);
        s.assign_active(kTask0_0);
        s.assign_active(kTask0_0);
      },
      "Tried to assign task 0_0, but it is already assigned");
  EXPECT_DEATH(
      {
        ClientState s(1);
        s.assign_active(kTask0_0);
        s.assign_standby(kTask0_0);
      },
      "already assigned");
  EXPECT_DEATH(
      {
        ClientState s(1);
        s.assign_standby(kTask0_0);
        s.assign_active(kTask0_0);
      },
      "already assigned");
  EXPECT_DEATH(
      {
        ClientState s(1);
        s.assign_active(kTask0_0);
        s.unassign_standby(kTask0_0);
      },
      "Tried to unassign standby task 0_0");
  EXPECT_DEATH(
      {
        ClientState s(1);
        s.assign_standby(kTask0_0);
        s.unassign_active(kTask0_0);
      },
      "Tried to unassign active task 0_0");
}

// Assigning and unassigning keeps the active, standby and combined views and loads in step.
TEST(ClientStateTest, shouldAddAndUnassignActiveAndStandbyTasks) {
  ClientState client(2);
  client.assign_active(kTask0_1);
  client.assign_standby(kTask0_2);
  EXPECT_EQ(client.active_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(client.standby_tasks(), tasks({kTask0_2}));
  EXPECT_EQ(client.assigned_tasks(), tasks({kTask0_1, kTask0_2}));
  EXPECT_EQ(client.assigned_task_count(), 2);
  EXPECT_TRUE(client.has_assigned_task(kTask0_1));
  EXPECT_TRUE(client.has_assigned_task(kTask0_2));
  EXPECT_FALSE(client.has_assigned_task(kTask0_3));
  EXPECT_EQ(client.active_task_load(), 0.5);
  EXPECT_EQ(client.assigned_task_load(), 1.0);
  EXPECT_TRUE(client.reached_capacity());
  client.unassign_active(kTask0_1);
  client.unassign_standby(kTask0_2);
  EXPECT_EQ(client.assigned_task_count(), 0);
  EXPECT_FALSE(client.reached_capacity());
}

// Capacity comparisons use tasks per thread, and equal loads favour more threads.
TEST(ClientStateTest, shouldUseMultiplesOfCapacityToDetermineClientWithMoreAvailableCapacity) {
  ClientState one_thread(1);
  ClientState two_threads(2);
  EXPECT_TRUE(two_threads.has_more_available_capacity_than(one_thread));
  EXPECT_FALSE(one_thread.has_more_available_capacity_than(two_threads));
  for (int32_t p = 0; p < 7; ++p) two_threads.assign_active({0, p});
  for (int32_t p = 7; p < 11; ++p) one_thread.assign_active({0, p});
  EXPECT_TRUE(two_threads.has_more_available_capacity_than(one_thread));  // 3.5 < 4
  EXPECT_TRUE(one_thread.has_unfulfilled_quota(5));
  EXPECT_FALSE(one_thread.has_unfulfilled_quota(4));
  EXPECT_DEATH((void)ClientState(0).has_more_available_capacity_than(one_thread),
               "Capacity of this ClientState must be greater than 0");
}

// A reported LATEST_OFFSET makes a previous active; any other offset sum a previous standby.
TEST(ClientStateTest, shouldAddTasksFromOffsetSumsToPrevActiveOrStandbyTasks) {
  ClientState client(1);
  client.add_previous_tasks_and_offset_sums("c1",
                                            {{kTask0_1, kLatest}, {kTask0_2, 0}, {kTask0_3, 100}});
  client.initialize_prev_tasks({});
  EXPECT_EQ(client.prev_active_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(client.prev_standby_tasks(), tasks({kTask0_2, kTask0_3}));
  EXPECT_EQ(client.previous_assigned_tasks(), tasks({kTask0_1, kTask0_2, kTask0_3}));
}

// Owned tasks become previous actives per consumer; the rest of a consumer's stateful tasks are
// its previous standbys.
TEST(ClientStateTest, shouldReturnPreviousActiveStandbyTasksForConsumer) {
  ClientState client(2);
  client.add_owned_tasks({kTask0_1}, "c1");
  client.add_owned_tasks({kTask0_2}, "c2");
  client.add_owned_tasks({kTask1_3}, "c2");  // not a task of the topology: skipped
  client.add_previous_tasks_and_offset_sums("c1", {{kTask0_1, kLatest}, {kTask0_0, 10}});
  client.add_previous_tasks_and_offset_sums("c2", {{kTask0_2, 0}});
  client.initialize_prev_tasks(tasks({kTask0_0, kTask0_1, kTask0_2}));

  EXPECT_EQ(client.prev_owned_stateful_tasks_by_consumer("c1"), tasks({kTask0_0, kTask0_1}));
  EXPECT_EQ(client.prev_owned_stateful_tasks_by_consumer("c2"), tasks({kTask0_2}));
  EXPECT_TRUE(client.prev_owned_stateful_tasks_by_consumer("c3").empty());
  const std::map<std::string, std::set<TaskId>> active{{"c1", {kTask0_1}}, {"c2", {kTask0_2}}};
  EXPECT_EQ(client.prev_owned_active_tasks_by_consumer(), active);
  const std::map<std::string, std::set<TaskId>> standby{{"c1", {kTask0_0}}, {"c2", {}}};
  EXPECT_EQ(client.prev_owned_standby_by_consumer(), standby);
  EXPECT_EQ(client.prev_active_tasks(), tasks({kTask0_1, kTask0_2}));
  EXPECT_EQ(client.prev_standby_tasks(), tasks({kTask0_0}));
}

// Lags follow computeTaskLags: end - offset, the full end offset sum when nothing was reported,
// the end offset sum when the offset sum is past it, and the sentinels passed through.
TEST(ClientStateTest, shouldComputeTaskLags) {
  ClientState client(1);
  client.add_previous_tasks_and_offset_sums(
      "c1",
      {{kTask0_1, 0}, {kTask0_2, 100}, {kTask0_3, kLatest}, {kTask1_0, kUnknown}, {kTask1_1, 5}});
  client.compute_task_lags({{kTask0_1, 500},
                            {kTask0_2, 100},
                            {kTask0_3, 500},
                            {kTask1_0, 500},
                            {kTask1_1, 1},
                            {kTask1_2, 500}});
  EXPECT_EQ(client.lag_for(kTask0_1), 500);
  EXPECT_EQ(client.lag_for(kTask0_2), 0);
  EXPECT_EQ(client.lag_for(kTask0_3),
            kLatest);  // shouldReturnLatestOffsetForLagOfPreviousActiveRunningTask
  EXPECT_EQ(client.lag_for(kTask1_0),
            kUnknown);  // shouldReturnUnknownOffsetSumForLagOfTaskWithUnknownOffset
  EXPECT_EQ(client.lag_for(kTask1_1),
            1);  // shouldReturnEndOffsetSumIfOffsetSumIsGreaterThanEndOffsetSum
  EXPECT_EQ(client.lag_for(kTask1_2),
            500);  // shouldReturnEndOffsetSumForLagOfTaskWeDidNotPreviouslyOwn
}

// Lags are computed once, and only for tasks of the topology.
TEST(ClientStateTest, shouldThrowIllegalStateExceptionOnLagForUnknownTaskOrSecondComputation) {
  ClientState client(1);
  client.add_previous_tasks_and_offset_sums("c1", {{kTask0_1, 0}});
  client.compute_task_lags({{kTask0_1, 500}});
  EXPECT_DEATH((void)client.lag_for(kTask0_2), "Tried to lookup lag for unknown task 0_2");
  EXPECT_DEATH(client.compute_task_lags({{kTask0_1, 1}}), "Already computed task lags");
  EXPECT_DEATH(
      {
        ClientState c(1);
        c.add_previous_active_tasks({kTask0_1});
        c.initialize_prev_tasks({});
      },
      "Already added previous tasks");
}

// prevTasksByLag lists a consumer's previous stateful tasks by lag, then TaskId, skipping tasks
// that are no longer in the topology.
TEST(ClientStateTest, shouldNotTryToLookupTasksThatWerePreviouslyAssignedButNoLongerExist) {
  ClientState client(1);
  client.add_previous_tasks_and_offset_sums(
      "c1", {{kTask0_0, 400}, {kTask0_1, kLatest}, {kTask0_2, 450}, {kTask2_2, 10}});
  client.compute_task_lags({{kTask0_0, 500}, {kTask0_1, 500}, {kTask0_2, 550}});
  const std::vector<TaskId> expected{kTask0_1, kTask0_0, kTask0_2};
  EXPECT_EQ(client.prev_tasks_by_lag("c1"), expected);
  EXPECT_DEATH((void)client.lag_for(kTask2_2), "unknown task 2_2");
}

// The per-consumer assignment records are idempotent, and an active must be assigned to the client
// before it is given to one of its consumers.
TEST(ClientStateTest, shouldReturnAssignedTasksForConsumer) {
  ClientState client(2);
  client.assign_active_tasks({kTask0_0, kTask0_1, kTask0_2});
  client.assign_active_to_consumer(kTask0_0, "c1");
  client.assign_active_to_consumer(kTask0_0, "c1");
  client.assign_active_to_consumer(kTask0_1, "c1");
  client.assign_active_to_consumer(kTask0_2, "c2");
  client.assign_standby_to_consumer(kTask0_2, "c1");
  client.assign_standby_to_consumer(kTask0_0, "c2");
  client.revoke_active_from_consumer(kTask0_1, "c1");
  client.revoke_active_from_consumer(kTask0_1, "c1");
  const std::map<std::string, std::set<TaskId>> active{{"c1", {kTask0_0, kTask0_1}},
                                                       {"c2", {kTask0_2}}};
  const std::map<std::string, std::set<TaskId>> standby{{"c1", {kTask0_2}}, {"c2", {kTask0_0}}};
  const std::map<std::string, std::set<TaskId>> revoking{{"c1", {kTask0_1}}};
  EXPECT_EQ(client.assigned_active_tasks_by_consumer(), active);
  EXPECT_EQ(client.assigned_standby_tasks_by_consumer(), standby);
  EXPECT_EQ(client.revoking_active_tasks_by_consumer(), revoking);
  EXPECT_DEATH(ClientState(1).assign_active_to_consumer(kTask0_0, "c1"),
               "added not assign active task 0_0");
}

// A task is stateful for a client exactly when it has a lag, which splits the client's actives.
TEST(ClientStateTest, shouldSplitActiveTasksIntoStatefulAndStateless) {
  ClientState client({}, {}, {{kTask0_0, 0}}, 1, kPid1);
  client.assign_active(kTask0_0);
  client.assign_active(kTask1_0);
  EXPECT_EQ(client.stateful_active_tasks(), tasks({kTask0_0}));
  EXPECT_EQ(client.stateless_active_tasks(), tasks({kTask1_0}));
  EXPECT_EQ(client.process_id(), kPid1);
  EXPECT_FALSE(ClientState().process_id().has_value());
}

}  // namespace
}  // namespace iq
