#pragma once
// StreamsProducer (PI/StreamsProducer.java) under exactly_once_v2: the one transactional producer
// of a stream thread, shared by all its active tasks, and the RecordCollector they send through
// (RecordCollectorImpl's error handling folded in). It tracks whether a transaction is in flight
// and maps the client's exceptions to what they mean for the tasks:
// - ProducerFenced, InvalidProducerEpoch, CommitFailed: TaskMigratedException (close the tasks
//   dirty, abort, make a new producer, rejoin);
// - Timeout on a send or a commit: TaskCorruptedException (DefaultProductionExceptionHandler
//   answers RETRY to a retriable error, and TaskExecutor.commitOffsetsOrTransaction marks the
//   committing tasks corrupted on a timeout: wipe and restore);
// - anything else: StreamsException (a thread failure).
// At-least-once keeps using the plain RecordCollector; nothing here is built then.

#include <functional>
#include <memory>
#include <string>

#include "io/producer.h"
#include "io/record_collector.h"

namespace iq {

class StreamsProducer final : public RecordCollector {
 public:
  // Makes a new client with the given transactional.id (Kafka's clientSupplier.getProducer): at
  // construction and again on every resetProducer.
  using ProducerFactory = std::function<std::unique_ptr<Producer>(const std::string&)>;

  // ActiveTaskCreator.producer(): transactional.id = <application.id>-<process id>-<thread index>
  // (the index from 1, as KafkaStreams numbers its threads).
  static std::string transactional_id(const std::string& application_id,
                                      const std::string& process_id, int32_t thread_index);

  StreamsProducer(std::string transactional_id, ProducerFactory factory);

  // initTransaction: once per producer (RecordCollectorImpl.initialize, at task initialization).
  // A timeout is returned as a Streams error the caller retries on its next loop.
  [[nodiscard]] Status init_transaction();
  bool transaction_initialized() const { return transaction_initialized_; }
  // send: maybeBeginTransaction first, then the client's send.
  [[nodiscard]] base::Expected<int64_t, StreamsError> send(const std::string& topic,
                                                           int32_t partition, const Bytes& key,
                                                           const std::optional<Bytes>& value,
                                                           int64_t timestamp,
                                                           const Headers& headers) override;
  // commitTransaction: maybeBeginTransaction, sendOffsetsToTransaction with the consumer's group
  // metadata, then commitTransaction.
  [[nodiscard]] Status commit_transaction(const TopicPartitionOffsets& offsets,
                                          const ConsumerGroupMetadata& group_metadata);
  // abortTransaction: only if a transaction is in flight; fencing and timeouts are swallowed
  // (the broker aborts the transaction itself: fenced by a newer epoch, or at its timeout).
  void abort_transaction();
  // resetProducer (ActiveTaskCreator.reInitializeProducer, after handleLostAll): the old client
  // is dropped and a new one made with the same transactional.id; initTransaction runs again.
  void reset_producer();
  bool transaction_in_flight() const { return transaction_in_flight_; }
  const std::string& transactional_id() const { return transactional_id_; }
  uint64_t producers_made() const { return producers_made_; }

 private:
  [[nodiscard]] Status maybe_begin_transaction();
  StreamsError to_streams_error(const ProducerError& e, const char* what) const;

  std::string transactional_id_;
  ProducerFactory factory_;
  std::unique_ptr<Producer> producer_;
  bool transaction_initialized_ = false;
  bool transaction_in_flight_ = false;
  uint64_t producers_made_ = 0;
};

}  // namespace iq
