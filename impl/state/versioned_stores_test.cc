// Unit tests of the versioned store stack as Kafka's builder makes it
// (MeteredVersionedKeyValueStore
// -> ChangeLoggingVersionedKeyValueBytesStore -> VersionedKeyValueToBytesStoreAdapter ->
// RocksDBVersionedStore) and its IQv2 answers: the store-level expectations of Kafka's
// IQv2VersionedStoreIntegrationTest at the pinned commit (values, validFrom/validTo, order,
// positions, the snapshot under a concurrent write), then bounds, failure reasons and messages,
// what KeyQuery/RangeQuery and the other query classes get, execution info, the changelog the
// stack writes and a restore from it.
#include "state/versioned_stores.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "iq/key_query.h"
#include "iq/multi_versioned_key_query.h"
#include "iq/range_query.h"
#include "iq/timestamped_key_query.h"
#include "iq/versioned_key_query.h"
#include "iq/window_key_query.h"
#include "state/position_serde.h"

namespace iq {
namespace {

// A task context on real files that captures what the change-logging layer sends, as
// ProcessorContextImpl.logChange would (headers only with the consistency switch on).
class VersionedTestContext final : public StateStoreContext {
 public:
  VersionedTestContext(FileSystem& fs, std::string state_dir, bool consistency)
      : fs_(fs), state_dir_(std::move(state_dir)), consistency_(consistency) {}

  const std::string& application_id() const override { return app_; }
  TaskId task_id() const override { return TaskId{0, 0}; }
  const RecordContext* record_context() const override { return rc_ ? &*rc_ : nullptr; }
  void set_record_context(std::optional<RecordContext> c) override { rc_ = std::move(c); }
  bool consistency_enabled() const override { return consistency_; }
  Status log_change(const std::string& store_name, const Bytes& key, const ValueBytes& value,
                    int64_t timestamp, const Position& position) override {
    ConsumerRecord r;
    r.topic = changelog_topic(store_name);
    r.offset = static_cast<int64_t>(changelog.size());
    r.timestamp = timestamp;
    r.key = key;
    r.value = value;
    if (consistency_) {
      r.headers = {
          {store_query_utils::kVectorVersionHeader, Bytes(std::string(1, '\0'))},
          {store_query_utils::kVectorHeader, Bytes(position_serde::serialize_padded(position))}};
    }
    changelog.push_back(std::move(r));
    return ok_status();
  }
  void register_store(StateStore&, RestoreCallback restore, CommitCallback commit) override {
    restore_ = std::move(restore);
    commit_ = std::move(commit);
  }
  ThreadCache* cache() override { return nullptr; }
  const std::string& state_dir() const override { return state_dir_; }
  FileSystem& file_system() override { return fs_; }
  rocksdb::Env* rocksdb_env() override { return nullptr; }

  void at(int64_t offset, int64_t timestamp) {
    rc_ = RecordContext{"input-topic", 0, offset, timestamp, {}};
  }
  Status restore(const std::vector<ConsumerRecord>& records) { return restore_(records); }

  std::vector<ConsumerRecord> changelog;

 private:
  std::string app_ = "app";
  FileSystem& fs_;
  std::string state_dir_;
  bool consistency_;
  std::optional<RecordContext> rc_;
  RestoreCallback restore_;
  CommitCallback commit_;
};

using Store = MeteredVersionedKeyValueStore<int32_t, int32_t>;
using VKQ = VersionedKeyQuery<int32_t, int32_t>;
using MVKQ = MultiVersionedKeyQuery<int32_t, int32_t>;
using Record = VersionedRecord<int32_t>;

// IQv2VersionedStoreIntegrationTest's data: BASE_TIMESTAMP is 2023-01-01T10:00:00Z in SECONDS
// (Kafka's test takes INSTANT_SECONDS), used as milliseconds.
constexpr int64_t kBase = 1672567200;
constexpr int64_t kTs[] = {kBase, kBase + 10, kBase + 20, kBase + 30};
constexpr int32_t kValues[] = {2, 20, 200, 2000};
constexpr int32_t kRecordKey = 2;
constexpr int32_t kNonExistingKey = 3;
// Kafka's test asks "as of Instant.now()"; any instant after the records behaves the same.
constexpr int64_t kNow = 1733300000000;
constexpr int64_t kHour = 3'600'000;

class VersionedStoresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string tmp = ::testing::TempDir();
    if (tmp.empty() || tmp.back() != '/') tmp += '/';
    root_ = tmp + "iqsim_versioned_stack_" + info->name();
    ASSERT_TRUE(fs_.delete_recursively(root_).has_value());
  }
  void TearDown() override {
    store_.reset();
    restored_.reset();
    EXPECT_TRUE(fs_.delete_recursively(root_).has_value());
  }

  // The integration test's store: 1 day of history, 1-hour segments, logged; the four records
  // processed at offsets 0..3 of input-topic partition 0.
  void build(bool consistency = false) {
    context_ = std::make_unique<VersionedTestContext>(fs_, root_ + "/a/0_0", consistency);
    store_ = stores::versioned_key_value_store<int32_t, int32_t>(
        "versioned-store", VersionedStoreOptions{24 * kHour, kHour, true});
    ASSERT_TRUE(store_->init(*context_, *store_).has_value());
    for (int i = 0; i < 4; ++i) {
      context_->at(i, kTs[i]);
      auto r = store_->put(kRecordKey, kValues[i], kTs[i]);
      ASSERT_TRUE(r.has_value());
      EXPECT_EQ(*r, kPutReturnCodeValidToUndefined);
    }
  }

  static PositionBound bound_at(int64_t offset) {
    return PositionBound::at(Position::from_map({{"input-topic", {{0, offset}}}}));
  }

  QueryResult run(StateStore& store, const Query& q, const PositionBound& bound,
                  bool info = false) {
    auto r = store.query(q, bound, QueryConfig(info));
    EXPECT_TRUE(r.has_value()) << r.error().to_string();
    return r.has_value() ? std::move(*r)
                         : QueryResult::for_failure(FailureReason::STORE_EXCEPTION, "threw");
  }

  // shouldHandleVersionedKeyQuery.
  void expect_versioned(StateStore& store, const VKQ& q, int32_t value, int64_t ts,
                        std::optional<int64_t> valid_to) {
    const QueryResult r = run(store, q, bound_at(3));
    ASSERT_TRUE(r.is_success()) << q.describe() << ": " << r.to_string();
    const auto& record = r.result<std::optional<Record>>();
    ASSERT_TRUE(record.has_value()) << q.describe() << " returned null";
    EXPECT_EQ(*record, (Record{value, ts, valid_to})) << q.describe() << ": " << display(*record);
    EXPECT_TRUE(r.execution_info().empty());
  }
  // shouldVerifyGetNullForVersionedKeyQuery (getOnlyPartitionResult drops a null result).
  void expect_versioned_null(StateStore& store, const VKQ& q) {
    const QueryResult r = run(store, q, bound_at(3));
    ASSERT_TRUE(r.is_success()) << r.to_string();
    EXPECT_FALSE(r.result<std::optional<Record>>().has_value()) << q.describe();
  }
  // shouldHandleMultiVersionedKeyQuery: records lower..upper of the data, newest first unless
  // ascending, each valid until the next one (the last one open).
  void expect_multi(StateStore& store, const MVKQ& q, int lower, int upper) {
    const QueryResult r = run(store, q, bound_at(3));
    ASSERT_TRUE(r.is_success()) << q.describe() << ": " << r.to_string();
    EXPECT_TRUE(r.execution_info().empty());
    const auto& records = r.result<VersionedRecordIterator<int32_t>>().records;
    ASSERT_EQ(records.size(), static_cast<size_t>(upper - lower + 1)) << q.describe();
    const bool ascending = q.result_order() == ResultOrder::ASCENDING;
    int i = ascending ? lower : upper;
    for (const Record& rec : records) {
      const std::optional<int64_t> valid_to =
          i < 3 ? std::optional<int64_t>(kTs[i + 1]) : std::nullopt;
      EXPECT_EQ(rec, (Record{kValues[i], kTs[i], valid_to})) << q.describe() << " #" << i;
      i = ascending ? i + 1 : i - 1;
    }
  }
  void expect_multi_empty(StateStore& store, const MVKQ& q) {
    const QueryResult r = run(store, q, bound_at(3));
    ASSERT_TRUE(r.is_success()) << r.to_string();
    EXPECT_TRUE(r.result<VersionedRecordIterator<int32_t>>().records.empty()) << q.describe();
  }

  PosixFileSystem fs_;
  std::string root_;
  std::unique_ptr<VersionedTestContext> context_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<VersionedTestContext> restored_context_;
  std::unique_ptr<Store> restored_;
};

// IQv2VersionedStoreIntegrationTest.verifyStore, VersionedKeyQuery part: latest, as of a time, as
// of an older time (with validTo), before the first record, and a missing key.
TEST_F(VersionedStoresTest, KafkaVersionedKeyQueryExpectations) {
  build();
  expect_versioned(*store_, VKQ::with_key(kRecordKey), kValues[3], kTs[3], std::nullopt);
  expect_versioned(*store_, VKQ::with_key(kRecordKey).as_of(kNow), kValues[3], kTs[3],
                   std::nullopt);
  expect_versioned(*store_, VKQ::with_key(kRecordKey).as_of(kTs[3]), kValues[3], kTs[3],
                   std::nullopt);
  expect_versioned(*store_, VKQ::with_key(kRecordKey).as_of(kTs[0]), kValues[0], kTs[0], kTs[1]);
  expect_versioned_null(*store_, VKQ::with_key(kRecordKey).as_of(kTs[0] - 50));
  expect_versioned_null(*store_, VKQ::with_key(kNonExistingKey).as_of(kNow));
}

// IQv2VersionedStoreIntegrationTest.verifyStore, MultiVersionedKeyQuery part: all versions (ANY is
// newest first), ascending, a time range starting inside a version, ranges before the data and a
// missing key (empty in both orders).
TEST_F(VersionedStoresTest, KafkaMultiVersionedKeyQueryExpectations) {
  build();
  expect_multi(*store_, MVKQ::with_key(kRecordKey), 0, 3);
  expect_multi(*store_, MVKQ::with_key(kRecordKey).with_ascending_timestamps(), 0, 3);
  expect_multi(*store_, MVKQ::with_key(kRecordKey).from_time(kTs[1] + 5).to_time(kNow), 1, 3);
  expect_multi(*store_, MVKQ::with_key(kRecordKey).with_descending_timestamps(), 0, 3);
  const auto before = MVKQ::with_key(kRecordKey).from_time(kTs[0] - 100).to_time(kTs[0] - 50);
  expect_multi_empty(*store_, before);
  expect_multi_empty(*store_, before.with_ascending_timestamps());
  expect_multi_empty(*store_, MVKQ::with_key(kNonExistingKey));
  expect_multi_empty(*store_, MVKQ::with_key(kNonExistingKey).with_ascending_timestamps());
}

// IQv2VersionedStoreIntegrationTest.shouldHandleRaceCondition: a result taken before a write to
// the oldest version keeps the old value (Kafka reads from a RocksDB snapshot); a new query sees
// the write, at the new position.
TEST_F(VersionedStoresTest, KafkaSnapshotUnderConcurrentWrite) {
  build();
  const QueryResult before = run(*store_, MVKQ::with_key(kRecordKey), bound_at(3));
  ASSERT_TRUE(before.is_success());
  context_->at(4, kTs[0]);
  ASSERT_TRUE(store_->put(kRecordKey, 999999, kTs[0]).has_value());
  const auto& records = before.result<VersionedRecordIterator<int32_t>>().records;
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[3], (Record{kValues[0], kTs[0], kTs[1]}));
  const QueryResult after = run(*store_, MVKQ::with_key(kRecordKey), bound_at(4));
  ASSERT_TRUE(after.is_success()) << after.to_string();
  EXPECT_EQ(after.result<VersionedRecordIterator<int32_t>>().records.back(),
            (Record{999999, kTs[0], kTs[1]}));
  EXPECT_EQ(after.position(), Position::from_map({{"input-topic", {{0, 4}}}}));
}

// Every answer carries the owner's position; an unmet bound fails NOT_UP_TO_BOUND with Kafka's
// message and the position; an uninitialized stack answers "not initialized".
TEST_F(VersionedStoresTest, PositionsAndBounds) {
  build();
  const QueryResult ok = run(*store_, VKQ::with_key(kRecordKey), bound_at(3));
  EXPECT_EQ(ok.position(), Position::from_map({{"input-topic", {{0, 3}}}}));
  for (const Query* q : std::initializer_list<const Query*>{new VKQ(VKQ::with_key(kRecordKey)),
                                                            new MVKQ(MVKQ::with_key(kRecordKey))}) {
    std::unique_ptr<const Query> owned(q);
    const QueryResult r = run(*store_, *q, bound_at(4));
    ASSERT_TRUE(r.is_failure());
    EXPECT_EQ(r.failure_reason(), FailureReason::NOT_UP_TO_BOUND);
    EXPECT_EQ(*r.failure_message(),
              "For store partition 0, the current position "
              "Position{position={input-topic={0=3}}} is not yet up to the bound "
              "PositionBound{position=Position{position={input-topic={0=4}}}}");
    EXPECT_EQ(r.position(), Position::from_map({{"input-topic", {{0, 3}}}}));
  }
  // A bound for another partition number does not constrain this one.
  const QueryResult other =
      run(*store_, VKQ::with_key(kRecordKey),
          PositionBound::at(Position::from_map({{"input-topic", {{1, 99}}}})));
  EXPECT_TRUE(other.is_success());

  auto fresh = stores::versioned_key_value_store<int32_t, int32_t>("never-initialized", {});
  const QueryResult uninit = run(*fresh, VKQ::with_key(1), PositionBound::unbounded());
  ASSERT_TRUE(uninit.is_failure());
  EXPECT_EQ(uninit.failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  EXPECT_EQ(*uninit.failure_message(),
            "The store is not initialized yet, so it is not yet up to the bound "
            "PositionBound{position=Position{position={}}}");
}

// What the other query classes get (quirk 15): KeyQuery and RangeQuery throw
// UnsupportedOperationException out of the metered layer, whatever the bound; TimestampedKeyQuery
// is unknown to every handler, so UNKNOWN_QUERY_TYPE even with an unmet bound; a window query is a
// known class, so the bound is checked first, then UNKNOWN_QUERY_TYPE.
TEST_F(VersionedStoresTest, OtherQueryClassesOnAVersionedStore) {
  build();
  auto key = store_->query(KeyQuery<int32_t, int32_t>::with_key(kRecordKey), bound_at(99),
                           QueryConfig(false));
  ASSERT_FALSE(key.has_value());
  EXPECT_EQ(key.error().kind, StreamsError::Kind::UnsupportedOperation);
  EXPECT_EQ(key.error().message, "Versioned stores do not support KeyQuery queries at this time.");
  auto range = store_->query(RangeQuery<int32_t, int32_t>::with_no_bounds(),
                             PositionBound::unbounded(), QueryConfig(false));
  ASSERT_FALSE(range.has_value());
  EXPECT_EQ(range.error().kind, StreamsError::Kind::UnsupportedOperation);
  EXPECT_EQ(range.error().message,
            "Versioned stores do not support RangeQuery queries at this time.");

  const auto tkq = TimestampedKeyQuery<int32_t, int32_t>::with_key(kRecordKey);
  const QueryResult timestamped = run(*store_, tkq, bound_at(99));
  ASSERT_TRUE(timestamped.is_failure());
  EXPECT_EQ(timestamped.failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
  EXPECT_EQ(*timestamped.failure_message(),
            "This store (class org.apache.kafka.streams.state.internals.RocksDBVersionedStore) "
            "doesn't know how to execute the given query (" +
                tkq.to_string() +
                "). Contact the store maintainer if you need support for a new query type.");

  const auto wkq = WindowKeyQuery<int32_t, int32_t>::with_key_and_window_start_range(2, 0, 10);
  EXPECT_EQ(run(*store_, wkq, bound_at(99)).failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  EXPECT_EQ(run(*store_, wkq, bound_at(3)).failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);

  // fromTime after toTime: IllegalArgumentException from the metered layer, before the bound.
  auto backwards = store_->query(MVKQ::with_key(kRecordKey).from_time(20).to_time(10), bound_at(99),
                                 QueryConfig(false));
  ASSERT_FALSE(backwards.has_value());
  EXPECT_EQ(backwards.error().kind, StreamsError::Kind::IllegalArgument);
  EXPECT_EQ(backwards.error().message,
            "The `fromTime` timestamp must be smaller than the `toTime` timestamp.");
}

// Below the metered layer (a raw KeyQuery reaching the position owner) the answer is Kafka's
// runKeyQuery on a store that is not a KeyValueStore: bound first, then UNKNOWN_QUERY_TYPE.
TEST_F(VersionedStoresTest, RawKeyQueryAtTheOwnerIsBoundThenUnknown) {
  build();
  auto& owner = dynamic_cast<VersionedKeyValueToBytesStoreAdapter&>(
      dynamic_cast<ChangeLoggingVersionedKeyValueBytesStore&>(store_->wrapped()).wrapped());
  const auto raw = KeyQuery<Bytes, Bytes>::with_key(Serde<int32_t>::serialize(kRecordKey));
  EXPECT_EQ(run(owner, raw, bound_at(99)).failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  EXPECT_EQ(run(owner, raw, bound_at(3)).failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
}

// Execution info, when asked for: the owner's line, the change-logging layer's "via
// WrappedStateStore", then the metered layer's line with its serdes (elapsed time left out).
TEST_F(VersionedStoresTest, ExecutionInfoNamesEachLayer) {
  build();
  const QueryResult r = run(*store_, VKQ::with_key(kRecordKey), bound_at(3), /*info=*/true);
  ASSERT_TRUE(r.is_success());
  const auto& info = r.execution_info();
  ASSERT_EQ(info.size(), 3u);
  EXPECT_EQ(info[0],
            "Handled in class org.apache.kafka.streams.state.internals.RocksDBVersionedStore");
  EXPECT_EQ(info[1],
            "Handled in class "
            "org.apache.kafka.streams.state.internals.ChangeLoggingVersionedKeyValueBytesStore via "
            "WrappedStateStore");
  EXPECT_EQ(info[2].rfind("Handled in class org.apache.kafka.streams.state.internals."
                          "MeteredVersionedKeyValueStore$MeteredVersionedKeyValueStoreInternal "
                          "with serdes org.apache.kafka.streams.state.StateSerdes@",
                          0),
            0u)
      << info[2];
}

// The typed get() goes through the bytes interface, which carries no validTo: Kafka's
// MeteredVersionedKeyValueStore.get(key, asOf) returns the version without it, while the
// VersionedKeyQuery answer keeps it. delete returns the version valid at its timestamp.
TEST_F(VersionedStoresTest, TypedReadsLoseValidTo) {
  build();
  auto typed = store_->get(kRecordKey, kTs[0]);
  ASSERT_TRUE(typed.has_value() && typed->has_value());
  EXPECT_EQ(**typed, (Record{kValues[0], kTs[0], std::nullopt}));
  auto latest = store_->get(kRecordKey);
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  EXPECT_EQ(**latest, (Record{kValues[3], kTs[3], std::nullopt}));
  context_->at(4, kTs[3] + 10);
  auto deleted = store_->delete_key(kRecordKey, kTs[3] + 10);
  ASSERT_TRUE(deleted.has_value() && deleted->has_value());
  EXPECT_EQ(**deleted, (Record{kValues[3], kTs[3], std::nullopt}));
  auto gone = store_->get(kRecordKey);
  ASSERT_TRUE(gone.has_value());
  EXPECT_FALSE(gone->has_value());
  expect_versioned(*store_, VKQ::with_key(kRecordKey).as_of(kTs[3] + 5), kValues[3], kTs[3],
                   kTs[3] + 10);
}

// The changelog: one record per put and delete, timestamped with the version's timestamp, with
// the owner's position after the write in the "c" header; a put beyond grace, which the store
// drops, is logged all the same (quirk 13). A fresh store restored from that changelog answers the
// same queries at the same position, and the dropped put is dropped again.
TEST_F(VersionedStoresTest, ChangelogAndRestore) {
  build(/*consistency=*/true);
  context_->at(4, kTs[3] - 2 * 24 * kHour);
  auto expired = store_->put(7, 70, kTs[3] - 2 * 24 * kHour);
  ASSERT_TRUE(expired.has_value());
  EXPECT_EQ(*expired, kPutReturnCodeNotPut);
  context_->at(5, kTs[3] + 5);
  ASSERT_TRUE(store_->delete_key(kRecordKey, kTs[3] + 5).has_value());

  const auto& log = context_->changelog;
  ASSERT_EQ(log.size(), 6u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(log[i].topic, "app-versioned-store-changelog");
    EXPECT_EQ(log[i].key, Serde<int32_t>::serialize(kRecordKey));
    EXPECT_EQ(log[i].value, ValueBytes(Serde<int32_t>::serialize(kValues[i])));
    EXPECT_EQ(log[i].timestamp, kTs[i]);
    auto header = position_serde::deserialize(last_header(log[i].headers, "c")->value.view());
    ASSERT_TRUE(header.has_value());
    EXPECT_EQ(*header, Position::from_map({{"input-topic", {{0, i}}}}));
  }
  EXPECT_EQ(log[4].key, Serde<int32_t>::serialize(7));
  EXPECT_EQ(log[4].timestamp, kTs[3] - 2 * 24 * kHour);
  EXPECT_EQ(log[5].value, ValueBytes{});
  EXPECT_EQ(log[5].timestamp, kTs[3] + 5);
  EXPECT_EQ(*position_serde::deserialize(last_header(log[5].headers, "c")->value.view()),
            Position::from_map({{"input-topic", {{0, 5}}}}));

  restored_context_ = std::make_unique<VersionedTestContext>(fs_, root_ + "/b/0_0", true);
  restored_ = stores::versioned_key_value_store<int32_t, int32_t>(
      "versioned-store", VersionedStoreOptions{24 * kHour, kHour, true});
  ASSERT_TRUE(restored_->init(*restored_context_, *restored_).has_value());
  EXPECT_TRUE(restored_->is_versioned() && restored_->is_timestamped());
  ASSERT_TRUE(restored_context_->restore(log).has_value());
  EXPECT_TRUE(restored_context_->changelog.empty());  // restore does not log
  for (StateStore* s :
       {static_cast<StateStore*>(store_.get()), static_cast<StateStore*>(restored_.get())}) {
    expect_versioned_null(*s, VKQ::with_key(kRecordKey));
    expect_versioned(*s, VKQ::with_key(kRecordKey).as_of(kTs[3]), kValues[3], kTs[3], kTs[3] + 5);
    expect_versioned(*s, VKQ::with_key(kRecordKey).as_of(kTs[1]), kValues[1], kTs[1], kTs[2]);
    expect_multi(*s, MVKQ::with_key(kRecordKey).to_time(kTs[2]), 0, 2);
    expect_versioned_null(*s, VKQ::with_key(7).as_of(kNow));
    EXPECT_EQ(s->position(), Position::from_map({{"input-topic", {{0, 5}}}}));
  }
}

// A closed store fails a versioned query with STORE_EXCEPTION (Kafka's handlers catch the
// InvalidStateStoreException), naming the store class, the query and the exception, with the
// position.
TEST_F(VersionedStoresTest, ClosedStoreAnswersStoreException) {
  build();
  store_->close();
  const auto q = VKQ::with_key(kRecordKey);
  const QueryResult r = run(*store_, q, bound_at(3));
  ASSERT_TRUE(r.is_failure());
  EXPECT_EQ(r.failure_reason(), FailureReason::STORE_EXCEPTION);
  const std::string raw_query =
      VersionedKeyQuery<Bytes, Bytes>::with_key(Serde<int32_t>::serialize(kRecordKey)).to_string();
  EXPECT_EQ(*r.failure_message(),
            "class org.apache.kafka.streams.state.internals.RocksDBVersionedStore failed to handle "
            "query " +
                raw_query +
                ":\nInvalidStateStoreException: Store versioned-store is currently closed");
  EXPECT_EQ(r.position(), Position::from_map({{"input-topic", {{0, 3}}}}));
}

// withLoggingDisabled: the stack is Metered -> adapter -> store, nothing is logged, the adapter
// adds no execution-info line, and the answers are the same.
TEST_F(VersionedStoresTest, UnloggedStackAnswersTheSameWithoutAChangelog) {
  context_ = std::make_unique<VersionedTestContext>(fs_, root_ + "/u/0_0", false);
  store_ = stores::versioned_key_value_store<int32_t, int32_t>(
      "versioned-store", VersionedStoreOptions{24 * kHour, kHour, /*logging=*/false});
  ASSERT_TRUE(store_->init(*context_, *store_).has_value());
  EXPECT_NE(dynamic_cast<VersionedKeyValueToBytesStoreAdapter*>(&store_->wrapped()), nullptr);
  for (int i = 0; i < 4; ++i) {
    context_->at(i, kTs[i]);
    ASSERT_TRUE(store_->put(kRecordKey, kValues[i], kTs[i]).has_value());
  }
  EXPECT_TRUE(context_->changelog.empty());
  expect_versioned(*store_, VKQ::with_key(kRecordKey).as_of(kTs[1]), kValues[1], kTs[1], kTs[2]);
  expect_multi(*store_, MVKQ::with_key(kRecordKey).with_ascending_timestamps(), 0, 3);
  const QueryResult r = run(*store_, VKQ::with_key(kRecordKey), bound_at(3), /*info=*/true);
  EXPECT_EQ(r.execution_info().size(), 2u);
}

// Kafka's supplier defaults and argument checks.
TEST_F(VersionedStoresTest, SupplierDefaultsAndValidation) {
  EXPECT_EQ(stores::default_segment_interval_ms(30'000), 10'000);
  EXPECT_EQ(stores::default_segment_interval_ms(3'000), 2'000);
  EXPECT_EQ(stores::default_segment_interval_ms(200'000), 40'000);
  EXPECT_EQ(stores::default_segment_interval_ms(3'600'000), 300'000);
  EXPECT_EQ(stores::default_segment_interval_ms(24 * kHour), 3'600'000);
  auto negative = stores::validate_versioned_options({-1, std::nullopt, true});
  ASSERT_FALSE(negative.has_value());
  EXPECT_EQ(negative.error().message, "historyRetention cannot be negative");
  auto zero = stores::validate_versioned_options({1000, 0, true});
  ASSERT_FALSE(zero.has_value());
  EXPECT_EQ(zero.error().message, "segmentInterval cannot be zero or negative");
}

}  // namespace
}  // namespace iq
