#include "scenario/scenario_parser.h"

#include <fmt/format.h>

#include <sys/stat.h>
#include <toml++/toml.h>
#include <algorithm>
#include <charconv>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "base/probe.h"
#include "scenario/scenario_names.h"
#include "scenario_parser_reader.h"

namespace iq::sim {

namespace {

// A value a message echoes from the file (a key, a name, a string) is cut to a readable prefix:
// a 3 MB key once gave a 3 MB error line. Whole up to kShownBytesMax bytes, else that many bytes
// cut at a UTF-8 character boundary and the value's size.
constexpr size_t kShownBytesMax = 200;
constexpr size_t kMessageBytesMax = 2'000;  // a whole message, after its values are cut

std::string shown(std::string_view value, size_t bytes_max = kShownBytesMax) {
  if (value.size() <= bytes_max) return std::string(value);
  size_t cut = bytes_max;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}\u2026 ({} bytes)", value.substr(0, cut), value.size());
}

// Messages quote what the file said between single quotes: each quoted stretch goes through
// shown(), then the whole message.
std::string cut_quoted(std::string_view message) {
  std::string out;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i <= message.size(); ++i) {
    if (i < message.size() && message[i] != '\'') continue;
    const std::string_view part = message.substr(start, i - start);
    out += quoted ? shown(part) : std::string(part);
    if (i < message.size()) out += '\'';
    quoted = !quoted;
    start = i + 1;
  }
  return shown(out, kMessageBytesMax);
}

}  // namespace

std::string ScenarioError::to_string() const {
  std::string out = shown(file, 1'000);
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  out += ": ";
  if (!key.empty()) out += "key '" + shown(key) + "': ";
  return out + cut_quoted(message);
}

}  // namespace iq::sim

namespace iq::sim::parsing {

Scenario ScenarioParser::parse(const toml::table& root) {
  Table top(r_, root, KeyPath());
  top.allow({"title", "description", "tags", "seed", "expected_failures", "allowed_behaviours",
             "expect_probes", "configuration", "streams_config", "broker", "topology", "knobs",
             "test", "liveness", "explore"});
  top.find("seed");  // read (and validated) before the parser was built
  // `iqsim explore`'s grid: its shape is checked here, so that `run` and `fuzz` refuse a bad one
  // at its line as well; the explorer reads it and resolves its keys (cli/explore.cc).
  if (const toml::node* explore = top.find("explore")) check_explore(*explore, top.path("explore"));
  s_.title = top.string("title", "");
  s_.description = top.string("description", "");
  s_.tags = top.name_list("tags", {}, {}, "tag");
  s_.expected_failures =
      top.name_list("expected_failures", {}, names::kPropertyNames, "property name");
  s_.allowed_behaviours =
      top.name_list("allowed_behaviours", {}, behaviour_names::kAll, "Kafka behaviour");
  std::vector<std::string_view> probes;
  for (const base::ProbeInfo& p : base::ProbeRegistry::all()) probes.push_back(p.name);
  s_.expect_probes = top.name_list("expect_probes", {}, probes, "probe");
  parse_configuration(top.subtable("configuration"));
  parse_streams_config(top.subtable("streams_config"));
  parse_broker(top.subtable("broker"));
  parse_topology(top.subtable("topology"));
  parse_knobs(top.subtable("knobs"));
  const toml::array* tests = top.tables("test", kTestsMax);
  if (tests == nullptr || tests->empty()) {
    r_.fail(root.source(), KeyPath().key("test"), "a scenario needs at least one [[test]]");
  }
  for (size_t i = 0; i < tests->size(); ++i) {
    s_.tests.push_back(parse_test(*tests->get(i)->as_table(), top.path("test").index(i)));
  }
  parse_liveness(top.subtable("liveness"));
  top.finish();
  check_instances();
  return std::move(s_);
}

void ScenarioParser::check_explore(const toml::node& explore, const KeyPath& path) const {
  const toml::table* t = explore.as_table();
  if (t == nullptr)
    r_.fail(explore, path, fmt::format("expected a table, got {}", type_name(explore)));
  for (auto&& [k, v] : *t) {
    if (k.str() != "grid") {
      r_.fail(k.source(), path.key(k.str()), "unknown key (known here: grid)");
    }
  }
  const toml::node* grid = t->get("grid");
  if (grid == nullptr) r_.fail(explore, path.key("grid"), "missing (this key is required here)");
  const toml::table* g = grid->as_table();
  if (g == nullptr || g->empty()) {
    r_.fail(
        *grid, path.key("grid"),
        "expected a table of KEY = [VALUE, ...], e.g. grid = { 'num.standby.replicas' = [0, 1] }");
  }
  for (auto&& [k, v] : *g) {
    const toml::array* values = v.as_array();
    if (values == nullptr || values->empty()) {
      r_.fail(v, path.key("grid").key(k.str()), "expected a non-empty array of values");
    }
  }
}

int32_t ScenarioParser::reference_instance(const IntValue& v) {
  instance_references_.push_back(v);
  return v.as_int32();
}

void ScenarioParser::check_instances() const {
  const int64_t limit = instances_.lo + instances_added_;
  for (const IntValue& v : instance_references_) {
    if (v.hi > limit) {
      r_.fail(v.at, v.path,
              fmt::format("instance {} does not exist: instances is {}{}", v.hi, instances_.lo,
                          instances_added_ > 0
                              ? fmt::format(" plus {} added by add_instance", instances_added_)
                              : std::string()));
    }
  }
}

void ScenarioParser::require_instances_at_most_max(const toml::source_region& at,
                                                   const KeyPath& path) const {
  if (instances_.hi + instances_added_ > kInstancesMax) {
    r_.fail(at, path,
            fmt::format("`instances` ({}) plus {} add_instance would be more than {} instances",
                        instances_.hi, instances_added_, kInstancesMax));
  }
}

// The seed the choices are drawn with: the caller's, else the file's `seed`, else 1. A seed above
// 2^63 - 1 does not fit a TOML integer, so it may be written as a decimal string.
uint64_t scenario_seed(const Reader& reader, const toml::table& root,
                       std::optional<uint64_t> seed) {
  const toml::node* n = root.get("seed");
  uint64_t file_seed = 1;
  const KeyPath path = KeyPath().key("seed");
  if (n != nullptr && n->is_integer()) {
    file_seed = static_cast<uint64_t>(reader.plain_int(*n, path, {0, kInt64Max}));
  } else if (n != nullptr) {
    const std::string text = reader.plain_string(*n, path);
    const auto parsed = std::from_chars(text.data(), text.data() + text.size(), file_seed);
    if (text.empty() || parsed.ec != std::errc() || parsed.ptr != text.data() + text.size()) {
      reader.fail(*n, path, fmt::format("expected a seed (0 to 2^64 - 1), got '{}'", text));
    }
  }
  return seed.value_or(file_seed);
}

// Refuses text whose keys have more than kKeyPartsMax parts or whose `[`/`{` nest deeper than
// kNestingMax, at the offending character. A lexer just good enough to skip strings and comments;
// everything else is left to toml++. A dot outside strings separates key parts; a value between
// two separators has at most one (a float or a time's fraction), so counting the dots of each
// stretch between `=`, `,`, brackets and newlines counts a key's parts without knowing keys from
// values.
std::optional<ScenarioError> prescan(std::string_view text, const std::string& file) {
  int32_t line = 1;
  int32_t column = 1;
  int32_t depth = 0;
  int32_t dots = 0;
  size_t i = 0;
  const auto advance = [&](size_t n) {
    for (size_t k = 0; k < n && i < text.size(); ++k, ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c == '\n') {
        ++line;
        column = 1;
      } else if ((c & 0xC0) != 0x80) {
        ++column;  // columns count code points, as toml++'s do
      }
    }
  };
  const auto at = [&](std::string_view what) { return text.substr(i, what.size()) == what; };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') advance(1);
    } else if (at("\"\"\"") || at("'''")) {
      const std::string_view close = text.substr(i, 3);
      const bool basic = c == '"';
      advance(3);
      while (i < text.size() && !at(close)) advance(basic && text[i] == '\\' ? 2 : 1);
      advance(3);
    } else if (c == '"' || c == '\'') {
      advance(1);
      while (i < text.size() && text[i] != c && text[i] != '\n') {
        advance(c == '"' && text[i] == '\\' ? 2 : 1);
      }
      if (i < text.size() && text[i] == c) advance(1);
    } else if (c == '.') {
      if (++dots >= kKeyPartsMax) {
        return ScenarioError{
            file, line, column, "",
            fmt::format("a dotted key or table header with more than {} parts", kKeyPartsMax)};
      }
      advance(1);
    } else if (c == '[' || c == '{') {
      if (++depth > kNestingMax) {
        return ScenarioError{
            file, line, column, "",
            fmt::format("arrays and tables nested more than {} deep", kNestingMax)};
      }
      dots = 0;
      advance(1);
    } else {
      if (c == ']' || c == '}') depth = std::max(0, depth - 1);
      if (c == '=' || c == ',' || c == ']' || c == '}' || c == '\n') dots = 0;
      advance(1);
    }
  }
  return std::nullopt;
}

// How many `[[alternative]]` tables the file has (0 without any), their shape checked: an array
// of at most kAlternativesMax tables, none of which sets `seed` (the draw depends on it) or holds
// alternatives of its own.
size_t alternative_count(const Reader& reader, const toml::table& root) {
  const toml::node* n = root.get("alternative");
  if (n == nullptr) return 0;
  const KeyPath path = KeyPath().key("alternative");
  const toml::array* a = n->as_array();
  if (a == nullptr || a->empty() || !a->is_array_of_tables()) {
    reader.fail(*n, path,
                fmt::format("expected one or more [[alternative]] tables, got {}",
                            a != nullptr && a->empty() ? "an empty array" : type_name(*n)));
  }
  if (a->size() > kAlternativesMax) {
    reader.fail(*a->get(kAlternativesMax), path.index(kAlternativesMax),
                fmt::format("at most {} [[alternative]] tables", kAlternativesMax));
  }
  for (size_t i = 0; i < a->size(); ++i) {
    const toml::table& alternative = *a->get(i)->as_table();
    for (const std::string_view refused : {"seed", "alternative"}) {
      if (auto it = alternative.find(refused); it != alternative.end()) {
        reader.fail(it->first.source(), path.index(i).key(refused),
                    refused == "seed" ? "an alternative cannot set the seed (the seed draws it)"
                                      : "alternatives do not nest");
      }
    }
  }
  return a->size();
}

// Moves an alternative's keys onto the file's tables: a table (a section such as [topology], or
// the parent of a dotted key) merges key by key into the same-named table of `into`; anything else
// (a value, an array, a seeded choice) replaces what `into` had there, or adds it. The nodes are
// moved, not copied, so they keep their place in the file (toml++ copies drop it) and an error in
// an alternative points at its own line.
void overlay(toml::table& into, toml::table& from) {
  for (auto&& [key, node] : from) {
    toml::node* existing = into.get(key.str());
    const bool merge = node.is_table() && as_choice(node) == nullptr && existing != nullptr &&
                       existing->is_table() && as_choice(*existing) == nullptr;
    if (merge) {
      overlay(*existing->as_table(), *node.as_table());
    } else {
      into.insert_or_assign(key, std::move(node));
    }
  }
}

// The file with alternative `index` laid over it, parsed again from the text (moving the nodes
// out of one parse keeps their source regions; a copy would not).
toml::table with_alternative(std::string_view text, const std::string& file, size_t index) {
  toml::table root = toml::parse(text, std::string_view(file));
  toml::table alternative = std::move(*root.get("alternative")->as_array()->get(index)->as_table());
  root.erase("alternative");
  overlay(root, alternative);
  return root;
}

}  // namespace iq::sim::parsing

namespace iq::sim {

using parsing::alternative_count;
using parsing::kFileBytesMax;
using parsing::ParseFailure;
using parsing::prescan;
using parsing::Reader;
using parsing::scenario_seed;
using parsing::ScenarioParser;
using parsing::with_alternative;

base::Expected<Scenario, ScenarioError> parse_scenario_text(std::string_view text,
                                                            const std::string& file,
                                                            std::optional<uint64_t> seed) {
  if (text.size() > kFileBytesMax) {
    return base::unexpected(ScenarioError{
        file, 0, 0, "", fmt::format("larger than {} bytes: not a scenario file", kFileBytesMax)});
  }
  if (std::optional<ScenarioError> refused = prescan(text, file)) {
    return base::unexpected(std::move(*refused));
  }
  try {
    const toml::table root = toml::parse(text, std::string_view(file));
    const uint64_t chosen = scenario_seed(Reader(file, 0), root, seed);
    const Reader reader(file, chosen);
    const size_t alternatives = alternative_count(reader, root);
    if (alternatives == 0) return ScenarioParser(reader, chosen).parse(root);
    // A joint draw: the seed picks one [[alternative]] and the file is read with its keys laid
    // over. Every alternative is read, in file order, whatever the seed picks, so a bad one is
    // an error for every seed (as every alternative of a one_of is validated).
    const size_t drawn = base::Prng(chosen).split("alternative").below(alternatives);
    std::optional<Scenario> picked;
    for (size_t i = 0; i < alternatives; ++i) {
      Scenario s = ScenarioParser(reader, chosen).parse(with_alternative(text, file, i));
      if (i == drawn) picked = std::move(s);
    }
    IQ_ASSERT(picked.has_value(), "alternative {} of {} not read", drawn, alternatives);
    return std::move(*picked);
  } catch (const toml::parse_error& e) {
    return base::unexpected(ScenarioError{file, static_cast<int32_t>(e.source().begin.line),
                                          static_cast<int32_t>(e.source().begin.column), "",
                                          std::string(e.description())});
  } catch (const ParseFailure& f) {
    return base::unexpected(f.error);
  }
}

base::Expected<Scenario, ScenarioError> parse_scenario_file(const std::string& path,
                                                            std::optional<uint64_t> seed) {
  // Only a regular file (or a link to one): opening a FIFO blocks until a writer comes, forever
  // for `iqsim run some-fifo`, and a device or a directory is no scenario.
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return base::unexpected(ScenarioError{path, 0, 0, "", "cannot open the file"});
  }
  if (!S_ISREG(st.st_mode)) {
    return base::unexpected(
        ScenarioError{path, 0, 0, "", "not a regular file; accepted: a scenario file (TOML)"});
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return base::unexpected(ScenarioError{path, 0, 0, "", "cannot open the file"});
  std::string text;
  std::array<char, 64 * 1024> buffer{};
  // Bounded read: past kFileBytesMax it stops, and parse_scenario_text refuses the text as too
  // large. A directory opens but fails the first read (bad or fail without eof).
  while (text.size() <= kFileBytesMax) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    text.append(buffer.data(), static_cast<size_t>(in.gcount()));
    if (!in) break;
  }
  if (in.bad() || (!in.eof() && text.size() <= kFileBytesMax)) {
    return base::unexpected(ScenarioError{path, 0, 0, "", "cannot read the file"});
  }
  return parse_scenario_text(text, path, seed);
}

}  // namespace iq::sim
