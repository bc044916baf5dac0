#pragma once
// StoreLifeLog and StoreLifeRecorder: the simulator's side of impl/'s StoreLifeObserver seam
// (iq/store_life_observer.h). The log is the run's record of every store object's life
// (trace/store_life.h), owned by the Cluster; each process of each instance reports to it through
// its own recorder, which knows the instance's name and the virtual clock. What impl/ reports is
// written down as it happens, never reconstructed: the opening (the entries its files kept,
// decoded as the changelog holds them; the .checkpoint offset and the .position it loaded), each
// changelog record given to it, its own writes, its caches' flushes, its checkpoints, its close.
// A process that dies (a crash) ends its open lives (kProcessDied); a process that a crash
// already killed inside an operation (CrashArm::dead) reports nothing more to the world.
//
//   StoreLifeLog log(topology);
//   StoreLifeRecorder recorder(log, loop, "instance-1", &arm);   // one per process
//   ClientIo io{...}; io.store_lives = &recorder;
//   ...
//   recorder.process_died();   // before the process is dropped in a crash
//   trace.store_lives = log.lives();

#include <cstdint>
#include <string>
#include <vector>

#include "iq/store_life_observer.h"
#include "iq/topology_config.h"
#include "trace/store_life.h"

namespace iq::sim {

class CrashArm;
class EventLoop;

class StoreLifeLog {
 public:
  explicit StoreLifeLog(TopologyConfig topology) : topology_(std::move(topology)) {}

  // Every life so far, in the order they opened (life N at index N - 1).
  const std::vector<StoreLife>& lives() const { return lives_; }
  StoreLife& life(uint64_t id);
  const TopologyConfig& topology() const { return topology_; }
  // A new life, its id set; the caller fills the rest.
  StoreLife& begin();
  // `instance`'s disk was wiped: every life of it that ended lost its data.
  void disk_wiped(const std::string& instance);
  // The life of the same instance, partition and store that opened last before `life`, if any.
  const StoreLife* previous_life(const StoreLife& life) const;

 private:
  TopologyConfig topology_;
  std::vector<StoreLife> lives_;
};

class StoreLifeRecorder final : public StoreLifeObserver {
 public:
  StoreLifeRecorder(StoreLifeLog& log, const EventLoop& loop, std::string instance,
                    const CrashArm* arm)
      : log_(log), loop_(loop), instance_(std::move(instance)), arm_(arm) {}

  StoreLifeId opened(const StoreLifeOpening& opening) override;
  void given(StoreLifeId life, ChangelogOffset offset) override;
  void wrote(StoreLifeId life, ChangelogOffset offset) override;
  void cache_flush(StoreLifeId life, bool begin) override;
  void checkpoint(StoreLifeId life, std::optional<ChangelogOffset> offset) override;
  void closed(StoreLifeId life, StoreCloseKind kind) override;
  void wiped(const TaskId& task) override;
  // The process is being dropped (a crash): its lives still open end with it.
  void process_died();

 private:
  bool silent() const;
  // Whether the store's previous life on this instance ended with its process, its files kept.
  bool previous_died_unwiped(const StoreLife& life) const;
  void add_offset(StoreLifeId life, StoreLifeEvent::Kind kind, ChangelogOffset offset);
  void add(StoreLifeId life, StoreLifeEvent::Kind kind, ChangelogOffset first);
  void end(StoreLife& life, StoreLifeEnd how);

  StoreLifeLog& log_;
  const EventLoop& loop_;
  std::string instance_;
  const CrashArm* arm_;
  std::vector<uint64_t> open_;   // this process's lives not ended yet, in the order they opened
  std::vector<uint64_t> ended_;  // this process's ended lives (a wipe marks those of its task)
};

}  // namespace iq::sim
