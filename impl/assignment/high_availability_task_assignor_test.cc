// HighAvailabilityTaskAssignor: balanced, sticky placement of actives and standbys, warmups within
// max.warmup.replicas, stateless balance and the probing-rebalance decision. Most cases are ported
// from Kafka's HighAvailabilityTaskAssignorTest (rack-aware strategy "none", the only one iqsim
// reproduces). Where a test states an exact assignment that Kafka's test does not, the expected
// value was produced by running Kafka's own assignor classes on the same input.
#include "assignment/high_availability_task_assignor.h"

#include <gtest/gtest.h>

#include "assignment/assignment_test_utils.h"

namespace iq {
namespace {

using namespace assignment_test;  // NOLINT: test constants

constexpr int64_t kLatest = ClientState::kLatestOffset;

const std::set<TaskId> kNineTasks = {kTask0_0, kTask0_1, kTask0_2, kTask1_0, kTask1_1,
                                     kTask1_2, kTask2_0, kTask2_1, kTask2_2};
const std::set<TaskId> kFourTasks = {kTask0_0, kTask0_1, kTask0_2, kTask0_3};

AssignmentConfigs without_standbys() {
  return configs(100, 2, 0);
}
AssignmentConfigs with_standbys() {
  return configs(100, 2, 1);
}

bool assign(ClientStates& states, const std::set<TaskId>& all, const std::set<TaskId>& stateful,
            const AssignmentConfigs& cfg) {
  return HighAvailabilityTaskAssignor().assign(states, all, stateful, cfg);
}

// Three clients, one thread each, with lags `lag` on every task of `tasks`.
ClientStates equal_clients(const std::set<TaskId>& tasks, int64_t lag, std::vector<int32_t> caps) {
  std::vector<ClientState> states;
  for (size_t i = 0; i < caps.size(); ++i) {
    states.emplace_back(std::set<TaskId>{}, std::set<TaskId>{}, lags_of(tasks, lag), caps[i],
                        ProcessId::for_int(static_cast<int64_t>(i) + 1));
  }
  return client_states_map(std::move(states));
}

// The previous active and its hot standby keep their tasks while a third client only warms up.
TEST(HighAvailabilityTaskAssignorTest, shouldBeStickyForActiveAndStandbyTasksWhileWarmingUp) {
  ClientStates states;
  states.emplace(kPid1, ClientState(kNineTasks, {}, lags_of(kNineTasks, 0), 1, kPid1));
  states.emplace(kPid2, ClientState({}, kNineTasks, lags_of(kNineTasks, 10), 1, kPid2));
  states.emplace(kPid3, ClientState({}, {}, lags_of(kNineTasks, kLongMax), 1, kPid3));
  EXPECT_TRUE(assign(states, kNineTasks, kNineTasks, configs(11, 2, 1)));
  EXPECT_EQ(states.at(kPid1).assigned_task_count(), 9);
  EXPECT_EQ(states.at(kPid2).assigned_task_count(), 9);
  EXPECT_EQ(states.at(kPid3).assigned_task_count(), 2);  // two warmups, the budget
}

// With acceptable.recovery.lag = Long.MAX_VALUE everybody is caught up: balance at once, no
// warmups and no probing.
TEST(HighAvailabilityTaskAssignorTest, shouldSkipWarmupsWhenAcceptableLagIsMax) {
  ClientStates states;
  states.emplace(kPid1, ClientState(kNineTasks, {}, lags_of(kNineTasks, 0), 1, kPid1));
  states.emplace(kPid2, ClientState({}, {}, lags_of(kNineTasks, kLongMax), 1, kPid2));
  states.emplace(kPid3, ClientState({}, {}, lags_of(kNineTasks, kLongMax), 1, kPid3));
  EXPECT_FALSE(assign(states, kNineTasks, kNineTasks, configs(kLongMax, 1, 1)));
  for (const auto& [pid, state] : states) EXPECT_EQ(state.assigned_task_count(), 6);
}

// Nine tasks over three equal clients: three each, one per subtopology.
TEST(
    HighAvailabilityTaskAssignorTest,
    shouldAssignActiveStatefulTasksEvenlyOverClientsWhereNumberOfClientsIntegralDivisorOfNumberOfTasks) {
  ClientStates states = equal_clients(kNineTasks, 10, {1, 1, 1});
  EXPECT_FALSE(assign(states, kNineTasks, kNineTasks, configs(0, 1, 0)));
  EXPECT_TRUE(valid_assignment(0, 0, kNineTasks, {}, states));
  EXPECT_TRUE(balanced_active_assignment(states));
  EXPECT_TRUE(balanced_stateful_assignment(kNineTasks, states));
  EXPECT_TRUE(skewed_subtopologies(states, 1).empty());
}

// Three threads per client over nine tasks: still three each.
TEST(
    HighAvailabilityTaskAssignorTest,
    shouldAssignActiveStatefulTasksEvenlyOverClientsWhereNumberOfThreadsIntegralDivisorOfNumberOfTasks) {
  ClientStates states = equal_clients(kNineTasks, 10, {3, 3, 3});
  EXPECT_FALSE(assign(states, kNineTasks, kNineTasks, configs(0, 1, 0)));
  EXPECT_TRUE(valid_assignment(0, 0, kNineTasks, {}, states));
  EXPECT_TRUE(balanced_active_assignment(states));
  EXPECT_TRUE(skewed_subtopologies(states, 1).empty());
}

// Two clients over nine tasks: five and four, still balanced within one.
TEST(
    HighAvailabilityTaskAssignorTest,
    shouldAssignActiveStatefulTasksEvenlyOverClientsWhereNumberOfClientsNotIntegralDivisorOfNumberOfTasks) {
  ClientStates states = equal_clients(kNineTasks, 10, {1, 1});
  EXPECT_FALSE(assign(states, kNineTasks, kNineTasks, configs(0, 1, 0)));
  EXPECT_TRUE(valid_assignment(0, 0, kNineTasks, {}, states));
  EXPECT_TRUE(balanced_active_assignment(states));
  EXPECT_TRUE(balanced_stateful_assignment(kNineTasks, states));
  EXPECT_TRUE(skewed_subtopologies(states, 1).empty());
}

// Capacities 1, 2 and 3 get one, two and three of six tasks, which skews subtopologies.
TEST(HighAvailabilityTaskAssignorTest,
     shouldAssignActiveStatefulTasksEvenlyOverUnevenlyDistributedStreamThreads) {
  const std::set<TaskId> six = {kTask0_0, kTask0_1, kTask0_2, kTask1_0, kTask1_1, kTask1_2};
  ClientStates states = equal_clients(six, 10, {1, 2, 3});
  EXPECT_FALSE(assign(states, six, six, configs(0, 1, 0)));
  EXPECT_TRUE(valid_assignment(0, 0, six, {}, states));
  EXPECT_TRUE(balanced_active_assignment(states));
  EXPECT_EQ(states.at(kPid1).active_task_count(), 1);
  EXPECT_EQ(states.at(kPid2).active_task_count(), 2);
  EXPECT_EQ(states.at(kPid3).active_task_count(), 3);
  EXPECT_FALSE(skewed_subtopologies(states, 1).empty());
}

// More clients than tasks: one task each for the first two clients, none for the third.
TEST(HighAvailabilityTaskAssignorTest,
     shouldAssignActiveStatefulTasksEvenlyOverClientsWithMoreClientsThanTasks) {
  const std::set<TaskId> two = {kTask0_0, kTask0_1};
  ClientStates states = equal_clients(two, 10, {1, 1, 1});
  EXPECT_FALSE(assign(states, two, two, configs(0, 1, 0)));
  EXPECT_TRUE(valid_assignment(0, 0, two, {}, states));
  EXPECT_TRUE(balanced_active_assignment(states));
  EXPECT_TRUE(states.at(kPid3).active_tasks().empty());
}

// A client with 6 threads gets twice the tasks of one with 3.
TEST(HighAvailabilityTaskAssignorTest,
     shouldAssignActiveStatefulTasksEvenlyOverStreamThreadsButBestEffortOverClients) {
  ClientStates states = equal_clients(kNineTasks, 10, {6, 3});
  EXPECT_FALSE(assign(states, kNineTasks, kNineTasks, configs(0, 1, 0)));
  EXPECT_TRUE(valid_assignment(0, 0, kNineTasks, {}, states));
  EXPECT_TRUE(balanced_active_assignment(states));
  EXPECT_EQ(states.at(kPid1).active_task_count(), 6);
  EXPECT_EQ(states.at(kPid2).active_task_count(), 3);
}

// One caught-up client keeps everything; the two new ones warm up what they are meant to own.
TEST(HighAvailabilityTaskAssignorTest,
     shouldAssignWarmUpTasksIfStatefulActiveTasksBalancedOverStreamThreadsButNotOverClients) {
  const std::set<TaskId> four = {kTask0_0, kTask0_1, kTask1_0, kTask1_1};
  ClientStates states;
  states.emplace(kPid1, ClientState(four, {}, lags_of(four, 0), 5, kPid1));
  states.emplace(kPid2, ClientState({}, {}, lags_of(four, kLongMax), 5, kPid2));
  states.emplace(kPid3, ClientState({}, {}, lags_of(four, kLongMax), 5, kPid3));
  EXPECT_TRUE(assign(states, four, four, configs(0, 4 / 3 + 1, 0)));
  EXPECT_GE(states.at(kPid2).standby_task_count(), 4 / 3);
  EXPECT_GE(states.at(kPid3).standby_task_count(), 4 / 3);
  EXPECT_TRUE(valid_assignment(0, 4 / 3 + 1, four, {}, states));
}

// Once the warmups are caught up, the balanced assignment goes through without probing.
TEST(HighAvailabilityTaskAssignorTest,
     shouldEvenlyAssignActiveStatefulTasksIfClientsAreWarmedUpToBalanceTaskOverClients) {
  const std::set<TaskId> four = {kTask0_0, kTask0_1, kTask1_0, kTask1_1};
  std::map<TaskId, int64_t> warmed1 = lags_of(four, kLongMax);
  warmed1[kTask0_1] = 0;
  std::map<TaskId, int64_t> warmed2 = lags_of(four, kLongMax);
  warmed2[kTask1_0] = 0;
  ClientStates states;
  states.emplace(kPid1, ClientState(four, {}, lags_of(four, 0), 5, kPid1));
  states.emplace(kPid2, ClientState({}, {kTask0_1}, warmed1, 5, kPid2));
  states.emplace(kPid3, ClientState({}, {kTask1_0}, warmed2, 5, kPid3));
  EXPECT_FALSE(assign(states, four, four, configs(0, 4 / 3 + 1, 0)));
  EXPECT_TRUE(valid_assignment(0, 0, four, {}, states));
  EXPECT_TRUE(balanced_active_assignment(states));
  EXPECT_TRUE(balanced_stateful_assignment(four, states));
  EXPECT_TRUE(skewed_subtopologies(states, 1).empty());
}

// A stateless task that nobody ran is simply assigned; no probing.
TEST(HighAvailabilityTaskAssignorTest, shouldComputeNewAssignmentIfThereAreUnassignedActiveTasks) {
  ClientStates states;
  states.emplace(kPid1, ClientState({kTask0_0}, {}, {{kTask0_0, 0}}, 1, kPid1));
  EXPECT_FALSE(assign(states, {kTask0_0, kTask0_1}, {kTask0_0}, without_standbys()));
  EXPECT_EQ(states.at(kPid1).active_task_count(), 2);
  EXPECT_EQ(states.at(kPid1).standby_task_count(), 0);
}

// A missing standby is placed on the caught-up second client; no probing.
TEST(HighAvailabilityTaskAssignorTest, shouldComputeNewAssignmentIfThereAreUnassignedStandbyTasks) {
  ClientStates states;
  states.emplace(kPid1, ClientState({kTask0_0}, {}, {{kTask0_0, 0}}, 1, kPid1));
  states.emplace(kPid2, ClientState({}, {}, {{kTask0_0, 0}}, 1, kPid2));
  EXPECT_FALSE(assign(states, {kTask0_0}, {kTask0_0}, with_standbys()));
  EXPECT_FALSE(states.at(kPid2).standby_tasks().empty());
  EXPECT_TRUE(valid_assignment(1, 0, {kTask0_0}, {}, states));
}

// The balanced target puts 0_0 on a client that is 500 behind; it goes to the caught-up client
// and the target warms up.
TEST(HighAvailabilityTaskAssignorTest,
     shouldComputeNewAssignmentIfActiveTasksWasNotOnCaughtUpClient) {
  ClientStates states;
  states.emplace(kPid1, ClientState({kTask0_0}, {}, {{kTask0_0, 500}}, 1, kPid1));
  states.emplace(kPid2, ClientState({kTask0_1}, {}, {{kTask0_0, 0}}, 1, kPid2));
  EXPECT_TRUE(assign(states, {kTask0_0, kTask0_1}, {kTask0_0}, without_standbys()));
  EXPECT_EQ(states.at(kPid1).active_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(states.at(kPid2).active_tasks(), tasks({kTask0_0}));
  EXPECT_TRUE(valid_assignment(0, 1, {kTask0_0, kTask0_1}, {}, states));
}

// Nobody is caught up: the active goes to the least lagging client, the standby stays with the
// next, and the intended owner warms up.
TEST(HighAvailabilityTaskAssignorTest,
     shouldAssignToMostCaughtUpIfActiveTasksWasNotOnCaughtUpClient) {
  ClientStates states;
  states.emplace(kPid1, ClientState({}, {}, {{kTask0_0, kLongMax}}, 1, kPid1));
  states.emplace(kPid2, ClientState({}, {}, {{kTask0_0, 1000}}, 1, kPid2));
  states.emplace(kPid3, ClientState({}, {}, {{kTask0_0, 500}}, 1, kPid3));
  EXPECT_TRUE(assign(states, {kTask0_0}, {kTask0_0}, with_standbys()));
  EXPECT_TRUE(states.at(kPid1).active_tasks().empty());
  EXPECT_TRUE(states.at(kPid2).active_tasks().empty());
  EXPECT_EQ(states.at(kPid3).active_tasks(), tasks({kTask0_0}));
  EXPECT_EQ(states.at(kPid1).standby_tasks(), tasks({kTask0_0}));  // warmup
  EXPECT_EQ(states.at(kPid2).standby_tasks(), tasks({kTask0_0}));  // standby
  EXPECT_TRUE(states.at(kPid3).standby_tasks().empty());
}

// Each caught-up client keeps its active and holds the other's standby.
TEST(HighAvailabilityTaskAssignorTest, shouldAssignStandbysForStatefulTasks) {
  const std::set<TaskId> stateful = {kTask0_0, kTask0_1};
  ClientStates states =
      client_states_map({client_with_previous_caught_up_tasks({kTask0_0}, stateful, kPid1),
                         client_with_previous_caught_up_tasks({kTask0_1}, stateful, kPid2)});
  EXPECT_FALSE(assign(states, stateful, stateful, with_standbys()));
  EXPECT_EQ(states.at(kPid1).active_tasks(), tasks({kTask0_0}));
  EXPECT_EQ(states.at(kPid2).active_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(states.at(kPid1).standby_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(states.at(kPid2).standby_tasks(), tasks({kTask0_0}));
}

// Stateless tasks never get standbys, even with num.standby.replicas = 1.
TEST(HighAvailabilityTaskAssignorTest, shouldNotAssignStandbysForStatelessTasks) {
  ClientStates states = client_states_map({client_with_previous_caught_up_tasks({}, {}, kPid1),
                                           client_with_previous_caught_up_tasks({}, {}, kPid2)});
  EXPECT_FALSE(assign(states, {kTask0_0, kTask0_1}, {}, with_standbys()));
  EXPECT_EQ(states.at(kPid1).active_task_count(), 1);
  EXPECT_EQ(states.at(kPid2).active_task_count(), 1);
  EXPECT_EQ(states.at(kPid1).standby_task_count() + states.at(kPid2).standby_task_count(), 0);
}

// Warmups exist even with no standbys configured.
TEST(HighAvailabilityTaskAssignorTest,
     shouldAssignWarmupReplicasEvenIfNoStandbyReplicasConfigured) {
  const std::set<TaskId> stateful = {kTask0_0, kTask0_1};
  ClientStates states =
      client_states_map({client_with_previous_caught_up_tasks(stateful, stateful, kPid1),
                         client_with_previous_caught_up_tasks({}, stateful, kPid2)});
  EXPECT_TRUE(assign(states, stateful, stateful, without_standbys()));
  EXPECT_EQ(states.at(kPid1).active_tasks(), stateful);
  EXPECT_EQ(states.at(kPid2).standby_task_count(), 1);
  EXPECT_EQ(states.at(kPid1).standby_task_count(), 0);
  EXPECT_TRUE(states.at(kPid2).active_tasks().empty());
}

// max.warmup.replicas = 1 allows exactly one warmup although two tasks want to move.
TEST(HighAvailabilityTaskAssignorTest, shouldNotAssignMoreThanMaxWarmupReplicas) {
  ClientStates states =
      client_states_map({client_with_previous_caught_up_tasks(kFourTasks, kFourTasks, kPid1),
                         client_with_previous_caught_up_tasks({}, kFourTasks, kPid2)});
  EXPECT_TRUE(assign(states, kFourTasks, kFourTasks, configs(100, 1, 0)));
  EXPECT_EQ(states.at(kPid1).active_tasks(), kFourTasks);
  EXPECT_EQ(states.at(kPid2).standby_task_count(), 1);
  EXPECT_EQ(states.at(kPid1).standby_task_count(), 0);
  EXPECT_TRUE(states.at(kPid2).active_tasks().empty());
}

// A client never holds a warmup and a standby of the same task: with one standby each, client 2
// holds every task once.
TEST(HighAvailabilityTaskAssignorTest, shouldNotAssignWarmupAndStandbyToTheSameClient) {
  ClientStates states =
      client_states_map({client_with_previous_caught_up_tasks(kFourTasks, kFourTasks, kPid1),
                         client_with_previous_caught_up_tasks({}, kFourTasks, kPid2)});
  EXPECT_TRUE(assign(states, kFourTasks, kFourTasks, configs(100, 1, 1)));
  EXPECT_EQ(states.at(kPid1).active_tasks(), kFourTasks);
  EXPECT_EQ(states.at(kPid2).standby_tasks(), kFourTasks);
  EXPECT_EQ(states.at(kPid1).standby_task_count(), 0);
  EXPECT_TRUE(states.at(kPid2).active_tasks().empty());
}

// A single client cannot hold standbys of its own actives.
TEST(HighAvailabilityTaskAssignorTest, shouldNotAssignAnyStandbysWithInsufficientCapacity) {
  const std::set<TaskId> stateful = {kTask0_0, kTask0_1};
  ClientStates states =
      client_states_map({client_with_previous_caught_up_tasks(stateful, stateful, kPid1)});
  EXPECT_FALSE(assign(states, stateful, stateful, with_standbys()));
  EXPECT_EQ(states.at(kPid1).active_tasks(), stateful);
  EXPECT_EQ(states.at(kPid1).standby_task_count(), 0);
}

// With no caught-up client at all, the only client takes everything without probing.
TEST(HighAvailabilityTaskAssignorTest, shouldAssignActiveTasksToNotCaughtUpClientIfNoneExist) {
  const std::set<TaskId> stateful = {kTask0_0, kTask0_1};
  ClientStates states =
      client_states_map({client_with_previous_caught_up_tasks({}, stateful, kPid1)});
  EXPECT_FALSE(assign(states, stateful, stateful, with_standbys()));
  EXPECT_EQ(states.at(kPid1).active_tasks(), stateful);
  EXPECT_EQ(states.at(kPid1).standby_task_count(), 0);
}

// Standbys and warmups together stay within one standby per task plus two warmups.
TEST(HighAvailabilityTaskAssignorTest, shouldNotAssignMoreThanMaxWarmupReplicasWithStandbys) {
  ClientStates states =
      client_states_map({client_with_previous_caught_up_tasks(kFourTasks, kFourTasks, kPid1),
                         client_with_previous_caught_up_tasks({}, kFourTasks, kPid2),
                         client_with_previous_caught_up_tasks({}, kFourTasks, kPid3)});
  EXPECT_TRUE(assign(states, kFourTasks, kFourTasks, with_standbys()));
  EXPECT_TRUE(valid_assignment(1, 2, kFourTasks, {}, states));
}

// Stateless tasks go to the clients with the fewest actives, so client 2 gets them all while
// client 1 keeps every stateful active.
TEST(HighAvailabilityTaskAssignorTest, shouldDistributeStatelessTasksToBalanceTotalTaskLoad) {
  const std::set<TaskId> stateless = {kTask1_0, kTask1_1, kTask1_2};
  std::set<TaskId> all = kFourTasks;
  all.insert(stateless.begin(), stateless.end());
  ClientStates states =
      client_states_map({client_with_previous_caught_up_tasks(kFourTasks, kFourTasks, kPid1),
                         client_with_previous_caught_up_tasks({}, kFourTasks, kPid2)});
  EXPECT_TRUE(assign(states, all, kFourTasks, with_standbys()));
  EXPECT_TRUE(valid_assignment(1, 2, kFourTasks, stateless, states));
  EXPECT_TRUE(balanced_active_assignment(states));
  EXPECT_TRUE(balanced_stateful_assignment(kFourTasks, states));
  EXPECT_FALSE(skewed_subtopologies(states, 1).empty());
  EXPECT_EQ(states.at(kPid2).active_tasks(), stateless);
}

// Even a one-thread client beside clients with 100 and 50 threads gets an active.
TEST(HighAvailabilityTaskAssignorTest, shouldDistributeStatefulActiveTasksToAllClients) {
  const std::set<TaskId> all = {kTask0_0, kTask0_1, kTask0_2, kTask0_3, kTask1_0,
                                kTask1_1, kTask1_2, kTask1_3, kTask2_0};
  ClientStates states = client_states_map({ClientState({}, {}, lags_of(all, 0), 100),
                                           ClientState({}, {}, lags_of(all, 0), 50),
                                           ClientState({}, {}, lags_of(all, 0), 1)});
  EXPECT_FALSE(assign(states, all, all, without_standbys()));
  for (const auto& [pid, state] : states) EXPECT_FALSE(state.active_tasks().empty());
}

// When the previous owners are caught up on what the balanced target gives them, nothing moves and
// no probing rebalance is asked for.
TEST(HighAvailabilityTaskAssignorTest, shouldReturnFalseIfPreviousAssignmentIsReused) {
  ClientStates states = client_states_map(
      {client_with_previous_caught_up_tasks({kTask0_0, kTask0_2}, kFourTasks, kPid1),
       client_with_previous_caught_up_tasks({kTask0_1, kTask0_3}, kFourTasks, kPid2)});
  EXPECT_FALSE(assign(states, kFourTasks, kFourTasks, without_standbys()));
  EXPECT_EQ(states.at(kPid1).active_tasks(), states.at(kPid1).prev_active_tasks());
  EXPECT_EQ(states.at(kPid2).active_tasks(), states.at(kPid2).prev_active_tasks());
}

// Only stateless tasks: no warmups, no probing.
TEST(HighAvailabilityTaskAssignorTest, shouldReturnFalseIfNoWarmupTasksAreAssigned) {
  ClientStates states = client_states_map({client_with_previous_caught_up_tasks({}, {}, kPid1),
                                           client_with_previous_caught_up_tasks({}, {}, kPid2)});
  EXPECT_FALSE(assign(states, kFourTasks, {}, without_standbys()));
  EXPECT_EQ(states.at(kPid1).standby_task_count() + states.at(kPid2).standby_task_count(), 0);
}

// A task with no caught-up target client needs a warmup, hence a probing rebalance.
TEST(HighAvailabilityTaskAssignorTest, shouldReturnTrueIfWarmupTasksAreAssigned) {
  const std::set<TaskId> stateful = {kTask0_0, kTask0_1};
  ClientStates states =
      client_states_map({client_with_previous_caught_up_tasks(stateful, stateful, kPid1),
                         client_with_previous_caught_up_tasks({}, stateful, kPid2)});
  EXPECT_TRUE(assign(states, stateful, stateful, without_standbys()));
  EXPECT_EQ(states.at(kPid2).standby_task_count(), 1);
}

// Stateless tasks alone spread by threads: 7 tasks over capacities 1, 2 and 3.
TEST(
    HighAvailabilityTaskAssignorTest,
    shouldDistributeStatelessTasksEvenlyOverClientsWithUnevenlyDistributedStreamThreadsAndNoStatefulTasks) {
  const std::set<TaskId> all = {kTask0_0, kTask0_1, kTask0_2, kTask0_3,
                                kTask1_0, kTask1_1, kTask1_2};
  ClientStates states = client_states_map(
      {ClientState({}, {}, {}, 1), ClientState({}, {}, {}, 2), ClientState({}, {}, {}, 3)});
  EXPECT_FALSE(assign(states, all, {}, configs(0, 1, 0)));
  EXPECT_TRUE(valid_assignment(0, 0, {}, all, states));
  EXPECT_TRUE(balanced_active_assignment(states));
}

// Scale-out from one client to three, with lags from offset sums: a task moves only to a client
// that is caught up; the others warm up two at a time (max.warmup.replicas) over probing
// rebalances until the balanced assignment is reached and probing stops.
TEST(HighAvailabilityTaskAssignorTest, scaleOutFromOneToThreeClientsMovesTasksOnlyWhenCaughtUp) {
  const std::set<TaskId> six = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}};
  const std::map<TaskId, int64_t> end_offset_sums = lags_of(six, 50'000);
  // What each client reports in each round: LATEST_OFFSET for what it runs, 49,000 (lag 1,000,
  // within the default acceptable.recovery.lag of 10,000) for a warmup that has caught up.
  const auto round = [&](std::map<ProcessId, std::map<TaskId, int64_t>> reported) {
    ClientStates states;
    for (const ProcessId pid : {kPid1, kPid2, kPid3}) {
      ClientState state(pid, 1);
      state.add_previous_tasks_and_offset_sums(pid.to_string() + "-StreamThread-1", reported[pid]);
      state.initialize_prev_tasks(six);
      state.compute_task_lags(end_offset_sums);
      states.emplace(pid, std::move(state));
    }
    return states;
  };
  const AssignmentConfigs defaults;

  ClientStates r1 = round({{kPid1, lags_of(six, kLatest)}});
  EXPECT_EQ(r1.at(kPid2).lag_for({0, 1}), 50'000);
  EXPECT_TRUE(assign(r1, six, six, defaults));
  EXPECT_EQ(r1.at(kPid1).active_tasks(), six);  // nothing moves to a client with no state
  EXPECT_EQ(r1.at(kPid2).standby_tasks(), tasks({{0, 1}}));  // the two warmups, by TaskId
  EXPECT_EQ(r1.at(kPid3).standby_tasks(), tasks({{0, 2}}));

  ClientStates r2 = round(
      {{kPid1, lags_of(six, kLatest)}, {kPid2, {{{0, 1}, 49'000}}}, {kPid3, {{{0, 2}, 49'000}}}});
  EXPECT_TRUE(assign(r2, six, six, defaults));
  EXPECT_EQ(r2.at(kPid1).active_tasks(), tasks({{0, 0}, {0, 3}, {0, 4}, {0, 5}}));
  EXPECT_EQ(r2.at(kPid2).active_tasks(), tasks({{0, 1}}));  // caught up: moved
  EXPECT_EQ(r2.at(kPid3).active_tasks(), tasks({{0, 2}}));
  EXPECT_EQ(r2.at(kPid2).standby_tasks(), tasks({{0, 4}}));  // next warmups
  EXPECT_EQ(r2.at(kPid3).standby_tasks(), tasks({{0, 5}}));

  ClientStates r3 =
      round({{kPid1, {{{0, 0}, kLatest}, {{0, 3}, kLatest}, {{0, 4}, kLatest}, {{0, 5}, kLatest}}},
             {kPid2, {{{0, 1}, kLatest}, {{0, 4}, 49'000}}},
             {kPid3, {{{0, 2}, kLatest}, {{0, 5}, 49'000}}}});
  EXPECT_FALSE(assign(r3, six, six, defaults));
  EXPECT_EQ(r3.at(kPid1).active_tasks(), tasks({{0, 0}, {0, 3}}));
  EXPECT_EQ(r3.at(kPid2).active_tasks(), tasks({{0, 1}, {0, 4}}));
  EXPECT_EQ(r3.at(kPid3).active_tasks(), tasks({{0, 2}, {0, 5}}));
  for (const auto& [pid, state] : r3) EXPECT_TRUE(state.standby_tasks().empty());
}

// After a client dies, the survivor with a caught-up standby takes the orphaned active at once,
// without warmup or probing; standbys that have no better home stay where they are.
TEST(HighAvailabilityTaskAssignorTest, failoverPromotesCaughtUpStandbyWithoutProbing) {
  const std::set<TaskId> three = {kTask0_0, kTask0_1, kTask0_2};
  ClientStates states;
  states.emplace(kPid1,
                 ClientState({kTask0_0}, {kTask0_2},
                             {{kTask0_0, kLatest}, {kTask0_1, 50'000}, {kTask0_2, 10}}, 1, kPid1));
  states.emplace(kPid2,
                 ClientState({kTask0_1}, {kTask0_0},
                             {{kTask0_0, 10}, {kTask0_1, kLatest}, {kTask0_2, 50'000}}, 1, kPid2));
  EXPECT_FALSE(assign(states, three, three, configs(10'000, 2, 1)));
  EXPECT_EQ(states.at(kPid1).active_tasks(), tasks({kTask0_0, kTask0_2}));
  EXPECT_EQ(states.at(kPid1).standby_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(states.at(kPid2).active_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(states.at(kPid2).standby_tasks(), tasks({kTask0_0, kTask0_2}));
}

// Caught-up means LATEST_OFFSET or 0 <= lag <= acceptable.recovery.lag; UNKNOWN_OFFSET_SUM (-3)
// is not caught up yet sorts first by lag, before a running active.
TEST(HighAvailabilityTaskAssignorTest, caughtUpClientsAndLagOrderFollowKafkasSentinels) {
  ClientStates states;
  states.emplace(kPid1, ClientState({}, {}, {{kTask0_0, 101}}, 1));
  states.emplace(kPid2, ClientState({}, {}, {{kTask0_0, kLatest}}, 1));
  states.emplace(kPid3, ClientState({}, {}, {{kTask0_0, ClientState::kUnknownOffsetSum}}, 1));
  states.emplace(kPid4, ClientState({}, {}, {{kTask0_0, 100}}, 1));
  const auto caught_up =
      HighAvailabilityTaskAssignor::tasks_to_caught_up_clients({kTask0_0}, states, 100);
  EXPECT_EQ(caught_up.at(kTask0_0), (std::set<ProcessId>{kPid2, kPid4}));
  const auto everyone = HighAvailabilityTaskAssignor::tasks_to_caught_up_clients(
      {kTask0_0}, states, AssignmentConfigs::kUnboundedRecoveryLag);
  EXPECT_EQ(everyone.at(kTask0_0).size(), 4u);
  const auto by_lag = HighAvailabilityTaskAssignor::tasks_to_client_by_lag({kTask0_0}, states);
  EXPECT_EQ(by_lag.at(kTask0_0), (std::vector<ProcessId>{kPid3, kPid2, kPid4, kPid1}));
}

// Clients are walked in Java's signed UUID order: a ProcessId with the top bit set comes first
// and gets the first task of the round-robin.
TEST(HighAvailabilityTaskAssignorTest, roundRobinFollowsSignedUuidOrder) {
  const ProcessId high_bit = *ProcessId::from_string("80000000-0000-0000-0000-000000000000");
  const std::set<TaskId> two = {kTask0_0, kTask0_1};
  ClientStates states;
  states.emplace(kPid1, ClientState({}, {}, lags_of(two, 0), 1, kPid1));
  states.emplace(high_bit, ClientState({}, {}, lags_of(two, 0), 1, high_bit));
  EXPECT_FALSE(assign(states, two, two, without_standbys()));
  EXPECT_EQ(states.at(high_bit).active_tasks(), tasks({kTask0_0}));
  EXPECT_EQ(states.at(kPid1).active_tasks(), tasks({kTask0_1}));
}

// splitmix64, so that the larger inputs below are the same on every machine.
struct SplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
  }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
};

struct Input {
  std::vector<std::pair<ProcessId, ClientState>> clients;
  std::set<TaskId> all;
  std::set<TaskId> stateful;
};

Input random_input(uint64_t seed, int32_t num_clients, int32_t num_subtopologies) {
  SplitMix rng{seed};
  Input in;
  for (int32_t s = 0; s < num_subtopologies; ++s) {
    const bool stateful = rng.below(4) != 0;
    for (int32_t p = 0; p < 3; ++p) {
      in.all.insert({s, p});
      if (stateful) in.stateful.insert({s, p});
    }
  }
  static constexpr int64_t kLagChoices[] = {kLatest, 0, 50, 5'000, 20'000, 1'000'000};
  for (int32_t c = 0; c < num_clients; ++c) {
    const ProcessId pid(static_cast<int64_t>(rng.next()), static_cast<int64_t>(rng.next()));
    std::map<TaskId, int64_t> lags;
    for (const TaskId& t : in.stateful) lags[t] = kLagChoices[rng.below(6)];
    const auto capacity = static_cast<int32_t>(1 + rng.below(3));
    in.clients.emplace_back(pid, ClientState({}, {}, std::move(lags), capacity, pid));
  }
  return in;
}

std::string run(const Input& in, bool reverse_insertion, const AssignmentConfigs& cfg) {
  ClientStates states;
  if (reverse_insertion) {
    for (auto it = in.clients.rbegin(); it != in.clients.rend(); ++it) states.insert(*it);
  } else {
    for (const auto& entry : in.clients) states.insert(entry);
  }
  const bool probing = assign(states, in.all, in.stateful, cfg);
  return (probing ? "probing\n" : "stable\n") + describe(states);
}

// The same input gives the same assignment whatever order the clients were added in, and on
// every run.
TEST(HighAvailabilityTaskAssignorTest, sameInputGivesSameAssignmentRegardlessOfClientOrder) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Input in = random_input(seed, 7, 5);
    const AssignmentConfigs cfg = configs(100, 2, static_cast<int32_t>(seed % 3));
    const std::string forward = run(in, false, cfg);
    EXPECT_EQ(forward, run(in, true, cfg)) << "seed " << seed;
    EXPECT_EQ(forward, run(in, false, cfg)) << "seed " << seed;
  }
}

// shouldAssignRandomInput: 50 clients, 60 subtopologies of 3 tasks, 3 standbys, everyone caught
// up: a valid assignment with no warmups and balanced actives.
TEST(HighAvailabilityTaskAssignorTest, shouldAssignRandomInput) {
  SplitMix rng{42};
  std::set<TaskId> all;
  std::set<TaskId> stateful;
  for (int32_t s = 0; s < 60; ++s) {
    for (int32_t p = 0; p < 3; ++p) {
      all.insert({s, p});
      if (rng.below(2) == 0) stateful.insert({s, p});
    }
  }
  std::set<TaskId> stateless;
  for (const TaskId& t : all) {
    if (!stateful.contains(t)) stateless.insert(t);
  }
  ClientStates states;
  for (int64_t i = 1; i <= 50; ++i) {
    const auto capacity = static_cast<int32_t>(1 + rng.below(3));
    states.emplace(ProcessId::for_int(i), ClientState({}, {}, lags_of(stateful, 0), capacity));
  }
  EXPECT_FALSE(assign(states, all, stateful, configs(100, 2, 3)));
  EXPECT_TRUE(valid_assignment(3, 0, stateful, stateless, states));
  EXPECT_TRUE(balanced_active_assignment(states));
}

// A case found by comparing this port with Kafka's assignor on random inputs: a textbook priority
// queue (always the true minimum) hands 0_2's standby to another client, while Kafka's
// java.util.PriorityQueue, whose layout this port copies, gives the result below (printed by
// Kafka's own classes).
TEST(HighAvailabilityTaskAssignorTest, matchesKafkaWhereATextbookHeapWouldNot) {
  const std::set<TaskId> all = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}};
  const std::set<TaskId> stateful = {{0, 0}, {0, 2}, {0, 4}, {0, 5}};
  struct Row {
    int64_t msb, lsb;
    int32_t capacity;
    int64_t lag0_0, lag0_2, lag0_4, lag0_5;
  };
  const Row rows[] = {
      {970616217803961494, 1487164429052238033, 2, 20000, 1000000, 1000000, -2},
      {-8047549517149955534, 6350458186753423719, 4, 150, 20000, 20000, 150},
      {-1225687029818618815, -6016010857009667649, 10, 1000000, 90, 90, 0},
      {2941992190020840850, -788175658120810641, 1, 9000, 1000000, 5, 0},
      {5238153195393212506, 7700400331902021797, 4, 150, 5, 150, 20000},
      {4324591900514118879, 5381083740835643716, 10, 9000, 0, 9000, 1000000},
      {6006039551411074463, 3312956560720163120, 2, -2, 150, 1000000, 5},
      {4219860511231539103, 1804202363430644422, 1, 5, 5, 1000000, 5},
      {-2568368425599958562, 3592586153757748440, 2, 1000000, 9000, 150, 1000000},
      {6990887382441580857, -4593375836295408542, 10, 150, -2, 1000000, 1000000},
      {-2208892771047024578, -797228745930363445, 3, 20000, 0, 90, 90},
      {-6213179874260832653, 5438692197028406166, 2, 1000000, 1000000, 90, 1000000},
  };
  ClientStates states;
  for (const Row& r : rows) {
    const ProcessId pid(r.msb, r.lsb);
    states.emplace(
        pid, ClientState(
                 {}, {},
                 {{{0, 0}, r.lag0_0}, {{0, 2}, r.lag0_2}, {{0, 4}, r.lag0_4}, {{0, 5}, r.lag0_5}},
                 r.capacity, pid));
  }
  EXPECT_TRUE(assign(states, all, stateful, configs(10'000, 2, 2)));
  std::string got;
  for (const auto& [pid, state] : states) {
    std::string active;
    std::string standby;
    for (const TaskId& t : state.active_tasks()) active += " " + t.to_string();
    for (const TaskId& t : state.standby_tasks()) standby += " " + t.to_string();
    got += pid.to_string() + " A[" + active + " ] S[" + standby + " ]\n";
  }
  EXPECT_EQ(got,
            "90515c5a-15e9-1a32-5821-5c131e68b967 A[ 0_0 ] S[ ]\n"
            "a9c659d2-bd13-ae73-4b7a-1dbcde912396 A[ 0_1 ] S[ ]\n"
            "dc5b5286-53c9-01de-31db-6e128fb7acd8 A[ 0_4 ] S[ ]\n"
            "e1586fba-5ad0-583e-f4ef-acadf2172dcb A[ 0_5 ] S[ ]\n"
            "eefd7c23-eddb-8c41-ac82-d5ffef0ba1bf A[ 0_3 ] S[ 0_0 0_5 ]\n"
            "0d78524e-bb70-3496-14a3-782b3c4158d1 A[ ] S[ 0_0 ]\n"
            "28d40e4f-3a2a-6d92-f50f-d66a35196f6f A[ ] S[ ]\n"
            "3a8ff4c6-f5a7-779f-1909-d07d8f342ac6 A[ 0_2 ] S[ ]\n"
            "3c04096b-bcac-ecdf-4aad-7326ef238144 A[ ] S[ 0_0 0_2 0_4 ]\n"
            "48b1a894-0a7d-605a-6add-514dab51f0a5 A[ ] S[ 0_4 ]\n"
            "5359bd26-90cd-b59f-2df9-fc706e067130 A[ ] S[ 0_5 ]\n"
            "61049f08-f730-d939-c041-0d037dbfd462 A[ ] S[ 0_0 0_2 ]\n");
}

}  // namespace
}  // namespace iq
