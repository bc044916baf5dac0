#pragma once
// SubscriptionInfo and AssignmentInfo (PI/assignment/SubscriptionInfo.java, AssignmentInfo.java):
// what a Streams member tells the leader when it joins, and what the leader gives each member.
// Kafka encodes them in a versioned binary format; iqsim's members only ever talk to each other,
// so the encoding is a line-oriented text that traces and reports can show as is. The content is
// Kafka's: process id, endpoint, task offset sums; active tasks, standby tasks, the host maps of
// the target assignment, and the time of the next (follow-up or probing) rebalance.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/expected.h"
#include "iq/bytes.h"
#include "iq/streams_error.h"
#include "iq/streams_metadata.h"
#include "iq/task_id.h"

namespace iq {

struct SubscriptionInfo {
  std::string process_id;
  std::string endpoint;                        // application.server "host:port", may be empty
  std::map<TaskId, int64_t> task_offset_sums;  // -2 (LATEST_OFFSET) for a running active
  // SubscriptionInfo.uniqueField: changes on every rejoin, so that the coordinator sees new
  // metadata and a follower's rejoin starts a rebalance (follow-up and probing rebalances).
  int32_t unique_field = 0;
  friend bool operator==(const SubscriptionInfo&, const SubscriptionInfo&) = default;

  Bytes encode() const;
  static base::Expected<SubscriptionInfo, StreamsError> decode(const Bytes& bytes);
};

struct AssignmentInfo {
  std::vector<TaskId> active_tasks;
  std::set<TaskId> standby_tasks;
  std::vector<TopicPartitionName> partitions;  // the member's assigned input partitions
  std::map<HostInfo, std::set<TopicPartitionName>> partitions_by_host;
  std::map<HostInfo, std::set<TopicPartitionName>> standby_partitions_by_host;
  // 0: rebalance again right away (a withheld task's follow-up); nullopt: none scheduled.
  std::optional<int64_t> next_rebalance_ms;
  friend bool operator==(const AssignmentInfo&, const AssignmentInfo&) = default;

  Bytes encode() const;
  static base::Expected<AssignmentInfo, StreamsError> decode(const Bytes& bytes);
};

// "host:port" <-> HostInfo.
std::optional<HostInfo> parse_host_info(const std::string& endpoint);

}  // namespace iq
