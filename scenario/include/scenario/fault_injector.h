#pragma once
// FaultInjector: applies FaultActions to a Cluster now or at a virtual time, and records every
// one of them in the run trace's fault list, applied or not.
//
// An action that does not apply to the instance's current state (crash an instance that is down,
// resume one that is not paused, an instance number that does not exist, ...) changes nothing
// and is recorded with "skipped: <why>" at the end of its detail, so a scenario writer sees it
// and a check can tell it apart. An undo (restart after crash, resume after pause, heal after
// isolate, start after close) is scheduled only when its action applied.
//
// "Down" (what RandomFaults' max_down bounds) means: not removed, and not running, only created,
// paused or isolated. Isolation is tracked here (every isolate and heal goes through this class).
// An instance armed to crash inside an operation is not down until the crash lands (so that other
// faults go on moving tasks and trigger the operations it waits for), but it is not "up" either:
// up_instances() leaves it out, so it is not picked again.
//
// Each record is typed (trace/run_trace.h's FaultKind; `applied` false for a skipped one). A crash
// inside an operation (cluster/crash_inside.h) is armed here and recorded as kCrashArmed
// ("arm_crash" in text), which is no crash: nothing happens until it lands. When it lands (at the
// end of the event in which the instance died) it is recorded as kCrashLanded with where it fell
// (FaultRecord::landed; "crash" in text, its detail saying what it interrupted), and its restart
// is scheduled from then.
//
// The injector must be destroyed before the Cluster: it cancels its pending events.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "scenario/scenario.h"
#include "trace/run_trace.h"

namespace iq::sim {

class FaultInjector {
 public:
  // Pending scheduled faults are bounded (a scenario cannot schedule more than this at once).
  static constexpr size_t kPendingMax = 100'000;

  FaultInjector(Cluster& cluster, std::vector<FaultRecord>& faults);
  ~FaultInjector();
  FaultInjector(const FaultInjector&) = delete;
  FaultInjector& operator=(const FaultInjector&) = delete;

  // Applies `action` to instance n (1-based; ignored by kAddInstance) now and records it. `wipe`
  // makes a kRestart use a wiped disk. If it applied and `undo_after_ms` is set, the undo is
  // scheduled that long after. Returns whether it applied.
  bool apply(FaultAction action, int32_t n, bool wipe, const std::string& detail,
             std::optional<int64_t> undo_after_ms = std::nullopt);
  // The same at virtual time at_ms (>= now).
  void schedule(int64_t at_ms, FaultAction action, int32_t n, bool wipe, std::string detail,
                std::optional<int64_t> undo_after_ms = std::nullopt);
  // Arms instance n to crash inside an operation (see above); if it lands and `undo_after_ms` is
  // set, the instance restarts (on a wiped disk if `wipe`) that long after. Returns whether it was
  // armed: not for an instance that does not exist, was removed or is armed already.
  bool arm_crash_inside(int32_t n, const CrashInsideSpec& spec, bool wipe,
                        const std::string& detail, std::optional<int64_t> undo_after_ms);
  // The same at virtual time at_ms (>= now).
  void schedule_crash_inside(int64_t at_ms, int32_t n, const CrashInsideSpec& spec, bool wipe,
                             std::string detail, std::optional<int64_t> undo_after_ms);
  // Arms instance n with a storage error (cluster/io_fault.h), recorded as "arm_read_error" (or
  // "arm_write_error"); when it lands it is recorded as "read_error" ("write_error") with the file
  // and the operations in progress. Nothing is undone: the disk reads again at the next I/O.
  // Returns whether it was armed: not for an instance that does not exist, was removed or is
  // armed already.
  bool arm_io_fault(int32_t n, const IoFaultSpec& spec, const std::string& detail);
  // Cancels every scheduled fault and undo and disarms every crash armed inside an operation and
  // every storage error (faults stop before the liveness phase).
  void cancel_pending();
  // Heals isolated, resumes paused and (re)starts down or only-created instances that are not
  // removed, keeping their disks; each recorded with `detail`.
  void heal_all(const std::string& detail);

  bool isolated(int32_t n) const { return isolated_.contains(n); }
  bool down(int32_t n) const;
  int32_t down_count() const;
  // Instances that are up (not removed, started, not paused, not isolated, not armed to crash
  // inside an operation), ascending.
  std::vector<int32_t> up_instances() const;
  size_t pending() const { return pending_.size(); }

 private:
  // Why `action` cannot apply to instance n now, or nullopt if it can.
  std::optional<std::string> why_not(FaultAction action, int32_t n) const;
  // Records a crash that landed inside an operation and schedules its restart.
  void on_crash_landed(int32_t n, const CrashLanding& landing, bool wipe, const std::string& detail,
                       std::optional<int64_t> undo_after_ms);
  uint64_t schedule_event(int64_t at_ms, std::string label, std::function<void()> f);
  // Applies an action that why_not() allowed; returns the instance's name.
  std::string execute(FaultAction action, int32_t n, bool wipe);

  Cluster& cluster_;
  std::vector<FaultRecord>& faults_;
  std::set<int32_t> isolated_;
  std::map<uint64_t, EventId> pending_;  // by a local sequence number
  uint64_t next_pending_ = 0;
};

// The kind a fault record of `action` gets (kRestart with `wipe` is kRestartWiped).
FaultKind fault_kind(FaultAction action, bool wipe);
// The kind of a storage error's fault record: armed (kReadErrorArmed, kWriteErrorArmed) or landed
// (kReadErrorLanded, kWriteErrorLanded). The only place these kinds are chosen.
FaultKind io_fault_kind(IoKind kind, bool landed);

// The action that undoes `action` (kRestart or kRestartWiped for kCrash, kResume for kPause, kHeal
// for kIsolate, kStart for kClose), or nullopt if it has none.
std::optional<FaultAction> undo_of(FaultAction action, bool wipe);

}  // namespace iq::sim
