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

// ---- Quirks as switches: a quirk's class is attributed by rerunning the seed with it off ----

// The quirks with the switch behind `c` off (check.h: attributed_by_rerun), and its name.
KafkaQuirks quirk_off(ViolationClass c) {
  IQ_ASSERT(c == ViolationClass::kVersionedRestoreDroppedExpired, "no switch for {}", class_key(c));
  KafkaQuirks quirks;
  quirks.versioned_restore_end_of_batch_stream_time = false;
  return quirks;
}

const char* quirk_name(ViolationClass c) {
  IQ_ASSERT(c == ViolationClass::kVersionedRestoreDroppedExpired, "no switch for {}", class_key(c));
  return "quirk 18 (a versioned restore's end-of-batch stream time)";
}

std::optional<std::string> outcome_differs(const sim::QueryRecord& a, const sim::QueryRecord& b) {
  if (a.request.to_string() != b.request.to_string() || a.target_instance != b.target_instance ||
      a.outcome != b.outcome || a.partitions.size() != b.partitions.size()) {
    return fmt::format("query record #{} was asked, routed or ended otherwise", a.id);
  }
  for (size_t i = 0; i < a.partitions.size(); ++i) {
    const sim::PartitionOutcome& x = a.partitions[i];
    const sim::PartitionOutcome& y = b.partitions[i];
    if (x.partition != y.partition || x.success != y.success ||
        x.failure_reason != y.failure_reason || x.position.has_value() != y.position.has_value() ||
        (x.position && x.position->map() != y.position->map())) {
      return fmt::format(
          "query record #{} partition {} answered at another position or failed "
          "otherwise",
          a.id, x.partition);
    }
  }
  return std::nullopt;
}

// Why `b` is not the same run as `a` but for answers' values, or nullopt when it is.
std::optional<std::string> run_differs(const sim::RunTrace& a, const sim::RunTrace& b) {
  const auto& ra = a.history.records();
  const auto& rb = b.history.records();
  if (ra.size() != rb.size()) {
    return fmt::format("{} query records, not {}", rb.size(), ra.size());
  }
  for (size_t i = 0; i < ra.size(); ++i) {
    if (auto why = outcome_differs(ra[i], rb[i])) return why;
  }
  if (a.changelog.size() != b.changelog.size()) {
    return fmt::format("{} changelog records, not {}", b.changelog.size(), a.changelog.size());
  }
  for (size_t i = 0; i < a.changelog.size(); ++i) {
    const sim::ChangelogRecord& x = a.changelog[i];
    const sim::ChangelogRecord& y = b.changelog[i];
    if (x.partition != y.partition || x.offset != y.offset || x.key != y.key ||
        x.value != y.value || x.timestamp_ms != y.timestamp_ms || x.writer != y.writer) {
      return fmt::format("changelog-{} offset {} differs", x.partition, x.offset);
    }
  }
  return std::nullopt;
}

bool same_violation(const Violation& a, const Violation& b) {
  return a.property == b.property && a.record_id == b.record_id && a.partition == b.partition;
}

// Why the rerun does not show that the quirk alone made `v`'s claimed answer differ, or "" when
// it does: with the quirk off, that answer has no ResultMatchesModel violation (the model's
// answer), and neither has `v` itself unless it is a SamePositionSameAnswer violation whose other
// answer its evidence explains by a class of its own.
std::string still_wrong(const Violation& v, const Judged& rerun) {
  if (std::find(rerun.properties.begin(), rerun.properties.end(),
                sim::property_names::kResultMatchesModel) == rerun.properties.end()) {
    return "ResultMatchesModel was not judged";
  }
  for (const Violation& r : rerun.violations) {
    if (r.property == sim::property_names::kResultMatchesModel &&
        r.record_id == v.rerun_record_id && r.partition == v.partition) {
      return fmt::format("record #{} is still not the model's answer", v.rerun_record_id);
    }
    if (same_violation(v, r) && v.property != sim::property_names::kSamePositionSameAnswer) {
      return "this violation is still there";
    }
  }
  return "";
}

// The verdict of one rerun on the violations of class `c`.
void attribute_one_quirk(const sim::RunTrace& trace, const sim::RunTrace& rerun,
                         const Judged& rejudged, ViolationClass c,
                         std::vector<Violation>& violations) {
  std::optional<std::string> refused = run_differs(trace, rerun);
  for (const Violation& r : rejudged.violations) {
    if (refused) break;
    const bool known = std::any_of(violations.begin(), violations.end(),
                                   [&](const Violation& v) { return same_violation(v, r); });
    if (!known) refused = fmt::format("it has a new violation: {}", r.summary);
  }
  for (Violation& v : violations) {
    if (!v.needs_rerun || v.violation_class != c) continue;
    v.needs_rerun = false;
    const std::string why = refused ? *refused : still_wrong(v, rejudged);
    if (why.empty()) {
      v.class_evidence += fmt::format(
          "; attributed by rerun: with {} off, the same seed is the "
          "same run without this violation",
          quirk_name(c));
      continue;
    }
    v.class_evidence = fmt::format("not attributed to {}: rerun with it off, {}; the candidate: {}",
                                   quirk_name(c), why, v.class_evidence);
    v.violation_class = ViolationClass::kFailure;
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

void attribute_quirks_by_rerun(const sim::Scenario& scenario, const sim::RunTrace& trace,
                               std::vector<Violation>& violations, const Rerun& rerun) {
  std::set<ViolationClass> classes;
  for (const Violation& v : violations) {
    if (v.needs_rerun) classes.insert(v.violation_class);
  }
  for (ViolationClass c : classes) {
    sim::Scenario off = scenario;
    off.cluster.streams.quirks = quirk_off(c);
    const sim::RunTrace second = rerun(off);
    const Judged rejudged = judge_trace(off, second);
    attribute_one_quirk(trace, second, rejudged, c, violations);
  }
}

RunReport run_scenario(const sim::Scenario& scenario, const RunOptions& options) {
  sim::RunTrace trace = sim::drive_scenario(scenario);
  IQ_ASSERT(trace.seed == scenario.seed, "trace seed {} != scenario seed {}", trace.seed,
            scenario.seed);
  RunReport report = report_header(scenario, trace);
  Judged judged = judge_trace(scenario, trace);
  attribute_quirks_by_rerun(scenario, trace, judged.violations, sim::drive_scenario);
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
  attribute_quirks_by_rerun(scenario, trace, judged.violations, sim::drive_scenario);
  check_expected_probes(scenario, trace, judged);
  classify(scenario, std::move(judged), report);
  return report;
}

}  // namespace iq::properties
