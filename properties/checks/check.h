#pragma once
// The consistency properties of docs/design.md §4 as named checks over a recorded RunTrace.
//
// A check is a pure function: (trace, judge context) -> violations. It never runs the simulator.
// Each violation carries enough to understand it without the trace at hand: the query, the
// expected and returned outcome, the replica that answered and its placement, and the faults
// that led there.
//
//   JudgeContext context(trace);                 // builds the reference model once
//   for (const CheckInfo& check : all_checks()) {
//     for (Violation& v : check.run(context)) ...
//   }
//   context.tallies();                           // per check: judged, and not judged with why
//
// Each check lives in its own file (checks/<snake_name>.cc) whose header comment is its
// one-line statement; properties/checks/README.md says what each one can and cannot see.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "model/expected_answer.h"
#include "model/reference_store.h"
#include "model/session_history.h"
#include "model/versioned_history.h"
#include "model/window_history.h"
#include "trace/property_names.h"
#include "trace/run_trace.h"

namespace iq::properties {

// What explains a violation (properties/checks/violation_class.cc decides, from the run's record,
// never from a label). Anything the record does not prove to be a declared Kafka behaviour is a
// failure.
enum class ViolationClass {
  kFailure,  // not explained: a bug of iqsim or of Kafka until someone reads it
  // Kafka's at-least-once reprocessing: the answer is the fold of the changelog its replica had
  // applied (ChangelogWitness holds for it), and that changelog holds records written by
  // reprocessing input the ProcessingLedger shows processed again, beneath the answer's position.
  kAtLeastOnceReprocessing,
  // Kafka keeps a persistent store restarted without a checkpoint under at-least-once and loads
  // its position from the missing .position file as empty: a ResultMatchesModel under-claim
  // whose answer has an empty position and is, by ChangelogWitness, the applied prefix's fold over
  // an earlier life's (a longer prefix's) fold, on an instance that crashed, restarted or closed
  // before (scenarios/findings/alos_standby_restart_without_checkpoint_underclaims.toml). Also a
  // store restored from a .checkpoint older than the data it kept (a crash between a flush and
  // its .checkpoint write): the records replayed after that checkpoint over the kept fold, under
  // the older position (the answer's position is not empty then; the replica's restored_from is
  // set). And a store reopened without a .checkpoint (after a crash or close, or tasks lost to a
  // pause or isolation) whose replay from the log start is under way: the kept data's answer
  // under the replayed headers' position (restored_from empty; the position no higher than the
  // applied prefix's headers; versioned seeds 33, 130, 177, 272, 370 of templates/versioned.toml).
  kRestartWithoutCheckpoint,
  // Kafka's record cache logs a flush key by key, each key once under its last write's context,
  // with a position header that only grows: a replica that applied part of one flush reports a
  // position covering writes of keys later in it. A ResultMatchesModel violation whose answer is
  // the fold of the changelog prefix its replica applied (ChangelogWitness holds), that prefix
  // ending inside a flush (one writer, one event; its rest later in the log, or lost when the
  // writer crashed inside a send), and every key it differs from the model on written by the rest
  // of that flush (checks/partial_flush.cc; scenarios/findings/cache_flush_*). A caching window or
  // session store's flush has the same form per (key, window) slot: each slot the answer misses
  // or differs on was written above every header beneath the flush (window_judge.cc).
  kCacheFlushPartlyApplied,
  // Quirk 12 of docs/iqv2-semantics.md: a checkpoint writes <store>.position before .checkpoint;
  // a crash between them makes the restarted store restore from the old changelog offset under
  // the newer position. A ResultMatchesModel or ChangelogWitness violation whose answer's value is
  // what ChangelogWitness says its replica holds, on a persistent store whose instance's last
  // crash landed inside this task's .checkpoint write and which restarted on its kept disk, with
  // a position above its applied prefix's headers and within those the log held at the crash
  // (checks/position_file_ahead.cc; scenarios/findings/position_file_ahead_of_checkpoint.toml).
  kPositionAheadOfCheckpoint,
  // A fenced member's late writes under at-least-once: a member that was paused or cut off past
  // its session flushes and sends what it processed (StreamTask.prepareCommit) before its offset
  // commit fails, and no producer fencing stops those sends; they land after the new owner began
  // processing the same input again, beneath a newer position. The answer is the fold of the
  // changelog its replica applied, which holds such a write: by an instance paused or isolated
  // before, carrying (position header) input a range the ProcessingLedger shows processed again by
  // another instance, appended after that range began, beneath the answer's position
  // (scenarios/findings/alos_fenced_member_late_write_beneath_newer_position.toml).
  kFencedLateWrite,
  // An LRU store's evicted aggregate restarts from zero: Kafka's KStreamAggregate reads null for a
  // key the MemoryLRUCache evicted and counts again from the initializer, and every replica folds
  // that restarted aggregate from the changelog. A ResultMatchesModel violation of a Count or Sum
  // over an LRU store whose answer is its replica's changelog fold and whose every aggregate is
  // the model's or that of the key's records since a point where the store could have evicted it
  // (checks/aggregate_proofs.cc).
  kLruEvictedAggregate,
  // Quirk 17 of docs/iqv2-semantics.md: a versioned store opened over an earlier store object's
  // data (a restart on a kept disk, a task that came back) knows none of its segments until a put
  // re-creates them (LogicalKeyValueSegments.openExisting opens the RocksDB only), so versions in
  // the others are invisible, never expire, and a put can append to a row it did not search
  // (insertAsEarliest unchecked). A ResultMatchesModel or SamePositionSameAnswer violation whose
  // answer holds only versions its replica could have been given (each a changelog record of the
  // key it applied, or, after a restart, one appended before the answer; changelog_witness_
  // versioned.cc step 3), by a replica whose store the simulator recorded as opened over existing
  // data (checks/versioned_reopened.cc; scenarios/findings/versioned_reopened_store_*).
  kVersionedStoreReopened,
  // A replica inside a compacted changelog lacks superseded keys: the log cleaner keeps only the
  // latest record per key of the cleaned segments, so a standby or restoring active that fetches
  // an offset after a cleaning removed its record (a newer record of the key lying beyond the
  // replica's offset) never reads it. A ResultMatchesModel or SamePositionSameAnswer violation
  // whose answer is the fold of what its replica could read of the compacted log (ChangelogWitness
  // holds only by skipping records removed before the replica read them, checks/compacted_read.cc)
  // and which, with those keys given the whole prefix's fold, is the model's answer
  // (scenarios/findings/compacted_changelog_replica_lacks_superseded_key.toml). Window and session
  // changelogs too: a session merge's tombstone shares its changelog key with the merged-away
  // session's put, so the cleaner removes that put (window_judge.cc reads the compacted log).
  kReplicaInsideCompactedChangelog,
  // A replica between one input record's changelog writes over-claims: a session merge logs the
  // removal of each merged session and the put of the merged one, a hopping window's record one
  // write per window, a record cache one flush of many, each a record of its own appended by the
  // writer in one go, and a standby or restoring active can stop between them. A
  // ResultMatchesModel or SamePositionSameAnswer violation on a window or session store whose
  // answer is its replica's changelog fold, position included, and whose fold with the records
  // its writer appended in the same millisecond after it is the model's answer at their highest
  // header (checks/window_judge.cc;
  // scenarios/findings/session_merge_partly_applied_overclaims.toml).
  kReplicaInsideOneRecordsWrites,
  // A store whose task directory the state-directory cleaner was deleting when its process died
  // keeps its .checkpoint without its data: StateDirectory's cleaner deletes the directory in
  // place, file by file, without fsync (Utils.delete), so a crash can leave `.checkpoint` and
  // `.position` while the store's own directory is gone; on restart the checkpoint is trusted
  // (ProcessorStateManager.initializeStoreOffsetsFromCheckpoint) and the restore replays only
  // the records after it into the empty store. A ResultMatchesModel, SamePositionSameAnswer or
  // ChangelogWitness violation whose answer is exactly that replay's fold, on a replica whose
  // instance's last life began after a crash that landed inside the cleaner's deletion of that
  // task's directory (checks/cleaner_cut.cc;
  // scenarios/findings/cleaner_cut_by_crash_keeps_checkpoint_without_store.toml).
  kCleanerCutByCrash,
  // Quirk 14 of docs/iqv2-semantics.md: a versioned store's position never reaches the trailing
  // records of a partition that are older than the grace period (restore skips them before
  // reading their position header; a dropped delete never advances it). An EventuallyAvailable
  // "never answered" violation whose last probe was refused NOT_UP_TO_BOUND by a replica that
  // applied its whole changelog, every offset between its position and the bound a record that
  // late, none of the dropped puts processed live by that store object
  // (checks/versioned_grace_tail.cc).
  kVersionedGraceDroppedTail,
  // Quirk 25 of docs/iqv2-semantics.md: the windowed and session aggregations drop a record late
  // beyond the grace period without writing the store (KStreamWindowAggregate and
  // KStreamSessionWindowAggregate log "Skipping record for expired window" and return), so no
  // store's position ever covers its offset. An EventuallyAvailable "never answered" violation
  // whose last probe was refused NOT_UP_TO_BOUND at a position P below the bound B, where every
  // source offset in (P, B] is a record the model's window or session history dropped beyond
  // grace, the model's store position at B is P, and no changelog record's header passes P
  // (checks/window_judge.cc, prove_window_grace_dropped_tail).
  kWindowGraceDroppedTail,
  // Quirk 18 of docs/iqv2-semantics.md: a versioned restore judges history by the stream time at
  // the end of its batch, so a late put whose next version is already beyond the history
  // retention by then is discarded (RocksDBVersionedStore.maybePutToSegments), where live
  // processing kept it until its segment expired. A ResultMatchesModel violation of a standby
  // whose answer is the applied prefix's fold without some versions, each ending before the
  // standby's stream time minus the history retention (checks/versioned_restore_batch.cc).
  kVersionedRestoreDroppedExpired,
  // Quirk 26 of docs/iqv2-semantics.md: with retainDuplicates, RocksDBWindowStore.put returns
  // before anything for a null value (no write, no observed stream time, no position), while
  // ChangeLoggingWindowBytesStore logs it (under the position before it) and restore
  // (AbstractRocksDBSegmentedBytesStore.restoreAllInternal) takes its window start into the
  // observed stream time. Two shapes: an EventuallyAvailable "never answered" violation whose
  // last probe was refused at a position P below the bound B, every source offset in (P, B] such
  // a null put, the model's store position at B P, and no changelog header past P
  // (checks/window_judge.cc, prove_window_skipped_tail); and a ResultMatchesModel or
  // SamePositionSameAnswer violation whose answer is its replica's changelog fold as restore
  // takes it (position included), while the same records with the null puts skipped, as the live
  // store takes them, fold to the model's answer at the reported offset
  // (prove_restored_null_puts).
  kDuplicatesNullPutSkipped,
  // Quirk 19 of docs/iqv2-semantics.md: the caching window and session layers override neither
  // query() nor getPosition(), so IQv2 answers from the store beneath the cache, under its
  // position, while the record cache still holds dirty writes beneath that position (an eviction
  // flushed the namespace in the middle of one record's writes: the hopping windows after it, a
  // session merge's put after its removals, stay dirty under the same record's offset). A
  // ResultMatchesModel or SamePositionSameAnswer violation whose answer is its replica's changelog
  // fold, position included, and either that fold is what the partition's active had written (the
  // replica is that active, or applied exactly its changelog offset at the answer) and, overlaid
  // with the active's dirty cache entries at or below the reported offset, the model's answer
  // there; or, for a replica behind the active, each differing slot's write beneath the position
  // reaches the log later, from the same instance's one cache life, as a flush or a session merge
  // (checks/window_judge.cc, prove_cached_writes_beneath_position).
  kCachedWritesBeneathPosition,
  // Under exactly_once_v2: a store object reopened over its kept files after a crash, with the
  // .checkpoint the state updater wrote when its active completed restoration (DefaultStateUpdater.
  // maybeCompleteRestoration enforces one under every guarantee; nothing deletes it while the task
  // runs), keeps the aborted writes RocksDB flushed by itself, and the task counts its input again
  // over them; what it logs is committed. A ResultMatchesModel or SamePositionSameAnswer violation
  // whose answer is its replica's changelog fold and differs only on keys whose kept aborted write
  // the answering store object holds or whose logged aggregate its prefix applied; a
  // ChangelogWitness record no source explains, of such a key, at or after that aggregate was
  // logged (checks/eos_kept_aborted.cc; scenarios/findings/
  // eos_restoration_checkpoint_keeps_aborted_writes_double_counts.toml).
  kEosKeptAbortedWrites,
  // 2026-08-20 pin, READ_COMMITTED, exactly_once_v2: a store without a transactional form reads
  // staged data whatever the level. With enable.transactional.statestores off no store keeps a
  // transaction buffer, and a MemoryLRUCache never has one (pin delta 11), so the level changes
  // nothing (StoreQueryUtils reads store.readOnly(level), which such a store answers with itself).
  // A ChangelogWitness dirty read under READ_COMMITTED (an answer its replica's changelog fold
  // explains that reflects a write of a transaction undecided at the answer) by a replica whose
  // snapshot records no committed position, in a run with transactional stores off, or over the
  // LRU supplier (dirty_reads.cc, prove_read_committed_not_honoured).
  kReadCommittedStoreNotTransactional,
  // 2026-08-20 pin, READ_COMMITTED, exactly_once_v2, pin delta 8: CachingKeyValueStore.query
  // answers a KeyQuery from the record cache when the key is there, dirty or clean, and never
  // looks at the level. A ChangelogWitness dirty read under READ_COMMITTED by a KeyQuery (or a
  // TimestampedKeyQuery on a timestamped store, which reaches the cache as one) on a caching
  // transactional store (the snapshot records its committed position): the answer is the staged
  // fold with the cache's unsent writes, which only a cache hit gives (a miss reads the committed
  // view) (dirty_reads.cc, prove_read_committed_not_honoured).
  kCachedKeyQueryIgnoresIsolation,
  // 2026-08-20 pin, READ_COMMITTED, either guarantee, pin delta 8's miss form: a KeyQuery the
  // caching layer answers finds no cache entry and asks the transactional store below with the
  // request's level, READ_COMMITTED, which answers its committed view; the caching layer labels
  // that answer with its merged, staged position. A ResultMatchesModel, SamePositionSameAnswer or
  // ChangelogWitness violation whose answer is exactly the fold of the records its replica had
  // applied up to its last store commit (ReplicaSnapshot::committed_changelog_offset) and whose
  // position is exactly the fold of the headers of every record it applied and its unlogged
  // writes (changelog_witness.cc, prove_cached_key_query_miss).
  kCachedKeyQueryMissReadsCommitted,
  // 2026-08-20 pin, any level and guarantee, pin delta 10: a versioned store's commit writes its
  // physical RocksDBStore's position, which no versioned put or restore advances, so a store
  // object opened over kept data starts from an empty position however much data it kept, and
  // carries only the headers of the records given to it or written by it since. A
  // ResultMatchesModel or SamePositionSameAnswer violation whose answer is its replica's
  // changelog fold (the witness holds) under exactly that position, on a store life over kept
  // data that loaded an empty position; or an EventuallyAvailable probe refused NOT_UP_TO_BOUND
  // under exactly that position while the headers of the prefix the replica holds meet the bound
  // (versioned_position_not_persisted.cc).
  kVersionedPositionNotPersisted,
  // 2026-08-20 pin, READ_COMMITTED, either guarantee (docs/kafka-2026-08-20.md §10, H7): a
  // transactional window or session store raises its observedStreamTime on a staged put, before
  // the write is committed, and its reads at every level hide what lies at or below that stream
  // time less the retention (InMemoryWindowStore and InMemorySessionStore.put,
  // AbstractRocksDBSegmentedBytesStore.put and getActualFrom). A ResultMatchesModel,
  // SamePositionSameAnswer or ChangelogWitness violation on a READ_COMMITTED window or session
  // answer whose replica's recorded observed stream time is exactly the largest window start (a
  // session's end) among the records its own store life wrote after its last store commit, and
  // whose answer is exactly the fold of its committed prefix with the windows at or below that
  // raised floor taken out, at least one of them (window_judge.cc,
  // prove_staged_stream_time_expired).
  kStagedStreamTimeExpiresCommitted,
  // 2026-08-20 pin, READ_COMMITTED, either guarantee, pin delta 9: RocksDBVersionedStore keeps one
  // position, advanced by every put as it is made (staged or not), and query() bounds and labels
  // both levels with it, while READ_COMMITTED reads the committed views of its transactional
  // physical store (KAFKA-20500). A ResultMatchesModel, SamePositionSameAnswer or ChangelogWitness
  // violation on a READ_COMMITTED versioned answer whose position is exactly its replica's staged
  // position at the answer and not its committed one, and whose versions are exactly the fold of
  // the records it applied up to its last store commit (changelog_witness_versioned.cc,
  // prove_versioned_position_not_staged).
  kVersionedPositionNotStaged,
};
// "failure", "known Kafka behaviour: at-least-once reprocessing"
const char* to_string(ViolationClass c);
// "failure", "alos_reprocessing", "restart_without_checkpoint", "cache_flush_partly_applied",
// "position_ahead_of_checkpoint", "fenced_late_write", "lru_evicted_aggregate",
// "versioned_store_reopened", "replica_inside_compacted_changelog",
// "replica_inside_one_records_writes", "cleaner_cut_by_crash", "versioned_grace_dropped_tail",
// "window_grace_dropped_tail", "versioned_restore_dropped_expired", "duplicates_null_put_skipped",
// "cached_writes_beneath_position", "eos_kept_aborted_writes", "read_committed_not_transactional",
// "cached_key_query_ignores_isolation", "cached_key_query_miss_reads_committed",
// "versioned_position_not_persisted", "staged_stream_time_expires_committed",
// "versioned_position_not_staged": the key in JSON
// summaries.
const char* class_key(ViolationClass c);
// Whether `c` is a quirk impl/ reproduces behind a switch (iq/kafka_quirks.h), attributed by
// rerunning the seed with it off rather than proven from the record:
// kVersionedRestoreDroppedExpired (quirk 18).
bool attributed_by_rerun(ViolationClass c);
inline constexpr std::array<ViolationClass, 23> kViolationClasses{
    ViolationClass::kFailure,
    ViolationClass::kAtLeastOnceReprocessing,
    ViolationClass::kRestartWithoutCheckpoint,
    ViolationClass::kCacheFlushPartlyApplied,
    ViolationClass::kPositionAheadOfCheckpoint,
    ViolationClass::kFencedLateWrite,
    ViolationClass::kLruEvictedAggregate,
    ViolationClass::kVersionedStoreReopened,
    ViolationClass::kReplicaInsideCompactedChangelog,
    ViolationClass::kReplicaInsideOneRecordsWrites,
    ViolationClass::kCleanerCutByCrash,
    ViolationClass::kVersionedGraceDroppedTail,
    ViolationClass::kWindowGraceDroppedTail,
    ViolationClass::kVersionedRestoreDroppedExpired,
    ViolationClass::kDuplicatesNullPutSkipped,
    ViolationClass::kCachedWritesBeneathPosition,
    ViolationClass::kEosKeptAbortedWrites,
    ViolationClass::kReadCommittedStoreNotTransactional,
    ViolationClass::kCachedKeyQueryIgnoresIsolation,
    ViolationClass::kCachedKeyQueryMissReadsCommitted,
    ViolationClass::kVersionedPositionNotPersisted,
    ViolationClass::kStagedStreamTimeExpiresCommitted,
    ViolationClass::kVersionedPositionNotStaged};

// The processing guarantees a declared behaviour can be Kafka's under, as bits.
enum class GuaranteeSet : uint8_t { kAtLeastOnce = 1, kExactlyOnceV2 = 2, kBoth = 3 };

// The rule of one class (class_rules.cc; docs/design.md §4 holds the same table): under which
// guarantees it is Kafka's behaviour (a GuaranteeSet's bits; 0 for kFailure), what the record
// must prove (the proof's file states it in full), the Kafka source that makes it so, the
// scenario (or seed) that shows it, and the Kafka pin it holds at (nullopt: both), the isolation
// level and the store family of the answers it covers (the proof checks those two).
struct ClassRule {
  ViolationClass c = ViolationClass::kFailure;
  uint8_t guarantees = 0;
  const char* rule = "";
  const char* kafka_source = "";
  const char* finding = "";
  std::optional<KafkaPin> pin = std::nullopt;
  const char* level = "any";
  const char* family = "any";
};
const ClassRule& class_rule(ViolationClass c);
// Whether class c can be Kafka's behaviour in a run under guarantee g: the classifier gives no
// class whose rule does not admit the run's guarantee (a violation of an exactly_once_v2 run is
// never at-least-once reprocessing).
bool holds_under(ViolationClass c, sim::Guarantee g);
// "at_least_once", "at_least_once, exactly_once_v2", "none"
std::string guarantees_text(ViolationClass c);
// Whether class c can be Kafka's behaviour in a run of Kafka pin `pin` (its rule names no pin, or
// that one): the classifier's last gate turns a class proven at another pin into a failure.
bool holds_at(ViolationClass c, KafkaPin pin);

static_assert(kViolationClasses.size() == sim::behaviour_names::kAll.size() + 1,
              "every class but kFailure has its name in trace/property_names.h");
// The class whose class_key() is `key`, or nullopt.
std::optional<ViolationClass> class_from_key(std::string_view key);

struct Violation {
  std::string property;  // the check's name
  ViolationClass violation_class = ViolationClass::kFailure;
  // Why the class was given (the proof, in one line), or why a violation of a property the
  // classification looks at stayed a failure.
  std::string class_evidence;
  // kRestartWithoutCheckpoint's proof: the store object it names loaded a .checkpoint (the form
  // exactly_once_v2 admits too: violation_class.cc, admitted).
  bool restored_from_checkpoint = false;
  // A ChangelogWitness dirty read under READ_COMMITTED (changelog_witness.cc): the classes of
  // a store that does not honour the level are tried for it, and no other.
  bool read_committed_dirty = false;
  // The class is a Kafka quirk impl/ reproduces behind a switch (iq/kafka_quirks.h, quirk_of):
  // the classifier names the candidate, and the class holds only once the runner has rerun the
  // seed with that quirk off and found the same run without this violation (runner.cc).
  bool needs_rerun = false;
  // The answer the quirk is claimed to explain: record_id, or for SamePositionSameAnswer the one
  // of the two answers the class was proven for.
  uint64_t rerun_record_id = 0;
  uint64_t record_id = 0;        // the query record, 0 when the violation is not about one query
  int32_t partition = -1;        // the partition result it is about, -1 if none
  uint64_t other_record_id = 0;  // SamePositionSameAnswer: the earlier record it differs from
  // ChangelogWitness about one changelog record (no source record explains it): its offset in
  // `partition`'s changelog.
  std::optional<ChangelogOffset> changelog_offset;
  int64_t at_ms = 0;
  std::string summary;  // one line
  std::string query;    // QueryRecord::request.to_string(), or empty
  std::string expected;
  std::string returned;
  std::string replica;                     // "instance-2 (standby, RUNNING, position ...)"
  std::string placement;                   // PlacementSnapshot::to_string() at the query's instant
  std::vector<std::string> events_before;  // the last faults before at_ms, oldest first
  // The answering partition's input records some task had processed again by at_ms (the trace's
  // ReprocessedRanges, newest last): context for the reader, never an excuse. Empty when the
  // violation is about no single partition or nothing was reprocessed.
  std::vector<std::string> reprocessed_before;

  // Multi-line, readable; the first line names the class ("[failure] ResultMatchesModel ...").
  std::string to_string() const;
};

// What a check looked at: `judged` items (query results, lag samples, expectations) were
// compared; the others were passed over for the reason given (a count per reason). A check that
// cannot decide never counts a pass.
struct CheckTally {
  uint64_t judged = 0;
  std::map<std::string, uint64_t> not_judged;  // reason -> count
};

// The trace's changelog indexed for folds (checks/changelog_witness.cc builds it on first use).
struct ChangelogIndex;
// The models of window and session folds kept for the next answer (checks/window_judge.cc).
struct WindowFoldCache;

// The model's description of a window or session topology's store: windows (size, advance,
// grace) or sessions (gap, grace), retention, aggregation, and the store kind (in-memory, or
// segmented with Stores' default interval max(retention / 2, 60 s)).
model::WindowSpec window_spec_of(const TopologyConfig& topology);
model::SessionSpec session_spec_of(const TopologyConfig& topology);

// What every check shares: the trace and the reference model built from its source log.
class JudgeContext {
 public:
  explicit JudgeContext(const sim::RunTrace& trace);
  ~JudgeContext();
  JudgeContext(const JudgeContext&) = delete;
  JudgeContext& operator=(const JudgeContext&) = delete;

  const sim::RunTrace& trace() const { return trace_; }
  const model::ReferenceStore& store() const { return *store_; }
  // The versioned model, for a VersionedTable topology; nullptr otherwise.
  const model::VersionedHistory* versioned() const { return versioned_.get(); }
  // The window model, for a WindowedCount, WindowedSum or WindowPapiWriter topology; the session
  // model, for SessionCount, SessionSum or SessionPapiWriter; nullptr otherwise. Each is the
  // partition's records through one processor that never restarted (the trace does not record
  // where a task was initialized again, which resets Kafka's processor stream time).
  const model::WindowHistory* window_history() const { return window_.get(); }
  const model::SessionHistory* session_history() const { return session_.get(); }
  model::TimestampMode timestamp_mode() const { return timestamp_mode_; }
  // Whether the store's delete() advances its position (false for in-memory stores).
  bool deletes_advance() const { return deletes_advance_; }
  // Whether a record id belongs to a phase whose checks include `property` (a [[test]] may list
  // the checks that judge it; the liveness phase and untagged records are judged by all).
  bool judged_by(const sim::QueryRecord& record, std::string_view property) const;
  // The same for something that happened at a virtual time (a lag sample): the phase whose
  // [start_ms, end_ms) holds at_ms decides; outside every phase, all properties judge.
  bool judged_at(base::Instant at_ms, std::string_view property) const;
  // The index in trace().phases of the phase whose [start_ms, end_ms) holds at_ms, or -1.
  int32_t phase_index(base::Instant at_ms) const;
  // The last `n` faults at or before at_ms, rendered one per line, oldest first.
  std::vector<std::string> events_before(base::Instant at_ms, size_t n = 8) const;
  // The last `n` reprocessed ranges of `partition` begun at or before at_ms, oldest first, after
  // a "(K earlier ranges)" line when more were begun.
  std::vector<std::string> reprocessed_before(base::Instant at_ms, int32_t partition,
                                              size_t n = 4) const;

  // Offsets of the source records that wrote the store for `key` in `partition` (ascending,
  // distinct): where the answer to a query touching that key can change. Empty if none.
  const std::vector<int64_t>& key_write_offsets(int32_t partition, int32_t key) const;
  // Every key written in `partition`, ascending as integers.
  std::vector<int32_t> keys_written(int32_t partition) const;
  // The first offset > offset that advances the store's position (a write, or a delete when
  // deletes advance), or nullopt.
  std::optional<int64_t> next_advancing_write(int32_t partition, int64_t offset) const;
  // The store-writing offsets in (after, before) that do NOT advance the position (in-memory
  // deletes): states the store reaches while still reporting the position `after`.
  std::vector<int64_t> silent_writes_between(int32_t partition, int64_t after,
                                             int64_t before) const;

  // The changelog, indexed by partition and key, built on first use.
  const ChangelogIndex& changelog_index() const;
  // The window witness's fold models and its changelog by partition, built on first use.
  WindowFoldCache& window_fold_cache() const;

  // Checks count what they judged here (mutable: the context is shared read-only otherwise).
  void add_tally(std::string_view property, const CheckTally& tally) const;
  const std::map<std::string, CheckTally, std::less<>>& tallies() const { return tallies_; }

 private:
  // Where the store's answers can change, per partition (built from the source log).
  struct PartitionIndex {
    std::map<int32_t, std::vector<int64_t>> key_writes;  // key -> offsets that wrote it
    std::vector<int64_t> advancing;                      // offsets that advance the position
    std::vector<int64_t> silent;                         // writes that do not (in-memory deletes)
  };
  bool phase_includes(base::Instant at_ms, std::string_view property) const;

  const sim::RunTrace& trace_;
  std::unique_ptr<model::ReferenceStore> store_;
  std::unique_ptr<model::VersionedHistory> versioned_;
  std::unique_ptr<model::WindowHistory> window_;
  std::unique_ptr<model::SessionHistory> session_;
  model::TimestampMode timestamp_mode_;
  bool deletes_advance_;
  std::map<int32_t, PartitionIndex> index_;  // by partition
  std::vector<size_t> faults_by_time_;       // indices into trace_.faults, stable-sorted by time
  mutable std::map<std::string, CheckTally, std::less<>> tallies_;
  mutable std::unique_ptr<ChangelogIndex, void (*)(ChangelogIndex*)> changelog_index_{nullptr,
                                                                                      nullptr};
  mutable std::unique_ptr<WindowFoldCache, void (*)(WindowFoldCache*)> window_fold_cache_{nullptr,
                                                                                          nullptr};
};

using CheckFn = std::vector<Violation> (*)(const JudgeContext&);

struct CheckInfo {
  const char* name;       // "ResultMatchesModel"
  const char* statement;  // docs/design.md §4's one line
  CheckFn run;
};

// Every trace-level check, in a fixed order. Deterministic is not among them: it compares two
// runs and lives in check_deterministic() below.
const std::vector<CheckInfo>& all_checks();
const CheckInfo* find_check(std::string_view name);
// Every property name a scenario may list, including "Deterministic" and "ScriptedExpectations".
std::vector<std::string> all_property_names();

// Deterministic: the same seed and scenario give the same trace digest, run after run.
std::vector<Violation> check_deterministic(const sim::RunTrace& first, const sim::RunTrace& second);

// The trace-level checks one by one (what all_checks() lists), for tests and for callers that
// run a single property.
std::vector<Violation> check_result_matches_model(const JudgeContext& context);
std::vector<Violation> check_same_position_same_answer(const JudgeContext& context);
std::vector<Violation> check_bound_honored(const JudgeContext& context);
std::vector<Violation> check_session_monotonic(const JudgeContext& context);
std::vector<Violation> check_failure_reason_correct(const JudgeContext& context);
std::vector<Violation> check_eventually_available(const JudgeContext& context);
std::vector<Violation> check_progress(const JudgeContext& context);
std::vector<Violation> check_lag_reported(const JudgeContext& context);
std::vector<Violation> check_changelog_witness(const JudgeContext& context);

// Gives every violation its class (see ViolationClass): ResultMatchesModel and
// SamePositionSameAnswer violations that the run's record proves to be at-least-once
// reprocessing get kAtLeastOnceReprocessing, with the proof in class_evidence; ResultMatchesModel
// violations may also get kRestartWithoutCheckpoint, kCacheFlushPartlyApplied,
// kPositionAheadOfCheckpoint, kLruEvictedAggregate or kReplicaInsideCompactedChangelog (and
// SamePositionSameAnswer ones any of these when the other answer is proven alike or is the
// model's), ChangelogWitness violations kPositionAheadOfCheckpoint, each only
// with its proof; everything else stays kFailure. No violation gets a class whose rule does not
// admit the run's guarantee (holds_under). Deterministic: depends only on the trace.
void classify_violations(const JudgeContext& context, std::vector<Violation>& violations);
std::vector<Violation> check_scripted_expectations(const JudgeContext& context);

}  // namespace iq::properties
