#include "query_phases.h"

#include <algorithm>
#include <vector>

#include "report_common.h"

namespace iq::reports {

namespace {

// The phase a query belongs to, by when it was invoked.
const char* phase_of(const sim::RunTrace& trace, const sim::QueryRecord& q,
                     std::optional<base::Instant> first_fault) {
  using Source = sim::QueryRecord::Source;
  if (q.source == Source::kLiveness || q.source == Source::kAudit) return "liveness";
  if (trace.liveness && q.invoke_ms >= trace.liveness->faults_stopped_ms) return "liveness";
  if (first_fault && q.invoke_ms >= *first_fault) return "during_faults";
  return "before_faults";
}

std::string outcome_colour_of(const std::string& outcome) {
  if (outcome == "answered") return outcome_colour("ok");
  if (outcome == "timeout") return "#bcbd22";
  if (outcome == "not-routed") return "#c7c7c7";
  return outcome_colour(outcome);
}

}  // namespace

std::string phase_label(const std::string& key) {
  if (key == "before_faults") return "before faults";
  if (key == "during_faults") return "during faults";
  return key;
}

PhaseOutcomes query_outcomes_by_phase(const sim::RunTrace& trace) {
  std::optional<base::Instant> first_fault;
  for (const sim::FaultRecord& f : trace.faults) {
    if (!first_fault || f.at_ms < *first_fault) first_fault = f.at_ms;
  }
  PhaseOutcomes counts;
  for (const sim::QueryRecord& q : trace.history.records()) {
    std::map<std::string, uint64_t>& phase = counts[phase_of(trace, q, first_fault)];
    if (q.outcome != sim::OutcomeKind::kAnswered) {
      ++phase[outcome_class(q, nullptr)];
      continue;
    }
    for (const sim::PartitionOutcome& p : q.partitions) {
      ++phase[p.success ? std::string("answered") : outcome_class(q, &p)];
    }
  }
  return counts;
}

BarChart phase_outcomes_chart(const PhaseOutcomes& counts, const std::string& id) {
  BarChart chart{.id = id,
                 .title = "How queries ended, by phase of the run",
                 .unit = "partition results",
                 .layout = BarChart::Layout::kShares};
  std::vector<std::string> outcomes{"answered"};
  for (const auto& [phase, by_outcome] : counts) {
    for (const auto& [outcome, n] : by_outcome) {
      if (std::find(outcomes.begin(), outcomes.end(), outcome) == outcomes.end()) {
        outcomes.push_back(outcome);
      }
    }
  }
  for (const std::string& o : outcomes) chart.series.push_back({o, outcome_colour_of(o)});
  for (const char* key : kPhaseKeys) {
    auto it = counts.find(key);
    if (it == counts.end()) continue;
    chart.rows.push_back(phase_label(key));
    std::vector<double>& row = chart.values.emplace_back();
    for (const std::string& o : outcomes) {
      auto n = it->second.find(o);
      row.push_back(n == it->second.end() ? 0.0 : static_cast<double>(n->second));
    }
  }
  return chart;
}

}  // namespace iq::reports
