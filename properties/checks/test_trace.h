#pragma once
// Test-only: small hand-made RunTraces for the checks' tests, and one large synthetic trace for
// check_bench. Nothing here runs the simulator; every record is written by hand (or by the
// generator below), so a test states exactly the situation it judges.
//
//   TraceBuilder b(TopologyKind::SourceTable);
//   b.produce(0, /*key=*/1, 10);                                  // offset 0 of partition 0
//   b.add(b.key_query(0, 1).ok(10, pos(0, 0)).replica(active(0, pos(0, 0))));
//   JudgeContext context(b.trace());

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/assert.h"
#include "base/prng.h"
#include "base/time.h"
#include "checks/check.h"
#include "trace/run_trace.h"

namespace iq::properties::testing {

// Every hand-made trace carries this seed, and every failure message prints it.
constexpr uint64_t kSeed = 20'240'101;
inline const std::string kTopic = "input-topic";
inline const std::string kStore = "kv-store";

// {input-topic: {partition: offset}}
// Every violation rendered, for failure messages.
inline std::string text(const std::vector<Violation>& vs) {
  std::string out;
  for (const auto& v : vs) out += v.to_string();
  return out;
}

// The trace's instants, from the virtual milliseconds the tests reason in.
inline base::Instant instant(int64_t ms) {
  return base::Instant::from_ms(ms);
}

inline Position pos(int32_t partition, int64_t offset, const std::string& topic = kTopic) {
  return Position::empty_position().with_component(topic, partition, offset);
}

inline sim::ReplicaSnapshot replica(
    int32_t partition, sim::ReplicaRole role, std::optional<Position> position,
    const std::string& instance = "instance-1",
    sim::ReplicaSnapshot::TaskState task = sim::ReplicaSnapshot::TaskState::RUNNING,
    sim::ReplicaSnapshot::ThreadState thread = sim::ReplicaSnapshot::ThreadState::RUNNING) {
  sim::ReplicaSnapshot r;
  r.partition = partition;
  r.instance = instance;
  r.running = true;
  r.client_state = sim::ReplicaSnapshot::StreamsState::RUNNING;
  r.role = role;
  if (role != sim::ReplicaRole::kNone) {
    r.task_state = task;
    r.thread_state = thread;
    r.store_position = std::move(position);
  }
  return r;
}

inline sim::ReplicaSnapshot active(
    int32_t partition, std::optional<Position> position, const std::string& instance = "instance-1",
    sim::ReplicaSnapshot::TaskState task = sim::ReplicaSnapshot::TaskState::RUNNING,
    sim::ReplicaSnapshot::ThreadState thread = sim::ReplicaSnapshot::ThreadState::RUNNING) {
  return replica(partition, sim::ReplicaRole::kActive, std::move(position), instance, task, thread);
}

// A recorded store life of kStore that opened as instance-1's active on partition 0 (persistent);
// callers add its events, kept data and end.
inline sim::StoreLife active_store_life(uint64_t id) {
  sim::StoreLife life;
  life.id = id;
  life.instance = "instance-1";
  life.partition = 0;
  life.store = kStore;
  life.active_at_open = true;
  life.persistent = true;
  return life;
}

// Where a crash landed: a disk append to `path` during a commit's flush (a memtable flush's
// MANIFEST append inside the store write of a cache flush).
inline sim::CrashPointRecord disk_crash_in_commit(const std::string& path) {
  return sim::CrashPointRecord{.event = "disk",
                               .what = "append " + path,
                               .path = path,
                               .topic = "",
                               .partition = -1,
                               .operations = {"commit"},
                               .points = {"commit_flush"}};
}

inline sim::ReplicaSnapshot standby(int32_t partition, std::optional<Position> position,
                                    const std::string& instance = "instance-1") {
  return replica(partition, sim::ReplicaRole::kStandby, std::move(position), instance);
}

// A replica that had applied (or written) the changelog up to `offset`, with unlogged writes.
inline sim::ReplicaSnapshot applied(sim::ReplicaSnapshot r, std::optional<int64_t> offset,
                                    std::vector<sim::UnloggedWrite> unlogged = {}) {
  r.changelog_offset = offset ? std::optional(ChangelogOffset(*offset)) : std::nullopt;
  r.unlogged_writes = std::move(unlogged);
  return r;
}

// A replica whose store wrote the changelog records in (after, last] of each run (its
// state manager's runs of own writes).
inline sim::ReplicaSnapshot own_runs(sim::ReplicaSnapshot r,
                                     std::vector<std::pair<int64_t, int64_t>> runs) {
  for (const auto& [after, last] : runs) {
    r.own_write_runs.push_back(
        {ChangelogOffset(after), ChangelogOffset(last), ChangelogOffset(-1)});
  }
  return r;
}

// An instance that is up but holds no task of the partition.
inline sim::ReplicaSnapshot no_task(int32_t partition, const std::string& instance = "instance-1") {
  return replica(partition, sim::ReplicaRole::kNone, std::nullopt, instance);
}

// One query record under construction; every setter returns *this.
struct Q {
  sim::QueryRecord r;

  Q& kind(QueryKind k) {
    r.request.kind = k;
    return *this;
  }
  Q& bound(const Position& b, sim::BoundMode mode = sim::BoundMode::kProduced) {
    r.request.bound = b;
    r.request.bound_mode = mode;
    return *this;
  }
  Q& require_active() {
    r.request.require_active = true;
    return *this;
  }
  Q& skip_cache() {
    r.request.skip_cache = true;
    return *this;
  }
  Q& order(ResultOrder o) {
    r.request.order = o;
    return *this;
  }
  Q& all_partitions() {
    r.request.partitions.reset();
    return *this;
  }
  Q& partitions(std::set<int32_t> ps) {
    r.request.partitions = std::move(ps);
    return *this;
  }
  Q& store(std::string name) {
    r.request.store = std::move(name);
    return *this;
  }
  Q& client(int32_t c, sim::BoundMode mode) {
    r.source = sim::QueryRecord::Source::kClient;
    r.client = c;
    r.request.bound_mode = mode;
    return *this;
  }
  Q& source(sim::QueryRecord::Source s) {
    r.source = s;
    return *this;
  }
  Q& at(int64_t invoke_ms, int64_t complete_ms) {
    r.invoke_ms = base::Instant::from_ms(invoke_ms);
    r.complete_ms = base::Instant::from_ms(complete_ms);
    return *this;
  }
  Q& target(std::string instance) {
    r.target_instance = std::move(instance);
    return *this;
  }
  // Adds a replica to both snapshots (the invoke one and the answer one).
  Q& replica(sim::ReplicaSnapshot rs) {
    if (!r.placement_at_answer) r.placement_at_answer = sim::PlacementSnapshot{};
    r.placement_at_answer->at_ms = r.complete_ms;
    r.placement_at_answer->replicas.push_back(rs);
    r.placement_at_invoke.at_ms = r.invoke_ms;
    r.placement_at_invoke.replicas.push_back(std::move(rs));
    return *this;
  }
  Q& client_state(sim::ReplicaSnapshot::StreamsState s) {
    for (auto& rs : r.placement_at_answer->replicas) rs.client_state = s;
    return *this;
  }
  // A successful KeyQuery-shaped result on the first requested partition.
  Q& ok(std::optional<int64_t> value, std::optional<Position> position,
        std::vector<int64_t> timestamps = {}) {
    sim::PartitionOutcome& o = slot(first_partition());
    o.success = true;
    o.value.emplace<std::optional<int64_t>>(value);
    o.timestamps = std::move(timestamps);
    o.position = std::move(position);
    return *this;
  }
  Q& ok_entries(sim::KeyValueList entries, std::optional<Position> position,
                std::vector<int64_t> timestamps = {}) {
    sim::PartitionOutcome& o = slot(first_partition());
    o.success = true;
    o.value.emplace<sim::KeyValueList>(std::move(entries));
    o.timestamps = std::move(timestamps);
    o.position = std::move(position);
    return *this;
  }
  Q& fail(FailureReason reason, std::optional<Position> position = std::nullopt,
          int32_t partition = -1, std::string message = "") {
    sim::PartitionOutcome& o = slot(partition >= 0 ? partition : first_partition());
    o.success = false;
    o.failure_reason = reason;
    o.failure_message = std::move(message);
    o.position = std::move(position);
    return *this;
  }
  Q& error(StreamsError::Kind kind, std::string message = "") {
    r.outcome = sim::OutcomeKind::kStreamsError;
    r.error = StreamsError{kind, std::move(message)};
    return *this;
  }
  Q& timed_out() {
    r.outcome = sim::OutcomeKind::kTimedOut;
    r.placement_at_answer.reset();
    return *this;
  }

 private:
  // A new partition outcome, built in place (records keep their outcomes ordered by partition).
  // In place rather than moved in: g++ 12 warns (maybe-uninitialized) on moving the variant.
  sim::PartitionOutcome& slot(int32_t partition) {
    IQ_ASSERT(r.partitions.empty() || r.partitions.back().partition < partition,
              "add outcomes in partition order");
    r.outcome = sim::OutcomeKind::kAnswered;
    sim::PartitionOutcome& o = r.partitions.emplace_back();
    o.partition = partition;
    return o;
  }
  int32_t first_partition() const {
    return r.request.partitions && !r.request.partitions->empty() ? *r.request.partitions->begin()
                                                                  : 0;
  }
};

class TraceBuilder {
 public:
  explicit TraceBuilder(TopologyKind kind = TopologyKind::SourceTable,
                        KeyValueSupplier supplier = KeyValueSupplier::kRocksDbTimestamped,
                        bool caching = false, int32_t partitions = 1) {
    trace_.scenario = "hand-made";
    trace_.seed = kSeed;
    trace_.topology.kind = kind;
    trace_.topology.supplier = supplier;
    trace_.topology.caching = caching;
    trace_.topology.source_partitions = partitions;
    trace_.topology.source_topic = kTopic;
    trace_.topology.store_name = kStore;
    trace_.keys = 16;
    trace_.consistency_offset_vector_enabled = true;
  }

  TraceBuilder& consistency(bool on) {
    trace_.consistency_offset_vector_enabled = on;
    return *this;
  }

  // Appends a record at the next offset of `partition` (timestamp = 100 * (offset + 1) unless
  // given) and returns its offset. Records must be produced partition by partition (the source
  // log is partition-major).
  int64_t produce(int32_t partition, int32_t key, std::optional<int64_t> value,
                  std::optional<int64_t> timestamp_ms = std::nullopt) {
    int64_t offset = 0;
    for (const auto& r : trace_.source_log) {
      if (r.partition == partition) offset = r.offset.value() + 1;
    }
    trace_.source_log.push_back(
        {partition, SourceOffset(offset), key, value, timestamp_ms.value_or(100 * (offset + 1))});
    return offset;
  }

  // A KeyQuery (or another key kind) of `key` on `partition`, sent to instance-1, invoked and
  // completed at the next free millisecond.
  Q key_query(int32_t partition, int32_t key, QueryKind kind = QueryKind::KeyQuery) {
    Q q = base_query(partition, kind);
    q.r.request.key = key;
    return q;
  }
  Q range_query(int32_t partition, std::optional<int32_t> lower, std::optional<int32_t> upper,
                QueryKind kind = QueryKind::RangeQuery) {
    Q q = base_query(partition, kind);
    q.r.request.lower = lower;
    q.r.request.upper = upper;
    return q;
  }

  // Appends the record to the history (ids in invoke order = append order here).
  const sim::QueryRecord& add(Q q) {
    q.r.id = trace_.history.next_id();
    if (q.r.placement_at_answer) q.r.placement_at_answer->at_ms = q.r.complete_ms;
    trace_.history.append(std::move(q.r));
    return trace_.history.records().back();
  }

  // Appends a record to the changelog of `partition` at its next offset (the trace then counts
  // as having its changelog recorded) and returns that changelog offset. Partition by partition.
  int64_t log(int32_t partition, int32_t key, std::optional<int64_t> value, int64_t timestamp_ms,
              std::optional<Position> header, const std::string& writer = "instance-1",
              int64_t appended_ms = 0) {
    trace_.changelog_recorded = true;
    int64_t offset = 0;
    for (const auto& r : trace_.changelog) {
      if (r.partition == partition) offset = r.offset.value() + 1;
    }
    sim::ChangelogRecord r;
    r.partition = partition;
    r.offset = ChangelogOffset(offset);
    r.key = key;
    r.value = value;
    r.timestamp_ms = timestamp_ms;
    r.appended_ms = base::Instant::from_ms(appended_ms);
    r.writer = writer;
    r.position = std::move(header);
    trace_.changelog.push_back(std::move(r));
    return offset;
  }
  // Marks changelog record `offset` of `partition` transactional with `outcome`, decided (its
  // marker appended) at decided_ms for kCommitted and kAborted.
  void txn(int32_t partition, int64_t offset, sim::TxnOutcome outcome,
           std::optional<int64_t> decided_ms = std::nullopt) {
    for (auto& r : trace_.changelog) {
      if (r.partition != partition || r.offset.value() != offset) continue;
      r.txn = outcome;
      r.decided_ms = decided_ms ? std::optional(base::Instant::from_ms(*decided_ms)) : std::nullopt;
      return;
    }
    IQ_ASSERT(false, "no changelog-{} offset {}", partition, offset);
  }
  // Store life `id` of kStore on `partition` (opened by `instance` as an active, created at its
  // first mention) wrote changelog offsets [first, last].
  void wrote(uint64_t id, const std::string& instance, int32_t partition, int64_t first,
             int64_t last) {
    auto it = std::find_if(trace_.store_lives.begin(), trace_.store_lives.end(),
                           [&](const sim::StoreLife& l) { return l.id == id; });
    if (it == trace_.store_lives.end()) {
      sim::StoreLife life = active_store_life(id);
      life.instance = instance;
      life.partition = partition;
      trace_.store_lives.push_back(std::move(life));
      it = std::prev(trace_.store_lives.end());
    }
    it->events.push_back({sim::StoreLifeEvent::Kind::kWrote, ChangelogOffset(first),
                          ChangelogOffset(last), base::Instant{}});
  }
  // The log cleaner removed changelog record `offset` of `partition` at removed_ms.
  void removed(int32_t partition, int64_t offset, int64_t removed_ms) {
    for (auto& r : trace_.changelog) {
      if (r.partition == partition && r.offset.value() == offset) {
        r.removed_ms = base::Instant::from_ms(removed_ms);
        return;
      }
    }
    IQ_ASSERT(false, "no changelog-{} offset {}", partition, offset);
  }
  void reprocessed(int32_t partition, int64_t first, int64_t last, std::string instance,
                   int64_t start_ms, int64_t end_ms) {
    trace_.reprocessed.push_back({partition, SourceOffset(first), SourceOffset(last),
                                  std::move(instance), base::Instant::from_ms(start_ms),
                                  base::Instant::from_ms(end_ms)});
  }

  // A fault of `kind` on `instance` at at_ms; `applied` false records one the injector skipped.
  void fault(int64_t at_ms, sim::FaultKind kind, std::string instance, bool applied = true) {
    sim::FaultRecord f;
    f.at_ms = base::Instant::from_ms(at_ms);
    f.kind = kind;
    f.instance = std::move(instance);
    f.detail = applied ? "test" : "test; skipped: not applicable";
    f.applied = applied;
    trace_.faults.push_back(std::move(f));
  }
  void phase(std::string title, int64_t start_ms, int64_t end_ms, std::vector<std::string> checks) {
    trace_.phases.push_back({std::move(title), base::Instant::from_ms(start_ms),
                             base::Instant::from_ms(end_ms), std::move(checks)});
  }

  sim::RunTrace& trace() { return trace_; }

 private:
  Q base_query(int32_t partition, QueryKind kind) {
    Q q;
    q.r.source = sim::QueryRecord::Source::kScripted;
    q.r.request.store = kStore;
    q.r.request.query = "query";
    q.r.request.kind = kind;
    q.r.request.partitions = std::set<int32_t>{partition};
    q.r.home_instance = "instance-1";
    q.r.target_instance = "instance-1";
    q.r.invoke_ms = base::Instant::from_ms(++now_ms_);
    q.r.complete_ms = q.r.invoke_ms;
    q.r.placement_at_invoke.at_ms = q.r.invoke_ms;
    return q;
  }

  sim::RunTrace trace_;
  int64_t now_ms_ = 0;
};

// A VersionedTable trace: key 1 on partition 0 gets 10 @1000, 12 @3000, then out of order
// 11 @2000; history retention 10 s, segments of 1 s.
inline TraceBuilder versioned_table() {
  TraceBuilder b(TopologyKind::VersionedTable);
  b.trace().topology.history_retention_ms = 10'000;
  b.trace().topology.segment_interval_ms = 1'000;
  b.produce(0, 1, 10, 1'000);
  b.produce(0, 1, 12, 3'000);
  b.produce(0, 1, 11, 2'000);
  return b;
}

// exactly_once_v2 (changelog_witness_test, dirty_reads_test): key 1 = 10 by instance-1,
// committed at 150 ms; key 1 = 11 by instance-2, aborted at 500 ms; key 2 = 5 by instance-1,
// committed at 700 ms; appended at 100, 200 and 300 ms, each header the writer's position after
// the write.
inline TraceBuilder eos_aborted_write_trace() {
  TraceBuilder b(TopologyKind::SourceTable, KeyValueSupplier::kRocksDbTimestamped);
  b.produce(0, 1, 10);
  b.produce(0, 1, 11);
  b.produce(0, 2, 5);
  b.log(0, 1, 10, 100, pos(0, 0), "instance-1", 100);
  b.log(0, 1, 11, 200, pos(0, 1), "instance-2", 200);
  b.log(0, 2, 5, 300, pos(0, 2), "instance-1", 300);
  b.txn(0, 0, sim::TxnOutcome::kCommitted, 150);
  b.txn(0, 1, sim::TxnOutcome::kAborted, 500);
  b.txn(0, 2, sim::TxnOutcome::kCommitted, 700);
  return b;
}

// A large consistent trace, the happy path every check walks: a Count topology over
// `partitions` partitions of `keys` keys (key k on partition k % partitions), with the switch on.
// Each step produces one record and then runs one query against the state right after it: a
// KeyQuery, TimestampedKeyQuery, RangeQuery or TimestampedRangeQuery, unbounded or
// bounded by the session's merged position, answered by the active with the exact position; plus
// a lag sample every 16 steps. Ranges span 4 * partitions keys, so several of one partition. Every
// check finds nothing wrong in it (checks_test proves it), so a benchmark over it measures judging,
// not violation rendering.
inline sim::RunTrace synthetic_trace(uint64_t seed, int64_t queries, int32_t partitions = 4,
                                     int32_t keys = 64) {
  // Wide enough to hold several keys of one partition (key k lives on partition k % partitions).
  const int32_t kRangeWidth = 4 * partitions;
  base::Prng prng(seed);
  sim::RunTrace trace;
  trace.scenario = "synthetic";
  trace.seed = seed;
  trace.topology.kind = TopologyKind::Count;
  trace.topology.supplier = KeyValueSupplier::kRocksDbTimestamped;
  trace.topology.caching = false;
  trace.topology.source_partitions = partitions;
  trace.topology.source_topic = kTopic;
  trace.topology.store_name = kStore;
  trace.keys = keys;
  trace.consistency_offset_vector_enabled = true;
  trace.history = sim::History(static_cast<size_t>(queries) + 1);

  struct Partition {
    std::map<int32_t, std::pair<int64_t, int64_t>> state;  // key -> (count, max timestamp)
    int64_t next_offset = 0;
    std::vector<sim::SourceLogRecord> log;
  };
  std::vector<Partition> parts(static_cast<size_t>(partitions));
  Position session = Position::empty_position();
  for (int64_t i = 0; i < queries; ++i) {
    const int32_t key = static_cast<int32_t>(prng.below(static_cast<uint64_t>(keys)));
    const int32_t p = key % partitions;
    Partition& part = parts[static_cast<size_t>(p)];
    const int64_t offset = part.next_offset++;
    const int64_t ts = 1'000 + i;
    part.log.push_back({p, SourceOffset(offset), key, 1, ts});
    auto& [count, max_ts] = part.state[key];
    ++count;
    max_ts = std::max(max_ts, ts);
    const Position position = pos(p, offset);

    sim::QueryRecord r;
    r.id = trace.history.next_id();
    r.source = sim::QueryRecord::Source::kClient;
    r.client = 0;
    r.query = static_cast<uint64_t>(i + 1);
    r.invoke_ms = base::Instant::from_ms(i);
    r.complete_ms = r.invoke_ms;
    r.request.store = kStore;
    r.request.partitions = std::set<int32_t>{p};
    const int32_t shape = static_cast<int32_t>(prng.below(4));
    r.request.kind = shape == 0   ? QueryKind::KeyQuery
                     : shape == 1 ? QueryKind::TimestampedKeyQuery
                     : shape == 2 ? QueryKind::RangeQuery
                                  : QueryKind::TimestampedRangeQuery;
    r.request.query = "q";
    r.request.key = key;
    if (prng.below(2) == 0) {
      r.request.bound_mode = sim::BoundMode::kSession;
      r.request.bound = session;
    }
    r.home_instance = r.target_instance = "instance-1";
    sim::PartitionOutcome o;
    o.partition = p;
    o.success = true;
    o.position = position;
    const bool timestamped = shape == 1 || shape == 3;
    if (shape <= 1) {
      o.value = std::optional<int64_t>(count);
      if (timestamped) o.timestamps.push_back(max_ts);
    } else {
      r.request.lower = key;
      r.request.upper = key + kRangeWidth - 1;
      sim::KeyValueList entries;
      for (auto it = part.state.lower_bound(key);
           it != part.state.end() && it->first <= key + kRangeWidth - 1; ++it) {
        entries.emplace_back(it->first, it->second.first);
        if (timestamped) o.timestamps.push_back(it->second.second);
      }
      o.value = std::move(entries);
    }
    r.partitions.push_back(std::move(o));
    r.outcome = sim::OutcomeKind::kAnswered;
    sim::ReplicaSnapshot rs = active(p, position);
    // A Count store logs one changelog record per input record, and this generator never
    // crashes, so the changelog offsets equal the source offsets here.
    rs.changelog_offset = ChangelogOffset(offset);
    rs.changelog_end_offset = ChangelogOffset(offset + 1);
    rs.lag = 0;
    r.placement_at_invoke.at_ms = r.invoke_ms;
    r.placement_at_invoke.replicas.push_back(rs);
    r.placement_at_answer = r.placement_at_invoke;
    session.merge(position);
    if (i % 16 == 0) {
      trace.lags.push_back(
          {r.invoke_ms, "instance-1", kStore, p, LagInfo{offset + 1, offset + 1}, rs});
    }
    trace.history.append(std::move(r));
  }
  for (auto& part : parts) {
    trace.source_log.insert(trace.source_log.end(), part.log.begin(), part.log.end());
  }
  trace.end_ms = base::Instant::from_ms(queries);
  return trace;
}

}  // namespace iq::properties::testing
