#pragma once
// `iqsim upgrade`: what changes for a user's queries between the two pinned Kafka versions. Each
// seed of the template runs twice, with `[configuration] kafka` forced to '2024-10-25' and to
// '2026-08-20'. Every other draw is the same in both runs: the scenario parser draws each key
// from its own split of the seed (scenario_parser_reader.h), so forcing the pin moves no other
// choice, and the query clients draw a query's isolation level from a split of their own (at the
// new pin only). The explorer's machinery runs it (explore.h explore_fixed): each pin's template
// is written to DIR/configs, each seed runs in a child process whose CPU time is measured.
//
//   iqsim upgrade scenarios/templates/kafka_2026.toml --seeds 200 --jobs 2 --out upgrade/
//
// Writes DIR/index.html (reports/upgrade_report.h), a run page for each failing seed and each of
// the first seeds whose verdict changed (page_seeds), and DIR/upgrade.json. Exit 0 when no seed
// fails under either pin, 1 when one does, 2 on bad input (before any seed).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explore.h"
#include "summary.h"
#include "upgrade_report.h"

namespace iq::cli {

struct UpgradeArgs {
  std::string file;
  uint64_t seeds = 0;
  uint64_t first_seed = 1;
  int32_t jobs = 1;
  std::string out_dir;  // empty: <template stem>-upgrade in the current directory
};
int upgrade_command(const UpgradeArgs& args);

// One pin's sweep as the report reads it (exposed for the tests): the seeds of each verdict class
// and violated property, staleness and outcomes by guarantee, outcomes by isolation level, dirty
// reads, the cost per seed.
reports::UpgradePin upgrade_pin(const std::string& pin, const std::string& file,
                                const SweepSummary& summary,
                                const std::map<uint64_t, double>& cpu_ms_by_seed);

// The seeds that get a run page under each pin, at most 20: every seed that fails under either
// pin first (a failure present under both pins is no change, but it is what a user opens first),
// then the seeds whose verdict changed, ascending.
std::vector<uint64_t> page_seeds(const reports::UpgradeInput& in);

// The summary JSON: both pins' fuzz summaries and CPU times, and what the page shows (the
// changed seeds per class and property, the levels, the dirty reads, the speed).
nlohmann::json upgrade_json(const reports::UpgradeInput& in,
                            const std::vector<ConfigurationSweep>& runs);

}  // namespace iq::cli
