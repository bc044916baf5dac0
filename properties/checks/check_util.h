#pragma once
// Helpers the checks share: Kafka's bound rule written out independently, placement look-ups,
// the model's answer at an offset compared with a recorded result, violation and tally filling.
// Internal to properties/checks; nothing outside this folder includes it.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "checks/check.h"
#include "iq/offsets.h"
#include "iq/position.h"
#include "iq/query.h"
#include "trace/query_record.h"

namespace iq::properties::detail {

// StoreQueryUtils.isPermitted for a store on task partition `partition`, written from
// docs/iqv2-semantics.md §2 and not from impl: for every topic of the bound that has an entry for
// this partition number, the store must have an entry for it that is at least as large. Bound
// entries of other partitions are ignored; an empty bound (or {t:{}}) permits everything.
bool permitted(const Position& store, const Position& bound, int32_t partition);

using iq::to_string;                 // QueryKind names live in iq/query.h
bool is_key_kind(QueryKind kind);    // KeyQuery, TimestampedKeyQuery
bool is_range_kind(QueryKind kind);  // RangeQuery, TimestampedRangeQuery
bool is_timestamped_kind(QueryKind kind);
bool is_versioned_kind(QueryKind kind);    // VersionedKeyQuery, MultiVersionedKeyQuery
bool persistent(const TopologyConfig& t);  // a RocksDB key-value supplier: its files outlive it
// Whether the store object that answered `record` on `partition` opened over data an earlier
// store object kept on disk (its recorded life, RunTrace::store_lives): the one recorded fact that
// makes its observed stream time, which Kafka does not persist, differ from the model's (a store
// object that began empty took every record through the same puts as the model). True as well
// for a trace that records no lives at all (hand-made traces: the fact is unknown).
bool served_over_kept_data(const JudgeContext& context, const sim::QueryRecord& record,
                           int32_t partition);
// Why a versioned answer cannot be judged against the model at `offset` (its answer depends on
// the replica's observed stream time, which Kafka does not persist, and the answering store
// object was reopened over kept data: served_over_kept_data), or nullopt.
std::optional<std::string> versioned_not_judged(const JudgeContext& context,
                                                const sim::QueryRecord& record, int32_t partition,
                                                int64_t offset);

// Window and session stores (window_judge.cc states the rules): the query kinds they answer; why
// a recorded request cannot be judged (nullopt: it can); the model's answer rendered when a
// result differs from it at `offset` (nullopt: equal); why a difference cannot be judged (the
// answer depends on a processor's or a segmented store's unpersisted stream time); whether a
// reported position is one the store can report (nullopt: it is; else what it should be), and
// why an implausible one cannot be judged.
bool is_window_kind(QueryKind kind);  // WindowKeyQuery, WindowRangeQuery
std::optional<std::string> window_not_answerable(const JudgeContext& context,
                                                 const sim::QueryRequestRecord& request);
std::optional<std::string> window_differs(const JudgeContext& context,
                                          const sim::QueryRequestRecord& request,
                                          const sim::PartitionOutcome& outcome, int64_t offset);
std::optional<std::string> window_not_judged(const JudgeContext& context,
                                             const sim::QueryRecord& record, int32_t partition,
                                             int64_t offset);
std::optional<std::string> window_position_implausible(const JudgeContext& context,
                                                       const Position& position, int32_t partition,
                                                       int64_t offset);
std::optional<std::string> window_position_not_judged(const JudgeContext& context,
                                                      int32_t partition, int64_t offset);
// SamePositionSameAnswer: two answers at one position of a segmented window or session store that
// differ only because one replica's store was reopened (its stream time not persisted), proven by
// the model and the changelog witness (window_judge.cc).
bool window_reopened_difference(const JudgeContext& context, const sim::QueryRecord& record_a,
                                const sim::PartitionOutcome& a, const sim::QueryRecord& record_b,
                                const sim::PartitionOutcome& b);

// The replica of `partition` on `instance` in a snapshot, or nullptr.
// The model's answer to a VersionedKeyQuery or MultiVersionedKeyQuery (newest first unless
// ASCENDING) over `model` after the records up to `offset_inclusive`; whether an answer is it;
// versions rendered as "[10@[5000,7000), 12@[7000,)]".
std::vector<model::Version> versioned_expected(const model::VersionedHistory& model,
                                               const sim::QueryRequestRecord& request,
                                               int32_t partition, int64_t offset_inclusive);
bool versioned_equal(const sim::PartitionOutcome& outcome, const std::vector<model::Version>& want);
std::string versions_text(const std::vector<model::Version>& versions);

const sim::ReplicaSnapshot* find_replica(const sim::PlacementSnapshot& snapshot,
                                         const std::string& instance, int32_t partition);
// The replica that served `outcome`, from the snapshot taken at the answer, when it recorded a
// committed position (its store is transactional); nullptr otherwise.
const sim::ReplicaSnapshot* transactional_answering_replica(const sim::QueryRecord& record,
                                                            const sim::PartitionOutcome& outcome);
// The last stop of `instance` at or before at_ms (a crash or close; with `cut_off` a pause or
// isolation too, after which the group may take its tasks) and the first start after that stop
// (a start or restart; with `cut_off` a resume or heal too): nullptr where there is none.
struct StopAndStart {
  const sim::FaultRecord* stop = nullptr;
  const sim::FaultRecord* start = nullptr;
};
StopAndStart last_stop(const sim::RunTrace& trace, const std::string& instance, base::Instant at_ms,
                       bool cut_off);
// The last liveness probe that asked `partition`, or nullptr.
const sim::QueryRecord* last_liveness_probe(const JudgeContext& context, int32_t partition);
// The snapshot that explains an answer: placement_at_answer, else placement_at_invoke.
const sim::PlacementSnapshot& explaining_placement(const sim::QueryRecord& record);
// The instant the replica answered: the snapshot at the answer's, else the completion's.
base::Instant answered_at(const sim::QueryRecord& record);
// Whether `life`'s events hold changelog `offset` among the records given to it (kGiven), when
// `given`, or among those it wrote (kWrote), when `wrote`.
bool life_holds(const sim::StoreLife& life, ChangelogOffset offset, bool given, bool wrote);

// A violation about one query record (and one partition of it, if `outcome` is given): fills the
// record id, the completion time, the query, the answering replica, the placement and the faults
// before it.
Violation record_violation(const JudgeContext& context, std::string_view property,
                           const sim::QueryRecord& record, const sim::PartitionOutcome* outcome,
                           std::string summary, std::string expected, std::string returned);

// What a query record came to, in one line: its outcome, error and routing reason, and with
// `partitions` each partition result.
std::string record_outcome_text(const sim::QueryRecord& record, bool partitions);
// What one partition result returned, in one line: "ok value=5 ts=[100] pos=..." or the failure.
std::string outcome_string(const sim::PartitionOutcome& outcome);

// Counts into a CheckTally and hands it to the context when it goes out of scope.
class Tally {
 public:
  Tally(const JudgeContext& context, std::string_view property)
      : context_(context), property_(property) {}
  ~Tally() {
    for (auto& [why, count] : not_judged_) tally_.not_judged.emplace(why, count);
    context_.add_tally(property_, tally_);
  }
  Tally(const Tally&) = delete;
  Tally& operator=(const Tally&) = delete;
  void judged() { ++tally_.judged; }
  // Looked up by view: most reasons are literals, and building a std::string per passed-over
  // result (most are longer than the inline buffer) cost an allocation each.
  // A check passes over runs of results for one reason, so the last reason is tried first.
  void not_judged(std::string_view why) {
    if (last_ == not_judged_.end() || last_->first != why) {
      last_ = not_judged_.find(why);
      if (last_ == not_judged_.end()) last_ = not_judged_.emplace(std::string(why), 0).first;
    }
    ++last_->second;
  }

 private:
  using Reasons = std::map<std::string, uint64_t, std::less<>>;  // reason -> count
  const JudgeContext& context_;
  std::string property_;
  CheckTally tally_;
  Reasons not_judged_;
  Reasons::iterator last_ = not_judged_.end();
};

// The model's answer to a recorded query at one offset, compared with a result.
//
// The timestamp rules (docs/iqv2-semantics.md §4): a timestamped store returns the record's
// timestamp; Kafka's adapter over a plain RocksDB store (the DSL builder over
// Stores.persistentKeyValueStore) synthesizes -1, except that a cached TimestampedKeyQuery that
// hits the cache returns the real timestamp. The record does not say whether the cache was hit,
// so there both -1 and the real timestamp are accepted. Plain KeyQuery and RangeQuery carry no
// timestamps at all.
//
// nullopt: the result equals the model's answer at `offset`. Otherwise the model's answer,
// rendered for a violation; with Describe::kNo an empty string instead (the searches over
// candidate offsets only need the verdict, and rendering the model's range per candidate was a
// tenth of a seed's judging, docs/performance.md).
enum class Describe { kYes, kNo };
std::optional<std::string> differs_from_model(const JudgeContext& context,
                                              const sim::QueryRequestRecord& request,
                                              const sim::PartitionOutcome& outcome, int64_t offset,
                                              Describe describe = Describe::kYes);
// An LRU store (Stores.lruMap) evicts its least recently used entry once it holds more than
// lru_max_entries keys; the model knows no eviction. Whether the store of `partition` may have
// evicted anything by `offset`: an LRU supplier, and more distinct keys written to the partition
// up to that offset than the capacity.
bool lru_may_have_evicted(const JudgeContext& context, int32_t partition, int64_t offset);
// The comparison for such a store (differs_from_model uses it there): an evicted key may be
// absent, but a key that is present has the model's value (and timestamp); a range answer is a
// subsequence of the model's answer, in its order, with the model's values, and holds at most
// lru_max_entries entries (without a record cache above the store, whose unflushed entries add
// to the answer). nullopt: the result fits the model at `offset` with some eviction.
std::optional<std::string> differs_from_model_with_eviction(const JudgeContext& context,
                                                            const sim::QueryRequestRecord& request,
                                                            const sim::PartitionOutcome& outcome,
                                                            int64_t offset,
                                                            Describe describe = Describe::kYes);
// The source record at `offset` of `partition` (the trace's source log is partition-major,
// offsets ascending), or nullptr.
const sim::SourceLogRecord* source_record(const sim::RunTrace& trace, int32_t partition,
                                          int64_t offset);
// Whether the recorded request is one the model can answer (a key-value query of a kind it
// knows, with its key recorded, on the topology's store); if not, why not.
std::optional<std::string> not_answerable(const JudgeContext& context,
                                          const sim::QueryRequestRecord& request);

// How a successful result relates to the model, given the offset its position reports.
enum class Fit {
  kMatches,     // equal to the model at the reported offset (or, for a store whose deletes do
                // not advance its position, at a silent delete after it)
  kUnderClaim,  // equal to the model at a LATER offset: the data is newer than the position says
  kMismatch,    // equal to no state the store could have reached by the answer: none at or
                // after the reported offset whose record was appended before it completed
};
struct FitResult {
  Fit fit = Fit::kMismatch;
  std::string expected;     // the model's answer at the reported offset, for a violation
  int64_t matched_at = -1;  // kMatches / kUnderClaim: the offset the answer matched
};
// The under-claim search tries every later state the store could have reached by the time the
// answer completed: no source record appended after that can be in it.
FitResult fit_answer(const JudgeContext& context, const sim::QueryRecord& record,
                     const sim::PartitionOutcome& outcome, int64_t reported_offset);
// The highest offset of `partition` of the source topic the broker had appended at or before
// at_ms (-1: none). Appends are in offset order, at non-decreasing virtual times.
int64_t last_source_offset_appended(const sim::RunTrace& trace, int32_t partition,
                                    base::Instant at_ms);

// ChangelogWitness's judgement of one successful partition result (changelog_witness.cc): the
// classification of other properties' violations reads it too.
enum class Witness { kHolds, kDiffers, kNotJudged };
// One key whose changelog records (each superseded by a newer record of the key beyond the
// replica's offset) the log cleaner removed before the replica read them
// (changelog_witness.cc, compacted_read): what the replica skipped, and the fold without skipping.
struct CompactedSkip {
  int32_t key = 0;
  std::vector<ChangelogOffset> skipped;    // ascending, each removed at or before the answer
  base::Instant removed_ms_max{};          // the latest removal among them
  std::optional<int64_t> unskipped_value;  // the whole prefix's fold of the key (absent: none)
  int64_t unskipped_timestamp_ms = 0;
};
struct WitnessResult {
  Witness verdict = Witness::kNotJudged;
  std::string why;       // kNotJudged: the reason (a tally key); kDiffers: a one-line summary
  std::string expected;  // kDiffers: the fold, rendered
  const sim::ReplicaSnapshot* replica = nullptr;  // the answering replica at the answer
  ChangelogOffset applied_offset{-1};             // the prefix's last changelog offset
  // The position was not judged (the value was): why, else empty.
  std::string position_not_judged;
  // kDiffers on the position alone (the value is the fold): the headers' fold it should be.
  std::optional<Position> folded_position;
  // kNotJudged because the answer is fold(applied) over the fold of this longer prefix, on a
  // persistent store of an instance that crashed, restarted or closed before: the prefix's end.
  std::optional<ChangelogOffset> earlier_life_offset;
  // With earlier_life_offset: the headers' fold of the prefix the replica applied, the position a
  // restore from the log's start gives a store without a .position file (absent: not folded).
  std::optional<Position> prefix_position;
  // kNotJudged on an LRU store because keys of the fold are missing (evicted without a logged
  // tombstone), while every key the answer holds has the fold's value and timestamp, in order.
  bool present_keys_hold = false;
  // kNotJudged on a versioned store because the answer is not the fold's while every version it
  // holds is one the replica could have been given (changelog_witness_versioned.cc, step 3).
  bool versions_from_log = false;
  // kDiffers, on a replica restored from a .checkpoint (ReplicaSnapshot::restored_from), whose
  // answer is the fold of the records after that checkpoint alone over an empty store: it kept
  // none of the data beneath its checkpoint (cleaner_cut.cc needs it; still a difference).
  bool fold_over_empty_store = false;
  // kHolds only as the fold of what the replica could read of a compacted changelog: the keys
  // whose removed records it skipped (empty when the whole prefix's fold is the answer).
  std::vector<CompactedSkip> compacted_skips;
  // kHolds as the exact fold of a store object that opened over data an earlier one kept on disk
  // (its recorded life, trace/store_life.h; window and session stores): that life's id.
  uint64_t kept_life = 0;
};
// The verdict on an answer of a store object that opened over data an earlier one kept (its
// recorded life; judge_kept_life of the key-value and the window witness), given the life's exact
// fold: `fold_differs` (the fold, rendered) when the value is not the fold's; else what `older`
// finds the life kept older than its .checkpoint claims; else the position against the fold of
// the life's loaded .position and the headers it applied (`header`; nullopt: not judged, the
// switch off or a foreign header). Holds then, naming the life (kept_life).
void kept_life_verdict(const JudgeContext& context, const sim::StoreLife& life,
                       const sim::PartitionOutcome& outcome,
                       std::optional<std::string> fold_differs,
                       const std::function<std::optional<std::string>()>& older,
                       std::optional<SourceOffset> header, WitnessResult& result);
WitnessResult changelog_witness(const JudgeContext& context, const sim::QueryRecord& record,
                                const sim::PartitionOutcome& outcome);
// changelog_witness's verdict, answering replica and applied offset for an answer (the other
// fields left empty): the ones check_changelog_witness already reached for it when it judged it,
// else changelog_witness's now. The witness is a pure function of the trace and the answer, and
// dirty_reads asks it again for every answer; folding twice was a quarter of a window seed's
// instructions (docs/performance.md).
WitnessResult witness_verdict(const JudgeContext& context, const sim::QueryRecord& record,
                              const sim::PartitionOutcome& outcome);
// Whether `replica`, answering at answer_ms, may have fetched r's offset after the log cleaner
// removed r, and so never read it (changelog_witness.cc, "A replica reading a compacted
// changelog", states the bounds).
bool removed_before_fetch(const JudgeContext& context, const sim::ReplicaSnapshot& replica,
                          const sim::ChangelogRecord& r, base::Instant answer_ms);
// The witness of a versioned store's answer by `replica`, which had applied changelog [..,
// applied] (changelog_witness_versioned.cc).
WitnessResult versioned_changelog_witness(const JudgeContext& context,
                                          const sim::QueryRecord& record,
                                          const sim::PartitionOutcome& outcome,
                                          const sim::ReplicaSnapshot& replica,
                                          ChangelogOffset applied);
// The witness of a window or session store's answer by `replica` (window_judge.cc).
WitnessResult window_changelog_witness(const JudgeContext& context, const sim::QueryRecord& record,
                                       const sim::PartitionOutcome& outcome,
                                       const sim::ReplicaSnapshot& replica,
                                       ChangelogOffset applied);
// Whether `instance` crashed, restarted or closed at or before at_ms (a persistent store there may
// have kept data of an earlier life).
bool restarted_before(const JudgeContext& context, const std::string& instance,
                      base::Instant at_ms);
// Whether the replica's store may have been reopened over what an earlier store object of this
// instance left on disk: the instance crashed, restarted or closed, or was paused or cut off (a
// member out of the group closes its tasks dirty, without a .checkpoint, TaskManager.handleLostAll,
// and opens their stores again when they come back), at or before at_ms.
bool reopened_before(const JudgeContext& context, const std::string& instance, base::Instant at_ms);

// The uncommitted data one successful answer reflected, given that the witness holds for it
// (changelog_witness.cc; dirty_reads.cc tallies it).
struct UncommittedReflected {
  // Applied changelog records whose transaction was not decided at the answer and from which a
  // key's value or the position's component comes.
  std::vector<const sim::ChangelogRecord*> records;
  bool unsent = false;  // a key's value came from the record cache, not yet sent
};
UncommittedReflected uncommitted_reflected(const JudgeContext& context,
                                           const sim::QueryRecord& record,
                                           const sim::PartitionOutcome& outcome,
                                           const WitnessResult& witness);

// Whether a returned timestamp is one Kafka gives for a value whose record timestamp is `real`
// (the store's timestamp mode; the adapter's -1, or the real one from a cached key query).
bool timestamp_ok(const JudgeContext& context, QueryKind kind, int64_t got, int64_t real);

// The proof that one successful answer is a declared Kafka behaviour, or which of its conditions
// failed (`text` holds either).
struct ClassProof {
  bool proven = false;
  std::string text;
};
// A replica between one input record's changelog writes (a session merge's remove and put, a
// hopping record's windows): ViolationClass::kReplicaInsideOneRecordsWrites (window_judge.cc
// states the proof).
ClassProof prove_inside_record_writes(const JudgeContext& context, const sim::QueryRecord& record,
                                      const sim::PartitionOutcome& outcome);
// A replica whose restore took null puts a retainDuplicates window store skipped live (quirk 26):
// ViolationClass::kDuplicatesNullPutSkipped (window_judge.cc states the proof).
ClassProof prove_restored_null_puts(const JudgeContext& context, const sim::QueryRecord& record,
                                    const sim::PartitionOutcome& outcome);
// A caching window or session store answering from beneath its cache, whose dirty writes lie
// beneath the position (quirk 19): ViolationClass::kCachedWritesBeneathPosition (window_judge.cc
// states the proof).
ClassProof prove_cached_writes_beneath_position(const JudgeContext& context,
                                                const sim::QueryRecord& record,
                                                const sim::PartitionOutcome& outcome);
// Why no source record explains a window or session store's changelog record (window_judge.cc),
// or nullopt when one does.
std::optional<std::string> window_record_unexplained(const JudgeContext& context,
                                                     const sim::ChangelogRecord& r);
// A replica inside one record-cache flush of the changelog: ViolationClass::
// kCacheFlushPartlyApplied (partial_flush.cc states the proof; for a window or session store,
// prove_window_flush_cut_by_crash in window_judge.cc).
ClassProof prove_partial_flush(const JudgeContext& context, const sim::QueryRecord& record,
                               const sim::PartitionOutcome& outcome);
ClassProof prove_window_flush_cut_by_crash(const JudgeContext& context,
                                           const sim::QueryRecord& record,
                                           const sim::PartitionOutcome& outcome);
// A key-value answer by key (partial_flush.cc): a key query's entry, a range's entries, each
// with its timestamp where the query is timestamped; or why its shape is not one the request
// gives (another shape, keys out of the requested order).
struct GotEntry {
  int64_t value = 0;
  int64_t timestamp_ms = 0;
};
std::variant<std::map<int32_t, GotEntry>, std::string> answer_by_key(
    const sim::QueryRequestRecord& q, const sim::PartitionOutcome& outcome);
// The keys a key-value answer is compared on: the key of a key query; for a range, every key
// written in the partition within its bounds, and every key the answer holds.
std::vector<int32_t> compared_keys(const JudgeContext& context, const sim::QueryRequestRecord& q,
                                   int32_t partition, const std::map<int32_t, GotEntry>& answer);
// Whether the answer's entry for `key` (absent: nullptr) is the model's at `offset` (absent is
// allowed where an LRU store may have evicted it).
bool key_matches(const JudgeContext& context, const sim::QueryRequestRecord& q, int32_t partition,
                 int32_t key, const GotEntry* got, int64_t offset, bool lru_evicted);
// The keys of the windows or sessions where a window or session answer differs from the model at
// `reported` (window_judge.cc), ascending.
std::vector<int32_t> window_differing_keys(const JudgeContext& context,
                                           const sim::QueryRecord& record,
                                           const sim::PartitionOutcome& outcome, int64_t reported);
// An exactly-once store restarted on a .checkpoint that keeps aborted writes:
// ViolationClass::kEosKeptAbortedWrites (eos_kept_aborted.cc states the proof), for an answer
// and for a changelog record no source record explains.
ClassProof prove_eos_kept_aborted_answer(const JudgeContext& context,
                                         const sim::QueryRecord& record,
                                         const sim::PartitionOutcome& outcome);
ClassProof prove_eos_kept_aborted_record(const JudgeContext& context, int32_t partition,
                                         ChangelogOffset offset);
// The position `replica`'s store checks a bound of `request` against (docs/kafka-2026-08-20.md
// §3.7): a transactional store's committed one under READ_COMMITTED (the request's level, or the
// run's default.interactive.query.isolation.level), except a cached KeyQuery, which the caching
// layer answers from its merge with the staged position under both levels (delta 8), and a
// versioned store, whose one position is advanced by every put as it is made (delta 9); the staged
// one (store_position) otherwise, and for every store that is not transactional.
const std::optional<Position>& bounding_position(const JudgeContext& context,
                                                 const sim::QueryRequestRecord& request,
                                                 const sim::ReplicaSnapshot& replica);
// A ChangelogWitness dirty read under READ_COMMITTED by a store that does not honour the level
// (ViolationClass::kReadCommittedStoreNotTransactional, kCachedKeyQueryIgnoresIsolation;
// dirty_reads.cc states the proofs): `proven_class` the class proven, kFailure otherwise.
ClassProof prove_read_committed_not_honoured(const JudgeContext& context,
                                             const sim::QueryRecord& record,
                                             const sim::PartitionOutcome& outcome,
                                             ViolationClass& proven_class);
// The isolation level `request` was answered under (2026-08-20 pin): its own
// (StateQueryRequest.withIsolationLevel), else the run's default.interactive.query.isolation.level.
IsolationLevel effective_level(const JudgeContext& context, const sim::QueryRequestRecord& request);
// Whether `request` was answered under READ_COMMITTED at the 2026-08-20 pin: the first gate of
// that pin's READ_COMMITTED classes.
bool read_committed_at_new_pin(const JudgeContext& context, const sim::QueryRequestRecord& request);
// The changelog records of one partition, offsets ascending (the trace holds them
// partition-major).
std::span<const sim::ChangelogRecord> partition_log(const sim::RunTrace& trace, int32_t partition);
// Whether the caching layer answers `request` itself (CachingKeyValueStore.query's handlers hold
// KeyQuery alone; a TimestampedKeyQuery reaches it as one on a timestamped store).
bool is_cached_key_query(const JudgeContext& context, const sim::QueryRequestRecord& request);
// A cached KeyQuery under READ_COMMITTED that missed the cache (pin delta 8's miss form,
// ViolationClass::kCachedKeyQueryMissReadsCommitted; changelog_witness.cc states the proof).
ClassProof prove_cached_key_query_miss(const JudgeContext& context, const sim::QueryRecord& record,
                                       const sim::PartitionOutcome& outcome);
// A versioned store reopened over kept data under the position pin delta 10 leaves
// (ViolationClass::kVersionedPositionNotPersisted; versioned_position_not_persisted.cc states
// the proofs): for an answer, and for a partition whose last liveness probe was refused.
ClassProof prove_versioned_position_not_persisted(const JudgeContext& context,
                                                  const sim::QueryRecord& record,
                                                  const sim::PartitionOutcome& outcome);
ClassProof prove_versioned_position_not_persisted_tail(const JudgeContext& context,
                                                       int32_t partition);
// A READ_COMMITTED window or session answer of a transactional store whose staged puts raised its
// observed stream time and so hid committed windows (H7 of docs/kafka-2026-08-20.md §10,
// ViolationClass::kStagedStreamTimeExpiresCommitted; window_judge.cc states the proof).
ClassProof prove_staged_stream_time_expired(const JudgeContext& context,
                                            const sim::QueryRecord& record,
                                            const sim::PartitionOutcome& outcome);
// A READ_COMMITTED answer of a transactional versioned store: its committed versions under its one,
// staged position (pin delta 9, ViolationClass::kVersionedPositionNotStaged;
// changelog_witness_versioned.cc states the proof).
ClassProof prove_versioned_position_not_staged(const JudgeContext& context,
                                               const sim::QueryRecord& record,
                                               const sim::PartitionOutcome& outcome);
// Whether that position is the committed one: `request` reads `replica`'s committed state.
bool reads_committed(const JudgeContext& context, const sim::QueryRequestRecord& request,
                     const sim::ReplicaSnapshot& replica);
// Whether `writer` crashed at `at_ms` with the crash landing inside a send to changelog partition
// `partition` of the topology's store (partial_flush.cc).
bool crashed_inside_send(const JudgeContext& context, const std::string& writer,
                         base::Instant at_ms, int32_t partition);
// Whether the store life that wrote changelog-`partition` offsets [first, last] died inside the
// cache flush that wrote them, as its recorded life says: the life's process died (kProcessDied),
// its last cache-flush event is a begin with no end, that begin precedes its write of `first`,
// and `last` is the life's last write. A crash can cut a flush at any event of it, not only a
// send: the change-logging layer writes each entry to the store beneath before it logs it, so a
// disk event of that write (a memtable flush) cuts the flush as a send does (partial_flush.cc).
bool died_inside_cache_flush(const sim::RunTrace& trace, int32_t partition,
                             const sim::ChangelogRecord& first, const sim::ChangelogRecord& last);
// A replica inside a compacted changelog: ViolationClass::kReplicaInsideCompactedChangelog
// (compacted_read.cc states the proof).
ClassProof prove_compacted_changelog_read(const JudgeContext& context,
                                          const sim::QueryRecord& record,
                                          const sim::PartitionOutcome& outcome);
ClassProof prove_window_compacted_read(const JudgeContext& context, const sim::QueryRecord& record,
                                       const sim::PartitionOutcome& outcome);
// A count or sum in an LRU store restarted after an eviction: ViolationClass::
// kLruEvictedAggregate (aggregate_proofs.cc states the proof).
ClassProof prove_lru_evicted_aggregate(const JudgeContext& context, const sim::QueryRecord& record,
                                       const sim::PartitionOutcome& outcome);
// An aggregate that is the fold of its key's input with the replays the ProcessingLedger shows
// (aggregate_proofs.cc states the proof): for ViolationClass::kAtLeastOnceReprocessing, when
// ChangelogWitness holds for the answer (the caller checks that).
ClassProof prove_replayed_aggregate(const JudgeContext& context, const sim::QueryRecord& record,
                                    const sim::PartitionOutcome& outcome);
// The same for a window or session Count or Sum (window_judge.cc states the proof).
ClassProof prove_replayed_window_aggregate(const JudgeContext& context,
                                           const sim::QueryRecord& record,
                                           const sim::PartitionOutcome& outcome);
// A persistent store restored under a .position newer than its .checkpoint: ViolationClass::
// kPositionAheadOfCheckpoint (position_file_ahead.cc states the proof).
ClassProof prove_position_ahead_of_checkpoint(const JudgeContext& context,
                                              const sim::QueryRecord& record,
                                              const sim::PartitionOutcome& outcome);

// A persistent store whose task directory the cleaner was deleting when its process died:
// ViolationClass::kCleanerCutByCrash (cleaner_cut.cc states the proof).
ClassProof prove_cleaner_cut_by_crash(const JudgeContext& context, const sim::QueryRecord& record,
                                      const sim::PartitionOutcome& outcome);

// A versioned store opened over an earlier store object's data: ViolationClass::
// kVersionedStoreReopened (versioned_reopened.cc states the proof).
ClassProof prove_versioned_store_reopened(const JudgeContext& context,
                                          const sim::QueryRecord& record,
                                          const sim::PartitionOutcome& outcome);

// A versioned store given its changelog in restore batches, which judge history by the batch's
// end stream time while live processing keeps versions until their segment expires: the
// candidate for ViolationClass::kVersionedRestoreDroppedExpired (quirk 18), which the runner
// attributes by rerunning the seed with the quirk off (versioned_restore_batch.cc).
ClassProof prove_versioned_restore_dropped_expired(const JudgeContext& context,
                                                   const sim::QueryRecord& record,
                                                   const sim::PartitionOutcome& outcome);

// A versioned partition whose trailing records, late beyond the grace period, never reach a
// replica's position: ViolationClass::kVersionedGraceDroppedTail for an EventuallyAvailable
// violation of `partition` (versioned_grace_tail.cc states the proof).
ClassProof prove_versioned_grace_dropped_tail(const JudgeContext& context, int32_t partition);

// The last liveness probe of `partition` when it was refused NOT_UP_TO_BOUND at a position below
// the phase's bound (what both grace-dropped-tail proofs start from); else nullopt, with
// proof.text saying which condition failed. Needs a liveness phase.
struct StuckProbe {
  const sim::QueryRecord* probe = nullptr;
  int64_t position = -1;  // the refused answer's offset for the partition
  int64_t bound = -1;     // the phase's bound for the partition
};
std::optional<StuckProbe> stuck_probe_of(const JudgeContext& context, int32_t partition,
                                         ClassProof& proof);

// The same for a window or session store, whose aggregation drops a record late beyond grace
// without a write (ViolationClass::kWindowGraceDroppedTail), or, a retainDuplicates RocksDB window
// store, skips a null put before anything (ViolationClass::kDuplicatesNullPutSkipped, quirk 26):
// window_judge.cc states the proof.
struct TailProof {
  ClassProof proof;
  bool duplicates_null_puts = false;  // proven by null puts (quirk 26), not grace drops
};
TailProof prove_window_skipped_tail(const JudgeContext& context, int32_t partition);

// How many of the window witness's folds took a kept model as it was, extended one in place, or
// built a new one (window_judge.cc's WindowFoldCache): a test can tell which path a fold took.
struct WindowFoldCounts {
  uint64_t hits = 0;
  uint64_t extended = 0;
  uint64_t built = 0;
};
WindowFoldCounts window_fold_counts(const JudgeContext& context);

// Whether the replica's store applied changelog record `r`: every record of its prefix [..,
// applied], except another instance's records inside one of the replica's runs of own writes
// (ReplicaSnapshot::own_write_runs: a fenced member's late writes appended after the replica's
// restore had read to its end, which it never read).
bool applied_by(const sim::ReplicaSnapshot& replica, ChangelogOffset applied,
                const sim::ChangelogRecord& r);
// The same, as the replica's store held it at `at_ms` under exactly_once_v2 as well: a store
// reads the changelog read_committed (a standby, a restoring task), so it skips aborted records
// and records not committed by `at_ms`, except the records it wrote itself (written_by_store: a
// record of its instance inside one of its own_write_runs), which it holds whatever becomes of
// their transaction until Kafka wipes it (read_committed_holds).
bool applied_by(const sim::ReplicaSnapshot& replica, ChangelogOffset applied,
                const sim::ChangelogRecord& r, base::Instant at_ms);
bool read_committed_holds(const sim::ReplicaSnapshot& replica, const sim::ChangelogRecord& r,
                          base::Instant at_ms);
bool written_by_store(const sim::ReplicaSnapshot& replica, const sim::ChangelogRecord& r);

// position[source_topic][partition], -1 if absent.
int64_t reported_offset(const JudgeContext& context, const Position& position, int32_t partition);
// The position a store of one source partition reports: {source topic: {partition: component}},
// or empty when component < 0 (no header); and whether `position` is that, without building it.
Position position_of(const JudgeContext& context, int32_t partition, SourceOffset component);
bool is_position_of(const JudgeContext& context, const Position& position, int32_t partition,
                    SourceOffset component);
// Changelog record r's position-header component for its own partition of the source topic (a
// source offset; -1: no header, or none for that partition).
int64_t header_of(const JudgeContext& context, const sim::ChangelogRecord& r);
// The highest header_of the records of changelog-`partition` for which `counts` holds (-1: none).
template <class Counts>
int64_t header_max_where(const JudgeContext& context, int32_t partition, Counts counts) {
  int64_t out = -1;
  for (const sim::ChangelogRecord& r : partition_log(context.trace(), partition)) {
    if (r.position && counts(r)) out = std::max(out, header_of(context, r));
  }
  return out;
}

}  // namespace iq::properties::detail
