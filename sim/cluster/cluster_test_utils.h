#pragma once
// Helpers shared by the tests that run a Cluster (cluster, scenario, determinism and workload
// tests): the Count topology configuration they all start from, key placement, and the checks
// every scenario ends with. Test-only; nothing in iqsim_sim includes it.

#include <gtest/gtest.h>

#include "cluster/cluster.h"
#include "iq/default_partitioner.h"
#include "iq/serdes.h"

namespace iq::sim::testing_utils {

// `instances` instances of a Count topology ("words" -> "counts") over `partitions`
// partitions, committing every 100 ms, links of 1 ms unless the test changes them.
inline ClusterConfig count_config(uint64_t seed, int32_t instances, int32_t partitions) {
  ClusterConfig c;
  c.seed = seed;
  c.instances = instances;
  c.streams.application_id = "app";
  c.streams.commit_interval_ms = 100;
  c.topology.kind = TopologyKind::Count;
  c.topology.source_topic = "words";
  c.topology.source_partitions = partitions;
  c.topology.store_name = "counts";
  return c;
}

// The partition the default partitioner gives `key`.
inline int32_t partition_of(int32_t key, int32_t partitions) {
  return partition_for_key(Serde<int32_t>::serialize(key).view(), partitions);
}

// The instance whose application.server is `host`, or nullptr.
inline Instance* instance_at(Cluster& cluster, const HostInfo& host) {
  for (int32_t n = 1; n <= cluster.instance_count(); ++n) {
    if (cluster.instance(n).host() == host) return &cluster.instance(n);
  }
  return nullptr;
}

// No instance recorded an error (thread failure or rebalance-callback error).
inline void expect_no_errors(Cluster& cluster) {
  for (int32_t n = 1; n <= cluster.instance_count(); ++n) {
    const auto& errors = cluster.instance(n).errors();
    EXPECT_TRUE(errors.empty()) << cluster.seed_text() << " instance-" << n << ": "
                                << (errors.empty() ? "" : errors.front());
  }
}

}  // namespace iq::sim::testing_utils
