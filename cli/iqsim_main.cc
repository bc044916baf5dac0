// iqsim: the command line. Runs scenario files through the simulator and judges them
// (run, fuzz, explore, upgrade, replay, shrink, check-determinism), merges sweep summaries, lists
// the properties. Flags are parsed here with CLI11; each subcommand is one function in commands.cc.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <optional>
#include <string>

#include "commands.h"
#include "explore.h"
#include "input_checks.h"
#include "summary.h"
#include "upgrade.h"

namespace {

constexpr const char* kExitCodes = R"(Exit codes (run, replay, fuzz):
  0  no failure: every violation is explained by a declared Kafka behaviour (printed
     apart, e.g. "known Kafka behaviour: at-least-once reprocessing: N seeds"), or there
     is none, and every declared finding failed as declared
  1  a failure: a violation no declared Kafka behaviour explains, or a declared finding
     that held; with --strict, also any violation a known Kafka behaviour explains
  2  bad input: an unparsable scenario (file:line:col: key ...: message), a bad flag,
     an unreadable or unwritable file, an output path that is not a regular file (or
     directory) or is an input of the same command
  130  fuzz stopped by SIGINT, 143  fuzz stopped by SIGTERM: running seeds were killed, and
     the summary, JUnit and report of the seeds that finished were written, marked partial;
     `iqsim fuzz ... --resume` goes on from the journal

Numbers are decimal digits only: --seed and --first-seed 0..18446744073709551615,
--seeds 1..1000000000, --jobs 1..256, --shard I/N with 0 <= I < N <= 1000000.

A failure prints the command that reproduces it: iqsim replay FILE --seed S)";

// Bounds on numeric flags: a sweep, a shrink or a determinism check never runs unboundedly.
constexpr uint64_t kSeedsMax = 1'000'000'000;
constexpr int32_t kJobsMax = 256;
constexpr int32_t kRunsMax = 100'000;

// Numeric flags are read as text and parsed by parse_decimal after CLI11: CLI11 2.1 reads
// "-1" into a uint64_t as 2^64 - 1 and clamps 2^64, and says nothing of the accepted range.
struct Number {
  std::string text;
  CLI::Option* option = nullptr;
  bool given() const { return option != nullptr && option->count() > 0; }
};

void add_number(CLI::App* app, const char* flag, Number& n, const std::string& what) {
  n.option = app->add_option(flag, n.text, what);
}

// Parses `n` (if given) into `out`; prints the refusal and returns false on a bad value.
template <typename T>
bool parse_number(const char* flag, const Number& n, uint64_t min, uint64_t max, T& out) {
  if (!n.given()) return true;
  auto value = iq::cli::parse_decimal(flag, n.text, min, max);
  if (!value) {
    std::fprintf(stderr, "iqsim: %s\n", value.error().c_str());
    return false;
  }
  out = static_cast<T>(*value);
  return true;
}

// --seeds (required), --first-seed and --jobs: a sweep's seeds, as fuzz, explore and upgrade take
// them.
struct SeedFlags {
  Number seeds, first, jobs;
};

void add_seed_flags(CLI::App* app, SeedFlags& f, const std::string& seeds_what) {
  add_number(app, "--seeds", f.seeds, seeds_what + ", 1..1000000000");
  f.seeds.option->required();
  add_number(app, "--first-seed", f.first, "The first seed, 0..2^64-1 (default 1)");
  add_number(app, "--jobs", f.jobs, "Seeds run in parallel, 1..256 (default 1)");
}

// Into args.seeds, args.first_seed and args.jobs; false (the refusal printed) on a bad value.
template <typename Args>
bool parse_seed_flags(const SeedFlags& f, Args& args) {
  return parse_number("--seeds", f.seeds, 1, kSeedsMax, args.seeds) &&
         parse_number("--first-seed", f.first, 0, UINT64_MAX, args.first_seed) &&
         parse_number("--jobs", f.jobs, 1, kJobsMax, args.jobs);
}

bool parse_seed(const Number& n, std::optional<uint64_t>& out) {
  uint64_t seed = 0;
  if (!parse_number("--seed", n, 0, UINT64_MAX, seed)) return false;
  if (n.given()) out = seed;
  return true;
}

// The first word names a subcommand; CLI11 would answer an unknown one with "A subcommand is
// required", naming neither the word nor the commands.
bool known_subcommand(const CLI::App& app, int argc, char** argv, std::string& commands) {
  if (argc < 2 || argv[1][0] == '-') return true;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_group().empty()) continue;  // hidden (run-seed)
    commands += (commands.empty() ? "" : ", ") + sub->get_name();
    known = known || sub->get_name() == argv[1];
  }
  return known || std::string(argv[1]) == "run-seed";
}

// The first word that looks like a flag (after the subcommand) and is no option of it or of
// iqsim, when CLI11 reports something else first: it says "--seed is required" for
// `replay F --sed 5` and "A subcommand is required" for `iqsim --frobnicate`, naming neither the
// word the user got wrong nor what is accepted. A word after an option that takes a value is
// that value (`--seed -1`), not a flag.
std::optional<std::string> unknown_flag(CLI::App& app, int argc, char** argv) {
  CLI::App* sub = nullptr;
  int first = 1;
  if (argc > 1 && argv[1][0] != '-') {
    for (CLI::App* s : app.get_subcommands({})) {
      if (s->get_name() == argv[1]) sub = s;
    }
    first = 2;
  }
  bool value_next = false;
  for (int i = first; i < argc; ++i) {
    const std::string word = argv[i];
    if (value_next) {
      value_next = false;
      continue;
    }
    if (word == "--") break;
    if (word.size() < 2 || word[0] != '-') continue;
    const std::string name = word.substr(0, word.find('='));
    const CLI::Option* option = sub != nullptr ? sub->get_option_no_throw(name) : nullptr;
    if (option == nullptr) option = app.get_option_no_throw(name);
    if (option == nullptr) {
      std::string flags;
      for (const CLI::Option* o : (sub != nullptr ? sub : &app)->get_options()) {
        if (o->get_lnames().empty()) continue;
        flags += (flags.empty() ? "" : ", ") + std::string("--") + o->get_lnames().front();
      }
      return "'" + iq::cli::shown(name) + "' is not a flag of " +
             (sub != nullptr ? "'iqsim " + sub->get_name() + "'" : std::string("iqsim")) +
             "; the flags are: " + flags;
    }
    value_next = word.find('=') == std::string::npos && option->get_items_expected_min() > 0;
  }
  return std::nullopt;
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
  Number run_seed_flag;
  add_number(run_app, "--seed", run_seed_flag,
             "Seed for the file's choices and the world, 0..2^64-1 (default: the file's)");
  run_app->add_option("--json", run.json_out, "Write a JSON summary here");
  run_app->add_option("--junit", run.junit_out, "Write a JUnit XML report here");
  run_app->add_option("--report", run.report_dir, "Write an HTML report into this directory");
  run_app->add_flag("--strict", run.strict,
                    "Exit 1 on violations a known Kafka behaviour explains, too");
  run_app->add_flag("--check-determinism", run.check_determinism,
                    "Run twice and compare trace digests");

  FuzzArgs fuzz;
  CLI::App* fuzz_app = app.add_subcommand("fuzz", "Run a sweep of seeds over one scenario file");
  fuzz_app->add_option("file", fuzz.file, "Scenario file (TOML), usually a template")->required();
  SeedFlags fuzz_flags;
  add_seed_flags(fuzz_app, fuzz_flags, "How many seeds");
  fuzz_app->add_option("--shard", fuzz.shard,
                       "I/N: run only the seeds whose index mod N is I (default 0/1)");
  fuzz_app->add_option("--json", fuzz.json_out, "Write a JSON summary here (iqsim merge reads it)");
  fuzz_app->add_option("--junit", fuzz.junit_out, "Write a JUnit XML report here");
  fuzz_app->add_flag("--strict", fuzz.strict,
                     "Exit 1 on violations a known Kafka behaviour explains, too");
  fuzz_app->add_flag("--stop-on-failure", fuzz.stop_on_failure,
                     "Stop at the first failing seed (in seed order)");
  fuzz_app->add_option("--failures-dir", fuzz.failures_dir,
                       "Write each failing seed's concrete scenario here as NAME-seedS.toml");
  fuzz_app->add_option("--report", fuzz.report_dir,
                       "Write an HTML sweep report (index.html) and failing seeds' pages here");
  fuzz_app->add_option("--journal", fuzz.journal,
                       "Append each finished seed's result here as a JSON line (default: "
                       "JSON.journal when --json is given)");
  fuzz_app->add_flag("--resume", fuzz.resume,
                     "Skip the seeds the journal holds (same file, seeds, shard and options) and "
                     "write the summary an uninterrupted sweep would have");
  fuzz_app->add_flag("--in-process", fuzz.in_process,
                     "Run seeds on threads of this process instead of one child process each "
                     "(faster; a seed that aborts then ends the sweep)");

  ExploreArgs explore;
  CLI::App* explore_app = app.add_subcommand(
      "explore", "Run the same seeds under every point of a grid of settings and compare them");
  explore_app->add_option("file", explore.file, "Template (TOML)")->required();
  explore_app->add_option("--grid", explore.grid,
                          "KEY=V1,V2,...: a template key and its values (repeat for more keys; "
                          "default: the template's [explore] grid)");
  SeedFlags explore_flags;
  add_seed_flags(explore_app, explore_flags, "Seeds per configuration");
  explore_app->add_option("--shard", explore.shard,
                          "I/N: run only the seeds whose index mod N is I (default 0/1)");
  explore_app->add_option("--json", explore.json_out,
                          "Write the JSON summary here (iqsim merge joins shards)");
  explore_app->add_option("--report", explore.report_dir,
                          "Write the HTML report (index.html) into this directory");
  explore_app->add_option("--configs", explore.configs_dir,
                          "Write each configuration's template here (default NAME-explore)");
  explore_app->add_option("--journal", explore.journal,
                          "Append each finished seed here (default: JSON.journal with --json)");
  explore_app->add_flag("--resume", explore.resume, "Skip the seeds the journal holds");

  UpgradeArgs upgrade;
  CLI::App* upgrade_app = app.add_subcommand("upgrade",
                                             "Run the same seeds under both pinned Kafka versions "
                                             "and report what changes (cli/README.md)");
  upgrade_app->add_option("file", upgrade.file, "Template (TOML)")->required();
  SeedFlags upgrade_flags;
  add_seed_flags(upgrade_app, upgrade_flags, "Seeds, each run at both pins");
  upgrade_app->add_option("--out", upgrade.out_dir,
                          "Write index.html, upgrade.json, the run pages and configs/ here "
                          "(default NAME-upgrade)");

  // One seed in a child process of `fuzz` (not for people: no help entry).
  std::string run_seed_file, run_seed_failures;
  uint64_t run_seed_seed = 0;
  int64_t run_seed_parent = 0;
  CLI::App* run_seed_app = app.add_subcommand("run-seed", "");
  run_seed_app->group("");
  run_seed_app->add_option("file", run_seed_file)->required();
  run_seed_app->add_option("--seed", run_seed_seed)->required();
  run_seed_app->add_option("--failures-dir", run_seed_failures);
  run_seed_app->add_option("--parent-pid", run_seed_parent);

  std::string replay_file;
  uint64_t replay_seed = 0;
  Number replay_seed_flag;
  CLI::App* replay_app =
      app.add_subcommand("replay", "Run one seed again and print every violation in full");
  replay_app->add_option("file", replay_file, "Scenario file (TOML)")->required();
  add_number(replay_app, "--seed", replay_seed_flag, "The seed, 0..2^64-1");
  replay_seed_flag.option->required();
  std::string replay_report;
  replay_app->add_option("--report", replay_report, "Write an HTML report into this directory");
  bool replay_strict = false;
  replay_app->add_flag("--strict", replay_strict,
                       "Exit 1 on violations a known Kafka behaviour explains, too");

  ShrinkArgs shrink;
  CLI::App* shrink_app = app.add_subcommand(
      "shrink", "Shrink a failing seed to a minimal scenario file that still fails");
  shrink_app->add_option("file", shrink.file, "Scenario file (TOML)")->required();
  Number shrink_seed_flag, shrink_runs_flag;
  add_number(shrink_app, "--seed", shrink_seed_flag, "The failing seed, 0..2^64-1");
  shrink_seed_flag.option->required();
  shrink_app->add_option("--property", shrink.property,
                         "The property to keep violating (default: the first violated)");
  shrink_app->add_option("--out", shrink.out,
                         "Where to write the minimal scenario (default NAME-seedS-min.toml)");
  add_number(shrink_app, "--runs-max", shrink_runs_flag,
             "Simulator runs at most, 1..100000 (default 200)");
  shrink_app->add_option("--report", shrink.report_dir,
                         "Write an HTML report of the minimal scenario's run into this directory");

  std::string determinism_file;
  std::optional<uint64_t> determinism_seed;
  int32_t determinism_runs = 3;
  CLI::App* determinism_app = app.add_subcommand(
      "check-determinism", "Run one seed several times and compare the trace digests");
  determinism_app->add_option("file", determinism_file, "Scenario file (TOML)")->required();
  Number determinism_seed_flag, determinism_runs_flag;
  add_number(determinism_app, "--seed", determinism_seed_flag,
             "The seed, 0..2^64-1 (default: the file's)");
  add_number(determinism_app, "--runs", determinism_runs_flag, "How many runs, 2..100 (default 3)");

  std::string merge_out;
  std::vector<std::string> merge_inputs;
  CLI::App* merge_app =
      app.add_subcommand("merge", "Merge the JSON summaries of a sweep's shards into one");
  merge_app->add_option("out", merge_out, "The merged JSON summary to write")->required();
  merge_app->add_option("inputs", merge_inputs, "The shards' JSON summaries")->required();
  bool merge_allow_gaps = false;
  merge_app->add_flag("--allow-gaps", merge_allow_gaps,
                      "Merge even if seeds of the merged range are in no input");
  std::string merge_report;
  merge_app->add_option("--report", merge_report,
                        "Also write the merged sweep's report here (failing seeds' pages rebuilt "
                        "from their seeds)");

  CLI::App* list_app = app.add_subcommand("list-properties", "List every property iqsim checks");
  CLI::App* list_probes_app =
      app.add_subcommand("list-probes", "List every coverage probe, one line each");

  CLI::App* findings_app = app.add_subcommand(
      "findings", "Explain each known Kafka behaviour a run can meet (the findings catalogue)");
  bool findings_json = false;
  findings_app->add_flag("--json", findings_json, "Print the catalogue as JSON");
  std::string findings_key;
  findings_app->add_option("class", findings_key,
                           "Only this class key (e.g. alos_reprocessing; default: all)");

  std::string commands;
  if (!known_subcommand(app, argc, argv, commands)) {
    std::fprintf(stderr, "iqsim: '%s' is not a command; the commands are: %s\n",
                 shown(argv[1]).c_str(), commands.c_str());
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" that exit 0; everything else is bad input, printed
    // here so that a long value CLI11 echoes is cut like every other message.
    if (e.get_exit_code() == 0) return app.exit(e);
    if (std::optional<std::string> unknown = unknown_flag(app, argc, argv)) {
      std::fprintf(stderr, "iqsim: %s\nRun with --help for more information.\n", unknown->c_str());
      return kExitBadInput;
    }
    std::fprintf(stderr, "iqsim: %s\nRun with --help for more information.\n",
                 shown(e.what()).c_str());
    return kExitBadInput;
  }

  if (run_app->parsed()) {
    if (!parse_seed(run_seed_flag, run.seed)) return kExitBadInput;
    return run_command(run);
  }
  if (fuzz_app->parsed()) {
    if (!parse_seed_flags(fuzz_flags, fuzz)) return kExitBadInput;
    return fuzz_command(fuzz);
  }
  if (explore_app->parsed()) {
    if (!parse_seed_flags(explore_flags, explore)) return kExitBadInput;
    return explore_command(explore);
  }
  if (upgrade_app->parsed()) {
    if (!parse_seed_flags(upgrade_flags, upgrade)) return kExitBadInput;
    return upgrade_command(upgrade);
  }
  if (run_seed_app->parsed()) {
    return run_seed_command(run_seed_file, run_seed_seed, run_seed_failures, run_seed_parent);
  }
  if (replay_app->parsed()) {
    if (!parse_number("--seed", replay_seed_flag, 0, UINT64_MAX, replay_seed)) return kExitBadInput;
    return replay_command(replay_file, replay_seed, replay_report, replay_strict);
  }
  if (shrink_app->parsed()) {
    if (!parse_number("--seed", shrink_seed_flag, 0, UINT64_MAX, shrink.seed) ||
        !parse_number("--runs-max", shrink_runs_flag, 1, kRunsMax, shrink.runs_max)) {
      return kExitBadInput;
    }
    return shrink_command(shrink);
  }
  if (determinism_app->parsed()) {
    if (!parse_seed(determinism_seed_flag, determinism_seed) ||
        !parse_number("--runs", determinism_runs_flag, 2, 100, determinism_runs)) {
      return kExitBadInput;
    }
    return check_determinism_command(determinism_file, determinism_seed, determinism_runs);
  }
  if (merge_app->parsed())
    return merge_command(merge_out, merge_inputs, merge_allow_gaps, merge_report);
  if (list_app->parsed()) return list_properties_command();
  if (list_probes_app->parsed()) return list_probes_command();
  if (findings_app->parsed()) return findings_command(findings_json, findings_key);
  return kExitBadInput;
}
