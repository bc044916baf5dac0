#pragma once
// take_placement: a read-only snapshot of where the given partitions of a store live right now,
// read straight from the cluster's instances (an omniscient observer, not a network call): for
// each instance and partition, the replica's role, task state, owning thread's state, the client
// state, the store's position, its changelog offset, the changelog's end offset and the lag.
// This is the recorder's side of the trace (trace/query_record.h): it reads the live runtime and
// copies what it saw into plain values, the runtime's states into the trace's own enums.

#include <set>
#include <string>

#include "cluster/cluster.h"
#include "trace/query_record.h"

namespace iq::sim {

// The runtime's states as the trace records them (same names, Kafka's).
ReplicaSnapshot::StreamsState recorded(KafkaStreamsState s);
ReplicaSnapshot::ThreadState recorded(ThreadState s);
ReplicaSnapshot::TaskState recorded(TaskState s);

PlacementSnapshot take_placement(Cluster& cluster, const std::string& store,
                                 const std::set<int32_t>& partitions);

// A store key as the changelog holds it, decoded for the trace: the record key and, for a window
// store ([key][start][seqnum]), the window [start, start + size) and the sequence number; for a
// session store ([key][end][start]), the session [start, end], both inclusive.
struct DecodedStoreKey {
  int32_t key = 0;
  std::optional<int64_t> window_start_ms;
  std::optional<int64_t> window_end_ms;
  std::optional<int32_t> window_seqnum;
};
DecodedStoreKey decode_store_key(const TopologyConfig& topology, const Bytes& store_key);

}  // namespace iq::sim
