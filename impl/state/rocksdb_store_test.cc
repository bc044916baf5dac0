// Unit tests of RocksDBStore and RocksDBTimestampedStore on real RocksDB files in a fresh
// temporary task directory per test (Kafka's RocksDBStoreTest, where a test of the same idea
// exists).
#include "state/rocksdb_store.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "iq/key_query.h"
#include "iq/range_query.h"
#include "state/position_serde.h"
#include "state/rocksdb_timestamped_store.h"
#include "state/state_store_context.h"
#include "state/store_query_utils.h"
#include "state/test_state_store_context.h"

namespace iq {
namespace {

Bytes b(std::string_view s) {
  return Bytes::wrap(s);
}

std::vector<std::string> keys_of(const BytesIterator& it) {
  std::vector<std::string> keys;
  for (const auto& entry : it.entries) keys.push_back(entry.key.get());
  return keys;
}

Position position_of(const Position::Map& map) {
  return Position::from_map(map);
}

// The headers ProcessorContextImpl.logChange writes with the consistency switch on.
Headers consistency_headers(const Position& position) {
  return {{store_query_utils::kVectorVersionHeader, Bytes(std::string(1, '\0'))},
          {store_query_utils::kVectorHeader, Bytes(position_serde::serialize_padded(position))}};
}

ConsumerRecord changelog_record(int64_t offset, std::optional<std::string> key,
                                std::optional<std::string> value, Headers headers = {}) {
  ConsumerRecord record;
  record.topic = "app-s-changelog";
  record.offset = offset;
  if (key) record.key = Bytes(*key);
  if (value) record.value = Bytes(*value);
  record.headers = std::move(headers);
  return record;
}

class RocksDBStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string tmp = ::testing::TempDir();
    if (tmp.empty() || tmp.back() != '/') tmp += '/';
    root_ = tmp + "iqsim_rocksdb_" + info->test_suite_name() + "_" + info->name();
    ASSERT_TRUE(fs_.delete_recursively(root_).has_value());
    context_ = std::make_unique<TestStateStoreContext>(fs_, root_ + "/app/0_0");
  }
  void TearDown() override {
    store_.reset();  // closes the DB before its files go
    EXPECT_TRUE(fs_.delete_recursively(root_).has_value());
  }

  // A new store object on the task directory, initialized; replaces (and so closes) the old one.
  RocksDBStore& open(bool timestamped = false) {
    store_.reset();
    store_ = timestamped ? std::make_unique<RocksDBTimestampedStore>("s")
                         : std::make_unique<RocksDBStore>("s");
    auto s = store_->init(*context_, *store_);
    EXPECT_TRUE(s.has_value()) << s.error().to_string();
    EXPECT_EQ(context_->registered(), store_.get());
    return *store_;
  }
  std::string position_file() const { return context_->state_dir() + "/s.position"; }

  PosixFileSystem fs_;
  std::string root_;
  std::unique_ptr<TestStateStoreContext> context_;
  std::unique_ptr<RocksDBStore> store_;
};

// Kafka's shouldMatchPositionAfterPut: each put advances the position to the record's offset.
TEST_F(RocksDBStoreTest, ShouldMatchPositionAfterPut) {
  RocksDBStore& store = open();
  for (int64_t offset = 1; offset <= 3; ++offset) {
    context_->at("", 0, offset);
    ASSERT_TRUE(store.put(b("k" + std::to_string(offset)), b("v")).has_value());
  }
  EXPECT_EQ(store.position(), position_of({{"", {{0, 3}}}}));
}

// put_all advances the position once, from the current record context, and applies deletes.
TEST_F(RocksDBStoreTest, ShouldPutAllAndUpdatePositionOnce) {
  RocksDBStore& store = open();
  ASSERT_TRUE(store.put(b("gone"), b("x")).has_value());
  context_->at("input", 1, 7);
  ASSERT_TRUE(
      store.put_all({{b("a"), b("1")}, {b("b"), b("2")}, {b("gone"), std::nullopt}}).has_value());
  EXPECT_EQ(store.position(), position_of({{"input", {{1, 7}}}}));
  EXPECT_EQ(*store.get(b("a")), ValueBytes(b("1")));
  EXPECT_EQ(*store.get(b("gone")), ValueBytes());
  // RocksDB estimates entries minus twice the deletes: 4 - 2, here exactly the live keys.
  EXPECT_EQ(store.approximate_num_entries(), 2);
}

// A delete advances the position like a put; a punctuation (no topic) advances nothing.
TEST_F(RocksDBStoreTest, ShouldUpdatePositionOnDeleteButNotInPunctuation) {
  RocksDBStore& store = open();
  context_->at("input", 0, 4);
  ASSERT_TRUE(store.put(b("a"), b("1")).has_value());
  context_->at("input", 0, 5);
  ASSERT_TRUE(store.delete_key(b("a")).has_value());
  EXPECT_EQ(store.position(), position_of({{"input", {{0, 5}}}}));
  context_->at(std::nullopt, -1, -1);
  ASSERT_TRUE(store.put(b("b"), b("2")).has_value());
  EXPECT_EQ(store.position(), position_of({{"input", {{0, 5}}}}));
}

// Inclusive bounds, open bounds, both directions, unsigned byte order ("\xff" after "a").
TEST_F(RocksDBStoreTest, ShouldIterateRangesInUnsignedByteOrder) {
  RocksDBStore& store = open();
  for (const char* key : {"c", "\xff", "a", "b", "d"})
    ASSERT_TRUE(store.put(b(key), b("v")).has_value());
  using Keys = std::vector<std::string>;
  EXPECT_EQ(keys_of(*store.range(b("b"), b("d"), false)), (Keys{"b", "c", "d"}));
  EXPECT_EQ(keys_of(*store.range(b("b"), b("d"), true)), (Keys{"d", "c", "b"}));
  EXPECT_EQ(keys_of(*store.range(b("bb"), std::nullopt, false)), (Keys{"c", "d", "\xff"}));
  EXPECT_EQ(keys_of(*store.range(std::nullopt, b("bb"), true)), (Keys{"b", "a"}));
  EXPECT_EQ(keys_of(*store.range(b("e"), std::nullopt, true)), (Keys{"\xff"}));
  EXPECT_EQ(keys_of(*store.all(false)), (Keys{"a", "b", "c", "d", "\xff"}));
  EXPECT_EQ(keys_of(*store.all(true)), (Keys{"\xff", "d", "c", "b", "a"}));
  EXPECT_EQ(store.all(false)->origin, IteratorOrigin::RocksDbIterator);
  EXPECT_EQ(store.range(b("a"), b("a"), false)->origin, IteratorOrigin::RocksDbIterator);
  EXPECT_EQ(store.all(false)->entries.front().value, b("v"));
}

// Kafka returns an empty iterator for from > to before checking that the store is open.
TEST_F(RocksDBStoreTest, ShouldReturnEmptyIteratorWhenFromIsGreaterThanToEvenWhenClosed) {
  RocksDBStore& store = open();
  ASSERT_TRUE(store.put(b("a"), b("1")).has_value());
  for (bool reverse : {false, true}) {
    auto it = store.range(b("z"), b("a"), reverse);
    ASSERT_TRUE(it.has_value());
    EXPECT_TRUE(it->entries.empty());
    EXPECT_EQ(it->origin, IteratorOrigin::EmptyIterator);
  }
  store.close();
  auto closed = store.range(b("\xff"), b("a"), false);
  ASSERT_TRUE(closed.has_value());
  EXPECT_EQ(closed->origin, IteratorOrigin::EmptyIterator);
  auto valid = store.range(b("a"), b("z"), false);
  ASSERT_FALSE(valid.has_value());
  EXPECT_EQ(valid.error().kind, StreamsError::Kind::InvalidStateStore);
}

// put_if_absent keeps an existing value; delete_key returns the value it removed.
TEST_F(RocksDBStoreTest, ShouldPutIfAbsentAndDeleteReturningOldValue) {
  RocksDBStore& store = open();
  EXPECT_EQ(*store.put_if_absent(b("k"), b("1")), ValueBytes());
  EXPECT_EQ(*store.put_if_absent(b("k"), b("2")), ValueBytes(b("1")));
  EXPECT_EQ(*store.get(b("k")), ValueBytes(b("1")));
  EXPECT_EQ(*store.delete_key(b("k")), ValueBytes(b("1")));
  EXPECT_EQ(*store.delete_key(b("k")), ValueBytes());
  EXPECT_EQ(*store.get(b("k")), ValueBytes());
}

// Every read and write of a closed store is Kafka's InvalidStateStoreException.
TEST_F(RocksDBStoreTest, ShouldThrowInvalidStateStoreExceptionWhenClosed) {
  RocksDBStore& store = open();
  store.close();
  EXPECT_FALSE(store.is_open());
  auto got = store.get(b("k"));
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().kind, StreamsError::Kind::InvalidStateStore);
  EXPECT_EQ(got.error().message, "Store s is currently closed");
  EXPECT_FALSE(store.put(b("k"), b("v")).has_value());
  EXPECT_FALSE(store.all(false).has_value());
  EXPECT_TRUE(store.flush().has_value());  // Kafka: flush of a closed store does nothing
}

// A KeyQuery on a closed store goes through handle_basic_queries to STORE_EXCEPTION.
TEST_F(RocksDBStoreTest, ShouldAnswerStoreExceptionForQueryOnClosedStore) {
  RocksDBStore& store = open();
  context_->at("input", 0, 2);
  ASSERT_TRUE(store.put(b("a"), b("1")).has_value());
  const auto query = KeyQuery<Bytes, Bytes>::with_key(b("a"));
  auto answered = store.query(query, PositionBound::unbounded(), QueryConfig(false));
  ASSERT_TRUE(answered.has_value());
  ASSERT_TRUE(answered->is_success());
  EXPECT_EQ(answered->result<std::optional<Bytes>>(), std::optional<Bytes>(b("1")));
  store.close();
  auto failed = store.query(query, PositionBound::unbounded(), QueryConfig(false));
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->failure_reason(), FailureReason::STORE_EXCEPTION);
  EXPECT_EQ(failed->failure_message(),
            "class org.apache.kafka.streams.state.internals.RocksDBStore failed to handle query " +
                query.to_string() + ":\nInvalidStateStoreException: Store s is currently closed");
  EXPECT_EQ(failed->position(), position_of({{"input", {{0, 2}}}}));
}

// Before init the store has no context, so every known query is NOT_UP_TO_BOUND.
TEST_F(RocksDBStoreTest, ShouldAnswerNotInitializedBeforeInit) {
  RocksDBStore store("s");
  auto answered = store.query(RangeQuery<Bytes, Bytes>::with_no_bounds(),
                              PositionBound::unbounded(), QueryConfig(false));
  ASSERT_TRUE(answered.has_value());
  EXPECT_EQ(answered->failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  EXPECT_EQ(answered->failure_message(),
            "The store is not initialized yet, so it is not yet up to the bound "
            "PositionBound{position=Position{position={}}}");
}

// RocksDBStore.openDB leaves avoid_flush_during_shutdown at RocksDB's default (false): with the
// WAL off, closing the store flushes what its memtable holds (a dirty close keeps its writes).
TEST_F(RocksDBStoreTest, ShouldFlushUnflushedWritesOnClose) {
  RocksDBStore& store = open();
  ASSERT_TRUE(store.put(b("flushed"), b("1")).has_value());
  ASSERT_TRUE(store.flush().has_value());
  ASSERT_TRUE(store.put(b("unflushed"), b("2")).has_value());
  ASSERT_TRUE(store.delete_key(b("flushed")).has_value());
  store.close();
  RocksDBStore& reopened = open();
  EXPECT_EQ(*reopened.get(b("flushed")), ValueBytes());
  EXPECT_EQ(*reopened.get(b("unflushed")), ValueBytes(b("2")));
}

// With the WAL off, a killed process keeps what was flushed and loses the rest.
TEST_F(RocksDBStoreTest, ShouldLoseUnflushedWritesWhenTheProcessIsKilled) {
  RocksDBStore& store = open();
  ASSERT_TRUE(store.put(b("flushed"), b("1")).has_value());
  ASSERT_TRUE(store.flush().has_value());
  ASSERT_TRUE(store.put(b("unflushed"), b("2")).has_value());
  ASSERT_TRUE(store.delete_key(b("flushed")).has_value());  // a lost delete
  kill_leaving_disk(store_, context_->state_dir());
  RocksDBStore& reopened = open();
  EXPECT_EQ(*reopened.get(b("flushed")), ValueBytes(b("1")));
  EXPECT_EQ(*reopened.get(b("unflushed")), ValueBytes());
}

// The commit callback writes <store>.position in OffsetCheckpoint format; reopening loads it.
TEST_F(RocksDBStoreTest, ShouldPersistPositionThroughCommitCallback) {
  RocksDBStore& store = open();
  for (int64_t offset = 1; offset <= 3; ++offset) {
    context_->at("input", 0, offset);
    ASSERT_TRUE(store.put(b("k"), b(std::to_string(offset))).has_value());
  }
  EXPECT_FALSE(fs_.exists(position_file()));  // written at commit, never on a write
  ASSERT_TRUE(context_->commit().has_value());
  auto content = fs_.read_file(position_file());
  ASSERT_TRUE(content.has_value() && content->has_value());
  EXPECT_EQ(**content, "0\n1\ninput 0 3\n");
  store.close();  // close writes nothing: the file is what the last commit wrote
  EXPECT_EQ(open().position(), position_of({{"input", {{0, 3}}}}));
}

// A commit with an empty position deletes a stale <store>.position (OffsetCheckpoint.write).
TEST_F(RocksDBStoreTest, ShouldDeletePositionFileWhenPositionIsEmpty) {
  open();
  ASSERT_TRUE(fs_.write_file_atomically(position_file(), "0\n1\ninput 0 9\n").has_value());
  ASSERT_TRUE(context_->commit().has_value());
  EXPECT_FALSE(fs_.exists(position_file()));
}

// Kafka's shouldRestoreRecordsAndConsistencyVectorMultipleTopics: restore merges the "c" headers.
TEST_F(RocksDBStoreTest, ShouldRestoreRecordsAndConsistencyVectorMultipleTopics) {
  context_->set_consistency_enabled(true);
  RocksDBStore& store = open();
  const std::vector<ConsumerRecord> records = {
      changelog_record(0, "a", "1", consistency_headers(position_of({{"A", {{0, 5}}}}))),
      changelog_record(1, "b", "2", consistency_headers(position_of({{"B", {{0, 2}}}}))),
      changelog_record(2, std::nullopt, "keyless",
                       consistency_headers(position_of({{"C", {{0, 1}}}}))),
      changelog_record(3, "a", std::nullopt, consistency_headers(position_of({{"A", {{0, 6}}}}))),
  };
  ASSERT_TRUE(context_->restore(records).has_value());
  // The keyless record never reaches the store, so "C" is absent.
  EXPECT_EQ(store.position(), position_of({{"A", {{0, 6}}}, {"B", {{0, 2}}}}));
  EXPECT_EQ(*store.get(b("a")), ValueBytes());
  EXPECT_EQ(*store.get(b("b")), ValueBytes(b("2")));
}

// With the consistency switch off, restore ignores the headers and the position stays empty.
TEST_F(RocksDBStoreTest, ShouldNotUpdatePositionOnRestoreWhenConsistencyDisabled) {
  RocksDBStore& store = open();
  ASSERT_TRUE(context_
                  ->restore({changelog_record(0, "a", "1",
                                              consistency_headers(position_of({{"A", {{0, 5}}}})))})
                  .has_value());
  EXPECT_TRUE(store.position().is_empty());
  EXPECT_EQ(*store.get(b("a")), ValueBytes(b("1")));
}

// Kafka's shouldNotThrowWhenRestoringOnMissingHeaders: no headers, no position change.
TEST_F(RocksDBStoreTest, ShouldNotThrowWhenRestoringOnMissingHeaders) {
  context_->set_consistency_enabled(true);
  RocksDBStore& store = open();
  ASSERT_TRUE(context_->restore({changelog_record(0, "a", "1"), changelog_record(1, "b", "2")})
                  .has_value());
  EXPECT_TRUE(store.position().is_empty());
  EXPECT_EQ(*store.get(b("b")), ValueBytes(b("2")));
}

// A "v" = 0 header without "c" is ChangelogRecordDeserializationHelper's StreamsException.
TEST_F(RocksDBStoreTest, ShouldFailRestoreWhenVersionHeaderHasNoVector) {
  context_->set_consistency_enabled(true);
  RocksDBStore& store = open();
  Headers only_version = {{store_query_utils::kVectorVersionHeader, Bytes(std::string(1, '\0'))}};
  auto restored = context_->restore({changelog_record(0, "a", "1", only_version)});
  ASSERT_FALSE(restored.has_value());
  EXPECT_EQ(restored.error().kind, StreamsError::Kind::Streams);
  EXPECT_EQ(*store.get(b("a")), ValueBytes());  // nothing of the failed batch was written
}

// The table files of the store's database: each flush that finds writes adds one, and the
// compaction after a flush (compact_if_triggered) replaces all of them by one.
size_t table_files(const std::string& db_dir) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(db_dir)) {
    if (entry.path().extension() == ".sst") ++n;
  }
  return n;
}

// The stand-in for Kafka's automatic universal compaction: the fourth sorted run triggers a
// merge into one, on the flush's own thread, so a read never merges more than three files
// however many commits came before; every answer is the same before and after, and survives a
// close without flush (a crash).
TEST_F(RocksDBStoreTest, ShouldCompactToOneSortedRunWhenFlushesReachTheTrigger) {
  RocksDBStore& store = open();
  const std::string dir = context_->state_dir() + "/rocksdb/s";
  const std::vector<size_t> expected = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1};
  for (size_t i = 0; i < expected.size(); ++i) {
    const std::string key = "k" + std::to_string(i);
    ASSERT_TRUE(store.put(b(key), b("v" + std::to_string(i))).has_value());
    ASSERT_TRUE(store.put(b("shared"), b(key)).has_value());  // overwritten every flush
    if (i > 0) {
      ASSERT_TRUE(store.delete_key(b("k" + std::to_string(i - 1))).has_value());
    }
    ASSERT_TRUE(store.flush().has_value());
    EXPECT_EQ(table_files(dir), expected[i]) << "after flush " << i + 1;
    EXPECT_EQ(*store.get(b("shared")), ValueBytes(b(key))) << "after flush " << i + 1;
    EXPECT_EQ(*store.get(b(key)), ValueBytes(b("v" + std::to_string(i))));
    if (i > 0) {
      EXPECT_EQ(*store.get(b("k" + std::to_string(i - 1))), ValueBytes());
    }
    auto all = store.all(/*reverse=*/false);
    ASSERT_TRUE(all.has_value());
    EXPECT_EQ(keys_of(*all), (std::vector<std::string>{key, "shared"}));
  }
  ASSERT_TRUE(store.put(b("lost"), b("x")).has_value());
  kill_leaving_disk(store_, context_->state_dir());  // the process dies: no flush at close
  RocksDBStore& reopened = open();
  EXPECT_EQ(table_files(dir), 1u);
  EXPECT_EQ(*reopened.get(b("lost")), ValueBytes());
  auto all = reopened.all(/*reverse=*/false);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(keys_of(*all), (std::vector<std::string>{"k9", "shared"}));
}

// A flush with nothing to write adds no file, so it neither counts towards the trigger nor
// compacts.
TEST_F(RocksDBStoreTest, ShouldNotCompactBelowTheTrigger) {
  RocksDBStore& store = open();
  const std::string dir = context_->state_dir() + "/rocksdb/s";
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(store.put(b("k" + std::to_string(i)), b("v")).has_value());
    ASSERT_TRUE(store.flush().has_value());
  }
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(store.flush().has_value());
  EXPECT_EQ(table_files(dir), 3u);
}

// The timestamped store keeps its values in "keyValueWithTimestamp" and leaves "default" empty.
TEST_F(RocksDBStoreTest, TimestampedStoreUsesItsOwnColumnFamily) {
  RocksDBStore& store = open(/*timestamped=*/true);
  EXPECT_TRUE(store.is_timestamped());
  EXPECT_EQ(store.java_class(),
            "class org.apache.kafka.streams.state.internals.RocksDBTimestampedStore");
  const std::string value = std::string(7, '\0') + "\x05" + "v";  // timestamp 5, then the value
  ASSERT_TRUE(store.put(b("k"), b(value)).has_value());
  ASSERT_TRUE(store.flush().has_value());
  store.close();

  const std::string dir = context_->state_dir() + "/rocksdb/s";
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {RocksDBTimestampedStore::kTimestampedValuesColumnFamilyName,
       rocksdb::ColumnFamilyOptions()}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(
      rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(), dir, families, &handles, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::string found;
  EXPECT_TRUE(db->Get(rocksdb::ReadOptions(), handles[0], "k", &found).IsNotFound());
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), handles[1], "k", &found).ok());
  EXPECT_EQ(found, value);
  for (auto* handle : handles) EXPECT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());

  EXPECT_EQ(*open(/*timestamped=*/true).get(b("k")), ValueBytes(b(value)));
}

// A second store on a directory whose DB is open fails to init with Kafka's open message.
TEST_F(RocksDBStoreTest, ShouldReportOpenFailureWithStoreNameAndLocation) {
  open();
  RocksDBStore second("s");
  auto s = second.init(*context_, second);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().kind, StreamsError::Kind::ProcessorState);
  const std::string prefix =
      "Error opening store s at location " + context_->state_dir() + "/rocksdb/s: ";
  EXPECT_EQ(s.error().message.substr(0, prefix.size()), prefix);
  EXPECT_FALSE(second.is_open());
  EXPECT_TRUE(store_->is_open());
}

// Upgrade mode is not modelled, so plain values in the default column family trip an assertion.
TEST_F(RocksDBStoreTest, TimestampedStoreAssertsDefaultColumnFamilyIsEmpty) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // RocksDB has background threads
  RocksDBStore& plain = open();
  ASSERT_TRUE(plain.put(b("k"), b("plain")).has_value());
  ASSERT_TRUE(plain.flush().has_value());
  store_.reset();
  EXPECT_DEATH(open(/*timestamped=*/true), "plain values in the default column family");
}

// The plain store reports itself as Kafka's RocksDBStore, persistent and not timestamped.
TEST_F(RocksDBStoreTest, PlainStoreIdentity) {
  RocksDBStore& store = open();
  EXPECT_FALSE(store.is_timestamped());
  EXPECT_TRUE(store.persistent());
  EXPECT_TRUE(store.is_open());
  EXPECT_EQ(store.java_class(), "class org.apache.kafka.streams.state.internals.RocksDBStore");
}

}  // namespace
}  // namespace iq
