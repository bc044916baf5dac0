#include "history/placement.h"

namespace iq::sim {
namespace {

// A task holds `store` if the store is registered or one of its changelogs is the store's.
bool task_holds_store(Task& task, const std::string& store) {
  if (task.store(store) != nullptr) return true;
  const std::string suffix = "-" + store + "-changelog";
  for (const auto& [topic, partition] : task.changelog_partitions()) {
    if (topic.size() >= suffix.size() &&
        topic.compare(topic.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return true;
    }
  }
  return false;
}

void fill_task(Cluster& cluster, const std::string& store, Task& task, ThreadState thread_state,
               ReplicaSnapshot& r) {
  r.role = task.is_active() ? ReplicaRole::kActive : ReplicaRole::kStandby;
  r.task_state = task.state();
  r.thread_state = thread_state;
  if (const StateStore* s = task.store(store)) r.store_position = s->position();
  r.changelog_offset = task.state_manager().changelog_offset(store);
  for (const auto& tp : task.changelog_partitions()) {
    auto end = cluster.broker().broker().end_offset(tp);
    if (!end) continue;
    r.changelog_end_offset = *end;
    r.lag = *end - (r.changelog_offset ? *r.changelog_offset + 1 : 0);
  }
}

ReplicaSnapshot replica_of(Cluster& cluster, Instance& instance, const std::string& store,
                           int32_t partition) {
  ReplicaSnapshot r;
  r.partition = partition;
  r.instance = instance.name();
  r.running = instance.running();
  if (!r.running) return r;
  const KafkaStreams& streams = instance.streams();
  r.client_state = streams.state();
  // Two threads of one instance may hold the same task for a moment (a standby not yet closed on
  // one thread while the active is created on another: the assignment reaches threads one by
  // one). The snapshot shows the task a query reaches first, as KafkaStreams::query walks threads
  // and tasks in order and answers from the first task with the store registered.
  bool registered = false;
  for (const auto& thread : streams.threads()) {
    for (Task* task : thread->task_manager().all_tasks()) {
      if (task->id().partition != partition || !task_holds_store(*task, store)) continue;
      const bool has_store = task->store(store) != nullptr;
      if (r.role != ReplicaRole::kNone && (registered || !has_store)) continue;
      fill_task(cluster, store, *task, thread->state(), r);
      registered = has_store;
    }
  }
  return r;
}

}  // namespace

PlacementSnapshot take_placement(Cluster& cluster, const std::string& store,
                                 const std::set<int32_t>& partitions) {
  PlacementSnapshot snapshot;
  snapshot.at_ms = cluster.now_ms();
  for (int32_t partition : partitions) {
    for (int32_t n = 1; n <= cluster.instance_count(); ++n) {
      snapshot.replicas.push_back(replica_of(cluster, cluster.instance(n), store, partition));
    }
  }
  return snapshot;
}

}  // namespace iq::sim
