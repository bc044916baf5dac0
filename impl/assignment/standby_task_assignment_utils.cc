#include "assignment/standby_task_assignment_utils.h"

#include "base/assert.h"

namespace iq {

ConstrainedPrioritySet create_least_loaded_priority_set_constrained_by_assigned_task(
    const ClientStates& clients) {
  return ConstrainedPrioritySet(
      [&clients](const ProcessId& client, const TaskId& task) {
        return !clients.at(client).has_assigned_task(task);
      },
      [&clients](const ProcessId& client) { return clients.at(client).assigned_task_load(); });
}

int32_t poll_client_and_maybe_assign_and_update_remaining_standby_tasks(
    ClientStates& clients, std::map<TaskId, int32_t>& tasks_to_remaining_standbys,
    ConstrainedPrioritySet& standby_task_clients_by_task_load, const TaskId& task) {
  const auto remaining = tasks_to_remaining_standbys.find(task);
  IQ_ASSERT(remaining != tasks_to_remaining_standbys.end(), "no standby count for task {}",
            task.to_string());
  int32_t num_remaining_standbys = remaining->second;
  // Bounded: a client that takes the task no longer qualifies, so at most |clients| turns.
  while (num_remaining_standbys > 0) {
    const std::optional<ProcessId> client = standby_task_clients_by_task_load.poll(task);
    if (!client) break;
    clients.at(*client).assign_standby(task);
    --num_remaining_standbys;
    standby_task_clients_by_task_load.offer(*client);
    remaining->second = num_remaining_standbys;
  }
  // Kafka: "Unable to assign {} of {} standby tasks for task [{}]. There is not enough available
  // capacity. You should increase the number of application instances to maintain the requested
  // number of standby replicas." Returned instead of logged.
  return num_remaining_standbys > 0 ? num_remaining_standbys : 0;
}

std::map<TaskId, int32_t> compute_tasks_to_remaining_standbys(
    int32_t num_standby_replicas, const std::set<TaskId>& stateful_task_ids) {
  std::map<TaskId, int32_t> remaining;
  for (const TaskId& task : stateful_task_ids) remaining.emplace(task, num_standby_replicas);
  return remaining;
}

}  // namespace iq
