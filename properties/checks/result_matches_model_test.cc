// ResultMatchesModel on hand-made traces: answers at the reported position pass, wrong values,
// implausible positions and (with the switch on) under-claims fail, and Kafka's quirks (the -1
// timestamp of the plain-RocksDB adapter, in-memory deletes that do not advance the position,
// stale positions with the switch off) are neither passed nor failed wrongly.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using testing::active;
using testing::kSeed;
using testing::pos;
using testing::standby;
using testing::text;
using testing::TraceBuilder;

std::vector<Violation> judge(const sim::RunTrace& trace) {
  JudgeContext context(trace);
  return check_result_matches_model(context);
}

// key 1: 10 @0, key 2: 20 @1, key 1: 11 @2 (timestamps 100, 200, 300).
TraceBuilder table(KeyValueSupplier supplier = KeyValueSupplier::kRocksDbTimestamped,
                   bool caching = false) {
  TraceBuilder b(TopologyKind::SourceTable, supplier, caching);
  b.produce(0, 1, 10);
  b.produce(0, 2, 20);
  b.produce(0, 1, 11);
  return b;
}

TEST(ResultMatchesModelTest, AnswersAtTheReportedPositionPass) {
  TraceBuilder b = table();
  b.add(b.key_query(0, 1).ok(10, pos(0, 0)));
  b.add(b.key_query(0, 1).ok(11, pos(0, 2)));
  b.add(b.key_query(0, 2).ok(std::nullopt, pos(0, 0)));  // not yet written at offset 0
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(11, pos(0, 2), {300}));
  b.add(b.range_query(0, 1, 2).ok_entries({{1, 10}, {2, 20}}, pos(0, 1)));
  b.add(b.range_query(0, std::nullopt, std::nullopt, QueryKind::TimestampedRangeQuery)
            .order(ResultOrder::DESCENDING)
            .ok_entries({{2, 20}, {1, 11}}, pos(0, 2), {200, 300}));
  JudgeContext context(b.trace());
  const auto vs = check_result_matches_model(context);
  EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(context.tallies().at("ResultMatchesModel").judged, 6u) << "seed " << kSeed;
}

// A READ_COMMITTED answer of a transactional store (2026-08-20 pin) is judged against the
// committed state: it must carry the replica's committed position (here {0=0}: key 1 = 10), and
// equal the model there. The committed 10 under {0=0} passes; the staged 11 under the staged
// {0=2} is the model's answer there but not the committed label (a fail, where without the label
// rule it would pass); the committed 10 under {0=2} fails; READ_UNCOMMITTED, or a cached KeyQuery
// (delta 8: the caching layer's staged merge under both levels), is judged at the staged label.
TEST(ResultMatchesModelTest, AReadCommittedAnswerIsJudgedAtTheCommittedPosition) {
  struct Case {
    IsolationLevel level;
    bool caching;
    int64_t value;
    int64_t label;
    size_t violations;
  };
  for (const Case& c : {Case{IsolationLevel::READ_COMMITTED, false, 10, 0, 0},
                        Case{IsolationLevel::READ_COMMITTED, false, 11, 2, 1},
                        Case{IsolationLevel::READ_COMMITTED, false, 10, 2, 1},
                        Case{IsolationLevel::READ_UNCOMMITTED, false, 11, 2, 0},
                        Case{IsolationLevel::READ_COMMITTED, true, 11, 2, 0}}) {
    TraceBuilder b = table(KeyValueSupplier::kRocksDbTimestamped, c.caching);
    b.trace().kafka_pin = KafkaPin::k2026_08_20;
    sim::ReplicaSnapshot replica = active(0, pos(0, 2));
    replica.committed_position = pos(0, 0);
    testing::Q q = b.key_query(0, 1).ok(c.value, pos(0, c.label)).replica(replica);
    q.r.request.isolation_level = c.level;
    b.add(q);
    const auto vs = judge(b.trace());
    EXPECT_EQ(vs.size(), c.violations)
        << "seed " << kSeed << " " << to_string(c.level) << " caching " << c.caching << " value "
        << c.value << " label " << c.label << "\n"
        << text(vs);
  }
}

TEST(ResultMatchesModelTest, AWrongValueFails) {
  TraceBuilder b = table();
  b.add(b.key_query(0, 1).ok(99, pos(0, 2)).replica(active(0, pos(0, 2))));
  const auto vs = judge(b.trace());
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, "value=11") << "seed " << kSeed;
  EXPECT_EQ(vs[0].record_id, 1u) << "seed " << kSeed;
  EXPECT_NE(vs[0].replica, "") << "seed " << kSeed;
}

TEST(ResultMatchesModelTest, AnOldValueUnderANewerPositionFails) {
  // An over-claim: the position says offset 2 but the value is from before it.
  TraceBuilder b = table();
  b.consistency(false);  // fails even with the switch off: only under-claims are passed over
  b.add(b.key_query(0, 1).ok(10, pos(0, 2)));
  b.add(b.range_query(0, 1, 2)
            .order(ResultOrder::DESCENDING)
            .ok_entries({{1, 11}, {2, 20}}, pos(0, 2)));
  const auto vs = judge(b.trace());
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[1].expected, "[2=20, 1=11]") << "seed " << kSeed;  // descending order matters
}

TEST(ResultMatchesModelTest, UnderClaimsFailWithTheSwitchOnAndAreNotJudgedWithItOff) {
  for (const bool on : {true, false}) {
    TraceBuilder b = table();
    b.consistency(on);
    // A restored replica: data of offset 2, position still at offset 0 (its .position file).
    b.add(b.key_query(0, 1).ok(11, pos(0, 0)).replica(standby(0, pos(0, 0))));
    JudgeContext context(b.trace());
    const auto vs = check_result_matches_model(context);
    EXPECT_EQ(vs.size(), on ? 1u : 0u) << "seed " << kSeed << " switch " << on << "\n" << text(vs);
    const auto& tally = context.tallies().at("ResultMatchesModel");
    EXPECT_EQ(tally.judged, on ? 1u : 0u) << "seed " << kSeed;
    if (!on) {
      EXPECT_EQ(tally.not_judged.at("under-claim with the consistency switch off"), 1u)
          << "seed " << kSeed;
    }
  }
}

// An under-claim is a state the store reached by the answer: the search for one stops at the
// last source record appended before the answer completed. Key 1 = 11 is made by offset 2,
// appended at 300 ms. Answered at 400 ms under {0=0} it is an under-claim (not judged, switch
// off); answered at 250 ms it is a state no record appended by then makes, so a mismatch, judged
// and failed whatever the switch.
TEST(ResultMatchesModelTest, AnUnderClaimIsAStateReachedBeforeTheAnswerCompleted) {
  for (const int64_t at_ms : {400, 250}) {
    TraceBuilder b = table();
    b.consistency(false);
    for (size_t i = 0; i < b.trace().source_log.size(); ++i) {
      b.trace().source_log[i].appended_ms = base::Instant::from_ms(100 * (int64_t(i) + 1));
    }
    b.add(b.key_query(0, 1).at(at_ms, at_ms).ok(11, pos(0, 0)).replica(standby(0, pos(0, 0))));
    JudgeContext context(b.trace());
    const auto vs = check_result_matches_model(context);
    ASSERT_EQ(vs.size(), at_ms == 400 ? 0u : 1u) << "seed " << kSeed << " at " << at_ms << " ms\n"
                                                 << text(vs);
    if (!vs.empty()) {
      EXPECT_NE(vs[0].summary.find("nor at any later one"), std::string::npos) << vs[0].summary;
    }
  }
}

TEST(ResultMatchesModelTest, EmptyPositionWithTheSwitchOffIsNotJudged) {
  TraceBuilder b = table();
  b.consistency(false);
  // A standby that never advanced (switch off) answers with its data and an empty position.
  b.add(b.key_query(0, 1).ok(11, Position::empty_position()).replica(standby(0, std::nullopt)));
  JudgeContext context(b.trace());
  EXPECT_TRUE(check_result_matches_model(context).empty()) << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("ResultMatchesModel").judged, 0u) << "seed " << kSeed;

  // With the switch on, an empty position means "nothing applied": the value must be absent.
  b.consistency(true);
  const auto vs = judge(b.trace());
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].expected, "null") << "seed " << kSeed;
}

TEST(ResultMatchesModelTest, ImplausiblePositionsFail) {
  TraceBuilder b(TopologyKind::Count);
  b.produce(0, 1, 5);             // offset 0 writes
  b.produce(0, 1, std::nullopt);  // offset 1 is dropped by count(): never a store position
  b.add(b.key_query(0, 1).ok(1, pos(0, 1)));
  b.add(b.key_query(0, 1).ok(1, pos(0, 7)));  // beyond the log
  Position two_partitions = pos(0, 0);
  two_partitions.with_component(testing::kTopic, 1, 3);
  b.add(b.key_query(0, 1).ok(1, two_partitions));
  b.add(b.key_query(0, 1).ok(1, std::nullopt));  // Kafka attaches a position to every success
  const auto vs = judge(b.trace());
  ASSERT_EQ(vs.size(), 4u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_NE(vs[0].summary.find("not one the store can report"), std::string::npos);
  EXPECT_EQ(vs[0].expected.rfind("Position{position={input-topic={0=0}}}", 0), 0u)
      << "seed " << kSeed << " " << vs[0].expected;
  EXPECT_NE(vs[1].expected.find("end offset 1"), std::string::npos) << vs[1].expected;
  EXPECT_EQ(vs[3].summary, "a success without a position") << "seed " << kSeed;
}

// DSL over a plain RocksDB supplier: the adapter gives -1; a cached TimestampedKeyQuery may hit
// the cache and give the real timestamp; ranges bypass the cache and always give -1.
TEST(ResultMatchesModelTest, MinusOneTimestampQuirkOfThePlainRocksDbAdapter) {
  for (const bool caching : {false, true}) {
    TraceBuilder b = table(KeyValueSupplier::kRocksDb, caching);
    b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(11, pos(0, 2), {-1}));  // pass
    b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(11, pos(0, 2), {300}));
    b.add(b.range_query(0, 1, 2, QueryKind::TimestampedRangeQuery)
              .ok_entries({{1, 11}, {2, 20}}, pos(0, 2), {-1, -1}));  // pass
    b.add(b.range_query(0, 1, 2, QueryKind::TimestampedRangeQuery)
              .ok_entries({{1, 11}, {2, 20}}, pos(0, 2), {300, 200}));  // fails
    const auto vs = judge(b.trace());
    // Without a cache the real timestamp is wrong on the key query as well.
    ASSERT_EQ(vs.size(), caching ? 1u : 2u) << "seed " << kSeed << " caching " << caching << "\n"
                                            << text(vs);
    EXPECT_EQ(vs.back().record_id, 4u) << "seed " << kSeed;
    EXPECT_EQ(vs.back().expected, "[1=11@-1, 2=20@-1]") << "seed " << kSeed;
    if (!caching) {
      EXPECT_EQ(vs[0].expected, "value=11 ts=-1") << "seed " << kSeed;
    }
  }
}

// An aggregation over a plain RocksDB supplier with a cache (seed 26 of templates/default.toml):
// KStreamAggregate reads the old aggregate through the adapter, which answers -1 whenever the key
// is not cached (after a restore, an eviction or a task move), and takes max(record, -1); so a
// cached TimestampedKeyQuery may carry the maximum of the record timestamps from any record on.
TEST(ResultMatchesModelTest, CachedAggregateOverThePlainAdapterForgetsOlderTimestamps) {
  TraceBuilder b(TopologyKind::Count, KeyValueSupplier::kRocksDb, true);
  b.produce(0, 1, 1, 400);  // the model's aggregate timestamp: 400 from here on
  b.produce(0, 1, 1, 100);
  b.produce(0, 1, 1, 300);
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(3, pos(0, 2), {400}));  // pass
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(3, pos(0, 2), {300}));  // pass
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(3, pos(0, 2), {-1}));   // pass
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(3, pos(0, 2), {100}));  // fails
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(3, pos(0, 2), {350}));  // fails
  const auto vs = judge(b.trace());
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 4u) << "seed " << kSeed;  // record ids count from 1
  EXPECT_EQ(vs[1].record_id, 5u) << "seed " << kSeed;
  // SamePositionSameAnswer: the two right timestamps at one position agree, a wrong one does not.
  TraceBuilder same(TopologyKind::Count, KeyValueSupplier::kRocksDb, true);
  same.produce(0, 1, 1, 400);
  same.produce(0, 1, 1, 100);
  same.produce(0, 1, 1, 300);
  same.add(same.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(3, pos(0, 2), {400}));
  same.add(same.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(3, pos(0, 2), {300}));
  JudgeContext right(same.trace());
  EXPECT_TRUE(check_same_position_same_answer(right).empty()) << "seed " << kSeed;
  same.add(same.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(3, pos(0, 2), {100}));
  JudgeContext wrong(same.trace());
  EXPECT_EQ(check_same_position_same_answer(wrong).size(), 1u) << "seed " << kSeed;
}

TEST(ResultMatchesModelTest, TimestampsMustMatchOnTimestampedStoresAndBeAbsentOnPlainQueries) {
  TraceBuilder b = table();
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery).ok(11, pos(0, 2), {-1}));
  b.add(b.key_query(0, 1).ok(11, pos(0, 2), {300}));  // a plain KeyQuery has no timestamp
  const auto vs = judge(b.trace());
  EXPECT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
}

// The PAPI writer over an in-memory store without cache: delete() removes the key but leaves
// the position at the last put (docs/iqv2-semantics.md quirk 6).
TEST(ResultMatchesModelTest, InMemoryDeleteThatDoesNotAdvanceThePosition) {
  TraceBuilder b(TopologyKind::PapiWriter, KeyValueSupplier::kInMemory, false);
  b.produce(0, 1, 5);             // offset 0
  b.produce(0, 1, std::nullopt);  // offset 1: delete(1), position stays {0: 0}
  b.add(b.key_query(0, 1).ok(std::nullopt, pos(0, 0)));  // deleted: passes
  b.add(b.key_query(0, 1).ok(5, pos(0, 0)));             // before the delete: passes
  b.add(b.key_query(0, 1).ok(std::nullopt, pos(0, 1)));  // {0: 1} is never reported: fails
  auto vs = judge(b.trace());
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 3u) << "seed " << kSeed;

  // Over RocksDB the delete advances the position, so a null at {0: 0} is an under-claim.
  TraceBuilder r(TopologyKind::PapiWriter, KeyValueSupplier::kRocksDb, false);
  r.produce(0, 1, 5);
  r.produce(0, 1, std::nullopt);
  r.add(r.key_query(0, 1).ok(std::nullopt, pos(0, 0)));
  r.add(r.key_query(0, 1).ok(std::nullopt, pos(0, 1)));
  vs = judge(r.trace());
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 1u) << "seed " << kSeed;
}

TEST(ResultMatchesModelTest, OnlyRecordsOfPhasesThatListItAreJudged) {
  TraceBuilder b = table();
  b.phase("bounds only", 0, 10, {"BoundHonored"});
  b.add(b.key_query(0, 1).ok(99, pos(0, 2)));  // invoked at 1 ms: not judged
  b.add(b.key_query(0, 1).at(20, 21).ok(99, pos(0, 2)));
  const auto vs = judge(b.trace());
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].record_id, 2u) << "seed " << kSeed;
}

TEST(ResultMatchesModelTest, FailuresAndUnmodelledQueriesAreNotJudged) {
  TraceBuilder b = table();
  b.add(b.key_query(0, 1).fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 0)));
  b.add(b.key_query(0, 1).store("other-store").ok(99, pos(0, 2)));
  b.add(b.key_query(0, 1, QueryKind::WindowKeyQuery).ok(99, pos(0, 2)));
  JudgeContext context(b.trace());
  EXPECT_TRUE(check_result_matches_model(context).empty()) << "seed " << kSeed;
  const auto& tally = context.tallies().at("ResultMatchesModel");
  EXPECT_EQ(tally.judged, 0u) << "seed " << kSeed;
  EXPECT_EQ(tally.not_judged.size(), 2u) << "seed " << kSeed;
}

// An LRU store of capacity 1 (keys 1, 2, 3 written at offsets 0, 1, 2): an evicted key may be
// absent and a range answer may skip evicted keys, but whatever is present must be the model's.
TraceBuilder lru_table(int64_t capacity) {
  TraceBuilder b(TopologyKind::SourceTable, KeyValueSupplier::kLruMap);
  b.trace().topology.lru_max_entries = capacity;
  b.produce(0, 1, 10);
  b.produce(0, 2, 20);
  b.produce(0, 3, 30);
  return b;
}

TEST(ResultMatchesModelTest, AnLruStoreMayHaveEvictedButNeverAnswersWrongly) {
  TraceBuilder b = lru_table(1);
  b.add(b.key_query(0, 1).ok(std::nullopt, pos(0, 2)));            // evicted: passes
  b.add(b.key_query(0, 3).ok(30, pos(0, 2)));                      // present, right value: passes
  b.add(b.range_query(0, 1, 3).ok_entries({{3, 30}}, pos(0, 2)));  // a subsequence: passes
  b.add(b.range_query(0, 1, 3).order(ResultOrder::DESCENDING).ok_entries({}, pos(0, 2)));
  b.add(b.key_query(0, 2, QueryKind::TimestampedKeyQuery).ok(20, pos(0, 2), {200}));  // passes
  b.add(b.key_query(0, 3).ok(31, pos(0, 2)));  // a present key with a wrong value: fails
  b.add(b.range_query(0, 1, 3).ok_entries({{3, 30}, {1, 10}}, pos(0, 2)));  // out of order
  b.add(b.range_query(0, 1, 3).ok_entries({{2, 21}}, pos(0, 2)));           // wrong value
  b.add(b.range_query(0, 1, 3).ok_entries({{1, 10}, {3, 30}}, pos(0, 2)));  // over capacity
  b.add(b.key_query(0, 2, QueryKind::TimestampedKeyQuery).ok(20, pos(0, 2), {999}));  // wrong ts
  const auto vs = judge(b.trace());
  ASSERT_EQ(vs.size(), 5u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 6u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].expected, "value=30") << "seed " << kSeed;
  EXPECT_EQ(vs[1].record_id, 7u) << "seed " << kSeed;
  EXPECT_EQ(vs[1].expected, "a subsequence (LRU evictions) of [1=10, 2=20, 3=30]")
      << "seed " << kSeed;
  EXPECT_EQ(vs[4].record_id, 10u) << "seed " << kSeed;
}

TEST(ResultMatchesModelTest, AnLruStoreThatCannotHaveEvictedIsJudgedExactly) {
  // Capacity 3 with three keys: nothing was evicted, so an absent key is a wrong answer; the
  // same holds at offset 0 of a capacity-1 store (one key written so far).
  TraceBuilder b = lru_table(3);
  b.add(b.key_query(0, 1).ok(std::nullopt, pos(0, 2)));
  b.add(b.range_query(0, 1, 3).ok_entries({{3, 30}}, pos(0, 2)));
  const auto vs = judge(b.trace());
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, "value=10") << "seed " << kSeed;
  TraceBuilder one = lru_table(1);
  one.add(one.key_query(0, 1).ok(std::nullopt, pos(0, 0)));
  const auto vs1 = judge(one.trace());
  ASSERT_EQ(vs1.size(), 1u) << "seed " << kSeed << "\n" << text(vs1);
  EXPECT_EQ(vs1[0].expected, "value=10") << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
