#pragma once
// SimBroker: one simulated Kafka broker holding every topic, every partition's log, and the group
// coordinator with the committed offsets. A state machine only: calls take `now_ms` where time
// matters, nothing is scheduled, and the network and event loop that carry requests to it live
// elsewhere.
//
// What a partition is here: an append-only log of ConsumerRecords with offsets from 0, a log start
// offset (0 unless delete_records moved it) and a high watermark. There is one replica and
// acks=all means "appended", so the high watermark is the log end offset and a produced record is
// readable as soon as produce returns. Not modelled: log compaction (changelogs keep every
// record, so a restore replays all of them), retention by time or size, transactions and the last
// stable offset (at-least-once only), leader changes, request size limits.

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"
#include "broker/errors.h"
#include "broker/group_coordinator.h"
#include "io/record.h"
#include "iq/bytes.h"
#include "iq/topic_partition.h"

namespace iq::sim {

inline constexpr int64_t kNoTimestamp = -1;  // Kafka's RecordBatch.NO_TIMESTAMP

struct SimBrokerConfig {
  int64_t max_total_records = 10'000'000;  // bound on retained records: bound_reached()
  int32_t max_partitions_per_topic = 1'024;
  GroupCoordinatorConfig coordinator;
  bool operator==(const SimBrokerConfig&) const = default;
};

class SimBroker {
 public:
  explicit SimBroker(SimBrokerConfig config = {});

  // CreateTopics. Creating an existing topic with the same partition count is a no-op (NONE);
  // with another count it is TOPIC_ALREADY_EXISTS. Source and changelog topics alike.
  [[nodiscard]] Errors create_topic(const std::string& topic, int32_t partitions);
  std::optional<int32_t> partition_count(const std::string& topic) const;
  std::vector<std::string> topics() const;  // sorted

  // Produce with acks=all: appends and returns the record's offset. A timestamp of kNoTimestamp
  // takes now_ms (the producer stamps records it was given none for).
  [[nodiscard]] base::Expected<int64_t, Errors> produce(const TopicPartition& tp,
                                                        std::optional<Bytes> key,
                                                        std::optional<Bytes> value,
                                                        int64_t timestamp, Headers headers,
                                                        int64_t now_ms);

  // Fetch: up to max_records records from from_offset on, below the high watermark. Empty at the
  // end of the log; OFFSET_OUT_OF_RANGE below the log start or past the end.
  [[nodiscard]] base::Expected<std::vector<ConsumerRecord>, Errors> fetch(
      const TopicPartition& tp, int64_t from_offset, int32_t max_records) const;

  // ListOffsets LATEST: the next offset to be written (= high watermark = log end offset).
  [[nodiscard]] base::Expected<int64_t, Errors> end_offset(const TopicPartition& tp) const;
  // ListOffsets EARLIEST: the log start offset.
  [[nodiscard]] base::Expected<int64_t, Errors> beginning_offset(const TopicPartition& tp) const;
  // When the broker appended the record at `offset` (its log append time, whatever timestamp the
  // record carries). Observers only: reports measure staleness in virtual ms with it.
  // OFFSET_OUT_OF_RANGE outside [log start, log end).
  [[nodiscard]] base::Expected<int64_t, Errors> append_time_ms(const TopicPartition& tp,
                                                               int64_t offset) const;
  // DeleteRecords (Streams purges repartition topics with it): moves the log start offset up to
  // before_offset and returns the new log start. OFFSET_OUT_OF_RANGE past the high watermark.
  [[nodiscard]] base::Expected<int64_t, Errors> delete_records(const TopicPartition& tp,
                                                               int64_t before_offset);

  // OffsetCommit: every partition must exist (else UNKNOWN_TOPIC_OR_PARTITION and nothing is
  // committed); then the group coordinator validates member and generation and stores them.
  [[nodiscard]] Errors commit_offsets(const std::string& group_id, int32_t generation_id,
                                      const std::string& member_id, const OffsetCommitMap& offsets,
                                      int64_t now_ms);
  // OffsetFetch.
  std::optional<OffsetAndMetadata> committed(const std::string& group_id,
                                             const TopicPartition& tp) const;

  GroupCoordinator& coordinator() { return coordinator_; }
  const GroupCoordinator& coordinator() const { return coordinator_; }

  int64_t total_records() const { return total_records_; }
  // A produce found the broker holding max_total_records.
  bool bound_reached() const { return bound_reached_; }
  int64_t records_max() const { return config_.max_total_records; }

 private:
  struct PartitionLog {
    int64_t log_start_offset = 0;
    std::deque<ConsumerRecord> records;  // records[i].offset == log_start_offset + i
    std::deque<int64_t> append_ms;       // append_ms[i]: when records[i] was appended
    int64_t end_offset() const { return log_start_offset + static_cast<int64_t>(records.size()); }
  };

  PartitionLog* find(const TopicPartition& tp);
  const PartitionLog* find(const TopicPartition& tp) const;

  SimBrokerConfig config_;
  bool bound_reached_ = false;
  std::map<std::string, std::vector<PartitionLog>> topics_;
  int64_t total_records_ = 0;
  int64_t now_ms_ = 0;  // the latest produce time; time never runs backwards
  GroupCoordinator coordinator_;
};

}  // namespace iq::sim
