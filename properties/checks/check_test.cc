// The shared machinery of the checks: JudgeContext (model, timestamp mode, delete rule, phases,
// faults), the registry, the renderings, and every check together on a large consistent trace.

#include "checks/check.h"
#include "trace/property_names.h"

#include <gtest/gtest.h>

#include "checks/check_util.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using testing::active;
using testing::kSeed;
using testing::pos;
using testing::TraceBuilder;

std::string all_text(const std::vector<Violation>& vs) {
  std::string out;
  for (const auto& v : vs) out += v.to_string();
  return out;
}

// The model replays the source log with the topology's aggregation and null-value rule.
TEST(JudgeContextTest, BuildsTheModelWithTheTopologysAggregation) {
  TraceBuilder count(TopologyKind::Count);
  count.produce(0, 1, 5);
  count.produce(0, 1, std::nullopt);  // dropped by the aggregation: no write
  count.produce(0, 1, 7);
  JudgeContext c(count.trace());
  const auto key = model::serialize_int32_key(1);
  ASSERT_TRUE(c.store().get(0, key, 2).has_value()) << "seed " << kSeed;
  EXPECT_EQ(c.store().get(0, key, 2)->value, 2) << "seed " << kSeed;
  EXPECT_EQ(c.key_write_offsets(0, 1), (std::vector<int64_t>{0, 2})) << "seed " << kSeed;
  EXPECT_EQ(c.next_advancing_write(0, 0), std::optional<int64_t>(2)) << "seed " << kSeed;

  TraceBuilder sum(TopologyKind::Sum);
  sum.produce(0, 1, 5);
  sum.produce(0, 1, 7);
  JudgeContext s(sum.trace());
  EXPECT_EQ(s.store().get(0, key, 1)->value, 12) << "seed " << kSeed;

  TraceBuilder table(TopologyKind::SourceTable);
  table.produce(0, 1, 5);
  table.produce(0, 1, std::nullopt);  // a tombstone
  JudgeContext t(table.trace());
  EXPECT_FALSE(t.store().get(0, key, 1).has_value()) << "seed " << kSeed;
  EXPECT_TRUE(t.store().get(0, key, 0).has_value()) << "seed " << kSeed;
}

// A window or session topology gets its own model, built from the topology's windows, grace,
// retention and store kind; its writes (where answers and positions change) are the records the
// model says wrote the store: a record whose window closed beyond grace writes nothing.
TEST(JudgeContextTest, BuildsTheWindowAndSessionModels) {
  TraceBuilder window(TopologyKind::WindowedCount, KeyValueSupplier::kRocksDbTimestamped);
  window.trace().topology.window_size_ms = 100;
  window.trace().topology.grace_ms = 50;
  window.produce(0, 1, 5, 120);             // window [100, 200)
  window.produce(0, 1, 5, 260);             // [200, 300); stream time 260, close 210
  window.produce(0, 1, 5, 150);             // [100, 200) closed beyond grace: skipped
  window.produce(0, 2, std::nullopt, 270);  // a null value still counts
  JudgeContext w(window.trace());
  ASSERT_NE(w.window_history(), nullptr) << "seed " << kSeed;
  EXPECT_EQ(w.session_history(), nullptr) << "seed " << kSeed;
  EXPECT_EQ(w.window_history()->spec().backing, model::StoreBacking::kSegmented);
  EXPECT_EQ(w.window_history()->spec().segment_interval_ms, 60'000) << "seed " << kSeed;
  EXPECT_EQ(w.window_history()->spec().retention_ms, 150) << "seed " << kSeed;
  const auto k1 = model::serialize_int32_key(1);
  const auto a = w.window_history()->fetch(0, k1, 0, 1'000, 3);
  ASSERT_EQ(a.entries.size(), 2u) << "seed " << kSeed;
  EXPECT_EQ(a.entries[0].value, 1) << "seed " << kSeed;
  EXPECT_EQ(w.key_write_offsets(0, 1), (std::vector<int64_t>{0, 1})) << "seed " << kSeed;
  EXPECT_EQ(w.key_write_offsets(0, 2), (std::vector<int64_t>{3})) << "seed " << kSeed;
  EXPECT_EQ(w.next_advancing_write(0, 1), std::optional<int64_t>(3)) << "seed " << kSeed;

  TraceBuilder session(TopologyKind::SessionSum, KeyValueSupplier::kInMemory);
  session.trace().topology.session_gap_ms = 10;
  session.produce(0, 1, 5, 100);
  session.produce(0, 1, 7, 105);
  JudgeContext s(session.trace());
  ASSERT_NE(s.session_history(), nullptr) << "seed " << kSeed;
  EXPECT_EQ(s.session_history()->spec().backing, model::StoreBacking::kInMemory);
  const auto sessions = s.session_history()->fetch(0, k1, 1);
  ASSERT_EQ(sessions.entries.size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(sessions.entries[0], (model::SessionEntry{k1, 100, 105, 12})) << "seed " << kSeed;
}

// Timestamp modes and the delete rule follow the topology's builder and supplier.
TEST(JudgeContextTest, TimestampModeAndDeleteRuleFollowTheStoreStack) {
  struct Case {
    TopologyKind kind;
    KeyValueSupplier supplier;
    bool caching;
    model::TimestampMode mode;
    bool deletes_advance;
  };
  const Case cases[] = {
      {TopologyKind::SourceTable, KeyValueSupplier::kRocksDbTimestamped, false,
       model::TimestampMode::kReal, true},
      {TopologyKind::SourceTable, KeyValueSupplier::kRocksDb, true, model::TimestampMode::kMinusOne,
       true},
      {TopologyKind::Count, KeyValueSupplier::kInMemory, false, model::TimestampMode::kReal, true},
      {TopologyKind::PapiWriter, KeyValueSupplier::kRocksDb, false, model::TimestampMode::kNone,
       true},
      {TopologyKind::PapiWriter, KeyValueSupplier::kInMemory, false, model::TimestampMode::kNone,
       false},
      {TopologyKind::PapiWriter, KeyValueSupplier::kInMemory, true, model::TimestampMode::kNone,
       true},
  };
  for (const Case& c : cases) {
    TraceBuilder b(c.kind, c.supplier, c.caching);
    JudgeContext context(b.trace());
    EXPECT_EQ(context.timestamp_mode(), c.mode)
        << "seed " << kSeed << " " << to_string(c.kind) << " " << to_string(c.supplier);
    EXPECT_EQ(context.deletes_advance(), c.deletes_advance)
        << "seed " << kSeed << " " << to_string(c.kind) << " " << to_string(c.supplier);
  }
}

// A phase that lists checks limits who judges its records; liveness probes and records outside
// every phase are judged by all.
TEST(JudgeContextTest, PhasesDecideWhichChecksJudgeARecord) {
  TraceBuilder b;
  b.phase("only bounds", 0, 100, {"BoundHonored"});
  b.phase("all", 100, 200, {});
  JudgeContext c(b.trace());
  sim::QueryRecord r;
  r.invoke_ms = testing::instant(50);
  EXPECT_TRUE(c.judged_by(r, "BoundHonored")) << "seed " << kSeed;
  EXPECT_FALSE(c.judged_by(r, "ResultMatchesModel")) << "seed " << kSeed;
  r.source = sim::QueryRecord::Source::kLiveness;
  EXPECT_TRUE(c.judged_by(r, "ResultMatchesModel")) << "seed " << kSeed;
  r.source = sim::QueryRecord::Source::kClient;
  r.invoke_ms = testing::instant(150);
  EXPECT_TRUE(c.judged_by(r, "ResultMatchesModel")) << "seed " << kSeed;
  r.invoke_ms = testing::instant(250);
  EXPECT_TRUE(c.judged_by(r, "ResultMatchesModel")) << "seed " << kSeed;
  EXPECT_FALSE(c.judged_at(testing::instant(99), "LagReported")) << "seed " << kSeed;
  EXPECT_EQ(c.phase_index(testing::instant(100)), 1) << "seed " << kSeed;
  EXPECT_EQ(c.phase_index(testing::instant(200)), -1) << "seed " << kSeed;
}

// events_before lists the last faults up to and including the instant, oldest first.
TEST(JudgeContextTest, EventsBeforeAreTheLastFaultsInTimeOrder) {
  TraceBuilder b;
  b.fault(300, sim::FaultKind::kRestart, "instance-2");
  b.fault(100, sim::FaultKind::kCrash, "instance-2");
  b.fault(200, sim::FaultKind::kPause, "instance-1");
  b.fault(400, sim::FaultKind::kResume, "instance-1");
  JudgeContext c(b.trace());
  EXPECT_EQ(
      c.events_before(testing::instant(300), 2),
      (std::vector<std::string>{"@200 pause instance-1 (test)", "@300 restart instance-2 (test)"}))
      << "seed " << kSeed;
  EXPECT_TRUE(c.events_before(testing::instant(99)).empty()) << "seed " << kSeed;
  EXPECT_EQ(c.events_before(testing::instant(10'000)).size(), 4u) << "seed " << kSeed;
}

// reprocessed_before lists the partition's ranges begun by the instant, the newest few, and
// record_violation attaches them to a violation of a query on that partition.
TEST(JudgeContextTest, ReprocessedBeforeListsThePartitionsRangesBegunByThen) {
  TraceBuilder b;
  b.produce(0, 1, 10);
  b.reprocessed(0, 0, 0, "instance-2", 100, 100);
  b.reprocessed(1, 0, 4, "instance-2", 150, 160);
  b.reprocessed(0, 0, 0, "instance-1", 200, 200);
  b.reprocessed(0, 0, 0, "instance-3", 300, 300);
  b.reprocessed(0, 0, 0, "instance-2", 400, 400);
  b.reprocessed(0, 0, 0, "instance-1", 500, 500);
  b.reprocessed(0, 0, 0, "instance-3", 600, 600);
  JudgeContext c(b.trace());
  EXPECT_TRUE(c.reprocessed_before(testing::instant(99), 0).empty()) << "seed " << kSeed;
  EXPECT_EQ(c.reprocessed_before(testing::instant(150), 0),
            (std::vector<std::string>{"offset 0 of partition 0 again on instance-2 at 100 ms"}))
      << "seed " << kSeed;
  EXPECT_EQ(
      c.reprocessed_before(testing::instant(160), 1),
      (std::vector<std::string>{"offsets 0-4 of partition 1 again on instance-2 at 150-160 ms"}))
      << "seed " << kSeed;
  EXPECT_EQ(c.reprocessed_before(testing::instant(155), 1),
            (std::vector<std::string>{"offsets 0-4 of partition 1 again on instance-2 at 150-160 "
                                      "ms (under way at the answer)"}))
      << "seed " << kSeed;
  const auto late = c.reprocessed_before(testing::instant(550), 0, 2);
  EXPECT_EQ(late, (std::vector<std::string>{
                      "(3 earlier ranges)", "offset 0 of partition 0 again on instance-2 at 400 ms",
                      "offset 0 of partition 0 again on instance-1 at 500 ms"}))
      << "seed " << kSeed;

  sim::QueryRecord r = b.key_query(0, 1).ok(10, pos(0, 0)).replica(active(0, pos(0, 0))).r;
  r.complete_ms = testing::instant(250);
  const Violation v =
      detail::record_violation(c, "ResultMatchesModel", r, &r.partitions[0], "s", "e", "r");
  EXPECT_EQ(v.reprocessed_before.size(), 2u) << "seed " << kSeed;
  EXPECT_NE(v.to_string().find("  reprocessed before (at-least-once, this partition):\n"
                               "    offset 0 of partition 0 again on instance-2 at 100 ms\n"),
            std::string::npos)
      << v.to_string();
}

TEST(RegistryTest, NamesEveryPropertyOnce) {
  // all_property_names() is the one list (trace/property_names.h); every name but the trailing
  // Deterministic is a registered check of that name, in that order.
  const auto names = all_property_names();
  ASSERT_EQ(names.size(), sim::property_names::kAll.size()) << "seed " << kSeed;
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(names[i], sim::property_names::kAll[i]) << "seed " << kSeed;
  }
  ASSERT_EQ(all_checks().size() + 1, names.size()) << "seed " << kSeed;
  for (size_t i = 0; i < all_checks().size(); ++i) {
    EXPECT_EQ(std::string(all_checks()[i].name), names[i]) << "seed " << kSeed;
    EXPECT_NE(find_check(names[i]), nullptr) << names[i] << " seed " << kSeed;
  }
  EXPECT_EQ(names.back(), "Deterministic") << "seed " << kSeed;
  EXPECT_TRUE(sim::property_names::is_property_name("LagReported")) << "seed " << kSeed;
  EXPECT_FALSE(sim::property_names::is_property_name("NoSuchCheck")) << "seed " << kSeed;
  ASSERT_NE(find_check("BoundHonored"), nullptr) << "seed " << kSeed;
  EXPECT_EQ(find_check("BoundHonored")->run, &check_bound_honored) << "seed " << kSeed;
  EXPECT_EQ(find_check("Deterministic"), nullptr) << "seed " << kSeed;
  EXPECT_EQ(find_check("NoSuchCheck"), nullptr) << "seed " << kSeed;
  for (const CheckInfo& c : all_checks()) EXPECT_NE(std::string(c.statement), "") << c.name;
}

TEST(RenderingTest, ViolationAndFaultPrintEveryField) {
  Violation v;
  v.property = "BoundHonored";
  v.record_id = 7;
  v.at_ms = 1200;
  v.summary = "a summary";
  v.query = "store=kv-store";
  v.expected = "E";
  v.returned = "R";
  v.replica = "{p=0 instance-1}";
  v.placement = "@1200[]";
  v.events_before = {"@100 crash instance-1 (random-faults)"};
  v.reprocessed_before = {"offsets 0-3 of partition 0 again on instance-2 at 900-950 ms"};
  v.class_evidence = "why";
  EXPECT_EQ(v.to_string(),
            "[failure] [BoundHonored] record #7 at 1200 ms: a summary\n"
            "  query:     store=kv-store\n"
            "  expected:  E\n"
            "  returned:  R\n"
            "  class:     why\n"
            "  replica:   {p=0 instance-1}\n"
            "  placement: @1200[]\n"
            "  faults before:\n"
            "    @100 crash instance-1 (random-faults)\n"
            "  reprocessed before (at-least-once, this partition):\n"
            "    offsets 0-3 of partition 0 again on instance-2 at 900-950 ms\n")
      << "seed " << kSeed;
  v.violation_class = ViolationClass::kAtLeastOnceReprocessing;
  EXPECT_EQ(v.to_string().substr(0, v.to_string().find('\n')),
            "[known Kafka behaviour: at-least-once reprocessing] [BoundHonored] record #7 at 1200 "
            "ms: a summary")
      << "seed " << kSeed;
  sim::FaultRecord f;
  f.at_ms = testing::instant(5);
  f.kind = sim::FaultKind::kHeal;
  EXPECT_EQ(f.to_string(), "@5 heal") << "seed " << kSeed;
  // An armed crash and a landed one keep the text they always had.
  f.kind = sim::FaultKind::kCrashArmed;
  EXPECT_EQ(f.to_string(), "@5 arm_crash") << "seed " << kSeed;
  f.kind = sim::FaultKind::kCrashLanded;
  EXPECT_EQ(f.to_string(), "@5 crash") << "seed " << kSeed;
}

// The names a scenario's allowed_behaviours may list are the classes' JSON keys, one list.
TEST(ViolationTest, ClassKeysAreTheBehaviourNames) {
  EXPECT_EQ(std::string(class_key(ViolationClass::kFailure)), "failure");
  EXPECT_EQ(std::string(class_key(ViolationClass::kAtLeastOnceReprocessing)), "alos_reprocessing");
  EXPECT_EQ(std::string(class_key(ViolationClass::kCachedWritesBeneathPosition)),
            "cached_writes_beneath_position");
  for (size_t i = 1; i < kViolationClasses.size(); ++i) {
    EXPECT_EQ(class_key(kViolationClasses[i]), sim::behaviour_names::kAll[i - 1]);
    EXPECT_EQ(class_from_key(class_key(kViolationClasses[i])), kViolationClasses[i]);
  }
  EXPECT_EQ(class_from_key("at_least_once"), std::nullopt);
}

// Kafka's isPermitted, case by case from docs/iqv2-semantics.md §2.
TEST(PermittedTest, FollowsKafkasTable) {
  const Position empty = Position::empty_position();
  EXPECT_TRUE(detail::permitted(pos(0, 3), empty, 0)) << "seed " << kSeed;
  EXPECT_TRUE(detail::permitted(pos(0, 5, "A"), pos(0, 5, "A"), 0)) << "seed " << kSeed;
  EXPECT_FALSE(detail::permitted(pos(0, 4, "A"), pos(0, 5, "A"), 0)) << "seed " << kSeed;
  EXPECT_FALSE(detail::permitted(empty, pos(0, 5, "A"), 0)) << "seed " << kSeed;
  EXPECT_FALSE(detail::permitted(pos(0, 99, "B"), pos(0, 5, "A"), 0)) << "seed " << kSeed;
  EXPECT_TRUE(detail::permitted(empty, pos(1, 5, "A"), 0)) << "seed " << kSeed;
  Position two = pos(0, 5, "A");
  two.with_component("B", 0, 3);
  EXPECT_FALSE(detail::permitted(pos(0, 9, "A"), two, 0)) << "seed " << kSeed;
  Position topic_only = Position::from_map({{"A", {}}});
  EXPECT_TRUE(detail::permitted(empty, topic_only, 0)) << "seed " << kSeed;
}

// Every check on a large consistent trace: nothing to report, and each judged what it should.
TEST(AllChecksTest, AConsistentSyntheticTraceHasNoViolations) {
  const uint64_t seed = 11;
  const sim::RunTrace trace = testing::synthetic_trace(seed, 4'000);
  JudgeContext context(trace);
  for (const CheckInfo& check : all_checks()) {
    const auto violations = check.run(context);
    EXPECT_TRUE(violations.empty()) << "seed " << seed << " " << check.name << "\n"
                                    << all_text(violations);
  }
  const auto& t = context.tallies();
  EXPECT_EQ(t.at("ResultMatchesModel").judged, 4'000u) << "seed " << seed;
  EXPECT_EQ(t.at("FailureReasonCorrect").judged, 4'000u) << "seed " << seed;
  EXPECT_EQ(t.at("LagReported").judged, 250u) << "seed " << seed;
  EXPECT_GT(t.at("BoundHonored").judged, 1'000u) << "seed " << seed;
  EXPECT_GT(t.at("SessionMonotonic").judged, 1'000u) << "seed " << seed;
  EXPECT_TRUE(check_deterministic(trace, testing::synthetic_trace(seed, 4'000)).empty())
      << "seed " << seed;
}

}  // namespace
}  // namespace iq::properties
