#pragma once
// StoreLifeObserver: an observation seam, not a Kafka API. impl/ tells it what happens to each
// store object it opens, from its open to its close, so that whoever watches from outside (the
// simulator's recorder, sim/history/store_life_recorder.h) can write down each store life as it
// happens instead of reconstructing it afterwards. impl/ reports; nothing in impl/ reads anything
// back, and the default observer (no_store_life_observer()) does nothing, so a run with and
// without an observer behaves the same.
//
// A store life is one store object of one task (one registration with a ProcessorStateManager):
// it begins when its task loads its .checkpoint (the store is open, registered, and nothing was
// written to it yet) and ends when the store closes (clean or dirty), or with its process. A task
// recycled between active and standby keeps its stores, and so their lives. Events, in the order
// they happen:
//
//   opened        the data its own files held (an earlier store object's, kept on disk), the
//                 .checkpoint offset and the .position it loaded; returns the life's id
//   given         a changelog record restored or applied to it (an active's restore, a standby)
//   wrote         its own write appended to the changelog at this offset
//   cache_flush   its task's record caches flushed down (a commit's flush), begin and end
//   checkpoint    its task's .checkpoint written with this store's offset
//   closed        clean (after a checkpoint) or dirty
//
// A wipe of a task directory (an EOS dirty close, a corrupted task) is told apart: wiped().

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "iq/bytes.h"
#include "iq/offsets.h"
#include "iq/position.h"
#include "iq/task_id.h"

namespace iq {

// 0: no life recorded (the default observer).
using StoreLifeId = uint64_t;

struct StoreLifeOpening {
  TaskId task;
  std::string store;
  bool active = false;  // the task was an active when the store opened (else a standby)
  bool persistent = false;
  // The store's own files held entries when it opened: data an earlier store object left on disk.
  bool over_kept_data = false;
  // Those entries as the bottom store keeps them (raw keys and values: a window store's
  // [key][start][seqnum] keys, a timestamped store's [timestamp][value] values), in the store's
  // order. Empty for a versioned store, which reports over_kept_data alone.
  std::vector<KeyValue<Bytes, Bytes>> kept;
  // The store's changelog offset in .checkpoint (none: no file, no entry, or the unknown
  // sentinel); at the new pin, when the store keeps its offsets (KIP-1035), the offset it held.
  std::optional<ChangelogOffset> loaded_checkpoint;
  // That source held an entry for the store's changelog, the unknown sentinel included. Kafka
  // keeps the store's data then, under exactly-once too (initializeStoreOffsetsFromCheckpoint
  // tests only that the entry exists), and restores from the start when it is the sentinel.
  bool checkpoint_entry_loaded = false;
  // The position the store opened with (its <store>.position, or empty).
  Position loaded_position = Position::empty_position();
  // processing.guarantee=exactly_once_v2 (not recorded: it lets an observer name what a reopen
  // after a crash means, since at the new pin exactly-once may reuse a crashed store's files).
  bool eos_enabled = false;
};

enum class StoreCloseKind : uint8_t { kClean, kDirty };

class StoreLifeObserver {
 public:
  virtual ~StoreLifeObserver() = default;
  virtual StoreLifeId opened(const StoreLifeOpening& /*opening*/) { return 0; }
  virtual void given(StoreLifeId /*life*/, ChangelogOffset /*offset*/) {}
  virtual void wrote(StoreLifeId /*life*/, ChangelogOffset /*offset*/) {}
  virtual void cache_flush(StoreLifeId /*life*/, bool /*begin*/) {}
  // `offset`: what .checkpoint now holds for the store (none: the unknown sentinel).
  virtual void checkpoint(StoreLifeId /*life*/, std::optional<ChangelogOffset> /*offset*/) {}
  virtual void closed(StoreLifeId /*life*/, StoreCloseKind /*kind*/) {}
  virtual void wiped(const TaskId& /*task*/) {}
};

// The observer that does nothing: what impl/ reports to when nobody watches.
inline StoreLifeObserver& no_store_life_observer() {
  static StoreLifeObserver none;
  return none;
}

}  // namespace iq
