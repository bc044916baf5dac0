#pragma once
// Warmups: per client, the standbys an assignment created as warmups (TaskMovement). Apart from
// task_movement.h so that code outside the assignor can name the set without pulling in the
// assignor's ClientState, whose name the KafkaStreams client state enum shares.

#include <map>
#include <set>

#include "assignment/process_id.h"
#include "iq/task_id.h"

namespace iq {

using Warmups = std::map<ProcessId, std::set<TaskId>>;

}  // namespace iq
