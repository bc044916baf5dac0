#include "sweep_sections.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "checks/check.h"
#include "findings_catalogue.h"
#include "query_phases.h"
#include "report_common.h"

namespace iq::reports {

namespace {

constexpr const char* kFailureColour = "#d62728";
constexpr const char* kKnownColour = "#f0b429";

std::map<std::string, uint64_t> run_classes(const SweepRun& run) {
  if (!run.violations_by_class.empty()) return run.violations_by_class;
  std::map<std::string, uint64_t> counts;
  for (const properties::Violation& v : run.violations) {
    ++counts[properties::class_key(v.violation_class)];
  }
  return counts;
}

std::string seed_link(uint64_t seed, const std::string& page) {
  if (page.empty()) return std::to_string(seed);
  return fmt::format("<a href=\"{}\">seed {}</a>", html_escape(page), seed);
}

// Failures first, then the declared behaviours by seeds met, most first.
std::vector<std::string> class_order(const std::map<std::string, ClassOverSweep>& classes) {
  std::vector<std::string> keys;
  for (const auto& [key, c] : classes) keys.push_back(key);
  std::stable_sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
    return std::make_tuple(a != "failure", -static_cast<int64_t>(classes.at(a).seeds.size())) <
           std::make_tuple(b != "failure", -static_cast<int64_t>(classes.at(b).seeds.size()));
  });
  return keys;
}

std::string shows_row(const std::string& key, const ClassOverSweep& c) {
  const bool failure = key == "failure";
  std::string what =
      failure ? "<span class=\"verdict fail\">failure</span> a violation no declared Kafka "
                "behaviour explains: a bug of iqsim or of Kafka until someone reads it"
              : fmt::format("<span class=\"verdict known\">known</span> <a href=\"#{}\">{}</a>",
                            html_escape(finding_anchor(key)), html_escape(class_words(key)));
  return fmt::format(
      "<tr class=\"{}\"><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
      "<td>{}</td></tr>\n",
      failure ? "failure" : "known", what, c.seeds.size(), c.violations,
      c.first_page.empty() ? seed_link(c.seeds.front(), "")
                           : seed_link(c.first_page_seed, c.first_page));
}

SeedStrip seed_strip(const SweepInput& s, const std::map<std::string, ClassOverSweep>& classes) {
  SeedStrip strip{.id = "chart-classes-by-seed",
                  .title = "Declared Kafka behaviours and failures, by seed",
                  .first_seed = s.first_seed,
                  .seed_count = s.seed_count};
  for (const std::string& key : class_order(classes)) {
    const bool failure = key == "failure";
    strip.rows.push_back({.label = class_words(key),
                          .colour = failure ? kFailureColour : kKnownColour,
                          .seeds = classes.at(key).seeds,
                          .link = failure ? "#seeds" : "#" + finding_anchor(key)});
  }
  return strip;
}

}  // namespace

std::string class_words(const std::string& key) {
  for (properties::ViolationClass c : properties::kViolationClasses) {
    if (key != properties::class_key(c)) continue;
    std::string text = properties::to_string(c);
    const std::string prefix = "known Kafka behaviour: ";
    return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text;
  }
  return key;
}

std::map<std::string, ClassOverSweep> classes_over_sweep(const SweepInput& s) {
  std::map<std::string, ClassOverSweep> out;
  for (const SweepRun& run : s.runs) {  // in seed order
    for (const auto& [key, n] : run_classes(run)) {
      ClassOverSweep& c = out[key];
      c.seeds.push_back(run.seed);
      c.violations += n;
      if (c.first_page.empty() && !run.page.empty()) {
        c.first_page = run.page;
        c.first_page_seed = run.seed;
      }
    }
  }
  return out;
}

std::string render_sweep_shows(const SweepInput& s,
                               const std::map<std::string, ClassOverSweep>& classes) {
  uint64_t failed = 0;
  for (const SweepRun& run : s.runs) failed += run.passed ? 0 : 1;
  const size_t known = classes.size() - classes.count("failure");
  std::string html = fmt::format(
      "<section id=\"shows\"><h2>What this sweep shows about Kafka's IQ semantics</h2>\n"
      "<p class=\"shows-lead\">{} seeds ran: {} {}. The seeds met {} declared Kafka "
      "behaviour{}: ways IQv2 answers differ from what a caller would naively expect, each "
      "proven from the run's record; they do not fail a seed.</p>\n",
      s.runs.size(), failed == 0 ? "none" : std::to_string(failed),
      failed == 0 ? "failed" : "<span class=\"fail-text\">failed</span>", known,
      known == 1 ? "" : "s");
  html +=
      "<p class=\"legend\"><span><i style=\"background:#d62728\"></i>failure: fails the "
      "seed</span><span><i style=\"background:#f0b429\"></i>known Kafka behaviour: explained, "
      "counted apart</span><span><i style=\"background:#2ca02c\"></i>held</span></p>\n";
  if (!classes.empty()) {
    html +=
        "<table class=\"shows\"><tr><th>what</th><th>seeds</th><th>violations</th><th>first "
        "seed that showed it</th></tr>\n";
    for (const std::string& key : class_order(classes)) html += shows_row(key, classes.at(key));
    html += "</table>\n";
    html += render_seed_strip_figure(seed_strip(s, classes));
  } else {
    html += "<p>No violation at all: every property held on every seed.</p>\n";
  }
  return html + "</section>\n";
}

namespace {

// (role, guarantee) rows: roles in the order a task moves through them, the guarantees side by
// side, other roles last.
std::vector<std::pair<std::string, std::string>> staleness_rows(
    const std::map<std::string, properties::AnswerStaleness>& by_guarantee) {
  static const char* kRoles[] = {"active", "restoring", "standby", "warmup"};
  std::vector<std::pair<std::string, std::string>> rows;
  for (const char* role : kRoles) {
    for (const auto& [g, roles] : by_guarantee) {
      if (roles.count(role)) rows.emplace_back(role, g);
    }
  }
  for (const auto& [g, roles] : by_guarantee) {
    for (const auto& [role, st] : roles) {
      if (std::find(std::begin(kRoles), std::end(kRoles), role) == std::end(kRoles)) {
        rows.emplace_back(role, g);
      }
    }
  }
  return rows;
}

}  // namespace

BarChart staleness_distribution_chart(
    const std::map<std::string, properties::AnswerStaleness>& by_guarantee, bool ms,
    const std::string& id) {
  static constexpr int64_t kBounds[] = {1, 10, 100, 1000};  // bins [0,1) [1,10) ... [1000,)
  const char* suffix = ms ? " ms" : "";
  BarChart chart{.id = id,
                 .title = ms ? "How stale answers were, in virtual ms: share of answers per range"
                             : "How stale answers were, in source records behind: share of "
                               "answers per range",
                 .unit = "answers",
                 .series = {{fmt::format("0{}", suffix), "#2f7d32"},
                            {fmt::format("1-9{}", suffix), "#8cc084"},
                            {fmt::format("10-99{}", suffix), "#c6dbef"},
                            {fmt::format("100-999{}", suffix), "#6baed6"},
                            {fmt::format("1000{} and more", suffix), "#08519c"}},
                 .layout = BarChart::Layout::kShares};
  for (const auto& [role, g] : staleness_rows(by_guarantee)) {
    const properties::RoleStaleness& st = by_guarantee.at(g).at(role);
    const auto& h = ms ? st.virtual_ms : st.records;
    std::vector<double> bins(5, 0.0);
    for (const auto& [lower, n] : h.buckets()) {
      const auto bin =
          std::upper_bound(std::begin(kBounds), std::end(kBounds), lower) - std::begin(kBounds);
      bins[static_cast<size_t>(bin)] += static_cast<double>(n);
    }
    chart.rows.push_back(fmt::format("{} / {}", role, g));
    chart.values.push_back(std::move(bins));
  }
  return chart;
}

BarChart staleness_chart(const std::map<std::string, properties::AnswerStaleness>& by_guarantee,
                         bool ms, const std::string& id) {
  BarChart chart{.id = id,
                 .title = ms ? "Staleness of answers in virtual ms (age of the oldest source "
                               "record the answer lacked), by role and guarantee"
                             : "Staleness of answers in source records behind the log end, by "
                               "role and guarantee",
                 .unit = ms ? "virtual ms" : "records",
                 .series = {{"median", "#4c78a8"}, {"p90", "#9ecae9"}, {"max", "#7f7f7f"}},
                 .scale = BarChart::Scale::kLog};
  for (const auto& [role, g] : staleness_rows(by_guarantee)) {
    const properties::RoleStaleness& st = by_guarantee.at(g).at(role);
    const auto& h = ms ? st.virtual_ms : st.records;
    chart.rows.push_back(fmt::format("{} / {} ({} answers)", role, g, h.count()));
    chart.values.push_back({static_cast<double>(h.quantile(0.5)),
                            static_cast<double>(h.quantile(0.9)), static_cast<double>(h.max())});
  }
  return chart;
}

BarChart probe_chart(const std::map<std::string, uint64_t>& probe_seeds, uint64_t runs,
                     const std::string& id) {
  std::vector<std::pair<std::string, uint64_t>> rows(probe_seeds.begin(), probe_seeds.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  BarChart chart{
      .id = id,
      .title = fmt::format("Probe coverage: seeds (of {}) that reached each coverage probe", runs),
      .unit = "seeds",
      .series = {{"seeds that reached it", "#59a14f"}, {"not reached", "#c7c7c7"}},
      .layout = BarChart::Layout::kStacked};
  for (const auto& [name, seeds] : rows) {
    chart.rows.push_back(name);
    // The rest of the seeds in grey, so every row spans the sweep and an unreached probe shows.
    chart.values.push_back(
        {static_cast<double>(seeds), static_cast<double>(runs > seeds ? runs - seeds : 0)});
  }
  return chart;
}

std::string render_sweep_charts(const SweepInput& s) {
  std::string html =
      "<section id=\"charts\"><h2>Pictures</h2>\n<p>Each picture's numbers are one click away "
      "under it (\"the numbers\"). Hover a bar for its value.</p>\n";
  if (!s.staleness_by_guarantee.empty()) {
    html +=
        "<p>How far behind the source log each answer was when it answered, by the serving "
        "replica's role and the run's processing guarantee: first how the answers spread "
        "over ranges, then the median, p90 and max (log scale; medians and p90s are "
        "histogram bucket lower bounds).</p>\n";
    for (const bool ms : {false, true}) {
      const std::string unit = ms ? "ms" : "records";
      html += render_bar_figure(staleness_distribution_chart(s.staleness_by_guarantee, ms,
                                                             "chart-staleness-spread-" + unit));
      html += render_bar_figure(
          staleness_chart(s.staleness_by_guarantee, ms, "chart-staleness-" + unit));
    }
  }
  if (!s.query_outcomes.empty()) {
    html +=
        "<p>Before the first fault, while faults were injected, and in the liveness phase "
        "(everything healed, probes bounded by all that was produced): the share of "
        "partition results answered and refused by each reason.</p>\n";
    html += render_bar_figure(phase_outcomes_chart(s.query_outcomes, "chart-outcomes-by-phase"));
  }
  if (!s.probe_seeds.empty()) {
    html += "<details open><summary>probe coverage</summary>\n" +
            render_bar_figure(probe_chart(s.probe_seeds, s.runs.size(), "chart-probes")) +
            "</details>\n";
  }
  return html + "</section>\n";
}

}  // namespace iq::reports
