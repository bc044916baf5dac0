// Unit tests of the pictures (charts.h), the query phases they draw (query_phases.h), the sweep
// page's "what it shows" (sweep_sections.h) and the findings catalogue (findings_catalogue.h):
// what is drawn is counted against the data, not just found non-empty.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include <fmt/format.h>

#include "charts.h"
#include "checks/check.h"
#include "findings_catalogue.h"
#include "html_report.h"
#include "query_phases.h"
#include "sweep_sections.h"

namespace iq::reports {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The texts of every <text class="CLS"> element, in order (links unwrapped).
std::vector<std::string> texts(const std::string& svg, const std::string& cls) {
  std::vector<std::string> out;
  const std::regex re("<text class=\"" + cls + "\"[^>]*>(?:<a[^>]*>)?([^<]*)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

BarChart grouped() {
  return BarChart{.id = "g",
                  .title = "t",
                  .unit = "records",
                  .rows = {"active / at_least_once", "standby / exactly_once_v2"},
                  .series = {{"median", "#111"}, {"p90", "#222"}, {"max", "#333"}},
                  .values = {{0, 2, 40}, {3, 18, 210}}};
}

TEST(Charts, GroupedBarsOnePerCellLabelledByRow) {
  const BarChart c = grouped();
  const std::string svg = render_bar_svg(c);
  EXPECT_EQ(count(svg, "<rect class=\"bar\""), 6u);
  EXPECT_EQ(texts(svg, "rowlabel"), c.rows);
  EXPECT_EQ(count(svg, "<g class=\"key\">"), 3u);
  // Each bar's title names its row, series and value: the longest is the largest value.
  EXPECT_NE(svg.find("<title>standby / exactly_once_v2, max: 210 records</title>"),
            std::string::npos);
  EXPECT_NE(svg.find("data-row=\"1\" data-series=\"2\" x=\"270.0\" y=\"95.0\" width=\"600.0\""),
            std::string::npos)
      << svg;
}

TEST(Charts, LogScaleKeepsSmallValuesVisibleAndSaysSo) {
  BarChart c = grouped();
  c.scale = BarChart::Scale::kLog;
  const std::string svg = render_bar_svg(c);
  EXPECT_NE(svg.find("records (log scale)"), std::string::npos);
  // log10(1+3)/log10(1+210) of 600: about 218, where a linear scale gives 8.6.
  EXPECT_NE(svg.find("data-row=\"1\" data-series=\"0\" x=\"270.0\" y=\"75.0\" width=\"155.4\""),
            std::string::npos)
      << svg;
}

TEST(Charts, SharesStackPerRowAndSkipZeroSegments) {
  BarChart c{.id = "s",
             .title = "outcomes",
             .unit = "partition results",
             .rows = {"before faults", "liveness"},
             .series = {{"answered", "#0a0"}, {"NOT_UP_TO_BOUND", "#fa0"}},
             .values = {{30, 10}, {5, 0}},
             .layout = BarChart::Layout::kShares};
  const std::string svg = render_bar_svg(c);
  EXPECT_EQ(count(svg, "<rect class=\"bar\""), 3u) << "a zero cell draws nothing";
  EXPECT_NE(svg.find("before faults, NOT_UP_TO_BOUND: 10 partition results (25.0%)"),
            std::string::npos);
  // Both rows span the full width: 450 + 150 and 600.
  EXPECT_NE(svg.find("x=\"720.0\" y=\"34.0\" width=\"150.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("x=\"270.0\" y=\"58.0\" width=\"600.0\""), std::string::npos) << svg;
  const std::string numbers = render_bar_numbers(c);
  EXPECT_EQ(count(numbers, "<tr><td>"), 2u);
  EXPECT_NE(numbers.find("<td class=\"num\">10 (25.0%)</td>"), std::string::npos) << numbers;
}

// A cell not measured (NaN: a role that served no answer under a configuration) draws no bar and
// says "none", and its number is "-": a 0 would read as perfectly fresh answers.
TEST(Charts, NotMeasuredCellsSayNoneInsteadOfZero) {
  BarChart c = grouped();
  c.values[0][1] = std::nan("");
  const std::string svg = render_bar_svg(c);
  EXPECT_EQ(count(svg, "<rect class=\"bar\""), 5u);
  EXPECT_EQ(count(svg, ">none (p90)</text>"), 1u) << svg;
  EXPECT_EQ(svg.find("nan"), std::string::npos) << svg;
  const std::string numbers = render_bar_numbers(c);
  EXPECT_NE(numbers.find("<td class=\"num\">0</td><td class=\"num\">-</td>"), std::string::npos)
      << numbers;
}

// A legend too long for one line (the explorer's ten outcomes) wraps inside the chart's width,
// and the rows start under its last line.
TEST(Charts, ALongLegendWrapsAndTheRowsStartUnderIt) {
  BarChart c{.id = "o", .title = "t", .unit = "attempts", .rows = {"[1] 0", "[2] 1"}};
  for (int i = 0; i < 10; ++i) c.series.push_back({fmt::format("OUTCOME_NAME_{:02}", i), "#111"});
  c.values = {std::vector<double>(10, 1.0), std::vector<double>(10, 2.0)};
  c.layout = BarChart::Layout::kShares;
  const std::string svg = render_bar_svg(c);
  const std::regex key("<g class=\"key\"><rect x=\"(\\d+)\" y=\"(\\d+)\"");
  std::set<int> lines;
  int right_max = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), key); it != std::sregex_iterator();
       ++it) {
    lines.insert(std::stoi((*it)[2]));
    right_max = std::max(right_max, std::stoi((*it)[1]) + 16 + 7 * 16);
  }
  EXPECT_GE(lines.size(), 2u) << svg;
  EXPECT_LE(right_max, 960) << "a legend entry passes the chart's right edge";
  const std::regex bar(
      "<rect class=\"bar\" data-row=\"0\" data-series=\"0\" x=\"[0-9.]+\" y=\"([0-9.]+)\"");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, bar)) << svg;
  EXPECT_GT(std::stod(m[1]), static_cast<double>(*lines.rbegin()) + 12) << svg;
}

TEST(Charts, FigureHoldsTheSvgAndItsNumbers) {
  const std::string fig = render_bar_figure(grouped());
  EXPECT_EQ(fig.rfind("<figure class=\"chart\" id=\"g\">", 0), 0u);
  EXPECT_LT(fig.find("</svg>"), fig.find("<details class=\"numbers\">"));
  EXPECT_EQ(count(fig, "<tr><td>"), 2u);
  EXPECT_NE(fig.find("<td class=\"num\">210</td>"), std::string::npos);
  BarChart empty = grouped();
  empty.rows.clear();
  empty.values.clear();
  EXPECT_EQ(render_bar_figure(empty).find("<svg"), std::string::npos);
}

TEST(Charts, LabelsAreEscaped) {
  BarChart c = grouped();
  c.rows[0] = "a <b> & \"c\"";
  const std::string svg = render_bar_svg(c);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_NE(svg.find("a &lt;b&gt; &amp;"), std::string::npos);
}

TEST(Charts, LongLabelsAreCutToTheColumnWithTheWholeInTheirTooltip) {
  BarChart c = grouped();
  c.rows[0] = std::string(60, 'x');
  const std::string svg = render_bar_svg(c);
  EXPECT_NE(svg.find(std::string(43, 'x') + "…<title>" + std::string(60, 'x') + "</title>"),
            std::string::npos)
      << svg;
}

TEST(Charts, SeedStripMarksEachSeedOnceWithinTheAxis) {
  SeedStrip s{.id = "strip", .title = "by seed", .first_seed = 1, .seed_count = 300};
  s.rows.push_back({.label = "failure", .colour = "#d62728", .seeds = {5, 5, 17}});
  s.rows.push_back({.label = "known", .colour = "#f0b429", .seeds = {1, 300, 301}, .link = "#k"});
  const std::string svg = render_seed_strip_svg(s);
  EXPECT_EQ(count(svg, "<rect class=\"mark\""), 4u) << "5 once, 301 beyond the axis";
  EXPECT_EQ(count(svg, "data-seed=\"5\""), 1u);
  EXPECT_EQ(count(svg, "data-seed=\"301\""), 0u);
  EXPECT_EQ(texts(svg, "rowlabel"), (std::vector<std::string>{"failure", "known"}));
  EXPECT_NE(svg.find("<a href=\"#k\">"), std::string::npos);
  const std::string numbers = render_seed_strip_numbers(s);
  EXPECT_NE(numbers.find("<td>failure</td><td class=\"num\">2</td><td>5, 17</td>"),
            std::string::npos)
      << numbers;
}

sim::QueryRecord query(int64_t invoke_ms, bool success,
                       sim::QueryRecord::Source source = sim::QueryRecord::Source::kClient) {
  sim::QueryRecord q;
  q.source = source;
  q.invoke_ms = base::Instant::from_ms(invoke_ms);
  q.complete_ms = q.invoke_ms;
  q.outcome = sim::OutcomeKind::kAnswered;
  sim::PartitionOutcome p;
  p.success = success;
  if (!success) p.failure_reason = FailureReason::NOT_UP_TO_BOUND;
  q.partitions.push_back(p);
  return q;
}

TEST(QueryPhases, SplitAtTheFirstFaultAndWhenFaultsStopped) {
  sim::RunTrace trace;
  sim::FaultRecord crash;
  crash.at_ms = base::Instant::from_ms(1000);
  crash.kind = sim::FaultKind::kCrash;
  crash.instance = "instance-1";
  trace.faults.push_back(crash);
  trace.liveness.emplace();
  trace.liveness->faults_stopped_ms = base::Instant::from_ms(5000);
  int64_t done_ms = 0;  // the history holds records in completion order
  for (sim::QueryRecord q :
       {query(10, true), query(999, false), query(1000, true), query(4999, false),
        query(5000, true), query(100, true, sim::QueryRecord::Source::kLiveness)}) {
    q.id = trace.history.next_id();
    done_ms = std::max(done_ms, q.invoke_ms.ms_since_epoch());
    q.complete_ms = base::Instant::from_ms(done_ms);
    trace.history.append(std::move(q));
  }
  sim::QueryRecord timed_out = query(2000, true);
  timed_out.id = trace.history.next_id();
  timed_out.complete_ms = base::Instant::from_ms(done_ms);
  timed_out.outcome = sim::OutcomeKind::kTimedOut;
  timed_out.partitions.clear();
  trace.history.append(std::move(timed_out));
  const PhaseOutcomes counts = query_outcomes_by_phase(trace);
  const PhaseOutcomes want{
      {"before_faults", {{"answered", 1}, {"NOT_UP_TO_BOUND", 1}}},
      {"during_faults", {{"answered", 1}, {"NOT_UP_TO_BOUND", 1}, {"timeout", 1}}},
      {"liveness", {{"answered", 2}}}};
  EXPECT_EQ(counts, want);
  const BarChart c = phase_outcomes_chart(counts, "p");
  EXPECT_EQ(c.rows, (std::vector<std::string>{"before faults", "during faults", "liveness"}));
  EXPECT_EQ(c.series.front().name, "answered");
  EXPECT_EQ(c.series.size(), 3u);
  EXPECT_EQ(count(render_bar_svg(c), "<rect class=\"bar\""), 6u);
}

TEST(FindingsCatalogue, EveryDeclaredClassHasAnEntryAndItsScenarioExists) {
  std::set<std::string> keys;
  for (properties::ViolationClass c : properties::kViolationClasses) {
    const std::string key = properties::class_key(c);
    if (c == properties::ViolationClass::kFailure) {
      EXPECT_EQ(find_finding(key), nullptr);
      continue;
    }
    keys.insert(key);
    const Finding* f = find_finding(key);
    ASSERT_NE(f, nullptr) << "no catalogue entry for " << key << " (reports/findings_catalogue.cc)";
    EXPECT_FALSE(f->title.empty() || f->explanation.empty() || f->kafka_source.empty() ||
                 f->conditions.empty() || f->what_to_do.empty())
        << key;
    EXPECT_FALSE(f->scenario.empty() && f->seen_in.empty()) << key << ": where does it show?";
    if (!f->scenario.empty()) {
      EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::path(IQSIM_SOURCE_DIR) /
                                                   std::string(f->scenario)))
          << key << ": " << f->scenario;
    }
  }
  for (const Finding& f : findings_catalogue()) {
    EXPECT_TRUE(keys.count(std::string(f.key))) << f.key << " is no declared class";
  }
  EXPECT_EQ(findings_catalogue().size(), keys.size());
}

TEST(FindingsCatalogue, SectionExplainsWhatWasMet) {
  const std::string html =
      render_findings_section({{"failure", 3}, {"alos_reprocessing", 7}}, "findings", "seeds");
  EXPECT_EQ(count(html, "<article class=\"about\""), 1u);
  EXPECT_NE(html.find("id=\"about-alos_reprocessing\""), std::string::npos);
  EXPECT_NE(html.find("met: 7 seeds"), std::string::npos);
  EXPECT_NE(html.find("alos_count_double_counts_after_crash.toml"), std::string::npos);
  EXPECT_NE(render_findings_section({}, "findings", "seeds").find("None"), std::string::npos);
}

SweepInput sweep_with_classes() {
  SweepInput s;
  s.scenario = "x.toml";
  s.first_seed = 1;
  s.seed_count = 4;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SweepRun run;
    run.seed = seed;
    run.passed = seed != 4;
    run.properties_checked = {"ResultMatchesModel"};
    if (seed >= 2) {
      run.violations_by_class["alos_reprocessing"] = seed;
      run.violations_by_property["ResultMatchesModel"] = seed;
    }
    if (seed == 4) run.violations_by_class["failure"] = 1;
    if (seed == 3 || seed == 4) run.page = "x-seed" + std::to_string(seed) + ".html";
    s.runs.push_back(run);
  }
  return s;
}

TEST(SweepShows, BehavioursWithSeedsFirstPagesAndLinks) {
  const SweepInput s = sweep_with_classes();
  const auto classes = classes_over_sweep(s);
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes.at("alos_reprocessing").seeds, (std::vector<uint64_t>{2, 3, 4}));
  EXPECT_EQ(classes.at("alos_reprocessing").violations, 9u);
  EXPECT_EQ(classes.at("alos_reprocessing").first_page, "x-seed3.html");
  const std::string html = render_sweep_shows(s, classes);
  EXPECT_NE(html.find("<a href=\"#about-alos_reprocessing\">at-least-once reprocessing</a>"),
            std::string::npos);
  EXPECT_NE(html.find("<a href=\"x-seed3.html\">seed 3</a>"), std::string::npos);
  // The failure row comes first and is red; the strip draws 3 + 1 marks.
  EXPECT_LT(html.find("<tr class=\"failure\">"), html.find("<tr class=\"known\">"));
  EXPECT_EQ(count(html, "<rect class=\"mark\""), 4u);
}

TEST(SweepShows, APassingSweepWithKnownBehavioursShowsNoRed) {
  SweepInput s = sweep_with_classes();
  s.runs.pop_back();  // seed 4, the failure
  s.seed_count = 3;
  const std::string html = render_sweep_report(s);
  EXPECT_EQ(html.find("verdict fail"), std::string::npos) << "a red badge on a passing sweep";
  EXPECT_EQ(html.find("#d62728\"></rect"), std::string::npos);
  EXPECT_NE(html.find("verdict known"), std::string::npos);
  for (const char* id : {"id=\"shows\"", "id=\"charts\"", "id=\"findings\"",
                         "id=\"about-alos_reprocessing\"", "id=\"chart-classes-by-seed\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  // The property table: 2 seeds with the known behaviour only, no failing seed.
  EXPECT_NE(html.find("<td>ResultMatchesModel</td><td><span class=\"verdict pass\">0</span></td>"
                      "<td><span class=\"verdict known\">2</span></td>"),
            std::string::npos)
      << html;
}

TEST(SweepCharts, StalenessRowsByRoleThenGuaranteeAndProbesSorted) {
  std::map<std::string, properties::AnswerStaleness> by;
  by["exactly_once_v2"]["standby"].records.add(5);
  by["at_least_once"]["standby"].records.add(1);
  by["at_least_once"]["active"].records.add(0);
  const BarChart c = staleness_chart(by, false, "s");
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0], "active / at_least_once (1 answers)");
  EXPECT_EQ(c.rows[2], "standby / exactly_once_v2 (1 answers)");
  EXPECT_EQ(c.values[2][2], 5);
  by["at_least_once"]["active"].records.add(40);
  by["at_least_once"]["active"].records.add(5000, 2);
  const BarChart spread = staleness_distribution_chart(by, false, "d");
  EXPECT_EQ(spread.rows[0], "active / at_least_once");
  EXPECT_EQ(spread.values[0], (std::vector<double>{1, 0, 1, 0, 2}));
  EXPECT_EQ(spread.values[1], (std::vector<double>{0, 1, 0, 0, 0}));
  EXPECT_EQ(spread.values[2], (std::vector<double>{0, 1, 0, 0, 0}));
  const BarChart p = probe_chart({{"a", 0}, {"b", 3}, {"c", 1}}, 3, "p");
  EXPECT_EQ(p.rows, (std::vector<std::string>{"b", "c", "a"}));
  EXPECT_EQ(p.values[2], (std::vector<double>{0, 3}));
}

}  // namespace
}  // namespace iq::reports
