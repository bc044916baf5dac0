#include "scenario/scenario.h"

#include "scenario/scenario_names.h"

namespace iq::sim {

// The scenario file's spelling ('crash', 'restart_wiped', 'add_instance', ...).
const char* to_string(FaultAction a) {
  // Every name in kFaultActions is a string literal, so data() is null-terminated.
  return names::name_of(names::kFaultActions, a).data();
}

std::optional<FaultAction> fault_action_from_string(std::string_view s) {
  return names::from_name(names::kFaultActions, s);
}

}  // namespace iq::sim
