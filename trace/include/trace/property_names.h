#pragma once
// The one list of property names. Scenario files name properties (`checks`, `expected_failures`,
// `[liveness] checks`), the checks register under them (properties/checks/check.cc), and
// summaries, JUnit and reports print them; every one of those reads this header, so a name can be
// added, renamed or dropped in one place only. The list sits in trace/ because it is part of what
// a recorded run is judged by, and trace/ is below both scenario/ (which parses the names) and
// properties/ (which implements them).
//
// Order: the trace-level checks in the order properties::all_checks() runs them (check.cc asserts
// that at start-up and check_test.cc pins it), then Deterministic, the one property judged by
// running a scenario twice (properties/runner.cc) rather than by reading one trace.

#include <array>
#include <cstddef>
#include <string_view>

namespace iq::sim::property_names {

inline constexpr std::string_view kResultMatchesModel = "ResultMatchesModel";
inline constexpr std::string_view kSamePositionSameAnswer = "SamePositionSameAnswer";
inline constexpr std::string_view kBoundHonored = "BoundHonored";
inline constexpr std::string_view kSessionMonotonic = "SessionMonotonic";
inline constexpr std::string_view kFailureReasonCorrect = "FailureReasonCorrect";
inline constexpr std::string_view kEventuallyAvailable = "EventuallyAvailable";
inline constexpr std::string_view kLagReported = "LagReported";
inline constexpr std::string_view kChangelogWitness = "ChangelogWitness";
inline constexpr std::string_view kScriptedExpectations = "ScriptedExpectations";
inline constexpr std::string_view kProgress = "Progress";
inline constexpr std::string_view kDeterministic = "Deterministic";

inline constexpr std::array<std::string_view, 11> kAll{
    kResultMatchesModel, kSamePositionSameAnswer, kBoundHonored,
    kSessionMonotonic,   kFailureReasonCorrect,   kEventuallyAvailable,
    kLagReported,        kChangelogWitness,       kScriptedExpectations,
    kProgress,           kDeterministic,
};

// How many of kAll are trace-level checks (all but the trailing Deterministic).
inline constexpr std::size_t kTraceCheckCount = kAll.size() - 1;
static_assert(kAll.back() == kDeterministic, "Deterministic is judged by the runner, last");

constexpr bool is_property_name(std::string_view name) {
  for (std::string_view known : kAll) {
    if (known == name) return true;
  }
  return false;
}

}  // namespace iq::sim::property_names

namespace iq::sim::behaviour_names {

// The declared Kafka behaviours a scenario may allow (`allowed_behaviours`): the JSON keys of
// properties::ViolationClass's classes other than "failure", in its order (properties::class_key
// returns these very strings; check_test.cc pins the two together). Here for the same reason as
// the property names: scenario/ parses them, properties/ gives them.
inline constexpr std::array<std::string_view, 22> kAll{
    "alos_reprocessing",
    "restart_without_checkpoint",
    "cache_flush_partly_applied",
    "position_ahead_of_checkpoint",
    "fenced_late_write",
    "lru_evicted_aggregate",
    "versioned_store_reopened",
    "replica_inside_compacted_changelog",
    "replica_inside_one_records_writes",
    "cleaner_cut_by_crash",
    "versioned_grace_dropped_tail",
    "window_grace_dropped_tail",
    "versioned_restore_dropped_expired",
    "duplicates_null_put_skipped",
    "cached_writes_beneath_position",
    "eos_kept_aborted_writes",
    "read_committed_not_transactional",
    "cached_key_query_ignores_isolation",
    "cached_key_query_miss_reads_committed",
    "versioned_position_not_persisted",
    "staged_stream_time_expires_committed",
    "versioned_position_not_staged",
};

}  // namespace iq::sim::behaviour_names
