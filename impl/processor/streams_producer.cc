#include "processor/streams_producer.h"

#include "base/probe.h"

namespace iq {

std::string StreamsProducer::transactional_id(const std::string& application_id,
                                              const std::string& process_id, int32_t thread_index) {
  IQ_ASSERT(thread_index >= 1, "thread index {}", thread_index);
  return application_id + "-" + process_id + "-" + std::to_string(thread_index);
}

StreamsProducer::StreamsProducer(std::string transactional_id, ProducerFactory factory)
    : transactional_id_(std::move(transactional_id)), factory_(std::move(factory)) {
  IQ_ASSERT(!transactional_id_.empty() && factory_ != nullptr);
  producer_ = factory_(transactional_id_);
  IQ_ASSERT(producer_ != nullptr);
  ++producers_made_;
}

Status StreamsProducer::init_transaction() {
  if (transaction_initialized_) return ok_status();
  auto s = producer_->init_transactions();
  if (!s) {
    // Timeout: "will retry initializing the task in the next loop"; anything else is fatal.
    return base::unexpected(StreamsError{StreamsError::Kind::Streams,
                                         "Error encountered trying to initialize transactions [" +
                                             transactional_id_ + "]: " + s.error().to_string()});
  }
  transaction_initialized_ = true;
  return ok_status();
}

Status StreamsProducer::maybe_begin_transaction() {
  if (transaction_in_flight_) return ok_status();
  if (!transaction_initialized_) {
    // A new producer (after resetProducer) whose first user is a task that did not initialize
    // again (a standby promoted in place): Kafka's RecordCollectorImpl.initialize runs
    // initTransaction when that task initializes; here the first send or commit does it.
    auto init = producer_->init_transactions();
    if (!init) return base::unexpected(to_streams_error(init.error(), "initialize transactions"));
    transaction_initialized_ = true;
  }
  auto s = producer_->begin_transaction();
  if (!s) return base::unexpected(to_streams_error(s.error(), "begin a new transaction"));
  transaction_in_flight_ = true;
  return ok_status();
}

base::Expected<int64_t, StreamsError> StreamsProducer::send(const std::string& topic,
                                                            int32_t partition, const Bytes& key,
                                                            const std::optional<Bytes>& value,
                                                            int64_t timestamp,
                                                            const Headers& headers) {
  auto begun = maybe_begin_transaction();
  if (!begun) return base::unexpected(begun.error());
  auto offset = producer_->send(topic, partition, key, value, timestamp, headers);
  if (!offset) return base::unexpected(to_streams_error(offset.error(), "send a record"));
  return *offset;
}

Status StreamsProducer::commit_transaction(const TopicPartitionOffsets& offsets,
                                           const ConsumerGroupMetadata& group_metadata) {
  auto s = maybe_begin_transaction();
  if (!s) return s;
  auto sent = producer_->send_offsets_to_transaction(offsets, group_metadata);
  if (!sent) return base::unexpected(to_streams_error(sent.error(), "commit a transaction"));
  auto committed = producer_->commit_transaction();
  if (!committed) {
    return base::unexpected(to_streams_error(committed.error(), "commit a transaction"));
  }
  transaction_in_flight_ = false;
  IQ_PROBE("eos.transaction_committed", "a stream thread committed a transaction");
  return ok_status();
}

void StreamsProducer::abort_transaction() {
  if (!transaction_in_flight_) return;
  auto s = producer_->abort_transaction();
  transaction_in_flight_ = false;
  if (s) {
    IQ_PROBE("eos.transaction_aborted", "a stream thread aborted its transaction");
    return;
  }
  // Swallowed as Kafka swallows them: fenced (the coordinator already aborted it) or a timeout
  // (the broker aborts it at transaction.timeout.ms). Kafka's client would go on retrying the
  // abort in the background; the simulated client cannot, so the thread makes a new producer,
  // whose InitProducerId fences and aborts whatever is still open (a simplification).
  IQ_PROBE("eos.abort_swallowed", "an abort failed (fenced or timed out) and was swallowed");
  reset_producer();
}

void StreamsProducer::reset_producer() {
  producer_.reset();  // close(): the old client sends nothing more
  producer_ = factory_(transactional_id_);
  IQ_ASSERT(producer_ != nullptr);
  ++producers_made_;
  transaction_initialized_ = false;
  transaction_in_flight_ = false;
}

StreamsError StreamsProducer::to_streams_error(const ProducerError& e, const char* what) const {
  const std::string message = std::string("Error encountered trying to ") + what + " [" +
                              transactional_id_ + "]: " + e.to_string();
  switch (e.kind) {
    case ProducerError::Kind::ProducerFenced:
    case ProducerError::Kind::InvalidProducerEpoch:
    case ProducerError::Kind::CommitFailed:
      IQ_PROBE("eos.task_migrated", "a fenced producer or a failed commit meant TaskMigrated");
      return StreamsError{StreamsError::Kind::TaskMigrated, message};
    case ProducerError::Kind::Timeout:
      IQ_PROBE("eos.task_corrupted_timeout",
               "a send or commit timed out: TaskCorrupted (the broker unreachable past "
               "delivery.timeout.ms: the default campaign's rare long outages)");
      return StreamsError{StreamsError::Kind::TaskCorrupted, message};
    case ProducerError::Kind::InvalidTxnState:
    case ProducerError::Kind::Kafka:
      break;
  }
  return StreamsError{StreamsError::Kind::Streams, message};
}

}  // namespace iq
