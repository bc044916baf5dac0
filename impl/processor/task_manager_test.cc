// TaskManager: creating, restoring, recycling and closing tasks on assignment, committing, and
// reporting offset sums, against in-memory broker doubles.
#include <gtest/gtest.h>

#include "iq/key_query.h"
#include "processor/task_manager.h"
#include "processor/test_fakes.h"

namespace iq {
namespace {

using namespace testing_fakes;  // NOLINT: test doubles only

class TaskManagerTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ =
        std::filesystem::path(testing::TempDir()) /
        ("iqsim-tm-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(root_);
    topology_.kind = TopologyKind::Count;
    topology_.source_topic = "words";
    topology_.source_partitions = 2;
    topology_.store_name = "counts";
    topology_.supplier = KeyValueSupplier::kInMemory;
    build();
  }
  void build() {
    instance_ = std::make_unique<Instance>(broker_, root_, /*consistency=*/true);
    state_directory_ = std::make_unique<StateDirectory>(instance_->fs, root_.string(), "app");
    manager_ = std::make_unique<TaskManager>(topology_, *state_directory_, instance_->reader,
                                             main_consumer_, membership_, [this](const TaskId& id) {
                                               TaskEnvironment env = instance_->env;
                                               env.task_dir = state_directory_->task_dir(id);
                                               return env;
                                             });
  }
  void TearDown() override {
    manager_.reset();
    std::filesystem::remove_all(root_);
  }
  void produce(int32_t partition, int32_t key) {
    broker_.append(ConsumerRecord{"words",
                                  partition,
                                  0,
                                  0,
                                  Serde<int32_t>::serialize(key),
                                  Serde<int64_t>::serialize(1),
                                  {}});
  }
  // One thread loop: restore, complete restoration, read input, process.
  void step() {
    ASSERT_TRUE(instance_->reader.restore().has_value());
    ASSERT_TRUE(manager_->try_complete_restoration().has_value());
    manager_->add_records(main_consumer_.poll(1000));
    ASSERT_TRUE(manager_->process(1000).has_value());
  }
  std::optional<int64_t> count(Task* task, int32_t key) {
    auto r = task->store("counts")->query(KeyQuery<int32_t, int64_t>::with_key(key),
                                          PositionBound::unbounded(), QueryConfig(false));
    EXPECT_TRUE(r.has_value() && r->is_success());
    return r->result<std::optional<int64_t>>();
  }

  std::filesystem::path root_;
  FakeBroker broker_;
  FakeConsumer main_consumer_{broker_};
  FakeMembership membership_;
  TopologyConfig topology_;
  std::unique_ptr<Instance> instance_;
  std::unique_ptr<StateDirectory> state_directory_;
  std::unique_ptr<TaskManager> manager_;
};

// Proves new actives restore, become RUNNING, read input from the beginning and commit offsets.
TEST_F(TaskManagerTest, NewActivesRestoreThenProcessAndCommit) {
  produce(0, 1);
  produce(0, 1);
  produce(1, 2);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}, {0, 1}}, {}, 0).has_value());
  EXPECT_EQ(manager_->active({0, 0})->state(), TaskState::RESTORING);
  step();
  EXPECT_TRUE(manager_->all_actives_running());
  step();
  EXPECT_EQ(count(manager_->active({0, 0}), 1), 2);
  EXPECT_EQ(count(manager_->active({0, 1}), 2), 1);
  ASSERT_TRUE(manager_->commit_all().has_value());
  EXPECT_EQ(membership_.committed({"words", 0}), 2);
  EXPECT_EQ(membership_.committed({"words", 1}), 1);
  EXPECT_EQ(manager_->task_offset_sums().at({0, 0}), Task::kLatestOffset);
}

// Proves an active that stays on this client as a standby keeps its in-memory data and position,
// and becomes active again without losing them.
TEST_F(TaskManagerTest, RecyclingKeepsInMemoryStores) {
  produce(0, 7);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  step();
  ASSERT_EQ(count(manager_->active({0, 0}), 7), 1);
  ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 10).has_value());
  ASSERT_TRUE(manager_->handle_assignment({}, {{0, 0}}, 10).has_value());
  ASSERT_NE(manager_->standby({0, 0}), nullptr);
  EXPECT_EQ(count(manager_->standby({0, 0}), 7), 1)
      << "recycled, not re-created: the in-memory data stays";
  EXPECT_EQ(manager_->standby({0, 0})->store("counts")->position(),
            Position::from_map({{"words", {{0, 0}}}}));
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 20).has_value());
  step();
  EXPECT_EQ(manager_->active({0, 0})->state(), TaskState::RUNNING);
  EXPECT_EQ(count(manager_->active({0, 0}), 7), 1);
}

// Proves a task moved away leaves its directory, and its checkpoint is reported as an offset sum.
TEST_F(TaskManagerTest, ClosedTaskStateStaysOnDiskAndReportsItsOffsetSum) {
  manager_.reset();
  topology_.supplier = KeyValueSupplier::kRocksDbTimestamped;
  build();  // with a persistent store
  produce(0, 1);
  produce(0, 2);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  step();
  ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 5).has_value());
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 5).has_value());
  EXPECT_EQ(manager_->active({0, 0}), nullptr);
  const auto sums = manager_->task_offset_sums();
  ASSERT_EQ(sums.count({0, 0}), 1u);
  EXPECT_EQ(sums.at({0, 0}), 1) << "two changelog records: offsets 0 and 1";
}

}  // namespace
}  // namespace iq
