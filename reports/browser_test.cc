// Renders the report of a real failing run (reports/testdata/failover_wrong_expectation.toml: a
// failover, then a scripted query with a wrong expectation), a sweep page of three of its seeds,
// and the page of a real `iqsim explore` of a 2x2 grid over two seeds
// (reports/testdata/explore_failover.toml) and of a real `iqsim upgrade` over two seeds
// (reports/testdata/upgrade_crash.toml), and loads each in headless Chromium: a screenshot is
// taken and must be non-trivial, and the DOM after scripts ran must hold every section (for the
// sweep, the explorer and the upgrade: every chart's SVG with its bars and numbers) and no script
// error. Chromium missing is a failure (scripts/setup installs it).

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "html_report.h"
#include "query_phases.h"
#include "runner.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_writer.h"

namespace iq::reports {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string chromium_path() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return "";
}

// What headless Chromium made of a page: the screenshot's size and the DOM after scripts ran.
struct Loaded {
  uintmax_t png_bytes = 0;
  std::string dom;
};

// Loads `html` (in `dir`) twice: a screenshot, then --dump-dom; each with a fresh profile. The
// profile and logs are named after the page (or `stem`), so the Browser.* tests, which ctest may
// run at once, never share a Chromium profile (its lock refuses a second browser).
Loaded load_in_chromium(const std::filesystem::path& dir, const std::filesystem::path& html,
                        const std::string& where, std::string stem = "") {
  std::string chromium = chromium_path();
  EXPECT_FALSE(chromium.empty())
      << "chromium is not installed: run scripts/setup (it installs the Debian package "
         "'chromium'); this test needs a headless browser and does not skip without one";
  if (chromium.empty()) return {};
  if (stem.empty()) stem = html.stem().string();
  const std::filesystem::path profile = dir / ("profile-" + stem);
  const auto common = [&] {
    std::filesystem::remove_all(profile);
    std::filesystem::create_directories(profile);
    return chromium +
           " --headless --no-sandbox --disable-gpu --disable-background-networking"
           " --no-first-run --user-data-dir=" +
           profile.string();
  };
  std::filesystem::path png = dir / (stem + ".png");
  std::filesystem::path dom = dir / (stem + "-dom.html");
  std::filesystem::path shot_log = dir / (stem + "-screenshot.log");
  std::filesystem::path dump_log = dir / (stem + "-dump.log");
  std::string shot = "timeout 180 " + common() + " --screenshot=" + png.string() +
                     " --window-size=1400,3000 file://" + html.string() + " >" + shot_log.string() +
                     " 2>&1";
  EXPECT_EQ(std::system(shot.c_str()), 0) << where << ": " << read_file(shot_log);
  std::string dump = "timeout 180 " + common() + " --dump-dom file://" + html.string() + " >" +
                     dom.string() + " 2>" + dump_log.string();
  EXPECT_EQ(std::system(dump.c_str()), 0) << where << ": " << read_file(dump_log);
  std::filesystem::remove_all(profile);
  Loaded out;
  if (std::filesystem::exists(png)) out.png_bytes = std::filesystem::file_size(png);
  out.dom = read_file(dom);
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The figure `id` (charts.h) in the DOM: one SVG element, with bars or marks, and its numbers.
void expect_figure_drawn(const std::string& dom, const std::string& id, const std::string& where) {
  const size_t at = dom.find("id=\"" + id + "\"");
  ASSERT_NE(at, std::string::npos) << where << ": the DOM lacks " << id;
  const size_t end = dom.find("</figure>", at);
  const std::string figure = dom.substr(at, end - at);
  EXPECT_EQ(count(figure, "<svg"), 1u) << id;
  EXPECT_GT(count(figure, "class=\"bar\"") + count(figure, "class=\"mark\""), 0u) << id;
  EXPECT_NE(figure.find("<details class=\"numbers\">"), std::string::npos) << id;
}

// Runs `iqsim ARGS` (writing DIR/NAME/index.html; its output to DIR/NAME.log) as a user would,
// then loads the page: a non-trivial screenshot, scripts ran, no script error.
Loaded run_and_load(const std::filesystem::path& dir, const std::string& name,
                    const std::string& args, const std::string& where) {
  std::filesystem::remove_all(dir / name);
  const std::filesystem::path log = dir / (name + ".log");
  const std::string run = std::string(IQSIM_BINARY) + args + " >" + log.string() + " 2>&1";
  const int status = std::system(run.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << run << "\n" << read_file(log);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  // Named after `name`, not the page: the explorer's and the upgrade's pages are both index.html,
  // and ctest may load them at once.
  Loaded page = load_in_chromium(dir, dir / name / "index.html", where, name);
  EXPECT_GT(page.png_bytes, 30'000u) << where << ": screenshot looks blank";
  EXPECT_EQ(page.dom.find("id=\"script-error\""), std::string::npos) << where;
  EXPECT_NE(page.dom.find("data-rendered=\"ok\""), std::string::npos) << where;
  return page;
}

std::filesystem::path fresh_dir() {
  std::filesystem::path dir = std::filesystem::current_path() / "browser_report";
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(Browser, FailingRunReportLoadsInHeadlessChromium) {
  const std::string file = std::string(IQSIM_REPORTS_TESTDATA) + "/failover_wrong_expectation.toml";
  auto scenario = sim::parse_scenario_file(file, std::nullopt);
  ASSERT_TRUE(scenario) << scenario.error().to_string();
  properties::RunReport report = properties::run_scenario(*scenario, {.keep_trace = true});
  const std::string where = file + " seed " + std::to_string(report.seed);
  ASSERT_FALSE(report.passed()) << where << ": the fixture must fail";
  ASSERT_NE(report.violations_by_property.count("ScriptedExpectations"), 0u) << where;

  std::filesystem::path dir = fresh_dir();
  std::filesystem::path html = dir / "report.html";
  const std::string toml = sim::to_toml(*scenario);
  std::ofstream(html, std::ios::binary) << render_run_report(report, &toml);
  Loaded page = load_in_chromium(dir, html, where);
  EXPECT_GT(page.png_bytes, 60'000u) << where << ": screenshot looks blank";
  for (const char* id :
       {"id=\"summary\"", "id=\"violations\"", "id=\"violation-1\"", "id=\"timeline-p0\"",
        "id=\"timeline-p1\"", "id=\"placement\"", "id=\"staleness\"", "id=\"outcomes\"",
        "id=\"chart-outcomes-by-phase\"", "data-rendered=\"ok\""}) {
    EXPECT_NE(page.dom.find(id), std::string::npos) << where << ": the DOM lacks " << id;
  }
  EXPECT_EQ(page.dom.find("id=\"script-error\""), std::string::npos)
      << where << ": a script failed";
  EXPECT_NE(page.dom.find("ScriptedExpectations"), std::string::npos) << where;
}

// A sweep page of a few real runs of the fixture (seeds 1..3), with a declared behaviour added
// to one seed's counts so that every picture has something to draw: the browser must build an
// SVG element for every chart, each with its bars or marks, and its numbers table.
TEST(Browser, SweepReportChartsRenderInHeadlessChromium) {
  const std::string file = std::string(IQSIM_REPORTS_TESTDATA) + "/failover_wrong_expectation.toml";
  SweepInput sweep;
  sweep.command = "fuzz";
  sweep.scenario = file;
  sweep.first_seed = 1;
  sweep.seed_count = 3;
  sweep.shard = "0/1";
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    auto scenario = sim::parse_scenario_file(file, seed);
    ASSERT_TRUE(scenario) << scenario.error().to_string();
    properties::RunReport r = properties::run_scenario(*scenario, {.keep_trace = true});
    SweepRun run;
    run.seed = seed;
    run.passed = r.passed();
    run.violations = r.violations;
    run.violations_by_class = r.violations_by_class();
    if (seed == 2) run.violations_by_class["alos_reprocessing"] = 4;
    run.properties_checked = r.properties_checked;
    sweep.staleness_by_guarantee[r.processing_guarantee];
    for (const auto& [role, st] : r.staleness) {
      sweep.staleness_by_guarantee[r.processing_guarantee][role].records.merge(st.records);
      sweep.staleness_by_guarantee[r.processing_guarantee][role].virtual_ms.merge(st.virtual_ms);
    }
    for (const auto& [phase, outcomes] : query_outcomes_by_phase(*r.trace)) {
      for (const auto& [o, n] : outcomes) sweep.query_outcomes[phase][o] += n;
    }
    for (const std::string& probe : r.probes_hit) ++sweep.probe_seeds[probe];
    sweep.runs.push_back(std::move(run));
  }
  sweep.probe_seeds["never_reached_probe"] = 0;
  const std::string where = file + " seeds 1..3";
  std::filesystem::path dir = fresh_dir();
  std::filesystem::path html = dir / "sweep.html";
  std::ofstream(html, std::ios::binary) << render_sweep_report(sweep);
  Loaded page = load_in_chromium(dir, html, where);
  EXPECT_GT(page.png_bytes, 60'000u) << where << ": screenshot looks blank";
  EXPECT_EQ(page.dom.find("id=\"script-error\""), std::string::npos) << where;
  EXPECT_NE(page.dom.find("data-rendered=\"ok\""), std::string::npos) << where;
  for (const char* id :
       {"chart-classes-by-seed", "chart-staleness-records", "chart-staleness-ms",
        "chart-staleness-spread-records", "chart-outcomes-by-phase", "chart-probes"}) {
    expect_figure_drawn(page.dom, id, where);
  }
  EXPECT_NE(page.dom.find("id=\"about-alos_reprocessing\""), std::string::npos) << where;
}

// The explorer's page as `iqsim explore` writes it (the binary, as a user runs it): a 2x2 grid
// (standbys 0 or 1, either guarantee) from the template's own [explore] section, two seeds each.
// Every chart must be drawn with one bar per configuration and its numbers, the "none" of a role
// that served nothing (no standby without standbys) shown, and the side-by-side table marked.
TEST(Browser, ExplorerReportChartsRenderInHeadlessChromium) {
  const std::string file = std::string(IQSIM_REPORTS_TESTDATA) + "/explore_failover.toml";
  std::filesystem::path dir = fresh_dir();
  const std::string where = file + " explored";
  const Loaded page = run_and_load(dir, "explore",
                                   " explore " + file + " --seeds 2 --jobs 2 --report " +
                                       (dir / "explore").string() + " --configs " +
                                       (dir / "explore" / "configs").string(),
                                   where);
  ASSERT_FALSE(page.dom.empty()) << where;
  for (const char* id : {"chart-explore-outcomes", "chart-explore-staleness-records",
                         "chart-explore-staleness-ms"}) {
    expect_figure_drawn(page.dom, id, where);
    const size_t at = page.dom.find(std::string("id=\"") + id + "\"");
    const std::string figure = page.dom.substr(at, page.dom.find("</figure>", at) - at);
    EXPECT_EQ(count(figure, "class=\"rowlabel\""), 4u) << id << ": a row per configuration";
  }
  EXPECT_GE(count(page.dom, ">none (standby p90)</text>"), 4u)
      << where << ": no standby under standbys=0 (two configurations, two charts)";
  for (const char* part : {"id=\"differences\"", "class=\"num worst\"", "class=\"num best\"",
                           "num.standby.replicas=1, processing.guarantee=exactly_once_v2"}) {
    EXPECT_NE(page.dom.find(part), std::string::npos) << where << ": the DOM lacks " << part;
  }
}

// The page of a real `iqsim upgrade` of reports/testdata/upgrade_crash.toml over two seeds: every
// chart drawn (a row per pin for the cost), with its numbers, and no script error.
TEST(Browser, UpgradeReportChartsRenderInHeadlessChromium) {
  const std::string file = std::string(IQSIM_REPORTS_TESTDATA) + "/upgrade_crash.toml";
  std::filesystem::path dir = fresh_dir();
  const std::string where = file + " upgraded";
  const Loaded page = run_and_load(
      dir, "upgrade",
      " upgrade " + file + " --seeds 2 --jobs 2 --out " + (dir / "upgrade").string(), where);
  ASSERT_FALSE(page.dom.empty()) << where;
  for (const char* id :
       {"chart-upgrade-classes", "chart-upgrade-staleness-records", "chart-upgrade-staleness-ms",
        "chart-upgrade-outcomes", "chart-upgrade-levels", "chart-upgrade-cpu"}) {
    expect_figure_drawn(page.dom, id, where);
  }
  const size_t at = page.dom.find("id=\"chart-upgrade-cpu\"");
  const std::string cpu = page.dom.substr(at, page.dom.find("</figure>", at) - at);
  EXPECT_EQ(count(cpu, "class=\"rowlabel\""), 2u) << "a row per pin";
  for (const char* part : {"id=\"changed\"", "id=\"isolation\"", "id=\"differences\"", "2024-10-25",
                           "2026-08-20", "READ_COMMITTED"}) {
    EXPECT_NE(page.dom.find(part), std::string::npos) << where << ": the DOM lacks " << part;
  }
}

}  // namespace
}  // namespace iq::reports
