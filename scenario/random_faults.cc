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

namespace {

// What a crash inside an operation aims at: an event kind, the operation it must fall in (0: any),
// and the draw's weight. One entry per crash point (crash_inside.h's CrashLanding::points), so
// each lands in a good fraction of seeds instead of the few that the commits' flushes and sends
// left over when the event kind was drawn first (crash.point.close was hit by 2 seeds of 1,000,
// store_flush by 7, commit_flush by 6). Weights favour the points that need a rarer setting to
// happen at all: store_flush needs a flush with data inside a checkpoint (a standby's, the flush
// after a restore, a close's; an active's checkpoint flush is empty, its commit flushed), the
// cleaner a moved task's directory past state.cleanup.delay.ms.
struct CrashTarget {
  CrashInsideAt at;
  uint32_t during;
  uint64_t weight;
};

constexpr uint32_t op(iq::Operation o) {
  return static_cast<uint32_t>(o);
}

constexpr CrashTarget kCrashTargets[] = {
    {CrashInsideAt::kDiskOp, op(iq::Operation::kCommit), 2},                 // commit_flush
    {CrashInsideAt::kDiskOp, op(iq::Operation::kCheckpointFlush), 4},        // store_flush
    {CrashInsideAt::kDiskOp, op(iq::Operation::kWritePosition), 2},          // flush_checkpoint
    {CrashInsideAt::kDiskOp, op(iq::Operation::kWriteCheckpoint), 2},        // position_checkpoint
    {CrashInsideAt::kDiskOp, op(iq::Operation::kStateDirectoryCleaner), 3},  // cleaner
    {CrashInsideAt::kDiskOp, op(iq::Operation::kClose), 2},                  // close
    {CrashInsideAt::kDiskOp, op(iq::Operation::kRestore), 1},                // restore_batch
    {CrashInsideAt::kRestorePoll, 0, 2},                                     // restore_batch
    {CrashInsideAt::kSend, 0, 2},                                            // send_commit
    {CrashInsideAt::kCommit, 0, 1},                                          // send_commit
    {CrashInsideAt::kDiskOp, 0, 1},                                          // any disk event
};

constexpr uint64_t weight_total() {
  uint64_t total = 0;
  for (const CrashTarget& t : kCrashTargets) total += t.weight;
  return total;
}

}  // namespace

CrashInsideSpec draw_crash_inside(base::Prng& prng, int64_t n_max) {
  IQ_ASSERT(n_max >= 1, "n_max={}", n_max);
  uint64_t w = prng.below(weight_total());
  const CrashTarget* target = nullptr;
  for (const CrashTarget& t : kCrashTargets) {
    if (w < t.weight) {
      target = &t;
      break;
    }
    w -= t.weight;
  }
  IQ_ASSERT(target != nullptr, "weight {} of {}", w, weight_total());
  CrashInsideSpec spec;
  spec.at = target->at;
  spec.during = target->during;
  const int64_t cap =
      spec.during != 0 ? std::min<int64_t>(n_max, RandomFaults::kCrashInsideDuringNMax) : n_max;
  spec.n = draw_occurrence(prng, cap);
  IQ_ASSERT(spec.n >= 1 && spec.n <= static_cast<uint64_t>(cap), "n {} of {}", spec.n, cap);
  return spec;
}

uint64_t draw_occurrence(base::Prng& prng, int64_t n_max) {
  IQ_ASSERT(n_max >= 1, "n_max={}", n_max);
  int64_t octaves = 0;  // the octaves [1,1], [2,3], [4,7], ... that start at or below n_max
  while (octaves < 62 && (int64_t{1} << octaves) <= n_max) ++octaves;
  const auto e = static_cast<int64_t>(prng.below(static_cast<uint64_t>(octaves)));
  const int64_t lo = int64_t{1} << e;
  const int64_t hi = std::min(2 * lo - 1, n_max);
  return static_cast<uint64_t>(prng.range_inclusive(lo, hi));
}

CrashInsideSpec RandomFaults::draw_crash_inside() {
  return sim::draw_crash_inside(prng_, spec_.crash_inside_n_max);
}

// Closes the armed instance: the crash lands inside the close (its restart is scheduled by the
// landing), or the close ends first and the arm is dropped (the close's undo restarts it).
void RandomFaults::close_armed(int32_t victim, int64_t undo_ms) {
  Instance& instance = cluster_.instance(victim);
  (void)injector_.apply(FaultAction::kClose, victim, false, "random-faults: a close to crash in",
                        undo_ms);
  if (instance.crash_inside_armed()) instance.disarm_crash_inside();
}

bool RandomFaults::maybe_long_outage() {
  if (spec_.long_outage_odds.num == 0 || long_outage_until_ms_ != 0) return false;
  if (!prng_.chance(spec_.long_outage_odds)) return false;
  const std::vector<int32_t> up = injector_.up_instances();
  if (up.empty()) return false;
  const int32_t victim = prng_.pick(up);
  const FaultAction kind = prng_.chance({1, 2}) ? FaultAction::kPause : FaultAction::kIsolate;
  const int64_t ms = prng_.range_inclusive(spec_.long_outage_ms_min, spec_.long_outage_ms_max);
  if (injector_.down_count() >= spec_.max_down ||
      !injector_.apply(kind, victim, false, "random-faults: long outage", ms)) {
    return false;
  }
  ++faults_applied_;
  long_outage_until_ms_ = cluster_.now_ms() + ms;
  return true;
}

void RandomFaults::maybe_arm_read_error() {
  if (spec_.read_error_odds.num == 0 || !prng_.chance(spec_.read_error_odds)) return;
  std::vector<int32_t> up = injector_.up_instances();
  std::erase_if(up, [&](int32_t n) { return cluster_.instance(n).io_fault_armed(); });
  if (up.empty()) return;
  const int32_t victim = prng_.pick(up);
  const IoFaultSpec spec{.kind = IoKind::kRead,
                         .n = draw_occurrence(prng_, kReadErrorNMax),
                         .during = static_cast<uint32_t>(iq::Operation::kKeyQuery)};
  if (injector_.arm_io_fault(victim, spec, "random-faults")) ++faults_applied_;
}

void RandomFaults::tick() {
  tick_event_ = {};
  ++ticks_;
  if (maybe_long_outage()) {
    schedule_tick_after();
    return;
  }
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
  maybe_arm_read_error();
  schedule_tick_after();
}

void RandomFaults::schedule_tick_after() {
  const int64_t next_ms = cluster_.now_ms() + spec_.interval_ms;
  if (next_ms < spec_.stop_ms) schedule_tick(next_ms);
}

}  // namespace iq::sim
