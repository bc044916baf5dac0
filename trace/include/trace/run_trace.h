#pragma once
// RunTrace: everything one run of a scenario recorded, as plain data, for properties/ to judge and
// reports/ to draw. sim/ records; it never judges. The scenario driver fills it:
//
// - the source log: every record of the source topic as the broker holds it at the end, in offset
//   order per partition: the ground truth the reference model replays;
// - the query history (timed workloads, scripted queries and liveness probes alike);
// - the faults applied, in order, with their virtual time;
// - lag samples: what allLocalStorePartitionLags reported next to what the observer saw;
// - the scripted expectations, by query record id;
// - the liveness phase: when faults stopped and when each partition first answered;
// - reprocessing: the input records some task processed again (at-least-once), from the
//   cluster's ProcessingLedger;
// - the store's changelog: every record of each changelog partition as the broker holds it at the
//   end, with the instance that wrote it and its position header (the ChangelogWitness folds it);
// - the run's end: virtual time, trace digest, events, instance errors, time limit reached.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "iq/isolation_level.h"
#include "iq/kafka_pin.h"
#include "iq/offsets.h"
#include "iq/streams_metadata.h"
#include "iq/topology_config.h"
#include "trace/history.h"
#include "trace/query_record.h"
#include "trace/reprocessed_range.h"
#include "trace/store_life.h"

namespace iq::sim {

struct SourceLogRecord {
  int32_t partition = 0;
  SourceOffset offset{0};
  int32_t key = 0;
  std::optional<int64_t> value;  // absent: a tombstone
  // The record's own timestamp (event time): data the producer chose, compared with the
  // timestamps a query answers (ValueAndTimestamp), so a raw long as in Kafka, not an Instant.
  int64_t timestamp_ms = 0;
  base::Instant appended_ms{};  // when the broker appended it (virtual time)
  bool operator==(const SourceLogRecord&) const = default;
};

// One record of the store's changelog topic as the broker holds it at the end of the run. The
// value is decoded as the store's value type (the timestamp of a timestamped store travels as the
// record's timestamp, as in Kafka); `writer` is the instance whose record collector sent it, an
// omniscient fact (the broker keeps no producer identity that impl/ could read).
// What became of a changelog record's transaction (exactly_once_v2), an omniscient fact from the
// broker's markers: a read_committed reader (a standby, a restoring task) skips kAborted records
// and never reads past a kOpen one (the last stable offset stops before it).
enum class TxnOutcome : uint8_t {
  kNone,       // not transactional (at-least-once)
  kOpen,       // transactional, no marker by the end of the run
  kCommitted,  // a COMMIT marker followed
  kAborted,    // an ABORT marker followed (by the producer, or the coordinator's timeout)
};
const char* to_string(TxnOutcome outcome);

struct ChangelogRecord {
  int32_t partition = 0;      // the changelog partition, which is the task's (and source) partition
  ChangelogOffset offset{0};  // a changelog offset, not a source offset
  int32_t key = 0;
  std::optional<int64_t> value;  // absent: a tombstone
  int64_t timestamp_ms = 0;      // the record's timestamp (event time, a raw long as in Kafka)
  base::Instant appended_ms{};   // when the broker appended it (virtual time)
  // When the log cleaner removed it (the virtual time of that cleaning; absent: still in the log
  // at the end of the run). A replica that fetched this offset after then never read the record.
  std::optional<base::Instant> removed_ms;
  std::string writer;  // "instance-2"
  // The position header (__iq.consistency.offset.vector.enabled__): the writer's store position
  // after the write, in source offsets. Absent when the record carries none (the switch off).
  std::optional<Position> position;
  TxnOutcome txn = TxnOutcome::kNone;
  // When the marker that decided it was appended (kCommitted, kAborted): until then the record
  // was uncommitted data, visible to no read_committed reader.
  std::optional<base::Instant> decided_ms;
  // Whether a read_committed reader ever returns it.
  bool committed() const { return txn == TxnOutcome::kNone || txn == TxnOutcome::kCommitted; }
  // Whether it was uncommitted at `at_ms` (appended, its transaction not decided yet).
  bool uncommitted_at(base::Instant at_ms) const {
    return txn != TxnOutcome::kNone && appended_ms <= at_ms && (!decided_ms || at_ms < *decided_ms);
  }
  // A window store's record: its window start (the key is [key][start][seqnum]); a session
  // store's: the session's start and end, both inclusive ([key][end][start]). Absent for a
  // key-value store.
  std::optional<int64_t> window_start_ms;
  std::optional<int64_t> window_end_ms;
  // A window store's record: the sequence number in its key, the change-logging layer's own
  // counter (ChangeLoggingWindowBytesStore: 0 without duplicates, else one more on every put,
  // null ones included), which a RocksDB store's restore writes back as is. Absent otherwise.
  std::optional<int32_t> window_seqnum;
  bool operator==(const ChangelogRecord&) const = default;
};

// Where a crash that landed inside an operation fell, as the simulator saw it (sim/cluster/
// crash_inside.h's CrashLanding, copied as plain data): the proofs that a violation is a declared
// Kafka behaviour read these fields, never FaultRecord::detail's text.
struct CrashPointRecord {
  std::string event;       // the event kind it died at: "disk", "send", "commit", "restore_poll"
  std::string what;        // that event as text: "sync /state/app/0_1/.checkpoint.tmp", "send t-1"
  std::string path;        // a disk event's path; else ""
  std::string topic;       // a send's topic; else ""
  int32_t partition = -1;  // a send's partition; else -1
  std::vector<std::string> operations;  // impl/'s operations in progress: "checkpoint", ...
  std::vector<std::string> points;      // the crash points it hit: "position_checkpoint", ...
  bool has_point(std::string_view point) const;
  // A disk event on a file of task directory `task` ("0_1"), whose name starts with `file`
  // (".checkpoint" matches ".checkpoint.tmp" too).
  bool on_task_file(std::string_view task, std::string_view file) const;
  bool operator==(const CrashPointRecord&) const = default;
};

// What the fault injector (scenario/fault_injector.h) did to an instance: one kind per thing that
// really happened, so that a check asks "did this instance's store objects close?" by kind, never
// by searching the text. An armed crash is not a crash: it changes nothing until it lands (and
// may never land); its landing is a record of its own.
enum class FaultKind : uint8_t {
  kCrash,            // kill -9 at an event boundary: unsynced state lost
  kCrashArmed,       // armed to crash inside an operation; nothing happened yet
  kCrashLanded,      // an armed crash landed inside an operation (FaultRecord::landed: where)
  kRestart,          // started again on its kept disk
  kRestartWiped,     // started again on a wiped disk
  kClose,            // KafkaStreams::close(): its tasks closed (their stores too)
  kStart,            // started: never started before, or closed before
  kPause,            // SIGSTOP: its state stays, the group may take its tasks
  kResume,           // SIGCONT
  kIsolate,          // every link cut
  kHeal,             // links restored
  kAddInstance,      // scale out
  kRemoveInstance,   // scale in: closed (if running) and retired for good
  kReadErrorArmed,   // the Nth matching disk read will fail with EIO (nothing happened yet)
  kReadErrorLanded,  // an armed read failed (a query answered STORE_EXCEPTION)
  kWriteErrorArmed,  // the Nth matching disk write will fail with EIO
  kWriteErrorLanded  // an armed write failed
};
// The text form, as the fault lists of violations and reports print it: "crash", "arm_crash",
// "restart", "restart_wiped", ... A landed crash prints "crash" as an immediate one does (its
// detail says "landed inside: ..."), so the text of a trace is what it was before the kinds.
const char* to_string(FaultKind kind);

struct FaultRecord {
  base::Instant at_ms{};
  FaultKind kind = FaultKind::kCrash;
  std::string instance;  // "instance-2"
  std::string detail;    // e.g. "scripted step 4", "random-faults", "liveness: heal"
  // False when the action did not apply to the instance's state (crash an instance that is down,
  // ...): it changed nothing and the detail ends in "skipped: <why>".
  bool applied = true;
  // A crash that landed inside an operation (kCrashLanded): where (the detail says it in words
  // too).
  std::optional<CrashPointRecord> landed;

  // An applied fault of kind `k`.
  bool is(FaultKind k) const { return applied && kind == k; }
  // The instance died (an immediate crash, or an armed one that landed).
  bool crashed() const { return is(FaultKind::kCrash) || is(FaultKind::kCrashLanded); }
  // Its store objects were closed and will be opened again over what its disk kept: it crashed
  // or was closed. An armed crash that never landed, a skipped fault, a pause are not.
  bool stopped() const { return crashed() || is(FaultKind::kClose); }
  // It could no longer reach the group (paused or isolated): the group may take its tasks, which
  // it then closes dirty when it can run again.
  bool cut_off() const { return is(FaultKind::kPause) || is(FaultKind::kIsolate); }
  // It started again: on its kept disk (restart, start) or a wiped one.
  bool started() const {
    return is(FaultKind::kRestart) || is(FaultKind::kStart) || is(FaultKind::kRestartWiped);
  }
  // A cut-off instance can reach the group again.
  bool reconnected() const { return is(FaultKind::kResume) || is(FaultKind::kHeal); }
  std::string to_string() const;
  bool operator==(const FaultRecord&) const = default;
};

// One sample of KafkaStreams::all_local_store_partition_lags() on one instance, beside what an
// omniscient observer read at the same instant (the replica's changelog offset straight from its
// state manager, the changelog's end offset straight from the broker).
struct LagRecord {
  base::Instant at_ms{};
  std::string instance;
  std::string store;
  int32_t partition = 0;
  LagInfo reported;
  ReplicaSnapshot actual;
};

// Why a phase of the run ended without doing what it was meant to.
struct LivenessFailure {
  base::Instant at_ms{};
  std::string what;  // "run_until quiescent: not quiescent after 60000 ms (partition 2: ...)"
};

// Whether the cluster settled after the liveness phase's probes all answered, or by its deadline
// if some never did (the Progress property): the driver ran until quiescent (scenario/quiescence.h:
// the group stable with exactly the live threads, one RUNNING active per partition, every standby
// and warmup at lag 0, every source offset committed) or the liveness deadline, and recorded which
// came first.
struct ProgressRecord {
  // When every partition had answered (the wait began), or the deadline if some never did
  // (probes_answered false: the cluster is read at the deadline, without a wait).
  base::Instant since_ms{};
  bool probes_answered = true;
  base::Instant deadline_ms{};                // faults stopped + the liveness timeout
  std::optional<base::Instant> quiescent_ms;  // absent: not quiescent by the deadline
  std::string gap;  // at the deadline, the first condition that still failed
};

struct LivenessRecord {
  base::Instant faults_stopped_ms{};  // when the liveness phase began (everything healed/restarted)
  base::Duration timeout_ms{};
  Position bound = Position::empty_position();  // everything produced when the phase began
  // Per partition, the completion time of the first successful probe; absent: never answered.
  std::map<int32_t, std::optional<base::Instant>> first_success_ms;
};

// The expected outcome of one partition of a scripted query. Absent fields are not compared. A
// QueryStep holds it as written; the trace carries it to the ScriptedExpectations property.
struct ExpectedPartition {
  int32_t partition = 0;
  std::optional<bool> success;  // implied true by value/values, false by failure_reason
  std::optional<std::optional<int64_t>> value;  // KeyQuery: a value, or explicitly absent (null)
  std::optional<KeyValueList> entries;          // RangeQuery: (key, value) in order
  std::optional<std::vector<int64_t>> timestamps;
  // VersionedKeyQuery (empty: null) and MultiVersionedKeyQuery: the records in order.
  std::optional<VersionedList> versions;
  // WindowKeyQuery / WindowRangeQuery: the entries in the store's order (an entry's end_ms
  // absent is not compared: WindowKeyQuery gives none).
  std::optional<WindowedList> windows;
  std::optional<Position> position;
  std::optional<FailureReason> failure_reason;
  std::optional<std::string> message_contains;
  // Whether the partition's execution info is non-empty (true) or empty (false).
  std::optional<bool> execution_info;
  bool operator==(const ExpectedPartition&) const = default;
};

// A scripted query's expectations, judged by the ScriptedExpectations property.
struct ScriptedExpectation {
  uint64_t record_id = 0;
  std::string where;                          // "scenarios/kafka/x.toml:42"
  std::vector<ExpectedPartition> partitions;  // the QueryStep's, as written
  std::optional<std::string> error;  // a StreamsError kind name expected instead of an answer
  std::optional<std::set<int32_t>> answered_partitions;
  // As Kafka's window and session checks compare: every answered partition succeeded and the
  // values of all their entries (or key values), unioned over the partitions, are this set.
  std::optional<std::set<int64_t>> values;
  // StateQueryResult.getPosition(): every answered partition's position merged.
  std::optional<Position> merged_position;
};

// The run's processing.guarantee (StreamsConfig), as every instance ran it: which declared Kafka
// behaviours can be Kafka's in this run depends on it (properties/checks/class_rules.cc).
enum class Guarantee : uint8_t { kAtLeastOnce, kExactlyOnceV2 };
const char* to_string(Guarantee g);  // "at_least_once", "exactly_once_v2"

struct RunTrace {
  std::string scenario;  // file or title
  uint64_t seed = 0;
  TopologyConfig topology;
  int32_t keys = 0;
  bool consistency_offset_vector_enabled = false;
  Guarantee guarantee = Guarantee::kAtLeastOnce;
  // The Kafka impl/ followed ([configuration] kafka) and, at the 2026-08-20 pin, the level of a
  // query that sets none (default.interactive.query.isolation.level).
  KafkaPin kafka_pin = KafkaPin::k2024_10_25;
  IsolationLevel default_iq_isolation_level = IsolationLevel::READ_UNCOMMITTED;
  // enable.transactional.statestores (2026-08-20 pin only): the stores stage their writes until
  // their task commits; a READ_COMMITTED answer then reads the committed state, bounded by the
  // replica's ReplicaSnapshot::committed_position.
  bool transactional_state_stores = false;

  std::vector<SourceLogRecord> source_log;  // partition-major, offsets ascending
  History history{200'000};
  std::vector<FaultRecord> faults;
  std::vector<LagRecord> lags;
  std::vector<ScriptedExpectation> expectations;
  std::optional<LivenessRecord> liveness;
  std::vector<LivenessFailure> liveness_failures;
  std::optional<ProgressRecord> progress;  // absent: no liveness phase got every answer
  // Tests' titles with their [start, end) virtual times.
  struct Phase {
    std::string title;
    base::Instant start_ms{};
    base::Instant end_ms{};
    std::vector<std::string> checks;  // empty: every property
  };
  std::vector<Phase> phases;

  // Input records processed more than once (an omniscient fact, not something impl/ could
  // see), as ranges in the order they opened; ranges past the ledger's cap are only counted.
  std::vector<ReprocessedRange> reprocessed;
  uint64_t reprocessed_dropped = 0;
  // Every store object's life, as impl/ reported it (trace/store_life.h); life N at index N - 1.
  std::vector<StoreLife> store_lives;
  // The life `id` names, or nullptr (0, or a hand-made trace without lives).
  const StoreLife* store_life(uint64_t id) const {
    return id == 0 || id > store_lives.size() ? nullptr : &store_lives[id - 1];
  }

  // The store's changelog (topology.store_name; empty for an unlogged store), partition-major,
  // offsets ascending, from each partition's log start. Bounded by the broker's record bound;
  // records past kChangelogRecordsMax are only counted, and the witness does not judge a
  // partition whose log it does not hold whole.
  static constexpr size_t kChangelogRecordsMax = 2'000'000;
  bool changelog_recorded = false;  // the recorder read the changelog (hand-made traces may not)
  std::vector<ChangelogRecord> changelog;
  uint64_t changelog_dropped = 0;
  // Offsets of the changelog that hold neither a record here nor a transaction marker the broker
  // reported writing: records the log cleaner removed past the recorder's bound (the recorder
  // keeps the data records the cleaner removes and every marker's offset, so compaction and
  // transactions alone leave the changelog whole): the prefix a replica applied is not here
  // whole, so the witness does not judge against it.
  bool changelog_compacted = false;
  // Transaction markers in the changelog (exactly_once_v2): offsets that hold no record, as a
  // read_committed reader skips them; the records' TxnOutcome says which of them it skips too.
  uint64_t changelog_markers = 0;

  // Names of the coverage probes (base/probe.h) this run reached, sorted.
  std::vector<std::string> probes_hit;

  std::vector<std::string> instance_errors;  // "instance-2: <error>", in order
  base::Instant end_ms{};
  uint64_t events = 0;
  std::string digest;  // hex of the event loop's running digest at the end
  bool time_limit_reached = false;
  // A bound the scenario set was reached and ended the run: "knob broker_records_max = 100
  // reached at 1234 ms"; empty if none. Judged as a failure (EventuallyAvailable).
  std::string bound_reached;
};

}  // namespace iq::sim
