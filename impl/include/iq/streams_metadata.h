#pragma once
// StreamsMetadata, KeyQueryMetadata, HostInfo and LagInfo (org.apache.kafka.streams): what an
// application's routing layer learns about where a store's partitions live. They describe the
// TARGET assignment every member received in the last rebalance, not what is running now
// (docs/cluster-model.md §3).

#include <compare>
#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "iq/offsets.h"

namespace iq {

struct HostInfo {
  std::string host;
  int32_t port = -1;
  static HostInfo unavailable() { return {"unavailable", -1}; }
  std::string to_string() const {
    return "HostInfo{host='" + host + "', port=" + std::to_string(port) + "}";
  }
  friend auto operator<=>(const HostInfo&, const HostInfo&) = default;
};

struct TopicPartitionName {
  std::string topic;
  int32_t partition;
  friend auto operator<=>(const TopicPartitionName&, const TopicPartitionName&) = default;
};

struct StreamsMetadata {
  HostInfo host_info;
  std::set<std::string> state_store_names;
  std::set<TopicPartitionName> topic_partitions;  // active input partitions
  std::set<std::string> standby_state_store_names;
  std::set<TopicPartitionName> standby_topic_partitions;  // standby input partitions
  friend bool operator==(const StreamsMetadata&, const StreamsMetadata&) = default;
};

// KeyQueryMetadata: the active host, the standby hosts and the partition of a key.
// NOT_AVAILABLE (host unavailable:-1, no standbys, partition -1) while metadata is not ready.
struct KeyQueryMetadata {
  HostInfo active_host;
  std::set<HostInfo> standby_hosts;
  int32_t partition = -1;
  static KeyQueryMetadata not_available() { return {HostInfo::unavailable(), {}, -1}; }
  friend bool operator==(const KeyQueryMetadata&, const KeyQueryMetadata&) = default;
};

// LagInfo (allLocalStorePartitionLags): changelog-offset lag of one local store partition.
struct LagInfo {
  // The typed way in: both positions are offsets of the same changelog partition.
  static LagInfo of(ChangelogOffset current, ChangelogOffset end) {
    return LagInfo{current.value(), end.value()};
  }
  int64_t current_offset_position = 0;
  int64_t end_offset_position = 0;
  int64_t offset_lag() const {
    return std::max<int64_t>(0, end_offset_position - current_offset_position);
  }
  friend bool operator==(const LagInfo&, const LagInfo&) = default;
};

}  // namespace iq
