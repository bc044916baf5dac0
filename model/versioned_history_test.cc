// VersionedHistory on hand-written histories: validity intervals, out-of-order records, the
// grace period, history retention for asOf and MultiVersionedKeyQuery, and Kafka's segment quirk.
#include "model/versioned_history.h"

#include <gtest/gtest.h>

#include "model/key_bytes.h"

namespace iq::model {
namespace {

const KeyBytes kA = serialize_int32_key(1);
const KeyBytes kB = serialize_int32_key(2);

SourceRecord put(int64_t offset, const KeyBytes& key, std::optional<int64_t> value, int64_t ts) {
  return SourceRecord{offset, key, value, ts, value ? WriteKind::kPut : WriteKind::kTombstone};
}

std::vector<Version> versions(const VersionedRange& r) {
  return r.versions;
}

// In-order puts: each version is valid until the next one; the latest has no validTo.
TEST(ModelVersionedHistoryTest, VersionsAreValidUntilTheNextOne) {
  VersionedHistory h(/*history_retention_ms=*/10'000, /*segment_interval_ms=*/1'000);
  h.apply(0, put(0, kA, 10, 1'000));
  h.apply(0, put(1, kA, 11, 2'000));
  h.apply(0, put(2, kA, 12, 3'000));
  EXPECT_EQ(h.get(0, kA, 2), (Version{12, 3'000, std::nullopt}));
  EXPECT_EQ(h.get(0, kA, 0), (Version{10, 1'000, std::nullopt}));
  EXPECT_EQ(h.get(0, kA, -1), std::nullopt);
  EXPECT_EQ(h.get_as_of(0, kA, 1'500, 2), (Version{10, 1'000, 2'000}));
  EXPECT_EQ(h.get_as_of(0, kA, 2'000, 2), (Version{11, 2'000, 3'000}));
  EXPECT_EQ(h.get_as_of(0, kA, 999, 2), std::nullopt);
  EXPECT_EQ(h.get_as_of(0, kA, 5'000, 2), (Version{12, 3'000, std::nullopt}));
  EXPECT_EQ(h.get(0, kB, 2), std::nullopt);
  EXPECT_EQ(h.stream_time(0, 1), 2'000);
}

// An out-of-order record within grace is inserted into the history, splitting the interval it
// falls in; the latest version stays the one with the largest timestamp.
TEST(ModelVersionedHistoryTest, OutOfOrderRecordsSplitAnInterval) {
  VersionedHistory h(10'000, 1'000);
  h.apply(0, put(0, kA, 10, 1'000));
  h.apply(0, put(1, kA, 12, 5'000));
  h.apply(0, put(2, kA, 11, 3'000));
  EXPECT_EQ(h.get(0, kA, 2), (Version{12, 5'000, std::nullopt}));
  EXPECT_EQ(h.get_as_of(0, kA, 2'000, 2), (Version{10, 1'000, 3'000}));
  EXPECT_EQ(h.get_as_of(0, kA, 4'000, 2), (Version{11, 3'000, 5'000}));
  // Before the out-of-order record arrived, 10 was valid up to 5000.
  EXPECT_EQ(h.get_as_of(0, kA, 4'000, 1), (Version{10, 1'000, 5'000}));
  // A record at an existing timestamp replaces that version.
  h.apply(0, put(3, kA, 99, 3'000));
  EXPECT_EQ(h.get_as_of(0, kA, 4'000, 3), (Version{99, 3'000, 5'000}));
}

// Tombstones end a version and answer null; they are never returned themselves.
TEST(ModelVersionedHistoryTest, TombstonesEndVersions) {
  VersionedHistory h(10'000, 1'000);
  h.apply(0, put(0, kA, 10, 1'000));
  h.apply(0, put(1, kA, std::nullopt, 2'000));
  EXPECT_EQ(h.get(0, kA, 1), std::nullopt);
  EXPECT_EQ(h.get_as_of(0, kA, 1'500, 1), (Version{10, 1'000, 2'000}));
  EXPECT_EQ(h.get_as_of(0, kA, 2'500, 1), std::nullopt);
  EXPECT_EQ(versions(h.get_range(0, kA, 0, 10'000, Order::kAny, 1)),
            (std::vector<Version>{{10, 1'000, 2'000}}));
  // An out-of-order value before the tombstone is valid up to it.
  h.apply(0, put(2, kA, 11, 1'500));
  EXPECT_EQ(h.get_as_of(0, kA, 1'700, 2), (Version{11, 1'500, 2'000}));
}

// The grace period is the history retention behind the partition's stream time, which every
// key's records advance; a record older than it is dropped and counted as such.
TEST(ModelVersionedHistoryTest, RecordsBeyondGraceAreDropped) {
  VersionedHistory h(1'000, 500);
  h.apply(0, put(0, kA, 10, 1'000));
  h.apply(0, put(1, kB, 20, 5'000));  // stream time 5000: grace starts at 4000
  h.apply(0, put(2, kA, 11, 3'999));  // dropped
  h.apply(0, put(3, kA, 12, 4'000));  // kept
  EXPECT_FALSE(h.grace_dropped(0, kA, 1));
  EXPECT_TRUE(h.grace_dropped(0, kA, 2));
  EXPECT_FALSE(h.grace_dropped(0, kB, 3));
  EXPECT_EQ(h.get(0, kA, 2), (Version{10, 1'000, std::nullopt}));
  EXPECT_EQ(h.get(0, kA, 3), (Version{12, 4'000, std::nullopt}));
  EXPECT_EQ(h.stream_time(0, 3), 5'000);
  // Other partitions keep their own stream time.
  h.apply(1, put(0, kA, 30, 100));
  EXPECT_EQ(h.stream_time(1, 0), 100);
  EXPECT_EQ(h.get(1, kA, 0), (Version{30, 100, std::nullopt}));
}

// asOf older than stream time minus history retention answers null, except from the latest
// version, which never expires.
TEST(ModelVersionedHistoryTest, AsOfBeyondHistoryRetention) {
  VersionedHistory h(1'000, 500);
  h.apply(0, put(0, kA, 10, 1'000));
  h.apply(0, put(1, kA, 11, 2'000));
  h.apply(0, put(2, kB, 20, 10'000));  // stream time 10000: history from 9000
  EXPECT_EQ(h.get_as_of(0, kA, 1'500, 1), (Version{10, 1'000, 2'000}));
  EXPECT_EQ(h.get_as_of(0, kA, 1'500, 2), std::nullopt);
  EXPECT_EQ(h.get_as_of(0, kA, 2'500, 2), (Version{11, 2'000, std::nullopt}));
  EXPECT_EQ(h.get_as_of(0, kA, 9'500, 2), (Version{11, 2'000, std::nullopt}));
}

// MultiVersionedKeyQuery: overlap with [from, to], order, the latest-only answer beyond history
// retention, segment expiry flagged uncertain, and quirk 16 (a version whose validTo lies in a
// later segment than toTime's is not found).
TEST(ModelVersionedHistoryTest, MultiVersionedRanges) {
  VersionedHistory h(100'000, 1'000);
  h.apply(0, put(0, kA, 10, 1'000));
  h.apply(0, put(1, kA, 11, 1'500));
  h.apply(0, put(2, kA, 12, 3'000));
  const Version v10{10, 1'000, 1'500};
  const Version v11{11, 1'500, 3'000};
  const Version v12{12, 3'000, std::nullopt};
  EXPECT_EQ(versions(h.get_range(0, kA, 0, 10'000, Order::kAny, 2)),
            (std::vector<Version>{v12, v11, v10}));
  EXPECT_EQ(versions(h.get_range(0, kA, 0, 10'000, Order::kAscending, 2)),
            (std::vector<Version>{v10, v11, v12}));
  EXPECT_EQ(versions(h.get_range(0, kA, 1'600, 10'000, Order::kDescending, 2)),
            (std::vector<Version>{v12, v11}));
  // validTo 1500 is in segment 1, validTo 3000 in segment 3: toTime 1200 finds v10 (v11 starts
  // later), and toTime 2000 (segment 2) misses v11, valid at 2000 but kept in segment 3 (quirk 16).
  EXPECT_EQ(versions(h.get_range(0, kA, 0, 1'200, Order::kAny, 2)), (std::vector<Version>{v10}));
  EXPECT_EQ(versions(h.get_range(0, kA, 0, 2'000, Order::kAny, 2)), (std::vector<Version>{v10}));
  EXPECT_FALSE(h.get_range(0, kA, 0, 2'000, Order::kAny, 2).uncertain);

  VersionedHistory e(1'000, 500);
  e.apply(0, put(0, kA, 10, 1'000));
  e.apply(0, put(1, kA, 11, 2'000));
  e.apply(0, put(2, kA, 12, 2'600));
  e.apply(0, put(3, kB, 20, 3'600));  // stream time 3600: history from 2600, segment 5 on
  // v11's validTo 2600 is in segment 5: live. v10's (2000, segment 4) has expired.
  const VersionedRange r = e.get_range(0, kA, 0, 10'000, Order::kAny, 3);
  EXPECT_EQ(r.versions, (std::vector<Version>{{12, 2'600, std::nullopt}, {11, 2'000, 2'600}}));
  EXPECT_TRUE(r.uncertain);
  // toTime beyond history retention: only the latest value, and only if it started by then.
  const VersionedRange old = e.get_range(0, kA, 0, 2'500, Order::kAny, 3);
  EXPECT_TRUE(old.versions.empty());
  EXPECT_TRUE(old.uncertain);
}

}  // namespace
}  // namespace iq::model
