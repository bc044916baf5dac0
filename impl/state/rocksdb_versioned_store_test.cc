// Unit tests of RocksDBVersionedStore on real RocksDB files in a fresh temporary task directory
// per test: Kafka's RocksDBVersionedStoreTest expectations at the pinned commit (same store
// constants, same puts, same answers), then position tracking, restore, segment expiry and the
// Kafka quirks this store carries (docs/iqv2-semantics.md quirks 14, 16, 17).
#include "state/rocksdb_versioned_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "state/position_serde.h"
#include "state/test_state_store_context.h"

namespace iq {
namespace {

// RocksDBVersionedStoreTest's constants.
constexpr int64_t kHistoryRetention = 300'000;
constexpr int64_t kGracePeriod = kHistoryRetention;
constexpr int64_t kSegmentInterval = kHistoryRetention / 3;
constexpr int64_t kBaseTimestamp = 10;
constexpr int64_t kUndefined = kPutReturnCodeValidToUndefined;
constexpr int64_t kNotPut = kPutReturnCodeNotPut;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

ValueBytes v(std::optional<std::string> s) {
  return s ? ValueBytes(Bytes(*s)) : std::nullopt;
}

ConsumerRecord changelog_record(int64_t offset, const std::string& key,
                                std::optional<std::string> value, int64_t timestamp,
                                Headers headers = {}) {
  ConsumerRecord r;
  r.topic = "app-myversionedrocks-changelog";
  r.offset = offset;
  r.timestamp = timestamp;
  r.key = Bytes(key);
  r.value = v(std::move(value));
  r.headers = std::move(headers);
  return r;
}

class RocksDBVersionedStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string tmp = ::testing::TempDir();
    if (tmp.empty() || tmp.back() != '/') tmp += '/';
    root_ = tmp + "iqsim_versioned_" + info->name();
    ASSERT_TRUE(fs_.delete_recursively(root_).has_value());
    context_ = std::make_unique<TestStateStoreContext>(fs_, root_ + "/app/0_0");
    open(kHistoryRetention);
  }
  void TearDown() override {
    store_.reset();
    EXPECT_TRUE(fs_.delete_recursively(root_).has_value());
  }

  // A new store object on the task directory, initialized; replaces (and closes) the old one.
  RocksDBVersionedStore& open(int64_t history_retention_ms,
                              int64_t segment_interval_ms = kSegmentInterval) {
    store_.reset();
    store_ = std::make_unique<RocksDBVersionedStore>("myversionedrocks", history_retention_ms,
                                                     segment_interval_ms);
    auto s = store_->init(*context_, *store_);
    EXPECT_TRUE(s.has_value()) << s.error().to_string();
    return *store_;
  }

  void put(const std::string& key, std::optional<std::string> value, int64_t ts, int64_t expected) {
    auto r = store_->put(Bytes(key), v(value), ts);
    ASSERT_TRUE(r.has_value()) << r.error().to_string();
    EXPECT_EQ(*r, expected) << "put " << key << "@" << ts;
  }
  std::optional<VersionedBytesRecord> del(const std::string& key, int64_t ts) {
    auto r = store_->delete_key(Bytes(key), ts);
    EXPECT_TRUE(r.has_value());
    return r.has_value() ? *r : std::nullopt;
  }
  void expect_latest(const std::string& key, const std::string& value, int64_t ts) {
    auto r = store_->get(Bytes(key));
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->has_value()) << "no latest for " << key;
    EXPECT_EQ((*r)->value, Bytes(value));
    EXPECT_EQ((*r)->timestamp, ts);
    EXPECT_EQ((*r)->valid_to, std::nullopt);
  }
  void expect_latest_null(const std::string& key) {
    auto r = store_->get(Bytes(key));
    ASSERT_TRUE(r.has_value());
    EXPECT_FALSE(r->has_value()) << key << " has latest " << display(**r);
  }
  // verifyTimestampedGetValueFromStore: valid_to kUndefined means "no validTo".
  void expect_as_of(const std::string& key, int64_t as_of, const std::string& value, int64_t from,
                    int64_t valid_to) {
    auto r = store_->get(Bytes(key), as_of);
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->has_value()) << key << " as of " << as_of << " is null";
    EXPECT_EQ((*r)->value, Bytes(value)) << key << " as of " << as_of;
    EXPECT_EQ((*r)->timestamp, from) << key << " as of " << as_of;
    EXPECT_EQ((*r)->valid_to, valid_to == kUndefined ? std::nullopt : std::optional(valid_to))
        << key << " as of " << as_of;
  }
  void expect_as_of_null(const std::string& key, int64_t as_of) {
    auto r = store_->get(Bytes(key), as_of);
    ASSERT_TRUE(r.has_value());
    EXPECT_FALSE(r->has_value()) << key << " as of " << as_of << " is " << display(**r);
  }
  void expect_versions(const std::string& key, int64_t from, int64_t to, ResultOrder order,
                       const std::vector<std::string>& values, const std::vector<int64_t>& ts,
                       const std::vector<int64_t>& valid_to) {
    auto r = store_->get(Bytes(key), from, to, order);
    ASSERT_TRUE(r.has_value());
    ASSERT_EQ(r->records.size(), values.size()) << key << " in [" << from << "," << to << "]";
    for (size_t i = 0; i < values.size(); ++i) {
      const auto& rec = r->records[i];
      EXPECT_EQ(rec.value, Bytes(values[i])) << i;
      EXPECT_EQ(rec.timestamp, ts[i]) << i;
      EXPECT_EQ(rec.valid_to, valid_to[i] == kUndefined ? std::nullopt : std::optional(valid_to[i]))
          << i;
    }
  }
  void expect_no_versions(const std::string& key, int64_t from, int64_t to) {
    auto r = store_->get(Bytes(key), from, to, ResultOrder::ANY);
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(r->records.empty()) << key << " in [" << from << "," << to << "]";
  }

  PosixFileSystem fs_;
  std::string root_;
  std::unique_ptr<TestStateStoreContext> context_;
  std::unique_ptr<RocksDBVersionedStore> store_;
};

constexpr int64_t SI = kSegmentInterval;

// Kafka's shouldPutLatest / shouldPutNullAsLatest / shouldPutOlderWithNonNullLatest.
TEST_F(RocksDBVersionedStoreTest, ShouldPutLatestAndOlder) {
  put("k", "v", kBaseTimestamp, kUndefined);
  put("k", "v2", kBaseTimestamp + 1, kUndefined);
  expect_latest("k", "v2", kBaseTimestamp + 1);
  expect_as_of("k", kBaseTimestamp, "v", kBaseTimestamp, kBaseTimestamp + 1);
  expect_as_of("k", kBaseTimestamp + 1, "v2", kBaseTimestamp + 1, kUndefined);
  expect_as_of("k", kBaseTimestamp + 2, "v2", kBaseTimestamp + 1, kUndefined);
  put("k", "older", kBaseTimestamp - 2, kBaseTimestamp);
  expect_as_of("k", kBaseTimestamp - 1, "older", kBaseTimestamp - 2, kBaseTimestamp);
  expect_as_of_null("k", kBaseTimestamp - 3);
  put("n", std::nullopt, kBaseTimestamp, kUndefined);
  expect_latest_null("n");
  expect_as_of_null("n", kBaseTimestamp);
}

// Kafka's shouldPutIntoMultipleSegments.
TEST_F(RocksDBVersionedStoreTest, ShouldPutIntoMultipleSegments) {
  put("k", std::nullopt, SI - 20, kUndefined);
  put("k", "vn10", SI - 10, kUndefined);
  put("k", std::nullopt, SI - 1, kUndefined);
  put("k", std::nullopt, SI + 1, kUndefined);
  put("k", "vp10", SI + 10, kUndefined);
  put("k", std::nullopt, SI + 20, kUndefined);
  expect_latest_null("k");
  expect_as_of_null("k", SI + 30);
  expect_as_of("k", SI + 15, "vp10", SI + 10, SI + 20);
  expect_as_of_null("k", SI + 5);
  expect_as_of_null("k", SI + 2);
  expect_as_of_null("k", SI);
  expect_as_of_null("k", SI - 1);
  expect_as_of("k", SI - 5, "vn10", SI - 10, SI - 1);
  expect_as_of_null("k", SI - 15);
}

// Kafka's shouldMoveRecordToOlderSegmentDuringPut (out-of-order puts across a segment boundary).
TEST_F(RocksDBVersionedStoreTest, ShouldMoveRecordToOlderSegmentDuringPut) {
  put("k", "vp20", SI + 20, kUndefined);
  put("k", "vp10", SI + 10, SI + 20);
  put("k", "vn10", SI - 10, SI + 10);
  put("k", "vn2", SI - 2, SI + 10);
  put("k", "vn1", SI - 1, SI + 10);
  put("k", "vp1", SI + 1, SI + 10);
  expect_latest("k", "vp20", SI + 20);
  expect_as_of("k", SI + 30, "vp20", SI + 20, kUndefined);
  expect_as_of("k", SI + 15, "vp10", SI + 10, SI + 20);
  expect_as_of("k", SI + 5, "vp1", SI + 1, SI + 10);
  expect_as_of("k", SI, "vn1", SI - 1, SI + 1);
  expect_as_of("k", SI - 1, "vn1", SI - 1, SI + 1);
  expect_as_of("k", SI - 2, "vn2", SI - 2, SI - 1);
  expect_as_of("k", SI - 5, "vn10", SI - 10, SI - 2);
}

// Kafka's shouldMoveRecordToOlderSegmentWithNullsDuringPut.
TEST_F(RocksDBVersionedStoreTest, ShouldMoveRecordToOlderSegmentWithNullsDuringPut) {
  put("k", std::nullopt, SI + 20, kUndefined);
  put("k", std::nullopt, SI - 1, SI + 20);
  put("k", std::nullopt, SI + 1, SI + 20);
  put("k", std::nullopt, SI - 10, SI - 1);
  put("k", std::nullopt, SI + 10, SI + 20);
  put("k", "vp5", SI + 5, SI + 10);
  put("k", "vn5", SI - 5, SI - 1);
  put("k", "vn6", SI - 6, SI - 5);
  expect_latest_null("k");
  expect_as_of_null("k", SI + 30);
  expect_as_of_null("k", SI + 15);
  expect_as_of("k", SI + 6, "vp5", SI + 5, SI + 10);
  expect_as_of_null("k", SI + 2);
  expect_as_of_null("k", SI);
  expect_as_of_null("k", SI - 1);
  expect_as_of("k", SI - 5, "vn5", SI - 5, SI - 1);
  expect_as_of("k", SI - 6, "vn6", SI - 6, SI - 5);
  expect_as_of_null("k", SI - 8);
}

// Kafka's shouldFallThroughToExistingOlderSegmentAsLatestDuringPut.
TEST_F(RocksDBVersionedStoreTest, ShouldFallThroughToExistingOlderSegmentAsLatestDuringPut) {
  put("k", std::nullopt, SI - 5, kUndefined);
  put("k", "vn6", SI - 6, SI - 5);
  put("k", "vp20", SI + 20, kUndefined);
  put("k", std::nullopt, SI + 10, SI + 20);
  put("k", std::nullopt, SI - 1, SI + 10);
  put("k", "vn2", SI - 2, SI - 1);
  expect_latest("k", "vp20", SI + 20);
  expect_as_of("k", SI + 30, "vp20", SI + 20, kUndefined);
  expect_as_of_null("k", SI + 12);
  expect_as_of_null("k", SI);
  expect_as_of_null("k", SI - 1);
  expect_as_of("k", SI - 2, "vn2", SI - 2, SI - 1);
  expect_as_of_null("k", SI - 5);
  expect_as_of("k", SI - 6, "vn6", SI - 6, SI - 5);
}

// Kafka's shouldPutNonLatestTombstoneIntoNewSegmentWithValidTo.
TEST_F(RocksDBVersionedStoreTest, ShouldPutNonLatestTombstoneIntoNewSegmentWithValidTo) {
  put("k", "vp30", SI + 30, kUndefined);
  put("k", std::nullopt, SI - 10, SI + 30);
  put("k", "vn5", SI - 5, SI + 30);
  put("k", "vn1", SI - 1, SI + 30);
  put("k", std::nullopt, SI - 2, SI - 1);
  expect_latest("k", "vp30", SI + 30);
  expect_as_of("k", SI + 10, "vn1", SI - 1, SI + 30);
  expect_as_of("k", SI - 1, "vn1", SI - 1, SI + 30);
  expect_as_of_null("k", SI - 2);
  expect_as_of("k", SI - 5, "vn5", SI - 5, SI - 2);
  expect_as_of_null("k", SI - 10);
}

// Kafka's shouldDelete: a delete is a tombstone version and returns what was valid then.
TEST_F(RocksDBVersionedStoreTest, ShouldDelete) {
  put("k", "vp20", SI + 20, kUndefined);
  put("k", "vp10", SI + 10, SI + 20);
  put("k", "vn10", SI - 10, SI + 10);
  put("k", "vn2", SI - 2, SI + 10);
  auto deleted = del("k", SI - 5);
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->value, Bytes("vn10"));
  EXPECT_EQ(deleted->timestamp, SI - 10);
  deleted = del("k", SI + 10);
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->value, Bytes("vp10"));
  EXPECT_EQ(deleted->timestamp, SI + 10);
  EXPECT_FALSE(del("k", SI + 10).has_value());
  deleted = del("k", SI + 25);
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->value, Bytes("vp20"));
  EXPECT_EQ(deleted->timestamp, SI + 20);
  expect_latest_null("k");
  expect_as_of("k", SI + 22, "vp20", SI + 20, SI + 25);
}

// Kafka's shouldNotPutExpired and shouldNotDeleteExpired: grace = history retention.
TEST_F(RocksDBVersionedStoreTest, ShouldNotPutOrDeleteExpired) {
  put("k", "v", kHistoryRetention + 10, kUndefined);
  put("k1", "v1", kHistoryRetention + 10 - kGracePeriod, kUndefined);
  expect_latest("k1", "v1", kHistoryRetention + 10 - kGracePeriod);
  put("k2", "v2", kHistoryRetention + 9 - kGracePeriod, kNotPut);
  expect_latest_null("k2");

  open(kHistoryRetention);  // a fresh object: stream time back to -1 (not persisted)
  EXPECT_EQ(store_->observed_stream_time_ms(), -1);
  put("d1", "v1", 1, kUndefined);
  put("d2", "v2", 1, kUndefined);
  put("kother", "vother", kHistoryRetention + 10, kUndefined);
  auto deleted = del("d1", kHistoryRetention + 10 - kGracePeriod);
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->value, Bytes("v1"));
  expect_latest_null("d1");
  EXPECT_FALSE(del("d2", kHistoryRetention + 9 - kGracePeriod).has_value());
  expect_latest("d2", "v2", 1);
}

// Kafka's shouldGetFromOlderSegments.
TEST_F(RocksDBVersionedStoreTest, ShouldGetFromOlderSegments) {
  put("ko", std::nullopt, SI - 10, kUndefined);
  put("ko", std::nullopt, 2 * SI - 10, kUndefined);
  put("ko", std::nullopt, 3 * SI - 10, kUndefined);
  expect_as_of_null("k", SI - 20);
  put("k", "v", SI - 20, kUndefined);
  put("k", std::nullopt, SI - 10, kUndefined);
  expect_as_of_null("k", SI - 30);
  expect_as_of("k", SI - 15, "v", SI - 20, SI - 10);
  expect_as_of_null("k", SI - 5);
  put("k", "v2", 3 * SI - 20, kUndefined);
  put("k", std::nullopt, 3 * SI - 10, kUndefined);
  expect_as_of_null("k", SI - 30);
  expect_as_of("k", SI - 15, "v", SI - 20, SI - 10);
  expect_as_of_null("k", SI - 5);
}

// Kafka's shouldNotGetExpired and shouldGetExpiredIfLatestValue: beyond history retention only the
// latest version answers.
TEST_F(RocksDBVersionedStoreTest, ShouldNotGetExpiredUnlessLatest) {
  put("k", "v_old", 0, kUndefined);
  put("k", "v", SI - 10, kUndefined);
  expect_as_of("k", SI - 11, "v_old", 0, SI - 10);
  put("ko", "vo", kHistoryRetention + SI - 11, kUndefined);
  expect_as_of("k", SI - 11, "v_old", 0, SI - 10);
  put("ko", "vo2", kHistoryRetention + SI - 10, kUndefined);
  expect_as_of_null("k", SI - 11);
  // The latest version never expires.
  expect_as_of("k", SI - 10, "v", SI - 10, kUndefined);
  expect_no_versions("k", 0, SI - 11);
  // A range ending inside the retention still reads segment 0, which is live (its id is the
  // oldest live one), so the version get(asOf) no longer returns is listed here.
  expect_versions("k", 0, SI - 10, ResultOrder::ANY, {"v", "v_old"}, {SI - 10, 0},
                  {kUndefined, SI - 10});
}

// Kafka's shouldGetRecordVersionsFromOlderSegments: MultiVersionedKeyQuery's store call.
TEST_F(RocksDBVersionedStoreTest, ShouldGetRecordVersionsFromOlderSegments) {
  put("ko", std::nullopt, SI - 10, kUndefined);
  put("ko", std::nullopt, 2 * SI - 10, kUndefined);
  put("ko", std::nullopt, 3 * SI - 10, kUndefined);
  expect_no_versions("k", SI - 20, SI);
  put("k", "v1", SI - 30, kUndefined);
  put("k", "v2", SI - 25, kUndefined);
  put("k", std::nullopt, SI - 20, kUndefined);
  put("k", std::nullopt, SI - 15, kUndefined);
  put("k", "v3", SI - 10, kUndefined);
  put("k", "v4", SI - 5, kUndefined);
  expect_no_versions("k", SI - 40, SI - 35);
  const std::vector<std::string> all = {"v4", "v3", "v2", "v1"};
  const std::vector<int64_t> all_ts = {SI - 5, SI - 10, SI - 25, SI - 30};
  const std::vector<int64_t> all_to = {kUndefined, SI - 5, SI - 20, SI - 25};
  expect_versions("k", SI - 30, SI - 5, ResultOrder::ANY, all, all_ts, all_to);
  expect_versions("k", kMin, kMax, ResultOrder::ANY, all, all_ts, all_to);
  expect_versions("k", SI - 4, SI, ResultOrder::ANY, {"v4"}, {SI - 5}, {kUndefined});
  expect_versions("k", SI - 5, SI - 5, ResultOrder::ANY, {"v4"}, {SI - 5}, {kUndefined});
  expect_versions("k", SI - 4, SI - 4, ResultOrder::ANY, {"v4"}, {SI - 5}, {kUndefined});
  expect_versions("k", SI - 31, SI - 21, ResultOrder::ANY, {"v2", "v1"}, {SI - 25, SI - 30},
                  {SI - 20, SI - 25});
  expect_versions("k", SI - 24, SI - 11, ResultOrder::ANY, {"v2"}, {SI - 25}, {SI - 20});
  expect_versions("k", SI - 11, SI - 4, ResultOrder::ANY, {"v4", "v3"}, {SI - 5, SI - 10},
                  {kUndefined, SI - 5});
  expect_versions("k", SI - 26, SI - 5, ResultOrder::ANY, all, all_ts, all_to);
  expect_versions("k", SI - 15, SI - 10, ResultOrder::ANY, {"v3"}, {SI - 10}, {SI - 5});
  expect_no_versions("k", SI - 19, SI - 16);
  put("k", "v5", 3 * SI - 30, kUndefined);
  put("k", std::nullopt, 3 * SI - 20, kUndefined);
  expect_no_versions("k", SI - 40, SI - 35);
  expect_versions("k", SI - 30, SI - 26, ResultOrder::ANY, {"v1"}, {SI - 30}, {SI - 25});
  expect_no_versions("k", SI - 19, SI - 16);
}

// Kafka's shouldGetRecordVersionsInAscendingOrder and ...FromMultipleOldSegmentsInAscendingOrder;
// DESCENDING gives the same as ANY.
TEST_F(RocksDBVersionedStoreTest, ShouldGetRecordVersionsInEachOrder) {
  put("k", "v1", SI - 10, kUndefined);
  put("k", "v2", SI - 5, kUndefined);
  put("k", "v3", 2 * SI - 10, kUndefined);
  put("k", "v4", 2 * SI - 5, kUndefined);
  expect_versions("k", kMin, kMax, ResultOrder::ASCENDING, {"v1", "v2", "v3", "v4"},
                  {SI - 10, SI - 5, 2 * SI - 10, 2 * SI - 5},
                  {SI - 5, 2 * SI - 10, 2 * SI - 5, kUndefined});
  expect_versions("k", kMin, kMax, ResultOrder::DESCENDING, {"v4", "v3", "v2", "v1"},
                  {2 * SI - 5, 2 * SI - 10, SI - 5, SI - 10},
                  {kUndefined, 2 * SI - 5, 2 * SI - 10, SI - 5});
}

// Kafka's shouldNotGetExpiredRecordVersions and shouldGetExpiredIfLatestVersionValue.
TEST_F(RocksDBVersionedStoreTest, ShouldNotGetExpiredRecordVersions) {
  put("k", "v_old", 0, kUndefined);
  put("k", "v", SI - 10, kUndefined);
  expect_versions("k", 0, SI - 11, ResultOrder::ANY, {"v_old"}, {0}, {SI - 10});
  put("ko", "vo", kHistoryRetention + SI - 11, kUndefined);
  expect_versions("k", 0, SI - 11, ResultOrder::ANY, {"v_old"}, {0}, {SI - 10});
  put("ko", "vo2", kHistoryRetention + SI - 10, kUndefined);
  expect_no_versions("k", 0, SI - 11);

  put("l", "v", kHistoryRetention + SI - 10, kUndefined);
  expect_versions("l", 0, kHistoryRetention + SI, ResultOrder::ANY, {"v"},
                  {kHistoryRetention + SI - 10}, {kUndefined});
}

// Kafka's shouldRestore: the same out-of-order history, replayed from the changelog.
TEST_F(RocksDBVersionedStoreTest, ShouldRestore) {
  const std::vector<std::pair<std::string, int64_t>> records = {
      {"vp20", SI + 20}, {"vp10", SI + 10}, {"vn10", SI - 10},
      {"vn2", SI - 2},   {"vn1", SI - 1},   {"vp1", SI + 1}};
  std::vector<ConsumerRecord> batch;
  for (const auto& [value, ts] : records)
    batch.push_back(changelog_record(static_cast<int64_t>(batch.size()), "k", value, ts));
  ASSERT_TRUE(context_->restore(batch).has_value());
  expect_latest("k", "vp20", SI + 20);
  expect_as_of("k", SI + 30, "vp20", SI + 20, kUndefined);
  expect_as_of("k", SI + 15, "vp10", SI + 10, SI + 20);
  expect_as_of("k", SI + 5, "vp1", SI + 1, SI + 10);
  expect_as_of("k", SI, "vn1", SI - 1, SI + 1);
  expect_as_of("k", SI - 2, "vn2", SI - 2, SI - 1);
  expect_as_of("k", SI - 5, "vn10", SI - 10, SI - 2);
}

// Kafka's shouldRestoreWithNullsAndRepeatTimestamps: tombstones and replacements in one batch.
TEST_F(RocksDBVersionedStoreTest, ShouldRestoreWithNullsAndRepeatTimestamps) {
  const std::vector<std::pair<std::optional<std::string>, int64_t>> records = {
      {"to_be_replaced", SI + 20},
      {std::nullopt, SI - 10},
      {"to_be_replaced", SI - 10},
      {std::nullopt, SI - 10},
      {"to_be_replaced", SI - 1},
      {"to_be_replaced", SI + 1},
      {std::nullopt, SI - 1},
      {std::nullopt, SI + 1},
      {std::nullopt, SI + 10},
      {std::nullopt, SI + 5},
      {"vp5", SI + 5},
      {"to_be_replaced", SI - 5},
      {"vn5", SI - 5},
      {std::nullopt, SI + 20},
      {std::nullopt, SI + 20},
      {"vn6", SI - 6}};
  std::vector<ConsumerRecord> batch;
  for (const auto& [value, ts] : records)
    batch.push_back(changelog_record(static_cast<int64_t>(batch.size()), "k", value, ts));
  ASSERT_TRUE(context_->restore(batch).has_value());
  expect_latest_null("k");
  expect_as_of_null("k", SI + 30);
  expect_as_of_null("k", SI + 15);
  expect_as_of("k", SI + 6, "vp5", SI + 5, SI + 10);
  expect_as_of_null("k", SI + 2);
  expect_as_of_null("k", SI);
  expect_as_of_null("k", SI - 1);
  expect_as_of("k", SI - 5, "vn5", SI - 5, SI - 1);
  expect_as_of("k", SI - 6, "vn6", SI - 6, SI - 5);
  expect_as_of_null("k", SI - 8);
}

// Kafka's shouldRestoreMultipleBatches, shouldNotRestoreExpired and
// shouldRestoreEvenIfRecordWouldBeExpiredByEndOfBatch.
TEST_F(RocksDBVersionedStoreTest, ShouldRestoreBatchesAndDropOnlyRecordsBeyondGrace) {
  ASSERT_TRUE(context_
                  ->restore({changelog_record(0, "k", std::nullopt, SI - 20),
                             changelog_record(1, "k", "vn10", SI - 10),
                             changelog_record(2, "k", std::nullopt, SI - 1)})
                  .has_value());
  ASSERT_TRUE(context_
                  ->restore({changelog_record(3, "k", std::nullopt, SI + 1),
                             changelog_record(4, "k", "vp10", SI + 10),
                             changelog_record(5, "k", std::nullopt, SI + 20)})
                  .has_value());
  expect_latest_null("k");
  expect_as_of("k", SI + 15, "vp10", SI + 10, SI + 20);
  expect_as_of_null("k", SI + 5);
  expect_as_of("k", SI - 5, "vn10", SI - 10, SI - 1);
  expect_as_of_null("k", SI - 15);

  open(kHistoryRetention);  // fresh store object, stream time -1
  ASSERT_TRUE(context_
                  ->restore({changelog_record(0, "e2", "v2", kHistoryRetention - kGracePeriod),
                             changelog_record(1, "e", "v", kHistoryRetention + 10),
                             changelog_record(2, "e1", "v1", kHistoryRetention + 10 - kGracePeriod),
                             changelog_record(3, "e3", "v3", kHistoryRetention + 9 - kGracePeriod)})
                  .has_value());
  expect_latest("e2", "v2", kHistoryRetention - kGracePeriod);  // expired only by batch end
  expect_latest("e", "v", kHistoryRetention + 10);
  expect_latest("e1", "v1", kHistoryRetention + 10 - kGracePeriod);
  expect_latest_null("e3");
}

// Kafka's shouldAllowZeroHistoryRetention (first half): no history, no grace.
TEST_F(RocksDBVersionedStoreTest, ShouldAllowZeroHistoryRetention) {
  open(0);
  put("k", "v", kBaseTimestamp, kUndefined);
  expect_latest("k", "v", kBaseTimestamp);
  expect_as_of("k", kBaseTimestamp + 1, "v", kBaseTimestamp, kUndefined);
  put("k", "updated", kBaseTimestamp, kUndefined);
  expect_latest("k", "updated", kBaseTimestamp);
  put("k", "v2", kBaseTimestamp + 2, kUndefined);
  expect_as_of("k", kBaseTimestamp + 2, "v2", kBaseTimestamp + 2, kUndefined);
  expect_as_of_null("k", kBaseTimestamp + 1);
  (void)del("k", kBaseTimestamp + 3);
  expect_latest_null("k");
  put("k2", "v", kBaseTimestamp + 2, kNotPut);
  expect_latest_null("k2");
}

// Segments behind the history retention are deleted on the next write: their versions are gone
// from every read, while the latest values stay.
TEST_F(RocksDBVersionedStoreTest, ShouldDropExpiredSegmentsOnWrite) {
  put("k", "v0", 5, kUndefined);
  put("k", "v1", SI + 5, kUndefined);  // v0 moves to segment 1 (its validTo's)
  put("k", "v2", 2 * SI + 5, kUndefined);
  EXPECT_EQ(store_->segment_ids(), (std::vector<int64_t>{1, 2}));
  // Stream time 5 * SI + 5: the oldest live segment is id(5 SI + 5 - HR) = id(2 SI + 5) = 2.
  put("other", "x", 5 * SI + 5, kUndefined);
  EXPECT_EQ(store_->segment_ids(), (std::vector<int64_t>{2}));
  expect_versions("k", kMin, kMax, ResultOrder::ASCENDING, {"v1", "v2"}, {SI + 5, 2 * SI + 5},
                  {2 * SI + 5, kUndefined});
  expect_latest("k", "v2", 2 * SI + 5);
}

// Each write advances the position to the record's offset; a put beyond grace advances it too, a
// delete beyond grace does not (Kafka quirk 14); the position survives a commit and a reopen.
TEST_F(RocksDBVersionedStoreTest, ShouldTrackPositionAsKafkaDoes) {
  context_->at("input", 0, 1);
  put("k", "v", kHistoryRetention + 10, kUndefined);
  EXPECT_EQ(store_->position(), Position::from_map({{"input", {{0, 1}}}}));
  context_->at("input", 0, 2);
  put("k", "old", 5, kNotPut);
  EXPECT_EQ(store_->position(), Position::from_map({{"input", {{0, 2}}}}));
  context_->at("input", 0, 3);
  EXPECT_FALSE(del("k", 5).has_value());
  EXPECT_EQ(store_->position(), Position::from_map({{"input", {{0, 2}}}}));
  context_->at("input", 0, 4);
  ASSERT_TRUE(del("k", kHistoryRetention + 20).has_value());
  EXPECT_EQ(store_->position(), Position::from_map({{"input", {{0, 4}}}}));
  context_->at(std::nullopt, -1, -1);  // punctuation: no topic
  put("p", "v", kHistoryRetention + 20, kUndefined);
  EXPECT_EQ(store_->position(), Position::from_map({{"input", {{0, 4}}}}));

  ASSERT_TRUE(store_->flush().has_value());  // the WAL is off: unflushed writes die with the DB
  ASSERT_TRUE(context_->commit().has_value());
  EXPECT_TRUE(fs_.exists(context_->state_dir() + "/myversionedrocks.position"));
  open(kHistoryRetention);
  EXPECT_EQ(store_->position(), Position::from_map({{"input", {{0, 4}}}}));
  expect_latest("p", "v", kHistoryRetention + 20);
}

// Restore merges each record's "c" header into the position with the consistency switch on, and
// skips the header (and the position) for records beyond grace.
TEST_F(RocksDBVersionedStoreTest, ShouldMergeChangelogPositionsOnRestore) {
  context_->set_consistency_enabled(true);
  open(kHistoryRetention);
  auto headers = [](int64_t offset) {
    return Headers{
        {store_query_utils::kVectorVersionHeader, Bytes(std::string(1, '\0'))},
        {store_query_utils::kVectorHeader,
         Bytes(position_serde::serialize_padded(Position::from_map({{"input", {{0, offset}}}})))}};
  };
  ASSERT_TRUE(context_
                  ->restore({changelog_record(0, "k", "v", kHistoryRetention + 10, headers(7)),
                             changelog_record(1, "x", "old", 5, headers(9))})
                  .has_value());
  EXPECT_EQ(store_->position(), Position::from_map({{"input", {{0, 7}}}}));
  expect_latest_null("x");
}

// Kafka quirk 16: a version valid inside [from, to] is missed when its validTo lies in a later
// segment than `to`, because the multi-version read stops at segment_id(to); get(key, asOf) finds
// it.
TEST_F(RocksDBVersionedStoreTest, MultiVersionReadMissesVersionsWhoseValidToIsInALaterSegment) {
  put("k", "v1", 50, kUndefined);
  put("k", "v2", 2 * SI + 50, kUndefined);  // v1 = [50, 2 SI + 50) lands in segment 2
  expect_as_of("k", SI, "v1", 50, 2 * SI + 50);
  expect_no_versions("k", 0, SI);
  // With `to` in segment 2 it is found.
  expect_versions("k", 0, 2 * SI, ResultOrder::ANY, {"v1"}, {50}, {2 * SI + 50});
}

// Kafka quirk 17: a reopened store does not know the segments written before, so older versions
// vanish from get(key, asOf) and multi-version reads (the latest stays), and come back once a put
// re-creates their segment.
TEST_F(RocksDBVersionedStoreTest, ReopenedStoreDoesNotSeeOlderSegmentsUntilAPutTouchesThem) {
  put("k", "v1", 10, kUndefined);
  put("k", "v2", 20, kUndefined);  // v1 = [10, 20) in segment 0
  expect_as_of("k", 15, "v1", 10, 20);
  ASSERT_TRUE(store_->flush().has_value());
  open(kHistoryRetention);
  EXPECT_TRUE(store_->segment_ids().empty());
  expect_latest("k", "v2", 20);
  expect_as_of_null("k", 15);
  expect_versions("k", kMin, kMax, ResultOrder::ANY, {"v2"}, {20}, {kUndefined});
  put("other", "x", 30, kUndefined);
  put("other", "y", 40, kUndefined);  // moves x into segment 0: the segment is known again
  EXPECT_EQ(store_->segment_ids(), (std::vector<int64_t>{0}));
  expect_as_of("k", 15, "v1", 10, 20);
}

// Kafka quirk 18: restore judges segments by the stream time at the END of its batch, but admits
// records by the running stream time. A tombstone that is the latest version sits in the segment
// of its own timestamp; if that segment is already expired by the batch's end the tombstone is
// not written, and a later out-of-order value (still within grace when it is restored) then
// stretches over the tombstone's interval. Restored in one batch, the store returns that value as
// of a time inside the history retention where live processing and a record-by-record restore
// return null.
TEST_F(RocksDBVersionedStoreTest, RestoreInOneBatchStretchesAVersionOverALostTombstone) {
  const std::vector<std::pair<std::optional<std::string>, int64_t>> ops = {
      {"v1", 1160},     {std::nullopt, 1191}, {std::nullopt, 1199}, {"v2", 1218},
      {"x@1324", 1324}, {"v3", 1024},         {"x@1508", 1508}};
  auto key_of = [](const std::optional<std::string>& value) {
    return value && value->rfind("x@", 0) == 0 ? std::string("x") : std::string("k");
  };
  open(300, 100);
  std::vector<ConsumerRecord> changelog;
  for (const auto& [value, ts] : ops) {
    ASSERT_TRUE(store_->put(Bytes(key_of(value)), v(value), ts).has_value());
    changelog.push_back(
        changelog_record(static_cast<int64_t>(changelog.size()), key_of(value), value, ts));
  }
  // Live: the tombstone at 1199 was valid at 1208 (the retention floor is 1508 - 300).
  expect_as_of_null("k", 1208);

  auto restore_into = [&](const std::string& dir, bool one_batch) {
    auto context = std::make_unique<TestStateStoreContext>(fs_, root_ + "/" + dir);
    auto store = std::make_unique<RocksDBVersionedStore>("myversionedrocks", 300, 100);
    EXPECT_TRUE(store->init(*context, *store).has_value());
    if (one_batch) {
      EXPECT_TRUE(context->restore(changelog).has_value());
    } else {
      for (const auto& record : changelog) EXPECT_TRUE(context->restore({record}).has_value());
    }
    auto r = store->get(Bytes("k"), 1208);
    EXPECT_TRUE(r.has_value());
    std::optional<VersionedBytesRecord> out = r.has_value() ? *r : std::nullopt;
    store.reset();
    return out;
  };
  EXPECT_FALSE(restore_into("per_record", false).has_value());
  const auto batched = restore_into("one_batch", true);
  ASSERT_TRUE(batched.has_value());
  EXPECT_EQ(*batched, (VersionedBytesRecord{Bytes("v3"), 1024, 1218}));
}

// A closed store answers reads and writes with InvalidStateStoreException's message.
TEST_F(RocksDBVersionedStoreTest, ShouldRefuseAccessWhenClosed) {
  store_->close();
  auto r = store_->get(Bytes("k"));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, StreamsError::Kind::InvalidStateStore);
  EXPECT_EQ(r.error().message, "Store myversionedrocks is currently closed");
  EXPECT_FALSE(store_->put(Bytes("k"), v("v"), 1).has_value());
}

}  // namespace
}  // namespace iq
