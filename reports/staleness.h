#pragma once
// Staleness of answered queries: for each successful partition result, how far the replica that
// served it was behind (a) the changelog's end offset and (b) the most advanced replica of the same
// partition, both in records and read from the placement snapshot taken when it answered.
// Grouped by the serving replica's role and by query type; median, p99 and max per group, as a
// table and a bar chart.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "history/run_trace.h"

namespace iq::reports {

struct StalenessStats {
  uint64_t count = 0;
  int64_t median = 0;
  int64_t p99 = 0;
  int64_t max = 0;
};

// Nearest-rank percentile (q in [0, 1]) of values; sorts them. Empty: all zero.
StalenessStats summarize(std::vector<int64_t> values);

struct StalenessGroup {
  std::string dimension;  // "role" or "query type"
  std::string name;       // "standby", "RangeQuery", ...
  StalenessStats behind_log_end;
  StalenessStats behind_newest_replica;
};

struct Staleness {
  std::vector<StalenessGroup> groups;  // roles first, then query types, each sorted by name
  uint64_t answers = 0;                // successful partition results looked at
  uint64_t without_snapshot = 0;       // not counted: no snapshot of the serving replica
};

Staleness compute_staleness(const sim::RunTrace& trace);

// The table (HTML) and a bar chart (inline SVG) of a Staleness.
std::string render_staleness_table(const Staleness& staleness);
std::string render_staleness_svg(const Staleness& staleness);

}  // namespace iq::reports
