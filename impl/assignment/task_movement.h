#pragma once
// TaskMovement (A/TaskMovement.java): after the balanced placement, send each task that landed on
// a client that is not caught up back to a client that is, and leave a warmup replica on the
// intended client so that it can take the task over in a later (probing) rebalance.
//
// Active movements, for every (client D, active task t) where D is not caught up on t and some
// client has a smaller lag, most constrained first (fewest caught-up clients, then TaskId):
//   1. the least loaded caught-up client that holds a standby of t swaps roles with D
//      (D keeps a standby; no warmup is used);
//   2. else the least loaded caught-up client takes t, and D keeps a standby as a warmup if the
//      cluster-wide warmup budget allows (else D drops t);
//   3. else the first client in lag order before D takes t: by swap if it has a standby of t,
//      else as in 2.
// Standby movements, for every standby that is not a warmup and sits on a client that is not
// caught up while a more caught-up client exists: the least loaded caught-up client without t
// (else the most caught-up eligible one before D) gets the standby, and D keeps its copy as a
// warmup if the budget allows. A movement that finds no client is not counted.
//
// Both return the number of movements; a positive total asks for a probing rebalance.

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "assignment/client_state.h"
#include "assignment/process_id.h"
#include "assignment/warmups.h"
#include "iq/task_id.h"

namespace iq {

// Per stateful task: the clients within acceptable.recovery.lag (or running it as active).
using TasksToCaughtUpClients = std::map<TaskId, std::set<ProcessId>>;
// Per stateful task: every client, most caught-up first (Kafka: a SortedSet by lag, ProcessId).
using TasksToClientByLag = std::map<TaskId, std::vector<ProcessId>>;
using ClientStates = std::map<ProcessId, ClientState>;

class TaskMovement {
 public:
  // `remaining_warmup_replicas` is Kafka's shared AtomicInteger: every move tries a decrement,
  // and it may go negative.
  static int32_t assign_active_task_movements(const TasksToCaughtUpClients& tasks_to_caught_up,
                                              const TasksToClientByLag& tasks_to_client_by_lag,
                                              ClientStates& client_states, Warmups& warmups,
                                              int32_t& remaining_warmup_replicas);

  static int32_t assign_standby_task_movements(const TasksToCaughtUpClients& tasks_to_caught_up,
                                               const TasksToClientByLag& tasks_to_client_by_lag,
                                               ClientStates& client_states,
                                               int32_t& remaining_warmup_replicas,
                                               const Warmups& warmups);
};

}  // namespace iq
