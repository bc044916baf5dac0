#pragma once
// RandomFaults: attrition in FoundationDB's sense, from one RandomFaultsWorkloadSpec.
//
// From start_ms to stop_ms (absolute; exclusive), every interval_ms, one tick draws from the
// workload's own Prng, in this order:
//   1. the kind: crash, pause, isolate, close, each tried in that order with its odds; the first
//      that hits is the tick's fault, none hitting means no fault this tick (and no more draws);
//   2. the victim: one of the instances that are up now (FaultInjector::up_instances); none up
//      means no fault (and no more draws);
//   3. for a crash, whether its restart wipes the disk (wipe_odds);
//   4. the undo delay, uniform in [undo_ms_min, undo_ms_max].
// When no kind hit and crash_inside_odds is not 0, one more draw says whether the tick arms a
// crash inside an operation (cluster/crash_inside.h): then the victim, the wipe, the undo delay,
// the target, weighted over the crash points (draw_crash_inside's kCrashTargets: a disk event
// inside a commit, a checkpoint's flush, a .position write, a .checkpoint write, the cleaner, a
// close or a restore; a restore poll; a send; an offset commit; any disk event), and the
// occurrence N, log-uniform in [1, crash_inside_n_max] (at most kCrashInsideDuringNMax inside
// an operation), so the first few occurrences, which land before faults stop, are common. The
// armed instance is not picked again; it is not counted as down until the crash lands (other
// faults go on, and move the tasks whose checkpoints and restores it waits for), so when it lands
// max_down may be exceeded by one for the restart delay. An arm that must land inside a close
// (during = close) closes the instance at once, since nothing else would: the crash lands inside
// that close, or the close ends first, the arm is dropped and the close's undo starts the
// instance again. An arm that has not landed when faults stop is disarmed. With crash_inside_odds 0
// nothing more is drawn, so a schedule without it is the one older versions drew. The fault is
// applied only if an instance is up and fewer than max_down instances are down (crashed, closed,
// only created, paused or isolated); the undo (restart, resume, heal, start) is scheduled through
// the injector. Instances are never removed. Every fault applied is recorded by the injector with
// detail "random-faults".
// Two rarer kinds, each off (and drawing nothing) while its odds are 0, so older schedules stay:
// - a long outage (long_outage_odds), tried before everything above: a victim among the up
//   instances, a pause or an isolation (one in two), and its length in [long_outage_ms_min,
//   long_outage_ms_max]; applied under max_down like the others, at most once per workload (the
//   tick that applies it draws nothing else). long_outage_until_ms() says when it ends, and the
//   driver runs the test's phase until then, so the liveness phase never cuts it short. A pause
//   outlasts the transaction timeout (the coordinator aborts and fences the paused producer,
//   which then writes: txn.fenced_produce); an isolation outlasts delivery.timeout.ms (the
//   exactly-once thread's commit times out: TaskCorrupted, then initTransactions retried).
// - a storage error (read_error_odds), tried after everything above on every tick: a victim
//   among the up instances not armed already, and N in [1, kReadErrorNMax] (log-uniform): the
//   Nth disk read inside a key query on it fails (FaultInjector::arm_io_fault).

#include <cstdint>

#include "base/prng.h"
#include "cluster/cluster.h"
#include "scenario/fault_injector.h"
#include "scenario/scenario.h"

namespace iq::sim {

class RandomFaults {
 public:
  // The largest N drawn for a disk event inside a named operation (a checkpoint write is 5 disk
  // events, a cleaner pass a few per file): larger ones would rarely land before faults stop.
  static constexpr int64_t kCrashInsideDuringNMax = 16;
  // The largest N of a storage error: the Nth read inside a key query (a cold read of a table
  // file; the block cache answers the rest).
  static constexpr int64_t kReadErrorNMax = 8;
  // `spec` has absolute times. `prng` is the workload's own child (split("random-faults-<test>")).
  RandomFaults(Cluster& cluster, FaultInjector& injector, RandomFaultsWorkloadSpec spec,
               base::Prng prng);
  ~RandomFaults();
  RandomFaults(const RandomFaults&) = delete;
  RandomFaults& operator=(const RandomFaults&) = delete;

  // Schedules the first tick at start_ms (or now, if later).
  void start();
  // No further ticks (undos already scheduled stay with the injector).
  void stop();
  uint64_t ticks() const { return ticks_; }
  uint64_t faults_applied() const { return faults_applied_; }
  // When the long outage applied ends (its undo's time), or 0 if none applied.
  int64_t long_outage_until_ms() const { return long_outage_until_ms_; }

 private:
  void tick();
  void schedule_tick(int64_t at_ms);
  void schedule_tick_after();  // the next tick, interval_ms from now, if before stop_ms
  std::optional<FaultAction> draw_kind();
  CrashInsideSpec draw_crash_inside();
  void close_armed(int32_t victim, int64_t undo_ms);
  // The rarer kinds (see the header comment); maybe_long_outage returns whether it applied one.
  bool maybe_long_outage();
  void maybe_arm_read_error();

  Cluster& cluster_;
  FaultInjector& injector_;
  RandomFaultsWorkloadSpec spec_;
  base::Prng prng_;
  EventId tick_event_{};
  uint64_t ticks_ = 0;
  uint64_t faults_applied_ = 0;
  int64_t long_outage_until_ms_ = 0;
};

// The target of one crash inside an operation (the draw RandomFaults makes, apart so that it can
// be tested): an entry of the weighted crash-point table, and the occurrence N in [1, n_max]
// (at most kCrashInsideDuringNMax inside an operation), drawn by draw_occurrence.
CrashInsideSpec draw_crash_inside(base::Prng& prng, int64_t n_max);
// Log-uniform in [1, n_max]: an octave [2^e, 2^(e+1)) evenly, then N evenly inside it (cut at
// n_max). The first occurrences are the ones that land before faults stop (a standby flushes
// once per commit, a close writes a few files); the tail still reaches deep into an operation
// (a flush's MANIFEST, not only its table file).
uint64_t draw_occurrence(base::Prng& prng, int64_t n_max);

}  // namespace iq::sim
