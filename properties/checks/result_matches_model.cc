// ResultMatchesModel: a successful partition result equals the model's answer at the position
// that result reports.
//
// The offset compared at is position[source_topic][partition] (-1 when absent: nothing applied).
// Before the answer, the position itself must be plausible: a store reports the offset of its
// last write, so the reported position must be exactly the model's expected_position() at that
// offset (for a store whose delete() does not advance its position, the last non-delete write),
// and no offset beyond the source log.
//
// A READ_COMMITTED answer of a transactional store (2026-08-20 pin, KIP-892) reads the store's
// committed state and is labelled with its committed position (docs/kafka-2026-08-20.md §3.6), so
// the model's answer at that position's offset is the committed fold the answer must equal (the
// model folds every input up to an offset; a committed state holds exactly the input processed
// up to the store's last commit, whose position it is). Before that comparison the label itself
// must be the replica's committed position as the trace recorded it at the answer: a committed
// answer labelled with the staged position would be compared with the staged state, and pass
// where it should not. Delta 8's cached KeyQuery is labelled with the staged merge and judged as
// any staged answer (check_util.h reads_committed).
//
// What is not judged, and why (counted in the tally, never as a pass):
// - With the consistency switch off (the default), a standby's position never moves and a
//   restored store's position is its .position file or empty until it processes new input
//   (docs/cluster-model.md §6). A result whose position has no component for the partition
//   then gives nothing to compare at. A result that equals the model at a LATER offset than it
//   reports (an under-claim: data newer than its position) is that same documented behaviour,
//   not a wrong answer. With the switch on, both are judged: the headers rebuild the position.
// - Queries the model does not cover (other stores, other kinds than the store answers).
// - Window and session answers (WindowKeyQuery, WindowRangeQuery against the model's
//   WindowHistory and SessionHistory, window_judge.cc) that differ from the model where they may
//   depend on an observed stream time Kafka does not keep: a key with a record the model dropped
//   beyond grace (the processor's starts again with its task), a window the retention floor
//   hides in a live segment (a reopened segmented store's), and a reported position at a record
//   the model says never reached the store for either reason.
// - Versioned answers (VersionedKeyQuery, MultiVersionedKeyQuery against the model's
//   VersionedHistory) that depend on the replica's observed stream time, which Kafka does not
//   persist: a key with a record dropped beyond grace, an asOf beyond history retention, a
//   range touching an expired segment (check_util.h versioned_not_judged).

#include "base/assert.h"
#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties {
namespace {

constexpr const char* kResultMatchesModelName = sim::property_names::kResultMatchesModel.data();

// The committed position a READ_COMMITTED answer of a transactional store must carry, when it
// carries another; nullopt otherwise (not such an answer, or labelled right).
std::optional<Position> committed_label_differs(const JudgeContext& context,
                                                const sim::QueryRecord& record,
                                                const sim::PartitionOutcome& outcome) {
  if (!record.placement_at_answer) return std::nullopt;
  const sim::ReplicaSnapshot* replica =
      detail::find_replica(*record.placement_at_answer, record.target_instance, outcome.partition);
  if (replica == nullptr || !detail::reads_committed(context, record.request, *replica)) {
    return std::nullopt;
  }
  if (replica->committed_position->map() == outcome.position->map()) return std::nullopt;
  return replica->committed_position->copy();
}

// Whether a reported position is one the store can report: nullopt if so, else what it should be.
std::optional<std::string> implausible(const JudgeContext& context, const Position& position,
                                       int32_t partition, int64_t offset) {
  const std::string& topic = context.trace().topology.source_topic;
  if (offset < -1) return std::string("a position with non-negative offsets");
  const int64_t end = context.store().end_offset(partition);
  if (offset > end) {
    return "an offset within the source log (end offset " + std::to_string(end) + ")";
  }
  // The model's expected_position() is {topic: {partition: last write}}, or empty without one.
  // Compared here without building it (a map of maps per result); built only to describe a
  // mismatch.
  const std::optional<int64_t> last =
      context.deletes_advance()
          ? context.store().last_write_offset(partition, offset)
          : context.store().last_write_offset_excluding_deletes(partition, offset);
  const Position::Map& have = position.map();
  if (!last
          ? have.empty()
          : have.size() == 1 && have.begin()->first == topic && have.begin()->second.size() == 1 &&
                have.begin()->second.begin()->first == partition &&
                have.begin()->second.begin()->second == *last) {
    return std::nullopt;
  }
  const model::ModelPosition want = model::expected_position(context.store(), topic, partition,
                                                             offset, context.deletes_advance());
  // ModelPosition and Position hold the same nested std::map shape, so they compare directly.
  IQ_ASSERT(want.offsets != have, "seed {}: the shortcut and the model disagree",
            context.trace().seed);
  return want.to_string() + " (the last write at or before offset " + std::to_string(offset) + ")";
}

void judge_partition(const JudgeContext& context, const sim::QueryRecord& record,
                     const sim::PartitionOutcome& outcome, detail::Tally& tally,
                     std::vector<Violation>& out) {
  if (!outcome.position) {
    tally.judged();
    out.push_back(detail::record_violation(
        context, kResultMatchesModelName, record, &outcome, "a success without a position",
        "a copy of the store's position (Kafka attaches one to every store result)",
        detail::outcome_string(outcome)));
    return;
  }
  if (auto committed = committed_label_differs(context, record, outcome)) {
    tally.judged();
    out.push_back(detail::record_violation(
        context, kResultMatchesModelName, record, &outcome,
        "a READ_COMMITTED answer of a transactional store is not labelled with its committed "
        "position",
        committed->to_string(), outcome.position->to_string()));
    return;
  }
  const int64_t offset = detail::reported_offset(context, *outcome.position, outcome.partition);
  const bool switch_off = !context.trace().consistency_offset_vector_enabled;
  // A non-empty position without this partition's component is wrong whatever the switch, so
  // only a wholly empty one is passed over.
  if (offset == -1 && switch_off && outcome.position->is_empty()) {
    tally.not_judged("empty position with the consistency switch off");
    return;
  }
  const bool window = detail::is_window_kind(record.request.kind);
  if (auto want = window ? detail::window_position_implausible(context, *outcome.position,
                                                               outcome.partition, offset)
                         : implausible(context, *outcome.position, outcome.partition, offset)) {
    if (window) {
      if (auto why = detail::window_position_not_judged(context, outcome.partition, offset)) {
        tally.not_judged(*why);
        return;
      }
    }
    tally.judged();
    out.push_back(detail::record_violation(
        context, kResultMatchesModelName, record, &outcome,
        "the reported position is not one the store can report at offset " + std::to_string(offset),
        *want, outcome.position->to_string()));
    return;
  }
  if (auto why = detail::versioned_not_judged(context, record, outcome.partition, offset)) {
    tally.not_judged(*why);
    return;
  }
  const detail::FitResult fit = detail::fit_answer(context, record, outcome, offset);
  if (fit.fit == detail::Fit::kUnderClaim && switch_off) {
    tally.not_judged("under-claim with the consistency switch off");
    return;
  }
  if (fit.fit != detail::Fit::kMatches) {
    // A window or session answer that may depend on a stream time Kafka does not keep, or on the
    // record cache's evictions: the model at the reported offset is then no yardstick, so an
    // answer that happens to be the model's at a later offset is not an under-claim either.
    if (auto why = detail::window_not_judged(context, record, outcome.partition, offset)) {
      tally.not_judged(*why);
      return;
    }
  }
  tally.judged();
  if (fit.fit == detail::Fit::kMatches) return;
  std::string summary = fit.fit == detail::Fit::kUnderClaim
                            ? "the answer is not the model's at the reported offset " +
                                  std::to_string(offset) + " but at the later offset " +
                                  std::to_string(fit.matched_at) +
                                  " (an under-claim, with the switch on)"
                            : "the answer is not the model's at the reported offset " +
                                  std::to_string(offset) + " nor at any later one";
  out.push_back(detail::record_violation(context, kResultMatchesModelName, record, &outcome,
                                         std::move(summary), fit.expected,
                                         detail::outcome_string(outcome)));
}

}  // namespace

std::vector<Violation> check_result_matches_model(const JudgeContext& context) {
  std::vector<Violation> out;
  detail::Tally tally(context, kResultMatchesModelName);
  for (const sim::QueryRecord& record : context.trace().history.records()) {
    if (record.outcome != sim::OutcomeKind::kAnswered ||
        !context.judged_by(record, kResultMatchesModelName)) {
      continue;
    }
    const auto why = detail::not_answerable(context, record.request);
    for (const sim::PartitionOutcome& outcome : record.partitions) {
      if (!outcome.success) continue;
      if (why) {
        tally.not_judged(*why);
        continue;
      }
      judge_partition(context, record, outcome, tally, out);
    }
  }
  return out;
}

}  // namespace iq::properties
