#include "processor/task.h"
#include "io/operation_marker.h"
#include "processor/state_directory.h"

namespace iq {

const char* to_string(TaskState s) {
  switch (s) {
    case TaskState::CREATED:
      return "CREATED";
    case TaskState::RESTORING:
      return "RESTORING";
    case TaskState::RUNNING:
      return "RUNNING";
    case TaskState::SUSPENDED:
      return "SUSPENDED";
    case TaskState::CLOSED:
      return "CLOSED";
  }
  return "?";
}

bool is_valid_transition(TaskState from, TaskState to) {
  switch (from) {
    case TaskState::CREATED:
      return to == TaskState::RESTORING || to == TaskState::SUSPENDED;
    case TaskState::RESTORING:
      return to == TaskState::RUNNING || to == TaskState::SUSPENDED;
    case TaskState::RUNNING:
      return to == TaskState::SUSPENDED;
    case TaskState::SUSPENDED:
      return to == TaskState::RESTORING || to == TaskState::CLOSED;
    case TaskState::CLOSED:
      return to == TaskState::CREATED;
  }
  return false;
}

Task::Task(TaskId id, TaskType type, const TopologyConfig& topology, const TaskEnvironment& env)
    : id_(id), env_(env), topology_(std::make_unique<TaskTopology>(topology)) {
  IQ_ASSERT(env_.fs != nullptr);
  std::set<std::string> logged;
  if (topology.logging) logged.insert(topology.store_name);
  state_manager_ = std::make_unique<ProcessorStateManager>(env_.application_id, id_, env_.task_dir,
                                                           *env_.fs, logged, env_.eos_enabled);
  state_manager_->set_transactional_state_stores(env_.transactional_state_stores);
  state_manager_->observe_store_lives(
      env_.store_lives != nullptr ? *env_.store_lives : no_store_life_observer(),
      type == TaskType::kActive);
  // pin delta 14 (95291432fa): the state manager feeds the state directory's offset-sum cache.
  if (at_least(env_.kafka_pin, KafkaPin::k2026_08_20) && env_.state_directory != nullptr) {
    state_manager_->report_offsets_to(*env_.state_directory);
  }
  ThreadCache* cache = type == TaskType::kActive ? env_.cache : env_.standby_cache;
  context_ = std::make_unique<ProcessorContextImpl>(
      ProcessorContextImpl::Config{env_.application_id, id_, type, env_.consistency_enabled,
                                   env_.rocksdb_write_buffer_size, env_.kafka_pin, env_.eos_enabled,
                                   env_.quirks, env_.transactional_state_stores},
      *state_manager_, *env_.fs, env_.rocksdb_env, cache,
      type == TaskType::kActive ? env_.collector : nullptr);
}

Task::Task(Task&& recycled, TaskType type)
    : id_(recycled.id_),
      env_(recycled.env_),
      topology_(std::move(recycled.topology_)),
      state_manager_(std::move(recycled.state_manager_)),
      context_(std::move(recycled.context_)),
      // Kafka recycles into a new task object, whose initializeIfNeeded starts the snapshot empty.
      offsets_at_last_checkpoint_(ChangelogOffsets{}),
      initialized_(recycled.initialized_) {
  IQ_ASSERT(recycled.state_ == TaskState::SUSPENDED || recycled.state_ == TaskState::RUNNING,
            "recycling task {} in state {}", id_.to_string(), to_string(recycled.state_));
  IQ_ASSERT(initialized_, "recycling task {} that never opened its stores", id_.to_string());
  topology_->clear_cache();
  context_->transition(type, type == TaskType::kActive ? env_.cache : env_.standby_cache,
                       type == TaskType::kActive ? env_.collector : nullptr);
  recycled.state_ = TaskState::CLOSED;
}

void Task::transition_to(TaskState next) {
  IQ_ASSERT(is_valid_transition(state_, next), "task {}: invalid transition {} -> {}",
            id_.to_string(), to_string(state_), to_string(next));
  state_ = next;
}

std::vector<TopicPartition> Task::changelog_partitions() const {
  std::vector<TopicPartition> out;
  for (StateStore* s : state_manager_->stores()) {
    if (auto tp = state_manager_->changelog_partition(s->name())) out.push_back(*tp);
  }
  return out;
}

ChangelogOffsets Task::changelog_offsets() const {
  ChangelogOffsets out;
  for (StateStore* s : state_manager_->stores()) {
    auto tp = state_manager_->changelog_partition(s->name());
    if (!tp) continue;
    out.insert_or_assign(*tp, state_manager_->changelog_offset(s->name()).value_or(
                                  ChangelogOffset(OffsetCheckpoint::kOffsetUnknown)));
  }
  return out;
}

Status Task::initialize() {
  IQ_ASSERT(state_ == TaskState::CREATED, "initialize in state {}", to_string(state_));
  // StateDirectory.getOrCreateDirectoryForTask: no directory without a persistent store. A lone
  // task (unit tests, no state directory) creates its own, as with a persistent store.
  Status s = ok_status();
  if (env_.state_directory == nullptr) {
    s = env_.fs->create_directories(env_.task_dir);
  } else {
    IQ_ASSERT(env_.task_dir == env_.state_directory->task_dir(id_), "task {} in {}",
              id_.to_string(), env_.task_dir);
    s = env_.state_directory->get_or_create_directory_for_task(id_);
  }
  if (!s) return s;
  // StateDirectory.directoryForTaskIsEmpty, asked before the stores open: anything but
  // .checkpoint counts. Only exactly_once_v2 reads the answer, so only it lists the directory.
  bool store_dir_was_empty = true;
  if (env_.eos_enabled) {
    for (const std::string& name : env_.fs->list_directory(env_.task_dir)) {
      if (name != ".checkpoint") store_dir_was_empty = false;
    }
  }
  // KAFKA-8574: stores register first, then the checkpoint is loaded.
  s = topology_->store().init(*context_, topology_->store());
  if (!s) return s;
  // pin delta 13: an old pin's .checkpoint is migrated into the stores first
  // (ProcessorStateManager.registerStateStores, after every store's init).
  if (offsets_in_stores()) {
    s = state_manager_->migrate_legacy_checkpoint();
    if (!s) return s;
  }
  s = offsets_in_stores()
          ? state_manager_->initialize_store_offsets(store_dir_was_empty)
          : state_manager_->initialize_store_offsets_from_checkpoint(store_dir_was_empty);
  if (!s) return s;
  // StreamTask/StandbyTask.initializeIfNeeded: the snapshot starts empty, not at the loaded
  // offsets, so the first unforced checkpoint compares the absolute next offsets against the
  // threshold ("so that we would checkpoint right after loading").
  offsets_at_last_checkpoint_ = ChangelogOffsets{};
  initialized_ = true;
  transition_to(TaskState::RESTORING);
  return ok_status();
}

bool Task::offsets_in_stores() const {
  // pin delta 3 (a40c8769ce, 5740a26525): the one place the task asks the pin about offsets.
  // A store that does not manage its offsets (the segmented and versioned RocksDB stores, not yet
  // ported) keeps its task on the old path: flush, .position and .checkpoint, as Kafka's
  // LegacyCheckpointingStateStore keeps a user store.
  return at_least(env_.kafka_pin, KafkaPin::k2026_08_20) && state_manager_->stores_manage_offsets();
}

Status Task::maybe_checkpoint(bool enforce) {
  // StreamTask.maybeCheckpoint: updateChangelogOffsets first, which refreshes the offset-sum cache
  // (pin delta 14; nothing at the old pin). A standby's cache entry follows its restore batches.
  if (is_active()) state_manager_->update_offsets_cache();
  if (offsets_in_stores()) {
    // AbstractTask.maybeCheckpoint at the new pin: stateMgr.commit(), no threshold, no flush.
    if (!offsets_at_last_checkpoint_) return ok_status();  // never before the stores opened
    const OperationScope marker(Operation::kCheckpoint);
    return state_manager_->commit();
  }
  const ChangelogOffsets now = changelog_offsets();
  // StateManagerUtil.checkpointNeeded: never before the first snapshot; always when enforced;
  // otherwise when the summed movement exceeds the threshold.
  if (!offsets_at_last_checkpoint_) return ok_status();
  if (!enforce) {
    // Over ProcessorStateManager.changelogOffsets' values: the next offset to fetch (the last
    // applied + 1), 0 while unknown; a partition missing from the old snapshot counts as 0.
    const auto next = [](ChangelogOffset offset) {
      return std::max<int64_t>(offset.value(), -1) + 1;
    };
    int64_t delta = 0;
    for (const auto& [tp, offset] : now) {
      auto it = offsets_at_last_checkpoint_->find(tp);
      delta += next(offset) - (it == offsets_at_last_checkpoint_->end() ? 0 : next(it->second));
    }
    if (delta <= env_.offset_delta_threshold_for_checkpoint) return ok_status();
  }
  const OperationScope marker(Operation::kCheckpoint);  // flush, <store>.position, .checkpoint
  Status s = ok_status();
  {
    const OperationScope flushing(Operation::kCheckpointFlush);
    s = state_manager_->flush();
  }
  if (!s) return s;
  s = state_manager_->checkpoint();
  if (!s) return s;
  offsets_at_last_checkpoint_ = now;
  return ok_status();
}

void Task::close_dirty() {
  // Dirty: the cached writes that were never flushed are dropped, not written to the changelog.
  topology_->clear_cache();
  state_manager_->close(StoreCloseKind::kDirty);
  state_ = TaskState::CLOSED;
}

void Task::report_wiped() const {
  if (env_.store_lives != nullptr) env_.store_lives->wiped(id_);
}

// TaskManager.closeAndRecycleTasks then closeTaskClean: a standby suspends and checkpoints
// (postCommit, enforced) before it closes; an active checkpointed when it was revoked (or never
// opened its stores) and closes without writing. Closing a RocksDB store flushes what its memtable
// still holds (DB::Close, avoid_flush_during_shutdown false): after the checkpoint's flush that is
// nothing; after a dirty close, the writes since the last checkpoint.
Status Task::maybe_init_task_timeout_or_throw(int64_t now_ms, int64_t task_timeout_ms,
                                              const StreamsError& cause) {
  if (!task_timeout_deadline_ms_) {
    IQ_PROBE("task.timeout_started", "a TimeoutException started a task's task.timeout.ms");
    task_timeout_deadline_ms_ = now_ms + task_timeout_ms;
    return ok_status();
  }
  if (now_ms <= *task_timeout_deadline_ms_) return ok_status();
  IQ_PROBE("task.timeout_exceeded",
           "a task failed after task.timeout.ms of TimeoutExceptions (not in the default "
           "campaign: its longest outage, about 130 s, is shorter than task.timeout.ms's 300 s; "
           "TaskManagerTest.ACommitTimeoutIsRetriedUntilTaskTimeoutMs reaches it)");
  return base::unexpected(StreamsError{
      StreamsError::Kind::Streams,
      fmt::format("TimeoutException: Task {} did not make progress within {} ms. Adjust "
                  "`task.timeout.ms` if needed. ({})",
                  id_.to_string(), now_ms - *task_timeout_deadline_ms_ + task_timeout_ms,
                  cause.to_string())});
}

Status Task::close_clean() {
  IQ_ASSERT(!is_active() || state_ == TaskState::SUSPENDED || state_ == TaskState::CREATED,
            "active {} closes clean in {}", id_.to_string(), to_string(state_));
  if (!is_active()) {
    auto s = maybe_checkpoint(/*enforce=*/true);
    if (!s) return s;
  }
  state_manager_->close(StoreCloseKind::kClean);
  if (state_ != TaskState::SUSPENDED) transition_to(TaskState::SUSPENDED);
  transition_to(TaskState::CLOSED);
  return ok_status();
}

}  // namespace iq
