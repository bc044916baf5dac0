// Sweep summaries: JSON round trip, shard merging and its refusals, JUnit XML and its escaping.

#include "summary.h"

#include <gtest/gtest.h>

#include "sweep.h"

namespace iq::cli {
namespace {

// A deterministic stand-in for one seed's run: odd multiples of 7 fail ResultMatchesModel twice,
// multiples of 5 show a declared finding, everything else passes.
SeedResult fake_result(uint64_t seed) {
  SeedResult r;
  r.seed = seed;
  r.properties_checked = {"BoundHonored", "ResultMatchesModel"};
  r.queries_judged = 10 + seed % 3;
  r.queries_total = 12 + seed % 3;
  r.virtual_ms = static_cast<int64_t>(1000 * seed);
  r.events = 100 + seed;
  r.digest = "d" + std::to_string(seed);
  r.reproduce = "iqsim replay s.toml --seed " + std::to_string(seed);
  if (seed % 7 == 0 && seed % 2 == 1) {
    r.violations = {{"ResultMatchesModel", 3, 250, "value 2, model says 1", true},
                    {"ResultMatchesModel", 9, 400, "value 5, model says 4", false}};
    r.violations_by_property["ResultMatchesModel"] = 2;
    r.violations_by_class["failure"] = 2;
    r.after_reprocessing_by_property["ResultMatchesModel"] = 1;
  }
  if (seed % 3 == 0) r.records_reprocessed = seed;
  if (seed % 4 == 0) {
    r.dirty_reads = {{"answers", 100},
                     {"dirty", seed},
                     {"uncommitted_ms_count", 2},
                     {"uncommitted_ms_sum", 10 * seed},
                     {"uncommitted_ms_max", 1000 - seed}};
  }
  // Odd seeds at-least-once, even ones exactly-once: standbys 1 (odd) or seed (even) records
  // behind, and seed * 100 virtual ms.
  r.processing_guarantee = seed % 2 == 1 ? "at_least_once" : "exactly_once_v2";
  {
    properties::AnswerStaleness st;
    st["standby"].records.add(seed % 2 == 1 ? 1 : static_cast<int64_t>(seed));
    st["standby"].virtual_ms.add(static_cast<int64_t>(seed) * 100);
    r.staleness = properties::staleness_counts(st);
  }
  if (seed % 5 == 0) {
    r.expected_violations = {{"LagReported", 0, 10, "lag 3, actual 2"}};
    r.expected_violations_by_property["LagReported"] = 1;
  }
  r.passed = r.violations.empty();
  return r;
}

SweepSummary sweep(uint64_t first, uint64_t count, const Shard& shard) {
  SweepSummary s;
  s.command = "fuzz";
  s.scenario = "scenarios/templates/t.toml";
  s.title = "t";
  s.first_seed = first;
  s.seed_count = count;
  s.shards = {shard.to_string()};
  for (uint64_t seed : shard_seeds(first, count, shard)) s.results.push_back(fake_result(seed));
  return s;
}

// Dirty reads by pin: seeds at the new pin keep their counts, by-level keys included, apart from
// the old pin's; a maximum merges as one within a pin.
TEST(SummaryTest, DirtyReadsAreTalliedPerPinAndLevel) {
  SweepSummary s = sweep(1, 8, {0, 1});
  for (SeedResult& r : s.results) {
    if (r.seed % 2 == 0) r.kafka_pin = "2026-08-20";
    if (r.seed == 4) r.dirty_reads["READ_COMMITTED/answers"] = 30;
    if (r.seed == 8) r.dirty_reads["READ_UNCOMMITTED/dirty"] = 5;
    if (r.seed == 8) r.dirty_reads["READ_UNCOMMITTED/answers"] = 40;
  }
  s.results[0].dirty_reads = {{"answers", 7}, {"dirty", 1}, {"uncommitted_ms_max", 2000}};
  const auto by = s.dirty_reads_by_pin();
  ASSERT_EQ(by.size(), 2u);
  EXPECT_EQ(by.at("2024-10-25").at("dirty"), 1u);
  EXPECT_EQ(by.at("2024-10-25").at("uncommitted_ms_max"), 2000u);
  EXPECT_EQ(by.at("2026-08-20").at("dirty"), 12u);  // seeds 4 and 8
  EXPECT_EQ(by.at("2026-08-20").at("uncommitted_ms_max"), 996u);
  EXPECT_EQ(by.at("2026-08-20").at("READ_COMMITTED/answers"), 30u);
  EXPECT_EQ(by.at("2026-08-20").at("READ_UNCOMMITTED/dirty"), 5u);
  const std::string text = dirty_reads_by_level_text(by.at("2026-08-20"));
  EXPECT_NE(text.find("READ_COMMITTED 0 of 30 answers dirty"), std::string::npos) << text;
  EXPECT_NE(text.find("READ_UNCOMMITTED 5 of 40 answers dirty"), std::string::npos) << text;
  EXPECT_EQ(dirty_reads_by_level_text(by.at("2024-10-25")), "");
}

TEST(SummaryTest, JsonRoundTripKeepsEveryResult) {
  SweepSummary s = sweep(1, 40, {0, 1});
  Timing timing;
  timing.wall_seconds = 2.5;
  timing.jobs = 2;
  timing.peak_rss_kib_by_seed = {{1, 30000}, {2, 50000}, {3, 40000}, {4, 50000}};
  timing.parent_peak_rss_kib = 9000;
  s.timing = timing;
  auto back = summary_from_json(to_json(s), "s.json");
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(back->results, s.results);
  EXPECT_EQ(back->scenario, s.scenario);
  EXPECT_EQ(back->shards, s.shards);
  EXPECT_EQ(to_json(*back)["totals"], to_json(s)["totals"]);
  nlohmann::json j = to_json(s);
  EXPECT_EQ(j["totals"]["runs"], 40u);
  EXPECT_EQ(j["totals"]["failed"], 3u);  // seeds 7, 21, 35
  EXPECT_EQ(j["totals"]["violations_by_property"]["ResultMatchesModel"], 6u);
  EXPECT_EQ(j["totals"]["expected_violations_by_property"]["LagReported"], 8u);
  EXPECT_EQ(j["totals"]["after_reprocessing_by_property"]["ResultMatchesModel"], 3u);
  EXPECT_EQ(j["totals"]["runs_with_reprocessing"], 13u);  // 3, 6, ..., 39
  EXPECT_EQ(j["totals"]["records_reprocessed"], 273u);    // 3 + 6 + ... + 39
  // Dirty reads sum across seeds (4, 8, ..., 40), except the maximum, which merges as one.
  EXPECT_EQ(j["totals"]["runs_with_dirty_reads"], 10u);
  EXPECT_EQ(j["totals"]["dirty_reads"]["answers"], 1000u);
  EXPECT_EQ(j["totals"]["dirty_reads"]["dirty"], 220u);
  EXPECT_EQ(j["totals"]["dirty_reads"]["uncommitted_ms_sum"], 2200u);
  EXPECT_EQ(j["totals"]["dirty_reads"]["uncommitted_ms_max"], 996u);
  EXPECT_EQ(j["results"][3]["dirty_reads"]["dirty"], 4u);
  EXPECT_NE(dirty_reads_text(s.dirty_reads()).find("220 of 1000 answers"), std::string::npos)
      << dirty_reads_text(s.dirty_reads());
  // Per pin: every fake result is at the old pin, so that pin's counts are the totals.
  EXPECT_EQ(j["totals"]["dirty_reads_by_pin"]["2024-10-25"], j["totals"]["dirty_reads"]);
  EXPECT_FALSE(j["totals"]["dirty_reads_by_pin"].contains("2026-08-20"));
  // Staleness merges per guarantee: 20 seeds each; even seeds 2..40 give records median 20
  // (nearest rank 10 of 20), p90 36 (rank 18: 36), max 40; odd seeds all 1.
  EXPECT_EQ(j["totals"]["runs_by_guarantee"]["exactly_once_v2"], 20u);
  const nlohmann::json& eos = j["totals"]["staleness_by_guarantee"]["exactly_once_v2"]["standby"];
  EXPECT_EQ(eos["answers"], 20u);
  EXPECT_EQ(eos["records"]["median"], 20);
  EXPECT_EQ(eos["records"]["p90"], 36);
  EXPECT_EQ(eos["records"]["max"], 40);
  EXPECT_EQ(eos["ms"]["max"], 4000);
  EXPECT_EQ(j["totals"]["staleness_by_guarantee"]["at_least_once"]["standby"]["records"]["p90"], 1);
  EXPECT_EQ(staleness_lines(s.staleness_by_guarantee()).size(), 2u);
  EXPECT_EQ(j["results"][6]["violations"][0]["after_reprocessing"], true);  // seed 7
  EXPECT_EQ(j["results"][6]["violations"][1]["after_reprocessing"], false);
  EXPECT_EQ(j["failures"].size(), 3u);
  EXPECT_EQ(j["failures"][0]["reproduce"], "iqsim replay s.toml --seed 7");
  EXPECT_DOUBLE_EQ(j["timing"]["seeds_per_second"].get<double>(), 16.0);
  // Four seeds: the lower median of {30000, 40000, 50000, 50000}, and the first seed at the max.
  EXPECT_EQ(j["timing"]["peak_rss_kib"]["median"], 40000);
  EXPECT_EQ(j["timing"]["peak_rss_kib"]["max"], 50000);
  EXPECT_EQ(j["timing"]["peak_rss_kib"]["max_seed"], 2u);
  EXPECT_EQ(j["timing"]["peak_rss_kib"]["by_seed"]["3"], 40000);
  EXPECT_EQ(j["timing"]["parent_peak_rss_kib"], 9000);
}

// seed_result keeps, per violation and per property, whether it came after reprocessing, and the
// run's count of records processed again.
TEST(SummaryTest, SeedResultCarriesReprocessingFromTheReport) {
  properties::RunReport report;
  report.seed = 3;
  report.records_reprocessed = 17;
  properties::Violation after;
  after.property = "ResultMatchesModel";
  after.reprocessed_before = {"offsets 0-16 of partition 0 again on instance-2 at 10-20 ms"};
  properties::Violation plain;
  plain.property = "ResultMatchesModel";
  properties::Violation other;
  other.property = "SamePositionSameAnswer";
  report.violations = {after, plain, other};
  const SeedResult r = seed_result(report);
  EXPECT_EQ(r.records_reprocessed, 17u);
  ASSERT_EQ(r.violations.size(), 3u);
  EXPECT_TRUE(r.violations[0].after_reprocessing);
  EXPECT_FALSE(r.violations[1].after_reprocessing);
  EXPECT_EQ(r.after_reprocessing_by_property,
            (std::map<std::string, uint64_t>{{"ResultMatchesModel", 1}}));
  EXPECT_EQ(
      r.violations_by_property,
      (std::map<std::string, uint64_t>{{"ResultMatchesModel", 2}, {"SamePositionSameAnswer", 1}}));
}

// A summary written before the reprocessing fields existed still reads, with none.
TEST(SummaryTest, FromJsonReadsSummariesWithoutReprocessingFields) {
  nlohmann::json j = to_json(sweep(7, 1, {0, 1}));
  nlohmann::json& result = j["results"][0];
  result.erase("records_reprocessed");
  result.erase("dirty_reads");
  result.erase("processing_guarantee");
  result.erase("kafka");
  result.erase("staleness");
  result.erase("after_reprocessing_by_property");
  for (nlohmann::json& v : result["violations"]) v.erase("after_reprocessing");
  auto back = summary_from_json(j, "old.json");
  ASSERT_TRUE(back.has_value()) << back.error();
  ASSERT_EQ(back->results.size(), 1u);
  EXPECT_EQ(back->results[0].records_reprocessed, 0u);
  EXPECT_TRUE(back->results[0].dirty_reads.empty());
  EXPECT_EQ(back->results[0].kafka_pin, "2024-10-25");  // before the second pin: the old one
  EXPECT_TRUE(back->results[0].staleness.empty());
  EXPECT_TRUE(back->staleness_by_guarantee().empty());
  EXPECT_TRUE(back->results[0].after_reprocessing_by_property.empty());
  ASSERT_EQ(back->results[0].violations.size(), 2u);
  EXPECT_FALSE(back->results[0].violations[0].after_reprocessing);
}

// seed_result counts violations by class, and a seed whose violations a known Kafka behaviour
// explains passes (but not strictly); a summary written before classes existed reads its
// violations as failures.
TEST(SummaryTest, ViolationsAreCountedByClassAndOlderSummariesReadAsFailures) {
  properties::RunReport report;
  report.seed = 4;
  properties::Violation known;
  known.property = "ResultMatchesModel";
  known.violation_class = properties::ViolationClass::kAtLeastOnceReprocessing;
  report.violations = {known, known};
  SeedResult r = seed_result(report);
  EXPECT_TRUE(r.passed);
  EXPECT_FALSE(r.passed_strict());
  EXPECT_EQ(r.violations_by_class, (std::map<std::string, uint64_t>{{"alos_reprocessing", 2}}));
  EXPECT_EQ(r.violations[0].violation_class, "alos_reprocessing");
  properties::Violation failure;
  failure.property = "BoundHonored";
  report.violations.push_back(failure);
  SeedResult f = seed_result(report);
  EXPECT_FALSE(f.passed);
  EXPECT_EQ(f.violations_by_class,
            (std::map<std::string, uint64_t>{{"alos_reprocessing", 2}, {"failure", 1}}));

  SweepSummary s = sweep(1, 3, {0, 1});
  s.results[1] = r;
  s.results[1].seed = 2;
  EXPECT_EQ(s.failed(), 0u);
  EXPECT_EQ(s.failed_strict(), 1u);
  EXPECT_EQ(s.seeds_by_class(), (std::map<std::string, uint64_t>{{"alos_reprocessing", 1}}));
  auto back = summary_from_json(to_json(s), "s.json");
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(back->results, s.results);

  nlohmann::json old = to_json(sweep(7, 1, {0, 1}));
  old["results"][0].erase("violations_by_class");
  for (nlohmann::json& v : old["results"][0]["violations"]) v.erase("class");
  auto read = summary_from_json(old, "old.json");
  ASSERT_TRUE(read.has_value()) << read.error();
  EXPECT_EQ(read->results[0].violations_by_class,
            (std::map<std::string, uint64_t>{{"failure", 2}}));
  EXPECT_EQ(read->results[0].violations[0].violation_class, "failure");
}

// The merge of a sweep's shards has the same totals and results as the sweep run whole.
TEST(SummaryTest, MergeOfShardsEqualsUnshardedSweep) {
  for (int32_t n : {2, 3, 7}) {
    std::vector<SweepSummary> shards;
    std::vector<std::string> sources;
    for (int32_t i = n - 1; i >= 0; --i) {  // any order
      shards.push_back(sweep(5, 50, {i, n}));
      sources.push_back("shard" + std::to_string(i) + ".json");
    }
    auto merged = merge_summaries(shards, sources);
    ASSERT_TRUE(merged.has_value()) << merged.error();
    SweepSummary whole = sweep(5, 50, {0, 1});
    EXPECT_EQ(to_json(*merged)["totals"], to_json(whole)["totals"]) << "shards " << n;
    EXPECT_EQ(merged->results, whole.results) << "shards " << n;
    EXPECT_EQ(merged->first_seed, 5u);
    EXPECT_EQ(merged->seed_count, 50u);
    EXPECT_EQ(merged->shards.size(), static_cast<size_t>(n));
  }
}

TEST(SummaryTest, MergeRefusesOverlappingSeeds) {
  auto merged = merge_summaries({sweep(1, 10, {0, 2}), sweep(1, 10, {0, 1})}, {"a.json", "b.json"});
  ASSERT_FALSE(merged.has_value());
  EXPECT_NE(merged.error().find("seed 1 is in both a.json and b.json"), std::string::npos)
      << merged.error();
}

TEST(SummaryTest, MergeRefusesDifferentScenarios) {
  SweepSummary other = sweep(1, 10, {1, 2});
  other.scenario = "scenarios/fast/other.toml";
  auto merged = merge_summaries({sweep(1, 10, {0, 2}), other}, {"a.json", "b.json"});
  ASSERT_FALSE(merged.has_value());
  EXPECT_NE(merged.error().find("b.json is a summary of 'scenarios/fast/other.toml'"),
            std::string::npos)
      << merged.error();
  // The same file spelled differently is the same scenario.
  SweepSummary same = sweep(1, 10, {1, 2});
  same.scenario = "scenarios/./templates/t.toml";
  EXPECT_TRUE(merge_summaries({sweep(1, 10, {0, 2}), same}, {"a", "b"}).has_value());
}

TEST(SummaryTest, FromJsonNamesTheFileOnBadInput) {
  auto bad = summary_from_json(nlohmann::json{{"tool", 1}}, "x.json");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().rfind("x.json: not an iqsim summary", 0), 0u) << bad.error();
}

TEST(SummaryTest, XmlEscapeCoversMarkupQuotesAndControlCharacters) {
  EXPECT_EQ(xml_escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
  EXPECT_EQ(xml_escape("tab\tnl\ncr\r"), "tab\tnl\ncr\r");
  EXPECT_EQ(xml_escape(std::string("x\x01y\x1fz", 5)), "x\xEF\xBF\xBDy\xEF\xBF\xBDz");
  EXPECT_EQ(xml_escape("caf\xC3\xA9"), "caf\xC3\xA9");  // UTF-8 passes through
  EXPECT_EQ(xml_escape("&amp;"), "&amp;amp;");
}

TEST(SummaryTest, JunitHasOneTestcasePerSeedAndEscapedFailures) {
  SweepSummary s = sweep(7, 2, {0, 1});  // seed 7 fails, seed 8 passes
  s.results[0].violations[0].summary = "value <2> & \"x\"";
  s.title = "a <title>";
  std::string xml = to_junit(s);
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite ", 0), 0u) << xml;
  EXPECT_NE(xml.find("tests=\"2\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"a &lt;title&gt;\" name=\"seed 8\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("message=\"ResultMatchesModel: value &lt;2&gt; &amp; &quot;x&quot;\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("reproduce: iqsim replay s.toml --seed 7"), std::string::npos) << xml;
  // Nothing unescaped slipped into the document.
  EXPECT_EQ(xml.find("<2>"), std::string::npos) << xml;
  size_t testcases = 0;
  for (size_t at = xml.find("<testcase"); at != std::string::npos;
       at = xml.find("<testcase", at + 1)) {
    ++testcases;
  }
  EXPECT_EQ(testcases, 2u);
  EXPECT_EQ(xml.substr(xml.size() - 13), "</testsuite>\n");
}

}  // namespace
}  // namespace iq::cli
