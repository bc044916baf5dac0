// ScriptedExpectations: every scripted query's outcome is exactly what its scenario step expects.
//
// Each ScriptedExpectation names its query record. Compared, where the step gives them: the
// StreamsError thrown instead of an answer (by kind name, "UnknownStateStoreException" or
// "UnknownStateStore"), the set of partitions answered, and per partition success, the value
// (KeyQuery; null = absent), the entries in order (RangeQuery), the timestamps, the position, the
// failure reason and a fragment of the failure message, the windows of a window query (an entry
// whose end is not expected is compared without it), whether execution info was collected; per
// record, the set of values unioned over the answered partitions (all of which must have
// succeeded, as Kafka's window and session checks require) and the merged position
// (StateQueryResult.getPosition). One violation per partition (or per record for the
// record-level fields) lists every field that differs, with the step's file:line.
//
// An `expect` is an assertion the scenario file makes, so it is judged whether or not its
// [[test]] lists this property among its checks (the runner asks for this check whenever the
// trace has expectations).

#include <map>

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties {
namespace {

constexpr const char* kScriptedExpectationsName = sim::property_names::kScriptedExpectations.data();

std::string value_text(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : std::string("null");
}

std::string entries_text(const sim::KeyValueList& entries) {
  std::string out = "[";
  for (size_t i = 0; i < entries.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(entries[i].first) + "=" +
           std::to_string(entries[i].second);
  }
  return out + "]";
}

std::string timestamps_text(const std::vector<int64_t>& ts) {
  std::string out = "[";
  for (size_t i = 0; i < ts.size(); ++i) out += (i ? "," : "") + std::to_string(ts[i]);
  return out + "]";
}

template <typename T>
std::string set_text(const std::set<T>& ps) {
  std::string out = "{";
  for (const T& p : ps) out += (out.size() > 1 ? "," : "") + std::to_string(p);
  return out + "}";
}

// Expected windows against the answer: the same entries in order; an expected entry without an
// end matches any end.
bool windows_match(const sim::WindowedList& want, const sim::WindowedList& got) {
  if (want.size() != got.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    const sim::WindowedValue& w = want[i];
    const sim::WindowedValue& g = got[i];
    if (w.key != g.key || w.start_ms != g.start_ms || w.value != g.value) return false;
    if (w.end_ms && w.end_ms != g.end_ms) return false;
  }
  return true;
}

// The values of one successful partition's answer: a key query's value, a range's or a window
// query's entries' values, or the versions' values.
void collect_values(const sim::ResultValue& v, std::set<int64_t>& out) {
  if (const auto* one = std::get_if<std::optional<int64_t>>(&v)) {
    if (*one) out.insert(**one);
  } else if (const auto* list = std::get_if<sim::KeyValueList>(&v)) {
    for (const auto& e : *list) out.insert(e.second);
  } else if (const auto* versions = std::get_if<sim::VersionedList>(&v)) {
    for (const auto& e : *versions) out.insert(e.value);
  } else if (const auto* windows = std::get_if<sim::WindowedList>(&v)) {
    for (const auto& e : *windows) out.insert(e.value);
  }
}

std::string partitions_text(const std::set<int32_t>& ps) {
  return set_text(ps);
}

bool error_name_matches(const std::string& expected, StreamsError::Kind kind) {
  const std::string name = StreamsError::kind_name(kind);
  const std::string suffix = "Exception";
  const std::string short_name =
      name.size() > suffix.size() &&
              name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0
          ? name.substr(0, name.size() - suffix.size())
          : name;
  return expected == name || expected == short_name;
}

// Every field of one expected partition that the outcome does not meet, as "field=expected".
std::vector<std::string> partition_mismatches(const sim::ExpectedPartition& want,
                                              const sim::PartitionOutcome& got) {
  std::vector<std::string> bad;
  if (want.success && *want.success != got.success) {
    bad.push_back(std::string("success=") + (*want.success ? "true" : "false"));
  }
  if (want.value) {
    const auto* v = std::get_if<std::optional<int64_t>>(&got.value);
    if (!got.success || v == nullptr || *v != *want.value) {
      bad.push_back("value=" + value_text(*want.value));
    }
  }
  if (want.entries) {
    const auto* e = std::get_if<sim::KeyValueList>(&got.value);
    if (!got.success || e == nullptr || *e != *want.entries) {
      bad.push_back("entries=" + entries_text(*want.entries));
    }
  }
  if (want.versions) {
    const auto* v = std::get_if<sim::VersionedList>(&got.value);
    if (!got.success || v == nullptr || *v != *want.versions) {
      std::string text = "[";
      for (const auto& version : *want.versions)
        text += (text.size() > 1 ? ", " : "") + sim::to_string(version);
      bad.push_back("versions=" + text + "]");
    }
  }
  if (want.windows) {
    const auto* w = std::get_if<sim::WindowedList>(&got.value);
    if (!got.success || w == nullptr || !windows_match(*want.windows, *w)) {
      std::string text = "[";
      for (const auto& e : *want.windows) text += (text.size() > 1 ? ", " : "") + sim::to_string(e);
      bad.push_back("windows=" + text + "]");
    }
  }
  if (want.execution_info && *want.execution_info == got.execution_info.empty()) {
    bad.push_back(std::string("execution_info ") + (*want.execution_info ? "non-empty" : "empty"));
  }
  if (want.timestamps && got.timestamps != *want.timestamps) {
    bad.push_back("timestamps=" + timestamps_text(*want.timestamps));
  }
  if (want.position && got.position != want.position) {
    bad.push_back("position=" + want.position->to_string());
  }
  if (want.failure_reason && (got.success || got.failure_reason != want.failure_reason)) {
    bad.push_back(std::string("failure_reason=") + iq::to_string(*want.failure_reason));
  }
  if (want.message_contains &&
      (got.success || got.failure_message.find(*want.message_contains) == std::string::npos)) {
    bad.push_back("message containing '" + *want.message_contains + "'");
  }
  return bad;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

void judge(const JudgeContext& context, const sim::ScriptedExpectation& want,
           const sim::QueryRecord& record, std::vector<Violation>& out) {
  const std::string at = " (" + want.where + ")";
  if (want.error) {
    if (record.outcome == sim::OutcomeKind::kStreamsError && record.error &&
        error_name_matches(*want.error, record.error->kind)) {
      return;
    }
    out.push_back(detail::record_violation(context, kScriptedExpectationsName, record, nullptr,
                                           "expected " + *want.error + at, *want.error,
                                           detail::record_outcome_text(record, false)));
    return;
  }
  if (record.outcome != sim::OutcomeKind::kAnswered) {
    out.push_back(detail::record_violation(context, kScriptedExpectationsName, record, nullptr,
                                           "expected an answer" + at, "answered",
                                           detail::record_outcome_text(record, false)));
    return;
  }
  std::map<int32_t, const sim::PartitionOutcome*> got;
  std::set<int32_t> answered;
  for (const auto& o : record.partitions) {
    got[o.partition] = &o;
    answered.insert(o.partition);
  }
  if (want.answered_partitions && answered != *want.answered_partitions) {
    out.push_back(detail::record_violation(
        context, kScriptedExpectationsName, record, nullptr, "answered partitions differ" + at,
        partitions_text(*want.answered_partitions), partitions_text(answered)));
  }
  if (want.values) {
    std::set<int64_t> values;
    bool all_succeeded = true;
    for (const auto& o : record.partitions) {
      all_succeeded = all_succeeded && o.success;
      if (o.success) collect_values(o.value, values);
    }
    if (!all_succeeded || values != *want.values) {
      out.push_back(detail::record_violation(
          context, kScriptedExpectationsName, record, nullptr,
          "values unioned over the partitions differ" + at,
          set_text(*want.values) + " from every partition succeeding",
          set_text(values) + (all_succeeded ? "" : " (a partition failed)")));
    }
  }
  if (want.merged_position) {
    Position merged = Position::empty_position();
    for (const auto& o : record.partitions) {
      if (o.position) merged.merge(*o.position, context.trace().kafka_pin);  // pin delta 17
    }
    if (merged != *want.merged_position) {
      out.push_back(detail::record_violation(
          context, kScriptedExpectationsName, record, nullptr, "merged position differs" + at,
          want.merged_position->to_string(), merged.to_string()));
    }
  }
  for (const auto& p : want.partitions) {
    const auto it = got.find(p.partition);
    if (it == got.end()) {
      out.push_back(detail::record_violation(
          context, kScriptedExpectationsName, record, nullptr,
          "no result for partition " + std::to_string(p.partition) + at,
          "a result for partition " + std::to_string(p.partition), partitions_text(answered)));
      continue;
    }
    const auto bad = partition_mismatches(p, *it->second);
    if (bad.empty()) continue;
    out.push_back(detail::record_violation(
        context, kScriptedExpectationsName, record, it->second,
        "partition " + std::to_string(p.partition) + " differs from the step" + at, join(bad),
        detail::outcome_string(*it->second)));
  }
}

}  // namespace

std::vector<Violation> check_scripted_expectations(const JudgeContext& context) {
  std::vector<Violation> out;
  detail::Tally tally(context, kScriptedExpectationsName);
  if (context.trace().expectations.empty()) return out;
  const auto& records = context.trace().history.records();
  std::map<uint64_t, const sim::QueryRecord*> by_id;
  for (const auto& r : records) by_id[r.id] = &r;
  for (const sim::ScriptedExpectation& want : context.trace().expectations) {
    const auto it = by_id.find(want.record_id);
    if (it == by_id.end()) {
      tally.judged();
      Violation v;
      v.property = kScriptedExpectationsName;
      v.record_id = want.record_id;
      v.summary =
          "no query record #" + std::to_string(want.record_id) + " for the step at " + want.where;
      out.push_back(std::move(v));
      continue;
    }
    tally.judged();
    judge(context, want, *it->second, out);
  }
  return out;
}

}  // namespace iq::properties
