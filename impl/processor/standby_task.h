#pragma once
// StandbyTask (PI/StandbyTask.java): no input, no processing, no output. Its stores are kept up
// to date from their changelog partitions by the thread's StoreChangelogReader; its context
// refuses logChange. It is RUNNING ("updating") as soon as it is initialized, and checkpoints on
// commit under the same 10,000-offset rule; it flushes its stores only inside that checkpoint.

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
  // StandbyTask.prepareCommit flushes nothing ("nothing would be sent for standby tasks");
  // postCommit checkpoints past the threshold, and that checkpoint's flush is the standby's only
  // one: between checkpoints its RocksDB memtable holds what it applied (lost by a crash, as
  // .checkpoint does not name it), and a crash can land inside that flush.
  [[nodiscard]] Status commit() { return maybe_checkpoint(/*enforce=*/false); }
};

}  // namespace iq
