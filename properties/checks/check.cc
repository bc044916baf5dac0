#include "checks/check.h"

#include <algorithm>

#include "base/assert.h"
#include "model/key_bytes.h"
#include "trace/property_names.h"

namespace iq::properties {
namespace names = sim::property_names;
namespace {

model::Aggregation aggregation_of(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::SourceTable:
    case TopologyKind::PapiWriter:
    // The latest-by-offset fold is only what positions are judged by here: every record writes
    // a versioned store's position, a put dropped beyond grace included (quirk 14). Its versioned
    // answers are judged by the model's VersionedHistory instead.
    case TopologyKind::VersionedTable:
    case TopologyKind::VersionedPapiWriter:
      return model::Aggregation::kLatest;
    case TopologyKind::Count:
      return model::Aggregation::kCount;
    case TopologyKind::Sum:
      return model::Aggregation::kSum;
    // Window and session answers are judged by window_history() / session_history()
    // (window_judge.cc); the key-value fold is built for them only because every check holds one,
    // and answers nothing.
    case TopologyKind::WindowedCount:
    case TopologyKind::WindowedSum:
    case TopologyKind::SessionCount:
    case TopologyKind::SessionSum:
    case TopologyKind::WindowPapiWriter:
    case TopologyKind::SessionPapiWriter:
      return model::Aggregation::kLatest;
  }
  IQ_ASSERT(false, "unknown topology kind {}", static_cast<int>(kind));
  return model::Aggregation::kLatest;
}

// What each topology does with a null value (impl/topology/topologies.h): a KTable source puts
// null (a tombstone), the PAPI writer calls delete(), the aggregations drop the record.
model::WriteKind write_kind_of(TopologyKind kind, const sim::SourceLogRecord& record) {
  if (record.value) return model::WriteKind::kPut;
  switch (kind) {
    case TopologyKind::SourceTable:
    case TopologyKind::VersionedTable:
    // VersionedKeyValueStore#delete(key, ts) is put(key, null, ts) for the versions kept, so the
    // versioned model takes it as the table's tombstone. It differs only in the position of a
    // delete dropped beyond grace, which stays (quirk 14): the key-value fold, which judges
    // positions here, counts every record as a write, so a reported offset is never judged
    // implausible for it, and the liveness class (versioned_grace_tail.cc) already takes a null
    // source record as a delete.
    case TopologyKind::VersionedPapiWriter:
      return model::WriteKind::kTombstone;
    case TopologyKind::PapiWriter:
      return model::WriteKind::kDelete;
    case TopologyKind::Count:
    case TopologyKind::Sum:
      return model::WriteKind::kPut;  // a null-valued put, which writes_store() drops
    // A window or session processor never deletes: a null value counts (count), adds 0 (sum),
    // or is put as null (the PAPI writers); the models take it as a value-less record.
    case TopologyKind::WindowedCount:
    case TopologyKind::WindowedSum:
    case TopologyKind::SessionCount:
    case TopologyKind::SessionSum:
    case TopologyKind::WindowPapiWriter:
    case TopologyKind::SessionPapiWriter:
      return model::WriteKind::kTombstone;
  }
  return model::WriteKind::kPut;
}

// The DSL builds every store with the timestamped builder: over a timestamped supplier the
// timestamps are real, over in-memory and LRU suppliers the marker keeps them real, over a plain
// RocksDB supplier the adapter synthesizes -1 (docs/iqv2-semantics.md §4). The PAPI writer uses
// the plain builder, whose values carry no timestamp.
model::TimestampMode timestamp_mode_of(const TopologyConfig& topology) {
  if (!topology.timestamped()) return model::TimestampMode::kNone;
  if (topology.supplier == KeyValueSupplier::kRocksDb) return model::TimestampMode::kMinusOne;
  return model::TimestampMode::kReal;
}

// Only InMemoryKeyValueStore.delete() leaves the position alone (docs/iqv2-semantics.md §7). With a
// caching layer above it, a delete becomes a cached tombstone that reaches the store as
// put(key, null) on flush, which does advance it; only the PAPI writer ever calls delete().
bool deletes_advance_of(const TopologyConfig& topology) {
  return !(topology.kind == TopologyKind::PapiWriter &&
           topology.supplier == KeyValueSupplier::kInMemory && !topology.caching);
}

void push_distinct(std::vector<int64_t>& offsets, int64_t offset) {
  IQ_ASSERT(offsets.empty() || offsets.back() <= offset, "offset {} after {}", offset,
            offsets.back());
  if (offsets.empty() || offsets.back() != offset) offsets.push_back(offset);
}

const std::vector<int64_t> kNoOffsets;

// How a window or session store enforces retention: per entry in memory, by whole segments in
// RocksDB (Stores.persistentWindowStore / persistentSessionStore, whose segment interval is
// max(retention / 2, 60 s)).
model::StoreBacking backing_of(const TopologyConfig& t) {
  IQ_ASSERT(t.supplier != KeyValueSupplier::kLruMap, "no window or session store over lruMap");
  return t.supplier == KeyValueSupplier::kInMemory ? model::StoreBacking::kInMemory
                                                   : model::StoreBacking::kSegmented;
}

int64_t segment_interval_of(const TopologyConfig& t) {
  if (backing_of(t) == model::StoreBacking::kInMemory) return 1;
  return std::max<int64_t>(t.effective_window_retention_ms() / 2, 60'000);
}

}  // namespace

model::WindowSpec window_spec_of(const TopologyConfig& t) {
  const bool papi = t.kind == TopologyKind::WindowPapiWriter;
  return model::WindowSpec{t.kind == TopologyKind::WindowedCount ? model::WindowAggregation::kCount
                           : papi                                ? model::WindowAggregation::kLatest
                                                                 : model::WindowAggregation::kSum,
                           t.window_size_ms,
                           papi ? t.window_size_ms : t.effective_window_advance_ms(),
                           papi ? 0 : t.grace_ms,
                           t.effective_window_retention_ms(),
                           backing_of(t),
                           segment_interval_of(t),
                           papi && t.retain_duplicates};
}

model::SessionSpec session_spec_of(const TopologyConfig& t) {
  const bool papi = t.kind == TopologyKind::SessionPapiWriter;
  return model::SessionSpec{t.kind == TopologyKind::SessionCount ? model::SessionAggregation::kCount
                            : papi ? model::SessionAggregation::kLatest
                                   : model::SessionAggregation::kSum,
                            t.session_gap_ms,
                            papi ? 0 : t.grace_ms,
                            t.effective_window_retention_ms(),
                            backing_of(t),
                            segment_interval_of(t),
                            /*processor_reads_cache=*/!papi && t.cached()};
}

const char* to_string(ViolationClass c) {
  switch (c) {
    case ViolationClass::kFailure:
      return "failure";
    case ViolationClass::kAtLeastOnceReprocessing:
      return "known Kafka behaviour: at-least-once reprocessing";
    case ViolationClass::kRestartWithoutCheckpoint:
      // An empty position (no checkpoint), an older checkpoint's, or the headers of a replay
      // from the log start that is under way: each lower than the data the store kept.
      return "known Kafka behaviour: a store reopened without a current checkpoint keeps its data "
             "under a lower position";
    case ViolationClass::kCacheFlushPartlyApplied:
      return "known Kafka behaviour: a replica inside one cached flush of the changelog "
             "over-claims";
    case ViolationClass::kPositionAheadOfCheckpoint:
      return "known Kafka behaviour: a store restored under a .position newer than its "
             ".checkpoint over-claims";
    case ViolationClass::kFencedLateWrite:
      return "known Kafka behaviour: a fenced member's late writes";
    case ViolationClass::kLruEvictedAggregate:
      return "known Kafka behaviour: an LRU store's evicted aggregate restarts from zero";
    case ViolationClass::kVersionedStoreReopened:
      return "known Kafka behaviour: a reopened versioned store does not see its older segments";
    case ViolationClass::kReplicaInsideCompactedChangelog:
      return "known Kafka behaviour: a replica inside a compacted changelog lacks superseded keys";
    case ViolationClass::kReplicaInsideOneRecordsWrites:
      return "known Kafka behaviour: a replica between one input record's changelog writes "
             "over-claims";
    case ViolationClass::kCleanerCutByCrash:
      return "known Kafka behaviour: a task directory whose deletion a crash cut keeps its "
             ".checkpoint without its store";
    case ViolationClass::kVersionedGraceDroppedTail:
      return "known Kafka behaviour: a versioned store's position never reaches records dropped "
             "beyond the grace period";
    case ViolationClass::kWindowGraceDroppedTail:
      return "known Kafka behaviour: a window or session store's position never reaches records "
             "dropped beyond the grace period";
    case ViolationClass::kVersionedRestoreDroppedExpired:
      return "known Kafka behaviour: a versioned restore batch discards versions already beyond "
             "the history retention";
    case ViolationClass::kDuplicatesNullPutSkipped:
      return "known Kafka behaviour: a retainDuplicates RocksDB window store skips a null put "
             "that its changelog logs and its restore takes";
    case ViolationClass::kCachedWritesBeneathPosition:
      return "known Kafka behaviour: a caching window or session store answers from beneath its "
             "cache, whose dirty writes lie beneath the position";
    case ViolationClass::kEosKeptAbortedWrites:
      return "known Kafka behaviour: an exactly-once store restarted on the restoration "
             ".checkpoint keeps aborted writes and counts its input again over them";
    case ViolationClass::kReadCommittedStoreNotTransactional:
      return "known Kafka behaviour (2026-08-20, READ_COMMITTED): a store that is not "
             "transactional reads uncommitted writes whatever the isolation level";
    case ViolationClass::kCachedKeyQueryIgnoresIsolation:
      return "known Kafka behaviour (2026-08-20, READ_COMMITTED): a cached KeyQuery answers "
             "from the record cache whatever the isolation level";
    case ViolationClass::kCachedKeyQueryMissReadsCommitted:
      return "known Kafka behaviour (2026-08-20, READ_COMMITTED): a cached KeyQuery that misses "
             "the record cache answers the committed value under the staged position";
    case ViolationClass::kVersionedPositionNotPersisted:
      return "known Kafka behaviour (2026-08-20): a versioned store reopened over its data "
             "starts from an empty position (its commit persists no position of its puts)";
    case ViolationClass::kStagedStreamTimeExpiresCommitted:
      return "known Kafka behaviour (2026-08-20, READ_COMMITTED): a transactional window or "
             "session store's staged puts raise its stream time and expire committed windows";
    case ViolationClass::kVersionedPositionNotStaged:
      return "known Kafka behaviour (2026-08-20, READ_COMMITTED): a transactional versioned store "
             "answers committed versions under its staged position (its position is not staged)";
  }
  return "?";
}

bool attributed_by_rerun(ViolationClass c) {
  return c == ViolationClass::kVersionedRestoreDroppedExpired;
}

const char* class_key(ViolationClass c) {
  if (c == ViolationClass::kFailure) return "failure";
  // The one list of the names (trace/property_names.h), in ViolationClass's order; each a literal.
  return sim::behaviour_names::kAll[static_cast<size_t>(c) - 1].data();
}

std::optional<ViolationClass> class_from_key(std::string_view key) {
  for (const ViolationClass c : kViolationClasses) {
    if (key == class_key(c)) return c;
  }
  return std::nullopt;
}

std::string Violation::to_string() const {
  std::string out =
      "[" + std::string(iq::properties::to_string(violation_class)) + "] [" + property + "]";
  if (record_id != 0) out += " record #" + std::to_string(record_id);
  out += " at " + std::to_string(at_ms) + " ms: " + summary + "\n";
  if (!query.empty()) out += "  query:     " + query + "\n";
  if (!expected.empty()) out += "  expected:  " + expected + "\n";
  if (!returned.empty()) out += "  returned:  " + returned + "\n";
  if (!class_evidence.empty()) out += "  class:     " + class_evidence + "\n";
  if (!replica.empty()) out += "  replica:   " + replica + "\n";
  if (!placement.empty()) out += "  placement: " + placement + "\n";
  if (!events_before.empty()) {
    out += "  faults before:\n";
    for (const auto& e : events_before) out += "    " + e + "\n";
  }
  if (!reprocessed_before.empty()) {
    out += "  reprocessed before (at-least-once, this partition):\n";
    for (const auto& r : reprocessed_before) out += "    " + r + "\n";
  }
  return out;
}

JudgeContext::JudgeContext(const sim::RunTrace& trace)
    : trace_(trace),
      timestamp_mode_(timestamp_mode_of(trace.topology)),
      deletes_advance_(deletes_advance_of(trace.topology)) {
  const model::Aggregation aggregation = aggregation_of(trace.topology.kind);
  // Sized to the log: a trace holds every source record, and the model keeps every version.
  store_ = std::make_unique<model::ReferenceStore>(
      aggregation, std::max<int64_t>(1, static_cast<int64_t>(trace.source_log.size())));
  if (trace.topology.versioned()) {
    versioned_ = std::make_unique<model::VersionedHistory>(
        trace.topology.history_retention_ms, trace.topology.effective_segment_interval_ms(),
        std::max<int64_t>(1, static_cast<int64_t>(trace.source_log.size())));
  }
  const int64_t records_max = std::max<int64_t>(1, static_cast<int64_t>(trace.source_log.size()));
  if (trace.topology.windowed()) {
    window_ = std::make_unique<model::WindowHistory>(window_spec_of(trace.topology), records_max);
  }
  if (trace.topology.session()) {
    session_ =
        std::make_unique<model::SessionHistory>(session_spec_of(trace.topology), records_max);
  }
  PartitionIndex* last_index = nullptr;  // the source log is partition-major: one look-up each
  int32_t last_partition = -1;
  for (const sim::SourceLogRecord& r : trace.source_log) {
    // The model (it sees only base/) and the index below hold source offsets as the raw numbers a
    // Position's components are.
    const int64_t offset = r.offset.value();
    const model::SourceRecord record{offset, model::serialize_int32_key(r.key), r.value,
                                     r.timestamp_ms, write_kind_of(trace.topology.kind, r)};
    store_->apply(r.partition, record);
    if (versioned_) versioned_->apply(r.partition, record);
    if (last_index == nullptr || r.partition != last_partition) {
      last_index = &index_[r.partition];
      last_partition = r.partition;
    }
    PartitionIndex& index = *last_index;
    if (window_ || session_) {
      // A window or session record writes the store (and its position) when the model says so:
      // not when every window it falls in closed beyond grace, nor (segmented stores) when the
      // store dropped every put as expired.
      if (window_) window_->apply(r.partition, record);
      if (session_) session_->apply(r.partition, record);
      const auto updated = window_ ? window_->position_offset(r.partition, offset)
                                   : session_->position_offset(r.partition, offset);
      if (updated != std::optional(offset)) continue;
      push_distinct(index.key_writes[r.key], offset);
      push_distinct(index.advancing, offset);
      continue;
    }
    if (!model::writes_store(aggregation, record)) continue;
    push_distinct(index.key_writes[r.key], offset);
    if (record.kind == model::WriteKind::kDelete && !deletes_advance_) {
      push_distinct(index.silent, offset);
    } else {
      push_distinct(index.advancing, offset);
    }
  }
  faults_by_time_.reserve(trace.faults.size());
  for (size_t i = 0; i < trace.faults.size(); ++i) faults_by_time_.push_back(i);
  std::stable_sort(faults_by_time_.begin(), faults_by_time_.end(), [&](size_t a, size_t b) {
    return trace.faults[a].at_ms < trace.faults[b].at_ms;
  });
}

JudgeContext::~JudgeContext() = default;

int32_t JudgeContext::phase_index(base::Instant at_ms) const {
  for (size_t i = 0; i < trace_.phases.size(); ++i) {
    const auto& phase = trace_.phases[i];
    if (phase.start_ms <= at_ms && at_ms < phase.end_ms) return static_cast<int32_t>(i);
  }
  return -1;
}

bool JudgeContext::phase_includes(base::Instant at_ms, std::string_view property) const {
  const int32_t i = phase_index(at_ms);
  if (i < 0) return true;
  const auto& checks = trace_.phases[static_cast<size_t>(i)].checks;
  return checks.empty() || std::find(checks.begin(), checks.end(), property) != checks.end();
}

bool JudgeContext::judged_by(const sim::QueryRecord& record, std::string_view property) const {
  if (record.source == sim::QueryRecord::Source::kLiveness ||
      record.source == sim::QueryRecord::Source::kAudit) {
    return true;
  }
  return phase_includes(record.invoke_ms, property);
}

bool JudgeContext::judged_at(base::Instant at_ms, std::string_view property) const {
  return phase_includes(at_ms, property);
}

std::vector<std::string> JudgeContext::events_before(base::Instant at_ms, size_t n) const {
  const auto end =
      std::upper_bound(faults_by_time_.begin(), faults_by_time_.end(), at_ms,
                       [&](base::Instant t, size_t i) { return t < trace_.faults[i].at_ms; });
  const auto count = std::min<size_t>(n, static_cast<size_t>(end - faults_by_time_.begin()));
  std::vector<std::string> out;
  out.reserve(count);
  for (auto it = end - static_cast<std::ptrdiff_t>(count); it != end; ++it) {
    out.push_back(trace_.faults[*it].to_string());
  }
  return out;
}

std::vector<std::string> JudgeContext::reprocessed_before(base::Instant at_ms, int32_t partition,
                                                          size_t n) const {
  // Ranges open in time order, so the ones begun by at_ms are a prefix.
  std::vector<const sim::ReprocessedRange*> begun;
  for (const sim::ReprocessedRange& r : trace_.reprocessed) {
    if (r.start_ms > at_ms) break;
    if (r.partition == partition) begun.push_back(&r);
  }
  std::vector<std::string> out;
  const size_t count = std::min(n, begun.size());
  if (begun.size() > count) {
    out.push_back("(" + std::to_string(begun.size() - count) + " earlier ranges)");
  }
  for (size_t i = begun.size() - count; i < begun.size(); ++i) {
    // A range still growing at the answer says so: its later offsets came after it.
    out.push_back(begun[i]->to_string() +
                  (begun[i]->end_ms > at_ms ? " (under way at the answer)" : ""));
  }
  return out;
}

const std::vector<int64_t>& JudgeContext::key_write_offsets(int32_t partition, int32_t key) const {
  const auto p = index_.find(partition);
  if (p == index_.end()) return kNoOffsets;
  const auto k = p->second.key_writes.find(key);
  return k == p->second.key_writes.end() ? kNoOffsets : k->second;
}

std::vector<int32_t> JudgeContext::keys_written(int32_t partition) const {
  std::vector<int32_t> keys;
  const auto p = index_.find(partition);
  if (p == index_.end()) return keys;
  keys.reserve(p->second.key_writes.size());
  for (const auto& [key, offsets] : p->second.key_writes) keys.push_back(key);
  return keys;
}

std::optional<int64_t> JudgeContext::next_advancing_write(int32_t partition, int64_t offset) const {
  const auto p = index_.find(partition);
  if (p == index_.end()) return std::nullopt;
  const auto& v = p->second.advancing;
  const auto it = std::upper_bound(v.begin(), v.end(), offset);
  if (it == v.end()) return std::nullopt;
  return *it;
}

std::vector<int64_t> JudgeContext::silent_writes_between(int32_t partition, int64_t after,
                                                         int64_t before) const {
  std::vector<int64_t> out;
  const auto p = index_.find(partition);
  if (p == index_.end()) return out;
  const auto& v = p->second.silent;
  for (auto it = std::upper_bound(v.begin(), v.end(), after); it != v.end() && *it < before; ++it) {
    out.push_back(*it);
  }
  return out;
}

void JudgeContext::add_tally(std::string_view property, const CheckTally& tally) const {
  auto it = tallies_.find(property);
  if (it == tallies_.end()) it = tallies_.emplace(std::string(property), CheckTally{}).first;
  it->second.judged += tally.judged;
  for (const auto& [why, count] : tally.not_judged) it->second.not_judged[why] += count;
}

const std::vector<CheckInfo>& all_checks() {
  static const std::vector<CheckInfo> checks = {
      {names::kResultMatchesModel.data(),
       "a successful partition result equals the model's answer at the position that result "
       "reports",
       &check_result_matches_model},
      {names::kSamePositionSameAnswer.data(),
       "two results for the same store partition and query that report the same position are "
       "equal, whichever replica or incarnation served them",
       &check_same_position_same_answer},
      {names::kBoundHonored.data(),
       "success under PositionBound.at(B) means the reported position dominates B on the served "
       "partition; NOT_UP_TO_BOUND means the serving replica really was behind",
       &check_bound_honored},
      {names::kSessionMonotonic.data(),
       "a client that feeds its merged position back as its bound never sees any component go "
       "backwards",
       &check_session_monotonic},
      {names::kFailureReasonCorrect.data(),
       "each failure reason is the one Kafka's rules give for the placement at query time and a "
       "success is not returned where a failure was due",
       &check_failure_reason_correct},
      {names::kEventuallyAvailable.data(),
       "after faults stop and the cluster heals, every partition answers a bounded query within a "
       "stated virtual time",
       &check_eventually_available},
      {names::kLagReported.data(),
       "reported lags (allLocalStorePartitionLags) equal end offset minus the replica's actual "
       "offset",
       &check_lag_reported},
      {names::kChangelogWitness.data(),
       "a replica's successful answer equals the fold of the changelog prefix it had applied, "
       "plus an active's writes not yet logged",
       &check_changelog_witness},
      {names::kScriptedExpectations.data(),
       "every scripted query's outcome is exactly what its scenario step expects",
       &check_scripted_expectations},
      {names::kProgress.data(),
       "after faults stop and every partition answered, the cluster settles by the liveness "
       "deadline: standbys and warmups catch up, restores finish, the group is stable and the "
       "input committed",
       &check_progress},
  };
  // The registry and the one list of names (trace/property_names.h) agree, name by name and in
  // order; a check added here without its name there (or the reverse) stops every binary at once.
  IQ_ASSERT(checks.size() == names::kTraceCheckCount, "all_checks() holds ", checks.size(),
            " checks, trace/property_names.h names ", names::kTraceCheckCount);
  for (size_t i = 0; i < checks.size(); ++i) {
    IQ_ASSERT(checks[i].name == names::kAll[i], "check ", i, " is ", checks[i].name,
              ", trace/property_names.h says ", names::kAll[i]);
  }
  return checks;
}

const CheckInfo* find_check(std::string_view name) {
  for (const CheckInfo& check : all_checks()) {
    if (name == check.name) return &check;
  }
  return nullptr;
}

std::vector<std::string> all_property_names() {
  all_checks();  // asserts the registry matches the list
  return {names::kAll.begin(), names::kAll.end()};
}

}  // namespace iq::properties
