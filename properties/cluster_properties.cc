// Cluster-level properties: RapidCheck generates whole scenarios (world, topology, workload,
// fault schedule; see scenario_generator.h), runs each through the simulator and judges it with
// every property. A failure shrinks to a minimal scenario, which is written out as a scenario
// file: `iqsim run <file>` reproduces it.
//
// Where the file goes: $IQSIM_COUNTEREXAMPLE_DIR, else the working directory (ctest runs the
// test in the build tree). Every failing case overwrites it while RapidCheck shrinks, so the file
// left at the end holds the last, minimal, failing scenario.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <fstream>

#include "runner.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_writer.h"
#include "scenario_generator.h"

namespace iq::properties {
namespace {

// Whole runs are costly: a few dozen generated scenarios by default, from a fixed RapidCheck seed
// so that the suite is the same run every time; RC_PARAMS overrides both (a long sweep:
// RC_PARAMS="max_success=2000 seed=N"). RapidCheck reads RC_PARAMS on first use, after this.
const bool kDefaultParams = [] {
  if (std::getenv("RC_PARAMS") == nullptr) {
    setenv("RC_PARAMS", "max_success=40 max_size=100 seed=20261202", 0);
  }
  return true;
}();

std::string counterexample_path() {
  const char* dir = std::getenv("IQSIM_COUNTEREXAMPLE_DIR");
  return std::string(dir != nullptr ? dir : ".") + "/cluster_properties_counterexample.toml";
}

std::string describe_failure(const RunReport& report, const std::string& path) {
  std::string out = "seed=" + std::to_string(report.seed) + ": " +
                    std::to_string(report.failures()) + " failure(s) of " +
                    std::to_string(report.violations.size()) + " violation(s); minimal scenario " +
                    "written to " + path + " (reproduce: iqsim run " + path + ")\n";
  for (const auto& name : report.unexpectedly_held) {
    out += "declared expected failure held: " + name + "\n";
  }
  size_t shown = 0;
  for (const auto& v : report.violations) {
    if (v.violation_class != ViolationClass::kFailure) continue;
    if (++shown > 3) break;
    out += v.to_string() + "\n";
  }
  return out;
}

RC_GTEST_PROP(ClusterProperties, GeneratedScenariosKeepEveryProperty, ()) {
  const sim::Scenario scenario = *gen_scenario();
  const RunReport report = run_scenario(scenario, {});
  RC_TAG(to_string(scenario.cluster.topology.kind));
  // Crash runs are judged by every property: a violation passes only when the run's record
  // proves it to be a declared Kafka behaviour (its class), which the tag counts.
  if (report.failures() < report.violations.size()) RC_TAG("known Kafka behaviour");
  if (!report.passed()) {
    const std::string path = counterexample_path();
    std::ofstream(path) << sim::to_toml(scenario);
    RC_FAIL(describe_failure(report, path));
  }
  // Every generated scenario queries: a run that judged nothing would make this property vacuous.
  RC_ASSERT(report.queries_judged > 0u);
}

// The generated scenarios written as files read back to the same scenario, so the file a
// failure leaves behind reproduces exactly what failed.
RC_GTEST_PROP(ClusterProperties, GeneratedScenariosRoundTripThroughFiles, ()) {
  const sim::Scenario scenario = *gen_scenario();
  auto parsed = sim::parse_scenario_text(sim::to_toml(scenario), scenario.file, std::nullopt);
  RC_ASSERT(parsed.has_value());
  RC_ASSERT(*parsed == scenario);
}

}  // namespace
}  // namespace iq::properties
