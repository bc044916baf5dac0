#include "assignment/high_availability_task_assignor.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <vector>

#include "assignment/constrained_priority_set.h"
#include "assignment/default_standby_task_assignor.h"
#include "base/assert.h"

namespace iq {

namespace {

using TaskSetAccessor = std::function<const std::set<TaskId>&(const ClientState&)>;
using TaskMutator = std::function<void(ClientState&, const TaskId&)>;
using MovementPredicate = std::function<bool(const ClientState&, const ClientState&)>;

// Moving one task from source to destination helps only if source is more loaded, and after the
// move it is still at least as loaded as destination but by less than before. The loads count
// actives and standbys even when actives are being balanced, as Kafka's do.
bool should_move_a_task(const ClientState& source, const ClientState& destination) {
  const double skew = source.assigned_task_load() - destination.assigned_task_load();
  if (skew <= 0) return false;
  const double proposed_at_destination =
      (destination.assigned_task_count() + 1.0) / destination.capacity();
  const double proposed_at_source = (source.assigned_task_count() - 1.0) / source.capacity();
  const double proposed_skew = proposed_at_source - proposed_at_destination;
  // A negative proposed skew would only create an imbalance the other way.
  if (proposed_skew < 0) return false;
  return proposed_skew < skew;
}

// Repeat passes over every (source, destination) pair in ProcessId order until a pass moves
// nothing. Bounded: a move happens only when skew > 0 and the proposed skew >= 0, which lowers
// the sum over clients of count^2 / capacity by (skew + proposed skew), so passes end.
void balance_tasks_over_threads(ClientStates& client_states, const TaskSetAccessor& tasks_of,
                                const TaskMutator& unassign, const TaskMutator& assign,
                                const MovementPredicate& movement_allowed) {
  bool keep_balancing = true;
  while (keep_balancing) {
    keep_balancing = false;
    for (auto& [source_client, source] : client_states) {
      for (auto& [destination_client, destination] : client_states) {
        if (source_client == destination_client) continue;
        // A sorted copy: moves below change the source's set.
        const std::vector<TaskId> source_tasks(tasks_of(source).begin(), tasks_of(source).end());
        for (auto it = source_tasks.begin();
             should_move_a_task(source, destination) && it != source_tasks.end(); ++it) {
          const TaskId& task = *it;
          if (destination.has_assigned_task(task) || !movement_allowed(source, destination)) {
            continue;
          }
          unassign(source, task);
          assign(destination, task);
          keep_balancing = true;
        }
      }
    }
  }
}

void assign_active_stateful_tasks(ClientStates& client_states,
                                  const std::set<TaskId>& stateful_tasks) {
  IQ_ASSERT(!client_states.empty() || stateful_tasks.empty(), "{} stateful tasks and no clients",
            stateful_tasks.size());
  auto client = client_states.end();
  for (const TaskId& task : stateful_tasks) {
    if (client == client_states.end()) client = client_states.begin();
    client->second.assign_active(task);
    ++client;
  }
  balance_tasks_over_threads(
      client_states,
      [](const ClientState& c) -> const std::set<TaskId>& { return c.active_tasks(); },
      [](ClientState& c, const TaskId& t) { c.unassign_active(t); },
      [](ClientState& c, const TaskId& t) { c.assign_active(t); },
      [](const ClientState&, const ClientState&) { return true; });
  // Kafka would run RackAwareTaskAssignor.optimizeActiveTasks here if rack awareness were on.
}

void assign_standby_replica_tasks(ClientStates& client_states, const std::set<TaskId>& all_task_ids,
                                  const std::set<TaskId>& stateful_tasks,
                                  const AssignmentConfigs& configs) {
  if (configs.num_standby_replicas == 0) return;
  DefaultStandbyTaskAssignor standby_task_assignor;
  (void)standby_task_assignor.assign(client_states, all_task_ids, stateful_tasks, configs);
  balance_tasks_over_threads(
      client_states,
      [](const ClientState& c) -> const std::set<TaskId>& { return c.standby_tasks(); },
      [](ClientState& c, const TaskId& t) { c.unassign_standby(t); },
      [](ClientState& c, const TaskId& t) { c.assign_standby(t); },
      [&standby_task_assignor](const ClientState& source, const ClientState& destination) {
        return standby_task_assignor.is_allowed_task_movement(source, destination);
      });
  // Kafka would run RackAwareTaskAssignor.optimizeStandbyTasks here if rack awareness were on.
}

void assign_stateless_active_tasks(ClientStates& client_states,
                                   const std::set<TaskId>& stateless_tasks) {
  ConstrainedPrioritySet clients_by_active_load(
      [](const ProcessId&, const TaskId&) { return true; },
      [&client_states](const ProcessId& client) {
        return client_states.at(client).active_task_load();
      });
  for (const auto& entry : client_states) clients_by_active_load.offer(entry.first);
  for (const TaskId& task : stateless_tasks) {
    const std::optional<ProcessId> client = clients_by_active_load.poll(task);
    IQ_ASSERT(client.has_value(), "no client for stateless task {}", task.to_string());
    client_states.at(*client).assign_active(task);
    clients_by_active_load.offer(*client);
  }
}

bool active_running(int64_t task_lag) {
  return task_lag == ClientState::kLatestOffset;
}
bool unbounded(int64_t acceptable_recovery_lag) {
  return acceptable_recovery_lag == AssignmentConfigs::kUnboundedRecoveryLag;
}
bool acceptable(int64_t acceptable_recovery_lag, int64_t task_lag) {
  return task_lag >= 0 && task_lag <= acceptable_recovery_lag;
}

}  // namespace

bool HighAvailabilityTaskAssignor::assign(ClientStates& clients,
                                          const std::set<TaskId>& all_task_ids,
                                          const std::set<TaskId>& stateful_task_ids,
                                          const AssignmentConfigs& configs, Warmups* warmups_out) {
  assign_active_stateful_tasks(clients, stateful_task_ids);
  assign_standby_replica_tasks(clients, all_task_ids, stateful_task_ids, configs);

  int32_t remaining_warmup_replicas = configs.max_warmup_replicas;
  const TasksToCaughtUpClients caught_up =
      tasks_to_caught_up_clients(stateful_task_ids, clients, configs.acceptable_recovery_lag);
  const TasksToClientByLag by_lag = tasks_to_client_by_lag(stateful_task_ids, clients);

  // Which standbys are warmups matters only to the standby movements below (a warmup is not
  // moved); afterwards a warmup is a standby like any other.
  Warmups warmups;
  const int32_t needed_active_task_movements = TaskMovement::assign_active_task_movements(
      caught_up, by_lag, clients, warmups, remaining_warmup_replicas);
  const int32_t needed_standby_task_movements = TaskMovement::assign_standby_task_movements(
      caught_up, by_lag, clients, remaining_warmup_replicas, warmups);

  std::set<TaskId> stateless_tasks;
  std::set_difference(all_task_ids.begin(), all_task_ids.end(), stateful_task_ids.begin(),
                      stateful_task_ids.end(),
                      std::inserter(stateless_tasks, stateless_tasks.end()));
  assign_stateless_active_tasks(clients, stateless_tasks);

  if (warmups_out != nullptr) *warmups_out = std::move(warmups);
  return needed_active_task_movements + needed_standby_task_movements > 0;
}

TasksToCaughtUpClients HighAvailabilityTaskAssignor::tasks_to_caught_up_clients(
    const std::set<TaskId>& stateful_tasks, const ClientStates& client_states,
    int64_t acceptable_recovery_lag) {
  TasksToCaughtUpClients caught_up;
  for (const TaskId& task : stateful_tasks) {
    std::set<ProcessId>& clients = caught_up[task];
    for (const auto& [client, state] : client_states) {
      const int64_t task_lag = state.lag_for(task);
      if (active_running(task_lag) || unbounded(acceptable_recovery_lag) ||
          acceptable(acceptable_recovery_lag, task_lag)) {
        clients.insert(client);
      }
    }
  }
  return caught_up;
}

TasksToClientByLag HighAvailabilityTaskAssignor::tasks_to_client_by_lag(
    const std::set<TaskId>& stateful_tasks, const ClientStates& client_states) {
  TasksToClientByLag by_lag;
  for (const TaskId& task : stateful_tasks) {
    std::vector<ProcessId>& clients = by_lag[task];
    for (const auto& entry : client_states) clients.push_back(entry.first);
    // Lag ascending (kUnknownOffsetSum -3, then kLatestOffset -2, then real lags), then
    // ProcessId. Clients are unique, so the order is total.
    std::sort(clients.begin(), clients.end(), [&](const ProcessId& a, const ProcessId& b) {
      const int64_t lag_a = client_states.at(a).lag_for(task);
      const int64_t lag_b = client_states.at(b).lag_for(task);
      return lag_a != lag_b ? lag_a < lag_b : a < b;
    });
  }
  return by_lag;
}

}  // namespace iq
