#pragma once
// Producer: the transactional producer API that exactly_once_v2 needs (Kafka's
// KafkaProducer.initTransactions / beginTransaction / send / sendOffsetsToTransaction /
// commitTransaction / abortTransaction), as a seam sim/ implements. At-least-once keeps using
// RecordCollector (io/record_collector.h); nothing here changes it.
//
// Calls are synchronous and never block, like the other seams: sim/ answers them at once (zero
// latency) and fails them while the broker is unreachable. Errors are values named after the
// client's exceptions; Streams' StreamsProducer decides what each means for its tasks (fenced:
// TaskMigratedException; abortable: abort and retry).

#include <cstdint>
#include <optional>
#include <string>

#include "base/expected.h"
#include "io/record.h"
#include "iq/status.h"
#include "iq/topic_partition.h"

namespace iq {

// Kafka's ConsumerGroupMetadata: what sendOffsetsToTransaction carries so that the group
// coordinator can fence a zombie by its generation and member id (KIP-447, EOS v2).
struct ConsumerGroupMetadata {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  friend bool operator==(const ConsumerGroupMetadata&, const ConsumerGroupMetadata&) = default;
};

struct ProducerError {
  enum class Kind {
    ProducerFenced,        // ProducerFencedException: a newer incarnation of the transactional.id
                           // exists; fatal for this producer (Streams: TaskMigratedException)
    InvalidProducerEpoch,  // InvalidProducerEpochException: a send met a bumped epoch (the
                           // transaction timed out and was aborted); abort, then reinitialize
    InvalidTxnState,       // InvalidTxnStateException: a call that does not fit the state
    CommitFailed,          // CommitFailedException: sendOffsetsToTransaction from a member the
                           // group no longer knows, or from an older generation (a zombie)
    Timeout,               // TimeoutException: the broker could not be reached
    Kafka,                 // KafkaException: anything else (an unknown partition, a broker bound)
  };
  Kind kind;
  std::string message;

  static const char* kind_name(Kind k) {
    switch (k) {
      case Kind::ProducerFenced:
        return "ProducerFencedException";
      case Kind::InvalidProducerEpoch:
        return "InvalidProducerEpochException";
      case Kind::InvalidTxnState:
        return "InvalidTxnStateException";
      case Kind::CommitFailed:
        return "CommitFailedException";
      case Kind::Timeout:
        return "TimeoutException";
      case Kind::Kafka:
        return "KafkaException";
    }
    return "?";
  }
  std::string to_string() const { return std::string(kind_name(kind)) + ": " + message; }
};

using ProducerStatus = base::Expected<Unit, ProducerError>;

class Producer {
 public:
  virtual ~Producer() = default;
  // InitProducerId for the producer's transactional.id: gets a producer id and a new epoch, which
  // fences every older incarnation of the same transactional.id (their next call fails with
  // ProducerFenced) and aborts a transaction an older incarnation left open. Call once before
  // the first transaction, and again after InvalidProducerEpoch.
  [[nodiscard]] virtual ProducerStatus init_transactions() = 0;
  // Starts a transaction (client-side only, as in Kafka: the broker learns of it with the first
  // partition added).
  [[nodiscard]] virtual ProducerStatus begin_transaction() = 0;
  // Inside a transaction: adds the partition to it first if needed (AddPartitionsToTxn), then
  // appends (acks=all) and returns the record's offset. Outside one: InvalidTxnState.
  [[nodiscard]] virtual base::Expected<int64_t, ProducerError> send(
      const std::string& topic, int32_t partition, const Bytes& key,
      const std::optional<Bytes>& value, int64_t timestamp, const Headers& headers) = 0;
  // The consumed offsets (next offsets to read) become part of the transaction: AddOffsetsToTxn
  // then TxnOffsetCommit with the group metadata, which the group coordinator checks like an
  // offset commit (unknown member or older generation: CommitFailed). They become visible to
  // OffsetFetch only when the transaction commits.
  [[nodiscard]] virtual ProducerStatus send_offsets_to_transaction(
      const TopicPartitionOffsets& offsets, const ConsumerGroupMetadata& group_metadata) = 0;
  // EndTxn(COMMIT): the broker writes a COMMIT marker to every partition in the transaction and
  // makes its offsets visible; read_committed consumers then see its records.
  [[nodiscard]] virtual ProducerStatus commit_transaction() = 0;
  // EndTxn(ABORT): ABORT markers; read_committed consumers never see its records.
  [[nodiscard]] virtual ProducerStatus abort_transaction() = 0;
  // The transaction is open (begin_transaction succeeded and it has not ended yet).
  virtual bool in_transaction() const = 0;
};

}  // namespace iq
