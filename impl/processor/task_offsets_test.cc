// AbstractTask.maybeCheckpoint at both pins (pin delta 3, a40c8769ce): at the old pin a RUNNING
// at-least-once active checkpoints (flush, .position, .checkpoint) only past 10,000 changelog
// offsets or when enforced; at the 2026-08-20 pin every postCommit commits every store, writing the
// offsets into the store and no file.
#include <gtest/gtest.h>

#include <filesystem>

#include "processor/stream_task.h"
#include "processor/test_fakes.h"
#include "state/test_state_store_context.h"

namespace iq {
namespace {

using namespace testing_fakes;  // NOLINT: test doubles only

class TaskOffsetsTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::path(testing::TempDir()) /
            ("iqsim-task-offsets-" +
             std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(root_);
    topology_.kind = TopologyKind::Count;
    topology_.source_topic = "words";
    topology_.store_name = "counts";
    topology_.supplier = KeyValueSupplier::kRocksDbTimestamped;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // A running active that processed three records, prepared its commit and post-committed.
  void run_and_commit(Instance& a, StreamTask& task) {
    ASSERT_TRUE(task.initialize().has_value());
    ASSERT_TRUE(a.reader.register_task(task, 0).has_value());
    ASSERT_TRUE(task.complete_restoration().has_value());
    for (int64_t o = 0; o < 3; ++o) {
      task.add_records({ConsumerRecord{"words",
                                       0,
                                       o,
                                       1000 + o,
                                       Serde<int32_t>::serialize(7),
                                       Serde<int64_t>::serialize(1),
                                       {}}});
    }
    while (*task.process_one()) {
    }
    ASSERT_TRUE(task.prepare_commit().has_value());
    ASSERT_TRUE(task.post_commit(/*enforce_checkpoint=*/false).has_value());
  }
  std::optional<ChangelogOffset> checkpointed(Instance& a) {
    OffsetCheckpoint file(a.fs, a.env.task_dir + "/.checkpoint");
    auto offsets = file.read_changelog_offsets();
    EXPECT_TRUE(offsets.has_value());
    auto it = offsets->find({"app-counts-changelog", 0});
    if (it == offsets->end()) return std::nullopt;
    return it->second;
  }

  std::filesystem::path root_;
  TopologyConfig topology_;
  FakeBroker broker_;
};

TEST_F(TaskOffsetsTest, TheOldPinCheckpointsOnlyPastTheThreshold) {
  Instance a(broker_, root_ / "a", /*consistency=*/true);
  StreamTask task({0, 0}, topology_, a.env);
  run_and_commit(a, task);
  EXPECT_FALSE(task.offsets_in_stores());
  // The enforced checkpoint of complete_restoration (nothing restored: the unknown sentinel); the
  // commit after three records moved the offsets by far less than 10,000.
  EXPECT_EQ(checkpointed(a), ChangelogOffset(OffsetCheckpoint::kOffsetUnknown));
  EXPECT_EQ(task.store("counts")->committed_offset({"app-counts-changelog", 0}).value(),
            std::nullopt);
}

// StreamTask.initializeIfNeeded at 1eb7644 starts offsetSnapshotSinceLastFlush empty, so the
// first unforced checkpoint of a task reopened over a .checkpoint compares the absolute next
// offsets (here 1: the cache logged the three counts of one key as one record) against the
// threshold (here 0) and writes, where a snapshot started at the loaded offsets would see no
// movement and write nothing.
TEST_F(TaskOffsetsTest, TheFirstUnforcedCheckpointComparesAgainstAnEmptySnapshot) {
  Instance a(broker_, root_ / "a", /*consistency=*/true);
  a.env.offset_delta_threshold_for_checkpoint = 0;
  {
    StreamTask task({0, 0}, topology_, a.env);
    run_and_commit(a, task);
    ASSERT_TRUE(task.maybe_checkpoint(/*enforce=*/true).has_value());
    a.reader.unregister_task(task.id());
    task.suspend();
    ASSERT_TRUE(task.close_clean().has_value());
  }
  ASSERT_EQ(checkpointed(a), ChangelogOffset(0));

  StreamTask again({0, 0}, topology_, a.env);
  ASSERT_TRUE(again.initialize().has_value());  // loads offset 0: the next offset is 1
  OffsetCheckpoint file(a.fs, a.env.task_dir + "/.checkpoint");
  ASSERT_TRUE(file.remove().has_value());
  ASSERT_TRUE(again.maybe_checkpoint(/*enforce=*/false).has_value());
  EXPECT_EQ(checkpointed(a), ChangelogOffset(0)) << "1 past an empty snapshot exceeds 0";
}

TEST_F(TaskOffsetsTest, TheNewPinCommitsTheStoresAtEveryCommitAndWritesNoFile) {
  Instance a(broker_, root_ / "a", /*consistency=*/true);
  a.env.kafka_pin = KafkaPin::k2026_08_20;
  StreamTask task({0, 0}, topology_, a.env);
  run_and_commit(a, task);
  EXPECT_TRUE(task.offsets_in_stores());
  const auto written = task.state_manager().changelog_offset("counts");
  ASSERT_TRUE(written.has_value());
  EXPECT_EQ(task.store("counts")->committed_offset({"app-counts-changelog", 0}).value(), written);
  EXPECT_FALSE(a.fs.exists(a.env.task_dir + "/.checkpoint"));
  EXPECT_FALSE(a.fs.exists(a.env.task_dir + "/counts.position"));
}

// The old pin's clean close: an enforced checkpoint (flush, counts.position, .checkpoint), then
// the stores closed.
void close_at_the_old_pin(Instance& a, StreamTask& task) {
  ASSERT_TRUE(task.maybe_checkpoint(/*enforce=*/true).has_value());
  a.reader.unregister_task(task.id());
  task.suspend();
  ASSERT_TRUE(task.close_clean().has_value());
}

// Pin delta 13 (LegacyCheckpointingStateStore.migrateLegacyOffsets, d7fed9d023): a task opened at
// the new pin over an old pin's clean close commits the .checkpoint offsets into its stores and
// deletes the file; the .position file is merged into the store's position and kept.
TEST_F(TaskOffsetsTest, TheNewPinMigratesTheOldCheckpointIntoTheStoresAndDeletesIt) {
  Instance a(broker_, root_ / "a", /*consistency=*/true);
  Position position_before = Position::empty_position();
  std::optional<ChangelogOffset> offset_before;
  {
    StreamTask task({0, 0}, topology_, a.env);
    run_and_commit(a, task);
    close_at_the_old_pin(a, task);
    offset_before = checkpointed(a);
  }
  ASSERT_TRUE(offset_before.has_value() && offset_before->value() >= 0);
  ASSERT_TRUE(a.fs.exists(a.env.task_dir + "/counts.position"));
  a.env.kafka_pin = KafkaPin::k2026_08_20;
  a.env.eos_enabled = true;  // the migrated offset keeps a non-empty directory from corruption
  {
    StreamTask task({0, 0}, topology_, a.env);
    ASSERT_TRUE(task.initialize().has_value());
    EXPECT_TRUE(task.offsets_in_stores());
    EXPECT_FALSE(a.fs.exists(a.env.task_dir + "/.checkpoint"));
    EXPECT_TRUE(a.fs.exists(a.env.task_dir + "/counts.position"));
    EXPECT_EQ(task.state_manager().changelog_offset("counts"), offset_before);
    EXPECT_EQ(task.store("counts")->committed_offset({"app-counts-changelog", 0}).value(),
              offset_before);
    EXPECT_FALSE(task.store("counts")->position().is_empty());
    task.suspend();
    ASSERT_TRUE(task.close_clean().has_value());  // the close flushes the migrated offsets
  }
  StreamTask again({0, 0}, topology_, a.env);
  ASSERT_TRUE(again.initialize().has_value());
  EXPECT_EQ(again.state_manager().changelog_offset("counts"), offset_before);
}

// §4.5: a crash after the migration deleted .checkpoint and before a flush or a clean close
// loses the migrated offsets with the file. Under at-least-once the store restores from the start
// over its old data; under exactly_once_v2 (stores not transactional) the non-empty directory
// without offsets is TaskCorrupted; with transactional stores it is not.
TEST_F(TaskOffsetsTest, ACrashAfterTheMigrationLosesTheMigratedOffsets) {
  for (const auto& [eos, transactional] :
       std::vector<std::pair<bool, bool>>{{false, false}, {true, false}, {true, true}}) {
    SCOPED_TRACE("eos " + std::to_string(eos) + " transactional " + std::to_string(transactional));
    std::filesystem::remove_all(root_);
    Instance a(broker_, root_ / "a", /*consistency=*/true);
    {
      StreamTask task({0, 0}, topology_, a.env);
      run_and_commit(a, task);
      close_at_the_old_pin(a, task);
    }
    a.env.kafka_pin = KafkaPin::k2026_08_20;
    a.env.eos_enabled = eos;
    a.env.transactional_state_stores = transactional;
    {
      auto task = std::make_unique<StreamTask>(TaskId{0, 0}, topology_, a.env);
      ASSERT_TRUE(task->initialize().has_value());
      EXPECT_FALSE(a.fs.exists(a.env.task_dir + "/.checkpoint"));
      kill_leaving_disk(task, a.env.task_dir);  // the process dies with the stores open
    }
    StreamTask again({0, 0}, topology_, a.env);
    auto s = again.initialize();
    if (eos && !transactional) {
      ASSERT_FALSE(s.has_value());
      EXPECT_EQ(s.error().kind, StreamsError::Kind::TaskCorrupted);
      continue;
    }
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(again.state_manager().changelog_offset("counts"), std::nullopt);
    EXPECT_TRUE(again.store("counts")->kept_entries(nullptr));  // the old data is still there
  }
}

// At the new pin a window task's offsets live in its segments too (no .checkpoint, no .position).
TEST_F(TaskOffsetsTest, TheNewPinCommitsAWindowStoreIntoItsSegments) {
  topology_.kind = TopologyKind::WindowedCount;
  topology_.supplier = KeyValueSupplier::kRocksDb;
  Instance a(broker_, root_ / "a", /*consistency=*/true);
  a.env.kafka_pin = KafkaPin::k2026_08_20;
  StreamTask task({0, 0}, topology_, a.env);
  run_and_commit(a, task);
  EXPECT_TRUE(task.offsets_in_stores());
  const auto written = task.state_manager().changelog_offset("counts");
  ASSERT_TRUE(written.has_value());
  EXPECT_EQ(task.store("counts")->committed_offset({"app-counts-changelog", 0}).value(), written);
  EXPECT_FALSE(a.fs.exists(a.env.task_dir + "/.checkpoint"));
  EXPECT_FALSE(a.fs.exists(a.env.task_dir + "/counts.position"));
}

}  // namespace
}  // namespace iq
