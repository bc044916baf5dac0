#pragma once
// Inside the scenario parser only (not under include/): the reading machinery every section
// file shares (bounds, KeyPath, Reader, Table, IntValue and seeded choices) and the
// ScenarioParser class whose member functions are defined one file per scenario section:
//   scenario_parser.cc            the file as a whole: prescan, the top table, instance checks
//   scenario_parser_cluster.cc    [configuration], [streams_config], [broker], [topology]
//   scenario_parser_knobs.cc      [knobs], [liveness]
//   scenario_parser_test_table.cc [[test]] and its checks (properties)
//   scenario_parser_workloads.cc  [[test.workload]]
//   scenario_parser_steps.cc      [[test.step]], queries and their expectations
// Nothing outside these files includes toml++.

#include "scenario/scenario_parser.h"

#include <fmt/format.h>
#include <toml++/toml.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <numeric>
#include <set>
#include <span>
#include <utility>
#include <vector>
#include "scenario/scenario_names.h"

namespace iq::sim::parsing {

// Bounds on everything a file can ask for, so that a typo cannot ask the simulator for a billion
// instances or a time that overflows when added to another.
constexpr int64_t kTimeMsMax = 1'000'000'000'000;  // about 31 years of virtual time
constexpr int64_t kInstancesMax = 64;
constexpr int64_t kPartitionsMax = 1'024;
constexpr int64_t kKeysMax = int64_t{1} << 20;  // draw_key's bound
constexpr int64_t kOneInMax = int64_t{1} << 32;
constexpr size_t kListItemsMax = 100'000;
constexpr size_t kChoicesMax = 1'000;
constexpr size_t kAlternativesMax =
    16;  // [[alternative]] tables per file: each parses the file again
constexpr size_t kFileBytesMax = size_t{16} << 20;
// Counts of blocks, so that a small file cannot ask for minutes of work (2,000 add_instance steps
// ran 145 s): each is far above what the corpus uses (25 steps, 4 workloads, 3 tests).
constexpr size_t kTestsMax = 100;            // [[test]] per file
constexpr size_t kWorkloadsPerTestMax = 32;  // [[test.workload]] per test
constexpr size_t kStepsPerTestMax = 500;     // [[test.step]] per test
constexpr size_t kStepsMax = 2'000;          // [[test.step]] per file
// toml++ parses dotted keys, table headers, arrays and inline tables by recursion, so a small file
// of `a.a.a....a = 1` or `[[[[...` overflows the stack inside it. These are checked on the raw text
// before toml++ sees it; no scenario comes near them.
constexpr int32_t kKeyPartsMax = 32;  // parts of one dotted key or table header
constexpr int32_t kNestingMax = 32;   // open `[` and `{` at once
constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

struct IntLimits {
  int64_t min;
  int64_t max;
};
constexpr IntLimits kTimeMs{0, kTimeMsMax};
constexpr IntLimits kPositiveTimeMs{1, kTimeMsMax};
constexpr IntLimits kAnyInt32{kInt32Min, kInt32Max};
constexpr IntLimits kAnyInt64{kInt64Min, kInt64Max};
constexpr IntLimits kOneIn{0, kOneInMax};
// A crash inside an operation lands at the Nth event at most this far from its arming.
constexpr int64_t kCrashAtNMax = 1'000'000;

// A key path as errors print it and as seeded choices split the Prng by it:
// "test.0.workload.1.clients", "streams_config.\"num.standby.replicas\"".
class KeyPath {
 public:
  KeyPath key(std::string_view k) const {
    KeyPath out = *this;
    if (!out.text_.empty()) out.text_ += '.';
    if (is_bare(k)) {
      out.text_ += k;
    } else {
      out.text_ += '"';
      out.text_ += k;
      out.text_ += '"';
    }
    return out;
  }
  KeyPath index(size_t i) const {
    KeyPath out = *this;
    out.text_ += "." + std::to_string(i);
    return out;
  }
  const std::string& text() const { return text_; }

 private:
  static bool is_bare(std::string_view k) {
    return !k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '-';
    });
  }
  std::string text_;
};

// Thrown inside this file only and caught by parse_scenario_text, which returns it as a value: a
// non-local exit from deep inside the reader, so that no half-validated value is ever used.
struct ParseFailure {
  ScenarioError error;
};

inline const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

inline bool earlier(const toml::source_region& a, const toml::source_region& b) {
  return std::pair(a.begin.line, a.begin.column) < std::pair(b.begin.line, b.begin.column);
}

inline std::string join(std::span<const std::string_view> items) {
  std::string out;
  for (std::string_view item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

// An integer setting with the range of values it could have taken: for a literal lo == hi ==
// value; for a choice, the smallest and largest alternative. Checks between two settings compare
// these, so they hold whatever the seed draws.
struct IntValue {
  int64_t value = 0;
  int64_t lo = 0;
  int64_t hi = 0;
  bool given = false;      // false: the default
  toml::source_region at;  // the value, or the enclosing table for a default
  KeyPath path;

  static IntValue defaulted(int64_t v, const toml::source_region& table_at, KeyPath p) {
    return IntValue{v, v, v, false, table_at, std::move(p)};
  }
  int32_t as_int32() const {
    IQ_ASSERT(value >= kInt32Min && value <= kInt32Max, "{} = {}", path.text(), value);
    return static_cast<int32_t>(value);
  }
};

inline const toml::table* as_choice(const toml::node& node) {
  const toml::table* t = node.as_table();
  if (t != nullptr && (t->contains("one_of") || t->contains("range"))) return t;
  return nullptr;
}

class Reader {
 public:
  Reader(std::string file, uint64_t seed) : file_(std::move(file)), choices_(seed) {}

  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const toml::source_region& at, const KeyPath& path,
                         std::string message) const {
    throw ParseFailure{ScenarioError{file_, static_cast<int32_t>(at.begin.line),
                                     static_cast<int32_t>(at.begin.column), path.text(),
                                     std::move(message)}};
  }
  [[noreturn]] void fail(const toml::node& at, const KeyPath& path, std::string message) const {
    fail(at.source(), path, std::move(message));
  }

  // ---- plain values (no choice) ----

  int64_t plain_int(const toml::node& n, const KeyPath& p, IntLimits limits) const {
    const toml::value<int64_t>* v = n.as_integer();
    if (v == nullptr) fail(n, p, fmt::format("expected an integer, got {}", type_name(n)));
    const int64_t x = v->get();
    if (x < limits.min) fail(n, p, fmt::format("must be >= {} (got {})", limits.min, x));
    if (x > limits.max) fail(n, p, fmt::format("must be <= {} (got {})", limits.max, x));
    return x;
  }

  // A fraction in [0, 1], as Kafka's double configs take it (a TOML float, or the integer 0 or
  // 1), kept as an integer ratio over kUnitRatioDen, reduced: the file says it exactly and the
  // writer writes it back exactly. A finer fraction is refused rather than rounded.
  static constexpr uint64_t kUnitRatioDen = 1'000'000;
  base::Ratio plain_unit_ratio(const toml::node& n, const KeyPath& p) const {
    double x = 0;
    if (const toml::value<int64_t>* i = n.as_integer()) {
      x = static_cast<double>(i->get());
    } else if (const toml::value<double>* d = n.as_floating_point()) {
      x = d->get();
    } else {
      fail(n, p, fmt::format("expected a number in [0, 1], got {}", type_name(n)));
    }
    if (!(x >= 0.0 && x <= 1.0)) fail(n, p, fmt::format("must be in [0, 1] (got {})", x));
    const double scaled = x * static_cast<double>(kUnitRatioDen);
    const double rounded = std::round(scaled);
    if (std::fabs(scaled - rounded) > 1e-6) {
      fail(n, p, fmt::format("at most 6 decimal places (got {})", x));
    }
    const uint64_t num = static_cast<uint64_t>(rounded);
    const uint64_t gcd = std::gcd(num, kUnitRatioDen);
    return base::Ratio{num / gcd, kUnitRatioDen / gcd};
  }

  bool plain_bool(const toml::node& n, const KeyPath& p) const {
    const toml::value<bool>* v = n.as_boolean();
    if (v == nullptr) fail(n, p, fmt::format("expected a boolean, got {}", type_name(n)));
    return v->get();
  }

  std::string plain_string(const toml::node& n, const KeyPath& p) const {
    const toml::value<std::string>* v = n.as_string();
    if (v == nullptr) fail(n, p, fmt::format("expected a string, got {}", type_name(n)));
    return v->get();
  }

  // A topic, store or application id: what Kafka accepts in a topic name.
  std::string plain_name(const toml::node& n, const KeyPath& p) const {
    std::string s = plain_string(n, p);
    const bool legal = std::all_of(s.begin(), s.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '_' || c == '-';
    });
    if (s.empty() || s.size() > 249 || !legal) {
      fail(n, p, fmt::format("'{}' is not a legal name (1 to 249 of [a-zA-Z0-9._-])", s));
    }
    return s;
  }

  template <typename E, size_t N>
  E plain_enum(const toml::node& n, const KeyPath& p, const std::array<names::Named<E>, N>& table,
               std::string_view what) const {
    const std::string s = plain_string(n, p);
    std::optional<E> e = names::from_name(table, s);
    if (!e) {
      fail(n, p, fmt::format("unknown {} '{}' (expected {})", what, s, names::names_list(table)));
    }
    return *e;
  }

  // An instance: its number (1-based) or its node name, 'instance-2'.
  int64_t plain_instance(const toml::node& n, const KeyPath& p) const {
    if (const toml::value<std::string>* s = n.as_string()) {
      const std::string& text = s->get();
      constexpr std::string_view kPrefix = "instance-";
      int64_t number = 0;
      const char* digits = text.data() + std::min(text.size(), kPrefix.size());
      const char* end = text.data() + text.size();
      const auto parsed = std::from_chars(digits, end, number);
      if (!text.starts_with(kPrefix) || digits == end || parsed.ec != std::errc() ||
          parsed.ptr != end || number < 1 || number > 2 * kInstancesMax) {
        fail(n, p, fmt::format("expected an instance ('instance-N' or N, N >= 1), got '{}'", text));
      }
      return number;
    }
    if (n.is_integer()) return plain_int(n, p, {1, 2 * kInstancesMax});
    fail(n, p, fmt::format("expected an instance ('instance-N' or N), got {}", type_name(n)));
  }

  // Strings, each from `allowed` when it is not empty, none twice.
  std::vector<std::string> plain_names(const toml::node& n, const KeyPath& p,
                                       std::span<const std::string_view> allowed,
                                       std::string_view what) const {
    const toml::array* a = n.as_array();
    if (a == nullptr)
      fail(n, p, fmt::format("expected an array of {}s, got {}", what, type_name(n)));
    if (a->size() > kListItemsMax) fail(n, p, "too many items");
    std::vector<std::string> out;
    for (size_t i = 0; i < a->size(); ++i) {
      const toml::node& item = *a->get(i);
      std::string s = plain_string(item, p.index(i));
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
        fail(item, p.index(i),
             fmt::format("unknown {} '{}' (expected one of: {})", what, s, join(allowed)));
      }
      if (std::find(out.begin(), out.end(), s) != out.end()) {
        fail(item, p.index(i), fmt::format("'{}' is listed twice", s));
      }
      out.push_back(std::move(s));
    }
    return out;
  }

  // Integers in `limits`, none twice, in the order given.
  std::vector<int64_t> plain_int_list(const toml::node& n, const KeyPath& p,
                                      IntLimits limits) const {
    const toml::array* a = n.as_array();
    if (a == nullptr)
      fail(n, p, fmt::format("expected an array of integers, got {}", type_name(n)));
    if (a->size() > kListItemsMax) fail(n, p, "too many items");
    std::vector<int64_t> out;
    for (size_t i = 0; i < a->size(); ++i) {
      const int64_t v = plain_int(*a->get(i), p.index(i), limits);
      if (std::find(out.begin(), out.end(), v) != out.end()) {
        fail(*a->get(i), p.index(i), fmt::format("{} is listed twice", v));
      }
      out.push_back(v);
    }
    return out;
  }

  // topic -> partition -> offset: { input-topic = { 0 = 5, 1 = 3 } }. A topic with an empty table
  // is kept: Kafka's Position {t={}} is not the empty position.
  Position plain_position(const toml::node& n, const KeyPath& p) const {
    const toml::table* t = n.as_table();
    if (t == nullptr) {
      fail(n, p,
           fmt::format("expected a position table ({{ topic = {{ 0 = 5 }} }}), got {}",
                       type_name(n)));
    }
    Position::Map map;
    for (auto&& [topic, partitions] : *t) {
      const KeyPath topic_path = p.key(topic.str());
      const toml::table* pt = partitions.as_table();
      if (pt == nullptr) {
        fail(partitions, topic_path,
             fmt::format("expected a table of partition = offset, got {}", type_name(partitions)));
      }
      auto& offsets = map[std::string(topic.str())];
      for (auto&& [partition, offset] : *pt) {
        const KeyPath partition_path = topic_path.key(partition.str());
        const std::string_view text = partition.str();
        int32_t number = -1;
        const auto parsed = std::from_chars(text.data(), text.data() + text.size(), number);
        if (text.empty() || parsed.ec != std::errc() || parsed.ptr != text.data() + text.size() ||
            number < 0) {
          fail(partition.source(), partition_path,
               fmt::format("a partition is a number >= 0, got '{}'", text));
        }
        if (offsets.contains(number)) {
          fail(partition.source(), partition_path,
               fmt::format("partition {} is listed twice", number));
        }
        offsets[number] = plain_int(offset, partition_path, {0, kInt64Max});
      }
    }
    return Position::from_map(map);
  }

  // ---- seeded choices ----

  // A choice of any value: parse_one(node, path) -> T validates one alternative.
  template <typename T, typename ParseOne>
  T choose(const toml::node& node, const KeyPath& path, ParseOne&& parse_one) const {
    const toml::table* choice = as_choice(node);
    if (choice == nullptr) return parse_one(node, path);
    bool is_range = false;
    const toml::array& alternatives = choice_alternatives(*choice, path, is_range);
    if (is_range) {
      fail(node, path.key("range"),
           "a range draws an integer and this key does not take one; "
           "use one_of");
    }
    std::vector<T> parsed;
    parsed.reserve(alternatives.size());
    for (size_t i = 0; i < alternatives.size(); ++i) {
      parsed.push_back(parse_one(*alternatives.get(i), path.key("one_of").index(i)));
    }
    base::Prng prng = choices_.split(path.text());
    return parsed[prng.below(parsed.size())];
  }

  // A choice of an integer: one_of or range; parse_one(node, path) -> int64_t.
  template <typename ParseOne>
  IntValue choose_int(const toml::node& node, const KeyPath& path, ParseOne&& parse_one) const {
    IntValue out{0, 0, 0, true, node.source(), path};
    const toml::table* choice = as_choice(node);
    if (choice == nullptr) {
      out.value = out.lo = out.hi = parse_one(node, path);
      return out;
    }
    bool is_range = false;
    const toml::array& alternatives = choice_alternatives(*choice, path, is_range);
    base::Prng prng = choices_.split(path.text());
    if (is_range) {
      const KeyPath range_path = path.key("range");
      out.lo = parse_one(*alternatives.get(0), range_path.index(0));
      out.hi = parse_one(*alternatives.get(1), range_path.index(1));
      if (out.lo > out.hi) {
        fail(*alternatives.get(0), range_path,
             fmt::format("a range needs lo <= hi (got [{}, {}])", out.lo, out.hi));
      }
      out.value = prng.range_inclusive(out.lo, out.hi);
      return out;
    }
    std::vector<int64_t> parsed;
    parsed.reserve(alternatives.size());
    for (size_t i = 0; i < alternatives.size(); ++i) {
      parsed.push_back(parse_one(*alternatives.get(i), path.key("one_of").index(i)));
    }
    out.lo = *std::min_element(parsed.begin(), parsed.end());
    out.hi = *std::max_element(parsed.begin(), parsed.end());
    out.value = parsed[prng.below(parsed.size())];
    return out;
  }

 private:
  // The alternatives of a choice table, its shape checked: exactly one key (one_of = a non-empty
  // array, or range = [lo, hi]) and no choice inside a choice.
  const toml::array& choice_alternatives(const toml::table& choice, const KeyPath& path,
                                         bool& is_range) const {
    if (choice.size() != 1) {
      for (auto&& [k, v] : choice) {
        if (k.str() != "one_of" && k.str() != "range") {
          fail(k.source(), path.key(k.str()),
               "a seeded choice has exactly one key, 'one_of' or 'range'");
        }
      }
      // Both one_of and range.
      fail(choice.find("range")->first.source(), path.key("range"),
           "a seeded choice has exactly one key, 'one_of' or 'range'");
    }
    is_range = choice.contains("range");
    const std::string_view name = is_range ? "range" : "one_of";
    const toml::node& node = *choice.get(name);
    const KeyPath alternatives_path = path.key(name);
    const toml::array* a = node.as_array();
    if (a == nullptr) {
      fail(node, alternatives_path, fmt::format("expected an array, got {}", type_name(node)));
    }
    if (is_range && a->size() != 2) {
      fail(node, alternatives_path,
           fmt::format("a range is [lo, hi], two integers (got {} values)", a->size()));
    }
    if (a->empty()) fail(node, alternatives_path, "one_of needs at least one alternative");
    if (a->size() > kChoicesMax) {
      fail(node, alternatives_path, fmt::format("at most {} alternatives", kChoicesMax));
    }
    for (size_t i = 0; i < a->size(); ++i) {
      if (as_choice(*a->get(i)) != nullptr) {
        fail(*a->get(i), alternatives_path.index(i), "seeded choices do not nest");
      }
    }
    return *a;
  }

  std::string file_;
  base::Prng choices_;
};

// One TOML table being read: the keys it may hold are declared first (an unknown key is an error
// naming it and the known ones), each read marks its key, and finish() asserts that every key the
// file gave was read (a key allowed but never read would be silently ignored: a parser bug).
class Table {
 public:
  Table(const Reader& reader, const toml::table& table, KeyPath path)
      : reader_(reader), table_(table), path_(std::move(path)) {}

  void allow(std::initializer_list<std::string_view> keys) {
    allow(std::span<const std::string_view>(keys.begin(), keys.size()));
  }
  void allow(std::span<const std::string_view> keys) {
    IQ_ASSERT(allowed_.empty(), "allow() twice on {}", path_.text());
    allowed_.assign(keys.begin(), keys.end());
    // The earliest unknown key in the file, so the report points at the first typo.
    const toml::key* unknown = nullptr;
    for (auto&& [k, v] : table_) {
      if (is_allowed(k.str())) continue;
      if (unknown == nullptr || earlier(k.source(), unknown->source())) unknown = &k;
    }
    if (unknown != nullptr) {
      reader_.fail(unknown->source(), path_.key(unknown->str()),
                   fmt::format("unknown key (known here: {})", join(allowed_)));
    }
  }

  // Reads a key's raw node without marking it (the `name` that decides which keys are allowed).
  const toml::node* peek(std::string_view key) const { return table_.get(key); }

  const toml::node* find(std::string_view key) {
    IQ_ASSERT(is_allowed(key), "reading {} not allowed in {}", key, path_.text());
    read_.insert(std::string(key));
    return table_.get(key);
  }
  bool has(std::string_view key) const { return table_.contains(key); }

  void finish() const {
    for (auto&& [k, v] : table_) {
      IQ_ASSERT(read_.contains(k.str()), "key {} of {} allowed but never read", k.str(),
                path_.text());
    }
  }

  KeyPath path(std::string_view key) const { return path_.key(key); }
  const KeyPath& path() const { return path_; }
  const toml::source_region& at() const { return table_.source(); }

  [[noreturn]] void fail_key(std::string_view key, std::string message) const {
    const toml::node* n = table_.get(key);
    reader_.fail(n != nullptr ? n->source() : table_.source(), path_.key(key), std::move(message));
  }
  [[noreturn]] void missing(std::string_view key) const {
    reader_.fail(table_.source(), path_.key(key), "missing (this key is required here)");
  }

  // ---- typed reads; every one takes a literal or a seeded choice ----

  IntValue integer(std::string_view key, int64_t default_value, IntLimits limits) {
    const toml::node* n = find(key);
    if (n == nullptr) return IntValue::defaulted(default_value, at(), path(key));
    return reader_.choose_int(*n, path(key), [&](const toml::node& x, const KeyPath& p) {
      return reader_.plain_int(x, p, limits);
    });
  }
  std::optional<IntValue> optional_integer(std::string_view key, IntLimits limits) {
    if (!has(key)) return std::nullopt;
    return integer(key, 0, limits);
  }
  IntValue required_integer(std::string_view key, IntLimits limits) {
    if (!has(key)) missing(key);
    return integer(key, 0, limits);
  }
  IntValue instance(std::string_view key) {
    const toml::node* n = find(key);
    IQ_ASSERT(n != nullptr, "instance() on an absent key");
    return reader_.choose_int(*n, path(key), [&](const toml::node& x, const KeyPath& p) {
      return reader_.plain_instance(x, p);
    });
  }
  base::Ratio one_in(std::string_view key, int64_t default_value) {
    const int64_t n = integer(key, default_value, kOneIn).value;
    return n == 0 ? base::Ratio{0, 1} : base::Ratio{1, static_cast<uint64_t>(n)};
  }

  base::Ratio unit_ratio(std::string_view key, base::Ratio default_value) {
    return get<base::Ratio>(key, [&](const toml::node& x,
                                     const KeyPath& p) { return reader_.plain_unit_ratio(x, p); })
        .value_or(default_value);
  }

  bool boolean(std::string_view key, bool default_value) {
    return get<bool>(
               key, [&](const toml::node& x, const KeyPath& p) { return reader_.plain_bool(x, p); })
        .value_or(default_value);
  }
  std::string string(std::string_view key, std::string default_value) {
    return get<std::string>(key, [&](const toml::node& x,
                                     const KeyPath& p) { return reader_.plain_string(x, p); })
        .value_or(std::move(default_value));
  }
  std::optional<std::string> optional_name(std::string_view key) {
    return get<std::string>(
        key, [&](const toml::node& x, const KeyPath& p) { return reader_.plain_name(x, p); });
  }
  std::string name(std::string_view key, std::string default_value) {
    return optional_name(key).value_or(std::move(default_value));
  }
  template <typename E, size_t N>
  std::optional<E> optional_enumeration(std::string_view key,
                                        const std::array<names::Named<E>, N>& table,
                                        std::string_view what) {
    return get<E>(key, [&](const toml::node& x, const KeyPath& p) {
      return reader_.plain_enum(x, p, table, what);
    });
  }
  template <typename E, size_t N>
  E enumeration(std::string_view key, E default_value, const std::array<names::Named<E>, N>& table,
                std::string_view what) {
    return optional_enumeration(key, table, what).value_or(default_value);
  }
  // Whether `key` may take `value` whatever the seed draws: its literal is it, or one alternative
  // of its choice is (nullopt when the file does not give the key). For checks between two
  // settings that must hold for every combination a template can draw, as IntValue's lo and hi
  // do for integers. Every alternative is validated.
  template <typename E, size_t N>
  std::optional<bool> may_be(std::string_view key, E value,
                             const std::array<names::Named<E>, N>& table, std::string_view what) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    const toml::table* choice = as_choice(*n);
    if (choice == nullptr) return reader_.plain_enum(*n, path(key), table, what) == value;
    const toml::array* alternatives = choice->get_as<toml::array>("one_of");
    if (alternatives == nullptr) return reader_.plain_enum(*n, path(key), table, what) == value;
    bool any = false;
    for (size_t i = 0; i < alternatives->size(); ++i) {
      any |= reader_.plain_enum(*alternatives->get(i), path(key).key("one_of").index(i), table,
                                what) == value;
    }
    return any;
  }
  std::vector<std::string> name_list(std::string_view key, std::vector<std::string> default_value,
                                     std::span<const std::string_view> allowed,
                                     std::string_view what) {
    return get<std::vector<std::string>>(key,
                                         [&](const toml::node& x, const KeyPath& p) {
                                           return reader_.plain_names(x, p, allowed, what);
                                         })
        .value_or(std::move(default_value));
  }

  // Any value through parse_one; absent: nullopt.
  template <typename T, typename ParseOne>
  std::optional<T> get(std::string_view key, ParseOne&& parse_one) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    return reader_.choose<T>(*n, path(key), parse_one);
  }

  // A sub-table (header or inline); absent: nullptr.
  const toml::table* subtable(std::string_view key) {
    const toml::node* n = find(key);
    if (n == nullptr) return nullptr;
    if (!n->is_table()) {
      reader_.fail(*n, path(key), fmt::format("expected a table, got {}", type_name(*n)));
    }
    return n->as_table();
  }

  // [[x]] blocks (or an array of inline tables), at most `items_max`; absent: nullptr.
  const toml::array* tables(std::string_view key, size_t items_max = kListItemsMax) {
    const toml::node* n = find(key);
    if (n == nullptr) return nullptr;
    const toml::array* a = n->as_array();
    if (a == nullptr) {
      reader_.fail(*n, path(key),
                   fmt::format("expected an array of tables ([[{}]]), got {}", key, type_name(*n)));
    }
    if (a->size() > items_max) {
      // At the first block past the bound, so that the message points into the file's tail.
      const toml::node& past = items_max < a->size() ? *a->get(items_max) : *n;
      reader_.fail(past, path(key).index(items_max),
                   fmt::format("more than {} [[{}]] blocks (got {})", items_max, key, a->size()));
    }
    for (size_t i = 0; i < a->size(); ++i) {
      if (!a->get(i)->is_table()) {
        reader_.fail(*a->get(i), path(key).index(i),
                     fmt::format("expected a table, got {}", type_name(*a->get(i))));
      }
    }
    return a;
  }

 private:
  bool is_allowed(std::string_view key) const {
    return std::find(allowed_.begin(), allowed_.end(), key) != allowed_.end();
  }

  const Reader& reader_;
  const toml::table& table_;
  KeyPath path_;
  std::vector<std::string_view> allowed_;
  std::set<std::string, std::less<>> read_;
};

// Fails unless every alternative of `low` is <= (strict: <) every alternative of `high`; the
// error points at whichever of the two the file gave (the later one in the file if both).
inline void require_le(const Reader& reader, const IntValue& low, std::string_view low_name,
                       const IntValue& high, std::string_view high_name, bool strict = false) {
  if (strict ? low.hi < high.lo : low.hi <= high.lo) return;
  const bool blame_high = high.given && (!low.given || !earlier(high.at, low.at));
  if (blame_high || !low.given) {
    reader.fail(
        high.at, high.path,
        fmt::format("must be {} {} ({}), got {}", strict ? ">" : ">=", low_name, low.hi, high.lo));
  }
  reader.fail(
      low.at, low.path,
      fmt::format("must be {} {} ({}), got {}", strict ? "<" : "<=", high_name, high.lo, low.hi));
}

inline bool is_key_query(QueryKind k) {
  return k == QueryKind::KeyQuery || k == QueryKind::TimestampedKeyQuery ||
         k == QueryKind::VersionedKeyQuery || k == QueryKind::MultiVersionedKeyQuery ||
         k == QueryKind::WindowKeyQuery || k == QueryKind::TimestampedKeyWithHeadersQuery ||
         k == QueryKind::TimestampedWindowKeyWithHeadersQuery;
}
inline bool is_range_query(QueryKind k) {
  return k == QueryKind::RangeQuery || k == QueryKind::TimestampedRangeQuery ||
         k == QueryKind::WindowRangeQuery || k == QueryKind::TimestampedRangeWithHeadersQuery ||
         k == QueryKind::TimestampedWindowRangeWithHeadersQuery;
}
inline bool is_window_query(QueryKind k) {
  return k == QueryKind::WindowKeyQuery || k == QueryKind::WindowRangeQuery ||
         k == QueryKind::TimestampedWindowKeyWithHeadersQuery ||
         k == QueryKind::TimestampedWindowRangeWithHeadersQuery;
}
// The window query shaped as withKeyAndWindowStartRange (key and window-start range).
inline bool is_window_key_query(QueryKind k) {
  return k == QueryKind::WindowKeyQuery || k == QueryKind::TimestampedWindowKeyWithHeadersQuery;
}

inline bool undoable(FaultAction a) {
  return a == FaultAction::kCrash || a == FaultAction::kClose || a == FaultAction::kPause ||
         a == FaultAction::kIsolate;
}

// What a [[test.step]] does: exactly one of these keys.
constexpr std::array<std::string_view, 17> kStepKinds{
    "produce", "run_until",     "run_for_ms",   "fault",           "query",  "crash",
    "restart", "restart_wiped", "close",        "start",           "pause",  "resume",
    "isolate", "heal",          "add_instance", "remove_instance", "upgrade"};
// Every key a step may hold: its kind, and the keys that go with some kinds.
constexpr std::array<std::string_view, 23> kStepKeys = [] {
  std::array<std::string_view, 23> keys{};
  std::copy(kStepKinds.begin(), kStepKinds.end(), keys.begin());
  keys[17] = "ms_max";
  keys[18] = "expect";
  keys[19] = "expect_error";
  keys[20] = "expect_partitions";
  keys[21] = "expect_values";
  keys[22] = "expect_position";
  return keys;
}();

struct BoundSpec {
  std::optional<Position> position;
  bool produced = false;
};

// What a test's workloads and steps need to know about the test and the scenario around them.
struct TestContext {
  IntValue duration;
};

class ScenarioParser {
 public:
  ScenarioParser(const Reader& reader, uint64_t seed) : r_(reader) {
    s_.file = reader.file();
    s_.seed = seed;
    s_.cluster.seed = seed;
  }

  Scenario parse(const toml::table& root);

 private:
  // An absent section reads as an empty one, so every default comes from one place.
  const toml::table& or_empty(const toml::table* t) const { return t != nullptr ? *t : empty_; }

  void parse_configuration(const toml::table* section);

  void parse_streams_config(const toml::table* section);

  // The four settings AssignmentConfigs carries, validated by Kafka's own rules (and message) for
  // the smallest alternative of each: every rule is a lower bound.
  void parse_assignment_configs(Table& t, AssignmentConfigs& a);
  void parse_client_configs(Table& t, const std::optional<IntValue>& eos_commit);
  void parse_kafka_compared(Table& t);
  void parse_new_pin_configs(Table& t);

  void parse_broker(const toml::table* section);

  void parse_topology(const toml::table* section);

  void parse_knobs(const toml::table* section);

  void parse_liveness(const toml::table* section);

  // ---- [[test]] ----

  TestSpec parse_test(const toml::table& table, const KeyPath& path);

  // [[test.check]] name = '...': appended to the test's checks.
  void parse_check_tables(Table& t, std::vector<std::string>& checks);

  // ---- [[test.workload]] ----

  WorkloadSpec parse_workload(const toml::table& table, const KeyPath& path,
                              const TestContext& context);

  // start_ms and stop_ms of a timed workload: 0 <= start <= stop <= duration_ms; stop defaults
  // to the end of the test's timed phase.
  std::pair<int64_t, int64_t> start_stop(Table& w, const TestContext& context);

  ProducerWorkloadSpec parse_producer(Table& w, const TestContext& context);

  QueryClientsWorkloadSpec parse_query_clients(Table& w, const TestContext& context);

  // position_bound: one mode ('session') or a list to draw from per query (['unbounded', ...]).
  std::vector<BoundMode> bound_modes(const toml::node& n, const KeyPath& p) const;

  RandomFaultsWorkloadSpec parse_random_faults(Table& w, const TestContext& context);

  // 'Fault' (any action) and the named forms, each a fault with its own undo key.
  FaultWorkloadSpec parse_fault_workload(Table& w, const std::string& name,
                                         const TestContext& context);

  bool state_directory_wipes(Table& w);

  // A 'CrashInside' workload's crash_at_path ("" when absent); crash_at must be 'disk'.
  std::string crash_at_path(Table& w, CrashInsideAt at);

  // The `instance` of a fault: required, except for add_instance, which takes none (0).
  int32_t fault_instance(Table& t, FaultAction action);

  // ---- [[test.step]] ----

  Step parse_step(const toml::table& table, const KeyPath& path);

  ProduceStep parse_produce(Table& st);

  RunUntilStep parse_run(Table& st, std::string_view kind);

  // fault = { action = 'crash', instance = 'instance-1' } or a shorthand: crash = 'instance-1',
  // add_instance = true.
  FaultStep parse_fault_step(Table& st, std::string_view kind);

  QueryStep parse_query(Table& st, const toml::table& step_table);

  BoundSpec bound_spec(const toml::node& n, const KeyPath& p) const;

  void parse_expectations(Table& st, QueryStep& step);

  ExpectedPartition expected_partition(const toml::table& table, const KeyPath& path,
                                       const QueryStep& step);

  KeyValueList entries(const toml::node& n, const KeyPath& p) const;

  std::vector<int64_t> timestamps(const toml::node& n, const KeyPath& p) const;

  VersionedList versions(const toml::node& n, const KeyPath& p) const;

  WindowedList windows(const toml::node& n, const KeyPath& p, const QueryStep& step) const;

  void parse_versioned_times(Table& q, QueryStep& step);

  // WindowKeyQuery's key and window-start range, WindowRangeQuery's key or range.
  void parse_window_query(Table& q, QueryStep& step);
  void parse_window_topology(Table& t);

  // A set of source partitions (query partitions, expect_partitions), each one that exists.
  std::optional<std::set<int32_t>> partition_set(Table& t, std::string_view key);

  int32_t checked_partition(const IntValue& v) const;

  // ---- instance numbers, checked once the whole file is read ----

  // Instance numbers go up to `instances` plus the add_instance faults anywhere in the file.
  int32_t reference_instance(const IntValue& v);

  void check_instances() const;
  // `[explore]`: a table with one key, grid, a table of KEY = [VALUE, ...] (cli/explore.cc).
  void check_explore(const toml::node& explore, const KeyPath& path) const;

  const Reader& r_;
  Scenario s_;
  const toml::table empty_{};
  IntValue instances_;
  IntValue source_partitions_;
  IntValue session_timeout_;
  bool pin_may_be_new_ = false;  // [configuration] kafka is, or may draw, '2026-08-20'
  // The transactional producer's transaction.timeout.ms as the file gives it (the prefixed key,
  // else the plain one), when some draw runs exactly_once_v2: [broker] bounds it.
  std::optional<IntValue> eos_transaction_timeout_;
  std::string_view eos_transaction_timeout_key_;  // its key, for the message
  std::vector<IntValue> instance_references_;
  // `instances` plus every add_instance stays within kInstancesMax, as `instances` alone does.
  void require_instances_at_most_max(const toml::source_region& at, const KeyPath& path) const;

  int64_t instances_added_ = 0;
  size_t steps_ = 0;  // [[test.step]] blocks so far, all tests
};

}  // namespace iq::sim::parsing
