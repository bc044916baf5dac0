#pragma once
// TransactionCoordinator: the broker side of Kafka's transactions (InitProducerId,
// AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, the timed-out transaction abort), as Kafka's
// TransactionCoordinator and TransactionMetadata (core/.../coordinator/transaction/) do them for
// transaction version 0 (the EOS v2 client of Streams). A state machine only: time comes in as
// `now_ms`, nothing is scheduled; the driver ticks it at next_deadline_ms().
//
// Simplified, and said so in sim/broker/README.md: the transaction log (__transaction_state) is
// not a topic; EndTxn writes its markers at once through the MarkerWriter (one broker, zero
// latency), so PrepareCommit/PrepareAbort pass straight to CompleteCommit/CompleteAbort and
// CONCURRENT_TRANSACTIONS is answered only where Kafka answers it while it fences an open
// transaction (InitProducerId over an Ongoing one). Producer ids come from a counter from 0.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/expected.h"
#include "broker/errors.h"
#include "iq/topic_partition.h"

namespace iq::sim {

inline constexpr int64_t kNoProducerId = -1;     // RecordBatch.NO_PRODUCER_ID
inline constexpr int16_t kNoProducerEpoch = -1;  // RecordBatch.NO_PRODUCER_EPOCH

enum class ControlRecordType { ABORT, COMMIT };  // Kafka's ControlRecordType (markers)
const char* control_type_name(ControlRecordType type);

// TransactionState (Kafka's names). PrepareEpochFence is passed through within one call.
enum class TransactionState {
  Empty,
  Ongoing,
  PrepareCommit,
  PrepareAbort,
  CompleteCommit,
  CompleteAbort,
  PrepareEpochFence,
};
const char* transaction_state_name(TransactionState state);

struct ProducerIdAndEpoch {
  int64_t producer_id = kNoProducerId;
  int16_t epoch = kNoProducerEpoch;
  friend bool operator==(const ProducerIdAndEpoch&, const ProducerIdAndEpoch&) = default;
};

struct TransactionCoordinatorConfig {
  int32_t transaction_max_timeout_ms = 900'000;  // transaction.max.timeout.ms
  // transaction.abort.timed.out.transaction.cleanup.interval.ms: the scan for timed-out
  // transactions runs at every multiple of it (the broker starts at 0).
  int64_t abort_timed_out_transaction_cleanup_interval_ms = 10'000;
  // Bounds (scenario knobs; reaching one sets bound_reached(), the run ends with a verdict):
  int32_t max_transactional_ids = 100'000;      // broker_transactional_ids_max
  int32_t max_open_transactions = 10'000;       // broker_transactions_open_max
  int32_t max_transaction_partitions = 10'000;  // broker_transaction_partitions_max (markers per
                                                // EndTxn, the consumer groups included)
  bool operator==(const TransactionCoordinatorConfig&) const = default;
};

// TransactionMetadata, as DescribeTransactions shows it.
struct TransactionMetadata {
  std::string transactional_id;
  int64_t producer_id = kNoProducerId;
  int16_t producer_epoch = kNoProducerEpoch;
  int32_t txn_timeout_ms = 0;
  TransactionState state = TransactionState::Empty;
  std::set<TopicPartition> partitions;  // the data partitions of the open transaction
  std::set<std::string> groups;         // consumer groups added by AddOffsetsToTxn
  int64_t txn_start_ms = -1;            // when the open transaction got its first partition
  int64_t txn_last_update_ms = 0;
};

// What EndTxn (or a fence, or a timeout) has the broker write: one marker per partition, and the
// groups' pending transactional offsets completed.
struct TxnMarkers {
  std::string transactional_id;
  int64_t producer_id = kNoProducerId;
  int16_t producer_epoch = kNoProducerEpoch;
  ControlRecordType result = ControlRecordType::ABORT;
  std::set<TopicPartition> partitions;
  std::set<std::string> groups;
};

// Trace of the coordinator's decisions that no client asked for (fences and timeouts).
struct TxnEvent {
  int64_t at_ms = 0;
  std::string transactional_id;
  std::string what;  // "fenced epoch 3 (InitProducerId)", "timed out: aborted with epoch 4"
  std::string to_string() const;
};

class TransactionCoordinator {
 public:
  // Writes markers: SimBroker, which owns the logs and the group coordinator.
  class MarkerWriter {
   public:
    virtual ~MarkerWriter() = default;
    virtual void write_txn_markers(const TxnMarkers& markers, int64_t now_ms) = 0;
  };

  TransactionCoordinator(TransactionCoordinatorConfig config, MarkerWriter& writer);

  // InitProducerId: a new transactional id gets a fresh producer id and epoch 0; a known one gets
  // its epoch bumped (a new producer id once the epoch is exhausted), which fences every older
  // incarnation. Over an Ongoing transaction: fences it (epoch + 1), aborts it (markers with the
  // fenced epoch) and answers CONCURRENT_TRANSACTIONS; the client's retry bumps again.
  // INVALID_REQUEST for an empty id, INVALID_TRANSACTION_TIMEOUT above the maximum.
  [[nodiscard]] base::Expected<ProducerIdAndEpoch, Errors> init_producer_id(
      const std::string& transactional_id, int32_t transaction_timeout_ms, int64_t now_ms);

  // AddPartitionsToTxn (the caller checked that the partitions exist). The first partition of a
  // transaction starts it (Ongoing, txn_start_ms = now).
  [[nodiscard]] Errors add_partitions_to_txn(const std::string& transactional_id,
                                             ProducerIdAndEpoch producer,
                                             const std::vector<TopicPartition>& partitions,
                                             int64_t now_ms);
  // AddOffsetsToTxn: the group's offsets partition joins the transaction.
  [[nodiscard]] Errors add_offsets_to_txn(const std::string& transactional_id,
                                          ProducerIdAndEpoch producer, const std::string& group_id,
                                          int64_t now_ms);
  // EndTxn: markers of `result` to every partition and group of the transaction. A retried
  // EndTxn of the same result after completion is NONE; the other result INVALID_TXN_STATE.
  [[nodiscard]] Errors end_txn(const std::string& transactional_id, ProducerIdAndEpoch producer,
                               ControlRecordType result, int64_t now_ms);
  // The produce-time check of KIP-890 (transaction.partition.verification.enable, on by default):
  // a transactional append must belong to the producer's Ongoing transaction on that partition.
  // INVALID_PRODUCER_ID_MAPPING, INVALID_PRODUCER_EPOCH (a fenced epoch, as ReplicaManager maps
  // PRODUCER_FENCED for a produce) or INVALID_TXN_STATE.
  [[nodiscard]] Errors verify_partition(const std::string& transactional_id,
                                        ProducerIdAndEpoch producer,
                                        const TopicPartition& tp) const;

  // Runs the timed-out-transaction scans due by now_ms: each Ongoing transaction whose
  // txn_start_ms + timeout < scan time is fenced (epoch + 1) and aborted. Returns their events.
  std::vector<TxnEvent> tick(int64_t now_ms);
  // The next scan that will abort something, if any transaction is open.
  std::optional<int64_t> next_deadline_ms() const;
  // Events so far (fences, timeouts), drained.
  std::vector<TxnEvent> take_events();

  std::optional<TransactionMetadata> describe(const std::string& transactional_id) const;
  int32_t open_transactions() const;
  size_t transactional_ids() const { return txns_.size(); }

  // A knob's bound was reached: its name and value ("broker_transactions_open_max", 10000).
  struct Bound {
    const char* knob;
    int64_t value;
  };
  std::optional<Bound> bound_reached() const { return bound_; }

 private:
  // The checks every request of a known producer passes first: INVALID_PRODUCER_ID_MAPPING,
  // PRODUCER_FENCED.
  Errors check_producer(const TransactionMetadata* txn, ProducerIdAndEpoch producer) const;
  // Writes the markers and moves the transaction to CompleteCommit/CompleteAbort.
  void complete(TransactionMetadata& txn, ControlRecordType result, int64_t now_ms);
  void fence_and_abort(TransactionMetadata& txn, const std::string& why, int64_t now_ms);
  void note_bound(const char* knob, int64_t value);
  void run_scan(int64_t scan_ms);

  TransactionCoordinatorConfig config_;
  MarkerWriter& writer_;
  std::map<std::string, TransactionMetadata> txns_;
  int64_t next_producer_id_ = 0;
  int64_t now_ms_ = 0;
  int64_t last_scan_ms_ = 0;  // scans ran at every interval multiple up to here
  std::vector<TxnEvent> events_;
  std::optional<Bound> bound_;
};

}  // namespace iq::sim
