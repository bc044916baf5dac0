#include "processor/streams_partition_assignor.h"
#include "base/probe.h"

#include <algorithm>
#include <deque>

#include "assignment/client_state.h"
#include "assignment/high_availability_task_assignor.h"
#include "assignment/java_priority_queue.h"
#include "iq/changelog_topic.h"

namespace iq {
namespace {

struct Member {
  std::string id;
  SubscriptionInfo info;
  std::set<TaskId> owned_actives;
};

// StreamsPartitionAssignor.assignTasksToThreads: spreads one kind of a client's tasks over its
// consumers (sorted by member id), with `thread_load` carried from one call to the next (stateful
// actives, then standbys, then stateless actives), so each thread ends with about as many tasks as
// any other. A stateful task first goes back to a consumer that reported it (prevTasksByLag: its
// offset sums, standbys included, lowest lag first), up to the floor of the per-thread share; the
// rest are handed out smallest first to the consumers still under that floor, then one each to
// consumers at the floor, a skipped previous owner first. Kafka iterates its PriorityQueue's heap
// array in that last step; the queue is filled here in sorted order, which is Kafka's layout for
// standbys (a sorted set) and, for stateful actives (a HashSet), the same outcome as long as at
// most one task is left for that step, which holds with up to two threads per client.
std::map<std::string, std::vector<TaskId>> assign_tasks_to_threads(
    const std::set<TaskId>& tasks_to_assign, bool is_stateful,
    const std::vector<std::string>& consumers, const ClientState& state,
    std::map<std::string, size_t>& thread_load) {
  std::map<std::string, std::vector<TaskId>> assignment;
  for (const std::string& c : consumers) assignment[c];
  size_t total = tasks_to_assign.size();
  for (const auto& [_, load] : thread_load) total += load;
  const size_t min_per_thread = total / std::max<size_t>(consumers.size(), 1);
  JavaPriorityQueue<TaskId> unassigned(
      [](const TaskId& a, const TaskId& b) { return a < b ? -1 : (b < a ? 1 : 0); });
  std::set<TaskId> unassigned_set = tasks_to_assign;
  for (const TaskId& t : tasks_to_assign) unassigned.offer(t);
  const auto take = [&](const TaskId& t) {
    unassigned.remove(t);
    unassigned_set.erase(t);
  };
  const auto load = [&](const std::string& c) {
    auto it = thread_load.find(c);
    return it == thread_load.end() ? size_t{0} : it->second;
  };
  std::deque<std::string> to_fill;
  std::map<TaskId, std::string> skipped_previous_owner;
  if (!unassigned_set.empty()) {
    for (const std::string& c : consumers) {
      auto& mine = assignment[c];
      const size_t target = min_per_thread > load(c) ? min_per_thread - load(c) : 0;
      if (is_stateful) {
        for (const TaskId& t : state.prev_tasks_by_lag(c)) {
          if (!unassigned_set.contains(t)) continue;
          if (mine.size() < target) {
            mine.push_back(t);
            take(t);
          } else {
            skipped_previous_owner[t] = c;
          }
        }
      }
      if (mine.size() < target) to_fill.push_back(c);
    }
    while (!to_fill.empty()) {
      IQ_ASSERT(!unassigned.empty(),
                "Ran out of unassigned stateful tasks but some members were not at capacity");
      const TaskId t = unassigned.poll();
      unassigned_set.erase(t);
      const std::string c = to_fill.front();
      to_fill.pop_front();
      assignment[c].push_back(t);
      if (assignment[c].size() + load(c) < min_per_thread) to_fill.push_back(c);
    }
    if (!unassigned_set.empty()) {
      for (const std::string& c : consumers) {
        if (assignment[c].size() + load(c) == min_per_thread) to_fill.push_back(c);
      }
      for (const auto& [t, c] : skipped_previous_owner) {
        auto at = std::find(to_fill.begin(), to_fill.end(), c);
        if (at == to_fill.end() || !unassigned_set.contains(t)) continue;
        assignment[c].push_back(t);
        take(t);
        to_fill.erase(at);
      }
      for (const TaskId& t : unassigned.heap_array()) {
        IQ_ASSERT(!to_fill.empty(), "no consumer left for task {}", t.to_string());
        assignment[to_fill.front()].push_back(t);
        to_fill.pop_front();
      }
    }
  }
  for (const auto& [c, tasks] : assignment) thread_load[c] = load(c) + tasks.size();
  return assignment;
}

}  // namespace

std::set<TaskId> StreamsPartitionAssignor::all_tasks() const {
  std::set<TaskId> out;
  for (int32_t p = 0; p < topology_.source_partitions; ++p) out.insert(TaskId{0, p});
  return out;
}

// A task is stateful when it has a logged store; only those get lags, standbys and warmups.
std::set<TaskId> StreamsPartitionAssignor::stateful_tasks() const {
  return topology_.logging ? all_tasks() : std::set<TaskId>{};
}

base::Expected<AssignorResult, StreamsError> StreamsPartitionAssignor::assign(
    const std::vector<JoinedMember>& joined, int64_t now_ms) {
  std::vector<Member> members;
  std::map<TopicPartition, std::string> current_owner;
  for (const auto& j : joined) {
    auto info = SubscriptionInfo::decode(j.user_data);
    if (!info) return base::unexpected(info.error());
    Member m{j.member_id, *info, {}};
    for (const auto& tp : j.owned_partitions) {
      m.owned_actives.insert(task_for(tp));
      current_owner[tp] = j.member_id;
    }
    members.push_back(std::move(m));
  }
  // Clients by process id, each with one unit of capacity per thread (member).
  std::map<ProcessId, std::vector<const Member*>> threads_by_client;
  ClientStates clients;
  for (const Member& m : members) {
    auto pid = ProcessId::from_string(m.info.process_id);
    if (!pid) {
      return base::unexpected(
          StreamsError{StreamsError::Kind::IllegalArgument, "bad process id " + m.info.process_id});
    }
    auto [it, inserted] = clients.try_emplace(*pid, ClientState(*pid, 0));
    it->second.increment_capacity();
    it->second.add_previous_tasks_and_offset_sums(m.id, m.info.task_offset_sums);
    it->second.add_owned_tasks(m.owned_actives, m.id);
    threads_by_client[*pid].push_back(&m);
  }
  const std::set<TaskId> tasks = all_tasks();
  const std::set<TaskId> stateful = stateful_tasks();
  // End offset sums per task from the changelogs' log end offsets.
  std::map<TaskId, int64_t> end_offset_sums;
  if (!stateful.empty()) {
    const std::string changelog = store_changelog_topic(application_id_, topology_.store_name);
    std::vector<TopicPartition> changelogs;
    for (const TaskId& t : stateful) changelogs.push_back({changelog, t.partition});
    auto ends = admin_.end_offsets(changelogs);
    if (!ends) return base::unexpected(ends.error());
    for (const TaskId& t : stateful) end_offset_sums[t] = ends->at({changelog, t.partition});
  }
  for (auto& [pid, client] : clients) {
    client.initialize_prev_tasks(tasks);
    client.compute_task_lags(end_offset_sums);
  }
  AssignorResult result;
  HighAvailabilityTaskAssignor assignor;
  result.probing_rebalance_needed =
      assignor.assign(clients, tasks, stateful, configs_, &result.warmups);
  for (auto& [pid, client] : clients) {
    auto warm = previous_warmups_.find(pid);
    if (warm == previous_warmups_.end()) continue;
    for (const TaskId& t : client.active_tasks()) {
      if (warm->second.count(t)) {
        IQ_PROBE(
            "assignor.warmup_became_active",
            "a task warmed up on a client became active there in the leader's next assignment");
      }
    }
  }

  // Host maps of the target assignment, for every member's metadata.
  std::map<HostInfo, std::set<TopicPartitionName>> by_host;
  std::map<HostInfo, std::set<TopicPartitionName>> standby_by_host;
  for (auto& [pid, client] : clients) {
    const auto& endpoint = threads_by_client[pid].front()->info.endpoint;
    auto host = parse_host_info(endpoint);
    if (!host) continue;  // no application.server: left out of the maps
    for (const TaskId& t : client.active_tasks())
      by_host[*host].insert({topology_.source_topic, t.partition});
    for (const TaskId& t : client.standby_tasks())
      standby_by_host[*host].insert({topology_.source_topic, t.partition});
  }
  for (auto& [pid, client] : clients) {
    const auto& threads = threads_by_client[pid];
    // computeNewAssignment: the client's consumers are a sorted set of member ids.
    std::vector<std::string> consumers;
    for (const Member* m : threads) consumers.push_back(m->id);
    std::sort(consumers.begin(), consumers.end());
    std::map<std::string, size_t> thread_load;
    auto actives = assign_tasks_to_threads(client.stateful_active_tasks(), true, consumers, client,
                                           thread_load);
    auto standbys =
        assign_tasks_to_threads(client.standby_tasks(), true, consumers, client, thread_load);
    auto stateless = assign_tasks_to_threads(client.stateless_active_tasks(), false, consumers,
                                             client, thread_load);
    for (auto& [c, more] : stateless) actives[c].insert(actives[c].end(), more.begin(), more.end());
    for (const Member* m : threads) {
      AssignmentInfo info;
      info.partitions_by_host = by_host;
      info.standby_partitions_by_host = standby_by_host;
      info.standby_tasks = {standbys[m->id].begin(), standbys[m->id].end()};
      // populateActiveTaskAndPartitionsLists sorts the assigned partitions (one topic here).
      std::sort(actives[m->id].begin(), actives[m->id].end());
      for (const TaskId& t : actives[m->id]) {
        const TopicPartition tp{topology_.source_topic, t.partition};
        auto owner = current_owner.find(tp);
        if (owner != current_owner.end() && owner->second != m->id) {
          // Withheld: the current owner must revoke it first; this member rejoins at once.
          info.next_rebalance_ms = 0;
          result.followup_rebalance_needed = true;
          IQ_PROBE(
              "assignor.followup_rebalance_scheduled",
              "the assignor withheld a task its owner must revoke first: a follow-up rebalance");
          if (client.previously_owned_standby(t)) info.standby_tasks.insert(t);
          continue;
        }
        info.active_tasks.push_back(t);
        info.partitions.push_back({tp.first, tp.second});
      }
      result.assignments[m->id] = std::move(info);
    }
  }
  // Probing: one consumer of the leader's client schedules it (the leader is the first member).
  if (result.probing_rebalance_needed && !joined.empty()) {
    auto& info = result.assignments[joined.front().member_id];
    if (!info.next_rebalance_ms) {
      info.next_rebalance_ms = now_ms + configs_.probing_rebalance_interval_ms;
      IQ_PROBE("assignor.probing_rebalance_scheduled",
               "the assignor scheduled a probing rebalance while warmups catch up");
    }
  }
  return result;
}

}  // namespace iq
