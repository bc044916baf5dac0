#include "cluster/io_fault.h"

#include <fmt/format.h>

#include "base/assert.h"
#include "base/probe.h"
#include "cluster/crash_inside.h"
#include "io/operation_marker.h"

namespace iq::sim {

std::string IoFaultSpec::to_string() const {
  return fmt::format("{} {} during {}", sim::to_string(kind), n, operation_mask_to_string(during));
}

std::string IoFaultLanding::to_string() const {
  return fmt::format("{} {} ({})", sim::to_string(kind), path,
                     operation_mask_to_string(operations));
}

void IoFaultArm::arm(IoFaultSpec spec) {
  IQ_ASSERT(spec.n >= 1, "n={}", spec.n);
  std::lock_guard lock(mu_);
  spec_ = spec;
  seen_ = 0;
}

void IoFaultArm::disarm() {
  std::lock_guard lock(mu_);
  spec_.reset();
}

bool IoFaultArm::armed() const {
  std::lock_guard lock(mu_);
  return spec_.has_value();
}

void IoFaultArm::set_on_landed(std::function<void(const IoFaultLanding&)> listener) {
  std::lock_guard lock(mu_);
  on_landed_ = std::move(listener);
}

bool IoFaultArm::count(IoKind kind, const std::string& path, uint32_t operations) {
  std::function<void(const IoFaultLanding&)> listener;
  IoFaultLanding landing;
  {
    std::lock_guard lock(mu_);
    if (!spec_ || spec_->kind != kind) return false;
    if (spec_->during != 0 && (operations & spec_->during) == 0) return false;
    if (++seen_ < spec_->n) return false;
    spec_.reset();
    landing = IoFaultLanding{kind, path, operations};
    listener = on_landed_;
  }
  IQ_PROBE("disk.io_error", "an armed storage error failed a read or write of a store's file");
  if (listener) listener(landing);
  return true;
}

}  // namespace iq::sim
