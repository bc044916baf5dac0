#include "cluster/sim_producer.h"

#include <fmt/format.h>

#include "base/assert.h"
#include "base/probe.h"

namespace iq::sim {

namespace {

// initTransactions retries CONCURRENT_TRANSACTIONS (the coordinator was fencing an open
// transaction of an older incarnation). Markers are written within the call here, so the first
// retry succeeds; the bound only keeps the loop finite.
constexpr int kInitAttemptsMax = 3;

}  // namespace

const char* producer_state_name(SimTransactionalProducer::State state) {
  using S = SimTransactionalProducer::State;
  switch (state) {
    case S::UNINITIALIZED:
      return "UNINITIALIZED";
    case S::READY:
      return "READY";
    case S::IN_TRANSACTION:
      return "IN_TRANSACTION";
    case S::ABORTABLE_ERROR:
      return "ABORTABLE_ERROR";
    case S::FATAL_ERROR:
      return "FATAL_ERROR";
  }
  return "?";
}

SimTransactionalProducer::SimTransactionalProducer(BrokerService& service, std::string node,
                                                   SimProducerConfig config, ProcessGate* gate)
    : service_(service), node_(std::move(node)), config_(std::move(config)), gate_(gate) {
  IQ_ASSERT(!config_.transactional_id.empty(), "{}: a transactional producer needs an id", node_);
}

ProducerStatus SimTransactionalProducer::init_transactions() {
  if (state_ != State::UNINITIALIZED) {
    if (state_ == State::FATAL_ERROR) return base::unexpected(*abortable_);
    return base::unexpected(
        ProducerError{ProducerError::Kind::InvalidTxnState,
                      "initTransactions in state " + std::string(producer_state_name(state_))});
  }
  if (dead()) return Unit{};  // nothing reaches the broker; the process is gone
  for (int attempt = 1;; ++attempt) {
    if (unreachable()) return base::unexpected(timeout("initTransactions"));
    auto r = service_.broker().init_producer_id(config_.transactional_id,
                                                config_.transaction_timeout_ms, service_.now_ms());
    service_.after_call();
    if (r) {
      producer_ = *r;
      state_ = State::READY;
      return Unit{};
    }
    if (r.error() != Errors::CONCURRENT_TRANSACTIONS || attempt == kInitAttemptsMax) {
      return base::unexpected(fail("initTransactions", r.error()));
    }
  }
}

ProducerStatus SimTransactionalProducer::begin_transaction() {
  if (state_ == State::FATAL_ERROR) return base::unexpected(*abortable_);
  if (state_ != State::READY) {
    return base::unexpected(
        ProducerError{ProducerError::Kind::InvalidTxnState,
                      "beginTransaction in state " + std::string(producer_state_name(state_))});
  }
  state_ = State::IN_TRANSACTION;
  partitions_.clear();
  groups_.clear();
  return Unit{};
}

base::Expected<int64_t, ProducerError> SimTransactionalProducer::send(
    const std::string& topic, int32_t partition, const Bytes& key,
    const std::optional<Bytes>& value, int64_t timestamp, const Headers& headers) {
  const TopicPartition tp{topic, partition};
  if (gate_ != nullptr &&
      gate_->dies_at(CrashInsideAt::kSend, "send " + topic + "-" + std::to_string(partition),
                     CrashSubject::send_to(topic, partition))) {
    const auto end = service_.broker().end_offset(tp);
    return (end ? *end : 0) + dropped_[tp]++;
  }
  if (auto e = check_state("send")) return base::unexpected(*e);
  if (unreachable()) return base::unexpected(timeout("send"));
  SimBroker& broker = service_.broker();
  if (!partitions_.contains(tp)) {
    const Errors e =
        broker.add_partitions_to_txn(config_.transactional_id, producer_, {tp}, service_.now_ms());
    service_.after_call();
    if (e != Errors::NONE) return base::unexpected(fail("AddPartitionsToTxn", e));
    partitions_.insert(tp);
  }
  auto offset = broker.produce_transactional(config_.transactional_id, producer_, tp, key, value,
                                             timestamp, headers, service_.now_ms());
  service_.after_call();
  if (!offset) return base::unexpected(fail("send", offset.error()));
  service_.record_writer(tp, *offset, node_);
  return *offset;
}

ProducerStatus SimTransactionalProducer::send_offsets_to_transaction(
    const TopicPartitionOffsets& offsets, const ConsumerGroupMetadata& group_metadata) {
  if (dead()) return Unit{};
  if (auto e = check_state("sendOffsetsToTransaction")) return base::unexpected(*e);
  if (unreachable()) return base::unexpected(timeout("sendOffsetsToTransaction"));
  SimBroker& broker = service_.broker();
  if (!groups_.contains(group_metadata.group_id)) {
    const Errors e = broker.add_offsets_to_txn(config_.transactional_id, producer_,
                                               group_metadata.group_id, service_.now_ms());
    service_.after_call();
    if (e != Errors::NONE) return base::unexpected(fail("AddOffsetsToTxn", e));
    groups_.insert(group_metadata.group_id);
  }
  OffsetCommitMap map;
  for (const auto& [tp, offset] : offsets) map.emplace(tp, OffsetAndMetadata(offset));
  const Errors e = broker.txn_offset_commit(config_.transactional_id, producer_,
                                            group_metadata.group_id, group_metadata.generation_id,
                                            group_metadata.member_id, map, service_.now_ms());
  service_.after_call();
  if (e != Errors::NONE) return base::unexpected(fail("TxnOffsetCommit", e));
  return Unit{};
}

ProducerStatus SimTransactionalProducer::commit_transaction() {
  // A dead process's EndTxn never reaches the coordinator: the transaction stays open.
  if (gate_ != nullptr &&
      gate_->dies_at(CrashInsideAt::kCommit, config_.transactional_id + " commitTransaction")) {
    return Unit{};
  }
  if (state_ == State::ABORTABLE_ERROR) {
    return base::unexpected(
        ProducerError{ProducerError::Kind::Kafka,
                      "Cannot commit: the transaction is in an abortable error state: " +
                          abortable_->to_string()});
  }
  return end(ControlRecordType::COMMIT);
}

ProducerStatus SimTransactionalProducer::abort_transaction() {
  if (dead()) return Unit{};
  return end(ControlRecordType::ABORT);
}

ProducerStatus SimTransactionalProducer::end(ControlRecordType result) {
  const char* call = result == ControlRecordType::COMMIT ? "commitTransaction" : "abortTransaction";
  if (auto e = check_state(call, result == ControlRecordType::ABORT)) return base::unexpected(*e);
  if (partitions_.empty() && groups_.empty()) {
    // Nothing reached the broker: the transaction ends on the client.
    state_ = State::READY;
    abortable_.reset();
    return Unit{};
  }
  if (unreachable()) return base::unexpected(timeout(call));
  const Errors e =
      service_.broker().end_txn(config_.transactional_id, producer_, result, service_.now_ms());
  service_.after_call();
  if (e != Errors::NONE) return base::unexpected(fail(call, e));
  state_ = State::READY;
  abortable_.reset();
  partitions_.clear();
  groups_.clear();
  return Unit{};
}

std::optional<ProducerError> SimTransactionalProducer::check_state(const char* call,
                                                                   bool abort) const {
  if (state_ == State::FATAL_ERROR) return abortable_;
  if (state_ == State::ABORTABLE_ERROR && !abort) return abortable_;
  if (state_ == State::IN_TRANSACTION || (abort && state_ == State::ABORTABLE_ERROR)) {
    return std::nullopt;
  }
  return ProducerError{
      ProducerError::Kind::InvalidTxnState,
      fmt::format("{} in state {}: no transaction is open", call, producer_state_name(state_))};
}

ProducerError SimTransactionalProducer::fail(const char* call, Errors e) {
  const std::string what =
      fmt::format("{} of {} (producer {} epoch {}): {}", call, config_.transactional_id,
                  producer_.producer_id, producer_.epoch, errors_name(e));
  ProducerError error{ProducerError::Kind::Kafka, what};
  switch (e) {
    case Errors::PRODUCER_FENCED:
      // A newer incarnation (or the coordinator's timeout) bumped the epoch: fatal.
      IQ_PROBE("txn.client_fenced", "a transactional producer learned it was fenced");
      error.kind = ProducerError::Kind::ProducerFenced;
      state_ = State::FATAL_ERROR;
      abortable_ = error;
      return error;
    case Errors::INVALID_PRODUCER_EPOCH:
      error.kind = ProducerError::Kind::InvalidProducerEpoch;
      break;
    case Errors::INVALID_TXN_STATE:
      error.kind = ProducerError::Kind::InvalidTxnState;
      break;
    case Errors::UNKNOWN_MEMBER_ID:
    case Errors::ILLEGAL_GENERATION:
      error.kind = ProducerError::Kind::CommitFailed;
      break;
    default:
      break;
  }
  if (state_ == State::IN_TRANSACTION || state_ == State::ABORTABLE_ERROR) {
    state_ = State::ABORTABLE_ERROR;
    abortable_ = error;
  }
  return error;
}

ProducerError SimTransactionalProducer::timeout(const char* call) const {
  // Kafka's client would throw TimeoutException after max.block.ms; the simulation fails at once.
  return ProducerError{ProducerError::Kind::Timeout,
                       fmt::format("{} from {}: broker unreachable", call, node_)};
}

}  // namespace iq::sim
