// Unit tests of the RocksDB window stores (RocksDBWindowStore, RocksDBTimestampedWindowStore over
// RocksDBSegmentedBytesStore): the store-level expectations of IQv2StoreIntegrationTest's
// ROCKS_WINDOW and TIME_ROCKS_WINDOW PAPI runs over cache x log, and the segment rules (roll,
// expiry by observed stream time, late and out-of-order puts, duplicates, restart, restore).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "iq/key_query.h"
#include "iq/range_query.h"
#include "state/iqv2_window_test_rows.h"
#include "state/position_serde.h"
#include "state/segmented_test_context.h"
#include "state/window_stores.h"

namespace iq {
namespace {

using namespace iqv2_window_rows;  // NOLINT: the shared input, rows and kW / kMin5

// One partition of a PAPI window run: a plain builder over ROCKS_WINDOW, or the timestamped
// builder over TIME_ROCKS_WINDOW (the processor puts ValueAndTimestamp(value, record time)).
struct Partition {
  std::unique_ptr<SegmentedTestContext> context;
  std::unique_ptr<StateStore> store;
};

Partition papi_partition(int32_t partition, const std::vector<Record>& records, bool timestamped,
                         const StoreBuilderOptions& o) {
  Partition p{std::make_unique<SegmentedTestContext>(partition), nullptr};
  if (timestamped) {
    auto s = stores::timestamped_window_store<int32_t, int32_t>(
        WindowSupplier::kRocksDBTimestamped, "kv-store", WindowStoreOptions{}, o);
    EXPECT_TRUE(s->init(*p.context, *s).has_value());
    for (size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      p.context->at("input-topic", static_cast<int64_t>(i), r.time_ms());
      EXPECT_TRUE(
          s->put(r.key, ValueAndTimestamp<int32_t>{r.value, r.time_ms()}, r.window_start_ms())
              .has_value());
    }
    p.store = std::move(s);
  } else {
    auto s = stores::window_store<int32_t, int32_t>(WindowSupplier::kRocksDB, "kv-store",
                                                    WindowStoreOptions{}, o);
    EXPECT_TRUE(s->init(*p.context, *s).has_value());
    for (size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      p.context->at("input-topic", static_cast<int64_t>(i), r.time_ms());
      EXPECT_TRUE(s->put(r.key, r.value, r.window_start_ms()).has_value());
    }
    p.store = std::move(s);
  }
  EXPECT_TRUE(p.store->flush().has_value());
  return p;
}

std::vector<Partition> both_partitions(bool timestamped, const StoreBuilderOptions& o) {
  std::vector<Partition> parts;
  parts.push_back(papi_partition(0, kPartition0, timestamped, o));
  parts.push_back(papi_partition(1, kPartition1, timestamped, o));
  return parts;
}

TEST(RocksDBWindowStoreTest, KafkaWindowKeyAndRangeQueryPapiRows) {
  // Proves the 11 WindowKeyQuery and 9 WindowRangeQuery rows of the PAPI window runs for
  // ROCKS_WINDOW and TIME_ROCKS_WINDOW over every cache x log combination, after a flush, with
  // each partition's position at its last input offset.
  for (bool timestamped : {false, true}) {
    for (bool cache : {false, true}) {
      for (bool log : {false, true}) {
        auto parts = both_partitions(timestamped, {cache, log});
        for (const KeyRow& row : kKeyRows) {
          const auto q = WindowKeyQuery<int32_t, int32_t>::with_key_and_window_start_range(
              row.key, kW + row.from, kW + row.to);
          EXPECT_EQ(union_values(parts, q, timestamped), row.want)
              << "timestamped=" << timestamped << " cache=" << cache << " log=" << log
              << " key=" << row.key << " from=" << row.from;
        }
        for (const RangeRow& row : kRangeRows) {
          const auto q = WindowRangeQuery<int32_t, int32_t>::with_window_start_range(kW + row.from,
                                                                                     kW + row.to);
          EXPECT_EQ(union_values(parts, q, timestamped), row.want)
              << "timestamped=" << timestamped << " cache=" << cache << " log=" << log
              << " from=" << row.from;
        }
        EXPECT_EQ(parts[0].store->position(), Position::from_map({{"input-topic", {{0, 5}}}}));
        EXPECT_EQ(parts[1].store->position(), Position::from_map({{"input-topic", {{1, 3}}}}));
      }
    }
  }
}

TEST(RocksDBWindowStoreTest, WithKeyFailsInTheMeteredLayerAndKeyQueriesNameTheOwner) {
  // Proves withKey fails UNKNOWN_QUERY_TYPE in the metered layer (no position), and KeyQuery /
  // RangeQuery reach the RocksDB owner, which names its own class and carries its position.
  for (bool timestamped : {false, true}) {
    auto p = papi_partition(0, kPartition0, timestamped, {false, true});
    auto r = p.store->query(WindowRangeQuery<int32_t, int32_t>::with_key(2),
                            PositionBound::unbounded(), QueryConfig(false));
    ASSERT_TRUE(r.has_value() && r->is_failure());
    EXPECT_EQ(r->failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
    const std::string metered =
        timestamped ? "MeteredTimestampedWindowStore" : "MeteredWindowStore";
    EXPECT_EQ(
        *r->failure_message(),
        "This store (class org.apache.kafka.streams.state.internals." + metered +
            ") doesn't know how to execute the given query (WindowRangeQuery{key=Optional[2], "
            "timeFrom=Optional.empty, timeTo=Optional.empty}) because WindowStores only "
            "supports WindowRangeQuery.withWindowStartRange. Contact the store maintainer "
            "if you need support for a new query type.");
    EXPECT_FALSE(r->position().has_value());
    const auto kq = KeyQuery<int32_t, int32_t>::with_key(0);
    auto k = p.store->query(kq, PositionBound::unbounded(), QueryConfig(false));
    ASSERT_TRUE(k.has_value() && k->is_failure());
    EXPECT_EQ(k->failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
    const std::string owner = timestamped ? "RocksDBTimestampedWindowStore" : "RocksDBWindowStore";
    EXPECT_NE(k->failure_message()->find("(class org.apache.kafka.streams.state.internals." +
                                         owner + ")"),
              std::string::npos)
        << *k->failure_message();
    EXPECT_EQ(k->position(), Position::from_map({{"input-topic", {{0, 5}}}}));
    auto bounded = p.store->query(
        RangeQuery<int32_t, int32_t>::with_no_bounds(),
        PositionBound::at(Position::from_map({{"input-topic", {{0, 6}}}})), QueryConfig(false));
    ASSERT_TRUE(bounded.has_value() && bounded->is_failure());
    EXPECT_EQ(bounded->failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  }
}

TEST(RocksDBWindowStoreTest, FetchAllIsSegmentMajorThenKeyBytes) {
  // Proves the RocksDB order differs from the in-memory one: inside a segment, fetchAll returns
  // entries by key bytes, then window start (the in-memory store goes by window start first).
  SegmentedTestContext ctx(0);
  RocksDBWindowStore store("w", 1000, 500, 10, false);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  ASSERT_TRUE(store.put(int_key(4), Bytes("a"), 100).has_value());
  ASSERT_TRUE(store.put(int_key(0), Bytes("b"), 200).has_value());
  ASSERT_TRUE(store.put(int_key(4), Bytes("c"), 300).has_value());
  ASSERT_TRUE(store.put(int_key(1), Bytes("d"), 600).has_value());  // next segment
  auto all = store.fetch_all(0, 1000, true);
  ASSERT_TRUE(all.has_value());
  std::vector<std::string> got;
  for (const auto& e : all->entries) got.push_back(e.value.get());
  EXPECT_EQ(got, (std::vector<std::string>{"b", "a", "c", "d"}));
  EXPECT_EQ(all->entries[0].key, (Windowed<Bytes>{int_key(0), 200, 210}));
  auto back = store.fetch_all(0, 1000, false);
  got.clear();
  for (const auto& e : back->entries) got.push_back(e.value.get());
  EXPECT_EQ(got, (std::vector<std::string>{"d", "c", "a", "b"}));
  EXPECT_EQ(store.bytes_store().segment_ids(), (std::vector<int64_t>{0, 1}));
}

TEST(RocksDBWindowStoreTest, SegmentsRollAndExpireWithObservedStreamTime) {
  // Proves segment roll and expiry with retention 100 and segment interval 50: a segment goes
  // (directory deleted) once its id is below segmentId(streamTime - 100); reads start at
  // streamTime - 100 + 1 even inside a live segment; a late put into a live segment is stored
  // and advances the position, one into an expired segment is dropped and does NOT (quirk).
  SegmentedTestContext ctx(0);
  RocksDBWindowStore store("w", 100, 50, 10, false);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  int64_t offset = 0;
  auto put = [&](int32_t key, const std::string& v, int64_t start) {
    ctx.at("in", offset++, start);
    ASSERT_TRUE(store.put(int_key(key), Bytes(v), start).has_value());
  };
  put(1, "s0", 10);
  put(1, "s1", 60);
  put(1, "s2", 120);
  EXPECT_EQ(store.bytes_store().segment_ids(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(ctx.fs().exists(ctx.state_dir() + "/w/w.0"));
  put(1, "s3", 170);  // stream time 170: min live segment = segmentId(70) = 1
  EXPECT_EQ(store.bytes_store().segment_ids(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_FALSE(ctx.fs().exists(ctx.state_dir() + "/w/w.0"));
  EXPECT_TRUE(ctx.fs().exists(ctx.state_dir() + "/w/w.150"));
  // Floor 71: window 60 is in a live segment but below the floor.
  auto it = store.fetch(int_key(1), 0, 1000, true);
  ASSERT_TRUE(it.has_value());
  ASSERT_EQ(it->entries.size(), 2u);
  EXPECT_EQ(it->entries[0].key, 120);
  EXPECT_FALSE(store.fetch(int_key(1), 60)->has_value());
  EXPECT_EQ(store.position(), Position::from_map({{"in", {{0, 3}}}}));
  put(2, "late-live", 65);  // segment 1 is live: stored, position 4, invisible (below the floor)
  EXPECT_EQ(store.position(), Position::from_map({{"in", {{0, 4}}}}));
  EXPECT_TRUE(store.fetch(int_key(2), 0, 1000, true)->entries.empty());
  put(2, "late-dead", 20);  // segment 0 expired: dropped, position stays 4
  EXPECT_EQ(store.position(), Position::from_map({{"in", {{0, 4}}}}));
  EXPECT_EQ(store.bytes_store().segment_ids(), (std::vector<int64_t>{1, 2, 3}));
  put(2, "in-order", 150);  // out of order but above the floor: visible
  EXPECT_EQ(store.fetch(int_key(2), 150)->value(), Bytes("in-order"));
  // timeTo below the floor: empty.
  EXPECT_TRUE(store.fetch_all(0, 70, true)->entries.empty());
}

TEST(RocksDBWindowStoreTest, NegativeWindowStartsAreNotFoundByKeyFetch) {
  // Proves lowerRangeFixedSize's clamp at 0: a window at -5 is stored (the stream time allows
  // it) but a key fetch over [-100, 100] starts its range at 0 and misses it.
  SegmentedTestContext ctx(0);
  RocksDBWindowStore store("w", 1000, 500, 10, false);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  ASSERT_TRUE(store.put(int_key(1), Bytes("n"), -5).has_value());
  EXPECT_TRUE(store.fetch(int_key(1), -100, 100, true)->entries.empty());
  EXPECT_EQ(store.fetch(int_key(1), -5)->value(), Bytes("n"));
}

TEST(RocksDBWindowStoreTest, RetainDuplicatesUsesSequenceNumbersAndSkipsDeletes) {
  // Proves duplicates: two puts of one (key, window) both come back in put order, a null put is
  // skipped without advancing the position, and fetch(key, time) finds only the latest put and
  // only until another put moves the sequence number on (quirk).
  SegmentedTestContext ctx(0);
  RocksDBWindowStore store("w", 1000, 500, 10, true);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  ctx.at("in", 1, 0);
  ASSERT_TRUE(store.put(int_key(1), Bytes("a"), 10).has_value());
  ctx.at("in", 2, 0);
  ASSERT_TRUE(store.put(int_key(1), Bytes("b"), 10).has_value());
  EXPECT_EQ(store.fetch(int_key(1), 10)->value(), Bytes("b"));
  ctx.at("in", 3, 0);
  ASSERT_TRUE(store.put(int_key(1), std::nullopt, 10).has_value());
  EXPECT_EQ(store.position(), Position::from_map({{"in", {{0, 2}}}}));
  ctx.at("in", 4, 0);
  ASSERT_TRUE(store.put(int_key(2), Bytes("c"), 10).has_value());
  EXPECT_FALSE(store.fetch(int_key(1), 10)->has_value());
  auto it = store.fetch(int_key(1), 0, 20, true);
  ASSERT_EQ(it->entries.size(), 2u);
  EXPECT_EQ(it->entries[0].value, Bytes("a"));
  EXPECT_EQ(it->entries[1].value, Bytes("b"));
  EXPECT_EQ(store.fetch(int_key(1), 0, 20, false)->entries[0].value, Bytes("b"));
}

TEST(RocksDBWindowStoreTest, RestartKeepsDataAndPositionButForgetsStreamTime) {
  // Proves persistence across a close and reopen: the committed .position is read back, flushed
  // data survives, and since the observed stream time restarts at -1 a window that was below the
  // read floor is visible again until a put moves the stream time on (quirk).
  SegmentedTestContext ctx(0);
  {
    RocksDBWindowStore store("w", 100, 50, 10, false);
    ASSERT_TRUE(store.init(ctx, store).has_value());
    ctx.at("in", 7, 0);
    ASSERT_TRUE(store.put(int_key(1), Bytes("old"), 60).has_value());
    ctx.at("in", 8, 0);
    ASSERT_TRUE(store.put(int_key(1), Bytes("new"), 170).has_value());
    EXPECT_EQ(store.fetch(int_key(1), 0, 1000, true)->entries.size(), 1u);
    ASSERT_TRUE(store.flush().has_value());
    ASSERT_TRUE(ctx.commit().has_value());
    store.close();
  }
  RocksDBWindowStore store("w", 100, 50, 10, false);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  EXPECT_EQ(store.position(), Position::from_map({{"in", {{0, 8}}}}));
  EXPECT_EQ(store.bytes_store().observed_stream_time_ms(), -1);
  EXPECT_EQ(store.fetch(int_key(1), 0, 1000, true)->entries.size(), 2u);
  ctx.at("in", 9, 0);
  ASSERT_TRUE(store.put(int_key(2), Bytes("x"), 175).has_value());
  EXPECT_EQ(store.fetch(int_key(1), 0, 1000, true)->entries.size(), 1u);
}

// A segment is a RocksDB database of its own and compacts after its flush as RocksDBStore does
// (compact_if_triggered): however many flushes, it keeps at most three table files, and every
// window stays readable.
TEST(RocksDBWindowStoreTest, ASegmentCompactsAtItsFlushOnceFourFilesPileUp) {
  SegmentedTestContext ctx(0);
  RocksDBWindowStore store("w", 100, 50, 10, false);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  const std::string segment_dir = ctx.state_dir() + "/w/w.0";
  auto table_files = [&] {
    size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(segment_dir)) {
      if (entry.path().extension() == ".sst") ++n;
    }
    return n;
  };
  std::vector<size_t> counts;
  for (int32_t key = 0; key < 10; ++key) {
    ctx.at("in", key, 0);
    ASSERT_TRUE(store.put(int_key(key), Bytes("v" + std::to_string(key)), 10).has_value());
    ASSERT_TRUE(store.flush().has_value());
    counts.push_back(table_files());
  }
  EXPECT_EQ(counts, (std::vector<size_t>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1}));
  EXPECT_EQ(store.fetch_all(0, 40, true)->entries.size(), 10u);
  for (int32_t key = 0; key < 10; ++key) {
    EXPECT_EQ(store.fetch(int_key(key), 10)->value(), Bytes("v" + std::to_string(key)));
  }
}

ConsumerRecord changelog_record(int64_t offset, int32_t key, int64_t start,
                                std::optional<std::string> value, const Position* position) {
  ConsumerRecord r;
  r.topic = "app-w-changelog";
  r.offset = offset;
  r.key = window_key_schema::to_store_key_binary(int_key(key), start, 0);
  if (value) r.value = Bytes(*value);
  if (position != nullptr) {
    r.headers.push_back({"v", Bytes(std::string(1, '\0'))});
    r.headers.push_back({"c", Bytes(position_serde::serialize_padded(*position))});
  }
  return r;
}

TEST(RocksDBWindowStoreTest, RestoreAdvancesStreamTimeFirstAndDropsExpiredSegments) {
  // Proves restoreAllInternal: the stream time jumps to the batch's largest window start first,
  // so records whose segment is expired by a LATER record of the same batch are dropped, their
  // "c" headers are NOT merged, tombstones delete, and kept records merge their positions.
  SegmentedTestContext ctx(0, "", /*consistency=*/true);
  RocksDBWindowStore store("w", 100, 50, 10, false);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  const Position dropped = Position::from_map({{"A", {{0, 1}}}});
  const Position kept = Position::from_map({{"A", {{0, 3}}}, {"B", {{0, 2}}}});
  const Position last = Position::from_map({{"A", {{0, 5}}}});
  ASSERT_TRUE(ctx.restore({changelog_record(0, 1, 10, "expired", &dropped),  // segment 0
                           changelog_record(1, 1, 60, "live", &kept),        // segment 1
                           changelog_record(2, 2, 120, "x", nullptr),
                           changelog_record(3, 2, 120, std::nullopt, nullptr),
                           changelog_record(4, 3, 170, "top", &last)})
                  .has_value());
  EXPECT_EQ(store.bytes_store().segment_ids(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(store.position(), Position::from_map({{"A", {{0, 5}}}, {"B", {{0, 2}}}}));
  EXPECT_FALSE(store.fetch(int_key(2), 120)->has_value());
  EXPECT_EQ(store.fetch(int_key(3), 170)->value(), Bytes("top"));
  // 60 is in a live segment but below the floor 71.
  EXPECT_FALSE(store.fetch(int_key(1), 60)->has_value());
}

TEST(RocksDBWindowStoreTest, CachingOverRocksDBAnswersOnlyAfterFlush) {
  // Proves the caching window layer's flush-only IQv2 view over the RocksDB store: position {}
  // and an empty answer before the flush, the data and {"":{0:2}} after.
  SegmentedTestContext ctx(0);
  auto store = stores::window_store<int32_t, int32_t>(WindowSupplier::kRocksDB, "w",
                                                      WindowStoreOptions{}, {true, true});
  ASSERT_TRUE(store->init(ctx, *store).has_value());
  ctx.at("", 1, 0);
  ASSERT_TRUE(store->put(1, 10, kW).has_value());
  ctx.at("", 2, 0);
  ASSERT_TRUE(store->put(2, 20, kW).has_value());
  const auto q = WindowRangeQuery<int32_t, int32_t>::with_window_start_range(kW, kW);
  auto before = store->query(q, PositionBound::unbounded(), QueryConfig(false));
  ASSERT_TRUE(before.has_value() && before->is_success());
  using WindowedIt = KeyValueIterator<Windowed<int32_t>, int32_t>;
  EXPECT_TRUE(before->result<WindowedIt>().entries.empty());
  EXPECT_EQ(before->position(), Position::empty_position());
  EXPECT_EQ(ctx.logged.size(), 0u);  // nothing reached the change-logging layer yet
  ASSERT_TRUE(store->flush().has_value());
  auto after = store->query(q, PositionBound::unbounded(), QueryConfig(false));
  ASSERT_TRUE(after.has_value() && after->is_success());
  EXPECT_EQ(after->result<WindowedIt>().entries.size(), 2u);
  EXPECT_EQ(after->position(), Position::from_map({{"", {{0, 2}}}}));
  EXPECT_EQ(ctx.logged.size(), 2u);
}

}  // namespace
}  // namespace iq

namespace iq {
namespace {

TEST(RocksDBWindowStoreTest, TimestampedBuilderOverAPlainRocksDBSupplierAnswersPlainValues) {
  // Proves the WindowToTimestampedWindowByteStoreAdapter stack (quirk 24): the processor writes
  // ValueAndTimestamp, the changelog gets the plain value under the embedded timestamp, the
  // processor reads back timestamp -1, and IQv2 answers plain values, with the adapter's
  // execution-info line.
  SegmentedTestContext ctx(0);
  auto store = stores::timestamped_window_store<int32_t, int32_t>(
      WindowSupplier::kRocksDB, "w", WindowStoreOptions{}, {false, true});
  ASSERT_TRUE(store->init(ctx, *store).has_value());
  EXPECT_FALSE(store->is_timestamped());
  ctx.at("in", 1, 999);
  ASSERT_TRUE(store->put(5, ValueAndTimestamp<int32_t>{42, 777}, kW).has_value());
  ASSERT_EQ(ctx.logged.size(), 1u);
  EXPECT_EQ(ctx.logged[0].value, Serde<int32_t>::serialize(42));
  EXPECT_EQ(ctx.logged[0].timestamp, 777);
  auto read = store->fetch(5, kW);
  ASSERT_TRUE(read.has_value() && read->has_value());
  EXPECT_EQ((*read)->value, 42);
  EXPECT_EQ((*read)->timestamp, -1);
  auto r =
      store->query(WindowKeyQuery<int32_t, int32_t>::with_key_and_window_start_range(5, kW, kW),
                   PositionBound::unbounded(), QueryConfig(true));
  ASSERT_TRUE(r.has_value() && r->is_success()) << (r ? r->to_string() : "");
  const auto& e = r->result<KeyValueIterator<int64_t, int32_t>>().entries;
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].value, 42);
  bool adapter_line = false;
  for (const auto& line : r->execution_info())
    adapter_line |= line.find("WindowToTimestampedWindowByteStoreAdapter") != std::string::npos;
  EXPECT_TRUE(adapter_line);
  EXPECT_EQ(r->position(), Position::from_map({{"in", {{0, 1}}}}));
}

}  // namespace
}  // namespace iq
