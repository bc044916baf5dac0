#include "processor/task_manager.h"
#include "base/probe.h"

#include <algorithm>
#include "io/operation_marker.h"

namespace iq {

TaskManager::~TaskManager() {
  // Dropping the manager is a crash: tasks vanish without flushing. Unregister from the reader so
  // it holds no dangling task pointers if it outlives us.
  for (const auto& [id, t] : actives_) reader_.unregister_task(id);
  for (const auto& [id, t] : standbys_) reader_.unregister_task(id);
}

StreamTask* TaskManager::active(const TaskId& id) const {
  auto it = actives_.find(id);
  return it == actives_.end() ? nullptr : it->second.get();
}

StandbyTask* TaskManager::standby(const TaskId& id) const {
  auto it = standbys_.find(id);
  return it == standbys_.end() ? nullptr : it->second.get();
}

std::set<TaskId> TaskManager::active_task_ids() const {
  std::set<TaskId> out;
  for (const auto& [id, t] : actives_) out.insert(id);
  return out;
}

std::set<TaskId> TaskManager::standby_task_ids() const {
  std::set<TaskId> out;
  for (const auto& [id, t] : standbys_) out.insert(id);
  return out;
}

std::vector<Task*> TaskManager::all_tasks() const {
  std::vector<Task*> out;
  for (const auto& [id, t] : actives_) out.push_back(t.get());
  for (const auto& [id, t] : standbys_) out.push_back(t.get());
  return out;
}

std::vector<TopicPartition> TaskManager::owned_input_partitions() const {
  std::vector<TopicPartition> out;
  for (const auto& [id, t] : actives_) out.push_back(t->input_partition());
  return out;
}

Status TaskManager::commit_actives(const std::vector<StreamTask*>& tasks) {
  const OperationScope marker(Operation::kCommit);  // flush, offset commit, postCommit
  TopicPartitionOffsets offsets;
  for (StreamTask* t : tasks) {
    auto o = t->prepare_commit();
    if (!o) return base::unexpected(o.error());
    offsets.insert(o->begin(), o->end());
  }
  if (!offsets.empty()) {
    auto s = membership_.commit_offsets(offsets);
    if (!s) return s;
  }
  for (StreamTask* t : tasks) {
    auto s = t->post_commit(/*enforce_checkpoint=*/false);
    if (!s) return s;
  }
  return ok_status();
}

Status TaskManager::handle_revocation(const std::set<TaskId>& revoked, int64_t now_ms) {
  (void)now_ms;
  std::vector<StreamTask*> tasks;
  for (const TaskId& id : revoked) {
    if (StreamTask* t = active(id); t != nullptr && t->state() != TaskState::SUSPENDED)
      tasks.push_back(t);
  }
  auto s = commit_actives(tasks);
  if (!s) return s;
  for (StreamTask* t : tasks) {
    s = t->suspend();
    if (!s) return s;
  }
  return ok_status();
}

void TaskManager::release_task_directory(const Task& task, int64_t now_ms) {
  // A task that never got the lock leaves the directory alone: another thread of this client may
  // own it (StateManagerUtil.closeStateManager unlocks only what this thread holds).
  if (task.initialized()) state_directory_.mark_unowned(task.id(), now_ms);
  state_directory_.unlock(task.id(), thread_name_);
  IQ_ASSERT(state_directory_.lock_owner(task.id()) != thread_name_,
            "thread {} still holds the lock of closed task {}", thread_name_,
            task.id().to_string());
}

Status TaskManager::close_active(const TaskId& id, int64_t now_ms) {
  auto it = actives_.find(id);
  IQ_ASSERT(it != actives_.end());
  reader_.unregister_task(id);
  auto s = it->second->close_clean();
  release_task_directory(*it->second, now_ms);
  actives_.erase(it);
  return s;
}

Status TaskManager::close_standby(const TaskId& id, int64_t now_ms) {
  auto it = standbys_.find(id);
  IQ_ASSERT(it != standbys_.end());
  reader_.unregister_task(id);
  auto s = it->second->close_clean();
  release_task_directory(*it->second, now_ms);
  standbys_.erase(it);
  return s;
}

void TaskManager::handle_lost_all(int64_t now_ms) {
  for (auto& [id, task] : actives_) {
    reader_.unregister_task(id);
    task->close_dirty();
    release_task_directory(*task, now_ms);
  }
  actives_.clear();
  reassign_input_partitions();
}

base::Expected<bool, StreamsError> TaskManager::initialize_if_needed(Task& task) {
  if (task.state() != TaskState::CREATED) return true;
  // StateManagerUtil.registerStateStores: no lock, no stores (LockException). The other thread
  // releases the lock when it closes or hands back its copy at its own assignment.
  if (!state_directory_.lock(task.id(), thread_name_)) return false;
  auto s = task.initialize();
  if (!s) return base::unexpected(s.error());
  IQ_ASSERT(task.initialized() && task.state() != TaskState::CREATED);
  s = reader_.register_task(task);
  if (!s) return base::unexpected(s.error());
  state_directory_.mark_owned(task.id());
  return true;
}

Status TaskManager::initialize_created_tasks() {
  for (auto& [id, t] : actives_) {
    auto r = initialize_if_needed(*t);
    if (!r) return base::unexpected(r.error());
  }
  for (auto& [id, t] : standbys_) {
    auto r = initialize_if_needed(*t);
    if (!r) return base::unexpected(r.error());
  }
  return ok_status();
}

Status TaskManager::create_active(const TaskId& id) {
  auto [it, inserted] =
      actives_.emplace(id, std::make_unique<StreamTask>(id, topology_, environment_(id)));
  IQ_ASSERT(inserted, "active {} created twice", id.to_string());
  auto r = initialize_if_needed(*it->second);
  if (!r) return base::unexpected(r.error());
  return ok_status();
}

Status TaskManager::create_standby(const TaskId& id) {
  auto [it, inserted] =
      standbys_.emplace(id, std::make_unique<StandbyTask>(id, topology_, environment_(id)));
  IQ_ASSERT(inserted, "standby {} created twice", id.to_string());
  auto r = initialize_if_needed(*it->second);
  if (!r) return base::unexpected(r.error());
  return ok_status();
}

Status TaskManager::handle_assignment(const std::set<TaskId>& new_actives,
                                      const std::set<TaskId>& new_standbys, int64_t now_ms) {
  for (const auto& id : new_actives)
    IQ_ASSERT(!new_standbys.count(id), "task {} both active and standby", id.to_string());
  // Actives that go: recycled into standbys when they stay here, else closed.
  for (const TaskId& id : active_task_ids()) {
    if (new_actives.count(id)) continue;
    if (new_standbys.count(id) && !actives_.at(id)->initialized()) {
      // Never got its lock, so no stores to keep: the standby starts afresh (and waits in turn).
      auto s = close_active(id, now_ms);
      if (!s) return s;
      s = create_standby(id);
      if (!s) return s;
    } else if (new_standbys.count(id)) {
      reader_.unregister_task(id);
      auto s = actives_.at(id)->suspend();
      if (!s) return s;
      IQ_PROBE("task.active_recycled_to_standby", "an active task was recycled into a standby");
      actives_.at(id)->prepare_recycle();
      auto standby = std::make_unique<StandbyTask>(std::move(*actives_.at(id)));
      actives_.erase(id);
      s = reader_.register_task(*standby);
      if (!s) return s;
      standbys_.emplace(id, std::move(standby));
    } else {
      auto s = close_active(id, now_ms);
      if (!s) return s;
    }
  }
  // Standbys that go: promoted when they become actives here, else closed.
  for (const TaskId& id : standby_task_ids()) {
    if (new_standbys.count(id)) continue;
    if (new_actives.count(id) && !standbys_.at(id)->initialized()) {
      auto s = close_standby(id, now_ms);
      if (!s) return s;
      s = create_active(id);
      if (!s) return s;
    } else if (new_actives.count(id)) {
      IQ_PROBE("task.standby_promoted", "a standby task was promoted to active");
      reader_.unregister_task(id);
      auto s = standbys_.at(id)->maybe_checkpoint(/*enforce=*/true);
      if (!s) return s;
      auto active = std::make_unique<StreamTask>(std::move(*standbys_.at(id)));
      standbys_.erase(id);
      s = reader_.register_task(*active);
      if (!s) return s;
      actives_.emplace(id, std::move(active));
    } else {
      auto s = close_standby(id, now_ms);
      if (!s) return s;
    }
  }
  for (const TaskId& id : new_actives) {
    if (!actives_.count(id)) {
      auto s = create_active(id);
      if (!s) return s;
    }
  }
  for (const TaskId& id : new_standbys) {
    if (!standbys_.count(id)) {
      auto s = create_standby(id);
      if (!s) return s;
    }
  }
  reassign_input_partitions();
  return ok_status();
}

void TaskManager::reassign_input_partitions() {
  // Only RUNNING actives read input; a restoring one starts once restored (from the committed
  // offset).
  std::vector<TopicPartition> running;
  for (const auto& [id, t] : actives_) {
    if (t->state() == TaskState::RUNNING) running.push_back(t->input_partition());
  }
  std::sort(running.begin(), running.end());
  main_consumer_.assign(running);
}

base::Expected<std::vector<TaskId>, StreamsError> TaskManager::try_complete_restoration() {
  auto initialized = initialize_created_tasks();
  if (!initialized) return base::unexpected(initialized.error());
  std::vector<TaskId> done;
  const auto restored = reader_.restored_active_tasks();
  for (auto& [id, t] : actives_) {
    if (t->state() != TaskState::RESTORING) continue;
    const bool no_changelog = t->changelog_partitions().empty();
    if (!no_changelog && std::find(restored.begin(), restored.end(), id) == restored.end())
      continue;
    auto s = t->complete_restoration();
    if (!s) return base::unexpected(s.error());
    done.push_back(id);
  }
  if (done.empty()) return done;
  reassign_input_partitions();
  for (const TaskId& id : done) {
    const auto tp = actives_.at(id)->input_partition();
    if (auto committed = membership_.committed(tp)) {
      main_consumer_.seek(tp, *committed);
    } else {
      main_consumer_.seek_to_beginning(tp);  // auto.offset.reset=earliest, Streams' default
    }
  }
  return done;
}

bool TaskManager::all_actives_running() const {
  return std::all_of(actives_.begin(), actives_.end(),
                     [](const auto& kv) { return kv.second->state() == TaskState::RUNNING; });
}

bool TaskManager::all_tasks_running() const {
  return all_actives_running() &&
         std::none_of(standbys_.begin(), standbys_.end(),
                      [](const auto& kv) { return kv.second->state() == TaskState::CREATED; });
}

void TaskManager::add_records(const std::vector<ConsumerRecord>& records) {
  for (const auto& r : records) {
    StreamTask* t = active({0, r.partition});
    if (t == nullptr || t->state() != TaskState::RUNNING) continue;  // revoked while in flight
    t->add_records({r});
  }
}

base::Expected<size_t, StreamsError> TaskManager::process(size_t max_records_per_task) {
  size_t processed = 0;
  for (auto& [id, t] : actives_) {
    for (size_t i = 0; i < max_records_per_task; ++i) {
      auto r = t->process_one();
      if (!r) return base::unexpected(r.error());
      if (!*r) break;
      ++processed;
    }
  }
  return processed;
}

Status TaskManager::commit_all() {
  std::vector<StreamTask*> tasks;
  for (auto& [id, t] : actives_) {
    if (t->state() == TaskState::RUNNING && t->commit_needed()) tasks.push_back(t.get());
  }
  auto s = commit_actives(tasks);
  if (!s) return s;
  for (auto& [id, t] : standbys_) {
    if (!t->initialized()) continue;  // nothing open to flush yet
    s = t->commit();
    if (!s) return s;
  }
  return ok_status();
}

std::map<TaskId, int64_t> TaskManager::task_offset_sums() {
  std::map<TaskId, int64_t> sums;
  // The offset sum is Kafka's wire long (SubscriptionInfo): changelog offsets leave their type
  // here.
  auto sum_of = [](const ChangelogOffsets& offsets) -> std::optional<int64_t> {
    std::optional<int64_t> sum;
    for (const auto& [tp, o] : offsets) {
      if (o.value() < 0) continue;  // unknown changelog offsets do not count
      sum = sum.value_or(0) + o.value();
    }
    return sum;
  };
  auto opened = [this](const TaskId& id) {
    const Task* t = active(id) != nullptr ? static_cast<const Task*>(active(id)) : standby(id);
    return t != nullptr && t->initialized();
  };
  // getTaskOffsetSums: a task not yet initialized (waiting for its lock) has no offsets of its
  // own, so its .checkpoint on disk speaks for it.
  for (const TaskId& id : state_directory_.task_dirs_on_disk()) {
    if (opened(id)) continue;
    auto offsets = state_directory_.checkpointed_offsets(id);
    if (!offsets) continue;  // an unreadable checkpoint reports nothing, as a missing one
    if (auto s = sum_of(*offsets)) sums[id] = *s;
  }
  for (const auto& [id, t] : actives_) {
    if (!t->initialized()) continue;
    if (t->state() == TaskState::RUNNING) {
      sums[id] = Task::kLatestOffset;
    } else if (auto s = sum_of(t->changelog_offsets())) {
      sums[id] = *s;
    }
  }
  for (const auto& [id, t] : standbys_) {
    if (!t->initialized()) continue;
    if (auto s = sum_of(t->changelog_offsets())) sums[id] = *s;
  }
  return sums;
}

}  // namespace iq
