// The shrinker: its candidates (instance removal renumbers what refers to later instances), its
// search with a cheap stand-in runner (minimal result, budget, determinism), and one real shrink
// of a scenario whose scripted expectation is wrong, whose result still fails when run again
// and round-trips through the writer and the parser.

#include "shrink.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "scenario/scenario_parser.h"
#include "scenario/scenario_writer.h"

namespace iq::properties {
namespace {

// Three instances with a standby, a timed test (producer, query clients, a crash of instance 3)
// and a scripted test whose last query expects the wrong value (99) on instance 2.
constexpr const char* kFailing = R"(
title = 'shrink test'
seed = 11

[configuration]
instances = 3
store_backend = 'in_memory'

[streams_config]
"commit.interval.ms" = 100
"num.standby.replicas" = 1
"session.timeout.ms" = 6_000
"heartbeat.interval.ms" = 2_000

[topology]
name = 'SourceTable'
source_topic = 'input-topic'
source_partitions = 2
store = 'kv-store'
keys = 8
caching = false
logging = true

[[test]]
title = 'Load'
duration_ms = 4_000

    [[test.workload]]
    name = 'Producer'
    records_per_second = 40

    [[test.workload]]
    name = 'QueryClients'
    clients = 2
    interval_ms = 200

    [[test.workload]]
    name = 'CrashRestart'
    instance = 'instance-3'
    at_ms = 1_000
    restart_after_ms = 1_000
    state_directory = 'keep'

[[test]]
title = 'Scripted'

    [[test.step]]
    produce = { records = [
      { partition = 0, key = 1, value = 10, timestamp_ms = 0 },
      { partition = 0, key = 3, value = 30, timestamp_ms = 1 },
      { partition = 1, key = 2, value = 20, timestamp_ms = 2 },
    ] }

    [[test.step]]
    run_until = 'quiescent'

    [[test.step]]
    query = { store = 'kv-store', type = 'KeyQuery', key = 3, partitions = [0], instance = 'instance-1' }

    [[test.step]]
    pause = 'instance-3'

    [[test.step]]
    query = { store = 'kv-store', type = 'KeyQuery', key = 3, partitions = [0], instance = 'instance-2' }
    expect = [ { partition = 0, value = 99 } ]
)";

sim::Scenario parse(const std::string& text) {
  auto scenario = sim::parse_scenario_text(text, "shrink_test.toml", std::nullopt);
  if (!scenario) ADD_FAILURE() << scenario.error().to_string();
  return scenario ? std::move(scenario).value() : sim::Scenario{};
}

size_t steps_of(const sim::Scenario& s) {
  size_t n = 0;
  for (const sim::TestSpec& t : s.tests) n += t.steps.size();
  return n;
}

size_t workloads_of(const sim::Scenario& s) {
  size_t n = 0;
  for (const sim::TestSpec& t : s.tests) n += t.workloads.size();
  return n;
}

bool violates(const RunReport& r, const std::string& property) {
  return std::any_of(r.violations.begin(), r.violations.end(),
                     [&](const Violation& v) { return v.property == property; });
}

const ShrinkCandidate* find(const std::vector<ShrinkCandidate>& candidates,
                            const std::string& what) {
  for (const ShrinkCandidate& c : candidates) {
    if (c.what == what) return &c;
  }
  return nullptr;
}

TEST(ShrinkTest, DroppingAnInstanceRenumbersWhatRefersToLaterOnes) {
  sim::Scenario scenario = parse(kFailing);
  std::vector<ShrinkCandidate> candidates = shrink_candidates(scenario);
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.front().what, "drop test 0 'Load'");

  const ShrinkCandidate* drop2 = find(candidates, "drop instance 2");
  ASSERT_NE(drop2, nullptr);
  const sim::Scenario& s = drop2->scenario;
  EXPECT_EQ(s.cluster.instances, 2);
  // The crash of instance 3 now names instance 2; the pause of 3 too; the query on 2 is gone.
  const auto& crash = std::get<sim::FaultWorkloadSpec>(s.tests[0].workloads[2]);
  EXPECT_EQ(crash.instance, 2);
  ASSERT_EQ(s.tests[1].steps.size(), 4u);
  EXPECT_EQ(std::get<sim::FaultStep>(s.tests[1].steps[3]).instance, 2);
  EXPECT_EQ(std::get<sim::QueryStep>(s.tests[1].steps[2]).instance, 1);

  const ShrinkCandidate* drop3 = find(candidates, "drop instance 3");
  ASSERT_NE(drop3, nullptr);
  EXPECT_EQ(drop3->scenario.tests[0].workloads.size(), 2u);  // the crash of 3 went with it
  EXPECT_EQ(drop3->scenario.tests[1].steps.size(), 4u);      // and the pause of 3
  for (const ShrinkCandidate& c : candidates) {
    EXPECT_TRUE(shrink_candidate_valid(c.scenario)) << c.what;
  }
}

TEST(ShrinkTest, CandidatesNeverPushAScriptedKeyOutOfRange) {
  sim::Scenario scenario = parse(kFailing);
  scenario.keys = 6;  // the steps name key 3: halving to 3 would leave it out
  EXPECT_EQ(find(shrink_candidates(scenario), "keys 3"), nullptr);
  scenario.keys = 8;
  EXPECT_NE(find(shrink_candidates(scenario), "keys 4"), nullptr);
}

// A stand-in runner: the scenario "fails" P while it has at least two instances and a scripted
// query on key 3 with an expectation. Everything else should shrink away.
RunReport fake_run(const sim::Scenario& s, int32_t* runs) {
  ++*runs;
  RunReport report;
  report.seed = s.seed;
  bool query = false;
  for (const sim::TestSpec& t : s.tests) {
    for (const sim::Step& step : t.steps) {
      const auto* q = std::get_if<sim::QueryStep>(&step);
      if (q != nullptr && q->key == 3 && !q->expect.empty()) query = true;
    }
  }
  if (s.cluster.instances >= 2 && query) {
    Violation v;
    v.property = "P";
    report.violations.push_back(v);
  }
  return report;
}

TEST(ShrinkTest, FindsTheMinimalScenarioWithAStandInRunner) {
  sim::Scenario scenario = parse(kFailing);
  int32_t runs = 0;
  ShrinkResult r = shrink_scenario(scenario, "", 500,
                                   [&](const sim::Scenario& s) { return fake_run(s, &runs); });
  ASSERT_TRUE(r.reproduced);
  EXPECT_EQ(r.property, "P");
  EXPECT_EQ(r.runs, runs);
  EXPECT_LT(r.runs, 500) << "the search should end by itself";
  const sim::Scenario& m = r.minimal;
  EXPECT_EQ(m.cluster.instances, 2);
  ASSERT_EQ(m.tests.size(), 1u);
  EXPECT_EQ(m.tests[0].title, "Scripted");
  ASSERT_EQ(m.tests[0].steps.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<sim::QueryStep>(m.tests[0].steps[0]));
  EXPECT_TRUE(m.tests[0].workloads.empty());
  EXPECT_FALSE(m.liveness.enabled);
  EXPECT_EQ(m.cluster.streams.assignment.num_standby_replicas, 0);
  EXPECT_EQ(m.cluster.topology.source_partitions, 1);
  EXPECT_EQ(m.keys, 4);  // key 3 must stay in range
  EXPECT_EQ(m.seed, scenario.seed);
  EXPECT_EQ(r.log.back(), "done: no candidate still violates P");

  // The same input shrinks the same way.
  int32_t again_runs = 0;
  ShrinkResult again = shrink_scenario(
      scenario, "P", 500, [&](const sim::Scenario& s) { return fake_run(s, &again_runs); });
  EXPECT_EQ(again.log, r.log);
  EXPECT_EQ(again.minimal, r.minimal);
}

TEST(ShrinkTest, RespectsTheRunBudget) {
  int32_t runs = 0;
  ShrinkResult r = shrink_scenario(parse(kFailing), "P", 4,
                                   [&](const sim::Scenario& s) { return fake_run(s, &runs); });
  EXPECT_EQ(r.runs, 4);
  EXPECT_EQ(runs, 4);
  EXPECT_TRUE(r.reproduced);
  EXPECT_EQ(r.log.back(), "stopped: the budget of 4 runs is spent");
}

TEST(ShrinkTest, ReportsWhenThePropertyDoesNotFail) {
  int32_t runs = 0;
  ShrinkResult r = shrink_scenario(parse(kFailing), "Q", 50,
                                   [&](const sim::Scenario& s) { return fake_run(s, &runs); });
  EXPECT_FALSE(r.reproduced);
  EXPECT_EQ(r.runs, 1);
  EXPECT_EQ(r.minimal, parse(kFailing));
}

// A failure of P hidden among P's known Kafka behaviours: the original run has both, every
// candidate with fewer than 2 instances only the known behaviour. The shrink keeps the failure
// (the candidates with one instance are rejected), and an unnamed property is the failure's.
TEST(ShrinkTest, KeepsAFailureNotAKnownBehaviourOfTheSameProperty) {
  const auto run = [](const sim::Scenario& s) {
    RunReport report;
    Violation known;
    known.property = "P";
    known.violation_class = ViolationClass::kAtLeastOnceReprocessing;
    report.violations.push_back(known);
    if (s.cluster.instances >= 2) {
      Violation failure;
      failure.property = "Q";
      report.violations.push_back(failure);
      failure.property = "P";
      report.violations.push_back(failure);
    }
    return report;
  };
  ShrinkResult r = shrink_scenario(parse(kFailing), "P", 200, run);
  ASSERT_TRUE(r.reproduced);
  EXPECT_EQ(r.minimal.cluster.instances, 2) << "a candidate with only the known behaviour kept";
  EXPECT_NE(r.log.front().find("a failure"), std::string::npos) << r.log.front();
  ShrinkResult unnamed = shrink_scenario(parse(kFailing), "", 1, run);
  EXPECT_EQ(unnamed.property, "Q") << "the first failure's property, not the known behaviour's";
}

// The real thing: a wrong scripted expectation fails ScriptedExpectations; the shrunk scenario
// is smaller, still fails when run again, and reads back from its TOML unchanged.
TEST(ShrinkTest, ShrinksARealFailureThatStillFailsAfterARoundTrip) {
  sim::Scenario scenario = parse(kFailing);
  RunReport original = run_scenario(scenario, {});
  ASSERT_TRUE(violates(original, "ScriptedExpectations")) << "seed " << scenario.seed;

  ShrinkResult r = shrink_scenario(scenario, "ScriptedExpectations", 60);
  ASSERT_TRUE(r.reproduced);
  std::string log;
  for (const std::string& line : r.log) log += line + "\n";
  EXPECT_LE(r.runs, 60);
  EXPECT_LT(r.minimal.cluster.instances, scenario.cluster.instances) << log;
  EXPECT_LT(steps_of(r.minimal), steps_of(scenario)) << log;
  EXPECT_LT(workloads_of(r.minimal), workloads_of(scenario)) << log;
  EXPECT_TRUE(violates(r.report, "ScriptedExpectations")) << log;

  std::string toml = sim::to_toml(r.minimal);
  auto back = sim::parse_scenario_text(toml, "minimal.toml", std::nullopt);
  ASSERT_TRUE(back.has_value()) << back.error().to_string() << "\n" << toml;
  EXPECT_EQ(back->seed, scenario.seed);
  EXPECT_EQ(sim::without_locations(*back), sim::without_locations(r.minimal)) << toml;
  RunReport rerun = run_scenario(*back, {});
  EXPECT_TRUE(violates(rerun, "ScriptedExpectations")) << "seed " << back->seed << "\n" << toml;
  EXPECT_EQ(rerun.digest, r.report.digest) << toml;
}

}  // namespace
}  // namespace iq::properties
