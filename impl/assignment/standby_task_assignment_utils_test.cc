// The standby helpers place as many standbys as clients without a copy allow and report the rest.
// Ported from Kafka's StandbyTaskAssignmentUtilsTest.
#include "assignment/standby_task_assignment_utils.h"

#include <gtest/gtest.h>

#include "assignment/assignment_test_utils.h"
#include "assignment/default_standby_task_assignor.h"

namespace iq {
namespace {

using namespace assignment_test;  // NOLINT: test constants

const std::set<TaskId> kActiveTasks = {kTask0_0, kTask0_1, kTask0_2};

// Three one-task clients: client n runs task 0_(n-1).
ClientStates three_clients() {
  std::vector<ClientState> states;
  for (const TaskId& t : kActiveTasks) {
    ClientState s(1);
    s.assign_active(t);
    states.push_back(std::move(s));
  }
  return client_states_map(std::move(states));
}

int32_t standbys_of(const ClientStates& clients, const TaskId& task) {
  int32_t n = 0;
  for (const auto& entry : clients) n += entry.second.has_standby_task(task) ? 1 : 0;
  return n;
}

// With three clients a task can have only two standbys; the third is reported as not assigned.
TEST(StandbyTaskAssignmentUtilsTest, shouldReturnNumberOfStandbyTasksThatWereNotAssigned) {
  ClientStates clients = three_clients();
  ConstrainedPrioritySet by_load =
      create_least_loaded_priority_set_constrained_by_assigned_task(clients);
  by_load.offer_all(std::vector<ProcessId>{kPid1, kPid2, kPid3});
  std::map<TaskId, int32_t> remaining = compute_tasks_to_remaining_standbys(3, kActiveTasks);
  for (const TaskId& t : kActiveTasks) {
    EXPECT_EQ(poll_client_and_maybe_assign_and_update_remaining_standby_tasks(clients, remaining,
                                                                              by_load, t),
              1);
  }
  for (const TaskId& t : kActiveTasks) {
    EXPECT_EQ(remaining.at(t), 1);
    EXPECT_EQ(standbys_of(clients, t), 2);
  }
}

// One standby per task fits, so nothing is left over.
TEST(StandbyTaskAssignmentUtilsTest, shouldReturnZeroWhenAllStandbyTasksWereSuccessfullyAssigned) {
  ClientStates clients = three_clients();
  ConstrainedPrioritySet by_load =
      create_least_loaded_priority_set_constrained_by_assigned_task(clients);
  by_load.offer_all(std::vector<ProcessId>{kPid1, kPid2, kPid3});
  std::map<TaskId, int32_t> remaining = compute_tasks_to_remaining_standbys(1, kActiveTasks);
  for (const TaskId& t : kActiveTasks) {
    EXPECT_EQ(poll_client_and_maybe_assign_and_update_remaining_standby_tasks(clients, remaining,
                                                                              by_load, t),
              0);
    EXPECT_EQ(remaining.at(t), 0);
    EXPECT_EQ(standbys_of(clients, t), 1);
  }
  const std::map<TaskId, int32_t> five{{kTask0_0, 5}, {kTask0_1, 5}, {kTask0_2, 5}};
  EXPECT_EQ(compute_tasks_to_remaining_standbys(5, kActiveTasks), five);
}

// The default assignor fills the least loaded clients first and never asks for probing.
TEST(StandbyTaskAssignmentUtilsTest, defaultStandbyTaskAssignorPrefersLeastLoadedClients) {
  ClientStates clients = three_clients();
  clients.at(kPid1).assign_active(kTask1_0);  // client 1 is the busiest
  AssignmentConfigs cfg = configs(0, 1, 1);
  EXPECT_FALSE(DefaultStandbyTaskAssignor().assign(clients, kActiveTasks, kActiveTasks, cfg));
  // 0_0: clients 2 and 3 tie at load 1, the smaller id takes it. 0_1: client 3 (load 1) beats
  // client 1 (load 2). 0_2: clients 1 and 2 tie at load 2, the smaller id takes it.
  EXPECT_EQ(clients.at(kPid2).standby_tasks(), tasks({kTask0_0}));
  EXPECT_EQ(clients.at(kPid3).standby_tasks(), tasks({kTask0_1}));
  EXPECT_EQ(clients.at(kPid1).standby_tasks(), tasks({kTask0_2}));
}

}  // namespace
}  // namespace iq
