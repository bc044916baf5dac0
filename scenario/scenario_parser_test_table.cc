// The scenario parser, [[test]]: a phase, its duration, its checks (property names).
// scenario_parser_reader.h holds the machinery and the class; scenarios/README.md the keys.

#include <fmt/format.h>

#include "scenario/scenario_names.h"
#include "scenario_parser_reader.h"

namespace iq::sim::parsing {

TestSpec ScenarioParser::parse_test(const toml::table& table, const KeyPath& path) {
  Table t(r_, table, path);
  t.allow({"title", "duration_ms", "checks", "check", "workload", "step"});
  TestSpec spec;
  spec.title = t.string("title", "");
  const toml::array* workloads = t.tables("workload", kWorkloadsPerTestMax);
  const toml::array* steps = t.tables("step", kStepsPerTestMax);
  if (steps != nullptr) {
    steps_ += steps->size();
    if (steps_ > kStepsMax) {
      const size_t first_past = steps->size() - (steps_ - kStepsMax);
      r_.fail(*steps->get(first_past), path.key("step").index(first_past),
              fmt::format("more than {} [[test.step]] blocks in the file", kStepsMax));
    }
  }
  const bool has_workloads = workloads != nullptr && !workloads->empty();
  const bool has_steps = steps != nullptr && !steps->empty();
  TestContext context;
  // A test with workloads runs them for 10 s unless told otherwise; a scripted one has no
  // timed phase.
  context.duration = t.integer("duration_ms", has_workloads ? 10'000 : 0, kTimeMs);
  spec.duration_ms = context.duration.value;
  if (has_workloads && context.duration.lo == 0) {
    r_.fail(context.duration.at, context.duration.path,
            "must be > 0 in a test with workloads (their timed phase lasts duration_ms)");
  }
  if (!has_workloads && !has_steps && context.duration.lo == 0) {
    r_.fail(table.source(), path,
            "a test needs a [[test.workload]], a [[test.step]] or a duration_ms");
  }
  for (size_t i = 0; has_workloads && i < workloads->size(); ++i) {
    spec.workloads.push_back(
        parse_workload(*workloads->get(i)->as_table(), path.key("workload").index(i), context));
  }
  spec.checks = t.name_list("checks", {}, names::kPropertyNames, "property name");
  parse_check_tables(t, spec.checks);
  for (size_t i = 0; has_steps && i < steps->size(); ++i) {
    spec.steps.push_back(parse_step(*steps->get(i)->as_table(), path.key("step").index(i)));
  }
  t.finish();
  return spec;
}

void ScenarioParser::parse_check_tables(Table& t, std::vector<std::string>& checks) {
  const toml::array* tables = t.tables("check");
  for (size_t i = 0; tables != nullptr && i < tables->size(); ++i) {
    Table c(r_, *tables->get(i)->as_table(), t.path("check").index(i));
    c.allow({"name"});
    if (!c.has("name")) c.missing("name");
    const toml::node& n = *c.find("name");
    const std::string name = r_.plain_string(n, c.path("name"));
    if (std::find(names::kPropertyNames.begin(), names::kPropertyNames.end(), name) ==
        names::kPropertyNames.end()) {
      r_.fail(n, c.path("name"),
              fmt::format("unknown property name '{}' (expected one of: {})", name,
                          join(names::kPropertyNames)));
    }
    if (std::find(checks.begin(), checks.end(), name) != checks.end()) {
      r_.fail(n, c.path("name"), fmt::format("'{}' is listed twice", name));
    }
    checks.push_back(name);
    c.finish();
  }
}

}  // namespace iq::sim::parsing
