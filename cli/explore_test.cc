// The explorer's grid, read before any seed runs (explore.h resolve_grid): --grid flags and a
// template's [explore] section resolve to the template's keys, and every malformed flag or
// section, a key the template lacks and a key on two axes is an error value naming the flag, or
// the template's file:line and key. iqsim_binary_test.cc checks the same refusals exit 2.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "explore.h"

namespace iq::cli {
namespace {

constexpr const char* kTemplate = R"(title = 'grid'
[configuration]
instances = 2
[streams_config]
"num.standby.replicas" = { range = [0, 1] }
"processing.guarantee" = 'at_least_once'
[topology]
name = 'Count'
caching = false
[[test]]
duration_ms = 2_000
    [[test.workload]]
    name = 'Producer'
    [[test.workload]]
    name = 'QueryClients'
    clients = 2
)";  // 16 lines: an [explore] section appended starts on line 17

std::string refusal(const std::vector<std::string>& flags, const std::string& extra = "") {
  auto grid = resolve_grid("t.toml", std::string(kTemplate) + extra, flags);
  EXPECT_FALSE(grid.has_value()) << "accepted: " << (grid ? grid->front() : "");
  return grid ? "" : grid.error();
}

TEST(ExploreGrid, FlagsAndTheTemplatesSectionResolveToItsKeys) {
  auto grid = resolve_grid("t.toml", kTemplate,
                           {"num.standby.replicas=0,1,2",
                            "streams_config.'processing.guarantee'=at_least_once,exactly_once_v2",
                            "test.0.workload.1.clients=1,3", "title='a,b','c'"});
  ASSERT_TRUE(grid.has_value()) << grid.error();
  EXPECT_EQ(*grid, (std::vector<std::string>{
                       "streams_config.num.standby.replicas=0,1,2",
                       "streams_config.processing.guarantee=at_least_once,exactly_once_v2",
                       "test.0.workload.1.clients=1,3", "title='a,b','c'"}));
  auto own = resolve_grid("t.toml",
                          std::string(kTemplate) +
                              "[explore]\ngrid = { 'topology.caching' = "
                              "[true, false], 'instances' = [2, 3] }\n",
                          {});
  ASSERT_TRUE(own.has_value()) << own.error();
  EXPECT_EQ(*own, (std::vector<std::string>{"topology.caching=true,false",
                                            "configuration.instances=2,3"}));
}

// Each malformed --grid flag is refused naming the flag, with what was wrong.
TEST(ExploreGrid, MalformedFlagsAreRefusedNamingTheFlag) {
  const std::pair<const char*, const char*> cases[] = {
      {"num.standby.replicas", "expected KEY=V1,V2,..."},
      {"=0,1", "expected KEY=V1,V2,..."},
      {"num.standby.replicas=", "expected KEY=V1,V2,..."},
      {"num.standby.replicas=0,,1", "an empty value"},
      {"num.standby.replicas=0,1,", "an empty value"},
      {"num.standby.replicas=[0,1", "an unclosed bracket"},
      {"title='a,b", "an unclosed quote"},
      {"num.standby.replicas=0]", "a ']' that closes nothing"},
      {"num.standby.replicas=1,1", "the value 1 twice"},
  };
  for (const auto& [flag, message] : cases) {
    const std::string error = refusal({flag});
    EXPECT_EQ(error.rfind("--grid '" + std::string(flag) + "': ", 0), 0u) << flag << ": " << error;
    EXPECT_NE(error.find(message), std::string::npos) << flag << ": " << error;
  }
}

// A key the template does not have is refused, from a flag or from the template's own section
// (naming its line), and so is one key on two axes.
TEST(ExploreGrid, AKeyTheTemplateLacksOrTwoAxesOnOneKeyAreRefused) {
  std::string error = refusal({"num.standby.replica=0,1"});
  EXPECT_EQ(error.rfind("--grid 'num.standby.replica=0,1': the template t.toml has no key "
                        "'num.standby.replica'",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("streams_config.num.standby.replicas"), std::string::npos) << error;
  error = refusal({}, "[explore]\ngrid = { 'topology.cachin' = [true, false] }\n");
  EXPECT_EQ(error.rfind("t.toml:18: [explore] grid key 'topology.cachin': the template t.toml "
                        "has no key 'topology.cachin'",
                        0),
            0u)
      << error;
  error = refusal({"num.standby.replicas=0,1", "streams_config.num.standby.replicas=2"});
  EXPECT_NE(error.find("--grid 'streams_config.num.standby.replicas=2': sets the template's "
                       "streams_config.num.standby.replicas as --grid "
                       "'num.standby.replicas=0,1' does"),
            std::string::npos)
      << error;
  EXPECT_NE(refusal({}).find("no grid"), std::string::npos);
}

// A malformed [explore] section is the scenario parser's error: file:line:column and key.
TEST(ExploreGrid, MalformedSectionsAreRefusedAtTheirLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"[[explore]]\ngrid = { 'topology.caching' = [true] }\n",
       "t.toml:17:1: key 'explore': expected a table, got an array"},
      {"[explore]\n", "t.toml:17:1: key 'explore.grid': missing"},
      {"[explore]\ngrid = [0, 1]\n", "t.toml:18:8: key 'explore.grid': expected a table of KEY"},
      {"[explore]\ngrid = {}\n", "t.toml:18:8: key 'explore.grid': expected a table of KEY"},
      {"[explore]\ngrid = { 'topology.caching' = true }\n",
       "key 'explore.grid.\"topology.caching\"': expected a non-empty array of values"},
      {"[explore]\ngrid = { 'topology.caching' = [] }\n",
       "key 'explore.grid.\"topology.caching\"': expected a non-empty array of values"},
      {"[explore]\ngrids = { 'topology.caching' = [true] }\n",
       "t.toml:18:1: key 'explore.grids': unknown key (known here: grid)"},
  };
  for (const auto& [section, message] : cases) {
    const std::string error = refusal({}, section);
    EXPECT_NE(error.find(message), std::string::npos) << section << "got: " << error;
  }
}

}  // namespace
}  // namespace iq::cli
