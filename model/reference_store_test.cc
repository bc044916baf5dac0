// Unit tests of the key order, ReferenceHistory and ReferenceStore on tiny hand-written histories.
#include "model/reference_store.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "model/key_bytes.h"
#include "model/reference_history.h"

namespace iq::model {
namespace {

using VT = ValueAndTimestamp;
constexpr int32_t kP = 0;

KeyBytes k(int32_t key) {
  return serialize_int32_key(key);
}

SourceRecord put(int64_t offset, int32_t key, std::optional<int64_t> value, int64_t ts) {
  return {offset, k(key), value, ts, WriteKind::kPut};
}
SourceRecord tombstone(int64_t offset, int32_t key, int64_t ts) {
  return {offset, k(key), std::nullopt, ts, WriteKind::kTombstone};
}
SourceRecord del(int64_t offset, int32_t key, int64_t ts) {
  return {offset, k(key), std::nullopt, ts, WriteKind::kDelete};
}

ReferenceStore store_of(Aggregation aggregation, const std::vector<SourceRecord>& records) {
  ReferenceHistory history;
  for (const SourceRecord& record : records) history.append(kP, record);
  return ReferenceStore(history, aggregation);
}

// The keys of a range answer, decoded, so expectations read as numbers.
std::vector<int32_t> keys_of(const std::vector<Entry>& entries) {
  std::vector<int32_t> keys;
  for (const Entry& entry : entries) keys.push_back(deserialize_int32_key(entry.key));
  return keys;
}

// ---- Key bytes -------------------------------------------------------------------------------

TEST(KeyBytes, NegativeInt32KeysSortAfterNonNegativeOnes) {
  // Proves big-endian two's complement puts -1 (0xffffffff) after 5 and INT32_MAX, as in Kafka.
  EXPECT_GT(compare_key_bytes(k(-1), k(5)), 0);
  EXPECT_GT(compare_key_bytes(k(INT32_MIN), k(INT32_MAX)), 0);
  EXPECT_LT(compare_key_bytes(k(INT32_MIN), k(-1)), 0);
  EXPECT_LT(compare_key_bytes(k(0), k(1)), 0);
}

TEST(KeyBytes, ComparisonIsUnsignedLexicographicWithPrefixFirst) {
  // Proves bytes >= 0x80 sort after 0x7f and a key sorts before every longer key it prefixes.
  EXPECT_GT(compare_key_bytes("\x80", "\x7f"), 0);
  EXPECT_LT(compare_key_bytes("a", "ab"), 0);
  EXPECT_LT(compare_key_bytes("", std::string(1, '\0')), 0);
  EXPECT_EQ(compare_key_bytes("ab", "ab"), 0);
  EXPECT_TRUE(KeyBytesLess{}("\x01", "\xff"));
}

TEST(KeyBytes, FourByteKeysCompareAsTheGeneralByteOrderDoes) {
  // Proves the inline 4-byte path orders exactly as the byte-by-byte comparison: every pair of a
  // spread of int32 keys (signs, byte boundaries, high bits in every byte), and 4-byte keys
  // against longer and shorter ones, which take the general path.
  const std::vector<int32_t> keys = {INT32_MIN,  -65536,     -256,     -129,    -128,     -2,
                                     -1,         0,          1,        127,     128,      255,
                                     256,        0x7f00,     0x8000,   0x10000, 0x7fffff, 0x800000,
                                     0x01000000, 0x7f7f7f7f, INT32_MAX};
  const auto sign = [](int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); };
  for (int32_t a : keys) {
    for (int32_t b : keys) {
      EXPECT_EQ(sign(compare_key_bytes(k(a), k(b))), sign(compare_key_bytes_general(k(a), k(b))))
          << a << " vs " << b;
    }
    EXPECT_LT(compare_key_bytes(k(a), k(a) + "x"), 0) << a;
    EXPECT_GT(compare_key_bytes(k(a), k(a).substr(0, 3)), 0) << a;
  }
}

TEST(KeyBytes, Int32KeysAreFourBigEndianBytesAndRoundTrip) {
  // Proves the serialized form is Kafka's IntegerSerializer layout and decodes back.
  EXPECT_EQ(serialize_int32_key(0x01020304), std::string("\x01\x02\x03\x04", 4));
  EXPECT_EQ(key_to_hex(k(-2)), "0xfffffffe");
  for (int32_t key : {0, 1, -1, 255, 256, INT32_MIN, INT32_MAX}) {
    EXPECT_EQ(deserialize_int32_key(k(key)), key);
  }
}

// ---- ReferenceHistory ------------------------------------------------------------------------

TEST(ReferenceHistory, KeepsRecordsPerPartitionInAppendOrder) {
  // Proves records are kept per partition, equal offsets allowed, end offsets -1 when empty.
  ReferenceHistory history;
  history.append(1, put(0, 7, 70, 10));
  history.append(0, put(0, 1, 10, 10));
  history.append(0, put(0, 2, 20, 10));
  history.append(0, put(3, 1, 11, 20));
  EXPECT_EQ(history.partitions(), (std::vector<int32_t>{0, 1}));
  ASSERT_EQ(history.records(0).size(), 3u);
  EXPECT_EQ(history.records(0)[1].key, k(2));
  EXPECT_EQ(history.end_offset(0), 3);
  EXPECT_EQ(history.end_offset(1), 0);
  EXPECT_EQ(history.end_offset(2), -1);
  EXPECT_TRUE(history.records(2).empty());
  EXPECT_EQ(history.size(), 4);
}

TEST(ReferenceHistory, RejectsMisuseWithAnAssertion) {
  // Proves a decreasing offset, a full history and a removal with a value are programmer errors.
  EXPECT_DEATH(
      {
        ReferenceHistory history;
        history.append(0, put(5, 1, 1, 0));
        history.append(0, put(4, 1, 1, 0));
      },
      "offset=4 after offset=5");
  EXPECT_DEATH(
      {
        ReferenceHistory history(1);
        history.append(0, put(0, 1, 1, 0));
        history.append(0, put(1, 1, 1, 0));
      },
      "history is full");
  EXPECT_DEATH(
      {
        ReferenceHistory history;
        history.append(0, SourceRecord{0, k(1), 5, 0, WriteKind::kDelete});
      },
      "carries no value");
}

// ---- Aggregations ----------------------------------------------------------------------------

TEST(LatestStore, PutsTombstonesAndDeletesAnsweredAtEveryOffset) {
  // Proves kLatest keeps the newest value with its own timestamp and forgets removed keys.
  const ReferenceStore store = store_of(Aggregation::kLatest, {
                                                                  put(0, 1, 10, 100),
                                                                  put(1, 2, 20, 110),
                                                                  put(2, 1, 11, 90),
                                                                  tombstone(3, 1, 120),
                                                                  put(4, 1, 12, 130),
                                                                  del(5, 2, 140),
                                                                  put(6, 2, std::nullopt, 150),
                                                              });
  using O = std::optional<VT>;
  const std::vector<O> key1 = {std::nullopt, VT{10, 100}, VT{10, 100}, VT{11, 90},
                               std::nullopt, VT{12, 130}, VT{12, 130}, VT{12, 130}};
  const std::vector<O> key2 = {std::nullopt, std::nullopt, VT{20, 110},  VT{20, 110},
                               VT{20, 110},  VT{20, 110},  std::nullopt, std::nullopt};
  for (int64_t offset = -1; offset <= 6; ++offset) {
    const auto i = static_cast<size_t>(offset + 1);
    EXPECT_EQ(store.get(kP, k(1), offset), key1[i]) << "offset " << offset;
    EXPECT_EQ(store.get(kP, k(2), offset), key2[i]) << "offset " << offset;
  }
}

TEST(LatestStore, PutWithNullValueRemovesLikeATombstone) {
  // Proves a kPut without a value is a tombstone: the key disappears and the record writes.
  const ReferenceStore store =
      store_of(Aggregation::kLatest, {put(0, 1, 10, 100), put(1, 1, std::nullopt, 110)});
  EXPECT_EQ(store.get(kP, k(1), 0), (VT{10, 100}));
  EXPECT_EQ(store.get(kP, k(1), 1), std::nullopt);
  EXPECT_EQ(store.last_write_offset(kP, 1), 1);
}

TEST(CountStore, SkipsNullValuesAndKeepsTheMaxTimestamp) {
  // Proves count starts at 1, ignores null-valued records and keeps the newest timestamp seen.
  const ReferenceStore store = store_of(Aggregation::kCount, {
                                                                 put(0, 1, 7, 100),
                                                                 put(1, 1, std::nullopt, 500),
                                                                 put(2, 1, 7, 50),
                                                                 put(3, 1, 9, 300),
                                                                 put(4, 2, std::nullopt, 10),
                                                             });
  using O = std::optional<VT>;
  const std::vector<O> key1 = {std::nullopt, VT{1, 100}, VT{1, 100},
                               VT{2, 100},   VT{3, 300}, VT{3, 300}};
  for (int64_t offset = -1; offset <= 4; ++offset) {
    EXPECT_EQ(store.get(kP, k(1), offset), key1[static_cast<size_t>(offset + 1)])
        << "offset " << offset;
    EXPECT_EQ(store.get(kP, k(2), offset), std::nullopt) << "offset " << offset;
  }
}

TEST(CountStore, RemovalDeletesTheKeyAndCountingRestartsAtOne) {
  // Proves a delete or tombstone in an aggregation store removes the aggregate entirely.
  const ReferenceStore store = store_of(Aggregation::kCount, {
                                                                 put(0, 1, 1, 100),
                                                                 put(1, 1, 1, 200),
                                                                 del(2, 1, 300),
                                                                 put(3, 1, 1, 150),
                                                                 tombstone(4, 1, 400),
                                                             });
  EXPECT_EQ(store.get(kP, k(1), 1), (VT{2, 200}));
  EXPECT_EQ(store.get(kP, k(1), 2), std::nullopt);
  EXPECT_EQ(store.get(kP, k(1), 3), (VT{1, 150}));
  EXPECT_EQ(store.get(kP, k(1), 4), std::nullopt);
}

TEST(SumStore, AddsValuesFromZeroWithTheMaxTimestamp) {
  // Proves sum starts from the initializer 0, adds negatives too and skips null values.
  const ReferenceStore store = store_of(Aggregation::kSum, {
                                                               put(0, 1, 5, 100),
                                                               put(1, 2, -3, 90),
                                                               put(2, 1, std::nullopt, 999),
                                                               put(3, 1, -8, 80),
                                                               put(4, 1, 4, 120),
                                                           });
  using O = std::optional<VT>;
  const std::vector<O> key1 = {std::nullopt, VT{5, 100},  VT{5, 100},
                               VT{5, 100},   VT{-3, 100}, VT{1, 120}};
  for (int64_t offset = -1; offset <= 4; ++offset) {
    EXPECT_EQ(store.get(kP, k(1), offset), key1[static_cast<size_t>(offset + 1)])
        << "offset " << offset;
  }
  EXPECT_EQ(store.get(kP, k(2), 4), (VT{-3, 90}));
}

TEST(SumStore, TimestampAfterReloadIsAMaximumOfTheRecordsFromSomeRecordOn) {
  // Proves the timestamps a cached aggregate over Kafka's -1 adapter may carry (seed 26 of
  // templates/default.toml): the maximum from any record of the key on, stopping at a removal;
  // a KTable source only ever carries its last record's timestamp.
  const std::vector<SourceRecord> records = {
      put(0, 1, 5, 400), put(1, 1, 1, 100), put(2, 1, 0, 300), put(3, 1, 2, 200),
      del(4, 1, 900),    put(5, 1, 1, 50),  put(6, 1, 1, 60),
  };
  const ReferenceStore sum = store_of(Aggregation::kSum, records);
  EXPECT_EQ(sum.get(kP, k(1), 3), (VT{8, 400}));
  for (const int64_t ts : {400, 300, 200}) {
    EXPECT_TRUE(sum.timestamp_after_reload_possible(kP, k(1), 3, ts)) << ts;
  }
  for (const int64_t ts : {100, 250, 500, -1}) {
    EXPECT_FALSE(sum.timestamp_after_reload_possible(kP, k(1), 3, ts)) << ts;
  }
  EXPECT_TRUE(sum.timestamp_after_reload_possible(kP, k(1), 2, 300));
  EXPECT_FALSE(sum.timestamp_after_reload_possible(kP, k(1), 2, 200));  // offset 3 not yet
  EXPECT_FALSE(sum.timestamp_after_reload_possible(kP, k(1), 4, 900));  // removed
  EXPECT_TRUE(sum.timestamp_after_reload_possible(kP, k(1), 6, 60));
  EXPECT_FALSE(sum.timestamp_after_reload_possible(kP, k(1), 6, 400));  // before the removal
  const ReferenceStore latest = store_of(Aggregation::kLatest, records);
  EXPECT_TRUE(latest.timestamp_after_reload_possible(kP, k(1), 3, 200));
  EXPECT_FALSE(latest.timestamp_after_reload_possible(kP, k(1), 3, 300));
}

TEST(ReferenceStore, AllRecordsSharingAnOffsetAreAppliedInAppendOrder) {
  // Proves a putAll under one record context is visible all at once and in order.
  const ReferenceStore latest = store_of(Aggregation::kLatest, {
                                                                   put(0, 9, 90, 10),
                                                                   put(3, 1, 1, 20),
                                                                   put(3, 2, 2, 20),
                                                                   put(3, 1, 5, 20),
                                                                   tombstone(3, 9, 20),
                                                               });
  EXPECT_EQ(latest.get(kP, k(1), 2), std::nullopt);
  EXPECT_EQ(latest.get(kP, k(9), 2), (VT{90, 10}));
  EXPECT_EQ(latest.get(kP, k(1), 3), (VT{5, 20}));
  EXPECT_EQ(latest.get(kP, k(2), 3), (VT{2, 20}));
  EXPECT_EQ(latest.get(kP, k(9), 3), std::nullopt);
  EXPECT_EQ(keys_of(latest.range(kP, std::nullopt, std::nullopt, Order::kAny, 3)),
            (std::vector<int32_t>{1, 2}));

  const ReferenceStore count =
      store_of(Aggregation::kCount, {put(4, 1, 1, 30), put(4, 1, 1, 10), put(4, 1, 1, 20)});
  EXPECT_EQ(count.get(kP, k(1), 3), std::nullopt);
  EXPECT_EQ(count.get(kP, k(1), 4), (VT{3, 30}));
}

// ---- Range -----------------------------------------------------------------------------------

// Keys 1..5 at offsets 0..4 with value 10*key, then key 2 removed at offset 5.
ReferenceStore five_keys() {
  return store_of(Aggregation::kLatest, {put(0, 1, 10, 1), put(1, 2, 20, 2), put(2, 3, 30, 3),
                                         put(3, 4, 40, 4), put(4, 5, 50, 5), tombstone(5, 2, 6)});
}

TEST(Range, BothBoundsAreInclusive) {
  // Proves [2,4] returns keys 2, 3 and 4, and a one-key range returns that key.
  const ReferenceStore store = five_keys();
  const std::vector<Entry> entries = store.range(kP, k(2), k(4), Order::kAscending, 4);
  EXPECT_EQ(keys_of(entries), (std::vector<int32_t>{2, 3, 4}));
  EXPECT_EQ(entries.front(), (Entry{k(2), VT{20, 2}}));
  EXPECT_EQ(keys_of(store.range(kP, k(3), k(3), Order::kAscending, 4)), (std::vector<int32_t>{3}));
}

TEST(Range, OpenBoundsReachTheEndsOfTheKeySpace) {
  // Proves a missing lower or upper bound is open on that side.
  const ReferenceStore store = five_keys();
  EXPECT_EQ(keys_of(store.range(kP, std::nullopt, k(2), Order::kAscending, 4)),
            (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(keys_of(store.range(kP, k(4), std::nullopt, Order::kAscending, 4)),
            (std::vector<int32_t>{4, 5}));
  EXPECT_EQ(keys_of(store.range(kP, std::nullopt, std::nullopt, Order::kAscending, 4)),
            (std::vector<int32_t>{1, 2, 3, 4, 5}));
}

TEST(Range, LowerAboveUpperIsEmpty) {
  // Proves reversed bounds give an empty answer, as Kafka's stores return an empty iterator.
  const ReferenceStore store = five_keys();
  EXPECT_TRUE(store.range(kP, k(4), k(2), Order::kAscending, 4).empty());
  EXPECT_TRUE(store.range(kP, k(4), k(2), Order::kDescending, 4).empty());
}

TEST(Range, DescendingReversesAndAnyIsAscending) {
  // Proves kDescending returns keys high to low and kAny is answered ascending.
  const ReferenceStore store = five_keys();
  EXPECT_EQ(keys_of(store.range(kP, k(2), k(4), Order::kDescending, 4)),
            (std::vector<int32_t>{4, 3, 2}));
  EXPECT_EQ(store.range(kP, std::nullopt, std::nullopt, Order::kAny, 4),
            store.range(kP, std::nullopt, std::nullopt, Order::kAscending, 4));
  EXPECT_EQ(keys_of(store.range(kP, std::nullopt, std::nullopt, Order::kDescending, 4)),
            (std::vector<int32_t>{5, 4, 3, 2, 1}));
}

TEST(Range, SeesOnlyRecordsUpToTheOffset) {
  // Proves a range at an offset omits later keys and keys removed by then, at every offset.
  const ReferenceStore store = five_keys();
  const std::vector<std::vector<int32_t>> expected = {
      {}, {1}, {1, 2}, {1, 2, 3}, {1, 2, 3, 4}, {1, 2, 3, 4, 5}, {1, 3, 4, 5}};
  for (int64_t offset = -1; offset <= 5; ++offset) {
    EXPECT_EQ(keys_of(store.range(kP, std::nullopt, std::nullopt, Order::kAny, offset)),
              expected[static_cast<size_t>(offset + 1)])
        << "offset " << offset;
  }
}

TEST(Range, OrdersNegativeKeysAfterPositiveOnes) {
  // Proves ranges follow byte order: -1 comes after 5, and [-1, 5] is reversed hence empty.
  const ReferenceStore store = store_of(
      Aggregation::kLatest, {put(0, -1, 1, 1), put(1, 5, 2, 2), put(2, 0, 3, 3), put(3, -7, 4, 4)});
  EXPECT_EQ(keys_of(store.range(kP, std::nullopt, std::nullopt, Order::kAscending, 3)),
            (std::vector<int32_t>{0, 5, -7, -1}));
  EXPECT_EQ(keys_of(store.range(kP, k(5), k(-1), Order::kAscending, 3)),
            (std::vector<int32_t>{5, -7, -1}));
  EXPECT_TRUE(store.range(kP, k(-1), k(5), Order::kAscending, 3).empty());
}

// ---- Positions -------------------------------------------------------------------------------

TEST(LastWriteOffset, SkippedAggregationRecordsDoNotAdvanceIt) {
  // Proves null-valued records skipped by count leave the last write offset where it was.
  const ReferenceStore store = store_of(Aggregation::kCount, {
                                                                 put(0, 1, std::nullopt, 1),
                                                                 put(1, 1, 1, 2),
                                                                 put(2, 2, std::nullopt, 3),
                                                                 put(3, 2, std::nullopt, 4),
                                                                 del(4, 1, 5),
                                                             });
  const std::vector<std::optional<int64_t>> expected = {std::nullopt, std::nullopt, 1, 1, 1, 4};
  for (int64_t offset = -1; offset <= 4; ++offset) {
    EXPECT_EQ(store.last_write_offset(kP, offset), expected[static_cast<size_t>(offset + 1)])
        << "offset " << offset;
  }
  EXPECT_EQ(store.end_offset(kP), 4);
}

TEST(LastWriteOffset, ExcludingDeletesIgnoresOnlyDeleteNotTombstones) {
  // Proves the in-memory variant skips delete() but still counts put(key, null).
  const ReferenceStore store = store_of(Aggregation::kLatest, {
                                                                  put(0, 1, 1, 1),
                                                                  tombstone(1, 1, 2),
                                                                  del(2, 1, 3),
                                                                  del(3, 2, 4),
                                                              });
  EXPECT_EQ(store.last_write_offset(kP, 3), 3);
  EXPECT_EQ(store.last_write_offset_excluding_deletes(kP, 3), 1);
  EXPECT_EQ(store.last_write_offset_excluding_deletes(kP, 0), 0);
  EXPECT_EQ(store.last_write_offset_excluding_deletes(kP, -1), std::nullopt);
  EXPECT_EQ(store.last_write_offset(kP, 100), 3);
}

// ---- Store as a whole ------------------------------------------------------------------------

TEST(ReferenceStore, IncrementalApplyMatchesBuildingFromAHistory) {
  // Proves apply() one record at a time gives the same answers as the history constructor.
  const std::vector<SourceRecord> records = {put(0, 1, 3, 5), put(1, 2, 4, 6), put(1, 1, 1, 7),
                                             tombstone(2, 2, 8)};
  const ReferenceStore built = store_of(Aggregation::kSum, records);
  ReferenceStore incremental(Aggregation::kSum);
  for (const SourceRecord& record : records) incremental.apply(kP, record);
  for (int64_t offset = -1; offset <= 2; ++offset) {
    EXPECT_EQ(built.range(kP, std::nullopt, std::nullopt, Order::kAny, offset),
              incremental.range(kP, std::nullopt, std::nullopt, Order::kAny, offset));
    EXPECT_EQ(built.last_write_offset(kP, offset), incremental.last_write_offset(kP, offset));
  }
  EXPECT_EQ(incremental.get(kP, k(1), 1), (VT{4, 7}));
}

TEST(ReferenceStore, UnknownPartitionsAndKeysAnswerEmpty) {
  // Proves queries outside what was applied return nothing rather than failing.
  ReferenceStore store(Aggregation::kLatest);
  store.apply(3, put(0, 1, 1, 1));
  store.apply(1, put(0, 1, 1, 1));
  EXPECT_EQ(store.partitions(), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(store.get(2, k(1), 10), std::nullopt);
  EXPECT_EQ(store.get(3, k(2), 10), std::nullopt);
  EXPECT_TRUE(store.range(2, std::nullopt, std::nullopt, Order::kAny, 10).empty());
  EXPECT_EQ(store.last_write_offset(2, 10), std::nullopt);
  EXPECT_EQ(store.end_offset(2), -1);
  EXPECT_EQ(store.end_offset(3), 0);
}

TEST(ReferenceStore, RejectsMisuseWithAnAssertion) {
  // Proves a decreasing offset, an offset below -1 and a full store are programmer errors.
  EXPECT_DEATH(
      {
        ReferenceStore store(Aggregation::kLatest);
        store.apply(0, put(2, 1, 1, 1));
        store.apply(0, put(1, 1, 1, 1));
      },
      "offset=1 after offset=2");
  EXPECT_DEATH((void)five_keys().get(kP, k(1), -2), "offset_inclusive=-2");
  EXPECT_DEATH(
      {
        ReferenceStore store(Aggregation::kCount, 1);
        store.apply(0, put(0, 1, std::nullopt, 1));
        store.apply(0, put(1, 1, 1, 1));
      },
      "store is full");
}

}  // namespace
}  // namespace iq::model
