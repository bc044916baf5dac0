#include "assignment/task_movement.h"

#include <functional>
#include <optional>

#include "assignment/constrained_priority_set.h"
#include "assignment/java_priority_queue.h"
#include "base/assert.h"

namespace iq {

namespace {

struct Movement {
  TaskId task;
  ProcessId destination;
  int32_t num_caught_up_clients = 0;
  friend bool operator==(const Movement&, const Movement&) = default;
};

// Fewest caught-up clients first, then TaskId. Movements of the same task (possible for
// standbys) tie, and Java's heap layout decides between them, which JavaPriorityQueue keeps.
JavaPriorityQueue<Movement> make_movement_queue() {
  return JavaPriorityQueue<Movement>([](const Movement& a, const Movement& b) {
    if (a.num_caught_up_clients != b.num_caught_up_clients) {
      return a.num_caught_up_clients < b.num_caught_up_clients ? -1 : 1;
    }
    if (a.task != b.task) return a.task < b.task ? -1 : 1;
    return 0;
  });
}

const std::set<ProcessId>& caught_up_clients(const TasksToCaughtUpClients& tasks_to_caught_up,
                                             const TaskId& task) {
  const auto it = tasks_to_caught_up.find(task);
  IQ_ASSERT(it != tasks_to_caught_up.end(), "uninitialized set for task {}", task.to_string());
  return it->second;
}

const std::vector<ProcessId>& clients_by_lag(const TasksToClientByLag& tasks_to_client_by_lag,
                                             const TaskId& task) {
  const auto it = tasks_to_client_by_lag.find(task);
  IQ_ASSERT(it != tasks_to_client_by_lag.end(), "uninitialized set for task {}", task.to_string());
  IQ_ASSERT(!it->second.empty(), "no clients for task {}", task.to_string());
  return it->second;
}

ClientState& state_of(ClientStates& client_states, const ProcessId& client) {
  const auto it = client_states.find(client);
  IQ_ASSERT(it != client_states.end(), "unknown client {}", client.to_string());
  return it->second;
}

bool task_is_caught_up_on_client(const TaskId& task, const ProcessId& client,
                                 const TasksToCaughtUpClients& tasks_to_caught_up) {
  return caught_up_clients(tasks_to_caught_up, task).contains(client);
}

bool task_is_not_caught_up_on_client_and_other_more_caught_up_clients_exist(
    const TaskId& task, const ProcessId& client, ClientStates& client_states,
    const TasksToCaughtUpClients& tasks_to_caught_up,
    const TasksToClientByLag& tasks_to_client_by_lag) {
  const std::vector<ProcessId>& by_lag = clients_by_lag(tasks_to_client_by_lag, task);
  if (task_is_caught_up_on_client(task, client, tasks_to_caught_up)) return false;
  const int64_t most_caught_up_lag = state_of(client_states, by_lag.front()).lag_for(task);
  const int64_t client_lag = state_of(client_states, client).lag_for(task);
  return most_caught_up_lag < client_lag;
}

// The first client in lag order that comes before `destination` and meets `constraint`.
std::optional<ProcessId> most_caught_up_eligible_client(
    const TasksToClientByLag& tasks_to_client_by_lag,
    const std::function<bool(const ProcessId&)>& constraint, const TaskId& task,
    const ProcessId& destination) {
  for (const ProcessId& client : clients_by_lag(tasks_to_client_by_lag, task)) {
    if (client == destination) break;
    if (constraint(client)) return client;
  }
  return std::nullopt;
}

void swap_standby_and_active(const TaskId& task, ClientState& source, ClientState& destination) {
  source.unassign_standby(task);
  source.assign_active(task);
  destination.unassign_active(task);
  destination.assign_standby(task);
}

void move_active_and_try_to_warm_up(int32_t& remaining_warmup_replicas, const TaskId& task,
                                    ClientState& source, ClientState& destination,
                                    std::set<TaskId>& destination_warmups) {
  source.assign_active(task);
  destination.unassign_active(task);
  // getAndDecrement() > 0: the counter is decremented even when the budget is spent.
  if (remaining_warmup_replicas-- > 0) {
    destination.assign_standby(task);
    destination_warmups.insert(task);
  }
  // Otherwise the destination must wait for a later rebalance to get a warmup.
}

void move_standby_and_try_to_warm_up(int32_t& remaining_warmup_replicas, const TaskId& task,
                                     ClientState& source, ClientState& destination) {
  source.assign_standby(task);
  // With budget left the destination keeps its copy as a warmup.
  if (remaining_warmup_replicas-- <= 0) destination.unassign_standby(task);
}

bool try_to_swap_standby_and_active_on_caught_up_client(ClientStates& client_states,
                                                        ConstrainedPrioritySet& caught_up_by_load,
                                                        const Movement& movement) {
  const std::optional<ProcessId> source =
      caught_up_by_load.poll(movement.task, [&](const ProcessId& client) {
        return state_of(client_states, client).has_standby_task(movement.task);
      });
  if (!source) return false;
  swap_standby_and_active(movement.task, state_of(client_states, *source),
                          state_of(client_states, movement.destination));
  caught_up_by_load.offer_all(std::vector<ProcessId>{*source, movement.destination});
  return true;
}

bool try_to_move_active_to_caught_up_client_and_try_to_warm_up(
    ClientStates& client_states, Warmups& warmups, int32_t& remaining_warmup_replicas,
    ConstrainedPrioritySet& caught_up_by_load, const Movement& movement) {
  const std::optional<ProcessId> source = caught_up_by_load.poll(movement.task);
  if (!source) return false;
  move_active_and_try_to_warm_up(
      remaining_warmup_replicas, movement.task, state_of(client_states, *source),
      state_of(client_states, movement.destination), warmups[movement.destination]);
  caught_up_by_load.offer_all(std::vector<ProcessId>{*source, movement.destination});
  return true;
}

bool try_to_move_active_to_most_caught_up_client(const TasksToClientByLag& tasks_to_client_by_lag,
                                                 ClientStates& client_states, Warmups& warmups,
                                                 int32_t& remaining_warmup_replicas,
                                                 ConstrainedPrioritySet& caught_up_by_load,
                                                 const Movement& movement) {
  const std::optional<ProcessId> source = most_caught_up_eligible_client(
      tasks_to_client_by_lag, [](const ProcessId&) { return true; }, movement.task,
      movement.destination);
  if (!source) return false;
  ClientState& source_state = state_of(client_states, *source);
  ClientState& destination_state = state_of(client_states, movement.destination);
  if (source_state.has_standby_task(movement.task)) {
    swap_standby_and_active(movement.task, source_state, destination_state);
  } else {
    move_active_and_try_to_warm_up(remaining_warmup_replicas, movement.task, source_state,
                                   destination_state, warmups[movement.destination]);
  }
  caught_up_by_load.offer_all(std::vector<ProcessId>{*source, movement.destination});
  return true;
}

ConstrainedPrioritySet make_caught_up_clients_by_task_load(
    ClientStates& client_states, const TasksToCaughtUpClients& tasks_to_caught_up) {
  return ConstrainedPrioritySet(
      [&tasks_to_caught_up](const ProcessId& client, const TaskId& task) {
        return task_is_caught_up_on_client(task, client, tasks_to_caught_up);
      },
      [&client_states](const ProcessId& client) {
        return state_of(client_states, client).assigned_task_load();
      });
}

}  // namespace

int32_t TaskMovement::assign_active_task_movements(const TasksToCaughtUpClients& tasks_to_caught_up,
                                                   const TasksToClientByLag& tasks_to_client_by_lag,
                                                   ClientStates& client_states, Warmups& warmups,
                                                   int32_t& remaining_warmup_replicas) {
  ConstrainedPrioritySet caught_up_by_load =
      make_caught_up_clients_by_task_load(client_states, tasks_to_caught_up);
  JavaPriorityQueue<Movement> movements = make_movement_queue();

  for (const auto& [client, state] : client_states) {
    for (const TaskId& task : state.active_tasks()) {
      // The balanced placement put `task` on a client that is not caught up while another client
      // is more caught up: move it there for now and warm up `client` to take it later.
      if (task_is_not_caught_up_on_client_and_other_more_caught_up_clients_exist(
              task, client, client_states, tasks_to_caught_up, tasks_to_client_by_lag)) {
        const auto caught_up =
            static_cast<int32_t>(caught_up_clients(tasks_to_caught_up, task).size());
        movements.offer(Movement{task, client, caught_up});
      }
    }
    caught_up_by_load.offer(client);
  }

  const auto movements_needed = static_cast<int32_t>(movements.size());
  // Bounded: each turn removes one movement and none are added.
  while (!movements.empty()) {
    const Movement movement = movements.poll();
    const bool moved =
        try_to_swap_standby_and_active_on_caught_up_client(client_states, caught_up_by_load,
                                                           movement) ||
        try_to_move_active_to_caught_up_client_and_try_to_warm_up(
            client_states, warmups, remaining_warmup_replicas, caught_up_by_load, movement) ||
        try_to_move_active_to_most_caught_up_client(tasks_to_client_by_lag, client_states, warmups,
                                                    remaining_warmup_replicas, caught_up_by_load,
                                                    movement);
    IQ_ASSERT(moved,
              "Tried to move task to more caught-up client as scheduled before but none exist: "
              "task {} destination {}",
              movement.task.to_string(), movement.destination.to_string());
  }
  return movements_needed;
}

int32_t TaskMovement::assign_standby_task_movements(
    const TasksToCaughtUpClients& tasks_to_caught_up,
    const TasksToClientByLag& tasks_to_client_by_lag, ClientStates& client_states,
    int32_t& remaining_warmup_replicas, const Warmups& warmups) {
  ConstrainedPrioritySet caught_up_by_load =
      make_caught_up_clients_by_task_load(client_states, tasks_to_caught_up);
  JavaPriorityQueue<Movement> movements = make_movement_queue();

  for (const auto& [destination, state] : client_states) {
    const auto destination_warmups = warmups.find(destination);
    for (const TaskId& task : state.standby_tasks()) {
      const bool is_warmup =
          destination_warmups != warmups.end() && destination_warmups->second.contains(task);
      if (is_warmup) continue;  // a warmup stays where it is
      if (task_is_not_caught_up_on_client_and_other_more_caught_up_clients_exist(
              task, destination, client_states, tasks_to_caught_up, tasks_to_client_by_lag)) {
        const auto caught_up =
            static_cast<int32_t>(caught_up_clients(tasks_to_caught_up, task).size());
        movements.offer(Movement{task, destination, caught_up});
      }
    }
    caught_up_by_load.offer(destination);
  }

  int32_t movements_needed = 0;
  // Bounded: each turn removes one movement and none are added.
  while (!movements.empty()) {
    const Movement movement = movements.poll();
    const auto eligible = [&](const ProcessId& client) {
      return !state_of(client_states, client).has_assigned_task(movement.task);
    };
    std::optional<ProcessId> source = caught_up_by_load.poll(movement.task, eligible);
    if (!source) {
      source = most_caught_up_eligible_client(tasks_to_client_by_lag, eligible, movement.task,
                                              movement.destination);
    }
    // No client without a copy of the task is more caught up: nowhere to move it.
    if (!source) continue;
    move_standby_and_try_to_warm_up(remaining_warmup_replicas, movement.task,
                                    state_of(client_states, *source),
                                    state_of(client_states, movement.destination));
    caught_up_by_load.offer_all(std::vector<ProcessId>{*source, movement.destination});
    ++movements_needed;
  }
  return movements_needed;
}

}  // namespace iq
