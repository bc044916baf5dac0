// Joint draws: a file's [[alternative]] tables, one of which each seed picks and lays over the
// file, so keys that only make sense together (a topology and the stores it can run on) are drawn
// together; every alternative is validated whatever the seed picks, and every misuse is an error
// at file:line:col naming the key.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "scenario/scenario_parser.h"
#include "scenario/scenario_writer.h"

namespace iq::sim {
namespace {

// Lines 1-10; the alternatives start at line 11.
const std::string kBase =
    "[configuration]\n"
    "instances = { range = [1, 4] }\n"
    "store_backend = { one_of = ['rocksdb', 'rocksdb_plain', 'in_memory', 'lru'] }\n"
    "[topology]\n"
    "name = 'SourceTable'\n"
    "source_partitions = { range = [1, 6] }\n"
    "caching = { one_of = [true, false] }\n"
    "[[test]]\n"
    "duration_ms = 1_000\n"
    "\n";

const std::string kJoint = kBase +
                           "[[alternative]]\n"
                           "topology.name = { one_of = ['Count', 'Sum'] }\n"
                           "[[alternative]]\n"
                           "topology.name = 'PapiWriter'\n"
                           "configuration.store_backend = { one_of = ['in_memory', 'lru'] }\n"
                           "[[alternative]]\n";  // empty: the file as it stands

Scenario parse_ok(const std::string& text, uint64_t seed) {
  auto parsed = parse_scenario_text(text, "j.toml", seed);
  if (!parsed) {
    ADD_FAILURE() << "seed=" << seed << ": " << parsed.error().to_string();
    return Scenario{};
  }
  return *parsed;
}

// Each seed takes one alternative whole: the PAPI writer is drawn only over the stores its
// alternative lists, the DSL topologies over all four, and every alternative is drawn.
TEST(ScenarioParserAlternativeTest, EachSeedTakesOneAlternativeWhole) {
  std::set<TopologyKind> kinds;
  std::set<KeyValueSupplier> papi_suppliers;
  std::set<KeyValueSupplier> dsl_suppliers;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    const TopologyConfig t = parse_ok(kJoint, seed).cluster.topology;
    kinds.insert(t.kind);
    (t.kind == TopologyKind::PapiWriter ? papi_suppliers : dsl_suppliers).insert(t.supplier);
    if (t.kind == TopologyKind::PapiWriter) {
      EXPECT_TRUE(t.supplier == KeyValueSupplier::kInMemory ||
                  t.supplier == KeyValueSupplier::kLruMap)
          << "seed=" << seed;
    }
  }
  EXPECT_EQ(kinds, (std::set<TopologyKind>{TopologyKind::SourceTable, TopologyKind::Count,
                                           TopologyKind::Sum, TopologyKind::PapiWriter}));
  EXPECT_EQ(papi_suppliers.size(), 2u);
  EXPECT_EQ(dsl_suppliers.size(), 4u);
}

// The pick is the seed's: the same seed gives the same scenario, and the choices outside the
// alternatives draw exactly what they draw in the file without alternatives.
TEST(ScenarioParserAlternativeTest, PickIsTheSeedsAndLeavesOtherChoicesAlone) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const Scenario a = parse_ok(kJoint, seed);
    EXPECT_TRUE(a == parse_ok(kJoint, seed)) << "seed=" << seed;
    const Scenario plain = parse_ok(kBase, seed);
    EXPECT_EQ(a.cluster.instances, plain.cluster.instances) << "seed=" << seed;
    EXPECT_EQ(a.cluster.topology.source_partitions, plain.cluster.topology.source_partitions)
        << "seed=" << seed;
    EXPECT_EQ(a.cluster.topology.caching, plain.cluster.topology.caching) << "seed=" << seed;
    // The written scenario holds no alternative and reads back to the same scenario.
    const std::string written = to_toml(a);
    EXPECT_EQ(written.find("alternative"), std::string::npos) << "seed=" << seed;
    EXPECT_TRUE(without_locations(parse_ok(written, seed)) == without_locations(a))
        << "seed=" << seed;
  }
}

struct BadAlternative {
  std::string what;
  std::string text;
  std::string where;  // the error's start: file:line:col: key '...'
  std::string message;
};

// Each misuse of [[alternative]] is an error naming the line, column and key, and an alternative
// no seed draws is read too: a bad one fails every seed.
TEST(ScenarioParserAlternativeTest, BadAlternativesAreErrorsAtTheirLine) {
  const std::vector<BadAlternative> bad = {
      {"an unknown key inside an alternative",
       kBase + "[[alternative]]\ntopology.name = 'Count'\n[[alternative]]\ntopology.nme = 'Sum'\n",
       "j.toml:14:10: key 'topology.nme'", "unknown key"},
      {"a bad value inside an alternative",
       kBase + "[[alternative]]\nconfiguration.store_backend = 'lru'\n[[alternative]]\n"
               "configuration.store_backend = { one_of = ['in_memory', 'leveldb'] }\n",
       "j.toml:14:56: key 'configuration.store_backend.one_of.1'", "unknown store backend"},
      {"a section replaced by a value", kBase + "[[alternative]]\ntopology = 3\n",
       "j.toml:12:12: key 'topology'", "expected a table, got an integer"},
      {"alternative as a single table", kBase + "[alternative]\ntopology.name = 'Count'\n",
       "j.toml:11:1: key 'alternative'", "expected one or more [[alternative]] tables"},
      {"alternative as a value", "alternative = 3\n" + kBase, "j.toml:1:15: key 'alternative'",
       "expected one or more [[alternative]] tables, got an integer"},
      {"alternative as an empty array", "alternative = []\n" + kBase,
       "j.toml:1:15: key 'alternative'", "an empty array"},
      {"a seed inside an alternative", kBase + "[[alternative]]\nseed = 4\n",
       "j.toml:12:1: key 'alternative.0.seed'", "cannot set the seed"},
      {"nested alternatives", kBase + "[[alternative]]\n[[alternative.alternative]]\n",
       "j.toml:12:15: key 'alternative.0.alternative'", "do not nest"},
  };
  for (const BadAlternative& b : bad) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      auto parsed = parse_scenario_text(b.text, "j.toml", seed);
      ASSERT_FALSE(parsed.has_value()) << b.what << ": parsed (seed=" << seed << ")";
      const std::string text = parsed.error().to_string();
      EXPECT_EQ(text.rfind(b.where, 0), 0u) << b.what << " seed=" << seed << ": got " << text;
      EXPECT_NE(text.find(b.message), std::string::npos)
          << b.what << " seed=" << seed << ": got " << text;
    }
  }
}

// At most 16 alternatives (each reads the file again): the 17th is refused at its header.
TEST(ScenarioParserAlternativeTest, AlternativeCountIsBounded) {
  std::string text = kBase;
  for (int i = 0; i < 16; ++i) text += "[[alternative]]\ntopology.name = 'Count'\n";
  EXPECT_TRUE(parse_scenario_text(text, "j.toml", 1).has_value()) << "seed=1: 16 alternatives";
  text += "[[alternative]]\n";
  auto parsed = parse_scenario_text(text, "j.toml", 1);
  ASSERT_FALSE(parsed.has_value()) << "seed=1: 17 alternatives parsed";
  EXPECT_EQ(parsed.error().to_string().rfind("j.toml:43:", 0), 0u)
      << "seed=1: " << parsed.error().to_string();
}

}  // namespace
}  // namespace iq::sim
