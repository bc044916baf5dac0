#include "cluster/cluster.h"

#include <algorithm>

#include "iq/changelog_topic.h"
#include "iq/default_partitioner.h"
#include "iq/serdes.h"

namespace iq::sim {

Cluster::Cluster(ClusterConfig config)
    : config_(std::move(config)), prng_(config_.seed), store_lives_(config_.topology) {
  IQ_ASSERT(config_.instances >= 0, "instances={}", config_.instances);
  network_ = std::make_unique<SimNetwork>(loop_, prng_.split("network"), config_.link);
  // The broker draws nothing yet; its child stream is reserved so that adding draws later does
  // not reshuffle the others.
  (void)prng_.split("broker");
  broker_ = std::make_unique<BrokerService>(loop_, *network_, config_.broker);
  const TopologyConfig& t = config_.topology;
  SimBroker& b = broker_->broker();
  Errors e = b.create_topic(t.source_topic, t.source_partitions, b.topic_defaults());
  IQ_ASSERT(e == Errors::NONE, "create {}: {}", t.source_topic, errors_name(e));
  if (t.logging) {
    // Streams creates changelogs with cleanup.policy=compact; they are cleaned only while the
    // broker's log.cleaner.enable is on.
    TopicConfig changelog = b.topic_defaults();
    changelog.cleanup_policy = CleanupPolicy::kCompact;
    // A versioned store's changelog (VersionedChangelogTopicConfig) is compacted too, but with
    // min.compaction.lag.ms = historyRetention + 1 day, so that restore finds every version. The
    // simulated broker has no compaction lag and no run lasts a simulated day, so the changelog
    // is created never to be cleaned: the same records survive as under Kafka's lag.
    if (t.versioned()) changelog.cleanup_policy = CleanupPolicy::kDelete;
    e = b.create_topic(changelog_topic(), t.source_partitions, changelog);
    IQ_ASSERT(e == Errors::NONE, "create {}: {}", changelog_topic(), errors_name(e));
  }
  for (int32_t i = 0; i < config_.instances; ++i) add_instance();
}

Cluster::~Cluster() {
  instances_.clear();  // before the broker and network their events point at
}

std::string Cluster::changelog_topic() const {
  return store_changelog_topic(config_.streams.application_id, config_.topology.store_name);
}

Instance& Cluster::instance(int32_t n) {
  IQ_ASSERT(n >= 1 && n <= instance_count(), "instance {} of {}", n, instance_count());
  return *instances_[static_cast<size_t>(n - 1)];
}

Instance& Cluster::add_instance() {
  const std::string name = "instance-" + std::to_string(instances_.size() + 1);
  InstanceConfig c;
  c.name = name;
  c.streams = config_.streams;
  c.topology = config_.topology;
  c.poll_ms = config_.poll_ms;
  c.consumer = config_.consumer;
  c.clients = config_.clients;
  c.session_timeout_ms = config_.session_timeout_ms;
  c.rebalance_timeout_ms = config_.rebalance_timeout_ms;
  c.heartbeat_interval_ms = config_.heartbeat_interval_ms;
  instances_.push_back(
      std::make_unique<Instance>(*broker_, c, prng_.split(name), &ledger_, &store_lives_));
  return *instances_.back();
}

void Cluster::start_all() {
  for (auto& i : instances_) {
    if (!i->retired() && (!i->running() || i->not_started())) i->start();
  }
}

void Cluster::isolate(int32_t n) {
  network_->isolate(instance(n).name());
}

void Cluster::heal(int32_t n) {
  network_->heal_node(instance(n).name());
}

void Cluster::remove_instance(int32_t n) {
  Instance& i = instance(n);
  IQ_ASSERT(!i.retired(), "instance {} removed twice", n);
  if (i.paused()) i.resume();
  if (i.running()) (void)i.close();  // a failed close is recorded in i.errors()
  i.retire();
  network_->isolate(i.name());
}

int32_t Cluster::produce(int32_t key, int64_t value) {
  const Bytes k = Serde<int32_t>::serialize(key);
  const int32_t p = partition_for_key(k.view(), config_.topology.source_partitions);
  auto offset =
      broker_->broker().produce({config_.topology.source_topic, p}, k,
                                Serde<int64_t>::serialize(value), kNoTimestamp, {}, now_ms());
  IQ_ASSERT(offset.has_value(), "produce key {}: {}", key, errors_name(offset.error()));
  produced_[key].push_back(value);
  record_event_time(p, key, now_ms());
  return p;
}

int64_t Cluster::produce_to(int32_t partition, int32_t key, std::optional<int64_t> value,
                            int64_t timestamp_ms) {
  IQ_ASSERT(partition >= 0 && partition < config_.topology.source_partitions, "partition {}",
            partition);
  std::optional<Bytes> bytes;
  if (value) bytes = Serde<int64_t>::serialize(*value);
  auto offset = broker_->broker().produce({config_.topology.source_topic, partition},
                                          Serde<int32_t>::serialize(key), std::move(bytes),
                                          timestamp_ms, {}, now_ms());
  IQ_ASSERT(offset.has_value(), "produce key {} to {}: {}", key, partition,
            errors_name(offset.error()));
  if (value) produced_[key].push_back(*value);
  record_event_time(partition, key, timestamp_ms == kNoTimestamp ? now_ms() : timestamp_ms);
  return *offset;
}

int64_t Cluster::max_timestamp_ms(int32_t partition) const {
  auto it = partition_max_timestamp_ms_.find(partition);
  return it == partition_max_timestamp_ms_.end() ? 0 : it->second;
}

void Cluster::record_event_time(int32_t partition, int32_t key, int64_t timestamp_ms) {
  produced_timestamps_[key].push_back(timestamp_ms);
  int64_t& partition_max = partition_max_timestamp_ms_[partition];
  partition_max = std::max(partition_max, timestamp_ms);
  max_timestamp_ms_ = std::max(max_timestamp_ms_, timestamp_ms);
  IQ_ASSERT(max_timestamp_ms_ >= partition_max);
}

RunResult Cluster::run_until(int64_t ms) {
  return loop_.run_until(base::Instant::from_ms(ms));
}

}  // namespace iq::sim
