// Renders the report of a real failing run (reports/testdata/failover_wrong_expectation.toml: a
// failover, then a scripted query with a wrong expectation) and loads it in headless Chromium:
// a screenshot is taken and must be non-trivial, and the DOM after scripts ran must hold every
// section and no script error. Chromium missing is a failure (scripts/setup installs it).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "html_report.h"
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

TEST(Browser, FailingRunReportLoadsInHeadlessChromium) {
  const std::string file = std::string(IQSIM_REPORTS_TESTDATA) + "/failover_wrong_expectation.toml";
  auto scenario = sim::parse_scenario_file(file, std::nullopt);
  ASSERT_TRUE(scenario) << scenario.error().to_string();
  properties::RunReport report = properties::run_scenario(*scenario, {.keep_trace = true});
  const std::string where = file + " seed " + std::to_string(report.seed);
  ASSERT_FALSE(report.passed()) << where << ": the fixture must fail";
  ASSERT_NE(report.violations_by_property.count("ScriptedExpectations"), 0u) << where;

  std::filesystem::path dir = std::filesystem::current_path() / "browser_report";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "profile");
  std::filesystem::path html = dir / "report.html";
  const std::string toml = sim::to_toml(*scenario);
  std::ofstream(html, std::ios::binary) << render_run_report(report, &toml);

  std::string chromium = chromium_path();
  ASSERT_FALSE(chromium.empty())
      << "chromium is not installed: run scripts/setup (it installs the Debian package "
         "'chromium'); this test needs a headless browser and does not skip without one";
  std::string common = chromium +
                       " --headless --no-sandbox --disable-gpu --disable-background-networking"
                       " --no-first-run --user-data-dir=" +
                       (dir / "profile").string();
  std::filesystem::path png = dir / "report.png";
  std::filesystem::path dom = dir / "dom.html";
  std::string shot = "timeout 180 " + common + " --screenshot=" + png.string() +
                     " --window-size=1400,3000 file://" + html.string() + " >" +
                     (dir / "screenshot.log").string() + " 2>&1";
  ASSERT_EQ(std::system(shot.c_str()), 0) << where << ": " << read_file(dir / "screenshot.log");
  ASSERT_TRUE(std::filesystem::exists(png)) << where;
  EXPECT_GT(std::filesystem::file_size(png), 60'000u) << where << ": screenshot looks blank";

  std::filesystem::remove_all(dir / "profile");
  std::filesystem::create_directories(dir / "profile");
  std::string dump = "timeout 180 " + common + " --dump-dom file://" + html.string() + " >" +
                     dom.string() + " 2>" + (dir / "dump.log").string();
  ASSERT_EQ(std::system(dump.c_str()), 0) << where << ": " << read_file(dir / "dump.log");
  std::string text = read_file(dom);
  for (const char* id :
       {"id=\"summary\"", "id=\"violations\"", "id=\"violation-1\"", "id=\"timeline-p0\"",
        "id=\"timeline-p1\"", "id=\"placement\"", "id=\"staleness\"", "data-rendered=\"ok\""}) {
    EXPECT_NE(text.find(id), std::string::npos) << where << ": the DOM lacks " << id;
  }
  EXPECT_EQ(text.find("id=\"script-error\""), std::string::npos) << where << ": a script failed";
  EXPECT_NE(text.find("ScriptedExpectations"), std::string::npos) << where;
}

}  // namespace
}  // namespace iq::reports
