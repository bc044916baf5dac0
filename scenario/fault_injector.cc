#include "scenario/fault_injector.h"

namespace iq::sim {

std::optional<FaultAction> undo_of(FaultAction action, bool wipe) {
  switch (action) {
    case FaultAction::kCrash:
      return wipe ? FaultAction::kRestartWiped : FaultAction::kRestart;
    case FaultAction::kPause:
      return FaultAction::kResume;
    case FaultAction::kIsolate:
      return FaultAction::kHeal;
    case FaultAction::kClose:
      return FaultAction::kStart;
    default:
      return std::nullopt;
  }
}

FaultKind fault_kind(FaultAction action, bool wipe) {
  switch (action) {
    case FaultAction::kCrash:
      return FaultKind::kCrash;
    case FaultAction::kRestart:
      return wipe ? FaultKind::kRestartWiped : FaultKind::kRestart;
    case FaultAction::kRestartWiped:
      return FaultKind::kRestartWiped;
    case FaultAction::kClose:
      return FaultKind::kClose;
    case FaultAction::kStart:
      return FaultKind::kStart;
    case FaultAction::kPause:
      return FaultKind::kPause;
    case FaultAction::kResume:
      return FaultKind::kResume;
    case FaultAction::kIsolate:
      return FaultKind::kIsolate;
    case FaultAction::kHeal:
      return FaultKind::kHeal;
    case FaultAction::kAddInstance:
      return FaultKind::kAddInstance;
    case FaultAction::kRemoveInstance:
      return FaultKind::kRemoveInstance;
    case FaultAction::kUpgrade:
      // A restart on the kept disk to the judge (the record's detail names the pin).
      return FaultKind::kRestart;
  }
  IQ_ASSERT(false, "unknown fault action {}", static_cast<int>(action));
  return FaultKind::kCrash;
}

FaultInjector::FaultInjector(Cluster& cluster, std::vector<FaultRecord>& faults)
    : cluster_(cluster), faults_(faults) {}

FaultInjector::~FaultInjector() {
  cancel_pending();
  for (int32_t n = 1; n <= cluster_.instance_count(); ++n) {
    cluster_.instance(n).set_on_crash_landed(nullptr);
    cluster_.instance(n).set_on_io_fault_landed(nullptr);
  }
}

bool FaultInjector::apply(FaultAction action, int32_t n, bool wipe, const std::string& detail,
                          std::optional<int64_t> undo_after_ms) {
  FaultRecord record;
  record.at_ms = cluster_.loop().now();
  record.kind = fault_kind(action, wipe);
  record.detail = detail;
  if (action == FaultAction::kUpgrade) {
    record.detail +=
        (record.detail.empty() ? "" : "; ") + std::string("upgrade to kafka 2026-08-20");
  }
  if (auto why = why_not(action, n)) {
    record.applied = false;
    record.instance = "instance-" + std::to_string(n);
    record.detail += (record.detail.empty() ? "" : "; ") + ("skipped: " + *why);
    faults_.push_back(std::move(record));
    return false;
  }
  if (action == FaultAction::kAddInstance && undo_after_ms) {
    // Added but not started yet: its KafkaStreams is CREATED until the start, which the undo is.
    Instance& added = cluster_.add_instance();
    added.create();
    record.instance = added.name();
    record.detail += (record.detail.empty() ? "" : "; ") +
                     ("created, started after " + std::to_string(*undo_after_ms) + " ms");
    faults_.push_back(std::move(record));
    IQ_ASSERT(*undo_after_ms >= 0, "undo_after_ms={}", *undo_after_ms);
    schedule(cluster_.now_ms() + *undo_after_ms, FaultAction::kStart, cluster_.instance_count(),
             /*wipe=*/false, detail + ": start");
    return true;
  }
  record.instance = execute(action, n, wipe);
  faults_.push_back(std::move(record));
  if (undo_after_ms) {
    IQ_ASSERT(*undo_after_ms >= 0, "undo_after_ms={}", *undo_after_ms);
    if (auto undo = undo_of(action, wipe)) {
      schedule(cluster_.now_ms() + *undo_after_ms, *undo, n, /*wipe=*/false, detail + ": undo");
    }
  }
  return true;
}

void FaultInjector::schedule(int64_t at_ms, FaultAction action, int32_t n, bool wipe,
                             std::string detail, std::optional<int64_t> undo_after_ms) {
  (void)schedule_event(at_ms, std::string("fault:") + to_string(action),
                       [this, action, n, wipe, detail = std::move(detail), undo_after_ms] {
                         (void)apply(action, n, wipe, detail, undo_after_ms);
                       });
}

uint64_t FaultInjector::schedule_event(int64_t at_ms, std::string label, std::function<void()> f) {
  IQ_ASSERT(at_ms >= cluster_.now_ms(), "fault at {} before now {}", at_ms, cluster_.now_ms());
  IQ_ASSERT(pending_.size() < kPendingMax, "more than {} pending faults", kPendingMax);
  const uint64_t key = next_pending_++;
  pending_[key] = cluster_.loop().schedule_at(base::Instant::from_ms(at_ms), std::move(label),
                                              [this, key, f = std::move(f)] {
                                                pending_.erase(key);
                                                f();
                                              });
  return key;
}

bool FaultInjector::arm_crash_inside(int32_t n, const CrashInsideSpec& spec, bool wipe,
                                     const std::string& detail,
                                     std::optional<int64_t> undo_after_ms) {
  FaultRecord record;
  record.at_ms = cluster_.loop().now();
  record.kind = FaultKind::kCrashArmed;
  record.instance = "instance-" + std::to_string(n);
  record.detail = detail + (detail.empty() ? "" : "; ") + "inside an operation at " +
                  spec.to_string() + (wipe ? ", restart wiped" : "");
  std::optional<std::string> why;
  if (n < 1 || n > cluster_.instance_count()) {
    why = "the cluster has " + std::to_string(cluster_.instance_count()) + " instances";
  } else if (cluster_.instance(n).retired()) {
    why = cluster_.instance(n).name() + " was removed";
  } else if (cluster_.instance(n).crash_inside_armed()) {
    why = cluster_.instance(n).name() + " is armed already";
  }
  if (why) {
    record.applied = false;
    record.detail += "; skipped: " + *why;
    record.applied = false;
    faults_.push_back(std::move(record));
    return false;
  }
  Instance& i = cluster_.instance(n);
  i.set_on_crash_landed([this, n, wipe, detail, undo_after_ms](const CrashLanding& landing) {
    on_crash_landed(n, landing, wipe, detail, undo_after_ms);
  });
  i.arm_crash_inside(spec);
  faults_.push_back(std::move(record));
  return true;
}

void FaultInjector::schedule_crash_inside(int64_t at_ms, int32_t n, const CrashInsideSpec& spec,
                                          bool wipe, std::string detail,
                                          std::optional<int64_t> undo_after_ms) {
  (void)schedule_event(at_ms, "fault:arm_crash",
                       [this, n, spec, wipe, detail = std::move(detail), undo_after_ms] {
                         (void)arm_crash_inside(n, spec, wipe, detail, undo_after_ms);
                       });
}

void FaultInjector::on_crash_landed(int32_t n, const CrashLanding& landing, bool wipe,
                                    const std::string& detail,
                                    std::optional<int64_t> undo_after_ms) {
  FaultRecord record;
  record.at_ms = cluster_.loop().now();
  record.kind = FaultKind::kCrashLanded;
  record.instance = cluster_.instance(n).name();
  record.detail = detail + (detail.empty() ? "" : "; ") + "landed inside: " + landing.to_string();
  record.landed = CrashPointRecord{.event = to_string(landing.at),
                                   .what = landing.what,
                                   .path = landing.subject.path,
                                   .topic = landing.subject.topic,
                                   .partition = landing.subject.partition,
                                   .operations = operation_names(landing.operations),
                                   .points = landing.point_names()};
  faults_.push_back(std::move(record));
  if (undo_after_ms) {
    IQ_ASSERT(*undo_after_ms >= 0, "undo_after_ms={}", *undo_after_ms);
    schedule(cluster_.now_ms() + *undo_after_ms, *undo_of(FaultAction::kCrash, wipe), n,
             /*wipe=*/false, detail + ": undo");
  }
}

FaultKind io_fault_kind(IoKind kind, bool landed) {
  if (kind == IoKind::kRead)
    return landed ? FaultKind::kReadErrorLanded : FaultKind::kReadErrorArmed;
  return landed ? FaultKind::kWriteErrorLanded : FaultKind::kWriteErrorArmed;
}

bool FaultInjector::arm_io_fault(int32_t n, const IoFaultSpec& spec, const std::string& detail) {
  FaultRecord record;
  record.at_ms = cluster_.loop().now();
  record.kind = io_fault_kind(spec.kind, /*landed=*/false);
  record.instance = "instance-" + std::to_string(n);
  record.detail = detail + (detail.empty() ? "" : "; ") + "the " + spec.to_string();
  std::optional<std::string> why;
  if (n < 1 || n > cluster_.instance_count()) {
    why = "the cluster has " + std::to_string(cluster_.instance_count()) + " instances";
  } else if (cluster_.instance(n).retired()) {
    why = cluster_.instance(n).name() + " was removed";
  } else if (cluster_.instance(n).io_fault_armed()) {
    why = cluster_.instance(n).name() + " is armed already";
  }
  if (why) {
    record.detail += "; skipped: " + *why;
    record.applied = false;
    faults_.push_back(std::move(record));
    return false;
  }
  Instance& i = cluster_.instance(n);
  // Runs where the I/O failed, under the disk's lock: it only records.
  i.set_on_io_fault_landed([this, name = i.name(), detail](const IoFaultLanding& landing) {
    FaultRecord landed;
    landed.at_ms = cluster_.loop().now();
    landed.kind = io_fault_kind(landing.kind, /*landed=*/true);
    landed.instance = name;
    landed.detail = detail + (detail.empty() ? "" : "; ") + "failed: " + landing.to_string();
    faults_.push_back(std::move(landed));
  });
  i.arm_io_fault(spec);
  faults_.push_back(std::move(record));
  return true;
}

void FaultInjector::cancel_pending() {
  for (const auto& [key, id] : pending_) (void)cluster_.loop().cancel(id);
  pending_.clear();
  for (int32_t n = 1; n <= cluster_.instance_count(); ++n) {
    cluster_.instance(n).disarm_crash_inside();
    cluster_.instance(n).disarm_io_fault();
  }
}

void FaultInjector::heal_all(const std::string& detail) {
  for (int32_t n = 1; n <= cluster_.instance_count(); ++n) {
    const Instance& i = cluster_.instance(n);
    if (i.retired()) continue;
    if (isolated(n)) (void)apply(FaultAction::kHeal, n, false, detail);
    if (i.paused()) (void)apply(FaultAction::kResume, n, false, detail);
    if (!i.running()) {
      (void)apply(FaultAction::kRestart, n, false, detail);
    } else if (i.not_started()) {
      (void)apply(FaultAction::kStart, n, false, detail);
    }
  }
}

bool FaultInjector::down(int32_t n) const {
  const Instance& i = cluster_.instance(n);
  if (i.retired()) return false;
  return !i.running() || i.not_started() || i.paused() || isolated(n);
}

int32_t FaultInjector::down_count() const {
  int32_t count = 0;
  for (int32_t n = 1; n <= cluster_.instance_count(); ++n) count += down(n) ? 1 : 0;
  return count;
}

std::vector<int32_t> FaultInjector::up_instances() const {
  std::vector<int32_t> out;
  for (int32_t n = 1; n <= cluster_.instance_count(); ++n) {
    const Instance& i = cluster_.instance(n);
    if (!i.retired() && !down(n) && !i.crash_inside_armed()) out.push_back(n);
  }
  return out;
}

std::optional<std::string> FaultInjector::why_not(FaultAction action, int32_t n) const {
  if (action == FaultAction::kAddInstance) return std::nullopt;
  if (n < 1 || n > cluster_.instance_count()) {
    return "the cluster has " + std::to_string(cluster_.instance_count()) + " instances";
  }
  const Instance& i = cluster_.instance(n);
  if (i.retired()) return i.name() + " was removed";
  const bool running = i.running();
  switch (action) {
    case FaultAction::kCrash:
      return running ? std::nullopt : std::optional<std::string>(i.name() + " is down");
    case FaultAction::kRestart:
    case FaultAction::kRestartWiped:
      return running ? std::optional<std::string>(i.name() + " is running") : std::nullopt;
    case FaultAction::kUpgrade:
      if (running) return i.name() + " is running (close or crash it first)";
      if (at_least(i.kafka_pin(), KafkaPin::k2026_08_20)) {
        return i.name() + " already runs the 2026-08-20 pin";
      }
      return std::nullopt;
    case FaultAction::kClose:
      if (!running) return i.name() + " is down";
      if (i.paused()) return i.name() + " is paused";
      return std::nullopt;
    case FaultAction::kStart:
      if (running && !i.not_started()) return i.name() + " is started";
      if (i.paused()) return i.name() + " is paused";
      return std::nullopt;
    case FaultAction::kPause:
      if (!running) return i.name() + " is down";
      if (i.paused()) return i.name() + " is paused";
      return std::nullopt;
    case FaultAction::kResume:
      return i.paused() ? std::nullopt : std::optional<std::string>(i.name() + " is not paused");
    case FaultAction::kIsolate:
      return isolated(n) ? std::optional<std::string>(i.name() + " is isolated") : std::nullopt;
    case FaultAction::kHeal:
      return isolated(n) ? std::nullopt : std::optional<std::string>(i.name() + " is not isolated");
    case FaultAction::kRemoveInstance:
    case FaultAction::kAddInstance:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string FaultInjector::execute(FaultAction action, int32_t n, bool wipe) {
  if (action == FaultAction::kAddInstance) {
    Instance& added = cluster_.add_instance();
    added.start();
    return added.name();
  }
  Instance& i = cluster_.instance(n);
  switch (action) {
    case FaultAction::kCrash:
      i.crash();
      break;
    case FaultAction::kRestart:
      i.restart(wipe);
      break;
    case FaultAction::kRestartWiped:
      i.restart(/*wipe=*/true);
      break;
    case FaultAction::kUpgrade:
      i.upgrade(KafkaPin::k2026_08_20);
      break;
    case FaultAction::kClose:
      (void)i.close();  // a failed close is in i.errors()
      break;
    case FaultAction::kStart:
      i.start();
      break;
    case FaultAction::kPause:
      i.pause();
      break;
    case FaultAction::kResume:
      i.resume();
      break;
    case FaultAction::kIsolate:
      cluster_.isolate(n);
      isolated_.insert(n);
      break;
    case FaultAction::kHeal:
      cluster_.heal(n);
      isolated_.erase(n);
      break;
    case FaultAction::kRemoveInstance:
      cluster_.remove_instance(n);
      isolated_.erase(n);  // cut for good, but no longer counted as down
      break;
    case FaultAction::kAddInstance:
      break;
  }
  return i.name();
}

}  // namespace iq::sim
