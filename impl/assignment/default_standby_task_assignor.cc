#include "assignment/default_standby_task_assignor.h"

#include <map>

#include "assignment/standby_task_assignment_utils.h"

namespace iq {

bool DefaultStandbyTaskAssignor::assign(ClientStates& clients,
                                        const std::set<TaskId>& /*all_task_ids*/,
                                        const std::set<TaskId>& stateful_task_ids,
                                        const AssignmentConfigs& configs) {
  std::map<TaskId, int32_t> tasks_to_remaining_standbys =
      compute_tasks_to_remaining_standbys(configs.num_standby_replicas, stateful_task_ids);
  ConstrainedPrioritySet clients_by_task_load =
      create_least_loaded_priority_set_constrained_by_assigned_task(clients);
  for (const auto& entry : clients) clients_by_task_load.offer(entry.first);

  for (const TaskId& task : stateful_task_ids) {
    // The count of standbys that found no client is Kafka's warning; nothing acts on it.
    (void)poll_client_and_maybe_assign_and_update_remaining_standby_tasks(
        clients, tasks_to_remaining_standbys, clients_by_task_load, task);
  }
  return false;
}

}  // namespace iq
