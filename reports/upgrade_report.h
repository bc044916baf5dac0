#pragma once
// The upgrade report (`iqsim upgrade`): the same seeds of one template run under both pinned Kafka
// versions (iq/kafka_pin.h), every other draw alike, so that a user about to upgrade sees what
// changes for their queries. One self-contained HTML page: the seeds where a verdict class or a
// property's violation appears under one pin only (each linking its run page), staleness and
// availability by replica role and guarantee side by side, READ_COMMITTED against
// READ_UNCOMMITTED under the new pin (answers, dirty reads, refusals by reason), the explorer's
// every-measure table, and the cost of each pin (CPU and events per seed).
//
//   UpgradeInput in = ...;                     // cli/upgrade.cc fills it from the two sweeps
//   std::vector<SeedSetDiff> d = diff_seed_sets(in.old_pin.seeds_by_class,
//                                               in.new_pin.seeds_by_class);
//   std::string html = render_upgrade_report(in);
//
// The page holds no wall-clock time; the CPU times it is given are measured (wait4).

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "checks/answer_staleness.h"
#include "explore_report.h"

namespace iq::reports {

// Key (a class key such as "alos_reprocessing", or a property) -> the seeds where it appeared.
using SeedSets = std::map<std::string, std::set<uint64_t>>;

// One key under the two pins: how many seeds each, and the seeds it appeared in under one only.
struct SeedSetDiff {
  std::string key;
  uint64_t seeds_old = 0;
  uint64_t seeds_new = 0;
  std::vector<uint64_t> old_only;  // ascending
  std::vector<uint64_t> new_only;  // ascending
  bool changed() const { return !old_only.empty() || !new_only.empty(); }
  bool operator==(const SeedSetDiff&) const = default;
};
// Every key of either side, in key order (a key with no seed on either side is left out).
std::vector<SeedSetDiff> diff_seed_sets(const SeedSets& old_pin, const SeedSets& new_pin);

// One pin's sweep of the template, as the page needs it.
struct UpgradePin {
  std::string pin{};   // "2024-10-25"
  std::string file{};  // the template with the pin forced, which reproduces each seed
  uint64_t seeds = 0;
  uint64_t failed = 0;
  SeedSets seeds_by_class{};     // "failure" and each declared Kafka behaviour met
  SeedSets seeds_by_property{};  // properties with a violation (any class)
  // Guarantee -> replica role -> staleness (SweepSummary::staleness_by_guarantee).
  std::map<std::string, properties::AnswerStaleness> staleness_by_guarantee{};
  // Guarantee -> outcome class ("ok", a FailureReason, "error", ...) -> attempts.
  std::map<std::string, std::map<std::string, uint64_t>> outcomes_by_guarantee{};
  // New pin: effective isolation level -> outcome class -> attempts.
  std::map<std::string, std::map<std::string, uint64_t>> outcomes_by_level{};
  // The sweep's dirty-read totals (properties::dirty_read_counts' keys, "LEVEL/dirty" included).
  std::map<std::string, uint64_t> dirty_reads{};
  std::vector<double> cpu_ms{};             // per seed, the child's user + system CPU ms
  std::vector<uint64_t> events{};           // per seed, simulator events
  std::map<uint64_t, std::string> pages{};  // seed -> its run page, relative to the report
};

struct UpgradeInput {
  std::string scenario{};  // the template
  std::string title{};
  uint64_t first_seed = 0;
  uint64_t seed_count = 0;
  UpgradePin old_pin{};
  UpgradePin new_pin{};
  ExploreInput measures{};  // the two pins as explorer configurations (render_explore_measures)
};

std::string render_upgrade_report(const UpgradeInput& in);

}  // namespace iq::reports
