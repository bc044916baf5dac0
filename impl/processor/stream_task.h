#pragma once
// StreamTask (PI/StreamTask.java): an active task. It buffers the records of its input
// partition, processes them one at a time through its topology (installing each record's context
// first, so every store write carries the record's topic, partition and offset), and commits:
// flush the caches (not the stores), hand back the input offset to commit (consumed + 1), then
// checkpoint (which flushes the stores) under the 10,000-offset rule (at-least-once).

#include <deque>

#include "processor/task.h"

namespace iq {

class StreamTask final : public Task {
 public:
  StreamTask(TaskId id, const TopologyConfig& topology, const TaskEnvironment& env)
      : Task(id, TaskType::kActive, topology, env) {}
  // A standby promoted on this client: its stores stay open and it restores the remaining lag.
  explicit StreamTask(Task&& standby) : Task(std::move(standby), TaskType::kActive) {
    state_ = TaskState::RESTORING;
  }

  TopicPartition input_partition() const { return {topology_config().source_topic, id_.partition}; }

  // RESTORING -> RUNNING once every changelog reached its restore end offset: an enforced
  // checkpoint, then processing may start.
  [[nodiscard]] Status complete_restoration();

  void add_records(const std::vector<ConsumerRecord>& records);
  size_t buffered() const { return queue_.size(); }
  // Processes one buffered record when RUNNING. Returns whether one was processed.
  [[nodiscard]] base::Expected<bool, StreamsError> process_one();

  bool commit_needed() const { return commit_needed_; }
  // The input offsets to commit (the next offset to consume), after flushing the caches; none
  // when nothing was processed since the last commit.
  [[nodiscard]] base::Expected<TopicPartitionOffsets, StreamsError> prepare_commit();
  [[nodiscard]] Status post_commit(bool enforce_checkpoint);
  // The offset of the last processed record, if any.
  std::optional<int64_t> consumed_offset() const { return consumed_offset_; }

  // Revocation, after the caller committed and checkpointed the task: SUSPENDED.
  void suspend();
  // TaskManager.convertActiveToStandby keeps the stores; the buffered input is dropped.
  void prepare_recycle();

 private:
  std::deque<ConsumerRecord> queue_;
  std::optional<int64_t> consumed_offset_;
  bool commit_needed_ = false;
};

}  // namespace iq
