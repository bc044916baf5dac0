#pragma once
// HighAvailabilityTaskAssignor (A/HighAvailabilityTaskAssignor.java), the default
// internal.task.assignor.class: decides which client runs each task as active, which clients keep
// standbys and warmups, and whether a probing rebalance must follow. docs/cluster-model.md
// §3 outlines the steps; in short:
//   1. Stateful actives round-robin over clients in ProcessId order, then balanced by moving
//      tasks from the most to the least loaded clients (load = tasks per thread). History plays no
//      part here; stickiness comes from step 4 and from the determinism of steps 1-2.
//   2. num.standby.replicas standbys per stateful task on the least loaded clients without a copy
//      (DefaultStandbyTaskAssignor), then balanced the same way.
//   3. Per stateful task: the caught-up clients (lag kLatestOffset, or 0 <= lag <=
//      acceptable.recovery.lag, or everyone when that is Long.MAX_VALUE) and all clients by lag.
//   4. TaskMovement: actives on clients that are not caught up go back to caught-up (or the most
//      caught-up) clients, leaving warmups within the cluster-wide max.warmup.replicas budget.
//   5. The same for standbys.
//   6. Stateless tasks, in TaskId order, each to the client with the lowest active load.
//   Returns true (probing rebalance needed) iff step 4 or 5 scheduled any movement.
//
// Reproduced exactly, including Kafka's order of iteration and tie-breaks: every step above, the
// double arithmetic of the load comparisons, ProcessId's signed UUID order, java.util.
// PriorityQueue's heap layout (java_priority_queue.h) and the HashSet order in which
// ConstrainedPrioritySet re-offers skipped clients.
//
// Not reproduced:
// - Rack awareness (rack.aware.assignment.strategy min_traffic / balance_subtopology and
//   RackAwareTaskAssignor's min-cost-flow passes over actives, standbys and stateless tasks). Its
//   default is "none", under which Kafka skips those passes, so the result is Kafka's for the
//   default configuration.
// - Client tags (rack.aware.assignment.tags, ClientTagAwareStandbyTaskAssignor and its
//   tag-preserving standby balancing). Without tags Kafka uses DefaultStandbyTaskAssignor, as
//   iqsim always does.
// - The fallback when end offsets cannot be fetched (FallbackPriorTaskAssignor) and the other
//   assignors (LegacyStickyTaskAssignor, KIP-924's task.assignor.class) belong to
//   StreamsPartitionAssignor, not here.
// - Logging: Kafka logs the decided assignment; to_string() on each ClientState gives it.

#include <set>

#include "assignment/assignment_configs.h"
#include "assignment/task_movement.h"

namespace iq {

class HighAvailabilityTaskAssignor {
 public:
  // Fills the active and standby tasks of every ClientState in `clients` (which must have lags for
  // every task of `stateful_task_ids`, from compute_task_lags or the lags constructor). Returns
  // whether a probing rebalance is needed to finish moving tasks to their intended clients.
  // `warmups`, when given, receives the standbys created as warmups: Kafka keeps that set local to
  // the assignment and never tells the members, so only an observer (reports) asks for it.
  bool assign(ClientStates& clients, const std::set<TaskId>& all_task_ids,
              const std::set<TaskId>& stateful_task_ids, const AssignmentConfigs& configs,
              Warmups* warmups = nullptr);

  // Step 3, exposed because lag-aware callers (metadata, tests) want the same sets.
  static TasksToCaughtUpClients tasks_to_caught_up_clients(const std::set<TaskId>& stateful_tasks,
                                                           const ClientStates& client_states,
                                                           int64_t acceptable_recovery_lag);
  static TasksToClientByLag tasks_to_client_by_lag(const std::set<TaskId>& stateful_tasks,
                                                   const ClientStates& client_states);
};

}  // namespace iq
