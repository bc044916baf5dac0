#include "trace/run_trace.h"

namespace iq::sim {

const char* to_string(Guarantee g) {
  return g == Guarantee::kExactlyOnceV2 ? "exactly_once_v2" : "at_least_once";
}

const char* to_string(FaultKind kind) {
  switch (kind) {
    case FaultKind::kCrash:
    case FaultKind::kCrashLanded:
      return "crash";
    case FaultKind::kCrashArmed:
      return "arm_crash";
    case FaultKind::kRestart:
      return "restart";
    case FaultKind::kRestartWiped:
      return "restart_wiped";
    case FaultKind::kClose:
      return "close";
    case FaultKind::kStart:
      return "start";
    case FaultKind::kPause:
      return "pause";
    case FaultKind::kResume:
      return "resume";
    case FaultKind::kIsolate:
      return "isolate";
    case FaultKind::kHeal:
      return "heal";
    case FaultKind::kReadErrorArmed:
      return "arm_read_error";
    case FaultKind::kReadErrorLanded:
      return "read_error";
    case FaultKind::kWriteErrorArmed:
      return "arm_write_error";
    case FaultKind::kWriteErrorLanded:
      return "write_error";
    case FaultKind::kAddInstance:
      return "add_instance";
    case FaultKind::kRemoveInstance:
      return "remove_instance";
  }
  return "?";
}

// "@12000 crash instance-2 (scripted step 4)": one line, stable, as a violation lists it.
std::string FaultRecord::to_string() const {
  std::string out = "@" + std::to_string(at_ms.ms_since_epoch()) + " " + sim::to_string(kind);
  if (!instance.empty()) out += " " + instance;
  if (!detail.empty()) out += " (" + detail + ")";
  return out;
}

bool CrashPointRecord::has_point(std::string_view point) const {
  for (const std::string& p : points) {
    if (p == point) return true;
  }
  return false;
}

bool CrashPointRecord::on_task_file(std::string_view task, std::string_view file) const {
  if (event != "disk" || task.empty() || file.empty()) return false;
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return false;
  const std::string_view name = std::string_view(path).substr(slash + 1);
  const std::string_view dir = std::string_view(path).substr(0, slash);
  const size_t parent = dir.rfind('/');
  const std::string_view task_dir = parent == std::string::npos ? dir : dir.substr(parent + 1);
  return task_dir == task && name.substr(0, file.size()) == file;
}

const char* to_string(TxnOutcome outcome) {
  switch (outcome) {
    case TxnOutcome::kNone:
      return "none";
    case TxnOutcome::kOpen:
      return "open";
    case TxnOutcome::kCommitted:
      return "committed";
    case TxnOutcome::kAborted:
      return "aborted";
  }
  return "?";
}

}  // namespace iq::sim
