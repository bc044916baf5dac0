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
// `render_diagram` false leaves the diagram out (the report caps how many it renders).
std::string render_violation_section(const properties::Violation& violation,
                                     const sim::QueryRecord* record, const std::string& anchor,
                                     const std::string& reproduce, bool expected_failure,
                                     bool render_diagram, const DotCaps& caps);

}  // namespace iq::reports
