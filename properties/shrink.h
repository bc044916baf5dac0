#pragma once
// Shrinking a failing scenario: given a concrete Scenario whose run violates a property P, find a
// smaller Scenario whose run, with the same seed, still violates P. What `iqsim shrink` does
// before it writes the result with sim::to_toml(), so that `iqsim run out.toml` reproduces it.
//
//   ShrinkResult r = shrink_scenario(*scenario, "ResultMatchesModel", 200);
//   if (r.reproduced) write(sim::to_toml(r.minimal));
//
// Greedy and deterministic, like FoundationDB's and Hypothesis' simple passes rather than full
// delta debugging: the candidates of one pass are tried in a fixed order (big cuts first: whole
// tests, instances, workloads, steps; then faults and choices; then numbers halved: durations,
// rates, clients, keys, partitions, retries); the first candidate that still violates P replaces
// the current scenario and the pass goes on from there; passes repeat until one changes nothing
// or the run budget is spent. Every candidate strictly reduces a size measure, so the search ends
// even without the budget. A candidate that would not be a valid scenario (an instance or a
// partition out of range) is never offered; each one offered is written with sim::to_toml() and
// parsed back before it runs, so what runs is exactly what the written file says, and one the
// parser rejects is skipped without spending a run.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runner.h"
#include "scenario/scenario.h"

namespace iq::properties {

struct ShrinkResult {
  sim::Scenario minimal;         // the smallest scenario found that still violates `property`
  RunReport report;              // the run of `minimal`
  int32_t runs = 0;              // simulator runs spent, the first one included
  std::vector<std::string> log;  // one line per candidate tried, and why it was kept or not
  std::string property;          // the property shrunk for (the first violated one if not given)
  bool reproduced = false;       // the original scenario violated `property` at all
};

// One run of a candidate; run_scenario() in production, something cheaper in the shrinker's tests.
using ScenarioRunner = std::function<RunReport(const sim::Scenario&)>;

// `property` empty: the first property the original run violates (a violation of class failure
// first, then any unexpected one, then declared findings). When the original run has a failure of
// `property`, a candidate is kept only with a failure of it (a known Kafka behaviour of the same
// property does not count). Spends at most `runs_max` runs (at least 1).
ShrinkResult shrink_scenario(const sim::Scenario& scenario, const std::string& property,
                             int32_t runs_max);
ShrinkResult shrink_scenario(const sim::Scenario& scenario, const std::string& property,
                             int32_t runs_max, const ScenarioRunner& runner);

// One candidate of a pass: a description for the log and the smaller scenario.
struct ShrinkCandidate {
  std::string what;  // "drop instance 3", "halve test 0 duration_ms to 5000"
  sim::Scenario scenario;
};

// Every candidate one pass would try from `scenario`, in order, invalid ones left out. Exposed
// for tests.
std::vector<ShrinkCandidate> shrink_candidates(const sim::Scenario& scenario);

// Whether a scenario's cross references hold: instances and partitions in range, workloads'
// key counts within the scenario's. Exposed for tests.
bool shrink_candidate_valid(const sim::Scenario& scenario);

}  // namespace iq::properties
