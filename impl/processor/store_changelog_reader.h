#pragma once
// StoreChangelogReader (PI/StoreChangelogReader.java, as driven by the state updater): one per
// stream thread, reading changelog partitions through the thread's restore consumer.
// - A changelog is registered with its task, then initialized (initializeChangelogs): an active
//   task's end offset is looked up ONCE (ListOffsets), and the changelog is added to the restore
//   consumer and seeked. It restores from its checkpoint (+1) or the beginning up to that end;
//   records appended later are processed by the task itself once RUNNING. A changelog is done
//   when its end offset is 0 or the consumer's position reached it.
// - A lookup that times out (the broker unreachable) leaves the active's changelogs registered and
//   starts, or checks, each such task's task.timeout.ms; every restore() tries again, as Kafka's
//   state updater does on its next run (endOffsetForChangelogs, maybeInitTaskTimeoutOrThrow).
//   Only a timeout past task.timeout.ms fails the thread.
// - A standby's changelog never completes; it follows the log end.
// - While any active changelog is restoring the reader is in ACTIVE_RESTORING and pauses every
//   standby changelog; otherwise STANDBY_UPDATING.
// Each loop polls at most max.poll.records (Streams' override, 1000, unless configured; the
// restore consumer inherits it as Kafka's common consumer configs do) and applies, per changelog,
// one batch through the store's batching restore callback.

#include <map>

#include "io/consumer.h"
#include "processor/task.h"

namespace iq {

class StoreChangelogReader {
 public:
  enum class Mode { ACTIVE_RESTORING, STANDBY_UPDATING };
  StoreChangelogReader(Consumer& restore_consumer, Admin& admin, size_t max_poll_records)
      : consumer_(restore_consumer), admin_(admin), max_poll_records_(max_poll_records) {
    IQ_ASSERT(max_poll_records_ >= 1, "max.poll.records={}", max_poll_records_);
  }

  void set_task_timeout_ms(int64_t ms) { task_timeout_ms_ = ms; }
  // Register every changelog of `task` and initialize what can be (Kafka's updater does so on
  // its next run, at once): see initialize_changelogs.
  [[nodiscard]] Status register_task(Task& task, int64_t now_ms);
  void unregister_task(const TaskId& id);
  // One restore loop: initialize the changelogs still registered, then poll and apply. Returns
  // the number of records applied.
  [[nodiscard]] base::Expected<size_t, StreamsError> restore(int64_t now_ms);
  // Active tasks whose changelogs have all reached their end offsets.
  std::vector<TaskId> restored_active_tasks() const;
  Mode mode() const;
  bool is_registered(const TaskId& id) const;
  size_t changelog_count() const { return changelogs_.size(); }
  // Changelogs registered and not initialized yet (their end offset not found).
  size_t registered_count() const;

 private:
  struct ChangelogMetadata {
    Task* task;
    std::string store_name;
    // ChangelogState.REGISTERED until initialized: in the restore consumer's assignment, seeked,
    // and (an active's) end offset fixed.
    bool initialized = false;
    std::optional<ChangelogOffset>
        restore_end_offset;  // actives only: exclusive (the LEO when initialized)
    std::vector<ConsumerRecord> buffered;
    // Where restoration started: the checkpointed offset + 1, or the log start. Set at
    // registration, with `restored` (records applied since) checked against it and the end.
    std::optional<ChangelogOffset> restore_start_offset = std::nullopt;
    int64_t restored = 0;
  };
  bool completed(const TopicPartition& tp, const ChangelogMetadata& m) const;
  void update_pausing();
  // initializeChangelogs: fix the end offsets of the registered actives' changelogs (a timeout
  // leaves them registered, see the header), then add every changelog that can start to the
  // restore consumer and seek it.
  [[nodiscard]] Status initialize_changelogs(int64_t now_ms);
  [[nodiscard]] Status find_end_offsets(int64_t now_ms);
  void start_restoring(const TopicPartition& tp, ChangelogMetadata& m);
  std::vector<TopicPartition> initialized_partitions() const;

  Consumer& consumer_;
  Admin& admin_;
  size_t max_poll_records_;
  int64_t task_timeout_ms_ = 300'000;  // task.timeout.ms
  std::map<TopicPartition, ChangelogMetadata> changelogs_;
};

}  // namespace iq
