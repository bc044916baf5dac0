// The malformed-input bar: scenario files derived from the project's own corpus (scenarios/**/
// *.toml) by truncation, byte flips, deep nesting, wrong types, huge counts, long strings,
// invalid UTF-8 and bad references, and bad command lines for the iqsim binary. Every input runs
// in a child process under a CPU-time limit (RLIMIT_CPU, not wall clock: a loaded machine does
// not make a hang), and the check is the same for each: no signal death, no CPU limit reached,
// every refusal exits 2 (the parser: an error value) with a message that names file:line (a file)
// or the flag (a command line) and is bounded in length. A file that still parses after its
// mutation is allowed; through the binary it must run to an exit code (0, 1 or 2).
//
// Deterministic: every input comes from base::Prng(kSeed) and the sorted corpus; the seed and the
// input's index and kind are in every failure message. The counts are printed (generated, by
// kind, refused, accepted) for the record. Inputs that once crashed or hung the parser are kept in
// scenarios/malformed/ (see its README) and run every time.

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/prng.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_writer.h"
#include "test_files.h"

namespace iq::cli {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kSeed = 20261204;
constexpr int kCpuSecondsMax = 20;         // per input; the slowest refusal takes milliseconds
constexpr size_t kMessageBytesMax = 4096;  // a refusal is a few lines at most
constexpr size_t kBinaryEvery = 12;        // one generated file in this many also runs the binary

using test_files::read_file;
using test_files::write_file;

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(IQSIM_SCENARIOS_DIR)) {
    if (e.is_regular_file() && e.path().extension() == ".toml" &&
        e.path().parent_path().filename() != "malformed") {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Input {
  std::string kind;
  std::string origin;  // the corpus file it came from
  std::string text;
};

// ---- mutations: each takes a corpus file's text and returns a malformed one ----

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// Indices of lines that are `key = value` (not comments, not headers).
std::vector<size_t> assignments(const std::vector<std::string>& lines) {
  std::vector<size_t> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const size_t first = l.find_first_not_of(" \t");
    if (first == std::string::npos || l[first] == '#' || l[first] == '[') continue;
    if (l.find('=') != std::string::npos) out.push_back(i);
  }
  return out;
}

std::string replace_value(const std::string& line, const std::string& value) {
  return line.substr(0, line.find('=') + 1) + " " + value;
}

std::string truncation(base::Prng& prng, const std::string& text) {
  return text.substr(0, prng.below(text.size()));
}

std::string byte_flips(base::Prng& prng, const std::string& text) {
  std::string out = text;
  const uint64_t flips = 1 + prng.below(8);
  for (uint64_t k = 0; k < flips && !out.empty(); ++k) {
    out[prng.below(out.size())] ^= static_cast<char>(1u << prng.below(8));
  }
  return out;
}

std::string deep_nesting(base::Prng& prng, const std::string& text) {
  const uint64_t parts = 10'000 + prng.below(40'000);
  std::string deep;
  switch (prng.below(6)) {
    case 0:  // a dotted key
      for (uint64_t k = 0; k < parts; ++k) deep += k == 0 ? "a" : ".a";
      deep += " = 1\n";
      break;
    case 1:  // a table header
      deep = "[";
      for (uint64_t k = 0; k < parts; ++k) deep += k == 0 ? "t" : ".t";
      deep += "]\n";
      break;
    case 2:  // an array-of-tables header
      deep = "[[test";
      for (uint64_t k = 0; k < parts; ++k) deep += ".step";
      deep += "]]\n";
      break;
    case 3:  // nested arrays
      deep = "x = " + std::string(parts, '[') + std::string(parts, ']') + "\n";
      break;
    case 4:  // nested inline tables
      deep = "x = ";
      for (uint64_t k = 0; k < parts / 4; ++k) deep += "{a=";
      deep += "1" + std::string(parts / 4, '}') + "\n";
      break;
    default:  // unclosed brackets
      deep = "x = " + std::string(parts, '[') + "\n";
      break;
  }
  // At the top (root keys) or after the whole file (inside its last table).
  return prng.below(2) == 0 ? deep + text : text + "\n" + deep;
}

std::string wrong_type(base::Prng& prng, const std::string& text) {
  std::vector<std::string> lines = lines_of(text);
  const std::vector<size_t> at = assignments(lines);
  if (at.empty()) return text + "\nseed = 'x'\n";
  static const char* const kValues[] = {"'a string'",
                                        "42",
                                        "-7",
                                        "3.5",
                                        "true",
                                        "[1, 'two']",
                                        "{ a = 1 }",
                                        "1979-05-27",
                                        "07:32:00",
                                        "[]",
                                        "{}",
                                        "{ one_of = [] }",
                                        "{ range = [5, 1] }",
                                        "{ one_of = ['x', 1] }",
                                        "nan",
                                        "inf",
                                        "-0",
                                        "0x7fffffffffffffff"};
  const size_t n = 1 + prng.below(3);
  for (size_t k = 0; k < n; ++k) {
    size_t i = at[prng.below(at.size())];
    lines[i] = replace_value(lines[i], kValues[prng.below(std::size(kValues))]);
  }
  return joined(lines);
}

std::string huge_count(base::Prng& prng, const std::string& text) {
  static const char* const kKeys[] = {"instances",
                                      "records_max",
                                      "retry_attempts",
                                      "clients",
                                      "source_partitions",
                                      "num.standby.replicas",
                                      "num.stream.threads",
                                      "keys",
                                      "history_records_max",
                                      "broker_records_max",
                                      "coordinator_pending_outputs_max",
                                      "virtual_time_ms_max",
                                      "duration_ms",
                                      "max_down",
                                      "count",
                                      "events_max",
                                      "records",
                                      "partition",
                                      "instance",
                                      "ms_max",
                                      "probe_interval_ms",
                                      "lag_probe_interval_ms"};
  static const char* const kHuge[] = {"9223372036854775807",
                                      "-9223372036854775808",
                                      "1_000_000_000_000",
                                      "4294967296",
                                      "2147483648",
                                      "101",
                                      "31",
                                      "65",
                                      "-1",
                                      "0",
                                      "1025",
                                      "1_000_000_001"};
  const std::string huge = kHuge[prng.below(std::size(kHuge))];
  switch (prng.below(5)) {
    case 0: {  // many steps, workloads or tests appended
      static const char* const kBlocks[] = {
          "[[test.step]]\nadd_instance = {}\n", "[[test.step]]\nrun_for_ms = 1\n",
          "[[test.workload]]\ntype = 'Producer'\n", "[[test]]\ntitle = 'x'\n"};
      const std::string block = kBlocks[prng.below(std::size(kBlocks))];
      std::string out = text + "\n";
      const uint64_t count = 150 + prng.below(3'000);
      for (uint64_t k = 0; k < count; ++k) out += block;
      return out;
    }
    case 1:
    case 2: {  // an existing key of the file set huge
      std::vector<std::string> lines = lines_of(text);
      std::vector<size_t> at = assignments(lines);
      std::vector<size_t> counted;
      for (size_t i : at) {
        for (const char* key : kKeys) {
          const std::string& l = lines[i];
          const size_t first = l.find_first_not_of(" \t\"");
          if (l.compare(first, std::strlen(key), key) == 0) counted.push_back(i);
        }
      }
      if (counted.empty()) counted = at;
      if (counted.empty()) return text + "\ninstances = " + huge + "\n";
      size_t i = counted[prng.below(counted.size())];
      lines[i] = replace_value(lines[i], huge);
      return joined(lines);
    }
    default: {  // a counted key added to a section it belongs to
      static const char* const kAdded[] = {
          "[cluster]\ninstances = ",
          "[knobs]\nhistory_records_max = ",
          "[knobs]\nbroker_records_max = ",
          "[knobs]\ncoordinator_pending_outputs_max = ",
          "[streams_config]\n'num.standby.replicas' = ",
          "[[test]]\n[[test.workload]]\ntype = 'Producer'\nrecords_max = ",
          "[[test]]\n[[test.workload]]\ntype = 'QueryClients'\nretry_attempts = ",
          "[[test]]\n[[test.workload]]\ntype = 'QueryClients'\nclients = ",
          "[[test]]\n[[test.step]]\nrun_for_ms = "};
      return text + "\n" + kAdded[prng.below(std::size(kAdded))] + huge + "\n";
    }
  }
}

std::string long_string(base::Prng& prng, const std::string& text) {
  const size_t bytes = (1u << 20) + prng.below(2u << 20);  // 1 to 3 MB
  const std::string value(bytes, static_cast<char>('a' + prng.below(26)));
  switch (prng.below(4)) {
    case 0: {  // a string value
      std::vector<std::string> lines = lines_of(text);
      std::vector<size_t> at = assignments(lines);
      if (at.empty()) return text + "\ntitle = '" + value + "'\n";
      size_t i = at[prng.below(at.size())];
      lines[i] = replace_value(lines[i], "'" + value + "'");
      return joined(lines);
    }
    case 1:  // a key
      return value + " = 1\n" + text;
    case 2:  // a table name
      return text + "\n[" + value + "]\n";
    default:  // a name that is looked up (a store, a check)
      return text + "\n[[test]]\nchecks = ['" + value + "']\n";
  }
}

std::string invalid_utf8(base::Prng& prng, const std::string& text) {
  static const char* const kBad[] = {
      "\xff",     "\xc0\x80", "\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
      "\xe2\x82", "\xfe\xfe", "\xc3"};
  std::string out = text;
  const uint64_t n = 1 + prng.below(3);
  for (uint64_t k = 0; k < n; ++k) {
    // Inside a string (after a quote), a comment, a key, or anywhere.
    size_t at = prng.below(out.size() + 1);
    if (prng.below(2) == 0) {
      const size_t quote = out.find('\'', at);
      if (quote != std::string::npos) at = quote + 1;
    }
    out.insert(at, kBad[prng.below(std::size(kBad))]);
  }
  return out;
}

std::string bad_reference(base::Prng& prng, const std::string& text) {
  std::vector<std::string> lines = lines_of(text);
  static const char* const kNameKeys[] = {"store",    "topic",    "checks",
                                          "property", "instance", "store_backend",
                                          "topology", "type",     "failure"};
  std::vector<size_t> named;
  for (size_t i : assignments(lines)) {
    for (const char* key : kNameKeys) {
      const std::string& l = lines[i];
      const size_t first = l.find_first_not_of(" \t");
      if (l.compare(first, std::strlen(key), key) == 0 && (l.size() > first + std::strlen(key)) &&
          (l[first + std::strlen(key)] == ' ' || l[first + std::strlen(key)] == '=')) {
        named.push_back(i);
      }
    }
  }
  static const char* const kNames[] = {"'no-such-store'",
                                       "'NoSuchProperty'",
                                       "['NoSuchProperty']",
                                       "99",
                                       "-1",
                                       "'no-such-topic'",
                                       "''",
                                       "'Count '",
                                       "'count'"};
  if (!named.empty() && prng.below(4) != 0) {
    size_t i = named[prng.below(named.size())];
    lines[i] = replace_value(lines[i], kNames[prng.below(std::size(kNames))]);
    return joined(lines);
  }
  static const char* const kAdded[] = {
      "[[test]]\n[[test.workload]]\ntype = 'QueryClients'\nstore = 'no-such-store'\n",
      "[[test]]\nchecks = ['NoSuchProperty']\n",
      "[[test]]\n[[test.step]]\nquery = { type = 'KeyQuery', key = 0, store = 'nope' }\n",
      "[[test]]\n[[test.step]]\ncrash = { instance = 99 }\n",
      "[[test]]\n[[test.step]]\nquery = { type = 'KeyQuery', key = 0, bound = { nope = { 0 = 1 } } "
      "}\n",
      "[[test]]\n[[test.step]]\nquery = { type = 'KeyQuery', key = 0, partitions = [5000] }\n",
      "[[test]]\n[[test.step]]\nstop_instance = { instance = 64 }\n"};
  return text + "\n" + kAdded[prng.below(std::size(kAdded))];
}

using Mutation = std::string (*)(base::Prng&, const std::string&);
struct Kind {
  const char* name;
  Mutation mutate;
  int count;
};
constexpr Kind kKinds[] = {
    {"truncation", truncation, 150},     {"byte_flip", byte_flips, 200},
    {"deep_nesting", deep_nesting, 90},  {"wrong_type", wrong_type, 200},
    {"huge_count", huge_count, 160},     {"long_string", long_string, 40},
    {"invalid_utf8", invalid_utf8, 100}, {"bad_reference", bad_reference, 160},
};

std::vector<Input> generate() {
  const std::vector<fs::path> files = corpus();
  std::vector<std::string> texts;
  for (const fs::path& f : files) texts.push_back(read_file(f));
  base::Prng prng(kSeed);
  std::vector<Input> inputs;
  for (const Kind& kind : kKinds) {
    base::Prng of_kind = prng.split(kind.name);
    for (int k = 0; k < kind.count; ++k) {
      const size_t origin = of_kind.below(files.size());
      inputs.push_back(Input{kind.name, files[origin].lexically_relative(IQSIM_SCENARIOS_DIR),
                             kind.mutate(of_kind, texts[origin])});
    }
  }
  return inputs;
}

// ---- running one input in a child under a CPU limit ----

struct Ended {
  bool exited = false;
  int code = -1;
  int signal = 0;
  std::string out;  // what the child wrote to the pipe
  std::string err;  // the binary's stderr
  bool cpu_limit() const { return !exited && (signal == SIGXCPU || signal == SIGKILL); }
  std::string describe() const {
    if (exited) return "exit " + std::to_string(code);
    return "signal " + std::to_string(signal) + (cpu_limit() ? " (CPU limit: a hang)" : "");
  }
};

void limit_cpu() {
  rlimit cpu{kCpuSecondsMax, kCpuSecondsMax + 1};
  setrlimit(RLIMIT_CPU, &cpu);
}

std::string drain(int fd) {
  std::string out;
  char buffer[65536];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  return out;
}

Ended wait_for(pid_t pid, int fd) {
  Ended e;
  e.out = drain(fd);
  close(fd);
  int status = 0;
  waitpid(pid, &status, 0);
  e.exited = WIFEXITED(status);
  e.code = e.exited ? WEXITSTATUS(status) : -1;
  e.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return e;
}

// `body` in a forked child under the CPU limit, given the write end of a pipe whose text comes
// back in `out`; the child ends with `body`'s exit code (or an exec's).
Ended in_child(const std::function<int(int fd)>& body) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    limit_cpu();
    _exit(body(fds[1]));
  }
  close(fds[1]);
  return wait_for(pid, fds[0]);
}

// The parser in a forked child: it writes 'A' (accepted) or 'R' and the error's text.
Ended parse_in_child(const std::string& text, const std::string& file) {
  return in_child([&](int fd) {
    auto parsed = sim::parse_scenario_text(text, file, std::nullopt);
    std::string out = parsed ? "A" : "R" + parsed.error().to_string();
    if (parsed) {
      // An accepted file must also write back and read again.
      auto again = sim::parse_scenario_text(sim::to_toml(*parsed), file, std::nullopt);
      if (!again) out = "W" + again.error().to_string();
    }
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n = write(fd, out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    return 0;
  });
}

// The iqsim binary in a child: stdout discarded, stderr returned in `err`.
Ended iqsim_in_child(const std::vector<std::string>& args, const fs::path& cwd = {}) {
  Ended e = in_child([&](int fd) {
    const int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(fd, 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) return 126;
    std::vector<std::string> words{IQSIM_BINARY};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    execv(IQSIM_BINARY, argv.data());
    return 127;
  });
  e.err = std::move(e.out);
  e.out.clear();
  return e;
}

// "FILE:LINE:" with LINE >= 1 at the start of the error (after an optional "iqsim: ").
bool names_file_and_line(const std::string& message, const std::string& file) {
  size_t at = message.find(file + ":");
  if (at == std::string::npos) return false;
  at += file.size() + 1;
  size_t digits = 0;
  while (at + digits < message.size() &&
         std::isdigit(static_cast<unsigned char>(message[at + digits]))) {
    ++digits;
  }
  return digits > 0 && message.substr(at, digits) != "0";
}

std::string head(const std::string& s) {
  return s.substr(0, 600);
}

// ---- the scenario files ----

struct Counts {
  std::map<std::string, int> generated, refused, accepted;
  int total = 0;
};

class MalformedInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           (std::string("iqsim_malformed_") + info->name() + "_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(MalformedInputTest, GeneratedScenarioFilesAreRefusedWithALocationOrParse) {
  const std::vector<Input> inputs = generate();
  ASSERT_GE(inputs.size(), 1'000u);
  Counts counts;
  int binary_runs = 0, binary_refused = 0, binary_ran = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Input& in = inputs[i];
    const std::string name = "m" + std::to_string(i) + "-" + in.kind + ".toml";
    const std::string where = "seed " + std::to_string(kSeed) + ", input " + std::to_string(i) +
                              " (" + in.kind + " of " + in.origin + ")";
    ++counts.generated[in.kind];
    ++counts.total;
    const Ended e = parse_in_child(in.text, name);
    ASSERT_TRUE(e.exited && e.code == 0) << where << ": the parser ended by " << e.describe();
    ASSERT_FALSE(e.out.empty()) << where << ": no answer from the parser";
    ASSERT_NE(e.out[0], 'W') << where << ": parsed, but its written form does not: " << head(e.out);
    const bool refused = e.out[0] == 'R';
    ++(refused ? counts.refused : counts.accepted)[in.kind];
    if (refused) {
      const std::string message = e.out.substr(1);
      EXPECT_TRUE(names_file_and_line(message, name))
          << where << ": the error names no file:line: " << head(message);
      EXPECT_LE(message.size(), kMessageBytesMax)
          << where << ": an error of " << message.size() << " bytes: " << head(message);
    }
    if (i % kBinaryEvery != 0) continue;
    // Through the binary: a refusal is exit 2 naming file:line; an accepted file is run with a
    // short virtual time limit and must end with an exit code.
    fs::path file = dir_ / name;
    std::string text = in.text;
    if (!refused) {
      auto parsed = sim::parse_scenario_text(in.text, name, std::nullopt);
      ASSERT_TRUE(parsed) << where;
      parsed->virtual_time_ms_max = std::min<int64_t>(parsed->virtual_time_ms_max, 5'000);
      text = sim::to_toml(*parsed);
    }
    write_file(file, text);
    ++binary_runs;
    const Ended b = iqsim_in_child({"run", file.string()});
    ASSERT_TRUE(b.exited) << where << ": iqsim run ended by " << b.describe() << ": "
                          << head(b.err);
    if (refused) {
      ++binary_refused;
      EXPECT_EQ(b.code, 2) << where << ": " << head(b.err);
      EXPECT_TRUE(names_file_and_line(b.err, file.string())) << where << ": " << head(b.err);
      EXPECT_LE(b.err.size(), kMessageBytesMax) << where << ": " << head(b.err);
    } else {
      ++binary_ran;
      EXPECT_TRUE(b.code == 0 || b.code == 1 || b.code == 2) << where << ": " << b.describe();
    }
    fs::remove(file);
  }
  std::printf("malformed scenario files (seed %llu): %d generated\n",
              static_cast<unsigned long long>(kSeed), counts.total);
  int refused = 0, accepted = 0;
  for (const auto& [kind, n] : counts.generated) {
    std::printf("  %-14s %4d generated, %4d refused, %4d accepted\n", kind.c_str(), n,
                counts.refused[kind], counts.accepted[kind]);
    refused += counts.refused[kind];
    accepted += counts.accepted[kind];
  }
  std::printf(
      "  total: %d refused (exit 2, file:line), %d accepted; through the binary: %d "
      "(%d refused, %d ran)\n",
      refused, accepted, binary_runs, binary_refused, binary_ran);
}

// Every file kept in scenarios/malformed/ once crashed or hung iqsim: the parser and the binary
// must refuse it with 2 and its location, in the CPU limit.
TEST_F(MalformedInputTest, KeptRegressionInputsAreRefused) {
  const fs::path kept = fs::path(IQSIM_SCENARIOS_DIR) / "malformed";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kept)) {
    if (e.path().extension() == ".toml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << kept;
  for (const fs::path& f : files) {
    const Ended e = parse_in_child(read_file(f), f.string());
    ASSERT_TRUE(e.exited && e.code == 0) << f << ": the parser ended by " << e.describe();
    ASSERT_FALSE(e.out.empty()) << f;
    EXPECT_EQ(e.out[0], 'R') << f << ": parsed; it is kept because it must be refused";
    const Ended b = iqsim_in_child({"run", f.string()});
    ASSERT_TRUE(b.exited) << f << ": iqsim run ended by " << b.describe();
    EXPECT_EQ(b.code, 2) << f << ": " << head(b.err);
    EXPECT_TRUE(names_file_and_line(b.err, f.string())) << f << ": " << head(b.err);
    EXPECT_LE(b.err.size(), kMessageBytesMax) << f;
  }
  std::printf("kept regression inputs: %zu refused\n", files.size());
}

// ---- command lines ----

struct Command {
  std::vector<std::string> args;
  std::string names;  // the flag, word or path the message must name
};

TEST_F(MalformedInputTest, BadCommandLinesExit2NamingTheFlag) {
  // Copies: a command that wrongly ran would write over them, never over the corpus.
  const fs::path dir = dir_;
  const std::string good = (dir / "failover_crash.toml").string();
  const std::string tmpl = (dir / "default.toml").string();
  fs::copy_file(std::string(IQSIM_SCENARIOS_DIR) + "/fast/failover_crash.toml", good);
  fs::copy_file(std::string(IQSIM_SCENARIOS_DIR) + "/templates/default.toml", tmpl);
  fs::create_directories(dir / "a_directory");
  fs::create_symlink(dir / "target.json", dir / "link.json");
  write_file(dir / "target.json", "{}");
  write_file(dir / "not_json.json", "this is not json");
  write_file(dir / "empty.json", "");
  write_file(dir / "array.json", "[1, 2, 3]");
  write_file(dir / "regular.txt", "x");
  mkfifo((dir / "fifo").c_str(), 0644);
  const std::string missing = (dir / "missing.toml").string();
  const std::string a_dir = (dir / "a_directory").string();
  const std::string link = (dir / "link.json").string();
  const std::string regular = (dir / "regular.txt").string();
  const std::string fifo = (dir / "fifo").string();
  const std::string out = (dir / "out.json").string();
  // 100 KB: one argument may hold at most 128 KiB (MAX_ARG_STRLEN), else execv fails.
  const std::string long_value(100'000, '7');
  const std::string long_path(5000, 'p');

  std::vector<Command> commands;
  auto add = [&](std::vector<std::string> args, std::string names) {
    commands.push_back({std::move(args), std::move(names)});
  };
  // Subcommands.
  for (const char* word : {"frobnicate", "Run", "runs", "fuz", "merge-", "list", "help-me", "-",
                           "replay2", "check", "validate", "shrinks", "", " run", "run "}) {
    add({word}, std::string(word).empty() ? "" : word);
  }
  add({}, "");
  add({"--frobnicate"}, "--frobnicate");
  add({"--frobnicate", "run"}, "--frobnicate");
  // Seeds on every subcommand that takes one.
  const std::vector<std::string> bad_numbers = {
      "-1",  "18446744073709551616",    "",  "0x10",    "1e3", " 1", "1 ", "+1", "1.0",
      "abc", "99999999999999999999999", "٣", long_value};
  for (const std::string& v : bad_numbers) {
    add({"run", good, "--seed", v}, "--seed");
    add({"replay", good, "--seed", v}, "--seed");
    add({"shrink", good, "--seed", v}, "--seed");
    add({"check-determinism", good, "--seed", v}, "--seed");
    add({"fuzz", tmpl, "--seeds", v}, "--seeds");
    add({"fuzz", tmpl, "--seeds", "1", "--first-seed", v}, "--first-seed");
    add({"fuzz", tmpl, "--seeds", "1", "--jobs", v}, "--jobs");
  }
  for (const char* v : {"0", "257", "1000000"})
    add({"fuzz", tmpl, "--seeds", "1", "--jobs", v}, "--jobs");
  for (const char* v : {"0", "1000000001"}) add({"fuzz", tmpl, "--seeds", v}, "--seeds");
  for (const char* v : {"0", "1", "101"}) add({"check-determinism", good, "--runs", v}, "--runs");
  for (const char* v : {"0", "100001", "-5"})
    add({"shrink", good, "--seed", "1", "--runs-max", v}, "--runs-max");
  // Shards.
  for (const std::string& v :
       std::vector<std::string>{"", "1", "1/1", "2/1", "-1/2", "0/0", "a/b", "0/1000001", "0/2/3",
                                "/2", "0/", "1//2", "18446744073709551616/2", long_value}) {
    add({"fuzz", tmpl, "--seeds", "2", "--shard", v}, "--shard");
  }
  // Missing flags and values, unknown flags.
  add({"fuzz", tmpl}, "--seeds");
  add({"replay", good}, "--seed");
  add({"shrink", good}, "--seed");
  add({"run"}, "file");
  add({"fuzz", "--seeds", "1"}, "file");
  add({"merge"}, "out");
  add({"merge", out}, "inputs");
  for (const char* sub : {"run", "replay", "shrink", "check-determinism", "fuzz", "merge",
                          "list-properties", "list-probes"}) {
    add({sub, "--frobnicate"}, "--frobnicate");
    add({sub, good, "--no-such-flag=1"}, "--no-such-flag");
  }
  add({"run", good, "--seed"}, "--seed");
  add({"run", good, "--json"}, "--json");
  add({"fuzz", tmpl, "--seeds"}, "--seeds");
  add({"run", good, good}, good);
  // Input files.
  for (const char* sub : {"run", "replay", "shrink", "check-determinism", "fuzz"}) {
    std::vector<std::string> extra;
    if (std::string(sub) == "replay" || std::string(sub) == "shrink") extra = {"--seed", "1"};
    if (std::string(sub) == "fuzz") extra = {"--seeds", "1"};
    for (const std::string& f : {missing, a_dir, std::string("/dev/null"), fifo, link, regular,
                                 (dir / long_path).string(), std::string("")}) {
      std::vector<std::string> args{sub, f};
      args.insert(args.end(), extra.begin(), extra.end());
      std::string names = f.size() > 200 ? f.substr(0, 100) : f;
      add(args, names);
    }
  }
  // Output paths: devices, symlinks, directories, the input itself, two outputs the same.
  for (const std::string& o : {std::string("/dev/null"), link, a_dir, good, fifo}) {
    add({"run", good, "--json", o}, "--json");
    add({"run", good, "--junit", o}, "--junit");
    const std::string f = o == good ? tmpl : o;  // fuzz's input is the template
    add({"fuzz", tmpl, "--seeds", "1", "--json", f}, "--json");
    add({"fuzz", tmpl, "--seeds", "1", "--junit", f}, "--junit");
    add({"shrink", good, "--seed", "1", "--out", o}, "--out");
  }
  for (const std::string& o : {std::string("/dev/null"), regular, good, fifo}) {
    add({"run", good, "--report", o}, "--report");
    const std::string f = o == good ? tmpl : o;
    add({"fuzz", tmpl, "--seeds", "1", "--report", f}, "--report");
    add({"fuzz", tmpl, "--seeds", "1", "--failures-dir", f}, "--failures-dir");
    add({"replay", good, "--seed", "1", "--report", o}, "--report");
  }
  add({"run", good, "--json", out, "--junit", out}, "--junit");
  add({"fuzz", tmpl, "--seeds", "1", "--json", tmpl}, "--json");
  // Merge: bad inputs, bad out.
  for (const std::string& in :
       {missing, a_dir, (dir / "not_json.json").string(), (dir / "empty.json").string(),
        (dir / "array.json").string(), (dir / "target.json").string(), std::string("/dev/null")}) {
    add({"merge", out, in}, in);
  }
  add({"merge", "/dev/null", (dir / "target.json").string()}, "/dev/null");
  add({"merge", (dir / "target.json").string(), (dir / "target.json").string()},
      (dir / "target.json").string());
  add({"merge", a_dir, (dir / "target.json").string()}, a_dir);
  // Shrink: a property that does not exist.
  add({"shrink", good, "--seed", "1", "--property", "NoSuchProperty"}, "NoSuchProperty");
  add({"shrink", good, "--seed", "1", "--property", long_value}, "--property");

  ASSERT_GE(commands.size(), 150u);
  int refused = 0;
  for (size_t i = 0; i < commands.size(); ++i) {
    const Command& c = commands[i];
    std::string shown;
    for (const std::string& a : c.args) shown += " '" + a.substr(0, 80) + "'";
    const std::string where = "command " + std::to_string(i) + ": iqsim" + shown;
    const Ended b = iqsim_in_child(c.args, dir);
    ASSERT_TRUE(b.exited) << where << ": ended by " << b.describe() << ": " << head(b.err);
    EXPECT_EQ(b.code, 2) << where << ": " << head(b.err);
    EXPECT_NE(b.err.find(c.names.substr(0, 200)), std::string::npos)
        << where << ": the message does not name '" << c.names.substr(0, 80)
        << "': " << head(b.err);
    EXPECT_LE(b.err.size(), kMessageBytesMax) << where << ": " << head(b.err);
    refused += b.code == 2;
    // Nothing the command refused may have been written or replaced.
    EXPECT_TRUE(fs::is_symlink(dir / "link.json")) << where;
    EXPECT_TRUE(fs::is_directory(dir / "a_directory")) << where;
    EXPECT_FALSE(fs::exists(out)) << where;
    EXPECT_EQ(read_file(good).substr(0, 17), "# fast/failover_c")
        << where << ": an input was replaced";
  }
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  std::printf("bad command lines: %zu run, %d refused with exit 2\n", commands.size(), refused);
}

}  // namespace
}  // namespace iq::cli
