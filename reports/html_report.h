#pragma once
// One self-contained HTML file per run or sweep: inline CSS and SVG, one tiny inline script (it
// marks the page as loaded, for the browser test), nothing fetched from the network. The same run
// always gives the same bytes: no wall-clock time is written.
//
//   RunReport r = run_scenario(scenario, {.keep_trace = true});
//   const std::string toml = sim::to_toml(scenario);
//   std::string html = render_run_report(r, &toml, {});
//
// Sections (ids): summary, violations (violation-N each), timelines (timeline-pN each),
// placement, staleness.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "checks/check.h"
#include "checks/run_report.h"
#include "dot_writer.h"
#include "placement_graph.h"
#include "position_timeline.h"

namespace iq::reports {

struct ReportCaps {
  TimelineCaps timeline{};
  PlacementCaps placement{};
  DotCaps cluster_dot{.nodes_max = 120, .edges_max = 60, .bytes_max = 64 * 1024};
  size_t violation_sections_max = 50;  // sections written in full
  size_t violation_diagrams_max = 12;  // of those, with a rendered cluster diagram
};

// `scenario_toml`: the concrete scenario as a file (sim::to_toml, every choice drawn), shown as
// the configuration; it may be null (then the page says only what the trace knows). Text rather
// than a Scenario, so that reports/ reads no simulator type.
// Without a trace (RunOptions::keep_trace off) the page has the summary and violations only.
std::string render_run_report(const properties::RunReport& report, const std::string* scenario_toml,
                              const ReportCaps& caps = {});

// A sweep: verdicts per property, violations grouped by property and by cause, the seeds that
// reproduce each, with links to per-seed run pages where they were written.
struct SweepRun {
  uint64_t seed = 0;
  bool passed = true;
  std::vector<properties::Violation> violations;  // may be the first few only
  uint64_t violations_total = 0;
  // Every violation counted by property (the list above may be cut); empty: count the list.
  std::map<std::string, uint64_t> violations_by_property;
  std::vector<std::string> unexpectedly_held;
  std::vector<std::string> properties_checked;
  uint64_t queries_judged = 0;
  std::string reproduce;
  std::string page;  // relative link to the seed's run report, or empty
  // Every unexpected violation counted by properties::class_key ("failure",
  // "alos_reprocessing"); empty: count the classes of the list above.
  std::map<std::string, uint64_t> violations_by_class;
};

struct SweepInput {
  std::string command;  // "fuzz"
  std::string scenario;
  std::string title;
  uint64_t first_seed = 0;
  uint64_t seed_count = 0;
  std::string shard;
  std::vector<SweepRun> runs;  // in seed order
  // exactly_once_v2: the sweep's dirty reads as summed counts (properties::dirty_read_counts
  // keys), and the seeds with one; empty under at-least-once.
  std::map<std::string, uint64_t> dirty_reads;
  uint64_t runs_with_dirty_reads = 0;
  // The same by Kafka pin (cli's SweepSummary::dirty_reads_by_pin), each pin's counts holding, at
  // the 2026-08-20 pin, the by-level keys ("READ_COMMITTED/dirty"): a row per pin and level.
  std::map<std::string, std::map<std::string, uint64_t>> dirty_reads_by_pin;
  // The answers' staleness by processing guarantee (cli's SweepSummary::staleness_by_guarantee)
  // and each guarantee's seeds: a table that compares the guarantees when the sweep drew both.
  std::map<std::string, properties::AnswerStaleness> staleness_by_guarantee;
  std::map<std::string, uint64_t> runs_by_guarantee;
  // How the seeds' queries ended by phase of the run, summed (query_phases.h); empty: no picture.
  std::map<std::string, std::map<std::string, uint64_t>> query_outcomes;
  // Every coverage probe of the build and how many seeds reached it (0 included).
  std::map<std::string, uint64_t> probe_seeds;
};

std::string render_sweep_report(const SweepInput& sweep, const ReportCaps& caps = {});

// The "cause" a violation is grouped under: its summary with every number replaced by N.
std::string violation_cause(const std::string& summary);

}  // namespace iq::reports
