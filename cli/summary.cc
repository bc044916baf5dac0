#include "summary.h"
#include "base/assert.h"
#include "base/probe.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <optional>
#include <set>
#include <type_traits>

#include <fmt/format.h>

#include "input_checks.h"
#include "query_phases.h"
#include "report_common.h"

namespace iq::cli {

namespace {

using nlohmann::json;

ViolationSummary violation_summary(const properties::Violation& v) {
  return {v.property,
          v.record_id,
          v.at_ms,
          v.summary,
          !v.reprocessed_before.empty(),
          properties::class_key(v.violation_class)};
}

// The first kViolationsListedMax violations, those of class failure first (each group in run
// order): a seed that fails among many known Kafka behaviours lists what failed it.
std::vector<ViolationSummary> listed(const std::vector<properties::Violation>& violations) {
  std::vector<ViolationSummary> out;
  for (const bool failures : {true, false}) {
    for (const properties::Violation& v : violations) {
      if (out.size() >= kViolationsListedMax) return out;
      if ((v.violation_class == properties::ViolationClass::kFailure) == failures) {
        out.push_back(violation_summary(v));
      }
    }
  }
  return out;
}

// Violations by property; with `after_reprocessing_only`, those after reprocessing of their
// partition.
std::map<std::string, uint64_t> count_by_property(
    const std::vector<properties::Violation>& violations, bool after_reprocessing_only = false) {
  std::map<std::string, uint64_t> counts;
  for (const properties::Violation& v : violations) {
    if (!after_reprocessing_only || !v.reprocessed_before.empty()) ++counts[v.property];
  }
  return counts;
}

void add_counts(std::map<std::string, uint64_t>& total,
                const std::map<std::string, uint64_t>& more) {
  for (const auto& [property, n] : more) total[property] += n;
}

json violations_json(const std::vector<ViolationSummary>& violations) {
  json out = json::array();
  for (const ViolationSummary& v : violations) {
    out.push_back({{"property", v.property},
                   {"record_id", v.record_id},
                   {"at_ms", v.at_ms},
                   {"summary", v.summary},
                   {"after_reprocessing", v.after_reprocessing},
                   {"class", v.violation_class}});
  }
  return out;
}

json result_json(const SeedResult& r) {  // seed_result_to_json
  json j = {{"seed", r.seed},
            {"passed", r.passed},
            {"violations", violations_json(r.violations)},
            {"expected_violations", violations_json(r.expected_violations)},
            {"unexpectedly_held", r.unexpectedly_held},
            {"violations_by_property", r.violations_by_property},
            {"expected_violations_by_property", r.expected_violations_by_property},
            {"after_reprocessing_by_property", r.after_reprocessing_by_property},
            {"violations_by_class", r.violations_by_class},
            {"properties_checked", r.properties_checked},
            {"queries_judged", r.queries_judged},
            {"queries_total", r.queries_total},
            {"judged_by_property", r.judged_by_property},
            {"not_judged_by_property", r.not_judged_by_property},
            {"virtual_ms", r.virtual_ms},
            {"events", r.events},
            {"records_reprocessed", r.records_reprocessed},
            {"dirty_reads", r.dirty_reads},
            {"processing_guarantee", r.processing_guarantee},
            {"kafka", r.kafka_pin},
            {"staleness", r.staleness},
            {"digest", r.digest},
            {"reproduce", r.reproduce},
            {"probes_hit", r.probes_hit},
            {"query_outcomes", r.query_outcomes},
            {"query_outcomes_by_phase", r.query_outcomes_by_phase}};
  // New-pin runs only, so the summaries of old-pin sweeps keep their shape.
  if (!r.query_outcomes_by_level.empty()) j["query_outcomes_by_level"] = r.query_outcomes_by_level;
  return j;
}

// A summary of the wrong shape, said as "WHERE.key: what was wrong" (never nlohmann's text).
struct ShapeError {
  std::string message;
};

template <typename T>
const char* expected_type() {
  if constexpr (std::is_same_v<T, bool>)
    return "a boolean";
  else if constexpr (std::is_same_v<T, std::string>)
    return "a string";
  else if constexpr (std::is_unsigned_v<T>)
    return "a non-negative integer";
  else if constexpr (std::is_integral_v<T>)
    return "an integer";
  else if constexpr (std::is_same_v<T, std::vector<std::string>>)
    return "an array of strings";
  else
    return "an object of non-negative integers";
}

template <typename T>
bool has_type(const json& v) {
  if constexpr (std::is_same_v<T, bool>)
    return v.is_boolean();
  else if constexpr (std::is_same_v<T, std::string>)
    return v.is_string();
  else if constexpr (std::is_unsigned_v<T>)
    return v.is_number_unsigned();
  else if constexpr (std::is_integral_v<T>)
    return v.is_number_integer();
  else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    return v.is_array() &&
           std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_string(); });
  } else {
    return v.is_object() &&
           std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_number_unsigned(); });
  }
}

const json& need_object(const json& j, const std::string& where) {
  if (!j.is_object()) throw ShapeError{where + ": must be an object, is " + j.type_name()};
  return j;
}

template <typename T>
T need(const json& j, const char* key, const std::string& where,
       std::optional<T> fallback = std::nullopt) {
  need_object(j, where);
  auto it = j.find(key);
  if (it == j.end()) {
    if (fallback) return *fallback;
    throw ShapeError{where + "." + key + ": missing"};
  }
  if (!has_type<T>(*it)) {
    throw ShapeError{where + "." + key + ": must be " + expected_type<T>() + ", is " +
                     std::string(it->type_name())};
  }
  return it->get<T>();
}

const json& need_array(const json& j, const char* key, const std::string& where) {
  need_object(j, where);
  auto it = j.find(key);
  if (it == j.end()) throw ShapeError{where + "." + key + ": missing"};
  if (!it->is_array()) {
    throw ShapeError{where + "." + key + ": must be an array, is " + std::string(it->type_name())};
  }
  return *it;
}

using Counts = std::map<std::string, uint64_t>;

std::vector<ViolationSummary> violations_from_json(const json& array, const std::string& where) {
  std::vector<ViolationSummary> out;
  for (size_t i = 0; i < array.size(); ++i) {
    const json& v = array[i];
    std::string at = where + "[" + std::to_string(i) + "]";
    // after_reprocessing came later than the rest: a summary written before it has none.
    out.push_back({need<std::string>(v, "property", at), need<uint64_t>(v, "record_id", at),
                   need<int64_t>(v, "at_ms", at), need<std::string>(v, "summary", at),
                   need<bool>(v, "after_reprocessing", at, false),
                   // so did the class: a violation of an older summary is a failure
                   need<std::string>(v, "class", at, std::string("failure"))});
  }
  return out;
}

SeedResult result_from_json(const json& j, const std::string& w) {
  SeedResult r;
  r.seed = need<uint64_t>(j, "seed", w);
  r.passed = need<bool>(j, "passed", w);
  r.violations = violations_from_json(need_array(j, "violations", w), w + ".violations");
  r.expected_violations =
      violations_from_json(need_array(j, "expected_violations", w), w + ".expected_violations");
  r.unexpectedly_held = need<std::vector<std::string>>(j, "unexpectedly_held", w);
  r.violations_by_property = need<Counts>(j, "violations_by_property", w);
  r.expected_violations_by_property = need<Counts>(j, "expected_violations_by_property", w);
  r.after_reprocessing_by_property = need<Counts>(j, "after_reprocessing_by_property", w, Counts{});
  // Classes came later: an older summary's violations are all failures (it passed none).
  Counts as_failures;
  for (const auto& [property, n] : r.violations_by_property) as_failures["failure"] += n;
  r.violations_by_class = need<Counts>(j, "violations_by_class", w, as_failures);
  r.properties_checked = need<std::vector<std::string>>(j, "properties_checked", w);
  r.queries_judged = need<uint64_t>(j, "queries_judged", w);
  r.queries_total = need<uint64_t>(j, "queries_total", w);
  // The judgement per property came later: an older summary has none.
  r.judged_by_property = need<Counts>(j, "judged_by_property", w, Counts{});
  if (auto it = j.find("not_judged_by_property"); it != j.end()) {
    const std::string at = w + ".not_judged_by_property";
    need_object(*it, at);
    for (const auto& [property, reasons] : it->items()) {
      if (!has_type<Counts>(reasons)) {
        throw ShapeError{at + "." + property + ": must be " + expected_type<Counts>()};
      }
      r.not_judged_by_property[property] = reasons.get<Counts>();
    }
  }
  r.virtual_ms = need<int64_t>(j, "virtual_ms", w);
  r.events = need<uint64_t>(j, "events", w);
  r.records_reprocessed = need<uint64_t>(j, "records_reprocessed", w, uint64_t{0});
  // dirty_reads came with exactly_once_v2's judgement: an older summary has none.
  r.dirty_reads = need<Counts>(j, "dirty_reads", w, Counts{});
  // The guarantee and the staleness histograms came with the guarantees' comparison.
  r.processing_guarantee = need<std::string>(j, "processing_guarantee", w, std::string{});
  // The pin came with the second pinned Kafka: an older summary ran the old one.
  r.kafka_pin = need<std::string>(j, "kafka", w, std::string("2024-10-25"));
  r.staleness = need<Counts>(j, "staleness", w, Counts{});
  if (!properties::staleness_from_counts(r.staleness)) {
    throw ShapeError{w + ".staleness: not staleness counts (ROLE.records|ms.bN or .max)"};
  }
  r.digest = need<std::string>(j, "digest", w);
  r.reproduce = need<std::string>(j, "reproduce", w);
  // probes_hit came later than the rest: a summary written before it has none.
  r.probes_hit = need<std::vector<std::string>>(j, "probes_hit", w, std::vector<std::string>{});
  // query_outcomes came with the configuration explorer, query_outcomes_by_phase with the
  // report's pictures: an older summary has neither.
  r.query_outcomes = need<Counts>(j, "query_outcomes", w, Counts{});
  r.query_outcomes_by_phase = need<Counts>(j, "query_outcomes_by_phase", w, Counts{});
  r.query_outcomes_by_level = need<Counts>(j, "query_outcomes_by_level", w, Counts{});
  return r;
}

// The scenario names of two summaries denote the same file if their normal forms agree.
std::string normal_path(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().string();
}

std::string failure_text(const SeedResult& r) {
  std::string text;
  for (const ViolationSummary& v : r.violations) {
    text += fmt::format("[{}] {}: {} (record {}, at {} ms)\n", v.violation_class, v.property,
                        v.summary, v.record_id, v.at_ms);
  }
  uint64_t total = 0;
  for (const auto& [property, n] : r.violations_by_property) total += n;
  if (total > r.violations.size()) {
    text += fmt::format("... {} more violations\n", total - r.violations.size());
  }
  for (const std::string& p : r.unexpectedly_held) {
    text += p + ": declared as an expected failure, but it held\n";
  }
  return text + "reproduce: " + r.reproduce + "\n";
}

std::string failure_message(const SeedResult& r) {
  for (const ViolationSummary& v : r.violations) {
    if (v.violation_class == "failure") return v.property + ": " + v.summary;
  }
  if (!r.violations.empty()) {
    return "[" + r.violations.front().violation_class + "] " + r.violations.front().property +
           ": " + r.violations.front().summary;
  }
  if (!r.unexpectedly_held.empty()) {
    return r.unexpectedly_held.front() + ": declared as an expected failure, but it held";
  }
  return "failed";
}

}  // namespace

uint64_t SweepSummary::passed() const {
  return static_cast<uint64_t>(
      std::count_if(results.begin(), results.end(), [](const SeedResult& r) { return r.passed; }));
}

uint64_t SweepSummary::passed_strict() const {
  return static_cast<uint64_t>(std::count_if(
      results.begin(), results.end(), [](const SeedResult& r) { return r.passed_strict(); }));
}

std::map<std::string, uint64_t> SweepSummary::violations_by_class() const {
  std::map<std::string, uint64_t> total;
  for (const SeedResult& r : results) add_counts(total, r.violations_by_class);
  return total;
}

std::map<std::string, uint64_t> SweepSummary::seeds_by_class() const {
  std::map<std::string, uint64_t> seeds;
  for (const SeedResult& r : results) {
    for (const auto& [cls, n] : r.violations_by_class) {
      if (n > 0) ++seeds[cls];
    }
  }
  return seeds;
}

uint64_t SweepSummary::queries_judged() const {
  return std::accumulate(results.begin(), results.end(), uint64_t{0},
                         [](uint64_t n, const SeedResult& r) { return n + r.queries_judged; });
}

uint64_t SweepSummary::queries_total() const {
  return std::accumulate(results.begin(), results.end(), uint64_t{0},
                         [](uint64_t n, const SeedResult& r) { return n + r.queries_total; });
}

uint64_t SweepSummary::records_reprocessed() const {
  return std::accumulate(results.begin(), results.end(), uint64_t{0},
                         [](uint64_t n, const SeedResult& r) { return n + r.records_reprocessed; });
}

std::map<std::string, uint64_t> SweepSummary::judged_by_property() const {
  std::map<std::string, uint64_t> total;
  for (const SeedResult& r : results) {
    for (const auto& [property, n] : r.judged_by_property) total[property] += n;
  }
  return total;
}

std::map<std::string, std::map<std::string, uint64_t>> SweepSummary::not_judged_by_property()
    const {
  std::map<std::string, std::map<std::string, uint64_t>> total;
  for (const SeedResult& r : results) {
    for (const auto& [property, reasons] : r.not_judged_by_property) {
      for (const auto& [reason, n] : reasons) total[property][reason] += n;
    }
  }
  return total;
}

std::vector<std::string> judgement_lines(
    const std::map<std::string, uint64_t>& judged,
    const std::map<std::string, std::map<std::string, uint64_t>>& not_judged) {
  std::vector<std::string> lines;
  std::set<std::string> properties;
  for (const auto& [p, n] : judged) properties.insert(p);
  for (const auto& [p, reasons] : not_judged) properties.insert(p);
  for (const std::string& p : properties) {
    const auto j = judged.find(p);
    std::string line = p + ": " + std::to_string(j == judged.end() ? 0 : j->second) + " judged";
    const auto it = not_judged.find(p);
    if (it == not_judged.end() || it->second.empty()) {
      lines.push_back(line + ", none passed over");
      continue;
    }
    uint64_t total = 0;
    std::string reasons;
    for (const auto& [reason, n] : it->second) {
      total += n;
      reasons += (reasons.empty() ? "" : "; ") + reason + ": " + std::to_string(n);
    }
    lines.push_back(line + ", " + std::to_string(total) + " not judged (" + reasons + ")");
  }
  return lines;
}

uint64_t SweepSummary::runs_with_reprocessing() const {
  return static_cast<uint64_t>(
      std::count_if(results.begin(), results.end(),
                    [](const SeedResult& r) { return r.records_reprocessed > 0; }));
}

namespace {

void merge_dirty_reads(std::map<std::string, uint64_t>& total,
                       const std::map<std::string, uint64_t>& counts) {
  for (const auto& [key, n] : counts) {
    // A maximum merges as a maximum; every other count sums, so shards merge exactly.
    total[key] = key.ends_with("_max") ? std::max(total[key], n) : total[key] + n;
  }
}

}  // namespace

std::map<std::string, uint64_t> SweepSummary::dirty_reads() const {
  std::map<std::string, uint64_t> total;
  for (const SeedResult& r : results) merge_dirty_reads(total, r.dirty_reads);
  return total;
}

std::map<std::string, std::map<std::string, uint64_t>> SweepSummary::dirty_reads_by_pin() const {
  std::map<std::string, std::map<std::string, uint64_t>> by;
  for (const SeedResult& r : results) {
    if (!r.dirty_reads.empty()) merge_dirty_reads(by[r.kafka_pin], r.dirty_reads);
  }
  return by;
}

uint64_t SweepSummary::runs_with_dirty_reads() const {
  return static_cast<uint64_t>(std::count_if(results.begin(), results.end(), [](const auto& r) {
    auto it = r.dirty_reads.find("dirty");
    return it != r.dirty_reads.end() && it->second > 0;
  }));
}

std::map<std::string, properties::AnswerStaleness> SweepSummary::staleness_by_guarantee() const {
  std::map<std::string, properties::AnswerStaleness> by;
  for (const SeedResult& r : results) {
    if (r.processing_guarantee.empty()) continue;
    std::optional<properties::AnswerStaleness> s = properties::staleness_from_counts(r.staleness);
    IQ_ASSERT(s.has_value(), "seed {}: staleness counts not readable", r.seed);
    properties::merge(by[r.processing_guarantee], *s);
  }
  return by;
}

std::map<std::string, uint64_t> SweepSummary::runs_by_guarantee() const {
  std::map<std::string, uint64_t> by;
  for (const SeedResult& r : results) {
    if (!r.processing_guarantee.empty()) ++by[r.processing_guarantee];
  }
  return by;
}

nlohmann::json staleness_json(const std::map<std::string, properties::AnswerStaleness>& by) {
  json out = json::object();
  const auto stats = [](const properties::StalenessHistogram& h) {
    return json{{"median", h.quantile(0.5)}, {"p90", h.quantile(0.9)}, {"max", h.max()}};
  };
  for (const auto& [guarantee, roles] : by) {
    json g = json::object();
    for (const auto& [role, s] : roles) {
      g[role] = {{"answers", s.records.count()},
                 {"records", stats(s.records)},
                 {"ms", stats(s.virtual_ms)}};
    }
    out[guarantee] = std::move(g);
  }
  return out;
}

std::vector<std::string> staleness_lines(
    const std::map<std::string, properties::AnswerStaleness>& by) {
  std::vector<std::string> lines;
  for (const auto& [guarantee, roles] : by) {
    for (const auto& [role, s] : roles) {
      lines.push_back(
          fmt::format("{} {}: {} answers, records {}/{}/{}, virtual ms {}/{}/{} (median/p90/max)",
                      guarantee, role, s.records.count(), s.records.quantile(0.5),
                      s.records.quantile(0.9), s.records.max(), s.virtual_ms.quantile(0.5),
                      s.virtual_ms.quantile(0.9), s.virtual_ms.max()));
    }
  }
  return lines;
}

std::string dirty_reads_text(const std::map<std::string, uint64_t>& c) {
  const auto get = [&](const char* key) {
    auto it = c.find(key);
    return static_cast<unsigned long long>(it == c.end() ? 0 : it->second);
  };
  std::string text = fmt::format(
      "{} of {} answers reflected uncommitted data (then aborted {}, open at the end {}, only "
      "unsent cache writes {}; served by a standby {}); a later answer of the same instance at a "
      "lower position followed {}",
      get("dirty"), get("answers"), get("aborted"), get("open_at_end"), get("unsent_only"),
      get("by_standby"), get("lower_position_followed"));
  if (get("uncommitted_ms_count") > 0) {
    text += fmt::format("; uncommitted for {} ms on average, {} ms at most",
                        get("uncommitted_ms_sum") / get("uncommitted_ms_count"),
                        get("uncommitted_ms_max"));
  }
  if (get("not_decided") > 0) {
    text += fmt::format(" ({} answers not decided: the witness did not hold)", get("not_decided"));
  }
  return text;
}

std::string dirty_reads_by_level_text(const std::map<std::string, uint64_t>& c) {
  const auto get = [&](const std::string& key) {
    auto it = c.find(key);
    return static_cast<unsigned long long>(it == c.end() ? 0 : it->second);
  };
  std::string text;
  for (const char* level : {"READ_COMMITTED", "READ_UNCOMMITTED"}) {
    const std::string l = level;
    if (c.find(l + "/answers") == c.end()) continue;
    text += fmt::format("{} {} {} of {} answers dirty ({} aborted)", text.empty() ? ";" : ",",
                        level, get(l + "/dirty"), get(l + "/answers"), get(l + "/aborted"));
  }
  return text;
}

std::vector<std::string> SweepSummary::properties_checked() const {
  std::set<std::string> all;
  for (const SeedResult& r : results)
    all.insert(r.properties_checked.begin(), r.properties_checked.end());
  return {all.begin(), all.end()};
}

std::map<std::string, uint64_t> SweepSummary::violations_by_property() const {
  std::map<std::string, uint64_t> total;
  for (const SeedResult& r : results) add_counts(total, r.violations_by_property);
  return total;
}

std::map<std::string, uint64_t> SweepSummary::expected_violations_by_property() const {
  std::map<std::string, uint64_t> total;
  for (const SeedResult& r : results) add_counts(total, r.expected_violations_by_property);
  return total;
}

std::map<std::string, uint64_t> SweepSummary::after_reprocessing_by_property() const {
  std::map<std::string, uint64_t> total;
  for (const SeedResult& r : results) add_counts(total, r.after_reprocessing_by_property);
  return total;
}

std::map<std::string, uint64_t> SweepSummary::unexpectedly_held_by_property() const {
  std::map<std::string, uint64_t> total;
  for (const SeedResult& r : results) {
    for (const std::string& p : r.unexpectedly_held) ++total[p];
  }
  return total;
}

nlohmann::json seed_result_to_json(const SeedResult& result) {
  return result_json(result);
}

base::Expected<SeedResult, std::string> seed_result_from_json(const nlohmann::json& json,
                                                              const std::string& where) {
  try {
    return result_from_json(json, where);
  } catch (const ShapeError& e) {
    return base::unexpected(shown(e.message));
  }
}

std::string seed_ranges_text(const std::vector<SeedRange>& ranges, size_t ranges_max) {
  std::string out;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (i == ranges_max) {
      size_t more = ranges.size() - i;
      return out + fmt::format(" and {} more range{}", more, more == 1 ? "" : "s");
    }
    const SeedRange& r = ranges[i];
    out += (out.empty() ? "" : ", ") +
           (r.first == r.last ? std::to_string(r.first) : fmt::format("{}..{}", r.first, r.last));
  }
  return out;
}

std::map<std::string, SweepSummary::ProbeRow> SweepSummary::probe_table() const {
  std::map<std::string, ProbeRow> table;
  for (const base::ProbeInfo& p : base::ProbeRegistry::all()) {
    table[std::string(p.name)].description = std::string(p.description);
  }
  for (const SeedResult& r : results) {  // ascending seed: the first hit is the first seed
    for (const std::string& name : r.probes_hit) {
      ProbeRow& row = table[name];  // a probe of another build keeps an empty description
      ++row.seeds;
      if (!row.first_seed) row.first_seed = r.seed;
    }
  }
  return table;
}

std::map<std::string, std::map<std::string, uint64_t>> SweepSummary::query_outcomes_by_phase()
    const {
  std::map<std::string, std::map<std::string, uint64_t>> sums;
  for (const SeedResult& r : results) {
    for (const auto& [key, n] : r.query_outcomes_by_phase) {
      const size_t slash = key.find('/');
      if (slash == std::string::npos) continue;  // not ours: another build's key
      sums[key.substr(0, slash)][key.substr(slash + 1)] += n;
    }
  }
  return sums;
}

namespace {

// At the 2026-08-20 pin: how the query clients' attempts ended, by the isolation level each was
// answered under (its own, else the client's default), as "LEVEL/OUTCOME"; empty at the old pin.
std::map<std::string, uint64_t> outcomes_by_level(const sim::RunTrace& trace) {
  std::map<std::string, uint64_t> out;
  if (!at_least(trace.kafka_pin, KafkaPin::k2026_08_20)) return out;
  for (const sim::QueryRecord& q : trace.history.records()) {
    if (q.source != sim::QueryRecord::Source::kClient) continue;
    const std::string level =
        to_string(q.request.isolation_level.value_or(trace.default_iq_isolation_level));
    if (q.outcome != sim::OutcomeKind::kAnswered) {
      ++out[level + "/" + reports::outcome_class(q, nullptr)];
      continue;
    }
    for (const sim::PartitionOutcome& p : q.partitions) {
      ++out[level + "/" + reports::outcome_class(q, &p)];
    }
  }
  return out;
}

}  // namespace

SeedResult seed_result(const properties::RunReport& report) {
  SeedResult r;
  r.seed = report.seed;
  r.passed = report.passed();
  r.violations = listed(report.violations);
  r.expected_violations = listed(report.expected_violations);
  r.unexpectedly_held = report.unexpectedly_held;
  r.violations_by_property = count_by_property(report.violations);
  r.expected_violations_by_property = count_by_property(report.expected_violations);
  r.after_reprocessing_by_property =
      count_by_property(report.violations, /*after_reprocessing_only=*/true);
  r.violations_by_class = report.violations_by_class();
  r.properties_checked = report.properties_checked;
  r.queries_judged = report.queries_judged;
  r.queries_total = report.queries_total;
  for (const auto& [property, tally] : report.tallies) {
    r.judged_by_property[property] = tally.judged;
    if (!tally.not_judged.empty()) r.not_judged_by_property[property] = tally.not_judged;
  }
  r.virtual_ms = report.virtual_ms;
  r.events = report.events;
  r.records_reprocessed = report.records_reprocessed;
  r.dirty_reads = properties::dirty_read_counts(report.dirty_reads);
  r.processing_guarantee = report.processing_guarantee;
  r.kafka_pin = report.kafka_pin;
  r.staleness = properties::staleness_counts(report.staleness);
  r.probes_hit = report.probes_hit;
  if (report.trace) {
    for (const auto& [phase, outcomes] : reports::query_outcomes_by_phase(*report.trace)) {
      for (const auto& [outcome, n] : outcomes)
        r.query_outcomes_by_phase[phase + "/" + outcome] = n;
    }
    for (const sim::QueryRecord& q : report.trace->history.records()) {
      if (q.source != sim::QueryRecord::Source::kClient) continue;
      if (q.outcome != sim::OutcomeKind::kAnswered) {
        ++r.query_outcomes[reports::outcome_class(q, nullptr)];
        continue;
      }
      for (const sim::PartitionOutcome& p : q.partitions) {
        ++r.query_outcomes[reports::outcome_class(q, &p)];
      }
    }
    r.query_outcomes_by_level = outcomes_by_level(*report.trace);
  }
  r.digest = report.digest;
  r.reproduce = report.reproduce_command();
  return r;
}

nlohmann::json to_json(const SweepSummary& s) {
  json results = json::array();
  for (const SeedResult& r : s.results) results.push_back(result_json(r));
  json failures = json::array();
  for (const SeedResult& r : s.results) {
    if (!r.passed) failures.push_back({{"seed", r.seed}, {"reproduce", r.reproduce}});
  }
  json out = {
      {"tool", {{"name", kToolName}, {"version", s.tool_version}}},
      {"command", s.command},
      {"scenario", s.scenario},
      {"title", s.title},
      {"seeds", {{"first", s.first_seed}, {"count", s.seed_count}}},
      {"shards", s.shards},
      {"stopped_early", s.stopped_early},
      {"partial", s.partial},
      {"totals",
       {{"runs", s.runs()},
        {"passed", s.passed()},
        {"failed", s.failed()},
        {"failed_strict", s.failed_strict()},
        {"violations_by_class", s.violations_by_class()},
        {"seeds_by_class", s.seeds_by_class()},
        {"queries_judged", s.queries_judged()},
        {"queries_total", s.queries_total()},
        {"judged_by_property", s.judged_by_property()},
        {"not_judged_by_property", s.not_judged_by_property()},
        {"records_reprocessed", s.records_reprocessed()},
        {"runs_with_reprocessing", s.runs_with_reprocessing()},
        {"dirty_reads", s.dirty_reads()},
        {"dirty_reads_by_pin", s.dirty_reads_by_pin()},
        {"runs_with_dirty_reads", s.runs_with_dirty_reads()},
        {"runs_by_guarantee", s.runs_by_guarantee()},
        {"staleness_by_guarantee", staleness_json(s.staleness_by_guarantee())},
        {"properties_checked", s.properties_checked()},
        {"violations_by_property", s.violations_by_property()},
        {"expected_violations_by_property", s.expected_violations_by_property()},
        {"after_reprocessing_by_property", s.after_reprocessing_by_property()},
        {"unexpectedly_held_by_property", s.unexpectedly_held_by_property()}}},
      {"failures", failures},
      {"results", results},
  };
  json probes = json::array();
  for (const auto& [name, row] : s.probe_table()) {
    probes.push_back({{"name", name},
                      {"description", row.description},
                      {"seeds", row.seeds},
                      {"first_seed", row.first_seed ? json(*row.first_seed) : json(nullptr)}});
  }
  out["probes"] = probes;  // derived from results' probes_hit; readers of older summaries skip it
  if (s.timing) {
    double seconds = std::max(s.timing->wall_seconds, 1e-9);
    out["timing"] = {
        {"wall_seconds", s.timing->wall_seconds},
        {"jobs", s.timing->jobs},
        {"seeds_per_second", static_cast<double>(s.runs()) / seconds},
        {"queries_judged_per_second", static_cast<double>(s.queries_judged()) / seconds},
        {"parent_peak_rss_kib", s.timing->parent_peak_rss_kib}};
    if (auto median = s.timing->peak_rss_kib_median()) {
      json by_seed = json::object();
      for (const auto& [seed, kib] : s.timing->peak_rss_kib_by_seed) {
        by_seed[std::to_string(seed)] = kib;
      }
      auto max = *s.timing->peak_rss_kib_max();
      out["timing"]["peak_rss_kib"] = {
          {"median", *median}, {"max", max.second}, {"max_seed", max.first}, {"by_seed", by_seed}};
    }
  }
  return out;
}

std::optional<int64_t> Timing::peak_rss_kib_median() const {
  if (peak_rss_kib_by_seed.empty()) return std::nullopt;
  std::vector<int64_t> kib;
  kib.reserve(peak_rss_kib_by_seed.size());
  for (const auto& entry : peak_rss_kib_by_seed) kib.push_back(entry.second);
  auto mid = kib.begin() + static_cast<std::ptrdiff_t>((kib.size() - 1) / 2);
  std::nth_element(kib.begin(), mid, kib.end());
  return *mid;
}

std::optional<std::pair<uint64_t, int64_t>> Timing::peak_rss_kib_max() const {
  std::optional<std::pair<uint64_t, int64_t>> max;
  for (const auto& [seed, kib] : peak_rss_kib_by_seed) {
    if (!max || kib > max->second) max = std::pair{seed, kib};  // ascending seed: the first wins
  }
  return max;
}

base::Expected<SweepSummary, std::string> summary_from_json(const nlohmann::json& j,
                                                            const std::string& source) {
  try {
    SweepSummary s;
    const std::string top = "summary";
    need_object(j, top);
    if (!j.contains("tool")) throw ShapeError{"summary.tool: missing"};
    s.tool_version = need<std::string>(j.at("tool"), "version", "summary.tool");
    s.command = need<std::string>(j, "command", top);
    s.scenario = need<std::string>(j, "scenario", top);
    s.title = need<std::string>(j, "title", top);
    if (!j.contains("seeds")) throw ShapeError{"summary.seeds: missing"};
    s.first_seed = need<uint64_t>(j.at("seeds"), "first", "summary.seeds");
    s.seed_count = need<uint64_t>(j.at("seeds"), "count", "summary.seeds");
    s.shards = need<std::vector<std::string>>(j, "shards", top);
    s.stopped_early = need<bool>(j, "stopped_early", top);
    s.partial = need<bool>(j, "partial", top, false);
    const json& results = need_array(j, "results", top);
    for (size_t i = 0; i < results.size(); ++i) {
      s.results.push_back(
          result_from_json(results[i], "summary.results[" + std::to_string(i) + "]"));
    }
    return s;
  } catch (const ShapeError& e) {
    return base::unexpected(shown(source) + ": not an iqsim summary: " + shown(e.message) +
                            " (accepted: a JSON summary written by iqsim run, fuzz or merge)");
  }
}

base::Expected<SweepSummary, std::string> merge_summaries(
    const std::vector<SweepSummary>& summaries, const std::vector<std::string>& sources,
    bool allow_gaps) {
  IQ_ASSERT(summaries.size() == sources.size());
  if (summaries.empty()) return base::unexpected(std::string("nothing to merge"));
  const SweepSummary& first = summaries.front();
  SweepSummary merged;
  merged.command = "merge";
  merged.scenario = first.scenario;
  merged.title = first.title;
  merged.first_seed = first.first_seed;
  uint64_t end = first.first_seed + first.seed_count;
  std::map<uint64_t, size_t> seen;  // seed -> input index
  for (size_t i = 0; i < summaries.size(); ++i) {
    const SweepSummary& s = summaries[i];
    if (normal_path(s.scenario) != normal_path(first.scenario) || s.title != first.title) {
      return base::unexpected(fmt::format(
          "{} is a summary of '{}' ({}), but {} is one of '{}' ({}): refusing to merge different "
          "scenarios",
          shown(sources[i]), shown(s.scenario), shown(s.title), shown(sources[0]),
          shown(first.scenario), shown(first.title)));
    }
    if (s.tool_version != first.tool_version) {
      return base::unexpected(fmt::format(
          "{} was written by iqsim {}, but {} by iqsim {}: refusing to merge summaries of "
          "different versions (rerun the shards with one version)",
          shown(sources[i]), shown(s.tool_version), shown(sources[0]), shown(first.tool_version)));
    }
    for (const SeedResult& r : s.results) {
      auto [it, inserted] = seen.emplace(r.seed, i);
      if (!inserted) {
        return base::unexpected(
            fmt::format("seed {} is in both {} and {}: refusing to merge overlapping sweeps",
                        r.seed, shown(sources[it->second]), shown(sources[i])));
      }
      merged.results.push_back(r);
    }
    merged.first_seed = std::min(merged.first_seed, s.first_seed);
    end = std::max(end, s.first_seed + s.seed_count);
    merged.shards.insert(merged.shards.end(), s.shards.begin(), s.shards.end());
    merged.stopped_early = merged.stopped_early || s.stopped_early;
    merged.partial = merged.partial || s.partial;
  }
  merged.seed_count = end - merged.first_seed;
  if (!allow_gaps) {
    // The seeds of [first, end) no input holds, as ranges between the held seeds (in order).
    std::vector<SeedRange> missing;
    uint64_t missing_n = 0, next = merged.first_seed;
    auto gap_to = [&](uint64_t end_exclusive) {
      if (next < end_exclusive) {
        missing.push_back({next, end_exclusive - 1});
        missing_n += end_exclusive - next;
      }
    };
    for (const auto& [seed, _] : seen) {
      gap_to(seed);
      next = seed + 1;
    }
    gap_to(end);
    if (!missing.empty()) {
      return base::unexpected(fmt::format(
          "the merged seeds {}..{} have gaps: {} seed{} in no input ({}); refusing to merge "
          "(run the missing seeds, or pass --allow-gaps)",
          merged.first_seed, end - 1, missing_n, missing_n == 1 ? "" : "s",
          seed_ranges_text(missing)));
    }
  }
  std::sort(merged.shards.begin(), merged.shards.end());
  std::sort(merged.results.begin(), merged.results.end(),
            [](const SeedResult& a, const SeedResult& b) { return a.seed < b.seed; });
  return merged;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
      case '\n':
      case '\r':
        out += c;
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 has no way to write these characters
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string to_junit(const SweepSummary& s) {
  std::string name = std::string(kToolName) + " " + s.command + " " + s.scenario;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" "
      "time=\"{:.3f}\">\n",
      xml_escape(name), s.runs(), s.failed(), s.timing ? s.timing->wall_seconds : 0.0);
  // Violations and seeds by class: a seed whose violations a declared Kafka behaviour explains
  // passes, and says so in its system-out.
  out += "  <properties>\n";
  const auto seeds = s.seeds_by_class();
  for (const auto& [cls, n] : s.violations_by_class()) {
    out += fmt::format("    <property name=\"violations.{}\" value=\"{}\"/>\n", xml_escape(cls), n);
    const auto it = seeds.find(cls);
    out += fmt::format("    <property name=\"seeds.{}\" value=\"{}\"/>\n", xml_escape(cls),
                       it == seeds.end() ? 0 : it->second);
  }
  out += "  </properties>\n";
  std::string classname = s.title.empty() ? s.scenario : s.title;
  for (const SeedResult& r : s.results) {
    out +=
        fmt::format("  <testcase classname=\"{}\" name=\"seed {}\"", xml_escape(classname), r.seed);
    if (r.passed && r.violations_by_property.empty()) {
      out += "/>\n";
      continue;
    }
    if (r.passed) {
      out += fmt::format(">\n    <system-out>{}</system-out>\n  </testcase>\n",
                         xml_escape("known Kafka behaviour only:\n" + failure_text(r)));
      continue;
    }
    out += fmt::format(">\n    <failure message=\"{}\" type=\"PropertyViolated\">{}</failure>\n",
                       xml_escape(failure_message(r)), xml_escape(failure_text(r)));
    out += "  </testcase>\n";
  }
  return out + "</testsuite>\n";
}

}  // namespace iq::cli
