#include "findings_catalogue.h"

#include <algorithm>

#include <fmt/format.h>

#include "report_common.h"

namespace iq::reports {

namespace {

// The Kafka paths below are under streams/src/main/java/org/apache/kafka/streams/ unless they say
// otherwise; each was read at apache/kafka 1eb7644. The texts are ours.
constexpr Finding kCatalogue[] = {
    {.key = "alos_reprocessing",
     .title = "at-least-once reprocessing",
     .explanation =
         "Under at-least-once a task commits its input offsets only every commit.interval.ms, "
         "while its store writes reach the changelog as they happen. When an instance crashes, "
         "is fenced or loses its tasks between two commits, the next owner processes the "
         "uncommitted input again from the last committed offset, and an aggregate counts it "
         "twice. An IQv2 answer then holds a value the input alone does not explain (a count "
         "too high, a sum with a record twice), under a position that looks ordinary: the "
         "position records offsets, not how often each was applied.",
     .kafka_source =
         "processor/internals/StreamTask.prepareCommit / postCommit (offsets committed after "
         "the writes), TaskManager.commit, and the consumer resuming from the committed offset; "
         "StreamsProducer is not transactional without EOS, so nothing aborts the first writes.",
     .conditions = "processing.guarantee=at_least_once; any logged store with an aggregate or "
                   "overwrite whose result depends on how often input is applied; a crash, "
                   "pause, isolation or rebalance between two commits.",
     .scenario = "scenarios/findings/alos_count_double_counts_after_crash.toml",
     .seen_in = "templates/default.toml: 92 of seeds 1..1000, the commonest",
     .what_to_do = "Use processing.guarantee=exactly_once_v2 (its twin, "
                   "fast/eos_crash_before_commit_restores_committed_only, passes strictly), or "
                   "make the aggregation idempotent (dedupe on a record id) when an answer "
                   "must never count input twice."},
    {.key = "restart_without_checkpoint",
     .title = "a store reopened without a current checkpoint answers under a lower position",
     .explanation =
         "A persistent store that restarts without a .checkpoint (after a crash, or its task "
         "lost to a pause) keeps its data on disk under at-least-once, but its position comes "
         "from a missing or older .position file. Until restoration catches up, IQv2 answers "
         "with the data it kept under a position lower than that data: an under-claim. A "
         "bounded query may be refused although the data is there; an unbounded one gets data "
         "newer than its position says.",
     .kafka_source =
         "processor/internals/ProcessorStateManager.initializeStoreOffsetsFromCheckpoint (no "
         "checkpoint under at-least-once: restore from the log start over the kept store; "
         "only EOS throws TaskCorruptedException and wipes it); state/internals/RocksDBStore."
         "init reads <store>.position through StoreQueryUtils.readPositionFromCheckpoint.",
     .conditions = "processing.guarantee=at_least_once; a persistent (RocksDB) store; a crash, "
                   "close or task loss, then a restart on the kept disk.",
     .scenario = "scenarios/findings/alos_standby_restart_without_checkpoint_underclaims.toml",
     .seen_in = "",
     .what_to_do = "Treat a position as a lower bound of what a replica holds after a restart; "
                   "under exactly_once_v2 it remains once the active has completed a "
                   "restoration, whose .checkpoint the state updater keeps while the task "
                   "processes (findings/eos_standby_restart_over_restoration_checkpoint_"
                   "underclaims)."},
    {.key = "cache_flush_partly_applied",
     .title = "a replica inside one cached flush over-claims",
     .explanation =
         "With a record cache a store's writes reach the changelog at a flush, each dirty key "
         "once under the context of its last write, and the position header carried by the "
         "records only grows. A standby, warmup or restoring active that has applied part of "
         "one flush reports a position that already covers writes of keys later in it, so IQv2 "
         "answers a key missing or older beneath a position that claims it. The same happens "
         "for good when the writer crashes inside the flush (the rest never reaches the log).",
     .kafka_source =
         "state/internals/NamedCache.flush (dirty keys in the order of their last write, one "
         "listener call), CachingKeyValueStore.putAndMaybeForward, ChangeLoggingKeyValueBytesStore "
         "logging under the store's position; restore applies records one by one "
         "(processor/internals/StoreChangelogReader.restoreChangelog).",
     .conditions = "Caching on (statestore.cache.max.bytes > 0); any guarantee (it remains under "
                   "exactly_once_v2); answers from a replica that restores or stands by.",
     .scenario = "scenarios/findings/cache_flush_partly_applied_overclaims.toml",
     .seen_in = "also scenarios/findings/cache_flush_cut_by_crash_overclaims.toml (a writer "
                "that crashed inside the flush)",
     .what_to_do = "Query the active (requireActive) when a position must mean every write "
                   "beneath it is visible, or turn caching off for stores served by standbys."},
    {.key = "position_ahead_of_checkpoint",
     .title = "a .position newer than its .checkpoint over-claims after a crash",
     .explanation =
         "At a checkpoint each store first writes its <store>.position file, then the task "
         "writes .checkpoint. A crash between the two leaves the newer position beside the "
         "older changelog offset: the restarted store restores from the old offset under the "
         "new position, so IQv2 answers old values under a position that covers newer writes "
         "until the restore passes them.",
     .kafka_source =
         "processor/internals/ProcessorStateManager.checkpoint (each store's commitCallback, "
         "which writes <store>.position via StoreQueryUtils.checkpointPosition, runs before "
         "checkpointFile.write).",
     .conditions = "processing.guarantee=at_least_once; a persistent store; a crash that lands "
                   "inside the task's checkpoint (quirk 12 of docs/iqv2-semantics.md).",
     .scenario = "scenarios/findings/position_file_ahead_of_checkpoint.toml",
     .seen_in = "",
     .what_to_do = "Do not trust a restarted store's position until its restore ended "
                   "(lag 0); under exactly_once_v2 too, the restart finds the .checkpoint the "
                   "state updater wrote at restoration (findings/"
                   "eos_position_file_ahead_of_checkpoint)."},
    {.key = "fenced_late_write",
     .title = "a fenced member's late writes land beneath a newer position",
     .explanation =
         "A member that was paused or cut off past its session still holds processed but "
         "uncommitted writes. When it comes back, its commit first flushes them to the "
         "changelog and only then fails to commit its offsets; without transactions nothing "
         "fences those sends. They land after the new owner already processed the same input, "
         "under their old position headers, so a replica that applies the whole changelog "
         "answers an older value beneath a position that covers the newer one.",
     .kafka_source =
         "processor/internals/StreamTask.prepareCommit (flush before the offset commit), "
         "TaskManager.commit and handleLostAll; StreamsProducer without EOS has no producer "
         "fencing.",
     .conditions = "processing.guarantee=at_least_once; a pause or network isolation longer "
                   "than the session timeout, then a heal; a logged store.",
     .scenario = "scenarios/findings/alos_fenced_member_late_write_beneath_newer_position.toml",
     .seen_in = "",
     .what_to_do = "Use exactly_once_v2 (the zombie's transaction is fenced and aborted: "
                   "fast/eos_fenced_member_late_write_aborted), or re-read after a rebalance."},
    {.key = "lru_evicted_aggregate",
     .title = "an LRU store's evicted aggregate restarts from zero",
     .explanation =
         "An LRU key-value store (Stores.lruMap) forgets its least recently used key when full. "
         "An aggregation reading an evicted key gets null and starts again from the "
         "initializer, so a count restarts from 1 and every replica folds that restarted value "
         "from the changelog. IQv2 answers a count or sum far below what the input holds, "
         "consistently on every replica.",
     .kafka_source =
         "state/internals/MemoryLRUCache (removeEldestEntry evicts, the eviction listener logs a "
         "tombstone through ChangeLoggingKeyValueBytesStore); kstream/internals/KStreamAggregate "
         "process(): a null old aggregate takes initializer.apply().",
     .conditions = "An LRU store smaller than the key space under a Count or Sum; any guarantee; "
                   "no fault needed.",
     .scenario = "",
     .seen_in = "templates/default.toml: 37 of seeds 1..1000 (the sweep report links the first)",
     .what_to_do = "Size an LRU store above the key space, or use a persistent store for "
                   "aggregates; an LRU aggregate is a cache, not a total."},
    {.key = "versioned_store_reopened",
     .title = "a reopened versioned store does not see its older segments",
     .explanation =
         "A versioned store opened over data it kept on disk knows none of its segments until a "
         "put re-creates them, so multi-version answers leave out versions that the changelog "
         "holds, those versions never expire, and an out-of-order put can land in a row it "
         "never searched, returning overlapping versions.",
     .kafka_source =
         "state/internals/LogicalKeyValueSegments.openExisting (opens the RocksDB only, no "
         "segment), RocksDBVersionedStore.init; insertAsEarliest is not checked against the "
         "unknown segments (quirk 17 of docs/iqv2-semantics.md).",
     .conditions = "A persistent versioned store (Stores.persistentVersionedKeyValueStore); a "
                   "restart on a kept disk or a task that came back; any guarantee.",
     .scenario = "scenarios/findings/versioned_reopened_store_misses_older_segments.toml",
     .seen_in = "",
     .what_to_do = "Prefer VersionedKeyQuery at recent timestamps after a restart; expect "
                   "MultiVersionedKeyQuery to miss history a reopened store kept."},
    {.key = "replica_inside_compacted_changelog",
     .title = "a replica inside a compacted changelog lacks superseded keys",
     .explanation =
         "The log cleaner keeps only the latest record per key of the segments it cleaned. A "
         "standby or restoring active that fetches from an offset after a cleaning never reads "
         "the removed record of a key whose newer record lies beyond its own offset, so IQv2 "
         "answers that key absent (or older) under a position that covers its writes, until the "
         "replica reaches the newer record.",
     .kafka_source =
         "core/src/main/scala/kafka/log/LogCleaner.scala (compaction keeps the last offset per "
         "key); processor/internals/StoreChangelogReader restores what the log holds.",
     .conditions = "cleanup.policy=compact changelogs with the cleaner running; a replica "
                   "behind the cleaned part; any guarantee.",
     .scenario = "scenarios/findings/compacted_changelog_replica_lacks_superseded_key.toml",
     .seen_in = "",
     .what_to_do = "Bound queries by position only against replicas with lag 0, or query the "
                   "active; a restoring replica's answer is a partial view."},
    {.key = "replica_inside_one_records_writes",
     .title = "a replica between one input record's changelog writes over-claims",
     .explanation =
         "One input record can write several changelog records: a session merge removes each "
         "merged session and puts the merged one, a hopping window writes once per window. They "
         "share a position header, and a replica can stop between them. IQv2 then answers "
         "without the merged session (or with only some windows) under a position that covers "
         "the record that made them.",
     .kafka_source =
         "kstream/internals/KStreamSessionWindowAggregate.process (store.remove for each merged "
         "session, then store.put), KStreamWindowAggregate (one put per window); each logged by "
         "ChangeLogging*BytesStore as a record of its own.",
     .conditions = "A window or session aggregation; a standby or restoring replica; any "
                   "guarantee.",
     .scenario = "scenarios/findings/session_merge_partly_applied_overclaims.toml",
     .seen_in = "",
     .what_to_do = "Query the active for window and session answers that must be whole, or "
                   "re-query once the replica's lag is 0."},
    {.key = "cleaner_cut_by_crash",
     .title = "a task directory whose deletion a crash cut keeps its .checkpoint without its store",
     .explanation =
         "The state-directory cleaner deletes an unowned task directory file by file without "
         "fsync. A crash in the middle can leave .checkpoint and <store>.position while the "
         "store's data is gone; on restart the checkpoint is trusted and the restore replays "
         "only the records after it into an empty store, so IQv2 answers keys missing under a "
         "position that covers the whole changelog, for good.",
     .kafka_source =
         "processor/internals/StateDirectory.cleanRemovedTasksCalledByCleanerThread "
         "(Utils.delete, no fsync), ProcessorStateManager.initializeStoreOffsetsFromCheckpoint "
         "(trusts the checkpoint).",
     .conditions = "A persistent store; a task moved away and the cleaner deleting its "
                   "directory when the process dies; both guarantees.",
     .scenario = "scenarios/findings/cleaner_cut_by_crash_keeps_checkpoint_without_store.toml",
     .seen_in = "",
     .what_to_do = "Nothing at query time tells it apart; an operator can delete the task "
                   "directory of a crashed instance before restarting it."},
    {.key = "versioned_grace_dropped_tail",
     .title = "a versioned store's position never reaches records dropped beyond grace",
     .explanation =
         "A versioned store drops a put older than its grace period. Restore skips such records "
         "before reading their position header, so when a partition's last records are that "
         "late, a restored store's position never reaches them: a query bounded by everything "
         "produced is refused NOT_UP_TO_BOUND until new input arrives.",
     .kafka_source = "state/internals/RocksDBVersionedStore.restoreBatch (continue before "
                     "applyChecksAndUpdatePosition for a record older than observedStreamTime - "
                     "gracePeriod); quirk 14 of docs/iqv2-semantics.md.",
     .conditions = "A versioned store; late records at the end of a partition; a restore "
                   "(restart or failover); any guarantee.",
     .scenario = "scenarios/findings/versioned_late_tail_never_reaches_restored_position.toml",
     .seen_in = "",
     .what_to_do = "Bound queries by what your own writes produced, not by the topic's end, or "
                   "accept NOT_UP_TO_BOUND as final for a partition that went quiet."},
    {.key = "window_grace_dropped_tail",
     .title = "a window or session store's position never reaches records dropped beyond grace",
     .explanation =
         "Windowed and session aggregations drop a record that arrives after its window closed "
         "without writing the store, so no store position ever covers that record's offset. A "
         "query bounded by the produced offsets is refused NOT_UP_TO_BOUND for good when a "
         "partition's last records were that late.",
     .kafka_source =
         "kstream/internals/AbstractKStreamTimeWindowAggregateProcessor and "
         "KStreamSessionWindowAggregate.process (\"Skipping record for expired window\", then "
         "return); quirk 25 of docs/iqv2-semantics.md.",
     .conditions = "A window or session aggregation with a grace period; late input at the end "
                   "of a partition; any guarantee; no fault needed.",
     .scenario = "",
     .seen_in = "templates/default.toml: 19 of seeds 1..1000 (the sweep report links the first)",
     .what_to_do = "Do not bound window queries by the input topic's end offsets; bound them by "
                   "a position an answer returned."},
    {.key = "versioned_restore_dropped_expired",
     .title = "a versioned restore batch discards versions already beyond history retention",
     .explanation =
         "A versioned store's restore judges history by the stream time at the end of its "
         "batch, so a late put whose next version is already beyond the history retention by "
         "then is discarded, where live processing kept it until its segment expired. A standby "
         "answers without versions the active still returns.",
     .kafka_source =
         "state/internals/RocksDBVersionedStore.restoreBatch (endOfBatchStreamTime) and "
         "maybePutToSegments; quirk 18 of docs/iqv2-semantics.md.",
     .conditions = "A versioned store with a short history retention; a standby or restore; "
                   "late input; any guarantee.",
     .scenario = "",
     .seen_in = "templates/versioned.toml seed 174",
     .what_to_do = "Ask the active for versions near the history retention; a standby's "
                   "history may be shorter."},
    {.key = "duplicates_null_put_skipped",
     .title = "a retainDuplicates window store skips a null put its changelog logs",
     .explanation =
         "With retainDuplicates a RocksDB window store returns before anything for a null "
         "value (no write, no stream time, no position), while the changelog logs it and a "
         "restore takes its window start into the stream time. A live store's position then "
         "never covers that offset (a bounded query waits for good), and a restored store can "
         "hide windows the live one still shows.",
     .kafka_source =
         "state/internals/RocksDBWindowStore.put (skips value == null when retainDuplicates), "
         "ChangeLoggingWindowBytesStore.put (logs it), AbstractRocksDBSegmentedBytesStore."
         "restoreAllInternal; quirk 26 of docs/iqv2-semantics.md.",
     .conditions = "A RocksDB window store with retainDuplicates (PAPI or join stores); null "
                   "values in the input; any guarantee.",
     .scenario = "",
     .seen_in = "templates/default.toml: 3 of seeds 1..1000 (the sweep report links the first)",
     .what_to_do = "Do not write nulls to a duplicates window store, or do not bound its "
                   "queries by input offsets."},
    {.key = "cached_writes_beneath_position",
     .title = "a caching window or session store answers from beneath its cache",
     .explanation =
         "The caching window and session layers override neither query() nor getPosition(), so "
         "IQv2 answers from the store beneath the record cache, under that store's position, "
         "while the cache may still hold dirty writes beneath the position (an eviction flushed "
         "in the middle of one record's writes). The answer misses writes its position claims.",
     .kafka_source =
         "state/internals/CachingWindowStore and CachingSessionStore (no query override), "
         "WrappedStateStore.query and getPosition delegate to the wrapped store; quirk 19 of "
         "docs/iqv2-semantics.md.",
     .conditions = "A window or session store with caching on; any guarantee; no fault needed.",
     .scenario = "",
     .seen_in = "templates/default.toml: 10 of seeds 1..1000 (the sweep report links the first)",
     .what_to_do = "Turn caching off (withCachingDisabled) for window and session stores that "
                   "IQv2 must read exactly."},
    {.key = "eos_kept_aborted_writes",
     .title = "an exactly-once store restarted on its restoration checkpoint keeps aborted writes",
     .explanation =
         "Under exactly_once_v2 the state updater writes a .checkpoint when an active finishes "
         "restoring, and nothing deletes it while the task runs. RocksDB, without its WAL, flushes "
         "full memtables by itself, writes of open transactions included. If the process dies, "
         "the restart finds the .checkpoint, keeps the store with the aborted writes in it, and "
         "processes the uncommitted input again on top of them; what it logs is committed, so "
         "every replica restores the doubled aggregates.",
     .kafka_source =
         "processor/internals/DefaultStateUpdater.maybeCompleteRestoration (maybeCheckpoint(true) "
         "under every guarantee), StreamTask.postCommit (no checkpoint while running under EOS), "
         "ProcessorStateManager.initializeStoreOffsetsFromCheckpoint (keeps a store found in "
         ".checkpoint).",
     .conditions = "exactly_once_v2; a persistent store whose memtable fills between commits "
                   "(a small write buffer, as a rocksdb.config.setter may set); a crash after "
                   "restoration completed; the restart on the kept disk.",
     .scenario =
         "scenarios/findings/eos_restoration_checkpoint_keeps_aborted_writes_double_counts.toml",
     .seen_in = "templates/default.toml seed 37",
     .what_to_do = "Do not trust aggregates of an exactly-once application restarted after a "
                   "crash on its kept state directory at this version; wipe the state directory "
                   "of an instance that crashed, or keep RocksDB's write buffer large enough that "
                   "it never flushes between commits."},
    {.key = "read_committed_not_transactional",
     .title = "READ_COMMITTED reads uncommitted writes on a store that is not transactional "
              "(2026-08-20)",
     .explanation =
         "At the 2026-08-20 Kafka a query may ask READ_COMMITTED (KIP-892), but only a "
         "transactional store keeps its uncommitted writes apart. With "
         "enable.transactional.statestores off (the default), or on an LRU store, which has no "
         "transactional form, the level changes nothing: under exactly_once_v2 the active "
         "answers writes of its open transaction, which may still abort.",
     .kafka_source =
         "state/internals/StoreQueryUtils.handleBasicQueries (store.readOnly(level)); "
         "RocksDBStore, InMemoryKeyValueStore without a transaction buffer and MemoryLRUCache "
         "return themselves for every level (docs/kafka-2026-08-20.md §3.6, pin delta 11).",
     .conditions = "kafka = '2026-08-20'; exactly_once_v2; READ_COMMITTED (per query or "
                   "default.interactive.query.isolation.level); transactional stores off or an "
                   "LRU store; an active answering between a write and its commit.",
     .scenario =
         "scenarios/findings/kafka_2026_read_committed_store_not_transactional_reads_dirty.toml",
     .seen_in = "templates/default.toml, new-pin exactly_once_v2 seeds with READ_COMMITTED",
     .what_to_do = "Set enable.transactional.statestores=true and use a persistent or in-memory "
                   "store (not Stores.lruMap) where READ_COMMITTED must mean committed."},
    {.key = "cached_key_query_ignores_isolation",
     .title = "a cached KeyQuery under READ_COMMITTED answers uncommitted cache entries "
              "(2026-08-20)",
     .explanation =
         "The caching layer answers a KeyQuery itself: when the key is in the record cache it "
         "returns the cached value, written by the task's open transaction or not, whatever the "
         "isolation level; only a cache miss reads the transactional store's committed view. "
         "Under exactly_once_v2 a READ_COMMITTED KeyQuery thus sees writes that may abort. "
         "Range queries bypass the cache and are not affected.",
     .kafka_source =
         "state/internals/CachingKeyValueStore.query (KeyQuery handled from the thread cache; "
         "the QueryConfig's level is not read) at 8f4e08b5a3; pin delta 8 of "
         "docs/kafka-2026-08-20.md.",
     .conditions = "kafka = '2026-08-20'; exactly_once_v2; enable.transactional.statestores; "
                   "caching on; a KeyQuery or TimestampedKeyQuery under READ_COMMITTED on the "
                   "active while its cache holds the key's uncommitted write.",
     .scenario = "scenarios/findings/kafka_2026_cached_key_query_read_committed_reads_dirty.toml",
     .seen_in = "templates/default.toml, new-pin exactly_once_v2 seeds with transactional "
                "stores and caching",
     .what_to_do = "Disable caching (withCachingDisabled) on stores that READ_COMMITTED key "
                   "queries must read exactly, or query ranges."},
    {.key = "cached_key_query_miss_reads_committed",
     .title = "a cached KeyQuery under READ_COMMITTED that misses the cache answers the "
              "committed value under the staged position (2026-08-20)",
     .explanation =
         "When the record cache does not hold the key, the caching layer asks the "
         "transactional store below with the request's level, and READ_COMMITTED answers the "
         "value as of the task's last commit; but the caching layer labels it with its own "
         "position merged with the store's staged one, which covers writes made since. The "
         "answer is older than its position claims: two KeyQueries at one position can differ "
         "(one a cache hit), and a bound the staged writes meet is passed by committed data.",
     .kafka_source =
         "state/internals/CachingKeyValueStore.query and runKeyQuery at 8f4e08b5a3 (the bound "
         "checked on getPosition(), the cache merged with the inner staged position; a miss asks "
         "wrapped().query unbounded with the QueryConfig; result.setPosition(mergedPosition)); "
         "pin delta 8 of docs/kafka-2026-08-20.md.",
     .conditions = "kafka = '2026-08-20'; either guarantee; enable.transactional.statestores; "
                   "caching on; a KeyQuery or TimestampedKeyQuery under READ_COMMITTED on the "
                   "active for a key its cache does not hold, between a write and the next "
                   "commit.",
     .scenario = "scenarios/findings/"
                 "kafka_2026_cached_key_query_miss_committed_under_staged_position.toml",
     .seen_in = "templates/default.toml seeds 425, 469, 692, 728",
     .what_to_do = "Do not read a READ_COMMITTED KeyQuery's position as the state it answers on "
                   "a caching store; disable caching where positions must be exact, or query "
                   "ranges (they carry the committed position)."},
    {.key = "versioned_position_not_persisted",
     .title = "a versioned store reopened over its data answers under an empty position "
              "(2026-08-20)",
     .explanation =
         "At the new pin a versioned store keeps its changelog offsets inside its RocksDB "
         "instance and commits them with a position, but the position it writes is the physical "
         "store's, which no versioned put or restore ever advances. A store object reopened over "
         "its kept data (a restart, a standby or active on its kept disk) restores only the "
         "records after its committed offset and starts from an empty position: it answers all "
         "its data under a position that covers only what it was given since. A bounded query "
         "is refused until new input moves the position, for ever once the input stops.",
     .kafka_source =
         "state/internals/RocksDBVersionedStore.commit, LogicalKeyValueSegments.openExisting "
         "(physicalStore.openDB, no init) and commit (physicalStore.commit writes its own "
         "position) at 8f4e08b5a3; pin delta 10 of docs/kafka-2026-08-20.md.",
     .conditions = "kafka = '2026-08-20'; a versioned store on RocksDB; a store object reopened "
                   "over kept data; any guarantee and level.",
     .scenario = "scenarios/findings/"
                 "kafka_2026_versioned_reopened_position_not_persisted_underclaims.toml",
     .seen_in = "templates/default.toml seeds 558, 811, 873, 883; templates/kafka_2026.toml "
                "seeds 81, 180",
     .what_to_do = "Do not bound queries of a versioned store by positions at this pin after "
                   "a restart; an unbounded query answers the data."},
    {.key = "staged_stream_time_expires_committed",
     .title = "a transactional window or session store's staged puts expire committed windows "
              "(2026-08-20)",
     .explanation =
         "A window or session store keeps windows down to its observed stream time less the "
         "retention. Under KIP-892 a put raises that stream time at once, while its write waits "
         "in the transaction buffer for the commit; every read, READ_COMMITTED included, then "
         "hides the committed windows below the raised floor, and the in-memory stores drop "
         "them from the committed map (a RocksDB store drops whole segments). A READ_COMMITTED "
         "answer lacks windows that the committed state still retains, under the committed "
         "position; if the transaction aborts, they stay gone until the store is restored.",
     .kafka_source =
         "state/internals/InMemoryWindowStore.put, InMemorySessionStore.put (observedStreamTime "
         "raised before transactionBuffer.stage; removeExpiredSegments and the fetch floors), "
         "AbstractRocksDBSegmentedBytesStore.put (getOrCreateSegmentIfLive at the raised time) "
         "and getActualFrom at 8f4e08b5a3; H7 of docs/kafka-2026-08-20.md §10.",
     .conditions = "kafka = '2026-08-20'; enable.transactional.statestores; a windowed or "
                   "session aggregation or writer; either guarantee; a window or session query "
                   "under READ_COMMITTED on the active between a put whose window lies beyond "
                   "the committed ones by more than the retention and the next commit.",
     .scenario = "scenarios/findings/kafka_2026_staged_put_expires_committed_windows.toml",
     .seen_in = "templates/default.toml (seeds in docs/kafka-2026-08-20.md §10, H7)",
     .what_to_do = "Do not read a READ_COMMITTED window answer as the committed state near the "
                   "retention floor: windows within a retention of the newest staged put may be "
                   "missing; query READ_UNCOMMITTED or keep the retention well above the spread "
                   "of window starts a commit interval covers."},
    {.key = "versioned_position_not_staged",
     .title = "a transactional versioned store answers READ_COMMITTED under its staged position "
              "(2026-08-20)",
     .explanation =
         "With transactional state stores a versioned store stages its writes in its RocksDB "
         "transaction buffer and READ_COMMITTED reads only what the last commit wrote, but the "
         "store keeps one position, which every put advances at once, and labels and bounds "
         "both levels with it. A READ_COMMITTED answer carries the position of writes it does "
         "not show: two answers at one position can differ, and a bound those writes meet is "
         "passed by older data.",
     .kafka_source =
         "state/internals/RocksDBVersionedStore.put, delete (StoreQueryUtils.updatePosition on "
         "the segments' position) and query (handleBasicQueries with that position for either "
         "level), get(..., level) over LogicalKeyValueSegment.readOnly(level) at 8f4e08b5a3 "
         "(KAFKA-20500, 8cfdfaaacc); pin delta 9 of docs/kafka-2026-08-20.md.",
     .conditions = "kafka = '2026-08-20'; enable.transactional.statestores; a versioned table or "
                   "writer; either guarantee; a VersionedKeyQuery or MultiVersionedKeyQuery "
                   "under READ_COMMITTED on the active between a put and the next commit.",
     .scenario = "",
     .seen_in = "properties/checks/kafka_2026_classes_test.cc (a hand-made trace); no template "
                "draws transactional versioned stores yet",
     .what_to_do = "Do not read a READ_COMMITTED versioned answer's position as the state it "
                   "answers, nor feed it back as a bound; query READ_UNCOMMITTED where positions "
                   "must be exact."},
};

}  // namespace

std::span<const Finding> findings_catalogue() {
  return kCatalogue;
}

const Finding* find_finding(std::string_view key) {
  for (const Finding& f : kCatalogue) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

std::string finding_anchor(std::string_view key) {
  return "about-" + std::string(key);
}

namespace {

std::string entry_html(const Finding& f, uint64_t count, const std::string& unit) {
  std::string html = fmt::format(
      "<article class=\"about\" id=\"{}\"><h3><span class=\"verdict known\">known Kafka "
      "behaviour</span> {}</h3>\n",
      html_escape(finding_anchor(f.key)), html_escape(f.title));
  if (count > 0) html += fmt::format("<p class=\"seen\">met: {} {}</p>\n", count, unit);
  html += "<p>" + html_escape(f.explanation) + "</p>\n<table class=\"kv\">\n";
  const auto row = [&](const char* what, std::string_view text, bool code = false) {
    if (text.empty()) return;
    html += std::string("<tr><th>") + what + "</th><td>" + (code ? "<code>" : "") +
            html_escape(text) + (code ? "</code>" : "") + "</td></tr>\n";
  };
  row("Kafka source", f.kafka_source);
  row("conditions", f.conditions);
  row("minimal scenario", f.scenario.empty() ? "none yet" : f.scenario, !f.scenario.empty());
  row("seen in", f.seen_in);
  row("what a caller can do", f.what_to_do);
  row("class key", f.key, true);
  return html + "</table></article>\n";
}

}  // namespace

std::string render_findings_section(const std::map<std::string, uint64_t>& seen,
                                    const std::string& section_id, const std::string& unit) {
  std::string html = "<section id=\"" + html_escape(section_id) +
                     "\"><h2>Known Kafka behaviours met</h2>\n<p>Each is a way Kafka's IQv2 "
                     "answers differ from what a caller would naively expect, proven from the "
                     "run's record, not a failure of the run (`iqsim findings` lists them "
                     "all).</p>\n";
  bool any = false;
  for (const auto& [key, count] : seen) {
    if (key == "failure") continue;
    any = true;
    const Finding* f = find_finding(key);
    html += f ? entry_html(*f, count, unit)
              : fmt::format(
                    "<article class=\"about\" id=\"{}\"><h3>{}</h3><p>No catalogue "
                    "entry in this build.</p></article>\n",
                    html_escape(finding_anchor(key)), html_escape(key));
  }
  if (!any) html += "<p>None: no violation was explained by a declared Kafka behaviour.</p>\n";
  return html + "</section>\n";
}

}  // namespace iq::reports
