#pragma once
// StreamsPartitionAssignor (PI/StreamsPartitionAssignor.java), the leader's side of a rebalance:
// decode every member's SubscriptionInfo, group members into clients by process id, derive task
// lags from the reported offset sums and the changelog end offsets, let the
// HighAvailabilityTaskAssignor place actives, standbys and warmups over clients, spread each
// client's tasks over its threads (previous owners first), withhold any task whose input
// partition another consumer still owns (cooperative protocol: revoke first, assign in the
// immediate follow-up), and tell every member the target assignment's host maps and when to
// rebalance next (docs/cluster-model.md §3).

#include <map>
#include <string>
#include <vector>

#include "assignment/assignment_configs.h"
#include "assignment/warmups.h"
#include "io/consumer.h"
#include "io/group_membership.h"
#include "processor/assignment_info.h"
#include "topology/topologies.h"

namespace iq {

struct AssignorResult {
  std::map<std::string, AssignmentInfo> assignments;  // by member id
  bool probing_rebalance_needed = false;
  bool followup_rebalance_needed = false;  // some task was withheld
  // Per client, the standbys that are warmups. Not part of any member's AssignmentInfo (Kafka
  // does not send it); kept for observers, which draw warmups apart from standbys.
  Warmups warmups;
};

class StreamsPartitionAssignor {
 public:
  // `previous_warmups`: the warmups of the last assignment this member computed as the leader
  // (the thread keeps them: an assignor lives for one assignment), read only by a probe.
  StreamsPartitionAssignor(std::string application_id, TopologyConfig topology,
                           AssignmentConfigs configs, Admin& admin, Warmups previous_warmups = {})
      : application_id_(std::move(application_id)),
        topology_(std::move(topology)),
        configs_(configs),
        admin_(admin),
        previous_warmups_(std::move(previous_warmups)) {}

  [[nodiscard]] base::Expected<AssignorResult, StreamsError> assign(
      const std::vector<JoinedMember>& members, int64_t now_ms);

  // The task that reads an input partition (one subtopology: task 0_p reads partition p).
  static TaskId task_for(const TopicPartition& tp) { return TaskId{0, tp.second}; }

 private:
  std::set<TaskId> all_tasks() const;
  std::set<TaskId> stateful_tasks() const;

  std::string application_id_;
  TopologyConfig topology_;
  AssignmentConfigs configs_;
  Admin& admin_;
  // The warmups of this member's previous assignment as the leader, read only by a coverage probe
  // (a warmup that became active); the assignment itself stays a function of the subscriptions.
  Warmups previous_warmups_;
};

}  // namespace iq
