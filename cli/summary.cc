#include "base/probe.h"
#include "summary.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <set>

#include <fmt/format.h>

namespace iq::cli {

namespace {

using nlohmann::json;

ViolationSummary violation_summary(const properties::Violation& v) {
  return {v.property, v.record_id, v.at_ms, v.summary, !v.reprocessed_before.empty()};
}

std::vector<ViolationSummary> listed(const std::vector<properties::Violation>& violations) {
  std::vector<ViolationSummary> out;
  for (size_t i = 0; i < violations.size() && i < kViolationsListedMax; ++i) {
    out.push_back(violation_summary(violations[i]));
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
                   {"after_reprocessing", v.after_reprocessing}});
  }
  return out;
}

json result_json(const SeedResult& r) {
  return {{"seed", r.seed},
          {"passed", r.passed},
          {"violations", violations_json(r.violations)},
          {"expected_violations", violations_json(r.expected_violations)},
          {"unexpectedly_held", r.unexpectedly_held},
          {"violations_by_property", r.violations_by_property},
          {"expected_violations_by_property", r.expected_violations_by_property},
          {"after_reprocessing_by_property", r.after_reprocessing_by_property},
          {"properties_checked", r.properties_checked},
          {"queries_judged", r.queries_judged},
          {"queries_total", r.queries_total},
          {"virtual_ms", r.virtual_ms},
          {"events", r.events},
          {"records_reprocessed", r.records_reprocessed},
          {"digest", r.digest},
          {"reproduce", r.reproduce},
          {"probes_hit", r.probes_hit}};
}

std::vector<ViolationSummary> violations_from_json(const json& array) {
  std::vector<ViolationSummary> out;
  for (const json& v : array) {
    // after_reprocessing came later than the rest: a summary written before it has none.
    out.push_back({v.at("property").get<std::string>(), v.at("record_id").get<uint64_t>(),
                   v.at("at_ms").get<int64_t>(), v.at("summary").get<std::string>(),
                   v.value("after_reprocessing", false)});
  }
  return out;
}

SeedResult result_from_json(const json& j) {
  SeedResult r;
  r.seed = j.at("seed").get<uint64_t>();
  r.passed = j.at("passed").get<bool>();
  r.violations = violations_from_json(j.at("violations"));
  r.expected_violations = violations_from_json(j.at("expected_violations"));
  r.unexpectedly_held = j.at("unexpectedly_held").get<std::vector<std::string>>();
  r.violations_by_property = j.at("violations_by_property").get<std::map<std::string, uint64_t>>();
  r.expected_violations_by_property =
      j.at("expected_violations_by_property").get<std::map<std::string, uint64_t>>();
  r.after_reprocessing_by_property =
      j.value("after_reprocessing_by_property", std::map<std::string, uint64_t>{});
  r.properties_checked = j.at("properties_checked").get<std::vector<std::string>>();
  r.queries_judged = j.at("queries_judged").get<uint64_t>();
  r.queries_total = j.at("queries_total").get<uint64_t>();
  r.virtual_ms = j.at("virtual_ms").get<int64_t>();
  r.events = j.at("events").get<uint64_t>();
  r.records_reprocessed = j.value("records_reprocessed", uint64_t{0});
  r.digest = j.at("digest").get<std::string>();
  r.reproduce = j.at("reproduce").get<std::string>();
  // probes_hit came later than the rest: a summary written before it has none.
  r.probes_hit = j.value("probes_hit", std::vector<std::string>{});
  return r;
}

// The scenario names of two summaries denote the same file if their normal forms agree.
std::string normal_path(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().string();
}

std::string failure_text(const SeedResult& r) {
  std::string text;
  for (const ViolationSummary& v : r.violations) {
    text +=
        fmt::format("{}: {} (record {}, at {} ms)\n", v.property, v.summary, v.record_id, v.at_ms);
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
  if (!r.violations.empty()) {
    return r.violations.front().property + ": " + r.violations.front().summary;
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

uint64_t SweepSummary::runs_with_reprocessing() const {
  return static_cast<uint64_t>(
      std::count_if(results.begin(), results.end(),
                    [](const SeedResult& r) { return r.records_reprocessed > 0; }));
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
  r.properties_checked = report.properties_checked;
  r.queries_judged = report.queries_judged;
  r.queries_total = report.queries_total;
  r.virtual_ms = report.virtual_ms;
  r.events = report.events;
  r.records_reprocessed = report.records_reprocessed;
  r.probes_hit = report.probes_hit;
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
      {"totals",
       {{"runs", s.runs()},
        {"passed", s.passed()},
        {"failed", s.failed()},
        {"queries_judged", s.queries_judged()},
        {"queries_total", s.queries_total()},
        {"records_reprocessed", s.records_reprocessed()},
        {"runs_with_reprocessing", s.runs_with_reprocessing()},
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
        {"queries_judged_per_second", static_cast<double>(s.queries_judged()) / seconds}};
  }
  return out;
}

base::Expected<SweepSummary, std::string> summary_from_json(const nlohmann::json& j,
                                                            const std::string& source) {
  try {
    SweepSummary s;
    s.tool_version = j.at("tool").at("version").get<std::string>();
    s.command = j.at("command").get<std::string>();
    s.scenario = j.at("scenario").get<std::string>();
    s.title = j.at("title").get<std::string>();
    s.first_seed = j.at("seeds").at("first").get<uint64_t>();
    s.seed_count = j.at("seeds").at("count").get<uint64_t>();
    s.shards = j.at("shards").get<std::vector<std::string>>();
    s.stopped_early = j.at("stopped_early").get<bool>();
    for (const json& r : j.at("results")) s.results.push_back(result_from_json(r));
    return s;
  } catch (const json::exception& e) {
    // nlohmann names the missing key or the wrong type; say which file it was.
    return base::unexpected(source + ": not an iqsim summary: " + e.what());
  }
}

base::Expected<SweepSummary, std::string> merge_summaries(
    const std::vector<SweepSummary>& summaries, const std::vector<std::string>& sources) {
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
          sources[i], s.scenario, s.title, sources[0], first.scenario, first.title));
    }
    for (const SeedResult& r : s.results) {
      auto [it, inserted] = seen.emplace(r.seed, i);
      if (!inserted) {
        return base::unexpected(
            fmt::format("seed {} is in both {} and {}: refusing to merge overlapping sweeps",
                        r.seed, sources[it->second], sources[i]));
      }
      merged.results.push_back(r);
    }
    merged.first_seed = std::min(merged.first_seed, s.first_seed);
    end = std::max(end, s.first_seed + s.seed_count);
    merged.shards.insert(merged.shards.end(), s.shards.begin(), s.shards.end());
    merged.stopped_early = merged.stopped_early || s.stopped_early;
  }
  merged.seed_count = end - merged.first_seed;
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
  std::string classname = s.title.empty() ? s.scenario : s.title;
  for (const SeedResult& r : s.results) {
    out +=
        fmt::format("  <testcase classname=\"{}\" name=\"seed {}\"", xml_escape(classname), r.seed);
    if (r.passed) {
      out += "/>\n";
      continue;
    }
    out += fmt::format(">\n    <failure message=\"{}\" type=\"PropertyViolated\">{}</failure>\n",
                       xml_escape(failure_message(r)), xml_escape(failure_text(r)));
    out += "  </testcase>\n";
  }
  return out + "</testsuite>\n";
}

}  // namespace iq::cli
