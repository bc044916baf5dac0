#pragma once
// The one function cli/ (and the cluster-level RapidCheck suite) calls: a Scenario through the
// simulator, judged by every property it asks for.
//
//   auto scenario = sim::parse_scenario_file("scenarios/fast/failover.toml", seed);
//   if (!scenario) { print(scenario.error().to_string()); exit(2); }
//   RunReport report = run_scenario(*scenario, {});
//   report.passed();  // every property held, findings failed as declared

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "checks/check.h"
#include "trace/run_trace.h"
#include "scenario/scenario.h"

namespace iq::properties {

struct RunOptions {
  // Run the scenario a second time and compare trace digests (the Deterministic property). Also
  // on when a test of the scenario lists "Deterministic" among its checks.
  bool check_determinism = false;
  // Keep the whole trace in the report (reports/ draws it); otherwise it is dropped after judging.
  bool keep_trace = false;
};

struct RunReport {
  std::string scenario;  // file
  std::string title;
  uint64_t seed = 0;
  std::vector<std::string> properties_checked;
  uint64_t queries_judged = 0;  // query records looked at by at least one check
  uint64_t queries_total = 0;
  // Violations of properties the scenario did not declare as expected failures.
  std::vector<Violation> violations;
  // Violations of declared expected failures (findings): visible, not failing.
  std::vector<Violation> expected_violations;
  // Declared expected failures that did not fail: the run fails (the finding went away).
  std::vector<std::string> unexpectedly_held;
  std::map<std::string, uint64_t> violations_by_property;  // both kinds
  int64_t virtual_ms = 0;
  uint64_t events = 0;
  // Input records some task processed again (at-least-once), summed over the trace's ranges.
  uint64_t records_reprocessed = 0;
  std::string digest;
  std::vector<std::string> probes_hit;  // RunTrace::probes_hit
  std::shared_ptr<const sim::RunTrace> trace;  // only with RunOptions::keep_trace

  bool passed() const { return violations.empty() && unexpectedly_held.empty(); }
  // "iqsim replay scenarios/fast/x.toml --seed 17"
  std::string reproduce_command() const;
};

RunReport run_scenario(const sim::Scenario& scenario, const RunOptions& options);

// Judges a recorded trace (what run_scenario does after the simulator): exposed for tests and
// for reports that re-judge a saved trace.
RunReport judge(const sim::Scenario& scenario, const sim::RunTrace& trace);

}  // namespace iq::properties
