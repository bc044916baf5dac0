// Window and session answers (window_judge.cc): ResultMatchesModel against the model's
// WindowHistory and SessionHistory (windows, sessions, values, timestamps, the position, late
// records beyond grace and the retention floor), ChangelogWitness folding a windowed changelog
// through the store's retention and explaining each windowed record, FailureReasonCorrect on the
// query forms a window or session store answers, and the declared class of a replica between one
// input record's changelog writes.

#include <gtest/gtest.h>

#include <limits>

#include "checks/check.h"
#include "checks/check_util.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using testing::active;
using testing::applied;
using testing::kSeed;
using testing::pos;
using testing::standby;
using testing::text;
using testing::TraceBuilder;

constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

// WindowedCount over an in-memory store (timestamped answers): tumbling 1 s windows, no grace,
// the DSL's retention (size + grace = 1 s). Key 1 at 100 and 200 ms (window 0), at 1500 ms
// (window 1000, stream time 1500: window 0 falls beneath the floor 500), then at 300 ms: its
// window ended at 1000 <= 1500 - 0, closed, so the record is dropped beyond grace (offset 3).
TraceBuilder windowed_count() {
  TraceBuilder b(TopologyKind::WindowedCount, KeyValueSupplier::kInMemory);
  b.trace().topology.window_size_ms = 1'000;
  b.trace().topology.grace_ms = 0;
  b.produce(0, 1, 5, 100);
  b.produce(0, 1, 6, 200);
  b.produce(0, 1, 7, 1'500);
  b.produce(0, 1, 8, 300);
  return b;
}

testing::Q window_key_query(TraceBuilder& b, sim::WindowedList answer, std::vector<int64_t> ts,
                            std::optional<Position> position) {
  testing::Q q = b.key_query(0, 1, QueryKind::WindowKeyQuery);
  q.r.request.from_time_ms = 0;
  q.r.request.to_time_ms = kForever;
  q.ok(std::nullopt, std::move(position), std::move(ts));
  q.r.partitions.back().value = std::move(answer);
  return q;
}

TEST(WindowJudgeTest, WindowAnswersAreTheModelsAtTheirPosition) {
  TraceBuilder b = windowed_count();
  b.add(window_key_query(b, {{1, 0, std::nullopt, 2}}, {200}, pos(0, 1)));
  // After the stream time reached 1500 the first window lies beneath the retention floor.
  b.add(window_key_query(b, {{1, 1'000, std::nullopt, 1}}, {1'500}, pos(0, 2)));
  // A window range over every key gives the window's end.
  testing::Q range = b.range_query(0, std::nullopt, std::nullopt, QueryKind::WindowRangeQuery);
  range.r.request.from_time_ms = 0;
  range.r.request.to_time_ms = kForever;
  range.ok(std::nullopt, pos(0, 0), {100});
  range.r.partitions.back().value = sim::WindowedList{{1, 0, 1'000, 1}};
  b.add(range);
  // Wrong: a count of 3 at offset 1; the hidden window still shown; a timestamp not the
  // aggregate's; a position naming another partition.
  b.add(window_key_query(b, {{1, 0, std::nullopt, 3}}, {200}, pos(0, 1)));
  b.add(window_key_query(b, {{1, 0, std::nullopt, 2}, {1, 1'000, std::nullopt, 1}}, {200, 1'500},
                         pos(0, 2)));
  b.add(window_key_query(b, {{1, 0, std::nullopt, 2}}, {100}, pos(0, 1)));
  b.add(window_key_query(b, {{1, 0, std::nullopt, 2}}, {200}, pos(1, 1)));
  JudgeContext context(b.trace());
  const auto vs = check_result_matches_model(context);
  ASSERT_EQ(vs.size(), 4u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 4u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].expected, "[@0=2 ts=200]") << "seed " << kSeed;
  EXPECT_EQ(vs[1].record_id, 5u) << "seed " << kSeed;
  EXPECT_EQ(vs[1].expected, "[@1000=1 ts=1500]") << "seed " << kSeed;
  EXPECT_EQ(vs[2].record_id, 6u) << "seed " << kSeed;
  EXPECT_EQ(vs[3].record_id, 7u) << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("ResultMatchesModel").judged, 7u) << "seed " << kSeed;
}

TEST(WindowJudgeTest, AnswersHangingOnAProcessorsStreamTimeAreNotJudged) {
  TraceBuilder b = windowed_count();
  b.produce(0, 2, 9, 1'600);  // key 2: never late
  // A restarted processor (stream time -1) takes the late record at offset 3, which the model
  // dropped beyond grace: an answer of key 1 that differs from the model is not judged ...
  b.add(window_key_query(b, {{1, 1'000, std::nullopt, 5}}, {1'500}, pos(0, 4)));
  // ... and neither is a position at the dropped record's offset, whatever the answer.
  b.add(window_key_query(b, {{1, 1'000, std::nullopt, 1}}, {1'500}, pos(0, 3)));
  // Key 2 had no late record: its answer is judged, and a wrong one fails.
  testing::Q key2 = window_key_query(b, {{2, 1'000, std::nullopt, 2}}, {1'600}, pos(0, 4));
  key2.r.request.key = 2;
  b.add(key2);
  JudgeContext context(b.trace());
  const auto vs = check_result_matches_model(context);
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 3u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].expected, "[@1000=1 ts=1600]") << "seed " << kSeed;
  const CheckTally& tally = context.tallies().at("ResultMatchesModel");
  EXPECT_EQ(tally.judged, 1u) << "seed " << kSeed;
  EXPECT_EQ(tally.not_judged.size(), 2u) << "seed " << kSeed;
}

// SessionCount over an in-memory store: gap 1 s. Key 1 at 100 ms, then at 500 ms (merged into
// [100, 500] = 2): the merge logs the removal of [100, 100] and the put of [100, 500], both under
// the header of source offset 1.
TraceBuilder session_count() {
  TraceBuilder b(TopologyKind::SessionCount, KeyValueSupplier::kInMemory);
  b.trace().topology.session_gap_ms = 1'000;
  b.trace().topology.grace_ms = 0;
  b.produce(0, 1, 5, 100);
  b.produce(0, 1, 6, 500);
  const auto windowed = [&](int64_t start, int64_t end) {
    b.trace().changelog.back().window_start_ms = start;
    b.trace().changelog.back().window_end_ms = end;
  };
  b.log(0, 1, 1, 100, pos(0, 0));
  windowed(100, 100);
  b.log(0, 1, std::nullopt, 500, pos(0, 1));
  windowed(100, 100);
  b.log(0, 1, 2, 500, pos(0, 1));
  windowed(100, 500);
  return b;
}

testing::Q session_query(TraceBuilder& b, sim::WindowedList answer,
                         std::optional<Position> position, sim::ReplicaSnapshot replica) {
  testing::Q q = b.key_query(0, 1, QueryKind::WindowRangeQuery);
  q.ok(std::nullopt, std::move(position));
  q.r.partitions.back().value = std::move(answer);
  q.replica(std::move(replica));
  return q;
}

// A session count (gap 1 s, no grace, so a retention of 1 s): key 1 at 100 ms, key 2 at 2000 ms
// (the store's floor passes [100, 100]), key 1 at 1050 ms (within grace: a cached processor
// merges [100, 100] if its cache still holds it, else starts [1050, 1050]), key 2 at 5000 ms
// (every session of key 1 beneath the floor). An answer of key 1 at offset 2 that is nothing is
// the model's at offset 3 only.
TraceBuilder merge_past_the_floor(bool caching) {
  TraceBuilder b(TopologyKind::SessionCount, KeyValueSupplier::kInMemory, caching);
  b.trace().topology.session_gap_ms = 1'000;
  b.trace().topology.grace_ms = 0;
  b.produce(0, 1, 5, 100);
  b.produce(0, 2, 6, 2'000);
  b.produce(0, 1, 7, 1'050);
  b.produce(0, 2, 8, 5'000);
  b.add(session_query(b, {}, pos(0, 2), active(0, pos(0, 2))));
  return b;
}

TEST(WindowJudgeTest, AnUnderClaimOverACacheOnlyMergeIsNotJudgedButOtherwiseIs) {
  // Cached: the model's answer at offset 2 hangs on the cache's evictions, so an answer that is
  // the model's at a later offset is no under-claim either: not judged, as a mismatch is not.
  TraceBuilder cached = merge_past_the_floor(true);
  JudgeContext cached_context(cached.trace());
  EXPECT_TRUE(check_result_matches_model(cached_context).empty()) << "seed " << kSeed;
  const CheckTally& tally = cached_context.tallies().at("ResultMatchesModel");
  EXPECT_EQ(tally.judged, 0u) << "seed " << kSeed;
  ASSERT_EQ(tally.not_judged.size(), 1u) << "seed " << kSeed;
  EXPECT_NE(tally.not_judged.begin()->first.find("only the record cache still showed"),
            std::string::npos)
      << "seed " << kSeed;
  // Uncached, the model at offset 2 is certain ([1050, 1050] = 1): the same answer is an
  // under-claim.
  TraceBuilder uncached = merge_past_the_floor(false);
  JudgeContext uncached_context(uncached.trace());
  const auto vs = check_result_matches_model(uncached_context);
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed;
  EXPECT_NE(vs[0].summary.find("but at the later offset 3"), std::string::npos)
      << "seed " << kSeed << "\n"
      << text(vs);
}

TEST(WindowJudgeTest, SessionAnswersAreJudgedAndWitnessed) {
  TraceBuilder b = session_count();
  b.add(session_query(b, {{1, 100, 100, 1}}, pos(0, 0), applied(standby(0, pos(0, 0)), 0)));
  b.add(session_query(b, {{1, 100, 500, 2}}, pos(0, 1), applied(active(0, pos(0, 1)), 2)));
  // Wrong: the merged session's end, and a standby answering a session its fold removed.
  b.add(session_query(b, {{1, 100, 400, 2}}, pos(0, 1), applied(active(0, pos(0, 1)), 2)));
  b.add(session_query(b, {{1, 100, 100, 1}, {1, 100, 500, 2}}, pos(0, 1),
                      applied(standby(0, pos(0, 1)), 2)));
  JudgeContext context(b.trace());
  const auto rmm = check_result_matches_model(context);
  ASSERT_EQ(rmm.size(), 2u) << "seed " << kSeed << "\n" << text(rmm);
  EXPECT_EQ(rmm[0].record_id, 3u) << "seed " << kSeed;
  EXPECT_EQ(rmm[0].expected, "[1@100..500=2]") << "seed " << kSeed;
  EXPECT_EQ(rmm[1].record_id, 4u) << "seed " << kSeed;
  const auto witness = check_changelog_witness(context);
  ASSERT_EQ(witness.size(), 2u) << "seed " << kSeed << "\n" << text(witness);
  EXPECT_EQ(witness[0].record_id, 3u) << "seed " << kSeed;
  EXPECT_EQ(witness[1].record_id, 4u) << "seed " << kSeed;
  EXPECT_EQ(witness[1].expected, "[1@100..500=2]") << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("ChangelogWitness").judged, 4u) << "seed " << kSeed;
}

TEST(WindowJudgeTest, EveryWindowedChangelogRecordIsExplained) {
  TraceBuilder b = session_count();
  // A session no record of the key bounds, and a removal no record within the gap made.
  b.log(0, 1, 3, 500, pos(0, 1));
  b.trace().changelog.back().window_start_ms = 100;
  b.trace().changelog.back().window_end_ms = 700;
  b.log(0, 1, std::nullopt, 9'000, pos(0, 1));
  b.trace().changelog.back().window_start_ms = 100;
  b.trace().changelog.back().window_end_ms = 500;
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_NE(vs[0].summary.find("offset 3"), std::string::npos) << "seed " << kSeed << vs[0].summary;
  EXPECT_NE(vs[1].summary.find("offset 4"), std::string::npos) << "seed " << kSeed << vs[1].summary;
}

// The offsets of the changelog records ChangelogWitness finds explained by no source record.
std::vector<int64_t> unexplained_offsets(const sim::RunTrace& trace) {
  JudgeContext context(trace);
  std::vector<int64_t> out;
  for (const Violation& v : check_changelog_witness(context)) {
    EXPECT_NE(v.summary.find("explained by no source record"), std::string::npos)
        << "seed " << kSeed << ": " << v.summary;
    const size_t at = v.summary.find("offset ");
    if (at != std::string::npos) out.push_back(std::stoll(v.summary.substr(at + 7)));
  }
  return out;
}

// Proves that a RocksDB window store's null put under retainDuplicates, skipped before the bytes
// store and so logged under the position before it (RocksDBWindowStore.put,
// ChangeLoggingWindowBytesStore.log), is explained by the delete above its header, while the same
// header on an in-memory store (which advances on every put), without duplicates, or with no
// delete of the key in the input stays unexplained.
TEST(WindowJudgeTest, ARetainedDuplicatesTombstoneUnderThePositionBeforeItIsExplained) {
  const auto trace = [](KeyValueSupplier supplier, bool retain_duplicates, int32_t deleted_key) {
    TraceBuilder b(TopologyKind::WindowPapiWriter, supplier);
    b.trace().topology.window_size_ms = 1'000;
    b.trace().topology.window_retention_ms = 20'000;
    b.trace().topology.retain_duplicates = retain_duplicates;
    b.produce(0, 1, 5, 100);
    b.produce(0, deleted_key, std::nullopt, 150);
    b.produce(0, 1, 7, 200);
    b.log(0, 1, 5, 100, pos(0, 0));
    b.trace().changelog.back().window_start_ms = 0;
    b.log(0, 1, std::nullopt, 150, pos(0, 0));  // the header of offset 0, not 1
    b.trace().changelog.back().window_start_ms = 0;
    b.log(0, 1, 7, 200, pos(0, 2));
    b.trace().changelog.back().window_start_ms = 0;
    return b.trace();
  };
  EXPECT_EQ(unexplained_offsets(trace(KeyValueSupplier::kRocksDb, true, 1)), std::vector<int64_t>{})
      << "seed " << kSeed;
  EXPECT_EQ(unexplained_offsets(trace(KeyValueSupplier::kRocksDbTimestamped, true, 1)),
            std::vector<int64_t>{})
      << "seed " << kSeed;
  EXPECT_EQ(unexplained_offsets(trace(KeyValueSupplier::kInMemory, true, 1)),
            std::vector<int64_t>{1})
      << "seed " << kSeed;
  EXPECT_EQ(unexplained_offsets(trace(KeyValueSupplier::kRocksDb, false, 1)),
            std::vector<int64_t>{1})
      << "seed " << kSeed;
  EXPECT_EQ(unexplained_offsets(trace(KeyValueSupplier::kRocksDb, true, 2)),
            std::vector<int64_t>{1})
      << "seed " << kSeed;
}

// Proves that a put a RocksDB session (or window) store drops into a segment that is not live at
// its stream time, which the change-logging layer logs under the position before it
// (AbstractRocksDBSegmentedBytesStore.put), is explained by its record above the header; and that
// the same header stays unexplained where no stream time the store could have reached at it
// expires the segment, on an in-memory store, or with no such record in the input.
TEST(WindowJudgeTest, APutIntoAnExpiredSegmentUnderThePositionBeforeItIsExplained) {
  // SessionPapiWriter, retention 2 s: segments of 60 s; at stream time 130 s segment 2 is the
  // lowest live one, so a session ending at 50 s (segment 0) is dropped, one at 125 s is not.
  const auto session = [](KeyValueSupplier supplier, int64_t late_ts_ms, int64_t logged_ts_ms) {
    TraceBuilder b(TopologyKind::SessionPapiWriter, supplier);
    b.trace().topology.window_retention_ms = 2'000;
    b.produce(0, 1, 1, 130'000);
    b.produce(0, 2, 2, late_ts_ms);
    b.log(0, 1, 1, 130'000, pos(0, 0));
    b.trace().changelog.back().window_start_ms = 130'000;
    b.trace().changelog.back().window_end_ms = 130'000;
    b.log(0, 2, 2, logged_ts_ms, pos(0, 0));  // the header of offset 0, not 1
    b.trace().changelog.back().window_start_ms = logged_ts_ms;
    b.trace().changelog.back().window_end_ms = logged_ts_ms;
    return b.trace();
  };
  EXPECT_EQ(unexplained_offsets(session(KeyValueSupplier::kRocksDb, 50'000, 50'000)),
            std::vector<int64_t>{})
      << "seed " << kSeed;
  EXPECT_EQ(unexplained_offsets(session(KeyValueSupplier::kRocksDb, 125'000, 125'000)),
            std::vector<int64_t>{1})
      << "seed " << kSeed;
  EXPECT_EQ(unexplained_offsets(session(KeyValueSupplier::kInMemory, 50'000, 50'000)),
            std::vector<int64_t>{1})
      << "seed " << kSeed;
  EXPECT_EQ(unexplained_offsets(session(KeyValueSupplier::kRocksDb, 50'000, 40'000)),
            std::vector<int64_t>{1})
      << "seed " << kSeed;
  // A window store's segment is its window start's: window [4000, 5000) at stream time 130 s.
  TraceBuilder w(TopologyKind::WindowPapiWriter, KeyValueSupplier::kRocksDb);
  w.trace().topology.window_size_ms = 1'000;
  w.trace().topology.window_retention_ms = 5'000;
  w.produce(0, 1, 1, 130'000);
  w.produce(0, 1, 2, 4'500);
  w.log(0, 1, 1, 130'000, pos(0, 0));
  w.trace().changelog.back().window_start_ms = 130'000;
  w.log(0, 1, 2, 4'500, pos(0, 0));
  w.trace().changelog.back().window_start_ms = 4'000;
  EXPECT_EQ(unexplained_offsets(w.trace()), std::vector<int64_t>{}) << "seed " << kSeed;
  w.trace().changelog.back().value = 3;  // a value no record of the key carries
  EXPECT_EQ(unexplained_offsets(w.trace()), std::vector<int64_t>{1}) << "seed " << kSeed;
}

// Proves that the witness folds a RocksDB window store's duplicates under the sequence numbers
// Kafka gives them: a restore (and a standby) writes each record under the one its changelog key
// holds (instance-2's change-logging counter: 1, 2, and 3 for its null put), while the restoring
// active's own put takes its RocksDBWindowStore's counter from 1, replacing the restored entry
// numbered 1 and sorting first. Answers in application order, or keeping the replaced entry, are
// no fold of what the replica applied.
TEST(WindowJudgeTest, RocksDbDuplicatesAreFoldedUnderTheirSequenceNumbers) {
  TraceBuilder b(TopologyKind::WindowPapiWriter, KeyValueSupplier::kRocksDb);
  b.trace().topology.window_size_ms = 1'000;
  b.trace().topology.window_retention_ms = 20'000;
  b.trace().topology.retain_duplicates = true;
  b.produce(0, 1, 5, 100);
  b.produce(0, 1, 6, 200);
  b.produce(0, 1, std::nullopt, 250);
  b.produce(0, 1, 7, 300);
  const auto logged = [&](std::optional<int64_t> value, int64_t ts, int64_t offset,
                          const std::string& writer, int32_t seqnum) {
    b.log(0, 1, value, ts, pos(0, offset), writer);
    b.trace().changelog.back().window_start_ms = 0;
    b.trace().changelog.back().window_seqnum = seqnum;
  };
  logged(5, 100, 0, "instance-2", 1);
  logged(6, 200, 1, "instance-2", 2);
  logged(std::nullopt, 250, 1, "instance-2", 3);
  logged(7, 300, 3, "instance-1", 1);  // instance-1's own put after restoring offsets 0-2
  const auto query = [&](sim::WindowedList answer, sim::ReplicaSnapshot replica) {
    testing::Q q = window_key_query(b, std::move(answer), {}, pos(0, 3));
    q.target(replica.instance).replica(std::move(replica));
    b.add(q);
  };
  const sim::ReplicaSnapshot restored_active =
      testing::own_runs(applied(active(0, pos(0, 3)), 3), {{2, 3}});
  query({{1, 0, std::nullopt, 7}, {1, 0, std::nullopt, 6}}, restored_active);
  query({{1, 0, std::nullopt, 5}, {1, 0, std::nullopt, 6}, {1, 0, std::nullopt, 7}},
        restored_active);
  // A standby applies instance-1's record under its logged number too: it replaces 5.
  query({{1, 0, std::nullopt, 7}, {1, 0, std::nullopt, 6}},
        applied(standby(0, pos(0, 3), "instance-3"), 3));
  query({{1, 0, std::nullopt, 6}, {1, 0, std::nullopt, 7}},
        applied(standby(0, pos(0, 3), "instance-3"), 3));
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(context.tallies().at("ChangelogWitness").judged, 4u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].record_id, 2u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].expected, "[@0=7, @0=6]") << "seed " << kSeed;
  EXPECT_EQ(vs[1].record_id, 4u) << "seed " << kSeed;
  EXPECT_EQ(vs[1].expected, "[@0=7, @0=6]") << "seed " << kSeed;
}

// A recorded store life of instance-1's store on partition 0 (trace/store_life.h), opened at
// 60 ms: over `kept` when not empty, with `checkpoint` loaded, given the changelog offsets of
// `given` ([first, last] runs).
sim::StoreLife store_life(std::vector<sim::KeptEntry> kept,
                          std::optional<ChangelogOffset> checkpoint,
                          std::vector<std::pair<int64_t, int64_t>> given) {
  sim::StoreLife life;
  life.id = 1;
  life.instance = "instance-1";
  life.partition = 0;
  life.persistent = true;
  life.opened_ms = base::Instant::from_ms(60);
  life.over_kept_data = !kept.empty();
  life.kept = std::move(kept);
  life.loaded_checkpoint = checkpoint;
  for (const auto& [first, last] : given) {
    life.events.push_back({sim::StoreLifeEvent::Kind::kGiven, ChangelogOffset(first),
                           ChangelogOffset(last), base::Instant::from_ms(60)});
  }
  return life;
}

sim::KeptEntry kept_window(int32_t key, int64_t start, int64_t value, int32_t seqnum = 0) {
  sim::KeptEntry e;
  e.key = key;
  e.value = value;
  e.window_start_ms = start;
  e.window_seqnum = seqnum;
  return e;
}

// Proves that a RocksDB window store object that opened over data an earlier one kept is judged
// by its recorded life: the kept windows (key 1: 0 = 5, 1000 = 6) with changelog 0 restored over
// them hold, whatever faults its instance had or had not; the same answer from a store object that
// opened over nothing is no fold of its log, and a kept window older than the .checkpoint the
// store loaded (it claims window 1000 = 8) is a difference too.
TEST(WindowJudgeTest, AStoreObjectOverKeptDataIsJudgedByItsRecordedLife) {
  const auto trace = [](std::vector<sim::KeptEntry> kept, std::optional<ChangelogOffset> cp) {
    TraceBuilder b(TopologyKind::WindowPapiWriter, KeyValueSupplier::kRocksDb);
    b.trace().topology.window_size_ms = 1'000;
    b.trace().topology.window_retention_ms = 20'000;
    b.produce(0, 1, 5, 100);
    b.produce(0, 1, 6, 1'200);
    b.produce(0, 1, 8, 1'300);
    b.log(0, 1, 5, 100, pos(0, 0), "instance-1", 10);
    b.trace().changelog.back().window_start_ms = 0;
    b.log(0, 1, 6, 1'200, pos(0, 1), "instance-1", 11);
    b.trace().changelog.back().window_start_ms = 1'000;
    b.log(0, 1, 8, 1'300, pos(0, 2), "instance-1", 12);
    b.trace().changelog.back().window_start_ms = 1'000;
    b.trace().store_lives.push_back(store_life(std::move(kept), cp, {{0, 0}}));
    testing::Q q =
        window_key_query(b, {{1, 0, std::nullopt, 5}, {1, 1'000, std::nullopt, 6}}, {}, pos(0, 0));
    sim::ReplicaSnapshot replica =
        applied(active(0, pos(0, 0), "instance-1", sim::ReplicaSnapshot::TaskState::RESTORING), 0);
    replica.store_life = 1;
    q.at(100, 100).replica(std::move(replica));
    b.add(q);
    return b.trace();
  };
  {
    const sim::RunTrace t = trace({kept_window(1, 0, 5), kept_window(1, 1'000, 6)}, std::nullopt);
    JudgeContext context(t);
    EXPECT_TRUE(check_changelog_witness(context).empty()) << "seed " << kSeed;
    EXPECT_EQ(context.tallies().at("ChangelogWitness").judged, 1u) << "seed " << kSeed;
  }
  {
    const sim::RunTrace t = trace({}, std::nullopt);
    JudgeContext context(t);
    const auto vs = check_changelog_witness(context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
    EXPECT_EQ(vs[0].expected, "[@0=5]") << "seed " << kSeed;
  }
  {
    const sim::RunTrace t =
        trace({kept_window(1, 0, 5), kept_window(1, 1'000, 6)}, ChangelogOffset(2));
    JudgeContext context(t);
    const auto vs = check_changelog_witness(context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
    EXPECT_NE(vs[0].summary.find("kept less than its .checkpoint claims"), std::string::npos)
        << "seed " << kSeed << "\n"
        << vs[0].to_string();
  }
}

TEST(WindowJudgeTest, AReplicaBetweenOneRecordsWritesIsDeclaredOnlyWhenTheRestCompletesIt) {
  TraceBuilder b = session_count();
  // The standby applied the removal of [100, 100] and not yet the put of [100, 500]: it holds
  // no session under the position of source offset 1.
  b.add(session_query(b, {}, pos(0, 1), applied(standby(0, pos(0, 1)), 1)));
  // The same empty answer with the whole merge applied is no fold of its log.
  b.add(session_query(b, {}, pos(0, 1), applied(standby(0, pos(0, 1)), 2)));
  JudgeContext context(b.trace());
  auto vs = check_result_matches_model(context);
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  classify_violations(context, vs);
  EXPECT_EQ(vs[0].violation_class, ViolationClass::kReplicaInsideOneRecordsWrites)
      << "seed " << kSeed << "\n"
      << text(vs);
  EXPECT_EQ(vs[1].violation_class, ViolationClass::kFailure) << "seed " << kSeed << "\n"
                                                             << text(vs);
}

// A cached WindowedCount over an in-memory store: hopping 1 s windows advancing by 500 ms, so a
// record updates two windows. Key 1 at 700 ms (offset 0) updates windows 0 and 500; the thread
// cache evicts after the first put, flushing window 0 (header 0), and window 500 stays dirty under
// offset 0 (quirk 19: IQv2 reads beneath the cache). Then key 1 at 800 ms (offset 1) writes both
// windows into the cache again, dirty under offset 1, and no flush follows.
TraceBuilder cached_hopping_count(bool second_record) {
  TraceBuilder b(TopologyKind::WindowedCount, KeyValueSupplier::kInMemory, /*caching=*/true);
  b.trace().topology.window_size_ms = 1'000;
  b.trace().topology.window_advance_ms = 500;
  b.trace().topology.grace_ms = 0;
  b.produce(0, 1, 5, 700);
  if (second_record) b.produce(0, 1, 6, 800);
  b.log(0, 1, 1, 700, pos(0, 0));
  b.trace().changelog.back().window_start_ms = 0;
  return b;
}

sim::UnloggedWrite dirty_window(int64_t start, int64_t value, int64_t timestamp_ms,
                                int64_t source_offset) {
  sim::UnloggedWrite u;
  u.key = 1;
  u.value = value;
  u.timestamp_ms = timestamp_ms;
  u.source_offset = SourceOffset(source_offset);
  u.window_start_ms = start;
  return u;
}

// The class of the trace's only ResultMatchesModel violation; `evidence` must occur in its proof
// (or in the reason it stayed a failure).
ViolationClass class_of_only_violation(TraceBuilder& b, const std::string& evidence) {
  JudgeContext context(b.trace());
  auto vs = check_result_matches_model(context);
  EXPECT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  if (vs.size() != 1) return ViolationClass::kFailure;
  classify_violations(context, vs);
  EXPECT_NE(vs[0].class_evidence.find(evidence), std::string::npos)
      << "seed " << kSeed << ": " << evidence << "\n"
      << text(vs);
  return vs[0].violation_class;
}

TEST(WindowJudgeTest, ACachingStoreAnswersBeneathItsDirtyWritesOnlyWhenTheyMakeTheModels) {
  // The active answers window 0 only, at offset 0, while window 500 = 1 of the same record is
  // dirty in its cache: with it laid over, the answer is the model's.
  TraceBuilder proven = cached_hopping_count(false);
  proven.add(window_key_query(proven, {{1, 0, std::nullopt, 1}}, {700}, pos(0, 0))
                 .replica(applied(active(0, pos(0, 0)), 0, {dirty_window(500, 1, 700, 0)})));
  EXPECT_EQ(
      class_of_only_violation(proven, "the store beneath instance-1's cache; with the 1 dirty"),
      ViolationClass::kCachedWritesBeneathPosition)
      << "seed " << kSeed;
  // A standby at the active's changelog offset answers the same, from the same store content.
  TraceBuilder standby_proven = cached_hopping_count(false);
  standby_proven.add(window_key_query(standby_proven, {{1, 0, std::nullopt, 1}}, {700}, pos(0, 0))
                         .target("instance-2")
                         .replica(applied(active(0, pos(0, 0)), 0, {dirty_window(500, 1, 700, 0)}))
                         .replica(applied(standby(0, pos(0, 0), "instance-2"), 0)));
  EXPECT_EQ(class_of_only_violation(standby_proven, "the store beneath instance-1's cache"),
            ViolationClass::kCachedWritesBeneathPosition)
      << "seed " << kSeed;
  // A dirty entry with another value than the model's does not make it; nor does a cache with
  // nothing dirty (a write lost, not cached).
  TraceBuilder wrong = cached_hopping_count(false);
  wrong.add(window_key_query(wrong, {{1, 0, std::nullopt, 1}}, {700}, pos(0, 0))
                .replica(applied(active(0, pos(0, 0)), 0, {dirty_window(500, 2, 700, 0)})));
  EXPECT_EQ(class_of_only_violation(wrong, "is [@0=1 ts=700, @500=2 ts=700], not the model's"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
  TraceBuilder clean = cached_hopping_count(false);
  clean.add(window_key_query(clean, {{1, 0, std::nullopt, 1}}, {700}, pos(0, 0))
                .replica(applied(active(0, pos(0, 0)), 0)));
  EXPECT_EQ(class_of_only_violation(
                clean, "no active of partition 0 at the answer with dirty cache entries"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

TEST(WindowJudgeTest, ADirtyWriteOverwrittenAboveThePositionIsDeclaredOnlyIfNeverFlushed) {
  // Window 500's write of offset 0 was never flushed, and the cache holds the slot dirty under
  // offset 1: the answer at offset 0 lacks it, as Kafka's does.
  TraceBuilder proven = cached_hopping_count(true);
  proven.add(window_key_query(proven, {{1, 0, std::nullopt, 1}}, {700}, pos(0, 0))
                 .replica(applied(active(0, pos(0, 0)), 0,
                                  {dirty_window(0, 2, 800, 1), dirty_window(500, 2, 800, 1)})));
  EXPECT_EQ(class_of_only_violation(proven, "but in 1 slot(s) whose write"),
            ViolationClass::kCachedWritesBeneathPosition)
      << "seed " << kSeed;
  // The same answer when the log holds window 500 under a header at offset 0 (that write was
  // flushed, so the store beneath had it): a failure.
  TraceBuilder flushed = cached_hopping_count(true);
  flushed.log(0, 1, 3, 700, pos(0, 0));
  flushed.trace().changelog.back().window_start_ms = 500;
  flushed.add(window_key_query(flushed, {{1, 0, std::nullopt, 1}, {1, 500, std::nullopt, 3}},
                               {700, 700}, pos(0, 0))
                  .replica(applied(active(0, pos(0, 0)), 1,
                                   {dirty_window(0, 2, 800, 1), dirty_window(500, 2, 800, 1)})));
  EXPECT_EQ(class_of_only_violation(
                flushed, "changelog-0 offset 1 carries a header at or above source offset 0"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

// A standby behind its active's log: it applied changelog offset 0 (window 0 of offset 0, flushed
// by an eviction), while window 500 of offset 0 stayed dirty in instance-1's cache until the
// commit after offset 1 flushed both windows (changelog offsets 1 and 2). The active at the answer
// has logged all three records, so its cache at the answer says nothing of the standby's prefix:
// the log alone proves it.
// `flush_life`: the store life of instance-1 that logged the flush (life 1 logged offsets 0 and
// 1); another writer's flush is its own life 3.
TraceBuilder lagging_standby(const std::string& flush_writer, int64_t flushed_value,
                             uint64_t flush_life = 1) {
  TraceBuilder b = cached_hopping_count(true);
  b.log(0, 1, 2, 800, pos(0, 1), "instance-1", 10);
  b.trace().changelog.back().window_start_ms = 0;
  b.wrote(1, "instance-1", 0, 0, 1);
  if (!flush_writer.empty()) {
    const int64_t flush = b.log(0, 1, flushed_value, 800, pos(0, 1), flush_writer, 10);
    b.trace().changelog.back().window_start_ms = 500;
    b.wrote(flush_writer == "instance-1" ? flush_life : 3, flush_writer, 0, flush, flush);
  }
  return b;
}

void add_lagging_answer(TraceBuilder& b) {
  b.add(window_key_query(b, {{1, 0, std::nullopt, 1}}, {700}, pos(0, 0))
            .target("instance-2")
            .replica(applied(active(0, pos(0, 1)), 2))
            .replica(applied(standby(0, pos(0, 0), "instance-2"), 0)));
}

TEST(WindowJudgeTest, AStandbyBehindItsActivesLogIsDeclaredOnlyWhenOneCacheHeldTheWrite) {
  TraceBuilder proven = lagging_standby("instance-1", 2);
  add_lagging_answer(proven);
  EXPECT_EQ(class_of_only_violation(proven,
                                    "behind its active's log; it differs from the model's "
                                    "answer at its position's 0 only in 1 slot(s)"),
            ViolationClass::kCachedWritesBeneathPosition)
      << "seed " << kSeed;
  // Not proven: the window's flush written by another instance (another cache), ...
  TraceBuilder other_writer = lagging_standby("instance-3", 2);
  add_lagging_answer(other_writer);
  EXPECT_EQ(class_of_only_violation(other_writer, "(by instance-3) lies between offset 0"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
  // ... the flush logged by a later store life of the same instance (a crash, or a task closed
  // dirty and reprocessed with no fault recorded: either way the cache that held the write is
  // gone), ...
  TraceBuilder reopened = lagging_standby("instance-1", 2, /*flush_life=*/2);
  add_lagging_answer(reopened);
  EXPECT_EQ(class_of_only_violation(reopened, "(written by store life 1 of instance-1)"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
  // ... while a fault of the writer that ended no store life (its links cut and healed) kept
  // the cache: still proven; ...
  TraceBuilder cut = lagging_standby("instance-1", 2);
  cut.fault(5, sim::FaultKind::kIsolate, "instance-1");
  cut.fault(6, sim::FaultKind::kHeal, "instance-1");
  add_lagging_answer(cut);
  EXPECT_EQ(class_of_only_violation(cut, "behind its active's log; it differs"),
            ViolationClass::kCachedWritesBeneathPosition)
      << "seed " << kSeed;
  // ... a flush holding no state the model gives the window (the write lost, not cached), ...
  TraceBuilder wrong = lagging_standby("instance-1", 7);
  add_lagging_answer(wrong);
  EXPECT_EQ(class_of_only_violation(wrong, "is no state the model gives it"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
  // ... and no flush of the window at all.
  TraceBuilder unflushed = lagging_standby("", 0);
  add_lagging_answer(unflushed);
  EXPECT_EQ(class_of_only_violation(unflushed, "no changelog-0 record of it"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

// A standby behind its active's log whose window the model has expired: key 1 at 100 ms puts
// window 0 (offset 0); key 2 at 1000 ms puts windows 500 and 1000 (offset 1), raising the store's
// stream time to 1000, so window 0 falls to the floor (start <= 1000 - retention 1000). An
// eviction flushed window 500 under header 1 while window 1000 stayed dirty in instance-1's cache
// until `raiser_writer` flushed it later (changelog offset 2). The standby applied offsets 0 and
// 1: its stream time is 500 and window 0 is still there, at position 1. `kept_value`: window 0's
// value in the log and the answer (the model's is 1). `by_range`: the answer is a
// WindowRangeQuery's over every key, whose windowed keys carry the window's end.
TraceBuilder floor_behind_cache(const std::string& raiser_writer, int64_t kept_value,
                                bool by_range = false) {
  TraceBuilder b(TopologyKind::WindowedCount, KeyValueSupplier::kInMemory, /*caching=*/true);
  b.trace().topology.window_size_ms = 1'000;
  b.trace().topology.window_advance_ms = 500;
  b.trace().topology.grace_ms = 0;
  b.produce(0, 1, 5, 100);
  b.produce(0, 2, 6, 1'000);
  b.log(0, 1, kept_value, 100, pos(0, 0), "instance-1", 10);
  b.trace().changelog.back().window_start_ms = 0;
  b.log(0, 2, 1, 1'000, pos(0, 1), "instance-1", 10);
  b.trace().changelog.back().window_start_ms = 500;
  b.wrote(1, "instance-1", 0, 0, 1);
  if (!raiser_writer.empty()) {  // a later flush (the commit), not the eviction's
    b.log(0, 2, 1, 1'000, pos(0, 1), raiser_writer, 20);
    b.trace().changelog.back().window_start_ms = 1'000;
    b.wrote(raiser_writer == "instance-1" ? 1 : 2, raiser_writer, 0, 2, 2);
  }
  testing::Q q = window_key_query(b, {{1, 0, std::nullopt, kept_value}}, {100}, pos(0, 1));
  if (by_range) {
    q = b.range_query(0, std::nullopt, std::nullopt, QueryKind::WindowRangeQuery);
    q.r.request.from_time_ms = 0;
    q.r.request.to_time_ms = 0;
    q.ok(std::nullopt, pos(0, 1), {100});
    q.r.partitions.back().value = sim::WindowedList{{1, 0, 1'000, kept_value}};
  }
  b.add(q.target("instance-2")
            .replica(applied(active(0, pos(0, 1)), 2))
            .replica(applied(standby(0, pos(0, 1), "instance-2"), 1)));
  return b;
}

TEST(WindowJudgeTest, AWindowExpiredByADirtyStreamTimeIsDeclaredOnlyWhenOneCacheHeldTheRaise) {
  TraceBuilder proven = floor_behind_cache("instance-1", 1);
  EXPECT_EQ(class_of_only_violation(proven, "or the put that raised the stream time hiding them"),
            ViolationClass::kCachedWritesBeneathPosition)
      << "seed " << kSeed;
  // Not proven: the raising window flushed by another instance (another cache), ...
  TraceBuilder other_writer = floor_behind_cache("instance-3", 1);
  EXPECT_EQ(class_of_only_violation(other_writer, "through 2@1000, but slot 2@1000"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
  // ... the raising window never flushed, ...
  TraceBuilder never = floor_behind_cache("", 1);
  EXPECT_EQ(class_of_only_violation(never, "no changelog-0 record of it"), ViolationClass::kFailure)
      << "seed " << kSeed;
  // ... and a kept window whose value is not the model's before the raise.
  TraceBuilder wrong = floor_behind_cache("instance-1", 7);
  EXPECT_EQ(class_of_only_violation(wrong, "the model does not hold the fold's state of it"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

// Seed 529 of the default template: the same kept window answered by a range query over every
// key, whose windowed keys carry the window's end (the slot 1@[0, 1000]). The window store's
// retention floor hides it all the same; only a session's slot has no such floor.
TEST(WindowJudgeTest, AWindowExpiredByADirtyStreamTimeIsDeclaredForARangeQueryToo) {
  TraceBuilder proven = floor_behind_cache("instance-1", 1, /*by_range=*/true);
  EXPECT_EQ(class_of_only_violation(proven, "or the put that raised the stream time hiding them"),
            ViolationClass::kCachedWritesBeneathPosition)
      << "seed " << kSeed;
  TraceBuilder other_writer = floor_behind_cache("instance-3", 1, /*by_range=*/true);
  EXPECT_EQ(class_of_only_violation(other_writer, "through 2@1000, but slot 2@1000"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
  TraceBuilder wrong = floor_behind_cache("instance-1", 7, /*by_range=*/true);
  EXPECT_EQ(class_of_only_violation(wrong, "the model does not hold the fold's state of it"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

TEST(WindowJudgeTest, ARestoringActiveBehindItsLogIsDeclaredOnlyWhenOneCacheHeldTheWrite) {
  // instance-2 restores the same log as the lagging standby above (its earlier owner's), and
  // answers from changelog offset 0: the log alone proves window 500 was dirty in that cache.
  const auto restoring_answer = [](TraceBuilder& b, sim::ReplicaSnapshot::TaskState task) {
    b.add(window_key_query(b, {{1, 0, std::nullopt, 1}}, {700}, pos(0, 0))
              .target("instance-2")
              .replica(applied(active(0, pos(0, 0), "instance-2", task), 0)));
  };
  TraceBuilder proven = lagging_standby("instance-1", 2);
  restoring_answer(proven, sim::ReplicaSnapshot::TaskState::RESTORING);
  EXPECT_EQ(class_of_only_violation(proven, "behind its active's log; it differs"),
            ViolationClass::kCachedWritesBeneathPosition)
      << "seed " << kSeed;
  // A running active answers from its own store beneath its own cache, which holds nothing dirty.
  TraceBuilder running = lagging_standby("instance-1", 2);
  restoring_answer(running, sim::ReplicaSnapshot::TaskState::RUNNING);
  EXPECT_EQ(class_of_only_violation(running, "no active of partition 0 at the answer with dirty"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

// A cached session count: key 1 at 100 (offset 0) flushed as [100, 100]; at 500 (offset 1) the
// merge's removal of [100, 100] flushed and its put of [100, 500] stayed dirty; at 900 (offset 2)
// the next merge removed [100, 500] in the cache (its tombstone skipped: the session was absent
// beneath) and the commit flushed [100, 900] = `merged`. A standby at changelog offset 1 answers
// nothing under the header of offset 1.
TraceBuilder lagging_session_standby(int64_t merged) {
  TraceBuilder b(TopologyKind::SessionCount, KeyValueSupplier::kInMemory, /*caching=*/true);
  b.trace().topology.session_gap_ms = 1'000;
  b.trace().topology.grace_ms = 0;
  b.produce(0, 1, 5, 100);
  b.produce(0, 1, 6, 500);
  b.produce(0, 1, 7, 900);
  const auto windowed = [&](int64_t start, int64_t end) {
    b.trace().changelog.back().window_start_ms = start;
    b.trace().changelog.back().window_end_ms = end;
  };
  b.log(0, 1, 1, 100, pos(0, 0));
  windowed(100, 100);
  b.log(0, 1, std::nullopt, 500, pos(0, 1));
  windowed(100, 100);
  b.log(0, 1, merged, 900, pos(0, 2), "instance-1", 10);
  windowed(100, 900);
  b.wrote(1, "instance-1", 0, 0, 2);
  b.add(session_query(b, {}, pos(0, 1), applied(standby(0, pos(0, 1), "instance-2"), 1))
            .target("instance-2")
            .replica(applied(active(0, pos(0, 2)), 2)));
  return b;
}

TEST(WindowJudgeTest, AStandbyBehindASessionMergeInTheCacheIsDeclaredOnlyWhenTheMergeHoldsIt) {
  TraceBuilder proven = lagging_session_standby(3);
  EXPECT_EQ(class_of_only_violation(proven, "only in 1 slot(s)"),
            ViolationClass::kCachedWritesBeneathPosition)
      << "seed " << kSeed;
  // A merge that is no state the model gives the session that holds it: a failure.
  TraceBuilder wrong = lagging_session_standby(4);
  EXPECT_EQ(class_of_only_violation(wrong, "is no state the model gives it"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

// A cached session count, key 1: at 100 (offset 0) [100, 100], at 1000 (offset 1) merged into
// [100, 1000], both flushed; at 500 (offset 2, out of order inside the session) the merge removes
// [100, 1000] and puts it again with 3: an eviction between the two logs the removal under the
// header of offset 2, and the put stays dirty; at 1500 (offset 3) the next merge removes it in the
// cache and puts [100, 1500] = 4, both dirty under offset 3. The active answers from the store
// beneath its cache, at offset 2: nothing, where the model holds [100, 1000] = 3. `tail` is logged
// after the removal, by the same eviction.
TraceBuilder session_put_after_flushed_removal(std::optional<int64_t> tail) {
  TraceBuilder b(TopologyKind::SessionCount, KeyValueSupplier::kInMemory, /*caching=*/true);
  b.trace().topology.session_gap_ms = 1'000;
  b.trace().topology.grace_ms = 10'000;
  b.produce(0, 1, 5, 100);
  b.produce(0, 1, 6, 1'000);
  b.produce(0, 1, 7, 500);
  b.produce(0, 1, 8, 1'500);
  const auto session = [&](std::optional<int64_t> value, int64_t end, int64_t header) {
    b.log(0, 1, value, end, pos(0, header));
    b.trace().changelog.back().window_start_ms = 100;
    b.trace().changelog.back().window_end_ms = end;
  };
  session(1, 100, 0);
  session(std::nullopt, 100, 1);
  session(2, 1'000, 1);
  session(std::nullopt, 1'000, 2);
  if (tail) session(*tail, 1'000, 2);
  const auto dirty = [](std::optional<int64_t> value, int64_t end) {
    sim::UnloggedWrite u;
    u.key = 1;
    u.value = value;
    u.timestamp_ms = end;
    u.source_offset = SourceOffset(3);
    u.window_start_ms = 100;
    u.window_end_ms = end;
    return u;
  };
  const int64_t applied_offset = tail ? 4 : 3;
  sim::WindowedList held;
  if (tail) held.push_back({1, 100, 1'000, *tail});
  b.add(session_query(b, held, pos(0, 2),
                      applied(active(0, pos(0, 2)), applied_offset,
                              {dirty(std::nullopt, 1'000), dirty(4, 1'500)})));
  return b;
}

TEST(WindowJudgeTest, ASessionRemovalFlushedBeforeItsOwnPutIsDeclaredOnlyAsTheLastTombstone) {
  TraceBuilder proven = session_put_after_flushed_removal(std::nullopt);
  EXPECT_EQ(class_of_only_violation(proven, "but in 1 slot(s) whose write beneath the offset"),
            ViolationClass::kCachedWritesBeneathPosition)
      << "seed " << kSeed;
  // A put of the session logged under the same header after the removal is a flush of offset
  // 2's write: the store beneath holds it, and its value is not the model's; the removal is no
  // longer the slot's last record either: a failure.
  TraceBuilder flushed = session_put_after_flushed_removal(5);
  EXPECT_EQ(class_of_only_violation(
                flushed, "changelog-0 offset 3 carries a header at or above source offset 2"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

// A hopping count (1 s windows advancing by 500 ms) over keys 1, 2 and 3 at 700, 800 and 900 ms
// (offsets 0-2), each updating windows 0 and 500; `window` logs one window's count of 1 by
// instance-1 under a header at a time.
struct HoppingLog {
  TraceBuilder b;
  explicit HoppingLog(bool caching)
      : b(TopologyKind::WindowedCount, KeyValueSupplier::kInMemory, caching) {
    b.trace().topology.window_size_ms = 1'000;
    b.trace().topology.window_advance_ms = 500;
    b.trace().topology.grace_ms = 0;
    b.produce(0, 1, 5, 700);
    b.produce(0, 2, 6, 800);
    b.produce(0, 3, 7, 900);
  }
  void window(int32_t key, int64_t start, int64_t ts, int64_t header, int64_t at) {
    b.log(0, key, 1, ts, pos(0, header), "instance-1", at);
    b.trace().changelog.back().window_start_ms = start;
  }
  // instance-1's crash at 10 ms, landed inside a send to changelog partition `partition` while
  // `operation` ran.
  void crash_in_send(int32_t partition, const std::string& operation, const std::string& point) {
    const std::string topic = "app-" + testing::kStore + "-changelog";
    b.fault(10, sim::FaultKind::kCrashLanded, "instance-1");
    b.trace().faults.back().landed =
        sim::CrashPointRecord{.event = "send",
                              .what = "send " + topic + "-" + std::to_string(partition),
                              .path = "",
                              .topic = topic,
                              .partition = partition,
                              .operations = {operation},
                              .points = {point}};
  }
  // instance-2's standby, having applied changelog [.., applied], answers every window at 20 ms
  // with `held` under the header of offset 2.
  TraceBuilder answered(sim::WindowedList held, std::vector<int64_t> timestamps, int64_t applied) {
    testing::Q range = b.range_query(0, std::nullopt, std::nullopt, QueryKind::WindowRangeQuery);
    range.r.request.from_time_ms = 0;
    range.r.request.to_time_ms = kForever;
    range.at(20, 20).target("instance-2").ok(std::nullopt, pos(0, 2), std::move(timestamps));
    range.r.partitions.back().value = std::move(held);
    range.replica(testing::applied(standby(0, pos(0, 2), "instance-2"), applied));
    b.add(range);
    return std::move(b);
  }
};

// Cached: instance-1's commit at 10 ms flushes the dirty windows in last-write order, each under
// its own offset's header, and it crashes inside a send to changelog partition `landed_partition`
// after key 3's window 0: key 2's and key 3's windows 500 never reach the log. With
// `earlier_flush`, the first three records were logged at 5 ms instead, a flush of its own that
// ended under the header of offset 1 without key 2's window 500. A standby that applied the whole
// log answers what it holds (window start first, as the in-memory store's fetchAll gives).
TraceBuilder flush_cut_by_crash(bool earlier_flush, int32_t landed_partition) {
  HoppingLog log(/*caching=*/true);
  const int64_t first_at_ms = earlier_flush ? 5 : 10;
  log.window(1, 0, 700, 0, first_at_ms);
  log.window(1, 500, 700, 0, first_at_ms);
  log.window(2, 0, 800, 1, first_at_ms);
  log.window(3, 0, 900, 2, 10);
  log.crash_in_send(landed_partition, "commit", "send_commit");
  return log.answered({{1, 0, 1'000, 1}, {2, 0, 1'000, 1}, {3, 0, 1'000, 1}, {1, 500, 1'500, 1}},
                      {700, 800, 900, 700}, 3);
}

TEST(WindowJudgeTest, AReplicaAtTheEndOfAFlushACrashCutIsDeclaredOnlyForWindowsItLeftDirty) {
  // Key 2's and key 3's windows 500 were written above offset -1 (nothing logged before the
  // flush) and not by the cut flush: dirty in the cache the crash lost, as in Kafka.
  TraceBuilder proven = flush_cut_by_crash(false, 0);
  EXPECT_EQ(class_of_only_violation(proven, "the 2 slot(s) it differs from the model on"),
            ViolationClass::kCacheFlushPartlyApplied)
      << "seed " << kSeed;
  // Not proven: a crash that landed in another changelog partition's send, ...
  TraceBuilder elsewhere = flush_cut_by_crash(false, 1);
  EXPECT_EQ(class_of_only_violation(elsewhere, "did not crash inside a send to it then"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
  // ... and a window missing beneath a flush that had ended before the cut one (its header
  // covered key 2's write of offset 1 without logging key 2's window 500).
  TraceBuilder covered = flush_cut_by_crash(true, 0);
  EXPECT_EQ(class_of_only_violation(
                covered,
                "slot 2@[500, 1500] differs from the model at offset 2, and the write "
                "that made the model's state there (offset 1) is not above "
                "offset 1, the largest header before the cut flush"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

// The flush above, cut instead by a crash that landed at a disk event of the store beneath (a
// memtable flush inside the cache flush's put; windowed seed 182): instance-1's recorded store
// life began the flush, wrote changelog offsets 0-3 and died, with no flush end (`ended` adds
// one) unless `died` is false (the life closed dirty instead).
TraceBuilder flush_cut_at_disk(bool ended, bool died) {
  HoppingLog log(/*caching=*/true);
  log.window(1, 0, 700, 0, 10);
  log.window(1, 500, 700, 0, 10);
  log.window(2, 0, 800, 1, 10);
  log.window(3, 0, 900, 2, 10);
  log.b.fault(10, sim::FaultKind::kCrashLanded, "instance-1");
  log.b.trace().faults.back().landed =
      testing::disk_crash_in_commit("/state/app/0_0/store/MANIFEST-000005");
  sim::StoreLife life = testing::active_store_life(1);
  using Kind = sim::StoreLifeEvent::Kind;
  life.events.push_back({Kind::kCacheFlushBegin, ChangelogOffset(-1), ChangelogOffset(-1),
                         base::Instant::epoch() + base::Duration::millis(10)});
  life.events.push_back({Kind::kWrote, ChangelogOffset(0), ChangelogOffset(3),
                         base::Instant::epoch() + base::Duration::millis(10)});
  if (ended) {
    life.events.push_back({Kind::kCacheFlushEnd, ChangelogOffset(-1), ChangelogOffset(-1),
                           base::Instant::epoch() + base::Duration::millis(10)});
  }
  life.end = died ? sim::StoreLifeEnd::kProcessDied : sim::StoreLifeEnd::kClosedDirty;
  log.b.trace().store_lives.push_back(life);
  return log.answered({{1, 0, 1'000, 1}, {2, 0, 1'000, 1}, {3, 0, 1'000, 1}, {1, 500, 1'500, 1}},
                      {700, 800, 900, 700}, 3);
}

TEST(WindowJudgeTest, AFlushCutAtADiskEventIsDeclaredOnlyWhenItsLifeDiedInsideIt) {
  TraceBuilder proven = flush_cut_at_disk(/*ended=*/false, /*died=*/true);
  EXPECT_EQ(class_of_only_violation(proven, "the 2 slot(s) it differs from the model on"),
            ViolationClass::kCacheFlushPartlyApplied)
      << "seed " << kSeed;
  // The flush had ended before the crash (every dirty entry was written down), or the life did
  // not die: the missing windows were lost some other way.
  for (auto [ended, died] : {std::pair{true, true}, std::pair{false, false}}) {
    TraceBuilder near = flush_cut_at_disk(ended, died);
    EXPECT_EQ(class_of_only_violation(
                  near, "nor did its store life die inside the cache flush that wrote it"),
              ViolationClass::kFailure)
        << "seed " << kSeed << " ended " << ended << " died " << died;
  }
}

// The uncached twin (seed 184 of the default template after the time edges): each record's two
// windows are logged as it is processed, under its offset. Keys 1 and 2 were logged at 5 ms; key
// 3 got its window 0 out at 10 ms, when instance-1's crash landed inside the send to changelog
// partition `landed_partition`: its window 500 never reached the log. With `lose_earlier`, key
// 2's window 500 is missing from the log too.
TraceBuilder writes_cut_by_crash(int32_t landed_partition, bool lose_earlier) {
  HoppingLog log(/*caching=*/false);
  log.window(1, 0, 700, 0, 5);
  log.window(1, 500, 700, 0, 5);
  log.window(2, 0, 800, 1, 5);
  if (!lose_earlier) log.window(2, 500, 800, 1, 5);
  log.window(3, 0, 900, 2, 10);
  log.crash_in_send(landed_partition, "process", "send");
  sim::WindowedList held = {
      {1, 0, 1'000, 1}, {2, 0, 1'000, 1}, {3, 0, 1'000, 1}, {1, 500, 1'500, 1}};
  std::vector<int64_t> timestamps = {700, 800, 900, 700};
  if (!lose_earlier) {
    held.push_back({2, 500, 1'500, 1});
    timestamps.push_back(800);
  }
  return log.answered(std::move(held), std::move(timestamps), lose_earlier ? 3 : 4);
}

TEST(WindowJudgeTest, AReplicaAtTheEndOfUncachedWritesACrashCutIsDeclaredOnlyForTheLostWrites) {
  TraceBuilder proven = writes_cut_by_crash(0, false);
  TraceBuilder elsewhere = writes_cut_by_crash(1, false);
  TraceBuilder earlier = writes_cut_by_crash(0, true);
  // Key 3's window 500 was written at offset 2, above offset 1 (the largest header before the
  // cut writes), and not by them: lost with the crash before it was sent, as in Kafka under
  // at-least-once (the offset is not committed, and key 3 is processed again).
  EXPECT_EQ(class_of_only_violation(proven, "writes the crash lost before they were sent"),
            ViolationClass::kReplicaInsideOneRecordsWrites)
      << "seed " << kSeed;
  // Not proven: a crash that landed in another changelog partition's send, ...
  EXPECT_EQ(class_of_only_violation(elsewhere, "did not crash inside a send to it then"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
  // ... and a window of an earlier record missing beneath the cut writes.
  EXPECT_EQ(class_of_only_violation(earlier,
                                    "slot 2@[500, 1500] differs from the model at offset 2, and "
                                    "the write that made the model's state there (offset 1) is "
                                    "not above offset 1, the largest header before the cut writes"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

// A compacted session changelog (gap 1 s): key 1 at 100 ms, key 2 at 300 ms, key 1 at 500 ms
// (merging [100, 100] into [100, 500]). instance-1 logs [100, 100] = `first` (offset 0), key 2's
// session (1), the merge's tombstone of [100, 100] (2) and [100, 500] = 2 (3), each at 1 ms past
// its header's offset; the cleaner
// removes offset 0, superseded by its tombstone, at `removed_ms`. instance-2's standby applied
// [.., 1] and answers key 1 at 20 ms with nothing under the header of offset 1. With `given`, its
// store object's life is recorded, given those changelog offsets.
TraceBuilder compacted_sessions(
    int64_t first, int64_t removed_ms,
    std::optional<std::vector<std::pair<int64_t, int64_t>>> given = std::nullopt) {
  TraceBuilder b(TopologyKind::SessionCount, KeyValueSupplier::kInMemory);
  b.trace().topology.session_gap_ms = 1'000;
  b.trace().topology.grace_ms = 0;
  b.produce(0, 1, 5, 100);
  b.produce(0, 2, 6, 300);
  b.produce(0, 1, 7, 500);
  const auto session = [&](int32_t key, std::optional<int64_t> value, int64_t start, int64_t end,
                           int64_t header) {
    // Appended when its input was processed: one millisecond per source offset.
    b.log(0, key, value, end, pos(0, header), "instance-1", header + 1);
    b.trace().changelog.back().window_start_ms = start;
    b.trace().changelog.back().window_end_ms = end;
  };
  session(1, first, 100, 100, 0);
  session(2, 1, 300, 300, 1);
  session(1, std::nullopt, 100, 100, 2);
  session(1, 2, 100, 500, 2);
  b.removed(0, 0, removed_ms);
  sim::ReplicaSnapshot replica = applied(standby(0, pos(0, 1), "instance-2"), 1);
  if (given) {
    sim::StoreLife life = store_life({}, std::nullopt, *given);
    life.instance = "instance-2";
    life.persistent = false;
    b.trace().store_lives.push_back(life);
    replica.store_life = 1;
  }
  testing::Q q = session_query(b, {}, pos(0, 1), std::move(replica));
  q.at(20, 20).target("instance-2");
  b.add(q);
  return b;
}

// What a replica skipped of a compacted changelog is what its store object's recorded life was not
// given: no search over fetch histories.
TEST(WindowJudgeTest, AReplicaInsideACompactedSessionChangelogIsDeclaredOnlyWhenProven) {
  // The life was given offset 1 only, so it skipped offset 0, which the cleaner removed at 10 ms:
  // the fold of what it read is its answer, and with offset 0 read it is the model's
  // [100, 100] = 1 at offset 1.
  TraceBuilder skipped = compacted_sessions(1, 10, {{{1, 1}}});
  EXPECT_EQ(
      class_of_only_violation(skipped, "1 record(s) of 1 key(s) the cleaner removed by 10 ms"),
      ViolationClass::kReplicaInsideCompactedChangelog)
      << "seed " << kSeed;
  {
    JudgeContext context(skipped.trace());
    EXPECT_TRUE(check_changelog_witness(context).empty()) << "seed " << kSeed;
  }
  // Near misses, each a failure: removed only after the answer (the standby read it, so the empty
  // answer is no fold of its log, and ChangelogWitness says so); a life given offset 0 too (it read
  // it); a trace that records no life (nothing says what was read, so no skip is assumed).
  TraceBuilder late = compacted_sessions(1, 30, {{{1, 1}}});
  EXPECT_EQ(class_of_only_violation(late, "is not its replica's changelog fold"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
  {
    JudgeContext context(late.trace());
    EXPECT_EQ(check_changelog_witness(context).size(), 1u) << "seed " << kSeed;
  }
  TraceBuilder read = compacted_sessions(1, 10, {{{0, 1}}});
  EXPECT_EQ(class_of_only_violation(read, "is not its replica's changelog fold"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
  TraceBuilder unrecorded = compacted_sessions(1, 10);
  EXPECT_EQ(class_of_only_violation(unrecorded, "is not its replica's changelog fold"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
  // The removed record held no state the model gives the session: a failure.
  TraceBuilder wrong = compacted_sessions(7, 10, {{{1, 1}}});
  EXPECT_EQ(class_of_only_violation(wrong, "is [1@100..100=7], not the model's [1@100..100=1]"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

// A windowed count (tumbling 1 s windows, `caching`): key 1 at 100 and 200 ms (offsets 0, 1), and
// key 2 at 300 ms (offset 2). instance-1 logged window 0 of key 1 = 2 under the header of offset 1
// at 10 ms and died before committing; instance-2 processed offsets 0-1 again at 50-60 ms over
// its restored store and logged window 0 = `count` at 100 ms, after the range closed, under the
// header `header` (4: each record counted twice). A standby that applied both records answers it.
TraceBuilder replayed_window_flushed_late(bool caching, int64_t header, int64_t count) {
  TraceBuilder b(TopologyKind::WindowedCount, KeyValueSupplier::kInMemory, caching);
  b.trace().topology.window_size_ms = 1'000;
  b.trace().topology.grace_ms = 0;
  b.produce(0, 1, 5, 100);
  b.produce(0, 1, 6, 200);
  b.produce(0, 2, 7, 300);
  b.log(0, 1, 2, 200, pos(0, 1), "instance-1", 10);
  b.trace().changelog.back().window_start_ms = 0;
  b.reprocessed(0, 0, 1, "instance-2", 50, 60);
  b.log(0, 1, count, 200, pos(0, header), "instance-2", 100);
  b.trace().changelog.back().window_start_ms = 0;
  b.add(window_key_query(b, {{1, 0, std::nullopt, count}}, {200}, pos(0, header))
            .at(150, 150)
            .target("instance-3")
            .replica(applied(standby(0, pos(0, header), "instance-3"), 1)));
  return b;
}

TEST(WindowJudgeTest, ACachedReprocessedWriteFlushedAfterItsRangeIsDatedByItsHeader) {
  // The header (1, within the range 0-1) says the flushed write came from reprocessed input
  // (whatever its value: 5 is no replay of the two records).
  TraceBuilder proven = replayed_window_flushed_late(true, 1, 5);
  EXPECT_EQ(class_of_only_violation(proven, "a flush of what it cached while it processed"),
            ViolationClass::kAtLeastOnceReprocessing)
      << "seed " << kSeed;
  // Without a record cache a write is appended when made: 100 ms lies after the range.
  TraceBuilder uncached = replayed_window_flushed_late(false, 1, 5);
  EXPECT_EQ(class_of_only_violation(uncached, "no reprocessed write"), ViolationClass::kFailure)
      << "seed " << kSeed;
  // A header past the range (offset 2) dates the write after the reprocessing.
  TraceBuilder after = replayed_window_flushed_late(true, 2, 5);
  EXPECT_EQ(class_of_only_violation(after, "no reprocessed write"), ViolationClass::kFailure)
      << "seed " << kSeed;
}

TEST(WindowJudgeTest, AWindowAggregateCountingAReplayedPrefixTwiceIsReprocessing) {
  // 4 and 3 are the model's 2 plus a prefix (both records, the first) of key 1's records in the
  // range processed again; 5 is not.
  TraceBuilder both = replayed_window_flushed_late(false, 1, 4);
  EXPECT_EQ(class_of_only_violation(both, "count a prefix of their key's records"),
            ViolationClass::kAtLeastOnceReprocessing)
      << "seed " << kSeed;
  TraceBuilder first = replayed_window_flushed_late(false, 1, 3);
  EXPECT_EQ(class_of_only_violation(first, "count a prefix of their key's records"),
            ViolationClass::kAtLeastOnceReprocessing)
      << "seed " << kSeed;
  TraceBuilder none = replayed_window_flushed_late(false, 1, 5);
  EXPECT_EQ(class_of_only_violation(none,
                                    "3 above the model's at offset 1 is the count of no "
                                    "prefix of key 1's records"),
            ViolationClass::kFailure)
      << "seed " << kSeed;
}

TEST(WindowJudgeTest, OneWindowsDuplicatesAreComparedInAnyOrderButNotInAnyContent) {
  // The PAPI window writer retaining duplicates: 10 and 11 in window 0 of key 1. A store object
  // created after the first put numbers the second from 0 again and sorts it first (the sequence
  // counter is a field of the store object), so either order is Kafka's.
  TraceBuilder b(TopologyKind::WindowPapiWriter, KeyValueSupplier::kInMemory);
  b.trace().topology.window_size_ms = 1'000;
  b.trace().topology.retain_duplicates = true;
  b.produce(0, 1, 10, 100);
  b.produce(0, 1, 11, 200);
  b.add(window_key_query(b, {{1, 0, std::nullopt, 10}, {1, 0, std::nullopt, 11}}, {100, 200},
                         pos(0, 1)));
  b.add(window_key_query(b, {{1, 0, std::nullopt, 11}, {1, 0, std::nullopt, 10}}, {200, 100},
                         pos(0, 1)));
  // Wrong: a value no put wrote, a timestamp paired with the other value, a duplicate lost.
  b.add(window_key_query(b, {{1, 0, std::nullopt, 11}, {1, 0, std::nullopt, 12}}, {200, 100},
                         pos(0, 1)));
  b.add(window_key_query(b, {{1, 0, std::nullopt, 11}, {1, 0, std::nullopt, 10}}, {100, 200},
                         pos(0, 1)));
  b.add(window_key_query(b, {{1, 0, std::nullopt, 11}}, {200}, pos(0, 1)));
  JudgeContext context(b.trace());
  const auto vs = check_result_matches_model(context);
  ASSERT_EQ(vs.size(), 3u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 3u) << "seed " << kSeed;
  EXPECT_EQ(vs[1].record_id, 4u) << "seed " << kSeed;
  EXPECT_EQ(vs[2].record_id, 5u) << "seed " << kSeed;
}

TEST(WindowJudgeTest, FailureReasonsOfTheQueryFormsAWindowStoreRefuses) {
  TraceBuilder b = session_count();
  // WindowRangeQuery.withWindowStartRange on a session store: MeteredSessionStore refuses it
  // before the bound check, so UNKNOWN_QUERY_TYPE even under a bound the replica is behind.
  testing::Q q = b.key_query(0, 1, QueryKind::WindowRangeQuery);
  q.r.request.from_time_ms = 0;
  q.r.request.to_time_ms = kForever;
  q.bound(pos(0, 9));
  q.replica(applied(active(0, pos(0, 1)), 2));
  q.fail(FailureReason::UNKNOWN_QUERY_TYPE);
  b.add(q);
  // The session form of the query under that bound: NOT_UP_TO_BOUND, not a success.
  testing::Q behind =
      session_query(b, {{1, 100, 500, 2}}, pos(0, 1), applied(active(0, pos(0, 1)), 2));
  behind.bound(pos(0, 9));
  b.add(behind);
  JudgeContext context(b.trace());
  const auto vs = check_failure_reason_correct(context);
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 2u) << "seed " << kSeed;
}

// The liveness phase with bound `bound_offset`, the last probe of partition 0 refused
// NOT_UP_TO_BOUND at `probe_offset` by an active.
Violation probe_stuck_at(TraceBuilder& b, int64_t bound_offset, int64_t probe_offset) {
  sim::LivenessRecord liveness;
  liveness.faults_stopped_ms = testing::instant(1'000);
  liveness.timeout_ms = base::Duration::millis(500);
  liveness.bound = pos(0, bound_offset);
  liveness.first_success_ms = {{0, std::nullopt}};
  b.trace().liveness = liveness;
  testing::Q q = b.key_query(0, 1, QueryKind::WindowKeyQuery);
  q.r.request.from_time_ms = 0;
  q.r.request.to_time_ms = kForever;
  q.source(sim::QueryRecord::Source::kLiveness).bound(pos(0, bound_offset));
  q.fail(FailureReason::NOT_UP_TO_BOUND, pos(0, probe_offset));
  q.target("instance-1");
  q.replica(active(0, pos(0, probe_offset)));
  b.add(std::move(q));
  JudgeContext context(b.trace());
  std::vector<Violation> vs = check_eventually_available(context);
  IQ_ASSERT(vs.size() == 1, "seed {}: expected one violation, got {}", kSeed, text(vs));
  classify_violations(context, vs);
  return vs[0];
}

// Quirk 25: the aggregation drops the late record without a store write, so a bound that covers
// it is never met: Kafka's behaviour when every offset past the position is such a record and no
// logged header passes it; a position short of a record the store took stays a failure.
TEST(WindowJudgeTest, AGraceDroppedTailNeverReachedIsKafkasOnlyWhenProven) {
  TraceBuilder b = windowed_count();
  const Violation v = probe_stuck_at(b, 3, 2);  // bound 3: the record dropped beyond grace
  EXPECT_EQ(v.violation_class, ViolationClass::kWindowGraceDroppedTail) << "seed " << kSeed << "\n"
                                                                        << v.to_string();
  EXPECT_NE(v.class_evidence.find("quirk 25"), std::string::npos) << v.class_evidence;

  // Offset 2 (key 1 at 1500 ms) reached the store: a position at 1 is short of a real write.
  TraceBuilder short_of_write = windowed_count();
  const Violation w = probe_stuck_at(short_of_write, 3, 1);
  EXPECT_EQ(w.violation_class, ViolationClass::kFailure) << "seed " << kSeed;
  EXPECT_NE(w.class_evidence.find("model's store position"), std::string::npos) << w.class_evidence;
}

// WindowPapiWriter over RocksDB with retainDuplicates (1 s windows, retention 5 s, one 60 s
// segment): key 1 = 5 at 100 ms (offset 0, window 0), then `tail` more records of key 1.
TraceBuilder duplicates_writer(bool retain_duplicates) {
  TraceBuilder b(TopologyKind::WindowPapiWriter, KeyValueSupplier::kRocksDb);
  b.trace().topology.window_size_ms = 1'000;
  b.trace().topology.window_retention_ms = 5'000;
  b.trace().topology.retain_duplicates = retain_duplicates;
  b.produce(0, 1, 5, 100);
  return b;
}

// Quirk 26: RocksDBWindowStore.put skips a null put with duplicates before anything, so a bound
// covering a trailing one is never met: Kafka's behaviour when every offset past the position is
// such a null put. Without duplicates the null put is a delete that advances the position, so the
// same stuck probe stays a failure.
TEST(WindowJudgeTest, ATrailingNullPutWithDuplicatesNeverReachedIsKafkasOnlyWhenProven) {
  TraceBuilder b = duplicates_writer(true);
  b.produce(0, 1, 6, 200);
  b.produce(0, 1, std::nullopt, 300);
  const Violation v = probe_stuck_at(b, 2, 1);
  EXPECT_EQ(v.violation_class, ViolationClass::kDuplicatesNullPutSkipped)
      << "seed " << kSeed << "\n"
      << v.to_string();
  EXPECT_NE(v.class_evidence.find("quirk 26"), std::string::npos) << v.class_evidence;

  TraceBuilder deletes = duplicates_writer(false);
  deletes.produce(0, 1, 6, 200);
  deletes.produce(0, 1, std::nullopt, 300);
  const Violation w = probe_stuck_at(deletes, 2, 1);
  EXPECT_EQ(w.violation_class, ViolationClass::kFailure) << "seed " << kSeed;
  EXPECT_NE(w.class_evidence.find("model's store position"), std::string::npos) << w.class_evidence;
}

// Quirk 26 on a standby: key 1's null put at 6500 ms (window 6000) is skipped by the active's
// store (stream time stays 0, window 0 visible) but logged under {0=0}; the standby's restore takes
// its window start into its stream time, so the floor 1000 hides window 0 under the same position.
// Kafka's behaviour when the answer is the restore's fold and, with the null skipped, the model's;
// a standby that had not applied the null put answering the same is no fold of its log.
TEST(WindowJudgeTest, AStandbyHidingWindowsBehindARestoredNullPutIsKafkasOnlyWhenProven) {
  for (int64_t standby_applied : {1, 0}) {
    TraceBuilder b = duplicates_writer(true);
    b.produce(0, 1, std::nullopt, 6'500);
    b.log(0, 1, 5, 100, pos(0, 0), "instance-2", 10);
    b.trace().changelog.back().window_start_ms = 0;
    b.trace().changelog.back().window_end_ms = 1'000;
    b.trace().changelog.back().window_seqnum = 1;
    b.log(0, 1, std::nullopt, 6'500, pos(0, 0), "instance-2", 11);
    b.trace().changelog.back().window_start_ms = 6'000;
    b.trace().changelog.back().window_end_ms = 7'000;
    b.trace().changelog.back().window_seqnum = 2;
    testing::Q q = b.key_query(0, 1, QueryKind::WindowKeyQuery);
    q.r.request.from_time_ms = 0;
    q.r.request.to_time_ms = kForever;
    q.at(100, 100).ok(std::nullopt, pos(0, 0), {});
    q.r.partitions.back().value = sim::WindowedList{};
    q.replica(applied(standby(0, pos(0, 0)), standby_applied));
    b.add(q);
    JudgeContext context(b.trace());
    auto vs = check_result_matches_model(context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
    classify_violations(context, vs);
    EXPECT_EQ(vs[0].violation_class, standby_applied == 1
                                         ? ViolationClass::kDuplicatesNullPutSkipped
                                         : ViolationClass::kFailure)
        << "seed " << kSeed << " applied " << standby_applied << "\n"
        << vs[0].to_string();
  }
}

// A RocksDB window store object that opened over data an earlier one kept (its instance dropped
// out of the group, closed its task dirty, and opened the store again without a .checkpoint):
// key 1 = 5 (offset 0) and key 2 = 7 (offset 1) in window 0, both logged by instance-1; restoring
// from the log's start it has applied changelog 0 only, under {0=0}, yet holds key 2. Its recorded
// life kept `kept` and loaded `checkpoint`; the run's guarantee is `guarantee`. The one
// ResultMatchesModel violation, classified.
Violation kept_window_life(std::vector<sim::KeptEntry> kept,
                           std::optional<ChangelogOffset> checkpoint, sim::Guarantee guarantee,
                           bool sentinel_entry = false) {
  TraceBuilder b = duplicates_writer(false);
  b.trace().guarantee = guarantee;
  b.produce(0, 2, 7, 200);
  b.log(0, 1, 5, 100, pos(0, 0), "instance-1", 10);
  b.trace().changelog.back().window_start_ms = 0;
  b.trace().changelog.back().window_end_ms = 1'000;
  b.log(0, 2, 7, 200, pos(0, 1), "instance-1", 11);
  b.trace().changelog.back().window_start_ms = 0;
  b.trace().changelog.back().window_end_ms = 1'000;
  b.trace().store_lives.push_back(store_life(std::move(kept), checkpoint, {{0, 0}}));
  b.trace().store_lives.back().checkpoint_entry_loaded = checkpoint.has_value() || sentinel_entry;
  testing::Q range = b.range_query(0, std::nullopt, std::nullopt, QueryKind::WindowRangeQuery);
  range.r.request.from_time_ms = 0;
  range.r.request.to_time_ms = kForever;
  range.at(100, 100).ok(std::nullopt, pos(0, 0), {});
  range.r.partitions.back().value = sim::WindowedList{{1, 0, 1'000, 5}, {2, 0, 1'000, 7}};
  sim::ReplicaSnapshot replica = applied(active(0, pos(0, 0)), 0);
  replica.store_life = 1;
  range.replica(std::move(replica));
  b.add(range);
  JudgeContext context(b.trace());
  auto vs = check_result_matches_model(context);
  IQ_ASSERT(vs.size() == 1u, "seed {}: {}", kSeed, text(vs));
  classify_violations(context, vs);
  return vs[0];
}

// Kafka's behaviour (a store restarted without a checkpoint) only when its recorded life began
// over that kept data: a store object that opened over nothing cannot hold key 2.
TEST(WindowJudgeTest, AWindowStoreOverKeptDataIsKafkasOnlyWhenItsLifeBeganOverIt) {
  for (bool kept : {true, false}) {
    const Violation v =
        kept_window_life(kept ? std::vector{kept_window(1, 0, 5), kept_window(2, 0, 7)}
                              : std::vector<sim::KeptEntry>{},
                         std::nullopt, sim::Guarantee::kAtLeastOnce);
    EXPECT_EQ(v.violation_class,
              kept ? ViolationClass::kRestartWithoutCheckpoint : ViolationClass::kFailure)
        << "seed " << kSeed << " kept " << kept << "\n"
        << v.to_string();
  }
}

// The same kept life under exactly_once_v2: Kafka keeps a store's data over a crash only when a
// .checkpoint was found at restart (it is loaded, then deleted); without one the task is corrupted
// and wiped, so a store object over kept data that loaded no .checkpoint is no Kafka behaviour
// under EOS (violation_class.cc, admitted; the positive case is
// regressions/eos_restart_from_older_checkpoint_keeps_flushed_data.toml).
TEST(WindowJudgeTest, UnderExactlyOnceAKeptLifeIsKafkasOnlyWhenItLoadedACheckpoint) {
  for (const std::optional<ChangelogOffset> checkpoint :
       {std::optional(ChangelogOffset(0)), std::optional<ChangelogOffset>()}) {
    const Violation v = kept_window_life({kept_window(1, 0, 5), kept_window(2, 0, 7)}, checkpoint,
                                         sim::Guarantee::kExactlyOnceV2);
    EXPECT_EQ(v.violation_class,
              checkpoint ? ViolationClass::kRestartWithoutCheckpoint : ViolationClass::kFailure)
        << "seed " << kSeed << " checkpoint " << checkpoint.has_value() << "\n"
        << v.to_string();
    EXPECT_EQ(v.restored_from_checkpoint, checkpoint.has_value()) << "seed " << kSeed;
  }
}

// A .checkpoint whose entry for the changelog is the unknown sentinel (the state updater writes
// one when an active completes restoration of an empty changelog) is found too: Kafka's
// initializeStoreOffsetsFromCheckpoint asks only whether the entry exists, keeps the store under
// exactly_once_v2 and restores from the log's start. The store life records the entry it opened
// on, so the kept life is Kafka's; the same life recorded without the entry is not.
TEST(WindowJudgeTest, UnderExactlyOnceAKeptLifeOnTheUnknownSentinelIsKafkas) {
  for (const bool entry : {true, false}) {
    const Violation v = kept_window_life({kept_window(1, 0, 5), kept_window(2, 0, 7)}, std::nullopt,
                                         sim::Guarantee::kExactlyOnceV2, entry);
    EXPECT_EQ(v.violation_class,
              entry ? ViolationClass::kRestartWithoutCheckpoint : ViolationClass::kFailure)
        << "seed " << kSeed << " sentinel entry " << entry << "\n"
        << v.to_string();
    EXPECT_EQ(v.restored_from_checkpoint, entry) << "seed " << kSeed;
  }
}

// Seed 596 of the default template: a retainDuplicates RocksDB window store numbers its own puts
// with RocksDBWindowStore's counter, which skips a null put, while the log holds the
// change-logging layer's, which counts it (quirk 26). Key 1 = 5 (logged number 1), a null put
// (2), 6 (3) in window 0, all by instance-1, whose store object kept 5 under 1 and 6 under 2
// (its own numbers, recorded as its files held them) and reopened from its .checkpoint at
// changelog 1: the restore writes 6 again under 3, beside the kept 6. Kafka's behaviour only for
// that exact fold: one more 6, or a store object that kept nothing, stays a failure.
TEST(WindowJudgeTest, AKeptPutRestoredUnderItsLoggedNumberIsKafkasOnlyOverKeptData) {
  struct Case {
    bool kept;
    int sixes;
    ViolationClass want;
  };
  for (const Case& c :
       {Case{true, 2, ViolationClass::kRestartWithoutCheckpoint},
        Case{true, 3, ViolationClass::kFailure}, Case{false, 2, ViolationClass::kFailure}}) {
    TraceBuilder b = duplicates_writer(true);
    b.produce(0, 1, std::nullopt, 150);
    b.produce(0, 1, 6, 200);
    const auto logged = [&](std::optional<int64_t> value, int64_t ts, int64_t offset,
                            int32_t seqnum, int64_t at) {
      b.log(0, 1, value, ts, pos(0, offset), "instance-1", at);
      b.trace().changelog.back().window_start_ms = 0;
      b.trace().changelog.back().window_seqnum = seqnum;
    };
    logged(5, 100, 0, 1, 10);
    logged(std::nullopt, 150, 0, 2, 11);
    logged(6, 200, 2, 3, 12);
    b.trace().store_lives.push_back(
        store_life(c.kept ? std::vector{kept_window(1, 0, 5, 1), kept_window(1, 0, 6, 2)}
                          : std::vector<sim::KeptEntry>{},
                   ChangelogOffset(1), {{2, 2}}));
    sim::WindowedList answer{{1, 0, std::nullopt, 5}};
    for (int i = 0; i < c.sixes; ++i) answer.push_back({1, 0, std::nullopt, 6});
    testing::Q q = window_key_query(b, std::move(answer), {}, pos(0, 2));
    sim::ReplicaSnapshot replica = applied(active(0, pos(0, 2)), 2);
    replica.restored_from = ChangelogOffset(1);
    replica.store_life = 1;
    q.at(100, 100).replica(std::move(replica));
    b.add(q);
    JudgeContext context(b.trace());
    auto vs = check_result_matches_model(context);
    ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << " kept " << c.kept << " sixes " << c.sixes
                             << "\n"
                             << text(vs);
    classify_violations(context, vs);
    EXPECT_EQ(vs[0].violation_class, c.want)
        << "seed " << kSeed << " kept " << c.kept << " sixes " << c.sixes << "\n"
        << vs[0].to_string();
  }
}

// The window witness keeps its folds' models and extends one when the next fold applies the same
// records and more (WindowFoldCache). A PAPI window writer over an in-memory store: key 1 put 5
// (by instance-1), 6, then 7 (both by instance-3) into window 0, each record's header the source
// offset it wrote.
TraceBuilder three_puts_of_one_window() {
  TraceBuilder b(TopologyKind::WindowPapiWriter, KeyValueSupplier::kInMemory);
  b.trace().topology.window_size_ms = 1'000;
  b.trace().topology.window_retention_ms = 20'000;
  b.produce(0, 1, 5, 100);
  b.produce(0, 1, 6, 200);
  b.produce(0, 1, 7, 300);
  b.log(0, 1, 5, 100, pos(0, 0), "instance-1", 10);
  b.log(0, 1, 6, 200, pos(0, 1), "instance-3", 20);
  b.log(0, 1, 7, 300, pos(0, 2), "instance-3", 30);
  for (sim::ChangelogRecord& r : b.trace().changelog) r.window_start_ms = 0;
  return b;
}

// instance-2's replica answers window 0 at `at_ms`: 7 (offset 2's put) or 6 (offset 1's).
void add_window_answer(TraceBuilder& b, int64_t at_ms, bool seven, sim::ReplicaSnapshot replica) {
  testing::Q q = window_key_query(b, {{1, 0, std::nullopt, seven ? 7 : 6}}, {seven ? 300 : 200},
                                  pos(0, seven ? 2 : 1));
  q.at(at_ms, at_ms).target("instance-2").replica(std::move(replica));
  b.add(q);
}

// Proves that a kept fold is never taken for another answer's whose fold differs in one input
// only: here the instant of the answer, which decides whether a read_committed standby had read
// offset 2 (its transaction committed at 500 ms). The same replica at the same applied offset
// answers 6 at 400 ms and 7 at 600 ms, and both hold (a model kept by replica and offset would
// give 6 for both); 6 at 600 ms, from the kept fold of offset 2, does not.
TEST(WindowJudgeTest, AKeptFoldIsNotTakenForAnAnswerAtAnotherInstant) {
  TraceBuilder b = three_puts_of_one_window();
  b.txn(0, 0, sim::TxnOutcome::kCommitted, 50);
  b.txn(0, 1, sim::TxnOutcome::kCommitted, 50);
  b.txn(0, 2, sim::TxnOutcome::kCommitted, 500);
  const sim::ReplicaSnapshot replica = applied(standby(0, pos(0, 2), "instance-2"), 2);
  add_window_answer(b, 400, false, replica);  // built: offsets 0 and 1
  add_window_answer(b, 600, true, replica);   // extended by offset 2
  add_window_answer(b, 600, false, replica);  // taken as kept, and not the answer
  add_window_answer(b, 600, true, replica);   // taken as kept
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 3u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].expected, "[@0=7 ts=300]") << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("ChangelogWitness").judged, 4u) << "seed " << kSeed;
  const detail::WindowFoldCounts counts = detail::window_fold_counts(context);
  EXPECT_EQ(counts.built, 1u) << "seed " << kSeed;
  EXPECT_EQ(counts.extended, 1u) << "seed " << kSeed;
  EXPECT_EQ(counts.hits, 2u) << "seed " << kSeed;
}

// Proves the same for the replica's runs of own writes, which decide which other instances'
// records its store never read. Three replicas of instance-2 at applied offset 2: an active whose
// run (1, 2] skipped offset 2 (folds offsets 0 and 1: 6), one whose run (0, 1] skipped offset 1
// (offsets 0 and 2, as many calls: 7), and a standby that read all three (7). The first active
// answers again after the standby's fold extended its model: it is built again, and 7 from it is
// no fold of its log.
TEST(WindowJudgeTest, AKeptFoldIsNotTakenForAReplicaWithOtherOwnWriteRuns) {
  TraceBuilder b = three_puts_of_one_window();
  const sim::ReplicaSnapshot skipped_2 =
      testing::own_runs(applied(active(0, pos(0, 1), "instance-2"), 2), {{1, 2}});
  const sim::ReplicaSnapshot skipped_1 =
      testing::own_runs(applied(active(0, pos(0, 2), "instance-2"), 2), {{0, 1}});
  const sim::ReplicaSnapshot read_all = applied(standby(0, pos(0, 2), "instance-2"), 2);
  add_window_answer(b, 400, false, skipped_2);  // built: offsets 0 and 1
  add_window_answer(b, 400, true, skipped_1);   // built: offsets 0 and 2
  add_window_answer(b, 400, true, read_all);    // the first extended by offset 2
  add_window_answer(b, 400, false, skipped_2);  // built again
  add_window_answer(b, 400, true, skipped_2);   // taken as kept, and not the answer
  JudgeContext context(b.trace());
  const auto vs = check_changelog_witness(context);
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 5u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].expected, "[@0=6 ts=200]") << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("ChangelogWitness").judged, 5u) << "seed " << kSeed;
  const detail::WindowFoldCounts counts = detail::window_fold_counts(context);
  EXPECT_EQ(counts.built, 3u) << "seed " << kSeed;
  EXPECT_EQ(counts.extended, 1u) << "seed " << kSeed;
  EXPECT_EQ(counts.hits, 1u) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
