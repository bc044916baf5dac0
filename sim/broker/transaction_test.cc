// Transactions in the simulated broker: the coordinator's fencing and timeouts, markers, the last
// stable offset and read_committed fetches, transactional offset commits.
#include <gtest/gtest.h>

#include <memory>

#include "broker/sim_broker.h"

namespace iq::sim {
namespace {

constexpr int32_t kTimeoutMs = 10'000;
constexpr int32_t kSessionMs = 45'000;
constexpr int32_t kRebalanceMs = 300'000;
const TopicPartition kP0{"t", 0};
const TopicPartition kP1{"t", 1};

Bytes b(const std::string& s) {
  return Bytes(std::string(s));
}

struct Txn {
  std::string id;
  ProducerIdAndEpoch producer;
};

// A broker with topic "t" (2 partitions) and no initial rebalance delay.
std::unique_ptr<SimBroker> make_broker(SimBrokerConfig config = {}) {
  config.coordinator.group_initial_rebalance_delay_ms = 0;
  auto broker = std::make_unique<SimBroker>(config);
  EXPECT_EQ(broker->create_topic("t", 2), Errors::NONE);
  return broker;
}

Txn init(SimBroker& broker, const std::string& id, int64_t now_ms) {
  auto p = broker.init_producer_id(id, kTimeoutMs, now_ms);
  if (!p && p.error() == Errors::CONCURRENT_TRANSACTIONS) {
    p = broker.init_producer_id(id, kTimeoutMs, now_ms);  // the client's retry
  }
  EXPECT_TRUE(p.has_value()) << (p ? "" : errors_name(p.error()));
  return {id, p ? *p : ProducerIdAndEpoch{}};
}

// AddPartitionsToTxn (if needed) and a transactional produce; returns the offset or -1.
int64_t send(SimBroker& broker, const Txn& txn, const TopicPartition& tp, const std::string& key,
             int64_t now_ms) {
  if (broker.add_partitions_to_txn(txn.id, txn.producer, {tp}, now_ms) != Errors::NONE) return -1;
  auto o = broker.produce_transactional(txn.id, txn.producer, tp, b(key), b("v" + key), now_ms, {},
                                        now_ms);
  return o ? *o : -1;
}

std::vector<int64_t> offsets_of(const std::vector<ConsumerRecord>& records) {
  std::vector<int64_t> out;
  for (const auto& r : records) out.push_back(r.offset);
  return out;
}

FetchData fetch_all(const SimBroker& broker, const TopicPartition& tp, IsolationLevel level,
                    int64_t from = 0) {
  auto data = broker.fetch(tp, from, 1'000, level);
  EXPECT_TRUE(data.has_value());
  return data ? *data : FetchData{};
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
  return join.member_id;
}

TEST(SimBrokerTxnTest, InitProducerIdBumpsTheEpochAndFencesTheOlderIncarnation) {
  // A second InitProducerId for the same transactional.id aborts the first incarnation's open
  // transaction, bumps the epoch twice (fence, then the retry), and every later request of the
  // first incarnation is refused with PRODUCER_FENCED or INVALID_PRODUCER_EPOCH as a value.
  auto owned = make_broker();
  SimBroker& broker = *owned;
  const Txn first = init(broker, "app-1", 0);
  EXPECT_EQ(first.producer, (ProducerIdAndEpoch{0, 0}));
  ASSERT_EQ(send(broker, first, kP0, "a", 10), 0);

  auto fence = broker.init_producer_id("app-1", kTimeoutMs, 20);
  ASSERT_FALSE(fence.has_value());
  EXPECT_EQ(fence.error(), Errors::CONCURRENT_TRANSACTIONS);
  // The open transaction was aborted with the fenced epoch: an ABORT marker at offset 1.
  EXPECT_EQ(*broker.end_offset(kP0), 2);
  EXPECT_EQ(*broker.last_stable_offset(kP0), 2);
  EXPECT_EQ(broker.aborted_transactions(kP0), (std::vector<AbortedTxn>{{0, 0, 1, 2}}));
  const Txn second = init(broker, "app-1", 20);
  EXPECT_EQ(second.producer, (ProducerIdAndEpoch{0, 2}));

  EXPECT_EQ(broker.add_partitions_to_txn("app-1", first.producer, {kP1}, 30),
            Errors::PRODUCER_FENCED);
  EXPECT_EQ(broker.end_txn("app-1", first.producer, ControlRecordType::COMMIT, 30),
            Errors::PRODUCER_FENCED);
  auto late =
      broker.produce_transactional("app-1", first.producer, kP0, b("z"), b("z"), 30, {}, 30);
  ASSERT_FALSE(late.has_value());
  EXPECT_EQ(late.error(), Errors::INVALID_PRODUCER_EPOCH);
  EXPECT_EQ(*broker.end_offset(kP0), 2);  // nothing of the zombie's was appended
  // The new incarnation works.
  EXPECT_EQ(send(broker, second, kP0, "b", 40), 2);
  EXPECT_EQ(broker.end_txn("app-1", second.producer, ControlRecordType::COMMIT, 50), Errors::NONE);
  EXPECT_EQ(offsets_of(fetch_all(broker, kP0, IsolationLevel::READ_COMMITTED).records),
            (std::vector<int64_t>{2}));
}

TEST(SimBrokerTxnTest, AFencedProducersLateWritesAreRefusedEverywhere) {
  // After a fence, the zombie can neither add a new partition (PRODUCER_FENCED at the
  // coordinator) nor append to one its old transaction had (INVALID_PRODUCER_EPOCH at the log),
  // nor commit offsets, and no log or group changes.
  auto owned = make_broker();
  SimBroker& broker = *owned;
  const std::string member = single_member_group(broker.coordinator(), "g", 0);
  const Txn zombie = init(broker, "app-1", 0);
  ASSERT_EQ(send(broker, zombie, kP0, "a", 10), 0);
  (void)init(broker, "app-1", 20);
  const int64_t end0 = *broker.end_offset(kP0);
  const int64_t end1 = *broker.end_offset(kP1);

  EXPECT_EQ(broker.add_partitions_to_txn("app-1", zombie.producer, {kP1}, 30),
            Errors::PRODUCER_FENCED);
  auto p1 = broker.produce_transactional("app-1", zombie.producer, kP1, b("a"), b("a"), 30, {}, 30);
  ASSERT_FALSE(p1.has_value());
  EXPECT_EQ(p1.error(), Errors::INVALID_PRODUCER_EPOCH);
  auto p0 = broker.produce_transactional("app-1", zombie.producer, kP0, b("a"), b("a"), 30, {}, 30);
  ASSERT_FALSE(p0.has_value());
  EXPECT_EQ(p0.error(), Errors::INVALID_PRODUCER_EPOCH);
  EXPECT_EQ(broker.add_offsets_to_txn("app-1", zombie.producer, "g", 30), Errors::PRODUCER_FENCED);
  EXPECT_EQ(broker.txn_offset_commit("app-1", zombie.producer, "g", 1, member, {{kP0, 5}}, 30),
            Errors::PRODUCER_FENCED);
  EXPECT_EQ(*broker.end_offset(kP0), end0);
  EXPECT_EQ(*broker.end_offset(kP1), end1);
  EXPECT_FALSE(broker.committed("g", kP0).has_value());
}

TEST(SimBrokerTxnTest, TheTransactionTimeoutAbortsAnAbandonedTransactionOnVirtualTime) {
  // A transaction whose producer stops is aborted by the first timed-out-transaction scan (every
  // 10 s) strictly after start + transaction.timeout.ms, with a bumped epoch that fences the
  // producer; the LSO then moves on.
  auto owned = make_broker();
  SimBroker& broker = *owned;
  const Txn txn = init(broker, "app-1", 0);
  ASSERT_EQ(send(broker, txn, kP0, "a", 1'000), 0);
  EXPECT_EQ(*broker.last_stable_offset(kP0), 0);
  // Expires at 11 000 ms; the scans run at 10 000, 20 000, ...: the one at 20 000 aborts it.
  EXPECT_EQ(broker.next_deadline_ms(), std::optional<int64_t>(20'000));
  EXPECT_TRUE(broker.tick(19'999).empty());
  EXPECT_EQ(broker.transactions().describe("app-1")->state, TransactionState::Ongoing);
  auto events = broker.tick(20'000);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].what.find("timed out"), std::string::npos) << events[0].to_string();
  const auto meta = broker.transactions().describe("app-1");
  EXPECT_EQ(meta->state, TransactionState::CompleteAbort);
  EXPECT_EQ(meta->producer_epoch, 1);
  EXPECT_EQ(*broker.last_stable_offset(kP0), 2);  // record 0, ABORT marker 1
  EXPECT_FALSE(broker.next_deadline_ms().has_value());
  EXPECT_TRUE(fetch_all(broker, kP0, IsolationLevel::READ_COMMITTED).records.empty());
  EXPECT_EQ(broker.end_txn("app-1", txn.producer, ControlRecordType::COMMIT, 20'001),
            Errors::PRODUCER_FENCED);
  auto late =
      broker.produce_transactional("app-1", txn.producer, kP0, b("b"), b("b"), 20'001, {}, 20'001);
  ASSERT_FALSE(late.has_value());
  EXPECT_EQ(late.error(), Errors::INVALID_PRODUCER_EPOCH);
}

TEST(SimBrokerTxnTest, ATransactionCommittedBeforeItsTimeoutIsNotAborted) {
  // The timeout scan only aborts Ongoing transactions: one committed in time keeps its records
  // and its epoch, and nothing is left to scan for.
  auto owned = make_broker();
  SimBroker& broker = *owned;
  const Txn txn = init(broker, "app-1", 0);
  ASSERT_EQ(send(broker, txn, kP0, "a", 1'000), 0);
  ASSERT_EQ(broker.end_txn("app-1", txn.producer, ControlRecordType::COMMIT, 10'999), Errors::NONE);
  EXPECT_FALSE(broker.next_deadline_ms().has_value());
  EXPECT_TRUE(broker.tick(60'000).empty());
  EXPECT_EQ(broker.transactions().describe("app-1")->producer_epoch, 0);
  EXPECT_EQ(offsets_of(fetch_all(broker, kP0, IsolationLevel::READ_COMMITTED).records),
            (std::vector<int64_t>{0}));
}

TEST(SimBrokerTxnTest, LastStableOffsetAndReadCommittedSkipAbortedRecordsAndMarkers) {
  // Two transactions interleave on one partition beside a plain record: the LSO stops at the
  // oldest open transaction, read_committed returns only the plain and committed records (never
  // an aborted record or a marker) and continues past the markers, read_uncommitted returns
  // every data record but no marker, and ListOffsets answers the LSO under READ_COMMITTED.
  auto owned = make_broker();
  SimBroker& broker = *owned;
  const Txn a = init(broker, "a", 0);
  const Txn c = init(broker, "c", 0);
  ASSERT_EQ(*broker.produce(kP0, b("x"), b("x"), 1, {}, 1), 0);
  ASSERT_EQ(send(broker, a, kP0, "a1", 2), 1);
  ASSERT_EQ(send(broker, c, kP0, "c1", 3), 2);
  ASSERT_EQ(send(broker, a, kP0, "a2", 4), 3);
  ASSERT_EQ(send(broker, c, kP0, "c2", 5), 4);
  EXPECT_EQ(*broker.last_stable_offset(kP0), 1);
  EXPECT_EQ(*broker.end_offset(kP0, IsolationLevel::READ_COMMITTED), 1);
  EXPECT_EQ(*broker.end_offset(kP0, IsolationLevel::READ_UNCOMMITTED), 5);
  FetchData open = fetch_all(broker, kP0, IsolationLevel::READ_COMMITTED);
  EXPECT_EQ(offsets_of(open.records), (std::vector<int64_t>{0}));
  EXPECT_EQ(open.next_fetch_offset, 1);
  EXPECT_EQ(open.last_stable_offset, 1);

  ASSERT_EQ(broker.end_txn("a", a.producer, ControlRecordType::ABORT, 6), Errors::NONE);  // @5
  EXPECT_EQ(*broker.last_stable_offset(kP0), 2);  // c is still open from offset 2
  ASSERT_EQ(broker.end_txn("c", c.producer, ControlRecordType::COMMIT, 7), Errors::NONE);  // @6
  EXPECT_EQ(*broker.last_stable_offset(kP0), 7);
  EXPECT_EQ(broker.aborted_transactions(kP0),
            (std::vector<AbortedTxn>{{a.producer.producer_id, 1, 5, 2}}));

  FetchData committed = fetch_all(broker, kP0, IsolationLevel::READ_COMMITTED);
  EXPECT_EQ(offsets_of(committed.records), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(committed.next_fetch_offset, 7);
  FetchData uncommitted = fetch_all(broker, kP0, IsolationLevel::READ_UNCOMMITTED);
  EXPECT_EQ(offsets_of(uncommitted.records), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(uncommitted.next_fetch_offset, 7);
  // A bounded fetch counts skipped entries too, and says where to continue.
  auto part = broker.fetch(kP0, 0, 2, IsolationLevel::READ_COMMITTED);
  ASSERT_TRUE(part.has_value());
  EXPECT_EQ(offsets_of(part->records), (std::vector<int64_t>{0}));
  EXPECT_EQ(part->next_fetch_offset, 2);
  auto rest = broker.fetch(kP0, 5, 10, IsolationLevel::READ_COMMITTED);
  ASSERT_TRUE(rest.has_value());
  EXPECT_TRUE(rest->records.empty());  // only the two markers
  EXPECT_EQ(rest->next_fetch_offset, 7);
}

TEST(SimBrokerTxnTest, ATransactionOverSeveralPartitionsAndAGroupCommitsAtomically) {
  // One transaction writes to two partitions and commits a group's offsets: markers take an
  // offset in each partition, the offsets stay invisible (UNSTABLE_OFFSET_COMMIT for a
  // require_stable fetch) until the commit, and an aborted transaction's offsets vanish.
  auto owned = make_broker();
  SimBroker& broker = *owned;
  const std::string member = single_member_group(broker.coordinator(), "g", 0);
  const Txn txn = init(broker, "app-1", 0);
  ASSERT_EQ(send(broker, txn, kP0, "a", 10), 0);
  ASSERT_EQ(send(broker, txn, kP1, "b", 11), 0);
  ASSERT_EQ(send(broker, txn, kP0, "c", 12), 1);
  EXPECT_EQ(broker.txn_offset_commit("app-1", txn.producer, "g", 1, member, {{kP0, 7}}, 13),
            Errors::INVALID_TXN_STATE);  // the group was not added yet
  ASSERT_EQ(broker.add_offsets_to_txn("app-1", txn.producer, "g", 13), Errors::NONE);
  ASSERT_EQ(broker.txn_offset_commit("app-1", txn.producer, "g", 1, member, {{kP0, 7}}, 13),
            Errors::NONE);
  EXPECT_FALSE(broker.committed("g", kP0).has_value());
  auto stable = broker.coordinator().committed_stable("g", kP0);
  ASSERT_FALSE(stable.has_value());
  EXPECT_EQ(stable.error(), Errors::UNSTABLE_OFFSET_COMMIT);
  const auto meta = broker.transactions().describe("app-1");
  EXPECT_EQ(meta->partitions, (std::set<TopicPartition>{kP0, kP1}));
  EXPECT_EQ(meta->groups, (std::set<std::string>{"g"}));

  ASSERT_EQ(broker.end_txn("app-1", txn.producer, ControlRecordType::COMMIT, 14), Errors::NONE);
  EXPECT_EQ(*broker.end_offset(kP0), 3);  // a, c, COMMIT marker
  EXPECT_EQ(*broker.end_offset(kP1), 2);  // b, COMMIT marker
  EXPECT_EQ(broker.committed("g", kP0), std::optional<OffsetAndMetadata>(7));
  EXPECT_EQ(offsets_of(fetch_all(broker, kP1, IsolationLevel::READ_COMMITTED).records),
            (std::vector<int64_t>{0}));
  // A retried EndTxn(COMMIT) is NONE; an ABORT now, or an EndTxn with nothing open, is not.
  EXPECT_EQ(broker.end_txn("app-1", txn.producer, ControlRecordType::COMMIT, 15), Errors::NONE);
  EXPECT_EQ(broker.end_txn("app-1", txn.producer, ControlRecordType::ABORT, 15),
            Errors::INVALID_TXN_STATE);

  // The next transaction aborts: its offsets are dropped, the committed ones stay.
  ASSERT_EQ(send(broker, txn, kP1, "d", 20), 2);
  ASSERT_EQ(broker.add_offsets_to_txn("app-1", txn.producer, "g", 20), Errors::NONE);
  ASSERT_EQ(broker.txn_offset_commit("app-1", txn.producer, "g", 1, member, {{kP0, 9}}, 20),
            Errors::NONE);
  ASSERT_EQ(broker.end_txn("app-1", txn.producer, ControlRecordType::ABORT, 21), Errors::NONE);
  EXPECT_EQ(broker.committed("g", kP0), std::optional<OffsetAndMetadata>(7));
  EXPECT_EQ(*broker.end_offset(kP0), 3);  // p0 was not in this transaction: no marker
  EXPECT_EQ(*broker.end_offset(kP1), 4);  // b, COMMIT, d, ABORT
  EXPECT_EQ(offsets_of(fetch_all(broker, kP1, IsolationLevel::READ_COMMITTED).records),
            (std::vector<int64_t>{0}));
}

TEST(SimBrokerTxnTest, TxnOffsetCommitFencesAZombieMemberByGeneration) {
  // EOS v2 fences through group metadata: a TxnOffsetCommit from an older generation is
  // ILLEGAL_GENERATION and from a member the group does not know UNKNOWN_MEMBER_ID, and nothing
  // is pending afterwards.
  auto owned = make_broker();
  SimBroker& broker = *owned;
  const std::string member = single_member_group(broker.coordinator(), "g", 0);
  const Txn txn = init(broker, "app-1", 0);
  ASSERT_EQ(broker.add_offsets_to_txn("app-1", txn.producer, "g", 1), Errors::NONE);
  EXPECT_EQ(broker.txn_offset_commit("app-1", txn.producer, "g", 0, member, {{kP0, 3}}, 2),
            Errors::ILLEGAL_GENERATION);
  EXPECT_EQ(broker.txn_offset_commit("app-1", txn.producer, "g", 1, "gone-1", {{kP0, 3}}, 2),
            Errors::UNKNOWN_MEMBER_ID);
  EXPECT_TRUE(broker.coordinator().committed_stable("g", kP0).has_value());
  EXPECT_EQ(broker.txn_offset_commit("app-1", txn.producer, "g", 1, member, {{kP0, 3}}, 2),
            Errors::NONE);
}

TEST(SimBrokerTxnTest, ProduceOutsideTheOpenTransactionIsRefused) {
  // The KIP-890 verification: a transactional append to a partition that is not in the
  // producer's open transaction, or from an unknown producer id, is refused and not written.
  auto owned = make_broker();
  SimBroker& broker = *owned;
  const Txn txn = init(broker, "app-1", 0);
  auto none = broker.produce_transactional("app-1", txn.producer, kP0, b("a"), b("a"), 1, {}, 1);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error(), Errors::INVALID_TXN_STATE);
  auto unknown =
      broker.produce_transactional("nobody", txn.producer, kP0, b("a"), b("a"), 1, {}, 1);
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error(), Errors::INVALID_PRODUCER_ID_MAPPING);
  EXPECT_EQ(*broker.end_offset(kP0), 0);
  EXPECT_EQ(broker.init_producer_id("", kTimeoutMs, 1).error(), Errors::INVALID_REQUEST);
  EXPECT_EQ(broker.init_producer_id("x", 900'001, 1).error(), Errors::INVALID_TRANSACTION_TIMEOUT);
  EXPECT_EQ(broker.add_partitions_to_txn("app-1", txn.producer, {{"nope", 0}}, 1),
            Errors::UNKNOWN_TOPIC_OR_PARTITION);
}

TEST(SimBrokerTxnTest, TransactionBoundsAreKnobsThatEndTheRun) {
  // Reaching the open-transactions or transaction-partitions bound does not assert: the broker
  // goes on and names the knob, which the driver turns into a BoundReached verdict.
  SimBrokerConfig config;
  config.transactions.max_open_transactions = 1;
  auto owned = make_broker(config);
  SimBroker& broker = *owned;
  const Txn a = init(broker, "a", 0);
  const Txn c = init(broker, "c", 0);
  ASSERT_EQ(send(broker, a, kP0, "a", 1), 0);
  EXPECT_FALSE(broker.transactions().bound_reached().has_value());
  ASSERT_EQ(send(broker, c, kP1, "c", 2), 0);
  ASSERT_TRUE(broker.transactions().bound_reached().has_value());
  EXPECT_STREQ(broker.transactions().bound_reached()->knob, "broker_transactions_open_max");
  EXPECT_EQ(broker.transactions().bound_reached()->value, 1);

  SimBrokerConfig config2;
  config2.transactions.max_transaction_partitions = 1;
  auto owned2 = make_broker(config2);
  SimBroker& broker2 = *owned2;
  const Txn d = init(broker2, "d", 0);
  ASSERT_EQ(send(broker2, d, kP0, "a", 1), 0);
  EXPECT_FALSE(broker2.transactions().bound_reached().has_value());
  ASSERT_EQ(send(broker2, d, kP1, "b", 2), 0);
  ASSERT_TRUE(broker2.transactions().bound_reached().has_value());
  EXPECT_STREQ(broker2.transactions().bound_reached()->knob, "broker_transaction_partitions_max");
}

}  // namespace
}  // namespace iq::sim
