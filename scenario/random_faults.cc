#include "scenario/random_faults.h"

#include <algorithm>

#include "io/operation_marker.h"

namespace iq::sim {

RandomFaults::RandomFaults(Cluster& cluster, FaultInjector& injector, RandomFaultsWorkloadSpec spec,
                           base::Prng prng)
    : cluster_(cluster), injector_(injector), spec_(spec), prng_(prng) {
  IQ_ASSERT(spec_.interval_ms >= 1, "interval_ms={}", spec_.interval_ms);
  IQ_ASSERT(spec_.undo_ms_min >= 0 && spec_.undo_ms_min <= spec_.undo_ms_max, "undo [{}, {}]",
            spec_.undo_ms_min, spec_.undo_ms_max);
  IQ_ASSERT(spec_.max_down >= 0, "max_down={}", spec_.max_down);
  IQ_ASSERT(spec_.crash_inside_n_max >= 1, "crash_inside_n_max={}", spec_.crash_inside_n_max);
}

RandomFaults::~RandomFaults() {
  stop();
}

void RandomFaults::start() {
  if (spec_.stop_ms <= spec_.start_ms) return;
  schedule_tick(std::max(spec_.start_ms, cluster_.now_ms()));
}

void RandomFaults::stop() {
  if (tick_event_.valid()) (void)cluster_.loop().cancel(tick_event_);
  tick_event_ = {};
}

void RandomFaults::schedule_tick(int64_t at_ms) {
  tick_event_ = cluster_.loop().schedule_at(base::Instant::from_ms(at_ms), "random-faults:tick",
                                            [this] { tick(); });
}

std::optional<FaultAction> RandomFaults::draw_kind() {
  const std::pair<FaultAction, base::Ratio> kinds[] = {
      {FaultAction::kCrash, spec_.crash_odds},
      {FaultAction::kPause, spec_.pause_odds},
      {FaultAction::kIsolate, spec_.isolate_odds},
      {FaultAction::kClose, spec_.close_odds},
  };
  for (const auto& [kind, odds] : kinds) {
    if (prng_.chance(odds)) return kind;
  }
  return std::nullopt;
}

CrashInsideSpec RandomFaults::draw_crash_inside() {
  static constexpr CrashInsideAt kAt[] = {CrashInsideAt::kDiskOp, CrashInsideAt::kSend,
                                          CrashInsideAt::kCommit, CrashInsideAt::kRestorePoll};
  // A disk event is drawn inside one of impl/'s multi-step operations (or anywhere), so that the
  // named crash points come up and not only the commit flushes that make most disk events.
  // The flush inside a checkpoint has its own entry: a checkpoint arm lands mostly at the
  // .position of an active's checkpoint, whose flush is empty (its commit flushed). The cleaner
  // is listed three times: it runs only when a moved task's directory has waited out
  // state.cleanup.delay.ms, so with one entry its arms landed in 1 or 2 seeds of 500.
  static constexpr iq::Operation kDuring[] = {iq::Operation::kCommit,
                                              iq::Operation::kCheckpoint,
                                              iq::Operation::kCheckpointFlush,
                                              iq::Operation::kWritePosition,
                                              iq::Operation::kWriteCheckpoint,
                                              iq::Operation::kStateDirectoryCleaner,
                                              iq::Operation::kStateDirectoryCleaner,
                                              iq::Operation::kStateDirectoryCleaner,
                                              iq::Operation::kClose};
  CrashInsideSpec spec;
  spec.at = kAt[prng_.below(std::size(kAt))];
  int64_t n_max = spec_.crash_inside_n_max;
  if (spec.at == CrashInsideAt::kDiskOp) {
    const uint64_t d = prng_.below(std::size(kDuring) + 1);  // the last: any
    if (d < std::size(kDuring)) {
      spec.during = static_cast<uint32_t>(kDuring[d]);
      n_max = std::min<int64_t>(n_max, kCrashInsideDuringNMax);
    }
  }
  spec.n = static_cast<uint64_t>(prng_.range_inclusive(1, n_max));
  return spec;
}

// Closes the armed instance: the crash lands inside the close (its restart is scheduled by the
// landing), or the close ends first and the arm is dropped (the close's undo restarts it).
void RandomFaults::close_armed(int32_t victim, int64_t undo_ms) {
  Instance& instance = cluster_.instance(victim);
  (void)injector_.apply(FaultAction::kClose, victim, false, "random-faults: a close to crash in",
                        undo_ms);
  if (instance.crash_inside_armed()) instance.disarm_crash_inside();
}

void RandomFaults::tick() {
  tick_event_ = {};
  ++ticks_;
  const auto kind = draw_kind();
  // Off (odds 0), the crash inside an operation draws nothing, so older schedules are unchanged.
  const bool inside =
      !kind && spec_.crash_inside_odds.num > 0 && prng_.chance(spec_.crash_inside_odds);
  std::vector<int32_t> up = injector_.up_instances();
  if (kind && !up.empty()) {
    const int32_t victim = prng_.pick(up);
    const bool wipe = *kind == FaultAction::kCrash && prng_.chance(spec_.wipe_odds);
    const int64_t undo_ms = prng_.range_inclusive(spec_.undo_ms_min, spec_.undo_ms_max);
    if (injector_.down_count() < spec_.max_down &&
        injector_.apply(*kind, victim, wipe, "random-faults", undo_ms)) {
      ++faults_applied_;
    }
  } else if (inside && !up.empty()) {
    const int32_t victim = prng_.pick(up);
    const bool wipe = prng_.chance(spec_.wipe_odds);
    const int64_t undo_ms = prng_.range_inclusive(spec_.undo_ms_min, spec_.undo_ms_max);
    const CrashInsideSpec at = draw_crash_inside();
    if (injector_.down_count() < spec_.max_down &&
        injector_.arm_crash_inside(victim, at, wipe, "random-faults", undo_ms)) {
      ++faults_applied_;
      // An armed instance is never picked again, so nothing would ever close it: an arm that
      // must land inside a close gets its close now (crash.point.close was hit by no seed).
      if (at.during == static_cast<uint32_t>(iq::Operation::kClose)) close_armed(victim, undo_ms);
    }
  }
  const int64_t next_ms = cluster_.now_ms() + spec_.interval_ms;
  if (next_ms < spec_.stop_ms) schedule_tick(next_ms);
}

}  // namespace iq::sim
