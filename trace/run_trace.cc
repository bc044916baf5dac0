#include "trace/run_trace.h"

namespace iq::sim {

// "@12000 crash instance-2 (scripted step 4)": one line, stable, as a violation lists it.
std::string FaultRecord::to_string() const {
  std::string out = "@" + std::to_string(at_ms.ms_since_epoch()) + " " + action;
  if (!instance.empty()) out += " " + instance;
  if (!detail.empty()) out += " (" + detail + ")";
  return out;
}

const char* to_string(TxnOutcome outcome) {
  switch (outcome) {
    case TxnOutcome::kNone:
      return "none";
    case TxnOutcome::kOpen:
      return "open";
    case TxnOutcome::kCommitted:
      return "committed";
    case TxnOutcome::kAborted:
      return "aborted";
  }
  return "?";
}

}  // namespace iq::sim
