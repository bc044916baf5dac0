// The versioned keys of scenario files: [topology] history_retention_ms/segment_interval_ms,
// query as_of_ms/from_ms/to_ms and expect.versions parse into the Scenario, survive the writer,
// and every misuse is an error at file:line:col naming the key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenario/scenario_parser.h"
#include "scenario/scenario_writer.h"

namespace iq::sim {
namespace {

const std::string kVersioned =
    "[topology]\nname = 'VersionedTable'\nhistory_retention_ms = 5_000\n"
    "segment_interval_ms = 700\n[[test]]\n";  // lines 1-5

TEST(ScenarioParserVersionedTest, KeysParseAndRoundTrip) {
  const std::string text = kVersioned +
                           "[[test.step]]\n"
                           "query = { type = 'VersionedKeyQuery', key = 1, as_of_ms = 2_600 }\n"
                           "expect = { partition = 0, versions = [{ value = 15, timestamp_ms "
                           "= 2_500, valid_to_ms = 3_000 }] }\n"
                           "[[test.step]]\n"
                           "query = { type = 'MultiVersionedKeyQuery', key = 1, from_ms = -5, "
                           "order = 'DESCENDING' }\n"
                           "expect = { partition = 0, versions = [] }\n";
  auto parsed = parse_scenario_text(text, "v.toml", 1);
  ASSERT_TRUE(parsed.has_value()) << "seed 1: " << parsed.error().to_string();
  const Scenario& s = *parsed;
  EXPECT_EQ(s.cluster.topology.kind, TopologyKind::VersionedTable);
  EXPECT_EQ(s.cluster.topology.history_retention_ms, 5'000);
  EXPECT_EQ(s.cluster.topology.segment_interval_ms, 700);
  EXPECT_FALSE(s.cluster.topology.caching) << "a versioned store is never cached";
  const auto& q0 = std::get<QueryStep>(s.tests[0].steps[0]);
  EXPECT_EQ(q0.as_of_ms, 2'600);
  ASSERT_EQ(q0.expect.size(), 1u);
  EXPECT_EQ(q0.expect[0].versions, (VersionedList{{15, 2'500, 3'000}}));
  const auto& q1 = std::get<QueryStep>(s.tests[0].steps[1]);
  EXPECT_EQ(q1.from_time_ms, -5);
  EXPECT_EQ(q1.to_time_ms, std::nullopt);
  EXPECT_EQ(q1.order, ResultOrder::DESCENDING);
  EXPECT_EQ(q1.expect[0].versions, VersionedList{});
  auto again = parse_scenario_text(to_toml(s), "written.toml", 1);
  ASSERT_TRUE(again.has_value()) << "seed 1: " << again.error().to_string() << "\n" << to_toml(s);
  EXPECT_EQ(without_locations(*again), without_locations(s)) << "seed 1\n" << to_toml(s);
}

struct Bad {
  const char* what;
  std::string step;   // lines 6-8
  std::string where;  // "bad.toml:L:C: key '...'"
  std::string message;
};

TEST(ScenarioParserVersionedTest, MisusedKeysAreErrorsAtTheirPlace) {
  const std::vector<Bad> bad = {
      {"as_of_ms on a KeyQuery", "query = { type = 'KeyQuery', key = 1, as_of_ms = 5 }\n",
       "bad.toml:7:", "only a VersionedKeyQuery takes as_of_ms"},
      {"from_ms on a VersionedKeyQuery",
       "query = { type = 'VersionedKeyQuery', key = 1, from_ms = 5 }\n",
       "bad.toml:7:", "only a MultiVersionedKeyQuery takes from_ms"},
      {"a value on a versioned query",
       "query = { type = 'VersionedKeyQuery', key = 1 }\nexpect = { partition = 0, value = 3 }\n",
       "bad.toml:8:", "a versioned query answers versions"},
      {"versions on a KeyQuery",
       "query = { type = 'KeyQuery', key = 1 }\nexpect = { partition = 0, versions = [] }\n",
       "bad.toml:8:", "only a VersionedKeyQuery or MultiVersionedKeyQuery answers versions"},
      {"two versions for a VersionedKeyQuery",
       "query = { type = 'VersionedKeyQuery', key = 1 }\nexpect = { partition = 0, versions = "
       "[{ value = 1, timestamp_ms = 1 }, { value = 2, timestamp_ms = 2 }] }\n",
       "bad.toml:8:", "at most one version"},
      {"validTo not after validFrom",
       "query = { type = 'MultiVersionedKeyQuery', key = 1 }\nexpect = { partition = 0, versions "
       "= [{ value = 1, timestamp_ms = 5, valid_to_ms = 5 }] }\n",
       "bad.toml:8:", "must be > timestamp_ms (5)"},
      {"a version without its timestamp",
       "query = { type = 'MultiVersionedKeyQuery', key = 1 }\nexpect = { partition = 0, versions "
       "= [{ value = 1 }] }\n",
       "bad.toml:8:", "timestamp_ms"},
  };
  for (const Bad& b : bad) {
    auto parsed = parse_scenario_text(kVersioned + "[[test.step]]\n" + b.step, "bad.toml", 1);
    ASSERT_FALSE(parsed.has_value()) << b.what << ": parsed (seed 1)";
    const std::string text = parsed.error().to_string();
    EXPECT_EQ(text.rfind(b.where, 0), 0u) << b.what << " (seed 1): got " << text;
    EXPECT_NE(text.find(b.message), std::string::npos) << b.what << " (seed 1): got " << text;
    EXPECT_NE(text.find("key 'test.0.step.0."), std::string::npos) << b.what << ": got " << text;
  }
  auto negative = parse_scenario_text(
      "[topology]\nname = 'VersionedTable'\nhistory_retention_ms = -1\n[[test]]\nduration_ms = 1\n",
      "bad.toml", 1);
  ASSERT_FALSE(negative.has_value()) << "a negative retention parsed (seed 1)";
  EXPECT_EQ(negative.error().to_string().rfind("bad.toml:3:", 0), 0u)
      << negative.error().to_string();
}

}  // namespace
}  // namespace iq::sim
