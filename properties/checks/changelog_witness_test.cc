#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/check_util.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using namespace testing;  // NOLINT

const char* const kWitness = "ChangelogWitness";

// The changelog of partition 0 these tests share: key 1 = 10 then 11, key 2 = 5, each with the
// writer's position after the write as its header.
TraceBuilder three_writes(KeyValueSupplier supplier = KeyValueSupplier::kRocksDbTimestamped) {
  TraceBuilder b(TopologyKind::SourceTable, supplier);
  b.produce(0, 1, 10);
  b.produce(0, 1, 11);
  b.produce(0, 2, 5);
  b.log(0, 1, 10, 100, pos(0, 0));
  b.log(0, 1, 11, 200, pos(0, 1));
  b.log(0, 2, 5, 300, pos(0, 2));
  return b;
}

const CheckTally& tally_of(const JudgeContext& context) {
  return context.tallies().find(kWitness)->second;
}

// A standby and an active that answer exactly the fold of the prefix they applied pass, values,
// timestamps, ranges and positions alike.
TEST(ChangelogWitnessTest, AnswersThatAreTheFoldOfTheAppliedPrefixPass) {
  TraceBuilder b = three_writes();
  b.add(b.key_query(0, 1).ok(11, pos(0, 1)).replica(applied(standby(0, pos(0, 1)), 1)));
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery)
            .ok(10, pos(0, 0), {100})
            .replica(applied(standby(0, pos(0, 0)), 0)));
  b.add(b.range_query(0, 1, 2)
            .ok_entries({{1, 11}, {2, 5}}, pos(0, 2))
            .replica(applied(active(0, pos(0, 2)), 2)));
  b.add(b.range_query(0, std::nullopt, std::nullopt)
            .order(ResultOrder::DESCENDING)
            .ok_entries({{2, 5}, {1, 11}}, pos(0, 2))
            .replica(applied(active(0, pos(0, 2)), 2)));
  // Nothing applied yet: the fold is empty, and so is the position.
  b.add(b.key_query(0, 1)
            .ok(std::nullopt, Position::empty_position())
            .replica(applied(standby(0, std::nullopt), std::nullopt)));
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(tally_of(context).judged, 5u) << "seed " << kSeed;
  EXPECT_TRUE(tally_of(context).not_judged.empty()) << "seed " << kSeed;
}

// A value, a timestamp, a range entry or a position other than the fold's fails, and names the
// prefix and the replica.
TEST(ChangelogWitnessTest, AnswersOtherThanTheFoldFail) {
  TraceBuilder b = three_writes();
  // An older value than the prefix holds (a restore that skipped a record).
  b.add(b.key_query(0, 1).ok(10, pos(0, 1)).replica(applied(standby(0, pos(0, 1)), 1)));
  // The right value under the wrong timestamp.
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery)
            .ok(11, pos(0, 1), {100})
            .replica(applied(standby(0, pos(0, 1)), 1)));
  // A range missing a key the fold holds.
  b.add(b.range_query(0, 1, 2)
            .ok_entries({{1, 11}}, pos(0, 2))
            .replica(applied(active(0, pos(0, 2)), 2)));
  // The right value under a position the headers never reached.
  b.add(b.key_query(0, 1).ok(11, pos(0, 2)).replica(applied(standby(0, pos(0, 2)), 1)));
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  ASSERT_EQ(vs.size(), 4u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_NE(vs[0].summary.find("not the fold of changelog-0 [.., 1]"), std::string::npos)
      << "seed " << kSeed << "\n"
      << text(vs);
  EXPECT_EQ(vs[0].expected, "value=11") << "seed " << kSeed;
  EXPECT_EQ(vs[1].expected, "value=11 ts=200") << "seed " << kSeed;
  EXPECT_EQ(vs[2].expected, "[1=11, 2=5]") << "seed " << kSeed;
  EXPECT_NE(vs[3].summary.find("position"), std::string::npos) << "seed " << kSeed;
  EXPECT_EQ(vs[3].partition, 0) << "seed " << kSeed;
  EXPECT_EQ(tally_of(context).judged, 4u) << "seed " << kSeed;
}

// An active's record cache holds writes the changelog does not have yet. A key query reads
// through the cache: the fold with them on top (a cached tombstone included), under the merged
// position. A range goes to the store below (Kafka's CachingKeyValueStore answers only KeyQuery):
// the fold alone, under the store's position.
TEST(ChangelogWitnessTest, AnActivesUnloggedWritesServeKeyQueriesOnly) {
  TraceBuilder b = three_writes();
  b.produce(0, 1, 12);
  b.produce(0, 2, std::nullopt);
  const std::vector<sim::UnloggedWrite> cache{
      {1, 12, 400, SourceOffset(3), std::nullopt, std::nullopt},
      {2, std::nullopt, 500, SourceOffset(4), std::nullopt, std::nullopt}};
  const auto replica = applied(active(0, pos(0, 4)), 2, cache);
  b.add(b.key_query(0, 1).ok(12, pos(0, 4)).replica(replica));
  b.add(b.key_query(0, 2).ok(std::nullopt, pos(0, 4)).replica(replica));
  b.add(b.range_query(0, 1, 2).ok_entries({{1, 11}, {2, 5}}, pos(0, 2)).replica(replica));
  // Wrong: the key query missing the cached write, the range showing it.
  b.add(b.key_query(0, 1).ok(11, pos(0, 4)).replica(replica));
  b.add(b.range_query(0, 1, 2).ok_entries({{1, 12}}, pos(0, 4)).replica(replica));
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, "value=12") << "seed " << kSeed;
  EXPECT_EQ(vs[1].expected, "[1=11, 2=5]") << "seed " << kSeed;
}

// KeyQuery.skipCache() does not skip the cache through KafkaStreams#query: the metered layer drops
// the flag (quirk 1 of docs/iqv2-semantics.md), so such an answer holds the active's unlogged
// writes like any key query, and one that shows the store below instead fails.
TEST(ChangelogWitnessTest, AKeyQueryThatAsksToSkipTheCacheStillSeesIt) {
  TraceBuilder b = three_writes();
  b.produce(0, 1, 12);
  const std::vector<sim::UnloggedWrite> cache{
      {1, 12, 400, SourceOffset(3), std::nullopt, std::nullopt}};
  const auto replica = applied(active(0, pos(0, 3)), 2, cache);
  b.add(b.key_query(0, 1).skip_cache().ok(12, pos(0, 3)).replica(replica));
  // Wrong: a skipCache answer from the store below, as if the flag had reached the cache.
  b.add(b.key_query(0, 1).skip_cache().ok(11, pos(0, 2)).replica(replica));
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, "value=12") << "seed " << kSeed << "\n" << text(vs);
}

// What the witness cannot decide it counts under a reason, never as a pass: a trace without its
// changelog, an LRU store missing a key, a fenced member's writes inside an active's prefix, a
// position with the switch off (the value is judged all the same).
TEST(ChangelogWitnessTest, WhatItCannotJudgeIsCountedNotPassed) {
  {
    TraceBuilder b(TopologyKind::SourceTable);
    b.produce(0, 1, 10);
    b.add(b.key_query(0, 1).ok(10, pos(0, 0)).replica(applied(standby(0, pos(0, 0)), 0)));
    JudgeContext context(b.trace());
    EXPECT_TRUE(check_changelog_witness(context).empty()) << "seed " << kSeed;
    EXPECT_EQ(tally_of(context).judged, 0u) << "seed " << kSeed;
    EXPECT_EQ(tally_of(context).not_judged.at("the trace records no changelog"), 1u)
        << "seed " << kSeed;
  }
  {
    TraceBuilder b = three_writes(KeyValueSupplier::kLruMap);
    b.add(b.range_query(0, 1, 2)
              .ok_entries({{2, 5}}, pos(0, 2))
              .replica(applied(active(0, pos(0, 2)), 2)));
    // A present key must still have the fold's value.
    b.add(b.range_query(0, 1, 2)
              .ok_entries({{2, 6}}, pos(0, 2))
              .replica(applied(active(0, pos(0, 2)), 2)));
    JudgeContext context(b.trace());
    EXPECT_EQ(check_changelog_witness(context).size(), 1u) << "seed " << kSeed;
    EXPECT_EQ(tally_of(context).not_judged.size(), 1u) << "seed " << kSeed;
  }
  {
    TraceBuilder b = three_writes();
    b.produce(0, 1, 99, 400);
    b.produce(0, 1, 12, 500);
    b.log(0, 1, 99, 400, pos(0, 3), "instance-2");  // a fenced member's late write
    b.log(0, 1, 12, 500, pos(0, 4));
    b.add(b.key_query(0, 1).ok(12, pos(0, 4)).replica(applied(active(0, pos(0, 4)), 4)));
    b.add(b.key_query(0, 1).ok(13, pos(0, 4)).replica(applied(active(0, pos(0, 4)), 4)));
    JudgeContext context(b.trace());
    // Another instance's write among this one's is no excuse: the store's recorded runs of own
    // writes say exactly which records it skipped (none here), so 13 is no state it held.
    EXPECT_EQ(check_changelog_witness(context).size(), 1u) << "seed " << kSeed;
    EXPECT_EQ(tally_of(context).judged, 2u) << "seed " << kSeed;
    EXPECT_TRUE(tally_of(context).not_judged.empty()) << "seed " << kSeed;
  }
  {
    TraceBuilder b = three_writes();
    b.consistency(false);
    b.add(b.key_query(0, 1)
              .ok(11, Position::empty_position())
              .replica(applied(standby(0, std::nullopt), 1)));
    b.add(b.key_query(0, 1)
              .ok(10, Position::empty_position())
              .replica(applied(standby(0, std::nullopt), 1)));
    JudgeContext context(b.trace());
    EXPECT_EQ(check_changelog_witness(context).size(), 1u) << "seed " << kSeed;
    EXPECT_EQ(tally_of(context).judged, 2u) << "seed " << kSeed;
    EXPECT_EQ(tally_of(context).not_judged.begin()->second, 1u) << "seed " << kSeed;
  }
}

// An active's store never applied another instance's records inside one of its runs of own
// writes (a fenced member's late writes, appended after the active's restore had read to its
// fixed end and before its own first write; seeds 28, 178 and 370 of templates/default.toml): the
// fold skips them, value and position alike. The same records before the run were restored, and
// an answer without them then fails.
TEST(ChangelogWitnessTest, AnActiveSkipsOtherWritersInsideItsRunsOfOwnWrites) {
  for (const int64_t run_after : {1, 2}) {
    TraceBuilder b(TopologyKind::SourceTable);
    // The input each changelog record below was written for (offset: key = value @ timestamp).
    b.produce(0, 1, 10, 100);  // 0
    b.produce(0, 1, 11, 200);  // 1
    b.produce(0, 1, 99, 300);  // 2
    b.produce(0, 2, 7, 400);   // 3
    b.produce(0, 1, 10, 500);  // 4
    b.produce(0, 1, 10, 600);  // 5
    b.log(0, 1, 10, 100, pos(0, 0), "instance-2");
    b.log(0, 1, 11, 200, pos(0, 1), "instance-2");
    b.log(0, 1, 99, 300, pos(0, 5), "instance-2");  // the fenced member's late write
    b.log(0, 2, 7, 400, pos(0, 3), "instance-1");   // the new active's first own write
    auto replica = applied(active(0, pos(0, 3)), 3);
    replica.own_write_runs = {
        {ChangelogOffset(run_after), ChangelogOffset(3), ChangelogOffset(-1)}};
    const uint64_t without = b.add(b.key_query(0, 1).ok(11, pos(0, 3)).replica(replica)).id;
    const uint64_t with = b.add(b.key_query(0, 1).ok(99, pos(0, 5)).replica(replica)).id;
    JudgeContext context(b.trace());
    const auto vs = check_changelog_witness(context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << " run after " << run_after << "\n" << text(vs);
    // Restored to offset 1, the active never read offset 2; restored to 2, it did.
    EXPECT_EQ(vs[0].record_id, run_after == 1 ? with : without) << "seed " << kSeed << "\n"
                                                                << text(vs);
    EXPECT_EQ(vs[0].expected, run_after == 1 ? "value=11" : "value=99") << "seed " << kSeed << "\n"
                                                                        << text(vs);
    EXPECT_EQ(tally_of(context).judged, 2u) << "seed " << kSeed;
  }
}

// A READ_COMMITTED answer of a transactional store (2026-08-20 pin) is the fold of the records its
// replica applied up to its last store commit (ReplicaSnapshot::committed_changelog_offset): the
// active below applied all three writes but committed only the first, so key 1 = 10 under {0=0}
// holds, and the staged 11 under it is a difference; READ_UNCOMMITTED reads the staged 11 under
// {0=2}.
TEST(ChangelogWitnessTest, AReadCommittedAnswerIsTheFoldUpToTheLastStoreCommit) {
  struct Case {
    IsolationLevel level;
    int64_t value;
    int64_t position;
    size_t violations;
  };
  for (const Case& c : {Case{IsolationLevel::READ_COMMITTED, 10, 0, 0},
                        Case{IsolationLevel::READ_COMMITTED, 11, 0, 1},
                        Case{IsolationLevel::READ_UNCOMMITTED, 11, 2, 0}}) {
    TraceBuilder b = three_writes(KeyValueSupplier::kRocksDb);
    b.trace().kafka_pin = KafkaPin::k2026_08_20;
    sim::ReplicaSnapshot replica = applied(active(0, pos(0, 2)), 2);
    replica.committed_position = pos(0, 0);
    replica.committed_changelog_offset = ChangelogOffset(0);
    Q q = b.key_query(0, 1).ok(c.value, pos(0, c.position)).replica(replica);
    q.r.request.isolation_level = c.level;
    b.add(q);
    JudgeContext context(b.trace());
    const auto vs = check_changelog_witness(context);
    EXPECT_EQ(vs.size(), c.violations)
        << "seed " << kSeed << " " << to_string(c.level) << " value " << c.value << "\n"
        << text(vs);
    EXPECT_EQ(tally_of(context).judged, 1u) << "seed " << kSeed;
  }
}

// Default seed 42 (at-least-once, transactional in-memory store): an active restored changelog
// [.., 2] (committed on arrival, committed position {0=2}) and processed source offset 0 again,
// staging key 1 = 10 and logging it at changelog offset 3 under the header {0=2}, which the
// restored position already covers. Its READ_COMMITTED answer is the restored 11: the records up
// to the last store commit, not those under headers at or below the committed position (which
// would take the staged rewrite). The staged 10 under the committed position is a difference.
TEST(ChangelogWitnessTest, AReadCommittedAnswerExcludesStagedWritesUnderTheCommittedPosition) {
  for (const int64_t value : {11, 10}) {
    TraceBuilder b = three_writes(KeyValueSupplier::kInMemory);
    b.trace().kafka_pin = KafkaPin::k2026_08_20;
    b.log(0, 1, 10, 100, pos(0, 2));  // the reprocessed write of source offset 0, staged
    sim::ReplicaSnapshot replica = applied(active(0, pos(0, 2)), 3);
    replica.committed_position = pos(0, 2);
    replica.committed_changelog_offset = ChangelogOffset(2);
    Q q = b.key_query(0, 1).ok(value, pos(0, 2)).replica(replica);
    q.r.request.isolation_level = IsolationLevel::READ_COMMITTED;
    b.add(q);
    JudgeContext context(b.trace());
    const auto vs = check_changelog_witness(context);
    EXPECT_EQ(vs.size(), value == 11 ? 0u : 1u) << "seed " << kSeed << " value " << value << "\n"
                                                << text(vs);
  }
}

// A dirty read (an answer reflecting a write of a transaction undecided at the answer, as
// dirty_reads.h counts it) is a violation under READ_COMMITTED at the 2026-08-20 pin, and only
// there: instance-2's active answers its open transaction's key 1 = 11 at 400 ms (aborted at
// 500 ms). Under READ_UNCOMMITTED, at the old pin, or once the record is committed (the answer
// after its marker) it is not one; the run's default level decides for a query that sets none.
TEST(ChangelogWitnessTest, ADirtyReadUnderReadCommittedIsAViolation) {
  struct Case {
    KafkaPin pin;
    std::optional<IsolationLevel> level;
    IsolationLevel default_level;
    int64_t at_ms;
    size_t violations;
  };
  constexpr auto RC = IsolationLevel::READ_COMMITTED;
  constexpr auto RU = IsolationLevel::READ_UNCOMMITTED;
  constexpr auto kNew = KafkaPin::k2026_08_20;
  for (const Case& c : {Case{kNew, RC, RU, 400, 1}, Case{kNew, RU, RC, 400, 0},
                        Case{kNew, std::nullopt, RC, 400, 1}, Case{kNew, std::nullopt, RU, 400, 0},
                        Case{KafkaPin::k2024_10_25, std::nullopt, RU, 400, 0}}) {
    TraceBuilder b = testing::eos_aborted_write_trace();
    b.trace().kafka_pin = c.pin;
    b.trace().default_iq_isolation_level = c.default_level;
    testing::Q q =
        b.key_query(0, 1)
            .at(c.at_ms, c.at_ms)
            .target("instance-2")
            .ok(11, pos(0, 1))
            .replica(testing::own_runs(applied(active(0, pos(0, 1), "instance-2"), 1), {{0, 1}}));
    q.r.request.isolation_level = c.level;
    b.add(q);
    JudgeContext context(b.trace());
    const auto vs = check_changelog_witness(context);
    EXPECT_EQ(vs.size(), c.violations)
        << "seed " << kSeed << " level " << (c.level ? to_string(*c.level) : "default") << "\n"
        << text(vs);
    if (!vs.empty()) {
      EXPECT_TRUE(vs[0].read_committed_dirty) << "seed " << kSeed;
      EXPECT_NE(vs[0].summary.find("changelog-0 offset 1 by instance-2, later aborted"),
                std::string::npos)
          << vs[0].summary;
    }
  }
  // Committed data under READ_COMMITTED: key 2 = 5 by instance-1 read at 800 ms, after its
  // commit at 700 ms, is no dirty read (at 400 ms, before it, it is).
  for (const int64_t at : {800, 400}) {
    TraceBuilder b = testing::eos_aborted_write_trace();
    b.trace().kafka_pin = kNew;
    b.trace().default_iq_isolation_level = RC;
    b.add(
        b.key_query(0, 2)
            .at(at, at)
            .target("instance-1")
            .ok(5, pos(0, 2))
            .replica(testing::own_runs(applied(active(0, pos(0, 2), "instance-1"), 2), {{1, 2}})));
    JudgeContext context(b.trace());
    EXPECT_EQ(check_changelog_witness(context).size(), at == 800 ? 0u : 1u)
        << "seed " << kSeed << " at " << at;
  }
}

}  // namespace
}  // namespace iq::properties

namespace iq::properties {
namespace {

using namespace testing;  // NOLINT

// The changelog violations of a trace without queries: those about records, not answers.
std::vector<Violation> record_violations(TraceBuilder& b) {
  JudgeContext context(b.trace());
  return check_changelog_witness(context);
}

// A plain-builder LRU store (the PAPI writer over Stores.lruMap, capacity 2) logs a tombstone for
// the key it evicts, under the context of the write that evicted it: explained. The same
// eviction logged as the evicted key's value (the lru-eviction-not-logged mutant) is explained by
// no source record, and fails naming the record.
TEST(ChangelogWitnessTest, AnLruEvictionIsATombstoneAndNothingElse) {
  for (const bool mutated : {false, true}) {
    TraceBuilder b(TopologyKind::PapiWriter, KeyValueSupplier::kLruMap);
    b.produce(0, 1, 10);  // ts 100
    b.produce(0, 2, 20);  // ts 200
    b.produce(0, 3, 30);  // ts 300: evicts key 1
    b.log(0, 1, 10, 100, pos(0, 0));
    b.log(0, 2, 20, 200, pos(0, 1));
    b.log(0, 1, mutated ? std::optional<int64_t>(10) : std::nullopt, 300, pos(0, 2));
    b.log(0, 3, 30, 300, pos(0, 2));
    const auto vs = record_violations(b);
    if (!mutated) {
      EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
      continue;
    }
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
    EXPECT_NE(vs[0].summary.find("changelog-0 offset 2 (by instance-1) is explained by no source"),
              std::string::npos)
        << "seed " << kSeed << "\n"
        << text(vs);
    EXPECT_NE(vs[0].summary.find("key 1 = 10 at timestamp 300"), std::string::npos)
        << "seed " << kSeed << "\n"
        << text(vs);
    EXPECT_EQ(vs[0].record_id, 0u) << "seed " << kSeed;
  }
}

// Only a plain-builder LRU store logs evictions: under the DSL's timestamped builder the same
// tombstone needs a delete of the key in the input; a value needs a record of the key with that
// value and timestamp at or below the header's offset.
TEST(ChangelogWitnessTest, EveryChangelogRecordNeedsTheSourceRecordItCameFrom) {
  TraceBuilder b(TopologyKind::SourceTable, KeyValueSupplier::kLruMap);
  b.produce(0, 1, 10);            // offset 0, ts 100
  b.produce(0, 2, 20);            // offset 1, ts 200
  b.produce(0, 2, std::nullopt);  // offset 2, ts 300: a delete of key 2
  b.log(0, 1, 10, 100, pos(0, 0));
  b.log(0, 2, std::nullopt, 300, pos(0, 2));  // the delete: explained
  b.log(0, 1, std::nullopt, 300, pos(0, 2));  // no delete of key 1: an eviction is not logged here
  b.log(0, 2, 20, 200, pos(0, 0));            // written before its input record (offset 1)
  b.log(0, 1, 11, 100, pos(0, 2));            // a value the key never had
  b.log(0, 1, 10, 100, std::nullopt);         // no header: bounded by the whole input, explained
  const auto vs = record_violations(b);
  ASSERT_EQ(vs.size(), 3u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_NE(vs[0].summary.find("a tombstone of key 1"), std::string::npos) << "seed " << kSeed;
  EXPECT_NE(vs[1].summary.find("at or below source offset 0"), std::string::npos)
      << "seed " << kSeed << "\n"
      << text(vs);
  EXPECT_NE(vs[2].summary.find("key 1 = 11"), std::string::npos) << "seed " << kSeed;
}

// An aggregation logs its aggregate, which no source record holds: its key and timestamp (the
// largest of the key's records so far) must still come from the input at or below the header.
TEST(ChangelogWitnessTest, AnAggregateNeedsARecordOfItsKeyWithItsTimestamp) {
  TraceBuilder b(TopologyKind::Count);
  b.produce(0, 1, 5);  // ts 100
  b.produce(0, 1, 7);  // ts 200
  b.log(0, 1, 1, 100, pos(0, 0));
  b.log(0, 1, 2, 200, pos(0, 1));
  b.log(0, 1, 3, 200, pos(0, 1));  // a double count after reprocessing: the value is not judged
  b.log(0, 2, 1, 100, pos(0, 1));  // key 2 was never written
  b.log(0, 1, 2, 150, pos(0, 1));  // a timestamp no record of key 1 has
  const auto vs = record_violations(b);
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_NE(vs[0].summary.find("key 2 written at timestamp 100"), std::string::npos)
      << "seed " << kSeed << "\n"
      << text(vs);
  EXPECT_NE(vs[1].summary.find("timestamp 150"), std::string::npos) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties

namespace iq::properties {
namespace {

using namespace testing;  // NOLINT

// A plain-builder LRU store under a record cache logged key 1's eviction, but the cache may still
// hold key 1's clean entry, which a key query on the active reads first: that answer is key 1's
// last logged value. A standby (no cache), the same store without a cache, or another value fail.
TEST(ChangelogWitnessTest, AnActivesCacheMayStillHoldAnEvictedKey) {
  for (const bool caching : {true, false}) {
    TraceBuilder b(TopologyKind::PapiWriter, KeyValueSupplier::kLruMap);
    b.trace().topology.caching = caching;
    b.produce(0, 1, 10);  // ts 100
    b.produce(0, 2, 20);  // ts 200
    b.produce(0, 3, 30);  // ts 300
    b.log(0, 1, 10, 100, pos(0, 0));
    b.log(0, 2, 20, 200, pos(0, 1));
    b.log(0, 1, std::nullopt, 300, pos(0, 2));  // the eviction of key 1
    b.log(0, 3, 30, 300, pos(0, 2));
    const uint64_t active_ok =
        b.add(b.key_query(0, 1).ok(10, pos(0, 2)).replica(applied(active(0, pos(0, 2)), 3))).id;
    b.add(b.key_query(0, 1).ok(10, pos(0, 2)).replica(applied(standby(0, pos(0, 2)), 3)));
    b.add(b.key_query(0, 1).ok(11, pos(0, 2)).replica(applied(active(0, pos(0, 2)), 3)));
    b.add(b.key_query(0, 1).ok(std::nullopt, pos(0, 2)).replica(applied(active(0, pos(0, 2)), 3)));
    JudgeContext context(b.trace());
    const auto vs = check_changelog_witness(context);
    ASSERT_EQ(vs.size(), caching ? 2u : 3u) << "seed " << kSeed << " caching " << caching << "\n"
                                            << text(vs);
    if (!caching) {
      EXPECT_EQ(vs[0].record_id, active_ok) << "seed " << kSeed << "\n" << text(vs);
    }
  }
}

TraceBuilder aborted_write() {
  return eos_aborted_write_trace();
}

// A read_committed reader folds what Kafka's fetcher returns: a standby past an aborted
// transaction holds neither its value nor its header, and the store that wrote it holds its
// uncommitted write, after the abort too, until Kafka wipes it (a coordinator's abort does not
// reach the store).
TEST(ChangelogWitnessTest, UnderExactlyOnceTheFoldSkipsAbortedRecordsExceptInTheWritersStore) {
  TraceBuilder b = aborted_write();
  b.add(b.key_query(0, 1)
            .at(400, 400)
            .target("instance-2")
            .ok(11, pos(0, 1))
            .replica(own_runs(applied(active(0, pos(0, 1), "instance-2"), 1), {{0, 1}})));
  b.add(b.key_query(0, 1)
            .at(600, 600)
            .target("instance-2")
            .ok(11, pos(0, 1))
            .replica(own_runs(applied(active(0, pos(0, 1), "instance-2"), 1), {{0, 1}})));
  b.add(b.key_query(0, 1)
            .at(800, 800)
            .target("instance-3")
            .ok(10, pos(0, 2))
            .replica(applied(standby(0, pos(0, 2), "instance-3"), 2)));
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery)
            .at(800, 800)
            .target("instance-2")
            .ok(10, pos(0, 2), {100})
            .replica(applied(standby(0, pos(0, 2), "instance-2"), 2)));
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(tally_of(context).judged, 4u) << "seed " << kSeed;
  EXPECT_TRUE(tally_of(context).not_judged.empty()) << "seed " << kSeed;
}

// What a read_uncommitted standby would answer fails: the aborted value, or its header in the
// position; so does a store of the writer's instance that did not write it (one restored after
// its store was wiped). The witness names the records it skipped as a read_committed reader.
TEST(ChangelogWitnessTest, UnderExactlyOnceAnAnswerReflectingAnAbortedWriteFails) {
  TraceBuilder b = aborted_write();
  // A standby that read the aborted record and stopped there, before the abort: value and header.
  b.add(b.key_query(0, 1)
            .at(450, 450)
            .target("instance-3")
            .ok(11, pos(0, 1))
            .replica(applied(standby(0, pos(0, 1), "instance-3"), 1)));
  // The right value under the aborted record's header.
  b.add(b.key_query(0, 1)
            .at(600, 600)
            .target("instance-3")
            .ok(10, pos(0, 1))
            .replica(applied(standby(0, pos(0, 1), "instance-3"), 1)));
  // A store of the writer's instance that did not write it (no run of own writes holds it).
  b.add(b.key_query(0, 1)
            .at(600, 600)
            .target("instance-2")
            .ok(11, pos(0, 1))
            .replica(applied(active(0, pos(0, 1), "instance-2"), 1)));
  // A standby that read the aborted record (read_uncommitted), past it.
  b.add(b.key_query(0, 1)
            .at(800, 800)
            .target("instance-3")
            .ok(11, pos(0, 2))
            .replica(applied(standby(0, pos(0, 2), "instance-3"), 2)));
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  ASSERT_EQ(vs.size(), 4u) << "seed " << kSeed << "\n" << text(vs);
  const std::string skipped =
      " (read_committed skipped 1 records; the last: offset 1 key 1 by instance-2 appended at "
      "200 ms, aborted at 500 ms)";
  EXPECT_EQ(vs[0].expected, "value=10" + skipped) << "seed " << kSeed;
  EXPECT_EQ(vs[1].expected, "position " + pos(0, 0).to_string()) << "seed " << kSeed;
  EXPECT_EQ(vs[2].expected, "value=10" + skipped) << "seed " << kSeed;
  EXPECT_EQ(vs[3].expected, "value=10" + skipped) << "seed " << kSeed;
}

// A run of own writes opens where the restore stopped, at the last stable offset: the same
// instance's earlier life's transaction after it (aborted later) is not this store's write,
// only the records from the run's first own write on are.
TEST(ChangelogWitnessTest, UnderExactlyOnceAnEarlierLifesRecordsInsideARunAreNotTheStores) {
  for (int64_t first : {2, -1}) {
    // Key 1 = 10 committed; key 1 = 11 by instance-2's earlier life, aborted at 500 ms; key 2 = 5,
    // this store's first own write, still open.
    TraceBuilder b(TopologyKind::SourceTable, KeyValueSupplier::kRocksDbTimestamped);
    b.produce(0, 1, 10);
    b.produce(0, 1, 11);
    b.produce(0, 2, 5);
    b.log(0, 1, 10, 100, pos(0, 0));
    b.log(0, 1, 11, 200, pos(0, 1), "instance-2");
    b.log(0, 2, 5, 300, pos(0, 2), "instance-2", 600);
    b.txn(0, 0, sim::TxnOutcome::kCommitted, 150);
    b.txn(0, 1, sim::TxnOutcome::kAborted, 500);
    b.txn(0, 2, sim::TxnOutcome::kOpen);
    sim::ReplicaSnapshot r = applied(active(0, pos(0, 2), "instance-2"), 2);
    // The restore stopped at offset 0 (the last stable offset before the earlier life's
    // transaction); a hand-made run without first_offset takes the whole run as its own.
    r.own_write_runs = {{ChangelogOffset(0), ChangelogOffset(2), ChangelogOffset(first)}};
    b.add(b.key_query(0, 1).at(650, 650).target("instance-2").ok(10, pos(0, 2)).replica(r));
    b.add(b.key_query(0, 1).at(660, 660).target("instance-2").ok(11, pos(0, 2)).replica(r));
    JudgeContext context(b.trace());
    const auto vs = check_changelog_witness(context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << " first=" << first << "\n" << text(vs);
    EXPECT_EQ(vs[0].returned.find(first == 2 ? "value=11" : "value=10") != std::string::npos, true)
        << "seed " << kSeed << " first=" << first << "\n"
        << text(vs);
  }
}

// A transaction still open at the end of the run: only its writer's store holds it.
TEST(ChangelogWitnessTest, UnderExactlyOnceAnOpenTransactionIsTheWritersAlone) {
  TraceBuilder b = aborted_write();
  b.txn(0, 2, sim::TxnOutcome::kOpen);
  b.add(b.key_query(0, 2)
            .at(800, 800)
            .target("instance-1")
            .ok(5, pos(0, 2))
            .replica(own_runs(applied(active(0, pos(0, 2), "instance-1"), 2), {{1, 2}})));
  b.add(b.key_query(0, 2)
            .at(800, 800)
            .target("instance-3")
            .ok(5, pos(0, 2))
            .replica(applied(standby(0, pos(0, 2), "instance-3"), 2)));
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected,
            "null (read_committed skipped 1 records; the last: offset 2 key 2 by instance-1 "
            "appended at 300 ms, open)")
      << "seed " << kSeed;
}

// Proves restarted_before and reopened_before count what happened to the instance, by kind: a
// crash armed inside an operation that never landed is no restart (nor a reopening), nor is a
// crash the injector skipped; the crash that lands is, from the time it landed, as is a close or
// a restart; a pause or isolation is a reopening only.
TEST(ChangelogWitnessTest, AnArmedCrashThatNeverLandedIsNoRestart) {
  const auto at = [](int64_t ms) { return base::Instant::from_ms(ms); };
  TraceBuilder b = three_writes();
  b.fault(10, sim::FaultKind::kCrashArmed, "instance-1");
  b.fault(20, sim::FaultKind::kCrash, "instance-1", /*applied=*/false);
  b.fault(30, sim::FaultKind::kPause, "instance-2");
  b.fault(40, sim::FaultKind::kCrashArmed, "instance-3");
  b.fault(50, sim::FaultKind::kCrashLanded, "instance-3");
  b.fault(60, sim::FaultKind::kClose, "instance-4");
  const JudgeContext context(b.trace());
  for (const int64_t ms : {10, 20, 1000}) {
    EXPECT_FALSE(detail::restarted_before(context, "instance-1", at(ms))) << "seed " << kSeed;
    EXPECT_FALSE(detail::reopened_before(context, "instance-1", at(ms))) << "seed " << kSeed;
  }
  EXPECT_FALSE(detail::restarted_before(context, "instance-2", at(1000))) << "seed " << kSeed;
  EXPECT_TRUE(detail::reopened_before(context, "instance-2", at(30))) << "seed " << kSeed;
  EXPECT_FALSE(detail::restarted_before(context, "instance-3", at(49))) << "seed " << kSeed;
  EXPECT_FALSE(detail::reopened_before(context, "instance-3", at(49))) << "seed " << kSeed;
  EXPECT_TRUE(detail::restarted_before(context, "instance-3", at(50))) << "seed " << kSeed;
  EXPECT_TRUE(detail::reopened_before(context, "instance-3", at(50))) << "seed " << kSeed;
  EXPECT_FALSE(detail::restarted_before(context, "instance-4", at(59))) << "seed " << kSeed;
  EXPECT_TRUE(detail::restarted_before(context, "instance-4", at(60))) << "seed " << kSeed;
}

// Proves that a key-value store object that opened over data an earlier one kept is judged by its
// recorded life: it kept key 1 = 11 (changelog 1) beneath its .checkpoint at changelog 0 and
// loaded the .position {0=0}, so its answer 11 under {0=0} is exactly what it held (the witness
// holds, naming the life). Near misses, each a difference: the same answer from a store object
// that opened over nothing (no fold of its log); a kept value no state of the key ever had (9);
// and a store that kept less than its .checkpoint claims (key 1 = 10, changelog 0, beneath a
// .checkpoint at changelog 1, which no fold of kept data explains).
TEST(ChangelogWitnessTest, AStoreObjectOverKeptDataIsJudgedByItsRecordedLife) {
  struct Case {
    const char* what;
    std::optional<int64_t> kept;
    int64_t checkpoint;
    bool holds;
  };
  const Case cases[] = {{"kept 11 over checkpoint 0", 11, 0, true},
                        {"opened over nothing", std::nullopt, 0, false},
                        {"kept a value never written", 9, 0, false},
                        {"kept less than checkpoint 1", 10, 1, false}};
  for (const Case& c : cases) {
    TraceBuilder b = three_writes(KeyValueSupplier::kRocksDb);
    sim::StoreLife life;
    life.id = 1;
    life.instance = "instance-1";
    life.partition = 0;
    life.persistent = true;
    life.opened_ms = base::Instant::from_ms(1'000);
    life.loaded_checkpoint = ChangelogOffset(c.checkpoint);
    life.loaded_position = pos(0, c.checkpoint);
    if (c.kept) {
      life.over_kept_data = true;
      {
        sim::KeptEntry e;
        e.key = 1;
        e.value = *c.kept;
        life.kept.push_back(e);
      }
    }
    b.trace().store_lives.push_back(life);
    sim::ReplicaSnapshot replica = applied(standby(0, pos(0, c.checkpoint)), c.checkpoint);
    replica.restored_from = ChangelogOffset(c.checkpoint);
    replica.store_life = 1;
    b.add(b.key_query(0, 1)
              .ok(c.kept.value_or(11), pos(0, c.checkpoint))
              .replica(std::move(replica)));
    JudgeContext context(b.trace());
    const auto vs = check_changelog_witness(context);
    if (c.holds) {
      EXPECT_TRUE(vs.empty()) << "seed " << kSeed << " " << c.what << "\n" << text(vs);
      EXPECT_EQ(tally_of(context).judged, 1u) << "seed " << kSeed;
      const detail::WitnessResult w =
          detail::changelog_witness(context, b.trace().history.records().back(),
                                    b.trace().history.records().back().partitions[0]);
      EXPECT_EQ(w.kept_life, 1u) << "seed " << kSeed;
    } else {
      EXPECT_EQ(vs.size(), 1u) << "seed " << kSeed << " " << c.what << "\n" << text(vs);
    }
  }
}

}  // namespace
}  // namespace iq::properties
