#pragma once
// StoreChangelogReader (PI/StoreChangelogReader.java, as driven by the state updater): one per
// stream thread, reading changelog partitions through the thread's restore consumer.
// - An active task's changelog restores from its checkpoint (+1) or the beginning up to the end
//   offset fixed ONCE at registration (ListOffsets); records appended later are processed by the
//   task itself once RUNNING. A changelog is done when its end offset is 0 or the consumer's
//   position reached it.
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

  // Register every changelog of `task` (seeking the restore consumer), fixing the end offsets of
  // an active task's changelogs.
  [[nodiscard]] Status register_task(Task& task);
  void unregister_task(const TaskId& id);
  // One restore loop. Returns the number of records applied.
  [[nodiscard]] base::Expected<size_t, StreamsError> restore();
  // Active tasks whose changelogs have all reached their end offsets.
  std::vector<TaskId> restored_active_tasks() const;
  Mode mode() const;
  bool is_registered(const TaskId& id) const;
  size_t changelog_count() const { return changelogs_.size(); }

 private:
  struct ChangelogMetadata {
    Task* task;
    std::string store_name;
    std::optional<ChangelogOffset>
        restore_end_offset;  // actives only: exclusive (the LEO at registration)
    std::vector<ConsumerRecord> buffered;
    // Where restoration started: the checkpointed offset + 1, or the log start. Set at
    // registration, with `restored` (records applied since) checked against it and the end.
    std::optional<ChangelogOffset> restore_start_offset = std::nullopt;
    int64_t restored = 0;
  };
  bool completed(const TopicPartition& tp, const ChangelogMetadata& m) const;
  void update_pausing();

  Consumer& consumer_;
  Admin& admin_;
  size_t max_poll_records_;
  std::map<TopicPartition, ChangelogMetadata> changelogs_;
};

}  // namespace iq
