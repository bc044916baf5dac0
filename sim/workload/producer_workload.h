#pragma once
// ProducerWorkload: keyed records (int32 key, int64 value) into the cluster's source topic at a
// rate, from start_ms to stop_ms, through Cluster::produce (the default partitioner, acks at
// once). It keeps what the producer had acknowledged: per partition the offset of the last
// acknowledged record, as an iq::Position over the source topic (the "produced" bound a query
// client may use), and how many records it produced per key.
//
// Scripted mode: produce_exact(partition, key, value, timestamp) writes one record to an explicit
// partition through Cluster::produce_to (zero latency, like Cluster::produce), so such records are
// in Cluster::produced() like every other.
//
//   ProducerWorkload producer(cluster, {.stop_ms = 5'000, .records_per_second = 200},
//                             world.split("producer"));
//   producer.start();
//   cluster.run_until(10'000);
//   producer.acknowledged();  // Position{position={words={0=..., 1=...}}}

#include <cstdint>
#include <map>

#include "base/prng.h"
#include "cluster/cluster.h"
#include "iq/position.h"
#include "workload/key_distribution.h"

namespace iq::sim {

struct ProducerConfig {
  int64_t start_ms = 0;
  int64_t stop_ms = 0;  // exclusive: nothing is produced at or after it
  int64_t records_per_second = 100;
  int64_t tick_ms = 10;  // how often the producer catches up with its rate
  int32_t keys = 16;
  KeyDistribution distribution = KeyDistribution::kUniform;
  int64_t value = 1;
  uint64_t records_max = 1'000'000;
  // Event time, for every topology (each off by default; an off draw takes nothing from the
  // Prng, so a configuration without them keeps its runs). A record is stamped at the producer's
  // event time: now plus every stream-time jump so far.
  // Out of order: with these odds a record is stamped up to out_of_order_ms_max before the event
  // time instead (never below 0): late within or beyond a window's grace, a session's gap or a
  // versioned store's history retention, depending on how far back it goes.
  base::Ratio out_of_order_odds{0, 1};
  int64_t out_of_order_ms_max = 0;
  // Stream-time jumps: with these odds, before a record, the event time moves forward by 1 to
  // stream_time_jump_ms_max ms for good, so a segmented store's stream time passes whole segment
  // intervals (Stores' window and session segments are at least 60 s long, longer than a run's
  // producing phase) and its oldest segments expire within the run.
  base::Ratio stream_time_jump_odds{0, 1};
  int64_t stream_time_jump_ms_max = 60'000;  // >= 1: Stores' smallest segment interval
  // Tombstones (a null value) with these odds, under the event-time topologies only (window,
  // session and versioned: a windowed sum takes a null as 0, a versioned store records a delete);
  // the key-value topologies ignore it and draw nothing, because the verdict's known-behaviour
  // classes for them are built on records that carry a value.
  base::Ratio tombstone_odds{0, 1};
  // Grace edges, under the event-time topologies only: with these odds a record is stamped at,
  // one ms below or one ms above the earliest timestamp its partition's task still keeps
  // (time_edges::grace_edge_ms: a window aggregation's close time, a session's, a PAPI writer's
  // store retention, the versioned store's grace), computed from the partition's stream time, so
  // records land just inside and just outside grace. Off by default (nothing drawn).
  base::Ratio grace_edge_odds{0, 1};
  // Each record's value is its sequence number (1, 2, ...) instead of `value`, so that any two
  // writes of a key can be told apart: versions of a versioned store, and, for a key-value store,
  // a replica that kept an older write of a key (a lost flush, a skipped restore record) from
  // one that has the latest. With one constant value such a replica answers the same bytes.
  bool sequence_values = false;
  bool operator==(const ProducerConfig&) const = default;
};

class ProducerWorkload {
 public:
  // `prng` is the producer's own child stream (world.split("producer")).
  ProducerWorkload(Cluster& cluster, ProducerConfig config, base::Prng prng);
  ~ProducerWorkload();
  ProducerWorkload(const ProducerWorkload&) = delete;
  ProducerWorkload& operator=(const ProducerWorkload&) = delete;

  // Schedules the first tick at start_ms (or now, if later).
  void start();
  // One record to an explicit partition, stamped `timestamp_ms` (kNoTimestamp: now), through
  // Cluster::produce_to; returns its offset and asserts it is the one acknowledged.
  int64_t produce_exact(int32_t partition, int32_t key, int64_t value, int64_t timestamp_ms);

  // Per source partition, the offset of the last acknowledged record.
  const Position& acknowledged() const { return acknowledged_; }
  // Records produced per key by this producer (both modes).
  const std::map<int32_t, int64_t>& count_per_key() const { return count_per_key_; }
  uint64_t records_produced() const { return records_produced_; }
  // The sum of every stream-time jump so far: records are stamped now plus this (or earlier).
  int64_t event_time_offset_ms() const { return event_time_offset_ms_; }
  const ProducerConfig& config() const { return config_; }

 private:
  void tick();
  void produce_one();
  std::optional<int64_t> draw_grace_edge(int32_t partition);
  void acknowledge(int32_t partition, int32_t key);

  Cluster& cluster_;
  ProducerConfig config_;
  base::Prng prng_;
  Position acknowledged_ = Position::empty_position();
  std::map<int32_t, int64_t> count_per_key_;
  uint64_t records_produced_ = 0;
  uint64_t rate_records_ = 0;
  int64_t event_time_offset_ms_ = 0;  // produced by the rate so far
  EventId tick_event_{};
  bool tick_pending_ = false;
};

}  // namespace iq::sim
