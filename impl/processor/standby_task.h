#pragma once
// StandbyTask (PI/StandbyTask.java): no input, no processing, no output. Its stores are kept up
// to date from their changelog partitions by the thread's StoreChangelogReader; its context
// refuses logChange. It is RUNNING ("updating") as soon as it is initialized, and checkpoints on
// the state updater's clock under the same 10,000-offset rule; it flushes its stores only inside
// that checkpoint.

#include "processor/task.h"

namespace iq {

class StandbyTask final : public Task {
 public:
  StandbyTask(TaskId id, const TopologyConfig& topology, const TaskEnvironment& env)
      : Task(id, TaskType::kStandby, topology, env) {}
  // An active that stays on this client as a standby: its stores stay open.
  explicit StandbyTask(Task&& active) : Task(std::move(active), TaskType::kStandby) {
    state_ = TaskState::RUNNING;
  }

  [[nodiscard]] Status initialize() override {
    auto s = Task::initialize();
    if (!s) return s;
    transition_to(TaskState::RUNNING);  // StandbyTask.initializeIfNeeded
    return ok_status();
  }
  // StandbyTask.prepareCommit/postCommit are never called with the state updater: a standby lives
  // in it, and its checkpoint (threshold rule; the flush inside it is the standby's only one)
  // comes from DefaultStateUpdater.maybeCheckpointTasks (TaskManager::checkpoint_updating_tasks)
  // or the enforced one when it leaves the updater (close_clean, promotion).
};

}  // namespace iq
