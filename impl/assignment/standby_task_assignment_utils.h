#pragma once
// StandbyTaskAssignmentUtils (A/StandbyTaskAssignmentUtils.java): the pieces the standby
// assignors share.

#include <cstdint>
#include <map>
#include <set>

#include "assignment/constrained_priority_set.h"
#include "assignment/task_movement.h"

namespace iq {

// Clients by total assigned load (actives and standbys per thread); a client qualifies for a task
// only if it holds no copy of it yet. The set reads `clients` live, so it must not outlive it.
ConstrainedPrioritySet create_least_loaded_priority_set_constrained_by_assigned_task(
    const ClientStates& clients);

// Give `task` standbys on the least loaded eligible clients until it has its remaining count or
// no client qualifies. Updates `tasks_to_remaining_standbys` and returns how many standbys could
// not be placed (Kafka logs a warning naming that number).
int32_t poll_client_and_maybe_assign_and_update_remaining_standby_tasks(
    ClientStates& clients, std::map<TaskId, int32_t>& tasks_to_remaining_standbys,
    ConstrainedPrioritySet& standby_task_clients_by_task_load, const TaskId& task);

// Every stateful task starts with num.standby.replicas standbys to place.
std::map<TaskId, int32_t> compute_tasks_to_remaining_standbys(
    int32_t num_standby_replicas, const std::set<TaskId>& stateful_task_ids);

}  // namespace iq
