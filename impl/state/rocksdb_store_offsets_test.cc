// Unit tests of KIP-1035 in RocksDBStore at the 2026-08-20 pin (pin deltas 1, 2 and 4): the
// offsets column family, the open/closed status marker, commit(offsets) and committedOffset, and
// their durability (a memtable flush or a clean close; destroying an open store is a crash).
// Ports of Kafka's AbstractColumnFamilyAccessorTest at 8f4e08b5a3 (the non-transactional cases),
// run through the store on real RocksDB files, plus the durability cases Kafka's accessor test
// cannot show (its accessor is an in-memory map).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "state/position_serde.h"
#include "state/rocksdb_store.h"
#include "state/rocksdb_timestamped_store.h"
#include "state/test_state_store_context.h"

namespace iq {
namespace {

const TopicPartition kTp0{"testTopic", 0};
const TopicPartition kTp1{"testTopic", 1};

class RocksDBStoreOffsetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string tmp = ::testing::TempDir();
    if (tmp.empty() || tmp.back() != '/') tmp += '/';
    root_ = tmp + "iqsim_rocksdb_offsets_" + info->name();
    ASSERT_TRUE(fs_.delete_recursively(root_).has_value());
    context_ = std::make_unique<TestStateStoreContext>(fs_, root_ + "/app/0_0");
    context_->set_kafka_pin(KafkaPin::k2026_08_20);
  }
  void TearDown() override {
    store_.reset();
    EXPECT_TRUE(fs_.delete_recursively(root_).has_value());
  }
  // A new store object on the directory; the old one is destroyed first (a crash if still open:
  // nothing its close would flush reaches the disk).
  Status open(bool timestamped = false) {
    if (store_ && store_->is_open()) kill_leaving_disk(store_, root_ + "/app/0_0");
    store_.reset();
    store_ = timestamped ? std::make_unique<RocksDBTimestampedStore>("s")
                         : std::make_unique<RocksDBStore>("s");
    return store_->init(*context_, *store_);
  }
  void put(const std::string& key, const std::string& value) {
    ASSERT_TRUE(store_->put(Bytes(key), Bytes(value)).has_value());
  }
  std::optional<ChangelogOffset> committed(const TopicPartition& tp) {
    auto offset = store_->committed_offset(tp);
    EXPECT_TRUE(offset.has_value());
    return offset ? *offset : std::nullopt;
  }
  // Enough writes to fill a 1 KiB memtable: the store flushes it at the last one.
  void fill_memtable() {
    for (int i = 0; i < 40; ++i) put("fill-" + std::to_string(i), std::string(40, 'x'));
  }

  PosixFileSystem fs_;
  std::string root_;
  std::unique_ptr<TestStateStoreContext> context_;
  std::unique_ptr<RocksDBStore> store_;
};

// AbstractColumnFamilyAccessorTest.shouldOpenClean, through the store: open writes "open", a
// clean close "closed", and the next open under exactly_once_v2 succeeds.
TEST_F(RocksDBStoreOffsetsTest, OpensCleanAndClosesClean) {
  context_->set_eos_enabled(true);
  ASSERT_TRUE(open().has_value());
  EXPECT_TRUE(store_->manages_offsets());
  EXPECT_EQ(store_->stored_status(), 1);
  store_->close();
  ASSERT_TRUE(open().has_value());
  EXPECT_EQ(store_->stored_status(), 1);
}

// shouldThrowOnOpenAfterAUncleanClose: the "open" marker reached disk (a memtable flush since the
// open) and the process died; under exactly_once_v2 the next open is TaskCorrupted.
TEST_F(RocksDBStoreOffsetsTest, EosOpenAfterACrashWithAFlushSinceOpenIsTaskCorrupted) {
  context_->set_eos_enabled(true);
  context_->set_rocksdb_write_buffer_size(1024);
  ASSERT_TRUE(open().has_value());
  fill_memtable();
  auto reopened = open();  // destroys the open store first: a crash
  ASSERT_FALSE(reopened.has_value());
  EXPECT_EQ(reopened.error().kind, StreamsError::Kind::TaskCorrupted);
  EXPECT_NE(reopened.error().message.find("Invalid state during store open"), std::string::npos);
  EXPECT_FALSE(store_->is_open());
}

// Pin delta 4: without a flush since the open, the crash leaves the last clean close on disk
// (marker "closed", that close's offsets and data), which exactly_once_v2 reuses without a wipe.
TEST_F(RocksDBStoreOffsetsTest, EosOpenAfterACrashWithoutAFlushReusesTheLastCleanClose) {
  context_->set_eos_enabled(true);
  ASSERT_TRUE(open().has_value());
  put("a", "1");
  ASSERT_TRUE(store_->commit({{kTp0, ChangelogOffset(7)}}).has_value());
  store_->close();
  ASSERT_TRUE(open().has_value());
  put("b", "2");
  ASSERT_TRUE(store_->commit({{kTp0, ChangelogOffset(9)}}).has_value());
  ASSERT_TRUE(open().has_value());  // a crash: the memtable with "b", 9 and "open" is lost
  EXPECT_EQ(committed(kTp0), ChangelogOffset(7));
  EXPECT_TRUE(store_->get(Bytes("a"))->has_value());
  EXPECT_FALSE(store_->get(Bytes("b"))->has_value());
}

// shouldIgnoreExceptionAfterUncleanClose: under at-least-once the stale "open" is ignored.
TEST_F(RocksDBStoreOffsetsTest, AlosIgnoresAStaleOpenMarker) {
  context_->set_rocksdb_write_buffer_size(1024);
  ASSERT_TRUE(open().has_value());
  fill_memtable();
  ASSERT_TRUE(open().has_value());
  EXPECT_EQ(store_->stored_status(), 1);
}

// shouldCommitOffsets.
TEST_F(RocksDBStoreOffsetsTest, CommitsOffsets) {
  ASSERT_TRUE(open().has_value());
  ASSERT_TRUE(store_->commit({{kTp0, ChangelogOffset(10)}, {kTp1, ChangelogOffset(20)}}));
  EXPECT_EQ(committed(kTp0), ChangelogOffset(10));
  EXPECT_EQ(committed(kTp1), ChangelogOffset(20));
}

// shouldCommitPosition, and the position comes back at the next open (no .position file).
TEST_F(RocksDBStoreOffsetsTest, CommitsThePositionAndReadsItBackAtOpen) {
  ASSERT_TRUE(open().has_value());
  context_->at("input", 0, 10);
  put("a", "1");
  context_->at("input", 1, 20);
  put("b", "2");
  const Position expected = Position::from_map({{"input", {{0, 10}, {1, 20}}}});
  EXPECT_EQ(store_->position(), expected);
  ASSERT_TRUE(store_->commit({{kTp0, ChangelogOffset(0)}}).has_value());
  ASSERT_TRUE(context_->commit().has_value());  // writePosition: a no-op at the new pin
  store_->close();
  EXPECT_FALSE(fs_.exists(root_ + "/app/0_0/s.position"));
  ASSERT_TRUE(open().has_value());
  EXPECT_EQ(store_->position(), expected);
}

// shouldWipeCommittedOffsetsOnEmptyCommit (KAFKA-17411, 8b47aa813a).
TEST_F(RocksDBStoreOffsetsTest, AnEmptyCommitWipesTheOffsetsButNotTheStatus) {
  ASSERT_TRUE(open().has_value());
  ASSERT_TRUE(store_->commit({{kTp0, ChangelogOffset(10)}, {kTp1, ChangelogOffset(20)}}));
  ASSERT_TRUE(store_->commit({}).has_value());
  EXPECT_EQ(committed(kTp0), std::nullopt);
  EXPECT_EQ(committed(kTp1), std::nullopt);
  EXPECT_EQ(store_->stored_status(), 1);
}

// Pin delta 2: a commit is not durable by itself; a crash before any flush loses it.
TEST_F(RocksDBStoreOffsetsTest, ACommitWithoutAFlushDoesNotSurviveACrash) {
  ASSERT_TRUE(open().has_value());
  put("a", "1");
  ASSERT_TRUE(store_->commit({{kTp0, ChangelogOffset(3)}}).has_value());
  ASSERT_TRUE(open().has_value());
  EXPECT_EQ(committed(kTp0), std::nullopt);
  EXPECT_FALSE(store_->get(Bytes("a"))->has_value());
}

// Pin delta 2 and 22: a memtable flush between commits persists the data written after the last
// commit together with that commit's offsets; after a crash the data is ahead of its offsets.
TEST_F(RocksDBStoreOffsetsTest, AFlushBetweenCommitsPersistsDataAheadOfTheOffsets) {
  context_->set_rocksdb_write_buffer_size(1024);
  ASSERT_TRUE(open().has_value());
  put("a", "1");
  ASSERT_TRUE(store_->commit({{kTp0, ChangelogOffset(3)}}).has_value());
  fill_memtable();  // flushes "a", offset 3 and the fill together
  put("late", "x");
  ASSERT_TRUE(store_->commit({{kTp0, ChangelogOffset(50)}}).has_value());  // never flushed
  ASSERT_TRUE(open().has_value());
  EXPECT_EQ(committed(kTp0), ChangelogOffset(3));
  EXPECT_TRUE(store_->get(Bytes("fill-0"))->has_value());
  EXPECT_FALSE(store_->get(Bytes("late"))->has_value());
}

// The timestamped store (its own data column family) keeps offsets the same way.
TEST_F(RocksDBStoreOffsetsTest, TheTimestampedStoreKeepsOffsetsToo) {
  ASSERT_TRUE(open(/*timestamped=*/true).has_value());
  put("a", std::string(8, '\0') + "1");
  ASSERT_TRUE(store_->commit({{kTp0, ChangelogOffset(4)}}).has_value());
  store_->close();
  ASSERT_TRUE(open(/*timestamped=*/true).has_value());
  EXPECT_EQ(committed(kTp0), ChangelogOffset(4));
  EXPECT_TRUE(store_->get(Bytes("a"))->has_value());
}

// The old pin keeps .checkpoint and .position: the store manages no offsets.
TEST_F(RocksDBStoreOffsetsTest, TheOldPinManagesNoOffsets) {
  context_->set_kafka_pin(KafkaPin::k2024_10_25);
  ASSERT_TRUE(open().has_value());
  EXPECT_FALSE(store_->manages_offsets());
  EXPECT_EQ(committed(kTp0), std::nullopt);
  context_->at("input", 0, 1);
  put("a", "1");
  ASSERT_TRUE(context_->commit().has_value());
  EXPECT_TRUE(fs_.exists(root_ + "/app/0_0/s.position"));
}

}  // namespace
}  // namespace iq
