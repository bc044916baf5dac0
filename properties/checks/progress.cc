// Progress: after faults stop and every partition answered its liveness probe, the cluster settles
// by the liveness deadline, as Kafka promises once it is healed: every standby and warmup keeps
// applying its changelog to the end, every restore finishes (one RUNNING active per partition),
// the group stops rebalancing with exactly the live threads as members, and the input is
// committed; and then every warmup becomes its task's active on its instance within the probing
// rebalance interval (the deadline moves to the quiescent time + probing.rebalance.interval.ms +
// the liveness timeout while a caught-up warmup waits for its promotion).
//
// From trace.progress, which the scenario driver records as it happens (ScenarioDriver::
// await_progress, the same quiescence test as a scenario's run_until = 'quiescent'): a run whose
// cluster was not quiescent by the deadline is one violation, naming the condition that still
// failed there. A run whose probes never all answered (EventuallyAvailable judges that; a Kafka
// behaviour such as quirk 25's dropped tail may explain it) is judged too, by the cluster as it
// stood at the deadline. Not judged: a run without a liveness phase, or one a bound stopped.
//
// Not judged here: the later rounds of warmups the promotion's assignment may create (under
// max.warmup.replicas), only the round the cluster had when it first settled.

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties {
namespace {

constexpr const char* kProgressName = sim::property_names::kProgress.data();

}  // namespace

std::vector<Violation> check_progress(const JudgeContext& context) {
  std::vector<Violation> out;
  detail::Tally tally(context, kProgressName);
  const sim::RunTrace& trace = context.trace();
  if (!trace.progress) {
    tally.not_judged(trace.liveness ? "a bound stopped the run" : "no liveness phase");
    return out;
  }
  tally.judged();
  const sim::ProgressRecord& progress = *trace.progress;
  if (progress.quiescent_ms) return out;
  Violation v;
  v.property = kProgressName;
  v.at_ms = progress.deadline_ms.ms_since_epoch();
  v.summary = "the cluster did not settle by the liveness deadline: " + progress.gap;
  v.expected = fmt::format(
      "settled by {} ms ({}): the group stable with the live threads, one RUNNING active per "
      "partition, every standby and warmup at lag 0, every source offset committed, then every "
      "caught-up warmup its task's active",
      progress.deadline_ms.ms_since_epoch(),
      progress.probes_answered
          ? fmt::format("every partition answered at {} ms", progress.since_ms.ms_since_epoch())
          : std::string("some partition never answered its probe; read at the deadline"));
  v.returned = progress.gap;
  // A client the gap names that failed (ERROR) says why, from what the run recorded.
  for (const std::string& error : trace.instance_errors) {
    const std::string instance = error.substr(0, error.find(':'));
    if (progress.gap.starts_with(instance + " ")) v.returned += "; " + error;
  }
  v.events_before = context.events_before(progress.deadline_ms);
  out.push_back(std::move(v));
  return out;
}

}  // namespace iq::properties
