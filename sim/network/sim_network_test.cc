// Proves SimNetwork's contract: seeded delays within the link's bounds, determinism for a seed,
// silent loss, cuts that drop (including what is in flight), heals that restore, FIFO per link,
// independence of links' random streams, and the in-flight bound.
#include "network/sim_network.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace iq::sim {
namespace {

using base::Instant;
using base::Prng;
using base::Ratio;

const std::vector<std::string> kNodes{"broker", "client-0", "instance-1", "instance-2"};

struct World {
  explicit World(uint64_t seed, LinkConfig default_link = {}, NetworkLimits limits = {})
      : network(loop, Prng(seed).split("network"), default_link, limits) {
    for (const auto& n : kNodes) {
      network.add_node(n);
    }
  }
  // Sends message `i` from -> to, recording "<to>:<i>@<arrival ms>" when it arrives.
  void send(const std::string& from, const std::string& to, int i) {
    network.send(from, to, "m" + std::to_string(i), [this, to, i] {
      arrivals.push_back(to + ":" + std::to_string(i) + "@" +
                         std::to_string(loop.now().ms_since_epoch()));
      arrival_ms.push_back(loop.now().ms_since_epoch());
    });
  }
  EventLoop loop;
  SimNetwork network;
  std::vector<std::string> arrivals;
  std::vector<int64_t> arrival_ms;
};

TEST(SimNetwork, DeliveryHappensWithinTheDelayBounds) {
  World w(1, LinkConfig{.delay_ms_min = 5, .delay_ms_max = 50, .loss = Ratio{0, 1}});
  // One message at a time, so FIFO never lifts a delay: each arrival is send time + drawn delay.
  std::vector<int64_t> delays;
  for (int i = 0; i < 500; ++i) {
    const Instant sent_at = w.loop.now();
    w.send("instance-1", "broker", i);
    (void)w.loop.run_until_quiescent(10);
    ASSERT_EQ(w.arrival_ms.size(), static_cast<size_t>(i + 1));
    delays.push_back(w.arrival_ms.back() - sent_at.ms_since_epoch());
  }
  EXPECT_EQ(*std::min_element(delays.begin(), delays.end()), 5);  // both ends are reached
  EXPECT_EQ(*std::max_element(delays.begin(), delays.end()), 50);
  for (int64_t d : delays) {
    EXPECT_GE(d, 5);
    EXPECT_LE(d, 50);
  }
  EXPECT_EQ(
      w.network.stats("instance-1", "broker"),
      (LinkStats{
          .sent = 500, .delivered = 500, .dropped_loss = 0, .dropped_cut = 0, .in_flight = 0}));
}

// The same traffic on the same seed arrives at the same times in the same order, with the same
// loop digest; another seed does not.
std::pair<std::vector<std::string>, uint64_t> run_traffic(uint64_t seed) {
  World w(seed, LinkConfig{.delay_ms_min = 1, .delay_ms_max = 100, .loss = Ratio{1, 5}});
  for (int i = 0; i < 200; ++i) {
    w.send(kNodes[static_cast<size_t>(i) % 4], kNodes[static_cast<size_t>(i + 1) % 4], i);
    if (i % 7 == 0) {
      (void)w.loop.run_for(base::Duration::millis(3));
    }
  }
  (void)w.loop.run_until_quiescent(10'000);
  return {w.arrivals, w.loop.digest().value()};
}

TEST(SimNetwork, SameSeedSameDeliveriesOtherSeedOtherDeliveries) {
  const auto a = run_traffic(42);
  const auto b = run_traffic(42);
  const auto c = run_traffic(43);
  EXPECT_EQ(a.first, b.first);
  EXPECT_EQ(a.second, b.second);
  EXPECT_NE(a.first, c.first);
  EXPECT_NE(a.second, c.second);
  // Loss 1/5 over 200 messages: expect ~160 delivered (sd ~ 5.7).
  EXPECT_GT(a.first.size(), 130u);
  EXPECT_LT(a.first.size(), 190u);
}

TEST(SimNetwork, LossOfOneInOneDropsEverythingSilently) {
  World w(7);
  w.network.set_link("client-0", "instance-1",
                     LinkConfig{.delay_ms_min = 1, .delay_ms_max = 9, .loss = Ratio{1, 1}});
  for (int i = 0; i < 100; ++i) {
    w.send("client-0", "instance-1", i);
  }
  w.send("instance-1", "client-0", 100);  // the other direction keeps the default: no loss
  (void)w.loop.run_until_quiescent(1'000);
  EXPECT_EQ(w.arrivals, (std::vector<std::string>{"client-0:100@1"}));
  EXPECT_EQ(w.network.stats("client-0", "instance-1").dropped_loss, 100u);
  EXPECT_EQ(w.loop.events_dispatched(), 1u);  // lost messages are never scheduled
}

TEST(SimNetwork, CutDropsInBothDirectionsAndHealRestores) {
  World w(3, LinkConfig{.delay_ms_min = 10, .delay_ms_max = 10, .loss = Ratio{0, 1}});
  w.network.cut("instance-1", "broker");
  EXPECT_TRUE(w.network.is_cut("instance-1", "broker"));
  EXPECT_TRUE(w.network.is_cut("broker", "instance-1"));
  w.send("instance-1", "broker", 1);
  w.send("broker", "instance-1", 2);
  w.send("instance-2", "broker", 3);  // other links are unaffected
  (void)w.loop.run_until_quiescent(100);
  EXPECT_EQ(w.arrivals, (std::vector<std::string>{"broker:3@10"}));

  w.network.heal("broker", "instance-1");
  EXPECT_FALSE(w.network.is_cut("instance-1", "broker"));
  w.send("instance-1", "broker", 4);
  w.send("broker", "instance-1", 5);
  (void)w.loop.run_until_quiescent(100);
  EXPECT_EQ(w.arrivals,
            (std::vector<std::string>{"broker:3@10", "broker:4@20", "instance-1:5@20"}));
  EXPECT_EQ(w.network.stats("instance-1", "broker").dropped_cut, 1u);
  EXPECT_EQ(w.network.stats("broker", "instance-1").dropped_cut, 1u);
}

// Proves LinkStats::cuts counts each break of a link once per direction: a cut of an up link
// counts, a second cut of a cut link (an isolate on top of a cut) does not, and heal does not.
TEST(SimNetwork, CutsCountEachBreakOncePerDirection) {
  World w(6);
  EXPECT_EQ(w.network.stats("instance-1", "broker").cuts, 0u);
  w.network.cut("instance-1", "broker");
  w.network.isolate("instance-1");  // already cut towards the broker: no new break there
  EXPECT_EQ(w.network.stats("instance-1", "broker").cuts, 1u);
  EXPECT_EQ(w.network.stats("broker", "instance-1").cuts, 1u);
  EXPECT_EQ(w.network.stats("instance-1", "client-0").cuts, 1u);
  w.network.heal_node("instance-1");
  EXPECT_EQ(w.network.stats("instance-1", "broker").cuts, 1u);
  w.network.cut("broker", "instance-1");
  EXPECT_EQ(w.network.stats("instance-1", "broker").cuts, 2u);
  EXPECT_EQ(w.network.stats("broker", "instance-1").cuts, 2u);
  EXPECT_EQ(w.network.stats("broker", "instance-2").cuts, 0u);
  // isolate cut 3 links both ways (6), then cut() broke instance-1<->broker again (2).
  EXPECT_EQ(w.network.totals().cuts, 8u);
}

// A cut breaks the connection: messages already in flight are lost too, and a heal before their
// arrival time does not bring them back.
TEST(SimNetwork, CutDropsMessagesInFlight) {
  World w(4, LinkConfig{.delay_ms_min = 10, .delay_ms_max = 10, .loss = Ratio{0, 1}});
  w.send("broker", "instance-2", 1);
  w.send("instance-2", "broker", 2);
  (void)w.loop.run_until(Instant::from_ms(5));
  w.network.cut("broker", "instance-2");
  w.network.heal("broker", "instance-2");
  w.send("broker", "instance-2", 3);
  (void)w.loop.run_until_quiescent(100);
  EXPECT_EQ(w.arrivals, (std::vector<std::string>{"instance-2:3@15"}));
  const LinkStats t = w.network.totals();
  EXPECT_EQ(t.sent, 3u);
  EXPECT_EQ(t.delivered, 1u);
  EXPECT_EQ(t.dropped_cut, 2u);
  EXPECT_EQ(t.in_flight, 0u);
}

TEST(SimNetwork, IsolateCutsANodeFromAllAndHealNodeOrHealAllRestores) {
  World w(5, LinkConfig{.delay_ms_min = 1, .delay_ms_max = 1, .loss = Ratio{0, 1}});
  w.network.isolate("instance-1");
  for (const auto& n : kNodes) {
    if (n != "instance-1") {
      EXPECT_TRUE(w.network.is_cut(n, "instance-1"));
      EXPECT_TRUE(w.network.is_cut("instance-1", n));
    }
  }
  EXPECT_FALSE(w.network.is_cut("broker", "instance-2"));
  w.send("broker", "instance-1", 1);
  w.send("instance-1", "client-0", 2);
  w.send("broker", "instance-2", 3);
  (void)w.loop.run_until_quiescent(100);
  EXPECT_EQ(w.arrivals, (std::vector<std::string>{"instance-2:3@1"}));

  w.network.heal_node("instance-1");
  w.send("broker", "instance-1", 4);
  w.network.isolate("instance-2");
  w.network.heal_all();
  w.send("client-0", "instance-2", 5);
  (void)w.loop.run_until_quiescent(100);
  EXPECT_EQ(w.arrivals,
            (std::vector<std::string>{"instance-2:3@1", "instance-1:4@2", "instance-2:5@2"}));
}

// Wide delays would reorder a burst; the link keeps send order, and delivery times never go down.
TEST(SimNetwork, EachLinkIsFifo) {
  World w(9, LinkConfig{.delay_ms_min = 1, .delay_ms_max = 1'000, .loss = Ratio{0, 1}});
  for (int i = 0; i < 300; ++i) {
    w.send("instance-1", "broker", i);
    if (i % 10 == 0) {
      (void)w.loop.run_for(base::Duration::millis(1));
    }
  }
  (void)w.loop.run_until_quiescent(1'000);
  ASSERT_EQ(w.arrivals.size(), 300u);
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(w.arrivals[static_cast<size_t>(i)].rfind("broker:" + std::to_string(i) + "@", 0), 0u)
        << w.arrivals[static_cast<size_t>(i)];
  }
  EXPECT_TRUE(std::is_sorted(w.arrival_ms.begin(), w.arrival_ms.end()));
}

// Two links may reorder relative to each other: FIFO is per link, not global.
TEST(SimNetwork, DifferentLinksMayReorder) {
  World w(2);
  w.network.set_link("client-0", "instance-1", LinkConfig{.delay_ms_min = 50, .delay_ms_max = 50});
  w.network.set_link("broker", "instance-1", LinkConfig{.delay_ms_min = 5, .delay_ms_max = 5});
  w.send("client-0", "instance-1", 1);
  w.send("broker", "instance-1", 2);
  (void)w.loop.run_until_quiescent(10);
  EXPECT_EQ(w.arrivals, (std::vector<std::string>{"instance-1:2@5", "instance-1:1@50"}));
}

// Each link draws from its own stream: traffic on other links does not change this link's delays.
std::vector<int64_t> broker_link_delays(bool with_other_traffic) {
  const LinkConfig wide{.delay_ms_min = 1, .delay_ms_max = 1'000, .loss = Ratio{1, 3}};
  World w(11, wide);
  std::vector<int64_t> delays;
  for (int i = 0; i < 50; ++i) {
    if (with_other_traffic) {
      w.send("client-0", "instance-2", i);
      w.send("broker", "instance-1", i);  // the reverse direction is another link too
    }
    const Instant sent_at = w.loop.now();
    w.network.send("instance-1", "broker", "m",
                   [&] { delays.push_back((w.loop.now() - sent_at).ms()); });
    (void)w.loop.run_until_quiescent(100);
    delays.push_back(-1);  // marks the end of one message's turn (lost messages leave only this)
  }
  return delays;
}

TEST(SimNetwork, OtherLinksTrafficDoesNotShiftALinksDraws) {
  const auto quiet = broker_link_delays(false);
  const auto busy = broker_link_delays(true);
  EXPECT_EQ(quiet, busy);
  // Some were lost (loss 1/3), so the loss draws are compared too, not only the delays.
  const auto delivered = std::count_if(quiet.begin(), quiet.end(), [](int64_t d) { return d > 0; });
  EXPECT_GT(delivered, 20);
  EXPECT_LT(delivered, 50);
}

TEST(SimNetwork, InFlightMessagesPerLinkAreBounded) {
  World w(6, LinkConfig{}, NetworkLimits{.in_flight_per_link_max = 3});
  for (int i = 0; i < 3; ++i) {
    w.send("client-0", "broker", i);
  }
  w.send("broker", "client-0", 99);  // the bound is per link
  EXPECT_DEATH(w.send("client-0", "broker", 3), "in flight");
}

TEST(SimNetwork, ProgrammerErrorsAssert) {
  World w(8);
  EXPECT_DEATH(w.send("nobody", "broker", 1), "unknown node 'nobody'");
  EXPECT_DEATH(w.send("broker", "broker", 1), "sends to itself");
  EXPECT_DEATH(w.network.add_node("broker"), "added twice");
  EXPECT_DEATH(
      w.network.set_link("broker", "client-0", LinkConfig{.delay_ms_min = 5, .delay_ms_max = 4}),
      "delay");
}

// Destroying the network cancels its deliveries, so running the loop afterwards is safe.
TEST(SimNetwork, DestructionCancelsDeliveriesInFlight) {
  EventLoop loop;
  int delivered = 0;
  {
    SimNetwork network(loop, Prng(1));
    network.add_node("a");
    network.add_node("b");
    network.send("a", "b", "x", [&] { ++delivered; });
    EXPECT_EQ(loop.events_pending(), 1u);
  }
  EXPECT_EQ(loop.events_pending(), 0u);
  (void)loop.run_until_quiescent(10);
  EXPECT_EQ(delivered, 0);
}

TEST(SimNetwork, DeliveryEventsAreLabelledForTheTrace) {
  World w(12);
  std::vector<std::string> labels;
  w.loop.on_event([&](const EventRecord& r) { labels.emplace_back(r.label); });
  w.send("client-0", "instance-2", 7);
  (void)w.loop.run_until_quiescent(10);
  EXPECT_EQ(labels, (std::vector<std::string>{"net:client-0->instance-2:m7"}));
}

}  // namespace
}  // namespace iq::sim
