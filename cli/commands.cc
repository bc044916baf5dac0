#include "commands.h"
#include "base/probe.h"
#include "explore.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/digest.h"
#include "checks/check.h"
#include "child_process.h"
#include "findings_catalogue.h"
#include "html_report.h"
#include "input_checks.h"
#include "journal.h"
#include "runner.h"
#include "scenario/scenario_driver.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_writer.h"
#include "shrink.h"
#include "summary.h"
#include "sweep.h"

namespace iq::cli {

namespace {

// Violations printed by `run` (replay prints every one in full).
constexpr size_t kViolationsPrintedMax = 20;
// Summary JSON files `merge` reads are at most this large.
constexpr std::uintmax_t kSummaryBytesMax = 256ull << 20;

// Every message goes out through here; the values in it were cut by shown() where echoed, and
// the whole line is cut again so that nothing unbounded reaches a terminal.
void error(const std::string& message) {
  std::fprintf(stderr, "iqsim: %s\n", shown(message, 4 * kShownBytesMax).c_str());
}

base::Expected<sim::Scenario, std::string> load(const std::string& file,
                                                std::optional<uint64_t> seed) {
  auto scenario = sim::parse_scenario_file(file, seed);
  if (!scenario) return base::unexpected(scenario.error().to_string());
  return std::move(scenario).value();
}

// The scenario of a one-file command, read only once its outputs are acceptable (none the input,
// a device, a symlink, the wrong kind): a refusal names the flag, else the parser's message.
base::Expected<sim::Scenario, std::string> load_with_outputs(const std::vector<OutputPath>& outputs,
                                                             const std::string& file,
                                                             std::optional<uint64_t> seed) {
  if (auto refused = check_outputs(outputs, {file})) return base::unexpected(*refused);
  return load(file, seed);
}

// Writes the whole file or reports why not; an existing file is replaced only once the new text
// is complete (written beside it, synced, then renamed), so a failed write never loses the old
// one. The target must be absent or a regular file (checked again here for files written into an
// output directory); the temporary is created afresh (O_EXCL, O_NOFOLLOW), never followed.
bool write_text(const std::string& path, const std::string& text,
                const std::string& flag = "output") {
  if (auto refused = check_outputs({{flag, path, OutputKind::kFile}}, {})) {
    error(*refused);
    return false;
  }
  std::string temporary = path + ".tmp" + std::to_string(getpid());
  int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    error("cannot write " + shown(temporary) + ": " + std::strerror(errno));
    return false;
  }
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  bool ok = written == text.size() && fsync(fd) == 0;
  ok = close(fd) == 0 && ok;
  if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
    error("cannot write " + shown(path) + ": " + std::strerror(errno));
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

std::string counts_text(const std::map<std::string, uint64_t>& counts) {
  if (counts.empty()) return "none";
  std::string out;
  for (const auto& [property, n] : counts) {
    out += (out.empty() ? "" : ", ") + property + " " + std::to_string(n);
  }
  return out;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

void print_report_header(const std::string& command, const properties::RunReport& r) {
  std::printf("iqsim %s %s ('%s'), seed %llu\n", command.c_str(), r.scenario.c_str(),
              r.title.c_str(), static_cast<unsigned long long>(r.seed));
  std::printf("  properties checked: %s\n", join(r.properties_checked).c_str());
  std::printf("  kafka %s\n", r.kafka_pin.c_str());
  std::printf("  queries judged: %llu of %llu; virtual time %lld ms; %llu events; digest %s\n",
              static_cast<unsigned long long>(r.queries_judged),
              static_cast<unsigned long long>(r.queries_total),
              static_cast<long long>(r.virtual_ms), static_cast<unsigned long long>(r.events),
              r.digest.c_str());
  // A client that failed (KafkaStreams ERROR) says why; the first few, then how many more.
  constexpr size_t kInstanceErrorsShown = 8;
  for (size_t i = 0; i < r.instance_errors.size() && i < kInstanceErrorsShown; ++i) {
    std::printf("  instance error: %s\n", r.instance_errors[i].c_str());
  }
  if (r.instance_errors.size() > kInstanceErrorsShown) {
    std::printf("  instance errors: %zu more\n", r.instance_errors.size() - kInstanceErrorsShown);
  }
  if (r.records_reprocessed > 0) {
    std::printf("  at-least-once reprocessing: %llu input records processed again\n",
                static_cast<unsigned long long>(r.records_reprocessed));
  }
  if (const auto dirty = properties::dirty_read_counts(r.dirty_reads); !dirty.empty()) {
    std::printf("  exactly_once_v2 dirty reads: %s\n", dirty_reads_text(dirty).c_str());
  }
  for (const std::string& line : staleness_lines(
           {{r.processing_guarantee.empty() ? std::string("unknown") : r.processing_guarantee,
             r.staleness}})) {
    std::printf("  staleness %s\n", line.c_str());
  }
}

void print_verdict(const properties::RunReport& r, bool strict) {
  // Per property: what it judged, and what it passed over and why (never a pass).
  std::map<std::string, uint64_t> judged;
  std::map<std::string, std::map<std::string, uint64_t>> not_judged;
  for (const auto& [property, tally] : r.tallies) {
    judged[property] = tally.judged;
    if (!tally.not_judged.empty()) not_judged[property] = tally.not_judged;
  }
  for (const std::string& line : judgement_lines(judged, not_judged)) {
    std::printf("  %s\n", line.c_str());
  }
  std::map<std::string, uint64_t> unexpected;
  std::map<std::string, uint64_t> known;
  for (const properties::Violation& v : r.violations) {
    if (v.violation_class == properties::ViolationClass::kFailure) {
      ++unexpected[v.property];
    } else {
      ++known[properties::to_string(v.violation_class)];
    }
  }
  for (const auto& [cls, n] : known) {
    std::printf("  %s: %llu violation%s\n", cls.c_str(), static_cast<unsigned long long>(n),
                n == 1 ? "" : "s");
  }
  std::map<std::string, uint64_t> findings;
  for (const properties::Violation& v : r.expected_violations) ++findings[v.property];
  if (!findings.empty()) {
    std::printf("  expected violations (findings): %s\n", counts_text(findings).c_str());
  }
  for (const std::string& p : r.unexpectedly_held) {
    std::printf("  %s: declared as an expected failure, but it held (the finding went away)\n",
                p.c_str());
  }
  if (r.passed(strict)) {
    std::printf(r.violations.empty() ? "PASSED\n"
                                     : "PASSED (every violation is a known Kafka behaviour)\n");
  } else if (!r.passed()) {
    std::printf("FAILED: %llu failure%s (%s)\n", static_cast<unsigned long long>(r.failures()),
                r.failures() == 1 ? "" : "s", counts_text(unexpected).c_str());
    std::printf("reproduce: %s\n", r.reproduce_command().c_str());
  } else {
    std::printf("FAILED (--strict): %zu violation%s, all known Kafka behaviour\n",
                r.violations.size(), r.violations.size() == 1 ? "" : "s");
    std::printf("reproduce: %s\n", r.reproduce_command().c_str());
  }
}

// `run`: each violation on one line; `replay`: each in full.
void print_violations(const properties::RunReport& r, bool full) {
  for (size_t i = 0; i < r.violations.size(); ++i) {
    const properties::Violation& v = r.violations[i];
    if (full) {
      std::printf("%s\n", v.to_string().c_str());
      continue;
    }
    if (i == kViolationsPrintedMax) {
      std::printf("  ... %zu more (iqsim replay prints them all)\n", r.violations.size() - i);
      break;
    }
    std::printf("  [%s] [%s] record #%llu at %lld ms: %s\n",
                properties::to_string(v.violation_class), v.property.c_str(),
                static_cast<unsigned long long>(v.record_id), static_cast<long long>(v.at_ms),
                v.summary.c_str());
  }
  if (!full) return;
  for (const properties::Violation& v : r.expected_violations) {
    std::printf("(expected) %s\n", v.to_string().c_str());
  }
}

bool write_summaries(const SweepSummary& summary, const std::string& json_out,
                     const std::string& junit_out) {
  bool ok = true;
  if (!json_out.empty()) {
    ok = write_text(json_out, to_json(summary).dump(2) + "\n", "--json") && ok;
  }
  if (!junit_out.empty()) ok = write_text(junit_out, to_junit(summary), "--junit") && ok;
  return ok;
}

std::string stem_of(const std::string& file) {
  return std::filesystem::path(file).stem().string();
}

// Failing seeds of a sweep that get a run page of their own (each is run once more, with its
// trace kept); the sweep page lists the rest with their reproduce commands.
constexpr size_t kSweepRunPagesMax = 20;

bool make_report_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) error("cannot create --report " + shown(dir) + ": " + ec.message());
  return !ec;
}

// Writes DIR/<stem>-seed<S>.html for a run judged with its trace kept; prints its path.
bool write_run_report(const std::string& dir, const properties::RunReport& report,
                      const sim::Scenario& scenario) {
  if (!make_report_dir(dir)) return false;
  std::filesystem::path out = std::filesystem::path(dir) / (stem_of(scenario.file) + "-seed" +
                                                            std::to_string(report.seed) + ".html");
  const std::string toml = sim::to_toml(scenario);
  if (!write_text(out.string(), reports::render_run_report(report, &toml))) return false;
  std::printf("report: %s\n", out.string().c_str());
  return true;
}

// ---- fuzz ----

// Each probe (base/probe.h) with the seeds that hit it and the first one; never-hit probes say so,
// since a mechanism the campaign never reaches is a defect of the campaign.
void print_probe_table(const SweepSummary& s) {
  auto table = s.probe_table();
  size_t never = 0;
  std::printf("  probes (seeds hit, first seed):\n");
  for (const auto& [name, row] : table) {
    if (row.first_seed) {
      std::printf("    %-40s %6llu  %llu\n", name.c_str(),
                  static_cast<unsigned long long>(row.seeds),
                  static_cast<unsigned long long>(*row.first_seed));
    } else {
      ++never;
      std::printf("    %-40s %6s  never hit\n", name.c_str(), "0");
    }
  }
  std::printf("  probes never hit: %zu of %zu\n", never, table.size());
}

void print_sweep(const SweepSummary& s, const Shard& shard, int32_t jobs, double seconds) {
  std::printf("iqsim fuzz %s ('%s'): seeds %llu..%llu, shard %s, %d jobs\n", s.scenario.c_str(),
              s.title.c_str(), static_cast<unsigned long long>(s.first_seed),
              static_cast<unsigned long long>(s.first_seed + s.seed_count - 1),
              shard.to_string().c_str(), jobs);
  std::printf(
      "  runs: %llu, passed %llu, failed %llu%s\n", static_cast<unsigned long long>(s.runs()),
      static_cast<unsigned long long>(s.passed()), static_cast<unsigned long long>(s.failed()),
      s.stopped_early ? " (stopped at the first failure)" : "");
  if (s.partial) {
    std::printf(
        "  PARTIAL: interrupted; %llu of %llu seeds of this shard finished (the rest did "
        "not run); `--resume` goes on from the journal\n",
        static_cast<unsigned long long>(s.runs()),
        static_cast<unsigned long long>(shard_seeds(s.first_seed, s.seed_count, shard).size()));
  }
  std::printf("  properties checked: %s\n", join(s.properties_checked()).c_str());
  std::printf("  queries judged: %llu of %llu\n",
              static_cast<unsigned long long>(s.queries_judged()),
              static_cast<unsigned long long>(s.queries_total()));
  std::printf("  at-least-once reprocessing: %llu runs, %llu input records processed again\n",
              static_cast<unsigned long long>(s.runs_with_reprocessing()),
              static_cast<unsigned long long>(s.records_reprocessed()));
  if (const auto dirty = s.dirty_reads(); !dirty.empty()) {
    std::printf("  exactly_once_v2 dirty reads (%llu runs): %s\n",
                static_cast<unsigned long long>(s.runs_with_dirty_reads()),
                dirty_reads_text(dirty).c_str());
    // Per pin, and at the new pin per isolation level (a dirty read under READ_COMMITTED is a
    // ChangelogWitness violation; under READ_UNCOMMITTED a statistic).
    for (const auto& [pin, counts] : s.dirty_reads_by_pin()) {
      std::printf("    kafka %s: %s%s\n", pin.c_str(), dirty_reads_text(counts).c_str(),
                  dirty_reads_by_level_text(counts).c_str());
    }
  }
  if (const auto lines = staleness_lines(s.staleness_by_guarantee()); !lines.empty()) {
    std::printf("  staleness behind the source log by guarantee and role:\n");
    for (const std::string& line : lines) std::printf("    %s\n", line.c_str());
  }
  std::printf("  judged and not judged by property:\n");
  for (const std::string& line :
       judgement_lines(s.judged_by_property(), s.not_judged_by_property())) {
    std::printf("    %s\n", line.c_str());
  }
  std::printf("  violations by property: %s\n", counts_text(s.violations_by_property()).c_str());
  {
    // By class: failures fail the sweep; a declared Kafka behaviour is printed apart.
    const auto violations = s.violations_by_class();
    const auto seeds = s.seeds_by_class();
    for (properties::ViolationClass c : properties::kViolationClasses) {
      const auto v = violations.find(properties::class_key(c));
      const auto n = seeds.find(properties::class_key(c));
      std::printf("  %s: %llu seeds, %llu violations\n", properties::to_string(c),
                  static_cast<unsigned long long>(n == seeds.end() ? 0 : n->second),
                  static_cast<unsigned long long>(v == violations.end() ? 0 : v->second));
    }
  }
  if (!s.violations_by_property().empty()) {
    // Context for triage: a violation with no reprocessing before it is the first to read.
    std::printf("    of which after at-least-once reprocessing of their partition: %s\n",
                counts_text(s.after_reprocessing_by_property()).c_str());
  }
  std::printf("  expected violations (findings): %s\n",
              counts_text(s.expected_violations_by_property()).c_str());
  auto held = s.unexpectedly_held_by_property();
  if (!held.empty()) {
    std::printf("  declared failures that held (seeds): %s\n", counts_text(held).c_str());
  }
  double wall = std::max(seconds, 1e-9);
  std::printf("  speed: %.2f seeds/s, %.0f queries judged/s (%.1f s wall)\n",
              static_cast<double>(s.runs()) / wall, static_cast<double>(s.queries_judged()) / wall,
              seconds);
  if (s.timing) {
    auto median = s.timing->peak_rss_kib_median();
    auto max = s.timing->peak_rss_kib_max();
    std::printf("  memory: %s, this process %.1f MiB\n",
                median
                    ? fmt::format("peak RSS per seed median {:.1f} MiB, max {:.1f} MiB (seed {})",
                                  static_cast<double>(*median) / 1024,
                                  static_cast<double>(max->second) / 1024, max->first)
                          .c_str()
                    : "no per-seed peak RSS (seeds ran in this process)",
                static_cast<double>(s.timing->parent_peak_rss_kib) / 1024);
  }
  print_probe_table(s);
  if (s.failed() == 0) return;
  std::printf("failures:\n");
  for (const SeedResult& r : s.results) {
    if (r.passed) continue;
    const auto first_failure =
        std::find_if(r.violations.begin(), r.violations.end(),
                     [](const ViolationSummary& v) { return v.violation_class == "failure"; });
    std::string why = first_failure != r.violations.end()
                          ? first_failure->property + ": " + first_failure->summary +
                                (first_failure->after_reprocessing ? " [after reprocessing]" : "")
                      : !r.unexpectedly_held.empty()
                          ? r.unexpectedly_held.front() + " held though declared as failing"
                          : std::string("a failure beyond the violations listed");
    std::printf("  %s    # %s\n", r.reproduce.c_str(), why.c_str());
  }
}

// The sweep's verdict line: failures first, then each declared Kafka behaviour with its seeds.
void print_sweep_verdict(const SweepSummary& s, bool strict) {
  const auto seeds = s.seeds_by_class();
  std::string known;
  for (properties::ViolationClass c : properties::kViolationClasses) {
    if (c == properties::ViolationClass::kFailure) continue;
    const auto n = seeds.find(properties::class_key(c));
    if (n == seeds.end() || n->second == 0) continue;
    known += fmt::format("{}{}, {} seed{}", known.empty() ? "" : "; ", properties::to_string(c),
                         n->second, n->second == 1 ? "" : "s");
  }
  if (s.failed() > 0) {
    std::printf("FAILED: %llu seed%s with failures%s%s\n",
                static_cast<unsigned long long>(s.failed()), s.failed() == 1 ? "" : "s",
                known.empty() ? "" : "; also ", known.c_str());
  } else if (known.empty()) {
    std::printf("PASSED\n");
  } else if (strict) {
    std::printf("FAILED (--strict): %s\n", known.c_str());
  } else {
    std::printf("PASSED: no failures; %s\n", known.c_str());
  }
}

// Writes a failing seed's concrete scenario into failures_dir (if one is given); the error says
// why it could not.
std::optional<std::string> keep_failure(const std::string& file, uint64_t seed,
                                        const std::string& failures_dir) {
  if (failures_dir.empty()) return std::nullopt;
  auto scenario = load(file, seed);
  if (!scenario) return scenario.error();
  std::filesystem::path out = std::filesystem::path(failures_dir) /
                              (stem_of(file) + "-seed" + std::to_string(seed) + ".toml");
  if (!write_text(out.string(), sim::to_toml(*scenario))) return "cannot write " + out.string();
  return std::nullopt;
}

// One seed of a sweep: parse with the seed (its choices), run, keep the failing scenario.
base::Expected<SeedResult, std::string> run_seed(const std::string& file, uint64_t seed,
                                                 const std::string& failures_dir) {
  auto scenario = load(file, seed);
  if (!scenario) return base::unexpected(scenario.error());
  // The trace is kept only until seed_result has counted how the queries ended (by phase for the
  // sweep report's picture, in all for the explorer); the judging held it anyway, so the peak does
  // not grow.
  properties::RunReport report = properties::run_scenario(*scenario, {.keep_trace = true});
  SeedResult result = seed_result(report);
  report.trace.reset();
  if (!result.passed) {
    if (auto failed = keep_failure(file, seed, failures_dir)) return base::unexpected(*failed);
  }
  return result;
}

// This process's peak resident set in KiB (getrusage's ru_maxrss; Linux counts KiB).
int64_t own_peak_rss_kib() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return usage.ru_maxrss;
}

// The name under which a run that never finished is reported: not a consistency property (no
// scenario can declare it), the run itself failing.
constexpr const char* kRunCompletes = "RunCompletes";

// One seed in a child process (`iqsim run-seed`). A child that dies (an assertion, a sanitizer
// report, a signal) fails the seed with the tail of what it printed; exit 2 is bad input.
// The self-pipe a SIGINT / SIGTERM handler writes to: run_child kills its child when it becomes
// readable. Never read, so it stays readable for every running child.
int g_cancel_pipe[2] = {-1, -1};
std::atomic<bool> g_stop{false};
volatile sig_atomic_t g_signal = 0;
// Marks a seed whose child was killed by the stop: it did not finish.
constexpr const char* kCancelled = "cancelled by a signal";

// `peak_rss_kib` receives the child's peak resident set when it ran to the end.
base::Expected<SeedResult, std::string> run_seed_in_child(const std::string& self,
                                                          const FuzzArgs& args, uint64_t seed,
                                                          int64_t* peak_rss_kib) {
  std::vector<std::string> argv{self,
                                "run-seed",
                                args.file,
                                "--seed",
                                std::to_string(seed),
                                "--parent-pid",
                                std::to_string(getpid())};
  if (!args.failures_dir.empty()) {
    argv.push_back("--failures-dir");
    argv.push_back(args.failures_dir);
  }
  auto child = run_child(argv, {.cancel_fd = g_cancel_pipe[0]});
  if (!child) return base::unexpected(child.error());
  if (child->cancelled) return base::unexpected(std::string(kCancelled));
  *peak_rss_kib = child->peak_rss_kib;
  if (child->exited && child->exit_code == kExitBadInput) {
    return base::unexpected("seed " + std::to_string(seed) + ": " + child->err_tail);
  }
  if (child->exited && child->exit_code == kExitPassed) {
    auto json = nlohmann::json::parse(child->out, nullptr, /*allow_exceptions=*/false);
    auto summary = summary_from_json(json, "iqsim run-seed");
    if (summary && summary->results.size() == 1) return summary->results.front();
    return base::unexpected(
        "seed " + std::to_string(seed) +
        ": unreadable result from iqsim run-seed: " + (summary ? "not one run" : summary.error()));
  }
  // The run never finished.
  std::string last = child->err_tail;
  while (!last.empty() && (last.back() == '\n' || last.back() == '\r')) last.pop_back();
  if (auto nl = last.rfind('\n'); nl != std::string::npos) last = last.substr(nl + 1);
  SeedResult result;
  result.seed = seed;
  result.passed = false;
  result.violations.push_back(ViolationSummary{
      kRunCompletes, 0, 0, "the run did not finish (" + child->describe() + "): " + last});
  result.violations_by_property[kRunCompletes] = 1;
  result.reproduce = "iqsim replay " + args.file + " --seed " + std::to_string(seed);
  if (auto failed = keep_failure(args.file, seed, args.failures_dir)) {
    return base::unexpected(*failed);
  }
  return result;
}

}  // namespace

base::Expected<std::string, std::string> write_run_page(const std::string& file, uint64_t seed,
                                                        const std::string& dir) {
  auto scenario = load(file, seed);
  if (!scenario) return base::unexpected(scenario.error());
  properties::RunReport again = properties::run_scenario(*scenario, {.keep_trace = true});
  std::string name = stem_of(file) + "-seed" + std::to_string(seed) + ".html";
  std::filesystem::path out = std::filesystem::path(dir) / name;
  const std::string toml = sim::to_toml(*scenario);
  if (!write_text(out.string(), reports::render_run_report(again, &toml))) {
    return base::unexpected("--report " + shown(dir) + ": cannot write " + shown(name));
  }
  return name;
}

namespace {

// The sweep page, and a run page for each of the first failing seeds and for the first seed of
// each declared Kafka behaviour met (the page its explanation links): each is run again from
// `file` with its trace kept (the sweep itself keeps no traces, so memory does not grow with the
// sweep; a merged summary of shards run elsewhere needs nothing but the scenario file).
bool write_sweep_report(const std::string& command, const std::string& file,
                        const std::string& report_dir, const SweepSummary& summary) {
  if (auto refused = check_outputs({{"--report", report_dir, OutputKind::kDirectory}}, {})) {
    error(*refused);
    return false;
  }
  if (!make_report_dir(report_dir)) return false;
  reports::SweepInput input;
  input.command = command;
  input.scenario = summary.scenario;
  input.title = summary.title;
  input.first_seed = summary.first_seed;
  input.seed_count = summary.seed_count;
  input.shard = summary.shards.empty() ? "0/1" : summary.shards.front();
  input.dirty_reads = summary.dirty_reads();
  input.runs_with_dirty_reads = summary.runs_with_dirty_reads();
  input.dirty_reads_by_pin = summary.dirty_reads_by_pin();
  input.staleness_by_guarantee = summary.staleness_by_guarantee();
  input.runs_by_guarantee = summary.runs_by_guarantee();
  input.query_outcomes = summary.query_outcomes_by_phase();
  for (const auto& [name, row] : summary.probe_table()) input.probe_seeds[name] = row.seeds;
  size_t pages = 0;
  // Each declared behaviour's first seed gets its page too (one per class), so the page that
  // explains a behaviour links a run that shows it.
  std::set<std::string> classes_with_page;
  for (const SeedResult& r : summary.results) {
    reports::SweepRun run;
    run.seed = r.seed;
    run.passed = r.passed;
    run.unexpectedly_held = r.unexpectedly_held;
    run.properties_checked = r.properties_checked;
    run.queries_judged = r.queries_judged;
    run.reproduce = r.reproduce;
    for (const auto& [property, n] : r.violations_by_property) run.violations_total += n;
    run.violations_by_property = r.violations_by_property;
    run.violations_by_class = r.violations_by_class;
    for (const ViolationSummary& v : r.violations) {
      properties::Violation violation;
      violation.property = v.property;
      violation.record_id = v.record_id;
      violation.at_ms = v.at_ms;
      violation.summary = v.summary;
      for (properties::ViolationClass c : properties::kViolationClasses) {
        if (v.violation_class == properties::class_key(c)) violation.violation_class = c;
      }
      // The sweep page groups by whether there was reprocessing; the ranges are on the run page.
      if (v.after_reprocessing) violation.reprocessed_before = {"(see the seed's run report)"};
      run.violations.push_back(std::move(violation));
    }
    // A seed whose run never finished (it died in its child process) is not run again here:
    // it would take this process down with it.
    bool died = r.violations_by_property.count(kRunCompletes) > 0;
    // A partial sweep was stopped by a signal: its report is written at once, without pages.
    bool first_of_a_class = false;
    for (const auto& [key, n] : r.violations_by_class) {
      if (key != "failure" && classes_with_page.insert(key).second) first_of_a_class = true;
    }
    const bool failing_page = !r.passed && pages < kSweepRunPagesMax;
    if ((failing_page || first_of_a_class) && !died && !summary.partial) {
      auto page = write_run_page(file, r.seed, report_dir);
      if (!page) {
        error(page.error());
        return false;
      }
      run.page = *page;
      if (!r.passed) ++pages;
    }
    input.runs.push_back(std::move(run));
  }
  std::filesystem::path index = std::filesystem::path(report_dir) / "index.html";
  if (!write_text(index.string(), reports::render_sweep_report(input))) return false;
  std::printf("report: %s\n", index.string().c_str());
  return true;
}

// ---- shrink ----

// The written file says where it came from; `iqsim run` parses it with its own seed key.
sim::Scenario annotated(sim::Scenario minimal, const ShrinkArgs& args,
                        const std::string& property) {
  minimal.description = fmt::format(
      "Shrunk by `iqsim shrink {} --seed {}` to a smaller scenario that still violates {}.{}{}",
      args.file, args.seed, property,
      minimal.description.empty() ? "" : "\nOriginal: ", minimal.description);
  return minimal;
}

bool violates(const properties::RunReport& r, const std::string& property) {
  auto is = [&](const properties::Violation& v) { return v.property == property; };
  return std::any_of(r.violations.begin(), r.violations.end(), is) ||
         std::any_of(r.expected_violations.begin(), r.expected_violations.end(), is);
}

std::string shape_of(const sim::Scenario& s) {
  size_t workloads = 0, steps = 0;
  for (const sim::TestSpec& t : s.tests) {
    workloads += t.workloads.size();
    steps += t.steps.size();
  }
  return fmt::format("{} instances, {} tests, {} workloads, {} steps, {} partitions, {} keys",
                     s.cluster.instances, s.tests.size(), workloads, steps,
                     s.cluster.topology.source_partitions, s.keys);
}

}  // namespace

int run_command(const RunArgs& args) {
  auto scenario = load_with_outputs({{"--json", args.json_out, OutputKind::kFile},
                                     {"--junit", args.junit_out, OutputKind::kFile},
                                     {"--report", args.report_dir, OutputKind::kDirectory}},
                                    args.file, args.seed);
  if (!scenario) {
    error(scenario.error());
    return kExitBadInput;
  }
  properties::RunReport report = properties::run_scenario(
      *scenario, {.check_determinism = args.check_determinism, .keep_trace = true});
  print_report_header("run", report);
  print_violations(report, /*full=*/false);
  print_verdict(report, args.strict);
  SweepSummary summary;
  summary.command = "run";
  summary.scenario = args.file;
  summary.title = scenario->title;
  summary.first_seed = scenario->seed;
  summary.seed_count = 1;
  summary.shards = {"0/1"};
  summary.results.push_back(seed_result(report));
  if (!write_summaries(summary, args.json_out, args.junit_out)) return kExitBadInput;
  if (!args.report_dir.empty() && !write_run_report(args.report_dir, report, *scenario)) {
    return kExitBadInput;
  }
  return report.passed(args.strict) ? kExitPassed : kExitFailed;
}

int replay_command(const std::string& file, uint64_t seed, const std::string& report_dir,
                   bool strict) {
  auto scenario = load_with_outputs({{"--report", report_dir, OutputKind::kDirectory}}, file, seed);
  if (!scenario) {
    error(scenario.error());
    return kExitBadInput;
  }
  properties::RunReport report =
      properties::run_scenario(*scenario, {.keep_trace = !report_dir.empty()});
  print_report_header("replay", report);
  print_violations(report, /*full=*/true);
  print_verdict(report, strict);
  if (!report_dir.empty() && !write_run_report(report_dir, report, *scenario)) return kExitBadInput;
  return report.passed(strict) ? kExitPassed : kExitFailed;
}

namespace {

void on_stop_signal(int signal) {
  g_signal = signal;
  g_stop.store(true);
  char byte = 's';
  ssize_t ignored = write(g_cancel_pipe[1], &byte, 1);  // a full pipe is readable already
  (void)ignored;
}

// SIGINT and SIGTERM stop the sweep for as long as this lives; the old handlers come back after.
class StopSignals {
 public:
  StopSignals() {
    if (g_cancel_pipe[0] < 0 && pipe2(g_cancel_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
      g_cancel_pipe[0] = g_cancel_pipe[1] = -1;
    }
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// The file's bytes as a digest, so a journal is not resumed against an edited scenario.
base::Expected<std::string, std::string> file_digest(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return base::unexpected("cannot read " + shown(file));
  return fmt::format("{:016x}", base::fnv1a64(text.str()));
}

// The uninterrupted sweep's results from any set of finished seeds holding its prefix: sorted
// by seed and, with --stop-on-failure, cut after the first failing seed (as run_sweep cuts).
void settle(SweepSummary& summary, size_t shard_seed_count, bool stop_on_failure) {
  std::sort(summary.results.begin(), summary.results.end(),
            [](const SeedResult& a, const SeedResult& b) { return a.seed < b.seed; });
  if (!stop_on_failure || summary.partial) return;
  for (size_t i = 0; i < summary.results.size(); ++i) {
    if (summary.results[i].passed) continue;
    summary.results.resize(i + 1);
    summary.stopped_early = i + 1 < shard_seed_count;
    return;
  }
}

struct FuzzOutputs {
  std::string journal;
  std::vector<OutputPath> paths;
};

FuzzOutputs fuzz_outputs(const FuzzArgs& args) {
  FuzzOutputs o;
  o.journal = !args.journal.empty()    ? args.journal
              : !args.json_out.empty() ? args.json_out + ".journal"
                                       : "";
  o.paths = {{"--json", args.json_out, OutputKind::kFile},
             {"--junit", args.junit_out, OutputKind::kFile},
             {"--journal", o.journal, OutputKind::kFile},
             {"--failures-dir", args.failures_dir, OutputKind::kDirectory},
             {"--report", args.report_dir, OutputKind::kDirectory}};
  return o;
}

}  // namespace

int fuzz_command(const FuzzArgs& args) {
  auto shard = parse_shard(args.shard);
  if (!shard) {
    error(shard.error());
    return kExitBadInput;
  }
  if (args.seeds > std::numeric_limits<uint64_t>::max() - args.first_seed) {
    error("--first-seed " + std::to_string(args.first_seed) + " with --seeds " +
          std::to_string(args.seeds) + ": the seeds would pass 2^64 - 1");
    return kExitBadInput;
  }
  // Every output is checked before any seed runs: a refusal costs nothing.
  FuzzOutputs outputs = fuzz_outputs(args);
  if (auto refused = check_outputs(outputs.paths, {args.file})) {
    error(*refused);
    return kExitBadInput;
  }
  if (args.resume && outputs.journal.empty()) {
    error(
        "--resume: no journal to resume from; accepted: --resume with --journal FILE or --json "
        "OUT (whose journal is OUT.journal), as the interrupted sweep was run");
    return kExitBadInput;
  }
  std::vector<uint64_t> seeds = shard_seeds(args.first_seed, args.seeds, *shard);
  // Fail fast on a bad file: every seed parses if one does (the parser validates every
  // alternative of every choice).
  auto first = load(args.file, seeds.empty() ? args.first_seed : seeds.front());
  if (!first) {
    error(first.error());
    return kExitBadInput;
  }
  // The journal is created below; every other output is tried now, so that a path that cannot
  // be written is refused before the first seed and not after the sweep.
  if (auto refused = check_writable({{"--junit", args.junit_out, OutputKind::kFile},
                                     {"--json", args.json_out, OutputKind::kFile},
                                     {"--failures-dir", args.failures_dir, OutputKind::kDirectory},
                                     {"--report", args.report_dir, OutputKind::kDirectory}})) {
    error(*refused);
    return kExitBadInput;
  }
  if (!args.failures_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.failures_dir, ec);
    if (ec) {
      error("cannot create --failures-dir " + shown(args.failures_dir) + ": " + ec.message());
      return kExitBadInput;
    }
  }
  auto self = self_executable();
  if (!self) {
    error(self.error());
    return kExitBadInput;
  }

  SweepSummary summary;
  summary.command = "fuzz";
  summary.scenario = args.file;
  summary.title = first->title;
  summary.first_seed = args.first_seed;
  summary.seed_count = args.seeds;
  summary.shards = {shard->to_string()};

  std::unique_ptr<Journal> journal;
  std::vector<uint64_t> to_run = seeds;
  if (!outputs.journal.empty()) {
    auto digest = file_digest(args.file);
    if (!digest) {
      error(digest.error());
      return kExitBadInput;
    }
    JournalHeader header{kToolVersion,
                         args.file,
                         *digest,
                         args.first_seed,
                         args.seeds,
                         shard->to_string(),
                         args.stop_on_failure,
                         args.failures_dir,
                         "fuzz",
                         ""};
    if (args.resume) {
      auto resumed = Journal::resume(outputs.journal, header);
      if (!resumed) {
        error(resumed.error());
        return kExitBadInput;
      }
      journal = std::move(resumed->journal);
      std::set<uint64_t> shard_set(seeds.begin(), seeds.end()), done;
      uint64_t first_failing = std::numeric_limits<uint64_t>::max();
      for (SeedResult& r : resumed->results) {
        if (shard_set.count(r.seed) == 0) {
          error(fmt::format("--journal {}: seed {} is not a seed of this sweep's shard",
                            shown(outputs.journal), r.seed));
          return kExitBadInput;
        }
        done.insert(r.seed);
        if (!r.passed) first_failing = std::min(first_failing, r.seed);
        summary.results.push_back(std::move(r));
      }
      to_run.clear();
      for (uint64_t seed : seeds) {
        // With --stop-on-failure no seed after a known failure belongs to the summary.
        bool after_failure = args.stop_on_failure && seed > first_failing;
        if (done.count(seed) == 0 && !after_failure) to_run.push_back(seed);
      }
      std::fprintf(stderr, "iqsim: resuming from %s: %zu seeds done, %zu to run%s\n",
                   shown(outputs.journal).c_str(), done.size(), to_run.size(),
                   resumed->torn_line_dropped ? " (a torn last line was dropped)" : "");
    } else {
      auto created = Journal::create(outputs.journal, header);
      if (!created) {
        error(created.error());
        return kExitBadInput;
      }
      journal = std::move(*created);
    }
  }

  StopSignals signals;
  g_stop.store(false);
  Progress progress(stderr, isatty(fileno(stderr)) != 0, to_run.size());
  SweepOptions options;
  options.jobs = args.jobs;
  options.stop_on_failure = args.stop_on_failure;
  options.stop = &g_stop;
  if (journal) {
    options.on_result = [&](const SeedResult& r) { return journal->append(r); };
  }
  // Filled by the sweep's worker threads; one entry per seed, so it grows as the summary does.
  std::mutex rss_mu;
  std::map<uint64_t, int64_t> rss_by_seed;
  SweepOutcome outcome = run_sweep(
      to_run, options,
      [&](uint64_t seed) -> base::Expected<SeedResult, std::string> {
        if (args.in_process) return run_seed(args.file, seed, args.failures_dir);
        int64_t kib = 0;
        auto result = run_seed_in_child(*self, args, seed, &kib);
        if (result) {
          std::lock_guard<std::mutex> lock(rss_mu);
          rss_by_seed[seed] = kib;
        }
        return result;
      },
      &progress);

  // A seed that could not run (bad input: the file changed under the sweep, an unwritable
  // failures dir) ends the sweep: what was written is a partial summary, never a verdict.
  summary.partial = outcome.interrupted || !outcome.error.empty();
  summary.stopped_early = outcome.stopped_early;
  for (SeedResult& r : outcome.results) summary.results.push_back(std::move(r));
  settle(summary, seeds.size(), args.stop_on_failure);
  Timing timing;
  timing.wall_seconds = outcome.wall_seconds;
  timing.jobs = args.jobs;
  timing.peak_rss_kib_by_seed = std::move(rss_by_seed);
  timing.parent_peak_rss_kib = own_peak_rss_kib();
  summary.timing = std::move(timing);
  print_sweep(summary, *shard, args.jobs, outcome.wall_seconds);
  if (!summary.partial) print_sweep_verdict(summary, args.strict);
  bool written = write_summaries(summary, args.json_out, args.junit_out);
  if (!args.report_dir.empty() && outcome.error.empty()) {
    written = write_sweep_report("fuzz", args.file, args.report_dir, summary) && written;
  }
  if (!outcome.error.empty()) {
    error(outcome.error);
    std::fprintf(stderr, "iqsim: the sweep stopped at that seed; partial summaries written%s\n",
                 journal ? " (the journal keeps the seeds that ran)" : "");
    return kExitBadInput;
  }
  if (!written) return kExitBadInput;
  if (summary.partial) {
    std::fprintf(stderr, "iqsim: stopped by signal %d; partial summaries written%s\n",
                 static_cast<int>(g_signal),
                 journal ? ", resume with --resume" : " (no journal: pass --json or --journal)");
    return g_signal == SIGTERM ? kExitTerminated : kExitInterrupted;
  }
  // The sweep is complete and its summaries are on disk: the journal has served its purpose.
  if (journal) {
    std::string path = journal->path();
    journal.reset();
    std::remove(path.c_str());
  }
  return (args.strict ? summary.failed_strict() : summary.failed()) == 0 ? kExitPassed
                                                                         : kExitFailed;
}

void print_error(const std::string& message) {
  error(message);
}

bool write_output_file(const std::string& path, const std::string& text, const std::string& flag) {
  return write_text(path, text, flag);
}

base::Expected<std::string, std::string> scenario_file_digest(const std::string& file) {
  return file_digest(file);
}

int run_seed_command(const std::string& file, uint64_t seed, const std::string& failures_dir,
                     int64_t parent_pid) {
  if (parent_pid != 0) {
    // Die with the sweep: the kernel sends SIGKILL when the spawning thread ends. The parent may
    // have died before prctl ran; then getppid() is no longer it.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != static_cast<pid_t>(parent_pid)) {
      error("run-seed: the sweep (pid " + std::to_string(parent_pid) + ") is gone");
      return kExitBadInput;
    }
  }
  auto result = run_seed(file, seed, failures_dir);
  if (!result) {
    error(result.error());
    return kExitBadInput;
  }
  SweepSummary summary;
  summary.command = "run-seed";
  summary.scenario = file;
  summary.first_seed = seed;
  summary.seed_count = 1;
  summary.shards = {"0/1"};
  summary.results.push_back(std::move(*result));
  std::printf("%s\n", to_json(summary).dump().c_str());
  return kExitPassed;  // the verdict travels in the JSON; a non-zero exit means the run broke
}

int shrink_command(const ShrinkArgs& args) {
  auto scenario = load_with_outputs({{"--out", args.out, OutputKind::kFile},
                                     {"--report", args.report_dir, OutputKind::kDirectory}},
                                    args.file, args.seed);
  if (!scenario) {
    error(scenario.error());
    return kExitBadInput;
  }
  std::vector<std::string> names = properties::all_property_names();
  if (!args.property.empty() &&
      std::find(names.begin(), names.end(), args.property) == names.end()) {
    error("--property '" + args.property + "': not a property (iqsim list-properties)");
    return kExitBadInput;
  }
  properties::ShrinkResult result =
      properties::shrink_scenario(*scenario, args.property, args.runs_max);
  for (const std::string& line : result.log) std::printf("  %s\n", line.c_str());
  if (!result.reproduced) {
    std::printf("seed %llu of %s does not violate %s: nothing to shrink\n",
                static_cast<unsigned long long>(args.seed), args.file.c_str(),
                args.property.empty() ? "any property" : args.property.c_str());
    return result.report.passed() ? kExitPassed : kExitFailed;
  }
  std::string out = args.out.empty()
                        ? stem_of(args.file) + "-seed" + std::to_string(args.seed) + "-min.toml"
                        : args.out;
  if (!write_text(out, sim::to_toml(annotated(result.minimal, args, result.property)), "--out")) {
    return kExitBadInput;
  }
  std::printf("shrunk in %d runs: %s -> %s\n", result.runs, shape_of(*scenario).c_str(),
              shape_of(result.minimal).c_str());
  // The written file is the contract: read it back and run it as `iqsim run` would.
  auto written = load(out, std::nullopt);
  if (!written) {
    error("the written scenario does not parse back: " + written.error());
    return kExitFailed;
  }
  properties::RunReport confirmed =
      properties::run_scenario(*written, {.keep_trace = !args.report_dir.empty()});
  bool reproduces = violates(confirmed, result.property);
  std::printf("wrote %s; %s\nreproduce: iqsim run %s\n", out.c_str(),
              reproduces
                  ? ("it violates " + result.property).c_str()
                  : ("WARNING: run from the file it no longer violates " + result.property).c_str(),
              out.c_str());
  if (!args.report_dir.empty() && !write_run_report(args.report_dir, confirmed, *written)) {
    return kExitBadInput;
  }
  return kExitFailed;
}

int check_determinism_command(const std::string& file, std::optional<uint64_t> seed, int32_t runs) {
  auto scenario = load(file, seed);
  if (!scenario) {
    error(scenario.error());
    return kExitBadInput;
  }
  sim::RunTrace first = sim::drive_scenario(*scenario);
  std::printf("run 1: digest %s, %llu events, %lld virtual ms\n", first.digest.c_str(),
              static_cast<unsigned long long>(first.events),
              static_cast<long long>(first.end_ms.ms_since_epoch()));
  std::vector<properties::Violation> violations;
  for (int32_t k = 2; k <= runs; ++k) {
    sim::RunTrace again = sim::drive_scenario(*scenario);
    std::printf("run %d: digest %s, %llu events, %lld virtual ms\n", k, again.digest.c_str(),
                static_cast<unsigned long long>(again.events),
                static_cast<long long>(again.end_ms.ms_since_epoch()));
    for (properties::Violation& v : properties::check_deterministic(first, again)) {
      violations.push_back(std::move(v));
    }
  }
  for (const properties::Violation& v : violations) std::printf("%s\n", v.to_string().c_str());
  std::printf("%s: %d runs of %s with seed %llu\n",
              violations.empty() ? "DETERMINISTIC" : "NOT DETERMINISTIC", runs, file.c_str(),
              static_cast<unsigned long long>(scenario->seed));
  return violations.empty() ? kExitPassed : kExitFailed;
}

namespace {

// One summary file for merge, or a message naming the file and what was wrong with it.
base::Expected<SweepSummary, std::string> read_summary(const std::string& input) {
  std::error_code ec;
  std::uintmax_t size = std::filesystem::file_size(input, ec);
  if (ec) return base::unexpected("cannot read " + shown(input) + ": " + ec.message());
  if (size > kSummaryBytesMax) {
    return base::unexpected(shown(input) +
                            ": larger than 256 MiB; accepted: a JSON summary "
                            "written by iqsim run, fuzz or merge");
  }
  std::ifstream in(input, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return base::unexpected("cannot read " + shown(input));
  try {
    nlohmann::json json = nlohmann::json::parse(text.str());
    return summary_from_json(json, input);
  } catch (const nlohmann::json::parse_error& e) {
    return base::unexpected(fmt::format(
        "{}: not valid JSON (the first error at byte {} of {}); accepted: a JSON summary "
        "written by iqsim run, fuzz or merge",
        shown(input), e.byte, text.str().size()));
  }
}

}  // namespace

int merge_command(const std::string& out, const std::vector<std::string>& inputs, bool allow_gaps,
                  const std::string& report_dir) {
  if (auto refused = check_outputs(
          {{"OUT", out, OutputKind::kFile}, {"--report", report_dir, OutputKind::kDirectory}},
          inputs)) {
    error(*refused);
    return kExitBadInput;
  }
  // Explorer shards hold a summary per configuration: merged configuration by configuration.
  if (!inputs.empty()) {
    // A directory or an unreadable file is no explorer summary: read_summary below names it.
    std::error_code ec;
    const bool regular = std::filesystem::is_regular_file(inputs.front(), ec);
    std::ifstream first(inputs.front(), std::ios::binary);
    auto json = regular ? nlohmann::json::parse(first, nullptr, /*allow_exceptions=*/false)
                        : nlohmann::json();
    if (regular && is_explore_summary(json)) {
      return explore_merge_command(out, inputs, allow_gaps, report_dir);
    }
  }
  std::vector<SweepSummary> summaries;
  for (const std::string& input : inputs) {
    auto summary = read_summary(input);
    if (!summary) {
      error(summary.error());
      return kExitBadInput;
    }
    summaries.push_back(std::move(summary).value());
  }
  auto merged = merge_summaries(summaries, inputs, allow_gaps);
  if (!merged) {
    error(merged.error());
    return kExitBadInput;
  }
  if (!write_text(out, to_json(*merged).dump(2) + "\n", "OUT")) return kExitBadInput;
  std::printf("merged %zu summaries (shards %s) of %s: %llu runs, %llu passed, %llu failed%s\n",
              inputs.size(), join(merged->shards).c_str(), merged->scenario.c_str(),
              static_cast<unsigned long long>(merged->runs()),
              static_cast<unsigned long long>(merged->passed()),
              static_cast<unsigned long long>(merged->failed()),
              merged->partial ? " (partial: an input was interrupted)" : "");
  // The report is built here, not carried in the shards: the sweep page from the merged results,
  // each failing seed's page by running that seed again from the scenario file the shards name.
  if (!report_dir.empty()) {
    if (!std::filesystem::is_regular_file(merged->scenario)) {
      error("--report: the shards' scenario " + shown(merged->scenario) +
            " is not a file here (run merge where the sweep's scenario path resolves)");
      return kExitBadInput;
    }
    if (!write_sweep_report("merge", merged->scenario, report_dir, *merged)) return kExitBadInput;
  }
  return merged->failed() == 0 ? kExitPassed : kExitFailed;
}

int list_properties_command() {
  for (const std::string& name : properties::all_property_names()) {
    const properties::CheckInfo* check = properties::find_check(name);
    const char* statement = check != nullptr ? check->statement : nullptr;
    if (name == sim::property_names::kDeterministic) {
      statement = "the same seed and scenario give the same trace digest, run after run";
    }
    std::printf("%-24s %s\n", name.c_str(), statement != nullptr ? statement : "");
  }
  return kExitPassed;
}

int list_probes_command() {
  for (const base::ProbeInfo& p : base::ProbeRegistry::all()) {
    std::printf("%-40.*s %.*s\n", static_cast<int>(p.name.size()), p.name.data(),
                static_cast<int>(p.description.size()), p.description.data());
  }
  return kExitPassed;
}

namespace {

// `text` wrapped at 100 columns, each line indented by `indent`.
std::string wrapped(std::string_view text, const std::string& indent) {
  constexpr size_t kColumns = 100;
  std::string out, line = indent;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    if (line.size() > indent.size() && line.size() + 1 + word.size() > kColumns) {
      out += line + "\n";
      line = indent;
    }
    line += (line.size() > indent.size() ? " " : "") + std::string(word);
    start = end + 1;
  }
  return out + line + "\n";
}

void print_finding(const reports::Finding& f, const char* class_text) {
  std::printf("%s\n  %s\n", std::string(f.key).c_str(), class_text);
  std::fputs(wrapped(f.explanation, "    ").c_str(), stdout);
  const auto field = [](const char* what, std::string_view text) {
    if (!text.empty())
      std::fputs(wrapped(std::string(what) + ": " + std::string(text), "    ").c_str(), stdout);
  };
  field("Kafka source (apache/kafka 1eb7644)", f.kafka_source);
  field("conditions", f.conditions);
  field("minimal scenario", f.scenario.empty() ? "none yet" : f.scenario);
  field("seen in", f.seen_in);
  field("what a caller can do", f.what_to_do);
  std::printf("\n");
}

nlohmann::json finding_json(const reports::Finding& f, const char* class_text) {
  return {{"key", f.key},
          {"class", class_text},
          {"title", f.title},
          {"explanation", f.explanation},
          {"kafka_source", f.kafka_source},
          {"conditions", f.conditions},
          {"scenario", f.scenario},
          {"seen_in", f.seen_in},
          {"what_to_do", f.what_to_do}};
}

}  // namespace

int findings_command(bool json, const std::string& only_key) {
  std::vector<std::pair<properties::ViolationClass, const reports::Finding*>> shown_entries;
  for (properties::ViolationClass c : properties::kViolationClasses) {
    if (c == properties::ViolationClass::kFailure) continue;
    if (!only_key.empty() && only_key != properties::class_key(c)) continue;
    shown_entries.emplace_back(c, reports::find_finding(properties::class_key(c)));
  }
  if (shown_entries.empty()) {
    std::string keys;
    for (const reports::Finding& f : reports::findings_catalogue()) {
      keys += (keys.empty() ? "" : ", ") + std::string(f.key);
    }
    error("findings: no known Kafka behaviour " + shown(only_key) + "; the classes are: " + keys);
    return kExitBadInput;
  }
  nlohmann::json out = nlohmann::json::array();
  if (!json) {
    std::printf(
        "Known Kafka behaviours: how Kafka Streams' IQv2 answers differ from what a caller would\n"
        "naively expect. A run proves each from its record and counts it apart from failures.\n\n");
  }
  for (const auto& [c, f] : shown_entries) {
    const char* text = properties::to_string(c);
    if (f == nullptr) {
      if (json)
        out.push_back({{"key", properties::class_key(c)}, {"class", text}});
      else
        std::printf("%s\n  %s\n    (no catalogue entry)\n\n", properties::class_key(c), text);
      continue;
    }
    if (json)
      out.push_back(finding_json(*f, text));
    else
      print_finding(*f, text);
  }
  if (json) std::printf("%s\n", out.dump(2).c_str());
  return kExitPassed;
}

}  // namespace iq::cli
