// The built iqsim binary, run as a user runs it: exit codes, messages naming file and line, the
// merge refusals, and a small sweep whose shards merge to the unsharded sweep and whose results do
// not depend on --jobs. IQSIM_BINARY (the binary's path) comes from CMake.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "summary.h"
#include "test_files.h"

extern char** environ;

namespace iq::cli {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using test_files::read_file;
using test_files::write_file;

nlohmann::json read_json(const fs::path& path);
void expect_self_contained(const std::string& html, const std::string& what);
bool hit(const nlohmann::json& result, const std::string& probe);

class IqsimBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           (std::string("iqsim_cli_") + info->name() + "_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path path(const std::string& name) const { return dir_ / name; }

  // Runs iqsim with `args`, stdout and stderr captured in files of the test's directory.
  Outcome iqsim(const std::vector<std::string>& args) {
    pid_t pid = start(args);
    Outcome outcome;
    if (pid <= 0) return outcome;
    return finish(pid);
  }

  // Starts iqsim with `args` without waiting; finish() waits and collects.
  pid_t start(const std::vector<std::string>& args) {
    fs::path out = path("stdout.txt"), err = path("stderr.txt");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> words{IQSIM_BINARY};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, IQSIM_BINARY, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      ADD_FAILURE() << "posix_spawn " << IQSIM_BINARY << ": " << rc;
      return -1;
    }
    return pid;
  }

  Outcome finish(pid_t pid) {
    fs::path out = path("stdout.txt"), err = path("stderr.txt");
    Outcome outcome;
    int status = 0;
    waitpid(pid, &status, 0);
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    outcome.out = read_file(out);
    outcome.err = read_file(err);
    return outcome;
  }

  // A scenario that passes: run (its result hitting `probe`), check-determinism, replay, and a
  // 2-seed fuzz whose every seed hits `probe`. Returns the run's summary.
  nlohmann::json expect_passes_every_command(const fs::path& file, const std::string& probe) {
    const std::string f = file.string();
    Outcome run = iqsim({"run", f, "--json", path("run.json").string()});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    nlohmann::json j = read_json(path("run.json"));
    EXPECT_TRUE(hit(j["results"][0], probe)) << j.dump(2);
    Outcome determinism = iqsim({"check-determinism", f, "--seed", "7", "--runs", "2"});
    EXPECT_EQ(determinism.exit_code, 0) << determinism.out << determinism.err;
    EXPECT_NE(determinism.out.find("DETERMINISTIC: 2 runs"), std::string::npos) << determinism.out;
    Outcome replay = iqsim({"replay", f, "--seed", "7"});
    EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
    Outcome fuzz =
        iqsim({"fuzz", f, "--seeds", "2", "--jobs", "2", "--json", path("fuzz.json").string()});
    EXPECT_EQ(fuzz.exit_code, 0) << fuzz.out << fuzz.err;
    nlohmann::json sweep = read_json(path("fuzz.json"));
    EXPECT_EQ(sweep["results"].size(), 2u) << sweep.dump(2);
    for (const auto& result : sweep["results"]) {
      EXPECT_TRUE(hit(result, probe)) << result.dump(2);
    }
    return j;
  }

  struct FailedEverywhere {
    std::string page;    // the seed's self-contained report page
    Outcome replay;      // `replay --seed 1`
    std::string shrunk;  // the shrunk scenario file's text
  };
  // A scenario that fails its ScriptedExpectations: run --report (exit 1, a self-contained page
  // named after `file`'s stem), replay (exit 1), and shrink to a file that still fails.
  FailedEverywhere expect_fails_every_command(const fs::path& file) {
    const std::string f = file.string(), stem = file.stem().string();
    FailedEverywhere failed;
    Outcome run = iqsim({"run", f, "--report", path("report").string()});
    EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_NE(run.out.find("[ScriptedExpectations]"), std::string::npos) << run.out;
    failed.page = read_file(path("report") / (stem + "-seed1.html"));
    expect_self_contained(failed.page, stem + "-seed1.html");
    failed.replay = iqsim({"replay", f, "--seed", "1"});
    EXPECT_EQ(failed.replay.exit_code, 1) << failed.replay.out << failed.replay.err;
    EXPECT_NE(failed.replay.out.find("ScriptedExpectations"), std::string::npos)
        << failed.replay.out;
    const fs::path minimal = path(stem + "_min.toml");
    Outcome shrink =
        iqsim({"shrink", f, "--seed", "1", "--out", minimal.string(), "--runs-max", "20"});
    EXPECT_EQ(shrink.exit_code, 1) << shrink.out << shrink.err;
    failed.shrunk = read_file(minimal);
    Outcome rerun = iqsim({"run", minimal.string()});
    EXPECT_EQ(rerun.exit_code, 1) << rerun.out << rerun.err;
    EXPECT_NE(rerun.out.find("ScriptedExpectations"), std::string::npos) << rerun.out;
    return failed;
  }

  fs::path dir_;
};

TEST_F(IqsimBinaryTest, HelpDocumentsTheExitCodes) {
  Outcome o = iqsim({"--help"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("Exit codes (run, replay, fuzz):"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("declared Kafka behaviour"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("with --strict"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("2  bad input"), std::string::npos) << o.out;
  for (const char* command : {"run", "fuzz", "replay", "shrink", "check-determinism", "merge",
                              "list-properties", "findings"}) {
    EXPECT_NE(o.out.find(command), std::string::npos) << command;
  }
}

TEST_F(IqsimBinaryTest, ListPropertiesNamesEveryProperty) {
  Outcome o = iqsim({"list-properties"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  for (const char* name : {"ResultMatchesModel", "SamePositionSameAnswer", "BoundHonored",
                           "SessionMonotonic", "FailureReasonCorrect", "EventuallyAvailable",
                           "LagReported", "ChangelogWitness", "Deterministic"}) {
    EXPECT_NE(o.out.find(name), std::string::npos) << name << "\n" << o.out;
  }
}

// `iqsim findings` explains every declared Kafka behaviour, as text and as JSON, one class on
// request, and refuses a class it does not know naming the keys.
TEST_F(IqsimBinaryTest, FindingsExplainsEveryDeclaredBehaviour) {
  Outcome text = iqsim({"findings"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  for (const char* part : {"alos_reprocessing", "known Kafka behaviour: at-least-once reprocessing",
                           "Kafka source (apache/kafka 1eb7644): processor/internals/StreamTask",
                           "scenarios/findings/alos_count_double_counts_after_crash.toml",
                           "what a caller can do:", "cached_writes_beneath_position"}) {
    EXPECT_NE(text.out.find(part), std::string::npos) << part << "\n" << text.out;
  }
  Outcome json = iqsim({"findings", "--json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_TRUE(j.is_array()) << json.out;
  EXPECT_EQ(j.size(), properties::kViolationClasses.size() - 1) << "every class but failure";
  for (const auto& entry : j) {
    EXPECT_FALSE(entry["explanation"].get<std::string>().empty()) << entry.dump(2);
    EXPECT_NE(entry["key"], "failure");
  }
  Outcome one = iqsim({"findings", "--json", "lru_evicted_aggregate"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(nlohmann::json::parse(one.out).size(), 1u) << one.out;
  Outcome unknown = iqsim({"findings", "no_such_class"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out;
  EXPECT_NE(unknown.err.find("alos_reprocessing"), std::string::npos) << unknown.err;
}

// A bad scenario file is bad input: exit 2 and the parser's file:line:col message.
TEST_F(IqsimBinaryTest, BadScenarioFileExitsTwoNamingFileAndLine) {
  fs::path file = path("bad.toml");
  write_file(file,
             "title = 'bad'\n"
             "[configuration]\n"
             "instances = 1\n"
             "no_such_key = 3\n");
  for (std::vector<std::string> args :
       {std::vector<std::string>{"run", file.string()},
        std::vector<std::string>{"fuzz", file.string(), "--seeds", "3"},
        std::vector<std::string>{"replay", file.string(), "--seed", "1"},
        std::vector<std::string>{"shrink", file.string(), "--seed", "1"},
        std::vector<std::string>{"check-determinism", file.string()}}) {
    Outcome o = iqsim(args);
    EXPECT_EQ(o.exit_code, 2) << args[0] << ": " << o.out << o.err;
    EXPECT_NE(o.err.find(file.string() + ":4:"), std::string::npos) << args[0] << ": " << o.err;
    EXPECT_NE(o.err.find("no_such_key"), std::string::npos) << args[0] << ": " << o.err;
  }
}

TEST_F(IqsimBinaryTest, UnreadableFileAndBadFlagsExitTwo) {
  Outcome missing = iqsim({"run", path("missing.toml").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("missing.toml"), std::string::npos) << missing.err;

  fs::path file = path("any.toml");
  write_file(file, "title = 'x'\n");
  std::vector<std::vector<std::string>> bad_flags = {
      {"fuzz", file.string(), "--seeds", "0"},
      {"fuzz", file.string(), "--seeds", "4", "--shard", "2/2"},
      {"fuzz", file.string(), "--seeds", "4", "--jobs", "0"},
      {"fuzz", file.string(), "--seeds", "4", "--first-seed", "18446744073709551614"},
      {"fuzz", file.string()},
      {"run", file.string(), "--no-such-flag"},
      {"replay", file.string()},
      {"no-such-command"},
      {},
  };
  for (const auto& args : bad_flags) {
    Outcome o = iqsim(args);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    EXPECT_EQ(o.exit_code, 2) << shown << "\n" << o.out << o.err;
  }
  Outcome shard = iqsim({"fuzz", file.string(), "--seeds", "4", "--shard", "2/2"});
  EXPECT_NE(shard.err.find("--shard '2/2'"), std::string::npos) << shard.err;
}

SweepSummary summary_of(const std::string& scenario, std::vector<uint64_t> seeds, bool fail) {
  SweepSummary s;
  s.command = "fuzz";
  s.scenario = scenario;
  s.title = "t";
  s.first_seed = 1;
  s.seed_count = 4;
  s.shards = {"0/1"};
  for (uint64_t seed : seeds) {
    SeedResult r;
    r.seed = seed;
    r.passed = !fail;
    r.reproduce = "iqsim replay " + scenario + " --seed " + std::to_string(seed);
    if (fail) r.violations_by_property["BoundHonored"] = 1;
    s.results.push_back(r);
  }
  return s;
}

TEST_F(IqsimBinaryTest, MergeWritesTheUnionAndRefusesBadInputs) {
  write_file(path("a.json"), to_json(summary_of("s.toml", {1, 3}, false)).dump());
  write_file(path("b.json"), to_json(summary_of("s.toml", {2, 4}, false)).dump());
  write_file(path("c.json"), to_json(summary_of("s.toml", {3}, true)).dump());
  write_file(path("d.json"), to_json(summary_of("other.toml", {5}, false)).dump());
  write_file(path("e.json"), "{ not json");

  Outcome ok =
      iqsim({"merge", path("ab.json").string(), path("a.json").string(), path("b.json").string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  nlohmann::json merged = nlohmann::json::parse(read_file(path("ab.json")));
  EXPECT_EQ(merged["totals"]["runs"], 4u);
  EXPECT_EQ(merged["results"][1]["seed"], 2u);

  Outcome overlap =
      iqsim({"merge", path("x.json").string(), path("a.json").string(), path("c.json").string()});
  EXPECT_EQ(overlap.exit_code, 2);
  EXPECT_NE(overlap.err.find("seed 3 is in both"), std::string::npos) << overlap.err;
  EXPECT_FALSE(fs::exists(path("x.json")));

  Outcome other =
      iqsim({"merge", path("x.json").string(), path("a.json").string(), path("d.json").string()});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("refusing to merge different scenarios"), std::string::npos)
      << other.err;

  Outcome garbage = iqsim({"merge", path("x.json").string(), path("e.json").string()});
  EXPECT_EQ(garbage.exit_code, 2);
  EXPECT_NE(garbage.err.find("e.json: not valid JSON"), std::string::npos) << garbage.err;

  Outcome failing = iqsim({"merge", path("bc.json").string(), path("b.json").string(),
                           path("c.json").string(), "--allow-gaps"});
  EXPECT_EQ(failing.exit_code, 1) << failing.err;
}

// A small world whose seeds differ (store, standbys, rates are drawn), quick to run.
constexpr const char* kSmallTemplate = R"(
title = 'cli sweep'
[configuration]
instances = 2
store_backend = { one_of = ['rocksdb', 'in_memory'] }
[streams_config]
"commit.interval.ms" = 100
"num.standby.replicas" = { range = [0, 1] }
"__iq.consistency.offset.vector.enabled__" = true
[topology]
name = 'Count'
source_topic = 'words'
source_partitions = 2
store = 'counts'
keys = 8
caching = false
[[test]]
title = 'Short'
duration_ms = 2_000
    [[test.workload]]
    name = 'Producer'
    records_per_second = { range = [20, 80] }
    [[test.workload]]
    name = 'QueryClients'
    clients = 2
    interval_ms = 100
[liveness]
timeout_ms = 30_000
)";

nlohmann::json read_json(const fs::path& path) {
  return nlohmann::json::parse(read_file(path));
}

// The sweep's shards, merged, equal the sweep run whole; and --jobs changes nothing but timing.
TEST_F(IqsimBinaryTest, ShardedSweepMergesToTheWholeSweep) {
  fs::path file = path("small.toml");
  write_file(file, kSmallTemplate);
  std::string f = file.string();
  Outcome whole = iqsim({"fuzz", f, "--seeds", "6", "--first-seed", "3", "--jobs", "2", "--json",
                         path("whole.json").string(), "--junit", path("whole.xml").string()});
  ASSERT_EQ(whole.exit_code, 0) << whole.out << whole.err;
  EXPECT_NE(whole.out.find("runs: 6, passed 6, failed 0"), std::string::npos) << whole.out;
  EXPECT_NE(whole.out.find("queries judged/s"), std::string::npos) << whole.out;
  Outcome one =
      iqsim({"fuzz", f, "--seeds", "6", "--first-seed", "3", "--json", path("one.json").string()});
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  for (int shard = 0; shard < 3; ++shard) {
    std::string name = "shard" + std::to_string(shard) + ".json";
    Outcome o = iqsim({"fuzz", f, "--seeds", "6", "--first-seed", "3", "--shard",
                       std::to_string(shard) + "/3", "--json", path(name).string()});
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  }
  Outcome merge = iqsim({"merge", path("merged.json").string(), path("shard2.json").string(),
                         path("shard0.json").string(), path("shard1.json").string()});
  ASSERT_EQ(merge.exit_code, 0) << merge.out << merge.err;

  nlohmann::json w = read_json(path("whole.json"));
  nlohmann::json m = read_json(path("merged.json"));
  nlohmann::json j1 = read_json(path("one.json"));
  EXPECT_EQ(m["totals"], w["totals"]);
  EXPECT_EQ(m["results"], w["results"]);
  EXPECT_EQ(j1["results"], w["results"]) << "--jobs 1 and --jobs 2 disagree";
  EXPECT_EQ(w["totals"]["runs"], 6u);
  EXPECT_GT(w["totals"]["queries_judged"].get<uint64_t>(), 0u);
  std::set<std::string> digests;
  for (const auto& r : w["results"]) digests.insert(r["digest"].get<std::string>());
  EXPECT_EQ(digests.size(), 6u) << "every seed should be a different world";
  EXPECT_NE(read_file(path("whole.xml")).find("tests=\"6\" failures=\"0\""), std::string::npos);
  // Peak RSS of every seed's child, measured by the kernel: a real process holds megabytes.
  const nlohmann::json& rss = w["timing"]["peak_rss_kib"];
  ASSERT_EQ(rss["by_seed"].size(), 6u) << w["timing"].dump();
  for (const auto& [seed, kib] : rss["by_seed"].items()) {
    EXPECT_GT(kib.get<int64_t>(), 1024) << "seed " << seed;
    EXPECT_LE(kib.get<int64_t>(), rss["max"].get<int64_t>()) << "seed " << seed;
  }
  EXPECT_LE(rss["median"].get<int64_t>(), rss["max"].get<int64_t>());
  EXPECT_EQ(rss["by_seed"][std::to_string(rss["max_seed"].get<uint64_t>())], rss["max"]);
  EXPECT_GT(w["timing"]["parent_peak_rss_kib"].get<int64_t>(), 1024);
  EXPECT_NE(whole.out.find("memory: peak RSS per seed median"), std::string::npos) << whole.out;
  EXPECT_FALSE(m.contains("timing")) << "a merged summary has no timing of its own";
}

// A scenario whose scripted expectation is wrong (the value is 10, not 99): every seed fails
// ScriptedExpectations in a fraction of a second.
constexpr const char* kWrongExpectation = R"(
title = 'wrong expectation'
[configuration]
instances = 1
store_backend = 'in_memory'
[topology]
name = 'SourceTable'
source_topic = 'input-topic'
source_partitions = 1
store = 'kv-store'
keys = 4
[[test]]
title = 'Scripted'
    [[test.step]]
    produce = { records = [ { partition = 0, key = 1, value = 10, timestamp_ms = 0 } ] }
    [[test.step]]
    run_until = 'quiescent'
    [[test.step]]
    query = { store = 'kv-store', type = 'KeyQuery', key = 1, partitions = [0] }
    expect = [ { partition = 0, value = 99 } ]
)";

// One seed's scripted expectation is wrong: exit 1, a reproduce line, the failing scenario
// written to --failures-dir, and replay printing the violation in full.
TEST_F(IqsimBinaryTest, FailingSeedsAreReportedReproducibleAndKept) {
  fs::path file = path("wrong.toml");
  write_file(file, kWrongExpectation);
  std::string f = file.string();
  Outcome fuzz =
      iqsim({"fuzz", f, "--seeds", "3", "--jobs", "2", "--stop-on-failure", "--failures-dir",
             path("failures").string(), "--json", path("out.json").string()});
  EXPECT_EQ(fuzz.exit_code, 1) << fuzz.out << fuzz.err;
  EXPECT_NE(fuzz.out.find("iqsim replay " + f + " --seed 1"), std::string::npos) << fuzz.out;
  EXPECT_NE(fuzz.out.find("(stopped at the first failure)"), std::string::npos) << fuzz.out;
  EXPECT_TRUE(fs::exists(path("failures") / "wrong-seed1.toml"));
  nlohmann::json j = read_json(path("out.json"));
  EXPECT_EQ(j["totals"]["runs"], 1u);
  EXPECT_EQ(j["totals"]["violations_by_property"]["ScriptedExpectations"], 1u);
  EXPECT_EQ(j["results"][0]["violations"][0]["property"], "ScriptedExpectations");

  Outcome replay = iqsim({"replay", f, "--seed", "1"});
  EXPECT_EQ(replay.exit_code, 1) << replay.err;
  EXPECT_NE(replay.out.find("expected:  value=99"), std::string::npos) << replay.out;

  Outcome kept = iqsim({"run", (path("failures") / "wrong-seed1.toml").string()});
  EXPECT_EQ(kept.exit_code, 1) << kept.out << kept.err;
  EXPECT_NE(kept.out.find("seed 1\n"), std::string::npos) << kept.out;

  std::string minimal = path("min.toml").string();
  Outcome shrink = iqsim({"shrink", f, "--seed", "1", "--out", minimal, "--runs-max", "20"});
  EXPECT_EQ(shrink.exit_code, 1) << shrink.out << shrink.err;
  EXPECT_NE(shrink.out.find("reproduce: iqsim run " + minimal), std::string::npos) << shrink.out;
  EXPECT_NE(shrink.out.find("it violates ScriptedExpectations"), std::string::npos) << shrink.out;
  Outcome rerun = iqsim({"run", minimal});
  EXPECT_EQ(rerun.exit_code, 1) << rerun.out << rerun.err;
  EXPECT_NE(rerun.out.find("ScriptedExpectations"), std::string::npos) << rerun.out;
}

// The count finding with its declared properties replaced by the behaviour it allows: every
// violation is at-least-once reprocessing the run's record proves, so run, replay and fuzz exit 0
// and print the known behaviour apart;
// --strict makes each exit 1; the JSON counts the violations and seeds by class.
TEST_F(IqsimBinaryTest, KnownKafkaBehaviourExitsZeroUnlessStrict) {
  std::string text = read_file(fs::path(IQSIM_SCENARIOS_DIR) / "findings" /
                               "alos_count_double_counts_after_crash.toml");
  const std::string declared =
      "expected_failures = ['ResultMatchesModel', 'SamePositionSameAnswer']\n";
  const size_t at = text.find(declared);
  ASSERT_NE(at, std::string::npos) << "the finding's declaration moved";
  // Declared instead as an allowed behaviour: a class a scenario does not allow fails the run.
  text.replace(at, declared.size(), "allowed_behaviours = ['alos_reprocessing']\n");
  fs::path file = path("alos.toml");
  write_file(file, text);
  const std::string f = file.string();

  Outcome run = iqsim({"run", f});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(
      run.out.find("[known Kafka behaviour: at-least-once reprocessing] [ResultMatchesModel]"),
      std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("PASSED (every violation is a known Kafka behaviour)"), std::string::npos)
      << run.out;
  Outcome strict = iqsim({"run", f, "--strict"});
  EXPECT_EQ(strict.exit_code, 1) << strict.out << strict.err;
  Outcome replay = iqsim({"replay", f, "--seed", "1"});
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("  class:     record #"), std::string::npos) << replay.out;
  Outcome replay_strict = iqsim({"replay", f, "--seed", "1", "--strict"});
  EXPECT_EQ(replay_strict.exit_code, 1) << replay_strict.out << replay_strict.err;

  Outcome fuzz = iqsim({"fuzz", f, "--seeds", "2", "--json", path("alos.json").string(), "--junit",
                        path("alos.xml").string()});
  EXPECT_EQ(fuzz.exit_code, 0) << fuzz.out << fuzz.err;
  EXPECT_NE(fuzz.out.find("PASSED: no failures; known Kafka behaviour: at-least-once "
                          "reprocessing, 2 seeds"),
            std::string::npos)
      << fuzz.out;
  nlohmann::json j = read_json(path("alos.json"));
  EXPECT_EQ(j["totals"]["failed"], 0u) << j.dump(2);
  EXPECT_EQ(j["totals"]["failed_strict"], 2u) << j.dump(2);
  EXPECT_EQ(j["totals"]["seeds_by_class"]["alos_reprocessing"], 2u) << j.dump(2);
  EXPECT_EQ(j["totals"]["violations_by_class"].count("failure"), 0u) << j.dump(2);
  EXPECT_EQ(j["results"][0]["violations"][0]["class"], "alos_reprocessing") << j.dump(2);
  const std::string junit = read_file(path("alos.xml"));
  EXPECT_NE(junit.find("failures=\"0\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("name=\"seeds.alos_reprocessing\" value=\"2\""), std::string::npos) << junit;
  // The sweep report of a passing sweep with a known behaviour: no red, the behaviour explained
  // and linked to the page of its first seed, which exists.
  Outcome reported = iqsim({"fuzz", f, "--seeds", "2", "--report", path("alos-report").string()});
  EXPECT_EQ(reported.exit_code, 0) << reported.out << reported.err;
  const std::string index = read_file(path("alos-report") / "index.html");
  EXPECT_EQ(index.find("verdict fail"), std::string::npos) << "red on a passing sweep";
  for (const char* part :
       {"What this sweep shows about Kafka's IQ semantics", "<a href=\"#about-alos_reprocessing\">",
        "id=\"about-alos_reprocessing\"", "<a href=\"alos-seed1.html\">seed 1</a>",
        "id=\"chart-outcomes-by-phase\"", "id=\"chart-staleness-records\"",
        "id=\"chart-staleness-spread-ms\"", "id=\"chart-probes\""}) {
    EXPECT_NE(index.find(part), std::string::npos) << part;
  }
  const std::string first = read_file(path("alos-report") / "alos-seed1.html");
  EXPECT_NE(first.find("id=\"about-alos_reprocessing\""), std::string::npos);
  EXPECT_FALSE(fs::exists(path("alos-report") / "alos-seed2.html")) << "one page per behaviour";
  Outcome fuzz_strict = iqsim({"fuzz", f, "--seeds", "2", "--strict"});
  EXPECT_EQ(fuzz_strict.exit_code, 1) << fuzz_strict.out << fuzz_strict.err;
  EXPECT_NE(fuzz_strict.out.find("FAILED (--strict): known Kafka behaviour"), std::string::npos)
      << fuzz_strict.out;
}

// Whether an HTML report stands alone: nothing it would fetch (scripts, styles, images, frames
// from elsewhere). The SVG namespace is an identifier, not a fetch.
void expect_self_contained(const std::string& html, const std::string& what) {
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << what;
  for (const char* fetch : {"src=\"http", "href=\"http", "<link", "url(http", "@import"}) {
    EXPECT_EQ(html.find(fetch), std::string::npos) << what << " fetches: " << fetch;
  }
}

// --report DIR on run, replay, fuzz and shrink writes one self-contained page per run (and an
// index for a sweep linking every failing seed's page), prints its path, and refuses a DIR that
// cannot be a directory with exit 2.
TEST_F(IqsimBinaryTest, ReportFlagWritesSelfContainedPagesOnEveryCommand) {
  fs::path file = path("wrong.toml");
  write_file(file, kWrongExpectation);
  std::string f = file.string();

  Outcome run = iqsim({"run", f, "--report", path("run").string()});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  fs::path page = path("run") / "wrong-seed1.html";
  EXPECT_NE(run.out.find("report: " + page.string()), std::string::npos) << run.out;
  std::string html = read_file(page);
  expect_self_contained(html, page.string());
  for (const char* part : {"id=\"summary\"", "id=\"timeline-p0\"", "id=\"placement\"",
                           "id=\"staleness\"", "ScriptedExpectations", "iqsim replay "}) {
    EXPECT_NE(html.find(part), std::string::npos) << part;
  }

  Outcome replay = iqsim({"replay", f, "--seed", "1", "--report", path("replay").string()});
  EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
  EXPECT_TRUE(fs::exists(path("replay") / "wrong-seed1.html")) << replay.out;

  Outcome fuzz = iqsim({"fuzz", f, "--seeds", "2", "--report", path("fuzz").string()});
  EXPECT_EQ(fuzz.exit_code, 1) << fuzz.out << fuzz.err;
  fs::path index = path("fuzz") / "index.html";
  EXPECT_NE(fuzz.out.find("report: " + index.string()), std::string::npos) << fuzz.out;
  std::string sweep = read_file(index);
  expect_self_contained(sweep, index.string());
  for (const char* seed_page : {"wrong-seed1.html", "wrong-seed2.html"}) {
    EXPECT_NE(sweep.find(std::string("href=\"") + seed_page + "\""), std::string::npos)
        << seed_page;
    EXPECT_TRUE(fs::exists(path("fuzz") / seed_page)) << seed_page;
  }

  Outcome shrink = iqsim({"shrink", f, "--seed", "1", "--out", path("min.toml").string(),
                          "--runs-max", "10", "--report", path("shrink").string()});
  EXPECT_EQ(shrink.exit_code, 1) << shrink.out << shrink.err;
  EXPECT_NE(shrink.out.find("report: "), std::string::npos) << shrink.out;
  bool shrink_page = false;
  for (const auto& entry : fs::directory_iterator(path("shrink"))) {
    shrink_page = shrink_page || entry.path().extension() == ".html";
  }
  EXPECT_TRUE(shrink_page) << shrink.out;

  write_file(path("not-a-dir"), "x");
  Outcome bad = iqsim({"run", f, "--report", path("not-a-dir").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("--report " + path("not-a-dir").string()), std::string::npos) << bad.err;
}

bool hit(const nlohmann::json& result, const std::string& probe) {
  for (const auto& name : result["probes_hit"]) {
    if (name == probe) return true;
  }
  return false;
}

// exactly_once_v2 through every command: an EOS scenario (fast/eos_crash_before_commit_restores_
// committed_only.toml: a crash inside an open transaction, a restart on the state updater's
// restoration .checkpoint) runs, is deterministic and sweeps, each seed committing transactions
// and writing the restoration checkpoint under exactly-once; the
// same file expecting what at-least-once answers (10, each record counted twice) fails under EOS,
// replays with that expectation, writes its report and shrinks to a file that still runs
// exactly_once_v2 (under at-least-once the expectation would hold) and still fails.
TEST_F(IqsimBinaryTest, ExactlyOnceRunsThroughEveryCommand) {
  const std::string text = read_file(fs::path(IQSIM_SCENARIOS_DIR) / "fast" /
                                     "eos_crash_before_commit_restores_committed_only.toml");
  ASSERT_NE(text.find("\"processing.guarantee\" = 'exactly_once_v2'"), std::string::npos);
  fs::path file = path("eos.toml");
  write_file(file, text);
  nlohmann::json j = expect_passes_every_command(file, "eos.transaction_committed");
  EXPECT_TRUE(hit(j["results"][0], "eos.restored_checkpoint_written")) << j.dump(2);

  const std::string eos_answer =
      "expect = { partition = 0, value = 5, position = { words = { 0 = 4 } } }";
  const size_t last = text.rfind(eos_answer);
  ASSERT_NE(last, std::string::npos) << "the scenario's last expectation moved";
  std::string wrong_text = text;
  wrong_text.replace(last, eos_answer.size(),
                     "expect = { partition = 0, value = 10, position = { words = { 0 = 4 } } }");
  fs::path wrong = path("eos_wrong.toml");
  write_file(wrong, wrong_text);
  FailedEverywhere failed = expect_fails_every_command(wrong);
  EXPECT_NE(failed.page.find("exactly_once_v2"), std::string::npos);
  EXPECT_NE(failed.replay.out.find("expected:  value=10"), std::string::npos) << failed.replay.out;
  EXPECT_NE(failed.shrunk.find("\"processing.guarantee\" = 'exactly_once_v2'"), std::string::npos)
      << failed.shrunk;
}

// Every store family beyond key-value through every command: a scripted window, session and
// versioned scenario (scenarios/fast/) runs with its family's probe hit, is deterministic, replays
// and sweeps; the same file with its last expected value changed fails, replays, writes a report
// page that renders the family's answer readably (window bounds, session bounds, version validity)
// and shrinks to a file that still fails.
struct FamilyCase {
  std::string family;
  std::string file;      // in scenarios/fast/
  std::string probe;     // a probe only this family's stores hit
  std::string expected;  // the last expectation's text in the file
  std::string wrong;     // the same expectation with its value changed
  std::string rendered;  // how the report page shows the family's answer
};

TEST_F(IqsimBinaryTest, EveryStoreFamilyRunsThroughEveryCommand) {
  const std::vector<FamilyCase> cases{
      {"window", "window_late_records_failover.toml", "window.record_skipped_expired",
       "{ start_ms = 100_000, value = 2 }], position = { input-topic = { 0 = 6 } }",
       "{ start_ms = 100_000, value = 3 }], position = { input-topic = { 0 = 6 } }",
       "key 1, window [100000, 110000) ms: 2"},
      {"session", "session_merges_gap_grace_rocksdb.toml", "session.merged",
       "{ key = 1, start_ms = 60000, end_ms = 60000, value = 1 }",
       "{ key = 1, start_ms = 60000, end_ms = 60000, value = 7 }",
       "key 1, session [60000, 60000] ms: 1"},
      {"versioned", "versioned_history_after_restart.toml", "versioned.key_query_answered",
       "versions = [{ value = 15, timestamp_ms = 2_500, valid_to_ms = 3_000 }], position",
       "versions = [{ value = 16, timestamp_ms = 2_500, valid_to_ms = 3_000 }], position",
       "15, valid from 2500 to 3000 ms"},
  };
  for (const FamilyCase& c : cases) {
    SCOPED_TRACE(c.family + " (" + c.file + ")");
    const std::string text = read_file(fs::path(IQSIM_SCENARIOS_DIR) / "fast" / c.file);
    fs::path file = path(c.family + ".toml");
    write_file(file, text);
    expect_passes_every_command(file, c.probe);

    const size_t last = text.rfind(c.expected);
    ASSERT_NE(last, std::string::npos) << "the scenario's last expectation moved";
    std::string wrong_text = text;
    wrong_text.replace(last, c.expected.size(), c.wrong);
    fs::path wrong = path(c.family + "_wrong.toml");
    write_file(wrong, wrong_text);
    FailedEverywhere failed = expect_fails_every_command(wrong);
    EXPECT_NE(failed.page.find(c.rendered), std::string::npos) << c.rendered;
  }
}

// Every output is checked before anything runs: a device, a symlink, a directory where a file is
// expected, a file where a directory is expected, and an input of the same command are refused
// with exit 2 naming the flag and the path, and none of them is touched.
TEST_F(IqsimBinaryTest, OutputPathsAreRefusedBeforeAnySeedRuns) {
  fs::path file = path("small.toml");
  write_file(file, kSmallTemplate);
  std::string f = file.string();
  std::string text = read_file(file);
  fs::create_symlink(file, path("link.json"));
  fs::create_directories(path("dir"));
  write_file(path("plain"), "keep");
  struct Case {
    std::vector<std::string> args;
    std::string flag_and_path;
  };
  std::vector<Case> cases = {
      {{"run", f, "--json", f}, "--json " + f},
      {{"run", f, "--json", "/dev/null"}, "--json /dev/null"},
      {{"run", f, "--junit", path("link.json").string()}, "--junit " + path("link.json").string()},
      {{"run", f, "--json", path("dir").string()}, "--json " + path("dir").string()},
      {{"run", f, "--report", path("plain").string()}, "--report " + path("plain").string()},
      {{"fuzz", f, "--seeds", "3", "--json", f}, "--json " + f},
      {{"fuzz", f, "--seeds", "3", "--junit", "/dev/null"}, "--junit /dev/null"},
      {{"fuzz", f, "--seeds", "3", "--failures-dir", path("plain").string()},
       "--failures-dir " + path("plain").string()},
      {{"fuzz", f, "--seeds", "3", "--report", path("plain").string()},
       "--report " + path("plain").string()},
      {{"fuzz", f, "--seeds", "3", "--json", path("a.json").string(), "--journal", f},
       "--journal " + f},
      // Paths that pass as absent or a directory but cannot be written: tried before any seed
      // (issue 31), not found after the sweep.
      {{"fuzz", f, "--seeds", "3", "--junit", "/proc/x"}, "--junit /proc/x"},
      {{"fuzz", f, "--seeds", "3", "--json", "/proc/x"}, "--json /proc/x"},
      {{"fuzz", f, "--seeds", "3", "--report", "/proc/x"}, "--report /proc/x"},
      {{"fuzz", f, "--seeds", "3", "--failures-dir", "/proc"}, "--failures-dir /proc"},
      {{"shrink", f, "--seed", "1", "--out", f}, "--out " + f},
      {{"replay", f, "--seed", "1", "--report", path("plain").string()},
       "--report " + path("plain").string()},
      {{"merge", path("plain").string(), path("plain").string()}, "OUT " + path("plain").string()},
  };
  for (const Case& c : cases) {
    Outcome o = iqsim(c.args);
    EXPECT_EQ(o.exit_code, 2) << c.flag_and_path << "\n" << o.out << o.err;
    EXPECT_NE(o.err.find(c.flag_and_path), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("accepted:"), std::string::npos) << o.err;
    // Refused before any run: nothing was judged.
    EXPECT_EQ(o.out.find("queries judged"), std::string::npos) << c.flag_and_path << o.out;
  }
  EXPECT_EQ(read_file(file), text) << "the scenario was overwritten";
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced";
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_EQ(read_file(path("plain")), "keep");
  EXPECT_FALSE(fs::exists(path("a.json.journal")));
}

// Seeds and other numbers are decimal digits within a stated range: a sign, an empty value, 2^64,
// hex or junk is exit 2 naming the flag and the accepted range, never a wrapped or clamped seed.
TEST_F(IqsimBinaryTest, NumbersOutOfRangeOrNotDecimalAreRefused) {
  fs::path file = path("small.toml");
  write_file(file, kSmallTemplate);
  std::string f = file.string();
  struct Case {
    std::vector<std::string> args;
    std::string flag;
  };
  std::vector<Case> cases = {
      {{"run", f, "--seed", "-1"}, "--seed '-1'"},
      {{"run", f, "--seed", "18446744073709551616"}, "--seed '18446744073709551616'"},
      {{"run", f, "--seed", ""}, "--seed ''"},
      {{"run", f, "--seed", "0x10"}, "--seed '0x10'"},
      {{"replay", f, "--seed", "+3"}, "--seed '+3'"},
      {{"check-determinism", f, "--seed", "1.5"}, "--seed '1.5'"},
      {{"check-determinism", f, "--runs", "1"}, "--runs '1'"},
      {{"shrink", f, "--seed", "1", "--runs-max", "0"}, "--runs-max '0'"},
      {{"fuzz", f, "--seeds", "-3"}, "--seeds '-3'"},
      {{"fuzz", f, "--seeds", "3", "--first-seed", "-1"}, "--first-seed '-1'"},
      {{"fuzz", f, "--seeds", "3", "--jobs", "-1"}, "--jobs '-1'"},
      {{"fuzz", f, "--seeds", "3", "--jobs", "257"}, "--jobs '257'"},
      {{"fuzz", f, "--seeds", "3", "--shard", "-0/2"}, "--shard '-0/2'"},
      {{"fuzz", f, "--seeds", "3", "--shard", "1/ 2"}, "--shard '1/ 2'"},
  };
  for (const Case& c : cases) {
    Outcome o = iqsim(c.args);
    EXPECT_EQ(o.exit_code, 2) << c.flag << "\n" << o.out << o.err;
    EXPECT_NE(o.err.find(c.flag), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("accepted:"), std::string::npos) << c.flag << ": " << o.err;
    EXPECT_EQ(o.out.find("queries judged"), std::string::npos) << c.flag << o.out;
  }
  Outcome max = iqsim({"run", f, "--seed", "18446744073709551615"});
  EXPECT_NE(max.out.find("seed 18446744073709551615\n"), std::string::npos) << max.out << max.err;
}

// An unknown command is named with the list of commands; a long value in a message is cut to
// a prefix with its length; merge says which file is not JSON or not a summary, and how.
TEST_F(IqsimBinaryTest, MessagesNameTheWordTheFileAndCutLongValues) {
  Outcome unknown = iqsim({"frobnicate"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("'frobnicate' is not a command"), std::string::npos) << unknown.err;
  EXPECT_NE(
      unknown.err.find("run, fuzz, explore, upgrade, replay, shrink, check-determinism, merge"),
      std::string::npos)
      << unknown.err;

  fs::path file = path("small.toml");
  write_file(file, kSmallTemplate);
  std::string huge(100'000, '7');
  Outcome long_seed = iqsim({"run", file.string(), "--seed", huge});
  EXPECT_EQ(long_seed.exit_code, 2);
  EXPECT_NE(long_seed.err.find("(100000 bytes)"), std::string::npos) << long_seed.err.size();
  EXPECT_LT(long_seed.err.size(), 1000u);
  Outcome long_flag = iqsim({"run", file.string(), "--" + std::string(100'000, 'x')});
  EXPECT_EQ(long_flag.exit_code, 2);
  EXPECT_LT(long_flag.err.size(), 1000u) << long_flag.err.substr(0, 300);

  write_file(path("text.json"), "hello");
  write_file(path("array.json"), "[1, 2]");
  write_file(path("shape.json"), R"({"tool": {"version": 3}})");
  nlohmann::json no_digest = to_json(summary_of("s.toml", {1}, false));
  no_digest["results"][0].erase("digest");
  write_file(path("digest.json"), no_digest.dump());
  struct Case {
    std::string name, says;
  };
  for (const Case& c : std::vector<Case>{
           {"text.json", "text.json: not valid JSON (the first error at byte 1 of 5)"},
           {"array.json", "array.json: not an iqsim summary: summary: must be an object, is array"},
           {"shape.json",
            "shape.json: not an iqsim summary: summary.tool.version: must be a "
            "string, is number"},
           {"digest.json", "digest.json: not an iqsim summary: summary.results[0].digest: missing"},
           {"missing.json", "cannot read " + path("missing.json").string()}}) {
    Outcome o = iqsim({"merge", path("out.json").string(), path(c.name).string()});
    EXPECT_EQ(o.exit_code, 2) << c.name;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("json.exception"), std::string::npos) << o.err;
  }
}

// merge refuses gaps (naming the missing seeds as ranges) unless --allow-gaps, and summaries
// written by another iqsim version (naming the file).
TEST_F(IqsimBinaryTest, MergeRefusesGapsAndOtherVersions) {
  SweepSummary low = summary_of("s.toml", {1, 2, 3, 4, 5}, false);
  low.seed_count = 5;
  SweepSummary high = summary_of("s.toml", {11, 12, 13, 14, 15}, false);
  high.first_seed = 11;
  high.seed_count = 5;
  write_file(path("low.json"), to_json(low).dump());
  write_file(path("high.json"), to_json(high).dump());
  Outcome gaps = iqsim(
      {"merge", path("m.json").string(), path("low.json").string(), path("high.json").string()});
  EXPECT_EQ(gaps.exit_code, 2) << gaps.out;
  EXPECT_NE(gaps.err.find("5 seeds in no input (6..10)"), std::string::npos) << gaps.err;
  EXPECT_FALSE(fs::exists(path("m.json")));
  Outcome allowed = iqsim({"merge", path("m.json").string(), path("low.json").string(),
                           path("high.json").string(), "--allow-gaps"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_EQ(read_json(path("m.json"))["totals"]["runs"], 10u);

  SweepSummary old = summary_of("s.toml", {6, 7, 8, 9, 10}, false);
  old.tool_version = "0.0.1";
  write_file(path("old.json"), to_json(old).dump());
  Outcome versions = iqsim({"merge", path("v.json").string(), path("low.json").string(),
                            path("old.json").string(), path("high.json").string()});
  EXPECT_EQ(versions.exit_code, 2);
  EXPECT_NE(versions.err.find(path("old.json").string() + " was written by iqsim 0.0.1"),
            std::string::npos)
      << versions.err;
}

// A template whose seeds take a fraction of a second each (long virtual time), so a sweep
// can be caught part way.
std::string slow_template(const std::string& duration_ms) {
  std::string t = kSmallTemplate;
  size_t at = t.find("duration_ms = 2_000");
  t.replace(at, std::string("duration_ms = 2_000").size(), "duration_ms = " + duration_ms);
  return t;
}

size_t lines_of(const fs::path& file) {
  std::string text = read_file(file);
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Polls `done` up to `polls_max` times, 10 ms apart: a bounded wait for another process.
bool wait_until(const std::function<bool()>& done, int polls_max = 3000) {
  for (int i = 0; i < polls_max; ++i) {
    if (done()) return true;
    usleep(10'000);
  }
  return done();
}

nlohmann::json without_timing(nlohmann::json j) {
  j.erase("timing");
  return j;
}

// A sweep killed with SIGKILL after K seeds were journaled, then resumed, writes exactly the
// summary of the same sweep run uninterrupted (digests included); a torn last line is dropped.
TEST_F(IqsimBinaryTest, SweepKilledAndResumedEqualsTheUninterruptedSweep) {
  fs::path file = path("slow.toml");
  write_file(file, slow_template("20_000"));
  std::string f = file.string();
  Outcome whole = iqsim({"fuzz", f, "--seeds", "8", "--json", path("whole.json").string()});
  ASSERT_NE(whole.exit_code, 2) << whole.err;
  EXPECT_FALSE(fs::exists(path("whole.json.journal"))) << "a complete sweep keeps no journal";

  std::vector<std::string> args = {"fuzz",   f,   "--seeds", "8",
                                   "--jobs", "2", "--json",  path("cut.json").string()};
  fs::path journal = path("cut.json.journal");
  pid_t pid = start(args);
  ASSERT_GT(pid, 0);
  const size_t k = 3;  // the header and two seeds
  bool reached = wait_until([&] { return lines_of(journal) >= k; });
  kill(pid, SIGKILL);
  Outcome killed = finish(pid);
  ASSERT_TRUE(reached) << "the journal never reached " << k << " lines";
  size_t lines = lines_of(journal);
  ASSERT_LT(lines, 9u) << "the sweep finished before it was killed: nothing to resume";
  EXPECT_FALSE(fs::exists(path("cut.json")));
  // A torn line, as a death inside write(2) leaves it.
  { std::ofstream(journal, std::ios::app) << R"({"seed": 8, "pass)"; }

  Outcome refused = iqsim(args);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--resume"), std::string::npos) << refused.err;
  std::vector<std::string> other = args;
  other[3] = "9";
  other.push_back("--resume");
  Outcome mismatch = iqsim(other);
  EXPECT_EQ(mismatch.exit_code, 2);
  EXPECT_NE(mismatch.err.find("belongs to another sweep (its seed_count is 8, this sweep's is 9)"),
            std::string::npos)
      << mismatch.err;

  args.push_back("--resume");
  Outcome resumed = iqsim(args);
  EXPECT_EQ(resumed.exit_code, whole.exit_code) << resumed.out << resumed.err;
  EXPECT_NE(resumed.err.find("seeds done"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("a torn last line was dropped"), std::string::npos) << resumed.err;
  nlohmann::json w = without_timing(read_json(path("whole.json")));
  nlohmann::json r = without_timing(read_json(path("cut.json")));
  EXPECT_EQ(r["results"], w["results"]);
  EXPECT_EQ(r["totals"], w["totals"]);
  EXPECT_EQ(r["partial"], false);
  r.erase("results");
  w.erase("results");
  EXPECT_EQ(r, w);
}

// SIGINT and SIGTERM stop the sweep: running children are killed, and the summary, JUnit and
// report of the finished seeds are written marked partial, with exit 130 / 143.
TEST_F(IqsimBinaryTest, SignalsWriteAPartialSummary) {
  fs::path file = path("slow.toml");
  write_file(file, slow_template("20_000"));
  std::string f = file.string();
  for (auto [signal, code] : {std::pair{SIGINT, 130}, std::pair{SIGTERM, 143}}) {
    std::string tag = std::to_string(signal);
    fs::remove(path("p.json.journal"));
    pid_t pid =
        start({"fuzz", f, "--seeds", "50", "--jobs", "2", "--json",
               path("p" + tag + ".json").string(), "--journal", path("p.json.journal").string(),
               "--junit", path("p" + tag + ".xml").string(), "--report", path("r" + tag).string()});
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(wait_until([&] { return lines_of(path("p.json.journal")) >= 3; }));
    kill(pid, signal);
    Outcome o = finish(pid);
    EXPECT_EQ(o.exit_code, code) << o.out << o.err;
    nlohmann::json j = read_json(path("p" + tag + ".json"));
    EXPECT_EQ(j["partial"], true);
    uint64_t runs = j["totals"]["runs"].get<uint64_t>();
    EXPECT_GE(runs, 2u);
    EXPECT_LT(runs, 50u);
    EXPECT_EQ(runs + 1, lines_of(path("p.json.journal"))) << "every finished seed is journaled";
    EXPECT_NE(o.out.find("PARTIAL: interrupted; " + std::to_string(runs) + " of 50 seeds"),
              std::string::npos)
        << o.out;
    EXPECT_NE(read_file(path("p" + tag + ".xml")).find("tests=\"" + std::to_string(runs) + "\""),
              std::string::npos);
    EXPECT_TRUE(fs::exists(path("r" + tag) / "index.html"));
  }
}

// The pids of the processes whose parent is `parent` (from /proc).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = read_file(entry.path() / "stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    fields >> state >> ppid;
    if (ppid == parent) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

// Whether `pid` is gone (or a zombie waiting for whoever adopted it: it runs no more).
bool gone(pid_t pid) {
  std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  size_t close = stat.rfind(')');
  return stat.empty() || close == std::string::npos || stat[close + 2] == 'Z';
}

// A sweep killed with SIGKILL takes its running children with it (PR_SET_PDEATHSIG): each child
// pid seen before the kill is gone within a bounded wait, far shorter than its seed's run.
TEST_F(IqsimBinaryTest, NoChildOutlivesAKilledSweep) {
  fs::path file = path("slower.toml");
  write_file(file, slow_template("3_000_000"));
  pid_t pid = start({"fuzz", file.string(), "--seeds", "4", "--jobs", "2"});
  ASSERT_GT(pid, 0);
  std::vector<pid_t> children;
  ASSERT_TRUE(wait_until([&] {
    children = children_of(pid);
    return children.size() == 2;
  }));
  kill(pid, SIGKILL);
  finish(pid);
  for (pid_t child : children) {
    EXPECT_TRUE(wait_until([&] { return gone(child); }, 100)) << "child " << child << " survived";
    if (!gone(child)) kill(child, SIGKILL);  // do not leave it to the next test
  }
}

}  // namespace
// merge --report builds the sweep report from shards run elsewhere: the same failing seeds'
// pages as `fuzz --report` on the whole sweep, each rebuilt from its seed and the scenario file
// the shards name; a scenario path that does not resolve is refused with exit 2.
TEST_F(IqsimBinaryTest, MergeReportRebuildsTheSweepReportFromShards) {
  fs::path file = path("wrong.toml");
  write_file(file, kWrongExpectation);
  std::string f = file.string();
  Outcome whole = iqsim({"fuzz", f, "--seeds", "4", "--report", path("whole").string()});
  ASSERT_EQ(whole.exit_code, 1) << whole.out << whole.err;
  for (int shard = 0; shard < 2; ++shard) {
    std::string name = "s" + std::to_string(shard) + ".json";
    Outcome o = iqsim({"fuzz", f, "--seeds", "4", "--shard", std::to_string(shard) + "/2", "--json",
                       path(name).string()});
    ASSERT_EQ(o.exit_code, 1) << o.out << o.err;
  }
  Outcome merge = iqsim({"merge", path("m.json").string(), path("s0.json").string(),
                         path("s1.json").string(), "--report", path("merged").string()});
  ASSERT_EQ(merge.exit_code, 1) << merge.out << merge.err;
  EXPECT_NE(merge.out.find("report: " + (path("merged") / "index.html").string()),
            std::string::npos)
      << merge.out;
  std::string index = read_file(path("merged") / "index.html");
  expect_self_contained(index, "merged/index.html");
  for (int seed = 1; seed <= 4; ++seed) {
    std::string page = "wrong-seed" + std::to_string(seed) + ".html";
    EXPECT_NE(index.find(page), std::string::npos) << page;
    EXPECT_EQ(read_file(path("merged") / page), read_file(path("whole") / page))
        << "seed " << seed << ": the rebuilt page differs from the sweep's own";
  }
  // The shards name the scenario by the path they were given: moved away, merge cannot rebuild.
  fs::rename(file, path("moved.toml"));
  Outcome lost = iqsim({"merge", path("m2.json").string(), path("s0.json").string(),
                        path("s1.json").string(), "--report", path("lost").string()});
  EXPECT_EQ(lost.exit_code, 2) << lost.out << lost.err;
  EXPECT_NE(lost.err.find("is not a file here"), std::string::npos) << lost.err;
}

}  // namespace iq::cli

namespace iq::cli {
namespace {

// An explorer summary without what is measured (CPU per seed) or says where it ran (shards).
nlohmann::json explore_results(const nlohmann::json& j) {
  nlohmann::json out = nlohmann::json::array();
  for (const nlohmann::json& c : j["configurations"]) {
    out.push_back({{"name", c["name"]}, {"file", c["file"]}, {"results", c["summary"]["results"]}});
  }
  return out;
}

// A 2x2 grid over two seeds: every configuration runs the same seeds, each configuration's
// template holds its values and reproduces its seeds' digests, the report draws the comparison,
// and the text table names every configuration.
TEST_F(IqsimBinaryTest, ExploreRunsTheSameSeedsUnderEveryPointOfTheGrid) {
  fs::path file = path("slow.toml");
  write_file(file, slow_template("20_000"));  // long enough for the clients' queries to be routed
  Outcome o = iqsim({"explore", file.string(), "--grid", "num.standby.replicas=0,1", "--grid",
                     "topology.caching=true,false", "--seeds", "2", "--jobs", "2", "--json",
                     path("e.json").string(), "--report", path("report").string(), "--configs",
                     path("configs").string()});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("[4] num.standby.replicas=1, topology.caching=false"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("answered %"), std::string::npos) << o.out;
  nlohmann::json j = read_json(path("e.json"));
  ASSERT_EQ(j["configurations"].size(), 4u) << j.dump(2);
  std::set<std::string> digests;
  for (const nlohmann::json& c : j["configurations"]) {
    ASSERT_EQ(c["summary"]["results"].size(), 2u) << c.dump(2);
    EXPECT_EQ(c["summary"]["results"][0]["seed"], 1u);
    EXPECT_EQ(c["summary"]["results"][1]["seed"], 2u);
    EXPECT_GT(c["summary"]["results"][0]["query_outcomes"].value("ok", 0u), 0u) << c.dump(2);
    EXPECT_GT(c["cpu_ms_by_seed"]["1"].get<double>(), 0.0) << c.dump(2);
    digests.insert(c["summary"]["results"][0]["digest"].get<std::string>());
  }
  EXPECT_EQ(digests.size(), 4u) << "the grid's values changed nothing";
  // Configuration 2 (standbys 0, caching off): its template says so, and seed 2 of it is the run
  // the explorer judged.
  const nlohmann::json& second = j["configurations"][1];
  std::string text = read_file(second["file"].get<std::string>());
  EXPECT_NE(text.find("caching = false"), std::string::npos) << text;
  EXPECT_NE(text.find("'num.standby.replicas' = 0"), std::string::npos) << text;
  Outcome again = iqsim({"run", second["file"].get<std::string>(), "--seed", "2"});
  EXPECT_NE(again.out.find(second["summary"]["results"][1]["digest"].get<std::string>()),
            std::string::npos)
      << again.out;
  std::string html = read_file(path("report") / "index.html");
  expect_self_contained(html, "explore report");
  for (const char* part : {"<svg", "id=\"chart-explore-outcomes\"", "<details class=\"numbers\">",
                           "How the queries ended", "How stale the answers",
                           "num.standby.replicas=1, topology.caching=false"}) {
    EXPECT_NE(html.find(part), std::string::npos) << part;
  }
}

// A grid key the template lacks, or a value its key does not take, is refused before any seed
// runs, naming the key; a template's own [explore] grid is used when no --grid is given.
TEST_F(IqsimBinaryTest, ExploreRefusesAKeyTheTemplateLacksAndReadsItsOwnGrid) {
  fs::path file = path("small.toml");
  write_file(file, kSmallTemplate);
  Outcome typo = iqsim({"explore", file.string(), "--grid", "num.standby.replica=0,1", "--seeds",
                        "2", "--configs", path("c").string()});
  EXPECT_EQ(typo.exit_code, 2) << typo.out << typo.err;
  EXPECT_NE(typo.err.find("has no key 'num.standby.replica'"), std::string::npos) << typo.err;
  EXPECT_EQ(typo.out.find("answered"), std::string::npos) << typo.out;
  Outcome bad = iqsim({"explore", file.string(), "--grid", "num.standby.replicas=0,lots", "--seeds",
                       "2", "--configs", path("c").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("--grid num.standby.replicas=lots"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("num.standby.replicas"), std::string::npos) << bad.err;
  Outcome none = iqsim({"explore", file.string(), "--seeds", "2", "--configs", path("c").string()});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no grid"), std::string::npos) << none.err;

  fs::path own = path("own.toml");
  write_file(own, std::string(kSmallTemplate) +
                      "[explore]\ngrid = { 'topology.caching' = [true, false] }\n");
  Outcome ran = iqsim({"explore", own.string(), "--seeds", "1", "--configs", path("c2").string()});
  EXPECT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  EXPECT_NE(ran.out.find("[2] topology.caching=false"), std::string::npos) << ran.out;
  // `run` reads a template with an [explore] section as it reads any other.
  EXPECT_EQ(iqsim({"run", own.string()}).exit_code, 0);
}

// Malformed --grid flags and a malformed [explore] section exit 2 before any seed runs, naming
// the flag or the template's file:line and key (explore_test.cc has every case).
TEST_F(IqsimBinaryTest, ExploreRefusesMalformedGridsWithExitTwo) {
  fs::path file = path("small.toml");
  write_file(file, kSmallTemplate);
  for (const char* flag : {"num.standby.replicas", "num.standby.replicas=0,,1",
                           "num.standby.replicas=[0,1", "num.standby.replicas=1,1"}) {
    Outcome o = iqsim({"explore", file.string(), "--grid", flag, "--seeds", "2", "--configs",
                       path("c").string()});
    EXPECT_EQ(o.exit_code, 2) << flag << ": " << o.out << o.err;
    EXPECT_NE(o.err.find("--grid '" + std::string(flag) + "': "), std::string::npos) << o.err;
    EXPECT_EQ(o.out.find("answered"), std::string::npos) << flag << ": a seed ran";
  }
  Outcome twice = iqsim({"explore", file.string(), "--grid", "num.standby.replicas=0,1", "--grid",
                         "streams_config.num.standby.replicas=1", "--seeds", "2"});
  EXPECT_EQ(twice.exit_code, 2) << twice.err;
  EXPECT_NE(twice.err.find("as --grid 'num.standby.replicas=0,1' does"), std::string::npos)
      << twice.err;
  const std::string lines = std::to_string(lines_of(file) + 2);  // the grid's line
  for (const auto& [section, message] : std::vector<std::pair<std::string, std::string>>{
           {"[explore]\ngrid = { 'num.standby.replicas' = [] }\n",
            "key 'explore.grid.\"num.standby.replicas\"': expected a non-empty array"},
           {"[explore]\ngrid = { 'num.standby.replica' = [0, 1] }\n",
            "[explore] grid key 'num.standby.replica': the template"}}) {
    fs::path bad = path("bad-section.toml");
    write_file(bad, std::string(kSmallTemplate) + section);
    Outcome o = iqsim({"explore", bad.string(), "--seeds", "2", "--configs", path("c").string()});
    EXPECT_EQ(o.exit_code, 2) << section << o.out << o.err;
    EXPECT_NE(o.err.find(bad.string() + ":" + lines + ":"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find(message), std::string::npos) << section << o.err;
  }
}

// Two shards of an exploration merged equal the exploration run whole, configuration by
// configuration and seed by seed; an exploration killed part way resumes from its journal to the
// same results.
TEST_F(IqsimBinaryTest, ExploreShardsMergeAndAnInterruptedExplorationResumes) {
  fs::path file = path("slow.toml");
  write_file(file, slow_template("20_000"));
  const std::vector<std::string> common = {
      "explore", file.string(), "--grid",    "num.standby.replicas=0,1",
      "--seeds", "3",           "--configs", path("configs").string()};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = common;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  Outcome whole = iqsim(with({"--jobs", "2", "--json", path("whole.json").string()}));
  ASSERT_NE(whole.exit_code, 2) << whole.err;
  for (const char* shard : {"0", "1"}) {
    Outcome s = iqsim(with({"--shard", std::string(shard) + "/2", "--json",
                            path(std::string("s") + shard + ".json").string()}));
    ASSERT_NE(s.exit_code, 2) << s.err;
  }
  Outcome merged = iqsim({"merge", path("merged.json").string(), path("s0.json").string(),
                          path("s1.json").string(), "--report", path("mr").string()});
  ASSERT_NE(merged.exit_code, 2) << merged.out << merged.err;
  EXPECT_EQ(explore_results(read_json(path("merged.json"))),
            explore_results(read_json(path("whole.json"))));
  EXPECT_TRUE(fs::exists(path("mr") / "index.html"));

  std::vector<std::string> args = with({"--jobs", "2", "--json", path("cut.json").string()});
  fs::path journal = path("cut.json.journal");
  pid_t pid = start(args);
  ASSERT_GT(pid, 0);
  bool reached = wait_until([&] { return lines_of(journal) >= 3; });
  kill(pid, SIGKILL);
  finish(pid);
  ASSERT_TRUE(reached);
  ASSERT_LT(lines_of(journal), 7u) << "the exploration finished before it was killed";
  args.push_back("--resume");
  Outcome resumed = iqsim(args);
  EXPECT_EQ(resumed.exit_code, whole.exit_code) << resumed.out << resumed.err;
  EXPECT_NE(resumed.err.find("seeds done"), std::string::npos) << resumed.err;
  EXPECT_EQ(explore_results(read_json(path("cut.json"))),
            explore_results(read_json(path("whole.json"))));
}

}  // namespace
}  // namespace iq::cli

namespace iq::cli {
namespace {

// A tiny template for `iqsim upgrade`: exactly-once with a crash under queries, the new pin's
// default isolation level drawn per seed and a level drawn per query, so that both levels answer.
// Its stores are not transactional, so a READ_COMMITTED answer of the active's open transaction is
// a dirty read Kafka gives at the new pin (a ChangelogWitness violation of that declared class).
constexpr const char* kUpgradeTemplate = R"(title = 'upgrade under a crash'
allowed_behaviours = ['read_committed_not_transactional']
[configuration]
kafka = '2026-08-20'
instances = 3
store_backend = 'rocksdb'
virtual_time_ms_max = 120_000
[streams_config]
"default.interactive.query.isolation.level" = { one_of = ['READ_UNCOMMITTED', 'READ_COMMITTED'] }
"application.id" = 'upgrade'
"num.stream.threads" = 1
"processing.guarantee" = 'exactly_once_v2'
"num.standby.replicas" = 1
"statestore.cache.max.bytes" = 0
"commit.interval.ms" = 100
"session.timeout.ms" = 6_000
"heartbeat.interval.ms" = 2_000
"__iq.consistency.offset.vector.enabled__" = true
[topology]
name = 'Count'
source_partitions = 2
keys = 8
caching = false
[[test]]
duration_ms = 20_000
    [[test.workload]]
    name = 'Producer'
    records_per_second = 40
    stop_ms = 16_000
    [[test.workload]]
    name = 'QueryClients'
    clients = 2
    interval_ms = 100
    standby_one_in = 2
    isolation_level_one_in = 2
    [[test.workload]]
    name = 'Fault'
    action = 'crash'
    instance = 'instance-1'
    at_ms = 8_000
[liveness]
enabled = false
)";

// Two seeds at both pins: the same seeds under each, each pin's template reproducing its seeds'
// digests, the levels answered under the new pin only, the report and the summary JSON.
TEST_F(IqsimBinaryTest, UpgradeRunsEachSeedAtBothPins) {
  fs::path file = path("up.toml");
  write_file(file, kUpgradeTemplate);
  Outcome o = iqsim(
      {"upgrade", file.string(), "--seeds", "2", "--jobs", "2", "--out", path("out").string()});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  for (const char* part :
       {"iqsim upgrade", "2024-10-25: 2 seeds, 0 failing", "2026-08-20: 2 seeds, 0 failing",
        "seeds whose verdict changed", "READ_COMMITTED: ", "report: ", "summary: "}) {
    EXPECT_NE(o.out.find(part), std::string::npos) << part << "\n" << o.out;
  }
  nlohmann::json j = read_json(path("out") / "upgrade.json");
  EXPECT_EQ(j["command"], "upgrade");
  ASSERT_EQ(j["pins"].size(), 2u) << j.dump(2);
  const char* pins[] = {"2024-10-25", "2026-08-20"};
  for (size_t k = 0; k < 2; ++k) {
    const nlohmann::json& p = j["pins"][k];
    EXPECT_EQ(p["pin"], pins[k]);
    const nlohmann::json& results = p["summary"]["results"];
    ASSERT_EQ(results.size(), 2u) << p.dump(2);
    for (uint64_t seed = 1; seed <= 2; ++seed) {
      EXPECT_EQ(results[seed - 1]["seed"], seed);
      EXPECT_EQ(results[seed - 1]["kafka"], pins[k]);
      EXPECT_GT(p["cpu_ms_by_seed"][std::to_string(seed)].get<double>(), 0.0);
    }
    // The pin's template reproduces its seed 2.
    std::string text = read_file(p["file"].get<std::string>());
    EXPECT_NE(text.find(std::string("kafka = '") + pins[k] + "'"), std::string::npos) << text;
    Outcome again = iqsim({"run", p["file"].get<std::string>(), "--seed", "2"});
    EXPECT_NE(again.out.find(results[1]["digest"].get<std::string>()), std::string::npos)
        << again.out << again.err;
  }
  EXPECT_TRUE(j["pins"][0]["outcomes_by_level"].empty()) << "the old pin has no levels";
  for (const char* level : {"READ_COMMITTED", "READ_UNCOMMITTED"}) {
    EXPECT_GT(j["pins"][1]["outcomes_by_level"][level].value("ok", 0u), 0u) << level;
    EXPECT_TRUE(j["pins"][1]["dirty_reads"].contains(std::string(level) + "/answers")) << level;
  }
  EXPECT_TRUE(j["classes"].is_array());
  EXPECT_TRUE(j["changed_seeds"].is_array());
  std::string html = read_file(path("out") / "index.html");
  expect_self_contained(html, "upgrade report");
  for (const char* part : {"id=\"chart-upgrade-classes\"", "id=\"chart-upgrade-staleness-records\"",
                           "id=\"chart-upgrade-outcomes\"", "id=\"chart-upgrade-levels\"",
                           "id=\"chart-upgrade-cpu\"", "READ_COMMITTED against READ_UNCOMMITTED",
                           "Dirty reads by pin and level", "id=\"differences\""}) {
    EXPECT_NE(html.find(part), std::string::npos) << part;
  }
}

// Malformed input exits 2 before any seed runs, naming what was wrong: an unknown flag, --seeds 0
// or no --seeds, a template the parser refuses (file:line), a file that is not there, an --out
// that is a file.
TEST_F(IqsimBinaryTest, UpgradeRefusesMalformedInputWithExitTwo) {
  fs::path file = path("up.toml");
  write_file(file, kUpgradeTemplate);
  const auto refused = [&](const std::vector<std::string>& args, const std::string& message) {
    Outcome o = iqsim(args);
    EXPECT_EQ(o.exit_code, 2) << message << ": " << o.out << o.err;
    EXPECT_NE(o.err.find(message), std::string::npos) << o.err;
    EXPECT_EQ(o.out.find("seeds whose verdict changed"), std::string::npos) << "a seed ran";
  };
  refused({"upgrade", file.string(), "--seeds", "2", "--sed", "3"},
          "'--sed' is not a flag of 'iqsim upgrade'");
  refused({"upgrade", file.string(), "--seeds", "0"}, "--seeds");
  refused({"upgrade", file.string(), "--seeds", "2", "--jobs", "0"}, "--jobs");
  refused({"upgrade", file.string()}, "--seeds");
  refused({"upgrade", path("absent.toml").string(), "--seeds", "2"}, "absent.toml");
  fs::path bad = path("bad.toml");
  write_file(bad, std::string(kUpgradeTemplate) + "[broker]\nbogus_key = 1\n");
  refused({"upgrade", bad.string(), "--seeds", "2", "--out", path("o").string()},
          bad.string() + ":" + std::to_string(lines_of(bad)) + ":");
  write_file(path("a-file"), "x");
  refused({"upgrade", file.string(), "--seeds", "2", "--out", path("a-file").string()}, "--out");
}

}  // namespace
}  // namespace iq::cli
