#include "cluster/crash_inside.h"

#include <array>
#include <utility>
#include <vector>

#include "base/assert.h"
#include "base/probe.h"
#include "io/operation_marker.h"

namespace iq::sim {

namespace {

constexpr std::array<std::pair<std::string_view, Operation>, 9> kOperationNames{{
    {"checkpoint", Operation::kCheckpoint},
    {"checkpoint_flush", Operation::kCheckpointFlush},
    {"write_position", Operation::kWritePosition},
    {"write_checkpoint", Operation::kWriteCheckpoint},
    {"restore", Operation::kRestore},
    {"cleaner", Operation::kStateDirectoryCleaner},
    {"close", Operation::kClose},
    {"commit", Operation::kCommit},
    {"key_query", Operation::kKeyQuery},
}};

// The crash points a landing hit, in a fixed order (see CrashLanding::points).
std::vector<std::string_view> points_of(const CrashLanding& l) {
  std::vector<std::string_view> out;
  const uint32_t m = l.operations;
  const bool writing_files =
      in_progress(m, Operation::kWritePosition) || in_progress(m, Operation::kWriteCheckpoint);
  if (l.at == CrashInsideAt::kDiskOp && in_progress(m, Operation::kCommit) &&
      !in_progress(m, Operation::kCheckpoint)) {
    out.push_back("commit_flush");
  }
  if (l.at == CrashInsideAt::kDiskOp && in_progress(m, Operation::kCheckpoint) && !writing_files) {
    out.push_back("store_flush");
  }
  if (writing_files) out.push_back("flush_checkpoint");
  if (in_progress(m, Operation::kWriteCheckpoint)) out.push_back("position_checkpoint");
  if (l.at == CrashInsideAt::kSend || l.at == CrashInsideAt::kCommit) out.push_back("send_commit");
  if (in_progress(m, Operation::kRestore)) out.push_back("restore_batch");
  if (in_progress(m, Operation::kStateDirectoryCleaner)) out.push_back("cleaner");
  if (in_progress(m, Operation::kClose)) out.push_back("close");
  return out;
}

}  // namespace

const char* to_string(CrashInsideAt at) {
  switch (at) {
    case CrashInsideAt::kDiskOp:
      return "disk";
    case CrashInsideAt::kSend:
      return "send";
    case CrashInsideAt::kCommit:
      return "commit";
    case CrashInsideAt::kRestorePoll:
      return "restore_poll";
  }
  return "?";
}

std::optional<CrashInsideAt> crash_inside_at_from_string(std::string_view s) {
  for (CrashInsideAt at : {CrashInsideAt::kDiskOp, CrashInsideAt::kSend, CrashInsideAt::kCommit,
                           CrashInsideAt::kRestorePoll}) {
    if (s == to_string(at)) return at;
  }
  return std::nullopt;
}

std::optional<uint32_t> operation_mask_from_string(std::string_view s) {
  if (s == "any") return 0u;
  for (const auto& [name, op] : kOperationNames) {
    if (s == name) return static_cast<uint32_t>(op);
  }
  return std::nullopt;
}

std::string operation_mask_to_string(uint32_t mask) {
  if (mask == 0) return "any";
  std::string out;
  for (const auto& [name, op] : kOperationNames) {
    if (!in_progress(mask, op)) continue;
    if (!out.empty()) out += "+";
    out += name;
  }
  return out;
}

std::string CrashInsideSpec::to_string() const {
  std::string out = "event " + std::to_string(n) + " of kind " + sim::to_string(at);
  if (during != 0) out += " during " + operation_mask_to_string(during);
  if (!path.empty()) out += " on " + path;
  return out;
}

std::string CrashLanding::points() const {
  std::string out;
  for (std::string_view p : points_of(*this)) {
    if (!out.empty()) out += ", ";
    out += p;
  }
  return out.empty() ? "other" : out;
}

std::vector<std::string> CrashLanding::point_names() const {
  std::vector<std::string> out;
  for (std::string_view p : points_of(*this)) out.emplace_back(p);
  return out;
}

std::vector<std::string> operation_names(uint32_t mask) {
  std::vector<std::string> out;
  for (const auto& [name, op] : kOperationNames) {
    if (in_progress(mask, op)) out.emplace_back(name);
  }
  return out;
}

std::string CrashLanding::to_string() const {
  return what + " (in progress: " + operation_mask_to_string(operations) + "; points: " + points() +
         ")";
}

void CrashArm::arm(CrashInsideSpec spec) {
  IQ_ASSERT(spec.n >= 1, "crash inside armed at event {}", spec.n);
  IQ_ASSERT(spec.path.empty() || spec.at == CrashInsideAt::kDiskOp, "a {} event has no path",
            sim::to_string(spec.at));
  std::lock_guard lock(mu_);
  IQ_ASSERT(!landing_, "armed while a landed crash is not complete");
  spec_ = spec;
  matched_ = 0;
}

void CrashArm::disarm() {
  std::lock_guard lock(mu_);
  spec_.reset();
  matched_ = 0;
}

bool CrashArm::armed() const {
  std::lock_guard lock(mu_);
  return spec_.has_value();
}

bool CrashArm::count(CrashInsideAt at, std::string_view what, CrashSubject subject) {
  std::lock_guard lock(mu_);
  if (!spec_ || suspended_ || landing_ || spec_->at != at) return false;
  const uint32_t operations = operations_in_progress();
  if (spec_->during != 0 && (operations & spec_->during) == 0) return false;
  if (!spec_->path.empty() && subject.path != spec_->path) return false;
  if (++matched_ < spec_->n) return false;
  IQ_ASSERT(matched_ == spec_->n, "matched {} of {}", matched_, spec_->n);
  landing_ = CrashLanding{at, std::string(what), std::move(subject), operations};
  spec_.reset();
  return true;
}

bool CrashArm::dead() const {
  std::lock_guard lock(mu_);
  return landing_.has_value();
}

std::optional<CrashLanding> CrashArm::landing() const {
  std::lock_guard lock(mu_);
  return landing_;
}

void CrashArm::clear_landing() {
  std::lock_guard lock(mu_);
  landing_.reset();
}

void CrashArm::set_suspended(bool suspended) {
  std::lock_guard lock(mu_);
  suspended_ = suspended;
}

bool CrashArm::suspended() const {
  std::lock_guard lock(mu_);
  return suspended_;
}

void probe_crash_points(const CrashLanding& landing) {
  IQ_PROBE("crash.inside", "a crash landed inside an operation (a crash arm fired)");
  for (std::string_view p : points_of(landing)) {
    if (p == "commit_flush") {
      IQ_PROBE("crash.point.commit_flush",
               "a crash landed inside a commit's store flush, before its offset commit");
    } else if (p == "store_flush") {
      IQ_PROBE("crash.point.store_flush",
               "a crash landed inside a store flush, before the checkpoint files");
    } else if (p == "flush_checkpoint") {
      IQ_PROBE("crash.point.flush_checkpoint",
               "a crash landed after a store flush, before .checkpoint was durable");
    } else if (p == "position_checkpoint") {
      IQ_PROBE("crash.point.position_checkpoint",
               "a crash landed after <store>.position was written, while .checkpoint was");
    } else if (p == "send_commit") {
      IQ_PROBE("crash.point.send_commit",
               "a crash landed at a changelog send or an offset commit (sent, not committed)");
    } else if (p == "restore_batch") {
      IQ_PROBE("crash.point.restore_batch", "a crash landed inside a restore or standby pass");
    } else if (p == "cleaner") {
      IQ_PROBE("crash.point.cleaner",
               "a crash landed while the state-directory cleaner deleted a task directory");
    } else if (p == "close") {
      IQ_PROBE("crash.point.close", "a crash landed inside KafkaStreams::close");
    } else {
      IQ_ASSERT(false, "unknown crash point {}", p);
    }
  }
}

}  // namespace iq::sim
