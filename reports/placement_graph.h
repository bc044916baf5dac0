#pragma once
// Placement and movement across time as a Graphviz diagram: the run is cut into placement epochs
// (a new epoch whenever any replica's role changes, as the snapshots and lag samples saw it); each
// epoch is a column of instance boxes listing the partitions each held and in which role, and a
// red edge follows each partition's active replica from the instance that held it to the one that
// holds it next (dashed green for standbys that moved).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dot_writer.h"
#include "report_common.h"
#include "trace/run_trace.h"

namespace iq::reports {

struct PlacementEpoch {
  int64_t start_ms = 0;
  // instance -> partition -> role_label()
  std::map<std::string, std::map<int32_t, std::string>, InstanceLess> roles;
};

struct PlacementCaps {
  size_t epochs_max = 14;  // the first epochs_max - 1 and the last are drawn
  DotCaps dot{};
};

// Every epoch of the run, in time order (uncapped: callers cap when drawing).
std::vector<PlacementEpoch> placement_epochs(const sim::RunTrace& trace);

// The diagram's DOT (cut notes inside the writer).
DotWriter placement_dot(const std::vector<PlacementEpoch>& epochs, const PlacementCaps& caps);

}  // namespace iq::reports
