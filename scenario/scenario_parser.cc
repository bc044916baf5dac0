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

#include "scenario/scenario_names.h"

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

namespace {

// Bounds on everything a file can ask for, so that a typo cannot ask the simulator for a billion
// instances or a time that overflows when added to another.
constexpr int64_t kTimeMsMax = 1'000'000'000'000;  // about 31 years of virtual time
constexpr int64_t kInstancesMax = 64;
constexpr int64_t kPartitionsMax = 1'024;
constexpr int64_t kKeysMax = int64_t{1} << 20;  // draw_key's bound
constexpr int64_t kOneInMax = int64_t{1} << 32;
constexpr size_t kListItemsMax = 100'000;
constexpr size_t kChoicesMax = 1'000;
constexpr size_t kFileBytesMax = size_t{16} << 20;
// Counts of blocks, so that a small file cannot ask for minutes of work (2,000 add_instance steps
// ran 145 s): each is far above what the corpus uses (25 steps, 4 workloads, 3 tests).
constexpr size_t kTestsMax = 100;           // [[test]] per file
constexpr size_t kWorkloadsPerTestMax = 32; // [[test.workload]] per test
constexpr size_t kStepsPerTestMax = 500;    // [[test.step]] per test
constexpr size_t kStepsMax = 2'000;         // [[test.step]] per file
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

const char* type_name(const toml::node& n) {
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

bool earlier(const toml::source_region& a, const toml::source_region& b) {
  return std::pair(a.begin.line, a.begin.column) < std::pair(b.begin.line, b.begin.column);
}

std::string join(std::span<const std::string_view> items) {
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

const toml::table* as_choice(const toml::node& node) {
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
void require_le(const Reader& reader, const IntValue& low, std::string_view low_name,
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

bool is_key_query(QueryKind k) {
  return k == QueryKind::KeyQuery || k == QueryKind::TimestampedKeyQuery ||
         k == QueryKind::VersionedKeyQuery || k == QueryKind::MultiVersionedKeyQuery ||
         k == QueryKind::WindowKeyQuery;
}
bool is_range_query(QueryKind k) {
  return k == QueryKind::RangeQuery || k == QueryKind::TimestampedRangeQuery ||
         k == QueryKind::WindowRangeQuery;
}

bool undoable(FaultAction a) {
  return a == FaultAction::kCrash || a == FaultAction::kClose || a == FaultAction::kPause ||
         a == FaultAction::kIsolate;
}

// What a [[test.step]] does: exactly one of these keys.
constexpr std::array<std::string_view, 16> kStepKinds{
    "produce", "run_until",     "run_for_ms",   "fault",          "query", "crash",
    "restart", "restart_wiped", "close",        "start",          "pause", "resume",
    "isolate", "heal",          "add_instance", "remove_instance"};
// Every key a step may hold: its kind, and the keys that go with some kinds.
constexpr std::array<std::string_view, 20> kStepKeys = [] {
  std::array<std::string_view, 20> keys{};
  std::copy(kStepKinds.begin(), kStepKinds.end(), keys.begin());
  keys[16] = "ms_max";
  keys[17] = "expect";
  keys[18] = "expect_error";
  keys[19] = "expect_partitions";
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

  Scenario parse(const toml::table& root) {
    Table top(r_, root, KeyPath());
    top.allow({"title", "description", "tags", "seed", "expected_failures", "configuration",
               "streams_config", "broker", "topology", "knobs", "test", "liveness"});
    top.find("seed");  // read (and validated) before the parser was built
    s_.title = top.string("title", "");
    s_.description = top.string("description", "");
    s_.tags = top.name_list("tags", {}, {}, "tag");
    s_.expected_failures =
        top.name_list("expected_failures", {}, names::kPropertyNames, "property name");
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

 private:
  // An absent section reads as an empty one, so every default comes from one place.
  const toml::table& or_empty(const toml::table* t) const { return t != nullptr ? *t : empty_; }

  void parse_configuration(const toml::table* section) {
    Table t(r_, or_empty(section), KeyPath().key("configuration"));
    t.allow({"instances", "start", "store_backend", "virtual_time_ms_max", "link_delay_ms_min",
             "link_delay_ms_max", "link_loss_one_in", "poll_interval_ms"});
    instances_ = t.integer("instances", 1, {1, kInstancesMax});
    s_.cluster.instances = instances_.as_int32();
    s_.start_instances = t.boolean("start", true);
    s_.cluster.topology.supplier =
        t.enumeration("store_backend", KeyValueSupplier::kRocksDbTimestamped, names::kStoreBackends,
                      "store backend");
    s_.virtual_time_ms_max = t.integer("virtual_time_ms_max", 600'000, kPositiveTimeMs).value;
    const IntValue delay_min = t.integer("link_delay_ms_min", 1, kTimeMs);
    const IntValue delay_max = t.integer("link_delay_ms_max", 1, kTimeMs);
    require_le(r_, delay_min, "link_delay_ms_min", delay_max, "link_delay_ms_max");
    s_.cluster.link.delay_ms_min = delay_min.value;
    s_.cluster.link.delay_ms_max = delay_max.value;
    s_.cluster.link.loss = t.one_in("link_loss_one_in", 0);
    s_.cluster.poll_interval_ms = t.integer("poll_interval_ms", 10, kPositiveTimeMs).value;
    t.finish();
  }

  void parse_streams_config(const toml::table* section) {
    Table t(r_, or_empty(section), KeyPath().key("streams_config"));
    t.allow({"application.id", "num.stream.threads", "num.standby.replicas", "commit.interval.ms",
             "statestore.cache.max.bytes", "acceptable.recovery.lag", "max.warmup.replicas",
             "probing.rebalance.interval.ms", "session.timeout.ms", "heartbeat.interval.ms",
             "max.poll.interval.ms", "request.timeout.ms",
             "__iq.consistency.offset.vector.enabled__", "state.cleanup.delay.ms"});
    StreamsConfig& c = s_.cluster.streams;
    c.application_id = t.name("application.id", c.application_id);
    c.num_stream_threads =
        t.integer("num.stream.threads", c.num_stream_threads, {1, 32}).as_int32();
    c.commit_interval_ms = t.integer("commit.interval.ms", c.commit_interval_ms, kTimeMs).value;
    c.statestore_cache_max_bytes =
        t.integer("statestore.cache.max.bytes", c.statestore_cache_max_bytes, {0, kInt64Max}).value;
    c.state_cleanup_delay_ms =
        t.integer("state.cleanup.delay.ms", c.state_cleanup_delay_ms, kTimeMs).value;
    c.consistency_offset_vector_enabled =
        t.boolean("__iq.consistency.offset.vector.enabled__", c.consistency_offset_vector_enabled);
    parse_assignment_configs(t, c.assignment);

    session_timeout_ =
        t.integer("session.timeout.ms", s_.cluster.session_timeout_ms, {1, kInt32Max});
    const IntValue heartbeat =
        t.integer("heartbeat.interval.ms", s_.cluster.heartbeat_interval_ms, {1, kInt32Max});
    // Kafka's consumer refuses a heartbeat interval that is not below the session timeout.
    require_le(r_, heartbeat, "heartbeat.interval.ms", session_timeout_, "session.timeout.ms",
               /*strict=*/true);
    s_.cluster.session_timeout_ms = session_timeout_.as_int32();
    s_.cluster.heartbeat_interval_ms = heartbeat.value;
    s_.cluster.rebalance_timeout_ms =
        t.integer("max.poll.interval.ms", s_.cluster.rebalance_timeout_ms, {1, kInt32Max})
            .as_int32();
    s_.cluster.consumer.request_timeout_ms =
        t.integer("request.timeout.ms", s_.cluster.consumer.request_timeout_ms, kPositiveTimeMs)
            .value;
    t.finish();
  }

  // The four settings AssignmentConfigs carries, validated by Kafka's own rules (and message) for
  // the smallest alternative of each: every rule is a lower bound.
  void parse_assignment_configs(Table& t, AssignmentConfigs& a) {
    const IntValue lag = t.integer("acceptable.recovery.lag", a.acceptable_recovery_lag, kAnyInt64);
    const IntValue warmups = t.integer("max.warmup.replicas", a.max_warmup_replicas, kAnyInt32);
    const IntValue standbys =
        t.integer("num.standby.replicas", a.num_standby_replicas, {0, kInstancesMax});
    const IntValue probing =
        t.integer("probing.rebalance.interval.ms", a.probing_rebalance_interval_ms, kAnyInt64);
    AssignmentConfigs lowest;
    lowest.acceptable_recovery_lag = lag.lo;
    lowest.max_warmup_replicas = static_cast<int32_t>(warmups.lo);
    lowest.num_standby_replicas = static_cast<int32_t>(standbys.lo);
    lowest.probing_rebalance_interval_ms = probing.lo;
    if (std::optional<std::string> error = lowest.validate()) {
      // Kafka's message names the setting: point at it.
      const std::pair<std::string_view, const IntValue*> settings[] = {
          {"acceptable.recovery.lag", &lag},
          {"max.warmup.replicas", &warmups},
          {"probing.rebalance.interval.ms", &probing}};
      for (const auto& [name, v] : settings) {
        if (error->find("configuration " + std::string(name) + ":") != std::string::npos) {
          r_.fail(v->at, v->path, *error);
        }
      }
      r_.fail(t.at(), t.path(), *error);
    }
    a.acceptable_recovery_lag = lag.value;
    a.max_warmup_replicas = warmups.as_int32();
    a.num_standby_replicas = standbys.as_int32();
    a.probing_rebalance_interval_ms = probing.value;
  }

  void parse_broker(const toml::table* section) {
    Table t(r_, or_empty(section), KeyPath().key("broker"));
    t.allow({"group.initial.rebalance.delay.ms", "group.min.session.timeout.ms",
             "group.max.session.timeout.ms", "group.max.size"});
    GroupCoordinatorConfig& g = s_.cluster.broker.coordinator;
    g.group_initial_rebalance_delay_ms =
        t.integer("group.initial.rebalance.delay.ms", g.group_initial_rebalance_delay_ms, kTimeMs)
            .value;
    const IntValue min_session =
        t.integer("group.min.session.timeout.ms", g.group_min_session_timeout_ms, {0, kInt32Max});
    const IntValue max_session =
        t.integer("group.max.session.timeout.ms", g.group_max_session_timeout_ms, {0, kInt32Max});
    require_le(r_, min_session, "group.min.session.timeout.ms", max_session,
               "group.max.session.timeout.ms");
    // The coordinator rejects a JoinGroup whose session timeout is outside these bounds
    // (INVALID_SESSION_TIMEOUT), and Streams treats that as fatal: a configuration error.
    require_le(r_, min_session, "broker.group.min.session.timeout.ms", session_timeout_,
               "streams_config.session.timeout.ms");
    require_le(r_, session_timeout_, "streams_config.session.timeout.ms", max_session,
               "broker.group.max.session.timeout.ms");
    g.group_min_session_timeout_ms = min_session.as_int32();
    g.group_max_session_timeout_ms = max_session.as_int32();
    g.group_max_size = t.integer("group.max.size", g.group_max_size, {1, kInt32Max}).as_int32();
    t.finish();
  }

  void parse_topology(const toml::table* section) {
    Table t(r_, or_empty(section), KeyPath().key("topology"));
    t.allow({"name", "source_topic", "source_partitions", "store", "keys", "caching", "logging"});
    TopologyConfig& c = s_.cluster.topology;
    c.kind = t.enumeration("name", c.kind, names::kTopologies, "topology");
    c.source_topic = t.name("source_topic", c.source_topic);
    source_partitions_ = t.integer("source_partitions", c.source_partitions, {1, kPartitionsMax});
    c.source_partitions = source_partitions_.as_int32();
    c.store_name = t.name("store", c.store_name);
    s_.keys = t.integer("keys", s_.keys, {1, kKeysMax}).as_int32();
    c.caching = t.boolean("caching", c.caching);
    c.logging = t.boolean("logging", c.logging);
    t.finish();
  }

  void parse_knobs(const toml::table* section) {
    Table t(r_, or_empty(section), KeyPath().key("knobs"));
    t.allow({"lag_probe_interval_ms", "history_records_max", "consumer_fetch_interval_ms",
             "consumer_fetch_records_max", "broker_records_max", "broker_partitions_per_topic_max",
             "coordinator_new_member_join_timeout_ms", "coordinator_groups_max",
             "coordinator_pending_outputs_max"});
    Knobs& k = s_.knobs;
    k.lag_probe_interval_ms =
        t.integer("lag_probe_interval_ms", k.lag_probe_interval_ms, kTimeMs).value;
    k.history_records_max =
        static_cast<size_t>(t.integer("history_records_max",
                                      static_cast<int64_t>(k.history_records_max), {1, kInt64Max})
                                .value);
    SimConsumerConfig& consumer = s_.cluster.consumer;
    consumer.fetch_interval_ms =
        t.integer("consumer_fetch_interval_ms", consumer.fetch_interval_ms, kPositiveTimeMs).value;
    consumer.max_records_per_fetch =
        t.integer("consumer_fetch_records_max", consumer.max_records_per_fetch, {1, kInt32Max})
            .as_int32();
    SimBrokerConfig& broker = s_.cluster.broker;
    broker.max_total_records =
        t.integer("broker_records_max", broker.max_total_records, {1, kInt64Max}).value;
    const IntValue partitions_max = t.integer("broker_partitions_per_topic_max",
                                              broker.max_partitions_per_topic, {1, kInt32Max});
    require_le(r_, source_partitions_, "topology.source_partitions", partitions_max,
               "knobs.broker_partitions_per_topic_max");
    broker.max_partitions_per_topic = partitions_max.as_int32();
    GroupCoordinatorConfig& g = broker.coordinator;
    g.new_member_join_timeout_ms = t.integer("coordinator_new_member_join_timeout_ms",
                                             g.new_member_join_timeout_ms, kPositiveTimeMs)
                                       .value;
    g.max_groups = t.integer("coordinator_groups_max", g.max_groups, {1, kInt32Max}).as_int32();
    g.max_pending_outputs =
        t.integer("coordinator_pending_outputs_max", g.max_pending_outputs, {1, kInt64Max}).value;
    t.finish();
  }

  void parse_liveness(const toml::table* section) {
    Table t(r_, or_empty(section), KeyPath().key("liveness"));
    t.allow({"enabled", "timeout_ms", "probe_interval_ms", "checks"});
    LivenessSpec& l = s_.liveness;
    l.enabled = t.boolean("enabled", l.enabled);
    l.timeout_ms = t.integer("timeout_ms", l.timeout_ms, kPositiveTimeMs).value;
    l.probe_interval_ms =
        t.integer("probe_interval_ms", l.probe_interval_ms, kPositiveTimeMs).value;
    l.checks = t.name_list("checks", l.checks, names::kPropertyNames, "property name");
    t.finish();
  }

  // ---- [[test]] ----

  TestSpec parse_test(const toml::table& table, const KeyPath& path) {
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

  // [[test.check]] name = '...': appended to the test's checks.
  void parse_check_tables(Table& t, std::vector<std::string>& checks) {
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

  // ---- [[test.workload]] ----

  WorkloadSpec parse_workload(const toml::table& table, const KeyPath& path,
                              const TestContext& context) {
    Table w(r_, table, path);
    const toml::node* name_node = w.peek("name");
    if (name_node == nullptr) w.missing("name");
    const std::string name = r_.plain_string(*name_node, path.key("name"));
    WorkloadSpec spec;
    if (name == "Producer") {
      spec = parse_producer(w, context);
    } else if (name == "QueryClients") {
      spec = parse_query_clients(w, context);
    } else if (name == "RandomFaults") {
      spec = parse_random_faults(w, context);
    } else if (name == "Fault" || name == "CrashRestart" || name == "Pause" ||
               name == "Partition" || name == "ScaleOut" || name == "ScaleIn") {
      spec = parse_fault_workload(w, name, context);
    } else {
      r_.fail(*name_node, path.key("name"),
              fmt::format("unknown workload '{}' (expected 'Producer' | 'QueryClients' | 'Fault' | "
                          "'CrashRestart' | 'Pause' | 'Partition' | 'ScaleOut' | 'ScaleIn' | "
                          "'RandomFaults')",
                          name));
    }
    w.find("name");
    w.finish();
    return spec;
  }

  // start_ms and stop_ms of a timed workload: 0 <= start <= stop <= duration_ms; stop defaults
  // to the end of the test's timed phase.
  std::pair<int64_t, int64_t> start_stop(Table& w, const TestContext& context) {
    const IntValue start = w.integer("start_ms", 0, kTimeMs);
    IntValue stop = w.integer("stop_ms", context.duration.value, kTimeMs);
    if (!stop.given) stop.lo = stop.hi = context.duration.lo;
    require_le(r_, start, "start_ms", stop, "stop_ms");
    require_le(r_, stop, "stop_ms", context.duration, "duration_ms");
    return {start.value, stop.value};
  }

  ProducerWorkloadSpec parse_producer(Table& w, const TestContext& context) {
    w.allow({"name", "start_ms", "stop_ms", "records_per_second", "tick_ms", "keys",
             "key_distribution", "value", "records_max"});
    ProducerConfig c;
    std::tie(c.start_ms, c.stop_ms) = start_stop(w, context);
    c.records_per_second =
        w.integer("records_per_second", c.records_per_second, {0, 1'000'000}).value;
    c.tick_ms = w.integer("tick_ms", c.tick_ms, kPositiveTimeMs).value;
    c.keys = w.integer("keys", s_.keys, {1, kKeysMax}).as_int32();
    c.distribution = w.enumeration("key_distribution", c.distribution, names::kKeyDistributions,
                                   "key distribution");
    c.value = w.integer("value", c.value, kAnyInt64).value;
    c.records_max = static_cast<uint64_t>(
        w.integer("records_max", static_cast<int64_t>(c.records_max), {0, kInt64Max}).value);
    return ProducerWorkloadSpec{c};
  }

  QueryClientsWorkloadSpec parse_query_clients(Table& w, const TestContext& context) {
    w.allow({"name", "clients", "start_ms", "stop_ms", "interval_ms", "store", "keys",
             "key_distribution", "range_one_in", "timestamped_one_in", "range_width",
             "position_bound", "require_active_one_in", "standby_one_in", "timeout_ms",
             "retry_attempts", "retry_backoff_ms", "retry_on", "multi_partition_one_in",
             "all_partitions_one_in", "range_order", "open_range_one_in", "absent_key_one_in",
             "skip_cache_one_in", "require_active_bounded"});
    QueryClientConfig c;
    c.clients = w.integer("clients", c.clients, {1, 1'000}).as_int32();
    std::tie(c.start_ms, c.stop_ms) = start_stop(w, context);
    c.interval_ms = w.integer("interval_ms", c.interval_ms, kPositiveTimeMs).value;
    c.store = w.name("store", s_.cluster.topology.store_name);
    // A typo here used to give a green run: every query failed with UnknownStateStoreException and
    // no property had anything to judge. Scripted query steps may still name an unknown store on
    // purpose (expect_error = 'UnknownStateStoreException'); a workload never does.
    if (c.store != s_.cluster.topology.store_name) {
      w.fail_key("store", "names no store of the topology (its store is '" +
                              s_.cluster.topology.store_name + "')");
    }
    c.keys = w.integer("keys", s_.keys, {1, kKeysMax}).as_int32();
    c.distribution = w.enumeration("key_distribution", c.distribution, names::kKeyDistributions,
                                   "key distribution");
    c.range_odds = w.one_in("range_one_in", 4);
    c.timestamped_odds = w.one_in("timestamped_one_in", 2);
    c.range_width = w.integer("range_width", c.range_width, {1, kKeysMax}).as_int32();
    c.bound_modes =
        w.get<std::vector<BoundMode>>("position_bound", [&](const toml::node& n, const KeyPath& p) {
           return bound_modes(n, p);
         }).value_or(c.bound_modes);
    c.require_active_odds = w.one_in("require_active_one_in", 2);
    c.standby_odds = w.one_in("standby_one_in", 3);
    c.require_active_bounded = w.boolean("require_active_bounded", c.require_active_bounded);
    c.multi_partition_odds = w.one_in("multi_partition_one_in", 0);
    c.all_partitions_odds = w.one_in("all_partitions_one_in", 0);
    std::vector<std::string_view> order_names;
    for (const auto& o : names::kResultOrders) order_names.push_back(o.name);
    const std::vector<std::string> orders =
        w.name_list("range_order", {"ANY"}, order_names, "result order");
    if (orders.empty()) w.fail_key("range_order", "needs at least one result order");
    c.range_orders.clear();
    for (const auto& o : names::kResultOrders) {
      if (std::find(orders.begin(), orders.end(), o.name) != orders.end()) {
        c.range_orders.push_back(o.value);
      }
    }
    c.open_range_odds = w.one_in("open_range_one_in", 0);
    c.absent_key_odds = w.one_in("absent_key_one_in", 0);
    c.skip_cache_odds = w.one_in("skip_cache_one_in", 0);
    c.timeout_ms = w.integer("timeout_ms", c.timeout_ms, kPositiveTimeMs).value;
    c.retry.attempts_max = w.integer("retry_attempts", c.retry.attempts_max, {1, 100}).as_int32();
    c.retry.backoff_ms = w.integer("retry_backoff_ms", c.retry.backoff_ms, kTimeMs).value;
    std::vector<std::string_view> outcome_names;
    std::vector<std::string> all_outcomes;
    for (const auto& o : names::kRetryOutcomes) {
      outcome_names.push_back(o.name);
      all_outcomes.emplace_back(o.name);
    }
    const std::vector<std::string> retry_on =
        w.name_list("retry_on", all_outcomes, outcome_names, "retry outcome");
    for (const auto& o : names::kRetryOutcomes) {
      c.retry.*o.flag = std::find(retry_on.begin(), retry_on.end(), o.name) != retry_on.end();
    }
    return QueryClientsWorkloadSpec{c};
  }

  // position_bound: one mode ('session') or a list to draw from per query (['unbounded', ...]).
  std::vector<BoundMode> bound_modes(const toml::node& n, const KeyPath& p) const {
    if (n.is_string()) return {r_.plain_enum(n, p, names::kBoundModes, "position bound")};
    const toml::array* a = n.as_array();
    if (a == nullptr) {
      r_.fail(n, p,
              fmt::format("expected a position bound or an array of them, got {}", type_name(n)));
    }
    if (a->empty()) r_.fail(n, p, "needs at least one position bound");
    std::vector<BoundMode> out;
    // Bounded: past three items one is necessarily unknown or listed twice, which fails.
    for (size_t i = 0; i < a->size(); ++i) {
      const BoundMode m =
          r_.plain_enum(*a->get(i), p.index(i), names::kBoundModes, "position bound");
      if (std::find(out.begin(), out.end(), m) != out.end()) {
        r_.fail(*a->get(i), p.index(i),
                fmt::format("'{}' is listed twice", names::name_of(names::kBoundModes, m)));
      }
      out.push_back(m);
    }
    return out;
  }

  RandomFaultsWorkloadSpec parse_random_faults(Table& w, const TestContext& context) {
    w.allow({"name", "start_ms", "stop_ms", "interval_ms", "crash_one_in", "wipe_one_in",
             "pause_one_in", "isolate_one_in", "close_one_in", "undo_ms_min", "undo_ms_max",
             "max_down"});
    RandomFaultsWorkloadSpec c;
    std::tie(c.start_ms, c.stop_ms) = start_stop(w, context);
    c.interval_ms = w.integer("interval_ms", c.interval_ms, kPositiveTimeMs).value;
    c.crash_odds = w.one_in("crash_one_in", 4);
    c.wipe_odds = w.one_in("wipe_one_in", 4);
    c.pause_odds = w.one_in("pause_one_in", 8);
    c.isolate_odds = w.one_in("isolate_one_in", 8);
    c.close_odds = w.one_in("close_one_in", 8);
    const IntValue undo_min = w.integer("undo_ms_min", c.undo_ms_min, kTimeMs);
    const IntValue undo_max = w.integer("undo_ms_max", c.undo_ms_max, kTimeMs);
    require_le(r_, undo_min, "undo_ms_min", undo_max, "undo_ms_max");
    c.undo_ms_min = undo_min.value;
    c.undo_ms_max = undo_max.value;
    c.max_down = w.integer("max_down", c.max_down, {1, kInstancesMax}).as_int32();
    return c;
  }

  // 'Fault' (any action) and the named forms, each a fault with its own undo key.
  FaultWorkloadSpec parse_fault_workload(Table& w, const std::string& name,
                                         const TestContext& context) {
    FaultWorkloadSpec c;
    std::string_view undo_key;
    if (name == "Fault") {
      w.allow({"name", "action", "instance", "at_ms", "undo_after_ms", "state_directory"});
      if (!w.has("action")) w.missing("action");
      c.action = *w.optional_enumeration("action", names::kFaultActions, "fault action");
      undo_key = "undo_after_ms";
    } else if (name == "CrashRestart") {
      w.allow({"name", "instance", "at_ms", "restart_after_ms", "state_directory"});
      c.action = FaultAction::kCrash;
      undo_key = "restart_after_ms";
    } else if (name == "Pause") {
      w.allow({"name", "instance", "at_ms", "resume_after_ms"});
      c.action = FaultAction::kPause;
      undo_key = "resume_after_ms";
    } else if (name == "Partition") {
      w.allow({"name", "instance", "at_ms", "heal_after_ms"});
      c.action = FaultAction::kIsolate;
      undo_key = "heal_after_ms";
    } else if (name == "ScaleOut") {
      w.allow({"name", "at_ms"});
      c.action = FaultAction::kAddInstance;
    } else {
      IQ_ASSERT(name == "ScaleIn", "{}", name);
      w.allow({"name", "instance", "at_ms"});
      c.action = FaultAction::kRemoveInstance;
    }
    const IntValue at = w.integer("at_ms", 0, kTimeMs);
    require_le(r_, at, "at_ms", context.duration, "duration_ms");
    c.at_ms = at.value;
    c.instance = fault_instance(w, c.action);
    if (!undo_key.empty() && w.has(undo_key)) {
      if (!undoable(c.action)) {
        w.fail_key(undo_key, fmt::format("a '{}' fault has nothing to undo", to_string(c.action)));
      }
      c.undo_after_ms = w.integer(undo_key, 0, kTimeMs).value;
    }
    if (w.has("state_directory")) {
      if (c.action != FaultAction::kCrash && c.action != FaultAction::kClose) {
        w.fail_key("state_directory", "only a crash or a close restarts on a kept or wiped disk");
      }
      c.wipe = state_directory_wipes(w);
      if (c.wipe && !c.undo_after_ms) {
        w.fail_key("state_directory",
                   fmt::format("'wipe' applies to the restart, which needs {}", undo_key));
      }
    }
    return c;
  }

  bool state_directory_wipes(Table& w) {
    return *w.get<bool>("state_directory", [&](const toml::node& n, const KeyPath& p) {
      const std::string s = r_.plain_string(n, p);
      if (s != "keep" && s != "wipe") {
        r_.fail(n, p, fmt::format("expected 'keep' | 'wipe', got '{}'", s));
      }
      return s == "wipe";
    });
  }

  // The `instance` of a fault: required, except for add_instance, which takes none (0).
  int32_t fault_instance(Table& t, FaultAction action) {
    if (action == FaultAction::kAddInstance) {
      if (t.has("instance")) t.fail_key("instance", "add_instance takes no instance");
      ++instances_added_;
      require_instances_at_most_max(t.at(), t.path());
      return 0;
    }
    if (!t.has("instance")) t.missing("instance");
    return reference_instance(t.instance("instance"));
  }

  // ---- [[test.step]] ----

  Step parse_step(const toml::table& table, const KeyPath& path) {
    Table st(r_, table, path);
    st.allow(kStepKeys);
    std::vector<std::string_view> kinds;
    for (std::string_view k : kStepKinds) {
      if (st.has(k)) kinds.push_back(k);
    }
    if (kinds.empty()) {
      r_.fail(table.source(), path,
              "a step needs one of: produce, run_until, run_for_ms, query, fault, or a fault "
              "shorthand (crash = 'instance-1', ...)");
    }
    if (kinds.size() > 1) {
      st.fail_key(kinds[1], fmt::format("a step does one thing: '{}' and '{}' are both given",
                                        kinds[0], kinds[1]));
    }
    const std::string_view kind = kinds[0];
    if (kind != "run_until" && st.has("ms_max")) {
      st.fail_key("ms_max", "ms_max goes with run_until = 'quiescent'");
    }
    if (kind != "query") {
      for (std::string_view k : {"expect", "expect_error", "expect_partitions"}) {
        if (st.has(k)) st.fail_key(k, fmt::format("{} goes with a query step", k));
      }
    }
    Step step;
    if (kind == "produce") {
      step = parse_produce(st);
    } else if (kind == "run_until" || kind == "run_for_ms") {
      step = parse_run(st, kind);
    } else if (kind == "query") {
      step = parse_query(st, table);
    } else {
      step = parse_fault_step(st, kind);
    }
    st.finish();
    return step;
  }

  ProduceStep parse_produce(Table& st) {
    const toml::table* produce = st.subtable("produce");
    Table p(r_, *produce, st.path("produce"));
    p.allow({"topic", "records"});
    if (std::optional<std::string> topic = p.optional_name("topic")) {
      if (*topic != s_.cluster.topology.source_topic) {
        p.fail_key("topic", fmt::format("records go to the source topic '{}', not '{}'",
                                        s_.cluster.topology.source_topic, *topic));
      }
    }
    const toml::array* records = p.tables("records");
    if (records == nullptr) p.missing("records");
    if (records->empty()) p.fail_key("records", "needs at least one record");
    ProduceStep step;
    for (size_t i = 0; i < records->size(); ++i) {
      Table rec(r_, *records->get(i)->as_table(), p.path("records").index(i));
      rec.allow({"partition", "key", "value", "timestamp_ms"});
      ProduceRecordSpec r;
      if (std::optional<IntValue> partition = rec.optional_integer("partition", kAnyInt32)) {
        r.partition = checked_partition(*partition);
      }
      r.key = rec.required_integer("key", kAnyInt32).as_int32();
      if (std::optional<IntValue> value = rec.optional_integer("value", kAnyInt64)) {
        r.value = value->value;
      }
      if (std::optional<IntValue> ts = rec.optional_integer("timestamp_ms", {0, kInt64Max})) {
        r.timestamp_ms = ts->value;
      }
      rec.finish();
      step.records.push_back(r);
    }
    p.finish();
    return step;
  }

  RunUntilStep parse_run(Table& st, std::string_view kind) {
    RunUntilStep step;
    if (kind == "run_for_ms") {
      step.for_ms = st.integer("run_for_ms", 0, kTimeMs).value;
      return step;
    }
    st.get<bool>("run_until", [&](const toml::node& n, const KeyPath& p) {
      if (r_.plain_string(n, p) != "quiescent") {
        r_.fail(n, p, "expected 'quiescent' (or use run_for_ms = N)");
      }
      return true;
    });
    step.quiescent = true;
    step.ms_max = st.integer("ms_max", step.ms_max, kPositiveTimeMs).value;
    return step;
  }

  // fault = { action = 'crash', instance = 'instance-1' } or a shorthand: crash = 'instance-1',
  // add_instance = true.
  FaultStep parse_fault_step(Table& st, std::string_view kind) {
    FaultStep step;
    if (kind == "fault") {
      Table f(r_, *st.subtable("fault"), st.path("fault"));
      f.allow({"action", "instance"});
      if (!f.has("action")) f.missing("action");
      step.action = *f.optional_enumeration("action", names::kFaultActions, "fault action");
      step.instance = fault_instance(f, step.action);
      f.finish();
      return step;
    }
    step.action = *fault_action_from_string(kind);
    if (step.action == FaultAction::kAddInstance) {
      const bool yes = *st.get<bool>("add_instance", [&](const toml::node& n, const KeyPath& p) {
        return r_.plain_bool(n, p);
      });
      if (!yes) st.fail_key("add_instance", "add_instance = true, or leave the step out");
      ++instances_added_;
      require_instances_at_most_max(st.at(), st.path("add_instance"));
      step.instance = 0;
      return step;
    }
    step.instance = reference_instance(st.instance(kind));
    return step;
  }

  QueryStep parse_query(Table& st, const toml::table& step_table) {
    QueryStep step;
    step.where = SourceLocation{r_.file(), static_cast<int32_t>(step_table.source().begin.line)};
    Table q(r_, *st.subtable("query"), st.path("query"));
    q.allow({"store", "type", "key", "lower", "upper", "order", "partitions", "bound",
             "require_active", "instance"});
    step.store = q.name("store", s_.cluster.topology.store_name);
    step.type = q.enumeration("type", step.type, names::kQueryKinds, "query type");
    if (is_key_query(step.type)) {
      if (!q.has("key")) q.missing("key");
      step.key = q.integer("key", 0, kAnyInt32).as_int32();
    } else if (q.has("key")) {
      q.fail_key("key",
                 fmt::format("a {} takes no key", names::name_of(names::kQueryKinds, step.type)));
    }
    for (std::string_view bound_key : {"lower", "upper"}) {
      if (q.has(bound_key) && !is_range_query(step.type)) {
        q.fail_key(bound_key, fmt::format("only a range query takes {}", bound_key));
      }
      if (std::optional<IntValue> v = q.optional_integer(bound_key, kAnyInt32)) {
        (bound_key == "lower" ? step.lower : step.upper) = v->as_int32();
      }
    }
    step.order = q.enumeration("order", step.order, names::kResultOrders, "result order");
    step.partitions = partition_set(q, "partitions");
    const std::optional<BoundSpec> bound = q.get<BoundSpec>(
        "bound", [&](const toml::node& n, const KeyPath& p) { return bound_spec(n, p); });
    if (bound) {
      step.bound = bound->position;
      step.bound_produced = bound->produced;
    }
    step.require_active = q.boolean("require_active", false);
    step.instance = q.has("instance") ? reference_instance(q.instance("instance")) : 1;
    q.finish();
    parse_expectations(st, step);
    return step;
  }

  BoundSpec bound_spec(const toml::node& n, const KeyPath& p) const {
    if (n.is_string()) {
      const std::string s = r_.plain_string(n, p);
      if (s == "unbounded") return BoundSpec{};
      if (s == "produced") return BoundSpec{std::nullopt, true};
      r_.fail(n, p,
              fmt::format("expected 'unbounded', 'produced' or a position table, got '{}'", s));
    }
    if (n.is_table()) return BoundSpec{r_.plain_position(n, p), false};
    r_.fail(
        n, p,
        fmt::format("expected 'unbounded', 'produced' or a position table, got {}", type_name(n)));
  }

  void parse_expectations(Table& st, QueryStep& step) {
    if (st.has("expect") && st.has("expect_error")) {
      st.fail_key("expect_error", "a query either throws (expect_error) or answers (expect)");
    }
    if (st.has("expect_partitions") && st.has("expect_error")) {
      st.fail_key("expect_partitions", "a query that throws answers no partition");
    }
    if (const toml::node* expect = st.find("expect")) {
      const KeyPath path = st.path("expect");
      if (const toml::table* single = expect->as_table()) {
        step.expect.push_back(expected_partition(*single, path, step));
      } else if (const toml::array* list = expect->as_array()) {
        if (list->size() > kPartitionsMax) r_.fail(*expect, path, "too many items");
        for (size_t i = 0; i < list->size(); ++i) {
          const toml::table* item = list->get(i)->as_table();
          if (item == nullptr) {
            r_.fail(*list->get(i), path.index(i),
                    fmt::format("expected a table, got {}", type_name(*list->get(i))));
          }
          step.expect.push_back(expected_partition(*item, path.index(i), step));
        }
      } else {
        r_.fail(*expect, path,
                fmt::format("expected a table or an array of tables, got {}", type_name(*expect)));
      }
    }
    if (const toml::node* error = st.find("expect_error")) {
      const std::string name = r_.plain_string(*error, st.path("expect_error"));
      std::vector<std::string_view> known;
      for (StreamsError::Kind k : names::kStreamsErrorKinds)
        known.push_back(StreamsError::kind_name(k));
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        r_.fail(*error, st.path("expect_error"),
                fmt::format("unknown exception '{}' (expected one of: {})", name, join(known)));
      }
      step.expect_error = name;
    }
    step.expect_partitions = partition_set(st, "expect_partitions");
  }

  ExpectedPartition expected_partition(const toml::table& table, const KeyPath& path,
                                       const QueryStep& step) {
    Table e(r_, table, path);
    e.allow({"partition", "success", "value", "value_absent", "entries", "timestamps", "position",
             "failure_reason", "message_contains"});
    ExpectedPartition x;
    if (!e.has("partition")) e.missing("partition");
    x.partition = checked_partition(e.integer("partition", 0, kAnyInt32));
    if (step.partitions && !step.partitions->contains(x.partition)) {
      e.fail_key("partition",
                 fmt::format("partition {} is not among the query's partitions", x.partition));
    }
    for (const ExpectedPartition& other : step.expect) {
      if (other.partition == x.partition) {
        e.fail_key("partition", fmt::format("partition {} is expected twice", x.partition));
      }
    }
    if (std::optional<bool> success = e.get<bool>(
            "success",
            [&](const toml::node& n, const KeyPath& p) { return r_.plain_bool(n, p); })) {
      x.success = success;
    }
    if ((e.has("value") || e.has("value_absent")) && !is_key_query(step.type)) {
      e.fail_key(e.has("value") ? "value" : "value_absent", "only a key query answers a value");
    }
    if (e.has("value") && e.has("value_absent")) {
      e.fail_key("value_absent", "a value is either given or absent");
    }
    if (std::optional<IntValue> v = e.optional_integer("value", kAnyInt64)) {
      x.value.emplace(v->value);
    }
    if (e.has("value_absent")) {
      if (!e.boolean("value_absent", true)) {
        e.fail_key("value_absent", "value_absent = true, or leave it out");
      }
      x.value.emplace(std::nullopt);
    }
    if (e.has("entries") && !is_range_query(step.type)) {
      e.fail_key("entries", "only a range query answers entries");
    }
    x.entries = e.get<KeyValueList>(
        "entries", [&](const toml::node& n, const KeyPath& p) { return entries(n, p); });
    x.timestamps = e.get<std::vector<int64_t>>(
        "timestamps", [&](const toml::node& n, const KeyPath& p) { return timestamps(n, p); });
    x.position = e.get<Position>(
        "position", [&](const toml::node& n, const KeyPath& p) { return r_.plain_position(n, p); });
    x.failure_reason =
        e.optional_enumeration("failure_reason", names::kFailureReasons, "failure reason");
    if (x.failure_reason && (x.value || x.entries)) {
      e.fail_key("failure_reason", "a failed partition answers no value or entries");
    }
    if (x.failure_reason && x.success == true) {
      e.fail_key("success", "success = true contradicts failure_reason");
    }
    if (x.success == false && (x.value || x.entries)) {
      e.fail_key("success", "success = false contradicts an expected value or entries");
    }
    if (e.has("message_contains")) x.message_contains = e.string("message_contains", "");
    e.finish();
    return x;
  }

  KeyValueList entries(const toml::node& n, const KeyPath& p) const {
    const toml::array* a = n.as_array();
    if (a == nullptr)
      r_.fail(n, p, fmt::format("expected [[key, value], ...], got {}", type_name(n)));
    if (a->size() > kListItemsMax) r_.fail(n, p, "too many items");
    KeyValueList out;
    for (size_t i = 0; i < a->size(); ++i) {
      const toml::array* pair = a->get(i)->as_array();
      if (pair == nullptr || pair->size() != 2) {
        r_.fail(*a->get(i), p.index(i), "an entry is [key, value]");
      }
      out.emplace_back(
          static_cast<int32_t>(r_.plain_int(*pair->get(0), p.index(i).index(0), kAnyInt32)),
          r_.plain_int(*pair->get(1), p.index(i).index(1), kAnyInt64));
    }
    return out;
  }

  std::vector<int64_t> timestamps(const toml::node& n, const KeyPath& p) const {
    const toml::array* a = n.as_array();
    if (a == nullptr)
      r_.fail(n, p, fmt::format("expected an array of integers, got {}", type_name(n)));
    if (a->size() > kListItemsMax) r_.fail(n, p, "too many items");
    std::vector<int64_t> out;
    for (size_t i = 0; i < a->size(); ++i)
      out.push_back(r_.plain_int(*a->get(i), p.index(i), kAnyInt64));
    return out;
  }

  // A set of source partitions (query partitions, expect_partitions), each one that exists.
  std::optional<std::set<int32_t>> partition_set(Table& t, std::string_view key) {
    const int64_t limit = source_partitions_.lo;
    return t.get<std::set<int32_t>>(key, [&](const toml::node& n, const KeyPath& p) {
      const std::vector<int64_t> list = r_.plain_int_list(n, p, {0, kInt32Max});
      std::set<int32_t> out;
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i] >= limit) {
          r_.fail(
              *n.as_array()->get(i), p.index(i),
              fmt::format("partition {} does not exist: source_partitions is {}", list[i], limit));
        }
        out.insert(static_cast<int32_t>(list[i]));
      }
      return out;
    });
  }

  int32_t checked_partition(const IntValue& v) const {
    if (v.lo < 0) r_.fail(v.at, v.path, fmt::format("must be >= 0 (got {})", v.lo));
    if (v.hi >= source_partitions_.lo) {
      r_.fail(v.at, v.path,
              fmt::format("partition {} does not exist: source_partitions is {}", v.hi,
                          source_partitions_.lo));
    }
    return v.as_int32();
  }

  // ---- instance numbers, checked once the whole file is read ----

  // Instance numbers go up to `instances` plus the add_instance faults anywhere in the file.
  int32_t reference_instance(const IntValue& v) {
    instance_references_.push_back(v);
    return v.as_int32();
  }

  void check_instances() const {
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

  const Reader& r_;
  Scenario s_;
  const toml::table empty_{};
  IntValue instances_;
  IntValue source_partitions_;
  IntValue session_timeout_;
  std::vector<IntValue> instance_references_;
  // `instances` plus every add_instance stays within kInstancesMax, as `instances` alone does.
  void require_instances_at_most_max(const toml::source_region& at, const KeyPath& path) const {
    if (instances_.hi + instances_added_ > kInstancesMax) {
      r_.fail(at, path,
              fmt::format("`instances` ({}) plus {} add_instance would be more than {} instances",
                          instances_.hi, instances_added_, kInstancesMax));
    }
  }

  int64_t instances_added_ = 0;
  size_t steps_ = 0;  // [[test.step]] blocks so far, all tests
};

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
        return ScenarioError{file, line, column, "",
                             fmt::format("a dotted key or table header with more than {} parts",
                                         kKeyPartsMax)};
      }
      advance(1);
    } else if (c == '[' || c == '{') {
      if (++depth > kNestingMax) {
        return ScenarioError{file, line, column, "",
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

}  // namespace

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
    return ScenarioParser(reader, chosen).parse(root);
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
