#pragma once
// The configuration explorer's report (`iqsim explore`): the same seeds run under every point of a
// grid of settings, compared side by side. One self-contained HTML page: a chart of how the
// queries ended (answered, refused by reason) per configuration, a chart of answer staleness by
// replica role, each with its table one click away (<details>), then a table of every measure in
// which the cells that differ between configurations are marked.
//
//   ExploreInput in = ...;                       // cli/explore.cc fills it from the summaries
//   for (const ExploreMetric& m : explore_metrics(in)) ...   // the text table uses the same
//   std::string html = render_explore_report(in);
//
// The page holds no wall-clock time except the CPU cost it is given, which is measured.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "charts.h"

namespace iq::reports {

// Staleness of the answers one replica role served, over every seed of a configuration: in source
// records behind the log end and in virtual ms (properties/checks/answer_staleness.h).
struct ExploreRole {
  std::string role;  // "active", "restoring", "standby", "warmup"
  uint64_t answers = 0;
  int64_t records_p50 = 0, records_p90 = 0, records_max = 0;
  int64_t ms_p50 = 0, ms_p90 = 0, ms_max = 0;
};

struct ExploreConfiguration {
  std::string name;                                           // "num.standby.replicas=1, ..."
  std::vector<std::pair<std::string, std::string>> settings;  // grid key -> value, grid order
  std::string file;                                           // its template, as written
  uint64_t seeds = 0;
  uint64_t failed = 0;  // seeds with a failure
  // How the query clients' attempts ended: "ok" (answered), a FailureReason name, "error",
  // "timeout", "not-routed" (reports/report_common.h outcome_class) -> attempts.
  std::map<std::string, uint64_t> outcomes;
  std::vector<ExploreRole> staleness;  // active, restoring, standby, warmup (those with answers)
  // Declared Kafka behaviour (its class key, properties::class_key) -> seeds that met it.
  std::map<std::string, uint64_t> behaviours;
  std::optional<double> cpu_ms_per_seed;  // the seeds' children, user + system; none if unmeasured
  std::vector<std::string> failing;       // reproduce commands of the first failing seeds
};

struct ExploreInput {
  std::string scenario;  // the template
  std::string title;
  uint64_t first_seed = 0;
  uint64_t seed_count = 0;
  std::vector<std::string> shards;
  std::vector<std::string> grid_keys;
  std::vector<ExploreConfiguration> configurations;  // grid order, the first key slowest
};

// One measure per configuration, with which way is worse, so both the text table and the page can
// mark what differs.
struct ExploreMetric {
  std::string name;                           // "answered %", "standby ms p90", ...
  std::vector<std::optional<double>> values;  // per configuration; none: not measured there
  bool higher_is_worse = true;
  bool differs() const;  // two measured values differ
};
std::vector<ExploreMetric> explore_metrics(const ExploreInput& input);

// The share of a configuration's attempts that ended as `outcome` ("ok", "NOT_UP_TO_BOUND", ...).
double outcome_share(const ExploreConfiguration& c, const std::string& outcome);

std::string render_explore_report(const ExploreInput& input);

// Pieces other comparison pages share (the upgrade report, upgrade_report.h):
// one stacked row per label, scaled to 100%: the share of attempts that ended each way ("ok"
// first, then Kafka's reasons, then what never reached a store), in outcome_colour's colours.
BarChart outcome_shares_chart(const std::string& id, const std::string& title,
                              const std::vector<std::string>& labels,
                              const std::vector<std::map<std::string, uint64_t>>& rows);
// The table of every measure (explore_metrics), a column per configuration, differences marked.
std::string render_explore_measures(const ExploreInput& input);

}  // namespace iq::reports
