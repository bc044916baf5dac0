#pragma once
// SimBroker: one simulated Kafka broker holding every topic, every partition's log, the group
// coordinator with the committed offsets, and the transaction coordinator. A state machine only:
// calls take `now_ms` where time matters, nothing is scheduled, and the network and event loop
// that carry requests to it live elsewhere (cluster/broker_service.h ticks it).
//
// What a partition is here: a log of entries (data records and transaction markers) with offsets
// from 0, a log start offset (0 unless delete_records moved it), a high watermark and a last
// stable offset. There is one replica and acks=all means "appended", so the high watermark is the
// log end offset and a produced record is readable by read_uncommitted as soon as produce
// returns. Transactions (producer ids and epochs, markers that take offsets, aborted-transaction
// index, read_committed up to the LSO) follow Kafka's ProducerStateManager and UnifiedLog; log
// compaction follows Kafka's LogCleaner, for topics created with cleanup.policy=compact while
// log.cleaner.enable is on. Not modelled: retention by time or size, leader changes, idempotent
// sequence numbers, request size limits (a fetch counts records, not bytes).

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"
#include "base/prng.h"
#include "broker/errors.h"
#include "broker/group_coordinator.h"
#include "broker/transaction_coordinator.h"
#include "io/consumer.h"
#include "io/record.h"
#include "iq/bytes.h"
#include "iq/topic_partition.h"

namespace iq::sim {

inline constexpr int64_t kNoTimestamp = -1;  // Kafka's RecordBatch.NO_TIMESTAMP

enum class CleanupPolicy { kDelete, kCompact };  // cleanup.policy (kDelete: nothing is removed)

// A topic's configuration (Kafka's LogConfig), defaults as Kafka's.
struct TopicConfig {
  CleanupPolicy cleanup_policy = CleanupPolicy::kDelete;  // cleanup.policy
  int64_t segment_bytes = 1'073'741'824;                  // segment.bytes
  int64_t segment_ms = 604'800'000;                       // segment.ms (7 days)
  int64_t delete_retention_ms = 86'400'000;               // delete.retention.ms (1 day)
  base::Ratio min_cleanable_dirty_ratio{1, 2};            // min.cleanable.dirty.ratio (0.5)
  bool operator==(const TopicConfig&) const = default;
};

// The log cleaner (Kafka's LogCleaner with one thread). Off by default here (Kafka: on), so runs
// that do not ask for compaction keep every record and schedule nothing.
struct LogCleanerConfig {
  bool enable = false;          // log.cleaner.enable
  int64_t backoff_ms = 15'000;  // log.cleaner.backoff.ms: one cleaning step per this interval
  // The work of one step: at most this many dirty records go into the offset map (Kafka's
  // log.cleaner.dedupe.buffer.size, counted in records); the rest waits for the next step.
  // Knob broker_cleaner_records_per_step_max.
  int64_t records_per_step_max = 100'000;
  bool operator==(const LogCleanerConfig&) const = default;
};

struct SimBrokerConfig {
  int64_t max_total_records = 10'000'000;  // bound on retained records: bound_reached()
  int32_t max_partitions_per_topic = 1'024;
  GroupCoordinatorConfig coordinator;
  TransactionCoordinatorConfig transactions;
  LogCleanerConfig cleaner;
  // The broker's log.* defaults of topic configs (log.segment.bytes, log.roll.ms,
  // log.cleaner.delete.retention.ms, log.cleaner.min.cleanable.ratio); a topic's creator
  // overrides what it sets (Streams: cleanup.policy=compact for changelogs).
  TopicConfig topic_defaults;
  bool operator==(const SimBrokerConfig&) const = default;
};

// A fetch's answer (FetchResponse.PartitionData): the records a consumer hands out (never a
// marker; under READ_COMMITTED never an aborted record) and where the next fetch starts, which
// can lie past the last record returned when markers, aborted records or compacted-away offsets
// were skipped.
struct FetchData {
  std::vector<ConsumerRecord> records;
  int64_t next_fetch_offset = 0;
  int64_t high_watermark = 0;
  int64_t last_stable_offset = 0;
  int64_t log_start_offset = 0;
};

// One entry of the aborted-transaction index (Kafka's AbortedTxn): the producer's records in
// [first_offset, last_offset] are aborted; last_offset is the ABORT marker's offset.
struct AbortedTxn {
  int64_t producer_id = kNoProducerId;
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  int64_t last_stable_offset = 0;  // the LSO right after the marker
  friend bool operator==(const AbortedTxn&, const AbortedTxn&) = default;
};

// What one cleaner step did (observers and tests).
struct CleanerStats {
  TopicPartition tp;
  int64_t first_dirty_offset = 0;  // before the step
  int64_t end_offset = 0;          // the new first dirty offset
  int64_t records_read = 0;        // into the offset map
  int64_t records_removed = 0;     // data records and markers
};

class SimBroker final : private TransactionCoordinator::MarkerWriter {
 public:
  explicit SimBroker(SimBrokerConfig config = {});
  // The transaction coordinator holds a reference to this broker: neither copied nor moved.
  SimBroker(const SimBroker&) = delete;
  SimBroker& operator=(const SimBroker&) = delete;

  // CreateTopics. Creating an existing topic with the same partition count is a no-op (NONE);
  // with another count it is TOPIC_ALREADY_EXISTS. INVALID_CONFIG for a segment size or time below
  // 1, a negative delete.retention.ms, or a dirty ratio outside [0, 1].
  [[nodiscard]] Errors create_topic(const std::string& topic, int32_t partitions,
                                    const TopicConfig& config = {});
  std::optional<int32_t> partition_count(const std::string& topic) const;
  std::optional<TopicConfig> topic_config(const std::string& topic) const;
  const TopicConfig& topic_defaults() const { return config_.topic_defaults; }
  std::vector<std::string> topics() const;  // sorted

  // Produce with acks=all (no producer id): appends and returns the record's offset. A timestamp
  // of kNoTimestamp takes now_ms (the producer stamps records it was given none for). A record
  // without a key on a compacted topic is INVALID_RECORD, as Kafka refuses it.
  [[nodiscard]] base::Expected<int64_t, Errors> produce(const TopicPartition& tp,
                                                        std::optional<Bytes> key,
                                                        std::optional<Bytes> value,
                                                        int64_t timestamp, Headers headers,
                                                        int64_t now_ms);
  // A transactional produce from `producer` of `transactional_id`: verified against the
  // coordinator first (KIP-890: INVALID_PRODUCER_ID_MAPPING, INVALID_PRODUCER_EPOCH for a fenced
  // producer, INVALID_TXN_STATE for a partition outside its open transaction), then against the
  // log's producer state (an epoch older than the last one the log saw: INVALID_PRODUCER_EPOCH).
  // The producer's first record in the partition opens its transaction there (the LSO stops at
  // it until the marker).
  [[nodiscard]] base::Expected<int64_t, Errors> produce_transactional(
      const std::string& transactional_id, ProducerIdAndEpoch producer, const TopicPartition& tp,
      std::optional<Bytes> key, std::optional<Bytes> value, int64_t timestamp, Headers headers,
      int64_t now_ms);

  // Fetch: up to max_records entries from from_offset on, below the high watermark
  // (READ_UNCOMMITTED) or the last stable offset (READ_COMMITTED). Markers are skipped, and
  // under READ_COMMITTED so are aborted records; skipped entries count toward max_records.
  // OFFSET_OUT_OF_RANGE below the log start or past the log end.
  [[nodiscard]] base::Expected<FetchData, Errors> fetch(const TopicPartition& tp,
                                                        int64_t from_offset, int32_t max_records,
                                                        IsolationLevel isolation_level) const;
  // Whether a fetch from `from_offset` has something to answer now, as Kafka's
  // ReplicaManager.fetchMessages and DelayedFetch.tryComplete decide it with fetch.min.bytes = 1:
  // an entry below the high watermark (READ_UNCOMMITTED) or the last stable offset
  // (READ_COMMITTED) from that offset on (a marker or an aborted record counts, as their bytes
  // do), or an error to answer (unknown partition, offset out of range). Else the fetch waits.
  [[nodiscard]] bool fetch_ready(const TopicPartition& tp, int64_t from_offset,
                                 IsolationLevel isolation_level) const;
  // fetch(READ_UNCOMMITTED)'s records.
  [[nodiscard]] base::Expected<std::vector<ConsumerRecord>, Errors> fetch(
      const TopicPartition& tp, int64_t from_offset, int32_t max_records) const;

  // ListOffsets LATEST: the next offset to be written (= high watermark = log end offset).
  [[nodiscard]] base::Expected<int64_t, Errors> end_offset(const TopicPartition& tp) const;
  // ListOffsets LATEST with an isolation level: READ_COMMITTED answers the last stable offset.
  [[nodiscard]] base::Expected<int64_t, Errors> end_offset(const TopicPartition& tp,
                                                           IsolationLevel isolation_level) const;
  // The first offset of the oldest open transaction on the partition, or the high watermark.
  [[nodiscard]] base::Expected<int64_t, Errors> last_stable_offset(const TopicPartition& tp) const;
  // ListOffsets EARLIEST: the log start offset.
  [[nodiscard]] base::Expected<int64_t, Errors> beginning_offset(const TopicPartition& tp) const;
  // When the broker appended the record at `offset` (its log append time, whatever timestamp the
  // record carries); for an offset the cleaner removed, the next retained entry's. Observers
  // only: reports measure staleness in virtual ms with it. OFFSET_OUT_OF_RANGE outside
  // [log start, log end).
  [[nodiscard]] base::Expected<int64_t, Errors> append_time_ms(const TopicPartition& tp,
                                                               int64_t offset) const;
  // DeleteRecords (Streams purges repartition topics with it): moves the log start offset up to
  // before_offset and returns the new log start. OFFSET_OUT_OF_RANGE past the high watermark.
  [[nodiscard]] base::Expected<int64_t, Errors> delete_records(const TopicPartition& tp,
                                                               int64_t before_offset);
  // The partition's aborted-transaction index, in marker order (observers and tests).
  std::vector<AbortedTxn> aborted_transactions(const TopicPartition& tp) const;
  // Entries (records and markers) retained in the partition's log, and its segments' base
  // offsets (observers and tests).
  int64_t retained_entries(const TopicPartition& tp) const;
  std::vector<int64_t> segment_base_offsets(const TopicPartition& tp) const;

  // OffsetCommit: every partition must exist (else UNKNOWN_TOPIC_OR_PARTITION and nothing is
  // committed); then the group coordinator validates member and generation and stores them.
  [[nodiscard]] Errors commit_offsets(const std::string& group_id, int32_t generation_id,
                                      const std::string& member_id, const OffsetCommitMap& offsets,
                                      int64_t now_ms);
  // OffsetFetch.
  std::optional<OffsetAndMetadata> committed(const std::string& group_id,
                                             const TopicPartition& tp) const;

  // --- transactions (Kafka's request names; see transaction_coordinator.h) --------------------
  [[nodiscard]] base::Expected<ProducerIdAndEpoch, Errors> init_producer_id(
      const std::string& transactional_id, int32_t transaction_timeout_ms, int64_t now_ms);
  // UNKNOWN_TOPIC_OR_PARTITION if any partition does not exist (nothing is added).
  [[nodiscard]] Errors add_partitions_to_txn(const std::string& transactional_id,
                                             ProducerIdAndEpoch producer,
                                             const std::vector<TopicPartition>& partitions,
                                             int64_t now_ms);
  [[nodiscard]] Errors add_offsets_to_txn(const std::string& transactional_id,
                                          ProducerIdAndEpoch producer, const std::string& group_id,
                                          int64_t now_ms);
  // TxnOffsetCommit: the producer must have added the group (AddOffsetsToTxn) to its open
  // transaction (else INVALID_TXN_STATE); then the group coordinator checks member and
  // generation (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION: the zombie fencing of EOS v2).
  [[nodiscard]] Errors txn_offset_commit(const std::string& transactional_id,
                                         ProducerIdAndEpoch producer, const std::string& group_id,
                                         int32_t generation_id, const std::string& member_id,
                                         const OffsetCommitMap& offsets, int64_t now_ms);
  [[nodiscard]] Errors end_txn(const std::string& transactional_id, ProducerIdAndEpoch producer,
                               ControlRecordType result, int64_t now_ms);

  // --- time-driven work (the driver calls these at next_deadline_ms / every cleaner backoff) --
  // Runs the transaction coordinator's timed-out-transaction scans due by now_ms.
  std::vector<TxnEvent> tick(int64_t now_ms);
  // When the transaction coordinator next aborts something, if anything is open.
  std::optional<int64_t> next_deadline_ms() const { return txn_.next_deadline_ms(); }
  // One cleaner step (LogCleaner's grabFilthiestCompactedLog + doClean): cleans the compacted
  // partition with the highest cleanable ratio above its min.cleanable.dirty.ratio, reading at
  // most records_per_step_max dirty records. nullopt when the cleaner is off or nothing is dirty
  // enough.
  std::optional<CleanerStats> clean_step(int64_t now_ms);
  bool cleaner_enabled() const { return config_.cleaner.enable; }
  int64_t cleaner_backoff_ms() const { return config_.cleaner.backoff_ms; }

  GroupCoordinator& coordinator() { return coordinator_; }
  const GroupCoordinator& coordinator() const { return coordinator_; }
  TransactionCoordinator& transactions() { return txn_; }
  const TransactionCoordinator& transactions() const { return txn_; }

  int64_t total_records() const { return total_records_; }
  // A produce found the broker holding max_total_records.
  bool bound_reached() const { return bound_reached_; }
  int64_t records_max() const { return config_.max_total_records; }

  // The simulator's omniscient record of what the cleaner removed: called once per data record a
  // cleaning drops (superseded values, expired tombstones, aborted records; not markers), with
  // its append time and the time of the cleaning that removed it, so that the trace can keep each
  // changelog as it was appended and the checks can fold the prefix a replica applied before
  // compaction, skipping what was removed before the replica read it. Observing changes nothing.
  using RemovedRecordObserver = std::function<void(const TopicPartition&, const ConsumerRecord&,
                                                   int64_t append_ms, int64_t removed_ms)>;
  void set_removed_record_observer(RemovedRecordObserver observer) {
    removed_record_observer_ = std::move(observer);
  }

  // The simulator's omniscient record of each transaction's outcome per partition: called once
  // per marker written, with the marker's offset, the outcome, the offsets of the producer's data
  // records in the transaction on that partition (ascending; taken before the marker is appended,
  // while the cleaner cannot have touched them: they lie at or above the last stable offset) and
  // the marker's append time. So the trace can say which changelog records a read_committed reader
  // skips and how long each stayed uncommitted. Observing changes nothing here.
  using TxnMarkerObserver =
      std::function<void(const TopicPartition&, ControlRecordType result, int64_t marker_offset,
                         const std::vector<int64_t>& data_offsets, int64_t now_ms)>;
  void set_txn_marker_observer(TxnMarkerObserver observer) {
    txn_marker_observer_ = std::move(observer);
  }
  // Called after every write that may let a waiting fetch complete (Kafka's
  // ReplicaManager.tryCompleteDelayedRequests after an append): a record appended (produce,
  // produce_transactional) or a transaction marker written, which moves the last stable offset.
  // Called once the partition's state is complete; the observer may read the broker but not
  // write to it.
  using LogAppendObserver = std::function<void(const TopicPartition&)>;
  void set_log_append_observer(LogAppendObserver observer) {
    log_append_observer_ = std::move(observer);
  }

 private:
  struct LogEntry {
    ConsumerRecord record;  // a marker has neither key nor value
    int64_t append_ms = 0;
    int64_t producer_id = kNoProducerId;
    int16_t producer_epoch = kNoProducerEpoch;
    bool transactional = false;
    std::optional<ControlRecordType> control;  // set: a transaction marker
    // Set by the cleaner on a tombstone or a removable marker it kept: removed by a cleaning
    // after this time (the batch's deleteHorizonMs).
    std::optional<int64_t> delete_horizon_ms;
    int64_t size_bytes = 0;
  };
  struct Segment {
    int64_t base_offset = 0;
    int64_t first_append_ms = 0;  // when its first entry was appended (segment.ms rolls)
    int64_t size_bytes = 0;
  };
  struct ProducerStateEntry {
    int16_t epoch = kNoProducerEpoch;
    std::optional<int64_t> current_txn_first_offset;
  };
  struct PartitionLog {
    int64_t log_start_offset = 0;
    int64_t log_end_offset = 0;
    std::deque<LogEntry> entries;   // increasing offsets, gaps where the cleaner removed some
    std::vector<Segment> segments;  // by base offset; the last is the active one
    std::map<int64_t, ProducerStateEntry> producers;
    std::map<int64_t, int64_t> ongoing_txns;  // first offset -> producer id (LSO = the smallest)
    std::vector<AbortedTxn> aborted;          // in marker order
    int64_t first_dirty_offset = 0;           // the cleaner's checkpoint
    int64_t last_stable_offset() const {
      return ongoing_txns.empty() ? log_end_offset : ongoing_txns.begin()->first;
    }
    // The first retained entry at or after `offset`.
    std::deque<LogEntry>::const_iterator lower_bound(int64_t offset) const;
  };
  struct Topic {
    TopicConfig config;
    std::vector<PartitionLog> partitions;
  };

  void write_txn_markers(const TxnMarkers& markers, int64_t now_ms) override;
  static std::vector<int64_t> txn_data_offsets(const PartitionLog& log, int64_t producer_id);
  base::Expected<int64_t, Errors> append(const TopicPartition& tp, PartitionLog& log,
                                         const TopicConfig& config, LogEntry entry);
  void roll_if_needed(PartitionLog& log, const TopicConfig& config, int64_t size_bytes,
                      int64_t now_ms);
  // Cleans `log` from its first dirty offset up to `upper` (its first uncleanable offset).
  void clean(PartitionLog& log, const TopicConfig& config, int64_t upper, int64_t now_ms,
             CleanerStats& stats);
  Topic* find_topic(const std::string& topic);
  PartitionLog* find(const TopicPartition& tp);
  const PartitionLog* find(const TopicPartition& tp) const;

  SimBrokerConfig config_;
  bool bound_reached_ = false;
  RemovedRecordObserver removed_record_observer_;
  TxnMarkerObserver txn_marker_observer_;
  LogAppendObserver log_append_observer_;
  std::map<std::string, Topic> topics_;
  int64_t total_records_ = 0;
  int64_t now_ms_ = 0;  // the latest produce time; time never runs backwards
  GroupCoordinator coordinator_;
  TransactionCoordinator txn_;
};

}  // namespace iq::sim
