#pragma once
// The machine-readable outcome of `iqsim run` and `iqsim fuzz`: a SweepSummary (one entry per
// seed run), written as JSON (for `iqsim merge` and dashboards) and as JUnit XML (for CI).
//
//   SweepSummary summary = make_summary("fuzz", file, title, first_seed, seeds, {shard});
//   summary.results.push_back(seed_result(report));
//   write_text(out, to_json(summary).dump(2));
//   auto merged = merge_summaries({a, b});  // shards of one sweep -> the whole sweep
//
// Per-seed results keep only what a reader needs to find a failure (property, record id, virtual
// time, one-line summary; `iqsim replay` prints the rest); everything else in the JSON is totals
// derived from them, so merging shards is summing results, never averaging. Wall-clock figures
// live apart, under "timing", and are the only part of a summary that differs between two runs of
// the same sweep.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/expected.h"
#include "checks/answer_staleness.h"
#include "runner.h"

namespace iq::cli {

inline constexpr const char* kToolName = "iqsim";
inline constexpr const char* kToolVersion = "0.1.0";
// Violations listed per seed and kind; the counts by property are always complete.
inline constexpr size_t kViolationsListedMax = 20;

struct ViolationSummary {
  std::string property;
  uint64_t record_id = 0;
  int64_t at_ms = 0;
  std::string summary;
  // Some task had processed records of the answering partition again before it (at-least-once;
  // Violation::reprocessed_before): context for triage, never an excuse.
  bool after_reprocessing = false;
  // properties::class_key of its class: "failure" or a declared Kafka behaviour
  // ("alos_reprocessing"). Summaries written before classes existed read as "failure".
  std::string violation_class = "failure";
  bool operator==(const ViolationSummary&) const = default;
};

struct SeedResult {
  uint64_t seed = 0;
  // No violation of class "failure" and no finding gone away (RunReport::passed()). A seed whose
  // violations a declared Kafka behaviour explains passes; `passed_strict()` does not.
  bool passed = false;
  std::vector<ViolationSummary> violations;           // first kViolationsListedMax, failures first
  std::vector<ViolationSummary> expected_violations;  // findings, first kViolationsListedMax
  std::vector<std::string> unexpectedly_held;
  std::map<std::string, uint64_t> violations_by_property;           // unexpected only
  std::map<std::string, uint64_t> expected_violations_by_property;  // findings only
  // Unexpected violations by class ("failure", "alos_reprocessing"); read from a summary written
  // before classes existed, every violation counts as "failure".
  std::map<std::string, uint64_t> violations_by_class;
  // Of violations_by_property, those after reprocessing of their partition.
  std::map<std::string, uint64_t> after_reprocessing_by_property;
  std::vector<std::string> properties_checked;
  uint64_t queries_judged = 0;
  uint64_t queries_total = 0;
  // Per property (RunReport::tallies): the items its check compared, and those it passed over
  // by reason. An older summary has neither (empty).
  std::map<std::string, uint64_t> judged_by_property;
  std::map<std::string, std::map<std::string, uint64_t>> not_judged_by_property;
  int64_t virtual_ms = 0;
  uint64_t events = 0;
  uint64_t records_reprocessed = 0;  // RunReport::records_reprocessed
  // exactly_once_v2: RunReport::dirty_reads as counts (dirty_read_counts: "answers", "dirty",
  // "aborted", ..., "uncommitted_ms_sum", "uncommitted_ms_max"); empty under at-least-once.
  std::map<std::string, uint64_t> dirty_reads;
  // RunReport::processing_guarantee and RunReport::staleness as counts (staleness_counts); an
  // older summary has neither ("" and empty).
  std::string processing_guarantee;
  std::string kafka_pin = "2024-10-25";  // RunReport::kafka_pin; an older summary: the old pin
  std::map<std::string, uint64_t> staleness;
  // How the query clients' attempts ended, counted from the trace when the run kept it (fuzz and
  // explore seeds do): "ok" (answered), a FailureReason name, "error", "timeout", "not-routed"
  // (reports::outcome_class) -> attempts. Empty in older summaries and for `run` without --report.
  std::map<std::string, uint64_t> query_outcomes;
  std::string digest;
  std::string reproduce;                // "iqsim replay FILE --seed S"
  std::vector<std::string> probes_hit;  // RunReport::probes_hit, sorted
  // How the run's queries ended by phase (reports::query_outcomes_by_phase), flattened as
  // "PHASE/OUTCOME" -> partition results ("liveness/answered"); empty when the run kept no
  // trace, or in a summary written before it existed.
  std::map<std::string, uint64_t> query_outcomes_by_phase;
  // At the 2026-08-20 pin: the same attempts as query_outcomes by the isolation level each was
  // answered under (its withIsolationLevel, else default.interactive.query.isolation.level), as
  // "LEVEL/OUTCOME" ("READ_COMMITTED/ok"); empty at the old pin and in older summaries.
  std::map<std::string, uint64_t> query_outcomes_by_level;
  // --strict: no violation at all, known Kafka behaviours included.
  bool passed_strict() const { return passed && violations_by_property.empty(); }
  bool operator==(const SeedResult&) const = default;
};

// Per property, one line each: "ResultMatchesModel: 9,000 judged, 120 not judged (a key with a
// record dropped beyond grace 100, ...)"; properties with nothing passed over say so briefly.
std::vector<std::string> judgement_lines(
    const std::map<std::string, uint64_t>& judged,
    const std::map<std::string, std::map<std::string, uint64_t>>& not_judged);

// One line: "412 of 9,000 answers (aborted 3, ...), uncommitted for 52 ms on average, 480 at most".
std::string dirty_reads_text(const std::map<std::string, uint64_t>& counts);
// The by-level part of dirty-read counts (2026-08-20 pin): "; READ_COMMITTED 0 of 120 answers
// dirty (0 aborted), READ_UNCOMMITTED 14 of 130 (2 aborted)", or "" without level keys.
std::string dirty_reads_by_level_text(const std::map<std::string, uint64_t>& counts);

// Per guarantee and role: answers, then median, p90 and max in records and in virtual ms, as JSON
// ({"exactly_once_v2": {"standby": {"answers": N, "records": {"median", "p90", "max"}, "ms":
// {...}}}}) and as text lines ("    exactly_once_v2 standby: 812 answers, records 3/40/210,
// ms 120/1500/9000 (median/p90/max)").
nlohmann::json staleness_json(const std::map<std::string, properties::AnswerStaleness>& by);
std::vector<std::string> staleness_lines(
    const std::map<std::string, properties::AnswerStaleness>& by);

// Wall-clock figures of one invocation, for people; never compared.
// What a sweep measured about itself on this machine: not part of its verdict, absent from merged
// summaries, and ignored when summaries are compared (scripts/sweep/same-summary).
struct Timing {
  double wall_seconds = 0;
  int32_t jobs = 1;
  // Peak resident set (KiB) of each seed's child process, for the seeds this process ran (none
  // with --in-process, none for seeds resumed from a journal).
  std::map<uint64_t, int64_t> peak_rss_kib_by_seed;
  // This process's own peak: with children per seed it must not grow with the seed count beyond
  // the summary's own size.
  int64_t parent_peak_rss_kib = 0;

  std::optional<int64_t> peak_rss_kib_median() const;  // the lower median; none without seeds
  // The largest child peak and the seed that reached it.
  std::optional<std::pair<uint64_t, int64_t>> peak_rss_kib_max() const;
};

struct SweepSummary {
  std::string tool_version = kToolVersion;
  std::string command;   // "run", "fuzz", or "merge"
  std::string scenario;  // the file as given on the command line
  std::string title;
  uint64_t first_seed = 0;  // the sweep's seeds: [first_seed, first_seed + seed_count)
  uint64_t seed_count = 0;
  std::vector<std::string> shards;  // "I/N" of every shard included, sorted
  bool stopped_early = false;       // --stop-on-failure cut the sweep short
  // SIGINT or SIGTERM stopped the sweep: results hold the seeds that finished, with gaps.
  bool partial = false;
  std::vector<SeedResult> results;  // ascending seed
  std::optional<Timing> timing;     // absent in merged summaries

  // Totals, derived from results.
  uint64_t runs() const { return results.size(); }
  uint64_t passed() const;
  uint64_t failed() const { return runs() - passed(); }
  // Seeds that pass or fail under --strict (a known Kafka behaviour fails the seed too).
  uint64_t passed_strict() const;
  uint64_t failed_strict() const { return runs() - passed_strict(); }
  // Violations by class, and seeds with at least one violation of each class.
  std::map<std::string, uint64_t> violations_by_class() const;
  std::map<std::string, uint64_t> seeds_by_class() const;
  uint64_t queries_judged() const;
  uint64_t queries_total() const;
  // Summed over the results: per property, items judged, and items not judged by reason.
  std::map<std::string, uint64_t> judged_by_property() const;
  std::map<std::string, std::map<std::string, uint64_t>> not_judged_by_property() const;
  uint64_t records_reprocessed() const;
  uint64_t runs_with_reprocessing() const;
  // Dirty reads summed over the seeds ("uncommitted_ms_max" the largest), and the seeds with one.
  std::map<std::string, uint64_t> dirty_reads() const;
  // The same by Kafka pin (SeedResult::kafka_pin -> counts), each merged as dirty_reads() merges;
  // a pin's counts hold, at the 2026-08-20 pin, the by-level keys ("READ_COMMITTED/dirty", ...).
  std::map<std::string, std::map<std::string, uint64_t>> dirty_reads_by_pin() const;
  uint64_t runs_with_dirty_reads() const;
  // The answers' staleness merged over the seeds of each processing guarantee (seeds without a
  // guarantee, from older summaries, are left out).
  std::map<std::string, properties::AnswerStaleness> staleness_by_guarantee() const;
  std::map<std::string, uint64_t> runs_by_guarantee() const;
  std::vector<std::string> properties_checked() const;  // the union, sorted
  std::map<std::string, uint64_t> violations_by_property() const;
  std::map<std::string, uint64_t> expected_violations_by_property() const;
  std::map<std::string, uint64_t> after_reprocessing_by_property() const;
  std::map<std::string, uint64_t> unexpectedly_held_by_property() const;
  // Every registered probe (hit or not): the seeds that hit it and the first of them.
  struct ProbeRow {
    std::string description;
    uint64_t seeds = 0;
    std::optional<uint64_t> first_seed;
  };
  std::map<std::string, ProbeRow> probe_table() const;
  // SeedResult::query_outcomes_by_phase summed over the seeds, unflattened: phase -> outcome ->
  // count.
  std::map<std::string, std::map<std::string, uint64_t>> query_outcomes_by_phase() const;
};

SeedResult seed_result(const properties::RunReport& report);

nlohmann::json to_json(const SweepSummary& summary);
// Reads what to_json wrote; `source` names the input in error messages.
base::Expected<SweepSummary, std::string> summary_from_json(const nlohmann::json& json,
                                                            const std::string& source);

// One seed's result as a JSON object (a summary's `results` entry, a journal line) and back.
nlohmann::json seed_result_to_json(const SeedResult& result);
// `where` names the object in error messages ("FILE: results[3]").
base::Expected<SeedResult, std::string> seed_result_from_json(const nlohmann::json& json,
                                                              const std::string& where);

// Shards of one sweep into one summary: results united (sorted by seed), totals summed. Refuses
// summaries of different scenario files, titles or tool versions (naming the input that
// differs), any seed present in two of them, and, unless `allow_gaps`, a seed of the merged range
// [min first, max first + count) that no input holds (naming the missing seeds as ranges).
// `sources` name the inputs in error messages (same order as `summaries`).
base::Expected<SweepSummary, std::string> merge_summaries(
    const std::vector<SweepSummary>& summaries, const std::vector<std::string>& sources,
    bool allow_gaps = false);

// Seeds [first, last], both included.
struct SeedRange {
  uint64_t first = 0;
  uint64_t last = 0;
};
// Ranges for a message: {1..3, 7..7, 9..10} -> "1..3, 7, 9..10"; at most `ranges_max` ranges,
// then " and N more ranges".
std::string seed_ranges_text(const std::vector<SeedRange>& ranges, size_t ranges_max = 20);

// JUnit XML: one <testsuite> for the invocation, one <testcase> per seed, a <failure> with the
// violations and the reproduce command for each failing seed.
std::string to_junit(const SweepSummary& summary);
// Escapes text for XML 1.0 character data and attribute values; characters XML 1.0 cannot carry
// at all (control characters other than tab, newline, carriage return) become U+FFFD.
std::string xml_escape(std::string_view text);

}  // namespace iq::cli
