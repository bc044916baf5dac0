#pragma once
// RunReport: one judged run as plain values (its verdict, violations, findings, counts, and the
// trace when kept). It lives beside the checks, not with the runner that fills it, so that
// reports/ can render a judged run linking only the checks and the trace, never the simulator.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "checks/answer_staleness.h"
#include "checks/check.h"
#include "checks/dirty_reads.h"
#include "trace/run_trace.h"

namespace iq::properties {

struct RunReport {
  std::string scenario;  // file
  std::string title;
  uint64_t seed = 0;
  std::vector<std::string> properties_checked;
  uint64_t queries_judged = 0;  // query records looked at by at least one check
  uint64_t queries_total = 0;
  // Violations of properties the scenario did not declare as expected failures, each with its
  // class (Violation::violation_class): failures, and violations a declared Kafka behaviour
  // explains.
  std::vector<Violation> violations;
  // Violations of declared expected failures (findings): visible, not failing.
  std::vector<Violation> expected_violations;
  // Declared expected failures that did not fail: the run fails (the finding went away).
  std::vector<std::string> unexpectedly_held;
  std::map<std::string, uint64_t> violations_by_property;  // both kinds
  int64_t virtual_ms = 0;
  uint64_t events = 0;
  // Input records some task processed again (at-least-once), summed over the trace's ranges.
  uint64_t records_reprocessed = 0;
  // exactly_once_v2: the answers that reflected uncommitted data (checks/dirty_reads.h); zeros
  // under at-least-once.
  DirtyReadStats dirty_reads;
  // Per property: how many items its check compared, and the ones it passed over with the reason
  // and count of each (JudgeContext::tallies): an answer not judged is never a pass.
  std::map<std::string, CheckTally> tallies;
  // StreamsConfig's processing.guarantee of the run ("at_least_once", "exactly_once_v2"), and
  // how far its answers were behind the source log by serving role (checks/answer_staleness.h),
  // so that a sweep can compare the guarantees.
  std::string processing_guarantee;
  std::string kafka_pin = "2024-10-25";  // [configuration] kafka: the Kafka impl/ followed
  AnswerStaleness staleness;
  std::string digest;
  std::vector<std::string> probes_hit;  // RunTrace::probes_hit
  // RunTrace::instance_errors: what made a KafkaStreams client fail ("instance-5: run_once: ...").
  std::vector<std::string> instance_errors;
  std::shared_ptr<const sim::RunTrace> trace;  // only with RunOptions::keep_trace

  // Passed: no violation is a failure (every one a declared Kafka behaviour explains) and no
  // finding went away. `strict`: no violation at all, known behaviours included.
  bool passed(bool strict = false) const {
    return unexpectedly_held.empty() && (strict ? violations.empty() : failures() == 0);
  }
  // Violations of class kFailure.
  uint64_t failures() const;
  // Unexpected violations by class_key(): "failure", "alos_reprocessing" (absent: none).
  std::map<std::string, uint64_t> violations_by_class() const;
  // "iqsim replay scenarios/fast/x.toml --seed 17"
  std::string reproduce_command() const;
};

}  // namespace iq::properties
