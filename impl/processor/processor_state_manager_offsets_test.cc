// ProcessorStateManager at the 2026-08-20 pin (KIP-1035, pin deltas 1, 3 and 4): commit() commits
// every store's offsets into the store instead of writing .checkpoint and .position, and
// initialize_store_offsets() reads them back from the stores. Ports of Kafka's
// ProcessorStateManagerTest commit and initialization cases at 8f4e08b5a3, on a real RocksDB
// key-value stack.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "processor/processor_state_manager.h"
#include "processor/test_fakes.h"
#include "state/stores.h"
#include "state/test_state_store_context.h"

namespace iq {
namespace {

using testing_fakes::ManagedContext;

const TopicPartition kChangelog{"app-kv-changelog", 0};

std::vector<ConsumerRecord> changelog(int64_t first, int64_t last) {
  std::vector<ConsumerRecord> out;
  for (int64_t o = first; o <= last; ++o) {
    ConsumerRecord r;
    r.topic = kChangelog.first;
    r.offset = o;
    r.key = Serde<int32_t>::serialize(static_cast<int32_t>(o));
    r.value = Serde<int32_t>::serialize(static_cast<int32_t>(o));
    out.push_back(std::move(r));
  }
  return out;
}

struct OffsetsObserver final : StoreLifeObserver {
  std::vector<StoreLifeOpening> openings;
  std::vector<std::optional<ChangelogOffset>> commits;
  StoreLifeId opened(const StoreLifeOpening& o) override {
    openings.push_back(o);
    return openings.size();
  }
  void checkpoint(StoreLifeId, std::optional<ChangelogOffset> o) override { commits.push_back(o); }
};

// One task's state manager and key-value store at the new pin, on a task directory kept across
// instances of this fixture's open().
class PsmOffsetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmp = ::testing::TempDir();
    if (tmp.empty() || tmp.back() != '/') tmp += '/';
    root_ = tmp + "iqsim_psm_offsets_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_TRUE(fs_.delete_recursively(root_).has_value());
    dir_ = root_ + "/app/0_0";
    ASSERT_TRUE(fs_.create_directories(dir_).has_value());
  }
  void TearDown() override {
    crash();
    EXPECT_TRUE(fs_.delete_recursively(root_).has_value());
  }
  // A new state manager and store (the old ones dropped: a crash if open); returns the store's
  // init status.
  Status open(bool eos, KeyValueSupplier supplier = KeyValueSupplier::kRocksDb) {
    crash();
    psm_ = std::make_unique<ProcessorStateManager>("app", TaskId{0, 0}, dir_, fs_,
                                                   std::set<std::string>{"kv"}, eos);
    psm_->observe_store_lives(observer_, /*active=*/true);
    context_ = std::make_unique<ManagedContext>(*psm_, fs_, dir_);
    context_->set_kafka_pin(KafkaPin::k2026_08_20);
    context_->set_eos_enabled(eos);
    StoreBuilderOptions options;
    options.logging = true;
    store_ = stores::key_value_store<int32_t, int32_t>(supplier, "kv", options);
    return store_->init(*context_, *store_);
  }
  void crash() {
    if (store_ && store_->is_open()) kill_leaving_disk(store_, dir_);
    store_.reset();
    context_.reset();
    psm_.reset();
  }
  bool dir_holds_file(const std::string& name) { return fs_.exists(dir_ + "/" + name); }

  PosixFileSystem fs_;
  std::string root_;
  std::string dir_;
  OffsetsObserver observer_;
  std::unique_ptr<ProcessorStateManager> psm_;
  std::unique_ptr<ManagedContext> context_;
  std::unique_ptr<StateStore> store_;
};

// shouldCommitAndCloseLegacyStores' new-pin half: commit puts the offset into the store, writes no
// .checkpoint and no .position; a clean close makes it durable for the next open.
TEST_F(PsmOffsetsTest, CommitWritesTheOffsetIntoTheStoreAndNoFiles) {
  ASSERT_TRUE(open(/*eos=*/false).has_value());
  ASSERT_TRUE(psm_->initialize_store_offsets(/*store_dir_was_empty=*/true).has_value());
  EXPECT_TRUE(psm_->stores_manage_offsets());
  ASSERT_TRUE(psm_->restore("kv", changelog(0, 4)).has_value());
  ASSERT_TRUE(psm_->commit().has_value());
  EXPECT_EQ(observer_.commits.back(), ChangelogOffset(4));
  EXPECT_FALSE(dir_holds_file(".checkpoint"));
  EXPECT_FALSE(dir_holds_file("kv.position"));
  psm_->close(StoreCloseKind::kClean);
  ASSERT_TRUE(open(/*eos=*/true).has_value());
  ASSERT_TRUE(psm_->initialize_store_offsets(/*store_dir_was_empty=*/false).has_value());
  EXPECT_EQ(psm_->changelog_offset("kv"), ChangelogOffset(4));
  EXPECT_EQ(observer_.openings.back().loaded_checkpoint, ChangelogOffset(4));
  EXPECT_TRUE(observer_.openings.back().over_kept_data);
}

// KAFKA-19712 (d84e19dde4): a logged store with no offset yet commits OFFSET_UNKNOWN, which reads
// back as no offset, and is not TaskCorrupted under EOS (the offset key exists).
TEST_F(PsmOffsetsTest, AnUnknownOffsetIsCommittedAndReadBackAsNone) {
  ASSERT_TRUE(open(/*eos=*/true).has_value());
  ASSERT_TRUE(psm_->initialize_store_offsets(true).has_value());
  ASSERT_TRUE(psm_->commit().has_value());
  EXPECT_EQ(observer_.commits.back(), std::nullopt);
  psm_->close(StoreCloseKind::kClean);
  ASSERT_TRUE(open(/*eos=*/true).has_value());
  ASSERT_TRUE(psm_->initialize_store_offsets(/*store_dir_was_empty=*/false).has_value());
  EXPECT_EQ(psm_->changelog_offset("kv"), std::nullopt);
}

// shouldThrowTaskCorruptedWithoutPersistentStoreCheckpointAndNonEmptyDir: no committed offset in
// a non-empty directory under EOS.
TEST_F(PsmOffsetsTest, EosWithoutACommittedOffsetInANonEmptyDirIsTaskCorrupted) {
  ASSERT_TRUE(open(/*eos=*/true).has_value());
  auto s = psm_->initialize_store_offsets(/*store_dir_was_empty=*/false);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().kind, StreamsError::Kind::TaskCorrupted);
  // ...and not under at-least-once, nor when the directory was empty.
  ASSERT_TRUE(open(/*eos=*/false).has_value());
  EXPECT_TRUE(psm_->initialize_store_offsets(false).has_value());
  ASSERT_TRUE(open(/*eos=*/true).has_value());
  EXPECT_TRUE(psm_->initialize_store_offsets(true).has_value());
}

// shouldNotThrowTaskCorruptedWithoutInMemoryStoreCheckpointAndNonEmptyDir: in-memory stores
// restore from the start; their commit is a no-op and they keep the task on the new path.
TEST_F(PsmOffsetsTest, InMemoryStoresAreNeverCorruptedAndCommitNothing) {
  ASSERT_TRUE(open(/*eos=*/true, KeyValueSupplier::kInMemory).has_value());
  EXPECT_TRUE(psm_->stores_manage_offsets());
  ASSERT_TRUE(psm_->initialize_store_offsets(/*store_dir_was_empty=*/false).has_value());
  ASSERT_TRUE(psm_->commit().has_value());
  EXPECT_FALSE(dir_holds_file(".checkpoint"));
}

// Pin delta 2: a commit is durable only with a flush; a crash after it and before any flush
// leaves the store's previous on-disk offsets (none here), and under EOS the status marker of
// that earlier clean close, so the task is reused and not corrupted.
TEST_F(PsmOffsetsTest, ACrashAfterACommitWithoutAFlushKeepsTheLastCleanClose) {
  ASSERT_TRUE(open(/*eos=*/true).has_value());
  ASSERT_TRUE(psm_->initialize_store_offsets(true).has_value());
  ASSERT_TRUE(psm_->restore("kv", changelog(0, 2)).has_value());
  ASSERT_TRUE(psm_->commit().has_value());
  psm_->close(StoreCloseKind::kClean);  // on disk: offset 2, "closed"
  ASSERT_TRUE(open(/*eos=*/true).has_value());
  ASSERT_TRUE(psm_->initialize_store_offsets(false).has_value());
  ASSERT_TRUE(psm_->restore("kv", changelog(3, 6)).has_value());
  ASSERT_TRUE(psm_->commit().has_value());      // 6, in the memtable only
  ASSERT_TRUE(open(/*eos=*/true).has_value());  // the crash drops it
  ASSERT_TRUE(psm_->initialize_store_offsets(false).has_value());
  EXPECT_EQ(psm_->changelog_offset("kv"), ChangelogOffset(2));
}

}  // namespace
}  // namespace iq
