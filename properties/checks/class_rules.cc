// The rule of each declared Kafka behaviour (ViolationClass): the processing guarantees under
// which it is Kafka's behaviour at all, what the record must prove, the Kafka source that makes
// it so, and the scenario that shows it. classify_violations() gives a class only where its rule
// admits the run's guarantee (RunTrace::guarantee); docs/design.md §4 mirrors this table.
//
// Why a class holds under at-least-once only: under exactly_once_v2 the changelog a replica
// reads (read_committed) holds only committed transactions, each the writes of input whose
// offsets it committed, so no committed record repeats an input record's effect (reprocessing), a
// fenced producer's sends abort (a fenced member's late writes), a task without a current
// .checkpoint is corrupted and wiped before it restores (ProcessorStateManager.
// initializeStoreOffsetsFromCheckpoint throws TaskCorruptedException under EOS; a .checkpoint is
// deleted once loaded), and a flush a crash cut is an aborted transaction. The exactly-once
// twins of scenarios/findings/README.md show each of those gone.

#include "checks/check.h"

#include "base/assert.h"

namespace iq::properties {
namespace {

constexpr uint8_t kAlos = static_cast<uint8_t>(GuaranteeSet::kAtLeastOnce);
constexpr uint8_t kBoth = static_cast<uint8_t>(GuaranteeSet::kBoth);
constexpr uint8_t kEos = static_cast<uint8_t>(GuaranteeSet::kExactlyOnceV2);
constexpr std::optional<KafkaPin> kNewPin = KafkaPin::k2026_08_20;

constexpr std::array<ClassRule, kViolationClasses.size()> kRules{{
    {ViolationClass::kFailure, 0, "no rule matched", "", ""},
    {ViolationClass::kAtLeastOnceReprocessing, kAlos,
     "the answer is its replica's changelog fold, and that fold holds a write of input the "
     "ProcessingLedger shows processed again, beneath the answer's position",
     "StreamTask.prepareCommit flushes before TaskExecutor.commitOffsetsOrTransaction; "
     "StoreChangelogReader restores past the committed offset",
     "scenarios/findings/alos_count_double_counts_after_crash.toml"},
    {ViolationClass::kRestartWithoutCheckpoint, kAlos,
     "the answer is the kept longer prefix's fold under a lower position (empty, an older "
     ".checkpoint's, or a replay from the log start under way) after a stop and a start on the "
     "kept disk",
     "ProcessorStateManager.initializeStoreOffsetsFromCheckpoint keeps the store without a "
     "checkpoint under at-least-once",
     "scenarios/findings/alos_standby_restart_without_checkpoint_underclaims.toml"},
    {ViolationClass::kCacheFlushPartlyApplied, kBoth,
     "the answer is its replica's fold, ending inside one writer's flush of one millisecond whose "
     "rest writes every differing key with the model's value (the cut form: at-least-once only, "
     "an EOS cut flush aborts)",
     "ThreadCache.flush logs key by key; ProcessorContextImpl.logChange headers only grow",
     "scenarios/findings/cache_flush_partly_applied_overclaims.toml"},
    {ViolationClass::kPositionAheadOfCheckpoint, kAlos,
     "the instance's last crash landed inside the task's .checkpoint write after its .position, "
     "it restarted on its kept disk, the position lies above the applied headers",
     "StateManagerUtil.checkpoint writes .position before .checkpoint (quirk 12)",
     "scenarios/findings/position_file_ahead_of_checkpoint.toml"},
    {ViolationClass::kFencedLateWrite, kAlos,
     "the fold holds a write by an instance paused or isolated before, under a header inside a "
     "range another instance processed again, appended after that range began",
     "TaskManager.commitTasksAndMaybeUpdateCommittableOffsets flushes before the commit fails; no "
     "producer fencing under at-least-once",
     "scenarios/findings/alos_fenced_member_late_write_beneath_newer_position.toml"},
    {ViolationClass::kLruEvictedAggregate, kBoth,
     "a Count or Sum over an LRU store whose every aggregate is the model's or the fold of the "
     "key's records since a point where the store could have evicted it",
     "MemoryLRUCache evicts without a tombstone; KStreamAggregate restarts from the initializer",
     "seed 483 of scenarios/templates/default.toml"},
    {ViolationClass::kVersionedStoreReopened, kBoth,
     "a versioned store opened over existing data answers only versions its replica could have "
     "been given",
     "LogicalKeyValueSegments.openExisting opens no segment (quirk 17)",
     "scenarios/findings/versioned_reopened_store_misses_older_segments.toml"},
    {ViolationClass::kReplicaInsideCompactedChangelog, kBoth,
     "the answer is the fold of what its replica could read of the compacted log, the whole "
     "prefix's fold for the skipped keys being the model's",
     "LogCleaner keeps the latest record per key of the cleaned segments",
     "scenarios/findings/compacted_changelog_replica_lacks_superseded_key.toml"},
    {ViolationClass::kReplicaInsideOneRecordsWrites, kBoth,
     "a window or session replica's fold, with its writer's records of the same millisecond after "
     "it, is the model's answer at their highest header; or, without a cache, the writer's crash "
     "landed inside that millisecond's send and every differing slot is a write it had still to "
     "send (committed records only, so at-least-once in effect)",
     "KStreamSessionWindowAggregate logs each removal and the merged put as records of their own; "
     "KStreamWindowAggregate logs each window of a hopping record apart",
     "scenarios/findings/session_merge_partly_applied_overclaims.toml"},
    {ViolationClass::kCleanerCutByCrash, kBoth,
     "the replica's instance last restarted after a crash landed inside the cleaner's deletion of "
     "that task's directory, and the answer is the replay after its .checkpoint over nothing",
     "StateDirectory.cleanRemovedTasks deletes in place without fsync (Utils.delete)",
     "scenarios/findings/cleaner_cut_by_crash_keeps_checkpoint_without_store.toml"},
    {ViolationClass::kVersionedGraceDroppedTail, kBoth,
     "a probe refused NOT_UP_TO_BOUND by a replica that applied its whole changelog, every offset "
     "to the bound a record late beyond grace",
     "RocksDBVersionedStore drops a late record before its position (quirk 14)",
     "scenarios/findings/versioned_late_tail_never_reaches_restored_position.toml"},
    {ViolationClass::kWindowGraceDroppedTail, kBoth,
     "a probe refused NOT_UP_TO_BOUND at P, every source offset in (P, bound] a record the model "
     "dropped beyond grace, no header past P",
     "KStreamWindowAggregate and KStreamSessionWindowAggregate skip expired records (quirk 25)",
     ""},
    {ViolationClass::kVersionedRestoreDroppedExpired, kBoth,
     "a versioned store given its changelog in restore batches answers so, and the same seed "
     "rerun with quirk 18 off is the same run without this violation",
     "RocksDBVersionedStore.maybePutToSegments judges by the batch's stream time (quirk 18)", ""},
    {ViolationClass::kDuplicatesNullPutSkipped, kBoth,
     "a retainDuplicates RocksDB window store: the fold as restore takes the null puts, or a "
     "probe refused below a tail of null puts",
     "RocksDBWindowStore.put returns on null before its position; the changelog logs it (quirk "
     "26)",
     ""},
    {ViolationClass::kCachedWritesBeneathPosition, kBoth,
     "the answer is its replica's fold; with the active's dirty cache entries at or below the "
     "reported offset laid over, the model's answer there",
     "CachingWindowStore and CachingSessionStore override neither query() nor getPosition() "
     "(quirk 19)",
     ""},
    {ViolationClass::kEosKeptAbortedWrites, kEos,
     "the answer is its replica's fold and differs only on keys whose aborted write an "
     "exactly-once store object kept over a .checkpoint after a crash (it answered, or its prefix "
     "applied that object's write of the key); or an unexplained record of such a key logged at or "
     "after that write",
     "DefaultStateUpdater.maybeCompleteRestoration enforces a checkpoint under exactly-once too; "
     "ProcessorStateManager.initializeStoreOffsetsFromCheckpoint keeps a store it finds in "
     ".checkpoint; RocksDB flushes memtables without the WAL",
     "scenarios/findings/eos_restoration_checkpoint_keeps_aborted_writes_double_counts.toml"},
    {ViolationClass::kReadCommittedStoreNotTransactional, kEos,
     "pin 2026-08-20, level READ_COMMITTED: a dirty read (the answer is its replica's staged "
     "changelog fold and reflects a write of a transaction undecided at the answer) by a replica "
     "with no committed position, in a run with enable.transactional.statestores off or over "
     "the LRU supplier",
     "StoreQueryUtils.handleBasicQueries reads store.readOnly(level); a store without a "
     "transaction buffer (transactional stores off; MemoryLRUCache, pin delta 11) returns itself",
     "scenarios/findings/kafka_2026_read_committed_store_not_transactional_reads_dirty.toml",
     kNewPin, "READ_COMMITTED",
     "key-value without a transactional form, window, session, versioned"},
    {ViolationClass::kCachedKeyQueryIgnoresIsolation, kEos,
     "pin 2026-08-20, level READ_COMMITTED: a dirty read by a KeyQuery the caching layer answers "
     "(a TimestampedKeyQuery on a timestamped store) on a caching transactional store",
     "CachingKeyValueStore.query handles KeyQuery from the thread cache and ignores the "
     "QueryConfig's isolation level (pin delta 8)",
     "scenarios/findings/kafka_2026_cached_key_query_read_committed_reads_dirty.toml", kNewPin,
     "READ_COMMITTED", "caching transactional key-value"},
    // Both guarantees: the committed view advances at every task commit under at-least-once too
    // (StreamTask.postCommit commits transactional stores; docs/kafka-2026-08-20.md §3.5), so a
    // miss answers a state older than the staged label under either. (The hit form above is a
    // dirty read, a write of an undecided transaction: only exactly_once_v2 has transactions, and
    // under at-least-once a hit answers the staged fold under the staged label, which no check
    // flags.)
    {ViolationClass::kCachedKeyQueryMissReadsCommitted, kBoth,
     "pin 2026-08-20, level READ_COMMITTED, a KeyQuery the caching layer answers (a "
     "TimestampedKeyQuery on a timestamped store) on a caching transactional key-value store: "
     "the answer is exactly the fold of the records its replica applied up to its last store "
     "commit, and its position exactly the fold of the headers of every record it applied and "
     "its unlogged writes (the staged merge)",
     "CachingKeyValueStore.runKeyQuery asks the store below unbounded with the request's level "
     "on a cache miss and sets the merged position (cache merged with the inner getPosition(), "
     "staged) on the result (pin delta 8)",
     "scenarios/findings/kafka_2026_cached_key_query_miss_committed_under_staged_position.toml",
     kNewPin, "READ_COMMITTED", "caching transactional key-value"},
    {ViolationClass::kVersionedPositionNotPersisted, kBoth,
     "pin 2026-08-20, a versioned store life opened over kept data with an empty loaded "
     "position: the answer is its replica's changelog fold under exactly the headers of the "
     "records given to or written by that life; or a probe refused NOT_UP_TO_BOUND under exactly "
     "that position while the headers of the prefix its replica holds meet the bound",
     "RocksDBVersionedStore.commit is LogicalKeyValueSegments.commit, the physical "
     "RocksDBStore's, which writes the physical store's position; the physical store is opened "
     "with openDB alone (no context), so no versioned put or restore advances it (pin delta 10)",
     "scenarios/findings/kafka_2026_versioned_reopened_position_not_persisted_underclaims.toml",
     kNewPin, "any", "versioned"},
    // Both guarantees: under at-least-once a transactional store stages its puts between task
    // commits too (§3.5), and the raise happens at the staged put, whatever decides it later.
    {ViolationClass::kStagedStreamTimeExpiresCommitted, kBoth,
     "pin 2026-08-20, level READ_COMMITTED, a transactional window or session store: the "
     "replica's recorded observed stream time is exactly the largest window start (session end) "
     "its own store life wrote after its last store commit, and the answer is exactly the fold of "
     "the records it applied up to that commit with the windows at or below that stream time "
     "less the retention taken out, at least one of them (each retained by the committed fold's "
     "own floor)",
     "InMemoryWindowStore.put and InMemorySessionStore.put raise observedStreamTime before they "
     "stage the write, and every read (either level) and removeExpiredSegments apply the raised "
     "floor; AbstractRocksDBSegmentedBytesStore.put raises it before getOrCreateSegmentIfLive "
     "drops expired segments, and getActualFrom applies it to every read (H7 of "
     "docs/kafka-2026-08-20.md §10)",
     "scenarios/findings/kafka_2026_staged_put_expires_committed_windows.toml", kNewPin,
     "READ_COMMITTED", "transactional window, session"},
    // Both guarantees: under at-least-once too a transactional store stages its puts between task
    // commits (§3.5), and every put advances the one position at once.
    {ViolationClass::kVersionedPositionNotStaged, kBoth,
     "pin 2026-08-20, level READ_COMMITTED, a transactional versioned store: the answer's "
     "position is exactly its replica's staged position at the answer and not its committed one, "
     "and its versions are exactly the fold of the records the replica applied up to its last "
     "store commit",
     "RocksDBVersionedStore.put and delete advance the one position (segmentStores.position) at "
     "once, whatever the physical store stages, and query() hands handleBasicQueries that "
     "position for both levels, while get(..., level) reads the committed views of the "
     "transactional physical store (KAFKA-20500, 8cfdfaaacc; pin delta 9)",
     "none yet: Kafka2026ClassesTest.AVersionedReadCommittedAnswerUnderTheStagedPosition", kNewPin,
     "READ_COMMITTED", "transactional versioned"},
}};

}  // namespace

const ClassRule& class_rule(ViolationClass c) {
  const ClassRule& rule = kRules[static_cast<size_t>(c)];
  IQ_ASSERT(rule.c == c, "class rule table out of order at {}", class_key(c));
  return rule;
}

bool holds_under(ViolationClass c, sim::Guarantee g) {
  const uint8_t bit = g == sim::Guarantee::kExactlyOnceV2
                          ? static_cast<uint8_t>(GuaranteeSet::kExactlyOnceV2)
                          : static_cast<uint8_t>(GuaranteeSet::kAtLeastOnce);
  return (class_rule(c).guarantees & bit) != 0;
}

bool holds_at(ViolationClass c, KafkaPin pin) {
  const std::optional<KafkaPin>& only = class_rule(c).pin;
  return !only || *only == pin;
}

std::string guarantees_text(ViolationClass c) {
  const uint8_t g = class_rule(c).guarantees;
  if (g == kBoth) return "at_least_once, exactly_once_v2";
  if (g == kAlos) return "at_least_once";
  return g == 0 ? "none" : "exactly_once_v2";
}

}  // namespace iq::properties
