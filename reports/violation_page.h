#pragma once
// One violation as a section of the report: the counterexample as numbered steps (the faults
// before it, then the query and its answer), expected versus returned, the replica that answered
// with its role, position and lag, a Graphviz diagram of the cluster at that instant (every
// instance, its replicas of the queried partitions coloured by role, the serving one outlined),
// and the one-line command that reproduces it.

#include <string>

#include "checks/check.h"
#include "dot_writer.h"
#include "trace/run_trace.h"

namespace iq::reports {

// The cluster at the query's instant (the snapshot at answer, else at invoke), as DOT.
DotWriter cluster_dot(const sim::QueryRecord& record, const DotCaps& caps);

// The section's HTML, with id `anchor`. `record` may be null (a violation about no single query);
// `render_diagram` false leaves the diagram out (the report caps how many it renders). With the
// run's `topology`, a window, session or versioned answer is also spelled out per partition
// (window start and end, session bounds, version validity).
std::string render_violation_section(const properties::Violation& violation,
                                     const sim::QueryRecord* record, const std::string& anchor,
                                     const std::string& reproduce, bool expected_failure,
                                     bool render_diagram, const DotCaps& caps,
                                     const TopologyConfig* topology = nullptr);

// A window, session or versioned partition answer in words, one entry per line: "key 1, window
// [0, 10000) ms: 4" (a WindowKeyQuery entry's end from the window size), "key 1, session [1000,
// 5000] ms: 2", "12, valid from 3000 ms (latest)"; "" for any other answer.
std::string readable_answer(const TopologyConfig& topology, const sim::QueryRecord& record,
                            const sim::PartitionOutcome& outcome);

}  // namespace iq::reports
