#pragma once
// Quiescence: the cluster has nothing left to do for the records produced so far.
//
// A "live" instance is one whose process runs, was started (not only created), is not paused and
// is not cut from the broker: the only processes that can make progress. Paused, cut-off, down
// and removed instances are not required to be anywhere; a dead member the group still lists
// makes the cluster not quiescent until its session expires.
//
// The cluster is quiescent when all of these hold, checked in this order (the first one that
// fails is the gap reported):
//   1. the group: the coordinator's state is Stable; its members are exactly the stream threads
//      of the live instances; every one of those threads got its SyncGroup answer (stable()) in
//      the group's current generation; every live instance's KafkaStreams is RUNNING. So no
//      rebalance is in progress or pending.
//   2. per source partition: exactly one live instance holds an active task of the store's
//      partition, and that task is RUNNING on a RUNNING client;
//   3. per source partition: the group's committed offset equals the source end offset (every
//      record processed and committed; no committed offset counts as 0);
//   4. per source partition: every standby (and warmup) on a live instance has caught up with its
//      changelog: lag 0 by LagInfo's convention, or else nothing a READ_COMMITTED reader could
//      still apply after its offset (under exactly-once a trailing transaction marker keeps a
//      caught-up standby's lag at 1, as in Kafka; an open transaction's records are not readable).

#include <optional>
#include <string>

#include "cluster/cluster.h"

namespace iq::sim {

// Whether instance n can make progress now (see above).
bool is_live(Cluster& cluster, int32_t n);

// nullopt when quiescent; otherwise the first condition that does not hold, in words.
std::optional<std::string> quiescence_gap(Cluster& cluster);

}  // namespace iq::sim
