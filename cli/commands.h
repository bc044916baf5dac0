#pragma once
// The iqsim subcommands, one function each, called by iqsim_main.cc once CLI11 has parsed the
// flags. Each returns the process exit code (kExitPassed, kExitFailed, kExitBadInput) and prints
// what the user needs: results on stdout, progress and errors on stderr.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"

namespace iq::cli {

// No failure: every violation (if any) is explained by a declared Kafka behaviour
// (properties::ViolationClass), and every declared finding failed as declared.
inline constexpr int kExitPassed = 0;
// A failure: a violation no declared Kafka behaviour explains, or a declared finding that held;
// with --strict, any violation at all.
inline constexpr int kExitFailed = 1;
// Bad input: an unparsable scenario, a bad flag, an unreadable or unwritable file, an output
// path that is not a regular file (or directory) or is an input of the same command.
inline constexpr int kExitBadInput = 2;
// `fuzz` stopped by SIGINT / SIGTERM (128 + the signal, as a shell reports it): the summaries of
// the seeds that finished were written, marked partial.
inline constexpr int kExitInterrupted = 130;
inline constexpr int kExitTerminated = 143;

struct RunArgs {
  std::string file;
  std::optional<uint64_t> seed;
  std::string json_out;
  std::string junit_out;
  bool check_determinism = false;
  std::string report_dir;  // --report DIR: write an HTML report there
  bool strict = false;     // --strict: known Kafka behaviours fail the run too
};
int run_command(const RunArgs& args);

struct FuzzArgs {
  std::string file;
  uint64_t seeds = 0;
  uint64_t first_seed = 1;
  int32_t jobs = 1;
  std::string shard = "0/1";
  std::string json_out;
  std::string junit_out;
  bool stop_on_failure = false;
  bool strict = false;  // --strict: a seed with a known Kafka behaviour fails the sweep too
  std::string failures_dir;
  std::string report_dir;  // --report DIR: index.html plus one page per failing seed
  // Each finished seed's result as a JSON line (after a header line naming the sweep), flushed
  // and fsynced per line. Empty: JSON_OUT.journal when --json is given, else no journal.
  std::string journal;
  bool resume = false;  // skip the seeds the journal holds
  // Run every seed in this process (threads) rather than in a child process per seed. Faster
  // by the cost of a process start, but a seed that aborts ends the whole sweep.
  bool in_process = false;
};
int fuzz_command(const FuzzArgs& args);

// The hidden `iqsim run-seed FILE --seed S [--failures-dir D]`: one seed of a sweep, run in the
// child process fuzz spawns; prints a one-run JSON summary on stdout. With `parent_pid` (not 0)
// it dies with that parent (PR_SET_PDEATHSIG), and exits at once if the parent is already gone.
int run_seed_command(const std::string& file, uint64_t seed, const std::string& failures_dir,
                     int64_t parent_pid = 0);

int replay_command(const std::string& file, uint64_t seed, const std::string& report_dir = "",
                   bool strict = false);

struct ShrinkArgs {
  std::string file;
  uint64_t seed = 0;
  std::string property;  // empty: the first violated one
  std::string out;       // empty: <stem>-seed<S>-min.toml in the current directory
  int32_t runs_max = 200;
  std::string report_dir;  // --report DIR: the report of the minimal scenario's run
};
int shrink_command(const ShrinkArgs& args);

int check_determinism_command(const std::string& file, std::optional<uint64_t> seed, int32_t runs);

// report_dir (--report DIR): also write the sweep report of the merged summary, rebuilding each
// failing seed's page from the scenario file the shards name.
int merge_command(const std::string& out, const std::vector<std::string>& inputs,
                  bool allow_gaps = false, const std::string& report_dir = "");
// `iqsim list-probes`: every coverage probe of the binary, "name  description", sorted by name.
int list_probes_command();

int list_properties_command();

// `iqsim findings [--json] [CLASS]`: the findings catalogue (reports/findings_catalogue.h), one
// entry per declared Kafka behaviour (properties::kViolationClasses but kFailure): what a caller
// sees, the Kafka source, the conditions, the minimal scenario, what to do. An unknown CLASS is
// bad input and names the keys.
int findings_command(bool json, const std::string& only_key = "");

// Shared with explore.cc: a message on stderr ("iqsim: ..."), cut as every message is; a whole
// file written (temporary, fsync, rename) or a message naming `flag`; a scenario file's digest.
void print_error(const std::string& message);
bool write_output_file(const std::string& path, const std::string& text, const std::string& flag);
base::Expected<std::string, std::string> scenario_file_digest(const std::string& file);
// Runs `seed` of `file` again with its trace kept and writes its run page into `dir` as
// `<stem>-seed<S>.html` (the page a sweep report links): the page's name, or why not.
base::Expected<std::string, std::string> write_run_page(const std::string& file, uint64_t seed,
                                                        const std::string& dir);

}  // namespace iq::cli
