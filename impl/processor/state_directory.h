#pragma once
// StateDirectory (PI/StateDirectory.java): the instance's state.dir/<application.id>/ with one
// directory per task ("<subtopology>_<partition>"), made only when the topology has a persistent
// store (without one nothing is written under state.dir). It outlives task ownership: a task that
// moves away leaves its directory (its .checkpoint and store files) behind, so the instance reports
// an offset sum for it at the next rebalance and can restore from there if it gets the task back.
// KafkaStreams' cleaner deletes a directory no thread holds once its last-modified time (the
// directory's mtime, moved by writing, renaming or deleting .checkpoint or <store>.position) is
// older than state.cleanup.delay.ms (default 10 minutes), whichever process life left it.
// It also holds the per-task locks (StateDirectory.lock/unlock): a task's directory belongs to one
// stream thread at a time, so a task that moves between two threads of this client is opened by
// the receiving thread only once the other has closed it. Only when the topology has a persistent
// store (TopologyMetadata.hasPersistentStores): without one, lock() always answers true and
// records no owner, so an in-memory task moving between threads opens at once, possibly while
// the other thread still holds its own copy.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "iq/task_id.h"
#include "state/offset_checkpoint.h"

namespace iq {

class StateDirectory {
 public:
  static constexpr int64_t kDefaultCleanupDelayMs = 600'000;
  // The lock owner the cleaner takes a directory's lock as (Kafka's "<client>-CleanupThread").
  static constexpr const char* kCleanupThread = "CleanupThread";

  StateDirectory(FileSystem& fs, std::string state_dir, std::string application_id,
                 int64_t cleanup_delay_ms = kDefaultCleanupDelayMs,
                 bool has_persistent_stores = true)
      : fs_(fs),
        root_(std::move(state_dir) + "/" + application_id),
        cleanup_delay_ms_(cleanup_delay_ms),
        has_persistent_stores_(has_persistent_stores) {}

  std::string task_dir(const TaskId& id) const { return root_ + "/" + id.to_string(); }
  const std::string& root() const { return root_; }
  // StateDirectory.getOrCreateDirectoryForTask (called by ProcessorStateManager's constructor):
  // creates the task's directory, and the application's above it, only when the topology has a
  // persistent store. Without one Kafka creates nothing on disk at either pin: no store writes
  // there, and .checkpoint, which lists persistent stores only, is only ever deleted.
  [[nodiscard]] Status get_or_create_directory_for_task(const TaskId& id);

  // Task directories present on disk, parsed back into task ids, in order.
  std::vector<TaskId> task_dirs_on_disk();
  // The changelog offsets in a task directory's .checkpoint (empty when there is none).
  [[nodiscard]] base::Expected<ChangelogOffsets, StreamsError> checkpointed_offsets(
      const TaskId& id);

  // StateDirectory.directoryForTaskIsEmpty: nothing in the task directory but .checkpoint.
  bool directory_for_task_is_empty(const TaskId& id);
  // StateDirectory.lock: take the task's lock for `owner` (a stream thread's name). True when
  // taken or already held by `owner`; false while another thread holds it. Without a persistent
  // store always true, and no owner is recorded.
  [[nodiscard]] bool lock(const TaskId& id, const std::string& owner);
  // Not Kafka (observation only): a task of this process life opened the directory, as its
  // initialization does right after taking the lock. A rebalance-start lock, which only reads
  // the offset sum, is no opening.
  void note_opened(const TaskId& id) { opened_in_this_life_.insert(id); }
  // StateDirectory.unlock: release the lock if `owner` holds it; a lock held by another thread
  // stays.
  void unlock(const TaskId& id, const std::string& owner);
  // The thread holding the task's lock, if any.
  std::optional<std::string> lock_owner(const TaskId& id) const;

  // StateDirectory.cleanRemovedTasks, what KafkaStreams' cleaner runs: every task directory on
  // disk that no stream thread has locked is locked by the cleaner, deleted if its last-modified
  // time is more than the cleanup delay before `now_ms` (on the file system's clock), and
  // unlocked. A failed deletion is skipped, as Kafka logs and swallows it. Returns the tasks
  // removed, in order.
  std::vector<TaskId> clean_removed_tasks(int64_t now_ms);
  // New pin only (65d65546d5, KAFKA-20805): ProcessorStateManager.close sets the task
  // directory's last-modified time to `now_ms`, so the cleaner measures the delay from the
  // release; nothing else moves it there once .checkpoint is no longer written. A missing
  // directory (wiped) is left alone, and a failure is only logged in Kafka.
  void refresh_last_modified(const TaskId& id, int64_t now_ms);
  // Everything under the application directory (a replaced disk, or an EOS wipe).
  // The offset-sum cache forgets the task first (StateManagerUtil.closeStateManager, delta 14).
  [[nodiscard]] Status wipe_task(const TaskId& id) {
    remove_task_offsets(id);
    return fs_.delete_recursively(task_dir(id));
  }

  // Pin delta 14 (95291432fa, 588e6dbfad): the task offset-sum cache the assignor reads at the new
  // pin in place of .checkpoint files. Seeded at start from every local task's stores
  // (KafkaStreams::start), updated by a task's state manager when its stores open, after every
  // restore batch and at an active's checkpoint, removed when the directory is wiped or cleaned.
  // `next_offsets`: each persistent logged store's next changelog offset to fetch (the last
  // applied + 1, 0 while unknown); an empty map leaves the entry as it was.
  void update_task_offsets(const TaskId& id, const std::map<TopicPartition, int64_t>& next_offsets);
  void remove_task_offsets(const TaskId& id) { task_offset_sums_.erase(id); }
  // StateDirectory.taskOffsetSums(tasks): the cached sums of the tasks in `tasks`.
  std::map<TaskId, int64_t> task_offset_sums(const std::set<TaskId>& tasks) const;
  // StateDirectory.sumOfChangelogOffsets: the sum, skipping OFFSET_UNKNOWN, pinned to the largest
  // long on overflow. Any other negative offset is a bug of the caller.
  static int64_t sum_of_changelog_offsets(const TaskId& id,
                                          const std::map<TopicPartition, int64_t>& offsets);

 private:
  FileSystem& fs_;
  std::string root_;
  int64_t cleanup_delay_ms_;
  bool has_persistent_stores_;
  std::map<TaskId, std::string> lock_owners_;  // bounded by the tasks of the topology
  // Tasks a task of this process life opened (note_opened; observation only: the cleaner's probe
  // tells a directory a previous life left apart); bounded the same way.
  std::set<TaskId> opened_in_this_life_;
  std::map<TaskId, int64_t> task_offset_sums_;  // pin delta 14; bounded by the task directories
};

}  // namespace iq
