// Unit tests of KIP-1035 in the segmented (window, session) and versioned RocksDB stores at the
// 2026-08-20 pin (pin deltas 1, 2, 4, 10, 12 and 13): every segment keeps an "offsets" column
// family; the store commits into every segment; the committed offset is the newest segment's
// (AbstractSegments.committedOffset, f6f8b7ba26); nothing is durable before a memtable flush or a
// clean close; segments flush apart; the versioned store commits its physical store, whose
// position no versioned put advances. Ports of Kafka's tests at 8f4e08b5a3 where they exist
// (AbstractSegmentsTest.shouldThrowTaskCorruptedExceptionIfSegmentIsInInvalidState and
// shouldNotRetainFailedSegmentSoRecoveryStaysRecoverable,
// AbstractRocksDBSegmentedBytesStoreTest.shouldMigrateExistingPositionFromFile and
// shouldRestoreMergedPositionFromMultipleSegmentsAfterRestart,
// RocksDBVersionedStoreTest.shouldMigrateExistingPositionFromFile); the rest are iqsim's own, for
// behaviour Kafka's tests do not cover (the commit, the newest-first read, a crash).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "state/offset_checkpoint.h"
#include "state/rocksdb_session_store.h"
#include "state/rocksdb_versioned_store.h"
#include "state/rocksdb_window_store.h"
#include "state/segments.h"
#include "state/test_state_store_context.h"

namespace iq {
namespace {

const TopicPartition kTp{"app-w-changelog", 0};
constexpr int64_t kInterval = 60000;    // the segment interval (and the smallest Kafka allows)
constexpr int64_t kRetention = 180000;  // segments 0, 1, 2 live at stream time 2 * kInterval

class SegmentedStoreOffsetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string tmp = ::testing::TempDir();
    if (tmp.empty() || tmp.back() != '/') tmp += '/';
    root_ = tmp + "iqsim_segmented_offsets_" + info->name();
    ASSERT_TRUE(fs_.delete_recursively(root_).has_value());
    dir_ = root_ + "/app/0_0";
    ASSERT_TRUE(fs_.create_directories(dir_).has_value());
    context_ = std::make_unique<TestStateStoreContext>(fs_, dir_);
    context_->set_kafka_pin(KafkaPin::k2026_08_20);
  }
  void TearDown() override {
    store_.reset();
    EXPECT_TRUE(fs_.delete_recursively(root_).has_value());
  }
  // A new store object on the directory; the old one is destroyed first (a crash if still open:
  // nothing its close would flush reaches the disk).
  Status open() {
    if (store_ && store_->is_open()) kill_leaving_disk(store_, dir_);
    store_.reset();
    store_ = std::make_unique<RocksDBWindowStore>("w", kRetention, kInterval, /*window_size_ms=*/1,
                                                  /*retain_duplicates=*/false);
    return store_->init(*context_, *store_);
  }
  void put(const std::string& key, int64_t window_start_ms, const std::string& value = "v") {
    ASSERT_TRUE(store_->put(Bytes(key), Bytes(value), window_start_ms).has_value());
  }
  bool holds(const std::string& key, int64_t window_start_ms) {
    auto value = store_->fetch(Bytes(key), window_start_ms);
    EXPECT_TRUE(value.has_value());
    return value && value->has_value();
  }
  std::optional<ChangelogOffset> committed() {
    auto offset = store_->committed_offset(kTp);
    EXPECT_TRUE(offset.has_value());
    return offset ? *offset : std::nullopt;
  }
  KeyValueSegment& segment(int64_t id) {
    KeyValueSegment* s = store_->bytes_store().segment(id);
    IQ_ASSERT(s != nullptr, "no segment {}", id);
    return *s;
  }
  std::optional<ChangelogOffset> committed_in(int64_t id) {
    auto offset = segment(id).committed_offset(kTp);
    EXPECT_TRUE(offset.has_value());
    return offset ? *offset : std::nullopt;
  }
  // Enough writes into one segment to fill a 1 KiB memtable: it flushes at the last one.
  void fill_segment(int64_t id) {
    for (int i = 0; i < 40; ++i) {
      put("fill-" + std::to_string(i), id * kInterval + 1, std::string(40, 'x'));
    }
  }

  PosixFileSystem fs_;
  std::string root_;
  std::string dir_;
  std::unique_ptr<TestStateStoreContext> context_;
  std::unique_ptr<RocksDBWindowStore> store_;
};

TEST_F(SegmentedStoreOffsetsTest, TheOldPinManagesNoOffsets) {
  context_->set_kafka_pin(KafkaPin::k2024_10_25);
  ASSERT_TRUE(open().has_value());
  EXPECT_FALSE(store_->manages_offsets());
  put("a", 0);
  EXPECT_FALSE(segment(0).manages_offsets());
  EXPECT_EQ(committed(), std::nullopt);
}

// commit(offsets) reaches every segment (AbstractSegments.commit), with the shared position.
TEST_F(SegmentedStoreOffsetsTest, ACommitWritesTheOffsetsIntoEverySegment) {
  ASSERT_TRUE(open().has_value());
  EXPECT_TRUE(store_->manages_offsets());
  put("a", 0);
  put("b", kInterval);
  put("c", 2 * kInterval);
  EXPECT_EQ(committed(), std::nullopt);
  ASSERT_TRUE(store_->commit({{kTp, ChangelogOffset(7)}}).has_value());
  for (int64_t id : {0, 1, 2}) {
    EXPECT_TRUE(segment(id).manages_offsets());
    EXPECT_EQ(committed_in(id), ChangelogOffset(7)) << "segment " << id;
    EXPECT_EQ(segment(id).stored_status(), 1) << "segment " << id;
  }
  EXPECT_EQ(committed(), ChangelogOffset(7));
}

// AbstractSegments.committedOffset (pin delta 12): the newest segment that holds an offset wins,
// whatever an older segment holds.
TEST_F(SegmentedStoreOffsetsTest, TheCommittedOffsetIsTheNewestSegments) {
  ASSERT_TRUE(open().has_value());
  put("a", 0);
  put("b", kInterval);
  const Position none = Position::empty_position();
  ASSERT_TRUE(segment(0).commit(none, {{kTp, ChangelogOffset(9)}}).has_value());
  ASSERT_TRUE(segment(1).commit(none, {{kTp, ChangelogOffset(4)}}).has_value());
  EXPECT_EQ(committed(), ChangelogOffset(4));
  // A newer segment without an offset (rolled after the last commit) is passed over.
  put("c", 2 * kInterval);
  EXPECT_EQ(committed_in(2), std::nullopt);
  EXPECT_EQ(committed(), ChangelogOffset(4));
}

// Pin delta 2: a commit writes the memtables only; the process dying before a flush or a clean
// close loses it, and a clean close keeps it.
TEST_F(SegmentedStoreOffsetsTest, ACommitIsDurableOnlyAfterACleanClose) {
  ASSERT_TRUE(open().has_value());
  put("a", 0);
  ASSERT_TRUE(store_->commit({{kTp, ChangelogOffset(3)}}).has_value());
  ASSERT_TRUE(open().has_value());  // the first store object is dropped open: a crash
  EXPECT_EQ(committed(), std::nullopt);
  EXPECT_FALSE(holds("a", 0));
  put("a", 0);
  ASSERT_TRUE(store_->commit({{kTp, ChangelogOffset(3)}}).has_value());
  store_->close();
  ASSERT_TRUE(open().has_value());
  EXPECT_EQ(committed(), ChangelogOffset(3));
  EXPECT_TRUE(holds("a", 0));
}

// Pin delta 12 with delta 2 (docs/kafka-2026-08-20.md §10 H4): segments flush apart. The newest
// segment's memtable fills and flushes its data and the offsets of the last commit; the older
// segment's memtable, with a write before that commit, is lost in a crash. The reopened store
// reports the newest segment's offset, past a write it no longer holds.
TEST_F(SegmentedStoreOffsetsTest, ASegmentFlushedApartFromTheNewestLosesWritesBelowTheOffset) {
  context_->set_rocksdb_write_buffer_size(1024);
  ASSERT_TRUE(open().has_value());
  put("old", 0);
  put("new", kInterval);
  ASSERT_TRUE(store_->commit({{kTp, ChangelogOffset(10)}}).has_value());
  fill_segment(1);  // segment 1 flushes: "new", offset 10 and the fill; segment 0 does not
  ASSERT_TRUE(open().has_value());  // crash
  EXPECT_EQ(committed(), ChangelogOffset(10));
  EXPECT_EQ(committed_in(0), std::nullopt);
  EXPECT_FALSE(holds("old", 0));
  EXPECT_TRUE(holds("new", kInterval));
}

// AbstractSegmentsTest.shouldThrowTaskCorruptedExceptionIfSegmentIsInInvalidState and
// shouldNotRetainFailedSegmentSoRecoveryStaysRecoverable: under exactly_once_v2 a segment whose
// "open" marker reached disk (a flush since its open, then a crash) is TaskCorrupted, every time,
// and is not kept open.
TEST_F(SegmentedStoreOffsetsTest, EosOpenOfASegmentLeftOpenOnDiskIsTaskCorruptedEveryTime) {
  context_->set_eos_enabled(true);
  context_->set_rocksdb_write_buffer_size(1024);
  ASSERT_TRUE(open().has_value());
  fill_segment(0);  // the flush puts "open" on disk
  kill_leaving_disk(store_, dir_);
  KeyValueSegments segments("w", kRetention, kInterval, "default");
  Position position = Position::empty_position();
  segments.manage_offsets(position);
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto opened = segments.open_existing(*context_, 0);
    ASSERT_FALSE(opened.has_value());
    EXPECT_EQ(opened.error().kind, StreamsError::Kind::TaskCorrupted);
    EXPECT_TRUE(segments.segment_ids().empty());
  }
  // Through the store: its init fails the same way.
  auto reopened = open();
  ASSERT_FALSE(reopened.has_value());
  EXPECT_EQ(reopened.error().kind, StreamsError::Kind::TaskCorrupted);
}

// A crash with no flush since the open leaves the last clean close's marker: no corruption.
TEST_F(SegmentedStoreOffsetsTest, EosOpenAfterACrashWithoutAFlushReusesTheLastCleanClose) {
  context_->set_eos_enabled(true);
  ASSERT_TRUE(open().has_value());
  put("a", 0);
  ASSERT_TRUE(store_->commit({{kTp, ChangelogOffset(5)}}).has_value());
  store_->close();
  ASSERT_TRUE(open().has_value());
  put("b", 0);
  ASSERT_TRUE(store_->commit({{kTp, ChangelogOffset(6)}}).has_value());
  ASSERT_TRUE(open().has_value());  // crash, nothing flushed since the open
  EXPECT_EQ(committed(), ChangelogOffset(5));
  EXPECT_TRUE(holds("a", 0));
  EXPECT_FALSE(holds("b", 0));
}

// AbstractRocksDBSegmentedBytesStoreTest.shouldRestoreMergedPositionFromMultipleSegmentsAfter
// Restart: the position written into every segment comes back merged, with no .position file.
TEST_F(SegmentedStoreOffsetsTest, ThePositionComesBackFromTheSegments) {
  ASSERT_TRUE(open().has_value());
  context_->at("t1", 0, 1);
  put("a", 0);
  context_->at("t1", 0, 2);
  put("a", kInterval);
  context_->at("t1", 1, 1);
  put("a", 2 * kInterval);
  context_->at("t1", 1, 3);
  put("b", 2 * kInterval);
  const Position expected = store_->position();
  EXPECT_EQ(expected.map().at("t1").size(), 2u);
  ASSERT_TRUE(store_->commit({}).has_value());
  ASSERT_TRUE(context_->commit().has_value());  // the commit callback: a no-op now
  store_->close();
  EXPECT_FALSE(fs_.exists(dir_ + "/w.position"));
  context_->set_record_context(std::nullopt);
  ASSERT_TRUE(open().has_value());
  EXPECT_EQ(store_->position(), expected);
}

// AbstractRocksDBSegmentedBytesStoreTest.shouldMigrateExistingPositionFromFile (pin delta 13).
TEST_F(SegmentedStoreOffsetsTest, MigratesAnExistingPositionFile) {
  Position position = Position::empty_position();
  position.with_component("topic", 0, 1);
  OffsetCheckpoint file(fs_, dir_ + "/w.position");
  ASSERT_TRUE(checkpoint_position(file, position).has_value());
  ASSERT_TRUE(open().has_value());
  EXPECT_EQ(store_->position(), position);
  EXPECT_TRUE(fs_.exists(dir_ + "/w.position"));  // never deleted
}

TEST_F(SegmentedStoreOffsetsTest, TheSessionStoreKeepsOffsetsToo) {
  RocksDBSessionStore session("s", kRetention, kInterval);
  ASSERT_TRUE(session.init(*context_, session).has_value());
  EXPECT_TRUE(session.manages_offsets());
  ASSERT_TRUE(session.commit({{kTp, ChangelogOffset(2)}}).has_value());
  EXPECT_EQ(*session.committed_offset(kTp), std::nullopt);  // no segment yet
  session.close();
}

class VersionedStoreOffsetsTest : public SegmentedStoreOffsetsTest {
 protected:
  Status open_versioned() {
    if (versioned_ && versioned_->is_open()) kill_leaving_disk(versioned_, dir_);
    versioned_.reset();
    versioned_ = std::make_unique<RocksDBVersionedStore>("v", kRetention, kInterval);
    return versioned_->init(*context_, *versioned_);
  }
  void TearDown() override {
    versioned_.reset();
    SegmentedStoreOffsetsTest::TearDown();
  }
  std::unique_ptr<RocksDBVersionedStore> versioned_;
};

// Pin delta 10 (§10 H3): the physical store commits the offsets and its own position, which no
// versioned put advances: after a clean close and a reopen the offset is back, the position is
// not.
TEST_F(VersionedStoreOffsetsTest, CommitsOffsetsButNotThePositionOfItsPuts) {
  ASSERT_TRUE(open_versioned().has_value());
  EXPECT_TRUE(versioned_->manages_offsets());
  EXPECT_EQ(versioned_->physical_store().stored_status(), 1);
  context_->at("input", 0, 4);
  ASSERT_TRUE(versioned_->put(Bytes("k"), Bytes("v1"), 10).has_value());
  EXPECT_FALSE(versioned_->position().is_empty());
  ASSERT_TRUE(versioned_->commit({{kTp, ChangelogOffset(3)}}).has_value());
  EXPECT_EQ(*versioned_->committed_offset(kTp), ChangelogOffset(3));
  versioned_->close();
  context_->set_record_context(std::nullopt);
  ASSERT_TRUE(open_versioned().has_value());
  EXPECT_EQ(*versioned_->committed_offset(kTp), ChangelogOffset(3));
  EXPECT_TRUE(versioned_->get(Bytes("k"))->has_value());
  EXPECT_TRUE(versioned_->position().is_empty());
  EXPECT_FALSE(fs_.exists(dir_ + "/v.position"));
}

// RocksDBVersionedStoreTest.shouldMigrateExistingPositionFromFile (pin delta 13).
TEST_F(VersionedStoreOffsetsTest, MigratesAnExistingPositionFile) {
  Position position = Position::empty_position();
  position.with_component("topic", 0, 1);
  OffsetCheckpoint file(fs_, dir_ + "/v.position");
  ASSERT_TRUE(checkpoint_position(file, position).has_value());
  ASSERT_TRUE(open_versioned().has_value());
  EXPECT_EQ(versioned_->position(), position);
}

// Destroying an open versioned store is a crash: nothing committed since the open survives.
TEST_F(VersionedStoreOffsetsTest, ACommitWithoutAFlushDoesNotSurviveACrash) {
  ASSERT_TRUE(open_versioned().has_value());
  ASSERT_TRUE(versioned_->put(Bytes("k"), Bytes("v1"), 10).has_value());
  ASSERT_TRUE(versioned_->commit({{kTp, ChangelogOffset(3)}}).has_value());
  ASSERT_TRUE(open_versioned().has_value());
  EXPECT_EQ(*versioned_->committed_offset(kTp), std::nullopt);
  EXPECT_FALSE(versioned_->get(Bytes("k"))->has_value());
}

TEST_F(VersionedStoreOffsetsTest, TheOldPinManagesNoOffsets) {
  context_->set_kafka_pin(KafkaPin::k2024_10_25);
  ASSERT_TRUE(open_versioned().has_value());
  EXPECT_FALSE(versioned_->manages_offsets());
  EXPECT_EQ(*versioned_->committed_offset(kTp), std::nullopt);
}

}  // namespace
}  // namespace iq
