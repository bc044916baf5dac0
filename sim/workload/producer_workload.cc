#include "workload/producer_workload.h"

#include <algorithm>

#include "base/probe.h"
#include "iq/default_partitioner.h"
#include "iq/serdes.h"
#include "workload/time_edges.h"

namespace iq::sim {

namespace {
// The largest sum of stream-time jumps: a scenario time's bound, so now plus it stays far from
// overflowing int64.
constexpr int64_t kEventTimeOffsetMsMax = 1'000'000'000'000;
}  // namespace

ProducerWorkload::ProducerWorkload(Cluster& cluster, ProducerConfig config, base::Prng prng)
    : cluster_(cluster), config_(config), prng_(prng) {
  IQ_ASSERT(config_.records_per_second >= 0, "records_per_second={}", config_.records_per_second);
  IQ_ASSERT(config_.tick_ms >= 1, "tick_ms={}", config_.tick_ms);
  IQ_ASSERT(config_.stop_ms >= config_.start_ms, "start {} stop {}", config_.start_ms,
            config_.stop_ms);
}

ProducerWorkload::~ProducerWorkload() {
  // The producer must go before the cluster: its tick event lives in the cluster's loop.
  if (tick_pending_) (void)cluster_.loop().cancel(tick_event_);
}

void ProducerWorkload::start() {
  IQ_ASSERT(!tick_pending_, "producer started twice");
  if (config_.records_per_second == 0 || config_.stop_ms <= config_.start_ms) return;
  const int64_t at_ms = std::max(config_.start_ms, cluster_.now_ms());
  tick_pending_ = true;
  tick_event_ = cluster_.loop().schedule_at(base::Instant::from_ms(at_ms), "producer:tick",
                                            [this] { tick(); });
}

// Catches up with the rate: by time t, rate * (t - start) / 1000 records are out.
void ProducerWorkload::tick() {
  tick_pending_ = false;
  const int64_t now_ms = cluster_.now_ms();
  if (now_ms >= config_.stop_ms) return;
  // The last tick also sends what falls due before stop_ms (at most tick_ms early), so a run
  // produces exactly ceil(rate * (stop - start) / 1000) records.
  const bool last_tick = now_ms + config_.tick_ms >= config_.stop_ms;
  const int64_t until_ms = last_tick ? config_.stop_ms - 1 : now_ms;
  const auto due =
      static_cast<uint64_t>(config_.records_per_second * (until_ms - config_.start_ms) / 1000) +
      1;  // the first record goes out at start_ms
  IQ_ASSERT(due >= rate_records_, "due {} < produced {}", due, rate_records_);
  while (rate_records_ < due && records_produced_ < config_.records_max) produce_one();
  // records_max reached: the producer stops, as the scenario asked.
  if (last_tick || records_produced_ >= config_.records_max) return;
  tick_pending_ = true;
  tick_event_ = cluster_.loop().schedule_after(base::Duration::millis(config_.tick_ms),
                                               "producer:tick", [this] { tick(); });
}

void ProducerWorkload::produce_one() {
  const int32_t key = draw_key(prng_, config_.distribution, config_.keys);
  const TopologyConfig& t = cluster_.config().topology;
  const bool event_time_store = t.versioned() || t.windowed() || t.session();
  std::optional<int64_t> value =
      config_.sequence_values ? static_cast<int64_t>(records_produced_) + 1 : config_.value;
  if (config_.stream_time_jump_odds.num > 0 && prng_.chance(config_.stream_time_jump_odds)) {
    IQ_ASSERT(config_.stream_time_jump_ms_max >= 1, "stream_time_jump_ms_max={}",
              config_.stream_time_jump_ms_max);
    const auto jump_ms =
        1 +
        static_cast<int64_t>(prng_.below(static_cast<uint64_t>(config_.stream_time_jump_ms_max)));
    // Bounded: a scenario time is at most 10^12, and so is every jump's sum (saturated there).
    event_time_offset_ms_ =
        std::min<int64_t>(event_time_offset_ms_ + jump_ms, kEventTimeOffsetMsMax);
    IQ_PROBE("producer.stream_time_jump", "a producer moved its event time forward");
  }
  int64_t timestamp_ms = cluster_.now_ms() + event_time_offset_ms_;
  // Stamped explicitly once any event-time draw applies (as the versioned template's records
  // always were when drawn out of order), else stamped by the broker as before.
  bool stamped = event_time_offset_ms_ > 0;
  if (config_.out_of_order_odds.num > 0 && prng_.chance(config_.out_of_order_odds)) {
    stamped = true;
    const auto back_ms = static_cast<int64_t>(
        prng_.below(static_cast<uint64_t>(std::max<int64_t>(config_.out_of_order_ms_max, 0)) + 1));
    timestamp_ms = std::max<int64_t>(timestamp_ms - back_ms, 0);
    IQ_PROBE("producer.out_of_order", "a producer stamped a record before its event time");
  }
  if (event_time_store && config_.tombstone_odds.num > 0 && prng_.chance(config_.tombstone_odds)) {
    value.reset();
    stamped = true;
    IQ_PROBE("producer.tombstone", "a producer wrote a null value to an event-time topology");
  }
  int32_t partition = partition_for_key(Serde<int32_t>::serialize(key).view(), t.source_partitions);
  if (event_time_store) {
    if (std::optional<int64_t> edge_ms = draw_grace_edge(partition)) {
      timestamp_ms = *edge_ms;
      stamped = true;
    }
  }
  if (stamped) {
    (void)cluster_.produce_to(partition, key, value, timestamp_ms);
  } else {
    partition = cluster_.produce(key, *value);  // stamped now, as before event time was drawn
  }
  ++rate_records_;
  acknowledge(partition, key);
}

// With grace_edge_odds, a timestamp at, just below or just above the earliest one the partition's
// task still keeps (time_edges.h); nullopt when not drawn or while that edge is not above 0.
std::optional<int64_t> ProducerWorkload::draw_grace_edge(int32_t partition) {
  if (config_.grace_edge_odds.num == 0 || !prng_.chance(config_.grace_edge_odds)) {
    return std::nullopt;
  }
  const int64_t stream_time_ms = cluster_.max_timestamp_ms(partition);
  const std::optional<int64_t> edge_ms =
      time_edges::grace_edge_ms(cluster_.config().topology, stream_time_ms);
  if (!edge_ms) return std::nullopt;
  const int64_t timestamp_ms = time_edges::near(prng_, *edge_ms);
  IQ_ASSERT(timestamp_ms <= stream_time_ms + 1, "edge {} stream time {}", timestamp_ms,
            stream_time_ms);
  IQ_PROBE("producer.grace_edge", "a producer stamped a record at a grace or retention edge");
  return timestamp_ms;
}

int64_t ProducerWorkload::produce_exact(int32_t partition, int32_t key, int64_t value,
                                        int64_t timestamp_ms) {
  const TopologyConfig& t = cluster_.config().topology;
  // Through the cluster, so the record is in Cluster::produced() like every other.
  const int64_t offset = cluster_.produce_to(partition, key, value, timestamp_ms);
  acknowledge(partition, key);
  IQ_ASSERT(*acknowledged_.offset(t.source_topic, partition) == offset, "ack {} offset {}",
            *acknowledged_.offset(t.source_topic, partition), offset);
  return offset;
}

// The broker acknowledged at once (acks=all, zero latency), so the last offset of the partition
// is the record just written: nothing else writes the source topic in between.
void ProducerWorkload::acknowledge(int32_t partition, int32_t key) {
  const std::string& topic = cluster_.config().topology.source_topic;
  auto end = cluster_.broker().broker().end_offset({topic, partition});
  IQ_ASSERT(end.has_value() && *end >= 1, "end offset of {}-{}", topic, partition);
  const int64_t* before = acknowledged_.offset(topic, partition);
  IQ_ASSERT(before == nullptr || *before < *end - 1, "ack went backwards on {}-{}", topic,
            partition);
  acknowledged_.with_component(topic, partition, *end - 1);
  ++count_per_key_[key];
  ++records_produced_;
}

}  // namespace iq::sim
