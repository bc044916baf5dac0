#pragma once
// StoreLife: one store object's life as it happened, recorded through impl/'s StoreLifeObserver
// (iq/store_life_observer.h) by sim/history/store_life_recorder.h. A life is one store object of
// one task on one instance, from its open (its task loading .checkpoint) to its close or its
// process's end. What it held at any moment is exactly what it loaded (the entries its files kept,
// `kept`) followed by the changelog records it was given and the records it wrote, in order
// (`events`): the checks fold that instead of searching for it (properties/checks/README.md).
//
// A replica snapshot names the life that served it (ReplicaSnapshot::store_life); ids count from
// 1 in the order the lives opened, and RunTrace::store_lives holds life N at index N - 1.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/time.h"
#include "iq/offsets.h"
#include "iq/position.h"

namespace iq::sim {

struct StoreLifeEvent {
  enum class Kind : uint8_t {
    kGiven,            // changelog records restored or applied to it: offsets [first, last]
    kWrote,            // its own writes appended to the changelog: offsets [first, last]
    kCacheFlushBegin,  // its task's caches flushing down (a commit's flush)
    kCacheFlushEnd,
    kCheckpoint,  // its task's .checkpoint written with `first` (-1: the unknown sentinel)
  };
  Kind kind = Kind::kGiven;
  // kGiven and kWrote: every offset in [first, last] was given (written), none other in between;
  // consecutive offsets of one kind extend one event.
  ChangelogOffset first{-1};
  ChangelogOffset last{-1};
  base::Instant at_ms{};  // when the event (its first offset) happened
  bool operator==(const StoreLifeEvent&) const = default;
};

// One entry a store's files held when it opened, decoded as the changelog would hold it.
struct KeptEntry {
  int32_t key = 0;
  int64_t value = 0;
  // Where the store keeps it: a timestamped store's value timestamp; absent otherwise.
  std::optional<int64_t> timestamp_ms;
  // A window store's window start and sequence number; a session's start and end.
  std::optional<int64_t> window_start_ms;
  std::optional<int64_t> window_end_ms;
  std::optional<int32_t> window_seqnum;
  bool operator==(const KeptEntry&) const = default;
};

enum class StoreLifeEnd : uint8_t {
  kOpen,         // still open at the end of the run
  kClosedClean,  // closed after its checkpoint (Task.closeClean)
  kClosedDirty,  // closed without one (Task.closeDirty)
  kProcessDied,  // its process crashed: the object was dropped, nothing flushed
};

struct StoreLife {
  uint64_t id = 0;
  std::string instance;  // "instance-2"
  int32_t partition = -1;
  std::string store;
  bool active_at_open = false;  // its task was an active when it opened (else a standby)
  bool persistent = false;
  base::Instant opened_ms{};
  // Its own files held entries when it opened (an earlier store object's data kept on disk), and
  // those entries (empty for a versioned store, which records the fact alone).
  bool over_kept_data = false;
  std::vector<KeptEntry> kept;
  // The .checkpoint offset its task loaded for it (none: no file, no entry, the unknown sentinel),
  // and the position it opened with (its <store>.position).
  std::optional<ChangelogOffset> loaded_checkpoint;
  // The .checkpoint (or, at the new pin, the store's own offsets) held an entry for the store's
  // changelog, the unknown sentinel included: Kafka kept the data under exactly-once too.
  bool checkpoint_entry_loaded = false;
  // Whether the store opened on a .checkpoint entry of its changelog, an offset or the sentinel.
  bool checkpoint_found() const { return loaded_checkpoint.has_value() || checkpoint_entry_loaded; }
  Position loaded_position = Position::empty_position();
  std::vector<StoreLifeEvent> events;
  StoreLifeEnd end = StoreLifeEnd::kOpen;
  std::optional<base::Instant> ended_ms;
  // Whether its task's directory was wiped after it ended (an EOS dirty close, a corrupted task).
  bool wiped = false;
  bool operator==(const StoreLife&) const = default;
};

}  // namespace iq::sim
