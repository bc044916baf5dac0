// `iqsim upgrade`'s pieces: the diff of seed sets between the pins (reports/upgrade_report.h),
// one pin's sweep read for the report (upgrade_pin), that forcing the pin moves no other draw of
// a template (the parser draws each key from its own split of the seed), and that the query
// clients' per-query isolation level comes from a split of its own (every other draw of a run
// alike with it on or off). iqsim_binary_test.cc runs the command itself.

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runner.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_writer.h"
#include "upgrade.h"

namespace iq::cli {
namespace {

TEST(UpgradeDiff, SeedsUnderOnePinOnlyPerKey) {
  const reports::SeedSets old_pin{{"a", {1, 2, 3}}, {"b", {5}}, {"d", {}}};
  const reports::SeedSets new_pin{{"a", {2, 3, 4, 9}}, {"c", {7, 8}}, {"d", {}}};
  const std::vector<reports::SeedSetDiff> d = reports::diff_seed_sets(old_pin, new_pin);
  ASSERT_EQ(d.size(), 3u) << "d has no seed on either side";
  EXPECT_EQ(d[0], (reports::SeedSetDiff{"a", 3, 4, {1}, {4, 9}}));
  EXPECT_EQ(d[1], (reports::SeedSetDiff{"b", 1, 0, {5}, {}}));
  EXPECT_EQ(d[2], (reports::SeedSetDiff{"c", 0, 2, {}, {7, 8}}));
  EXPECT_TRUE(d[0].changed());
  const auto same = reports::diff_seed_sets({{"a", {1, 2}}}, {{"a", {1, 2}}});
  ASSERT_EQ(same.size(), 1u);
  EXPECT_FALSE(same[0].changed());
  EXPECT_EQ(same[0].seeds_old, 2u);
}

// The run pages go to failing seeds first, under either pin and changed or not, then to the
// changed seeds, at most 20 (upgrade seed 536 of kafka_2026.toml failed at the old pin only and
// had no page while twenty changed seeds before it did).
TEST(UpgradePages, FailingSeedsGetAPageBeforeChangedOnes) {
  reports::UpgradeInput in;
  std::set<uint64_t> many;
  for (uint64_t s = 1; s <= 30; ++s) many.insert(s);
  in.old_pin.seeds_by_class = {{"alos_reprocessing", many}, {"failure", {536}}};
  in.new_pin.seeds_by_class = {{"failure", {700}}};
  in.old_pin.seeds_by_property = {{"P", {700}}};
  in.new_pin.seeds_by_property = {{"P", {700}}};
  const std::vector<uint64_t> seeds = page_seeds(in);
  ASSERT_EQ(seeds.size(), 20u);
  EXPECT_EQ(seeds[0], 536u) << "failing at the old pin only";
  EXPECT_EQ(seeds[1], 700u) << "failing at the new pin only";
  EXPECT_EQ(seeds[2], 1u) << "then the changed seeds, ascending";
  EXPECT_EQ(seeds[19], 18u);
  // A seed failing under both pins has no diff, and still gets its page.
  reports::UpgradeInput both;
  both.old_pin.seeds_by_class = {{"failure", {9}}};
  both.new_pin.seeds_by_class = {{"failure", {9}}};
  EXPECT_EQ(page_seeds(both), (std::vector<uint64_t>{9}));
  EXPECT_TRUE(page_seeds(reports::UpgradeInput{}).empty());
}

SeedResult result(uint64_t seed, std::map<std::string, uint64_t> by_class,
                  std::map<std::string, uint64_t> by_level) {
  SeedResult r;
  r.seed = seed;
  r.passed = by_class.count("failure") == 0;
  r.violations_by_class = by_class;
  for (const auto& [cls, n] : by_class) r.violations_by_property["P-" + cls] += n;
  r.processing_guarantee = seed % 2 == 0 ? "exactly_once_v2" : "at_least_once";
  r.query_outcomes = {{"ok", 3}, {"NOT_ACTIVE", 1}};
  r.query_outcomes_by_level = std::move(by_level);
  r.events = 100 * seed;
  return r;
}

TEST(UpgradeDiff, APinsSweepIsReadPerClassPropertyGuaranteeAndLevel) {
  SweepSummary s;
  s.results = {result(1, {{"alos_reprocessing", 2}}, {{"READ_COMMITTED/ok", 4}}),
               result(2, {{"failure", 1}, {"alos_reprocessing", 0}},
                      {{"READ_COMMITTED/NOT_UP_TO_BOUND", 1}, {"READ_UNCOMMITTED/ok", 2}})};
  const reports::UpgradePin p = upgrade_pin("2026-08-20", "f.toml", s, {{1, 10.0}, {2, 30.0}});
  EXPECT_EQ(p.seeds, 2u);
  EXPECT_EQ(p.failed, 1u);
  EXPECT_EQ(p.seeds_by_class.at("alos_reprocessing"), (std::set<uint64_t>{1}))
      << "a class counted 0 times is not met";
  EXPECT_EQ(p.seeds_by_class.at("failure"), (std::set<uint64_t>{2}));
  EXPECT_EQ(p.seeds_by_property.at("P-failure"), (std::set<uint64_t>{2}));
  EXPECT_EQ(p.outcomes_by_guarantee.at("at_least_once").at("ok"), 3u);
  EXPECT_EQ(p.outcomes_by_guarantee.at("exactly_once_v2").at("NOT_ACTIVE"), 1u);
  EXPECT_EQ(p.outcomes_by_level.at("READ_COMMITTED").at("ok"), 4u);
  EXPECT_EQ(p.outcomes_by_level.at("READ_COMMITTED").at("NOT_UP_TO_BOUND"), 1u);
  EXPECT_EQ(p.outcomes_by_level.at("READ_UNCOMMITTED").at("ok"), 2u);
  EXPECT_EQ(p.cpu_ms, (std::vector<double>{10.0, 30.0}));
  EXPECT_EQ(p.events, (std::vector<uint64_t>{100, 200}));
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::multiset<std::string> lines_of(const std::string& text) {
  std::multiset<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.insert(line);
  return out;
}

std::multiset<std::string> minus(const std::multiset<std::string>& a,
                                 const std::multiset<std::string>& b) {
  std::multiset<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

// kafka_2026.toml with its pin replaced as `iqsim upgrade` lays it (the pin and kafka_compared).
std::string forced(std::string text, const std::string& pin) {
  const std::string line = "kafka = '2026-08-20'\n";
  const size_t at = text.find(line);
  EXPECT_NE(at, std::string::npos);
  return text.replace(at, line.size(),
                      "kafka = '" + pin + "'\nkafka_compared = ['2024-10-25', '2026-08-20']\n");
}

// Seed S of the template at each pin: the concrete scenarios (every choice drawn, written back)
// differ in the pin's line and in the lines only the new pin has (its default isolation level,
// the clients' per-query level), nothing else.
TEST(UpgradePins, ForcingThePinChangesNoOtherDraw) {
  const std::string file = std::string(IQSIM_SCENARIOS_DIR) + "/templates/kafka_2026.toml";
  const std::string text = read_text(file);
  ASSERT_FALSE(text.empty()) << file;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    auto old_pin = sim::parse_scenario_text(forced(text, "2024-10-25"), file, seed);
    auto new_pin = sim::parse_scenario_text(forced(text, "2026-08-20"), file, seed);
    ASSERT_TRUE(old_pin && new_pin) << (old_pin ? new_pin.error() : old_pin.error()).to_string();
    const auto a = lines_of(sim::to_toml(*old_pin));
    const auto b = lines_of(sim::to_toml(*new_pin));
    EXPECT_EQ(minus(a, b), (std::multiset<std::string>{"kafka = '2024-10-25'"})) << seed;
    for (const std::string& line : minus(b, a)) {
      const bool pin_only = line == "kafka = '2026-08-20'" ||
                            line.find("default.interactive.query.isolation.level") == 0 ||
                            line.find("\"default.interactive.query.isolation.level\"") == 0 ||
                            line.find("\"enable.transactional.statestores\"") == 0 ||
                            line.find("\"statestore.uncommitted.max.bytes\"") == 0 ||
                            line.find("isolation_level_one_in") != std::string::npos;
      EXPECT_TRUE(pin_only) << "seed " << seed
                            << ": a line only the new pin's scenario has: " << line;
    }
  }
}

constexpr const char* kLevels = R"(title = 'levels'
[configuration]
kafka = '2026-08-20'
instances = 2
[streams_config]
"processing.guarantee" = 'exactly_once_v2'
"commit.interval.ms" = 100
[topology]
name = 'Count'
keys = 8
[[test]]
duration_ms = 4_000
    [[test.workload]]
    name = 'Producer'
    records_per_second = 50
    [[test.workload]]
    name = 'QueryClients'
    clients = 2
    interval_ms = 50
)";

// The per-query isolation level is drawn from the clients' own split: with the draw on, the same
// seed's queries are the same queries (same ids, times, requests and outcomes: without
// transactional stores READ_COMMITTED reads as READ_UNCOMMITTED), only the level differs.
TEST(UpgradePins, ThePerQueryLevelDrawMovesNoOtherDraw) {
  auto off = sim::parse_scenario_text(kLevels, "levels.toml", 7);
  auto on = sim::parse_scenario_text(std::string(kLevels) + "    isolation_level_one_in = 2\n",
                                     "levels.toml", 7);
  ASSERT_TRUE(off && on) << (off ? on.error() : off.error()).to_string();
  const auto a = properties::run_scenario(*off, {.keep_trace = true});
  const auto b = properties::run_scenario(*on, {.keep_trace = true});
  const auto& ra = a.trace->history.records();
  const auto& rb = b.trace->history.records();
  ASSERT_EQ(ra.size(), rb.size());
  ASSERT_GT(ra.size(), 20u);
  std::map<std::string, int> levels;
  for (size_t i = 0; i < ra.size(); ++i) {
    EXPECT_FALSE(ra[i].request.isolation_level.has_value());
    if (rb[i].request.isolation_level) ++levels[to_string(*rb[i].request.isolation_level)];
    sim::QueryRecord same = rb[i];
    same.request.isolation_level.reset();
    EXPECT_EQ(same.request.to_string(), ra[i].request.to_string()) << i;
    EXPECT_EQ(same.complete_ms, ra[i].complete_ms) << i;
    EXPECT_EQ(same.outcome, ra[i].outcome) << i;
  }
  EXPECT_GT(levels["READ_COMMITTED"], 0);
  EXPECT_GT(levels["READ_UNCOMMITTED"], 0);
  // At the old pin the key is refused (that Kafka has no per-query level) ...
  std::string old_pin(std::string(kLevels) + "    isolation_level_one_in = 2\n");
  old_pin.replace(old_pin.find("2026-08-20"), 10, "2024-10-25");
  auto refused = sim::parse_scenario_text(old_pin, "levels.toml", 7);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().to_string().find("isolation_level_one_in"), std::string::npos);
  // ... unless the file is one side of a comparison of the pins, where it is ignored.
  old_pin.replace(old_pin.find("kafka = '2024-10-25'"), 20,
                  "kafka = '2024-10-25'\nkafka_compared = ['2024-10-25', '2026-08-20']");
  auto compared = sim::parse_scenario_text(old_pin, "levels.toml", 7);
  ASSERT_TRUE(compared) << compared.error().to_string();
  EXPECT_EQ(compared->tests[0].workloads.size(), off->tests[0].workloads.size());
}

}  // namespace
}  // namespace iq::cli
