#pragma once
// Cluster: the whole simulated world from one seed. One EventLoop, a root Prng(seed) split per
// component ("network", "broker", "instance-N"), the SimNetwork, the BrokerService and N
// Instances. The source topic and the store's changelog topic
// (<application.id>-<store>-changelog, as many partitions as the source) are created up front.
//
//   ClusterConfig config;
//   config.seed = 42;
//   config.instances = 2;
//   Cluster cluster(config);
//   cluster.start_all();
//   cluster.produce(7, 1);
//   auto r = cluster.run_until(60'000);
//   cluster.digest().hex();  // the same seed gives the same digest

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/prng.h"
#include "cluster/broker_service.h"
#include "cluster/instance.h"
#include "event_loop/event_loop.h"
#include "network/sim_network.h"

namespace iq::sim {

struct ClusterConfig {
  uint64_t seed = 1;
  int32_t instances = 1;
  LinkConfig link;  // every link's default
  StreamsConfig streams;
  TopologyConfig topology;
  int64_t poll_ms = 100;  // StreamsConfig poll.ms (Instance: "The loop")
  SimConsumerConfig consumer;
  StreamsClientConfigs
      clients;  // StreamsConfig's client settings (cluster/streams_client_configs.h)
  SimBrokerConfig broker;
  // The group protocol's timings (session.timeout.ms, max.poll.interval.ms, heartbeat.interval.ms).
  int32_t session_timeout_ms = 45'000;
  int32_t rebalance_timeout_ms = 300'000;
  int64_t heartbeat_interval_ms = 3'000;
  bool operator==(const ClusterConfig&) const = default;
};

class Cluster {
 public:
  explicit Cluster(ClusterConfig config);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // Instances are numbered from 1: instance(1) is node "instance-1".
  Instance& instance(int32_t n);
  int32_t instance_count() const { return static_cast<int32_t>(instances_.size()); }
  // A new, not yet started instance numbered instance_count() + 1.
  Instance& add_instance();
  // Every instance that is not removed and not yet started (down, or only created).
  void start_all();
  // Cuts instance n's node from every node (broker, other instances, clients registered so far)
  // and heals it again; see Instance for what a cut-off instance does.
  void isolate(int32_t n);
  void heal(int32_t n);
  // Removes instance n for good: a clean close if it runs (resumed first if paused; Streams sends
  // no LeaveGroup, so the group notices after the session timeout), then its node is cut from
  // everything and it can never start again. It keeps its number; instance_count() is unchanged.
  void remove_instance(int32_t n);

  // Appends (key, value) to the source topic with the default partitioner, stamped now; returns
  // the partition. The write goes straight to the broker (a producer with zero latency).
  int32_t produce(int32_t key, int64_t value);
  // Appends to an explicit partition with an explicit timestamp (kNoTimestamp: now) for scripted
  // tests and Kafka's own tests; a null value is a tombstone. Values are recorded in produced()
  // like any other write (tombstones are not values and are not). Returns the offset.
  int64_t produce_to(int32_t partition, int32_t key, std::optional<int64_t> value,
                     int64_t timestamp_ms);
  // Every value produced so far for each key, in order, for checks.
  const std::map<int32_t, std::vector<int64_t>>& produced() const { return produced_; }
  // The largest timestamp produced so far (a record stamped by the broker counts as now; 0 before
  // any): the event time the source topic has reached, from which query clients draw time ranges.
  int64_t max_timestamp_ms() const { return max_timestamp_ms_; }
  // The timestamp of every record produced so far per key, in produce order (tombstones
  // included), and the largest per source partition (0 before any): the times a task's stream
  // time, its windows and its versions come from, so the workloads draw the edges the stores
  // compare against from what the run wrote (sim/workload/time_edges.h).
  const std::map<int32_t, std::vector<int64_t>>& produced_timestamps() const {
    return produced_timestamps_;
  }
  int64_t max_timestamp_ms(int32_t partition) const;

  RunResult run_until(int64_t ms);
  int64_t now_ms() const { return loop_.now().ms_since_epoch(); }
  const base::Digest& digest() const { return loop_.digest(); }
  // "seed=<n>" for failure messages.
  std::string seed_text() const { return "seed=" + std::to_string(config_.seed); }
  // A child of the world's Prng (Prng(seed).split(name)); components outside the cluster (the
  // workloads, the scenario driver) draw from their own named children of the same root.
  base::Prng split(std::string_view name) const { return prng_.split(name); }

  EventLoop& loop() { return loop_; }
  SimNetwork& network() { return *network_; }
  BrokerService& broker() { return *broker_; }
  const ClusterConfig& config() const { return config_; }
  // Which input records were processed more than once, by whom and when (see its header).
  const ProcessingLedger& processing_ledger() const { return ledger_; }
  // Every store object's life, as impl/ reported it (see its header).
  const StoreLifeLog& store_lives() const { return store_lives_; }
  std::string changelog_topic() const;

 private:
  ClusterConfig config_;
  EventLoop loop_;
  base::Prng prng_;
  std::unique_ptr<SimNetwork> network_;
  std::unique_ptr<BrokerService> broker_;
  ProcessingLedger ledger_;   // before the instances that report to it
  StoreLifeLog store_lives_;  // likewise
  std::vector<std::unique_ptr<Instance>> instances_;
  std::map<int32_t, std::vector<int64_t>> produced_;
  int64_t max_timestamp_ms_ = 0;
  std::map<int32_t, std::vector<int64_t>> produced_timestamps_;
  std::map<int32_t, int64_t> partition_max_timestamp_ms_;
  void record_event_time(int32_t partition, int32_t key, int64_t timestamp_ms);
};

}  // namespace iq::sim
