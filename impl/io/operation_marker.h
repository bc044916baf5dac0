#pragma once
// Operation markers: which multi-step operation of impl/ is in progress right now, for whoever
// watches impl/'s I/O from outside. An observation seam, not a Kafka API, and it changes nothing
// in impl/: the simulator reads it when a crash lands inside an operation (sim/cluster's crash
// arm) to say which sequence the crash interrupted (flush then .position then .checkpoint, a
// restore pass, the state-directory cleaner, a clean close), to arm a crash that lands only
// inside one of them, and to fail a disk read only inside a key query. impl/ marks; nothing in
// impl/ reads the marks back.
//
//   OperationScope scope(Operation::kWriteCheckpoint);  // set for the scope's lifetime
//   operations_in_progress();                           // a mask of Operation bits
//
// The mask is process-wide (one KafkaStreams runs at a time on the simulator's one thread; scopes
// nest and each restores the mask it found). It is an atomic because RocksDB writes a flush's
// files from its own thread while the marking thread waits for the flush, and the simulated disk
// reads the mask there.

#include <atomic>
#include <cstdint>

namespace iq {

enum class Operation : uint32_t {
  // Task::maybe_checkpoint: the stores' flush, then each store's <store>.position, then
  // .checkpoint.
  kCheckpoint = 1u << 0,
  // Inside kCheckpoint, after the flush: a store's commit, which writes its <store>.position.
  kWritePosition = 1u << 1,
  // Inside kCheckpoint, after every store's commit: writing the task's .checkpoint.
  kWriteCheckpoint = 1u << 2,
  // A pass of StoreChangelogReader::restore: polling the restore consumer, applying the batch to
  // the stores, and what completing a restore does.
  kRestore = 1u << 3,
  // StateDirectory's cleaner deleting unassigned task directories.
  kStateDirectoryCleaner = 1u << 4,
  // KafkaStreams::close.
  kClose = 1u << 5,
  // TaskManager::commit_actives: the stores' flush (prepareCommit), the offset commit, then each
  // task's postCommit (which may checkpoint: kCheckpoint inside it).
  kCommit = 1u << 6,
  // Inside kCheckpoint, before the files: the stores' flush. Usually empty for an active (its
  // commit flushed just before); a standby's only flush, and the flush after a restore.
  kCheckpointFlush = 1u << 7,
  // A KeyQuery's or VersionedKeyQuery's point reads of its store (store_query_utils and the
  // caching layer's KeyQuery): no iterator runs inside. The simulator fails a disk read only
  // inside it, so the error reaches the query as Kafka's StoreQueryUtils surfaces it
  // (STORE_EXCEPTION), and not a range, whose RocksDbIterator never checks the iterator's status.
  kKeyQuery = 1u << 8,
  // An observer reading what a store kept on disk when it opened (StateStore::kept_entries): not
  // Kafka's work, so the simulator fails no read and counts none inside it.
  kObserve = 1u << 9,
};

inline std::atomic<uint32_t>& operations_in_progress_mask() {
  static std::atomic<uint32_t> mask{0};
  return mask;
}

// The operations in progress, as a mask of Operation bits (0: none).
inline uint32_t operations_in_progress() {
  return operations_in_progress_mask().load(std::memory_order_relaxed);
}

inline bool in_progress(uint32_t mask, Operation op) {
  return (mask & static_cast<uint32_t>(op)) != 0;
}

// Marks `op` as in progress for the scope's lifetime, then restores the mask it found.
class OperationScope {
 public:
  explicit OperationScope(Operation op)
      : previous_(operations_in_progress_mask().fetch_or(static_cast<uint32_t>(op),
                                                         std::memory_order_relaxed)) {}
  ~OperationScope() { operations_in_progress_mask().store(previous_, std::memory_order_relaxed); }
  OperationScope(const OperationScope&) = delete;
  OperationScope& operator=(const OperationScope&) = delete;

 private:
  uint32_t previous_;
};

}  // namespace iq
