#pragma once
// `iqsim explore`: the configuration explorer. A Kafka Streams user choosing settings for serving
// queries asks which answers the queries get under failures with 0, 1 or 2 standbys, under
// at-least-once or exactly-once, with caching on or off: the explorer runs the same seeds of one
// template under every point of a grid of such settings and compares them side by side.
//
//   iqsim explore scenarios/templates/default.toml --seeds 50 --jobs 2 --report out/
//       --grid num.standby.replicas=0,1,2
//       --grid processing.guarantee=at_least_once,exactly_once_v2
//
// A grid key names a key of the template (`streams_config.num.standby.replicas`, or the bare
// `num.standby.replicas` when one section has it; `test.0.workload.1.clients` inside a block) and
// replaces its value or seeded choice for that configuration, also inside the template's
// [[alternative]] tables; every other choice draws as before, so configuration k of seed S differs
// from the others only by the grid. Each configuration is written as a template of its own
// (`--configs DIR`), so each seed reproduces with `iqsim replay THAT_FILE --seed S`. The grid may
// instead be a section of the template: `[explore] grid = { 'num.standby.replicas' = [0, 1, 2] }`.
//
// Seeds run in child processes as fuzz's do (`iqsim run-seed`), whose CPU time (wait4) is the
// cost. `--shard I/N` splits every configuration's seeds as fuzz splits a sweep, `iqsim merge`
// joins explorer shards, and `--json OUT` (journal OUT.journal) or `--journal J` with `--resume`
// goes on after an interruption.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/expected.h"
#include "explore_report.h"
#include "summary.h"

namespace iq::cli {

struct ExploreArgs {
  std::string file;
  std::vector<std::string> grid;  // "KEY=V1,V2,..." each; empty: the template's [explore] grid
  uint64_t seeds = 0;
  uint64_t first_seed = 1;
  int32_t jobs = 1;
  std::string shard = "0/1";
  std::string json_out;
  std::string report_dir;   // DIR/index.html
  std::string configs_dir;  // empty: <template stem>-explore in the current directory
  std::string journal;
  bool resume = false;
};
int explore_command(const ExploreArgs& args);

// The grid an exploration runs, read and resolved as explore_command does before any seed
// (exposed for its tests): `flags` (KEY=V1,V2,... each) or, when there are none, the template's
// [explore] grid. Each axis as "PLACE=V1,V2" (PLACE: the template key it sets, dotted from the
// root), or the refusal: it names the flag, or the template's file:line and key.
base::Expected<std::vector<std::string>, std::string> resolve_grid(
    const std::string& file, const std::string& template_text,
    const std::vector<std::string>& flags);

// The explorer's machinery for a command that compares fixed settings of one template (`iqsim
// upgrade` compares the two Kafka pins): one key laid over the template with each value in turn
// (each configuration written to `configs_dir` as the explorer writes its own), and the same
// seeds run under each, in child processes on `jobs` threads, with their CPU time.
struct FixedGridArgs {
  std::string file{};   // the template
  std::string place{};  // the key, dotted from the root ("configuration.kafka"); set even if absent
  std::vector<std::string> values{};  // TOML text each ("'2024-10-25'")
  std::string origin{};               // names the setting in messages
  std::string command{};              // "upgrade": names the command in each template's header
  // Set alike in every configuration (place, TOML text), before the axis.
  std::vector<std::pair<std::string, std::string>> also_set{};
  uint64_t first_seed = 1;
  uint64_t seed_count = 0;
  std::vector<uint64_t> seeds{};  // not empty
  int32_t jobs = 1;
  std::string configs_dir{};
};
struct ConfigurationSweep {
  std::string name{};  // "kafka='2024-10-25'"
  std::string file{};  // its template, as written
  SweepSummary summary{};
  std::map<uint64_t, double> cpu_ms_by_seed{};  // the child's user + system CPU ms
};
struct FixedExploration {
  std::string title{};                               // the template's
  reports::ExploreInput report{};                    // what the explorer's page would show
  std::vector<ConfigurationSweep> configurations{};  // in the order of `values`
};
// The template's refusal (parser message), a value it does not take, or a seed that could not run.
base::Expected<FixedExploration, std::string> explore_fixed(const FixedGridArgs& args);

// merge of explorer summaries (`iqsim merge` calls it when its first input is one).
bool is_explore_summary(const nlohmann::json& json);
int explore_merge_command(const std::string& out, const std::vector<std::string>& inputs,
                          bool allow_gaps, const std::string& report_dir);

}  // namespace iq::cli
