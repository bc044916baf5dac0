// iqsim: the command line. Runs scenario files through the simulator and judges them
// (run, fuzz, replay, shrink, check-determinism), merges sweep summaries, lists the properties.
// Flags are parsed here with CLI11; each subcommand is one function in commands.cc.

#include <CLI/CLI.hpp>

#include "commands.h"
#include "summary.h"

namespace {

constexpr const char* kExitCodes = R"(Exit codes:
  0  every property held (and every declared finding failed as declared)
  1  a property failed: a violation, or a declared finding that held
  2  bad input: an unparsable scenario (file:line:col: key ...: message), a bad flag,
     an unreadable or unwritable file

A failure prints the command that reproduces it: iqsim replay FILE --seed S)";

// Bounds on numeric flags: a sweep, a shrink or a determinism check never runs unboundedly.
constexpr uint64_t kSeedsMax = 1'000'000'000;
constexpr int32_t kJobsMax = 256;
constexpr int32_t kRunsMax = 100'000;

void add_seed(CLI::App* app, std::optional<uint64_t>& seed, const char* what) {
  // CLI11 2.1 has no std::optional option type; a callback fills it.
  app->add_option_function<uint64_t>(
      "--seed", [&seed](const uint64_t& s) { seed = s; }, what);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace iq::cli;
  CLI::App app{
      "iqsim: deterministic simulation and property testing of Kafka Streams Interactive "
      "Queries v2 consistency."};
  app.footer(kExitCodes);
  app.require_subcommand(1, 1);
  app.set_version_flag("--version", std::string("iqsim ") + kToolVersion);

  RunArgs run;
  CLI::App* run_app = app.add_subcommand("run", "Run one scenario file and judge it");
  run_app->add_option("file", run.file, "Scenario file (TOML)")->required();
  add_seed(run_app, run.seed, "Seed for the file's choices and the world (default: the file's)");
  run_app->add_option("--json", run.json_out, "Write a JSON summary here");
  run_app->add_option("--junit", run.junit_out, "Write a JUnit XML report here");
  run_app->add_option("--report", run.report_dir, "Write an HTML report into this directory");
  run_app->add_flag("--check-determinism", run.check_determinism,
                    "Run twice and compare trace digests");

  FuzzArgs fuzz;
  CLI::App* fuzz_app = app.add_subcommand("fuzz", "Run a sweep of seeds over one scenario file");
  fuzz_app->add_option("file", fuzz.file, "Scenario file (TOML), usually a template")->required();
  fuzz_app->add_option("--seeds", fuzz.seeds, "How many seeds")
      ->required()
      ->check(CLI::Range(uint64_t{1}, kSeedsMax));
  fuzz_app->add_option("--first-seed", fuzz.first_seed, "The first seed (default 1)");
  fuzz_app->add_option("--jobs", fuzz.jobs, "Seeds run in parallel (default 1)")
      ->check(CLI::Range(1, kJobsMax));
  fuzz_app->add_option("--shard", fuzz.shard,
                       "I/N: run only the seeds whose index mod N is I (default 0/1)");
  fuzz_app->add_option("--json", fuzz.json_out, "Write a JSON summary here (iqsim merge reads it)");
  fuzz_app->add_option("--junit", fuzz.junit_out, "Write a JUnit XML report here");
  fuzz_app->add_flag("--stop-on-failure", fuzz.stop_on_failure,
                     "Stop at the first failing seed (in seed order)");
  fuzz_app->add_option("--failures-dir", fuzz.failures_dir,
                       "Write each failing seed's concrete scenario here as NAME-seedS.toml");
  fuzz_app->add_option("--report", fuzz.report_dir,
                       "Write an HTML sweep report (index.html) and failing seeds' pages here");
  fuzz_app->add_flag("--in-process", fuzz.in_process,
                     "Run seeds on threads of this process instead of one child process each "
                     "(faster; a seed that aborts then ends the sweep)");

  // One seed in a child process of `fuzz` (not for people: no help entry).
  std::string run_seed_file, run_seed_failures;
  uint64_t run_seed_seed = 0;
  CLI::App* run_seed_app = app.add_subcommand("run-seed", "");
  run_seed_app->group("");
  run_seed_app->add_option("file", run_seed_file)->required();
  run_seed_app->add_option("--seed", run_seed_seed)->required();
  run_seed_app->add_option("--failures-dir", run_seed_failures);

  std::string replay_file;
  uint64_t replay_seed = 0;
  CLI::App* replay_app =
      app.add_subcommand("replay", "Run one seed again and print every violation in full");
  replay_app->add_option("file", replay_file, "Scenario file (TOML)")->required();
  replay_app->add_option("--seed", replay_seed, "The seed")->required();
  std::string replay_report;
  replay_app->add_option("--report", replay_report, "Write an HTML report into this directory");

  ShrinkArgs shrink;
  CLI::App* shrink_app = app.add_subcommand(
      "shrink", "Shrink a failing seed to a minimal scenario file that still fails");
  shrink_app->add_option("file", shrink.file, "Scenario file (TOML)")->required();
  shrink_app->add_option("--seed", shrink.seed, "The failing seed")->required();
  shrink_app->add_option("--property", shrink.property,
                         "The property to keep violating (default: the first violated)");
  shrink_app->add_option("--out", shrink.out,
                         "Where to write the minimal scenario (default NAME-seedS-min.toml)");
  shrink_app->add_option("--runs-max", shrink.runs_max, "Simulator runs at most (default 200)")
      ->check(CLI::Range(1, kRunsMax));
  shrink_app->add_option("--report", shrink.report_dir,
                         "Write an HTML report of the minimal scenario's run into this directory");

  std::string determinism_file;
  std::optional<uint64_t> determinism_seed;
  int32_t determinism_runs = 3;
  CLI::App* determinism_app = app.add_subcommand(
      "check-determinism", "Run one seed several times and compare the trace digests");
  determinism_app->add_option("file", determinism_file, "Scenario file (TOML)")->required();
  add_seed(determinism_app, determinism_seed, "The seed (default: the file's)");
  determinism_app->add_option("--runs", determinism_runs, "How many runs (default 3)")
      ->check(CLI::Range(2, 100));

  std::string merge_out;
  std::vector<std::string> merge_inputs;
  CLI::App* merge_app =
      app.add_subcommand("merge", "Merge the JSON summaries of a sweep's shards into one");
  merge_app->add_option("out", merge_out, "The merged JSON summary to write")->required();
  merge_app->add_option("inputs", merge_inputs, "The shards' JSON summaries")->required();

  CLI::App* list_app = app.add_subcommand("list-properties", "List every property iqsim checks");
  CLI::App* list_probes_app =
      app.add_subcommand("list-probes", "List every coverage probe, one line each");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" that exit 0; everything else is bad input.
    int code = app.exit(e);
    return code == 0 ? kExitPassed : kExitBadInput;
  }

  if (run_app->parsed()) return run_command(run);
  if (fuzz_app->parsed()) return fuzz_command(fuzz);
  if (run_seed_app->parsed()) {
    return run_seed_command(run_seed_file, run_seed_seed, run_seed_failures);
  }
  if (replay_app->parsed()) return replay_command(replay_file, replay_seed, replay_report);
  if (shrink_app->parsed()) return shrink_command(shrink);
  if (determinism_app->parsed()) {
    return check_determinism_command(determinism_file, determinism_seed, determinism_runs);
  }
  if (merge_app->parsed()) return merge_command(merge_out, merge_inputs);
  if (list_app->parsed()) return list_properties_command();
  if (list_probes_app->parsed()) return list_probes_command();
  return kExitBadInput;
}
