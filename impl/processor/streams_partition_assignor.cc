#include "processor/streams_partition_assignor.h"
#include "base/probe.h"

#include <algorithm>

#include "assignment/client_state.h"
#include "assignment/high_availability_task_assignor.h"
#include "iq/changelog_topic.h"

namespace iq {
namespace {

struct Member {
  std::string id;
  SubscriptionInfo info;
  std::set<TaskId> owned_actives;
};

// Previous owners keep their tasks, the rest go round-robin to the least loaded thread
// (assignTasksToThreads, without Kafka's lag ordering of the previous tasks).
std::map<std::string, std::set<TaskId>> spread_over_threads(
    const std::set<TaskId>& tasks, const std::vector<const Member*>& threads) {
  std::map<std::string, std::set<TaskId>> out;
  for (const Member* m : threads) out[m->id];
  std::vector<TaskId> unplaced;
  const size_t quota = (tasks.size() + threads.size() - 1) / std::max<size_t>(threads.size(), 1);
  for (const TaskId& t : tasks) {
    const Member* owner = nullptr;
    for (const Member* m : threads) {
      if (m->owned_actives.count(t) && out[m->id].size() < quota) owner = m;
    }
    if (owner != nullptr) {
      out[owner->id].insert(t);
    } else {
      unplaced.push_back(t);
    }
  }
  for (const TaskId& t : unplaced) {
    auto least = std::min_element(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return a.second.size() < b.second.size();
    });
    least->second.insert(t);
  }
  return out;
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
    auto actives = spread_over_threads(client.active_tasks(), threads);
    auto standbys = spread_over_threads(client.standby_tasks(), threads);
    for (const Member* m : threads) {
      AssignmentInfo info;
      info.partitions_by_host = by_host;
      info.standby_partitions_by_host = standby_by_host;
      info.standby_tasks = standbys[m->id];
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
