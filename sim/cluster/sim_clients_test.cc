// Unit tests of the client adapters over a BrokerService on a simulated network.
#include "cluster/sim_clients.h"

#include <gtest/gtest.h>

namespace iq::sim {
namespace {

struct World {
  World() {
    network.add_node("instance-1");
    IQ_ASSERT(service.broker().create_topic("t", 1) == Errors::NONE);
  }
  void append(int n) {
    for (int i = 0; i < n; ++i) {
      auto o = service.broker().produce({"t", 0}, Bytes("k"), Bytes("v"), 0, {}, service.now_ms());
      IQ_ASSERT(o.has_value());
    }
  }
  EventLoop loop;
  SimNetwork network{loop, base::Prng(7).split("network"),
                     LinkConfig{.delay_ms_min = 5, .delay_ms_max = 5}};
  BrokerService service{loop, network};
};

// Proves the consumer's first poll sends a fetch that fills the buffer over the network and poll()
// hands records out in offset order, advancing the position.
TEST(SimConsumerTest, FetchesOverTheNetworkAndPollsInOrder) {
  World w;
  w.append(3);
  SimConsumer c(w.service, "instance-1", "c");
  c.assign({{"t", 0}});
  EXPECT_TRUE(c.poll(10).empty());  // nothing has arrived yet
  (void)w.loop.run_until(base::Instant::from_ms(30));
  auto records = c.poll(10);
  ASSERT_EQ(records.size(), 3u);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(records[static_cast<size_t>(i)].offset, i);
  EXPECT_EQ(c.position({"t", 0}), std::optional<int64_t>(3));
}

// Proves a seek discards data already in flight, so the next poll starts at the sought offset.
TEST(SimConsumerTest, SeekDiscardsInFlightData) {
  World w;
  w.append(5);
  SimConsumer c(w.service, "instance-1", "c");
  c.assign({{"t", 0}});
  EXPECT_TRUE(c.poll(10).empty());  // sends the fetch from 0
  (void)w.loop.run_until(base::Instant::from_ms(3));
  ASSERT_TRUE(c.fetch_in_flight());
  c.seek({"t", 0}, 3);
  (void)w.loop.run_until(base::Instant::from_ms(60));
  auto records = c.poll(10);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].offset, 3);
}

// Proves a cut link delivers nothing, and a healed one resumes at the next poll.
TEST(SimConsumerTest, CutLinkDeliversNothing) {
  World w;
  w.append(2);
  SimConsumerConfig config;
  config.request_timeout_ms = 100;
  SimConsumer c(w.service, "instance-1", "c", config);
  c.assign({{"t", 0}});
  w.network.cut("instance-1", BrokerService::kNode);
  EXPECT_TRUE(c.poll(10).empty());
  (void)w.loop.run_until(base::Instant::from_ms(500));
  EXPECT_TRUE(c.poll(10).empty());
  EXPECT_EQ(c.fetches_sent(), 0u) << "a fetch went out on a cut link";
  w.network.heal_all();
  EXPECT_TRUE(c.poll(10).empty());
  (void)w.loop.run_until(base::Instant::from_ms(520));
  EXPECT_EQ(c.poll(10).size(), 2u);
}

// Proves a fetch whose connection a cut broke is sent again at the first poll after the heal
// (Kafka fails requests in flight on a closed connection), not after the 30 s request timeout;
// and that nothing is sent while the link is cut.
TEST(SimConsumerTest, FetchLostToACutIsResentRightAfterTheHeal) {
  World w;
  w.append(2);
  SimConsumer c(w.service, "instance-1", "c");  // request.timeout.ms 30 000
  c.assign({{"t", 0}});
  EXPECT_TRUE(c.poll(10).empty());
  (void)w.loop.run_until(base::Instant::from_ms(2));  // the first fetch is on the wire
  ASSERT_EQ(c.fetches_sent(), 1u);
  w.network.cut("instance-1", BrokerService::kNode);
  w.network.cut(BrokerService::kNode, "instance-1");
  (void)w.loop.run_until(base::Instant::from_ms(500));
  EXPECT_TRUE(c.poll(10).empty());
  EXPECT_EQ(c.fetches_sent(), 1u) << "a fetch went out on a cut link";
  w.network.heal_all();
  EXPECT_TRUE(c.poll(10).empty());
  (void)w.loop.run_until(base::Instant::from_ms(520));
  EXPECT_EQ(c.poll(10).size(), 2u) << "the lost fetch was not resent after the heal";
}

// Proves the fetch is a long poll (Kafka's DelayedFetch): at the log end the broker holds it and
// answers when a record arrives, not at fetch.max.wait.ms; the consumer's wakeup fires then; and
// an answer with nothing (the wait expired) is followed by the next fetch at once.
TEST(SimConsumerTest, LongPollAnswersWhenDataArrives) {
  World w;
  SimConsumer c(w.service, "instance-1", "c");  // fetch.max.wait.ms 500
  std::vector<int64_t> woken;
  c.set_wakeup([&] { woken.push_back(w.service.now_ms()); });
  c.assign({{"t", 0}});
  EXPECT_TRUE(c.poll(10).empty());
  (void)w.loop.run_until(base::Instant::from_ms(200));
  EXPECT_EQ(w.service.fetches_parked(), 1u);
  EXPECT_EQ(c.fetches_sent(), 1u) << "the consumer fetched on a tick";
  w.append(1);  // answered at once: back at the consumer at 205
  EXPECT_EQ(w.service.fetches_parked(), 0u);
  (void)w.loop.run_until(base::Instant::from_ms(205));
  EXPECT_EQ(woken, (std::vector<int64_t>{205}));
  ASSERT_EQ(c.poll(10).size(), 1u);  // and the next fetch goes out
  EXPECT_EQ(c.fetches_sent(), 2u);
  // Nothing more: the fetch sent at 205 waits until 210 + 500, comes back empty at 715 and the
  // next one goes out then, without a poll and without waking the thread.
  (void)w.loop.run_until(base::Instant::from_ms(714));
  EXPECT_EQ(c.fetches_sent(), 2u);
  (void)w.loop.run_until(base::Instant::from_ms(716));
  EXPECT_EQ(c.fetches_sent(), 3u);
  EXPECT_EQ(woken.size(), 1u) << "an empty answer woke the thread";
}

// Proves Kafka's one fetch in flight per node: a partition assigned while a fetch is parked is
// fetched only once that fetch came back (here at its fetch.max.wait.ms), not beside it.
TEST(SimConsumerTest, OneFetchInFlightAtATime) {
  World w;
  IQ_ASSERT(w.service.broker().create_topic("u", 1) == Errors::NONE);
  IQ_ASSERT(w.service.broker().produce({"u", 0}, Bytes("k"), Bytes("v"), 0, {}, 0).has_value());
  SimConsumerConfig config;
  config.fetch_max_wait_ms = 100;
  SimConsumer c(w.service, "instance-1", "c", config);
  c.assign({{"t", 0}});
  EXPECT_TRUE(c.poll(10).empty());  // parked at the broker from 5 to 105
  (void)w.loop.run_until(base::Instant::from_ms(20));
  c.assign({{"t", 0}, {"u", 0}});
  EXPECT_TRUE(c.poll(10).empty());
  EXPECT_EQ(c.fetches_sent(), 1u);
  (void)w.loop.run_until(base::Instant::from_ms(109));
  EXPECT_EQ(c.buffered({"u", 0}), 0u) << "u-0 was fetched beside the parked fetch";
  (void)w.loop.run_until(base::Instant::from_ms(121));  // empty at 110, u-0 and t-0 again at once
  EXPECT_EQ(c.buffered({"u", 0}), 1u);
}

// Proves a read_committed long poll waits for the last stable offset, not the high watermark:
// an open transaction's record leaves it parked, and the commit marker completes it.
TEST(SimConsumerTest, ReadCommittedLongPollCompletesWhenTheLsoMoves) {
  World w;
  SimBroker& broker = w.service.broker();
  SimConsumerConfig config;
  config.isolation_level = IsolationLevel::READ_COMMITTED;
  SimConsumer c(w.service, "instance-1", "c", config);
  c.assign({{"t", 0}});
  EXPECT_TRUE(c.poll(10).empty());
  (void)w.loop.run_until(base::Instant::from_ms(50));
  auto producer = broker.init_producer_id("tx", 60'000, 50);
  ASSERT_TRUE(producer.has_value());
  ASSERT_EQ(broker.add_partitions_to_txn("tx", *producer, {{"t", 0}}, 50), Errors::NONE);
  ASSERT_TRUE(
      broker.produce_transactional("tx", *producer, {"t", 0}, Bytes("k"), Bytes("v"), 0, {}, 50)
          .has_value());
  EXPECT_EQ(w.service.fetches_parked(), 1u) << "an uncommitted record completed the fetch";
  (void)w.loop.run_until(base::Instant::from_ms(100));
  ASSERT_EQ(broker.end_txn("tx", *producer, ControlRecordType::COMMIT, 100), Errors::NONE);
  EXPECT_EQ(w.service.fetches_parked(), 0u) << "the commit marker left the fetch parked";
  (void)w.loop.run_until(base::Instant::from_ms(105));
  EXPECT_EQ(c.poll(10).size(), 1u);
}

// Proves the admin and the collector fail while the instance's link to the broker is cut.
TEST(SimConsumerTest, AdminAndCollectorFailWhileCut) {
  World w;
  SimAdmin admin(w.service, w.network, "instance-1");
  SimRecordCollector collector(w.service, w.network, "instance-1");
  EXPECT_TRUE(collector.send("t", 0, Bytes("k"), Bytes("v"), 0, {}).has_value());
  auto end = admin.end_offsets({{"t", 0}});
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->at({"t", 0}), 1);
  w.network.isolate("instance-1");
  EXPECT_FALSE(collector.send("t", 0, Bytes("k"), Bytes("v"), 0, {}).has_value());
  EXPECT_FALSE(admin.end_offsets({{"t", 0}}).has_value());
}

// Proves the subscription envelope carries owned partitions beside the user data, both ways.
TEST(SimGroupMembershipTest, SubscriptionEnvelopeRoundTrips) {
  const std::vector<TopicPartition> owned{{"words", 0}, {"words", 3}};
  auto decoded = decode_subscription(encode_subscription(owned, Bytes("user-data")));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->owned_partitions, owned);
  EXPECT_EQ(decoded->user_data, Bytes("user-data"));
  EXPECT_FALSE(decode_subscription(Bytes("xy")).has_value());
}

// A listener that gives every member the same bytes and records the generations it was assigned.
struct RecordingListener final : RebalanceListener {
  Bytes subscription_user_data() override { return Bytes("u"); }
  std::vector<TopicPartition> owned_partitions() override { return {}; }
  base::Expected<std::map<std::string, Bytes>, StreamsError> assign(
      const std::vector<JoinedMember>& members) override {
    std::map<std::string, Bytes> out;
    for (const JoinedMember& m : members) out[m.member_id] = Bytes("a");
    return out;
  }
  Status on_assignment(int32_t generation, const Bytes&) override {
    generations.push_back(generation);
    return ok_status();
  }
  Status on_partitions_lost() override { return ok_status(); }
  std::vector<int32_t> generations;
};

// Polls the membership every 10 ms (a stream thread's loop) until `until_ms`.
void poll_until(World& w, SimGroupMembership& m, RebalanceListener& listener, int64_t until_ms) {
  while (w.service.now_ms() < until_ms) {
    (void)w.loop.run_until(base::Instant::from_ms(w.service.now_ms() + 10));
    m.poll(listener);
  }
}

// Proves a JoinGroup whose answer a cut dropped is failed as disconnected rather than waited on
// for its 305 s timeout, that nothing is sent while the link stays cut, and that after the heal
// the member rejoins (as a new member: it never learned its id) and is assigned once the lost
// member expires, a session timeout after its join phase ended.
TEST(SimGroupMembershipTest, JoinGroupAnswerLostToACutIsRetriedAfterHeal) {
  World w;
  SimMembershipConfig config;
  config.group_id = "g";
  config.client_id = "c";
  config.session_timeout_ms = 6'000;
  config.heartbeat_interval_ms = 2'000;
  SimGroupMembership m(w.service, w.network, "instance-1", config);
  RecordingListener listener;
  const GroupCoordinator& coordinator = w.service.broker().coordinator();
  poll_until(w, m, listener, 500);
  ASSERT_EQ(coordinator.members("g"), (std::vector<std::string>{"c-1"}));
  w.network.isolate("instance-1");
  const uint64_t sent_before_cut = w.network.stats("instance-1", BrokerService::kNode).sent;

  // The join phase ends at ~3 005 ms (initial delay) and its answer is dropped.
  poll_until(w, m, listener, 4'000);
  EXPECT_EQ(coordinator.generation("g"), 1);
  EXPECT_EQ(m.generation(), kNoGeneration);
  EXPECT_EQ(m.requests_disconnected(), 1u);
  EXPECT_EQ(w.network.stats("instance-1", BrokerService::kNode).sent, sent_before_cut)
      << "a request went out on a cut link";

  w.network.heal_node("instance-1");
  poll_until(w, m, listener, 4'020);
  EXPECT_EQ(coordinator.members("g"), (std::vector<std::string>{"c-1", "c-2"}));
  poll_until(w, m, listener, 8'900);
  EXPECT_FALSE(m.stable()) << "assigned before the lost member c-1 expired";
  poll_until(w, m, listener, 9'100);  // c-1 expires at ~3 005 + 6 000 ms
  EXPECT_TRUE(m.stable());
  EXPECT_EQ(m.member_id(), "c-2");
  EXPECT_EQ(m.generation(), 2);
  EXPECT_EQ(listener.generations, (std::vector<int32_t>{2}));
}

// A listener whose subscription changes at every rejoin, as Streams' does (its unique field).
struct RejoiningListener final : RebalanceListener {
  Bytes subscription_user_data() override { return Bytes("u" + std::to_string(++joins)); }
  std::vector<TopicPartition> owned_partitions() override { return {}; }
  base::Expected<std::map<std::string, Bytes>, StreamsError> assign(
      const std::vector<JoinedMember>& members) override {
    std::map<std::string, Bytes> out;
    for (const JoinedMember& m : members) out[m.member_id] = Bytes("a");
    return out;
  }
  Status on_assignment(int32_t generation, const Bytes&) override {
    generations.push_back(generation);
    return ok_status();
  }
  Status on_partitions_lost() override { return ok_status(); }
  int joins = 0;
  std::vector<int32_t> generations;
};

// Proves a follower's JoinGroup is answered when it replaced a SyncGroup that a cut left parked at
// the broker: the rejoin starts a rebalance whose REBALANCE_IN_PROGRESS goes to that old SyncGroup,
// and that answer must not take the JoinGroup's place (it did: the JoinGroup was then never
// answered, and the member waited its 305 s timeout; seed 865 of kafka_2026.toml at the new pin).
TEST(SimGroupMembershipTest, RejoinOverASyncGroupLostToACutIsAnswered) {
  World w;
  w.network.add_node("instance-2");
  SimMembershipConfig config;
  config.group_id = "g";
  config.session_timeout_ms = 6'000;
  config.heartbeat_interval_ms = 2'000;
  config.client_id = "leader";
  SimGroupMembership leader(w.service, w.network, "instance-2", config);
  config.client_id = "follower";
  SimGroupMembership follower(w.service, w.network, "instance-1", config);
  RejoiningListener leader_listener;
  RejoiningListener follower_listener;
  const GroupCoordinator& coordinator = w.service.broker().coordinator();
  auto poll_both_until = [&](int64_t until_ms) {
    while (w.service.now_ms() < until_ms) {
      (void)w.loop.run_until(base::Instant::from_ms(w.service.now_ms() + 10));
      leader.poll(leader_listener);
      follower.poll(follower_listener);
    }
  };
  poll_both_until(500);
  ASSERT_EQ(coordinator.members("g"), (std::vector<std::string>{"follower-2", "leader-1"}));
  // The leader never gets its JoinGroup answer, so it never sends the assignment: the follower's
  // SyncGroup stays parked at the broker.
  w.network.isolate("instance-2");
  while (coordinator.generation("g") < 1 && w.service.now_ms() < 20'000) {
    poll_both_until(w.service.now_ms() + 10);
  }
  poll_both_until(w.service.now_ms() + 100);
  ASSERT_EQ(coordinator.generation("g"), 1);
  ASSERT_EQ(follower.generation(), 1);
  ASSERT_FALSE(follower.stable());
  // A cut breaks the follower's connection: its SyncGroup fails at the client, not at the broker.
  w.network.isolate("instance-1");
  const int64_t cut_ms = w.service.now_ms();
  poll_both_until(cut_ms + 100);
  w.network.heal_node("instance-1");
  poll_both_until(cut_ms + 200);
  EXPECT_EQ(follower.requests_disconnected(), 1u);
  // The follower rejoins; the join phase ends when the silent leader's session expires, a session
  // timeout after its join phase ended.
  poll_both_until(cut_ms + 6'500);
  EXPECT_EQ(coordinator.members("g"), (std::vector<std::string>{"follower-2"}));
  EXPECT_EQ(coordinator.generation("g"), 2);
  EXPECT_TRUE(follower.stable()) << "the rejoin's JoinGroup was never answered";
  EXPECT_EQ(follower.generation(), 2);
  EXPECT_EQ(follower_listener.generations, (std::vector<int32_t>{2}));
}

// Proves a heartbeat answer that asks for a rejoin (REBALANCE_IN_PROGRESS, when another member
// rejoins) wakes the member's stream thread out of its poll, as Kafka's shared network client
// does, so that its JoinGroup goes out at once rather than at the poll timeout; and that a member
// whose heartbeats are answered NONE is not woken.
TEST(SimGroupMembershipTest, AHeartbeatAskingForARejoinWakesThePoll) {
  World w;
  w.network.add_node("instance-2");
  SimMembershipConfig config;
  config.group_id = "g";
  config.session_timeout_ms = 10'000;
  config.heartbeat_interval_ms = 1'000;
  config.client_id = "a";
  SimGroupMembership a(w.service, w.network, "instance-1", config);
  config.client_id = "b";
  SimGroupMembership b(w.service, w.network, "instance-2", config);
  RecordingListener listener_a;
  RejoiningListener listener_b;  // a new subscription at every join: b's rejoin rebalances
  int wakeups = 0;
  a.set_wakeup([&] { ++wakeups; });
  auto poll_both_until = [&](int64_t until_ms) {
    while (w.service.now_ms() < until_ms) {
      (void)w.loop.run_until(base::Instant::from_ms(w.service.now_ms() + 10));
      a.poll(listener_a);
      b.poll(listener_b);
    }
  };
  while (!(a.stable() && b.stable()) && w.service.now_ms() < 30'000) {
    poll_both_until(w.service.now_ms() + 10);
  }
  ASSERT_TRUE(a.stable() && b.stable()) << "the group did not settle by 30 s";
  poll_both_until(w.service.now_ms() + 100);
  const int wakeups_when_stable = wakeups;
  poll_both_until(w.service.now_ms() + 3'000);  // three heartbeats of a, each answered NONE
  EXPECT_EQ(wakeups, wakeups_when_stable) << "a heartbeat answered NONE woke the poll";
  // b rejoins with a new subscription; a, blocked in poll (not polled), hears it from its next
  // heartbeat answer.
  b.enforce_rebalance();
  b.poll(listener_b);
  const int64_t rejoin_ms = w.service.now_ms();
  while (w.service.now_ms() < rejoin_ms + 1'500 && wakeups == wakeups_when_stable) {
    (void)w.loop.run_until(base::Instant::from_ms(w.service.now_ms() + 10));
  }
  EXPECT_GT(wakeups, wakeups_when_stable)
      << "the REBALANCE_IN_PROGRESS heartbeat answer did not wake the poll";
  EXPECT_FALSE(a.stable());
}

}  // namespace
}  // namespace iq::sim
