// StateDirectory keeps task directories after ownership ends, reports their checkpoints, and
// deletes an unlocked one once its last-modified time is older than the cleanup delay.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

#include "processor/state_directory.h"

namespace iq {
namespace {

class StateDirectoryTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::path(testing::TempDir()) /
            ("iqsim-state-directory-" +
             std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_;
  PosixFileSystem fs_;
};

// Proves task directories are found on disk by name, in order, and others are ignored.
TEST_F(StateDirectoryTest, ListsTaskDirectoriesInOrder) {
  StateDirectory dir(fs_, root_.string(), "app");
  for (const auto* name : {"1_0", "0_3", "0_10", "not-a-task", "0_x"}) {
    std::filesystem::create_directories(root_ / "app" / name);
  }
  EXPECT_EQ(dir.task_dirs_on_disk(), (std::vector<TaskId>{{0, 3}, {0, 10}, {1, 0}}));
}

// Proves a task directory's .checkpoint is read back, and a missing one reads empty.
TEST_F(StateDirectoryTest, ReadsCheckpointedOffsets) {
  StateDirectory dir(fs_, root_.string(), "app");
  ASSERT_TRUE(fs_.create_directories(dir.task_dir({0, 1})).has_value());
  OffsetCheckpoint cp(fs_, dir.task_dir({0, 1}) + "/.checkpoint");
  ASSERT_TRUE(cp.write({{{"app-s-changelog", 1}, 41}}).has_value());
  EXPECT_EQ(dir.checkpointed_offsets({0, 1})->at({"app-s-changelog", 1}), ChangelogOffset(41));
  EXPECT_TRUE(dir.checkpointed_offsets({0, 2})->empty());
}

// Proves StateDirectory.lock's two modes: with a persistent store one owner at a time
// (re-entrant); without one (hasPersistentStores false) every thread gets it and none is recorded.
TEST_F(StateDirectoryTest, LocksOnlyWhenTheTopologyHasPersistentStores) {
  StateDirectory persistent(fs_, root_.string(), "app");
  EXPECT_TRUE(persistent.lock({0, 0}, "t1"));
  EXPECT_TRUE(persistent.lock({0, 0}, "t1"));
  EXPECT_FALSE(persistent.lock({0, 0}, "t2"));
  EXPECT_EQ(persistent.lock_owner({0, 0}), "t1");

  StateDirectory in_memory(fs_, root_.string(), "app", StateDirectory::kDefaultCleanupDelayMs,
                           /*has_persistent_stores=*/false);
  EXPECT_TRUE(in_memory.lock({0, 0}, "t1"));
  EXPECT_TRUE(in_memory.lock({0, 0}, "t2"));
  EXPECT_EQ(in_memory.lock_owner({0, 0}), std::nullopt);
  in_memory.unlock({0, 0}, "t1");
  EXPECT_TRUE(in_memory.lock({0, 0}, "t2"));
}

// Proves the cleaner's clock is the directory's last-modified time (StateDirectory
// .cleanRemovedTasks at 1eb7644): an unlocked directory goes once that time is more than the delay
// before now, not at exactly the delay; a younger one stays. The directories were made by no call
// of this StateDirectory, as a previous process life leaves them.
TEST_F(StateDirectoryTest, CleansDirectoriesWhoseLastModifiedTimeIsOlderThanTheDelay) {
  for (const auto* name : {"0_0", "0_1"}) std::filesystem::create_directories(root_ / "app" / name);
  StateDirectory dir(fs_, root_.string(), "app", 600'000);
  ASSERT_TRUE(fs_.set_last_modified_ms(dir.task_dir({0, 0}), 1'000).has_value());
  ASSERT_TRUE(fs_.set_last_modified_ms(dir.task_dir({0, 1}), 5'000).has_value());
  EXPECT_TRUE(dir.clean_removed_tasks(601'000).empty()) << "exactly the delay is not past it";
  EXPECT_EQ(dir.clean_removed_tasks(601'001), (std::vector<TaskId>{{0, 0}}));
  EXPECT_FALSE(fs_.exists(dir.task_dir({0, 0})));
  EXPECT_TRUE(fs_.exists(dir.task_dir({0, 1})));
  EXPECT_EQ(dir.lock_owner({0, 1}), std::nullopt) << "the cleaner releases what it locked";
  EXPECT_EQ(dir.clean_removed_tasks(605'001), (std::vector<TaskId>{{0, 1}}));
}

// Proves writing .checkpoint moves the clock: a directory whose time was old is kept once a
// checkpoint is written into it (the rename moves the directory's mtime to the wall clock here).
TEST_F(StateDirectoryTest, CheckpointWriteMovesTheCleanersClock) {
  StateDirectory dir(fs_, root_.string(), "app", 600'000);
  ASSERT_TRUE(fs_.create_directories(dir.task_dir({0, 0})).has_value());
  ASSERT_TRUE(fs_.set_last_modified_ms(dir.task_dir({0, 0}), 0).has_value());
  OffsetCheckpoint cp(fs_, dir.task_dir({0, 0}) + "/.checkpoint");
  ASSERT_TRUE(cp.write({{{"app-s-changelog", 0}, 7}}).has_value());
  EXPECT_GT(fs_.last_modified_ms(dir.task_dir({0, 0})).value_or(0), 600'000);
  EXPECT_TRUE(dir.clean_removed_tasks(700'000).empty());
  EXPECT_TRUE(fs_.exists(dir.task_dir({0, 0}) + "/.checkpoint"));
}

// Proves the new pin's refresh on close (65d65546d5) sets the directory's time and leaves a
// missing (wiped) directory missing.
TEST_F(StateDirectoryTest, RefreshSetsTheTimeOfAnExistingDirectoryOnly) {
  StateDirectory dir(fs_, root_.string(), "app", 600'000);
  ASSERT_TRUE(fs_.create_directories(dir.task_dir({0, 0})).has_value());
  dir.refresh_last_modified({0, 0}, 123'456);
  EXPECT_EQ(fs_.last_modified_ms(dir.task_dir({0, 0})), 123'456);
  dir.refresh_last_modified({0, 1}, 123'456);
  EXPECT_FALSE(fs_.exists(dir.task_dir({0, 1})));
}

// Proves a task lock has one owning thread: re-entrant for it, refused to another, released only
// by its owner, and free again once released.
TEST_F(StateDirectoryTest, TaskLockIsOwnedByOneThread) {
  StateDirectory dir(fs_, root_.string(), "app");
  EXPECT_TRUE(dir.lock({0, 2}, "t1"));
  EXPECT_TRUE(dir.lock({0, 2}, "t1")) << "re-entrant for its owner";
  EXPECT_FALSE(dir.lock({0, 2}, "t2"));
  EXPECT_TRUE(dir.lock({0, 3}, "t2")) << "locks are per task";
  dir.unlock({0, 2}, "t2");
  EXPECT_EQ(dir.lock_owner({0, 2}), "t1") << "only the owner releases";
  dir.unlock({0, 2}, "t1");
  EXPECT_EQ(dir.lock_owner({0, 2}), std::nullopt);
  EXPECT_TRUE(dir.lock({0, 2}, "t2"));
  EXPECT_EQ(dir.lock_owner({0, 2}), "t2");
}

// Proves cleanup never deletes a locked directory, however old its last-modified time.
TEST_F(StateDirectoryTest, CleanupSkipsLockedDirectories) {
  StateDirectory dir(fs_, root_.string(), "app", 600'000);
  ASSERT_TRUE(fs_.create_directories(dir.task_dir({0, 0})).has_value());
  ASSERT_TRUE(fs_.set_last_modified_ms(dir.task_dir({0, 0}), 0).has_value());
  ASSERT_TRUE(dir.lock({0, 0}, "t1"));
  EXPECT_TRUE(dir.clean_removed_tasks(10'000'000).empty());
  EXPECT_TRUE(fs_.exists(dir.task_dir({0, 0})));
  EXPECT_EQ(dir.lock_owner({0, 0}), "t1") << "the cleaner does not touch a thread's lock";
  dir.unlock({0, 0}, "t1");
  EXPECT_EQ(dir.clean_removed_tasks(10'000'000), (std::vector<TaskId>{{0, 0}}));
}

// Proves the offset-sum cache of the new pin (StateDirectory.updateTaskOffsets, taskOffsetSums,
// sumOfChangelogOffsets at 8f4e08b5a3): an update sums the next offsets, skipping
// OFFSET_UNKNOWN (TaskManagerTest.shouldSkipUnknownOffsetsWhenComputingOffsetSum); an empty update
// keeps the entry; a read returns only the tasks asked for; an overflowing sum is pinned to the
// largest long (shouldPinOffsetSumToLongMaxValueInCaseOfOverflow).
TEST_F(StateDirectoryTest, OffsetSumCacheSumsSkipsUnknownAndPinsOverflow) {
  StateDirectory dir(fs_, root_.string(), "app");
  const TopicPartition a{"app-s-changelog", 0};
  const TopicPartition b{"app-t-changelog", 0};
  dir.update_task_offsets({0, 0}, {{a, 84}, {b, OffsetCheckpoint::kOffsetUnknown}});
  dir.update_task_offsets({0, 1}, {{a, 7}, {b, 3}});
  dir.update_task_offsets({0, 1}, {});
  EXPECT_EQ(dir.task_offset_sums({{0, 0}, {0, 1}, {0, 2}}),
            (std::map<TaskId, int64_t>{{{0, 0}, 84}, {{0, 1}, 10}}));
  EXPECT_EQ(dir.task_offset_sums({{0, 1}}), (std::map<TaskId, int64_t>{{{0, 1}, 10}}));
  dir.update_task_offsets({0, 2}, {{a, std::numeric_limits<int64_t>::max()}, {b, 1}});
  EXPECT_EQ(dir.task_offset_sums({{0, 2}}).at({0, 2}), std::numeric_limits<int64_t>::max());
}

// Proves a wiped or cleaned task directory leaves the cache (StateManagerUtil.closeStateManager
// and StateDirectory.cleanRemovedTasks call removeTaskOffsets before deleting it).
TEST_F(StateDirectoryTest, WipeAndCleanupRemoveTheCachedOffsetSum) {
  StateDirectory dir(fs_, root_.string(), "app", 600'000);
  const TopicPartition a{"app-s-changelog", 0};
  for (int32_t p : {0, 1, 2}) {
    ASSERT_TRUE(fs_.create_directories(dir.task_dir({0, p})).has_value());
    dir.update_task_offsets({0, p}, {{a, 5}});
  }
  ASSERT_TRUE(dir.wipe_task({0, 0}).has_value());
  ASSERT_TRUE(fs_.set_last_modified_ms(dir.task_dir({0, 1}), 0).has_value());
  ASSERT_TRUE(fs_.set_last_modified_ms(dir.task_dir({0, 2}), 650'000).has_value());
  ASSERT_EQ(dir.clean_removed_tasks(700'000), (std::vector<TaskId>{{0, 1}}));
  EXPECT_EQ(dir.task_offset_sums({{0, 0}, {0, 1}, {0, 2}}),
            (std::map<TaskId, int64_t>{{{0, 2}, 5}}));
}

}  // namespace
}  // namespace iq
