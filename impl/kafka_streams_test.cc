// One KafkaStreams client end to end over in-memory broker doubles and a one-member group: it
// starts, rebalances, restores, processes, answers queries and metadata, and closes.
#include <gtest/gtest.h>

#include "assignment/process_id.h"
#include "iq/default_partitioner.h"
#include "iq/key_query.h"
#include "kafka_streams.h"
#include "processor/test_fakes.h"

namespace iq {
namespace {

using namespace testing_fakes;  // NOLINT: test doubles only

class KafkaStreamsTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::path(testing::TempDir()) /
            ("iqsim-kafka-streams-" +
             std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(root_);
    config_.application_id = "app";
    config_.application_server = "instance-1:8080";
    config_.state_dir = root_.string();
    config_.commit_interval_ms = 100;
    config_.consistency_offset_vector_enabled = true;
    topology_.kind = TopologyKind::Count;
    topology_.source_topic = "words";
    topology_.source_partitions = 2;
    topology_.store_name = "counts";
    ClientIo io{
        &admin_, &fs_, nullptr, {ThreadIo{&main_, &restore_, &membership_, &collector_, {}}}};
    streams_ =
        std::make_unique<KafkaStreams>(config_, topology_, io, ProcessId::for_int(1).to_string());
  }
  void TearDown() override {
    streams_.reset();
    std::filesystem::remove_all(root_);
  }
  void produce(int32_t key) {
    const int32_t p = partition_for_key(Serde<int32_t>::serialize(key).view(), 2);
    broker_.append(ConsumerRecord{
        "words", p, 0, 0, Serde<int32_t>::serialize(key), Serde<int64_t>::serialize(1), {}});
  }
  void run(int64_t until_ms) {
    for (; now_ <= until_ms; now_ += 10) ASSERT_TRUE(streams_->run_once(now_).has_value());
  }

  std::filesystem::path root_;
  StreamsConfig config_;
  TopologyConfig topology_;
  FakeBroker broker_;
  FakeAdmin admin_{broker_};
  FakeConsumer main_{broker_};
  FakeConsumer restore_{broker_};
  FakeCollector collector_{broker_};
  FakeMembership membership_;
  PosixFileSystem fs_;
  std::unique_ptr<KafkaStreams> streams_;
  int64_t now_ = 0;
};

// Proves the client goes CREATED -> REBALANCING -> RUNNING and serves queries from its tasks.
TEST_F(KafkaStreamsTest, StartsProcessesAndAnswersQueries) {
  EXPECT_EQ(streams_->state(), KafkaStreamsState::CREATED);
  auto early = streams_->query(
      StateQueryRequest::in_store_with_query("counts", KeyQuery<int32_t, int64_t>::with_key(1)));
  ASSERT_FALSE(early.has_value());
  EXPECT_EQ(early.error().kind, StreamsError::Kind::StreamsNotStarted);
  ASSERT_TRUE(streams_->start().has_value());
  EXPECT_EQ(streams_->state(), KafkaStreamsState::REBALANCING);
  for (int i = 0; i < 3; ++i) produce(42);
  run(200);
  EXPECT_EQ(streams_->state(), KafkaStreamsState::RUNNING);
  auto r = streams_->query(
      StateQueryRequest::in_store_with_query("counts", KeyQuery<int32_t, int64_t>::with_key(42)));
  ASSERT_TRUE(r.has_value());
  auto only = r->only_partition_result<int64_t>();
  ASSERT_TRUE(only.has_value() && *only != nullptr);
  EXPECT_EQ((*only)->result<std::optional<int64_t>>(), std::optional<int64_t>(3));
  // Metadata: this client is the active host of the key's partition.
  auto meta = streams_->query_metadata_for_key("counts", 42);
  ASSERT_TRUE(meta.has_value());
  EXPECT_EQ(meta->active_host, (HostInfo{"instance-1", 8080}));
  EXPECT_EQ(meta->partition, partition_for_key(Serde<int32_t>::serialize(42).view(), 2));
  // Lags of running actives are zero.
  auto lags = streams_->all_local_store_partition_lags();
  ASSERT_TRUE(lags.has_value());
  for (const auto& [p, lag] : lags->at("counts"))
    EXPECT_EQ(lag.offset_lag(), 0) << "partition " << p;
}

// Proves Kafka's TaskManager.rebalanceInProgress: from the moment the thread builds its JoinGroup
// subscription until the assignment is handled, records are still processed but nothing is
// committed; the commit that came due meanwhile runs as soon as the rebalance completes.
TEST_F(KafkaStreamsTest, NoCommitWhileItsRebalanceIsInProgress) {
  ASSERT_TRUE(streams_->start().has_value());
  for (int i = 0; i < 3; ++i) produce(42);
  run(200);
  ASSERT_EQ(streams_->state(), KafkaStreamsState::RUNNING);
  const TopicPartition tp{"words", partition_for_key(Serde<int32_t>::serialize(42).view(), 2)};
  ASSERT_EQ(membership_.committed(tp), std::optional<int64_t>(3));

  membership_.hold = true;
  membership_.enforce_rebalance();
  for (int i = 0; i < 2; ++i) produce(42);
  const int commits_before = membership_.commits;
  run(1'000);  // ten commit intervals
  EXPECT_EQ(membership_.commits, commits_before) << "committed during the rebalance";
  EXPECT_EQ(membership_.committed(tp), std::optional<int64_t>(3));
  auto r = streams_->query(
      StateQueryRequest::in_store_with_query("counts", KeyQuery<int32_t, int64_t>::with_key(42)));
  ASSERT_TRUE(r.has_value());
  auto only = r->only_partition_result<int64_t>();
  ASSERT_TRUE(only.has_value() && *only != nullptr);
  EXPECT_EQ((*only)->result<std::optional<int64_t>>(), std::optional<int64_t>(5))
      << "processing stops during the rebalance";

  membership_.hold = false;
  run(now_);  // one pass: the assignment completes, then the overdue commit
  EXPECT_EQ(membership_.committed(tp), std::optional<int64_t>(5));
}

// Proves StreamThread.runOnceWithoutProcessingThreads' rounds (the commit steps of Kafka's
// StreamThreadTest.shouldRespectNumIterationsInMainLoopWithoutProcessingThreads; iqsim has no
// punctuators): each round processes numIterations records per task, then maybeCommit runs, and
// the rounds go on until one processes nothing. numIterations starts at 1, grows by one after a
// round that processed without committing, is halved after one that committed, and stays when a
// round processed nothing (a commit then included). A pass whose commit is due commits after its
// first round, not after draining the poll.
TEST_F(KafkaStreamsTest, APollIsDrainedInRoundsOfNumIterationsWithACommitAfterTheFirst) {
  ASSERT_TRUE(streams_->start().has_value());
  for (now_ = 0; now_ <= 50; now_ += 10) ASSERT_TRUE(streams_->run_once(now_).has_value());
  ASSERT_EQ(streams_->state(), KafkaStreamsState::RUNNING);
  const StreamThread& thread = *streams_->threads()[0];
  const TopicPartition tp{"words", partition_for_key(Serde<int32_t>::serialize(42).view(), 2)};
  const auto pass = [&](int64_t at_ms, int records) {
    for (int i = 0; i < records; ++i) produce(42);
    ASSERT_TRUE(streams_->run_once(at_ms).has_value());
  };
  EXPECT_EQ(thread.current_num_iterations(), 1u);

  pass(60, 1);  // one round of one record, no commit due (60 - 0 <= 100): +1
  EXPECT_EQ(thread.current_num_iterations(), 2u);
  pass(70, 0);  // nothing processed: unchanged
  EXPECT_EQ(thread.current_num_iterations(), 2u);
  pass(80, 2);  // both in the first round, no commit: +1
  EXPECT_EQ(thread.current_num_iterations(), 3u);
  pass(200, 0);  // a commit without processing keeps it
  EXPECT_EQ(thread.current_num_iterations(), 3u);
  EXPECT_EQ(membership_.committed(tp), std::optional<int64_t>(3));
  pass(310, 1);  // processed, then committed: halved (3 / 2)
  EXPECT_EQ(thread.current_num_iterations(), 1u);
  EXPECT_EQ(membership_.committed(tp), std::optional<int64_t>(4));

  pass(320, 10);  // rounds of 1, 2, 3, 4 records without a commit (320 - 310 <= 100)
  EXPECT_EQ(thread.current_num_iterations(), 5u);
  EXPECT_EQ(membership_.committed(tp), std::optional<int64_t>(4));
  pass(500, 10);  // the commit is due: after the first round's 5 records, then rounds of 2 and 3
  EXPECT_EQ(membership_.committed(tp), std::optional<int64_t>(19))
      << "the commit falls after the first round, not after the whole poll";
  EXPECT_EQ(thread.current_num_iterations(), 4u);
  auto r = streams_->query(
      StateQueryRequest::in_store_with_query("counts", KeyQuery<int32_t, int64_t>::with_key(42)));
  ASSERT_TRUE(r.has_value());
  auto only = r->only_partition_result<int64_t>();
  ASSERT_TRUE(only.has_value() && *only != nullptr);
  EXPECT_EQ((*only)->result<std::optional<int64_t>>(), std::optional<int64_t>(24))
      << "the pass still drains its poll";
}

// Proves a closed client refuses queries with StreamsStoppedException and left its state on disk.
TEST_F(KafkaStreamsTest, ClosedClientRefusesQueries) {
  ASSERT_TRUE(streams_->start().has_value());
  produce(1);
  run(200);
  ASSERT_TRUE(streams_->close().has_value());
  EXPECT_EQ(streams_->state(), KafkaStreamsState::NOT_RUNNING);
  auto r = streams_->query(
      StateQueryRequest::in_store_with_query("counts", KeyQuery<int32_t, int64_t>::with_key(1)));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, StreamsError::Kind::StreamsStopped);
  EXPECT_TRUE(std::filesystem::exists(root_ / "app" / "0_0" / ".checkpoint"));
}

// Proves delta 14 end to end (StateDirectoryTest.shouldInitializeStartupStateForLocalState and
// the offset sums a restarted client subscribes with): a client closed with data on disk is
// restarted over the same directory. At the new pin nothing reports the task before start() (no
// .checkpoint exists, the cache is empty), and start() opens, commits and closes its stores,
// seeding the cache with the next offset they hold (3: changelog records 0..2). At the old pin the
// .checkpoint of the close reports its last applied offset (2), before and after start().
class KafkaStreamsRestartTest : public KafkaStreamsTest,
                                public testing::WithParamInterface<KafkaPin> {};

TEST_P(KafkaStreamsRestartTest, OffsetSumsOfTheLocalStateAfterARestart) {
  const KafkaPin pin = GetParam();
  const bool new_pin = at_least(pin, KafkaPin::k2026_08_20);
  config_.kafka_pin = pin;
  config_.statestore_cache_max_bytes = 0;  // every count a changelog record
  streams_.reset();
  ClientIo io{&admin_, &fs_, nullptr, {ThreadIo{&main_, &restore_, &membership_, &collector_, {}}}};
  streams_ =
      std::make_unique<KafkaStreams>(config_, topology_, io, ProcessId::for_int(1).to_string());
  ASSERT_TRUE(streams_->start().has_value());
  for (int i = 0; i < 3; ++i) produce(42);
  run(300);
  ASSERT_TRUE(streams_->close().has_value());
  EXPECT_EQ(std::filesystem::exists(root_ / "app" / "0_0" / ".checkpoint"), !new_pin);
  streams_.reset();

  FakeConsumer main{broker_};
  FakeConsumer restore{broker_};
  FakeMembership membership;
  ClientIo again{&admin_, &fs_, nullptr, {ThreadIo{&main, &restore, &membership, &collector_, {}}}};
  KafkaStreams restarted(config_, topology_, again, ProcessId::for_int(1).to_string());
  const TaskId task{0, partition_for_key(Serde<int32_t>::serialize(42).view(), 2)};
  TaskManager& manager = restarted.threads()[0]->task_manager();
  if (new_pin) {
    EXPECT_EQ(manager.task_offset_sums().count(task), 0u) << "no cache before start";
  } else {
    manager.handle_rebalance_start();  // as a subscription does: locks the directories it reports
    EXPECT_EQ(manager.task_offset_sums().at(task), 2) << "the .checkpoint's last applied offset";
  }
  ASSERT_TRUE(restarted.start().has_value());
  manager.handle_rebalance_start();  // the thread's first subscription (re-entrant at the old pin)
  EXPECT_EQ(manager.task_offset_sums().at(task), new_pin ? 3 : 2);
  EXPECT_EQ(manager.task_offset_sums().at({0, 1 - task.partition}), 0) << "a task with no data";
}

INSTANTIATE_TEST_SUITE_P(BothPins, KafkaStreamsRestartTest,
                         testing::Values(KafkaPin::k2024_10_25, KafkaPin::k2026_08_20));

}  // namespace
}  // namespace iq
