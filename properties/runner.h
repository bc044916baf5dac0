#pragma once
// The one function cli/ (and the cluster-level RapidCheck suite) calls: a Scenario through the
// simulator, judged by every property it asks for.
//
//   auto scenario = sim::parse_scenario_file("scenarios/fast/failover.toml", seed);
//   if (!scenario) { print(scenario.error().to_string()); exit(2); }
//   RunReport report = run_scenario(*scenario, {});
//   report.passed();  // every property held, findings failed as declared

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "checks/check.h"
#include "checks/run_report.h"
#include "scenario/scenario.h"
#include "trace/run_trace.h"

namespace iq::properties {

struct RunOptions {
  // Run the scenario a second time and compare trace digests (the Deterministic property). Also
  // on when a test of the scenario lists "Deterministic" among its checks.
  bool check_determinism = false;
  // Keep the whole trace in the report (reports/ draws it); otherwise it is dropped after judging.
  bool keep_trace = false;
};

RunReport run_scenario(const sim::Scenario& scenario, const RunOptions& options);

// Judges a recorded trace (what run_scenario does after the simulator): exposed for tests and
// for reports that re-judge a saved trace.
RunReport judge(const sim::Scenario& scenario, const sim::RunTrace& trace);

// Quirks as switches (docs/design.md): a violation classed as a quirk impl/ reproduces behind a
// switch (Violation::needs_rerun) keeps its class only if `rerun` of the scenario with that quirk
// off (iq/kafka_quirks.h) gives the same run (every query's request, target, outcome and
// positions, and every changelog record) with no violation of that property on that answer and
// no violation the first run lacks; otherwise it becomes a failure saying why. run_scenario
// and judge rerun the simulator; tests pass a recorded trace. One rerun per quirk.
using Rerun = std::function<sim::RunTrace(const sim::Scenario&)>;
void attribute_quirks_by_rerun(const sim::Scenario& scenario, const sim::RunTrace& trace,
                               std::vector<Violation>& violations, const Rerun& rerun);

}  // namespace iq::properties
