#include "runner.h"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "base/assert.h"
#include "scenario/scenario_driver.h"

namespace iq::properties {

namespace {

constexpr const char* kDeterministic = sim::property_names::kDeterministic.data();
constexpr const char* kScriptedExpectations = sim::property_names::kScriptedExpectations.data();

// What the checks found, before it is split into expected and unexpected violations.
struct Judged {
  std::vector<std::string> properties;  // in all_checks() order, then Deterministic
  std::vector<Violation> violations;
  uint64_t queries_judged = 0;
  DirtyReadStats dirty_reads;
  std::map<std::string, CheckTally> tallies;
};

bool lists(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The properties the scenario's phases ask for: a test with no `check` list asks for every one;
// the liveness phase asks for its own list. A scripted `expect` is an assertion the file makes,
// so ScriptedExpectations judges it whether or not the test lists that property.
std::set<std::string> requested_properties(const sim::Scenario& scenario,
                                           const sim::RunTrace& trace) {
  std::set<std::string> requested;
  bool every = false;
  for (const sim::TestSpec& test : scenario.tests) {
    if (test.checks.empty()) every = true;
    requested.insert(test.checks.begin(), test.checks.end());
  }
  if (scenario.liveness.enabled) {
    requested.insert(scenario.liveness.checks.begin(), scenario.liveness.checks.end());
  }
  if (!trace.expectations.empty()) requested.insert(kScriptedExpectations);
  // Progress judges every run whose liveness phase got every answer, whatever the file lists.
  if (trace.progress) requested.insert(std::string(sim::property_names::kProgress));
  if (every) {
    for (const CheckInfo& check : all_checks()) requested.insert(check.name);
  }
  return requested;
}

bool wants_determinism(const sim::Scenario& scenario, const RunOptions& options) {
  if (options.check_determinism) return true;
  // A finding that claims nondeterminism can only be confirmed by running twice.
  if (lists(scenario.expected_failures, kDeterministic)) return true;
  return std::any_of(scenario.tests.begin(), scenario.tests.end(),
                     [](const sim::TestSpec& t) { return lists(t.checks, kDeterministic); });
}

Judged judge_trace(const sim::Scenario& scenario, const sim::RunTrace& trace) {
  std::set<std::string> requested = requested_properties(scenario, trace);
  for (const std::string& name : requested) {
    // The parser rejects unknown names with file:line; a hand-built Scenario must be as careful.
    IQ_ASSERT(name == kDeterministic || find_check(name) != nullptr, "unknown property '{}'", name);
  }
  JudgeContext context(trace);
  Judged judged;
  std::vector<const CheckInfo*> run;
  for (const CheckInfo& check : all_checks()) {
    if (requested.count(check.name) == 0) continue;
    run.push_back(&check);
    judged.properties.emplace_back(check.name);
    std::vector<Violation> found = check.run(context);
    for (Violation& v : found) judged.violations.push_back(std::move(v));
  }
  // What the checks judged and passed over, before the classification reads the trace again.
  for (const auto& [name, tally] : context.tallies()) judged.tallies.emplace(name, tally);
  classify_violations(context, judged.violations);
  judged.dirty_reads = dirty_reads(context);
  for (const sim::QueryRecord& record : trace.history.records()) {
    bool looked_at = std::any_of(run.begin(), run.end(), [&](const CheckInfo* check) {
      return context.judged_by(record, check->name);
    });
    if (looked_at) ++judged.queries_judged;
  }
  return judged;
}

// Splits violations into the unexpected ones and the findings the scenario declares.
void classify(const sim::Scenario& scenario, Judged judged, RunReport& report) {
  report.properties_checked = std::move(judged.properties);
  report.queries_judged = judged.queries_judged;
  report.dirty_reads = std::move(judged.dirty_reads);
  report.tallies = std::move(judged.tallies);
  std::set<std::string> failed;
  for (Violation& v : judged.violations) {
    ++report.violations_by_property[v.property];
    failed.insert(v.property);
    if (lists(scenario.expected_failures, v.property)) {
      report.expected_violations.push_back(std::move(v));
    } else {
      // Declared, not global: a behaviour the scenario does not allow fails the run.
      if (v.violation_class != ViolationClass::kFailure &&
          !lists(scenario.allowed_behaviours, class_key(v.violation_class))) {
        v.class_evidence = fmt::format(
            "not allowed here: proven \"{}\", which {} does not list in allowed_behaviours: {}",
            to_string(v.violation_class), scenario.file.empty() ? scenario.title : scenario.file,
            v.class_evidence);
        v.violation_class = ViolationClass::kFailure;
      }
      report.violations.push_back(std::move(v));
    }
  }
  for (const std::string& declared : scenario.expected_failures) {
    if (failed.count(declared) == 0) report.unexpectedly_held.push_back(declared);
  }
}

// expect_probes: a listed probe the run never hit is a violation of the file's own assertions.
void check_expected_probes(const sim::Scenario& scenario, const sim::RunTrace& trace,
                           Judged& judged) {
  if (scenario.expect_probes.empty()) return;
  if (!lists(judged.properties, kScriptedExpectations)) {
    judged.properties.emplace_back(kScriptedExpectations);
  }
  for (const std::string& probe : scenario.expect_probes) {
    if (lists(trace.probes_hit, probe)) continue;
    Violation v;
    v.property = kScriptedExpectations;
    v.at_ms = trace.end_ms.ms_since_epoch();
    v.summary = "expect_probes: the probe '" + probe + "' was never hit in this run";
    v.expected = "'" + probe + "' hit";
    v.returned = std::to_string(trace.probes_hit.size()) + " other probes hit";
    judged.violations.push_back(std::move(v));
  }
}

RunReport report_header(const sim::Scenario& scenario, const sim::RunTrace& trace) {
  RunReport report;
  report.scenario = scenario.file;
  report.title = scenario.title;
  report.seed = scenario.seed;
  report.queries_total = trace.history.size();
  report.virtual_ms = trace.end_ms.ms_since_epoch();  // the report holds a number
  report.events = trace.events;
  for (const sim::ReprocessedRange& r : trace.reprocessed) {
    report.records_reprocessed += static_cast<uint64_t>(r.last_offset - r.first_offset + 1);
  }
  report.digest = trace.digest;
  report.probes_hit = trace.probes_hit;
  report.instance_errors = trace.instance_errors;
  report.processing_guarantee = to_string(scenario.cluster.streams.processing_guarantee);
  report.kafka_pin = to_string(scenario.cluster.streams.kafka_pin);
  report.staleness = answer_staleness(trace);
  return report;
}

}  // namespace

RunReport run_scenario(const sim::Scenario& scenario, const RunOptions& options) {
  sim::RunTrace trace = sim::drive_scenario(scenario);
  IQ_ASSERT(trace.seed == scenario.seed, "trace seed {} != scenario seed {}", trace.seed,
            scenario.seed);
  RunReport report = report_header(scenario, trace);
  Judged judged = judge_trace(scenario, trace);
  check_expected_probes(scenario, trace, judged);
  if (wants_determinism(scenario, options)) {
    // The second run must see exactly the same scenario: the driver reads nothing else.
    sim::RunTrace second = sim::drive_scenario(scenario);
    judged.properties.emplace_back(kDeterministic);
    for (Violation& v : check_deterministic(trace, second))
      judged.violations.push_back(std::move(v));
  }
  classify(scenario, std::move(judged), report);
  if (options.keep_trace) report.trace = std::make_shared<const sim::RunTrace>(std::move(trace));
  return report;
}

RunReport judge(const sim::Scenario& scenario, const sim::RunTrace& trace) {
  RunReport report = report_header(scenario, trace);
  Judged judged = judge_trace(scenario, trace);
  check_expected_probes(scenario, trace, judged);
  classify(scenario, std::move(judged), report);
  return report;
}

}  // namespace iq::properties
