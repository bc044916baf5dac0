// BoundHonored: success under PositionBound.at(B) means the reported position dominates B on the
// served partition; NOT_UP_TO_BOUND means the serving replica really was behind.
//
// "Dominates on the served partition" is Kafka's isPermitted (docs/iqv2-semantics.md §2), written
// independently in check_util.cc: only the bound's entries for the served partition number
// count.
//
// A success is judged against the bound the caller asked for. With requireActive,
// KafkaStreams#query replaces that bound with unbounded (docs/iqv2-semantics.md §5 step 5.4, quirk
// 3), so an active behind the bound answers success anyway: a real Kafka behaviour this property
// reports (the violation says so; scenarios/findings/require_active_drops_bound.toml keeps it
// visible). A requireActive NOT_UP_TO_BOUND is a violation too, since Kafka checks that query
// against an unbounded bound, which nothing can be behind. (Kafka also
// answers NOT_UP_TO_BOUND for a store registered but not yet initialized, whatever the bound;
// with the state updater, which impl/ follows, such a task is not visible to queries;
// docs/iqv2-semantics.md §2.)
//
// "Really was behind" is read from the position the failure carries (the position owner attaches
// a copy of its own, taken in the same critical section as the check) and from the replica in
// placement_at_answer. The snapshot shows the store's outer position, which for a cached store is
// the cache position merged with the inner one: exactly what a cached KeyQuery checks, but more
// than what a RangeQuery checks (ranges bypass the cache, 2.10). So a cached store's snapshot is
// used for key queries only.

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties {
namespace {

constexpr const char* kBoundHonoredName = sim::property_names::kBoundHonored.data();

void judge_success(const JudgeContext& context, const sim::QueryRecord& record,
                   const sim::PartitionOutcome& outcome, detail::Tally& tally,
                   std::vector<Violation>& out) {
  const Position& bound = record.request.bound;
  if (!outcome.position) {
    tally.judged();
    out.push_back(detail::record_violation(context, kBoundHonoredName, record, &outcome,
                                           "a success under a bound without a position",
                                           "a position dominating " + bound.to_string() +
                                               " on partition " + std::to_string(outcome.partition),
                                           detail::outcome_string(outcome)));
    return;
  }
  tally.judged();
  if (detail::permitted(*outcome.position, bound, outcome.partition)) return;
  out.push_back(detail::record_violation(
      context, kBoundHonoredName, record, &outcome,
      "a success whose position does not dominate the bound on partition " +
          std::to_string(outcome.partition) +
          (record.request.require_active
               ? " (requireActive: Kafka replaced the bound with unbounded, quirk 3)"
               : ""),
      "a position dominating " + bound.to_string() + " on partition " +
          std::to_string(outcome.partition),
      outcome.position->to_string()));
}

void judge_not_up_to_bound(const JudgeContext& context, const sim::QueryRecord& record,
                           const sim::PartitionOutcome& outcome, detail::Tally& tally,
                           std::vector<Violation>& out) {
  const int32_t p = outcome.partition;
  const Position bound =
      record.request.require_active ? Position::empty_position() : record.request.bound;
  const std::string bound_text = record.request.require_active
                                     ? "unbounded (requireActive discards the bound)"
                                     : bound.to_string();
  // The position the failure carries, and the snapshot's when it shows what the store checked.
  std::optional<Position> seen = outcome.position;
  std::string seen_where = "the position the failure carries";
  const sim::ReplicaSnapshot* replica = nullptr;
  if (record.placement_at_answer) {
    replica = detail::find_replica(*record.placement_at_answer, record.target_instance, p);
  }
  const bool snapshot_exact =
      !context.trace().topology.caching || detail::is_key_kind(record.request.kind);
  // The position the store checked: a transactional store's committed one under READ_COMMITTED.
  const std::optional<Position>* checked =
      replica != nullptr ? &detail::bounding_position(context, record.request, *replica) : nullptr;
  if (!seen && checked != nullptr && checked->has_value() && snapshot_exact) {
    seen = **checked;
    seen_where = "the replica's position at the answer";
  }
  if (!seen) {
    tally.not_judged("no position of the serving replica to compare with");
    return;
  }
  tally.judged();
  bool behind = !detail::permitted(*seen, bound, p);
  if (behind && checked != nullptr && checked->has_value() && snapshot_exact &&
      detail::permitted(**checked, bound, p)) {
    behind = false;
    seen = **checked;
    seen_where = "the replica's position at the answer";
  }
  if (behind) return;
  out.push_back(
      detail::record_violation(context, kBoundHonoredName, record, &outcome,
                               "NOT_UP_TO_BOUND although " + seen_where +
                                   " dominates the bound on partition " + std::to_string(p),
                               "success: " + seen->to_string() + " is up to " + bound_text,
                               detail::outcome_string(outcome)));
}

}  // namespace

std::vector<Violation> check_bound_honored(const JudgeContext& context) {
  std::vector<Violation> out;
  detail::Tally tally(context, kBoundHonoredName);
  for (const sim::QueryRecord& record : context.trace().history.records()) {
    if (record.outcome != sim::OutcomeKind::kAnswered ||
        !context.judged_by(record, kBoundHonoredName)) {
      continue;
    }
    for (const sim::PartitionOutcome& outcome : record.partitions) {
      if (outcome.success) {
        if (record.request.bound.is_empty()) {
          tally.not_judged("success without a bound");
        } else {
          judge_success(context, record, outcome, tally, out);
        }
      } else if (outcome.failure_reason == FailureReason::NOT_UP_TO_BOUND) {
        judge_not_up_to_bound(context, record, outcome, tally, out);
      }
    }
  }
  return out;
}

}  // namespace iq::properties
