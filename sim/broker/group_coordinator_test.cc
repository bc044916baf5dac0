#include "broker/group_coordinator.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace iq::sim {
namespace {

constexpr int32_t kSessionMs = 45'000;     // session.timeout.ms default
constexpr int32_t kRebalanceMs = 300'000;  // max.poll.interval.ms default
constexpr const char* kGroup = "app";

Bytes b(const std::string& s) {
  return Bytes(s);
}

// The fixture's initial delay: short, but not 0, so that members joining at the same instant
// land in one generation (a deadline at `now` fires before a request at `now`).
constexpr int64_t kDelayMs = 100;
// When stable_group's members have synced: the second new member extends the initial delay once.
constexpr int64_t kFormedMs = 2 * kDelayMs;

GroupCoordinatorConfig short_initial_delay() {
  GroupCoordinatorConfig config;
  config.group_initial_rebalance_delay_ms = kDelayMs;
  return config;
}

// A driver stand-in: it sends requests and collects the answers to parked ones in an inbox.
class GroupCoordinatorTest : public ::testing::Test {
 protected:
  std::optional<JoinGroupResponse> join(const std::string& member_id, const std::string& metadata,
                                        int64_t now_ms, const std::string& client_id = "c") {
    auto r = coord_.join_group(kGroup, member_id, client_id, b(metadata), kSessionMs, kRebalanceMs,
                               now_ms);
    drain();
    return r;
  }
  std::optional<SyncGroupResponse> sync(const std::string& member_id, int32_t generation,
                                        std::optional<std::map<std::string, Bytes>> assignments,
                                        int64_t now_ms) {
    auto r = coord_.sync_group(kGroup, member_id, generation, assignments, now_ms);
    drain();
    return r;
  }
  Errors heartbeat(const std::string& member_id, int32_t generation, int64_t now_ms) {
    Errors e = coord_.heartbeat(kGroup, member_id, generation, now_ms);
    drain();
    return e;
  }
  std::vector<GroupEvent> tick(int64_t now_ms) {
    auto events = coord_.tick(now_ms);
    drain();
    return events;
  }
  void drain() {
    for (GroupResponse& r : coord_.take_responses()) inbox_.push_back(std::move(r));
  }
  // Takes the parked answer of `member_id` out of the inbox, or nullopt when there is none.
  template <typename Response>
  std::optional<Response> answer(const std::string& member_id) {
    for (auto it = inbox_.begin(); it != inbox_.end(); ++it) {
      if (it->member_id != member_id || !std::holds_alternative<Response>(it->response)) continue;
      Response r = std::get<Response>(it->response);
      inbox_.erase(it);
      return r;
    }
    return std::nullopt;
  }
  std::optional<JoinGroupResponse> join_answer(const std::string& m) {
    return answer<JoinGroupResponse>(m);
  }
  std::optional<SyncGroupResponse> sync_answer(const std::string& m) {
    return answer<SyncGroupResponse>(m);
  }

  // Forms a Stable group of `n` new members joined at now_ms (metadata "m0", "m1", ...), the
  // leader assigning "a<i>" to member i; every member has synced at now_ms + kFormedMs, which
  // starts their sessions. Returns the member ids in join order.
  std::vector<std::string> stable_group(int n, int64_t now_ms) {
    for (int i = 0; i < n; ++i) EXPECT_FALSE(join("", "m" + std::to_string(i), now_ms));
    now_ms += kFormedMs;
    tick(now_ms);
    std::vector<std::string> ids;
    std::map<std::string, Bytes> assignments;
    std::string leader;
    int32_t generation = 0;
    for (const GroupResponse& r : inbox_) {
      const auto& j = std::get<JoinGroupResponse>(r.response);
      EXPECT_EQ(j.error, Errors::NONE);
      assignments[j.member_id] = b("a" + std::to_string(ids.size()));
      ids.push_back(j.member_id);
      if (j.is_leader()) leader = j.member_id;
      generation = j.generation_id;
    }
    inbox_.clear();
    EXPECT_EQ(static_cast<int>(ids.size()), n);
    for (const std::string& id : ids) {
      if (id == leader) continue;
      EXPECT_FALSE(sync(id, generation, std::nullopt, now_ms));
    }
    EXPECT_TRUE(sync(leader, generation, assignments, now_ms));
    inbox_.clear();
    EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::Stable);
    return ids;
  }

  // Heartbeats from member_id every 3 s in [from_ms, to_ms], each expected to be `expected`.
  void keep_alive(const std::string& member_id, int32_t generation, int64_t from_ms, int64_t to_ms,
                  Errors expected = Errors::NONE) {
    for (int64_t t = from_ms; t <= to_ms; t += 3'000) {
      EXPECT_EQ(heartbeat(member_id, generation, t), expected) << member_id << " at " << t;
    }
  }

  GroupCoordinator coord_{short_initial_delay()};
  std::vector<GroupResponse> inbox_;
};

bool has_event(const std::vector<GroupEvent>& events, GroupEvent::Kind kind,
               const std::string& member_id = "") {
  for (const GroupEvent& e : events) {
    if (e.kind == kind && (member_id.empty() || e.member_id == member_id)) return true;
  }
  return false;
}

TEST_F(GroupCoordinatorTest, SingleMemberJoinsSyncsAndIsStable) {
  // With Kafka's defaults a lone member's JoinGroup is answered after the 3 s initial delay, as
  // generation 1 with itself as leader; its SyncGroup makes the group Stable.
  GroupCoordinator coord;  // default config: group.initial.rebalance.delay.ms = 3000
  EXPECT_EQ(coord.state(kGroup), ClassicGroupState::Dead);
  EXPECT_FALSE(coord.join_group(kGroup, "", "client", b("sub"), kSessionMs, kRebalanceMs, 0));
  EXPECT_EQ(coord.state(kGroup), ClassicGroupState::PreparingRebalance);
  EXPECT_EQ(coord.next_deadline_ms(), 3'000);
  EXPECT_TRUE(coord.tick(2'999).empty());
  auto events = coord.tick(3'000);
  EXPECT_TRUE(has_event(events, GroupEvent::Kind::kJoinCompleted));
  auto out = coord.take_responses();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].at_ms, 3'000);
  const auto& j = std::get<JoinGroupResponse>(out[0].response);
  EXPECT_EQ(j.error, Errors::NONE);
  EXPECT_EQ(j.member_id, "client-1");
  EXPECT_EQ(j.generation_id, 1);
  EXPECT_TRUE(j.is_leader());
  EXPECT_EQ(j.members, (std::vector<JoinGroupMember>{{"client-1", "client", b("sub")}}));
  EXPECT_EQ(coord.state(kGroup), ClassicGroupState::CompletingRebalance);

  auto s = coord.sync_group(kGroup, "client-1", 1,
                            std::map<std::string, Bytes>{{"client-1", b("tasks")}}, 3'010);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->error, Errors::NONE);
  EXPECT_EQ(s->assignment, b("tasks"));
  EXPECT_EQ(coord.state(kGroup), ClassicGroupState::Stable);
  EXPECT_EQ(coord.generation(kGroup), 1);
  EXPECT_EQ(coord.leader(kGroup), "client-1");
  EXPECT_EQ(coord.members(kGroup), (std::vector<std::string>{"client-1"}));
  EXPECT_EQ(coord.heartbeat(kGroup, "client-1", 1, 6'000), Errors::NONE);
  EXPECT_EQ(coord.describe_group(kGroup).members.at(0).assignment, b("tasks"));
}

TEST_F(GroupCoordinatorTest, InitialDelayIsExtendedByEachNewMember) {
  // A member arriving during the initial delay extends the join phase by another delay, so
  // members starting together land in one generation, the leader seeing them in join order.
  GroupCoordinator coord;
  EXPECT_FALSE(coord.join_group(kGroup, "", "a", b("ma"), kSessionMs, kRebalanceMs, 0));
  EXPECT_FALSE(coord.join_group(kGroup, "", "b", b("mb"), kSessionMs, kRebalanceMs, 2'000));
  auto events = coord.tick(3'000);
  EXPECT_TRUE(has_event(events, GroupEvent::Kind::kJoinPhaseExtended));
  EXPECT_EQ(coord.state(kGroup), ClassicGroupState::PreparingRebalance);
  EXPECT_TRUE(coord.tick(5'999).empty());
  coord.tick(6'000);
  EXPECT_EQ(coord.state(kGroup), ClassicGroupState::CompletingRebalance);
  auto out = coord.take_responses();
  ASSERT_EQ(out.size(), 2u);
  const auto& leader = std::get<JoinGroupResponse>(out[0].response);
  EXPECT_EQ(leader.member_id, "a-1");
  EXPECT_TRUE(leader.is_leader());
  ASSERT_EQ(leader.members.size(), 2u);
  EXPECT_EQ(leader.members[0].member_id, "a-1");
  EXPECT_EQ(leader.members[1].member_id, "b-2");
  EXPECT_EQ(leader.members[1].metadata, b("mb"));
  const auto& follower = std::get<JoinGroupResponse>(out[1].response);
  EXPECT_EQ(follower.member_id, "b-2");
  EXPECT_EQ(follower.leader_id, "a-1");
  EXPECT_TRUE(follower.members.empty());
  EXPECT_EQ(follower.generation_id, 1);
}

TEST_F(GroupCoordinatorTest, MemberIdsAreDeterministic) {
  // Member ids are "<client_id>-<n>" with n counting per group, so the same calls give the same
  // ids in any run, and events render identically.
  auto run = [] {
    GroupCoordinator coord;
    std::vector<std::string> ids;
    for (const char* client : {"app-StreamThread-1", "app-StreamThread-1", "other"}) {
      (void)coord.join_group(kGroup, "", client, b("m"), kSessionMs, kRebalanceMs, 0);
    }
    (void)coord.join_group("second", "", "x", b("m"), kSessionMs, kRebalanceMs, 0);
    // "second" forms at 3 s; "app" at 6 s, its initial delay extended once by the later members.
    coord.tick(6'000);
    for (const auto& r : coord.take_responses()) {
      ids.push_back(r.group_id + "/" + std::get<JoinGroupResponse>(r.response).member_id);
    }
    for (const auto& e : coord.take_events()) ids.push_back(e.to_string());
    return ids;
  };
  const auto first = run();
  EXPECT_EQ(first, run());
  EXPECT_EQ(std::vector<std::string>(first.begin(), first.begin() + 4),
            (std::vector<std::string>{"second/x-1", "app/app-StreamThread-1-1",
                                      "app/app-StreamThread-1-2", "app/other-3"}));
}

TEST_F(GroupCoordinatorTest, SecondMemberTriggersRebalanceAndBothMustRejoin) {
  // A new member moves a Stable group to PreparingRebalance; the old member learns it from its
  // heartbeat and must rejoin, and only then is generation 2 formed, with the leader kept and
  // seeing every member's metadata in the order they joined this round.
  const std::string a = stable_group(1, 0).at(0);
  ASSERT_EQ(coord_.generation(kGroup), 1);
  EXPECT_FALSE(join("", "new-sub", 1'000));
  const std::string b_id = "c-2";
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::PreparingRebalance);
  EXPECT_EQ(heartbeat(a, 1, 1'500), Errors::REBALANCE_IN_PROGRESS);
  EXPECT_EQ(heartbeat(a, 1, 3'000), Errors::REBALANCE_IN_PROGRESS);
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::PreparingRebalance);
  EXPECT_EQ(coord_.generation(kGroup), 1);

  auto a_join = join(a, "m0", 3'100);  // the last member to rejoin gets its answer at once
  ASSERT_TRUE(a_join.has_value());
  EXPECT_EQ(a_join->generation_id, 2);
  EXPECT_EQ(a_join->leader_id, a);
  ASSERT_EQ(a_join->members.size(), 2u);
  EXPECT_EQ(a_join->members[0].member_id, b_id);  // joined this round first
  EXPECT_EQ(a_join->members[0].metadata, b("new-sub"));
  EXPECT_EQ(a_join->members[1].member_id, a);
  auto b_join = join_answer(b_id);
  ASSERT_TRUE(b_join.has_value());
  EXPECT_EQ(b_join->generation_id, 2);
  EXPECT_EQ(b_join->leader_id, a);
  EXPECT_TRUE(b_join->members.empty());
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::CompletingRebalance);
  EXPECT_EQ(coord_.members(kGroup), (std::vector<std::string>{a, b_id}));
}

TEST_F(GroupCoordinatorTest, FollowersWaitForTheLeadersSync) {
  // A follower's SyncGroup is parked until the leader syncs; then every member gets its own
  // assignment (an empty one if the leader left it out) and the group is Stable.
  auto ids = stable_group(1, 0);
  EXPECT_FALSE(join("", "m1", 1'100));
  EXPECT_FALSE(join("", "m2", 1'100));
  auto leader = join(ids[0], "m0", 1'200);
  ASSERT_TRUE(leader && leader->is_leader());
  const int32_t gen = leader->generation_id;
  const std::string f1 = "c-2";
  const std::string f2 = "c-3";
  ASSERT_TRUE(join_answer(f1) && join_answer(f2));

  EXPECT_FALSE(sync(f1, gen, std::nullopt, 1'300));
  EXPECT_FALSE(sync(f2, gen, std::nullopt, 1'300));
  EXPECT_EQ(heartbeat(f1, gen, 1'400), Errors::NONE);  // CompletingRebalance: a normal heartbeat
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::CompletingRebalance);
  EXPECT_FALSE(sync_answer(f1));

  auto own = sync(ids[0], gen, std::map<std::string, Bytes>{{ids[0], b("x")}, {f1, b("y")}}, 1'500);
  ASSERT_TRUE(own.has_value());
  EXPECT_EQ(own->assignment, b("x"));
  auto s1 = sync_answer(f1);
  ASSERT_TRUE(s1.has_value());
  EXPECT_EQ(s1->error, Errors::NONE);
  EXPECT_EQ(s1->assignment, b("y"));
  auto s2 = sync_answer(f2);
  ASSERT_TRUE(s2.has_value());
  EXPECT_EQ(s2->error, Errors::NONE);
  EXPECT_TRUE(s2->assignment.empty());
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::Stable);
  // A late SyncGroup in Stable gets the stored assignment at once.
  auto again = sync(f1, gen, std::nullopt, 1'600);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->assignment, b("y"));
}

TEST_F(GroupCoordinatorTest, MemberThatDoesNotRejoinIsRemovedAtTheRebalanceTimeout) {
  // A member that keeps heartbeating but never rejoins holds the join phase open for the whole
  // rebalance timeout (max.poll.interval.ms), then is removed and the others form the generation.
  auto ids = stable_group(2, 0);
  const std::string& a = ids[0];
  const std::string& slow = ids[1];
  EXPECT_FALSE(join("", "m2", 10'000));  // "c-3" starts the rebalance
  EXPECT_FALSE(join(a, "m0", 10'100));
  keep_alive(slow, 1, 13'000, 10'000 + kRebalanceMs - 3'000, Errors::REBALANCE_IN_PROGRESS);
  tick(10'000 + kRebalanceMs - 1);
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::PreparingRebalance);
  EXPECT_EQ(coord_.members(kGroup).size(), 3u);
  auto events = tick(10'000 + kRebalanceMs);
  EXPECT_TRUE(has_event(events, GroupEvent::Kind::kMemberRemoved, slow));
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::CompletingRebalance);
  EXPECT_EQ(coord_.generation(kGroup), 2);
  EXPECT_EQ(coord_.members(kGroup), (std::vector<std::string>{a, "c-3"}));
  auto a_join = join_answer(a);
  ASSERT_TRUE(a_join.has_value());
  EXPECT_EQ(a_join->members.size(), 2u);
  ASSERT_TRUE(join_answer("c-3").has_value());
  EXPECT_EQ(heartbeat(slow, 1, 10'000 + kRebalanceMs + 1), Errors::UNKNOWN_MEMBER_ID);
}

TEST_F(GroupCoordinatorTest, SessionTimeoutExpiresOnlyAfter45sWithoutHeartbeat) {
  // A member is removed exactly session.timeout.ms after its last heartbeat, not earlier: a
  // heartbeat at 44.9 s restarts the 45 s; the removal starts a rebalance the others see.
  auto ids = stable_group(2, 0);
  const std::string& a = ids[0];
  const std::string& b_id = ids[1];
  const int64_t t0 = kFormedMs;  // both sessions start at the sync
  keep_alive(a, 1, t0 + 3'000, t0 + 42'000);
  EXPECT_TRUE(tick(t0 + 44'900).empty());
  EXPECT_EQ(heartbeat(b_id, 1, t0 + 44'900), Errors::NONE);  // b's only heartbeat
  EXPECT_TRUE(tick(t0 + 45'000).empty());
  EXPECT_EQ(coord_.members(kGroup).size(), 2u);
  keep_alive(a, 1, t0 + 45'000, t0 + 87'000);
  EXPECT_TRUE(tick(t0 + 44'900 + kSessionMs - 1).empty());
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::Stable);
  auto events = tick(t0 + 44'900 + kSessionMs);
  EXPECT_TRUE(has_event(events, GroupEvent::Kind::kMemberRemoved, b_id));
  EXPECT_TRUE(has_event(events, GroupEvent::Kind::kRebalanceStarted));
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::PreparingRebalance);
  EXPECT_EQ(heartbeat(a, 1, t0 + 90'000), Errors::REBALANCE_IN_PROGRESS);
  EXPECT_EQ(heartbeat(b_id, 1, t0 + 90'000), Errors::UNKNOWN_MEMBER_ID);
}

TEST_F(GroupCoordinatorTest, CrashedMemberIsNoticedOnlyAfterTheSessionTimeout) {
  // A crash sends nothing: the group stays Stable, still listing the dead member, until its
  // session times out; then the survivor rejoins alone and forms the next generation at once.
  auto ids = stable_group(2, 0);
  const std::string& a = ids[0];
  const std::string& crashed = ids[1];
  EXPECT_EQ(heartbeat(crashed, 1, 2'000), Errors::NONE);  // its last sign of life
  int64_t t = 3'000;
  for (; t < 2'000 + kSessionMs; t += 3'000) {
    EXPECT_EQ(heartbeat(a, 1, t), Errors::NONE) << t;
    EXPECT_EQ(coord_.members(kGroup).size(), 2u);
  }
  tick(2'000 + kSessionMs - 1);
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::Stable);
  tick(2'000 + kSessionMs);
  EXPECT_EQ(coord_.members(kGroup), (std::vector<std::string>{a}));
  EXPECT_EQ(heartbeat(a, 1, t), Errors::REBALANCE_IN_PROGRESS);
  auto rejoin = join(a, "m0", t + 10);
  ASSERT_TRUE(rejoin.has_value());
  EXPECT_EQ(rejoin->generation_id, 2);
  EXPECT_EQ(rejoin->leader_id, a);
  EXPECT_EQ(rejoin->members.size(), 1u);
}

TEST_F(GroupCoordinatorTest, CrashedLeaderIsReplacedByTheFirstMemberToRejoin) {
  // When the leader is gone, the next generation's leader is the first member that rejoined.
  auto ids = stable_group(3, 0);
  ASSERT_EQ(coord_.leader(kGroup), ids[0]);
  for (int64_t t = 3'000; t < kSessionMs; t += 3'000) {
    EXPECT_EQ(heartbeat(ids[1], 1, t), Errors::NONE);
    EXPECT_EQ(heartbeat(ids[2], 1, t), Errors::NONE);
  }
  tick(kFormedMs + kSessionMs);  // the leader's session ends
  EXPECT_EQ(coord_.leader(kGroup), "");
  EXPECT_FALSE(join(ids[2], "m2", kFormedMs + kSessionMs + 1));
  auto last = join(ids[1], "m1", kFormedMs + kSessionMs + 2);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->leader_id, ids[2]);
  auto leader = join_answer(ids[2]);
  ASSERT_TRUE(leader && leader->is_leader());
  ASSERT_EQ(leader->members.size(), 2u);
  EXPECT_EQ(leader->members[0].member_id, ids[2]);
}

TEST_F(GroupCoordinatorTest, StaleGenerationIsIllegalAndUnknownMembersAreRefused) {
  // Requests carrying an older generation get ILLEGAL_GENERATION and ids the group does not know
  // get UNKNOWN_MEMBER_ID, for sync, heartbeat, join and leave alike.
  auto ids = stable_group(1, 0);
  const std::string& a = ids[0];
  EXPECT_FALSE(join("", "m1", 1'100));
  auto rejoin = join(a, "m0", 1'200);
  ASSERT_TRUE(rejoin && rejoin->generation_id == 2);
  auto stale = sync(a, 1, std::map<std::string, Bytes>{}, 1'300);
  ASSERT_TRUE(stale.has_value());
  EXPECT_EQ(stale->error, Errors::ILLEGAL_GENERATION);
  EXPECT_EQ(heartbeat(a, 1, 1'300), Errors::ILLEGAL_GENERATION);
  EXPECT_EQ(heartbeat(a, 3, 1'300), Errors::ILLEGAL_GENERATION);

  EXPECT_EQ(heartbeat("c-99", 2, 1'300), Errors::UNKNOWN_MEMBER_ID);
  EXPECT_EQ(sync("c-99", 2, std::nullopt, 1'300)->error, Errors::UNKNOWN_MEMBER_ID);
  auto unknown_join = join("c-99", "m", 1'300);
  ASSERT_TRUE(unknown_join.has_value());
  EXPECT_EQ(unknown_join->error, Errors::UNKNOWN_MEMBER_ID);
  EXPECT_EQ(coord_.leave_group(kGroup, "c-99", 1'300), Errors::UNKNOWN_MEMBER_ID);
  EXPECT_EQ(coord_.heartbeat("no-such-group", a, 2, 1'300), Errors::UNKNOWN_MEMBER_ID);
  auto bad_session =
      coord_.join_group(kGroup, "", "c", b("m"), 1'000, kRebalanceMs, 1'300);  // below 6 s
  ASSERT_TRUE(bad_session.has_value());
  EXPECT_EQ(bad_session->error, Errors::INVALID_SESSION_TIMEOUT);
  EXPECT_EQ(coord_.generation(kGroup), 2);
  EXPECT_EQ(coord_.members(kGroup).size(), 2u);
}

TEST_F(GroupCoordinatorTest, LeaveGroupTriggersRebalanceAndTheLastLeaveEmptiesTheGroup) {
  // A LeaveGroup removes the member at once (no session timeout wait) and rebalances the rest;
  // when the last member leaves the group becomes Empty with a new generation.
  auto ids = stable_group(2, 0);
  EXPECT_EQ(coord_.leave_group(kGroup, ids[1], 1'000), Errors::NONE);
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::PreparingRebalance);
  EXPECT_EQ(heartbeat(ids[0], 1, 1'100), Errors::REBALANCE_IN_PROGRESS);
  auto rejoin = join(ids[0], "m0", 1'200);
  ASSERT_TRUE(rejoin.has_value());
  EXPECT_EQ(rejoin->generation_id, 2);
  EXPECT_EQ(rejoin->members.size(), 1u);
  ASSERT_TRUE(sync(ids[0], 2, std::map<std::string, Bytes>{}, 1'300));
  EXPECT_EQ(coord_.leave_group(kGroup, ids[0], 1'400), Errors::NONE);
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::Empty);
  EXPECT_EQ(coord_.generation(kGroup), 3);
  EXPECT_TRUE(coord_.members(kGroup).empty());
  EXPECT_EQ(coord_.leader(kGroup), "");
  EXPECT_EQ(coord_.delete_group(kGroup, 1'500), Errors::NONE);
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::Dead);
}

TEST_F(GroupCoordinatorTest, RejoinWithNewMetadataTriggersRebalance) {
  // A member rejoining with changed metadata (Streams' follow-up or probing rebalance: its
  // subscription always changes) starts a rebalance the others must join; the leader then sees
  // the new metadata.
  auto ids = stable_group(2, 0);
  EXPECT_FALSE(join(ids[1], "m1-followup", 1'000));
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::PreparingRebalance);
  EXPECT_EQ(heartbeat(ids[0], 1, 1'100), Errors::REBALANCE_IN_PROGRESS);
  auto leader = join(ids[0], "m0", 1'200);
  ASSERT_TRUE(leader && leader->is_leader());
  EXPECT_EQ(leader->generation_id, 2);
  ASSERT_EQ(leader->members.size(), 2u);
  EXPECT_EQ(leader->members[0].member_id, ids[1]);
  EXPECT_EQ(leader->members[0].metadata, b("m1-followup"));
  ASSERT_TRUE(join_answer(ids[1]));
}

TEST_F(GroupCoordinatorTest, UnchangedFollowerRejoinDoesNotRebalanceButLeaderRejoinDoes) {
  // As in Kafka, a follower rejoining a Stable group with the same metadata just gets the current
  // generation back, while the leader's rejoin always starts a rebalance (how a leader enforces
  // one without a metadata change).
  auto ids = stable_group(2, 0);
  auto same = join(ids[1], "m1", 1'000);
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->error, Errors::NONE);
  EXPECT_EQ(same->generation_id, 1);
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::Stable);
  EXPECT_FALSE(join(ids[0], "m0", 2'000));
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::PreparingRebalance);
  EXPECT_EQ(heartbeat(ids[1], 1, 2'100), Errors::REBALANCE_IN_PROGRESS);
  auto follower = join(ids[1], "m1", 2'200);
  ASSERT_TRUE(follower.has_value());
  EXPECT_EQ(follower->generation_id, 2);
}

TEST_F(GroupCoordinatorTest, RebalanceDuringCompletingRebalanceFailsParkedSyncs) {
  // A new rebalance starting before the leader syncs answers the followers' parked SyncGroups
  // with REBALANCE_IN_PROGRESS, so they rejoin.
  auto ids = stable_group(2, 0);
  EXPECT_FALSE(join(ids[1], "m1-new", 1'100));
  ASSERT_TRUE(join(ids[0], "m0", 1'200));
  ASSERT_TRUE(join_answer(ids[1]));
  EXPECT_FALSE(sync(ids[1], 2, std::nullopt, 1'300));
  EXPECT_FALSE(join("", "m-late", 1'400));  // a newcomer before the leader's sync
  auto failed = sync_answer(ids[1]);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->error, Errors::REBALANCE_IN_PROGRESS);
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::PreparingRebalance);
  auto leader_sync = sync(ids[0], 2, std::map<std::string, Bytes>{}, 1'500);
  ASSERT_TRUE(leader_sync.has_value());
  EXPECT_EQ(leader_sync->error, Errors::REBALANCE_IN_PROGRESS);
}

TEST_F(GroupCoordinatorTest, MemberThatNeverSyncsIsRemovedAfterTheRebalanceTimeout) {
  // A member that got its JoinGroup answer but never sends SyncGroup is removed once the
  // rebalance timeout has passed since the join phase ended, and the group rebalances.
  auto ids = stable_group(2, 0);
  EXPECT_FALSE(join(ids[1], "m1-new", 1'000));
  ASSERT_TRUE(join(ids[0], "m0", 1'000));
  ASSERT_TRUE(sync(ids[0], 2, std::map<std::string, Bytes>{}, 1'000));
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::Stable);
  for (int64_t t = 3'000; t < 1'000 + kRebalanceMs; t += 3'000) {
    EXPECT_EQ(heartbeat(ids[0], 2, t), Errors::NONE);
    EXPECT_EQ(heartbeat(ids[1], 2, t), Errors::NONE);  // alive, but never syncs
  }
  auto events = tick(1'000 + kRebalanceMs);
  EXPECT_TRUE(has_event(events, GroupEvent::Kind::kMemberRemoved, ids[1]));
  EXPECT_EQ(coord_.state(kGroup), ClassicGroupState::PreparingRebalance);
  EXPECT_EQ(coord_.members(kGroup), (std::vector<std::string>{ids[0]}));
}

TEST_F(GroupCoordinatorTest, ParkedJoinOfARemovedMemberIsAnsweredWithUnknownMemberId) {
  // A member removed while its JoinGroup is parked gets that JoinGroup answered with
  // UNKNOWN_MEMBER_ID, so every request is answered and a live client starts over.
  auto ids = stable_group(1, 0);
  EXPECT_FALSE(join("", "m1", 1'100));
  EXPECT_EQ(coord_.leave_group(kGroup, "c-2", 1'200), Errors::NONE);
  drain();
  auto answer = join_answer("c-2");
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->error, Errors::UNKNOWN_MEMBER_ID);
}

TEST_F(GroupCoordinatorTest, OutcomeDoesNotDependOnHowOftenTickIsCalled) {
  // Deadlines fire at their own times in a defined order, so ticking every second or jumping
  // straight to the end gives the same events and answers.
  auto run = [](int64_t step_ms) {
    GroupCoordinator coord;
    (void)coord.join_group(kGroup, "", "a", b("ma"), kSessionMs, kRebalanceMs, 0);
    (void)coord.join_group(kGroup, "", "b", b("mb"), kSessionMs, 60'000, 1'000);
    for (int64_t t = 1'000; t < 200'000; t += step_ms) coord.tick(t);
    coord.tick(200'000);
    std::vector<std::string> trace;
    for (const auto& e : coord.take_events()) trace.push_back(e.to_string());
    for (const auto& r : coord.take_responses()) {
      trace.push_back(std::to_string(r.at_ms) + " " + r.member_id);
    }
    return trace;
  };
  const auto fine = run(1'000);
  EXPECT_EQ(fine, run(199'000));
  EXPECT_EQ(fine, run(7'777));
  // Nobody heartbeats or syncs after generation 1 (formed at 6 s): both sessions end at 51 s and
  // the group ends Empty as generation 2.
  EXPECT_EQ(fine.back(), "6000 b-2");
  EXPECT_NE(std::find(fine.begin(), fine.end(), "51000 group=app GroupEmpty member= generation=2 "),
            fine.end());
}

}  // namespace
}  // namespace iq::sim
