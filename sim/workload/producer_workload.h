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
  // Event time out of order, for a store that keeps event time (the VersionedTable topology; the
  // key-value topologies ignore both settings, so a template that draws the topology keeps their
  // runs): with these odds a record is stamped up to out_of_order_ms_max before now instead of
  // now (never below 0). An off draw takes nothing from the Prng.
  base::Ratio out_of_order_odds{0, 1};
  int64_t out_of_order_ms_max = 0;
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
  const ProducerConfig& config() const { return config_; }

 private:
  void tick();
  void produce_one();
  void acknowledge(int32_t partition, int32_t key);

  Cluster& cluster_;
  ProducerConfig config_;
  base::Prng prng_;
  Position acknowledged_ = Position::empty_position();
  std::map<int32_t, int64_t> count_per_key_;
  uint64_t records_produced_ = 0;
  uint64_t rate_records_ = 0;  // produced by the rate so far
  EventId tick_event_{};
  bool tick_pending_ = false;
};

}  // namespace iq::sim
