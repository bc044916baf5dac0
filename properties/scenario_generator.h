#pragma once
// RapidCheck generators of whole cluster scenarios: the world (instances, stream threads, standby
// replicas, group timings), the topology (kind, store supplier, caching, logging, partitions,
// keys), the consistency switch, a producer, query clients with their mix, and a fault schedule
// (crash with restart on a kept or wiped disk, pause, network isolation, clean close, scale-out,
// scale-in). Every part is built from RapidCheck's own shrinkable generators, so a failing
// scenario shrinks towards fewer instances, fewer records, fewer faults and a shorter run.
//
//   RC_GTEST_PROP(ClusterProperties, EveryPropertyHolds, ()) {
//     const sim::Scenario s = *gen_scenario();
//     ...
//   }

#include <rapidcheck.h>

#include "scenario/scenario.h"

namespace iq::properties {

// Bounds of the generated worlds, small enough that one case runs in well under a second.
struct ScenarioGenLimits {
  int32_t instances_max = 4;
  int32_t partitions_max = 4;
  int32_t keys_max = 32;
  int32_t faults_max = 4;
  int64_t duration_ms_max = 20'000;
  int64_t records_per_second_max = 200;
};

rc::Gen<sim::Scenario> gen_scenario(ScenarioGenLimits limits = {});

}  // namespace iq::properties
