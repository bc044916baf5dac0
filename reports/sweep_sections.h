#pragma once
// The parts of a sweep page that say what the sweep shows (html_report.cc assembles the page):
// the behaviours met with their seeds and first pages, the pictures, the findings catalogue's
// entries for what was met. Exposed for reports_test.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "charts.h"
#include "checks/answer_staleness.h"
#include "html_report.h"

namespace iq::reports {

// What one class (properties::class_key) did over a sweep.
struct ClassOverSweep {
  std::vector<uint64_t> seeds;  // ascending
  uint64_t violations = 0;
  std::string first_page;  // the run page of its first seed that has one, or empty
  uint64_t first_page_seed = 0;
};
// Class key -> what it did: from each run's violations_by_class, or its listed violations.
std::map<std::string, ClassOverSweep> classes_over_sweep(const SweepInput& sweep);

// "at-least-once reprocessing" for "alos_reprocessing" (properties::to_string without its
// "known Kafka behaviour: " prefix); "failure" for "failure"; the key itself when unknown.
std::string class_words(const std::string& key);

// Section `shows`: "What this sweep shows about Kafka's IQ semantics".
std::string render_sweep_shows(const SweepInput& sweep,
                               const std::map<std::string, ClassOverSweep>& classes);
// Section `charts`: staleness, query outcomes by phase, probe coverage.
std::string render_sweep_charts(const SweepInput& sweep);

// Staleness behind the source log by role and guarantee (rows "ROLE / GUARANTEE"), median, p90
// and max in records (`ms` false) or virtual ms; a log scale.
BarChart staleness_chart(const std::map<std::string, properties::AnswerStaleness>& by_guarantee,
                         bool ms, const std::string& id);
// The same answers' distribution: per row the share of answers whose staleness falls in each
// decade (0, 1-9, 10-99, 100-999, 1000 and more; in ms the same bounds), read from the
// histogram's buckets by their lower bounds.
BarChart staleness_distribution_chart(
    const std::map<std::string, properties::AnswerStaleness>& by_guarantee, bool ms,
    const std::string& id);
// Seeds that reached each probe, most reached first (unreached last, in grey).
BarChart probe_chart(const std::map<std::string, uint64_t>& probe_seeds, uint64_t runs,
                     const std::string& id);

}  // namespace iq::reports
