#pragma once
// The client seams Streams uses to read from the broker: the main consumer (input partitions)
// and the restore consumer (changelog partitions), plus the admin calls for end offsets.
//
// All calls are synchronous and never block: sim/ moves records into the consumer's fetch buffer
// as its simulated network delivers them, and poll() hands out what has arrived. The real
// Kafka consumer's poll(timeout) maps onto one such call per StreamThread step.

#include <map>
#include <optional>
#include <vector>

#include "io/record.h"
#include "iq/isolation_level.h"
#include "iq/status.h"
#include "iq/topic_partition.h"

namespace iq {

// IsolationLevel (org.apache.kafka.common.IsolationLevel): iq/isolation_level.h.

class Consumer {
 public:
  virtual ~Consumer() = default;
  // Replaces the manual assignment (Streams' restore consumer uses assign(), never subscribe()).
  virtual void assign(const std::vector<TopicPartition>& partitions) = 0;
  virtual std::vector<TopicPartition> assignment() const = 0;
  // The next offset to fetch.
  virtual void seek(const TopicPartition& tp, int64_t next_offset) = 0;
  virtual void seek_to_beginning(const TopicPartition& tp) = 0;
  virtual std::optional<int64_t> position(const TopicPartition& tp) const = 0;
  virtual void pause(const std::vector<TopicPartition>& partitions) = 0;
  virtual void resume(const std::vector<TopicPartition>& partitions) = 0;
  // Up to max_records fetched records of assigned, unpaused partitions, in offset order per
  // partition. Never waits.
  virtual std::vector<ConsumerRecord> poll(size_t max_records) = 0;
};

class Admin {
 public:
  virtual ~Admin() = default;
  // ListOffsets(LATEST): the log end offset (next offset to be written) of each partition.
  [[nodiscard]] virtual base::Expected<TopicPartitionOffsets, StreamsError> end_offsets(
      const std::vector<TopicPartition>& partitions) = 0;
  // ListOffsets(LATEST) with an isolation level (Kafka's ListOffsetsOptions(isolationLevel)):
  // READ_UNCOMMITTED is end_offsets(); READ_COMMITTED is each partition's last stable
  // offset, the first offset of its oldest open transaction (or the high watermark if none is
  // open). An Admin that knows no transactions answers READ_COMMITTED with an error.
  [[nodiscard]] virtual base::Expected<TopicPartitionOffsets, StreamsError> list_end_offsets(
      const std::vector<TopicPartition>& partitions, IsolationLevel isolation_level) {
    if (isolation_level == IsolationLevel::READ_UNCOMMITTED) return end_offsets(partitions);
    return base::unexpected(StreamsError{StreamsError::Kind::UnsupportedOperation,
                                         "listOffsets(READ_COMMITTED) is not supported here"});
  }
};

}  // namespace iq
