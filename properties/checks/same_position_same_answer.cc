// SamePositionSameAnswer: two results for the same store partition and query that report the same
// position are equal, whichever replica or incarnation served them.
//
// "The same query" is the same kind, key, range bounds and order (and asOf, fromTime, toTime). Only
// successes with a non-empty position take part: an empty position claims nothing. Each result is
// compared with the first one recorded (in completion order) under the same key; values must be
// equal, and timestamps too, except that Kafka's adapter over a plain RocksDB store gives -1 on a
// cache miss and the real timestamp on a hit (docs/iqv2-semantics.md §4), so -1 against a real
// timestamp is no difference there.
//
// An LRU store (Stores.lruMap) evicts by its own access order, which differs between replicas
// (queries touch entries too): once it may have evicted, two replicas at one position can hold
// different subsets of the keys, so their answers agree when every key both returned has the same
// value and timestamp (ResultMatchesModel judges each answer against the model).
//
// A segmented window or session store does not persist its observed stream time: a replica whose
// store was reopened from its .checkpoint shows windows the retention floor hides in another
// replica at the same position. Such a difference is passed over (counted) when the model shows
// the hidden entries and the longer answer is its replica's changelog fold with the reopen
// (window_judge.cc, window_reopened_difference).
//
// With the consistency switch off, a restored store or a standby reports a stale position while
// holding newer data (docs/cluster-model.md §6), so two replicas can differ under one
// position by Kafka's design. A difference is then passed over (and counted) when the model shows
// one of the two answers to be such an under-claim; any other difference is a violation. This
// check does not otherwise consult the model: it would catch two replicas agreeing with each
// other less than with a wrong model.

#include <functional>
#include <map>
#include <vector>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties {
namespace {

constexpr const char* kSamePositionSameAnswerName =
    sim::property_names::kSamePositionSameAnswer.data();

// (store, partition, kind, key, lower, upper, order, position): the identity of an answer. It
// points into the trace's records, which outlive the check, so grouping copies nothing.
struct AnswerKey {
  const std::string* store;
  int32_t partition;
  QueryKind kind;
  std::optional<int32_t> key;
  std::optional<int32_t> lower;
  std::optional<int32_t> upper;
  ResultOrder order;
  // VersionedKeyQuery.asOf, MultiVersionedKeyQuery's fromTime and toTime.
  std::optional<int64_t> as_of_ms;
  std::optional<int64_t> from_time_ms;
  std::optional<int64_t> to_time_ms;
  const Position* position;
};

bool operator==(const AnswerKey& a, const AnswerKey& b) {
  return a.partition == b.partition && a.kind == b.kind && a.key == b.key && a.lower == b.lower &&
         a.upper == b.upper && a.order == b.order && a.as_of_ms == b.as_of_ms &&
         a.from_time_ms == b.from_time_ms && a.to_time_ms == b.to_time_ms && *a.store == *b.store &&
         a.position->map() == b.position->map();
}

// Only for look-ups: nothing iterates the table, so its order never reaches a report.
struct AnswerKeyHash {
  size_t operator()(const AnswerKey& k) const {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    const auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ULL + (h >> 29); };
    mix(static_cast<uint64_t>(k.partition));
    mix(static_cast<uint64_t>(k.kind));
    mix(k.key ? static_cast<uint64_t>(*k.key) + 1 : 0);
    mix(k.lower ? static_cast<uint64_t>(*k.lower) + 1 : 0);
    mix(k.upper ? static_cast<uint64_t>(*k.upper) + 1 : 0);
    mix(static_cast<uint64_t>(k.order));
    for (const auto& t : {k.as_of_ms, k.from_time_ms, k.to_time_ms})
      mix(t ? static_cast<uint64_t>(*t) ^ 0x5bd1e995ULL : 0);
    for (const auto& [topic, offsets] : k.position->map()) {
      uint64_t t = 0xcbf29ce484222325ULL;  // FNV-1a of the topic's bytes
      for (const char c : topic) t = (t ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
      mix(t);
      for (const auto& [partition, offset] : offsets) {
        mix(static_cast<uint64_t>(partition));
        mix(static_cast<uint64_t>(offset));
      }
    }
    return static_cast<size_t>(h);
  }
};

struct FirstAnswer {
  const sim::QueryRecord* record;
  const sim::PartitionOutcome* outcome;
};

// The first answer per AnswerKey: open addressing with linear probing over a power-of-two table of
// indexes into one vector of entries (two allocations per run, where a node-based hash map made
// one per answer, and nearly every answer is the first at its position). Only for look-ups:
// nothing iterates it, so its order never reaches a report.
class FirstAnswers {
 public:
  explicit FirstAnswers(size_t expected) {
    entries_.reserve(expected);
    rehash(expected);
  }
  // The first answer recorded under `key`, and whether it is `answer`, recorded just now.
  std::pair<FirstAnswer, bool> emplace(const AnswerKey& key, FirstAnswer answer) {
    const size_t hash = AnswerKeyHash{}(key);
    size_t i = hash & (slots_.size() - 1);
    for (;; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i] == kEmpty) break;
      const Entry& e = entries_[slots_[i]];
      if (e.hash == hash && e.key == key) return {e.answer, false};
    }
    entries_.push_back(Entry{hash, key, answer});
    slots_[i] = entries_.size() - 1;
    if (entries_.size() * 2 > slots_.size()) rehash(entries_.size());
    return {answer, true};
  }

 private:
  struct Entry {
    size_t hash;
    AnswerKey key;
    FirstAnswer answer;
  };
  static constexpr size_t kEmpty = static_cast<size_t>(-1);
  // At least twice `count` slots, every entry placed again.
  void rehash(size_t count) {
    size_t capacity = 16;
    while (capacity < 2 * count + 2) capacity *= 2;
    slots_.assign(capacity, kEmpty);
    for (size_t n = 0; n < entries_.size(); ++n) {
      size_t i = entries_[n].hash & (capacity - 1);
      while (slots_[i] != kEmpty) i = (i + 1) & (capacity - 1);
      slots_[i] = n;
    }
  }
  std::vector<Entry> entries_;
  std::vector<size_t> slots_;
};

bool timestamps_equal(const JudgeContext& context, const std::vector<int64_t>& a,
                      const std::vector<int64_t>& b) {
  if (a.size() != b.size()) return false;
  const bool minus_one = context.timestamp_mode() == model::TimestampMode::kMinusOne;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    if (minus_one && (a[i] == -1 || b[i] == -1)) continue;
    return false;
  }
  return true;
}

bool timestamp_equal(const JudgeContext& context, int64_t a, int64_t b) {
  return a == b ||
         (context.timestamp_mode() == model::TimestampMode::kMinusOne && (a == -1 || b == -1));
}

// Two cached TimestampedKeyQuery answers over a plain RocksDB store with the same value whose
// timestamps differ, each the model's at the reported offset: an aggregate's timestamp depends on
// when its replica last read the key from the store, which forgets timestamps (Kafka's adapter
// answers -1; ReferenceStore::timestamp_after_reload_possible), so two replicas at one position
// may hold two timestamps, both right.
bool reloaded_timestamps_differ(const JudgeContext& context, const sim::QueryRecord& a_record,
                                const sim::PartitionOutcome& a, const sim::QueryRecord& b_record,
                                const sim::PartitionOutcome& b) {
  if (context.timestamp_mode() != model::TimestampMode::kMinusOne ||
      a_record.request.kind != QueryKind::TimestampedKeyQuery || a.value != b.value ||
      detail::not_answerable(context, a_record.request)) {
    return false;
  }
  const int64_t offset = detail::reported_offset(context, *a.position, a.partition);
  return offset >= -1 &&
         !detail::differs_from_model(context, a_record.request, a, offset, detail::Describe::kNo) &&
         !detail::differs_from_model(context, b_record.request, b, offset, detail::Describe::kNo);
}

// Two answers of an LRU store that may have evicted: equal on every key both returned.
bool agree_up_to_eviction(const JudgeContext& context, const sim::PartitionOutcome& a,
                          const sim::PartitionOutcome& b) {
  const auto* value_a = std::get_if<std::optional<int64_t>>(&a.value);
  const auto* value_b = std::get_if<std::optional<int64_t>>(&b.value);
  if (value_a != nullptr && value_b != nullptr) {
    if (!value_a->has_value() || !value_b->has_value()) return true;
    return **value_a == **value_b && timestamps_equal(context, a.timestamps, b.timestamps);
  }
  const auto* list_a = std::get_if<sim::KeyValueList>(&a.value);
  const auto* list_b = std::get_if<sim::KeyValueList>(&b.value);
  if (list_a == nullptr || list_b == nullptr) return false;
  if (a.timestamps.size() != (a.timestamps.empty() ? 0 : list_a->size()) ||
      b.timestamps.size() != (b.timestamps.empty() ? 0 : list_b->size()) ||
      a.timestamps.empty() != b.timestamps.empty()) {
    return false;
  }
  std::map<int32_t, size_t> index_in_a;  // key -> its entry in a
  for (size_t i = 0; i < list_a->size(); ++i) index_in_a[(*list_a)[i].first] = i;
  for (size_t j = 0; j < list_b->size(); ++j) {
    const auto it = index_in_a.find((*list_b)[j].first);
    if (it == index_in_a.end()) continue;
    if ((*list_a)[it->second].second != (*list_b)[j].second) return false;
    if (!a.timestamps.empty() &&
        !timestamp_equal(context, a.timestamps[it->second], b.timestamps[j])) {
      return false;
    }
  }
  return true;
}

// Whether the model shows `outcome` to be an under-claim (data newer than its position).
bool under_claim(const JudgeContext& context, const sim::QueryRecord& record,
                 const sim::PartitionOutcome& outcome) {
  if (detail::not_answerable(context, record.request)) return false;
  const int64_t offset = detail::reported_offset(context, *outcome.position, outcome.partition);
  if (offset < -1) return false;
  return detail::fit_answer(context, record, outcome, offset).fit == detail::Fit::kUnderClaim;
}

}  // namespace

std::vector<Violation> check_same_position_same_answer(const JudgeContext& context) {
  std::vector<Violation> out;
  detail::Tally tally(context, kSamePositionSameAnswerName);
  const bool switch_off = !context.trace().consistency_offset_vector_enabled;
  FirstAnswers first(context.trace().history.size());
  for (const sim::QueryRecord& record : context.trace().history.records()) {
    if (record.outcome != sim::OutcomeKind::kAnswered ||
        !context.judged_by(record, kSamePositionSameAnswerName)) {
      continue;
    }
    const sim::QueryRequestRecord& q = record.request;
    for (const sim::PartitionOutcome& outcome : record.partitions) {
      if (!outcome.success) continue;
      if (!outcome.position || outcome.position->is_empty()) {
        tally.not_judged("no position to group by");
        continue;
      }
      const bool range = detail::is_range_kind(q.kind);
      const bool ordered = range || q.kind == QueryKind::MultiVersionedKeyQuery;
      const AnswerKey key{&q.store,
                          outcome.partition,
                          q.kind,
                          range ? std::nullopt : q.key,
                          range ? q.lower : std::nullopt,
                          range ? q.upper : std::nullopt,
                          ordered ? q.order : ResultOrder::ANY,
                          q.as_of_ms,
                          q.from_time_ms,
                          q.to_time_ms,
                          &*outcome.position};
      const auto [earlier, inserted] = first.emplace(key, FirstAnswer{&record, &outcome});
      if (inserted) {
        tally.not_judged("first answer at its position");
        continue;
      }
      if (outcome.value == earlier.outcome->value &&
          timestamps_equal(context, outcome.timestamps, earlier.outcome->timestamps)) {
        tally.judged();
        continue;
      }
      if (reloaded_timestamps_differ(context, record, outcome, *earlier.record, *earlier.outcome)) {
        tally.judged();
        continue;
      }
      if (detail::lru_may_have_evicted(
              context, outcome.partition,
              detail::reported_offset(context, *outcome.position, outcome.partition)) &&
          agree_up_to_eviction(context, outcome, *earlier.outcome)) {
        tally.judged();
        continue;
      }
      if (detail::window_reopened_difference(context, record, outcome, *earlier.record,
                                             *earlier.outcome)) {
        tally.not_judged(
            "window: a reopened segmented store shows what the retention floor hid (its observed "
            "stream time is not persisted)");
        continue;
      }
      if (switch_off && (under_claim(context, record, outcome) ||
                         under_claim(context, *earlier.record, *earlier.outcome))) {
        tally.not_judged("under-claim with the consistency switch off");
        continue;
      }
      tally.judged();
      const auto* answered_by =
          detail::find_replica(detail::explaining_placement(*earlier.record),
                               earlier.record->target_instance, earlier.outcome->partition);
      Violation& v = out.emplace_back(detail::record_violation(
          context, kSamePositionSameAnswerName, record, &outcome,
          "a different answer than record #" + std::to_string(earlier.record->id) + " (" +
              earlier.record->target_instance + ") at the same position " +
              outcome.position->to_string(),
          detail::outcome_string(*earlier.outcome) + " from record #" +
              std::to_string(earlier.record->id) + " served by " +
              (answered_by ? answered_by->to_string() : earlier.record->target_instance),
          detail::outcome_string(outcome)));
      v.other_record_id = earlier.record->id;
    }
  }
  return out;
}

}  // namespace iq::properties
