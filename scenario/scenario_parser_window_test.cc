// The window and session keys of scenario files: [topology] window_size_ms, window_advance_ms,
// grace_ms, session_gap_ms, window_retention_ms, retain_duplicates; query from_ms/to_ms and
// execution_info on window queries; expect.windows, expect.execution_info, expect_values and
// expect_position. They parse into the Scenario, survive the writer, and every misuse is an error
// at file:line:col naming the key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenario/scenario_parser.h"
#include "scenario/scenario_writer.h"

namespace iq::sim {
namespace {

const std::string kWindowed =
    "[configuration]\nstore_backend = 'in_memory'\n[topology]\nname = 'WindowedSum'\n"
    "window_size_ms = 100\nwindow_advance_ms = 50\ngrace_ms = 20\n[[test]]\n";  // lines 1-8

TEST(ScenarioParserWindowTest, KeysParseAndRoundTrip) {
  const std::string text =
      kWindowed +
      "[[test.step]]\n"
      "query = { type = 'WindowKeyQuery', key = 1, from_ms = 0, to_ms = 100 }\n"
      "expect = { partition = 0, windows = [{ start_ms = 50, value = 3 }] }\n"
      "expect_values = [3, 1]\n"
      "expect_position = { input-topic = { 0 = 4 } }\n"
      "[[test.step]]\n"
      "query = { type = 'WindowRangeQuery', from_ms = -5, to_ms = 5, execution_info = true }\n"
      "expect = { partition = 0, windows = [{ key = 2, start_ms = 0, end_ms = 100, value = 7 }], "
      "execution_info = true }\n";
  auto parsed = parse_scenario_text(text, "w.toml", 1);
  ASSERT_TRUE(parsed.has_value()) << "seed 1: " << parsed.error().to_string();
  const Scenario& s = *parsed;
  EXPECT_EQ(s.cluster.topology.kind, TopologyKind::WindowedSum);
  EXPECT_EQ(s.cluster.topology.window_size_ms, 100);
  EXPECT_EQ(s.cluster.topology.window_advance_ms, 50);
  EXPECT_EQ(s.cluster.topology.grace_ms, 20);
  EXPECT_EQ(s.cluster.topology.effective_window_retention_ms(), 120) << "size + grace";
  const auto& q0 = std::get<QueryStep>(s.tests[0].steps[0]);
  EXPECT_EQ(q0.key, 1);
  EXPECT_EQ(q0.from_time_ms, 0);
  EXPECT_EQ(q0.to_time_ms, 100);
  EXPECT_EQ(q0.expect[0].windows, (WindowedList{{1, 50, std::nullopt, 3}}));
  EXPECT_EQ(q0.expect_values, (std::set<int64_t>{1, 3}));
  EXPECT_EQ(q0.expect_position, Position::from_map({{"input-topic", {{0, 4}}}}));
  const auto& q1 = std::get<QueryStep>(s.tests[0].steps[1]);
  EXPECT_EQ(q1.key, std::nullopt);
  EXPECT_TRUE(q1.collect_execution_info);
  EXPECT_EQ(q1.expect[0].windows, (WindowedList{{2, 0, 100, 7}}));
  EXPECT_EQ(q1.expect[0].execution_info, true);
  auto again = parse_scenario_text(to_toml(s), "written.toml", 1);
  ASSERT_TRUE(again.has_value()) << "seed 1: " << again.error().to_string() << "\n" << to_toml(s);
  EXPECT_EQ(without_locations(*again), without_locations(s)) << "seed 1\n" << to_toml(s);
}

// A session store has no timestamped form: 'rocksdb' is read as Stores.persistentSessionStore.
TEST(ScenarioParserWindowTest, SessionTopologyTakesThePlainRocksDbSupplier) {
  auto parsed = parse_scenario_text(
      "[topology]\nname = 'SessionCount'\nsession_gap_ms = 10\n[[test]]\nduration_ms = 1\n",
      "s.toml", 1);
  ASSERT_TRUE(parsed.has_value()) << "seed 1: " << parsed.error().to_string();
  EXPECT_EQ(parsed->cluster.topology.supplier, KeyValueSupplier::kRocksDb);
  EXPECT_FALSE(parsed->cluster.topology.timestamped());
}

struct Bad {
  const char* what;
  std::string text;
  std::string where;  // "bad.toml:L:"
  std::string message;
};

TEST(ScenarioParserWindowTest, MisusedKeysAreErrorsAtTheirPlace) {
  const std::string step = kWindowed + "[[test.step]]\n";  // the step's keys start at line 10
  const std::vector<Bad> bad = {
      {"a WindowKeyQuery without its range",
       step + "query = { type = 'WindowKeyQuery', key = 1 }\n",
       "bad.toml:10:", "a WindowKeyQuery needs from_ms"},
      {"a WindowKeyQuery without to_ms",
       step + "query = { type = 'WindowKeyQuery', key = 1, from_ms = 0 }\n",
       "bad.toml:10:", "needs to_ms"},
      {"a WindowRangeQuery with a key and a range",
       step + "query = { type = 'WindowRangeQuery', key = 1, from_ms = 0, to_ms = 1 }\n",
       "bad.toml:10:", "not both"},
      {"lower on a window query",
       step + "query = { type = 'WindowRangeQuery', key = 1, lower = 0 }\n",
       "bad.toml:10:", "a window query takes from_ms and to_ms"},
      {"entries on a window query",
       step + "query = { type = 'WindowRangeQuery', key = 1 }\nexpect = { partition = 0, "
              "entries = [] }\n",
       "bad.toml:11:", "a window query answers windows"},
      {"windows on a KeyQuery",
       step + "query = { type = 'KeyQuery', key = 1 }\nexpect = { partition = 0, windows = [] }\n",
       "bad.toml:11:", "only a WindowKeyQuery or WindowRangeQuery answers windows"},
      {"an end on a WindowKeyQuery entry",
       step + "query = { type = 'WindowKeyQuery', key = 1, from_ms = 0, to_ms = 1 }\nexpect = { "
              "partition = 0, windows = [{ start_ms = 0, end_ms = 100, value = 1 }] }\n",
       "bad.toml:11:", "a WindowKeyQuery answers (window start, value): no end_ms"},
      {"a range entry without its key",
       step + "query = { type = 'WindowRangeQuery', key = 1 }\nexpect = { partition = 0, windows "
              "= [{ start_ms = 0, end_ms = 0, value = 1 }] }\n",
       "bad.toml:11:", "key"},
      {"execution info expected but not collected",
       step + "query = { type = 'WindowRangeQuery', key = 1 }\nexpect = { partition = 0, "
              "execution_info = true }\n",
       "bad.toml:11:", "add execution_info = true to the query"},
      {"expect_values on a throwing query",
       step + "query = { type = 'WindowRangeQuery', key = 1 }\nexpect_error = "
              "'UnknownStateStoreException'\nexpect_values = [1]\n",
       "bad.toml:12:", "a query that throws has no values"},
      {"an advance above the size",
       "[topology]\nname = 'WindowedCount'\nwindow_size_ms = 10\nwindow_advance_ms = 11\n"
       "[[test]]\nduration_ms = 1\n",
       "bad.toml:4:", "must be <= window_size_ms"},
      {"a DSL retention below size + grace",
       "[topology]\nname = 'WindowedCount'\nwindow_size_ms = 10\ngrace_ms = 5\n"
       "window_retention_ms = 14\n[[test]]\nduration_ms = 1\n",
       "bad.toml:5:", "must be >= window_size_ms + grace_ms (15)"},
      {"a session retention below gap + grace",
       "[topology]\nname = 'SessionSum'\nsession_gap_ms = 10\nwindow_retention_ms = 9\n"
       "[[test]]\nduration_ms = 1\n",
       "bad.toml:4:", "must be >= session_gap_ms + grace_ms (10)"},
      {"a PAPI writer without a retention",
       "[topology]\nname = 'WindowPapiWriter'\n[[test]]\nduration_ms = 1\n",
       "bad.toml:2:", "needs window_retention_ms"},
      {"duplicates on the DSL",
       "[topology]\nname = 'WindowedSum'\nretain_duplicates = true\n[[test]]\nduration_ms = 1\n",
       "bad.toml:3:", "only the WindowPapiWriter builds a store with duplicates"},
      {"an LRU window store",
       "[configuration]\nstore_backend = 'lru'\n[topology]\nname = 'WindowedSum'\n[[test]]\n"
       "duration_ms = 1\n",
       "bad.toml:4:", "store_backend 'lru' has none"},
  };
  for (const Bad& b : bad) {
    auto parsed = parse_scenario_text(b.text, "bad.toml", 1);
    ASSERT_FALSE(parsed.has_value()) << b.what << ": parsed (seed 1)";
    const std::string text = parsed.error().to_string();
    EXPECT_EQ(text.rfind(b.where, 0), 0u) << b.what << " (seed 1): got " << text;
    EXPECT_NE(text.find(b.message), std::string::npos) << b.what << " (seed 1): got " << text;
  }
}

}  // namespace
}  // namespace iq::sim
