#pragma once
// What the pieces of a report share: HTML/XML escaping, the colour of each replica role and query
// outcome (the same everywhere, so the legend holds for every figure), and how a ReplicaSnapshot
// reads as a role.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "trace/query_record.h"

namespace iq::reports {

// Instance names in natural order: "instance-2" before "instance-10".
struct InstanceLess {
  bool operator()(const std::string& a, const std::string& b) const {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  }
};

// Text for HTML element content and attribute values (also valid XML, so it goes into inline
// SVG): & < > " ' escaped; control characters XML 1.0 cannot carry become U+FFFD; invalid UTF-8
// bytes become U+FFFD too, so the page always parses.
std::string html_escape(std::string_view text);

// A replica's role as a report shows it: "active", "restoring" (an active task still restoring),
// "standby", "down" (instance not running), "none" (running, no task for the partition).
std::string role_label(const sim::ReplicaSnapshot& replica);
// Fill colour per role label (unknown labels: grey).
const char* role_colour(std::string_view role);

// A partition outcome's class: "ok", a FailureReason name, or "error"/"timeout"/"not-routed".
const char* outcome_colour(std::string_view outcome_class);

// The replica's progress in its changelog as a count of applied records (offset + 1; 0 when it
// has applied nothing yet), the unit of every timeline lane and of the log end it is drawn
// against. nullopt when the replica has no store to read.
std::optional<int64_t> applied_records(const sim::ReplicaSnapshot& replica);

// The replica of `partition` on `instance` in a snapshot, or nullptr.
const sim::ReplicaSnapshot* find_replica(const sim::PlacementSnapshot& snapshot,
                                         const std::string& instance, int32_t partition);
// The snapshot a query was served under: at answer if the instance ran it, else at invoke.
const sim::PlacementSnapshot& served_snapshot(const sim::QueryRecord& record);
// The outcome class of one answered partition ("ok" or its failure reason), or of a record that
// was not answered ("error", "timeout", "not-routed") when `partition` is nullptr.
std::string outcome_class(const sim::QueryRecord& record, const sim::PartitionOutcome* partition);

// "12.3 s" / "850 ms": virtual time, for axis labels.
std::string format_ms(int64_t ms);

}  // namespace iq::reports
