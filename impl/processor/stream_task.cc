#include "processor/stream_task.h"

namespace iq {

Status StreamTask::complete_restoration() {
  IQ_ASSERT(state_ == TaskState::RESTORING, "task {} completes restoration in {}", id_.to_string(),
            to_string(state_));
  // StreamTask.completeRestoration checkpoints only under at-least-once: under exactly_once_v2
  // no .checkpoint may exist while the task processes.
  if (!env_.eos_enabled) {
    auto s = maybe_checkpoint(/*enforce=*/true);
    if (!s) return s;
  }
  transition_to(TaskState::RUNNING);
  return ok_status();
}

void StreamTask::add_records(const std::vector<ConsumerRecord>& records) {
  for (const auto& r : records) {
    IQ_ASSERT(r.topic == input_partition().first && r.partition == id_.partition,
              "record for {}-{} given to task {}", r.topic, r.partition, id_.to_string());
    IQ_ASSERT(queue_.empty() || r.offset > queue_.back().offset, "input out of order at offset {}",
              r.offset);
    queue_.push_back(r);
  }
}

base::Expected<bool, StreamsError> StreamTask::process_one() {
  if (state_ != TaskState::RUNNING || queue_.empty()) return false;
  ConsumerRecord record = std::move(queue_.front());
  queue_.pop_front();
  // StreamTask.doProcess: the consumed record's context; never cleared afterwards.
  context_->set_record_context(RecordContext{record.topic, record.partition, record.offset,
                                             record.timestamp, record.headers});
  auto s = topology_->process(record);
  if (!s) return base::unexpected(s.error());
  IQ_ASSERT(!consumed_offset_ || record.offset > *consumed_offset_);
  consumed_offset_ = record.offset;
  commit_needed_ = true;
  if (env_.processed != nullptr)
    env_.processed->on_processed(record.topic, record.partition, record.offset);
  return true;
}

// StreamTask.prepareCommit: only a task that processed since its last commit prepares one, and
// preparing is StreamTask.flush, the caches' flush (the record collector's flush is a no-op
// here: sends complete synchronously). The stores themselves (RocksDB's memtable) are flushed only
// by a checkpoint (Task::maybe_checkpoint) or by RocksDB when a memtable fills.
base::Expected<TopicPartitionOffsets, StreamsError> StreamTask::prepare_commit() {
  if (!commit_needed_) return TopicPartitionOffsets{};
  auto s = state_manager_->flush_cache();
  if (!s) return base::unexpected(s.error());
  TopicPartitionOffsets offsets;
  if (consumed_offset_) offsets[input_partition()] = *consumed_offset_ + 1;
  return offsets;
}

Status StreamTask::post_commit(bool enforce_checkpoint) {
  commit_needed_ = false;
  // StreamTask.postCommit: a RUNNING active checks the threshold on every commit under
  // at-least-once; under exactly_once_v2 it checkpoints only when enforced (suspension,
  // revocation), so that no .checkpoint exists while it processes.
  // Pin delta 5 (§3.5): with transactional stores the RUNNING active commits its stores after every
  // task commit under exactly_once_v2 too (their staged writes become committed). Applied only
  // while the task's offsets live in its stores, which at the new pin every built-in store's do
  // (key-value, window, session and versioned).
  const bool commit_stores = env_.transactional_state_stores && offsets_in_stores();
  if (state_ == TaskState::RUNNING && env_.eos_enabled && !enforce_checkpoint && !commit_stores) {
    return ok_status();
  }
  if (state_ == TaskState::RUNNING || enforce_checkpoint)
    return maybe_checkpoint(enforce_checkpoint);
  return ok_status();
}

// StreamTask.suspend writes nothing: the revocation that precedes it enforced the checkpoint
// (postCommit(true) for a RUNNING task, the state updater's removal for a restoring one).
void StreamTask::suspend() {
  if (state_ == TaskState::SUSPENDED) return;
  transition_to(TaskState::SUSPENDED);
}

void StreamTask::prepare_recycle() {
  queue_.clear();
}

}  // namespace iq
