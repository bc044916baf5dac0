#include "assignment/client_state.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/assert.h"

namespace iq {

namespace {

std::string join_tasks(const std::set<TaskId>& tasks) {
  std::string out;
  for (const TaskId& task : tasks) {
    if (!out.empty()) out += ' ';
    out += task.to_string();
  }
  return out;
}

std::string join_task_values(const std::map<TaskId, int64_t>& values) {
  std::string out;
  for (const auto& [task, value] : values) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", task.to_string(), value);
  }
  return out;
}

}  // namespace

ClientState::ClientState(std::set<TaskId> previous_active, std::set<TaskId> previous_standby,
                         std::map<TaskId, int64_t> task_lag_totals, int32_t capacity,
                         std::optional<ProcessId> process_id)
    : process_id_(process_id),
      capacity_(capacity),
      task_lag_totals_(std::move(task_lag_totals)),
      previous_active_(std::move(previous_active)),
      previous_standby_(std::move(previous_standby)) {}

void ClientState::add_owned_tasks(const std::set<TaskId>& tasks, const std::string& consumer) {
  for (const TaskId& task : tasks) owned_tasks_.emplace(task, consumer);
}

void ClientState::add_previous_tasks_and_offset_sums(
    const std::string& consumer, const std::map<TaskId, int64_t>& task_offset_sums) {
  for (const auto& [task, offset_sum] : task_offset_sums) task_offset_sums_[task] = offset_sum;
  std::set<TaskId>& tasks = previous_stateful_by_consumer_[consumer];
  tasks.clear();
  for (const auto& entry : task_offset_sums) tasks.insert(entry.first);
}

void ClientState::initialize_prev_tasks(const std::set<TaskId>& known_tasks) {
  IQ_ASSERT(previous_active_.empty() && previous_standby_.empty(),
            "Already added previous tasks to this client state: {}", to_string());
  // Previous actives from what the consumers owned (Kafka: from owned partitions).
  for (const auto& [task, consumer] : owned_tasks_) {
    if (!known_tasks.contains(task)) continue;  // Kafka logs "No task found for topic partition"
    previous_active_.insert(task);
    previous_active_by_consumer_[consumer].insert(task);
  }
  IQ_ASSERT(!previous_active_.empty() || owned_tasks_.empty(),
            "Must initialize prevActiveTasks from ownedPartitions before initializing remaining "
            "tasks: {}",
            to_string());
  // The rest from the offset sums: a running active reports kLatestOffset.
  for (const auto& [task, offset_sum] : task_offset_sums_) {
    if (previous_active_.contains(task)) continue;
    if (offset_sum == kLatestOffset) {
      previous_active_.insert(task);
    } else {
      previous_standby_.insert(task);
    }
  }
}

void ClientState::compute_task_lags(const std::map<TaskId, int64_t>& all_task_end_offset_sums) {
  IQ_ASSERT(task_lag_totals_.empty(), "Already computed task lags for this client: {}",
            to_string());
  for (const auto& [task, end_offset_sum] : all_task_end_offset_sums) {
    const auto reported = task_offset_sums_.find(task);
    const int64_t offset_sum = reported == task_offset_sums_.end() ? 0 : reported->second;
    int64_t lag = 0;
    if (offset_sum == kLatestOffset || offset_sum == kUnknownOffsetSum) {
      lag = offset_sum;
    } else if (end_offset_sum < offset_sum) {
      // The changelog is shorter than the local state (truncated or corrupted): Kafka warns and
      // uses the end offset sum, so that another client's state is preferred.
      lag = end_offset_sum;
    } else {
      lag = end_offset_sum - offset_sum;
    }
    task_lag_totals_[task] = lag;
  }
  IQ_ASSERT(task_lag_totals_.size() == all_task_end_offset_sums.size(), "lags={} tasks={}",
            task_lag_totals_.size(), all_task_end_offset_sums.size());
}

int64_t ClientState::lag_for(const TaskId& task) const {
  const auto it = task_lag_totals_.find(task);
  IQ_ASSERT(it != task_lag_totals_.end(), "Tried to lookup lag for unknown task {}",
            task.to_string());
  return it->second;
}

std::set<TaskId> ClientState::previous_assigned_tasks() const {
  std::set<TaskId> all = previous_active_;
  all.insert(previous_standby_.begin(), previous_standby_.end());
  return all;
}

void ClientState::add_previous_active_tasks(const std::set<TaskId>& tasks) {
  previous_active_.insert(tasks.begin(), tasks.end());
}

void ClientState::add_previous_standby_tasks(const std::set<TaskId>& tasks) {
  previous_standby_.insert(tasks.begin(), tasks.end());
}

std::set<TaskId> ClientState::prev_owned_stateful_tasks_by_consumer(
    const std::string& consumer) const {
  const auto it = previous_stateful_by_consumer_.find(consumer);
  return it == previous_stateful_by_consumer_.end() ? std::set<TaskId>{} : it->second;
}

std::map<std::string, std::set<TaskId>> ClientState::prev_owned_standby_by_consumer() const {
  std::map<std::string, std::set<TaskId>> standby_by_consumer;
  for (const auto& [consumer, stateful] : previous_stateful_by_consumer_) {
    std::set<TaskId> standbys = stateful;
    const auto active = previous_active_by_consumer_.find(consumer);
    if (active != previous_active_by_consumer_.end()) {
      for (const TaskId& task : active->second) standbys.erase(task);
    }
    standby_by_consumer.emplace(consumer, std::move(standbys));
  }
  return standby_by_consumer;
}

std::vector<TaskId> ClientState::prev_tasks_by_lag(const std::string& consumer) const {
  std::vector<TaskId> tasks;
  for (const TaskId& task : prev_owned_stateful_tasks_by_consumer(consumer)) {
    // Tasks no longer in the topology have no lag and are skipped, as Kafka does.
    if (task_lag_totals_.contains(task)) tasks.push_back(task);
  }
  std::sort(tasks.begin(), tasks.end(), [this](const TaskId& a, const TaskId& b) {
    const int64_t lag_a = lag_for(a);
    const int64_t lag_b = lag_for(b);
    return lag_a != lag_b ? lag_a < lag_b : a < b;
  });
  return tasks;
}

void ClientState::assign_active(const TaskId& task) {
  assert_not_assigned(task);
  assigned_active_.insert(task);
}

void ClientState::assign_standby(const TaskId& task) {
  assert_not_assigned(task);
  assigned_standby_.insert(task);
}

void ClientState::unassign_active(const TaskId& task) {
  IQ_ASSERT(assigned_active_.contains(task),
            "Tried to unassign active task {}, but it is not currently assigned: {}",
            task.to_string(), to_string());
  assigned_active_.erase(task);
}

void ClientState::unassign_standby(const TaskId& task) {
  IQ_ASSERT(assigned_standby_.contains(task),
            "Tried to unassign standby task {}, but it is not currently assigned: {}",
            task.to_string(), to_string());
  assigned_standby_.erase(task);
}

// Kafka's bulk variants add without the not-yet-assigned check.
void ClientState::assign_active_tasks(const std::set<TaskId>& tasks) {
  assigned_active_.insert(tasks.begin(), tasks.end());
}

void ClientState::assign_standby_tasks(const std::set<TaskId>& tasks) {
  assigned_standby_.insert(tasks.begin(), tasks.end());
}

std::set<TaskId> ClientState::assigned_tasks() const {
  std::set<TaskId> all = assigned_active_;
  all.insert(assigned_standby_.begin(), assigned_standby_.end());
  return all;
}

std::set<TaskId> ClientState::stateful_active_tasks() const {
  std::set<TaskId> tasks;
  for (const TaskId& task : assigned_active_) {
    if (is_stateful(task)) tasks.insert(task);
  }
  return tasks;
}

std::set<TaskId> ClientState::stateless_active_tasks() const {
  std::set<TaskId> tasks;
  for (const TaskId& task : assigned_active_) {
    if (!is_stateful(task)) tasks.insert(task);
  }
  return tasks;
}

// Java divides doubles: a zero capacity gives Infinity or NaN rather than an error, and so does
// this (IEEE 754 division).
double ClientState::active_task_load() const {
  return static_cast<double>(active_task_count()) / capacity_;
}

double ClientState::assigned_task_load() const {
  return static_cast<double>(assigned_task_count()) / capacity_;
}

bool ClientState::has_unfulfilled_quota(int32_t tasks_per_thread) const {
  return static_cast<int64_t>(assigned_active_.size()) <
         static_cast<int64_t>(capacity_) * tasks_per_thread;
}

bool ClientState::has_more_available_capacity_than(const ClientState& other) const {
  IQ_ASSERT(capacity_ > 0, "Capacity of this ClientState must be greater than 0.");
  IQ_ASSERT(other.capacity_ > 0, "Capacity of other ClientState must be greater than 0");
  const double other_load = static_cast<double>(other.assigned_task_count()) / other.capacity_;
  const double this_load = static_cast<double>(assigned_task_count()) / capacity_;
  if (this_load < other_load) return true;
  if (this_load > other_load) return false;
  return capacity_ > other.capacity_;
}

void ClientState::assign_active_to_consumer(const TaskId& task, const std::string& consumer) {
  IQ_ASSERT(assigned_active_.contains(task),
            "added not assign active task {} to this client state.", task.to_string());
  assigned_active_by_consumer_[consumer].insert(task);
}

void ClientState::assign_standby_to_consumer(const TaskId& task, const std::string& consumer) {
  assigned_standby_by_consumer_[consumer].insert(task);
}

void ClientState::revoke_active_from_consumer(const TaskId& task, const std::string& consumer) {
  revoking_active_by_consumer_[consumer].insert(task);
}

std::string ClientState::to_string() const {
  return fmt::format(
      "[activeTasks: ({}) standbyTasks: ({}) prevActiveTasks: ({}) prevStandbyTasks: ({}) "
      "changelogOffsetTotalsByTask: ({}) taskLagTotals: ({}) capacity: {} assigned: {}]",
      join_tasks(assigned_active_), join_tasks(assigned_standby_), join_tasks(previous_active_),
      join_tasks(previous_standby_), join_task_values(task_offset_sums_),
      join_task_values(task_lag_totals_), capacity_, assigned_task_count());
}

void ClientState::assert_not_assigned(const TaskId& task) const {
  IQ_ASSERT(!has_assigned_task(task), "Tried to assign task {}, but it is already assigned: {}",
            task.to_string(), to_string());
}

}  // namespace iq
