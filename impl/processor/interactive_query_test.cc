// KafkaStreams#query's order of checks and per-partition outcomes (docs/iqv2-semantics.md §5), with
// Kafka's IQv2IntegrationTest facts: a source KTable
// "kv-store" (persistent timestamped RocksDB, caching and logging on) over IQV2_BASIC_3.

#include <gtest/gtest.h>

#include "iq/key_query.h"
#include "processor/interactive_query.h"
#include "processor/standby_task.h"
#include "processor/stream_task.h"
#include "processor/test_fakes.h"

namespace iq {
namespace {

using namespace testing_fakes;  // NOLINT: test doubles only

class InteractiveQueryTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ =
        std::filesystem::path(testing::TempDir()) /
        ("iqsim-iq-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(root_);
    instance_ = std::make_unique<Instance>(broker_, root_, /*consistency=*/false);
    topology_.kind = TopologyKind::SourceTable;
    topology_.source_topic = "input-topic";
    topology_.source_partitions = 2;
    topology_.store_name = "kv-store";
    for (int32_t p = 0; p < 2; ++p) {
      TaskEnvironment env = instance_->env;
      env.task_dir = (root_ / "app" / ("0_" + std::to_string(p))).string();
      tasks_.push_back(std::make_unique<StreamTask>(TaskId{0, p}, topology_, env));
      ASSERT_TRUE(tasks_.back()->initialize().has_value());
      ASSERT_TRUE(tasks_.back()->complete_restoration().has_value());
    }
    // IQV2_BASIC_3: key = value = i, partition = i % 2.
    int64_t next[2] = {0, 0};
    for (int32_t i = 0; i < 3; ++i) {
      const int32_t p = i % 2;
      tasks_[p]->add_records({ConsumerRecord{"input-topic",
                                             p,
                                             next[p]++,
                                             i,
                                             Serde<int32_t>::serialize(i),
                                             Serde<int64_t>::serialize(i),
                                             {}}});
      ASSERT_TRUE(*tasks_[p]->process_one());
    }
  }
  void TearDown() override {
    tasks_.clear();
    std::filesystem::remove_all(root_);
  }

  QueryContext context(KafkaStreamsState client, ThreadState thread) {
    QueryContext c{{"kv-store"}, {"global-store"}, client, {ThreadView{thread, {}}}};
    for (auto& t : tasks_) c.threads[0].tasks.push_back(t.get());
    return c;
  }
  static StateQueryRequest key_request(int32_t key) {
    return StateQueryRequest::in_store_with_query("kv-store",
                                                  KeyQuery<int32_t, int64_t>::with_key(key));
  }

  std::filesystem::path root_;
  FakeBroker broker_;
  std::unique_ptr<Instance> instance_;
  TopologyConfig topology_;
  std::vector<std::unique_ptr<StreamTask>> tasks_;
};

// shouldFailUnknownStore: the store check comes before the state checks.
TEST_F(InteractiveQueryTest, UnknownStoreFailsEvenBeforeStart) {
  auto r = run_interactive_query(context(KafkaStreamsState::CREATED, ThreadState::CREATED),
                                 StateQueryRequest::in_store_with_query(
                                     "unknown-store", KeyQuery<int32_t, int64_t>::with_key(1)));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, StreamsError::Kind::UnknownStateStore);
}

// shouldFailNotStarted and shouldFailStopped.
TEST_F(InteractiveQueryTest, NotStartedAndStoppedClientsThrow) {
  auto created = run_interactive_query(context(KafkaStreamsState::CREATED, ThreadState::CREATED),
                                       key_request(1));
  ASSERT_FALSE(created.has_value());
  EXPECT_EQ(created.error().kind, StreamsError::Kind::StreamsNotStarted);
  for (auto s : {KafkaStreamsState::PENDING_SHUTDOWN, KafkaStreamsState::NOT_RUNNING,
                 KafkaStreamsState::PENDING_ERROR, KafkaStreamsState::ERROR}) {
    auto stopped = run_interactive_query(context(s, ThreadState::DEAD), key_request(1));
    ASSERT_FALSE(stopped.has_value());
    EXPECT_EQ(stopped.error().kind, StreamsError::Kind::StreamsStopped) << to_string(s);
  }
}

// shouldFailNotActive: requireActive while the thread is PARTITIONS_ASSIGNED, Kafka's exact
// message.
TEST_F(InteractiveQueryTest, RequireActiveFailsWhileThreadIsNotRunning) {
  auto r = run_interactive_query(
      context(KafkaStreamsState::REBALANCING, ThreadState::PARTITIONS_ASSIGNED),
      key_request(1).with_partitions({0, 1}).require_active());
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->partition_results().size(), 2u);
  for (const auto& [p, qr] : r->partition_results()) {
    EXPECT_EQ(qr.failure_reason(), FailureReason::NOT_ACTIVE);
    EXPECT_EQ(*qr.failure_message(),
              "Query requires a running active task, but partition was in state "
              "PARTITIONS_ASSIGNED and was active.");
    EXPECT_FALSE(qr.position().has_value());
  }
}

// shouldQuerySpecificActivePartitionStores and shouldQueryAllStalePartitionStores.
TEST_F(InteractiveQueryTest, PartitionSelectionIsExact) {
  auto one = run_interactive_query(context(KafkaStreamsState::RUNNING, ThreadState::RUNNING),
                                   key_request(1).with_partitions({1}));
  ASSERT_TRUE(one.has_value());
  ASSERT_EQ(one->partition_results().size(), 1u);
  EXPECT_EQ(one->partition_results().begin()->first, 1);
  EXPECT_EQ(one->partition_results().at(1).result<std::optional<int64_t>>(),
            std::optional<int64_t>(1));
  auto all = run_interactive_query(context(KafkaStreamsState::RUNNING, ThreadState::RUNNING),
                                   key_request(1));
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->partition_results().size(), 2u);
}

// A named partition no local task holds answers NOT_PRESENT (DOES_NOT_EXIST is never produced).
TEST_F(InteractiveQueryTest, PartitionNotHostedIsNotPresent) {
  auto r = run_interactive_query(context(KafkaStreamsState::RUNNING, ThreadState::RUNNING),
                                 key_request(1).with_partitions({0, 5}));
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->partition_results().at(0).is_success());
  EXPECT_EQ(r->partition_results().at(5).failure_reason(), FailureReason::NOT_PRESENT);
  EXPECT_EQ(*r->partition_results().at(5).failure_message(),
            "The requested partition was not present at the time of the query.");
}

// Kafka quirk 3 (docs/iqv2-semantics.md §10): requireActive replaces the caller's bound with
// unbounded.
TEST_F(InteractiveQueryTest, RequireActiveDropsTheBound) {
  const auto far = PositionBound::at(Position::from_map({{"input-topic", {{0, 100}}}}));
  auto bounded =
      run_interactive_query(context(KafkaStreamsState::RUNNING, ThreadState::RUNNING),
                            key_request(0).with_partitions({0}).with_position_bound(far));
  auto active = run_interactive_query(
      context(KafkaStreamsState::RUNNING, ThreadState::RUNNING),
      key_request(0).with_partitions({0}).with_position_bound(far).require_active());
  ASSERT_TRUE(bounded.has_value());
  ASSERT_TRUE(active.has_value());
  EXPECT_EQ(bounded->partition_results().at(0).failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  EXPECT_TRUE(active->partition_results().at(0).is_success());
}

// A standby answers NOT_ACTIVE under requireActive even when its thread is RUNNING.
TEST_F(InteractiveQueryTest, StandbyIsNotActive) {
  TaskEnvironment env = instance_->env;
  env.task_dir = (root_ / "standby" / "0_0").string();
  StandbyTask standby({0, 0}, topology_, env);
  ASSERT_TRUE(standby.initialize().has_value());
  QueryContext c{
      {"kv-store"}, {}, KafkaStreamsState::RUNNING, {ThreadView{ThreadState::RUNNING, {&standby}}}};
  auto r = run_interactive_query(c, key_request(0).require_active());
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r->partition_results().at(0).failure_message(),
            "Query requires a running active task, but partition was in state RUNNING and was not "
            "active.");
}

// Global stores always answer a global UNKNOWN_QUERY_TYPE (KAFKA-13523).
TEST_F(InteractiveQueryTest, GlobalStoreIsRejected) {
  auto r = run_interactive_query(context(KafkaStreamsState::RUNNING, ThreadState::RUNNING),
                                 StateQueryRequest::in_store_with_query(
                                     "global-store", KeyQuery<int32_t, int64_t>::with_key(1)));
  ASSERT_TRUE(r.has_value());
  ASSERT_TRUE(r->global_result().has_value());
  EXPECT_TRUE(r->partition_results().empty());
  EXPECT_EQ(*r->global_result()->failure_message(),
            "Global stores do not yet support the KafkaStreams#query API. Use KafkaStreams#store "
            "instead.");
  EXPECT_FALSE(r->position().has_value());
}

}  // namespace
}  // namespace iq

// ---- The 2026-08-20 pin ----
namespace iq {
namespace {

TEST(QueryConfigForTest, TheLevelReachesTheStoresOnlyAtTheNewPin) {
  // Proves pin delta 6 (99611aa06f): at the new pin a request's level wins over the client's
  // default.interactive.query.isolation.level, and the default applies to a request without one;
  // at the old pin there is no level (READ_UNCOMMITTED, which no store reads), whatever is set.
  QueryContext c{{"kv-store"}, {}, KafkaStreamsState::RUNNING, {}};
  const auto plain =
      StateQueryRequest::in_store_with_query("kv-store", KeyQuery<int32_t, int64_t>::with_key(1));
  const auto committed = plain.with_isolation_level(IsolationLevel::READ_COMMITTED);
  const auto uncommitted = plain.with_isolation_level(IsolationLevel::READ_UNCOMMITTED);
  c.default_isolation_level = IsolationLevel::READ_COMMITTED;
  EXPECT_EQ(query_config_for(c, plain).isolation_level(), IsolationLevel::READ_UNCOMMITTED);
  EXPECT_EQ(query_config_for(c, committed).isolation_level(), IsolationLevel::READ_UNCOMMITTED);
  c.kafka_pin = KafkaPin::k2026_08_20;
  EXPECT_EQ(query_config_for(c, plain).isolation_level(), IsolationLevel::READ_COMMITTED);
  EXPECT_EQ(query_config_for(c, uncommitted).isolation_level(), IsolationLevel::READ_UNCOMMITTED);
  c.default_isolation_level = IsolationLevel::READ_UNCOMMITTED;
  EXPECT_EQ(query_config_for(c, plain).isolation_level(), IsolationLevel::READ_UNCOMMITTED);
  EXPECT_EQ(query_config_for(c, committed).isolation_level(), IsolationLevel::READ_COMMITTED);
  // Every modifier keeps the level, as Kafka's copies do.
  EXPECT_EQ(committed.with_partitions({0})
                .require_active()
                .enable_execution_info()
                .with_position_bound(PositionBound::unbounded())
                .with_all_partitions()
                .isolation_level(),
            IsolationLevel::READ_COMMITTED);
  EXPECT_FALSE(plain.isolation_level().has_value());
}

}  // namespace

TEST_F(InteractiveQueryTest, ReadCommittedAnswersAsReadUncommittedWithoutTransactionalStores) {
  // Proves delta 6's consequence at the new pin: with transactional stores off (the only stores
  // impl/ has), READ_COMMITTED reads what READ_UNCOMMITTED reads, with the same positions; and
  // the result is made by the pin's StateQueryResult.
  QueryContext c = context(KafkaStreamsState::RUNNING, ThreadState::RUNNING);
  c.kafka_pin = KafkaPin::k2026_08_20;
  for (int32_t key : {0, 1, 2, 7}) {
    auto rc = run_interactive_query(
        c, key_request(key).with_isolation_level(IsolationLevel::READ_COMMITTED));
    auto ru = run_interactive_query(c, key_request(key));
    ASSERT_TRUE(rc.has_value() && ru.has_value());
    EXPECT_EQ(rc->kafka_pin(), KafkaPin::k2026_08_20);
    ASSERT_EQ(rc->partition_results().size(), ru->partition_results().size());
    for (const auto& [p, r] : ru->partition_results()) {
      const QueryResult& other = rc->partition_results().at(p);
      EXPECT_EQ(other.result<std::optional<int64_t>>(), r.result<std::optional<int64_t>>());
      EXPECT_EQ(other.position(), r.position());
    }
  }
}

TEST_F(InteractiveQueryTest, OnlyPartitionResultKeepsANotActiveFailureAtTheNewPin) {
  // Proves delta 16 through KafkaStreams#query: requireActive on a thread that is not RUNNING
  // gives NOT_ACTIVE for the one named partition; getOnlyPartitionResult drops it at the old pin
  // (null: "key absent", quirk 9) and returns it at the new pin.
  for (KafkaPin pin : {KafkaPin::k2024_10_25, KafkaPin::k2026_08_20}) {
    QueryContext c = context(KafkaStreamsState::REBALANCING, ThreadState::PARTITIONS_ASSIGNED);
    c.kafka_pin = pin;
    auto r = run_interactive_query(c, key_request(1).with_partitions({1}).require_active());
    ASSERT_TRUE(r.has_value());
    auto only = r->only_partition_result<int64_t>();
    ASSERT_TRUE(only.has_value());
    if (pin == KafkaPin::k2026_08_20) {
      ASSERT_NE(*only, nullptr);
      EXPECT_EQ((*only)->failure_reason(), FailureReason::NOT_ACTIVE);
    } else {
      EXPECT_EQ(*only, nullptr);
    }
  }
}

}  // namespace iq
