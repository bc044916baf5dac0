#pragma once
// Test helpers shared by the assignment tests, after Kafka's AssignmentTestUtils: client and task
// constants, client maps keyed kPid1, kPid2, ..., and the validity and balance checks Kafka's
// assignor tests assert. Header-only and only included by *_test.cc files.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "assignment/assignment_configs.h"
#include "assignment/client_state.h"
#include "assignment/process_id.h"
#include "assignment/task_movement.h"
#include "iq/task_id.h"

namespace iq::assignment_test {

inline constexpr ProcessId kPid1 = ProcessId::for_int(1);
inline constexpr ProcessId kPid2 = ProcessId::for_int(2);
inline constexpr ProcessId kPid3 = ProcessId::for_int(3);
inline constexpr ProcessId kPid4 = ProcessId::for_int(4);

inline constexpr TaskId kTask0_0{0, 0};
inline constexpr TaskId kTask0_1{0, 1};
inline constexpr TaskId kTask0_2{0, 2};
inline constexpr TaskId kTask0_3{0, 3};
inline constexpr TaskId kTask1_0{1, 0};
inline constexpr TaskId kTask1_1{1, 1};
inline constexpr TaskId kTask1_2{1, 2};
inline constexpr TaskId kTask1_3{1, 3};
inline constexpr TaskId kTask2_0{2, 0};
inline constexpr TaskId kTask2_1{2, 1};
inline constexpr TaskId kTask2_2{2, 2};

inline constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();

// Kafka's tests build AssignmentConfigs(acceptableRecoveryLag, maxWarmupReplicas,
// numStandbyReplicas, probingRebalanceIntervalMs = 60 s).
inline AssignmentConfigs configs(int64_t acceptable_recovery_lag, int32_t max_warmup_replicas,
                                 int32_t num_standby_replicas) {
  AssignmentConfigs c;
  c.acceptable_recovery_lag = acceptable_recovery_lag;
  c.max_warmup_replicas = max_warmup_replicas;
  c.num_standby_replicas = num_standby_replicas;
  c.probing_rebalance_interval_ms = 60'000;
  return c;
}

// The same lag for every task.
inline std::map<TaskId, int64_t> lags_of(const std::set<TaskId>& tasks, int64_t lag) {
  std::map<TaskId, int64_t> lags;
  for (const TaskId& task : tasks) lags[task] = lag;
  return lags;
}

// getClientStatesMap: the n-th state (from 1) under ProcessId::for_int(n).
inline ClientStates client_states_map(std::vector<ClientState> states) {
  ClientStates map;
  int64_t n = 1;
  for (ClientState& state : states) map.emplace(ProcessId::for_int(n++), std::move(state));
  return map;
}

// getMockClientWithPreviousCaughtUpTasks: a one-thread client that ran `active` (lag 0) and is
// hopelessly behind (Long.MAX_VALUE) on every other stateful task.
inline ClientState client_with_previous_caught_up_tasks(const std::set<TaskId>& active,
                                                        const std::set<TaskId>& stateful,
                                                        std::optional<ProcessId> pid) {
  std::map<TaskId, int64_t> lags;
  for (const TaskId& task : stateful) lags[task] = active.contains(task) ? 0 : kLongMax;
  return ClientState(active, {}, lags, 1, pid);
}

inline std::string describe(const ClientStates& states) {
  std::string out = "{\n";
  for (const auto& [pid, state] : states) {
    out += "  " + pid.to_string() + ": " + state.to_string() + "\n";
  }
  return out + "}";
}

inline std::set<TaskId> tasks(std::initializer_list<TaskId> list) {
  return std::set<TaskId>(list);
}

// assertValidAssignment: every task has one active and (stateful only) min(standbys, clients-1)
// standbys, no task appears twice on a client, no unknown or stateless standby, and at most
// `max_warmups` tasks have one extra replica (a warmup).
inline ::testing::AssertionResult valid_assignment(int32_t num_standby_replicas,
                                                   int32_t max_warmups,
                                                   const std::set<TaskId>& stateful,
                                                   const std::set<TaskId>& stateless,
                                                   const ClientStates& states) {
  std::map<TaskId, std::set<ProcessId>> replicas;
  for (const TaskId& t : stateful) replicas[t];
  for (const TaskId& t : stateless) replicas[t];
  for (const auto& [pid, state] : states) {
    for (const TaskId& t : state.active_tasks()) {
      if (!replicas.contains(t)) {
        return ::testing::AssertionFailure() << "extra active " << t.to_string() << "\n"
                                             << describe(states);
      }
      replicas[t].insert(pid);
    }
    for (const TaskId& t : state.standby_tasks()) {
      if (stateless.contains(t) || !replicas.contains(t)) {
        return ::testing::AssertionFailure() << "bad standby " << t.to_string() << "\n"
                                             << describe(states);
      }
      replicas[t].insert(pid);
    }
  }
  int32_t remaining_warmups = max_warmups;
  for (const auto& [task, holders] : replicas) {
    const int32_t expected_standbys = stateless.contains(task) ? 0 : num_standby_replicas;
    const auto expected = std::min<int64_t>(static_cast<int64_t>(states.size()),
                                            1 + static_cast<int64_t>(expected_standbys));
    const auto actual = static_cast<int64_t>(holders.size());
    if (actual == expected) continue;
    if (actual == expected + 1 && remaining_warmups > 0) {
      --remaining_warmups;
      continue;
    }
    return ::testing::AssertionFailure() << "task " << task.to_string() << " has " << actual
                                         << " replicas, expected " << expected << "\n"
                                         << describe(states);
  }
  return ::testing::AssertionSuccess();
}

// Loads per thread (by `count`) differ by at most 1.0 across clients.
template <typename Count>
::testing::AssertionResult balanced_by(const ClientStates& states, const char* what, Count count) {
  double max_load = 0;
  double min_load = std::numeric_limits<double>::max();
  for (const auto& [pid, state] : states) {
    const double load = static_cast<double>(count(state)) / state.capacity();
    max_load = std::max(max_load, load);
    min_load = std::min(min_load, load);
  }
  if (max_load - min_load <= 1.0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << " balance factor " << (max_load - min_load) << " > 1.0 in " << describe(states);
}

// assertBalancedActiveAssignment.
inline ::testing::AssertionResult balanced_active_assignment(const ClientStates& states) {
  return balanced_by(states, "active", [](const ClientState& s) { return s.active_task_count(); });
}

// assertBalancedStatefulAssignment: stateful actives and standbys per thread.
inline ::testing::AssertionResult balanced_stateful_assignment(const std::set<TaskId>& stateful,
                                                               const ClientStates& states) {
  return balanced_by(states, "stateful", [&stateful](const ClientState& s) {
    int64_t n = 0;
    for (const TaskId& t : s.assigned_tasks()) n += stateful.contains(t) ? 1 : 0;
    return n;
  });
}

// analyzeTaskAssignmentBalance: the subtopologies whose active tasks are spread over clients
// with a count difference above `skew_threshold`.
inline std::set<int32_t> skewed_subtopologies(const ClientStates& states, int32_t skew_threshold) {
  std::map<int32_t, std::map<ProcessId, int32_t>> counts;
  for (const auto& [pid, state] : states) {
    for (const TaskId& t : state.active_tasks()) {
      auto& per_client = counts[t.subtopology];
      if (per_client.empty()) {
        for (const auto& entry : states) per_client[entry.first] = 0;
      }
      ++per_client[pid];
    }
  }
  std::set<int32_t> skewed;
  for (const auto& [subtopology, per_client] : counts) {
    int32_t max_count = 0;
    int32_t min_count = std::numeric_limits<int32_t>::max();
    for (const auto& entry : per_client) {
      max_count = std::max(max_count, entry.second);
      min_count = std::min(min_count, entry.second);
    }
    if (max_count - min_count > skew_threshold) skewed.insert(subtopology);
  }
  return skewed;
}

}  // namespace iq::assignment_test
