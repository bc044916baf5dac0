#include "scenario/quiescence.h"

#include <set>
#include <vector>

#include "history/placement.h"
#include "iq/changelog_topic.h"

namespace iq::sim {
namespace {

std::string join(const std::set<std::string>& names) {
  std::string out = "{";
  for (const auto& n : names) out += (out.size() > 1 ? "," : "") + n;
  return out + "}";
}

// Condition 1: the group is Stable with exactly the live threads as members, all synced.
std::optional<std::string> group_gap(Cluster& cluster) {
  const std::string& group = cluster.config().streams.application_id;
  const GroupCoordinator& coordinator = cluster.broker().broker().coordinator();
  const ClassicGroupState state = coordinator.state(group);
  if (state != ClassicGroupState::Stable) {
    return std::string("group ") + group + " is " + state_name(state);
  }
  const int32_t generation = coordinator.generation(group);
  std::set<std::string> expected;
  for (int32_t n = 1; n <= cluster.instance_count(); ++n) {
    if (!is_live(cluster, n)) continue;
    Instance& instance = cluster.instance(n);
    if (instance.streams().state() != KafkaStreamsState::RUNNING) {
      return instance.name() + " is " + to_string(instance.streams().state());
    }
    const size_t threads = instance.streams().threads().size();
    for (size_t t = 0; t < threads; ++t) {
      const SimGroupMembership& m = instance.membership(t);
      if (!m.stable() || m.generation() != generation) {
        return instance.name() + " thread " + std::to_string(t + 1) +
               " has not synced generation " + std::to_string(generation);
      }
      expected.insert(m.member_id());
    }
  }
  const std::vector<std::string> members = coordinator.members(group);
  const std::set<std::string> actual(members.begin(), members.end());
  if (actual != expected) {
    return "group members " + join(actual) + " are not the live threads " + join(expected);
  }
  return std::nullopt;
}

// Whether a standby or warmup has applied every committed data record of its changelog. Its
// lag (end - offset - 1) alone cannot say: under exactly-once the log ends with a transaction
// marker the restore consumer skips, so a caught-up standby's offset stays one data record short
// of the end; and records of a transaction still open cannot be read yet. So a non-zero lag is
// caught up when a READ_COMMITTED fetch after its offset returns no record (markers and aborted
// records skipped, stopping at the last stable offset), read in bounded steps.
bool caught_up(Cluster& cluster, const ReplicaSnapshot& r) {
  if (!r.lag || *r.lag == 0) return true;
  if (!r.changelog_offset) return false;
  const TopicPartition tp{store_changelog_topic(cluster.config().streams.application_id,
                                                cluster.config().topology.store_name),
                          r.partition};
  const SimBroker& broker = cluster.broker().broker();
  int64_t from = r.changelog_offset->value() + 1;
  constexpr int32_t kStep = 512;
  for (int64_t entries = 0; entries < *r.lag + kStep; entries += kStep) {
    auto data = broker.fetch(tp, from, kStep, IsolationLevel::READ_COMMITTED);
    if (!data) return false;
    if (!data->records.empty()) return false;
    if (data->next_fetch_offset >= data->last_stable_offset || data->next_fetch_offset == from) {
      return true;
    }
    from = data->next_fetch_offset;
  }
  return false;
}

// Conditions 2 and 4 for one partition, from the observer's snapshot; `live` names the live
// instances.
std::optional<std::string> replica_gap(Cluster& cluster, const std::set<std::string>& live,
                                       const PlacementSnapshot& snapshot, int32_t partition) {
  const ReplicaSnapshot* active = nullptr;
  int32_t actives = 0;
  for (const ReplicaSnapshot& r : snapshot.replicas) {
    if (r.partition != partition || r.role == ReplicaRole::kNone || !live.contains(r.instance)) {
      continue;
    }
    if (r.role == ReplicaRole::kActive) {
      ++actives;
      active = &r;
    } else if (!caught_up(cluster, r)) {
      return "partition " + std::to_string(partition) + ": standby on " + r.instance + " lags " +
             std::to_string(*r.lag);
    }
  }
  const std::string p = "partition " + std::to_string(partition);
  if (actives != 1) return p + ": " + std::to_string(actives) + " live actives";
  if (active->task_state != ReplicaSnapshot::TaskState::RUNNING ||
      active->client_state != ReplicaSnapshot::StreamsState::RUNNING) {
    return p + ": active " + active->to_string() + " is not running";
  }
  return std::nullopt;
}

// Condition 3 for one partition.
std::optional<std::string> commit_gap(Cluster& cluster, int32_t partition) {
  const TopologyConfig& t = cluster.config().topology;
  const SimBroker& broker = cluster.broker().broker();
  const TopicPartition tp{t.source_topic, partition};
  auto end = broker.end_offset(tp);
  IQ_ASSERT(end.has_value(), "end offset of {}-{}", t.source_topic, partition);
  auto committed = broker.committed(cluster.config().streams.application_id, tp);
  const int64_t offset = committed ? committed->offset : 0;
  if (offset == *end) return std::nullopt;
  return "partition " + std::to_string(partition) + ": committed " + std::to_string(offset) +
         " of end " + std::to_string(*end);
}

}  // namespace

bool is_live(Cluster& cluster, int32_t n) {
  Instance& instance = cluster.instance(n);
  return instance.running() && !instance.not_started() && !instance.paused() &&
         !cluster.network().is_cut(instance.name(), BrokerService::kNode);
}

std::optional<std::string> quiescence_gap(Cluster& cluster) {
  if (auto gap = group_gap(cluster)) return gap;
  const TopologyConfig& t = cluster.config().topology;
  std::set<int32_t> partitions;
  for (int32_t p = 0; p < t.source_partitions; ++p) partitions.insert(p);
  const PlacementSnapshot snapshot = take_placement(cluster, t.store_name, partitions);
  IQ_ASSERT(
      snapshot.replicas.size() == partitions.size() * static_cast<size_t>(cluster.instance_count()),
      "{} replicas for {} partitions", snapshot.replicas.size(), partitions.size());
  std::set<std::string> live;
  for (int32_t n = 1; n <= cluster.instance_count(); ++n) {
    if (is_live(cluster, n)) live.insert(cluster.instance(n).name());
  }
  for (int32_t p : partitions) {
    if (auto gap = replica_gap(cluster, live, snapshot, p)) return gap;
  }
  for (int32_t p : partitions) {
    if (auto gap = commit_gap(cluster, p)) return gap;
  }
  return std::nullopt;
}

}  // namespace iq::sim
