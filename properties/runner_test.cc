// run_scenario() and judge(): a small scripted scenario through the simulator and every check;
// declared findings, a wrong expectation, a doctored trace, the determinism rerun and the checks a
// test selects.

#include "runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "scenario/scenario_driver.h"
#include "scenario/scenario_parser.h"

namespace iq::properties {
namespace {

constexpr uint64_t kSeed = 7;

// One instance, three records on two partitions, then a KeyQuery on partition 0 whose expected
// answer is `value`, at position {input-topic: {0: 1}}. `extra` goes at the top of the file,
// `test_extra` into the [[test]] table.
std::string scripted(int64_t value, const std::string& extra = "",
                     const std::string& test_extra = "") {
  return extra + R"(
title = 'runner test'
seed = 7

[configuration]
instances = 1
store_backend = 'in_memory'

[streams_config]
"commit.interval.ms" = 100

[topology]
name = 'SourceTable'
source_topic = 'input-topic'
source_partitions = 2
store = 'kv-store'
keys = 8
caching = false
logging = true

[[test]]
title = 'Scripted'
)" + test_extra +
         R"(
    [[test.step]]
    produce = { records = [
      { partition = 0, key = 1, value = 10, timestamp_ms = 0 },
      { partition = 0, key = 1, value = 11, timestamp_ms = 1 },
      { partition = 1, key = 2, value = 20, timestamp_ms = 2 },
    ] }

    [[test.step]]
    run_until = 'quiescent'

    [[test.step]]
    query = { store = 'kv-store', type = 'KeyQuery', key = 1, partitions = [0] }
    expect = [ { partition = 0, value = )" +
         std::to_string(value) + R"(, position = { input-topic = { 0 = 1 } } } ]
)";
}

sim::Scenario parse(const std::string& text) {
  auto scenario = sim::parse_scenario_text(text, "runner_test.toml", std::nullopt);
  if (!scenario) ADD_FAILURE() << scenario.error().to_string();
  return scenario ? std::move(scenario).value() : sim::Scenario{};
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

size_t count_of(const std::vector<Violation>& violations, const std::string& property) {
  return static_cast<size_t>(
      std::count_if(violations.begin(), violations.end(),
                    [&](const Violation& v) { return v.property == property; }));
}

std::string shown(const RunReport& r) {
  std::string out = "seed " + std::to_string(r.seed) + "\n";
  for (const Violation& v : r.violations) out += v.to_string();
  for (const std::string& p : r.unexpectedly_held) out += "held: " + p + "\n";
  return out;
}

TEST(RunnerTest, ScriptedScenarioPassesEveryProperty) {
  sim::Scenario scenario = parse(scripted(11));
  RunReport report = run_scenario(scenario, {});
  EXPECT_TRUE(report.passed()) << shown(report);
  EXPECT_EQ(report.seed, kSeed);
  EXPECT_EQ(report.title, "runner test");
  for (const CheckInfo& check : all_checks()) {
    EXPECT_TRUE(has(report.properties_checked, check.name)) << check.name;
  }
  EXPECT_FALSE(has(report.properties_checked, "Deterministic"));
  EXPECT_GE(report.queries_judged, 1u);
  EXPECT_LE(report.queries_judged, report.queries_total);
  EXPECT_GT(report.virtual_ms, 0);
  EXPECT_GT(report.events, 0u);
  EXPECT_FALSE(report.digest.empty());
  EXPECT_EQ(report.trace, nullptr);
  EXPECT_EQ(report.reproduce_command(), "iqsim replay runner_test.toml --seed 7");
}

TEST(RunnerTest, DeclaredFailureThatHoldsIsUnexpectedlyHeld) {
  sim::Scenario scenario = parse(scripted(11, "expected_failures = ['ResultMatchesModel']\n"));
  RunReport report = run_scenario(scenario, {});
  EXPECT_TRUE(report.violations.empty()) << shown(report);
  EXPECT_EQ(report.unexpectedly_held, std::vector<std::string>{"ResultMatchesModel"});
  EXPECT_FALSE(report.passed());
}

TEST(RunnerTest, WrongExpectationIsAViolationUnlessDeclared) {
  RunReport report = run_scenario(parse(scripted(99)), {});
  EXPECT_FALSE(report.passed());
  EXPECT_GE(count_of(report.violations, "ScriptedExpectations"), 1u) << shown(report);
  EXPECT_EQ(report.violations_by_property["ScriptedExpectations"],
            count_of(report.violations, "ScriptedExpectations"));
  EXPECT_TRUE(report.expected_violations.empty());

  RunReport declared =
      run_scenario(parse(scripted(99, "expected_failures = ['ScriptedExpectations']\n")), {});
  EXPECT_TRUE(declared.passed()) << shown(declared);
  EXPECT_GE(count_of(declared.expected_violations, "ScriptedExpectations"), 1u);
  EXPECT_TRUE(declared.unexpectedly_held.empty());
  EXPECT_EQ(declared.violations_by_property["ScriptedExpectations"],
            declared.expected_violations.size());
}

// `trace` with `change` applied to every query record. History hands out records read-only, so it
// is rebuilt, handing out every id the records carry first (append() accepts only ids handed out).
sim::RunTrace with_records_changed(sim::RunTrace trace,
                                   const std::function<void(sim::QueryRecord&)>& change) {
  sim::History rebuilt(trace.history.records_max());
  uint64_t id_max = 0;
  for (const sim::QueryRecord& record : trace.history.records()) {
    id_max = std::max(id_max, record.id);
  }
  while (rebuilt.next_id() < id_max) {
  }
  for (sim::QueryRecord record : trace.history.records()) {
    change(record);
    rebuilt.append(std::move(record));
  }
  trace.history = std::move(rebuilt);
  return trace;
}

// The id of the first scripted query's record in `trace`, or 0 unless it answered one partition.
uint64_t scripted_record(const sim::RunTrace& trace) {
  for (const sim::QueryRecord& record : trace.history.records()) {
    if (record.source != sim::QueryRecord::Source::kScripted) continue;
    const sim::PartitionOutcome* outcome = record.only_partition();
    return outcome != nullptr && outcome->success ? record.id : 0;
  }
  return 0;
}

// judge() on a trace whose one scripted answer was changed after the fact reports that record.
TEST(RunnerTest, JudgeReportsADoctoredTrace) {
  sim::Scenario scenario = parse(scripted(11));
  RunReport report = run_scenario(scenario, {.keep_trace = true});
  ASSERT_NE(report.trace, nullptr);
  EXPECT_TRUE(judge(scenario, *report.trace).passed());

  const uint64_t doctored_id = scripted_record(*report.trace);
  ASSERT_NE(doctored_id, 0u) << "seed " << kSeed;
  const sim::RunTrace doctored = with_records_changed(*report.trace, [&](sim::QueryRecord& record) {
    if (record.id == doctored_id) record.partitions.front().value = std::optional<int64_t>(12345);
  });

  RunReport judged = judge(scenario, doctored);
  EXPECT_FALSE(judged.passed());
  bool found =
      std::any_of(judged.violations.begin(), judged.violations.end(), [&](const Violation& v) {
        return v.property == "ResultMatchesModel" && v.record_id == doctored_id;
      });
  EXPECT_TRUE(found) << shown(judged);
  EXPECT_EQ(judged.digest, report.digest);
}

// Quirks as switches: a violation classed as quirk 18 keeps its class only when the rerun with
// the quirk off is the same run without it. The first run here passes; a quirk-18 candidate is
// pinned on its scripted answer, and the rerun is a recorded trace: the same run (attributed),
// the same run still wrong at that answer, the answer at another position, a changelog record
// changed, and a new violation elsewhere (each refused, naming why).
TEST(RunnerTest, AQuirkClassIsAttributedOnlyByARerunThatIsTheSameRunWithoutIt) {
  // The scripted file without its expectation (a changed answer would fail that too), and a
  // second query, on partition 1.
  std::string text = scripted(11);
  text.erase(text.find("    expect = ["));
  text += R"(
    [[test.step]]
    query = { store = 'kv-store', type = 'KeyQuery', key = 2, partitions = [1] }
)";
  const sim::Scenario scenario = parse(text);
  RunReport report = run_scenario(scenario, {.keep_trace = true});
  ASSERT_TRUE(report.passed()) << "seed " << kSeed << "\n" << shown(report);
  const sim::RunTrace& trace = *report.trace;
  const uint64_t id = scripted_record(trace);
  ASSERT_NE(id, 0u) << "seed " << kSeed;
  Violation candidate;
  candidate.property = "ResultMatchesModel";
  candidate.violation_class = ViolationClass::kVersionedRestoreDroppedExpired;
  candidate.needs_rerun = true;
  candidate.record_id = id;
  candidate.rerun_record_id = id;
  candidate.partition = 0;
  const auto answer = [&](int64_t value) {
    return [&, value](sim::QueryRecord& r) {
      if (r.id == id) r.partitions.front().value = std::optional<int64_t>(value);
    };
  };
  struct Case {
    const char* what;
    sim::RunTrace rerun;
    const char* refused;  // nullptr: attributed
  };
  sim::RunTrace moved = with_records_changed(trace, [&](sim::QueryRecord& r) {
    if (r.id == id) r.partitions.front().position = Position::empty_position();
  });
  sim::RunTrace relogged = trace;
  relogged.changelog.front().value = 999;
  uint64_t other = 0;  // the second scripted query's record (partition 1)
  for (const sim::QueryRecord& r : trace.history.records()) {
    if (r.source == sim::QueryRecord::Source::kScripted && r.id != id) other = r.id;
  }
  ASSERT_NE(other, 0u) << "seed " << kSeed;
  std::vector<Case> cases;
  cases.push_back({"the same run", trace, nullptr});
  cases.push_back(
      {"still wrong", with_records_changed(trace, answer(12345)), "still not the model's answer"});
  cases.push_back({"another position", moved, "at another position"});
  cases.push_back({"a changelog record", relogged, "differs"});
  cases.push_back({"a new violation",
                   with_records_changed(
                       trace,
                       [&](sim::QueryRecord& r) {
                         if (r.id == other && !r.partitions.empty() && r.partitions.front().success)
                           r.partitions.front().value = std::optional<int64_t>(54321);
                       }),
                   "new violation"});
  // The first run's other violation on the same answer: the changed answer is no fold of its
  // changelog either, and that is no new violation of the rerun.
  Violation witness = candidate;
  witness.property = "ChangelogWitness";
  witness.violation_class = ViolationClass::kFailure;
  witness.needs_rerun = false;
  for (const Case& c : cases) {
    std::vector<Violation> vs = {candidate, witness};
    attribute_quirks_by_rerun(scenario, trace, vs, [&](const sim::Scenario& off) {
      EXPECT_FALSE(off.cluster.streams.quirks.versioned_restore_end_of_batch_stream_time);
      return c.rerun;
    });
    ASSERT_EQ(vs.size(), 2u);
    EXPECT_FALSE(vs[0].needs_rerun) << c.what;
    if (c.refused == nullptr) {
      EXPECT_EQ(vs[0].violation_class, ViolationClass::kVersionedRestoreDroppedExpired)
          << "seed " << kSeed << " " << c.what << ": " << vs[0].class_evidence;
      EXPECT_NE(vs[0].class_evidence.find("attributed by rerun"), std::string::npos) << c.what;
    } else {
      EXPECT_EQ(vs[0].violation_class, ViolationClass::kFailure)
          << "seed " << kSeed << " " << c.what << ": " << vs[0].class_evidence;
      EXPECT_NE(vs[0].class_evidence.find(c.refused), std::string::npos)
          << c.what << ": " << vs[0].class_evidence;
    }
  }
}

TEST(RunnerTest, DeterminismRerunIsAProperty) {
  RunReport report = run_scenario(parse(scripted(11)), {.check_determinism = true});
  EXPECT_TRUE(report.passed()) << shown(report);
  ASSERT_FALSE(report.properties_checked.empty());
  EXPECT_EQ(report.properties_checked.back(), "Deterministic");
}

// A test that lists its checks gets those; its scripted expectations are judged regardless.
TEST(RunnerTest, ChecksListedByTheTestSelectTheProperties) {
  sim::Scenario scenario =
      parse(scripted(99, "", "checks = ['BoundHonored']\n") + "\n[liveness]\nenabled = false\n");
  RunReport report = run_scenario(scenario, {});
  EXPECT_EQ(report.properties_checked,
            (std::vector<std::string>{"BoundHonored", "ScriptedExpectations"}));
  EXPECT_GE(count_of(report.violations, "ScriptedExpectations"), 1u) << shown(report);
}

TEST(RunnerTest, ReproduceCommandQuotesOnlyWhenNeeded) {
  RunReport report;
  report.seed = 3;
  report.scenario = "scenarios/fast/x.toml";
  EXPECT_EQ(report.reproduce_command(), "iqsim replay scenarios/fast/x.toml --seed 3");
  report.scenario = "my dir/it's.toml";
  EXPECT_EQ(report.reproduce_command(), "iqsim replay 'my dir/it'\\''s.toml' --seed 3");
}

// The findings' matchers: each finding about at-least-once processing runs, and every violation
// it declares gets the class its Kafka behaviour has, from the run's record alone. The two
// reprocessing findings are "at-least-once reprocessing"; the standby restarted without a
// checkpoint is its own behaviour (a store kept across a restart under an empty position, not a
// reprocessed changelog) and is worded as such.
TEST(RunnerTest, FindingsAboutAtLeastOnceAreClassifiedByTheirRecord) {
  const std::vector<std::pair<std::string, ViolationClass>> findings = {
      {"alos_count_double_counts_after_crash.toml", ViolationClass::kAtLeastOnceReprocessing},
      {"alos_source_table_replay_beneath_restored_position.toml",
       ViolationClass::kAtLeastOnceReprocessing},
      {"alos_standby_restart_without_checkpoint_underclaims.toml",
       ViolationClass::kRestartWithoutCheckpoint},
      {"alos_fenced_member_late_write_beneath_newer_position.toml",
       ViolationClass::kFencedLateWrite},
  };
  for (const auto& [name, want] : findings) {
    const std::string file = std::string(IQSIM_SCENARIOS_DIR) + "/findings/" + name;
    auto scenario = sim::parse_scenario_file(file, std::nullopt);
    ASSERT_TRUE(scenario.has_value()) << file << ": " << scenario.error().to_string();
    const RunReport report = run_scenario(*scenario, {});
    EXPECT_TRUE(report.passed(/*strict=*/true)) << file << " seed " << report.seed;
    ASSERT_FALSE(report.expected_violations.empty()) << file << " seed " << report.seed;
    for (const Violation& v : report.expected_violations) {
      if (v.property == sim::property_names::kResultMatchesModel ||
          v.property == sim::property_names::kSamePositionSameAnswer) {
        EXPECT_EQ(v.violation_class, want) << file << " seed " << report.seed << "\n"
                                           << v.to_string();
      }
    }
  }
}

// The exactly-once form of the standby restarted over its kept disk: the .checkpoint the state
// updater wrote when the active completed restoration (the unknown offset) keeps the store, so
// the under-claim is the same Kafka behaviour, admitted under exactly_once_v2 from the record
// (the earlier store life wrote a .checkpoint and was not wiped).
TEST(RunnerTest, TheRestartOverARestorationCheckpointIsClassifiedUnderExactlyOnce) {
  const std::string file =
      std::string(IQSIM_SCENARIOS_DIR) +
      "/findings/eos_standby_restart_over_restoration_checkpoint_underclaims.toml";
  auto scenario = sim::parse_scenario_file(file, std::nullopt);
  ASSERT_TRUE(scenario.has_value()) << file << ": " << scenario.error().to_string();
  ASSERT_EQ(scenario->cluster.streams.processing_guarantee, ProcessingGuarantee::EXACTLY_ONCE_V2);
  const RunReport report = run_scenario(*scenario, {});
  ASSERT_FALSE(report.expected_violations.empty()) << file << " seed " << report.seed;
  for (const Violation& v : report.expected_violations) {
    EXPECT_EQ(v.violation_class, ViolationClass::kRestartWithoutCheckpoint)
        << file << " seed " << report.seed << "\n"
        << v.to_string();
  }
}

// The exactly-once double count over kept aborted writes (default seed 37 after the state
// updater's checkpoints): every violation the finding declares, answers and unexplained changelog
// records alike, is that class, proven from the recorded store lives; the same run under
// at-least-once would admit no such class (it is exactly_once_v2's only).
TEST(RunnerTest, KeptAbortedWritesUnderExactlyOnceAreClassifiedByTheirStoreLives) {
  const std::string file =
      std::string(IQSIM_SCENARIOS_DIR) +
      "/findings/eos_restoration_checkpoint_keeps_aborted_writes_double_counts.toml";
  auto scenario = sim::parse_scenario_file(file, std::nullopt);
  ASSERT_TRUE(scenario.has_value()) << file << ": " << scenario.error().to_string();
  ASSERT_EQ(scenario->cluster.streams.processing_guarantee, ProcessingGuarantee::EXACTLY_ONCE_V2);
  const RunReport report = run_scenario(*scenario, {});
  ASSERT_FALSE(report.expected_violations.empty()) << file << " seed " << report.seed;
  size_t records = 0;
  for (const Violation& v : report.expected_violations) {
    EXPECT_EQ(v.violation_class, ViolationClass::kEosKeptAbortedWrites)
        << file << " seed " << report.seed << "\n"
        << v.to_string();
    if (v.changelog_offset) ++records;
  }
  EXPECT_GT(records, 0u) << file << " seed " << report.seed;
  EXPECT_FALSE(holds_under(ViolationClass::kEosKeptAbortedWrites, sim::Guarantee::kAtLeastOnce));
}

// The record-cache flush findings (a replica that applied part of one flush, the rest later in
// the log or lost when the writer died inside a send) and quirk 12 (a store restored under a
// .position newer than its .checkpoint) and a replica inside a compacted changelog: each declared
// violation is classified as that Kafka behaviour from the run's record alone.
TEST(RunnerTest, FindingsAboutOverClaimsAreClassifiedByTheirRecord) {
  const std::vector<std::pair<std::string, ViolationClass>> findings = {
      {"cache_flush_partly_applied_overclaims.toml", ViolationClass::kCacheFlushPartlyApplied},
      {"cache_flush_cut_by_crash_overclaims.toml", ViolationClass::kCacheFlushPartlyApplied},
      {"position_file_ahead_of_checkpoint.toml", ViolationClass::kPositionAheadOfCheckpoint},
      {"compacted_changelog_replica_lacks_superseded_key.toml",
       ViolationClass::kReplicaInsideCompactedChangelog},
  };
  for (const auto& [name, want] : findings) {
    const std::string file = std::string(IQSIM_SCENARIOS_DIR) + "/findings/" + name;
    auto scenario = sim::parse_scenario_file(file, std::nullopt);
    ASSERT_TRUE(scenario.has_value()) << file << ": " << scenario.error().to_string();
    const RunReport report = run_scenario(*scenario, {});
    EXPECT_TRUE(report.passed(/*strict=*/true)) << file << " seed " << report.seed;
    ASSERT_FALSE(report.expected_violations.empty()) << file << " seed " << report.seed;
    for (const Violation& v : report.expected_violations) {
      EXPECT_EQ(v.violation_class, want) << file << " seed " << report.seed << "\n"
                                         << v.to_string();
    }
  }
}

// A crash inside the state-directory cleaner: the standby's empty answer under a full position is
// classified as that Kafka behaviour from the run's record (its ChangelogWitness and
// SamePositionSameAnswer violations, and one of its ResultMatchesModel ones), under at-least-once
// (the other ResultMatchesModel violations are reprocessing of the count) and in its
// exactly_once_v2 twin (no other violation: the checkpoint is trusted the same way).
TEST(RunnerTest, TheCleanerCutByACrashFindingsAreClassifiedByTheirRecord) {
  for (const std::string name : {"cleaner_cut_by_crash_keeps_checkpoint_without_store.toml",
                                 "eos_cleaner_cut_by_crash_keeps_checkpoint_without_store.toml"}) {
    const std::string file = std::string(IQSIM_SCENARIOS_DIR) + "/findings/" + name;
    auto scenario = sim::parse_scenario_file(file, std::nullopt);
    ASSERT_TRUE(scenario.has_value()) << file << ": " << scenario.error().to_string();
    const bool eos =
        scenario->cluster.streams.processing_guarantee == ProcessingGuarantee::EXACTLY_ONCE_V2;
    EXPECT_EQ(eos, name.starts_with("eos_")) << file;
    const RunReport report = run_scenario(*scenario, {});
    EXPECT_TRUE(report.passed(/*strict=*/true)) << file << " seed " << report.seed;
    std::map<std::string, int> cleaner;
    for (const Violation& v : report.expected_violations) {
      if (v.violation_class == ViolationClass::kCleanerCutByCrash) {
        ++cleaner[v.property];
      } else {
        EXPECT_FALSE(eos) << file << " seed " << report.seed << "\n" << v.to_string();
        EXPECT_EQ(v.violation_class, ViolationClass::kAtLeastOnceReprocessing)
            << file << " seed " << report.seed << "\n"
            << v.to_string();
      }
    }
    EXPECT_EQ(cleaner["ResultMatchesModel"], 1) << file << " seed " << report.seed;
    EXPECT_EQ(cleaner["SamePositionSameAnswer"], 1) << file << " seed " << report.seed;
    EXPECT_EQ(cleaner["ChangelogWitness"], 1) << file << " seed " << report.seed;
  }
}

// The three 2026-08-20 pin findings (default seeds 811, 692 and 1, shrunk): the versioned store
// reopened over kept data under the empty position (pin delta 10), the cached KeyQuery that missed
// the cache under READ_COMMITTED (pin delta 8's miss form), and a transactional window store's
// staged put expiring committed windows (H7). Each declared answer violation is that
// class from the record alone; the miss finding's ChangelogWitness dirty reads are the hit form.
TEST(RunnerTest, TheNewPinFindingsAreClassifiedByTheirRecord) {
  const std::vector<std::pair<std::string, ViolationClass>> findings = {
      {"kafka_2026_versioned_reopened_position_not_persisted_underclaims.toml",
       ViolationClass::kVersionedPositionNotPersisted},
      {"kafka_2026_cached_key_query_miss_committed_under_staged_position.toml",
       ViolationClass::kCachedKeyQueryMissReadsCommitted},
      {"kafka_2026_staged_put_expires_committed_windows.toml",
       ViolationClass::kStagedStreamTimeExpiresCommitted},
  };
  for (const auto& [name, want] : findings) {
    const std::string file = std::string(IQSIM_SCENARIOS_DIR) + "/findings/" + name;
    auto scenario = sim::parse_scenario_file(file, std::nullopt);
    ASSERT_TRUE(scenario.has_value()) << file << ": " << scenario.error().to_string();
    const RunReport report = run_scenario(*scenario, {});
    EXPECT_TRUE(report.passed(/*strict=*/false)) << file << " seed " << report.seed;
    std::map<std::string, int> proven;
    for (const Violation& v : report.expected_violations) {
      if (v.violation_class == want) {
        ++proven[v.property];
      } else {
        EXPECT_TRUE(v.read_committed_dirty &&
                    v.violation_class == ViolationClass::kCachedKeyQueryIgnoresIsolation)
            << file << " seed " << report.seed << "\n"
            << v.to_string();
      }
    }
    EXPECT_GT(proven["ResultMatchesModel"], 0) << file << " seed " << report.seed;
  }
}

// Declared, not global: the cleaner finding's violations, no longer declared expected, pass only
// where the scenario allows the behaviours the record proves; without cleaner_cut_by_crash in
// allowed_behaviours those it proves fail the run as failures that name the missing key, and
// with no list at all every proven behaviour does.
TEST(RunnerTest, ABehaviourTheScenarioDoesNotAllowFailsTheRun) {
  const std::string file = std::string(IQSIM_SCENARIOS_DIR) +
                           "/findings/cleaner_cut_by_crash_keeps_checkpoint_without_store.toml";
  auto scenario = sim::parse_scenario_file(file, std::nullopt);
  ASSERT_TRUE(scenario.has_value()) << file << ": " << scenario.error().to_string();
  scenario->expected_failures.clear();
  scenario->allowed_behaviours = {"cleaner_cut_by_crash", "alos_reprocessing"};
  const sim::RunTrace trace = sim::drive_scenario(*scenario);
  const RunReport allowed = judge(*scenario, trace);
  EXPECT_TRUE(allowed.passed()) << shown(allowed);
  EXPECT_FALSE(allowed.passed(/*strict=*/true)) << shown(allowed);
  scenario->allowed_behaviours = {"alos_reprocessing"};
  const RunReport refused = judge(*scenario, trace);
  EXPECT_FALSE(refused.passed()) << shown(refused);
  EXPECT_EQ(refused.failures(), 3u) << shown(refused);
  for (const Violation& v : refused.violations) {
    if (v.violation_class != ViolationClass::kFailure) continue;
    EXPECT_NE(v.class_evidence.find("not allowed here: proven \"known Kafka behaviour: a task "
                                    "directory whose deletion a crash cut"),
              std::string::npos)
        << v.to_string();
  }
  scenario->allowed_behaviours.clear();
  const RunReport none = judge(*scenario, trace);
  EXPECT_EQ(none.failures(), none.violations.size()) << shown(none);
}

}  // namespace
}  // namespace iq::properties
