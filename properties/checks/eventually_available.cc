// EventuallyAvailable: after faults stop and the cluster heals, every partition answers a bounded
// query within a stated virtual time.
//
// From trace.liveness: every partition of the topology's source topic has a first successful
// probe (bounded by everything produced when the phase began) at or before
// faults_stopped_ms + timeout_ms. Besides, every recorded liveness failure (a phase that did not
// reach what it waited for, e.g. run_until quiescent timing out) and a run that hit its virtual
// time limit are violations: in both the cluster did not get where it should have.
//
// Each violation about a partition shows the last liveness probe of that partition (its query,
// outcome and placement), which is usually the quickest way to see why it never answered.

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties {
namespace {

constexpr const char* kEventuallyAvailableName = sim::property_names::kEventuallyAvailable.data();

Violation partition_violation(const JudgeContext& context, int32_t partition, base::Instant at,
                              std::string summary, std::string expected) {
  // A Violation holds its instant as a number (the summaries' JSON writes it).
  const int64_t at_ms = at.ms_since_epoch();
  if (const sim::QueryRecord* probe = detail::last_liveness_probe(context, partition)) {
    Violation v = detail::record_violation(context, kEventuallyAvailableName, *probe, nullptr,
                                           std::move(summary), std::move(expected),
                                           detail::record_outcome_text(*probe, true));
    v.record_id = 0;  // about the partition, not about that probe
    v.partition = partition;
    v.at_ms = at_ms;
    v.events_before = context.events_before(at);
    v.query = "last probe #" + std::to_string(probe->id) + ": " + v.query;
    return v;
  }
  Violation v;
  v.property = kEventuallyAvailableName;
  v.partition = partition;
  v.at_ms = at_ms;
  v.summary = std::move(summary);
  v.expected = std::move(expected);
  v.returned = "no liveness probe of this partition was recorded";
  v.events_before = context.events_before(at);
  return v;
}

}  // namespace

std::vector<Violation> check_eventually_available(const JudgeContext& context) {
  std::vector<Violation> out;
  detail::Tally tally(context, kEventuallyAvailableName);
  const sim::RunTrace& trace = context.trace();
  // A violation about the whole run, at `at`.
  const auto run_violation = [&](base::Instant at, std::string summary) {
    Violation v;
    v.property = kEventuallyAvailableName;
    v.at_ms = at.ms_since_epoch();
    v.summary = std::move(summary);
    v.events_before = context.events_before(at);
    out.push_back(std::move(v));
  };
  for (const sim::LivenessFailure& failure : trace.liveness_failures) {
    run_violation(failure.at_ms, "liveness failure: " + failure.what);
  }
  if (trace.time_limit_reached) {
    run_violation(trace.end_ms, "the run reached its virtual time limit at " +
                                    std::to_string(trace.end_ms.ms_since_epoch()) + " ms");
  }
  if (!trace.bound_reached.empty()) {
    run_violation(trace.end_ms, "BoundReached: the run stopped: " + trace.bound_reached);
  }
  if (!trace.liveness) {
    tally.not_judged("no liveness phase");
    return out;
  }
  const sim::LivenessRecord& liveness = *trace.liveness;
  const base::Instant deadline = liveness.faults_stopped_ms + liveness.timeout_ms;
  const std::string expected =
      "a successful bounded probe by " + std::to_string(deadline.ms_since_epoch()) +
      " ms (faults stopped at " + std::to_string(liveness.faults_stopped_ms.ms_since_epoch()) +
      " ms, timeout " + std::to_string(liveness.timeout_ms.ms()) + " ms; bound " +
      liveness.bound.to_string() + ")";
  for (int32_t p = 0; p < trace.topology.source_partitions; ++p) {
    tally.judged();
    const auto it = liveness.first_success_ms.find(p);
    if (it == liveness.first_success_ms.end() || !it->second) {
      out.push_back(partition_violation(
          context, p, deadline,
          "partition " + std::to_string(p) + " never answered a bounded query", expected));
    } else if (*it->second > deadline) {
      out.push_back(partition_violation(context, p, *it->second,
                                        "partition " + std::to_string(p) + " first answered at " +
                                            std::to_string(it->second->ms_since_epoch()) +
                                            " ms, after the deadline",
                                        expected));
    }
  }
  return out;
}

}  // namespace iq::properties
