#pragma once
// GroupMembership: the consumer-group protocol as a StreamThread's main consumer runs it
// (JoinGroup, SyncGroup, heartbeats, offset commits), seen from the client. sim/ implements it
// over its GroupCoordinator and network.
//
// Like KafkaConsumer.poll(), poll() drives the protocol and runs the rebalance callbacks inside
// the call, on the caller's thread: the subscription is asked for when (re)joining, assign() runs
// on the leader between JoinGroup and SyncGroup, and on_assignment() runs once SyncGroup
// answered (the cooperative revoke/assign callbacks happen inside it).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/record.h"
#include "iq/status.h"
#include "iq/topic_partition.h"

namespace iq {

struct JoinedMember {
  std::string member_id;
  Bytes user_data;                               // the Streams SubscriptionInfo
  std::vector<TopicPartition> owned_partitions;  // cooperative protocol: what it owns now
};

class RebalanceListener {
 public:
  virtual ~RebalanceListener() = default;
  virtual Bytes subscription_user_data() = 0;
  virtual std::vector<TopicPartition> owned_partitions() = 0;
  // Leader only: member id -> the Streams AssignmentInfo plus assigned partitions.
  [[nodiscard]] virtual base::Expected<std::map<std::string, Bytes>, StreamsError> assign(
      const std::vector<JoinedMember>& members) = 0;
  [[nodiscard]] virtual Status on_assignment(int32_t generation, const Bytes& assignment) = 0;
  // onPartitionsLost: the member was fenced (unknown member id or stale generation), so what it
  // owned may already belong to others; called before it rejoins.
  [[nodiscard]] virtual Status on_partitions_lost() = 0;
};

class GroupMembership {
 public:
  virtual ~GroupMembership() = default;
  virtual void poll(RebalanceListener& listener) = 0;
  // Consumer.enforceRebalance: rejoin at the next poll (follow-up and probing rebalances).
  virtual void enforce_rebalance() = 0;
  virtual std::string member_id() const = 0;
  virtual int32_t generation() const = 0;
  // commitSync of the next offsets to consume. A fenced member gets StreamsError TaskMigrated
  // (Kafka's CommitFailedException, which Streams turns into TaskMigratedException).
  [[nodiscard]] virtual Status commit_offsets(const TopicPartitionOffsets& offsets) = 0;
  virtual std::optional<int64_t> committed(const TopicPartition& tp) const = 0;
};

}  // namespace iq
