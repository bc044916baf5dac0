// exactly_once_v2 in the runtime: the commit sequence (one transaction per commit, offsets sent
// with the group metadata), fencing and failed commits as TaskMigrated (abort, wipe, new
// producer), and the checkpoint rules of the state-updater path (written when an active
// completes restoration and kept while it processes, written on suspension and under the
// threshold rule while restoring, deleted once loaded, a missing one beside non-empty stores
// wiped and restored), against in-memory doubles.
#include <gtest/gtest.h>

#include <filesystem>

#include "iq/key_query.h"
#include "processor/streams_producer.h"
#include "processor/task_manager.h"
#include "processor/test_fakes.h"

namespace iq {
namespace {

using namespace testing_fakes;  // NOLINT: test doubles only

// A transactional producer writing straight into the FakeBroker, logging every call, with errors
// the test can inject.
struct ProducerLog {
  std::vector<std::string> calls;
  std::optional<ProducerError> fail_commit;
  std::optional<ProducerError> fail_send;
  TopicPartitionOffsets offsets_sent;        // by the open transaction
  TopicPartitionOffsets offsets_sent_total;  // by committed transactions
  ConsumerGroupMetadata metadata_sent;
  std::vector<std::string> transactional_ids;
};

class FakeProducer final : public Producer {
 public:
  FakeProducer(FakeBroker& broker, ProducerLog& log, GroupMembership& group)
      : broker_(broker), log_(log), group_(group) {}
  ProducerStatus init_transactions() override { return note("init"); }
  ProducerStatus begin_transaction() override {
    in_txn_ = true;
    return note("begin");
  }
  base::Expected<int64_t, ProducerError> send(const std::string& topic, int32_t partition,
                                              const Bytes& key, const std::optional<Bytes>& value,
                                              int64_t timestamp, const Headers& headers) override {
    log_.calls.push_back("send");
    if (log_.fail_send) return base::unexpected(*log_.fail_send);
    return broker_.append(ConsumerRecord{topic, partition, 0, timestamp, key, value, headers});
  }
  ProducerStatus send_offsets_to_transaction(const TopicPartitionOffsets& offsets,
                                             const ConsumerGroupMetadata& metadata) override {
    log_.offsets_sent = offsets;
    log_.metadata_sent = metadata;
    return note("send_offsets");
  }
  ProducerStatus commit_transaction() override {
    log_.calls.push_back("commit");
    if (log_.fail_commit) return base::unexpected(*log_.fail_commit);
    in_txn_ = false;
    // The transaction's offsets become the group's committed offsets only now.
    if (!log_.offsets_sent.empty()) (void)group_.commit_offsets(log_.offsets_sent);
    log_.offsets_sent_total.insert(log_.offsets_sent.begin(), log_.offsets_sent.end());
    log_.offsets_sent.clear();
    return Unit{};
  }
  ProducerStatus abort_transaction() override {
    in_txn_ = false;
    return note("abort");
  }
  bool in_transaction() const override { return in_txn_; }

 private:
  ProducerStatus note(const char* call) {
    log_.calls.push_back(call);
    return Unit{};
  }
  FakeBroker& broker_;
  ProducerLog& log_;
  GroupMembership& group_;
  bool in_txn_ = false;
};

class EosTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ =
        std::filesystem::path(testing::TempDir()) /
        ("iqsim-eos-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(root_);
    topology_.kind = TopologyKind::Count;
    topology_.source_topic = "words";
    topology_.source_partitions = 1;
    topology_.store_name = "counts";
    topology_.supplier = KeyValueSupplier::kRocksDbTimestamped;
    topology_.caching = false;  // one changelog send per write
    build();
  }
  // A new process on the same directory: a crash is dropping the old one without closing.
  void build() {
    manager_.reset();
    producer_.reset();
    instance_ = std::make_unique<Instance>(broker_, root_, /*consistency=*/true);
    state_directory_ = std::make_unique<StateDirectory>(instance_->fs, root_.string(), "app");
    producer_ = std::make_unique<StreamsProducer>(
        StreamsProducer::transactional_id("app", "pid", 1), [this](const std::string& id) {
          log_.transactional_ids.push_back(id);
          return std::make_unique<FakeProducer>(broker_, log_, membership_);
        });
    manager_ = std::make_unique<TaskManager>(
        topology_, *state_directory_, instance_->reader, main_consumer_, membership_,
        [this](const TaskId& id) {
          TaskEnvironment env = instance_->env;
          env.task_dir = state_directory_->task_dir(id);
          env.eos_enabled = true;
          env.collector = producer_.get();
          env.offset_delta_threshold_for_checkpoint = threshold_;
          return env;
        },
        "app-StreamThread-1", producer_.get(), "app");
  }
  void TearDown() override {
    manager_.reset();
    std::filesystem::remove_all(root_);
  }
  void produce(int32_t key) {
    broker_.append(ConsumerRecord{
        "words", 0, 0, 0, Serde<int32_t>::serialize(key), Serde<int64_t>::serialize(1), {}});
  }
  void step() {
    ASSERT_TRUE(instance_->reader.restore(0).has_value());
    ASSERT_TRUE(manager_->try_complete_restoration(0).has_value());
    manager_->add_records(main_consumer_.poll(1000));
    ASSERT_TRUE(manager_->process(1000).has_value());
  }
  std::optional<int64_t> count(int32_t key) {
    auto r = manager_->active({0, 0})->store("counts")->query(
        KeyQuery<int32_t, int64_t>::with_key(key), PositionBound::unbounded(), QueryConfig(false));
    EXPECT_TRUE(r.has_value() && r->is_success());
    return r->result<std::optional<int64_t>>();
  }
  bool checkpoint_exists() {
    return std::filesystem::exists(state_directory_->task_dir({0, 0}) + "/.checkpoint");
  }

  std::filesystem::path root_;
  FakeBroker broker_;
  FakeConsumer main_consumer_{broker_};
  FakeMembership membership_;
  ProducerLog log_;
  TopologyConfig topology_;
  std::unique_ptr<Instance> instance_;
  std::unique_ptr<StateDirectory> state_directory_;
  std::unique_ptr<StreamsProducer> producer_;
  std::unique_ptr<TaskManager> manager_;
  int64_t threshold_ = 10'000;  // StateManagerUtil.OFFSET_DELTA_THRESHOLD_FOR_CHECKPOINT
};

// Proves the EOS commit sequence: initTransactions once before the first active initializes, a
// transaction begun lazily at the first send, and a commit that sends the input offsets with the
// consumer's group metadata and commits the transaction, with no plain offset commit.
TEST_F(EosTest, CommitSendsOffsetsWithGroupMetadataInsideTheTransaction) {
  EXPECT_EQ(log_.transactional_ids, std::vector<std::string>{"app-pid-1"});
  produce(1);
  produce(1);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  EXPECT_EQ(log_.calls, std::vector<std::string>{"init"});
  step();
  step();
  ASSERT_EQ(count(1), 2);
  EXPECT_EQ(log_.calls, (std::vector<std::string>{"init", "begin", "send", "send"}));
  EXPECT_TRUE(producer_->transaction_in_flight());
  EXPECT_EQ(membership_.committed({"words", 0}), std::nullopt);
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
  EXPECT_EQ(log_.calls,
            (std::vector<std::string>{"init", "begin", "send", "send", "send_offsets", "commit"}));
  EXPECT_EQ(log_.offsets_sent_total, (TopicPartitionOffsets{{{"words", 0}, 2}}));
  EXPECT_EQ(log_.metadata_sent,
            (ConsumerGroupMetadata{"app", membership_.generation(), membership_.member_id()}));
  EXPECT_EQ(membership_.commits, 1) << "offsets reach the group with the transaction only";
  EXPECT_EQ(membership_.committed({"words", 0}), 2);
  EXPECT_FALSE(producer_->transaction_in_flight());
  // Nothing processed and no transaction in flight: the next commit sends nothing.
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
  EXPECT_EQ(log_.calls.size(), 6u);
}

// Proves a fenced commit is TaskMigrated, and that losing the tasks then aborts the transaction,
// wipes the dirty task's directory and makes a new producer that initializes again.
TEST_F(EosTest, FencedCommitIsTaskMigratedAndLosingTasksWipesAndResetsTheProducer) {
  produce(1);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  step();
  log_.fail_commit = ProducerError{ProducerError::Kind::ProducerFenced, "epoch bumped"};
  auto s = manager_->commit_all(/*now_ms=*/0);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().kind, StreamsError::Kind::TaskMigrated) << s.error().to_string();
  log_.fail_commit.reset();
  const std::string dir = state_directory_->task_dir({0, 0});
  ASSERT_FALSE(std::filesystem::is_empty(dir)) << "the RocksDB store lives there";
  manager_->handle_lost_all(10);
  EXPECT_EQ(log_.calls.back(), "abort");
  EXPECT_FALSE(std::filesystem::exists(dir)) << "an unclean close under EOS wipes the directory";
  EXPECT_EQ(producer_->producers_made(), 2u);
  EXPECT_FALSE(producer_->transaction_initialized());
  // CommitFailed (a zombie's stale generation) is TaskMigrated too.
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 20).has_value());
  EXPECT_EQ(log_.calls.back(), "init") << "the new producer initializes before the task";
  step();
  produce(1);
  step();
  log_.fail_commit = ProducerError{ProducerError::Kind::CommitFailed, "ILLEGAL_GENERATION"};
  s = manager_->commit_all(/*now_ms=*/0);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().kind, StreamsError::Kind::TaskMigrated) << s.error().to_string();
}

// Proves the checkpoint rules of the state-updater path at 1eb7644: DefaultStateUpdater.
// maybeCompleteRestoration enforces a checkpoint when an active completes restoration, under EOS
// too; a RUNNING task's commit writes none; revocation writes one; a task loading it deletes it.
// The one written at restoration then stays while the task processes, so a crash leaves it, and
// the restart trusts its local store: a write the changelog never got (as an aborted
// transaction's, flushed by RocksDB) survives. Kafka at the pinned commit does the same.
TEST_F(EosTest, RestorationCheckpointStaysWhileProcessingAndACrashKeepsTheStores) {
  produce(1);
  produce(2);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  ASSERT_EQ(manager_->active({0, 0})->state(), TaskState::RUNNING);
  EXPECT_TRUE(checkpoint_exists()) << "the state updater checkpoints a restored active";
  step();
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
  ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 5).has_value());
  EXPECT_TRUE(checkpoint_exists()) << "revocation: postCommit(true) checkpoints";
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 5).has_value());
  EXPECT_TRUE(checkpoint_exists()) << "a clean close leaves it";

  // Assigned again: the checkpoint is loaded (no restore of what it covers) and deleted, then
  // written again once restoration completes.
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 10).has_value());
  EXPECT_FALSE(checkpoint_exists()) << "deleted once loaded";
  step();
  EXPECT_TRUE(checkpoint_exists()) << "written again at restoration completion";
  ASSERT_EQ(count(2), 1);
  produce(2);
  step();
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
  EXPECT_TRUE(checkpoint_exists()) << "a RUNNING task's commit neither writes nor deletes it";
  ASSERT_EQ(count(2), 2);
  // A write the changelog never got (as an aborted transaction's): only the local store has it.
  manager_->active({0, 0})->state_manager().flush().value();
  auto& changelog = broker_.logs[{"app-counts-changelog", 0}];
  ASSERT_EQ(changelog.size(), 3u);
  changelog.pop_back();

  build();  // crash: no close; the restoration's .checkpoint is still there
  ASSERT_TRUE(checkpoint_exists());
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 20).has_value());
  EXPECT_FALSE(manager_->take_enforce_rebalance()) << "a checkpoint was found: not corrupted";
  ASSERT_TRUE(instance_->reader.restore(0).has_value());
  ASSERT_TRUE(manager_->try_complete_restoration(0).has_value());
  ASSERT_EQ(manager_->active({0, 0})->state(), TaskState::RUNNING);
  EXPECT_EQ(count(2), 2) << "the store kept the write its changelog does not have";
}

// Proves the EOS corruption rule where it still applies on the state-updater path: a crash after
// a task loaded (and so deleted) its .checkpoint and before restoration completed leaves stores
// without a checkpoint; the restart finds them TaskCorrupted, wipes them and restores from the
// changelog, and an active's corruption enforces a rebalance.
TEST_F(EosTest, CrashBeforeRestorationCompletesWipesTheStores) {
  produce(1);
  produce(1);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  step();
  ASSERT_EQ(count(1), 2);
  ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 5).has_value());
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 5).has_value());
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 10).has_value());
  ASSERT_EQ(manager_->active({0, 0})->state(), TaskState::RESTORING);
  ASSERT_FALSE(checkpoint_exists()) << "deleted once loaded";

  build();  // crash while restoring: stores on disk, no .checkpoint
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 20).has_value());
  ASSERT_NE(manager_->active({0, 0}), nullptr);
  EXPECT_EQ(manager_->active({0, 0})->state(), TaskState::RESTORING);
  EXPECT_TRUE(manager_->take_enforce_rebalance()) << "an active's corruption enforces a rebalance";
  EXPECT_FALSE(checkpoint_exists());
  ASSERT_TRUE(instance_->reader.restore(0).has_value());
  ASSERT_TRUE(manager_->try_complete_restoration(0).has_value());
  ASSERT_EQ(manager_->active({0, 0})->state(), TaskState::RUNNING);
  EXPECT_EQ(count(1), 2) << "restored from the changelog's start";
}

// Proves DefaultStateUpdater.maybeCheckpointTasks for a restoring active: under EOS too it
// checkpoints under the threshold rule while the task still restores, so a crash during a long
// restoration leaves a .checkpoint and the restart resumes from it instead of being corrupted.
TEST_F(EosTest, RestoringActiveCheckpointsUnderTheThresholdRule) {
  threshold_ = 0;
  build();
  produce(1);
  produce(2);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  step();
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
  ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 5).has_value());
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 5).has_value());
  std::filesystem::remove_all(state_directory_->task_dir({0, 0}));  // a new disk

  build();
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 10).has_value());
  ASSERT_TRUE(instance_->reader.restore(0).has_value());  // both records, not yet handed back
  ASSERT_EQ(manager_->active({0, 0})->state(), TaskState::RESTORING);
  ASSERT_FALSE(checkpoint_exists());
  ASSERT_TRUE(manager_->checkpoint_updating_tasks().has_value());
  EXPECT_TRUE(checkpoint_exists()) << "the restored offsets moved past the threshold";

  build();  // crash while restoring
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 20).has_value());
  EXPECT_FALSE(manager_->take_enforce_rebalance()) << "a checkpoint was found: not corrupted";
  EXPECT_EQ(manager_->active({0, 0})->state_manager().changelog_offset("counts"),
            std::optional<ChangelogOffset>(ChangelogOffset(1)));
}

// Proves TaskManager.handleLostAll on the state-updater path: an active still restoring is taken
// out of the updater with an enforced checkpoint and closed clean, so its directory survives the
// lost generation under EOS (only RUNNING actives close dirty and are wiped).
TEST_F(EosTest, LosingARestoringActiveCheckpointsItAndKeepsItsDirectory) {
  produce(1);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  step();
  ASSERT_TRUE(manager_->handle_revocation({{0, 0}}, 5).has_value());
  ASSERT_TRUE(manager_->handle_assignment({}, {}, 5).has_value());
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 10).has_value());
  ASSERT_EQ(manager_->active({0, 0})->state(), TaskState::RESTORING);
  ASSERT_FALSE(checkpoint_exists()) << "deleted once loaded";
  manager_->handle_lost_all(15);
  EXPECT_EQ(manager_->active({0, 0}), nullptr);
  EXPECT_TRUE(checkpoint_exists()) << "removed from the updater with an enforced checkpoint";
  EXPECT_EQ(state_directory_->lock_owner({0, 0}), std::nullopt);
  // Assigned again: the kept stores and checkpoint are loaded; nothing is corrupted.
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 20).has_value());
  EXPECT_FALSE(manager_->take_enforce_rebalance());
  EXPECT_EQ(manager_->active({0, 0})->state_manager().changelog_offset("counts"),
            std::optional<ChangelogOffset>(ChangelogOffset(0)));
}

// Proves TaskManager.handleLostAll's closeTaskDirty under EOS: each RUNNING active flushes its
// cache (prepareCommit) into the thread's transaction, and its RecordCollectorImpl.closeDirty
// aborts that transaction before the next task's flush begins a new one. The flushed records are
// on the changelog, aborted; the directories are wiped.
TEST_F(EosTest, LosingTheTasksFlushesEachCacheIntoATransactionItsCloseAborts) {
  topology_.caching = true;
  topology_.source_partitions = 2;
  build();
  produce(1);
  broker_.append(ConsumerRecord{
      "words", 1, 0, 0, Serde<int32_t>::serialize(2), Serde<int64_t>::serialize(1), {}});
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}, {0, 1}}, {}, 0).has_value());
  step();
  step();
  ASSERT_EQ(log_.calls, std::vector<std::string>{"init"}) << "the cache holds both writes";
  manager_->handle_lost_all(10);
  EXPECT_EQ(log_.calls,
            (std::vector<std::string>{"init", "begin", "send", "abort", "begin", "send", "abort"}));
  EXPECT_EQ((broker_.logs[{"app-counts-changelog", 0}].size()), 1u);
  EXPECT_EQ((broker_.logs[{"app-counts-changelog", 1}].size()), 1u);
  EXPECT_FALSE(std::filesystem::exists(state_directory_->task_dir({0, 0})));
  EXPECT_EQ(producer_->producers_made(), 2u);
}

// Proves at-least-once is untouched by the EOS rules: the same crash keeps the local stores
// (no wipe, no corruption) and a RUNNING task's commit checkpoints.
TEST_F(EosTest, AtLeastOnceKeepsItsCheckpointRules) {
  manager_ = std::make_unique<TaskManager>(
      topology_, *state_directory_, instance_->reader, main_consumer_, membership_,
      [this](const TaskId& id) {
        TaskEnvironment env = instance_->env;
        env.task_dir = state_directory_->task_dir(id);
        env.offset_delta_threshold_for_checkpoint = 0;
        return env;
      },
      "app-StreamThread-1");
  produce(1);
  ASSERT_TRUE(manager_->handle_assignment({{0, 0}}, {}, 0).has_value());
  step();
  EXPECT_TRUE(checkpoint_exists()) << "completeRestoration checkpoints under ALOS";
  step();
  ASSERT_TRUE(manager_->commit_all(/*now_ms=*/0).has_value());
  EXPECT_TRUE(checkpoint_exists());
  EXPECT_EQ(membership_.commits, 1);
  EXPECT_TRUE(log_.calls.empty() || log_.calls == std::vector<std::string>{});
  EXPECT_FALSE(manager_->take_enforce_rebalance());
}

}  // namespace
}  // namespace iq
