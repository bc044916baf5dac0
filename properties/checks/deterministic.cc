// Deterministic: the same seed and scenario give the same trace digest, run after run.
//
// check_deterministic(first, second) compares two traces of one scenario and seed: the event
// loop's digest, the number of events, the final virtual time and the query history. On a
// mismatch it reports one violation for the run as a whole and, when the histories differ, one
// for the first differing history record (both renderings), which is where to start looking.
// Differences in the history alone (same digest) are reported too: the history is not yet fed
// into the loop's digest (sim/history/README.md), so it is compared separately.

#include <algorithm>

#include "checks/check.h"

namespace iq::properties {
namespace {

constexpr const char* kDeterministicName = sim::property_names::kDeterministic.data();

std::string run_text(const sim::RunTrace& t) {
  return "digest=" + t.digest + " events=" + std::to_string(t.events) +
         " end_ms=" + std::to_string(t.end_ms.ms_since_epoch()) +
         " history=" + std::to_string(t.history.size()) + " records";
}

}  // namespace

std::vector<Violation> check_deterministic(const sim::RunTrace& first,
                                           const sim::RunTrace& second) {
  std::vector<Violation> out;
  const bool same_run = first.digest == second.digest && first.events == second.events &&
                        first.end_ms == second.end_ms;
  if (!same_run) {
    Violation v;
    v.property = kDeterministicName;
    v.at_ms = std::min(first.end_ms, second.end_ms).ms_since_epoch();
    v.summary = "seed " + std::to_string(first.seed) + " of " + first.scenario +
                ": the second run differs from the first";
    v.expected = run_text(first);
    v.returned = run_text(second);
    out.push_back(std::move(v));
  }
  const auto& a = first.history.records();
  const auto& b = second.history.records();
  const size_t common = std::min(a.size(), b.size());
  for (size_t i = 0; i < common; ++i) {
    std::string left = a[i].to_string();
    std::string right = b[i].to_string();
    if (left == right) continue;
    Violation v;
    v.property = kDeterministicName;
    v.record_id = a[i].id;
    v.at_ms = std::min(a[i].complete_ms, b[i].complete_ms).ms_since_epoch();
    v.summary = "history record " + std::to_string(i + 1) + " differs between the two runs";
    v.expected = std::move(left);
    v.returned = std::move(right);
    out.push_back(std::move(v));
    return out;
  }
  if (a.size() != b.size()) {
    const auto& longer = a.size() > b.size() ? a : b;
    Violation v;
    v.property = kDeterministicName;
    v.record_id = longer[common].id;
    v.at_ms = longer[common].complete_ms.ms_since_epoch();
    v.summary = "the histories have " + std::to_string(a.size()) + " and " +
                std::to_string(b.size()) + " records; the first extra one is here";
    v.expected = a.size() > b.size() ? a[common].to_string() : "no record";
    v.returned = b.size() > a.size() ? b[common].to_string() : "no record";
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace iq::properties
