// Unit tests of the window store family: InMemoryWindowStore (retention by observed stream time,
// expiry, duplicates, restore), the change-logging and caching window layers, the metered typed
// layer and the IQv2 window queries, including the store-level expectations of Kafka's
// IQv2StoreIntegrationTest window runs.
#include "state/window_stores.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "iq/key_query.h"
#include "iq/range_query.h"
#include "iq/with_headers_queries.h"
#include "state/iqv2_window_test_rows.h"
#include "state/position_serde.h"
#include "state/segmented_test_context.h"

namespace iq {
namespace {

using WindowedIt = KeyValueIterator<Windowed<int32_t>, int32_t>;
using namespace iqv2_window_rows;  // NOLINT: the shared input, rows and kW / kMin5

struct Partition {
  std::unique_ptr<SegmentedTestContext> context;
  std::unique_ptr<MeteredWindowStore<int32_t, int32_t>> store;
};

Partition papi_partition(int32_t partition, const std::vector<Record>& records,
                         const StoreBuilderOptions& o) {
  Partition p{std::make_unique<SegmentedTestContext>(partition),
              stores::window_store<int32_t, int32_t>(WindowSupplier::kInMemory, "w",
                                                     WindowStoreOptions{}, o)};
  EXPECT_TRUE(p.store->init(*p.context, *p.store).has_value());
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    p.context->at("input-topic", static_cast<int64_t>(i), r.time_ms());
    EXPECT_TRUE(p.store->put(r.key, r.value, r.window_start_ms()).has_value());
  }
  EXPECT_TRUE(p.store->flush().has_value());
  return p;
}

std::vector<Partition> both_partitions(const StoreBuilderOptions& o) {
  std::vector<Partition> parts;
  parts.push_back(papi_partition(0, kPartition0, o));
  parts.push_back(papi_partition(1, kPartition1, o));
  return parts;
}

TEST(WindowStoresTest, KafkaWindowKeyQueryPapiRows) {
  // Proves the 11 WindowKeyQuery rows of the PAPI window runs for every
  // cache x log combination of the in-memory window store, after a flush.
  for (bool cache : {false, true}) {
    for (bool log : {false, true}) {
      auto parts = both_partitions({cache, log});
      for (const KeyRow& row : kKeyRows) {
        const auto q = WindowKeyQuery<int32_t, int32_t>::with_key_and_window_start_range(
            row.key, kW + row.from, kW + row.to);
        EXPECT_EQ(union_values(parts, q, /*timestamped=*/false), row.want)
            << "cache=" << cache << " log=" << log << " key=" << row.key << " from=" << row.from;
      }
    }
  }
}

TEST(WindowStoresTest, KafkaWindowRangeQueryPapiRows) {
  // Proves the 9 WindowRangeQuery.withWindowStartRange rows of the PAPI window runs.
  for (bool cache : {false, true}) {
    for (bool log : {false, true}) {
      auto parts = both_partitions({cache, log});
      for (const RangeRow& row : kRangeRows) {
        const auto q =
            WindowRangeQuery<int32_t, int32_t>::with_window_start_range(kW + row.from, kW + row.to);
        EXPECT_EQ(union_values(parts, q, /*timestamped=*/false), row.want)
            << "cache=" << cache << " log=" << log << " from=" << row.from;
      }
    }
  }
}

TEST(WindowStoresTest, WindowRangeQueryResultCarriesTimeWindows) {
  // Proves fetchAll's Windowed keys carry [start, start + size) and come window-major, then by key.
  auto p = papi_partition(0, kPartition0, {false, false});
  auto r = p.store->query(
      WindowRangeQuery<int32_t, int32_t>::with_window_start_range(kW, kW + kMin5 * 3),
      PositionBound::unbounded(), QueryConfig(false));
  ASSERT_TRUE(r.has_value() && r->is_success());
  const auto& e = r->result<KeyValueIterator<Windowed<int32_t>, int32_t>>().entries;
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].key, (Windowed<int32_t>{0, kW, kW + kMin5}));
  EXPECT_EQ(e[1].key, (Windowed<int32_t>{2, kW + kMin5, kW + 2 * kMin5}));
  EXPECT_EQ(e[2].key, (Windowed<int32_t>{2, kW + 2 * kMin5, kW + 3 * kMin5}));
  EXPECT_EQ(e[3].key, (Windowed<int32_t>{4, kW + 3 * kMin5, kW + 4 * kMin5}));
  EXPECT_EQ(r->position(), Position::from_map({{"input-topic", {{0, 5}}}}));
}

TEST(WindowStoresTest, WithKeyOnAWindowStoreFailsInTheMeteredLayerWithoutPosition) {
  // Proves WindowRangeQuery.withKey(2) fails UNKNOWN_QUERY_TYPE with Kafka's exact message from
  // MeteredWindowStore ("supports"), and carries no position.
  for (bool cache : {false, true}) {
    auto p = papi_partition(0, kPartition0, {cache, true});
    auto r = p.store->query(WindowRangeQuery<int32_t, int32_t>::with_key(2),
                            PositionBound::unbounded(), QueryConfig(false));
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->is_failure());
    EXPECT_EQ(r->failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
    EXPECT_EQ(*r->failure_message(),
              "This store (class org.apache.kafka.streams.state.internals.MeteredWindowStore) "
              "doesn't know how to execute the given query (WindowRangeQuery{key=Optional[2], "
              "timeFrom=Optional.empty, timeTo=Optional.empty}) because WindowStores only "
              "supports WindowRangeQuery.withWindowStartRange. Contact the store maintainer if "
              "you need support for a new query type.");
    EXPECT_FALSE(r->position().has_value());
  }
}

TEST(WindowStoresTest, KeyAndRangeQueriesOnAWindowStoreAreBoundCheckedThenUnknown) {
  // Proves KeyQuery and RangeQuery pass the metered window layer, are bound-checked by the
  // in-memory store (NOT_UP_TO_BOUND for an unmet bound) and otherwise answer
  // UNKNOWN_QUERY_TYPE naming InMemoryWindowStore, with its position.
  auto p = papi_partition(0, kPartition0, {false, true});
  const Position at5 = Position::from_map({{"input-topic", {{0, 5}}}});
  const auto kq = KeyQuery<int32_t, int32_t>::with_key(0);
  const auto rq = RangeQuery<int32_t, int32_t>::with_no_bounds();
  for (const Query* q : std::vector<const Query*>{&kq, &rq}) {
    auto r = p.store->query(*q, PositionBound::unbounded(), QueryConfig(false));
    ASSERT_TRUE(r.has_value() && r->is_failure());
    EXPECT_EQ(r->failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
    EXPECT_NE(r->failure_message()->find(
                  "(class org.apache.kafka.streams.state.internals.InMemoryWindowStore)"),
              std::string::npos)
        << *r->failure_message();
    EXPECT_EQ(r->position(), at5);
    auto bounded = p.store->query(
        *q, PositionBound::at(Position::from_map({{"input-topic", {{0, 6}}}})), QueryConfig(false));
    ASSERT_TRUE(bounded.has_value() && bounded->is_failure());
    EXPECT_EQ(bounded->failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  }
}

TEST(WindowStoresTest, WindowKeyQueryGetterSwapIsUndoneByTheMeteredLayer) {
  // Proves the getter swap: the user's query reports from/to swapped, yet the store fetches the
  // caller's range (a range of one window start finds exactly that window).
  const auto q = WindowKeyQuery<int32_t, int32_t>::with_key_and_window_start_range(0, 100, 200);
  EXPECT_EQ(*q.time_from(), 200);
  EXPECT_EQ(*q.time_to(), 100);
  auto p = papi_partition(0, kPartition0, {false, false});
  auto r = p.store->query(
      WindowKeyQuery<int32_t, int32_t>::with_key_and_window_start_range(2, kW + kMin5, kW + kMin5),
      PositionBound::unbounded(), QueryConfig(false));
  ASSERT_TRUE(r.has_value() && r->is_success());
  const auto& e = r->result<KeyValueIterator<int64_t, int32_t>>().entries;
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].key, kW + kMin5);
  EXPECT_EQ(e[0].value, 4);
}

TEST(WindowStoresTest, WindowKeyQueryGettersAreNotSwappedAtTheNewPin) {
  // Proves pin delta 18 (cacab1cc81): at the 2026-08-20 pin the getters and toString give the
  // caller's from and to, and the metered layer still hands the store the caller's range.
  const auto q = WindowKeyQuery<int32_t, int32_t>::with_key_and_window_start_range(
      0, 100, 200, KafkaPin::k2026_08_20);
  EXPECT_EQ(*q.time_from(), 100);
  EXPECT_EQ(*q.time_to(), 200);
  EXPECT_EQ(q.to_string(),
            "WindowKeyQuery{key=0, timeFrom=Optional[1970-01-01T00:00:00.100Z], "
            "timeTo=Optional[1970-01-01T00:00:00.200Z]}");
  auto p = papi_partition(0, kPartition0, {false, false});
  auto r = p.store->query(WindowKeyQuery<int32_t, int32_t>::with_key_and_window_start_range(
                              2, kW + kMin5, kW + 2 * kMin5, KafkaPin::k2026_08_20),
                          PositionBound::unbounded(), QueryConfig(false));
  ASSERT_TRUE(r.has_value() && r->is_success());
  const auto& e = r->result<KeyValueIterator<int64_t, int32_t>>().entries;
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].key, kW + kMin5);
  EXPECT_EQ(e[1].key, kW + 2 * kMin5);
}

TEST(WindowStoresTest, HeaderWindowQueriesAreUnknownBeforeTheBoundCheck) {
  // Proves KIP-1356's window queries reach a window store without headers (in-memory, cached or
  // not) as a class no layer knows: UNKNOWN_QUERY_TYPE from handleBasicQueries, before the bound
  // check (an unmet bound still gives UNKNOWN_QUERY_TYPE), with the store's position.
  for (bool cache : {false, true}) {
    auto p = papi_partition(0, kPartition0, {cache, true});
    const auto unmet = PositionBound::at(Position::from_map({{"input-topic", {{0, 1'000}}}}));
    auto key = p.store->query(
        TimestampedWindowKeyWithHeadersQuery<int32_t, int32_t>::with_key_and_window_start_range(
            2, kW, kW + kMin5),
        unmet, QueryConfig(false, IsolationLevel::READ_COMMITTED));
    auto range = p.store->query(
        TimestampedWindowRangeWithHeadersQuery<int32_t, int32_t>::with_window_start_range(
            kW, kW + kMin5),
        unmet, QueryConfig(false));
    for (const auto* r : {&key, &range}) {
      ASSERT_TRUE(r->has_value());
      ASSERT_TRUE((*r)->is_failure());
      EXPECT_EQ((*r)->failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE) << "cache=" << cache;
      EXPECT_EQ((*r)->position(), Position::from_map({{"input-topic", {{0, 5}}}}));
    }
  }
}

TEST(WindowStoresTest, InMemoryPositionAdvancesOnEveryPut) {
  // Proves IQv2StoreIntegrationTest's window position expectation: puts at offsets 1..4 give
  // {"":{0:4}}, expired puts included.
  SegmentedTestContext ctx(0);
  InMemoryWindowStore store("w", 10, 5, false);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  const int64_t starts[] = {100, 0, 105, 50};  // 0 and 50 are expired by then
  for (int64_t i = 1; i <= 4; ++i) {
    ctx.at("", i, 0);
    ASSERT_TRUE(store.put(int_key(1), Bytes("v"), starts[i - 1]).has_value());
  }
  EXPECT_EQ(store.position(), Position::from_map({{"", {{0, 4}}}}));
  EXPECT_EQ(store.window_starts(), (std::vector<int64_t>{100, 105}));
}

TEST(WindowStoresTest, RetentionFloorIsObservedStreamTimeMinusRetentionPlusOne) {
  // Proves the floor: with retention 10 and stream time 20, start 10 is expired and 11 is
  // visible, a put at 10 is dropped, and expiry runs before the stream time advances (quirk).
  SegmentedTestContext ctx(0);
  InMemoryWindowStore store("w", 10, 5, false);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  for (int64_t start : {10, 11, 12, 20})
    ASSERT_TRUE(store.put(int_key(1), Bytes("x"), start).has_value());
  // The put at 20 removed nothing: expiry ran at stream time 12.
  EXPECT_EQ(store.window_starts(), (std::vector<int64_t>{10, 11, 12, 20}));
  auto it = store.fetch(int_key(1), 0, 100, true);
  ASSERT_TRUE(it.has_value());
  ASSERT_EQ(it->entries.size(), 3u);
  EXPECT_EQ(it->entries[0].key, 11);
  EXPECT_EQ(store.window_starts(), (std::vector<int64_t>{11, 12, 20}));  // now removed
  EXPECT_FALSE(store.fetch(int_key(1), 10)->has_value());
  ASSERT_TRUE(store.put(int_key(2), Bytes("late"), 10).has_value());
  EXPECT_FALSE(store.fetch(int_key(2), 10)->has_value());
  EXPECT_TRUE(store.fetch_all(0, 10, true)->entries.empty());
  // timeTo below the floor: empty.
  EXPECT_TRUE(store.fetch(int_key(1), 0, 10, true)->entries.empty());
}

TEST(WindowStoresTest, NegativeWindowStartsAreRemovedAtOnce) {
  // Proves the clamp-at-0 quirk of removeExpiredSegments: a window at -5 vanishes on the next
  // operation although the retention (100) would keep it.
  SegmentedTestContext ctx(0);
  InMemoryWindowStore store("w", 100, 5, false);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  ASSERT_TRUE(store.put(int_key(1), Bytes("n"), -5).has_value());
  EXPECT_EQ(store.window_starts(), (std::vector<int64_t>{-5}));
  EXPECT_TRUE(store.fetch(int_key(1), -100, 100, true)->entries.empty());
}

TEST(WindowStoresTest, RetainDuplicatesKeepsEveryPutAndIgnoresDeletes) {
  // Proves retainDuplicates: two puts of one (key, window) both come back in put order, a null
  // put removes nothing, and the single-window fetch misses (stored keys carry a seqnum).
  SegmentedTestContext ctx(0);
  InMemoryWindowStore store("w", 100, 5, true);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  ASSERT_TRUE(store.put(int_key(1), Bytes("a"), 10).has_value());
  ASSERT_TRUE(store.put(int_key(1), Bytes("b"), 10).has_value());
  ASSERT_TRUE(store.put(int_key(2), Bytes("c"), 10).has_value());
  ASSERT_TRUE(store.put(int_key(1), std::nullopt, 10).has_value());
  auto it = store.fetch(int_key(1), 0, 20, true);
  ASSERT_EQ(it->entries.size(), 2u);
  EXPECT_EQ(it->entries[0].value, Bytes("a"));
  EXPECT_EQ(it->entries[1].value, Bytes("b"));
  EXPECT_FALSE(store.fetch(int_key(1), 10)->has_value());
  auto all = store.fetch_all(0, 20, true);
  ASSERT_EQ(all->entries.size(), 3u);
  EXPECT_EQ(all->entries[2].key.key, int_key(2));
  auto back = store.fetch(int_key(1), 0, 20, false);
  EXPECT_EQ(back->entries[0].value, Bytes("b"));
}

TEST(WindowStoresTest, ChangeLoggingLogsStoreKeyWithInnerPosition) {
  // Proves the changelog record: key [key][start][seqnum 0], the value, the record timestamp and
  // the inner position after the write; with duplicates the layer's seqnum counts 1, 2, ...
  for (bool dups : {false, true}) {
    SegmentedTestContext ctx(0);
    ChangeLoggingWindowBytesStore store(std::make_unique<InMemoryWindowStore>("w", 100, 5, dups),
                                        dups);
    ASSERT_TRUE(store.init(ctx, store).has_value());
    ctx.at("in", 7, 1234);
    ASSERT_TRUE(store.put(int_key(3), Bytes("v"), 50).has_value());
    ctx.at("in", 8, 1235);
    ASSERT_TRUE(store.put(int_key(3), Bytes("w"), 50).has_value());
    ASSERT_EQ(ctx.logged.size(), 2u);
    EXPECT_EQ(ctx.logged[1].key,
              window_key_schema::to_store_key_binary(int_key(3), 50, dups ? 2 : 0));
    EXPECT_EQ(ctx.logged[1].value, Bytes("w"));
    EXPECT_EQ(ctx.logged[1].timestamp, 1235);
    EXPECT_EQ(ctx.logged[1].position, Position::from_map({{"in", {{0, 8}}}}));
    EXPECT_EQ(window_key_schema::extract_store_timestamp(ctx.logged[1].key), 50);
    EXPECT_EQ(window_key_schema::extract_store_key_bytes(ctx.logged[1].key), int_key(3));
  }
}

TEST(WindowStoresTest, TimestampedChangeLoggingLogsPlainValueWithEmbeddedTimestamp) {
  // Proves the timestamped window layer logs the value without its timestamp, under it.
  SegmentedTestContext ctx(0);
  auto store = stores::timestamped_window_store<int32_t, int32_t>(
      WindowSupplier::kInMemory, "w", WindowStoreOptions{}, {false, true});
  ASSERT_TRUE(store->init(ctx, *store).has_value());
  ctx.at("in", 1, 999);
  ASSERT_TRUE(store->put(5, ValueAndTimestamp<int32_t>{42, 777}, kW).has_value());
  ASSERT_EQ(ctx.logged.size(), 1u);
  EXPECT_EQ(ctx.logged[0].value, Serde<int32_t>::serialize(42));
  EXPECT_EQ(ctx.logged[0].timestamp, 777);
  auto r =
      store->query(WindowKeyQuery<int32_t, int32_t>::with_key_and_window_start_range(5, kW, kW),
                   PositionBound::unbounded(), QueryConfig(false));
  ASSERT_TRUE(r.has_value() && r->is_success());
  const auto& e = r->result<KeyValueIterator<int64_t, ValueAndTimestamp<int32_t>>>().entries;
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].value.value, 42);
  EXPECT_EQ(e[0].value.timestamp, 777);
}

TEST(WindowStoresTest, CachingWindowLayerAnswersQueriesOnlyAfterFlush) {
  // Proves the window position expectation for the caching window store: puts at 1, 2 and the
  // context moved to 3 leave the position {} and the query empty until a flush, then {"":{0:2}} and
  // the data.
  SegmentedTestContext ctx(0);
  auto store = stores::window_store<int32_t, int32_t>(WindowSupplier::kInMemory, "w",
                                                      WindowStoreOptions{}, {true, false});
  ASSERT_TRUE(store->init(ctx, *store).has_value());
  ctx.at("", 1, 0);
  ASSERT_TRUE(store->put(1, 10, kW).has_value());
  ctx.at("", 2, 0);
  ASSERT_TRUE(store->put(2, 20, kW).has_value());
  ctx.at("", 3, 0);
  const auto q = WindowRangeQuery<int32_t, int32_t>::with_window_start_range(kW, kW);
  EXPECT_EQ(store->position(), Position::empty_position());
  auto before = store->query(q, PositionBound::unbounded(), QueryConfig(false));
  ASSERT_TRUE(before.has_value() && before->is_success());
  EXPECT_TRUE(before->result<WindowedIt>().entries.empty());
  EXPECT_EQ(before->position(), Position::empty_position());
  // The processor-facing fetch sees the cache.
  EXPECT_EQ(store->fetch(2, kW)->value(), 20);
  ASSERT_TRUE(store->flush().has_value());
  EXPECT_EQ(store->position(), Position::from_map({{"", {{0, 2}}}}));
  auto after = store->query(q, PositionBound::unbounded(), QueryConfig(false));
  ASSERT_TRUE(after.has_value() && after->is_success());
  EXPECT_EQ(after->result<WindowedIt>().entries.size(), 2u);
  EXPECT_EQ(after->position(), Position::from_map({{"", {{0, 2}}}}));
}

TEST(WindowStoresTest, RetainDuplicatesSwitchesCachingOff) {
  // Proves the builders drop the caching layer for a duplicates store: the put is visible to a
  // query at once, with its position.
  SegmentedTestContext ctx(0);
  WindowStoreOptions w;
  w.retain_duplicates = true;
  auto store =
      stores::window_store<int32_t, int32_t>(WindowSupplier::kInMemory, "w", w, {true, false});
  ASSERT_TRUE(store->init(ctx, *store).has_value());
  ctx.at("t", 4, 0);
  ASSERT_TRUE(store->put(1, 10, kW).has_value());
  EXPECT_EQ(store->position(), Position::from_map({{"t", {{0, 4}}}}));
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

TEST(WindowStoresTest, RestoreDropsExpiredWindowsAndMergesPositions) {
  // Proves restore goes through put(): records whose window has expired by the stream time the
  // restore reached are dropped, tombstones delete, and with the switch on the "c" headers merge.
  SegmentedTestContext ctx(0, /*tag=*/"", /*consistency=*/true);
  InMemoryWindowStore store("w", 100, 5, false);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  const Position a1 = Position::from_map({{"A", {{0, 1}}}});
  const Position a3 = Position::from_map({{"A", {{0, 3}}}, {"B", {{0, 2}}}});
  ASSERT_TRUE(ctx.restore({changelog_record(0, 1, 0, "old", &a1),
                           changelog_record(1, 1, 500, "new", nullptr),
                           changelog_record(2, 2, 300, "late", nullptr),  // expired: 300 <= 400
                           changelog_record(3, 3, 450, "x", nullptr),
                           changelog_record(4, 3, 450, std::nullopt, &a3)})
                  .has_value());
  EXPECT_EQ(store.window_starts(), (std::vector<int64_t>{500}));
  EXPECT_EQ(store.fetch(int_key(1), 500)->value(), Bytes("new"));
  EXPECT_EQ(store.position(), Position::from_map({{"A", {{0, 3}}}, {"B", {{0, 2}}}}));
}

}  // namespace
}  // namespace iq
