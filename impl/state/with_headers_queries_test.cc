// The 2026-08-20 pin's IQ surface on the key-value stacks iqsim builds: KIP-1356's header queries
// answer UNKNOWN_QUERY_TYPE on every store without headers, before the bound check (pin delta
// 15, docs/kafka-2026-08-20.md §5), and the DSL adapter's ClassCastException of quirk 10 is still
// thrown for an inverted range at that pin, only naming ManagedKeyValueIterator (pin delta 19,
// 9ffc78db8a).

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>

#include "iq/range_query.h"
#include "iq/with_headers_queries.h"
#include "state/segmented_test_context.h"
#include "state/stores.h"

namespace iq {
namespace {

constexpr KeyValueSupplier kSuppliers[] = {KeyValueSupplier::kInMemory, KeyValueSupplier::kLruMap,
                                           KeyValueSupplier::kRocksDb,
                                           KeyValueSupplier::kRocksDbTimestamped};

// Writes keys 0..2 at offsets 0..2 of "input" through the store's put, then flushes the cache.
template <typename Store>
void fill(Store& store, SegmentedTestContext& ctx) {
  ASSERT_TRUE(store.init(ctx, store).has_value());
  for (int32_t k = 0; k < 3; ++k) {
    ctx.at("input", k, 100 + k);
    if constexpr (std::is_same_v<Store, MeteredTimestampedKeyValueStore<int32_t, int64_t>>) {
      ASSERT_TRUE(store.put(k, ValueAndTimestamp<int64_t>{k * 10, 100 + k}).has_value());
    } else {
      ASSERT_TRUE(store.put(k, k * 10).has_value());
    }
  }
  ASSERT_TRUE(store.flush().has_value());
}

template <typename Store>
void expect_unknown_before_bound(Store& store, const std::string& where) {
  const auto unmet = PositionBound::at(Position::from_map({{"input", {{0, 1'000}}}}));
  const auto key = TimestampedKeyWithHeadersQuery<int32_t, int64_t>::with_key(1).skip_cache();
  const auto range = TimestampedRangeWithHeadersQuery<int32_t, int64_t>::with_range(0, 2);
  for (const Query* q : std::initializer_list<const Query*>{&key, &range}) {
    for (IsolationLevel level :
         {IsolationLevel::READ_UNCOMMITTED, IsolationLevel::READ_COMMITTED}) {
      auto r = store.query(*q, unmet, QueryConfig(false, level));
      ASSERT_TRUE(r.has_value()) << where << " " << r.error().to_string();
      ASSERT_TRUE(r->is_failure()) << where;
      EXPECT_EQ(r->failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE) << where;
      EXPECT_EQ(r->position(), Position::from_map({{"input", {{0, 2}}}})) << where;
    }
  }
}

TEST(WithHeadersQueriesTest, KeyValueStacksAnswerUnknownQueryTypeBeforeTheBoundCheck) {
  // Proves that through the plain and the timestamped builder, cached or not, over every supplier,
  // both key-value header queries fail UNKNOWN_QUERY_TYPE although the bound is unmet, with the
  // position owner's position, under either isolation level.
  int tag = 0;
  for (KeyValueSupplier s : kSuppliers) {
    for (bool cache : {false, true}) {
      const StoreBuilderOptions o{cache, /*logging=*/true};
      const std::string where =
          "supplier=" + std::to_string(static_cast<int>(s)) + " cache=" + std::to_string(cache);
      {
        SegmentedTestContext ctx(0, std::to_string(tag++));
        auto plain = stores::key_value_store<int32_t, int64_t>(s, "kv", o);
        fill(*plain, ctx);
        expect_unknown_before_bound(*plain, "plain " + where);
      }
      {
        SegmentedTestContext ctx(0, std::to_string(tag++));
        auto timestamped = stores::timestamped_key_value_store<int32_t, int64_t>(s, "kv", o);
        fill(*timestamped, ctx);
        expect_unknown_before_bound(*timestamped, "timestamped " + where);
      }
    }
  }
}

TEST(WithHeadersQueriesTest, AdapterStillThrowsClassCastForAnInvertedRangeAtTheNewPin) {
  // Proves quirk 10 under both pins: a RangeQuery with lower > upper through the DSL adapter
  // over a plain RocksDB store throws ClassCastException, because RocksDBStore.range returns
  // KeyValueIterators.emptyIterator(), which is neither a RocksDbIterator (the old cast) nor a
  // ManagedKeyValueIterator (the cast since 9ffc78db8a). Only the message differs.
  for (KafkaPin pin : {KafkaPin::k2024_10_25, KafkaPin::k2026_08_20}) {
    SegmentedTestContext ctx(0, to_string(pin));
    ctx.set_kafka_pin(pin);
    auto store = stores::timestamped_key_value_store<int32_t, int64_t>(KeyValueSupplier::kRocksDb,
                                                                       "kv", {false, true});
    fill(*store, ctx);
    auto r = store->query(RangeQuery<int32_t, int64_t>::with_range(2, 0),
                          PositionBound::unbounded(), QueryConfig(false));
    ASSERT_FALSE(r.has_value()) << to_string(pin);
    EXPECT_EQ(r.error().kind, StreamsError::Kind::ClassCast);
    const std::string target =
        pin == KafkaPin::k2026_08_20 ? "ManagedKeyValueIterator" : "RocksDbIterator";
    EXPECT_NE(r.error().message.find("cannot be cast to class "
                                     "org.apache.kafka.streams.state.internals." +
                                     target),
              std::string::npos)
        << r.error().message;
    // An ordered range still answers under both pins.
    auto ok = store->query(RangeQuery<int32_t, int64_t>::with_range(0, 2),
                           PositionBound::unbounded(), QueryConfig(false));
    ASSERT_TRUE(ok.has_value() && ok->is_success()) << to_string(pin);
  }
}

}  // namespace
}  // namespace iq
