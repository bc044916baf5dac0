// TaskManager: creating, restoring, recycling and closing tasks on assignment, committing, and
// reporting offset sums, against in-memory broker doubles.
#include <gtest/gtest.h>

#include "iq/key_query.h"
#include "processor/stream_thread.h"
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
    state_directory_ = std::make_unique<StateDirectory>(instance_->fs, root_.string(), "app",
                                                        StateDirectory::kDefaultCleanupDelayMs,
                                                        has_persistent_stores(topology_));
    manager_ = std::make_unique<TaskManager>(
        topology_, *state_directory_, instance_->reader, main_consumer_, membership_,
        [this](const TaskId& id) {
          TaskEnvironment env = instance_->env;
          env.task_dir = state_directory_->task_dir(id);
          env.kafka_pin = pin_;
          env.state_directory = state_directory_.get();
          env.offset_delta_threshold_for_checkpoint = threshold_;
          return env;
        },
        "app-StreamThread-1");
    manager_->set_kafka_pin(pin_);
  }
  // A second stream thread of the same client: its own reader, consumer and group member, the
  // same StateDirectory.
  void build_second_thread() {
    second_instance_ = std::make_unique<Instance>(broker_, root_, /*consistency=*/true);
    second_ = std::make_unique<TaskManager>(
        topology_, *state_directory_, second_instance_->reader, second_consumer_,
        second_membership_,
        [this](const TaskId& id) {
          TaskEnvironment env = second_instance_->env;
          env.task_dir = state_directory_->task_dir(id);
          env.state_directory = state_directory_.get();
          return env;
        },
        "app-StreamThread-2");
  }
  // One loop pass of the second thread at `now_ms`.
  void step_second(int64_t now_ms = 0) {
    ASSERT_TRUE(second_instance_->reader.restore(now_ms).has_value());
    ASSERT_TRUE(second_->try_complete_restoration(now_ms).has_value());
    second_->add_records(second_consumer_.poll(1000));
    ASSERT_TRUE(second_->process(1000).has_value());
  }
  void TearDown() override {
    second_.reset();
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
  // Builds the thread anew over a persistent (RocksDB) store.
  void build_persistent() {
    manager_.reset();
    topology_.supplier = KeyValueSupplier::kRocksDbTimestamped;
    build();
  }
  // Runs `tasks` as this thread's actives for two passes, then revokes and closes them at
  // `now_ms`: their directories stay on disk, owned by no thread.
  void run_then_close(const std::set<TaskId>& tasks, int64_t now_ms) {
    ASSERT_TRUE(manager_->handle_assignment(tasks, {}, 0).has_value());
    step();
    step();
    ASSERT_TRUE(manager_->handle_revocation(tasks, now_ms).has_value());
    ASSERT_TRUE(manager_->handle_assignment({}, {}, now_ms).has_value());
  }
  // One thread loop: restore, complete restoration, read input, process.
  void step() {
    ASSERT_TRUE(instance_->reader.restore(0).has_value());
    ASSERT_TRUE(manager_->try_complete_restoration(0).has_value());
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
  KafkaPin pin_ = KafkaPin::k2024_10_25;
  int64_t threshold_ = 10'000;  // StateManagerUtil.OFFSET_DELTA_THRESHOLD_FOR_CHECKPOINT
  std::unique_ptr<Instance> instance_;
  std::unique_ptr<StateDirectory> state_directory_;
  std::unique_ptr<TaskManager> manager_;
  FakeConsumer second_consumer_{broker_};
  FakeMembership second_membership_;
  std::unique_ptr<Instance> second_instance_;
  std::unique_ptr<TaskManager> second_;
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
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
  EXPECT_EQ(membership_.committed({"words", 0}), 2);
  EXPECT_EQ(membership_.committed({"words", 1}), 1);
  EXPECT_EQ(manager_->task_offset_sums().at({0, 0}), Task::kLatestOffset);
}

// Proves an at-least-once commit that times out (the broker unreachable) does not fail the thread:
// TaskManager.commit starts each task's task.timeout.ms (AbstractTask.maybeInitTaskTimeoutOrThrow)
// and the next commit tries again; a commit that goes through clears the deadline, and only a
// timeout after the deadline fails the thread, with Kafka's message.
TEST_F(TaskManagerTest, ACommitTimeoutIsRetriedUntilTaskTimeoutMs) {
  produce(0, 1);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  step();
  manager_->set_task_timeout_ms(1'000);
  const StreamsError timeout{StreamsError::Kind::Timeout, "commitSync: broker unreachable"};
  membership_.commit_error = timeout;
  EXPECT_TRUE(manager_->commit_all(100).has_value());  // deadline 1,100
  membership_.commit_error.reset();
  ASSERT_TRUE(manager_->commit_all(500).has_value());  // goes through: the deadline is cleared
  EXPECT_EQ(membership_.committed({"words", 0}), 1);
  produce(0, 1);
  step();
  membership_.commit_error = timeout;
  EXPECT_TRUE(manager_->commit_all(1'200).has_value());  // a new deadline, 2,200
  EXPECT_TRUE(manager_->commit_all(2'200).has_value());  // at it: still retried
  EXPECT_EQ(membership_.committed({"words", 0}), 1);
  const Status failed = manager_->commit_all(2'201);
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().kind, StreamsError::Kind::Streams);
  EXPECT_NE(failed.error().message.find("did not make progress within 1001 ms"), std::string::npos)
      << failed.error().to_string();
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
  build_persistent();
  produce(0, 1);
  produce(0, 2);
  run_then_close({{0, 0}}, 5);
  EXPECT_EQ(manager_->active({0, 0}), nullptr);
  manager_->handle_rebalance_start();  // locks the directory it reports
  const auto sums = manager_->task_offset_sums();
  ASSERT_EQ(sums.count({0, 0}), 1u);
  EXPECT_EQ(sums.at({0, 0}), 1) << "two changelog records: offsets 0 and 1";
}

// Proves a standby moving to another thread of the client becomes that thread's active only once
// the first thread closed it: until then the new active waits in CREATED without an error (its
// RocksDB store cannot be opened twice), and then it restores and processes.
TEST_F(TaskManagerTest, TaskMovingBetweenThreadsWaitsForTheDirectoryLock) {
  manager_.reset();
  topology_.supplier = KeyValueSupplier::kRocksDbTimestamped;
  build();
  build_second_thread();
  produce(0, 4);
  ASSERT_TRUE(manager_->handle_assignment({}, {{0, 0}}, 0).has_value());
  ASSERT_EQ(manager_->standby({0, 0})->state(), TaskState::RUNNING);
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-1");

  // The second thread gets its assignment first.
  ASSERT_TRUE(second_->handle_assignment({{0, 0}}, {}, 10).has_value());
  ASSERT_NE(second_->active({0, 0}), nullptr);
  for (int pass = 0; pass < 3; ++pass) {
    step_second();
    EXPECT_EQ(second_->active({0, 0})->state(), TaskState::CREATED) << "pass " << pass;
    EXPECT_FALSE(second_->active({0, 0})->initialized());
    EXPECT_EQ(second_->active({0, 0})->store("counts"), nullptr);
    EXPECT_FALSE(second_->all_tasks_running());
  }
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-1");

  // The first thread closes its standby, releasing the lock; the first pass past the backoff
  // (under 3 s after the one failed try) initializes.
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 20).has_value());
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), std::nullopt);
  step_second(3'010);
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-2");
  EXPECT_TRUE(second_->active({0, 0})->initialized());
  step_second(3'010);
  EXPECT_EQ(second_->active({0, 0})->state(), TaskState::RUNNING);
  EXPECT_TRUE(second_->all_tasks_running());
  step_second(3'010);
  EXPECT_EQ(count(second_->active({0, 0}), 4), 1);

  // Closing releases the lock for the other thread again.
  ASSERT_TRUE(second_->handle_revocation({{0, 0}}, 30).has_value());
  ASSERT_TRUE(second_->handle_assignment({}, {}, 30).has_value());
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), std::nullopt);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 40).has_value());
  EXPECT_TRUE(manager_->active({0, 0})->initialized()) << "free lock: initialized at once";
}

// Proves addTaskToStateUpdater's BackoffRecord (ExponentialBackoff(1000, 2, 10000, 0.5)): a task
// that hit a LockException is tried again only once its backoff has passed, in [1 s, 3 s) after
// the first failed try and [2 s, 6 s) after the second, even when the lock is free meanwhile; the
// record is dropped when the task initializes, so a later failure starts from 1 s again. The
// bounds hold for every jitter, whatever the seed.
TEST_F(TaskManagerTest, ATaskThatHitALockExceptionWaitsOutItsBackoff) {
  build_persistent();
  build_second_thread();
  second_->set_random(base::Prng(7));
  ASSERT_TRUE(manager_->handle_assignment({}, {{0, 0}}, 0).has_value());
  ASSERT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-1");

  ASSERT_TRUE(second_->handle_assignment({{0, 0}}, {}, 10).has_value());  // first failure at 10
  step_second(1'009);  // 999 ms: under any first backoff
  step_second(3'010);  // 3000 ms: past any first backoff; the lock is still held: second failure
  EXPECT_EQ(second_->active({0, 0})->state(), TaskState::CREATED);

  ASSERT_TRUE(manager_->handle_assignment({}, {}, 3'020).has_value());  // the lock is free
  ASSERT_EQ(state_directory_->lock_owner({0, 0}), std::nullopt);
  for (int64_t now : {3'020, 4'000, 5'009}) {  // under 2 s after the second failure
    step_second(now);
    EXPECT_EQ(second_->active({0, 0})->state(), TaskState::CREATED) << "at " << now;
    EXPECT_EQ(state_directory_->lock_owner({0, 0}), std::nullopt) << "at " << now;
  }
  step_second(9'010);  // 6 s after it: past any second backoff
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-2");
  EXPECT_TRUE(second_->active({0, 0})->initialized());

  // Away and back while the first thread holds it again: one failure, so under 3 s again.
  ASSERT_TRUE(second_->handle_revocation({{0, 0}}, 9'020).has_value());
  ASSERT_TRUE(second_->handle_assignment({}, {}, 9'020).has_value());
  ASSERT_TRUE(manager_->handle_assignment({}, {{0, 0}}, 9'030).has_value());
  ASSERT_TRUE(second_->handle_assignment({{0, 0}}, {}, 9'040).has_value());
  EXPECT_EQ(second_->active({0, 0})->state(), TaskState::CREATED);
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 9'050).has_value());
  step_second(12'040);
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-2")
      << "the record was dropped when the task initialized";
}

// Proves StateDirectory.lock without a persistent store (in-memory stores only): no lock is
// taken, so a task moving between two threads of the client opens on the receiving thread at
// once, while the other thread still holds its own copy.
TEST_F(TaskManagerTest, AnInMemoryTaskMovingBetweenThreadsOpensAtOnce) {
  ASSERT_FALSE(has_persistent_stores(topology_));
  build_second_thread();
  produce(0, 4);
  ASSERT_TRUE(manager_->handle_assignment({}, {{0, 0}}, 0).has_value());
  ASSERT_EQ(manager_->standby({0, 0})->state(), TaskState::RUNNING);
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), std::nullopt) << "no owner recorded";

  ASSERT_TRUE(second_->handle_assignment({{0, 0}}, {}, 10).has_value());
  EXPECT_TRUE(second_->active({0, 0})->initialized()) << "opened with the standby still open";
  ASSERT_NE(manager_->standby({0, 0}), nullptr);
  step_second(10);
  step_second(10);
  EXPECT_EQ(second_->active({0, 0})->state(), TaskState::RUNNING);
  EXPECT_EQ(count(second_->active({0, 0}), 4), 1);
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 20).has_value());
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), std::nullopt);
}

// Proves StateDirectory.getOrCreateDirectoryForTask at both pins: without a persistent store no
// task directory (nor the application's) is ever made, by an active or a standby, through their
// commits, checkpoints and closes, so the cleaner finds nothing to delete; with one the active's
// directory is made and stays after the close.
TEST_F(TaskManagerTest, WithoutAPersistentStoreNoTaskDirectoryIsCreated) {
  ASSERT_FALSE(has_persistent_stores(topology_));
  produce(0, 1);
  produce(1, 2);
  for (const KafkaPin pin : {KafkaPin::k2024_10_25, KafkaPin::k2026_08_20}) {
    SCOPED_TRACE(std::string("pin ") + to_string(pin));
    manager_.reset();
    std::filesystem::remove_all(root_);
    pin_ = pin;
    build();
    ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {{0, 1}}, 0).has_value());
    step();
    step();
    ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
    ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 5).has_value());
    ASSERT_TRUE(manager_->handle_assignment({}, {}, 5).has_value());
    EXPECT_FALSE(std::filesystem::exists(root_ / "app")) << "no application directory either";
    manager_->handle_rebalance_start();
    EXPECT_TRUE(manager_->task_offset_sums().empty());
    EXPECT_TRUE(state_directory_->clean_removed_tasks(/*now_ms=*/1'000'000'000).empty());
  }

  build_persistent();
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 5).has_value());
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 5).has_value());
  EXPECT_TRUE(std::filesystem::is_directory(root_ / "app" / "0_0"));
}

// Proves a task still waiting for the lock can be reassigned (active to standby, then away)
// without touching the lock or the directory of the thread that holds it, and reports the
// offset sum of the checkpoint on disk while it waits.
TEST_F(TaskManagerTest, WaitingTaskLeavesTheOtherThreadsLockAlone) {
  manager_.reset();
  topology_.supplier = KeyValueSupplier::kRocksDbTimestamped;
  build();
  build_second_thread();
  produce(0, 1);
  produce(0, 2);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  step();
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
  ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 5).has_value());
  ASSERT_TRUE(manager_->handle_assignment({}, {{0, 0}}, 5).has_value());  // recycled, lock kept
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-1");

  ASSERT_TRUE(second_->handle_assignment({{0, 0}}, {}, 10).has_value());
  step_second();
  ASSERT_EQ(second_->active({0, 0})->state(), TaskState::CREATED);
  EXPECT_FALSE(second_->all_actives_running());
  EXPECT_EQ(second_->task_offset_sums().at({0, 0}), 1) << "from .checkpoint: changelog at 1";

  // Reassigned as a standby while waiting: a fresh standby, still waiting.
  ASSERT_TRUE(second_->handle_revocation({{0, 0}}, 15).has_value());
  ASSERT_TRUE(second_->handle_assignment({}, {{0, 0}}, 15).has_value());
  EXPECT_EQ(second_->active({0, 0}), nullptr);
  ASSERT_NE(second_->standby({0, 0}), nullptr);
  EXPECT_EQ(second_->standby({0, 0})->state(), TaskState::CREATED);
  EXPECT_TRUE(second_->all_actives_running());
  EXPECT_FALSE(second_->all_tasks_running()) << "a waiting standby keeps the thread from RUNNING";
  ASSERT_TRUE(second_->commit_all(/*now_ms=*/0).has_value());

  // And away: the first thread keeps its lock and its task directory.
  ASSERT_TRUE(second_->handle_assignment({}, {}, 20).has_value());
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-1");
  // A time far past any wall-clock mtime: only the lock keeps the directory.
  EXPECT_TRUE(state_directory_->clean_removed_tasks(int64_t{1} << 62).empty());
  EXPECT_EQ(count(manager_->standby({0, 0}), 2), 1);
}

// Proves TaskManager.handleRebalanceStart's locks (tryToLockAllNonEmptyTaskDirectories): the
// thread whose rebalance starts first locks a directory no thread owns, so it alone reports the
// directory's offset sum; until its assignment is handled, the client's other thread, assigned
// the task, waits in CREATED (Kafka's LockException) and the cleaner leaves the directory alone.
// handleRebalanceComplete releases it, and the waiting task initializes at its next pass.
TEST_F(TaskManagerTest, RebalanceStartLocksUnownedDirectoriesUntilTheAssignmentIsHandled) {
  build_persistent();
  build_second_thread();
  produce(0, 1);
  produce(0, 2);
  run_then_close({{0, 0}}, 5);
  ASSERT_EQ(state_directory_->lock_owner({0, 0}), std::nullopt) << "closed: no one holds it";

  // Both threads rejoin; the first thread's JoinGroup goes out first.
  manager_->handle_rebalance_start();
  second_->handle_rebalance_start();
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-1");
  EXPECT_EQ(manager_->locked_task_directories(), (std::set<TaskId>{{0, 0}}));
  EXPECT_TRUE(second_->locked_task_directories().empty());
  EXPECT_EQ(manager_->task_offset_sums().at({0, 0}), 1) << "the .checkpoint's last offset";
  EXPECT_EQ(second_->task_offset_sums().count({0, 0}), 0u) << "locked by the other thread";

  // The second thread is assigned the task and handles its assignment first.
  ASSERT_TRUE(second_->handle_assignment({{0, 0}}, {}, 10).has_value());
  second_->handle_rebalance_complete();
  for (int pass = 0; pass < 3; ++pass) {
    step_second();
    EXPECT_EQ(second_->active({0, 0})->state(), TaskState::CREATED) << "pass " << pass;
  }
  EXPECT_TRUE(state_directory_->clean_removed_tasks(int64_t{1} << 62).empty())
      << "a directory locked for a rebalance is not cleaned";

  // The first thread's assignment does not name it: the lock goes, the task initializes at its
  // first pass past the backoff.
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 20).has_value());
  manager_->handle_rebalance_complete();
  EXPECT_TRUE(manager_->locked_task_directories().empty());
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), std::nullopt);
  step_second(3'010);
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-2");
  step_second(3'010);
  EXPECT_EQ(second_->active({0, 0})->state(), TaskState::RUNNING);
  // Restored from the changelog; the fakes share no committed offsets between the two threads'
  // members, so the input is then read again on top.
  EXPECT_EQ(count(second_->active({0, 0}), 2), 2);
}

// Proves a directory locked at the rebalance start stays locked when the assignment gives the
// task to this thread (releaseLockedUnassignedTaskDirectories keeps it), and that a shutdown
// releases what its tasks did not (TaskManager.shutdown).
TEST_F(TaskManagerTest, ALockedDirectoryThatIsAssignedStaysLockedAndShutdownReleasesTheRest) {
  topology_.source_partitions = 2;
  build_persistent();
  build_second_thread();
  produce(0, 1);
  produce(1, 2);
  run_then_close({{0, 0}, {0, 1}}, 5);

  second_->handle_rebalance_start();
  EXPECT_EQ(second_->locked_task_directories(), (std::set<TaskId>{{0, 0}, {0, 1}}));
  ASSERT_TRUE(second_->handle_assignment({{0, 1}}, {}, 10).has_value());
  EXPECT_TRUE(second_->active({0, 1})->initialized()) << "its own lock: re-entrant";
  second_->handle_rebalance_complete();
  EXPECT_EQ(second_->locked_task_directories(), (std::set<TaskId>{{0, 1}}));
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), std::nullopt);
  EXPECT_EQ(state_directory_->lock_owner({0, 1}), "app-StreamThread-2");

  // A shutdown in the middle of the next rebalance.
  second_->handle_rebalance_start();
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-2");
  ASSERT_TRUE(second_->handle_revocation({{0, 1}}, 20).has_value());
  ASSERT_TRUE(second_->handle_assignment({}, {}, 20).has_value());
  EXPECT_EQ(state_directory_->lock_owner({0, 1}), std::nullopt) << "its close unlocked it";
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), "app-StreamThread-2");
  second_->release_locked_unassigned_task_directories();
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), std::nullopt);
}

// Proves the offset sums follow TaskManager.getTaskOffsetSums at 1eb7644: a live task sums
// ProcessorStateManager.changelogOffsets(), the next offset to fetch (last applied + 1), while a
// task only on disk sums its .checkpoint (the last applied offset). A caught-up standby so reports
// the changelog's end offset, lag 0, as in Kafka; summing its last offset instead claimed lag 1.
TEST_F(TaskManagerTest, LiveTaskReportsTheNextOffsetAndADiskTaskItsCheckpoint) {
  manager_.reset();
  topology_.supplier = KeyValueSupplier::kRocksDbTimestamped;
  build();
  produce(0, 1);
  produce(0, 2);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  step();
  ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 5).has_value());
  ASSERT_TRUE(manager_->handle_assignment({}, {{0, 0}}, 5).has_value());  // recycled: standby
  ASSERT_NE(manager_->standby({0, 0}), nullptr);
  EXPECT_EQ(manager_->task_offset_sums().at({0, 0}), 2)
      << "live: changelog records at 0 and 1, the next to fetch is 2";
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 10).has_value());
  manager_->handle_rebalance_start();
  EXPECT_EQ(manager_->task_offset_sums().at({0, 0}), 1) << "on disk: the .checkpoint's 1";
}

// Proves the offset sums of the new pin (TaskManager.taskOffsetSums at 8f4e08b5a3, delta 14): a
// task that moved away reports what the state directory's cache holds for it, the next offset
// its stores had when it last checkpointed (2), where the old pin read .checkpoint's last applied
// offset (1, the test above); at the new pin no .checkpoint is written at all. A live task still
// overlays the cache (shouldComputeOffsetSumFromLiveOffsetsForOwnTasks), and a wipe under EOS
// would remove the entry (StateDirectoryTest.WipeAndCleanupRemoveTheCachedOffsetSum).
TEST_F(TaskManagerTest, NewPinReportsTheCachedOffsetsOfATaskThatMovedAway) {
  manager_.reset();
  topology_.supplier = KeyValueSupplier::kRocksDbTimestamped;
  pin_ = KafkaPin::k2026_08_20;
  build();
  produce(0, 1);
  produce(0, 2);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  step();
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
  EXPECT_EQ(manager_->task_offset_sums().at({0, 0}), Task::kLatestOffset);
  EXPECT_EQ(state_directory_->task_offset_sums({{0, 0}}).at({0, 0}), 2)
      << "the active's checkpoint put its next changelog offset into the cache";
  ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 5).has_value());
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 10).has_value());
  EXPECT_FALSE(std::filesystem::exists(root_ / "app" / "0_0" / ".checkpoint"));
  manager_->handle_rebalance_start();
  EXPECT_EQ(manager_->task_offset_sums().at({0, 0}), 2) << "from the cache, not a file";

  // A thread of a new process on the same disk has nothing cached until the startup initialization
  // seeds it (KafkaStreamsTest.NewPinSeedsTheOffsetSumsFromTheStoresAtStart).
  manager_.reset();
  build();
  EXPECT_EQ(manager_->task_offset_sums().count({0, 0}), 0u);
}

// Proves a RUNNING active without a changelog reports no offset sum (StreamTask.changelogOffsets
// is then empty and getTaskOffsetSums skips the task), where a logged one reports LATEST_OFFSET.
TEST_F(TaskManagerTest, RunningActiveWithoutAChangelogReportsNoOffsetSum) {
  manager_.reset();
  topology_.logging = false;
  build();
  produce(0, 1);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  ASSERT_EQ(manager_->active({0, 0})->state(), TaskState::RUNNING);
  EXPECT_EQ(manager_->task_offset_sums().count({0, 0}), 0u);
}

// Proves TaskManager.handleLostAll's closeTaskDirty under at-least-once: a RUNNING active that
// processed since its last commit flushes its cache first (prepareCommit), so its dirty entries
// reach its store and changelog before the dirty close, and a task with nothing to commit sends
// nothing. A restart restores the flushed count and reprocesses the uncommitted input on top.
TEST_F(TaskManagerTest, LosingTheTasksFlushesTheCachesBeforeTheDirtyClose) {
  produce(0, 1);
  produce(0, 1);
  produce(1, 2);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}, {0, 1}}, {}, 0).has_value());
  step();
  step();
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
  const auto& changelog0 = broker_.logs[{"app-counts-changelog", 0}];
  const auto& changelog1 = broker_.logs[{"app-counts-changelog", 1}];
  ASSERT_EQ(changelog0.size(), 1u) << "the cache sent key 1 once, at the commit";
  ASSERT_EQ(changelog1.size(), 1u);
  produce(0, 3);
  step();
  ASSERT_TRUE(manager_->active({0, 0})->commit_needed());
  ASSERT_FALSE(manager_->active({0, 1})->commit_needed());
  manager_->handle_lost_all(10);
  EXPECT_EQ(manager_->active({0, 0}), nullptr);
  ASSERT_EQ(changelog0.size(), 2u) << "the dirty cache entry was flushed before the dirty close";
  EXPECT_EQ(changelog0.back().key, Serde<int32_t>::serialize(3));
  EXPECT_EQ(changelog1.size(), 1u) << "a task with nothing to commit flushes nothing";
  // The uncommitted input is processed again over the restored store: at-least-once.
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 20).has_value());
  step();
  step();
  EXPECT_EQ(count(manager_->active({0, 0}), 3), 2) << "restored 1, reprocessed 1";
  EXPECT_EQ(count(manager_->active({0, 0}), 1), 2);
}

// Proves DefaultStateUpdater.maybeCheckpointTasks for standbys: a standby lives in the state
// updater, so the thread's commit never checkpoints it; the updater's timed round does, under the
// threshold rule, together with the restoring actives.
TEST_F(TaskManagerTest, StandbysCheckpointOnTheStateUpdatersRoundNotOnTheThreadsCommit) {
  manager_.reset();
  topology_.supplier = KeyValueSupplier::kRocksDbTimestamped;
  threshold_ = 0;
  build();
  produce(0, 1);
  produce(0, 2);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  step();
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
  ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 5).has_value());
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 5).has_value());
  const std::string dir = state_directory_->task_dir({0, 0});
  std::filesystem::remove_all(dir);  // a new disk: the standby restores both changelog records
  ASSERT_TRUE(manager_->handle_assignment({}, {{0, 0}}, 10).has_value());
  ASSERT_TRUE(instance_->reader.restore(0).has_value());
  ASSERT_EQ(count(manager_->standby({0, 0}), 2), 1);
  ASSERT_FALSE(std::filesystem::exists(dir + "/.checkpoint"));
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/20).has_value());
  EXPECT_FALSE(std::filesystem::exists(dir + "/.checkpoint"))
      << "a standby is not in the thread's commit";
  ASSERT_TRUE(manager_->checkpoint_updating_tasks().has_value());
  EXPECT_TRUE(std::filesystem::exists(dir + "/.checkpoint"))
      << "the updater's round checkpoints it past the threshold";
}

// Proves the loop's timers are strict, as StreamThread.maybeCommit (now - lastCommitMs >
// commit.interval.ms) and DefaultStateUpdater.maybeCheckpointTasks: with a 100 ms interval and
// passes every 10 ms, the commit after one at 0 comes at 110, not at 100.
TEST(StreamThreadTimers, IntervalMustBeExceededNotJustReached) {
  EXPECT_FALSE(StreamThread::interval_elapsed(100, 0, 100));
  EXPECT_TRUE(StreamThread::interval_elapsed(110, 0, 100));
  EXPECT_FALSE(StreamThread::interval_elapsed(0, 0, 0)) << "commit.interval.ms=0: once per ms";
  EXPECT_TRUE(StreamThread::interval_elapsed(1, 0, 0));
}

}  // namespace
}  // namespace iq
