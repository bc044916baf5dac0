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

#include "iq/store_life_observer.h"
#include "state/offset_checkpoint.h"
#include "state/state_store_context.h"

namespace iq {

class StateDirectory;

class ProcessorStateManager {
 public:
  // `logged_stores`: the stores whose changes go to "<application.id>-<store>-changelog".
  // `eos_enabled`: processing.guarantee=exactly_once_v2 (the checkpoint rules below change).
  ProcessorStateManager(std::string application_id, TaskId task, std::string task_dir,
                        FileSystem& fs, std::set<std::string> logged_stores,
                        bool eos_enabled = false);

  // Not Kafka: whom to tell of each store's life (iq/store_life_observer.h; by default nobody),
  // and whether the task is an active when its stores open.
  void observe_store_lives(StoreLifeObserver& observer, bool active) {
    observer_ = &observer;
    active_ = active;
  }
  // Pin delta 14 (95291432fa, 588e6dbfad): keep `directory`'s task offset-sum cache up to date
  // with this task's persistent logged stores: when their offsets are initialized, after every
  // restore batch, and at update_offsets_cache() (StreamTask.maybeCheckpoint's
  // updateChangelogOffsets). Not set at the old pin, which has no cache.
  void report_offsets_to(StateDirectory& directory) { offsets_cache_ = &directory; }
  void update_offsets_cache();

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

  // KIP-1035 (the new pin; docs/kafka-2026-08-20.md §4). Whether every persistent store keeps its
  // offsets itself (StateStore::manages_offsets; a task whose stores are all in memory counts).
  bool stores_manage_offsets() const;
  // enable.transactional.statestores (pin delta 5): under EOS a store without a committed offset
  // in a non-empty directory is then no TaskCorrupted
  // (shouldNotThrowTaskCorrupted...Transactional).
  void set_transactional_state_stores(bool enabled) { transactional_ = enabled; }
  // ProcessorStateManager.initializeStoreOffsets (pin delta 1, 5740a26525): each logged persistent
  // store without an offset yet asks its committedOffset; the unknown sentinel reads as none; none
  // at all under exactly_once_v2 while the task directory was not empty is TaskCorrupted (the
  // stores may hold writes of a process that did not close cleanly). No file is read or deleted.
  [[nodiscard]] Status initialize_store_offsets(bool store_dir_was_empty);
  // LegacyCheckpointingStateStore.migrateLegacyOffsets (pin delta 13, d7fed9d023, 5740a26525),
  // run once the stores are registered and before initialize_store_offsets: an old pin's
  // .checkpoint, if any, is read; each entry of a registered logged store's changelog but the
  // unknown sentinel is committed into that store (store.commit({partition: offset}): into the
  // memtable, durable at the next flush or clean close); then the file is deleted. Any error is a
  // ProcessorStateException naming the task.
  [[nodiscard]] Status migrate_legacy_checkpoint();
  // ProcessorStateManager.commit (pin delta 3, a40c8769ce; replaces flush() + checkpoint()): every
  // store's commit(offsets): a logged persistent store gets its changelog offset (or
  // OFFSET_UNKNOWN, d84e19dde4), any other an empty map; then its commit callback. Nothing is
  // flushed (pin delta 2, 4becf48158): the offsets are as durable as the store's memtable.
  [[nodiscard]] Status commit();
  // The offset of the last changelog record applied to or written by `store_name`, if any.
  std::optional<ChangelogOffset> changelog_offset(const std::string& store_name) const;
  // The offset of the last changelog record in `store_name`'s committed state: loaded at
  // initialization, restored (restoration and standby updates write committed data), or applied
  // or written before its last commit(). A transactional store (2026-08-20 pin) answers
  // READ_COMMITTED from exactly the records up to it; for any other store it only names the last
  // commit.
  std::optional<ChangelogOffset> committed_changelog_offset(const std::string& store_name) const;
  // An active task's own changelog write was appended at `offset`.
  void update_changelog_offset(const std::string& store_name, ChangelogOffset offset);

  // The life the observer gave `store_name` when it opened (0: none).
  StoreLifeId store_life(const std::string& store_name) const;
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
  void close(StoreCloseKind kind);
  const std::string& task_dir() const { return task_dir_; }

 private:
  struct StoreMetadata {
    StateStore* store;
    RestoreCallback restore;
    CommitCallback commit;
    std::optional<TopicPartition> changelog;
    std::optional<ChangelogOffset> offset;
    // The changelog offset of the store's committed state (KIP-892): what it loaded or restored
    // (restored records are committed on arrival) and, at each commit(), `offset`.
    std::optional<ChangelogOffset> committed;
    // The loaded offsets held an entry for `changelog`, the unknown sentinel included.
    bool entry_loaded = false;
    StoreLifeId life = 0;
  };
  StoreMetadata* metadata(const std::string& name);
  // Tells the observer that each store opened (initialize_store_offsets_from_checkpoint).
  void report_opened();

  std::string application_id_;
  TaskId task_;
  std::string task_dir_;
  std::set<std::string> logged_stores_;
  std::vector<StoreMetadata> stores_;  // registration order: flush and checkpoint follow it
  OffsetCheckpoint checkpoint_file_;
  ChangelogOffsets loaded_offsets_;
  bool eos_enabled_ = false;
  bool transactional_ = false;
  StoreLifeObserver* observer_ = &no_store_life_observer();
  bool active_ = false;
  StateDirectory* offsets_cache_ = nullptr;  // pin delta 14; null at the old pin
};

}  // namespace iq
