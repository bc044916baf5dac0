// Unit tests of the session store family: InMemorySessionStore and RocksDBSessionStore (retention,
// expiry, iteration order, restore, positions), the change-logging and caching session layers,
// the metered typed layer and IQv2 on session stores, including the store-level expectations of
// IQv2StoreIntegrationTest's IN_MEMORY_SESSION and ROCKS_SESSION PAPI runs.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "iq/key_query.h"
#include "iq/range_query.h"
#include "iq/window_key_query.h"
#include "state/position_serde.h"
#include "state/segmented_test_context.h"
#include "state/session_stores.h"

namespace iq {
namespace {

constexpr int64_t kW = 1700000100000;
using SessionIt = KeyValueIterator<Windowed<int32_t>, int32_t>;

Bytes int_key(int32_t k) {
  return Serde<int32_t>::serialize(k);
}
Windowed<Bytes> session(int32_t key, int64_t start, int64_t end) {
  return {int_key(key), start, end};
}

struct Record {
  int32_t key, value;
  int64_t ts;
};
// IQv2StoreIntegrationTest's input, as in window_stores_test.cc.
const std::vector<Record> kPartition0 = {{0, 0, 0},      {0, 1, 120000}, {2, 4, 480000},
                                         {2, 5, 600000}, {4, 8, 960000}, {4, 9, 1080000}};
const std::vector<Record> kPartition1 = {
    {1, 2, 240000}, {1, 3, 360000}, {3, 6, 720000}, {3, 7, 840000}};

struct Partition {
  std::unique_ptr<SegmentedTestContext> context;
  std::unique_ptr<MeteredSessionStore<int32_t, int32_t>> store;
};

// The PAPI session processor: each record becomes its own session [ts, ts].
Partition papi_partition(int32_t partition, const std::vector<Record>& records, SessionSupplier s,
                         const StoreBuilderOptions& o) {
  Partition p{std::make_unique<SegmentedTestContext>(partition),
              stores::session_store<int32_t, int32_t>(s, "kv-store", SessionStoreOptions{}, o)};
  EXPECT_TRUE(p.store->init(*p.context, *p.store).has_value());
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    p.context->at("input-topic", static_cast<int64_t>(i), kW + r.ts);
    EXPECT_TRUE(p.store->put(Windowed<int32_t>{r.key, kW + r.ts, kW + r.ts}, r.value).has_value());
  }
  EXPECT_TRUE(p.store->flush().has_value());
  return p;
}

std::vector<Partition> both_partitions(SessionSupplier s, const StoreBuilderOptions& o) {
  std::vector<Partition> parts;
  parts.push_back(papi_partition(0, kPartition0, s, o));
  parts.push_back(papi_partition(1, kPartition1, s, o));
  return parts;
}

const SessionSupplier kSuppliers[] = {SessionSupplier::kInMemory, SessionSupplier::kRocksDB};

TEST(SessionStoresTest, KafkaSessionRangeQueryPapiRows) {
  // Proves shouldHandleSessionKeyPAPIQueries' six withKey rows for IN_MEMORY_SESSION and
  // ROCKS_SESSION over every cache x log combination: each key's two sessions, none for 999,
  // successes without execution info, and each partition's position at its last offset.
  const std::vector<std::pair<int32_t, std::set<int32_t>>> rows = {
      {0, {0, 1}}, {1, {2, 3}}, {2, {4, 5}}, {3, {6, 7}}, {4, {8, 9}}, {999, {}}};
  for (SessionSupplier s : kSuppliers) {
    for (bool cache : {false, true}) {
      for (bool log : {false, true}) {
        auto parts = both_partitions(s, {cache, log});
        for (const auto& [key, want] : rows) {
          std::set<int32_t> got;
          for (auto& p : parts) {
            auto r = p.store->query(WindowRangeQuery<int32_t, int32_t>::with_key(key),
                                    PositionBound::unbounded(), QueryConfig(false));
            ASSERT_TRUE(r.has_value());
            ASSERT_TRUE(r->is_success()) << r->to_string();
            EXPECT_TRUE(r->execution_info().empty());
            for (const auto& e : r->result<SessionIt>().entries) {
              EXPECT_EQ(e.key.key, key);
              EXPECT_EQ(e.key.start_ms, e.key.end_ms);
              got.insert(e.value);
            }
          }
          EXPECT_EQ(got, want) << to_string(s) << " cache=" << cache << " log=" << log
                               << " key=" << key;
        }
        EXPECT_EQ(parts[0].store->position(), Position::from_map({{"input-topic", {{0, 5}}}}));
        EXPECT_EQ(parts[1].store->position(), Position::from_map({{"input-topic", {{1, 3}}}}));
      }
    }
  }
}

TEST(SessionStoresTest, WindowStartRangeIsRejectedByTheMeteredSessionStore) {
  // Proves the window-start form fails UNKNOWN_QUERY_TYPE with Kafka's exact message (Instant
  // rendering, "support" without the s) and no position, for every supplier x cache x log.
  for (SessionSupplier s : kSuppliers) {
    for (bool cache : {false, true}) {
      for (bool log : {false, true}) {
        auto p = papi_partition(0, kPartition0, s, {cache, log});
        auto r = p.store->query(WindowRangeQuery<int32_t, int32_t>::with_window_start_range(0, 0),
                                PositionBound::unbounded(), QueryConfig(false));
        ASSERT_TRUE(r.has_value() && r->is_failure());
        EXPECT_EQ(r->failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
        EXPECT_EQ(*r->failure_message(),
                  "This store (class org.apache.kafka.streams.state.internals.MeteredSessionStore)"
                  " doesn't know how to execute the given query (WindowRangeQuery{key=Optional."
                  "empty, timeFrom=Optional[1970-01-01T00:00:00Z], timeTo=Optional[1970-01-01T00:"
                  "00:00Z]}) because SessionStores only support WindowRangeQuery.withKey. Contact "
                  "the store maintainer if you need support for a new query type.");
        EXPECT_FALSE(r->position().has_value());
      }
    }
  }
}

TEST(SessionStoresTest, OtherQueriesAreBoundCheckedThenUnknownAtTheOwner) {
  // Proves KeyQuery, RangeQuery and WindowKeyQuery pass the metered session layer, are
  // bound-checked by the owner (NOT_UP_TO_BOUND for an unmet bound), and otherwise answer
  // UNKNOWN_QUERY_TYPE naming InMemorySessionStore or RocksDBSessionStore, with its position.
  const Position at5 = Position::from_map({{"input-topic", {{0, 5}}}});
  const auto kq = KeyQuery<int32_t, int32_t>::with_key(0);
  const auto rq = RangeQuery<int32_t, int32_t>::with_no_bounds();
  const auto wq = WindowKeyQuery<int32_t, int32_t>::with_key_and_window_start_range(0, 0, kW * 2);
  for (SessionSupplier s : kSuppliers) {
    auto p = papi_partition(0, kPartition0, s, {false, true});
    const std::string owner =
        s == SessionSupplier::kInMemory ? "InMemorySessionStore" : "RocksDBSessionStore";
    for (const Query* q : std::vector<const Query*>{&kq, &rq, &wq}) {
      auto r = p.store->query(*q, PositionBound::unbounded(), QueryConfig(false));
      ASSERT_TRUE(r.has_value() && r->is_failure());
      EXPECT_EQ(r->failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
      EXPECT_NE(r->failure_message()->find("(class org.apache.kafka.streams.state.internals." +
                                           owner + ")"),
                std::string::npos)
          << *r->failure_message();
      EXPECT_EQ(r->position(), at5);
      auto bounded =
          p.store->query(*q, PositionBound::at(Position::from_map({{"input-topic", {{0, 6}}}})),
                         QueryConfig(false));
      ASSERT_TRUE(bounded.has_value() && bounded->is_failure());
      EXPECT_EQ(bounded->failure_reason(), FailureReason::NOT_UP_TO_BOUND);
    }
  }
}

TEST(SessionStoresTest, CachingSessionLayerAnswersQueriesOnlyAfterFlush) {
  // Proves the caching session layer's flush-only IQv2 view (it overrides neither query nor
  // getPosition): position {} and no sessions before the flush although the processor-facing
  // fetch sees the cache; the sessions and {"":{0:2}} after it.
  for (SessionSupplier s : kSuppliers) {
    SegmentedTestContext ctx(0, to_string(s));
    auto store =
        stores::session_store<int32_t, int32_t>(s, "s", SessionStoreOptions{}, {true, false});
    ASSERT_TRUE(store->init(ctx, *store).has_value());
    ctx.at("", 1, 0);
    ASSERT_TRUE(store->put(Windowed<int32_t>{1, kW, kW + 10}, 10).has_value());
    ctx.at("", 2, 0);
    ASSERT_TRUE(store->put(Windowed<int32_t>{1, kW + 20, kW + 30}, 20).has_value());
    ctx.at("", 3, 0);
    const auto q = WindowRangeQuery<int32_t, int32_t>::with_key(1);
    auto before = store->query(q, PositionBound::unbounded(), QueryConfig(false));
    ASSERT_TRUE(before.has_value() && before->is_success());
    EXPECT_TRUE(before->result<SessionIt>().entries.empty());
    EXPECT_EQ(before->position(), Position::empty_position());
    EXPECT_EQ(store->fetch(1)->entries.size(), 2u);
    EXPECT_EQ(store->fetch_session(1, kW + 20, kW + 30)->value(), 20);
    ASSERT_TRUE(store->flush().has_value());
    auto after = store->query(q, PositionBound::unbounded(), QueryConfig(false));
    ASSERT_TRUE(after.has_value() && after->is_success());
    EXPECT_EQ(after->result<SessionIt>().entries.size(), 2u);
    EXPECT_EQ(after->position(), Position::from_map({{"", {{0, 2}}}}));
    // A cached remove hides the session from the processor before any flush.
    ASSERT_TRUE(store->remove(Windowed<int32_t>{1, kW, kW + 10}).has_value());
    EXPECT_EQ(store->fetch(1)->entries.size(), 1u);
  }
}

TEST(SessionStoresTest, FindSessionsOrderDiffersBetweenInMemoryAndRocksDB) {
  // Proves the two owners' orders for one key: in-memory goes by end ascending and, quirk,
  // start DESCENDING within one end; RocksDB by (end, start) ascending; backward reverses each.
  for (SessionSupplier s : kSuppliers) {
    SegmentedTestContext ctx(0, to_string(s));
    auto [store, interval] = stores::supply_session(s, "s", SessionStoreOptions{});
    ASSERT_TRUE(store->init(ctx, *store).has_value());
    ASSERT_TRUE(store->put(session(1, 10, 50), Bytes("a")).has_value());
    ASSERT_TRUE(store->put(session(1, 30, 50), Bytes("b")).has_value());
    ASSERT_TRUE(store->put(session(1, 5, 20), Bytes("c")).has_value());
    ASSERT_TRUE(store->put(session(2, 5, 20), Bytes("other")).has_value());
    auto values = [&](bool forward) {
      std::string out;
      auto it = store->find_sessions(int_key(1), 0, 100, forward);
      EXPECT_TRUE(it.has_value());
      for (const auto& e : it->entries) out += e.value.get();
      return out;
    };
    if (s == SessionSupplier::kInMemory) {
      EXPECT_EQ(values(true), "cba");
      EXPECT_EQ(values(false),
                "ab"
                "c");
    } else {
      EXPECT_EQ(values(true), "cab");
      EXPECT_EQ(values(false), "bac");
    }
    // earliestSessionEnd 21 drops the session ending at 20; latestSessionStart 20 drops start 30.
    auto it = store->find_sessions(int_key(1), 21, 20, true);
    ASSERT_TRUE(it.has_value());
    ASSERT_EQ(it->entries.size(), 1u) << to_string(s);
    EXPECT_EQ(it->entries[0].key, session(1, 10, 50));
  }
}

TEST(SessionStoresTest, RetentionDropsExpiredSessionsAsEachOwnerDoes) {
  // Proves expiry by session end: the in-memory store (retention 100) drops a put whose end is
  // <= streamTime - 100 and still advances the position; the RocksDB store (retention 100 s,
  // segment interval 60 s) keeps a late session while its segment lives but hides it below the
  // read floor, and drops puts into an expired segment WITHOUT advancing the position.
  {
    SegmentedTestContext ctx(0, "mem");
    InMemorySessionStore store("s", 100);
    ASSERT_TRUE(store.init(ctx, store).has_value());
    ctx.at("in", 1, 0);
    ASSERT_TRUE(store.put(session(1, 0, 200), Bytes("x")).has_value());
    ctx.at("in", 2, 0);
    ASSERT_TRUE(store.put(session(2, 90, 100), Bytes("late")).has_value());  // 100 <= 200 - 100
    EXPECT_EQ(store.position(), Position::from_map({{"in", {{0, 2}}}}));
    EXPECT_EQ(store.end_times(), (std::vector<int64_t>{200}));
    ctx.at("in", 3, 0);
    ASSERT_TRUE(store.put(session(2, 95, 101), Bytes("kept")).has_value());
    EXPECT_EQ(store.fetch_session(int_key(2), 95, 101)->value(), Bytes("kept"));
  }
  {
    SegmentedTestContext ctx(0, "rocks");
    RocksDBSessionStore store("s", 100000, 60000);
    ASSERT_TRUE(store.init(ctx, store).has_value());
    ctx.at("in", 1, 0);
    ASSERT_TRUE(store.put(session(1, 0, 200000), Bytes("x")).has_value());
    // Floor 100001, min live segment segmentId(100000) = 1: end 70000 is stored but hidden.
    ctx.at("in", 2, 0);
    ASSERT_TRUE(store.put(session(2, 90, 70000), Bytes("hidden")).has_value());
    EXPECT_EQ(store.position(), Position::from_map({{"in", {{0, 2}}}}));
    EXPECT_FALSE(store.fetch_session(int_key(2), 90, 70000)->has_value());
    EXPECT_TRUE(store.fetch(int_key(2), true)->entries.empty());
    ctx.at("in", 3, 0);
    ASSERT_TRUE(store.put(session(3, 0, 10), Bytes("dead")).has_value());  // segment 0 expired
    EXPECT_EQ(store.position(), Position::from_map({{"in", {{0, 2}}}}));
    EXPECT_EQ(store.bytes_store().segment_ids(), (std::vector<int64_t>{1, 3}));
  }
}

TEST(SessionStoresTest, RemoveDoesNotAdvanceThePositionButPutNullDoes) {
  // Proves remove(session) deletes without a position update in both owners, while
  // put(session, null) deletes and advances it.
  for (SessionSupplier s : kSuppliers) {
    SegmentedTestContext ctx(0, to_string(s));
    auto [store, interval] = stores::supply_session(s, "s", SessionStoreOptions{});
    ASSERT_TRUE(store->init(ctx, *store).has_value());
    ctx.at("in", 1, 0);
    ASSERT_TRUE(store->put(session(1, 10, 20), Bytes("a")).has_value());
    ASSERT_TRUE(store->put(session(2, 10, 20), Bytes("b")).has_value());
    ctx.at("in", 2, 0);
    ASSERT_TRUE(store->remove(session(1, 10, 20)).has_value());
    EXPECT_FALSE(store->fetch_session(int_key(1), 10, 20)->has_value());
    EXPECT_EQ(store->position(), Position::from_map({{"in", {{0, 1}}}})) << to_string(s);
    ctx.at("in", 3, 0);
    ASSERT_TRUE(store->put(session(2, 10, 20), std::nullopt).has_value());
    EXPECT_FALSE(store->fetch_session(int_key(2), 10, 20)->has_value());
    EXPECT_EQ(store->position(), Position::from_map({{"in", {{0, 3}}}})) << to_string(s);
  }
}

TEST(SessionStoresTest, ChangeLoggingLogsSessionKeyAndTombstoneForRemove) {
  // Proves the changelog records: key [key][end][start], the aggregate, the record timestamp and
  // the inner position after the write; a remove logs a tombstone with the unchanged position.
  SegmentedTestContext ctx(0);
  auto store = stores::session_store<int32_t, int32_t>(SessionSupplier::kInMemory, "s",
                                                       SessionStoreOptions{}, {false, true});
  ASSERT_TRUE(store->init(ctx, *store).has_value());
  ctx.at("in", 7, 1234);
  ASSERT_TRUE(store->put(Windowed<int32_t>{3, 50, 60}, 42).has_value());
  ctx.at("in", 8, 1235);
  ASSERT_TRUE(store->remove(Windowed<int32_t>{3, 50, 60}).has_value());
  ASSERT_EQ(ctx.logged.size(), 2u);
  EXPECT_EQ(ctx.logged[0].key, session_key_schema::to_binary(int_key(3), 50, 60));
  EXPECT_EQ(session_key_schema::extract_end_timestamp(ctx.logged[0].key), 60);
  EXPECT_EQ(session_key_schema::extract_start_timestamp(ctx.logged[0].key), 50);
  EXPECT_EQ(ctx.logged[0].value, Serde<int32_t>::serialize(42));
  EXPECT_EQ(ctx.logged[0].timestamp, 1234);
  EXPECT_EQ(ctx.logged[0].position, Position::from_map({{"in", {{0, 7}}}}));
  EXPECT_FALSE(ctx.logged[1].value.has_value());
  EXPECT_EQ(ctx.logged[1].timestamp, 1235);
  EXPECT_EQ(ctx.logged[1].position, Position::from_map({{"in", {{0, 7}}}}));
}

ConsumerRecord changelog_record(int64_t offset, int32_t key, int64_t start, int64_t end,
                                std::optional<std::string> value, const Position* position) {
  ConsumerRecord r;
  r.topic = "app-s-changelog";
  r.offset = offset;
  r.key = session_key_schema::to_binary(int_key(key), start, end);
  if (value) r.value = Bytes(*value);
  if (position != nullptr) {
    r.headers.push_back({"v", Bytes(std::string(1, '\0'))});
    r.headers.push_back({"c", Bytes(position_serde::serialize_padded(*position))});
  }
  return r;
}

TEST(SessionStoresTest, RestoreDropsExpiredSessionsAsEachOwnerDoes) {
  // Proves restore: the in-memory store restores through put() in order (a record expired only
  // by a later record is kept, and every "c" header merges); the RocksDB store advances its
  // stream time over the whole batch first and drops records of expired segments, headers too.
  const Position p1 = Position::from_map({{"A", {{0, 1}}}});
  const Position p2 = Position::from_map({{"A", {{0, 2}}}, {"B", {{0, 4}}}});
  const Position p3 = Position::from_map({{"A", {{0, 3}}}});
  const std::vector<ConsumerRecord> batch = {
      changelog_record(0, 1, 0, 10, "early", &p2),  // expired by the last record
      changelog_record(1, 2, 0, 130000, "x", nullptr),
      changelog_record(2, 2, 0, 130000, std::nullopt, &p1),
      changelog_record(3, 3, 0, 200000, "top", &p3)};
  {
    SegmentedTestContext ctx(0, "mem", /*consistency=*/true);
    InMemorySessionStore store("s", 100000);
    ASSERT_TRUE(store.init(ctx, store).has_value());
    ASSERT_TRUE(ctx.restore(batch).has_value());
    EXPECT_EQ(store.end_times(), (std::vector<int64_t>{200000}));  // 10 removed by the last put
    EXPECT_EQ(store.position(), Position::from_map({{"A", {{0, 3}}}, {"B", {{0, 4}}}}));
  }
  {
    SegmentedTestContext ctx(0, "rocks", /*consistency=*/true);
    RocksDBSessionStore store("s", 100000, 60000);
    ASSERT_TRUE(store.init(ctx, store).has_value());
    ASSERT_TRUE(ctx.restore(batch).has_value());
    EXPECT_EQ(store.bytes_store().segment_ids(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(store.position(), Position::from_map({{"A", {{0, 3}}}}));
    EXPECT_FALSE(store.fetch_session(int_key(2), 0, 130000)->has_value());
    EXPECT_EQ(store.fetch_session(int_key(3), 0, 200000)->value(), Bytes("top"));
  }
}

TEST(SessionStoresTest, RocksDBSessionStoreSurvivesARestart) {
  // Proves the RocksDB session store's data and committed position survive a close and reopen
  // (segments found in <task dir>/s/), while the in-memory one starts empty.
  SegmentedTestContext ctx(0);
  {
    RocksDBSessionStore store("s", 100000, 60000);
    ASSERT_TRUE(store.init(ctx, store).has_value());
    ctx.at("in", 4, 0);
    ASSERT_TRUE(store.put(session(1, 100, 70000), Bytes("v")).has_value());
    ASSERT_TRUE(store.flush().has_value());
    ASSERT_TRUE(ctx.commit().has_value());
    store.close();
  }
  EXPECT_TRUE(ctx.fs().exists(ctx.state_dir() + "/s/s.60000"));
  RocksDBSessionStore store("s", 100000, 60000);
  ASSERT_TRUE(store.init(ctx, store).has_value());
  EXPECT_EQ(store.position(), Position::from_map({{"in", {{0, 4}}}}));
  EXPECT_EQ(store.fetch_session(int_key(1), 100, 70000)->value(), Bytes("v"));
}

}  // namespace
}  // namespace iq
