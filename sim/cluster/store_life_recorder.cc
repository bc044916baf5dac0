#include "cluster/store_life_recorder.h"

#include <algorithm>

#include "base/assert.h"
#include "base/probe.h"
#include "cluster/crash_inside.h"
#include "event_loop/event_loop.h"
#include "history/placement.h"
#include "iq/serdes.h"

namespace iq::sim {
namespace {

// One kept entry as the changelog would hold it. Every store value here is a long (8 bytes); a
// timestamped store keeps [timestamp][value] (16 bytes).
KeptEntry decode_kept(const TopologyConfig& topology, const KeyValue<Bytes, Bytes>& raw) {
  const DecodedStoreKey k = decode_store_key(topology, raw.key);
  KeptEntry e;
  e.key = k.key;
  e.window_start_ms = k.window_start_ms;
  e.window_end_ms = k.window_end_ms;
  e.window_seqnum = k.window_seqnum;
  const std::string_view v = raw.value.view();
  IQ_ASSERT(v.size() == 8 || v.size() == 16, "kept value of {} bytes for key {}", v.size(), e.key);
  if (v.size() == 16) {
    e.timestamp_ms = timestamped_bytes::timestamp(v);
    e.value = Serde<int64_t>::deserialize(timestamped_bytes::raw_value(raw.value));
  } else {
    e.value = Serde<int64_t>::deserialize(raw.value);
  }
  return e;
}

}  // namespace

StoreLife& StoreLifeLog::life(uint64_t id) {
  IQ_ASSERT(id >= 1 && id <= lives_.size(), "store life {} of {}", id, lives_.size());
  return lives_[id - 1];
}

StoreLife& StoreLifeLog::begin() {
  lives_.emplace_back();
  lives_.back().id = lives_.size();
  return lives_.back();
}

void StoreLifeLog::disk_wiped(const std::string& instance) {
  for (StoreLife& life : lives_) {
    if (life.instance == instance && life.end != StoreLifeEnd::kOpen) life.wiped = true;
  }
}

const StoreLife* StoreLifeLog::previous_life(const StoreLife& life) const {
  IQ_ASSERT(life.id >= 1 && life.id <= lives_.size());
  for (size_t i = life.id - 1; i-- > 0;) {
    const StoreLife& other = lives_[i];
    if (other.instance == life.instance && other.partition == life.partition &&
        other.store == life.store)
      return &other;
  }
  return nullptr;
}

bool StoreLifeRecorder::silent() const {
  // A process a crash killed inside an operation does nothing more to the world.
  return arm_ != nullptr && arm_->dead();
}

StoreLifeId StoreLifeRecorder::opened(const StoreLifeOpening& opening) {
  if (silent()) return 0;
  StoreLife& life = log_.begin();
  life.instance = instance_;
  life.partition = opening.task.partition;
  life.store = opening.store;
  life.active_at_open = opening.active;
  life.persistent = opening.persistent;
  life.opened_ms = loop_.now();
  life.over_kept_data = opening.over_kept_data;
  // Paired with kept_entries: a store that found entries says so.
  IQ_ASSERT(opening.kept.empty() || opening.over_kept_data, "{} kept {} entries, flag off",
            opening.store, opening.kept.size());
  for (const auto& raw : opening.kept) life.kept.push_back(decode_kept(log_.topology(), raw));
  life.loaded_checkpoint = opening.loaded_checkpoint;
  life.checkpoint_entry_loaded = opening.checkpoint_entry_loaded;
  life.loaded_position = opening.loaded_position.copy();
  if (opening.eos_enabled && opening.over_kept_data && previous_died_unwiped(life)) {
    IQ_PROBE("kip1035.eos_crash_reused_without_wipe",
             "under exactly_once_v2 a store reopened over the files its crashed process left, "
             "without a wipe (new pin, delta 4: no memtable flush since its open, so the disk held "
             "its last clean close)");
  }
  open_.push_back(life.id);
  return life.id;
}

bool StoreLifeRecorder::previous_died_unwiped(const StoreLife& life) const {
  const StoreLife* previous = log_.previous_life(life);
  return previous != nullptr && previous->end == StoreLifeEnd::kProcessDied && !previous->wiped;
}

void StoreLifeRecorder::add_offset(StoreLifeId id, StoreLifeEvent::Kind kind,
                                   ChangelogOffset offset) {
  if (id == 0 || silent()) return;
  StoreLife& life = log_.life(id);
  IQ_ASSERT(life.end == StoreLifeEnd::kOpen, "life {} given or wrote {} after its end", id, offset);
  // A life's given and written offsets only grow (ProcessorStateManager asserts each).
  for (auto it = life.events.rbegin(); it != life.events.rend(); ++it) {
    if (it->kind != StoreLifeEvent::Kind::kGiven && it->kind != StoreLifeEvent::Kind::kWrote)
      continue;
    IQ_ASSERT(offset > it->last, "life {}: offset {} after {}", id, offset, it->last);
    break;
  }
  if (!life.events.empty() && life.events.back().kind == kind &&
      life.events.back().last + 1 == offset) {
    life.events.back().last = offset;
    return;
  }
  life.events.push_back(StoreLifeEvent{kind, offset, offset, loop_.now()});
}

void StoreLifeRecorder::add(StoreLifeId id, StoreLifeEvent::Kind kind, ChangelogOffset first) {
  if (id == 0 || silent()) return;
  StoreLife& life = log_.life(id);
  IQ_ASSERT(life.end == StoreLifeEnd::kOpen, "life {}: an event after its end", id);
  life.events.push_back(StoreLifeEvent{kind, first, first, loop_.now()});
}

void StoreLifeRecorder::given(StoreLifeId life, ChangelogOffset offset) {
  add_offset(life, StoreLifeEvent::Kind::kGiven, offset);
}

void StoreLifeRecorder::wrote(StoreLifeId life, ChangelogOffset offset) {
  add_offset(life, StoreLifeEvent::Kind::kWrote, offset);
}

void StoreLifeRecorder::cache_flush(StoreLifeId life, bool begin) {
  add(life, begin ? StoreLifeEvent::Kind::kCacheFlushBegin : StoreLifeEvent::Kind::kCacheFlushEnd,
      ChangelogOffset(-1));
}

void StoreLifeRecorder::checkpoint(StoreLifeId life, std::optional<ChangelogOffset> offset) {
  add(life, StoreLifeEvent::Kind::kCheckpoint, offset.value_or(ChangelogOffset(-1)));
}

void StoreLifeRecorder::end(StoreLife& life, StoreLifeEnd how) {
  life.end = how;
  life.ended_ms = loop_.now();
  open_.erase(std::remove(open_.begin(), open_.end(), life.id), open_.end());
  ended_.push_back(life.id);
}

void StoreLifeRecorder::closed(StoreLifeId id, StoreCloseKind kind) {
  if (id == 0 || silent()) return;
  StoreLife& life = log_.life(id);
  if (life.end != StoreLifeEnd::kOpen) return;  // closed twice: the first close ended it
  end(life,
      kind == StoreCloseKind::kClean ? StoreLifeEnd::kClosedClean : StoreLifeEnd::kClosedDirty);
}

void StoreLifeRecorder::wiped(const TaskId& task) {
  if (silent()) return;
  for (uint64_t id : ended_) {
    StoreLife& life = log_.life(id);
    if (life.partition == task.partition) life.wiped = true;
  }
}

void StoreLifeRecorder::process_died() {
  const std::vector<uint64_t> open = open_;
  for (uint64_t id : open) end(log_.life(id), StoreLifeEnd::kProcessDied);
}

}  // namespace iq::sim
