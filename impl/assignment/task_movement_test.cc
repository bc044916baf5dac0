// TaskMovement sends actives and standbys that landed on clients that are not caught up back to
// caught-up (or the most caught-up) clients and leaves warmups within the budget. Ported from
// Kafka's TaskMovementTest.
#include "assignment/task_movement.h"

#include <gtest/gtest.h>

#include <climits>

#include "assignment/assignment_test_utils.h"

namespace iq {
namespace {

using namespace assignment_test;  // NOLINT: test constants

// getClientStateWithLags: previous and current actives are `active`.
ClientState client_with_lags(const std::set<TaskId>& active, std::map<TaskId, int64_t> lags) {
  ClientState state(active, {}, std::move(lags), 1);
  state.assign_active_tasks(active);
  return state;
}

// getClientStateWithActiveAssignment: lag 0 on `caught_up`, 10000 on the other tasks.
ClientState client_with_active_assignment(const std::set<TaskId>& active,
                                          const std::set<TaskId>& caught_up,
                                          const std::set<TaskId>& all) {
  std::map<TaskId, int64_t> lags;
  for (const TaskId& t : all) lags[t] = caught_up.contains(t) ? 0 : 10'000;
  return client_with_lags(active, std::move(lags));
}

const std::set<TaskId> kSixTasks = {kTask0_0, kTask0_1, kTask0_2, kTask1_0, kTask1_1, kTask1_2};
const std::set<TaskId> kThreeTasks = {kTask0_0, kTask0_1, kTask0_2};

// When every client is caught up on everything there is nothing to move.
TEST(TaskMovementTest, shouldAssignTasksToClientsAndReturnFalseWhenAllClientsCaughtUp) {
  TasksToCaughtUpClients caught_up;
  TasksToClientByLag by_lag;
  for (const TaskId& t : kSixTasks) {
    caught_up[t] = {kPid1, kPid2, kPid3};
    by_lag[t] = {kPid1, kPid2, kPid3};
  }
  ClientStates states = client_states_map(
      {client_with_active_assignment({kTask0_0, kTask1_0}, kSixTasks, kSixTasks),
       client_with_active_assignment({kTask0_1, kTask1_1}, kSixTasks, kSixTasks),
       client_with_active_assignment({kTask0_2, kTask1_2}, kSixTasks, kSixTasks)});
  Warmups warmups;
  int32_t remaining = INT_MAX;
  EXPECT_EQ(
      TaskMovement::assign_active_task_movements(caught_up, by_lag, states, warmups, remaining), 0);
}

// When nobody is caught up and all lags are equal, no client is more caught up: no movement.
TEST(TaskMovementTest, shouldAssignAllTasksToClientsAndReturnFalseIfNoClientsAreCaughtUp) {
  TasksToCaughtUpClients caught_up;
  TasksToClientByLag by_lag;
  for (const TaskId& t : kSixTasks) {
    caught_up[t] = {};
    by_lag[t] = {kPid1, kPid2, kPid3};
  }
  ClientStates states =
      client_states_map({client_with_active_assignment({kTask0_0, kTask1_0}, {}, kSixTasks),
                         client_with_active_assignment({kTask0_1, kTask1_1}, {}, kSixTasks),
                         client_with_active_assignment({kTask0_2, kTask1_2}, {}, kSixTasks)});
  Warmups warmups;
  int32_t remaining = INT_MAX;
  EXPECT_EQ(
      TaskMovement::assign_active_task_movements(caught_up, by_lag, states, warmups, remaining), 0);
}

// Actives go to the caught-up clients and the intended owners keep warmups.
TEST(TaskMovementTest, shouldMoveTasksToCaughtUpClientsAndAssignWarmupReplicasInTheirPlace) {
  ClientStates states =
      client_states_map({client_with_active_assignment({kTask0_0}, {kTask0_0}, kThreeTasks),
                         client_with_active_assignment({kTask0_1}, {kTask0_2}, kThreeTasks),
                         client_with_active_assignment({kTask0_2}, {kTask0_1}, kThreeTasks)});
  const TasksToCaughtUpClients caught_up{
      {kTask0_0, {kPid1}}, {kTask0_1, {kPid3}}, {kTask0_2, {kPid2}}};
  const TasksToClientByLag by_lag{{kTask0_0, {kPid1, kPid2, kPid3}},
                                  {kTask0_1, {kPid3, kPid1, kPid2}},
                                  {kTask0_2, {kPid2, kPid1, kPid3}}};
  Warmups warmups;
  int32_t remaining = INT_MAX;
  EXPECT_EQ(
      TaskMovement::assign_active_task_movements(caught_up, by_lag, states, warmups, remaining), 2);
  EXPECT_EQ(states.at(kPid1).active_tasks(), tasks({kTask0_0}));
  EXPECT_EQ(states.at(kPid2).active_tasks(), tasks({kTask0_2}));
  EXPECT_EQ(states.at(kPid3).active_tasks(), tasks({kTask0_1}));
  EXPECT_TRUE(states.at(kPid1).standby_tasks().empty());
  EXPECT_EQ(states.at(kPid2).standby_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(states.at(kPid3).standby_tasks(), tasks({kTask0_2}));
  const Warmups expected_warmups{{kPid2, {kTask0_1}}, {kPid3, {kTask0_2}}};
  EXPECT_EQ(warmups, expected_warmups);
}

// With nobody caught up, actives go to the most caught-up client, by swap when it holds a standby.
TEST(TaskMovementTest, shouldMoveTasksToMostCaughtUpClientsAndAssignWarmupReplicasInTheirPlace) {
  ClientStates states = client_states_map(
      {client_with_lags({kTask0_0}, {{kTask0_0, 10000}, {kTask0_1, 20000}, {kTask0_2, 30000}}),
       client_with_lags({kTask0_1}, {{kTask0_2, 10000}, {kTask0_0, 20000}, {kTask0_1, 30000}}),
       client_with_lags({kTask0_2}, {{kTask0_1, 10000}, {kTask0_2, 20000}, {kTask0_0, 30000}})});
  states.at(kPid3).assign_standby(kTask0_1);  // the most caught-up client already has a standby
  const TasksToCaughtUpClients caught_up{{kTask0_0, {}}, {kTask0_1, {}}, {kTask0_2, {}}};
  const TasksToClientByLag by_lag{{kTask0_0, {kPid1, kPid2, kPid3}},
                                  {kTask0_1, {kPid3, kPid1, kPid2}},
                                  {kTask0_2, {kPid2, kPid3, kPid1}}};
  Warmups warmups;
  int32_t remaining = INT_MAX;
  EXPECT_EQ(
      TaskMovement::assign_active_task_movements(caught_up, by_lag, states, warmups, remaining), 2);
  EXPECT_EQ(states.at(kPid1).active_tasks(), tasks({kTask0_0}));
  EXPECT_EQ(states.at(kPid2).active_tasks(), tasks({kTask0_2}));
  EXPECT_EQ(states.at(kPid3).active_tasks(), tasks({kTask0_1}));
  EXPECT_TRUE(states.at(kPid1).standby_tasks().empty());
  EXPECT_EQ(states.at(kPid2).standby_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(states.at(kPid3).standby_tasks(), tasks({kTask0_2}));
}

// With a budget of one warmup, only the highest-priority movement (TaskId order here) keeps one.
TEST(TaskMovementTest, shouldOnlyGetUpToMaxWarmupReplicasAndReturnTrue) {
  ClientStates states =
      client_states_map({client_with_active_assignment({kTask0_0}, {kTask0_0}, kThreeTasks),
                         client_with_active_assignment({kTask0_1}, {kTask0_2}, kThreeTasks),
                         client_with_active_assignment({kTask0_2}, {kTask0_1}, kThreeTasks)});
  const TasksToCaughtUpClients caught_up{
      {kTask0_0, {kPid1}}, {kTask0_1, {kPid3}}, {kTask0_2, {kPid2}}};
  const TasksToClientByLag by_lag{{kTask0_0, {kPid1, kPid2, kPid3}},
                                  {kTask0_1, {kPid3, kPid1, kPid2}},
                                  {kTask0_2, {kPid2, kPid1, kPid3}}};
  Warmups warmups;
  int32_t remaining = 1;
  EXPECT_EQ(
      TaskMovement::assign_active_task_movements(caught_up, by_lag, states, warmups, remaining), 2);
  EXPECT_EQ(states.at(kPid2).active_tasks(), tasks({kTask0_2}));
  EXPECT_EQ(states.at(kPid3).active_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(states.at(kPid2).standby_tasks(), tasks({kTask0_1}));
  EXPECT_TRUE(states.at(kPid3).standby_tasks().empty());
  EXPECT_EQ(remaining, -1);  // getAndDecrement keeps counting down past zero
}

// A caught-up standby trades roles with a lagging active without spending the warmup budget.
TEST(TaskMovementTest, shouldNotCountPreviousStandbyTasksTowardsMaxWarmupReplicas) {
  const std::set<TaskId> one_task{kTask0_0};
  ClientStates states =
      client_states_map({client_with_active_assignment({}, {kTask0_0}, one_task),
                         client_with_active_assignment({kTask0_0}, {}, one_task)});
  states.at(kPid1).assign_standby(kTask0_0);
  const TasksToCaughtUpClients caught_up{{kTask0_0, {kPid1}}};
  const TasksToClientByLag by_lag{{kTask0_0, {kPid1, kPid2}}};
  Warmups warmups;
  int32_t remaining = 0;
  EXPECT_EQ(
      TaskMovement::assign_active_task_movements(caught_up, by_lag, states, warmups, remaining), 1);
  EXPECT_EQ(states.at(kPid1).active_tasks(), tasks({kTask0_0}));
  EXPECT_TRUE(states.at(kPid1).standby_tasks().empty());
  EXPECT_TRUE(states.at(kPid2).active_tasks().empty());
  EXPECT_EQ(states.at(kPid2).standby_tasks(), tasks({kTask0_0}));
  EXPECT_EQ(remaining, 0);
}

// A standby on a lagging client moves to a caught-up client without a copy; a warmup stays put;
// the old copy survives as a warmup only while the budget lasts.
TEST(TaskMovementTest, shouldMoveStandbysToCaughtUpClientsButNotWarmups) {
  const std::set<TaskId> two_tasks{kTask0_0, kTask0_1};
  ClientStates states = client_states_map(
      {client_with_lags({kTask0_0}, {{kTask0_0, ClientState::kLatestOffset}, {kTask0_1, 0}}),
       client_with_lags({kTask0_1}, {{kTask0_0, 0}, {kTask0_1, ClientState::kLatestOffset}}),
       client_with_lags({}, {{kTask0_0, 5000}, {kTask0_1, 5000}})});
  states.at(kPid3).assign_standby(kTask0_0);
  states.at(kPid3).assign_standby(kTask0_1);
  const TasksToCaughtUpClients caught_up{{kTask0_0, {kPid1, kPid2}}, {kTask0_1, {kPid1, kPid2}}};
  const TasksToClientByLag by_lag{{kTask0_0, {kPid1, kPid2, kPid3}},
                                  {kTask0_1, {kPid2, kPid1, kPid3}}};
  const Warmups warmups{{kPid3, {kTask0_1}}};  // 0_1 on client 3 is a warmup: left alone
  int32_t remaining = 0;
  EXPECT_EQ(
      TaskMovement::assign_standby_task_movements(caught_up, by_lag, states, remaining, warmups),
      1);
  EXPECT_EQ(states.at(kPid2).standby_tasks(), tasks({kTask0_0}));
  EXPECT_EQ(states.at(kPid3).standby_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(remaining, -1);
}

}  // namespace
}  // namespace iq
