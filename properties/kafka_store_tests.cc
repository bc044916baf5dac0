// Kafka's own IQv2 expectations at store level: the key-value and common checks of
// IQv2StoreIntegrationTest (every KV store type x cache x log x api, the 10-record input, every
// expected value, order and position; IQv2StoreIntegrationTest at 1eb7644), run against the real
// store stacks of both input partitions.

#include <gtest/gtest.h>

#include <regex>

#include "iq/state_query_result.h"
#include "iq/window_key_query.h"
#include "store_harness.h"

namespace iq::properties {
namespace {

constexpr int64_t kW = 1700000100000;  // a multiple of 300000: the test's WINDOW_START

enum class StoreType { IN_MEMORY_KV, IN_MEMORY_LRU, ROCKS_KV, TIME_ROCKS_KV };

struct StoreRun {
  StoreType type;
  bool cache;
  bool log;
  StoreApi api;
};

std::string run_name(const testing::TestParamInfo<StoreRun>& info) {
  static const char* types[] = {"IN_MEMORY_KV", "IN_MEMORY_LRU", "ROCKS_KV", "TIME_ROCKS_KV"};
  const StoreRun& r = info.param;
  return std::string(types[static_cast<int>(r.type)]) + (r.cache ? "_cache" : "_nocache") +
         (r.log ? "_log" : "_nolog") + (r.api == StoreApi::kDsl ? "_DSL" : "_PAPI");
}

// A user-defined query type no store knows (IQv2StoreIntegrationTest's UnknownQuery).
class UnknownQuery final : public Query {
 public:
  QueryKind kind() const override { return QueryKind::Custom; }
  bool is_raw() const override { return false; }
  std::string to_string() const override {
    return java_object_string(
        "org.apache.kafka.streams.integration.IQv2StoreIntegrationTest$UnknownQuery", "");
  }
  std::string describe() const override { return "UnknownQuery"; }
};

class IQv2StoreIntegrationTest : public testing::TestWithParam<StoreRun> {
 protected:
  void SetUp() override {
    const StoreRun& r = GetParam();
    for (int32_t p = 0; p < 2; ++p) {
      StoreConfiguration c;
      c.supplier = supplier(r.type);
      // PAPI uses the plain builder only for ROCKS_KV; the other PAPI stores are timestamped.
      c.api = (r.api == StoreApi::kPapi && r.type == StoreType::ROCKS_KV) ? StoreApi::kPapi
                                                                          : StoreApi::kDsl;
      c.caching = r.cache;
      c.logging = r.log;
      c.partition = p;
      const auto dir =
          std::filesystem::path(testing::TempDir()) /
          ("iq2-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) +
           "-" + std::to_string(p));
      std::string safe = dir.string();
      std::replace(safe.begin(), safe.end(), '/', '_');
      partitions_.push_back(
          std::make_unique<StoreHarness>(c, std::filesystem::path(testing::TempDir()) / safe));
    }
    // IQV2_STORE_10: key = i/2, value = i, timestamp = W + 120000 i, partition = key % 2.
    int64_t next_offset[2] = {0, 0};
    for (int32_t i = 0; i < 10; ++i) {
      const int32_t key = i / 2;
      const int32_t p = key % 2;
      partitions_[p]->process(
          {next_offset[p]++, key, int64_t{i}, kW + 120000LL * i, WriteKind::kPut});
    }
    ASSERT_EQ(next_offset[0], 6);
    ASSERT_EQ(next_offset[1], 4);
    // The test waits across commits (commit.interval.ms = 100), so caches have been flushed.
    for (auto& h : partitions_) h->commit();
  }

  static KeyValueSupplier supplier(StoreType t) {
    switch (t) {
      case StoreType::IN_MEMORY_KV:
        return KeyValueSupplier::kInMemory;
      case StoreType::IN_MEMORY_LRU:
        return KeyValueSupplier::kLruMap;
      case StoreType::ROCKS_KV:
        return KeyValueSupplier::kRocksDb;
      case StoreType::TIME_ROCKS_KV:
        return KeyValueSupplier::kRocksDbTimestamped;
    }
    return KeyValueSupplier::kInMemory;
  }

  // KafkaStreams#query over partitions {0,1} of one instance hosting both tasks.
  base::Expected<StateQueryResult, StreamsError> query(const Query& q, const PositionBound& bound,
                                                       bool execution_info = false) {
    StateQueryResult result;
    for (int32_t p = 0; p < 2; ++p) {
      auto r = partitions_[p]->query(q, bound, execution_info);
      if (!r) return base::unexpected(r.error());
      result.add_result(p, std::move(*r));
    }
    return result;
  }

  static PositionBound input_position() {
    return PositionBound::at(Position::from_map({{"input-topic", {{0, 5}, {1, 3}}}}));
  }
  static Position position_0() { return Position::from_map({{"input-topic", {{0, 5}}}}); }

  template <typename V>
  static std::vector<V> concatenated_values(const StateQueryResult& r) {
    std::vector<V> out;
    for (const auto& [p, qr] : r.partition_results()) {
      EXPECT_TRUE(qr.is_success()) << "partition " << p << ": " << qr.to_string();
      if (!qr.is_success()) continue;
      EXPECT_TRUE(qr.execution_info().empty());
      for (const auto& kv : qr.template result<KeyValueIterator<int32_t, V>>().entries)
        out.push_back(kv.value);
    }
    return out;
  }

  bool plain_papi() const {
    return GetParam().api == StoreApi::kPapi && GetParam().type == StoreType::ROCKS_KV;
  }
  bool adapter_dsl() const {
    return GetParam().api == StoreApi::kDsl && GetParam().type == StoreType::ROCKS_KV;
  }

  std::vector<std::unique_ptr<StoreHarness>> partitions_;
};

// shouldRejectUnknownQuery: a query class no store knows fails with UNKNOWN_QUERY_TYPE and
// Kafka's message on every partition, with a position and no execution info.
TEST_P(IQv2StoreIntegrationTest, UnknownQueryIsRejectedOnEveryPartition) {
  auto r = query(UnknownQuery(), PositionBound::unbounded());
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->partition_results().size(), 2u);
  const std::regex message(
      "This store \\(.*\\) doesn't know how to execute the given query \\(.*\\)\\. Contact the "
      "store maintainer if "
      "you need support for a new query type\\.");
  for (const auto& [p, qr] : r->partition_results()) {
    ASSERT_TRUE(qr.is_failure());
    EXPECT_EQ(qr.failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
    EXPECT_TRUE(std::regex_match(*qr.failure_message(), message)) << *qr.failure_message();
    EXPECT_TRUE(qr.execution_info().empty());
    EXPECT_TRUE(qr.position().has_value())
        << "the position owner attaches its position to every outcome";
  }
}

// shouldCollectExecutionInfo and shouldCollectExecutionInfoUnderFailure.
TEST_P(IQv2StoreIntegrationTest, ExecutionInfoIsCollectedOnSuccessAndFailure) {
  auto key = query(KeyQuery<int32_t, int64_t>::with_key(1), PositionBound::unbounded(), true);
  auto unknown = query(UnknownQuery(), PositionBound::unbounded(), true);
  ASSERT_TRUE(key.has_value());
  ASSERT_TRUE(unknown.has_value());
  for (int32_t p = 0; p < 2; ++p) {
    EXPECT_FALSE(key->partition_results().at(p).execution_info().empty());
    EXPECT_FALSE(unknown->partition_results().at(p).execution_info().empty());
  }
}

// shouldHandleKeyQuery: KeyQuery(2) answers the plain value 5 from partition 0 only, with
// position {input-topic:{0:5}}; partition 1 answers success with null.
TEST_P(IQv2StoreIntegrationTest, KeyQueryAnswersPlainValueFromOnePartition) {
  auto r = query(KeyQuery<int32_t, int64_t>::with_key(2), input_position());
  ASSERT_TRUE(r.has_value());
  const auto& p0 = r->partition_results().at(0);
  const auto& p1 = r->partition_results().at(1);
  ASSERT_TRUE(p0.is_success()) << p0.to_string();
  ASSERT_TRUE(p1.is_success()) << p1.to_string();
  EXPECT_EQ(p0.result<std::optional<int64_t>>(), std::optional<int64_t>(5));
  EXPECT_EQ(p1.result<std::optional<int64_t>>(), std::nullopt);
  EXPECT_FALSE(p0.failure_reason().has_value());
  EXPECT_EQ(*p0.position(), position_0());
  auto only = r->only_partition_result<int64_t>();
  ASSERT_TRUE(only.has_value());
  ASSERT_NE(*only, nullptr);
  EXPECT_EQ((*only)->result<std::optional<int64_t>>(), std::optional<int64_t>(5));
  EXPECT_EQ(r->position(), input_position().position());
}

// shouldHandleTimestampedKeyQuery: (5, W+600000), except the plain RocksDB store behind the DSL
// adapter without a cache (-1) and the plain PAPI store (not supported).
TEST_P(IQv2StoreIntegrationTest, TimestampedKeyQueryTimestampsPerStoreKind) {
  auto r = query(TimestampedKeyQuery<int32_t, int64_t>::with_key(2), input_position());
  ASSERT_TRUE(r.has_value());
  const auto& p0 = r->partition_results().at(0);
  if (plain_papi()) {
    ASSERT_TRUE(p0.is_failure());
    EXPECT_EQ(p0.failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
    return;
  }
  ASSERT_TRUE(p0.is_success()) << p0.to_string();
  const int64_t expected_ts = (adapter_dsl() && !GetParam().cache) ? -1 : kW + 600000;
  EXPECT_EQ(p0.result<std::optional<ValueAndTimestamp<int64_t>>>(),
            std::optional<ValueAndTimestamp<int64_t>>(ValueAndTimestamp<int64_t>{5, expected_ts}));
}

struct RangeCase {
  std::optional<int32_t> lower, upper;
  std::vector<int64_t> ascending, descending;
};
const RangeCase kRangeCases[] = {
    {0, 4, {1, 5, 9, 3, 7}, {9, 5, 1, 7, 3}},
    {1, 3, {5, 3, 7}, {5, 7, 3}},
    {3, std::nullopt, {9, 7}, {9, 7}},
    {std::nullopt, 3, {1, 5, 3, 7}, {5, 1, 7, 3}},
    {std::nullopt, std::nullopt, {1, 5, 9, 3, 7}, {9, 5, 1, 7, 3}},
};

// shouldHandleRangeQueries: inclusive bounds, open bounds, ANY executed ascending, per-partition
// key order, p0 then p1; the merged position is INPUT_POSITION.
TEST_P(IQv2StoreIntegrationTest, RangeQueriesInBothOrders) {
  for (const auto& c : kRangeCases) {
    auto any = query(RangeQuery<int32_t, int64_t>::with_range(c.lower, c.upper), input_position());
    auto desc =
        query(RangeQuery<int32_t, int64_t>::with_range(c.lower, c.upper).with_descending_keys(),
              input_position());
    ASSERT_TRUE(any.has_value());
    ASSERT_TRUE(desc.has_value());
    EXPECT_EQ(concatenated_values<int64_t>(*any), c.ascending);
    EXPECT_EQ(concatenated_values<int64_t>(*desc), c.descending);
    EXPECT_EQ(any->position(), input_position().position());
  }
}

// shouldHandleTimestampedRangeQueries: the same values with timestamps; -1 everywhere for the
// plain RocksDB store behind the DSL adapter (ranges bypass the cache); PAPI plain fails.
TEST_P(IQv2StoreIntegrationTest, TimestampedRangeQueriesCarryTimestampsPerStoreKind) {
  if (plain_papi()) {
    auto r = query(TimestampedRangeQuery<int32_t, int64_t>::with_range(0, 4), input_position());
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(r->partition_results().at(0).is_failure());
    return;
  }
  for (const auto& c : kRangeCases) {
    auto r = query(TimestampedRangeQuery<int32_t, int64_t>::with_range(c.lower, c.upper)
                       .with_descending_keys(),
                   input_position());
    ASSERT_TRUE(r.has_value());
    std::vector<int64_t> values;
    for (const auto& vt : concatenated_values<ValueAndTimestamp<int64_t>>(*r)) {
      values.push_back(vt.value);
      EXPECT_EQ(vt.timestamp, adapter_dsl() ? -1 : kW + 120000 * vt.value);
    }
    EXPECT_EQ(values, c.descending);
  }
}

// Support matrix (docs/iqv2-semantics.md §4): a window query on a key-value store checks the bound
// first, then answers UNKNOWN_QUERY_TYPE.
TEST_P(IQv2StoreIntegrationTest, WindowQueryOnKeyValueStoreChecksBoundThenUnknown) {
  const auto q = WindowKeyQuery<int32_t, int64_t>::with_key_and_window_start_range(0, kW, kW);
  auto met = query(q, input_position());
  auto unmet = query(q, PositionBound::at(Position::from_map({{"input-topic", {{0, 6}}}})));
  ASSERT_TRUE(met.has_value());
  ASSERT_TRUE(unmet.has_value());
  EXPECT_EQ(met->partition_results().at(0).failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
  EXPECT_EQ(unmet->partition_results().at(0).failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  EXPECT_EQ(unmet->partition_results().at(1).failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE)
      << "the bound names only partition 0, so partition 1 is not constrained";
}

std::vector<StoreRun> all_runs() {
  std::vector<StoreRun> runs;
  for (auto t : {StoreType::IN_MEMORY_KV, StoreType::IN_MEMORY_LRU, StoreType::ROCKS_KV,
                 StoreType::TIME_ROCKS_KV}) {
    for (bool cache : {true, false}) {
      for (bool log : {true, false}) {
        for (auto api : {StoreApi::kDsl, StoreApi::kPapi}) runs.push_back({t, cache, log, api});
      }
    }
  }
  return runs;
}

INSTANTIATE_TEST_SUITE_P(KeyValueStores, IQv2StoreIntegrationTest, testing::ValuesIn(all_runs()),
                         run_name);

}  // namespace
}  // namespace iq::properties
