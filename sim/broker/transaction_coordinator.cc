#include "broker/transaction_coordinator.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "base/assert.h"
#include "base/probe.h"

namespace iq::sim {

namespace {

// TransactionMetadata.isEpochExhausted: the last epochs are kept for the epoch bump of a fence.
bool epoch_exhausted(int16_t epoch) {
  return epoch >= std::numeric_limits<int16_t>::max() - 1;
}

}  // namespace

const char* control_type_name(ControlRecordType type) {
  return type == ControlRecordType::COMMIT ? "COMMIT" : "ABORT";
}

const char* transaction_state_name(TransactionState state) {
  switch (state) {
    case TransactionState::Empty:
      return "Empty";
    case TransactionState::Ongoing:
      return "Ongoing";
    case TransactionState::PrepareCommit:
      return "PrepareCommit";
    case TransactionState::PrepareAbort:
      return "PrepareAbort";
    case TransactionState::CompleteCommit:
      return "CompleteCommit";
    case TransactionState::CompleteAbort:
      return "CompleteAbort";
    case TransactionState::PrepareEpochFence:
      return "PrepareEpochFence";
  }
  return "?";
}

std::string TxnEvent::to_string() const {
  return fmt::format("{} ms {}: {}", at_ms, transactional_id, what);
}

TransactionCoordinator::TransactionCoordinator(TransactionCoordinatorConfig config,
                                               MarkerWriter& writer)
    : config_(config), writer_(writer) {
  IQ_ASSERT(config_.transaction_max_timeout_ms > 0, "{}", config_.transaction_max_timeout_ms);
  IQ_ASSERT(config_.abort_timed_out_transaction_cleanup_interval_ms > 0, "{}",
            config_.abort_timed_out_transaction_cleanup_interval_ms);
  IQ_ASSERT(config_.max_transactional_ids > 0 && config_.max_open_transactions > 0 &&
                config_.max_transaction_partitions > 0,
            "bounds {} {} {}", config_.max_transactional_ids, config_.max_open_transactions,
            config_.max_transaction_partitions);
}

base::Expected<ProducerIdAndEpoch, Errors> TransactionCoordinator::init_producer_id(
    const std::string& transactional_id, int32_t transaction_timeout_ms, int64_t now_ms) {
  tick(now_ms);
  if (transactional_id.empty()) return base::unexpected(Errors::INVALID_REQUEST);
  if (transaction_timeout_ms <= 0 || transaction_timeout_ms > config_.transaction_max_timeout_ms) {
    return base::unexpected(Errors::INVALID_TRANSACTION_TIMEOUT);
  }
  auto it = txns_.find(transactional_id);
  if (it == txns_.end()) {
    if (txns_.size() >= static_cast<size_t>(config_.max_transactional_ids)) {
      note_bound("broker_transactional_ids_max", config_.max_transactional_ids);
    }
    TransactionMetadata created;
    created.transactional_id = transactional_id;
    created.producer_id = next_producer_id_++;
    it = txns_.emplace(transactional_id, std::move(created)).first;
  }
  TransactionMetadata& txn = it->second;
  switch (txn.state) {
    case TransactionState::PrepareCommit:
    case TransactionState::PrepareAbort:
    case TransactionState::PrepareEpochFence:
      // Never left in these states here (markers are written within the call).
      IQ_ASSERT(false, "{} in {}", transactional_id, transaction_state_name(txn.state));
      return base::unexpected(Errors::CONCURRENT_TRANSACTIONS);
    case TransactionState::Ongoing:
      // The older incarnation left a transaction open: fence and abort it; the client retries.
      IQ_PROBE("txn.init_fences_ongoing",
               "InitProducerId fenced and aborted an older incarnation's open transaction");
      fence_and_abort(txn, "InitProducerId over an open transaction", now_ms);
      return base::unexpected(Errors::CONCURRENT_TRANSACTIONS);
    case TransactionState::Empty:
    case TransactionState::CompleteCommit:
    case TransactionState::CompleteAbort:
      break;
  }
  if (epoch_exhausted(txn.producer_epoch)) {
    txn.producer_id = next_producer_id_++;  // prepareProducerIdRotation
    txn.producer_epoch = 0;
  } else {
    txn.producer_epoch = static_cast<int16_t>(txn.producer_epoch + 1);  // -1 -> 0 when new
  }
  if (txn.producer_epoch > 0) {
    events_.push_back({now_ms, transactional_id,
                       fmt::format("InitProducerId: epoch {} of producer {} (older ones fenced)",
                                   txn.producer_epoch, txn.producer_id)});
  }
  txn.txn_timeout_ms = transaction_timeout_ms;
  txn.state = TransactionState::Empty;
  txn.partitions.clear();
  txn.groups.clear();
  txn.txn_start_ms = -1;
  txn.txn_last_update_ms = now_ms;
  return ProducerIdAndEpoch{txn.producer_id, txn.producer_epoch};
}

Errors TransactionCoordinator::add_partitions_to_txn(const std::string& transactional_id,
                                                     ProducerIdAndEpoch producer,
                                                     const std::vector<TopicPartition>& partitions,
                                                     int64_t now_ms) {
  tick(now_ms);
  auto it = txns_.find(transactional_id);
  TransactionMetadata* txn = it == txns_.end() ? nullptr : &it->second;
  if (Errors e = check_producer(txn, producer); e != Errors::NONE) return e;
  if (txn->state == TransactionState::PrepareCommit ||
      txn->state == TransactionState::PrepareAbort) {
    return Errors::CONCURRENT_TRANSACTIONS;
  }
  if (txn->state != TransactionState::Ongoing) {
    // prepareAddPartitions from Empty/Complete*: a new transaction starts now.
    if (open_transactions() >= config_.max_open_transactions) {
      note_bound("broker_transactions_open_max", config_.max_open_transactions);
    }
    txn->state = TransactionState::Ongoing;
    txn->txn_start_ms = now_ms;
    txn->partitions.clear();
    txn->groups.clear();
  }
  for (const auto& tp : partitions) txn->partitions.insert(tp);
  if (txn->partitions.size() + txn->groups.size() >
      static_cast<size_t>(config_.max_transaction_partitions)) {
    note_bound("broker_transaction_partitions_max", config_.max_transaction_partitions);
  }
  txn->txn_last_update_ms = now_ms;
  return Errors::NONE;
}

Errors TransactionCoordinator::add_offsets_to_txn(const std::string& transactional_id,
                                                  ProducerIdAndEpoch producer,
                                                  const std::string& group_id, int64_t now_ms) {
  tick(now_ms);
  auto it = txns_.find(transactional_id);
  TransactionMetadata* txn = it == txns_.end() ? nullptr : &it->second;
  if (Errors e = check_producer(txn, producer); e != Errors::NONE) return e;
  // Kafka adds the group's __consumer_offsets partition like any other partition.
  Errors e = add_partitions_to_txn(transactional_id, producer, {}, now_ms);
  if (e != Errors::NONE) return e;
  txn->groups.insert(group_id);
  if (txn->partitions.size() + txn->groups.size() >
      static_cast<size_t>(config_.max_transaction_partitions)) {
    note_bound("broker_transaction_partitions_max", config_.max_transaction_partitions);
  }
  return Errors::NONE;
}

Errors TransactionCoordinator::end_txn(const std::string& transactional_id,
                                       ProducerIdAndEpoch producer, ControlRecordType result,
                                       int64_t now_ms) {
  tick(now_ms);
  auto it = txns_.find(transactional_id);
  TransactionMetadata* txn = it == txns_.end() ? nullptr : &it->second;
  if (Errors e = check_producer(txn, producer); e != Errors::NONE) return e;
  switch (txn->state) {
    case TransactionState::Ongoing:
      complete(*txn, result, now_ms);
      return Errors::NONE;
    case TransactionState::CompleteCommit:
      return result == ControlRecordType::COMMIT ? Errors::NONE : Errors::INVALID_TXN_STATE;
    case TransactionState::CompleteAbort:
      return result == ControlRecordType::ABORT ? Errors::NONE : Errors::INVALID_TXN_STATE;
    case TransactionState::Empty:
      return Errors::INVALID_TXN_STATE;
    case TransactionState::PrepareCommit:
    case TransactionState::PrepareAbort:
    case TransactionState::PrepareEpochFence:
      IQ_ASSERT(false, "{} in {}", transactional_id, transaction_state_name(txn->state));
      return Errors::CONCURRENT_TRANSACTIONS;
  }
  return Errors::INVALID_TXN_STATE;
}

Errors TransactionCoordinator::verify_partition(const std::string& transactional_id,
                                                ProducerIdAndEpoch producer,
                                                const TopicPartition& tp) const {
  auto it = txns_.find(transactional_id);
  const TransactionMetadata* txn = it == txns_.end() ? nullptr : &it->second;
  const Errors e = check_producer(txn, producer);
  if (e == Errors::PRODUCER_FENCED) return Errors::INVALID_PRODUCER_EPOCH;
  if (e != Errors::NONE) return e;
  if (txn->state != TransactionState::Ongoing || !txn->partitions.contains(tp)) {
    return Errors::INVALID_TXN_STATE;
  }
  return Errors::NONE;
}

std::vector<TxnEvent> TransactionCoordinator::tick(int64_t now_ms) {
  IQ_ASSERT(now_ms >= now_ms_, "time ran backwards: {} after {}", now_ms, now_ms_);
  now_ms_ = now_ms;
  const size_t before = events_.size();
  const int64_t interval = config_.abort_timed_out_transaction_cleanup_interval_ms;
  // Only scans that can abort something matter; jump to the next one that does.
  for (int32_t scans = 0;; ++scans) {
    IQ_ASSERT(scans <= config_.max_open_transactions + 1, "{} scans in one tick", scans);
    const std::optional<int64_t> next = next_deadline_ms();
    if (!next || *next > now_ms) break;
    run_scan(*next);
  }
  last_scan_ms_ = std::max(last_scan_ms_, now_ms / interval * interval);
  return {events_.begin() + static_cast<std::ptrdiff_t>(before), events_.end()};
}

// TransactionStateManager.timedOutTransactions: txn_start + timeout < now, at scan times
// k * interval. The first scan strictly after the expiry is the one that aborts.
std::optional<int64_t> TransactionCoordinator::next_deadline_ms() const {
  const int64_t interval = config_.abort_timed_out_transaction_cleanup_interval_ms;
  std::optional<int64_t> out;
  for (const auto& [id, txn] : txns_) {
    if (txn.state != TransactionState::Ongoing) continue;
    const int64_t expiry = txn.txn_start_ms + txn.txn_timeout_ms;
    const int64_t scan = std::max(expiry / interval * interval + interval, last_scan_ms_);
    if (!out || scan < *out) out = scan;
  }
  return out;
}

void TransactionCoordinator::run_scan(int64_t scan_ms) {
  last_scan_ms_ = scan_ms;
  for (auto& [id, txn] : txns_) {
    if (txn.state != TransactionState::Ongoing) continue;
    if (txn.txn_start_ms + txn.txn_timeout_ms >= scan_ms) continue;
    IQ_PROBE("txn.timed_out", "the coordinator aborted a transaction its producer left open");
    fence_and_abort(txn,
                    fmt::format("timed out ({} ms after its start at {} ms)", txn.txn_timeout_ms,
                                txn.txn_start_ms),
                    scan_ms);
  }
}

std::vector<TxnEvent> TransactionCoordinator::take_events() {
  std::vector<TxnEvent> out = std::move(events_);
  events_.clear();
  return out;
}

std::optional<TransactionMetadata> TransactionCoordinator::describe(
    const std::string& transactional_id) const {
  auto it = txns_.find(transactional_id);
  if (it == txns_.end()) return std::nullopt;
  return it->second;
}

int32_t TransactionCoordinator::open_transactions() const {
  int32_t n = 0;
  for (const auto& [id, txn] : txns_) n += txn.state == TransactionState::Ongoing ? 1 : 0;
  return n;
}

Errors TransactionCoordinator::check_producer(const TransactionMetadata* txn,
                                              ProducerIdAndEpoch producer) const {
  if (txn == nullptr || txn->producer_id != producer.producer_id) {
    return Errors::INVALID_PRODUCER_ID_MAPPING;
  }
  if (producer.epoch != txn->producer_epoch) return Errors::PRODUCER_FENCED;
  return Errors::NONE;
}

void TransactionCoordinator::complete(TransactionMetadata& txn, ControlRecordType result,
                                      int64_t now_ms) {
  IQ_ASSERT(txn.state == TransactionState::Ongoing, "{} in {}", txn.transactional_id,
            transaction_state_name(txn.state));
  txn.state = result == ControlRecordType::COMMIT ? TransactionState::PrepareCommit
                                                  : TransactionState::PrepareAbort;
  TxnMarkers markers{txn.transactional_id, txn.producer_id, txn.producer_epoch, result,
                     txn.partitions,       txn.groups};
  writer_.write_txn_markers(markers, now_ms);
  txn.state = result == ControlRecordType::COMMIT ? TransactionState::CompleteCommit
                                                  : TransactionState::CompleteAbort;
  txn.partitions.clear();
  txn.groups.clear();
  txn.txn_last_update_ms = now_ms;
}

// prepareFenceProducerEpoch, then an abort with the fenced epoch: the markers carry it, so the
// logs refuse the old epoch from then on (INVALID_PRODUCER_EPOCH) and the coordinator answers the
// old producer PRODUCER_FENCED.
void TransactionCoordinator::fence_and_abort(TransactionMetadata& txn, const std::string& why,
                                             int64_t now_ms) {
  txn.state = TransactionState::PrepareEpochFence;
  if (!epoch_exhausted(txn.producer_epoch)) {
    txn.producer_epoch = static_cast<int16_t>(txn.producer_epoch + 1);
  }
  txn.state = TransactionState::Ongoing;
  events_.push_back({now_ms, txn.transactional_id,
                     fmt::format("{}: fenced to epoch {} of producer {}, aborted", why,
                                 txn.producer_epoch, txn.producer_id)});
  complete(txn, ControlRecordType::ABORT, now_ms);
}

void TransactionCoordinator::note_bound(const char* knob, int64_t value) {
  if (!bound_) bound_ = Bound{knob, value};
}

}  // namespace iq::sim
