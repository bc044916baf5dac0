// StateDirectory keeps task directories after ownership ends, reports their checkpoints, and
// deletes them only after the cleanup delay.
#include <gtest/gtest.h>

#include <filesystem>

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

// Proves an unowned directory survives until the cleanup delay has passed, and an owned one always.
TEST_F(StateDirectoryTest, CleansUnownedDirectoriesAfterTheDelay) {
  StateDirectory dir(fs_, root_.string(), "app", 600'000);
  ASSERT_TRUE(fs_.create_directories(dir.task_dir({0, 0})).has_value());
  ASSERT_TRUE(fs_.create_directories(dir.task_dir({0, 1})).has_value());
  dir.mark_unowned({0, 0}, 1'000);
  EXPECT_TRUE(dir.clean_removed_tasks(601'000)->empty()) << "exactly the delay is not past it";
  auto removed = dir.clean_removed_tasks(601'001);
  EXPECT_EQ(*removed, (std::vector<TaskId>{{0, 0}}));
  EXPECT_FALSE(fs_.exists(dir.task_dir({0, 0})));
  EXPECT_TRUE(fs_.exists(dir.task_dir({0, 1})));
  dir.mark_unowned({0, 1}, 0);
  dir.mark_owned({0, 1});
  EXPECT_TRUE(dir.clean_removed_tasks(10'000'000)->empty());
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

// Proves cleanup never deletes a locked directory, even one marked unowned long ago.
TEST_F(StateDirectoryTest, CleanupSkipsLockedDirectories) {
  StateDirectory dir(fs_, root_.string(), "app", 600'000);
  ASSERT_TRUE(fs_.create_directories(dir.task_dir({0, 0})).has_value());
  dir.mark_unowned({0, 0}, 0);
  ASSERT_TRUE(dir.lock({0, 0}, "t1"));
  EXPECT_TRUE(dir.clean_removed_tasks(10'000'000)->empty());
  EXPECT_TRUE(fs_.exists(dir.task_dir({0, 0})));
  dir.unlock({0, 0}, "t1");
  EXPECT_EQ(*dir.clean_removed_tasks(10'000'000), (std::vector<TaskId>{{0, 0}}));
}

}  // namespace
}  // namespace iq
