#pragma once
// ClientState (A/ClientState.java): what the group leader knows about one KafkaStreams client
// while it assigns: its capacity (number of stream threads), what it held before (previous active
// and standby tasks, per consumer too), the changelog offset sums it reported and the lags derived
// from them, and the assignment being built (active and standby tasks, later per consumer).
//
// Lags (computeTaskLags), per stateful task of the topology:
//   offset sum == kLatestOffset (-2)       -> lag kLatestOffset: the client runs the task as an
//                                             active right now, the most caught-up value
//   offset sum == kUnknownOffsetSum (-3)   -> lag kUnknownOffsetSum
//   nothing reported                        -> offset sum 0, so lag = end offset sum
//   offset sum > end offset sum (truncated) -> lag = end offset sum, de-prioritising the client
//   otherwise                               -> end offset sum - offset sum
// A task is stateful for this client iff it has a lag entry.
//
// Simplification: Kafka records the input partitions each consumer owned and maps them to tasks
// in initializePrevTasks. iqsim's subscriptions carry the owned *tasks* directly, so
// add_owned_tasks() takes tasks. Client tags are not kept (no tag-aware standby assignment).
//
// Kafka throws IllegalArgumentException / IllegalStateException on misuse (assigning a task twice,
// unassigning one that is not assigned, asking the lag of an unknown task). Those are programmer
// errors, so they are IQ_ASSERTs here.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "assignment/process_id.h"
#include "iq/task_id.h"

namespace iq {

class ClientState {
 public:
  // Task.LATEST_OFFSET: the offset sum a client reports for a RUNNING active task.
  static constexpr int64_t kLatestOffset = -2;
  // SubscriptionInfo.UNKNOWN_OFFSET_SUM.
  static constexpr int64_t kUnknownOffsetSum = -3;

  ClientState() = default;
  explicit ClientState(int32_t capacity) : capacity_(capacity) {}
  ClientState(std::optional<ProcessId> process_id, int32_t capacity)
      : process_id_(process_id), capacity_(capacity) {}
  // Kafka's "for testing only" constructor: previous tasks and lags given directly, no offset
  // sums. Also what a caller uses that already knows the lags.
  ClientState(std::set<TaskId> previous_active, std::set<TaskId> previous_standby,
              std::map<TaskId, int64_t> task_lag_totals, int32_t capacity,
              std::optional<ProcessId> process_id = std::nullopt);

  // --- Inputs: capacity, subscription contents, lags ---
  int32_t capacity() const { return capacity_; }
  const std::optional<ProcessId>& process_id() const { return process_id_; }
  void increment_capacity() { ++capacity_; }
  // The follow-up rebalance time the assignor asks this client for (Kafka's Instant, in ms).
  const std::optional<int64_t>& followup_rebalance_deadline_ms() const {
    return followup_rebalance_deadline_ms_;
  }
  void set_followup_rebalance_deadline_ms(int64_t ms) { followup_rebalance_deadline_ms_ = ms; }

  // addOwnedPartitions, with the partitions already mapped to their tasks.
  void add_owned_tasks(const std::set<TaskId>& tasks, const std::string& consumer);
  // addPreviousTasksAndOffsetSums: one consumer's reported offset sums. A later consumer's entry
  // for the same task replaces an earlier one, as Map.putAll does.
  void add_previous_tasks_and_offset_sums(const std::string& consumer,
                                          const std::map<TaskId, int64_t>& task_offset_sums);
  // initializePrevTasks: owned tasks that `known_tasks` contains become previous actives (others
  // are skipped, as Kafka skips a partition with no task); then each reported offset sum not
  // already a previous active becomes a previous active if it is kLatestOffset, else a standby.
  void initialize_prev_tasks(const std::set<TaskId>& known_tasks);
  // computeTaskLags: one lag per entry of `all_task_end_offset_sums` (the stateful tasks). Once.
  void compute_task_lags(const std::map<TaskId, int64_t>& all_task_end_offset_sums);
  // lagFor: the total lag over the task's logged stores. The task must be stateful.
  int64_t lag_for(const TaskId& task) const;
  const std::map<TaskId, int64_t>& task_lag_totals() const { return task_lag_totals_; }
  const std::map<TaskId, int64_t>& task_offset_sums() const { return task_offset_sums_; }

  // --- Previous assignment ---
  const std::set<TaskId>& prev_active_tasks() const { return previous_active_; }
  const std::set<TaskId>& prev_standby_tasks() const { return previous_standby_; }
  std::set<TaskId> previous_assigned_tasks() const;
  void add_previous_active_tasks(const std::set<TaskId>& tasks);
  void add_previous_standby_tasks(const std::set<TaskId>& tasks);
  bool previously_owned_standby(const TaskId& task) const {
    return previous_standby_.contains(task);
  }
  // The stateful tasks (active or standby) this consumer reported offset sums for; empty if the
  // consumer is unknown (Kafka returns null).
  std::set<TaskId> prev_owned_stateful_tasks_by_consumer(const std::string& consumer) const;
  const std::map<std::string, std::set<TaskId>>& prev_owned_active_tasks_by_consumer() const {
    return previous_active_by_consumer_;
  }
  // Per consumer: its reported stateful tasks minus those it owned as active.
  std::map<std::string, std::set<TaskId>> prev_owned_standby_by_consumer() const;
  // prevTasksByLag: this consumer's previous stateful tasks that are still stateful tasks of the
  // topology, by lag ascending, then TaskId.
  std::vector<TaskId> prev_tasks_by_lag(const std::string& consumer) const;
  const std::map<std::string, std::set<TaskId>>& task_ids_by_previous_consumer() const {
    return previous_stateful_by_consumer_;
  }

  // --- Assignment being built ---
  void assign_active(const TaskId& task);
  void assign_standby(const TaskId& task);
  void unassign_active(const TaskId& task);
  void unassign_standby(const TaskId& task);
  void assign_active_tasks(const std::set<TaskId>& tasks);
  void assign_standby_tasks(const std::set<TaskId>& tasks);

  const std::set<TaskId>& active_tasks() const { return assigned_active_; }
  const std::set<TaskId>& standby_tasks() const { return assigned_standby_; }
  std::set<TaskId> assigned_tasks() const;
  std::set<TaskId> stateful_active_tasks() const;
  std::set<TaskId> stateless_active_tasks() const;
  bool has_active_task(const TaskId& task) const { return assigned_active_.contains(task); }
  bool has_standby_task(const TaskId& task) const { return assigned_standby_.contains(task); }
  bool has_assigned_task(const TaskId& task) const {
    return has_active_task(task) || has_standby_task(task);
  }
  int32_t active_task_count() const { return static_cast<int32_t>(assigned_active_.size()); }
  int32_t standby_task_count() const { return static_cast<int32_t>(assigned_standby_.size()); }
  int32_t assigned_task_count() const { return active_task_count() + standby_task_count(); }
  // Tasks per thread, as doubles because Kafka compares these loads as doubles.
  double active_task_load() const;
  double assigned_task_load() const;
  bool reached_capacity() const { return assigned_task_count() >= capacity_; }
  bool has_unfulfilled_quota(int32_t tasks_per_thread) const;
  // Lower load wins; equal loads go to the larger capacity. Both capacities must be positive.
  bool has_more_available_capacity_than(const ClientState& other) const;

  // --- Assignment to the client's consumers (StreamsPartitionAssignor's thread step) ---
  void assign_active_to_consumer(const TaskId& task, const std::string& consumer);
  void assign_standby_to_consumer(const TaskId& task, const std::string& consumer);
  void revoke_active_from_consumer(const TaskId& task, const std::string& consumer);
  const std::map<std::string, std::set<TaskId>>& assigned_active_tasks_by_consumer() const {
    return assigned_active_by_consumer_;
  }
  const std::map<std::string, std::set<TaskId>>& assigned_standby_tasks_by_consumer() const {
    return assigned_standby_by_consumer_;
  }
  const std::map<std::string, std::set<TaskId>>& revoking_active_tasks_by_consumer() const {
    return revoking_active_by_consumer_;
  }

  // "[activeTasks: (0_0 0_1) standbyTasks: () prevActiveTasks: ... capacity: 1 assigned: 2]".
  std::string to_string() const;

 private:
  void assert_not_assigned(const TaskId& task) const;
  bool is_stateful(const TaskId& task) const { return task_lag_totals_.contains(task); }

  std::optional<ProcessId> process_id_;
  int32_t capacity_ = 0;
  std::optional<int64_t> followup_rebalance_deadline_ms_;

  std::map<TaskId, int64_t> task_offset_sums_;            // only stateful tasks the client reported
  std::map<TaskId, int64_t> task_lag_totals_;             // every stateful task of the topology
  std::set<std::pair<TaskId, std::string>> owned_tasks_;  // (task, consumer that owned it)
  std::map<std::string, std::set<TaskId>> previous_stateful_by_consumer_;

  std::set<TaskId> previous_active_;
  std::set<TaskId> previous_standby_;
  std::map<std::string, std::set<TaskId>> previous_active_by_consumer_;

  std::set<TaskId> assigned_active_;
  std::set<TaskId> assigned_standby_;
  std::map<std::string, std::set<TaskId>> assigned_active_by_consumer_;
  std::map<std::string, std::set<TaskId>> assigned_standby_by_consumer_;
  std::map<std::string, std::set<TaskId>> revoking_active_by_consumer_;
};

}  // namespace iq
