#pragma once
// Staleness of answered queries: for each successful partition result, how far the replica that
// served it was behind (a) the changelog's end offset and (b) the most advanced replica of the same
// partition, read from the placement snapshot taken when it answered. Two units:
// - records: changelog records not yet applied (end offset, or the newest replica's applied count,
//   minus the serving replica's);
// - virtual ms: the age, when it answered, of the oldest source record the answer's position did
//   not include (behind the log end: any record appended by then; behind the newest replica: only
//   if some replica's position included it, else 0). The age runs from the record's append to the
//   source topic, so behind-newest is an upper bound on how long a newer replica existed.
// Grouped by the serving replica's role and by query type; median, p99 and max per group, as a
// table and a bar chart per unit.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "checks/answer_staleness.h"
#include "trace/run_trace.h"

namespace iq::reports {

struct StalenessStats {
  uint64_t count = 0;
  int64_t median = 0;
  int64_t p99 = 0;
  int64_t max = 0;
};

// Nearest-rank percentile (q in [0, 1]) of values; sorts them. Empty: all zero.
StalenessStats summarize(std::vector<int64_t> values);

enum class StalenessUnit { kRecords, kVirtualMs };
const char* to_string(StalenessUnit unit);  // "records", "virtual ms"

struct StalenessGroup {
  std::string dimension;                    // "role" or "query type"
  std::string name;                         // "standby", "RangeQuery", ...
  StalenessStats behind_log_end;            // records
  StalenessStats behind_newest_replica;     // records
  StalenessStats ms_behind_log_end;         // virtual ms
  StalenessStats ms_behind_newest_replica;  // virtual ms

  const StalenessStats& log_end(StalenessUnit u) const {
    return u == StalenessUnit::kRecords ? behind_log_end : ms_behind_log_end;
  }
  const StalenessStats& newest_replica(StalenessUnit u) const {
    return u == StalenessUnit::kRecords ? behind_newest_replica : ms_behind_newest_replica;
  }
};

struct Staleness {
  std::vector<StalenessGroup> groups;  // roles first, then query types, each sorted by name
  uint64_t answers = 0;                // successful partition results looked at
  uint64_t without_snapshot = 0;       // not counted in records: no snapshot of the replica
  uint64_t without_position = 0;       // not counted in ms: no source position to place it
};

Staleness compute_staleness(const sim::RunTrace& trace);

// The table (HTML) and a bar chart (inline SVG) of a Staleness in one unit.
std::string render_staleness_table(const Staleness& staleness, StalenessUnit unit);
std::string render_staleness_svg(const Staleness& staleness, StalenessUnit unit);

// The answers' staleness behind the source log by processing guarantee and serving role
// (properties::AnswerStaleness, merged over a sweep's seeds or of one run): answers, then median,
// p90 and max in source records and in virtual ms, rows ordered by role (active, restoring,
// standby, warmup, then others) with the guarantees side by side. `runs` gives each guarantee's
// seed count (absent: not shown). Medians and p90s are bucket lower bounds (1/8 above 32).
std::string render_guarantee_staleness_table(
    const std::map<std::string, properties::AnswerStaleness>& by_guarantee,
    const std::map<std::string, uint64_t>& runs = {});

}  // namespace iq::reports
