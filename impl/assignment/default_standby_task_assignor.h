#pragma once
// DefaultStandbyTaskAssignor (A/DefaultStandbyTaskAssignor.java): each stateful task, in TaskId
// order, gets num.standby.replicas standbys on the least loaded clients that hold no copy of it.
//
// Kafka picks ClientTagAwareStandbyTaskAssignor instead when rack.aware.assignment.tags is set
// (or, for other callers, when client racks are known). iqsim has no client tags or racks, so
// this is the only standby assignor; the tag-aware one is not reproduced.

#include <set>

#include "assignment/assignment_configs.h"
#include "assignment/task_movement.h"

namespace iq {

class DefaultStandbyTaskAssignor {
 public:
  // Standby assignment never asks for a probing rebalance: always false, as in Kafka.
  bool assign(ClientStates& clients, const std::set<TaskId>& all_task_ids,
              const std::set<TaskId>& stateful_task_ids, const AssignmentConfigs& configs);

  // StandbyTaskAssignor.isAllowedTaskMovement: the default assignor allows every move (the
  // tag-aware one would forbid moves that break tag diversity).
  bool is_allowed_task_movement(const ClientState& /*source*/,
                                const ClientState& /*destination*/) const {
    return true;
  }
};

}  // namespace iq
