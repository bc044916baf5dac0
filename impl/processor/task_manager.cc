#include "processor/task_manager.h"
#include "base/probe.h"

#include <algorithm>
#include "io/operation_marker.h"

namespace iq {
namespace {

// A live task's offset sum: ProcessorStateManager.changelogOffsets(), the NEXT offset to fetch per
// changelog (last applied + 1, 0 while unknown), summed. A map without entries reports nothing.
std::optional<int64_t> live_offset_sum(const ChangelogOffsets& offsets) {
  if (offsets.empty()) return std::nullopt;
  int64_t sum = 0;
  for (const auto& [tp, o] : offsets) sum += o.value() < 0 ? 0 : o.value() + 1;
  return sum;
}

}  // namespace

TaskManager::~TaskManager() {
  // Dropping the manager is what a crash does (the simulator freezes the disk first, so nothing
  // the stores' closes flush survives). Unregister from the reader so
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

// TaskExecutor.commitTasksAndMaybeUpdateCommittableOffsets: each task that needs a commit
// prepares it (its caches flushed), the offsets are committed (commitOffsetsOrTransaction), then
// each clears its task timeout and postCommits without enforcing a checkpoint. TaskManager.commit:
// an at-least-once commit that times out (the broker unreachable) starts or checks each task's
// task.timeout.ms instead of failing the thread; the tasks stay commit-needed and the next
// commit interval tries again.
Status TaskManager::commit_actives(const std::vector<StreamTask*>& tasks, int64_t now_ms) {
  const OperationScope marker(Operation::kCommit);  // caches' flush, offset commit, postCommit
  TopicPartitionOffsets offsets;
  for (StreamTask* t : tasks) {
    if (!t->commit_needed()) continue;
    auto o = t->prepare_commit();
    if (!o) return base::unexpected(o.error());
    offsets.insert(o->begin(), o->end());
  }
  auto s = commit_offsets_or_transaction(offsets);
  if (!s && s.error().kind == StreamsError::Kind::Timeout && !eos_enabled()) {
    for (StreamTask* t : tasks) {
      if (!t->commit_needed()) continue;
      auto thrown = t->maybe_init_task_timeout_or_throw(now_ms, task_timeout_ms_, s.error());
      if (!thrown) return thrown;
    }
    return ok_status();
  }
  if (!s) return s;
  for (StreamTask* t : tasks) {
    if (!t->commit_needed()) continue;
    t->clear_task_timeout();
    s = t->post_commit(/*enforce_checkpoint=*/false);
    if (!s) return s;
  }
  return ok_status();
}

Status TaskManager::commit_offsets_or_transaction(const TopicPartitionOffsets& offsets) {
  if (eos_enabled()) return commit_transaction(offsets);
  if (offsets.empty()) return ok_status();
  return membership_.commit_offsets(offsets);
}

Status TaskManager::commit_transaction(const TopicPartitionOffsets& offsets) {
  IQ_ASSERT(producer_ != nullptr);
  // Quirk (TaskExecutor.commitOffsetsOrTransaction): the transaction commits when offsets are
  // given OR one is in flight, so a revocation whose revoked tasks have nothing to commit still
  // commits the other tasks' writes of the open transaction, without their input offsets.
  if (offsets.empty() && !producer_->transaction_in_flight()) return ok_status();
  const ConsumerGroupMetadata metadata{application_id_, membership_.generation(),
                                       membership_.member_id()};
  return producer_->commit_transaction(offsets, metadata);
}

void TaskManager::close_dirty_and_release(Task& task, int64_t now_ms, bool corrupted) {
  task.close_dirty();
  // StateManagerUtil.closeStateManager: an unclean close under EOS wipes the task directory
  // (stores, .position, .checkpoint) while the lock is still held. Pin delta 5 (§3.8): with
  // transactional stores nothing uncommitted reached them, so only a task whose stores were
  // marked corrupted (the TaskCorrupted path) is wiped.
  const bool transactional = task.transactional_state_stores();
  if (eos_enabled() && task.initialized() && transactional && !corrupted) {
    IQ_PROBE("kip892.eos_dirty_close_kept",
             "an active closed dirty under EOS kept its transactional stores (no wipe; new pin, "
             "enable.transactional.statestores)"
             " (not in the default campaign: reached by only 2 of default.toml's seeds 1..500, "
             "too few to require; scenarios/fast/kafka_2026_txn_eos_read_committed.toml reaches "
             "it)");
  }
  if (eos_enabled() && task.initialized() && (!transactional || corrupted)) {
    IQ_PROBE("eos.dirty_close_wiped",
             "an active closed dirty under EOS had its task directory wiped");
    auto wiped = state_directory_.wipe_task(task.id());
    IQ_ASSERT(wiped.has_value(), "wiping task {}: {}", task.id().to_string(),
              wiped.error().to_string());
    task.report_wiped();
  }
  release_task_directory(task, now_ms);
}

// TaskManager.handleRevocation, under both guarantees: the revoked RUNNING actives prepare their
// commit; when one of them has offsets to commit, every other RUNNING active that needs a commit
// is committed with them (under exactly_once_v2 they share the thread's open transaction). The
// revoked ones then checkpoint (postCommit, enforced), the others do not (under exactly_once_v2 a
// RUNNING task keeps no .checkpoint), and the revoked ones suspend. A revoked task still
// restoring is not in Kafka's running set: the state updater removes it, which enforces its
// checkpoint (DefaultStateUpdater), then it suspends.
Status TaskManager::handle_revocation(const std::set<TaskId>& revoked, int64_t now_ms) {
  (void)now_ms;
  const OperationScope marker(Operation::kCommit);
  std::vector<StreamTask*> running;
  std::vector<StreamTask*> restoring;
  for (const TaskId& id : revoked) {
    StreamTask* t = active(id);
    if (t == nullptr || t->state() == TaskState::SUSPENDED) continue;
    (t->state() == TaskState::RUNNING ? running : restoring).push_back(t);
  }
  TopicPartitionOffsets offsets;
  for (StreamTask* t : running) {
    auto o = t->prepare_commit();
    if (!o) return base::unexpected(o.error());
    offsets.insert(o->begin(), o->end());
  }
  std::vector<StreamTask*> additional;
  if (!offsets.empty()) {
    for (auto& [id, t] : actives_) {
      if (t->state() != TaskState::RUNNING || !t->commit_needed()) continue;
      if (revoked.count(id) != 0) continue;
      auto o = t->prepare_commit();
      if (!o) return base::unexpected(o.error());
      offsets.insert(o->begin(), o->end());
      additional.push_back(t.get());
    }
  }
  auto s = commit_offsets_or_transaction(offsets);
  if (!s) return s;
  for (StreamTask* t : running) {
    s = t->post_commit(/*enforce_checkpoint=*/true);
    if (!s) return s;
  }
  for (StreamTask* t : additional) {
    s = t->post_commit(/*enforce_checkpoint=*/false);
    if (!s) return s;
  }
  for (StreamTask* t : restoring) {
    s = t->maybe_checkpoint(/*enforce=*/true);
    if (!s) return s;
  }
  for (StreamTask* t : running) t->suspend();
  for (StreamTask* t : restoring) t->suspend();
  return ok_status();
}

void TaskManager::release_task_directory(const Task& task, int64_t now_ms) {
  // A task that never got the lock leaves the directory alone: another thread of this client may
  // own it (StateManagerUtil.closeStateManager unlocks only what this thread holds).
  // At the new pin ProcessorStateManager.close refreshes the directory's mtime (65d65546d5); at
  // the old pin only the files written in it move it (the cleaner reads it).
  if (task.initialized() && at_least(kafka_pin_, KafkaPin::k2026_08_20)) {
    state_directory_.refresh_last_modified(task.id(), now_ms);
  }
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

// TaskManager.closeTaskDirty: prepareCommit first, "only to flush the caches": an active that
// processed since its last commit writes its dirty cache entries into its stores and sends them to
// its changelog; an error there is swallowed. Then suspend and closeDirty, whose
// RecordCollectorImpl.closeDirty aborts the thread's open transaction under exactly_once_v2, the
// flushed sends with it (the next task's flush begins a new transaction, aborted at its own close).
void TaskManager::close_task_dirty(StreamTask& task, int64_t now_ms) {
  if (task.commit_needed()) {
    IQ_PROBE("task.lost_dirty_close_flushed_cache",
             "a lost RUNNING active flushed its caches before its dirty close");
  }
  (void)task.prepare_commit();
  task.suspend();
  close_dirty_and_release(task, now_ms, /*corrupted=*/false);
  if (eos_enabled()) producer_->abort_transaction();
}

void TaskManager::handle_lost_all(int64_t now_ms) {
  // closeRunningTasksDirty: the actives in the task registry (RUNNING, or SUSPENDED awaiting the
  // assignment) close dirty first.
  for (auto& [id, task] : actives_) {
    if (task->state() != TaskState::RUNNING && task->state() != TaskState::SUSPENDED) continue;
    reader_.unregister_task(id);
    close_task_dirty(*task, now_ms);
  }
  // removeLostActiveTasksFromStateUpdaterAndPendingTasksToInit: an active still in the state
  // updater is removed from it (DefaultStateUpdater.removeUpdatingTask enforces a checkpoint) and
  // closed clean (closeTaskClean: suspend, closeClean), so under exactly_once_v2 its directory is
  // not wiped; so is one pending initialization (CREATED: no stores, nothing written). A removal
  // or clean close that fails falls back to a dirty close, as Kafka's does.
  for (auto& [id, task] : actives_) {
    if (task->state() != TaskState::RESTORING && task->state() != TaskState::CREATED) continue;
    reader_.unregister_task(id);
    auto s = task->maybe_checkpoint(/*enforce=*/true);
    if (s) {
      task->suspend();
      s = task->close_clean();
    }
    if (s) {
      release_task_directory(*task, now_ms);
      continue;
    }
    close_task_dirty(*task, now_ms);
  }
  actives_.clear();
  if (eos_enabled()) {
    // ActiveTaskCreator.reInitializeProducer makes a new client (initTransactions runs again when
    // the next active initializes, fencing whatever the old one left open). The abort is a no-op
    // unless no task closed dirty while a transaction was open.
    producer_->abort_transaction();
    producer_->reset_producer();
  }
  reassign_input_partitions();
}

base::Expected<bool, StreamsError> TaskManager::handle_corruption(int64_t now_ms) {
  IQ_ASSERT(eos_enabled(), "TaskCorrupted under at-least-once");
  // Every active in the open transaction: a simplification of Kafka's per-task set, which is
  // the same tasks here since the transaction must be aborted and each of them wrote into it.
  std::vector<TaskId> corrupted;
  for (const auto& [id, t] : actives_) {
    if (t->state() == TaskState::RUNNING && t->commit_needed()) corrupted.push_back(id);
  }
  producer_->abort_transaction();
  for (const TaskId& id : corrupted) {
    IQ_PROBE("eos.task_corrupted_revived",
             "a corrupted active was closed dirty, wiped and revived");
    reader_.unregister_task(id);
    // closeDirtyAndRevive(corruptedTasks, markAsCorrupted = true): the stores are corrupted.
    close_dirty_and_release(*actives_.at(id), now_ms, /*corrupted=*/true);
    actives_.erase(id);
    auto s = create_active(id, now_ms);
    if (!s) return base::unexpected(s.error());
  }
  reassign_input_partitions();
  return !corrupted.empty();
}

base::Expected<bool, StreamsError> TaskManager::initialize_if_needed(Task& task, int64_t now_ms) {
  if (task.state() != TaskState::CREATED) return true;
  // addTaskToStateUpdater's canTryInitializeTask: a task that hit a LockException waits out its
  // backoff before anything is tried again (initTransactions included).
  if (auto it = backoff_records_.find(task.id());
      it != backoff_records_.end() && !it->second.can_attempt(now_ms, random_)) {
    return false;
  }
  // RecordCollectorImpl.initialize: the thread's producer runs initTransactions once before its
  // first active initializes; a failure (the broker unreachable) leaves the task CREATED, to be
  // retried on the next loop.
  if (eos_enabled() && task.is_active() && !producer_->init_transaction()) {
    IQ_PROBE("eos.init_transactions_retried",
             "initTransactions failed and the task waits for the next loop (the broker "
             "unreachable past delivery.timeout.ms: the default campaign's rare long outages)");
    return false;
  }
  // StateManagerUtil.registerStateStores: no lock, no stores (LockException). The other thread
  // releases the lock when it closes or hands back its copy at its own assignment.
  if (!state_directory_.lock(task.id(), thread_name_)) {
    record_lock_failure(task.id(), now_ms);
    return false;
  }
  state_directory_.note_opened(task.id());
  auto s = task.initialize();
  if (!s && s.error().kind == StreamsError::Kind::TaskCorrupted) {
    // StreamThread.runLoop's TaskCorruptedException handling: close dirty (which wipes the
    // directory under EOS) and revive; the fresh task initializes on an empty directory and
    // restores from the committed changelog. An active's corruption enforces a rebalance.
    IQ_ASSERT(eos_enabled(), "TaskCorrupted under at-least-once: {}", s.error().to_string());
    if (task.is_active()) enforce_rebalance_ = true;
    task.close_dirty();
    auto wiped = state_directory_.wipe_task(task.id());
    if (!wiped) return base::unexpected(wiped.error());
    task.report_wiped();
    return base::unexpected(s.error());  // the caller revives the task
  }
  if (!s) return base::unexpected(s.error());
  IQ_ASSERT(task.initialized() && task.state() != TaskState::CREATED);
  s = reader_.register_task(task, now_ms);
  if (!s) return base::unexpected(s.error());
  backoff_records_.erase(task.id());  // the only place Kafka drops a record
  return true;
}

// updateOrCreateBackoffRecord. A record outlives its task (Kafka drops it only when the task
// initializes), so a task assigned again later starts from the attempts it had.
void TaskManager::record_lock_failure(const TaskId& id, int64_t now_ms) {
  IQ_PROBE("task.lock_backoff", "a task hit a LockException and backs off before its next try");
  auto [it, inserted] = backoff_records_.try_emplace(id, now_ms);
  if (!inserted) it->second.record_attempt(now_ms);
}

Status TaskManager::initialize_or_revive(Task& task, int64_t now_ms) {
  // A copy: reviving destroys the task object, and with it the id it holds.
  const TaskId id = task.id();
  auto r = initialize_if_needed(task, now_ms);
  if (!r && r.error().kind == StreamsError::Kind::TaskCorrupted)
    return revive_corrupted(id, now_ms);
  if (!r) return base::unexpected(r.error());
  return ok_status();
}

Status TaskManager::initialize_created_tasks(int64_t now_ms) {
  // Reviving replaces a map value, never a key: the iteration stays valid.
  for (auto& [id, t] : actives_) {
    auto s = initialize_or_revive(*t, now_ms);
    if (!s) return s;
  }
  for (auto& [id, t] : standbys_) {
    auto s = initialize_or_revive(*t, now_ms);
    if (!s) return s;
  }
  return ok_status();
}

// The corrupted task was closed and its directory wiped under its lock, which this thread keeps:
// a fresh object takes its place and initializes at once on the empty directory.
Status TaskManager::revive_corrupted(const TaskId& id, int64_t now_ms) {
  IQ_PROBE("eos.task_corrupted_revived", "a corrupted active was closed dirty, wiped and revived");
  Task* fresh = nullptr;
  if (auto it = actives_.find(id); it != actives_.end()) {
    it->second = std::make_unique<StreamTask>(id, topology_, environment_(id));
    fresh = it->second.get();
  } else {
    auto& standby = standbys_.at(id);
    standby = std::make_unique<StandbyTask>(id, topology_, environment_(id));
    fresh = standby.get();
  }
  auto r = initialize_if_needed(*fresh, now_ms);
  if (!r) return base::unexpected(r.error());  // corrupted again on an empty directory: a bug
  return ok_status();
}

Status TaskManager::create_active(const TaskId& id, int64_t now_ms) {
  auto [it, inserted] =
      actives_.emplace(id, std::make_unique<StreamTask>(id, topology_, environment_(id)));
  IQ_ASSERT(inserted, "active {} created twice", id.to_string());
  return initialize_or_revive(*it->second, now_ms);
}

Status TaskManager::create_standby(const TaskId& id, int64_t now_ms) {
  auto [it, inserted] =
      standbys_.emplace(id, std::make_unique<StandbyTask>(id, topology_, environment_(id)));
  IQ_ASSERT(inserted, "standby {} created twice", id.to_string());
  return initialize_or_revive(*it->second, now_ms);
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
      s = create_standby(id, now_ms);
      if (!s) return s;
    } else if (new_standbys.count(id)) {
      reader_.unregister_task(id);
      actives_.at(id)->suspend();  // a no-op: its revocation suspended it
      IQ_PROBE("task.active_recycled_to_standby", "an active task was recycled into a standby");
      actives_.at(id)->prepare_recycle();
      Status s = ok_status();
      auto standby = std::make_unique<StandbyTask>(std::move(*actives_.at(id)));
      actives_.erase(id);
      // The recycled task's initialization deletes .checkpoint under EOS (see the header).
      s = standby->state_manager().delete_checkpoint_if_eos();
      if (!s) return s;
      s = reader_.register_task(*standby, now_ms);
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
      s = create_active(id, now_ms);
      if (!s) return s;
    } else if (new_actives.count(id)) {
      IQ_PROBE("task.standby_promoted", "a standby task was promoted to active");
      reader_.unregister_task(id);
      auto s = standbys_.at(id)->maybe_checkpoint(/*enforce=*/true);
      if (!s) return s;
      auto active = std::make_unique<StreamTask>(std::move(*standbys_.at(id)));
      standbys_.erase(id);
      s = active->state_manager().delete_checkpoint_if_eos();
      if (!s) return s;
      s = reader_.register_task(*active, now_ms);
      if (!s) return s;
      actives_.emplace(id, std::move(active));
    } else {
      auto s = close_standby(id, now_ms);
      if (!s) return s;
    }
  }
  for (const TaskId& id : new_actives) {
    if (!actives_.count(id)) {
      auto s = create_active(id, now_ms);
      if (!s) return s;
    }
  }
  for (const TaskId& id : new_standbys) {
    if (!standbys_.count(id)) {
      auto s = create_standby(id, now_ms);
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

base::Expected<std::vector<TaskId>, StreamsError> TaskManager::try_complete_restoration(
    int64_t now_ms) {
  auto initialized = initialize_created_tasks(now_ms);
  if (!initialized) return base::unexpected(initialized.error());
  std::vector<TaskId> done;
  const auto restored = reader_.restored_active_tasks();
  for (auto& [id, t] : actives_) {
    if (t->state() != TaskState::RESTORING) continue;
    const bool no_changelog = t->changelog_partitions().empty();
    if (!no_changelog && std::find(restored.begin(), restored.end(), id) == restored.end())
      continue;
    // DefaultStateUpdater.maybeCompleteRestoration enforces a checkpoint before it hands the
    // task back, under every processing guarantee (a stateless task is handed back without one).
    // Under exactly_once_v2 this .checkpoint then stays on disk while the task processes: nothing
    // deletes it before the next initialization, so a crash leaves it behind.
    if (!no_changelog) {
      if (eos_enabled()) {
        IQ_PROBE("eos.restored_checkpoint_written",
                 "the state updater checkpointed an exactly-once active that completed "
                 "restoration");
      }
      auto s = t->maybe_checkpoint(/*enforce=*/true);
      if (!s) return base::unexpected(s.error());
    }
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

// DefaultStateUpdater.maybeCheckpointTasks: every updating task, restoring actives and standbys
// alike (the updater's updatingTasks; a task still waiting for its lock is not in it yet), in
// TaskId order (Kafka iterates a hash map: the order within one checkpoint round is not
// specified there).
Status TaskManager::checkpoint_updating_tasks() {
  auto a = actives_.begin();
  auto b = standbys_.begin();
  while (a != actives_.end() || b != standbys_.end()) {
    const bool take_active = b == standbys_.end() || (a != actives_.end() && a->first < b->first);
    Task& t = take_active ? static_cast<Task&>(*(a++)->second) : *(b++)->second;
    const bool updating = take_active ? t.state() == TaskState::RESTORING : t.initialized();
    if (!updating) continue;
    auto s = t.maybe_checkpoint(/*enforce=*/false);
    if (!s) return s;
  }
  return ok_status();
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
      t->clear_task_timeout();  // TaskExecutor.processTask: a processed record is progress
      ++processed;
    }
  }
  return processed;
}

int64_t TaskManager::total_uncommitted_bytes() const {
  int64_t total = 0;
  for (const auto& [id, t] : actives_) {
    if (!t->initialized() || t->state() == TaskState::RESTORING) continue;
    for (StateStore* store : t->state_manager().stores()) {
      total += store->approximate_num_uncommitted_bytes();
    }
  }
  return total;
}

Status TaskManager::commit_all(int64_t now_ms) {
  std::vector<StreamTask*> tasks;
  for (auto& [id, t] : actives_) {
    if (t->state() == TaskState::RUNNING && t->commit_needed()) tasks.push_back(t.get());
  }
  // Standbys are not in the thread's commit: with the state updater they live in it, and it
  // checkpoints them on its own clock (checkpoint_updating_tasks).
  return commit_actives(tasks, now_ms);
}

std::map<TaskId, int64_t> TaskManager::task_offset_sums() {
  // pin delta 14 (95291432fa): the one place the offset sums ask the pin.
  return at_least(kafka_pin_, KafkaPin::k2026_08_20) ? task_offset_sums_from_cache()
                                                     : task_offset_sums_from_checkpoints();
}

void TaskManager::handle_rebalance_start() {
  try_to_lock_all_non_empty_task_directories();
  rebalance_in_progress_ = true;
}

void TaskManager::handle_rebalance_complete() {
  release_locked_unassigned_task_directories();
  rebalance_in_progress_ = false;
}

// A weak attempt: a directory another thread of this client holds is left to that thread, which
// reports it. This thread's own tasks are locked again (the lock is re-entrant), so they count as
// locked too. Kafka checks emptiness again after locking, for the cleaner thread that may have
// emptied the directory meanwhile; here nothing runs between the two, so one check does.
void TaskManager::try_to_lock_all_non_empty_task_directories() {
  locked_task_directories_.clear();
  for (const TaskId& id : state_directory_.task_dirs_on_disk()) {
    if (state_directory_.directory_for_task_is_empty(id)) continue;  // listNonEmptyTaskDirectories
    if (!state_directory_.lock(id, thread_name_)) continue;
    if (active(id) == nullptr && standby(id) == nullptr) {
      IQ_PROBE("rebalance.locked_unassigned_task_dir",
               "a thread locked an unowned task directory for its rebalance");
    }
    locked_task_directories_.insert(id);
  }
}

void TaskManager::release_locked_unassigned_task_directories() {
  for (auto it = locked_task_directories_.begin(); it != locked_task_directories_.end();) {
    if (active(*it) != nullptr || standby(*it) != nullptr) {
      ++it;
      continue;
    }
    state_directory_.unlock(*it, thread_name_);
    it = locked_task_directories_.erase(it);
  }
}

std::set<TaskId> TaskManager::locked_task_directories_and_owned_tasks() const {
  std::set<TaskId> out = locked_task_directories_;
  for (const auto& [id, t] : actives_) out.insert(id);
  for (const auto& [id, t] : standbys_) out.insert(id);
  return out;
}

std::map<TaskId, int64_t> TaskManager::task_offset_sums_from_checkpoints() {
  std::map<TaskId, int64_t> sums;
  // The offset sum is Kafka's wire long (SubscriptionInfo): changelog offsets leave their type
  // here. A live task sums ProcessorStateManager.changelogOffsets(), the NEXT offset to fetch per
  // changelog (last applied + 1, 0 while unknown); a task only on disk sums its .checkpoint, the
  // last applied offsets, skipping the unknown sentinel. A map without entries reports nothing.
  auto disk_sum = [](const ChangelogOffsets& offsets) -> std::optional<int64_t> {
    if (offsets.empty()) return std::nullopt;  // no file: an empty map is never written
    int64_t sum = 0;
    for (const auto& [tp, o] : offsets) {
      if (o != ChangelogOffset(OffsetCheckpoint::kOffsetUnknown)) sum += o.value();
    }
    return sum;
  };
  auto opened = [this](const TaskId& id) {
    const Task* t = active(id) != nullptr ? static_cast<const Task*>(active(id)) : standby(id);
    return t != nullptr && t->initialized();
  };
  // getTaskOffsetSums' second loop: the directories tryToLockAllNonEmptyTaskDirectories locked
  // (non-empty, no other thread of this client holding them) and this thread's tasks not yet
  // initialized (waiting for their lock): their .checkpoint speaks for them.
  for (const TaskId& id : locked_task_directories_and_owned_tasks()) {
    if (opened(id)) continue;
    auto offsets = state_directory_.checkpointed_offsets(id);
    if (!offsets) continue;  // an unreadable checkpoint reports nothing, as a missing one
    if (auto s = disk_sum(*offsets)) sums[id] = *s;
  }
  for (const auto& [id, t] : actives_) {
    if (!t->initialized()) continue;
    const ChangelogOffsets offsets = t->changelog_offsets();
    if (t->state() == TaskState::RUNNING) {
      // StreamTask.changelogOffsets: LATEST_OFFSET for each changelog, so none without one.
      if (!offsets.empty()) sums[id] = Task::kLatestOffset;
    } else if (auto s = live_offset_sum(offsets)) {
      sums[id] = *s;
    }
  }
  for (const auto& [id, t] : standbys_) {
    if (!t->initialized()) continue;
    if (auto s = live_offset_sum(t->changelog_offsets())) sums[id] = *s;
  }
  return sums;
}

// TaskManager.taskOffsetSums at the new pin (95291432fa, 588e6dbfad): the cached sums of the
// directories this thread locks and of every task it owns, in any state (what their stores hold on
// disk, as last committed, restored or opened), overlaid by its live tasks: a RUNNING active with
// changelogs reports LATEST_OFFSET, any other task that is neither CREATED nor CLOSED the sum of
// its changelog offsets (in-memory stores included, which the cache leaves out).
std::map<TaskId, int64_t> TaskManager::task_offset_sums_from_cache() {
  std::map<TaskId, int64_t> sums =
      state_directory_.task_offset_sums(locked_task_directories_and_owned_tasks());
  for (const auto& [id, sum] : sums) {
    if (active(id) == nullptr && standby(id) == nullptr) {
      IQ_PROBE("offset_sums.unowned_dir_from_cache",
               "a subscription reported an unowned task directory's offset sum from the state "
               "directory's cache, not a .checkpoint (new pin, delta 14)");
    }
  }
  auto overlay = [&sums](const Task& t) {
    const ChangelogOffsets offsets = t.changelog_offsets();
    if (t.is_active() && t.state() == TaskState::RUNNING && !offsets.empty()) {
      sums[t.id()] = Task::kLatestOffset;
    } else if (t.state() != TaskState::CREATED && t.state() != TaskState::CLOSED) {
      if (auto s = live_offset_sum(offsets)) sums[t.id()] = *s;
    }
  };
  for (const auto& [id, t] : actives_) overlay(*t);
  for (const auto& [id, t] : standbys_) overlay(*t);
  return sums;
}

}  // namespace iq
