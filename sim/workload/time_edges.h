#pragma once
// The time bounds the stores and processors of an event-time topology compare against, computed
// from what the run wrote (Cluster::produced_timestamps, Cluster::max_timestamp_ms(partition)) and
// the topology's window size, advance, grace and retention, so the workloads can draw exactly at,
// just below and just above them (issue 29, "Draw the edges"). Uniform draws over [0, event time]
// land on a given millisecond about once in tens of thousands of draws; a bug that breaks a `<`
// into `<=` at one of these bounds changes no run that never meets it.
//
// A partition's stream time here is the largest timestamp produced to it. A task processes its
// partition in offset order, so when it processes a record that stream time (of the records
// before it) is the one its processor or store has observed, unless a restart reset it (Kafka's
// observed stream time lives in memory).
//
//   const int64_t t = time_edges::near(prng, *time_edges::grace_edge_ms(topology, stream_time));

#include <cstdint>
#include <optional>
#include <vector>

#include "base/prng.h"
#include "iq/topology_config.h"

namespace iq::sim::time_edges {

// The earliest timestamp a record may carry and still be kept by the topology's processor or
// store, given its partition's stream time: one ms less is dropped as late (beyond the window
// aggregation's close time, a session's close time, a PAPI writer's store retention or the
// versioned store's grace, which is its history retention). Nullopt for a key-value topology or
// before the edge is above 0.
std::optional<int64_t> grace_edge_ms(const TopologyConfig& topology, int64_t stream_time_ms);

// Window-start bounds a window query compares against: the starts (and ends) of the windows one
// of the key's records went to, drawn from `key_timestamps`, and the store's retention floor (the
// oldest window start a fetch still returns). Empty for a topology without a window store.
std::vector<int64_t> window_query_edges(const TopologyConfig& topology,
                                        const std::vector<int64_t>& key_timestamps,
                                        int64_t stream_time_ms, base::Prng& prng);

// asOf and time-range bounds a versioned query compares against: a version's timestamp (one of
// the key's records, drawn from the newest few) and the history retention's edge (stream time -
// history retention: an asOf or toTime below it is answered beyond retention).
std::vector<int64_t> versioned_query_edges(const TopologyConfig& topology,
                                           const std::vector<int64_t>& key_timestamps,
                                           int64_t stream_time_ms, base::Prng& prng);

// `edge` - 1, `edge` or `edge` + 1, evenly, never below 0.
int64_t near(base::Prng& prng, int64_t edge);

}  // namespace iq::sim::time_edges
