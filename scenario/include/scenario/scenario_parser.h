#pragma once
// parse_scenario_text / parse_scenario_file: a scenario file (TOML; scenarios/README.md documents
// every key, its type, its default and its meaning) plus a seed -> a validated, concrete Scenario.
//
//   auto scenario = parse_scenario_file("scenarios/fast/count_crash.toml", /*seed=*/17);
//   if (!scenario) {
//     std::cerr << scenario.error().to_string() << "\n";
//     // scenarios/fast/count_crash.toml:12:5: key 'test.0.workload.1.clients': must be >= 1 (got
//     0)
//   }
//
// Seeded choices: wherever a value is allowed, `{ one_of = [a, b, ...] }` picks one alternative and
// `{ range = [lo, hi] }` an integer in [lo, hi] (both included). Each is drawn from
// base::Prng(seed).split(<key path>), so a choice depends only on the seed and where it stands in
// the file: the same seed always gives the same Scenario, and adding a key elsewhere changes no
// other choice. Every alternative is validated whatever the seed draws (a range by its two ends),
// so a file that parses with one seed parses with every seed; ordering checks between two keys
// (stop_ms >= start_ms, ...) hold for every combination of their alternatives.
//
// Every problem is a ScenarioError value naming the file, line, column and key path: TOML syntax,
// unknown keys (anywhere, inline tables included), wrong types, impossible values, unknown names.
// Nothing throws out of these functions.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/expected.h"
#include "scenario/scenario.h"

namespace iq::sim {

struct ScenarioError {
  std::string file;
  int32_t line = 0;    // 1-based; 0 when the error is about the file as a whole (unreadable)
  int32_t column = 0;  // 1-based; 0 when unknown
  std::string key;     // key path, "test.0.workload.1.clients"; empty for TOML syntax errors
  std::string message;

  // "scenarios/x.toml:12:5: key 'test.0.workload.1.clients': must be >= 1 (got 0)"
  std::string to_string() const;
};

// `file` names the text in errors and in Scenario::file and QueryStep::where. `seed` absent: the
// file's top-level `seed`, else 1.
base::Expected<Scenario, ScenarioError> parse_scenario_text(std::string_view text,
                                                            const std::string& file,
                                                            std::optional<uint64_t> seed);

// Reads `path` (at most 16 MiB) and parses it; an unreadable file is an error with line 0.
base::Expected<Scenario, ScenarioError> parse_scenario_file(const std::string& path,
                                                            std::optional<uint64_t> seed);

}  // namespace iq::sim
