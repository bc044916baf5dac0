#pragma once
// SimTransactionalProducer (iq::Producer): Kafka's transactional producer client (KafkaProducer
// with its TransactionManager) over the BrokerService, from one instance's node. Like the
// at-least-once SimRecordCollector, every call reaches the broker with zero latency and fails with
// TimeoutException while the instance's link to the broker is cut.
//
// The client state machine follows TransactionManager: UNINITIALIZED -> READY (initTransactions)
// -> IN_TRANSACTION (beginTransaction) -> READY (commit or abort). A refused send or offset commit
// (InvalidProducerEpoch, CommitFailed) leaves ABORTABLE_ERROR: only abort_transaction is allowed.
// PRODUCER_FENCED from the coordinator leaves FATAL_ERROR: every later call fails with
// ProducerFenced. Partitions join the transaction on their first send (AddPartitionsToTxn), the
// group on sendOffsetsToTransaction (AddOffsetsToTxn); a transaction that added nothing ends on
// the client alone, as Kafka's does.
//
// With a ProcessGate (the instance's), a crash that lands inside an operation counts each send
// (CrashInsideAt::kSend) and each commitTransaction (kCommit): from the call it lands at on, the
// process is dead to the world and nothing more reaches the broker (a send answers a made-up
// offset past the log end, as SimRecordCollector does; every other call answers success), so a
// crash at a commit leaves the transaction open until the coordinator's timeout aborts it.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "cluster/broker_service.h"
#include "cluster/sim_clients.h"
#include "io/producer.h"

namespace iq::sim {

struct SimProducerConfig {
  std::string transactional_id;             // transactional.id
  int32_t transaction_timeout_ms = 10'000;  // transaction.timeout.ms (Streams' EOS default)
  bool operator==(const SimProducerConfig&) const = default;
};

class SimTransactionalProducer final : public Producer {
 public:
  enum class State { UNINITIALIZED, READY, IN_TRANSACTION, ABORTABLE_ERROR, FATAL_ERROR };

  SimTransactionalProducer(BrokerService& service, std::string node, SimProducerConfig config,
                           ProcessGate* gate = nullptr);

  ProducerStatus init_transactions() override;
  ProducerStatus begin_transaction() override;
  base::Expected<int64_t, ProducerError> send(const std::string& topic, int32_t partition,
                                              const Bytes& key, const std::optional<Bytes>& value,
                                              int64_t timestamp, const Headers& headers) override;
  ProducerStatus send_offsets_to_transaction(const TopicPartitionOffsets& offsets,
                                             const ConsumerGroupMetadata& group_metadata) override;
  ProducerStatus commit_transaction() override;
  ProducerStatus abort_transaction() override;
  bool in_transaction() const override { return state_ == State::IN_TRANSACTION; }

  // Observing, for tests.
  State state() const { return state_; }
  ProducerIdAndEpoch producer_id_and_epoch() const { return producer_; }

 private:
  // The refusal of a call in the wrong state, or nullopt.
  std::optional<ProducerError> check_state(const char* call, bool abort = false) const;
  // Maps a broker error to the client's exception and moves to the state it leaves.
  ProducerError fail(const char* call, Errors e);
  ProducerStatus end(ControlRecordType result);
  bool unreachable() const { return !service_.reachable(node_); }
  bool dead() const { return gate_ != nullptr && gate_->dead(); }
  ProducerError timeout(const char* call) const;

  BrokerService& service_;
  std::string node_;
  SimProducerConfig config_;
  ProcessGate* gate_;
  std::map<TopicPartition, int64_t> dropped_;  // sends of a dead process, per partition
  State state_ = State::UNINITIALIZED;
  ProducerIdAndEpoch producer_;
  std::set<TopicPartition> partitions_;  // added to the open transaction
  std::set<std::string> groups_;         // added by AddOffsetsToTxn
  std::optional<ProducerError> abortable_;
};

const char* producer_state_name(SimTransactionalProducer::State state);

}  // namespace iq::sim
