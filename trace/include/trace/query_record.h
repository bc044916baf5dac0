#pragma once
// QueryRecord: one query attempt as a client saw it, plus what an omniscient observer saw of the
// cluster around it. The record is plain data (no std::any, no store pointers), so it can be kept
// after the cluster moved on, printed, hashed and compared.
//
// - the request: store, Query::describe(), partitions (or all), the bound as a Position, the bound
//   mode the client chose, require_active;
// - the routing: the client's home instance, the instance the query was sent to and whether the
//   client chose a standby host;
// - the outcome: answered (per-partition results), a StreamsError thrown by KafkaStreams::query,
//   no reply before the client's timeout, or not routed (no live home, metadata not available);
// - placement snapshots of the queried partitions: when the client invoked the query and, if the
//   request reached a live instance, when that instance ran it.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/time.h"
#include "iq/failure_reason.h"
#include "iq/isolation_level.h"
#include "iq/offsets.h"
#include "iq/position.h"
#include "iq/query.h"
#include "iq/result_order.h"
#include "iq/streams_error.h"

namespace iq::sim {

enum class ReplicaRole { kNone, kActive, kStandby };
const char* to_string(ReplicaRole r);

// A write an active made that is not in the changelog yet: a dirty entry of its record cache
// (flushed to the changelog at commit or eviction), decoded as the changelog will hold it.
struct UnloggedWrite {
  int32_t key = 0;
  std::optional<int64_t> value;    // absent: a tombstone
  int64_t timestamp_ms = 0;        // the record's timestamp (event time, a raw long)
  SourceOffset source_offset{-1};  // the input record it was written under
  // Window stores: the window's start; session stores: the session's start and end (both
  // inclusive). Absent for a key-value store.
  std::optional<int64_t> window_start_ms;
  std::optional<int64_t> window_end_ms;
  bool operator==(const UnloggedWrite&) const = default;
};

// A run of an active's own changelog writes (ProcessorStateManager::OwnWriteRun): over the
// changelog offsets (after_offset, last_offset] its store took only its own instance's writes, so
// another instance's record there (a fenced member's late write, appended after this active's
// restore had read to its fixed end offset) never reached it. after_offset -1: nothing applied.
// Its own writes are the instance's records in [first_offset, last_offset] (first_offset: its
// first own write; -1 in hand-made traces: from after_offset on).
struct OwnWriteRun {
  ChangelogOffset after_offset{-1};
  ChangelogOffset last_offset{-1};
  ChangelogOffset first_offset{-1};
  bool operator==(const OwnWriteRun&) const = default;
};

// One instance's replica of one partition at one instant. Fields that do not apply (a stopped
// instance, no task for the partition, a store not yet registered) are empty.
struct ReplicaSnapshot {
  // The states as recorded: Kafka's KafkaStreams.State, StreamThread.State and Task.State, with
  // the same names, copied from the runtime by the recorder (sim/history/placement.cc) so that the
  // trace holds values, not the runtime's types.
  enum class StreamsState {
    CREATED,
    REBALANCING,
    RUNNING,
    PENDING_SHUTDOWN,
    NOT_RUNNING,
    PENDING_ERROR,
    ERROR
  };
  enum class ThreadState {
    CREATED,
    STARTING,
    PARTITIONS_REVOKED,
    PARTITIONS_ASSIGNED,
    RUNNING,
    PENDING_SHUTDOWN,
    DEAD
  };
  enum class TaskState { CREATED, RESTORING, RUNNING, SUSPENDED, CLOSED };

  int32_t partition = -1;
  std::string instance;  // node name, "instance-1"
  bool running = false;
  std::optional<StreamsState> client_state;  // also of a closed client (running false)
  ReplicaRole role = ReplicaRole::kNone;
  // A standby the group leader's last assignment created as a warmup (to Kafka's IQ and to every
  // check it is a standby; reports draw it apart).
  bool warmup = false;
  std::optional<TaskState> task_state;
  std::optional<ThreadState> thread_state;  // of the thread that owns the task
  std::optional<Position> store_position;   // the store's position (source offsets)
  // A transactional store only (2026-08-20 pin, enable.transactional.statestores): the committed
  // position (StateStore::committed_position), which bounds and labels READ_COMMITTED answers;
  // store_position is then the staged one, which bounds READ_UNCOMMITTED answers. Exceptions Kafka
  // has (docs/kafka-2026-08-20.md §3.3): a cached KeyQuery uses the cache's merge with the staged
  // position under both levels (delta 8). Absent for any other store: one position bounds both.
  std::optional<Position> committed_position;
  // With committed_position only: the last changelog offset in the store's committed state (what
  // it loaded or restored, and what it had applied or written at its last store commit), so a
  // READ_COMMITTED answer is the fold of the applied records up to it.
  std::optional<ChangelogOffset> committed_changelog_offset;
  // A window or session store only: its observed stream time at the snapshot (the store's own
  // field, StateStore::observed_stream_time; -1 before any put or restore), which sets the
  // retention floor its reads apply, at both levels. A transactional store raises it on a staged
  // put too (docs/kafka-2026-08-20.md §10, H7). Printed with committed_position only, so the
  // records of runs without transactional stores read as before.
  std::optional<int64_t> observed_stream_time_ms;
  std::optional<ChangelogOffset> changelog_offset;  // last changelog record applied or written
  std::optional<ChangelogOffset> changelog_end_offset;
  // The offset the store's .checkpoint held when its task initialized: its restore replayed the
  // records after it over what the store kept on disk (none: no checkpoint, replayed from the
  // log start). A store that kept more than its checkpoint (a crash after a flush, before the
  // .checkpoint write) holds the newer data until the replay passes it.
  std::optional<ChangelogOffset> restored_from;
  // LagInfo's convention: end - (changelog_offset + 1), or end when there is no offset yet; a
  // count of changelog records, so a raw number.
  std::optional<int64_t> lag;
  // An active's writes not yet in the changelog (its record cache's dirty entries for the store),
  // in key order; empty for a standby, an uncached store, or nothing dirty. With the changelog
  // prefix up to changelog_offset, what the replica's store answers from.
  std::vector<UnloggedWrite> unlogged_writes;
  // The store's runs of own writes over its life (also while an active recycled to a standby),
  // oldest first, from its recorded life's events (RunTrace::store_lives); the changelog witness
  // skips the other instances' records inside them.
  std::vector<OwnWriteRun> own_write_runs;
  // A versioned store only: its store object opened over entries an earlier store object left on
  // disk, the condition of quirk 17 of docs/iqv2-semantics.md (its life's over_kept_data).
  bool versioned_store_reopened = false;
  // The life of the store object that served (RunTrace::store_life; 0: none recorded).
  uint64_t store_life = 0;

  std::string to_string() const;
};
// The Kafka names ("RUNNING", "PARTITIONS_ASSIGNED", ...).
const char* to_string(ReplicaSnapshot::StreamsState s);
const char* to_string(ReplicaSnapshot::ThreadState s);
const char* to_string(ReplicaSnapshot::TaskState s);

// Every instance's replica of every queried partition, ordered by (partition, instance number).
struct PlacementSnapshot {
  base::Instant at_ms{};
  std::vector<ReplicaSnapshot> replicas;

  int32_t count(int32_t partition, ReplicaRole role) const;
  std::string to_string() const;
};

enum class BoundMode { kUnbounded, kSession, kProduced };
const char* to_string(BoundMode m);

struct QueryRequestRecord {
  std::string store;
  std::string query;  // Query::describe()
  // The query as data, for the checks: its kind (KeyQuery, TimestampedRangeQuery, ...), the key
  // of a key query, the bounds (absent: open) and order of a range query.
  QueryKind kind = QueryKind::KeyQuery;
  std::optional<int32_t> lower;
  std::optional<int32_t> upper;
  ResultOrder order = ResultOrder::ANY;
  std::optional<int32_t> key;  // the key the client routed by
  // VersionedKeyQuery.asOf, MultiVersionedKeyQuery.fromTime/toTime (absent: latest, open); for
  // WindowKeyQuery and WindowRangeQuery.withWindowStartRange the window-start range [from, to]
  // (both set; absent on WindowRangeQuery.withKey, whose key is `key`).
  std::optional<int64_t> as_of_ms;
  std::optional<int64_t> from_time_ms;
  std::optional<int64_t> to_time_ms;
  std::optional<std::set<int32_t>> partitions;  // empty: all partitions
  BoundMode bound_mode = BoundMode::kUnbounded;
  Position bound = Position::empty_position();
  bool require_active = false;
  // The client asked KeyQuery.skipCache(). Through KafkaStreams#query the metered layer drops the
  // flag (quirk 1 of docs/iqv2-semantics.md), so the answer still reads through the cache.
  bool skip_cache = false;
  // StateQueryRequest.enableExecutionInfo().
  bool collect_execution_info = false;
  // StateQueryRequest.withIsolationLevel (2026-08-20 pin); absent: the client's
  // default.interactive.query.isolation.level (RunTrace::default_iq_isolation_level).
  std::optional<IsolationLevel> isolation_level;

  std::string to_string() const;
};

// A KeyQuery's value (nullopt: key absent) or a RangeQuery's entries, or nothing for a failure.
using KeyValueList = std::vector<std::pair<int32_t, int64_t>>;
// One VersionedRecord: its value, its timestamp (validFrom) and its validTo (absent: the latest
// version, valid until further notice).
struct VersionedValue {
  int64_t value = 0;
  int64_t valid_from_ms = 0;
  std::optional<int64_t> valid_to_ms;
  bool operator==(const VersionedValue&) const = default;
};
// A VersionedKeyQuery's record (empty: null) or a MultiVersionedKeyQuery's records, in order.
using VersionedList = std::vector<VersionedValue>;
// One entry of a window or session answer: WindowKeyQuery gives (window start, value) for the
// queried key, so `end_ms` is absent (Kafka does not give it); WindowRangeQuery gives Windowed(key,
// window) keys: a window store's [start, start + size) or a session store's [start, end], both
// inclusive. A timestamped window store's ValueAndTimestamp puts its timestamp in the outcome's
// `timestamps`, one per entry, as a TimestampedRangeQuery does.
struct WindowedValue {
  int32_t key = 0;
  int64_t start_ms = 0;
  std::optional<int64_t> end_ms;
  int64_t value = 0;
  bool operator==(const WindowedValue&) const = default;
};
// A WindowKeyQuery's or WindowRangeQuery's entries, in the store's order.
using WindowedList = std::vector<WindowedValue>;
using ResultValue =
    std::variant<std::monostate, std::optional<int64_t>, KeyValueList, VersionedList, WindowedList>;
// "10@[5000,7000)", "12@[100000,)".
std::string to_string(const VersionedValue& v);
// "1@0..300000=4": key 1's window or session from 0 to 300000 (a window's end is exclusive, a
// session's inclusive, as Windowed gives them); "@0=4": a WindowKeyQuery entry (the start only).
std::string to_string(const WindowedValue& v);

struct PartitionOutcome {
  int32_t partition = -1;
  bool success = false;
  ResultValue value;
  // TimestampedKeyQuery / TimestampedRangeQuery: the timestamp of the value, or of each entry.
  std::vector<int64_t> timestamps;
  std::optional<FailureReason> failure_reason;
  std::string failure_message;
  std::optional<Position> position;
  // QueryResult.getExecutionInfo() (empty unless the request enabled it), at most
  // kExecutionInfoMax lines.
  std::vector<std::string> execution_info;
  static constexpr size_t kExecutionInfoMax = 16;

  std::string to_string() const;
};

enum class OutcomeKind { kAnswered, kStreamsError, kTimedOut, kNotRouted };
const char* to_string(OutcomeKind k);

struct QueryRecord {
  uint64_t id = 0;  // unique per History, in invoke order
  // Who asked: a query client (client >= 0), a scripted step or a liveness probe (client -1).
  // kAudit: the end-of-run read of every replica (liveness.audit_replicas), after the probes.
  enum class Source { kClient, kScripted, kLiveness, kAudit };
  Source source = Source::kClient;
  int32_t client = -1;
  uint64_t query = 0;   // the client's logical query; retries share it
  int32_t attempt = 1;  // 1 for the first try
  base::Instant invoke_ms{};
  base::Instant complete_ms{};
  QueryRequestRecord request;
  std::string home_instance;    // whose metadata routed the query
  std::string target_instance;  // the instance it was sent to ("" if not routed)
  bool to_standby = false;      // the client chose a standby host
  OutcomeKind outcome = OutcomeKind::kNotRouted;
  std::optional<StreamsError> error;         // kStreamsError
  std::string not_routed_reason;             // kNotRouted
  std::vector<PartitionOutcome> partitions;  // kAnswered, ordered by partition
  PlacementSnapshot placement_at_invoke;
  std::optional<PlacementSnapshot> placement_at_answer;

  // The only answered partition's outcome, if there is exactly one.
  const PartitionOutcome* only_partition() const {
    return partitions.size() == 1 ? &partitions.front() : nullptr;
  }
  // One line, stable: the same record always prints the same way.
  std::string to_string() const;
};

}  // namespace iq::sim
