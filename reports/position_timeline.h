#pragma once
// Per partition, every replica's progress over virtual time: one lane per instance, the lane's
// line coloured by the replica's role at each instant, drawn against the changelog's end offset;
// faults as vertical lines across all lanes, placement changes as ticks on the time axis, and
// each query as a dot in the lane of the instance that served it, at the height of that
// replica's progress when it answered, coloured by outcome (a violating query is ringed and links
// to its violation section); at-least-once reprocessing as a pink band atop the lane of the
// instance that processed records a second time.
//
//   std::vector<PartitionTimeline> t = build_timelines(trace, violation_anchors, {});
//   std::string svg = render_timeline_svg(t[0], trace.faults, trace.end_ms);
//
// Data come from the placement snapshots of every query (at invoke and at answer) and from the
// observer's side of every lag sample. The unit is the changelog: applied records (offset + 1)
// against the end offset, both read by the observer at the same instant.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report_common.h"
#include "trace/run_trace.h"

namespace iq::reports {

struct TimelineCaps {
  size_t partitions_max = 16;
  size_t instances_max = 12;  // lanes per partition
  size_t samples_per_lane_max = 600;
  size_t queries_max = 1'500;   // dots per partition (violating queries are always kept)
  size_t faults_max = 60;       // fault lines drawn
  size_t reprocessed_max = 40;  // reprocessing bands per partition
};

// A range of input records an instance processed a second time (sim::ReprocessedRange).
struct ReprocessingBand {
  std::string instance;
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  std::string label;  // ReprocessedRange::to_string()
};

struct LaneSample {
  int64_t at_ms = 0;
  std::string role;                   // role_label()
  std::optional<int64_t> applied;     // applied_records()
  std::optional<int64_t> end_offset;  // the changelog's end offset
  std::string position;               // the store's position, for the tooltip
};

struct QueryDot {
  int64_t at_ms = 0;
  std::string instance;
  std::optional<int64_t> applied;  // where on the lane; nullopt: drawn at the lane's foot
  std::string outcome;             // outcome_class()
  std::string tooltip;
  std::string anchor;  // "violation-3" when the query violated a property, else empty
};

struct PartitionTimeline {
  int32_t partition = 0;
  std::map<std::string, std::vector<LaneSample>, InstanceLess>
      lanes;                                   // by instance name, time-ordered
  std::vector<QueryDot> queries;               // time-ordered
  std::vector<int64_t> placement_changes_ms;   // a role changed on some lane
  std::vector<ReprocessingBand> reprocessing;  // in the order they began
  // The changelog's end offset over time: the running maximum of what any replica's observer
  // read (one line for every lane, so all lanes are measured against the same end).
  std::vector<std::pair<int64_t, int64_t>> log_end;  // (at_ms, end offset), thinned
  int64_t offset_max = 0;                            // the y scale
  std::vector<std::string> cut_notes;
};

// `violation_anchors`: record id -> the anchor of its (first) violation section.
std::vector<PartitionTimeline> build_timelines(
    const sim::RunTrace& trace, const std::map<uint64_t, std::string>& violation_anchors,
    const TimelineCaps& caps);

// An inline <svg> element; deterministic for the same input.
std::string render_timeline_svg(const PartitionTimeline& timeline,
                                const std::vector<sim::FaultRecord>& faults, int64_t end_ms,
                                const TimelineCaps& caps);

}  // namespace iq::reports
