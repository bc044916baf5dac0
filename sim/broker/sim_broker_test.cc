#include "broker/sim_broker.h"

#include <gtest/gtest.h>

namespace iq::sim {
namespace {

constexpr int32_t kSessionMs = 45'000;
constexpr int32_t kRebalanceMs = 300'000;

Bytes b(const char* s) {
  return Bytes::wrap(s);
}

SimBrokerConfig no_initial_delay() {
  SimBrokerConfig config;
  config.coordinator.group_initial_rebalance_delay_ms = 0;
  return config;
}

int64_t produce_value(SimBroker& broker, const TopicPartition& tp, const char* key,
                      const char* value, int64_t now_ms) {
  auto offset = broker.produce(tp, b(key), b(value), now_ms, {}, now_ms);
  EXPECT_TRUE(offset.has_value());
  return offset.has_value() ? *offset : -1;
}

// Forms generation 1 of `group` with one member and returns its member id.
std::string single_member_group(GroupCoordinator& coord, const std::string& group, int64_t now_ms) {
  EXPECT_FALSE(coord.join_group(group, "", "c", b("m"), kSessionMs, kRebalanceMs, now_ms));
  coord.tick(now_ms);
  std::vector<GroupResponse> out = coord.take_responses();
  EXPECT_EQ(out.size(), 1u);
  const auto& join = std::get<JoinGroupResponse>(out.at(0).response);
  auto sync = coord.sync_group(group, join.member_id, join.generation_id,
                               std::map<std::string, Bytes>{{join.member_id, b("a")}}, now_ms);
  EXPECT_TRUE(sync && sync->error == Errors::NONE);
  EXPECT_EQ(coord.state(group), ClassicGroupState::Stable);
  return join.member_id;
}

TEST(SimBrokerTest, ProduceAssignsOffsetsFromZeroPerPartitionAndFetchReturnsThem) {
  // Each partition numbers its records from 0, and fetch returns them whole, in order, bounded.
  SimBroker broker;
  ASSERT_EQ(broker.create_topic("input", 2), Errors::NONE);
  const TopicPartition p0{"input", 0};
  const TopicPartition p1{"input", 1};
  EXPECT_EQ(produce_value(broker, p0, "k0", "v0", 10), 0);
  EXPECT_EQ(produce_value(broker, p0, "k1", "v1", 11), 1);
  EXPECT_EQ(produce_value(broker, p1, "k2", "v2", 12), 0);
  Headers headers{Header{"v", b("\x01")}};
  auto tomb = broker.produce(p0, b("k3"), std::nullopt, 5, headers, 13);
  ASSERT_TRUE(tomb.has_value());
  EXPECT_EQ(*tomb, 2);

  auto all = broker.fetch(p0, 0, 100);
  ASSERT_TRUE(all.has_value());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].topic, "input");
  EXPECT_EQ((*all)[0].partition, 0);
  EXPECT_EQ((*all)[1].offset, 1);
  EXPECT_EQ((*all)[1].key, b("k1"));
  EXPECT_EQ((*all)[1].value, b("v1"));
  EXPECT_EQ((*all)[1].timestamp, 11);
  EXPECT_EQ((*all)[2].value, std::nullopt);
  EXPECT_EQ((*all)[2].timestamp, 5);
  EXPECT_EQ((*all)[2].headers, headers);

  auto middle = broker.fetch(p0, 1, 1);
  ASSERT_TRUE(middle.has_value());
  ASSERT_EQ(middle->size(), 1u);
  EXPECT_EQ(middle->front().offset, 1);

  auto at_end = broker.fetch(p0, 3, 10);
  ASSERT_TRUE(at_end.has_value());
  EXPECT_TRUE(at_end->empty());
  auto past_end = broker.fetch(p0, 4, 10);
  ASSERT_FALSE(past_end.has_value());
  EXPECT_EQ(past_end.error(), Errors::OFFSET_OUT_OF_RANGE);
  EXPECT_EQ(broker.total_records(), 4);
}

TEST(SimBrokerTest, EndOffsetIsNextOffsetAndDeleteRecordsMovesBeginning) {
  // end_offset is the next offset to be written; beginning_offset moves only with delete_records,
  // and fetching below it is out of range.
  SimBroker broker;
  ASSERT_EQ(broker.create_topic("t", 1), Errors::NONE);
  const TopicPartition tp{"t", 0};
  EXPECT_EQ(*broker.end_offset(tp), 0);
  EXPECT_EQ(*broker.beginning_offset(tp), 0);
  for (int i = 0; i < 5; ++i) produce_value(broker, tp, "k", "v", i);
  EXPECT_EQ(*broker.end_offset(tp), 5);
  EXPECT_EQ(*broker.beginning_offset(tp), 0);

  auto start = broker.delete_records(tp, 3);
  ASSERT_TRUE(start.has_value());
  EXPECT_EQ(*start, 3);
  EXPECT_EQ(*broker.beginning_offset(tp), 3);
  EXPECT_EQ(*broker.end_offset(tp), 5);
  EXPECT_EQ(broker.total_records(), 2);
  EXPECT_EQ(broker.fetch(tp, 2, 10).error(), Errors::OFFSET_OUT_OF_RANGE);
  auto rest = broker.fetch(tp, 3, 10);
  ASSERT_TRUE(rest.has_value());
  ASSERT_EQ(rest->size(), 2u);
  EXPECT_EQ(rest->front().offset, 3);
  EXPECT_EQ(*broker.delete_records(tp, 1), 3);  // never moves back
  EXPECT_EQ(broker.delete_records(tp, 6).error(), Errors::OFFSET_OUT_OF_RANGE);
  EXPECT_EQ(produce_value(broker, tp, "k", "v", 9), 5);
}

TEST(SimBrokerTest, UnknownTopicOrPartitionIsAnErrorEverywhere) {
  // Every partition-addressed call answers UNKNOWN_TOPIC_OR_PARTITION for a topic or partition
  // that does not exist, and changes nothing.
  SimBroker broker;
  ASSERT_EQ(broker.create_topic("t", 2), Errors::NONE);
  for (const TopicPartition& tp :
       {TopicPartition{"missing", 0}, TopicPartition{"t", 2}, TopicPartition{"t", -1}}) {
    EXPECT_EQ(broker.produce(tp, b("k"), b("v"), 0, {}, 0).error(),
              Errors::UNKNOWN_TOPIC_OR_PARTITION);
    EXPECT_EQ(broker.fetch(tp, 0, 1).error(), Errors::UNKNOWN_TOPIC_OR_PARTITION);
    EXPECT_EQ(broker.end_offset(tp).error(), Errors::UNKNOWN_TOPIC_OR_PARTITION);
    EXPECT_EQ(broker.beginning_offset(tp).error(), Errors::UNKNOWN_TOPIC_OR_PARTITION);
    EXPECT_EQ(broker.delete_records(tp, 0).error(), Errors::UNKNOWN_TOPIC_OR_PARTITION);
    EXPECT_EQ(broker.commit_offsets("g", kNoGeneration, "", {{tp, 1}}, 0),
              Errors::UNKNOWN_TOPIC_OR_PARTITION);
    EXPECT_EQ(broker.committed("g", tp), std::nullopt);
  }
  EXPECT_EQ(broker.total_records(), 0);
}

TEST(SimBrokerTest, CreateTopicIsIdempotentOnlyWithTheSamePartitionCount) {
  // Re-creating a topic with its own partition count is fine; another count or a count out of
  // range is refused, and topics() lists names in order.
  SimBroker broker;
  EXPECT_EQ(broker.create_topic("b-changelog", 4), Errors::NONE);
  EXPECT_EQ(broker.create_topic("a", 1), Errors::NONE);
  EXPECT_EQ(broker.create_topic("b-changelog", 4), Errors::NONE);
  EXPECT_EQ(broker.create_topic("b-changelog", 3), Errors::TOPIC_ALREADY_EXISTS);
  EXPECT_EQ(broker.create_topic("c", 0), Errors::INVALID_PARTITIONS);
  EXPECT_EQ(broker.partition_count("b-changelog"), 4);
  EXPECT_EQ(broker.partition_count("c"), std::nullopt);
  EXPECT_EQ(broker.topics(), (std::vector<std::string>{"a", "b-changelog"}));
}

TEST(SimBrokerTest, MissingTimestampTakesProduceTimeAndNegativeIsRefused) {
  // kNoTimestamp means "stamp it now", as a producer does; another negative timestamp is refused.
  SimBroker broker;
  ASSERT_EQ(broker.create_topic("t", 1), Errors::NONE);
  const TopicPartition tp{"t", 0};
  ASSERT_TRUE(broker.produce(tp, b("k"), b("v"), kNoTimestamp, {}, 1234).has_value());
  EXPECT_EQ(broker.fetch(tp, 0, 1)->front().timestamp, 1234);
  EXPECT_EQ(broker.produce(tp, b("k"), b("v"), -2, {}, 1235).error(), Errors::INVALID_TIMESTAMP);
  EXPECT_EQ(*broker.end_offset(tp), 1);
}

TEST(SimBrokerTest, AppendTimeIsTheProduceTimeWhateverTheRecordTimestamp) {
  // The append time is when produce ran, not the record's own timestamp; it follows the log start
  // when delete_records drops records, and offsets outside the log are out of range.
  SimBroker broker;
  ASSERT_EQ(broker.create_topic("t", 1), Errors::NONE);
  const TopicPartition tp{"t", 0};
  ASSERT_TRUE(broker.produce(tp, b("k"), b("v"), 5, {}, 100).has_value());  // event time 5
  ASSERT_TRUE(broker.produce(tp, b("k"), b("v"), kNoTimestamp, {}, 250).has_value());
  ASSERT_TRUE(broker.produce(tp, b("k"), b("v"), 7, {}, 250).has_value());
  EXPECT_EQ(*broker.append_time_ms(tp, 0), 100);
  EXPECT_EQ(*broker.append_time_ms(tp, 1), 250);
  EXPECT_EQ(*broker.append_time_ms(tp, 2), 250);
  EXPECT_EQ(broker.fetch(tp, 2, 1)->front().timestamp, 7);
  EXPECT_EQ(broker.append_time_ms(tp, 3).error(), Errors::OFFSET_OUT_OF_RANGE);
  ASSERT_EQ(*broker.delete_records(tp, 1), 1);
  EXPECT_EQ(broker.append_time_ms(tp, 0).error(), Errors::OFFSET_OUT_OF_RANGE);
  EXPECT_EQ(*broker.append_time_ms(tp, 1), 250);
  EXPECT_EQ(broker.append_time_ms({"t", 1}, 0).error(), Errors::UNKNOWN_TOPIC_OR_PARTITION);
}

TEST(SimBrokerTest, CommittedOffsetsArePerGroupAndFencedByGeneration) {
  // Offsets are kept per group; a commit from a stale generation or an unknown member is refused
  // and leaves the committed offset unchanged; commits are accepted while the group prepares a
  // rebalance (a cooperative member commits what it revokes) but not between JoinGroup and
  // SyncGroup.
  SimBroker broker(no_initial_delay());
  ASSERT_EQ(broker.create_topic("t", 2), Errors::NONE);
  const TopicPartition tp{"t", 0};
  GroupCoordinator& coord = broker.coordinator();
  const std::string a = single_member_group(coord, "app", 0);
  EXPECT_EQ(coord.generation("app"), 1);

  EXPECT_EQ(broker.commit_offsets("app", 1, a, {{tp, {5, "partition-time"}}}, 100), Errors::NONE);
  EXPECT_EQ(broker.committed("app", tp), OffsetAndMetadata(5, "partition-time"));
  EXPECT_EQ(broker.committed("other", tp), std::nullopt);
  EXPECT_EQ(broker.committed("app", TopicPartition{"t", 1}), std::nullopt);
  EXPECT_EQ(broker.commit_offsets("other", kNoGeneration, "", {{tp, 2}}, 100), Errors::NONE);
  EXPECT_EQ(broker.committed("other", tp)->offset, 2);
  EXPECT_EQ(broker.committed("app", tp)->offset, 5);

  // A second member joins: the group prepares a rebalance, generation 1 may still commit.
  EXPECT_FALSE(coord.join_group("app", "", "c", b("m"), kSessionMs, kRebalanceMs, 200));
  EXPECT_EQ(coord.state("app"), ClassicGroupState::PreparingRebalance);
  EXPECT_EQ(broker.commit_offsets("app", 1, a, {{tp, 6}}, 200), Errors::NONE);
  // The first member rejoins: generation 2 is formed, nobody has synced yet.
  auto rejoin = coord.join_group("app", a, "c", b("m"), kSessionMs, kRebalanceMs, 300);
  ASSERT_TRUE(rejoin.has_value());
  EXPECT_EQ(rejoin->generation_id, 2);
  EXPECT_EQ(coord.state("app"), ClassicGroupState::CompletingRebalance);
  EXPECT_EQ(broker.commit_offsets("app", 2, a, {{tp, 7}}, 300), Errors::REBALANCE_IN_PROGRESS);
  EXPECT_EQ(broker.commit_offsets("app", 1, a, {{tp, 7}}, 300), Errors::ILLEGAL_GENERATION);
  EXPECT_EQ(broker.commit_offsets("app", 2, "c-99", {{tp, 7}}, 300), Errors::UNKNOWN_MEMBER_ID);
  EXPECT_EQ(broker.commit_offsets("app", kNoGeneration, "", {{tp, 7}}, 300),
            Errors::UNKNOWN_MEMBER_ID);
  EXPECT_EQ(broker.committed("app", tp)->offset, 6);

  auto sync = coord.sync_group("app", a, 2, std::map<std::string, Bytes>{}, 400);
  ASSERT_TRUE(sync && sync->error == Errors::NONE);
  EXPECT_EQ(coord.state("app"), ClassicGroupState::Stable);
  EXPECT_EQ(broker.commit_offsets("app", 2, a, {{tp, 8}}, 400), Errors::NONE);
  EXPECT_EQ(broker.commit_offsets("app", 1, a, {{tp, 9}}, 400), Errors::ILLEGAL_GENERATION);
  EXPECT_EQ(broker.committed("app", tp)->offset, 8);
  // A generation the coordinator never had, for a group it does not know, is stale too.
  EXPECT_EQ(broker.commit_offsets("nobody", 3, "x-1", {{tp, 1}}, 400), Errors::ILLEGAL_GENERATION);
}

TEST(SimBrokerTest, ReachingTheRecordBoundIsReportedNotAsserted) {
  // The broker's record bound is a scenario knob: reaching it sets bound_reached(), which the
  // scenario driver turns into the run's end, and the record is still written.
  SimBrokerConfig config;
  config.max_total_records = 2;
  SimBroker broker(config);
  ASSERT_EQ(broker.create_topic("t", 1), Errors::NONE);
  const TopicPartition tp{"t", 0};
  produce_value(broker, tp, "k", "v", 0);
  produce_value(broker, tp, "k", "v", 0);
  EXPECT_FALSE(broker.bound_reached());
  auto third = broker.produce(tp, b("k"), b("v"), 0, {}, 0);
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(*third, 2);
  EXPECT_TRUE(broker.bound_reached());
  EXPECT_EQ(broker.records_max(), 2);
}

}  // namespace
}  // namespace iq::sim
