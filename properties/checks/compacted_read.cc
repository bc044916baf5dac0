// The proof that a violation is a replica inside a compacted changelog
// (ViolationClass::kReplicaInsideCompactedChangelog).
//
// Kafka's log cleaner (core/src/main/scala/kafka/log/LogCleaner.scala, Cleaner.doClean and
// cleanSegments; storage's OffsetMap) builds a map of the latest offset per key over the dirty
// section of a compacted log and rewrites the segments below the active one keeping only each
// key's latest record. A changelog is compacted (cleanup.policy=compact). A standby or a
// restoring active reads the changelog from its checkpoint (StoreChangelogReader) at whatever
// offset it is, so a record the cleaner removed before the replica fetched its offset is never
// read: until the replica reaches that key's newer record it lacks the key (or holds an older
// value), under a position that, by the headers of what it did read, covers the removed write.
// A compacted log promises the latest value per key only to a reader that reaches the head.
//
// A ResultMatchesModel violation gets this class only when both hold:
// 1. ChangelogWitness holds for the answer (value and, with the switch on, position) only as the
//    fold of what its replica could read of the compacted log: it skipped, for some keys, records
//    the cleaner removed at or before the answer, under the bounds changelog_witness.cc states
//    (a removed record is skippable only if removed by the answer, and not the replica's own
//    write unless its instance restarted since; the skipped and read records admit one
//    non-decreasing fetch time);
// 2. the answer with each such key given the whole prefix's fold instead (what the replica would
//    hold had it read those records) is the model's answer at the offset its position reports:
//    it differs from the model only in the keys whose superseded records it skipped.
// A SamePositionSameAnswer violation gets it when one answer is proven so and the other is proven
// alike or is the model's answer (violation_class.cc). Anything else stays a failure. A window or
// session store's answer is proven by prove_window_compacted_read (window_judge.cc) instead.

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "base/assert.h"
#include "checks/check.h"
#include "checks/check_util.h"
#include "model/key_bytes.h"

namespace iq::properties::detail {
namespace {

// The timestamp an answer of `kind` carries for a value whose record timestamp is `real`: one the
// timestamp mode accepts.
int64_t answered_timestamp(const JudgeContext& context, int64_t real) {
  return context.timestamp_mode() == model::TimestampMode::kReal ? real : -1;
}

// The outcome with each skipped key given the whole prefix's fold (absent: removed from it).
sim::PartitionOutcome unskipped(const JudgeContext& context, const sim::QueryRecord& record,
                                const sim::PartitionOutcome& outcome,
                                const std::vector<CompactedSkip>& skips) {
  const sim::QueryRequestRecord& q = record.request;
  const bool timestamped = is_timestamped_kind(q.kind);
  sim::PartitionOutcome out = outcome;
  if (is_key_kind(q.kind)) {
    IQ_ASSERT(skips.size() == 1 && q.key && skips[0].key == *q.key, "seed {}: record #{}",
              context.trace().seed, record.id);
    out.value = skips[0].unskipped_value;
    out.timestamps.clear();
    if (timestamped && skips[0].unskipped_value) {
      out.timestamps.push_back(answered_timestamp(context, skips[0].unskipped_timestamp_ms));
    }
    return out;
  }
  const auto* list = std::get_if<sim::KeyValueList>(&outcome.value);
  IQ_ASSERT(list != nullptr, "seed {}: record #{} is a range", context.trace().seed, record.id);
  std::map<int32_t, std::pair<int64_t, int64_t>> entries;  // key -> (value, timestamp)
  for (size_t i = 0; i < list->size(); ++i) {
    entries[(*list)[i].first] = {(*list)[i].second, timestamped && i < outcome.timestamps.size()
                                                        ? outcome.timestamps[i]
                                                        : 0};
  }
  for (const CompactedSkip& s : skips) {
    if (s.unskipped_value) {
      entries[s.key] = {*s.unskipped_value, answered_timestamp(context, s.unskipped_timestamp_ms)};
    } else {
      entries.erase(s.key);
    }
  }
  std::vector<int32_t> keys;
  for (const auto& [key, e] : entries) keys.push_back(key);
  std::sort(keys.begin(), keys.end(), [](int32_t a, int32_t b) {
    return model::compare_key_bytes(model::serialize_int32_key(a), model::serialize_int32_key(b)) <
           0;
  });
  if (q.order == ResultOrder::DESCENDING) std::reverse(keys.begin(), keys.end());
  sim::KeyValueList values;
  out.timestamps.clear();
  for (int32_t key : keys) {
    values.emplace_back(key, entries[key].first);
    if (timestamped) out.timestamps.push_back(entries[key].second);
  }
  out.value = std::move(values);
  return out;
}

std::string describe(const std::vector<CompactedSkip>& skips) {
  std::string text;
  for (const CompactedSkip& s : skips) {
    if (!text.empty()) text += "; ";
    text += fmt::format("key {}: offsets", s.key);
    for (ChangelogOffset o : s.skipped) text += fmt::format(" {}", o);
    text += fmt::format(" removed by {} ms", s.removed_ms_max.ms_since_epoch());
  }
  return text;
}

}  // namespace

ClassProof prove_compacted_changelog_read(const JudgeContext& context,
                                          const sim::QueryRecord& record,
                                          const sim::PartitionOutcome& outcome) {
  if (context.trace().topology.windowed() || context.trace().topology.session()) {
    return prove_window_compacted_read(context, record, outcome);
  }
  ClassProof proof;
  const WitnessResult w = changelog_witness(context, record, outcome);
  if (w.verdict != Witness::kHolds || w.compacted_skips.empty()) {
    proof.text =
        fmt::format("record #{} is not the fold of a compacted read of its changelog", record.id);
    return proof;
  }
  IQ_ASSERT(w.replica != nullptr, "seed {}: record #{}", context.trace().seed, record.id);
  if (!outcome.position || not_answerable(context, record.request)) {
    proof.text = fmt::format("record #{} has no position to compare with the model", record.id);
    return proof;
  }
  const int64_t offset = reported_offset(context, *outcome.position, outcome.partition);
  const sim::PartitionOutcome whole = unskipped(context, record, outcome, w.compacted_skips);
  const FitResult fit = fit_answer(context, record, whole, offset);
  const bool fits =
      fit.fit == Fit::kMatches ||
      (fit.fit == Fit::kUnderClaim && !context.trace().consistency_offset_vector_enabled);
  if (!fits) {
    proof.text = fmt::format(
        "record #{} is the fold of what {}'s {} could read of compacted changelog-{} [.., {}] "
        "({}), but differs from the model at offset {} in other keys too (expected {})",
        record.id, w.replica->instance, sim::to_string(w.replica->role), outcome.partition,
        w.applied_offset, describe(w.compacted_skips), offset, fit.expected);
    return proof;
  }
  proof.proven = true;
  proof.text = fmt::format(
      "record #{} is the fold of what {}'s {} could read of compacted changelog-{} [.., {}], "
      "skipping records the cleaner removed before it read them ({}), and with those keys "
      "folded whole it is the model's answer at offset {}",
      record.id, w.replica->instance, sim::to_string(w.replica->role), outcome.partition,
      w.applied_offset, describe(w.compacted_skips), offset);
  return proof;
}

}  // namespace iq::properties::detail
