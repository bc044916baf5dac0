#pragma once
// ProcessorStateManager (PI/ProcessorStateManager.java): a task's registered stores, their
// changelog partitions and offsets, restoration into them, flush, and the checkpoint: every
// store's commit callback (which writes <store>.position for persistent stores) and then the
// task's .checkpoint with the changelog offsets of its persistent logged stores.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "state/offset_checkpoint.h"
#include "state/state_store_context.h"

namespace iq {

class ProcessorStateManager {
 public:
  // `logged_stores`: the stores whose changes go to "<application.id>-<store>-changelog".
  // `eos_enabled`: processing.guarantee=exactly_once_v2 (the checkpoint rules below change).
  ProcessorStateManager(std::string application_id, TaskId task, std::string task_dir,
                        FileSystem& fs, std::set<std::string> logged_stores,
                        bool eos_enabled = false);

  void register_store(StateStore& store, RestoreCallback restore, CommitCallback commit);
  StateStore* store(const std::string& name) const;
  // The registered root stores in registration order.
  std::vector<StateStore*> stores() const;
  std::optional<TopicPartition> changelog_partition(const std::string& store_name) const;

  // Load the changelog offsets from .checkpoint (missing file: none). Kafka does this once the
  // stores are registered (KAFKA-8574). Under exactly_once_v2 (ProcessorStateManager.
  // initializeStoreOffsetsFromCheckpoint): a persistent logged store without a checkpointed
  // offset while the task directory held more than .checkpoint before the stores opened
  // (`store_dir_was_empty` false) is TaskCorrupted (the stores may hold uncommitted writes of a
  // process that did not close cleanly); and once loaded, .checkpoint is deleted, so that it
  // exists only while the task is not processing and a crash leaves none.
  [[nodiscard]] Status initialize_store_offsets_from_checkpoint(bool store_dir_was_empty = true);
  // Under exactly_once_v2, a recycled task's initialization deletes .checkpoint too (Kafka's
  // initializeStoreOffsetsFromCheckpoint skips the recycled stores' offsets but still deletes
  // the file). A no-op under at-least-once.
  [[nodiscard]] Status delete_checkpoint_if_eos();
  bool eos_enabled() const { return eos_enabled_; }
  // The offset of the last changelog record applied to or written by `store_name`, if any.
  std::optional<ChangelogOffset> changelog_offset(const std::string& store_name) const;
  // An active task's own changelog write was appended at `offset`.
  void update_changelog_offset(const std::string& store_name, ChangelogOffset offset);

  // Not Kafka state: an observation the simulator's recorder reads (sim/history/placement.cc).
  // A run of own writes: from the first own write after the store last applied something
  // (restored, or loaded from .checkpoint) to the latest own write. Over a run the store took
  // only its own task's writes, so a record another instance appended inside (after_offset,
  // last_offset] (a fenced member's late write, landed after this active's restore had read to
  // its fixed end offset) never reached the store. after_offset is -1 when nothing was applied.
  // first_offset is the run's first own write: the records of this instance between after_offset
  // and it were appended before this store wrote anything (an earlier life's open transaction
  // that the restore stopped before, at the last stable offset).
  struct OwnWriteRun {
    int64_t after_offset = -1;
    int64_t last_offset = -1;
    int64_t first_offset = -1;
  };
  static constexpr size_t kOwnWriteRunsMax = 16;
  // The store's runs, oldest first, at most kOwnWriteRunsMax (older ones are dropped and counted).
  const std::vector<OwnWriteRun>& own_write_runs(const std::string& store_name) const;
  uint64_t own_write_runs_dropped(const std::string& store_name) const;
  // Not Kafka state either: the changelog offset `store_name`'s entry in .checkpoint held when the
  // task initialized (its restore replays the records after it over whatever the store kept), or
  // none (no file, no entry, or the unknown sentinel: replayed from the log start).
  std::optional<ChangelogOffset> loaded_checkpoint_offset(const std::string& store_name) const;
  // Apply a batch of changelog records (in offset order) to a store. Timestamped stores get each
  // value as [record timestamp][value] (RecordConverters.rawValueToTimestampedValue).
  [[nodiscard]] Status restore(const std::string& store_name,
                               const std::vector<ConsumerRecord>& records);

  // Every store's flush (a RocksDB store writes its memtable to disk): only inside a checkpoint
  // (AbstractTask.maybeCheckpoint), never at a plain commit.
  [[nodiscard]] Status flush();
  // Every store's caching layer writes its dirty entries down, the stores below are not flushed
  // (ProcessorStateManager.flushCache, a commit's StreamTask.flush).
  [[nodiscard]] Status flush_cache();
  [[nodiscard]] Status checkpoint();
  void close();
  const std::string& task_dir() const { return task_dir_; }

 private:
  struct StoreMetadata {
    StateStore* store;
    RestoreCallback restore;
    CommitCallback commit;
    std::optional<TopicPartition> changelog;
    std::optional<ChangelogOffset> offset;
    // See own_write_runs(): `writing` is true from an own write until the store applies again.
    std::vector<OwnWriteRun> own_write_runs;
    uint64_t own_write_runs_dropped = 0;
    bool writing = false;
  };
  StoreMetadata* metadata(const std::string& name);

  std::string application_id_;
  TaskId task_;
  std::string task_dir_;
  std::set<std::string> logged_stores_;
  std::vector<StoreMetadata> stores_;  // registration order: flush and checkpoint follow it
  OffsetCheckpoint checkpoint_file_;
  ChangelogOffsets loaded_offsets_;
  bool eos_enabled_ = false;
};

}  // namespace iq
