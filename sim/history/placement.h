#pragma once
// take_placement: a read-only snapshot of where the given partitions of a store live right now,
// read straight from the cluster's instances (an omniscient observer, not a network call): for
// each instance and partition, the replica's role, task state, owning thread's state, the client
// state, the store's position, its changelog offset, the changelog's end offset and the lag.

#include <set>
#include <string>

#include "cluster/cluster.h"
#include "history/query_record.h"

namespace iq::sim {

PlacementSnapshot take_placement(Cluster& cluster, const std::string& store,
                                 const std::set<int32_t>& partitions);

}  // namespace iq::sim
