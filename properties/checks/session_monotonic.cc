// SessionMonotonic: a client that feeds its merged position back as its bound never sees any
// component go backwards.
//
// Per query client (records with source kClient; a client is identified by its number within the
// [[test]] phase it ran in, since every test starts its own clients), in completion order: the
// client's merged position is the merge of the positions of all its earlier successful partition
// results, whatever their bound mode (that is what the workload feeds back). Each successful
// result of a session-bound query must then, for the partition it served, hold every component of
// the merged position for that partition at least as high; components of other partitions are
// not the served store's to report. A result with no position at all, or lacking a component the
// client already saw for that partition, went backwards.
//
// Queries with requireActive are not judged: Kafka discards their bound (docs/iqv2-semantics.md
// §5 step 5.4, quirk 3), so the client is not feeding its position back there, and FailureReason-
// Correct pins the quirk itself. Their positions still join the merged position, as the
// workload's do.

#include <map>
#include <utility>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties {
namespace {

constexpr const char* kSessionMonotonicName = sim::property_names::kSessionMonotonic.data();

// The client's merged position, kept as the bare map Position holds: merged in one pass per
// result (Position::merge first asks whether anything changes, then searches again to change it,
// and that was most of this check's cost); a Position again only to describe a violation.
using Merged = Position::Map;

// Position::merge into `seen`: the per-partition maximum; a topic of `other` is created even when
// its map is empty. Each topic's partitions are walked together with seen's, in key order.
void merge_into(Merged& seen, const Position& other) {
  for (const auto& [topic, partitions] : other.map()) {
    auto t = seen.find(topic);
    if (t == seen.end()) t = seen.emplace(topic, Position::PartitionOffsets{}).first;
    Position::PartitionOffsets& mine = t->second;
    auto at = mine.begin();
    for (const auto& [partition, offset] : partitions) {
      while (at != mine.end() && at->first < partition) ++at;
      if (at == mine.end() || at->first != partition) {
        at = mine.emplace_hint(at, partition, offset);
      } else if (offset > at->second) {
        at->second = offset;
      }
    }
  }
}

// The first component of `seen` on `partition` that `position` holds lower or not at all.
std::optional<std::string> went_backwards(const Merged& seen, const Position& position,
                                          int32_t partition) {
  for (const auto& [topic, offsets] : seen) {
    const auto before = offsets.find(partition);
    if (before == offsets.end()) continue;
    const int64_t* now = position.offset(topic, partition);
    if (now == nullptr) {
      return topic + "[" + std::to_string(partition) + "]: " + std::to_string(before->second) +
             " -> absent";
    }
    if (*now < before->second) {
      return topic + "[" + std::to_string(partition) + "]: " + std::to_string(before->second) +
             " -> " + std::to_string(*now);
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<Violation> check_session_monotonic(const JudgeContext& context) {
  std::vector<Violation> out;
  detail::Tally tally(context, kSessionMonotonicName);
  // (phase, client) -> merged position of the client's successes so far.
  std::map<std::pair<int32_t, int32_t>, Merged> merged;
  for (const sim::QueryRecord& record : context.trace().history.records()) {
    if (record.source != sim::QueryRecord::Source::kClient || record.client < 0 ||
        record.outcome != sim::OutcomeKind::kAnswered) {
      continue;
    }
    const auto who = std::make_pair(context.phase_index(record.invoke_ms), record.client);
    Merged& seen = merged[who];
    const bool judged = record.request.bound_mode == sim::BoundMode::kSession &&
                        context.judged_by(record, kSessionMonotonicName);
    for (const sim::PartitionOutcome& outcome : record.partitions) {
      if (!outcome.success) continue;
      // requireActive queries are judged too: the client asked for its session bound, and that
      // Kafka drops it under requireActive (quirk 3) is what a violation then shows.
      if (judged) {
        tally.judged();
        const Position none = Position::empty_position();
        if (auto back = went_backwards(seen, outcome.position ? *outcome.position : none,
                                       outcome.partition)) {
          out.push_back(detail::record_violation(
              context, kSessionMonotonicName, record, &outcome,
              "client " + std::to_string(record.client) + " saw a component go backwards: " + *back,
              "every component of " + Position::from_map(seen).to_string() + " on partition " +
                  std::to_string(outcome.partition) + " at least as high",
              outcome.position ? outcome.position->to_string() : std::string("no position")));
        }
      }
      if (outcome.position) merge_into(seen, *outcome.position);
    }
  }
  return out;
}

}  // namespace iq::properties
