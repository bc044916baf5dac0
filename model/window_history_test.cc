// WindowHistory on hand-written histories, each written from Kafka's main sources
// (KStreamWindowAggregate, TimeWindows.windowsFor, InMemoryWindowStore,
// AbstractRocksDBSegmentedBytesStore, AbstractSegments): which windows a record lands in, grace,
// the retention floor, segment expiry, positions and the order of each query.
#include "model/window_history.h"

#include <gtest/gtest.h>

#include "model/key_bytes.h"

namespace iq::model {
namespace {

const KeyBytes kA = serialize_int32_key(1);
const KeyBytes kB = serialize_int32_key(2);

SourceRecord rec(int64_t offset, const KeyBytes& key, std::optional<int64_t> value, int64_t ts) {
  return SourceRecord{offset, key, value, ts, value ? WriteKind::kPut : WriteKind::kTombstone};
}

WindowSpec tumbling(WindowAggregation a, int64_t size, int64_t grace, int64_t retention,
                    StoreBacking backing = StoreBacking::kInMemory, int64_t segment = 1) {
  return WindowSpec{a, size, size, grace, retention, backing, segment, false};
}

std::vector<int64_t> starts(const WindowAnswer& a) {
  std::vector<int64_t> out;
  for (const WindowEntry& e : a.entries) out.push_back(e.window_start_ms);
  return out;
}

// A tumbling count: each record lands in [floor(ts / size) * size, + size); the aggregate's
// timestamp is the largest record timestamp in the window; answers depend on the offset.
TEST(ModelWindowHistoryTest, TumblingCountPerWindowAndOffset) {
  WindowHistory h(tumbling(WindowAggregation::kCount, 10, 100, 1'000));
  h.apply(0, rec(0, kA, 5, 3));
  h.apply(0, rec(1, kA, 5, 7));
  h.apply(0, rec(2, kA, 5, 12));
  h.apply(0, rec(3, kB, 5, 1));
  const WindowAnswer all = h.fetch(0, kA, 0, 100, 3);
  ASSERT_EQ(all.entries.size(), 2u);
  EXPECT_EQ(all.entries[0], (WindowEntry{kA, 0, 10, 2, 7}));
  EXPECT_EQ(all.entries[1], (WindowEntry{kA, 10, 20, 1, 12}));
  EXPECT_EQ(h.fetch(0, kA, 0, 100, 0).entries, (std::vector<WindowEntry>{{kA, 0, 10, 1, 3}}));
  EXPECT_TRUE(h.fetch(0, kA, 0, 100, -1).entries.empty());
  // The time range bounds window starts, inclusively.
  EXPECT_EQ(starts(h.fetch(0, kA, 10, 10, 3)), (std::vector<int64_t>{10}));
  EXPECT_EQ(starts(h.fetch(0, kA, 1, 9, 3)), (std::vector<int64_t>{}));
  EXPECT_EQ(h.position_offset(0, 3), 3);
  EXPECT_EQ(h.store_stream_time(0, 3), 10);
}

// Hopping windows: a record lands in every window [s, s + size) with s a multiple of the advance
// and s <= ts < s + size, but never in a window starting before 0.
TEST(ModelWindowHistoryTest, HoppingSumLandsInEveryCoveringWindow) {
  WindowSpec spec{WindowAggregation::kSum, 10, 4, 100, 1'000, StoreBacking::kInMemory, 1, false};
  WindowHistory h(spec);
  h.apply(0, rec(0, kA, 5, 13));  // windows starting at 4, 8, 12
  h.apply(0, rec(1, kA, 7, 2));   // 0 only (-4 and -8 do not exist)
  EXPECT_EQ(starts(h.fetch(0, kA, 0, 100, 1)), (std::vector<int64_t>{0, 4, 8, 12}));
  const WindowAnswer a = h.fetch(0, kA, 0, 100, 1);
  EXPECT_EQ(a.entries[0].value, 7);
  EXPECT_EQ(a.entries[1].value, 5);
  EXPECT_EQ(a.entries[3], (WindowEntry{kA, 12, 22, 5, 13}));
  // A null value adds 0 to a sum, but still lands and raises the timestamp.
  h.apply(0, rec(2, kA, std::nullopt, 14));
  EXPECT_EQ(h.fetch(0, kA, 12, 12, 2).entries, (std::vector<WindowEntry>{{kA, 12, 22, 5, 14}}));
}

// Grace: a window is updated while its end > stream time - grace; a record for a closed window
// is skipped and changes neither the store nor its position. A record may still land in the
// later hopping windows that are open.
TEST(ModelWindowHistoryTest, RecordsBeyondGraceAreSkipped) {
  WindowHistory h(tumbling(WindowAggregation::kCount, 10, 5, 1'000));
  h.apply(0, rec(0, kA, 1, 3));
  h.apply(0, rec(1, kA, 1, 14));  // stream time 14: [0,10) open while 10 > 14 - 5
  h.apply(0, rec(2, kA, 1, 4));   // late, within grace
  h.apply(0, rec(3, kB, 1, 15));  // stream time 15: [0,10) closes (10 > 10 is false)
  h.apply(0, rec(4, kA, 1, 5));   // beyond grace
  EXPECT_FALSE(h.grace_dropped_at(0, 2));
  EXPECT_TRUE(h.grace_dropped_at(0, 4));
  EXPECT_EQ(h.fetch(0, kA, 0, 0, 4).entries, (std::vector<WindowEntry>{{kA, 0, 10, 2, 4}}));
  EXPECT_EQ(h.position_offset(0, 4), 3);
  // A restarted processor forgets its stream time, so the same late record now lands.
  h.restart_processor(0);
  h.apply(0, rec(5, kA, 1, 5));
  EXPECT_EQ(h.fetch(0, kA, 0, 0, 5).entries, (std::vector<WindowEntry>{{kA, 0, 10, 3, 5}}));
  EXPECT_EQ(h.position_offset(0, 5), 5);

  WindowSpec hopping{WindowAggregation::kCount, 10, 5, 0, 1'000, StoreBacking::kInMemory, 1, false};
  WindowHistory g(hopping);
  g.apply(0, rec(0, kA, 1, 20));
  g.apply(0, rec(1, kA, 1, 12));  // [5,15) closed (15 <= 20), [10,20) closed, nothing lands
  g.apply(0, rec(2, kA, 1, 16));  // [10,20) closed, [15,25) open
  EXPECT_TRUE(g.grace_dropped_at(0, 1));
  EXPECT_TRUE(g.grace_dropped_at(0, 2));
  EXPECT_EQ(starts(g.fetch(0, kA, 0, 100, 2)), (std::vector<int64_t>{15, 20}));
  EXPECT_EQ(g.fetch(0, kA, 15, 15, 2).entries[0].value, 2);
  EXPECT_EQ(g.position_offset(0, 1), 0);
}

// Retention: both stores show windows with start > stream time - retention, where the store's
// stream time is the largest window start it was given, not the largest record timestamp.
TEST(ModelWindowHistoryTest, RetentionFloorFollowsTheStoresStreamTime) {
  for (const StoreBacking b : {StoreBacking::kInMemory, StoreBacking::kSegmented}) {
    WindowHistory h(tumbling(WindowAggregation::kCount, 10, 0, 20, b, 100));
    h.apply(0, rec(0, kA, 1, 5));   // window 0
    h.apply(0, rec(1, kA, 1, 19));  // window 10; stream time 10
    h.apply(0, rec(2, kA, 1, 29));  // window 20; floor 0: window 0 gone
    EXPECT_EQ(starts(h.fetch(0, kA, 0, 100, 1)), (std::vector<int64_t>{0, 10}));
    EXPECT_EQ(starts(h.fetch(0, kA, 0, 100, 2)), (std::vector<int64_t>{10, 20}));
    EXPECT_EQ(h.store_stream_time(0, 2), 20);
    // The segmented store keeps window 0 in its live segment 0 (segments of 100 ms): a store
    // reopened with a lower stream time could still show it.
    EXPECT_EQ(h.fetch(0, kA, 0, 100, 2).uncertain, b == StoreBacking::kSegmented);
  }
}

// The PAPI writer with a short retention: a put beyond retention is dropped by the store. The
// in-memory store still updates its position; the segmented one keeps a put into a live
// segment (hidden by the floor, with the position updated) and drops one into an expired
// segment without touching the position (quirk 20).
TEST(ModelWindowHistoryTest, ExpiredPutsAndPositionsPerStoreKind) {
  const WindowSpec mem{WindowAggregation::kLatest, 10, 10,   0, 30,
                       StoreBacking::kInMemory,    1,  false};
  WindowSpec seg = mem;
  seg.backing = StoreBacking::kSegmented;
  seg.segment_interval_ms = 20;
  WindowHistory m(mem), s(seg);
  for (WindowHistory* h : {&m, &s}) {
    h->apply(0, rec(0, kA, 1, 100));  // window 100: floor 70
    h->apply(0, rec(1, kA, 2, 75));   // window 70: expired (70 <= 70); segment 3 < 70/20 = 3? no
    h->apply(0, rec(2, kA, 3, 41));   // window 40: segment 2 < 3, expired everywhere
    EXPECT_EQ(starts(h->fetch(0, kA, 0, 200, 2)), (std::vector<int64_t>{100}));
  }
  EXPECT_EQ(m.position_offset(0, 2), 2);
  EXPECT_EQ(s.position_offset(0, 2), 1);  // offset 1 went into live segment 3; 2 did not
  EXPECT_FALSE(m.fetch(0, kA, 0, 200, 2).uncertain);
  EXPECT_TRUE(s.fetch(0, kA, 0, 200, 2).uncertain);
}

// The PAPI writer's latest value per (key, window), deletes, and retainDuplicates: every put is
// kept with a fresh sequence number, a null put deletes nothing, and the RocksDB store skips a
// null put entirely (no position) while the in-memory one updates its position.
TEST(ModelWindowHistoryTest, LatestValueAndDuplicates) {
  WindowHistory h(
      WindowSpec{WindowAggregation::kLatest, 10, 10, 0, 100, StoreBacking::kInMemory, 1, false});
  h.apply(0, rec(0, kA, 1, 3));
  h.apply(0, rec(1, kA, 2, 4));
  EXPECT_EQ(h.fetch(0, kA, 0, 0, 1).entries, (std::vector<WindowEntry>{{kA, 0, 10, 2, 4}}));
  h.apply(0, rec(2, kA, std::nullopt, 5));
  EXPECT_TRUE(h.fetch(0, kA, 0, 0, 2).entries.empty());

  for (const StoreBacking b : {StoreBacking::kInMemory, StoreBacking::kSegmented}) {
    WindowHistory d(WindowSpec{WindowAggregation::kLatest, 10, 10, 0, 100, b, 50, true});
    d.apply(0, rec(0, kA, 1, 3));
    d.apply(0, rec(1, kA, 2, 4));
    d.apply(0, rec(2, kA, std::nullopt, 5));
    const WindowAnswer a = d.fetch(0, kA, 0, 0, 2);
    ASSERT_EQ(a.entries.size(), 2u);
    EXPECT_EQ(a.entries[0].value, 1);
    EXPECT_EQ(a.entries[1].value, 2);
    EXPECT_EQ(d.position_offset(0, 2), b == StoreBacking::kInMemory ? 2 : 1);
  }
}

// fetchAll's order: the in-memory store by window start then key; the segmented store segment by
// segment, and inside a segment by key, then start.
TEST(ModelWindowHistoryTest, FetchAllOrderPerStoreKind) {
  const auto keys_and_starts = [](const WindowAnswer& a) {
    std::vector<std::pair<int32_t, int64_t>> out;
    for (const WindowEntry& e : a.entries)
      out.emplace_back(deserialize_int32_key(e.key), e.window_start_ms);
    return out;
  };
  for (const StoreBacking b : {StoreBacking::kInMemory, StoreBacking::kSegmented}) {
    WindowHistory h(tumbling(WindowAggregation::kCount, 10, 0, 1'000, b, 100));
    h.apply(0, rec(0, kB, 1, 5));
    h.apply(0, rec(1, kA, 1, 15));
    h.apply(0, rec(2, kB, 1, 25));
    h.apply(0, rec(3, kA, 1, 105));
    using V = std::vector<std::pair<int32_t, int64_t>>;
    if (b == StoreBacking::kInMemory) {
      EXPECT_EQ(keys_and_starts(h.fetch_all(0, 0, 200, 3)),
                (V{{2, 0}, {1, 10}, {2, 20}, {1, 100}}));
    } else {
      EXPECT_EQ(keys_and_starts(h.fetch_all(0, 0, 200, 3)),
                (V{{1, 10}, {2, 0}, {2, 20}, {1, 100}}));
    }
    EXPECT_EQ(keys_and_starts(h.fetch_all(0, 10, 20, 3)).size(), 2u);
  }
}

// A segmented store reopened forgets its stream time: a window the floor hid shows again while its
// segment lives, but a segment once dropped by cleanupExpiredSegments stays gone.
TEST(ModelWindowHistoryTest, ReopenedSegmentedStoreShowsHiddenWindowsOfLiveSegments) {
  WindowHistory h(
      WindowSpec{WindowAggregation::kLatest, 10, 10, 0, 30, StoreBacking::kSegmented, 20, false});
  h.put(0, 0, kA, 1, 5, 0);    // segment 0
  h.put(0, 1, kA, 2, 45, 40);  // stream time 40: floor 10 hides 0; live from segment 0
  EXPECT_EQ(starts(h.fetch(0, kA, 0, 100, 1)), (std::vector<int64_t>{40}));
  h.reopen_store(0, 2, -1);
  EXPECT_EQ(starts(h.fetch(0, kA, 0, 100, 2)), (std::vector<int64_t>{0, 40}));
  EXPECT_EQ(h.store_stream_time(0, 2), -1);
  h.put(0, 3, kB, 3, 65, 60);  // stream time 60: live from segment 1, segment 0 dropped
  h.reopen_store(0, 4, -1);
  EXPECT_EQ(starts(h.fetch(0, kA, 0, 100, 4)), (std::vector<int64_t>{40}));
  EXPECT_EQ(h.position_offset(0, 4), 3);
  // A put into the dropped segment after the reopen creates it again.
  h.put(0, 5, kA, 4, 5, 0);
  EXPECT_EQ(starts(h.fetch(0, kA, 0, 100, 5)), (std::vector<int64_t>{0, 40}));
}

// RocksDBWindowStore numbers duplicates with a counter of the store object, for every non-null
// put (expired ones too): a reopened store counts from 0 again, so its next duplicates overwrite
// the ones that had the same numbers.
TEST(ModelWindowHistoryTest, ReopenedRocksDbDuplicatesOverwriteBySequenceNumber) {
  WindowHistory h(
      WindowSpec{WindowAggregation::kLatest, 10, 10, 0, 30, StoreBacking::kSegmented, 20, true});
  h.put(0, 0, kA, 1, 5, 0);  // seqnum 1
  h.put(0, 1, kA, 2, 5, 0);  // seqnum 2
  h.reopen_store(0, 2, -1);
  h.put(0, 3, kA, 3, 5, 0);  // seqnum 1 again: replaces 1
  const WindowAnswer a = h.fetch(0, kA, 0, 0, 3);
  ASSERT_EQ(a.entries.size(), 2u);
  EXPECT_EQ(a.entries[0].value, 3);
  EXPECT_EQ(a.entries[1].value, 2);
}

// A RocksDB store's restore writes each changelog record under the sequence number its key
// holds and leaves the store's own counter alone: a restored window's duplicates keep the
// writer's numbers, the store's first own put takes 1 (sorting before them, or replacing the one
// numbered 1), and a restored null deletes exactly its own key, duplicates or not.
TEST(ModelWindowHistoryTest, RestoredRocksDbDuplicatesKeepTheirLoggedSequenceNumbers) {
  WindowHistory h(
      WindowSpec{WindowAggregation::kLatest, 10, 10, 0, 30, StoreBacking::kSegmented, 20, true});
  h.restore_put(0, 0, kA, 1, 5, 0, 4);
  h.restore_put(0, 1, kA, 2, 6, 0, 5);
  h.restore_put(0, 2, kA, 3, 7, 0, 6);
  h.restore_put(0, 3, kA, std::nullopt, 7, 0, 5);  // deletes seqnum 5 only
  h.put(0, 4, kA, 9, 8, 0);                        // the store's own seqnum 1
  const WindowAnswer a = h.fetch(0, kA, 0, 0, 4);
  std::vector<int64_t> values;
  for (const WindowEntry& e : a.entries) values.push_back(e.value);
  EXPECT_EQ(values, (std::vector<int64_t>{9, 1, 3}));
  EXPECT_EQ(h.position_offset(0, 4), 4);
  h.restore_put(0, 5, kA, 7, 9, 0, 1);  // a restored seqnum 1 replaces the own put's entry
  values.clear();
  for (const WindowEntry& e : h.fetch(0, kA, 0, 0, 5).entries) values.push_back(e.value);
  EXPECT_EQ(values, (std::vector<int64_t>{7, 1, 3}));
}

// Misuse trips an assertion: negative timestamps, a retention below
// size + grace for the DSL, offsets going backwards.
TEST(ModelWindowHistoryDeathTest, MisuseAsserts) {
  WindowHistory h(tumbling(WindowAggregation::kSum, 10, 0, 100));
  EXPECT_DEATH(h.apply(0, rec(0, kA, 1, -1)), "negative timestamp");
  EXPECT_DEATH({ WindowHistory w(tumbling(WindowAggregation::kCount, 10, 5, 14)); }, "retention");
  h.apply(0, rec(3, kA, 1, 1));
  EXPECT_DEATH(h.apply(0, rec(2, kA, 1, 1)), "offset 2 after 3");
}

}  // namespace
}  // namespace iq::model
