#pragma once
// How the queries of a run ended, over the phases of the run: before the first fault, while
// faults were being injected, and the liveness phase (from RunTrace::liveness's
// faults_stopped_ms, when everything was healed and restarted, or a liveness or audit query).
// Counted per answered partition ("answered" or its FailureReason name) and per query that got
// no answer ("error", "timeout", "not-routed"), the classes of report_common's outcome_class.
//
//   PhaseOutcomes counts = query_outcomes_by_phase(trace);  // {"liveness": {"answered": 812}}
//   html += render_bar_figure(phase_outcomes_chart(counts, "outcomes-by-phase"));
//
// cli/ stores the counts per seed (SeedResult::query_outcomes), so a sweep sums them.

#include <cstdint>
#include <map>
#include <string>

#include "charts.h"
#include "trace/run_trace.h"

namespace iq::reports {

// phase key ("before_faults", "during_faults", "liveness") -> outcome class -> count
using PhaseOutcomes = std::map<std::string, std::map<std::string, uint64_t>>;

inline constexpr const char* kPhaseKeys[] = {"before_faults", "during_faults", "liveness"};
// "before faults", "during faults", "liveness" (the key itself for others).
std::string phase_label(const std::string& key);

PhaseOutcomes query_outcomes_by_phase(const sim::RunTrace& trace);

// One stacked row per phase that has queries (in kPhaseKeys order), a segment per outcome
// ("answered" first, then the refusals and errors by name), each row as shares of its phase.
BarChart phase_outcomes_chart(const PhaseOutcomes& counts, const std::string& id);

}  // namespace iq::reports
