// ProcessorStateManager's runs of own writes (not Kafka state; the simulator's recorder reads
// them): a run opens at the first own write after the store last applied something and grows
// with every own write; a restore in between closes it.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "processor/processor_state_manager.h"
#include "processor/test_fakes.h"
#include "state/versioned_stores.h"

namespace iq {
namespace {

using testing_fakes::ManagedContext;

std::vector<ConsumerRecord> changelog(int64_t first, int64_t last) {
  std::vector<ConsumerRecord> out;
  for (int64_t o = first; o <= last; ++o) {
    ConsumerRecord r;
    r.topic = "app-vs-changelog";
    r.offset = o;
    r.timestamp = 1000 + o;
    r.key = Serde<int32_t>::serialize(7);
    r.value = Serde<int32_t>::serialize(static_cast<int32_t>(o));
    out.push_back(std::move(r));
  }
  return out;
}

// Restored to 2, written at 5 and 6 (3 and 4 are another writer's): the run (2, 6]; a restore to
// 8 and a write at 10 open (8, 10]; a write with nothing applied before opens a run after -1.
TEST(ProcessorStateManagerTest, OwnWriteRunsOpenAfterEachRestore) {
  PosixFileSystem fs;
  std::string tmp = ::testing::TempDir();
  if (tmp.empty() || tmp.back() != '/') tmp += '/';
  const std::string dir = tmp + "iqsim_psm_runs/app/0_0";
  ASSERT_TRUE(fs.delete_recursively(tmp + "iqsim_psm_runs").has_value());
  ASSERT_TRUE(fs.create_directories(dir).has_value());
  using Run = ProcessorStateManager::OwnWriteRun;
  const auto runs = [](const ProcessorStateManager& psm) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const Run& r : psm.own_write_runs("vs")) out.push_back({r.after_offset, r.last_offset});
    return out;
  };
  {
    ProcessorStateManager psm("app", TaskId{0, 0}, dir, fs, {"vs"});
    ManagedContext context(psm, fs, dir);
    auto store = stores::versioned_key_value_store<int32_t, int32_t>("vs", {});
    ASSERT_TRUE(store->init(context, *store).has_value());
    EXPECT_TRUE(psm.own_write_runs("vs").empty());
    ASSERT_TRUE(psm.restore("vs", changelog(0, 2)).has_value());
    EXPECT_TRUE(psm.own_write_runs("vs").empty());
    psm.update_changelog_offset("vs", ChangelogOffset(5));
    psm.update_changelog_offset("vs", ChangelogOffset(6));
    EXPECT_EQ(runs(psm), (std::vector<std::pair<int64_t, int64_t>>{{2, 6}}));
    ASSERT_TRUE(psm.restore("vs", changelog(7, 8)).has_value());
    psm.update_changelog_offset("vs", ChangelogOffset(10));
    EXPECT_EQ(runs(psm), (std::vector<std::pair<int64_t, int64_t>>{{2, 6}, {8, 10}}));
    EXPECT_EQ(psm.own_write_runs_dropped("vs"), 0u);
    store->close();
  }
  {
    ProcessorStateManager psm("app", TaskId{0, 0}, dir, fs, {"vs"});
    ManagedContext context(psm, fs, dir);
    auto store = stores::versioned_key_value_store<int32_t, int32_t>("vs", {});
    ASSERT_TRUE(store->init(context, *store).has_value());
    psm.update_changelog_offset("vs", ChangelogOffset(3));
    EXPECT_EQ(runs(psm), (std::vector<std::pair<int64_t, int64_t>>{{-1, 3}}));
    // Bounded: each restore-then-write opens a run; past the bound the oldest are dropped.
    for (int64_t i = 0; i < static_cast<int64_t>(ProcessorStateManager::kOwnWriteRunsMax); ++i) {
      ASSERT_TRUE(psm.restore("vs", changelog(4 + 2 * i, 4 + 2 * i)).has_value());
      psm.update_changelog_offset("vs", ChangelogOffset(5 + 2 * i));
    }
    EXPECT_EQ(psm.own_write_runs("vs").size(), ProcessorStateManager::kOwnWriteRunsMax);
    EXPECT_EQ(psm.own_write_runs_dropped("vs"), 1u);
    EXPECT_EQ(psm.own_write_runs("vs").front().after_offset, 4);
    store->close();
  }
  ASSERT_TRUE(fs.delete_recursively(tmp + "iqsim_psm_runs").has_value());
}

}  // namespace
}  // namespace iq
