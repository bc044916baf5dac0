// SessionHistory on hand-written histories, written from Kafka's main sources
// (KStreamSessionWindowAggregate, SessionWindows, InMemorySessionStore, RocksDBSessionStore over
// AbstractRocksDBSegmentedBytesStore): merges within the gap, grace, expiry, positions, order.
#include "model/session_history.h"

#include <gtest/gtest.h>

#include "model/key_bytes.h"

namespace iq::model {
namespace {

const KeyBytes kA = serialize_int32_key(1);
const KeyBytes kB = serialize_int32_key(2);

SourceRecord rec(int64_t offset, const KeyBytes& key, std::optional<int64_t> value, int64_t ts) {
  return SourceRecord{offset, key, value, ts, value ? WriteKind::kPut : WriteKind::kTombstone};
}

SessionSpec count(int64_t gap, int64_t grace, int64_t retention,
                  StoreBacking b = StoreBacking::kInMemory, int64_t segment = 1) {
  return SessionSpec{SessionAggregation::kCount, gap, grace, retention, b, segment, false};
}

using E = std::vector<SessionEntry>;

// Records within the gap of a session extend it; a record between two sessions within the gap
// of both merges them into one, whose count is the sum plus one.
TEST(ModelSessionHistoryTest, MergeWithinTheGap) {
  for (const StoreBacking b : {StoreBacking::kInMemory, StoreBacking::kSegmented}) {
    SessionHistory h(count(10, 100, 1'000, b, 500));
    h.apply(0, rec(0, kA, 1, 100));
    h.apply(0, rec(1, kA, 1, 105));  // within 10 of [100,100]
    h.apply(0, rec(2, kA, 1, 130));  // 25 after 105: a new session
    h.apply(0, rec(3, kB, 1, 101));
    EXPECT_EQ(h.fetch(0, kA, 2).entries, (E{{kA, 100, 105, 2}, {kA, 130, 130, 1}}));
    h.apply(0, rec(4, kA, 1, 121));  // 16 after 105, 9 before 130: joins the second
    EXPECT_EQ(h.fetch(0, kA, 4).entries, (E{{kA, 100, 105, 2}, {kA, 121, 130, 2}}));
    h.apply(0, rec(5, kA, 1, 112));  // 7 after 105, 9 before 121: merges everything
    EXPECT_EQ(h.fetch(0, kA, 5).entries, (E{{kA, 100, 130, 5}}));
    EXPECT_EQ(h.fetch(0, kB, 5).entries, (E{{kB, 101, 101, 1}}));
    // Answers at an earlier position are the earlier sessions.
    EXPECT_EQ(h.fetch(0, kA, 1).entries, (E{{kA, 100, 105, 2}}));
    EXPECT_TRUE(h.fetch(0, kA, -1).entries.empty());
    EXPECT_EQ(h.position_offset(0, 5), 5);
    EXPECT_EQ(h.store_stream_time(0, 5), 130);
  }
}

// Grace: a record whose merged session ends before stream time - grace - gap is skipped: nothing
// is written, the position stays. A restarted processor forgets its stream time.
TEST(ModelSessionHistoryTest, RecordsBeyondGraceAreSkipped) {
  SessionHistory h(count(10, 5, 1'000));
  h.apply(0, rec(0, kA, 1, 100));
  h.apply(0, rec(1, kB, 1, 86));  // close 100 - 5 - 10 = 85: lands
  h.apply(0, rec(2, kB, 1, 84));  // merges with [86,86]: end 86 >= 85, lands
  h.apply(0, rec(3, kA, 1, 70));  // [70,70]: 70 < 85, skipped
  EXPECT_EQ(h.fetch(0, kB, 3).entries, (E{{kB, 84, 86, 2}}));
  EXPECT_EQ(h.fetch(0, kA, 3).entries, (E{{kA, 100, 100, 1}}));
  EXPECT_TRUE(h.grace_dropped_at(0, 3));
  EXPECT_FALSE(h.grace_dropped_at(0, 2));
  EXPECT_EQ(h.position_offset(0, 3), 2);
  h.restart_processor(0);
  h.apply(0, rec(4, kA, 1, 70));
  EXPECT_EQ(h.fetch(0, kA, 4).entries, (E{{kA, 70, 70, 1}, {kA, 100, 100, 1}}));
}

// Retention by session end and the store's stream time (largest session end); the in-memory store
// runs the starts of one end descending (quirk 23), the segmented one ascending. With retention ==
// gap + grace, a merged session ending exactly at the close time passes the processor but the
// store drops it as expired, after the sessions it merged were removed.
TEST(ModelSessionHistoryTest, ExpiryOrderAndTheCloseTimeEdge) {
  for (const StoreBacking b : {StoreBacking::kInMemory, StoreBacking::kSegmented}) {
    SessionHistory h(SessionSpec{SessionAggregation::kLatest, 0, 0, 50, b, 1'000, false});
    h.put(0, 0, kA, 10, 20, 1);
    h.put(0, 1, kA, 15, 20, 2);
    h.put(0, 2, kA, 5, 30, 3);
    const E mem{{kA, 15, 20, 2}, {kA, 10, 20, 1}, {kA, 5, 30, 3}};
    const E seg{{kA, 10, 20, 1}, {kA, 15, 20, 2}, {kA, 5, 30, 3}};
    EXPECT_EQ(h.fetch(0, kA, 2).entries, b == StoreBacking::kInMemory ? mem : seg);
    h.put(0, 3, kB, 70, 70, 9);  // stream time 70, floor 20: ends 20 expire
    EXPECT_EQ(h.fetch(0, kA, 3).entries, (E{{kA, 5, 30, 3}}));
    EXPECT_EQ(h.fetch(0, kA, 3).uncertain, b == StoreBacking::kSegmented);
    h.remove(0, 4, kA, 5, 30);
    EXPECT_TRUE(h.fetch(0, kA, 4).entries.empty());
    EXPECT_EQ(h.position_offset(0, 4), 3);  // remove never updates the position
  }

  SessionHistory lost(count(10, 0, 10));
  lost.apply(0, rec(0, kA, 1, 100));
  lost.apply(0, rec(1, kB, 1, 82));  // close 90: skipped
  EXPECT_TRUE(lost.grace_dropped_at(0, 1));
  lost.apply(0, rec(2, kB, 1, 90));  // [90,90]: accepted (90 >= 90), expired at the store
  EXPECT_FALSE(lost.grace_dropped_at(0, 2));
  EXPECT_TRUE(lost.fetch(0, kB, 2).entries.empty());
  EXPECT_EQ(lost.position_offset(0, 2), 2);  // the in-memory store updates it anyway
}

// The segmented store drops a put into an expired segment without touching its position, and a
// remove raises its stream time; the PAPI writer writes [ts, ts] with the record's value.
TEST(ModelSessionHistoryTest, SegmentedExpiryAndPapiWriter) {
  SessionHistory h(
      SessionSpec{SessionAggregation::kLatest, 0, 0, 30, StoreBacking::kSegmented, 20, false});
  h.apply(0, rec(0, kA, 7, 100));
  h.apply(0, rec(1, kA, 8, 61));  // segment 3 >= segment(70) = 3: kept, hidden by the floor
  h.apply(0, rec(2, kA, 9, 50));  // segment 2: expired
  EXPECT_EQ(h.fetch(0, kA, 2).entries, (E{{kA, 100, 100, 7}}));
  EXPECT_TRUE(h.fetch(0, kA, 2).uncertain);
  EXPECT_EQ(h.position_offset(0, 2), 1);
  h.apply(0, rec(3, kA, std::nullopt, 100));  // a null value removes through put
  EXPECT_TRUE(h.fetch(0, kA, 3).entries.empty());
  EXPECT_EQ(h.position_offset(0, 3), 3);
  h.remove(0, 4, kB, 200, 200);
  EXPECT_EQ(h.store_stream_time(0, 4), 200);
}

// A session sum merges the sums of the sessions it joins and adds the value (a null one as 0).
TEST(ModelSessionHistoryTest, SessionSumMerges) {
  SessionHistory h(
      SessionSpec{SessionAggregation::kSum, 10, 0, 100, StoreBacking::kInMemory, 1, false});
  h.apply(0, rec(0, kA, 5, 100));
  h.apply(0, rec(1, kA, 7, 120));
  h.apply(0, rec(2, kA, std::nullopt, 125));
  EXPECT_EQ(h.fetch(0, kA, 2).entries, (E{{kA, 100, 100, 5}, {kA, 120, 125, 7}}));
  h.apply(0, rec(3, kA, 1, 110));  // joins both
  EXPECT_EQ(h.fetch(0, kA, 3).entries, (E{{kA, 100, 125, 13}}));
}

// CachingSessionStore.findSessions merges the record cache, which keeps flushed sessions with no
// retention floor: a late record merges with a session the store already expired (found by
// window_topology_properties against impl's caching layer, which follows Kafka's).
TEST(ModelSessionHistoryTest, CachedReadsMergeSessionsTheStoreExpired) {
  for (const bool cached : {false, true}) {
    SessionHistory h(
        SessionSpec{SessionAggregation::kCount, 60, 0, 60, StoreBacking::kInMemory, 1, cached});
    h.apply(0, rec(0, kA, 0, 0));
    h.apply(0, rec(1, kB, 0, 61));  // stream time 61: [0,0] of A expires (0 <= 61 - 60)
    h.apply(0, rec(2, kA, 0, 41));  // close 1: lands; merges [0,0] only through the cache
    EXPECT_EQ(h.fetch(0, kA, 2).entries, cached ? (E{{kA, 0, 41, 2}}) : (E{{kA, 41, 41, 1}}));
    // Kafka's cache evicts, so that merge is the cache's luck: it is marked, from its record on,
    // for its key only, and only where the cache is read.
    EXPECT_EQ(h.cache_only_merge_up_to(0, kA, 2), cached);
    EXPECT_FALSE(h.cache_only_merge_up_to(0, kA, 1));
    EXPECT_FALSE(h.cache_only_merge_up_to(0, kB, 2));
  }
}

TEST(ModelSessionHistoryDeathTest, MisuseAsserts) {
  SessionHistory h(count(10, 0, 10));
  EXPECT_DEATH(h.apply(0, rec(0, kA, 1, -5)), "negative timestamp");
  EXPECT_DEATH({ SessionHistory s(count(10, 5, 14)); }, "retention");
  EXPECT_DEATH(h.put(0, 0, kA, 5, 4, 1), "session");
}

}  // namespace
}  // namespace iq::model
