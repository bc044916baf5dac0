#include "explore.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <tuple>
#include <variant>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "checks/check.h"
#include "child_process.h"
#include "commands.h"
#include "explore_report.h"
#include "input_checks.h"
#include "journal.h"
#include "scenario/scenario_parser.h"
#include "summary.h"
#include "sweep.h"

namespace iq::cli {

namespace {

using nlohmann::json;

// At most this many configurations: a grid is a handful of settings compared side by side.
constexpr size_t kConfigurationsMax = 64;
// Failing seeds' reproduce commands listed per configuration.
constexpr size_t kFailingListedMax = 5;
// The sections a bare grid key (`num.standby.replicas`) is looked up in.
constexpr const char* kSections[] = {"configuration", "streams_config", "broker",
                                     "topology",      "knobs",          "liveness"};

// A key's place in a TOML document: table keys and array indices, from the root.
using Step = std::variant<std::string, size_t>;
using Path = std::vector<Step>;

// One axis of the grid: a template key and the values it takes, each as TOML text.
struct Axis {
  std::string key;  // as given
  std::vector<std::string> values;
  std::string origin{};  // where it was given, for messages: "--grid 'K=V,...'" or "FILE:LINE: ..."
  Path path{};           // the key's place in the template, once resolved
};

std::string path_text(const Path& path) {
  std::string out;
  for (const Step& s : path) {
    if (!out.empty()) out += '.';
    out += std::holds_alternative<size_t>(s) ? std::to_string(std::get<size_t>(s))
                                             : std::get<std::string>(s);
  }
  return out;
}

// Finds `key` under `node`: its dotted parts are matched against a table's own keys longest
// first (Kafka's settings have dots in their names: `num.standby.replicas`), and an array is
// entered by a decimal index (`test.0.workload.1.clients`).
std::optional<Path> find_path(const toml::node& node, std::string_view key) {
  if (const toml::array* a = node.as_array()) {
    const size_t dot = key.find('.');
    const std::string_view head = key.substr(0, dot);
    auto index = parse_decimal("index", head, 0, a->size() == 0 ? 0 : a->size() - 1);
    if (!index || a->empty() || dot == std::string_view::npos) return std::nullopt;
    auto rest = find_path(*a->get(*index), key.substr(dot + 1));
    if (!rest) return std::nullopt;
    rest->insert(rest->begin(), Step{static_cast<size_t>(*index)});
    return rest;
  }
  const toml::table* t = node.as_table();
  if (t == nullptr) return std::nullopt;
  std::vector<size_t> ends{key.size()};
  for (size_t i = key.size(); i-- > 0;) {
    if (key[i] == '.') ends.push_back(i);
  }
  for (size_t end : ends) {
    const std::string head(key.substr(0, end));
    const toml::node* n = t->get(head);
    if (n == nullptr) continue;
    if (end == key.size()) return Path{Step{head}};
    auto rest = find_path(*n, key.substr(end + 1));
    if (!rest) continue;
    rest->insert(rest->begin(), Step{head});
    return rest;
  }
  return std::nullopt;
}

// "configuration.kafka" -> its path from the root (table keys only).
Path place_path(const std::string& place) {
  Path path;
  for (size_t from = 0; from <= place.size();) {
    const size_t dot = std::min(place.find('.', from), place.size());
    path.push_back(Step{place.substr(from, dot - from)});
    from = dot + 1;
  }
  return path;
}

// The node at `path` under `node`, or nullptr.
toml::node* node_at(toml::node& node, const Path& path, size_t depth = 0) {
  if (depth == path.size()) return &node;
  toml::node* next = nullptr;
  if (const auto* key = std::get_if<std::string>(&path[depth])) {
    if (toml::table* t = node.as_table()) next = t->get(*key);
  } else if (toml::array* a = node.as_array()) {
    next = a->get(std::get<size_t>(path[depth]));
  }
  return next == nullptr ? nullptr : node_at(*next, path, depth + 1);
}

// A grid value as a TOML value: `0` an integer, `true` a boolean, `'x'` or `"x"` a string, `[..]`
// an array; anything else (`at_least_once`) the string itself.
std::unique_ptr<toml::node> value_node(const std::string& text) {
  try {
    toml::table parsed = toml::parse("v = " + text, std::string_view("--grid"));
    if (toml::node* v = parsed.get("v"); v != nullptr && !v->is_table()) {
      return std::unique_ptr<toml::node>(
          v->visit([](auto& n) -> toml::node* { return new std::remove_cvref_t<decltype(n)>(n); }));
    }
  } catch (const toml::parse_error&) {
    // not a TOML value: the text itself, as a string
  }
  return std::make_unique<toml::value<std::string>>(text);
}

// The template's text, parsed once; `[explore]` and the grid keys resolved against it.
struct Template {
  std::string file;
  toml::table root;
  std::string title;
};

// Where a grid key lives: its path from the root (in the file or in one of its alternatives).
base::Expected<Path, std::string> resolve_key(const Template& t, const Axis& axis) {
  const std::string& given = axis.key;
  std::string key;
  for (char c : given) {
    if (c != '"' && c != '\'') key += c;  // `streams_config."num.standby.replicas"` reads too
  }
  std::vector<const toml::table*> places{&t.root};
  if (const toml::array* alts = t.root["alternative"].as_array()) {
    for (const toml::node& a : *alts) {
      if (const toml::table* at = a.as_table()) places.push_back(at);
    }
  }
  for (const toml::table* place : places) {
    if (auto path = find_path(*place, key)) return *path;
  }
  // A bare key: the one section that has it.
  std::vector<Path> found;
  for (const char* section : kSections) {
    for (const toml::table* place : places) {
      const toml::node* s = place->get(section);
      if (s == nullptr) continue;
      if (auto path = find_path(*s, key); path && path->size() == 1) {
        Path full{Step{std::string(section)}, path->front()};
        if (std::find(found.begin(), found.end(), full) == found.end()) found.push_back(full);
      }
    }
  }
  if (found.size() == 1) return found.front();
  if (found.size() > 1) {
    return base::unexpected(fmt::format(
        "{}: the template {} has key '{}' in several sections ({} and {}); accepted: the key "
        "with its section, e.g. {}",
        axis.origin, shown(t.file), shown(given), path_text(found[0]), path_text(found[1]),
        path_text(found[0])));
  }
  std::string keys;
  for (const char* section : kSections) {
    if (const toml::table* s = t.root[section].as_table()) {
      for (auto&& [k, v] : *s)
        keys += fmt::format("{}{}.{}", keys.empty() ? "" : ", ", section, k.str());
    }
  }
  return base::unexpected(
      fmt::format("{}: the template {} has no key '{}'; accepted: a key the template sets (as "
                  "SECTION.KEY, a KEY one section has, or test.N.workload.M.KEY), such as: {}",
                  axis.origin, shown(t.file), shown(key), shown(keys, 600)));
}

// The template with each (path, value) laid over it: the value replaces the key's value or choice
// in the file (its tables created if the key was in alternatives only) and the key is taken out of
// every [[alternative]], so the grid, not the seed, decides it.
std::string configuration_text(const Template& t,
                               const std::vector<std::pair<Path, std::string>>& settings,
                               const std::string& header) {
  toml::table root = t.root;
  root.erase("explore");
  for (const auto& [path, value] : settings) {
    toml::node* at = &root;
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      toml::node* next = node_at(*at, Path{path[i]});
      if (next == nullptr && at->is_table() && std::holds_alternative<std::string>(path[i])) {
        at->as_table()->insert(std::get<std::string>(path[i]), toml::table{});
        next = node_at(*at, Path{path[i]});
      }
      IQ_ASSERT(next != nullptr, "grid path {} not in the template", path_text(path));
      at = next;
    }
    const auto& last = path.back();
    if (toml::table* tt = at->as_table(); tt && std::holds_alternative<std::string>(last)) {
      value_node(value)->visit(
          [&](auto& n) { tt->insert_or_assign(std::get<std::string>(last), n); });
    } else if (toml::array* a = at->as_array(); a && std::holds_alternative<size_t>(last)) {
      value_node(value)->visit(
          [&](auto& n) { a->replace(a->cbegin() + std::get<size_t>(last), n); });
    }
    if (toml::array* alts = root["alternative"].as_array()) {
      for (toml::node& alt : *alts) {
        Path parent(path.begin(), path.end() - 1);
        toml::node* p = node_at(alt, parent);
        if (p != nullptr && p->is_table() && std::holds_alternative<std::string>(last)) {
          p->as_table()->erase(std::get<std::string>(last));
        }
      }
    }
  }
  std::ostringstream out;
  out << header << toml::toml_formatter(root) << "\n";
  return out.str();
}

// ---- the grid ----

// `KEY=V1,V2,...`: values split at commas outside brackets and quotes, so an array or a quoted
// string with a comma stays whole. Refused, naming the flag: no key or no value, an empty value,
// an unclosed bracket or quote, a value given twice.
base::Expected<Axis, std::string> parse_axis(const std::string& spec) {
  const std::string origin = "--grid '" + shown(spec) + "'";
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    return base::unexpected(origin + ": expected KEY=V1,V2,... (e.g. num.standby.replicas=0,1,2)");
  }
  Axis axis{spec.substr(0, eq), {}, origin};
  int depth = 0;
  char quote = 0;
  std::string value;
  for (char c : spec.substr(eq + 1) + ",") {
    if (quote != 0) {
      quote = c == quote ? 0 : quote;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth < 0) return base::unexpected(origin + ": a '" + c + "' that closes nothing");
    } else if (c == ',' && depth == 0) {
      if (value.empty()) return base::unexpected(origin + ": an empty value");
      if (std::find(axis.values.begin(), axis.values.end(), value) != axis.values.end()) {
        return base::unexpected(origin + ": the value " + shown(value) + " twice");
      }
      axis.values.push_back(value);
      value.clear();
      continue;
    }
    value += c;
  }
  if (quote != 0 || depth != 0) {
    return base::unexpected(origin + ": an unclosed " + (quote != 0 ? "quote" : "bracket") +
                            "; accepted: KEY=V1,V2 with each [ ] { } and quote closed");
  }
  return axis;
}

// The template's own grid: `[explore] grid = { KEY = [V1, V2] }` (the parser checked its shape),
// its axes in the order the file writes them (toml++ iterates a table by key name).
std::vector<Axis> template_grid(const Template& t) {
  std::vector<Axis> grid;
  const toml::table* g = t.root["explore"]["grid"].as_table();
  if (g == nullptr) return grid;
  std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order;
  for (auto&& [k, v] : *g) in_file_order.push_back({&k, &v});
  std::sort(in_file_order.begin(), in_file_order.end(), [](const auto& a, const auto& b) {
    const toml::source_position pa = a.first->source().begin, pb = b.first->source().begin;
    return std::tie(pa.line, pa.column) < std::tie(pb.line, pb.column);
  });
  for (const auto& [key_at, node_at_key] : in_file_order) {
    const toml::key& k = *key_at;
    const toml::node& v = *node_at_key;
    Axis axis{std::string(k.str()),
              {},
              fmt::format("{}:{}: [explore] grid key '{}'", shown(t.file), k.source().begin.line,
                          shown(k.str()))};
    for (const toml::node& value : *v.as_array()) {
      if (const auto* text = value.as_string()) {  // read back as a string: no quotes needed
        axis.values.push_back(text->get());
        continue;
      }
      std::ostringstream text;
      value.visit([&](const auto& n) { text << toml::toml_formatter(n); });
      axis.values.push_back(text.str());
    }
    grid.push_back(std::move(axis));
  }
  return grid;
}

// The grid of an exploration: the --grid flags, or the template's own [explore] grid when none is
// given, each key resolved against the template. Two axes that set one key (`num.standby.replicas`
// and `streams_config.num.standby.replicas`) are refused: the second would silently win.
base::Expected<std::vector<Axis>, std::string> read_grid(const Template& t,
                                                         const std::vector<std::string>& flags) {
  std::vector<Axis> grid;
  for (const std::string& spec : flags) {
    auto axis = parse_axis(spec);
    if (!axis) return base::unexpected(axis.error());
    grid.push_back(std::move(*axis));
  }
  if (grid.empty()) grid = template_grid(t);
  if (grid.empty()) {
    return base::unexpected(
        "no grid: accepted: --grid KEY=V1,V2,... (once per key) or an [explore] section in the "
        "template (grid = { KEY = [V1, V2] })");
  }
  for (size_t i = 0; i < grid.size(); ++i) {
    auto path = resolve_key(t, grid[i]);
    if (!path) return base::unexpected(path.error());
    grid[i].path = *path;
    for (size_t j = 0; j < i; ++j) {
      if (grid[j].path != grid[i].path) continue;
      return base::unexpected(
          fmt::format("{}: sets the template's {} as {} does; accepted: each key on one axis",
                      grid[i].origin, path_text(grid[i].path), grid[j].origin));
    }
  }
  return grid;
}

struct Configuration {
  std::string name;  // "num.standby.replicas=0, processing.guarantee=at_least_once"
  std::vector<std::pair<std::string, std::string>> settings;  // axis key -> value text
  std::string file;
};

std::string grid_text(const std::vector<Axis>& grid) {
  std::string out;
  for (const Axis& a : grid) {
    out += (out.empty() ? "" : "; ") + a.key + "=";
    for (size_t i = 0; i < a.values.size(); ++i) out += (i ? "," : "") + a.values[i];
  }
  return out;
}

// Every point of the grid (the first axis slowest), each written as a template of its own and
// parsed once with the first seed: a value the template's key does not take is refused here,
// naming the key and the value.
base::Expected<std::vector<Configuration>, std::string> build_configurations(
    const Template& t, const std::vector<Axis>& grid, const std::string& dir, uint64_t seed,
    const std::vector<std::pair<Path, std::string>>& also = {},
    const std::string& command = "explore") {
  size_t count = 1;
  for (const Axis& a : grid) {
    count *= a.values.size();
    if (count > kConfigurationsMax) {
      return base::unexpected(
          fmt::format("--grid: more than {} configurations; accepted: a grid "
                      "whose values multiply to at most {}",
                      kConfigurationsMax, kConfigurationsMax));
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return base::unexpected("--configs " + shown(dir) + ": cannot create: " + ec.message());
  const std::string stem = std::filesystem::path(t.file).stem().string();
  std::vector<Configuration> out;
  for (size_t k = 0; k < count; ++k) {
    Configuration c;
    std::vector<std::pair<Path, std::string>> settings = also;
    size_t rest = k;
    for (size_t a = grid.size(); a-- > 0;) {
      const std::string& v = grid[a].values[rest % grid[a].values.size()];
      rest /= grid[a].values.size();
      settings.insert(settings.begin() + static_cast<std::ptrdiff_t>(also.size()),
                      {grid[a].path, v});
      c.settings.insert(c.settings.begin(), {grid[a].key, v});
    }
    for (const auto& [key, v] : c.settings) c.name += (c.name.empty() ? "" : ", ") + key + "=" + v;
    c.file = (std::filesystem::path(dir) / fmt::format("{}-{}.toml", stem, k + 1)).string();
    const std::string header = fmt::format(
        "# Configuration {} of `iqsim {} {}`: {}.\n# The template with these values laid over "
        "it; each seed reproduces with `iqsim replay {} --seed S`.\n",
        k + 1, command, t.file, c.name, c.file);
    const std::string text = configuration_text(t, settings, header);
    if (auto parsed = sim::parse_scenario_text(text, c.file, seed); !parsed) {
      return base::unexpected(fmt::format("{} {}: the template does not take it: {}",
                                          command == "explore" ? "--grid" : "iqsim " + command,
                                          shown(c.name), parsed.error().to_string()));
    }
    if (!write_output_file(c.file, text, "--configs")) {
      return base::unexpected("--configs " + shown(dir) + ": cannot write " + shown(c.file));
    }
    out.push_back(std::move(c));
  }
  return out;
}

// ---- results ----

// One configuration's seeds, as a fuzz summary of the template (so shards merge with
// merge_summaries), and what each seed cost.
struct ConfigurationResults {
  SweepSummary summary;
  std::map<uint64_t, double> cpu_ms_by_seed;
};

struct Exploration {
  std::string scenario, title;
  uint64_t first_seed = 0, seed_count = 0;
  std::vector<std::string> shards;
  std::vector<Axis> grid;
  std::vector<Configuration> configurations;
  std::vector<ConfigurationResults> results;  // one per configuration
};

json exploration_json(const Exploration& e) {
  json grid = json::array();
  for (const Axis& a : e.grid) grid.push_back({{"key", a.key}, {"values", a.values}});
  json configurations = json::array();
  for (size_t k = 0; k < e.configurations.size(); ++k) {
    const Configuration& c = e.configurations[k];
    json settings = json::object();
    for (const auto& [key, v] : c.settings) settings[key] = v;
    json cpu = json::object();
    for (const auto& [seed, ms] : e.results[k].cpu_ms_by_seed) cpu[std::to_string(seed)] = ms;
    configurations.push_back({{"name", c.name},
                              {"settings", settings},
                              {"file", c.file},
                              {"summary", to_json(e.results[k].summary)},
                              {"cpu_ms_by_seed", cpu}});
  }
  return {{"tool", {{"name", kToolName}, {"version", kToolVersion}}},
          {"command", "explore"},
          {"scenario", e.scenario},
          {"title", e.title},
          {"seeds", {{"first", e.first_seed}, {"count", e.seed_count}}},
          {"shards", e.shards},
          {"grid", grid},
          {"configurations", configurations}};
}

base::Expected<Exploration, std::string> exploration_from_json(const json& j,
                                                               const std::string& source) {
  try {
    Exploration e;
    e.scenario = j.at("scenario").get<std::string>();
    e.title = j.at("title").get<std::string>();
    e.first_seed = j.at("seeds").at("first").get<uint64_t>();
    e.seed_count = j.at("seeds").at("count").get<uint64_t>();
    e.shards = j.at("shards").get<std::vector<std::string>>();
    for (const json& a : j.at("grid")) {
      e.grid.push_back(
          {a.at("key").get<std::string>(), a.at("values").get<std::vector<std::string>>()});
    }
    for (const json& c : j.at("configurations")) {
      Configuration conf{c.at("name").get<std::string>(), {}, c.at("file").get<std::string>()};
      for (const auto& [key, v] : c.at("settings").items())
        conf.settings.push_back({key, v.get<std::string>()});
      auto summary = summary_from_json(c.at("summary"), source + ": configuration " + conf.name);
      if (!summary) return base::unexpected(summary.error());
      ConfigurationResults r{std::move(*summary), {}};
      for (const auto& [seed, ms] : c.at("cpu_ms_by_seed").items()) {
        r.cpu_ms_by_seed[std::stoull(seed)] = ms.get<double>();
      }
      e.configurations.push_back(std::move(conf));
      e.results.push_back(std::move(r));
    }
    return e;
  } catch (const std::exception& ex) {
    return base::unexpected(shown(source) + ": not an iqsim explore summary (" + shown(ex.what()) +
                            ")");
  }
}

reports::ExploreInput report_input(const Exploration& e) {
  reports::ExploreInput in{e.scenario, e.title, e.first_seed, e.seed_count, e.shards, {}, {}};
  for (const Axis& a : e.grid) in.grid_keys.push_back(a.key);
  for (size_t k = 0; k < e.configurations.size(); ++k) {
    const SweepSummary& s = e.results[k].summary;
    reports::ExploreConfiguration c;
    c.name = e.configurations[k].name;
    c.settings = e.configurations[k].settings;
    c.file = e.configurations[k].file;
    c.seeds = s.runs();
    c.failed = s.failed();
    for (const SeedResult& r : s.results) {
      for (const auto& [o, n] : r.query_outcomes) c.outcomes[o] += n;
      if (!r.passed && c.failing.size() < kFailingListedMax) c.failing.push_back(r.reproduce);
    }
    properties::AnswerStaleness all;
    for (const auto& [guarantee, by_role] : s.staleness_by_guarantee())
      properties::merge(all, by_role);
    for (const char* role : {"active", "restoring", "standby", "warmup"}) {
      auto it = all.find(role);
      if (it == all.end() || it->second.records.count() == 0) continue;
      const auto& rec = it->second.records;
      const auto& ms = it->second.virtual_ms;
      c.staleness.push_back({role, rec.count(), rec.quantile(0.5), rec.quantile(0.9), rec.max(),
                             ms.quantile(0.5), ms.quantile(0.9), ms.max()});
    }
    for (const auto& [cls, n] : s.seeds_by_class()) {
      if (cls != "failure" && n > 0) c.behaviours[cls] = n;
    }
    const auto& cpu = e.results[k].cpu_ms_by_seed;
    if (!cpu.empty()) {
      double sum = 0;
      for (const auto& [seed, ms] : cpu) sum += ms;
      c.cpu_ms_per_seed = sum / static_cast<double>(cpu.size());
    }
    in.configurations.push_back(std::move(c));
  }
  return in;
}

// The text table: the configurations numbered, then every measure with one column each, a `*`
// on the measures that differ between configurations.
void print_exploration(const Exploration& e) {
  const reports::ExploreInput in = report_input(e);
  std::printf("iqsim explore %s ('%s'): %zu configurations, seeds %llu..%llu each, shards %s\n",
              e.scenario.c_str(), e.title.c_str(), e.configurations.size(),
              static_cast<unsigned long long>(e.first_seed),
              static_cast<unsigned long long>(e.first_seed + e.seed_count - 1),
              [&] {
                std::string out;
                for (const std::string& sh : e.shards) out += (out.empty() ? "" : ", ") + sh;
                return out;
              }()
                  .c_str());
  for (size_t k = 0; k < in.configurations.size(); ++k) {
    std::printf("  [%zu] %s  (%s)\n", k + 1, in.configurations[k].name.c_str(),
                in.configurations[k].file.c_str());
  }
  std::string head = fmt::format("  {:<50}", "measure");
  for (size_t k = 0; k < in.configurations.size(); ++k)
    head += fmt::format(" {:>9}", fmt::format("[{}]", k + 1));
  std::printf("%s\n", head.c_str());
  for (const reports::ExploreMetric& m : reports::explore_metrics(in)) {
    std::string line = fmt::format("{} {:<50}", m.differs() ? '*' : ' ', m.name.substr(0, 50));
    for (const auto& v : m.values) {
      line += v ? fmt::format(" {:>9}", fmt::format("{:g}", *v)) : fmt::format(" {:>9}", "-");
    }
    std::printf("%s\n", line.c_str());
  }
  std::printf("  (* differs between configurations; staleness in source records and virtual ms)\n");
  uint64_t failed = 0;
  for (const auto& c : in.configurations) {
    failed += c.failed;
    for (const std::string& r : c.failing) std::printf("  failing: %s\n", r.c_str());
  }
  std::printf(failed == 0 ? "PASSED: no configuration had a failing seed\n"
                          : "FAILED: %llu seeds with failures (listed above)\n",
              static_cast<unsigned long long>(failed));
}

bool write_outputs(const Exploration& e, const std::string& json_out,
                   const std::string& report_dir) {
  bool ok = true;
  if (!json_out.empty()) {
    ok = write_output_file(json_out, exploration_json(e).dump(2) + "\n", "--json") && ok;
  }
  if (!report_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(report_dir, ec);  // merge's --report may not exist yet
    const std::string index = (std::filesystem::path(report_dir) / "index.html").string();
    ok =
        write_output_file(index, reports::render_explore_report(report_input(e)), "--report") && ok;
    if (ok) std::printf("report: %s\n", index.c_str());
  }
  return ok;
}

uint64_t failed_seeds(const Exploration& e) {
  uint64_t n = 0;
  for (const ConfigurationResults& r : e.results) n += r.summary.failed();
  return n;
}

// ---- running ----

// The template from its text: valid as a scenario (so its [explore] section has its shape), and
// its TOML tree, which the grid is laid over.
base::Expected<Template, std::string> template_from_text(const std::string& file,
                                                         const std::string& text, uint64_t seed) {
  auto scenario = sim::parse_scenario_text(text, file, seed);
  if (!scenario) return base::unexpected(scenario.error().to_string());
  Template t{file, {}, scenario->title};
  try {
    t.root = toml::parse(text, std::string_view(file));
  } catch (const toml::parse_error& e) {
    return base::unexpected(shown(file) + ": not TOML: " + std::string(e.description()));
  }
  return t;
}

base::Expected<Template, std::string> read_template(const std::string& file, uint64_t seed) {
  auto scenario = sim::parse_scenario_file(file, seed);  // names an unreadable file as run does
  if (!scenario) return base::unexpected(scenario.error().to_string());
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return template_from_text(file, text.str(), seed);
}

// One seed of one configuration in a child process; its CPU time goes to `cpu_ms`.
base::Expected<SeedResult, std::string> run_in_child(const std::string& self,
                                                     const std::string& file, uint64_t seed,
                                                     double* cpu_ms) {
  auto child = run_child({self, "run-seed", file, "--seed", std::to_string(seed), "--parent-pid",
                          std::to_string(getpid())});
  if (!child) return base::unexpected(child.error());
  *cpu_ms = child->cpu_ms;
  if (child->exited && child->exit_code == kExitPassed) {
    auto j = json::parse(child->out, nullptr, /*allow_exceptions=*/false);
    auto summary = summary_from_json(j, "iqsim run-seed");
    if (summary && summary->results.size() == 1) return summary->results.front();
    return base::unexpected(
        fmt::format("{} seed {}: unreadable result from iqsim run-seed", file, seed));
  }
  if (child->exited && child->exit_code == kExitBadInput) {
    return base::unexpected(fmt::format("{} seed {}: {}", file, seed, child->err_tail));
  }
  SeedResult r;  // the run never finished: the seed fails, as under fuzz
  r.seed = seed;
  r.violations.push_back(
      {"RunCompletes", 0, 0, "the run did not finish (" + child->describe() + ")"});
  r.violations_by_property["RunCompletes"] = 1;
  r.reproduce = "iqsim replay " + file + " --seed " + std::to_string(seed);
  return r;
}

// An exploration of `t` with no seed run yet: an empty fuzz summary per configuration.
Exploration new_exploration(const Template& t, std::vector<Axis> grid,
                            std::vector<Configuration> configurations, uint64_t first_seed,
                            uint64_t seed_count, const std::string& shard) {
  Exploration e{
      t.file, t.title, first_seed, seed_count, {shard}, std::move(grid), std::move(configurations),
      {}};
  for (const Configuration& c : e.configurations) {
    SweepSummary s;
    s.command = "explore";
    s.scenario = t.file;
    s.title = c.name;
    s.first_seed = first_seed;
    s.seed_count = seed_count;
    s.shards = e.shards;
    e.results.push_back({std::move(s), {}});
  }
  return e;
}

// Runs every (configuration, seed) not in `done` on `job_count` threads, each seed in a child
// process; each result goes to its configuration in `e` (seeds ascending) with its CPU time, and
// to `journal` when there is one. The error of a seed that could not be run, if any.
std::optional<std::string> run_jobs(const std::string& self, Exploration& e,
                                    const std::vector<uint64_t>& seeds,
                                    const std::set<std::pair<size_t, uint64_t>>& done,
                                    int32_t job_count, Journal* journal) {
  std::vector<std::pair<size_t, uint64_t>> jobs;  // numbered; the sweep hands the numbers out
  for (size_t k = 0; k < e.configurations.size(); ++k) {
    for (uint64_t seed : seeds) {
      if (done.count({k, seed}) == 0) jobs.push_back({k, seed});
    }
  }
  std::vector<uint64_t> numbers(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) numbers[i] = i;
  std::mutex mu;
  std::map<uint64_t, double> cpu_ms_by_job;
  Progress progress(stderr, isatty(fileno(stderr)) != 0, jobs.size());
  SweepOutcome outcome = run_sweep(
      numbers, {.jobs = job_count},
      [&](uint64_t n) -> base::Expected<SeedResult, std::string> {
        const auto [k, seed] = jobs[n];
        double cpu_ms = 0;
        auto result = run_in_child(self, e.configurations[k].file, seed, &cpu_ms);
        if (!result) return result;
        std::lock_guard<std::mutex> lock(mu);
        cpu_ms_by_job[n] = cpu_ms;
        if (journal != nullptr) {
          json line = seed_result_to_json(*result);
          line["configuration"] = k;
          line["cpu_ms"] = cpu_ms;
          if (auto failed = journal->append_json(line)) return base::unexpected(*failed);
        }
        return result;
      },
      &progress);
  if (!outcome.error.empty()) return outcome.error;
  // Results come back in job order: configuration by configuration, seeds ascending.
  for (size_t i = 0; i < outcome.results.size(); ++i) {
    const auto [k, seed] = jobs[i];
    e.results[k].cpu_ms_by_seed[seed] = cpu_ms_by_job[i];
    e.results[k].summary.results.push_back(std::move(outcome.results[i]));
  }
  for (ConfigurationResults& r : e.results) {
    std::sort(r.summary.results.begin(), r.summary.results.end(),
              [](const SeedResult& a, const SeedResult& b) { return a.seed < b.seed; });
  }
  return std::nullopt;
}

}  // namespace

base::Expected<std::vector<std::string>, std::string> resolve_grid(
    const std::string& file, const std::string& template_text,
    const std::vector<std::string>& flags) {
  auto t = template_from_text(file, template_text, 1);
  if (!t) return base::unexpected(t.error());
  auto grid = read_grid(*t, flags);
  if (!grid) return base::unexpected(grid.error());
  std::vector<std::string> out;
  for (const Axis& a : *grid) {
    std::string line = path_text(a.path) + "=";
    for (size_t i = 0; i < a.values.size(); ++i) line += (i ? "," : "") + a.values[i];
    out.push_back(std::move(line));
  }
  return out;
}

base::Expected<FixedExploration, std::string> explore_fixed(const FixedGridArgs& args) {
  IQ_ASSERT(!args.seeds.empty() && !args.values.empty());
  auto t = read_template(args.file, args.seeds.front());
  if (!t) return base::unexpected(t.error());
  Axis axis{args.place, args.values, args.origin, place_path(args.place)};
  std::vector<std::pair<Path, std::string>> also;
  for (const auto& [place, value] : args.also_set) also.push_back({place_path(place), value});
  auto configurations =
      build_configurations(*t, {axis}, args.configs_dir, args.seeds.front(), also, args.command);
  if (!configurations) return base::unexpected(configurations.error());
  auto self = self_executable();
  if (!self) return base::unexpected(self.error());
  Exploration e = new_exploration(*t, {axis}, std::move(*configurations), args.first_seed,
                                  args.seed_count, "0/1");
  if (auto failed = run_jobs(*self, e, args.seeds, {}, args.jobs, nullptr)) {
    return base::unexpected(*failed);
  }
  FixedExploration out{t->title, report_input(e), {}};
  for (size_t k = 0; k < e.configurations.size(); ++k) {
    out.configurations.push_back({e.configurations[k].name, e.configurations[k].file,
                                  std::move(e.results[k].summary),
                                  std::move(e.results[k].cpu_ms_by_seed)});
  }
  return out;
}

bool is_explore_summary(const json& j) {
  return j.is_object() && j.value("command", "") == "explore";
}

int explore_command(const ExploreArgs& args) {
  auto shard = parse_shard(args.shard);
  if (!shard) {
    print_error(shard.error());
    return kExitBadInput;
  }
  const std::string configs_dir =
      !args.configs_dir.empty() ? args.configs_dir
                                : std::filesystem::path(args.file).stem().string() + "-explore";
  const std::string journal_path = !args.journal.empty()    ? args.journal
                                   : !args.json_out.empty() ? args.json_out + ".journal"
                                                            : "";
  std::vector<OutputPath> outputs{{"--json", args.json_out, OutputKind::kFile},
                                  {"--journal", journal_path, OutputKind::kFile},
                                  {"--report", args.report_dir, OutputKind::kDirectory},
                                  {"--configs", configs_dir, OutputKind::kDirectory}};
  if (auto refused = check_outputs(outputs, {args.file})) {
    print_error(*refused);
    return kExitBadInput;
  }
  if (args.resume && journal_path.empty()) {
    print_error(
        "--resume: no journal to resume from; accepted: --resume with --journal FILE or "
        "--json OUT (whose journal is OUT.journal), as the interrupted run was started");
    return kExitBadInput;
  }
  const std::vector<uint64_t> seeds = shard_seeds(args.first_seed, args.seeds, *shard);
  auto t = read_template(args.file, seeds.empty() ? args.first_seed : seeds.front());
  if (!t) {
    print_error(t.error());
    return kExitBadInput;
  }
  auto read = read_grid(*t, args.grid);
  if (!read) {
    print_error(read.error());
    return kExitBadInput;
  }
  const std::vector<Axis>& grid = *read;
  if (auto refused = check_writable({{"--json", args.json_out, OutputKind::kFile},
                                     {"--report", args.report_dir, OutputKind::kDirectory}})) {
    print_error(*refused);
    return kExitBadInput;
  }
  auto configurations =
      build_configurations(*t, grid, configs_dir, seeds.empty() ? 1 : seeds.front());
  if (!configurations) {
    print_error(configurations.error());
    return kExitBadInput;
  }
  auto self = self_executable();
  auto digest = scenario_file_digest(args.file);
  if (!self || !digest) {
    print_error(!self ? self.error() : digest.error());
    return kExitBadInput;
  }

  Exploration e = new_exploration(*t, grid, std::move(*configurations), args.first_seed, args.seeds,
                                  shard->to_string());

  // The journal: a header naming the template, seeds, shard and grid, then a line per finished
  // (configuration, seed) with its CPU time.
  std::unique_ptr<Journal> journal;
  std::set<std::pair<size_t, uint64_t>> done;
  if (!journal_path.empty()) {
    JournalHeader header{kToolVersion, args.file,          *digest, args.first_seed,
                         args.seeds,   shard->to_string(), false,   configs_dir,
                         "explore",    grid_text(grid)};
    if (args.resume) {
      auto resumed = Journal::resume(journal_path, header);
      if (!resumed) {
        print_error(resumed.error());
        return kExitBadInput;
      }
      for (size_t i = 0; i < resumed->results.size(); ++i) {
        const json& line = resumed->lines[i];
        const size_t k = line.value("configuration", size_t{0});
        if (k >= e.results.size()) {
          print_error("--journal " + shown(journal_path) + ": a configuration this grid lacks");
          return kExitBadInput;
        }
        done.insert({k, resumed->results[i].seed});
        e.results[k].cpu_ms_by_seed[resumed->results[i].seed] = line.value("cpu_ms", 0.0);
        e.results[k].summary.results.push_back(std::move(resumed->results[i]));
      }
      journal = std::move(resumed->journal);
      std::fprintf(stderr, "iqsim: resuming from %s: %zu seeds done\n", shown(journal_path).c_str(),
                   done.size());
    } else {
      auto created = Journal::create(journal_path, header);
      if (!created) {
        print_error(created.error());
        return kExitBadInput;
      }
      journal = std::move(*created);
    }
  }

  if (auto failed = run_jobs(*self, e, seeds, done, args.jobs, journal.get())) {
    print_error(*failed);
    return kExitBadInput;
  }
  print_exploration(e);
  if (!write_outputs(e, args.json_out, args.report_dir)) return kExitBadInput;
  if (journal) {
    const std::string path = journal->path();
    journal.reset();
    std::remove(path.c_str());
  }
  return failed_seeds(e) == 0 ? kExitPassed : kExitFailed;
}

int explore_merge_command(const std::string& out, const std::vector<std::string>& inputs,
                          bool allow_gaps, const std::string& report_dir) {
  std::vector<Exploration> parts;
  for (const std::string& input : inputs) {
    // Reading a directory throws from the stream itself, whatever the parser allows.
    std::error_code ec;
    const bool regular = std::filesystem::is_regular_file(input, ec);
    std::ifstream in(input, std::ios::binary);
    auto j = regular ? json::parse(in, nullptr, /*allow_exceptions=*/false) : json();
    if (!regular || !is_explore_summary(j)) {
      print_error(shown(input) +
                  ": not an iqsim explore summary; accepted: the --json of iqsim "
                  "explore shards of one grid");
      return kExitBadInput;
    }
    auto e = exploration_from_json(j, input);
    if (!e) {
      print_error(e.error());
      return kExitBadInput;
    }
    if (!parts.empty() && (grid_text(e->grid) != grid_text(parts.front().grid) ||
                           e->configurations.size() != parts.front().configurations.size())) {
      print_error(shown(input) + ": explores another grid (" + shown(grid_text(e->grid)) +
                  ") than " + shown(inputs.front()) + "; accepted: shards of one exploration");
      return kExitBadInput;
    }
    parts.push_back(std::move(*e));
  }
  Exploration merged = parts.front();
  merged.shards.clear();
  for (size_t k = 0; k < merged.configurations.size(); ++k) {
    std::vector<SweepSummary> summaries;
    std::vector<std::string> sources;
    merged.results[k].cpu_ms_by_seed.clear();
    for (size_t p = 0; p < parts.size(); ++p) {
      summaries.push_back(parts[p].results[k].summary);
      sources.push_back(inputs[p] + " (configuration " + std::to_string(k + 1) + ")");
      for (const auto& [seed, ms] : parts[p].results[k].cpu_ms_by_seed) {
        merged.results[k].cpu_ms_by_seed[seed] = ms;
      }
    }
    auto m = merge_summaries(summaries, sources, allow_gaps);
    if (!m) {
      print_error(m.error());
      return kExitBadInput;
    }
    m->command = "explore";
    merged.results[k].summary = std::move(*m);
  }
  merged.shards = merged.results.front().summary.shards;
  merged.first_seed = merged.results.front().summary.first_seed;
  merged.seed_count = merged.results.front().summary.seed_count;
  print_exploration(merged);
  if (!write_outputs(merged, out, report_dir)) return kExitBadInput;
  return failed_seeds(merged) == 0 ? kExitPassed : kExitFailed;
}

}  // namespace iq::cli
