// FailureReasonCorrect on hand-made traces: the oracle's outcome from the placement at the answer
// against the returned one, for every rule of KafkaStreams#query and its quirks (NOT_ACTIVE from
// the thread's state, a restoring active on a RUNNING thread passing requireActive, requireActive
// discarding the bound, NOT_PRESENT instead of DOES_NOT_EXIST, the adapter's ClassCastException).

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using testing::active;
using testing::kSeed;
using testing::no_task;
using testing::pos;
using testing::standby;
using testing::text;
using testing::TraceBuilder;

std::vector<Violation> judge(const sim::RunTrace& trace) {
  JudgeContext context(trace);
  return check_failure_reason_correct(context);
}

TraceBuilder table(TopologyKind kind = TopologyKind::SourceTable,
                   KeyValueSupplier supplier = KeyValueSupplier::kRocksDbTimestamped,
                   bool caching = false, int32_t partitions = 2) {
  TraceBuilder b(kind, supplier, caching, partitions);
  for (int32_t i = 0; i < 4; ++i) b.produce(0, i, i);
  return b;
}

TEST(FailureReasonCorrectTest, KafkasReasonsPass) {
  TraceBuilder b = table();
  // A standby under requireActive.
  b.add(b.key_query(0, 1)
            .require_active()
            .fail(FailureReason::NOT_ACTIVE)
            .replica(standby(0, pos(0, 3))));
  // An active whose THREAD is not RUNNING under requireActive.
  b.add(b.key_query(0, 1)
            .require_active()
            .fail(FailureReason::NOT_ACTIVE)
            .replica(active(0, pos(0, 3), "instance-1", sim::ReplicaSnapshot::TaskState::RUNNING,
                            sim::ReplicaSnapshot::ThreadState::PARTITIONS_ASSIGNED)));
  // No task of the partition here.
  b.add(b.key_query(0, 1).fail(FailureReason::NOT_PRESENT).replica(no_task(0)));
  // Behind the bound.
  b.add(b.key_query(0, 1)
            .bound(pos(0, 3))
            .fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 1))
            .replica(standby(0, pos(0, 1))));
  // Up to the bound, served by a standby.
  b.add(b.key_query(0, 1).bound(pos(0, 3)).ok(1, pos(0, 3)).replica(standby(0, pos(0, 3))));
  // An out-of-range partition is NOT_PRESENT (DOES_NOT_EXIST is never produced).
  b.add(b.key_query(7, 1).fail(FailureReason::NOT_PRESENT).replica(no_task(0)));
  JudgeContext context(b.trace());
  const auto vs = check_failure_reason_correct(context);
  EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(context.tallies().at("FailureReasonCorrect").judged, 6u) << "seed " << kSeed;
}

// Kafka's quirks: a restoring active on a RUNNING thread passes requireActive, and requireActive
// queries the store unbounded whatever the request's bound.
TEST(FailureReasonCorrectTest, RequireActiveQuirksPass) {
  TraceBuilder b = table();
  b.add(b.key_query(0, 1)
            .require_active()
            .ok(1, pos(0, 1))
            .replica(active(0, pos(0, 1), "instance-1", sim::ReplicaSnapshot::TaskState::RESTORING,
                            sim::ReplicaSnapshot::ThreadState::RUNNING)));
  b.add(b.key_query(0, 1)
            .require_active()
            .bound(pos(0, 3))
            .ok(1, pos(0, 1))
            .replica(active(0, pos(0, 1))));
  const auto vs = judge(b.trace());
  EXPECT_TRUE(vs.empty()) << "seed " << kSeed << "\n" << text(vs);
}

TEST(FailureReasonCorrectTest, WrongReasonsFail) {
  TraceBuilder b = table();
  // NOT_ACTIVE for a running active on a RUNNING thread.
  b.add(b.key_query(0, 1)
            .require_active()
            .fail(FailureReason::NOT_ACTIVE)
            .replica(active(0, pos(0, 3))));
  // A success where the instance has no task of the partition.
  b.add(b.key_query(0, 1).ok(1, pos(0, 3)).replica(no_task(0)));
  // NOT_UP_TO_BOUND under requireActive: Kafka would have queried unbounded.
  b.add(b.key_query(0, 1)
            .require_active()
            .bound(pos(0, 3))
            .fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 1))
            .replica(active(0, pos(0, 1))));
  // A success from a standby behind the bound.
  b.add(b.key_query(0, 1).bound(pos(0, 3)).ok(1, pos(0, 1)).replica(standby(0, pos(0, 1))));
  // DOES_NOT_EXIST is never Kafka's answer.
  b.add(b.key_query(7, 1).fail(FailureReason::DOES_NOT_EXIST).replica(no_task(0)));
  const auto vs = judge(b.trace());
  ASSERT_EQ(vs.size(), 5u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, "success or STORE_EXCEPTION") << "seed " << kSeed;
  EXPECT_EQ(vs[1].expected, "NOT_PRESENT") << "seed " << kSeed;
  EXPECT_EQ(vs[3].expected, "NOT_UP_TO_BOUND") << "seed " << kSeed;
  EXPECT_EQ(vs[4].expected, "NOT_PRESENT") << "seed " << kSeed;
}

// KafkaStreams#query's exact messages (KafkaStreams.java at 1eb7644).
constexpr const char* kNotStarted =
    "KafkaStreams has not been started, you can retry after calling start().";
constexpr const char* kStoppedPendingShutdown =
    "KafkaStreams has been stopped (PENDING_SHUTDOWN). This instance can no longer serve queries.";
constexpr const char* kStoppedNotRunning =
    "KafkaStreams has been stopped (NOT_RUNNING). This instance can no longer serve queries.";
constexpr const char* kUnknownNope =
    "Cannot get state store nope because no such store is registered in the topology.";

TEST(FailureReasonCorrectTest, ClientStateErrors) {
  TraceBuilder b = table();
  b.add(b.key_query(0, 1)
            .error(StreamsError::Kind::StreamsNotStarted, kNotStarted)
            .replica(no_task(0))
            .client_state(sim::ReplicaSnapshot::StreamsState::CREATED));
  b.add(b.key_query(0, 1)
            .error(StreamsError::Kind::StreamsStopped, kStoppedPendingShutdown)
            .replica(no_task(0))
            .client_state(sim::ReplicaSnapshot::StreamsState::PENDING_SHUTDOWN));
  b.add(b.key_query(0, 1)
            .store("nope")
            .error(StreamsError::Kind::UnknownStateStore, kUnknownNope)
            .replica(active(0, pos(0, 3))));
  EXPECT_TRUE(judge(b.trace()).empty()) << "seed " << kSeed;

  TraceBuilder w = table();
  w.add(w.key_query(0, 1)
            .fail(FailureReason::NOT_PRESENT)
            .replica(no_task(0))
            .client_state(
                sim::ReplicaSnapshot::StreamsState::NOT_RUNNING));  // must throw
                                                                    // StreamsStoppedException
  w.add(w.key_query(0, 1)
            .error(StreamsError::Kind::StreamsStopped, kStoppedNotRunning)
            .replica(active(0, pos(0, 3))));
  const auto vs = judge(w.trace());
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, "StreamsStoppedException") << "seed " << kSeed;
}

// Proves the three query-path errors are judged with Kafka's exact message, and that a closed
// client in a live application (not running, NOT_RUNNING) is judged: StreamsStoppedException,
// and UnknownStateStoreException before it for a store the topology does not have.
TEST(FailureReasonCorrectTest, ClientStateErrorsCarryKafkasMessage) {
  sim::ReplicaSnapshot closed = no_task(0);
  closed.running = false;
  closed.client_state = sim::ReplicaSnapshot::StreamsState::NOT_RUNNING;
  TraceBuilder b = table();
  b.add(b.key_query(0, 1)
            .error(StreamsError::Kind::StreamsStopped, kStoppedNotRunning)
            .replica(closed));
  b.add(b.key_query(0, 1)
            .store("nope")
            .error(StreamsError::Kind::UnknownStateStore, kUnknownNope)
            .replica(closed));
  EXPECT_TRUE(judge(b.trace()).empty()) << "seed " << kSeed;

  TraceBuilder w = table();
  // The state in the message is the client's, and the store name is the one asked.
  w.add(w.key_query(0, 1)
            .error(StreamsError::Kind::StreamsStopped, kStoppedPendingShutdown)
            .replica(closed));
  w.add(w.key_query(0, 1)
            .store("nope")
            .error(StreamsError::Kind::UnknownStateStore,
                   "Cannot get state store counts because no such store is registered in the "
                   "topology.")
            .replica(active(0, pos(0, 3))));
  w.add(w.key_query(0, 1)
            .error(StreamsError::Kind::StreamsNotStarted, "KafkaStreams has not been started.")
            .replica(no_task(0))
            .client_state(sim::ReplicaSnapshot::StreamsState::CREATED));
  // A closed client must throw, not answer.
  w.add(w.key_query(0, 1).fail(FailureReason::NOT_PRESENT).replica(closed));
  const auto vs = judge(w.trace());
  ASSERT_EQ(vs.size(), 4u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, kStoppedNotRunning) << "seed " << kSeed;
  EXPECT_EQ(vs[1].expected, kUnknownNope) << "seed " << kSeed;
  EXPECT_EQ(vs[2].expected, kNotStarted) << "seed " << kSeed;
  EXPECT_EQ(vs[3].expected, "StreamsStoppedException") << "seed " << kSeed;
}

// Proves a window query against a key-value store (what the query clients draw with
// window_query_one_in) is judged as Kafka answers it: NOT_UP_TO_BOUND when the position does not
// dominate the bound, UNKNOWN_QUERY_TYPE otherwise (the bound check first, quirk 11), never a
// success.
TEST(FailureReasonCorrectTest, WindowQueriesOnAKeyValueStoreAreUnknownAfterTheBound) {
  TraceBuilder b = table();
  for (QueryKind kind : {QueryKind::WindowKeyQuery, QueryKind::WindowRangeQuery}) {
    b.add(b.key_query(0, 1, kind)
              .fail(FailureReason::UNKNOWN_QUERY_TYPE)
              .replica(active(0, pos(0, 3))));
    b.add(b.key_query(0, 1, kind)
              .bound(pos(0, 5))
              .fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 3))
              .replica(active(0, pos(0, 3))));
  }
  EXPECT_TRUE(judge(b.trace()).empty()) << "seed " << kSeed;

  TraceBuilder w = table();
  w.add(
      w.key_query(0, 1, QueryKind::WindowKeyQuery).ok(1, pos(0, 3)).replica(active(0, pos(0, 3))));
  w.add(w.key_query(0, 1, QueryKind::WindowRangeQuery)
            .bound(pos(0, 5))
            .fail(FailureReason::UNKNOWN_QUERY_TYPE)
            .replica(active(0, pos(0, 3))));
  const auto vs = judge(w.trace());
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, "UNKNOWN_QUERY_TYPE") << "seed " << kSeed;
  EXPECT_EQ(vs[1].expected, "NOT_UP_TO_BOUND") << "seed " << kSeed;
}

TEST(FailureReasonCorrectTest, UnknownQueryTypeOnAPlainStoreComesBeforeTheBound) {
  TraceBuilder b = table(TopologyKind::PapiWriter, KeyValueSupplier::kRocksDb);
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery)
            .bound(pos(0, 3))
            .fail(FailureReason::UNKNOWN_QUERY_TYPE, pos(0, 1))
            .replica(active(0, pos(0, 1))));
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery)
            .fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 1))
            .bound(pos(0, 3))
            .replica(active(0, pos(0, 1))));
  b.add(b.key_query(0, 1, QueryKind::TimestampedKeyQuery)
            .ok(1, pos(0, 3))
            .replica(active(0, pos(0, 3))));
  const auto vs = judge(b.trace());
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].record_id, 2u) << "seed " << kSeed;
  EXPECT_EQ(vs[1].expected, "UNKNOWN_QUERY_TYPE") << "seed " << kSeed;
}

// KIP-1356's header queries (2026-08-20 pin) on stores without headers: UNKNOWN_QUERY_TYPE before
// the bound check, on every topology; a success or a NOT_UP_TO_BOUND is a violation.
TEST(FailureReasonCorrectTest, HeaderQueriesAreUnknownBeforeTheBound) {
  for (bool caching : {false, true}) {
    TraceBuilder b =
        table(TopologyKind::SourceTable, KeyValueSupplier::kRocksDbTimestamped, caching);
    b.add(b.key_query(0, 1, QueryKind::TimestampedKeyWithHeadersQuery)
              .bound(pos(0, 3))
              .fail(FailureReason::UNKNOWN_QUERY_TYPE, pos(0, 1))
              .replica(active(0, pos(0, 1))));
    b.add(b.key_query(0, 1, QueryKind::TimestampedRangeWithHeadersQuery)
              .fail(FailureReason::UNKNOWN_QUERY_TYPE, pos(0, 1))
              .replica(standby(0, pos(0, 1))));
    b.add(b.key_query(0, 1, QueryKind::TimestampedWindowKeyWithHeadersQuery)
              .bound(pos(0, 3))
              .fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 1))
              .replica(active(0, pos(0, 1))));
    b.add(b.key_query(0, 1, QueryKind::TimestampedWindowRangeWithHeadersQuery)
              .ok(1, pos(0, 3))
              .replica(active(0, pos(0, 3))));
    const auto vs = judge(b.trace());
    ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
    EXPECT_EQ(vs[0].record_id, 3u) << "seed " << kSeed;
    EXPECT_EQ(vs[0].expected, "UNKNOWN_QUERY_TYPE") << "seed " << kSeed;
    EXPECT_EQ(vs[1].expected, "UNKNOWN_QUERY_TYPE") << "seed " << kSeed;
  }
}

// A range whose serialized lower bound is above its upper, on the DSL adapter over a plain
// RocksDB store: the adapter's cast throws out of KafkaStreams#query (quirk 10 of
// docs/iqv2-semantics.md).
TEST(FailureReasonCorrectTest, AdapterClassCastOnAnInvertedRange) {
  TraceBuilder b = table(TopologyKind::SourceTable, KeyValueSupplier::kRocksDb);
  b.add(b.range_query(0, 3, 1).error(StreamsError::Kind::ClassCast).replica(active(0, pos(0, 3))));
  // -1 serializes as 0xffffffff, above every non-negative key.
  b.add(b.range_query(0, -1, 1).error(StreamsError::Kind::ClassCast).replica(active(0, pos(0, 3))));
  EXPECT_TRUE(judge(b.trace()).empty()) << "seed " << kSeed;

  TraceBuilder w = table(TopologyKind::SourceTable, KeyValueSupplier::kRocksDb);
  w.add(w.range_query(0, 3, 1).ok_entries({}, pos(0, 3)).replica(active(0, pos(0, 3))));
  w.add(w.range_query(0, 1, 3).error(StreamsError::Kind::ClassCast).replica(active(0, pos(0, 3))));
  const auto vs = judge(w.trace());
  ASSERT_EQ(vs.size(), 2u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, "ClassCastException (docs/iqv2-semantics.md quirk 10)")
      << "seed " << kSeed;

  // Over a timestamped supplier there is no adapter: an inverted range is an empty success.
  TraceBuilder t = table();
  t.add(t.range_query(0, 3, 1).ok_entries({}, pos(0, 3)).replica(active(0, pos(0, 3))));
  EXPECT_TRUE(judge(t.trace()).empty()) << "seed " << kSeed;
}

// A cached store's range checks the inner position, which the snapshot (merged) does not show.
TEST(FailureReasonCorrectTest, CachedRangeAllowsEitherWhenTheMergedPositionIsUpToTheBound) {
  TraceBuilder b = table(TopologyKind::SourceTable, KeyValueSupplier::kRocksDbTimestamped, true);
  b.add(b.range_query(0, 0, 3)
            .bound(pos(0, 3))
            .fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 1))
            .replica(active(0, pos(0, 3))));
  b.add(b.range_query(0, 0, 3)
            .bound(pos(0, 3))
            .ok_entries({}, pos(0, 3))
            .replica(active(0, pos(0, 3))));
  EXPECT_TRUE(judge(b.trace()).empty()) << "seed " << kSeed;
  // But a cached KeyQuery checks exactly the merged position.
  b.add(b.key_query(0, 1)
            .bound(pos(0, 3))
            .fail(FailureReason::NOT_UP_TO_BOUND)
            .replica(active(0, pos(0, 3))));
  EXPECT_EQ(judge(b.trace()).size(), 1u) << "seed " << kSeed;
}

// Which position bounds which level (2026-08-20 pin, docs/kafka-2026-08-20.md §3.7): a
// transactional active has staged {0=3} and committed {0=1}; a bound {0=3} is unmet under
// READ_COMMITTED (NOT_UP_TO_BOUND is Kafka's answer, a success is not) and met under
// READ_UNCOMMITTED (a success is Kafka's, NOT_UP_TO_BOUND is not). The run's default level decides
// for a query that sets none. A cached KeyQuery checks the cache's merge with the staged position
// under both levels (delta 8), and a store that is not transactional (no committed position) has
// one position for both.
TEST(FailureReasonCorrectTest, TheCommittedPositionBoundsReadCommittedOnATransactionalStore) {
  struct Case {
    std::optional<IsolationLevel> level;
    IsolationLevel default_level;
    bool caching;
    bool transactional;
    bool refused;
    size_t violations;
  };
  constexpr auto RC = IsolationLevel::READ_COMMITTED;
  constexpr auto RU = IsolationLevel::READ_UNCOMMITTED;
  for (const Case& c :
       {Case{RC, RU, false, true, true, 0}, Case{RC, RU, false, true, false, 1},
        Case{RU, RC, false, true, false, 0}, Case{RU, RC, false, true, true, 1},
        Case{std::nullopt, RC, false, true, true, 0}, Case{std::nullopt, RC, false, true, false, 1},
        Case{RC, RC, true, true, false, 0}, Case{RC, RC, true, true, true, 1},
        Case{RC, RC, false, false, false, 0}, Case{RC, RC, false, false, true, 1}}) {
    TraceBuilder b =
        table(TopologyKind::SourceTable, KeyValueSupplier::kRocksDbTimestamped, c.caching);
    b.trace().kafka_pin = KafkaPin::k2026_08_20;
    b.trace().default_iq_isolation_level = c.default_level;
    sim::ReplicaSnapshot replica = active(0, pos(0, 3));
    if (c.transactional) replica.committed_position = pos(0, 1);
    testing::Q q = b.key_query(0, 1).bound(pos(0, 3)).replica(replica);
    if (c.refused) {
      q.fail(FailureReason::NOT_UP_TO_BOUND, pos(0, 1));
    } else {
      q.ok(1, pos(0, 3));
    }
    q.r.request.isolation_level = c.level;
    b.add(q);
    const auto vs = judge(b.trace());
    EXPECT_EQ(vs.size(), c.violations)
        << "seed " << kSeed << " level " << (c.level ? to_string(*c.level) : "default")
        << " default " << to_string(c.default_level) << " caching " << c.caching
        << " transactional " << c.transactional << " refused " << c.refused << "\n"
        << text(vs);
  }
}

// Without withPartitions a query covers every local partition: entries exactly where the instance
// holds the store, NOT_ACTIVE for its standbys under requireActive.
TEST(FailureReasonCorrectTest, AllPartitionsRequests) {
  TraceBuilder b = table();
  b.add(b.key_query(0, 1)
            .all_partitions()
            .require_active()
            .ok(1, pos(0, 3))
            .fail(FailureReason::NOT_ACTIVE, std::nullopt, 1)
            .replica(active(0, pos(0, 3)))
            .replica(standby(1, pos(1, 0))));
  EXPECT_TRUE(judge(b.trace()).empty()) << "seed " << kSeed;

  TraceBuilder w = table();
  w.add(w.key_query(0, 1)
            .all_partitions()
            .ok(1, pos(0, 3))
            .fail(FailureReason::NOT_PRESENT, std::nullopt, 1)  // no entry is due for p1
            .replica(active(0, pos(0, 3)))
            .replica(no_task(1)));
  const auto vs = judge(w.trace());
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed << "\n" << text(vs);
  EXPECT_EQ(vs[0].expected, "no entry") << "seed " << kSeed;
}

TEST(FailureReasonCorrectTest, UnforeseeableStoreExceptionsAndUnreachedQueriesAreNotJudged) {
  TraceBuilder b = table(TopologyKind::SourceTable, KeyValueSupplier::kRocksDbTimestamped, true);
  b.add(
      b.key_query(0, 1).error(StreamsError::Kind::InvalidStateStore).replica(active(0, pos(0, 3))));
  b.add(b.key_query(0, 1).timed_out());
  JudgeContext context(b.trace());
  EXPECT_TRUE(check_failure_reason_correct(context).empty()) << "seed " << kSeed;
  EXPECT_EQ(context.tallies().at("FailureReasonCorrect").judged, 0u) << "seed " << kSeed;
  // A store exception where no store ran (NOT_ACTIVE was due) is wrong.
  b.add(b.key_query(0, 1)
            .require_active()
            .error(StreamsError::Kind::InvalidStateStore)
            .replica(standby(0, pos(0, 3))));
  EXPECT_EQ(judge(b.trace()).size(), 1u) << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
