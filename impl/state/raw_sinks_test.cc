// Unit tests of the sinks a typed layer hands down with a raw KeyQuery or RangeQuery
// (iq/raw_sinks.h): every position owner answers through a sink exactly what it answers without
// one (the same entries in the same order, the same origin, value, failure and position), and the
// metered layer answers the same typed result whether the store below took its sink or not (the
// plain-to-timestamped adapter strips it).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "iq/key_query.h"
#include "iq/range_query.h"
#include "iq/raw_sinks.h"
#include "iq/timestamped_key_query.h"
#include "iq/timestamped_range_query.h"
#include "state/in_memory_key_value_store.h"
#include "state/memory_navigable_lru_cache.h"
#include "state/metered_key_value_store.h"
#include "state/rocksdb_store.h"
#include "state/rocksdb_timestamped_store.h"
#include "state/test_state_store_context.h"
#include "state/timestamped_adapters.h"

namespace iq {
namespace {

Bytes b(std::string_view s) {
  return Bytes::wrap(s);
}

// Records what it is handed, as owned copies (the views die with the call).
class RecordingEntrySink final : public RawEntrySink {
 public:
  void begin() override { ++begun; }
  void entry(std::string_view key, std::string_view value) override {
    entries.push_back({Bytes::wrap(key), Bytes::wrap(value)});
  }
  int begun = 0;
  std::vector<KeyValue<Bytes, Bytes>> entries;
};

class RecordingValueSink final : public RawValueSink {
 public:
  void value(std::optional<std::string_view> bytes) override {
    ++calls;
    got = bytes ? std::optional<Bytes>(Bytes::wrap(*bytes)) : std::nullopt;
  }
  int calls = 0;
  std::optional<Bytes> got;
};

class RawSinksTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string tmp = ::testing::TempDir();
    if (tmp.empty() || tmp.back() != '/') tmp += '/';
    root_ = tmp + "iqsim_raw_sinks_" + std::to_string(info->line()) + "_" + GetParam();
    ASSERT_TRUE(fs_.delete_recursively(root_).has_value());
    context_ = std::make_unique<TestStateStoreContext>(fs_, root_ + "/app/0_0");
    if (GetParam() == "rocksdb") store_ = std::make_unique<RocksDBStore>("s");
    if (GetParam() == "in_memory") store_ = std::make_unique<InMemoryKeyValueStore>("s");
    if (GetParam() == "lru") store_ = std::make_unique<MemoryNavigableLRUCache>("s", 100);
    ASSERT_NE(store_, nullptr);
    ASSERT_TRUE(store_->init(*context_, *store_).has_value());
    context_->at("input", 0, 0);
    for (const char* key : {"c", "\xff", "a", "b", "d", "bb"}) {
      ASSERT_TRUE(store_->put(b(key), b(std::string("value of ") + key)).has_value());
    }
    context_->at("input", 0, 7);
    ASSERT_TRUE(store_->put(b("e"), b("")).has_value());  // an empty value is a value
  }
  void TearDown() override {
    store_.reset();
    EXPECT_TRUE(fs_.delete_recursively(root_).has_value());
  }

  QueryOutcome ask(const Query& q) {
    return store_->query(q, PositionBound::unbounded(), QueryConfig(true));
  }

  PosixFileSystem fs_;
  std::string root_;
  std::unique_ptr<TestStateStoreContext> context_;
  std::unique_ptr<KeyValueBytesStore> store_;
};

TEST_P(RawSinksTest, RangeThroughASinkIsTheMaterializedRange) {
  // Proves: every bound shape and order gives the sink the entries, order and origin the raw
  // result carries without a sink, and the same position and execution info.
  using Range = RangeQuery<Bytes, Bytes>;
  const std::vector<Range> shapes = {
      Range::with_range(b("b"), b("d")),        Range::with_range(b("bb"), std::nullopt),
      Range::with_range(std::nullopt, b("bb")), Range::with_no_bounds(),
      Range::with_range(b("z"), b("a")),  // inverted: the empty iterator
      Range::with_range(b("x"), b("y")),  // nothing in range
  };
  for (const Range& shape : shapes) {
    for (const Range& q : {shape, shape.with_descending_keys(), shape.with_ascending_keys()}) {
      SCOPED_TRACE(q.to_string());
      auto plain = ask(q);
      RecordingEntrySink sink;
      auto through_sink = ask(q.with_entry_sink(&sink));
      ASSERT_TRUE(plain.has_value() && through_sink.has_value());
      ASSERT_TRUE(plain->is_success() && through_sink->is_success());
      const auto& expected = plain->result<BytesIterator>();
      const auto& carried = through_sink->result<BytesIterator>();
      EXPECT_EQ(sink.begun, 1);
      EXPECT_EQ(sink.entries, expected.entries);
      EXPECT_TRUE(carried.entries.empty());
      EXPECT_EQ(carried.origin, expected.origin);
      EXPECT_EQ(through_sink->position(), plain->position());
      EXPECT_EQ(through_sink->execution_info(), plain->execution_info());
    }
  }
  // The shapes reach both branches: some ranges are non-empty, the inverted one is empty.
  RecordingEntrySink all;
  ASSERT_TRUE(ask(RangeQuery<Bytes, Bytes>::with_no_bounds().with_entry_sink(&all)).has_value());
  EXPECT_EQ(all.entries.size(), 7U);
}

TEST_P(RawSinksTest, KeyQueryThroughASinkIsTheMaterializedValue) {
  // Proves: a present key, an empty value and an absent key reach the sink as the raw result
  // holds them, the raw result then holds nothing, and the position is the same.
  for (const char* key : {"a", "e", "zz"}) {
    SCOPED_TRACE(key);
    const auto q = KeyQuery<Bytes, Bytes>::with_key(b(key));
    auto plain = ask(q);
    RecordingValueSink sink;
    auto through_sink = ask(q.with_value_sink(&sink));
    ASSERT_TRUE(plain.has_value() && through_sink.has_value());
    ASSERT_TRUE(plain->is_success() && through_sink->is_success());
    EXPECT_EQ(sink.calls, 1);
    EXPECT_EQ(sink.got, plain->result<ValueBytes>());
    EXPECT_FALSE(through_sink->raw_result().has_value());
    EXPECT_EQ(through_sink->position(), plain->position());
  }
}

TEST_P(RawSinksTest, FailuresAreTheSameAndNeverReachTheSink) {
  // Proves: a bound the store does not meet, and a closed store, answer the same failure with or
  // without a sink, and the sink is not called.
  const auto bound = PositionBound::at(Position::empty_position().with_component("input", 0, 99));
  RecordingValueSink value_sink;
  RecordingEntrySink entry_sink;
  const auto key = KeyQuery<Bytes, Bytes>::with_key(b("a"));
  const auto range = RangeQuery<Bytes, Bytes>::with_range(b("a"), b("c"));
  auto unmet = store_->query(key.with_value_sink(&value_sink), bound, QueryConfig(false));
  ASSERT_TRUE(unmet.has_value());
  EXPECT_EQ(unmet->failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  EXPECT_EQ(unmet->failure_message(),
            store_->query(key, bound, QueryConfig(false))->failure_message());
  store_->close();
  auto closed_key = ask(key.with_value_sink(&value_sink));
  auto closed_range = ask(range.with_entry_sink(&entry_sink));
  auto plain_key = ask(key);
  auto plain_range = ask(range);
  ASSERT_EQ(closed_key.has_value(), plain_key.has_value());
  ASSERT_EQ(closed_range.has_value(), plain_range.has_value());
  if (plain_key.has_value()) {
    EXPECT_EQ(closed_key->failure_reason(), plain_key->failure_reason());
    EXPECT_EQ(closed_key->failure_message(), plain_key->failure_message());
  }
  if (plain_range.has_value()) {
    EXPECT_EQ(closed_range->failure_reason(), plain_range->failure_reason());
    EXPECT_EQ(closed_range->failure_message(), plain_range->failure_message());
  }
  EXPECT_EQ(value_sink.calls, plain_key.has_value() && plain_key->is_success() ? 1 : 0);
  if (GetParam() == "rocksdb") {  // the persistent store refuses queries once closed
    EXPECT_EQ(plain_key->failure_reason(), FailureReason::STORE_EXCEPTION);
    EXPECT_EQ(value_sink.calls, 0);
    EXPECT_TRUE(entry_sink.entries.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(PositionOwners, RawSinksTest,
                         ::testing::Values("rocksdb", "in_memory", "lru"));

// The metered layer over the plain-to-timestamped adapter (a plain RocksDB supplier behind the
// timestamped builder): the adapter rewrites the bytes below, so it passes the query down without
// the sink, and the typed layer decodes the converted bytes itself. The answers are those of
// Kafka's adapter: the value with timestamp -1.
class AdapterFallbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmp = ::testing::TempDir();
    if (tmp.empty() || tmp.back() != '/') tmp += '/';
    root_ = tmp + "iqsim_raw_sinks_adapter";
    ASSERT_TRUE(fs_.delete_recursively(root_).has_value());
    context_ = std::make_unique<TestStateStoreContext>(fs_, root_ + "/app/0_0");
    store_ = std::make_unique<MeteredTimestampedKeyValueStore<int32_t, int64_t>>(
        std::make_unique<KeyValueToTimestampedKeyValueByteStoreAdapter>(
            std::make_unique<RocksDBStore>("s")));
    ASSERT_TRUE(store_->init(*context_, *store_).has_value());
    context_->at("input", 0, 3);
    for (int32_t k = 1; k <= 3; ++k) {
      ASSERT_TRUE(store_->put(k, ValueAndTimestamp<int64_t>{k * 10, 1000 + k}).has_value());
    }
  }
  void TearDown() override {
    store_.reset();
    EXPECT_TRUE(fs_.delete_recursively(root_).has_value());
  }

  PosixFileSystem fs_;
  std::string root_;
  std::unique_ptr<TestStateStoreContext> context_;
  std::unique_ptr<MeteredTimestampedKeyValueStore<int32_t, int64_t>> store_;
};

TEST_F(AdapterFallbackTest, TypedAnswersAreDecodedFromTheAdaptersBytes) {
  // Proves: KeyQuery, TimestampedKeyQuery, RangeQuery and TimestampedRangeQuery all answer the
  // values with the adapter's timestamp -1 (an 8-byte plain value decoded as if it were
  // timestamped would be a BufferUnderflow failure instead).
  const PositionBound any = PositionBound::unbounded();
  auto key = store_->query(KeyQuery<int32_t, int64_t>::with_key(2), any, QueryConfig(false));
  ASSERT_TRUE(key.has_value() && key->is_success());
  EXPECT_EQ(key->result<std::optional<int64_t>>(), std::optional<int64_t>(20));
  auto missing = store_->query(KeyQuery<int32_t, int64_t>::with_key(9), any, QueryConfig(false));
  ASSERT_TRUE(missing.has_value() && missing->is_success());
  EXPECT_EQ(missing->result<std::optional<int64_t>>(), std::nullopt);
  auto timestamped =
      store_->query(TimestampedKeyQuery<int32_t, int64_t>::with_key(3), any, QueryConfig(false));
  ASSERT_TRUE(timestamped.has_value() && timestamped->is_success());
  const auto& vat = timestamped->result<std::optional<ValueAndTimestamp<int64_t>>>();
  ASSERT_TRUE(vat.has_value());
  EXPECT_EQ(vat->value, 30);
  EXPECT_EQ(vat->timestamp, -1);
  auto range = store_->query(RangeQuery<int32_t, int64_t>::with_range(1, 2).with_descending_keys(),
                             any, QueryConfig(false));
  ASSERT_TRUE(range.has_value() && range->is_success());
  const auto& entries = range->result<KeyValueIterator<int32_t, int64_t>>();
  EXPECT_EQ(entries.entries, (std::vector<KeyValue<int32_t, int64_t>>{{2, 20}, {1, 10}}));
  EXPECT_EQ(entries.origin, IteratorOrigin::Converted);
  auto trange = store_->query(TimestampedRangeQuery<int32_t, int64_t>::with_no_bounds(), any,
                              QueryConfig(false));
  ASSERT_TRUE(trange.has_value() && trange->is_success());
  const auto& tentries =
      trange->result<KeyValueIterator<int32_t, ValueAndTimestamp<int64_t>>>().entries;
  ASSERT_EQ(tentries.size(), 3U);
  EXPECT_EQ(tentries[2].key, 3);
  EXPECT_EQ(tentries[2].value.value, 30);
  EXPECT_EQ(tentries[2].value.timestamp, -1);
  EXPECT_EQ(range->position(), Position::empty_position().with_component("input", 0, 3));
}

}  // namespace
}  // namespace iq
