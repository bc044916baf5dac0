// The transactional producer client and read_committed consumers over a BrokerService on a
// simulated network.
#include "cluster/sim_producer.h"

#include <gtest/gtest.h>

#include "cluster/sim_clients.h"

namespace iq::sim {
namespace {

constexpr uint64_t kSeed = 7;
const TopicPartition kTp{"t", 0};

struct World {
  World() {
    network.add_node("instance-1");
    network.add_node("instance-2");
    IQ_ASSERT(service.broker().create_topic("t", 1) == Errors::NONE);
  }
  SimConsumer consumer(IsolationLevel level, const char* name) {
    SimConsumerConfig config;
    config.isolation_level = level;
    return SimConsumer(service, "instance-2", name, config);
  }
  EventLoop loop;
  SimNetwork network{loop, base::Prng(kSeed).split("network"),
                     LinkConfig{.delay_ms_min = 5, .delay_ms_max = 5}};
  BrokerService service{loop, network};
};

std::vector<int64_t> poll_offsets(SimConsumer& c) {
  std::vector<int64_t> out;
  for (const auto& r : c.poll(100)) out.push_back(r.offset);
  return out;
}

SimProducerConfig txn_config(const char* id) {
  return SimProducerConfig{.transactional_id = id, .transaction_timeout_ms = 10'000};
}

TEST(SimTransactionalProducerTest, ReadCommittedConsumersSeeOnlyCommittedRecordsAndSkipMarkers) {
  // A committed and an aborted transaction through the client: a read_committed consumer polls
  // the committed records only and its position moves past both markers to the log end; a
  // read_uncommitted one polls every data record, never a marker.
  World w;
  SimTransactionalProducer p(w.service, "instance-1", txn_config("app-1"));
  ASSERT_TRUE(p.init_transactions()) << "seed " << kSeed;
  ASSERT_TRUE(p.begin_transaction());
  EXPECT_TRUE(p.in_transaction());
  ASSERT_EQ(*p.send("t", 0, Bytes("k"), Bytes("a"), 0, {}), 0);
  ASSERT_EQ(*p.send("t", 0, Bytes("k"), Bytes("b"), 0, {}), 1);
  ASSERT_TRUE(p.commit_transaction());  // marker @2
  ASSERT_TRUE(p.begin_transaction());
  ASSERT_EQ(*p.send("t", 0, Bytes("k"), Bytes("c"), 0, {}), 3);
  ASSERT_TRUE(p.abort_transaction());  // marker @4
  EXPECT_EQ(p.state(), SimTransactionalProducer::State::READY);

  SimConsumer committed = w.consumer(IsolationLevel::READ_COMMITTED, "rc");
  SimConsumer uncommitted = w.consumer(IsolationLevel::READ_UNCOMMITTED, "ru");
  committed.assign({kTp});
  (void)committed.poll(0);  // the first poll sends the first fetch
  uncommitted.assign({kTp});
  (void)uncommitted.poll(0);  // the first poll sends the first fetch
  (void)w.loop.run_until(base::Instant::from_ms(100));
  EXPECT_EQ(poll_offsets(committed), (std::vector<int64_t>{0, 1})) << "seed " << kSeed;
  EXPECT_EQ(committed.position(kTp), std::optional<int64_t>(5));
  EXPECT_EQ(poll_offsets(uncommitted), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(uncommitted.position(kTp), std::optional<int64_t>(5));

  SimAdmin admin(w.service, w.network, "instance-2");
  EXPECT_EQ(admin.list_end_offsets({kTp}, IsolationLevel::READ_COMMITTED)->at(kTp), 5);
}

TEST(SimTransactionalProducerTest, AnOpenTransactionHoldsReadCommittedAtTheLastStableOffset) {
  // While a transaction is open, read_committed stops before its first record and the
  // READ_COMMITTED end offset is that LSO; the commit releases both.
  World w;
  SimTransactionalProducer p(w.service, "instance-1", txn_config("app-1"));
  ASSERT_TRUE(p.init_transactions());
  ASSERT_TRUE(w.service.broker().produce(kTp, Bytes("x"), Bytes("x"), 0, {}, 0));  // @0
  ASSERT_TRUE(p.begin_transaction());
  ASSERT_EQ(*p.send("t", 0, Bytes("k"), Bytes("a"), 0, {}), 1);
  SimConsumer committed = w.consumer(IsolationLevel::READ_COMMITTED, "rc");
  committed.assign({kTp});
  (void)committed.poll(0);  // the first poll sends the first fetch
  (void)w.loop.run_until(base::Instant::from_ms(100));
  EXPECT_EQ(poll_offsets(committed), (std::vector<int64_t>{0})) << "seed " << kSeed;
  EXPECT_EQ(committed.position(kTp), std::optional<int64_t>(1));
  SimAdmin admin(w.service, w.network, "instance-2");
  EXPECT_EQ(admin.list_end_offsets({kTp}, IsolationLevel::READ_COMMITTED)->at(kTp), 1);
  EXPECT_EQ(admin.list_end_offsets({kTp}, IsolationLevel::READ_UNCOMMITTED)->at(kTp), 2);
  ASSERT_TRUE(p.commit_transaction());
  (void)w.loop.run_until(base::Instant::from_ms(200));
  EXPECT_EQ(poll_offsets(committed), (std::vector<int64_t>{1}));
  EXPECT_EQ(committed.position(kTp), std::optional<int64_t>(3));
}

TEST(SimTransactionalProducerTest, ANewIncarnationFencesTheOldOneWhichEndsFatally) {
  // A second producer with the same transactional.id aborts the first one's open transaction;
  // the first one's next send fails with InvalidProducerEpoch (abortable), its abort with
  // ProducerFenced, and from then on every call is ProducerFenced. Its aborted write is never
  // read by read_committed.
  World w;
  SimTransactionalProducer zombie(w.service, "instance-1", txn_config("app-1"));
  ASSERT_TRUE(zombie.init_transactions());
  ASSERT_TRUE(zombie.begin_transaction());
  ASSERT_TRUE(zombie.send("t", 0, Bytes("k"), Bytes("zombie"), 0, {}));
  SimTransactionalProducer fresh(w.service, "instance-2", txn_config("app-1"));
  ASSERT_TRUE(fresh.init_transactions()) << "seed " << kSeed;
  EXPECT_EQ(fresh.producer_id_and_epoch().epoch, 2);

  auto late = zombie.send("t", 0, Bytes("k"), Bytes("late"), 0, {});
  ASSERT_FALSE(late.has_value());
  EXPECT_EQ(late.error().kind, ProducerError::Kind::InvalidProducerEpoch)
      << late.error().to_string();
  EXPECT_EQ(zombie.state(), SimTransactionalProducer::State::ABORTABLE_ERROR);
  EXPECT_FALSE(zombie.commit_transaction().has_value());
  auto abort = zombie.abort_transaction();
  ASSERT_FALSE(abort.has_value());
  EXPECT_EQ(abort.error().kind, ProducerError::Kind::ProducerFenced);
  EXPECT_EQ(zombie.state(), SimTransactionalProducer::State::FATAL_ERROR);
  EXPECT_EQ(zombie.begin_transaction().error().kind, ProducerError::Kind::ProducerFenced);

  ASSERT_TRUE(fresh.begin_transaction());
  ASSERT_TRUE(fresh.send("t", 0, Bytes("k"), Bytes("fresh"), 0, {}));
  ASSERT_TRUE(fresh.commit_transaction());
  SimConsumer committed = w.consumer(IsolationLevel::READ_COMMITTED, "rc");
  committed.assign({kTp});
  (void)committed.poll(0);  // the first poll sends the first fetch
  (void)w.loop.run_until(base::Instant::from_ms(100));
  auto records = committed.poll(100);
  ASSERT_EQ(records.size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(records[0].value, Bytes("fresh"));
}

TEST(SimTransactionalProducerTest, TheBrokerAbortsAStoppedProducersTransactionOnTheEventLoop) {
  // A producer that stops inside a transaction (a crash) leaves it open; the BrokerService's
  // txn tick aborts it at the first scan after transaction.timeout.ms, read_committed moves on,
  // and the producer, if it comes back, is fenced.
  World w;
  SimTransactionalProducer p(w.service, "instance-1", txn_config("app-1"));
  ASSERT_TRUE(p.init_transactions());
  ASSERT_TRUE(p.begin_transaction());
  ASSERT_TRUE(p.send("t", 0, Bytes("k"), Bytes("a"), 0, {}));
  EXPECT_EQ(*w.service.broker().last_stable_offset(kTp), 0);
  (void)w.loop.run_until(base::Instant::from_ms(19'999));
  EXPECT_EQ(*w.service.broker().last_stable_offset(kTp), 0) << "seed " << kSeed;
  (void)w.loop.run_until(base::Instant::from_ms(20'000));  // expiry 10 000: the 20 000 scan
  EXPECT_EQ(*w.service.broker().last_stable_offset(kTp), 2);
  ASSERT_EQ(w.service.txn_events().size(), 1u);
  EXPECT_NE(w.service.txn_events()[0].what.find("timed out"), std::string::npos);
  auto commit = p.commit_transaction();
  ASSERT_FALSE(commit.has_value());
  EXPECT_EQ(commit.error().kind, ProducerError::Kind::ProducerFenced);
}

TEST(SimTransactionalProducerTest, AZombieMembersOffsetsAreRefusedAsCommitFailed) {
  // sendOffsetsToTransaction with group metadata from a generation the group has left behind
  // fails with CommitFailed and leaves the transaction abortable; the abort then succeeds.
  World w;
  GroupCoordinator& coord = w.service.broker().coordinator();
  ASSERT_FALSE(coord.join_group("g", "", "c", Bytes("m"), 45'000, 300'000, 0));
  w.service.after_call();  // plans the coordinator's tick at the end of the initial delay
  (void)w.loop.run_until(base::Instant::from_ms(4'000));  // the 3 s initial delay
  const std::string member = coord.members("g").at(0);
  SimTransactionalProducer p(w.service, "instance-1", txn_config("app-1"));
  ASSERT_TRUE(p.init_transactions());
  ASSERT_TRUE(p.begin_transaction());
  ASSERT_TRUE(p.send("t", 0, Bytes("k"), Bytes("a"), 0, {}));
  auto stale = p.send_offsets_to_transaction({{kTp, 1}}, {"g", 0, member});
  ASSERT_FALSE(stale.has_value());
  EXPECT_EQ(stale.error().kind, ProducerError::Kind::CommitFailed) << stale.error().to_string();
  EXPECT_EQ(p.state(), SimTransactionalProducer::State::ABORTABLE_ERROR);
  ASSERT_TRUE(p.abort_transaction());
  EXPECT_FALSE(w.service.broker().committed("g", kTp).has_value());
  ASSERT_TRUE(p.begin_transaction());
  ASSERT_TRUE(p.send_offsets_to_transaction({{kTp, 1}}, {"g", coord.generation("g"), member}));
  ASSERT_TRUE(p.commit_transaction());
  EXPECT_EQ(w.service.broker().committed("g", kTp), std::optional<OffsetAndMetadata>(1));
}

}  // namespace
}  // namespace iq::sim
