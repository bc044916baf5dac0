#pragma once
// drive_scenario: runs one concrete Scenario on a fresh simulated cluster and returns everything it
// recorded as a RunTrace. sim/ records; properties/ judges the trace.
//
//   Scenario scenario = ...;            // parsed, or built in C++
//   RunTrace trace = drive_scenario(scenario);
//   trace.history.to_string();          // the same for the same scenario and seed
//   trace.digest;                       // the event loop's digest at the end
//
// The run is a function of the scenario (seed included): every random choice comes from a named
// child of Prng(scenario.seed) (Cluster::split): "producer-<test>", "query-clients-<test>",
// "random-faults-<test>" (a second workload of the same kind in one test adds "-<k>"), and
// "liveness". No wall clock is read.
//
// The run, in order:
//  1. The cluster: ClusterConfig from scenario.cluster with seed = scenario.seed; every instance
//     started at time 0, or (start_instances = false) only created, so that KafkaStreams exists in
//     CREATED and a query answers StreamsNotStartedException until a `start` step.
//  2. Lag probes over the whole run, every knobs.lag_probe_interval_ms (0: none): for every
//     running, unpaused instance whose all_local_store_partition_lags() answers, one LagRecord per
//     (store, partition) beside the observer's ReplicaSnapshot of that instance at that instant.
//  3. Each [[test]] in order, as a phase [start, end):
//     - timed workloads start at the phase start with times relative to it (a stop_ms of 0 means
//       the phase's end): producers; query clients (their "produced" bound is the test's first
//       producer's acknowledged position, or without a producer in the test, the broker's source
//       end offsets - 1 per non-empty partition at the attempt's start); scheduled faults with
//       their undo; random faults. Then the world runs to start + duration_ms (or on until a
//       random faults' long outage is undone: RandomFaults::long_outage_until_ms). Workloads are
//       not stopped at the phase end: a query client finishes its retries, an undo still fires.
//     - the scripted steps in order: produce (explicit partition or the default partitioner; no
//       value is a tombstone; no timestamp is "now"), run_until (a time, or quiescence: see
//       quiescence.h; checked every 10 ms of virtual time up to ms_max, else a LivenessFailure),
//       a fault (FaultInjector), a query: KafkaStreams::query called directly on the instance at
//       the current virtual time, as Kafka's tests call their one KafkaStreams (a down or paused
//       instance makes the record not_routed), recorded with source kScripted, placement
//       snapshots and a ScriptedExpectation. An explicit bound and bound_produced (the source end
//       offsets - 1 per non-empty partition) are both recorded as BoundMode::kProduced.
//  4. Liveness (if enabled): random faults stop and every pending fault or undo is cancelled; at
//     faults_stopped_ms = now, isolated instances heal, paused ones resume, down or only created
//     ones (not removed) start on their kept disk (FaultRecords with detail "liveness"); the
//     bound is the source end offsets - 1. Every probe_interval_ms, each partition not yet
//     answered is probed: routed through query_metadata_for_key (a key of the partition in
//     [0, keys); none: the active host of streams_metadata_for_store, with a RangeQuery over every
//     key) on a live home instance drawn from "liveness", then queried directly on the active host
//     with partitions {p}, PositionBound.at(bound) and requireActive false; recorded with source
//     kLiveness. A success sets first_success_ms[p]. It stops when every partition answered or at
//     faults_stopped_ms + timeout_ms. With liveness.audit_replicas, once every partition
//     answered, every replica the live instances host is read in full (audit_replicas: a
//     RangeQuery over every key with partitions {p} and the same bound, sent to that instance,
//     asked again while NOT_UP_TO_BOUND, at most kAuditRoundsMax rounds, not past the deadline),
//     recorded with source kAudit.
//  5. The end: the source log read back from the broker (partition-major), instance errors, end
//     time, events and the event loop's digest.
//
// Bounds: the run never passes scenario.virtual_time_ms_max (reaching it sets
// time_limit_reached and skips everything left but step 5); the history holds at most
// knobs.history_records_max records; reaching it, broker_records_max or
// coordinator_pending_outputs_max stops the run after that event (an event-loop stop check)
// and sets trace.bound_reached; each run of the loop has the event
// loop's event budget (running out is recorded as a LivenessFailure and ends the run likewise).

#include "scenario/scenario.h"
#include "trace/run_trace.h"

namespace iq::sim {

RunTrace drive_scenario(const Scenario& scenario);

}  // namespace iq::sim
