#pragma once
// to_toml: a concrete Scenario written back as a scenario file, every setting explicit and no
// seeded choice left, so that
//
//   parse_scenario_text(to_toml(s), "out.toml", std::nullopt) == s
//
// apart from where it was read from (Scenario::file and each QueryStep::where name the new file
// and its lines; without_locations() clears both for comparing). This is how `iqsim shrink` and
// the cluster-level RapidCheck suite hand a minimal counterexample back as a file.
//
// What a file cannot say, and so what a Scenario handed to the writer must not hold (each is
// asserted, as a programmer error, except the last two, which are left out):
//   - odds other than "1 in N" (Ratio{1, N}) or "never" (Ratio{0, 1});
//   - cluster.seed different from seed (the parser sets one from the other);
//   - StreamsConfig::application_server and state_dir (every instance sets its own);
//   - a RunUntilStep that runs for a time (not to quiescence) with an ms_max other than 60'000.

#include <string>

#include "scenario/scenario.h"

namespace iq::sim {

std::string to_toml(const Scenario& scenario);

// The scenario with `file` and every QueryStep::where cleared.
Scenario without_locations(Scenario scenario);

}  // namespace iq::sim
