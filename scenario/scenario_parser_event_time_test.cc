// The event-time keys of the Producer workload (out_of_order_*, stream_time_jump_*,
// tombstone_one_in, grace_edge_one_in) and the window shape and time-edge keys of QueryClients
// (window_range_one_in, time_edge_one_in) parse into the
// configs, survive the writer, and every misuse is an error at file:line:col naming the key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenario/scenario_parser.h"
#include "scenario/scenario_writer.h"

namespace iq::sim {
namespace {

const std::string kWindowed =
    "[topology]\nname = 'WindowedCount'\nwindow_size_ms = 1_000\n[[test]]\n"
    "duration_ms = 10_000\n";  // lines 1-5

TEST(ScenarioParserEventTimeTest, KeysParseAndRoundTrip) {
  const std::string text = kWindowed +
                           "[[test.workload]]\nname = 'Producer'\n"                     // 6-7
                           "out_of_order_one_in = 3\nout_of_order_ms_max = 2_000\n"     // 8-9
                           "stream_time_jump_one_in = 50\n"                             // 10
                           "stream_time_jump_ms_max = 120_000\ntombstone_one_in = 7\n"  // 11-12
                           "grace_edge_one_in = 11\n"                                   // 13
                           "[[test.workload]]\nname = 'QueryClients'\n"
                           "window_range_one_in = 5\ninverted_range_one_in = 9\n"
                           "time_edge_one_in = 4\n";
  auto parsed = parse_scenario_text(text, "e.toml", 1);
  ASSERT_TRUE(parsed.has_value()) << "seed 1: " << parsed.error().to_string();
  const Scenario& s = *parsed;
  const auto& p = std::get<ProducerWorkloadSpec>(s.tests[0].workloads[0]).config;
  EXPECT_EQ(p.out_of_order_odds, (base::Ratio{1, 3}));
  EXPECT_EQ(p.out_of_order_ms_max, 2'000);
  EXPECT_EQ(p.stream_time_jump_odds, (base::Ratio{1, 50}));
  EXPECT_EQ(p.stream_time_jump_ms_max, 120'000);
  EXPECT_EQ(p.tombstone_odds, (base::Ratio{1, 7}));
  EXPECT_EQ(p.grace_edge_odds, (base::Ratio{1, 11}));
  const auto& q = std::get<QueryClientsWorkloadSpec>(s.tests[0].workloads[1]).config;
  EXPECT_EQ(q.window_range_odds, (base::Ratio{1, 5}));
  EXPECT_EQ(q.inverted_range_odds, (base::Ratio{1, 9}));
  EXPECT_EQ(q.time_edge_odds, (base::Ratio{1, 4}));
  auto again = parse_scenario_text(to_toml(s), "written.toml", 1);
  ASSERT_TRUE(again.has_value()) << "seed 1: " << again.error().to_string() << "\n" << to_toml(s);
  EXPECT_EQ(without_locations(*again), without_locations(s)) << "seed 1\n" << to_toml(s);

  // Absent, they are off (and the jump's max is Stores' smallest segment interval), and the
  // writer leaves them out, so files without them are written as before.
  auto plain =
      parse_scenario_text(kWindowed + "[[test.workload]]\nname = 'Producer'\n", "plain.toml", 1);
  ASSERT_TRUE(plain.has_value()) << "seed 1: " << plain.error().to_string();
  const auto& d = std::get<ProducerWorkloadSpec>(plain->tests[0].workloads[0]).config;
  EXPECT_EQ(d.stream_time_jump_odds.num, 0);
  EXPECT_EQ(d.tombstone_odds.num, 0);
  EXPECT_EQ(d.stream_time_jump_ms_max, 60'000);
  const std::string written = to_toml(*plain);
  EXPECT_EQ(written.find("stream_time_jump"), std::string::npos) << written;
  EXPECT_EQ(written.find("tombstone_one_in"), std::string::npos) << written;
  EXPECT_EQ(written.find("grace_edge_one_in"), std::string::npos) << written;
  EXPECT_EQ(written.find("time_edge_one_in"), std::string::npos) << written;
}

struct Bad {
  const char* what;
  std::string workload;  // from line 6: [[test.workload]], then name, then the bad key (line 8)
  std::string key;
  std::string message;
};

TEST(ScenarioParserEventTimeTest, MisusedKeysAreErrorsAtTheirPlace) {
  const std::vector<Bad> bad = {
      {"a zero jump max", "name = 'Producer'\nstream_time_jump_ms_max = 0\n",
       "test.0.workload.0.stream_time_jump_ms_max", "must be >= 1"},
      {"a negative jump odds", "name = 'Producer'\nstream_time_jump_one_in = -2\n",
       "test.0.workload.0.stream_time_jump_one_in", ">= 0"},
      {"a float tombstone odds", "name = 'Producer'\ntombstone_one_in = 2.5\n",
       "test.0.workload.0.tombstone_one_in", "integer"},
      {"a jump max past a scenario time",
       "name = 'Producer'\nstream_time_jump_ms_max = 2_000_000_000_000\n",
       "test.0.workload.0.stream_time_jump_ms_max", "<="},
      {"a string window range odds", "name = 'QueryClients'\nwindow_range_one_in = 'often'\n",
       "test.0.workload.0.window_range_one_in", "integer"},
      {"a producer key on the query clients", "name = 'QueryClients'\ntombstone_one_in = 3\n",
       "test.0.workload.0.tombstone_one_in", "unknown key"},
  };
  for (const Bad& b : bad) {
    auto parsed =
        parse_scenario_text(kWindowed + "[[test.workload]]\n" + b.workload, "bad.toml", 1);
    ASSERT_FALSE(parsed.has_value()) << b.what << ": parsed (seed 1)";
    const std::string text = parsed.error().to_string();
    EXPECT_EQ(text.rfind("bad.toml:8:", 0), 0u) << b.what << " (seed 1): got " << text;
    EXPECT_NE(text.find("key '" + b.key + "'"), std::string::npos) << b.what << ": got " << text;
    EXPECT_NE(text.find(b.message), std::string::npos) << b.what << " (seed 1): got " << text;
  }
}

}  // namespace
}  // namespace iq::sim
