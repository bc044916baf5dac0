#pragma once
// AbstractColumnFamilyAccessor (SI/AbstractColumnFamilyAccessor.java) at the 2026-08-20 pin
// (KIP-1035, pin deltas 1, 2 and 4; docs/kafka-2026-08-20.md §4): a RocksDB instance's "offsets"
// column family, which holds
//   "status"               big-endian long, 1 open / 0 closed (the open/closed status marker)
//   "position"             PositionSerde bytes of the store's position
//   "<topic>-<partition>"  big-endian long changelog offset (TopicPartition.toString())
// Every write goes into the memtable like the data (the WAL is off), so nothing here is durable
// until the instance's memtables are flushed, all column families together (atomic flush), or the
// store closes cleanly. Kafka's non-transactional accessor writes each key with its own db.put;
// this writes a commit's keys as one batch, which nothing can tell apart (no flush can fall
// between them: iqsim flushes at a write the store makes, never inside this call).
// The transactional form (KIP-892, pin delta 5): no status marker is ever written (KAFKA-20753),
// though open() still checks one left by an earlier non-transactional run; commit() adds its keys
// to the store's staged WriteBatch, which the store writes with the staged data in one db.write.

#include <optional>
#include <string>

#include "iq/position.h"
#include "iq/status.h"
#include "iq/topic_partition.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
class WriteBatch;
}  // namespace rocksdb

namespace iq::offsets_cf {

// OFFSETS_COLUMN_FAMILY_NAME.
inline constexpr const char* kColumnFamilyName = "offsets";

// ColumnFamilyAccessor.open(accessor, ignoreInvalidState): unless the status says "open" and
// `ignore_invalid_state` is false (exactly_once_v2), writes status "open" (into the memtable) and
// returns the stored position (empty when none); otherwise fails with ProcessorState ("Invalid
// state during store open..."), which RocksDBStore.openDB turns into TaskCorrupted.
// `transactional`: the check runs, but no "open" is written.
[[nodiscard]] base::Expected<Position, StreamsError> open(rocksdb::DB& db,
                                                          rocksdb::ColumnFamilyHandle* cf,
                                                          bool ignore_invalid_state,
                                                          bool transactional = false);

// ColumnFamilyAccessor.commit: each changelog offset (an empty map deletes every key but
// "status"), then `position` under "position", in one batch.
// `staged` (a transactional store's batch): the keys are added to it, not written.
[[nodiscard]] Status commit(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf,
                            const Position& position, const ChangelogOffsets& offsets,
                            rocksdb::WriteBatch* staged = nullptr);

// ColumnFamilyAccessor.close: status "closed". The caller writes it only if its open() set the
// open flag (KAFKA-20456).
[[nodiscard]] Status close(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf);

// ColumnFamilyAccessor.getCommittedOffset: the stored offset of `changelog`, if any; a read
// error is a ProcessorStateException naming the partition, as the stores report it.
[[nodiscard]] base::Expected<std::optional<ChangelogOffset>, StreamsError> committed_offset(
    rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf, const TopicPartition& changelog);

// The stored status, for tests and observers: nullopt (none), 1 open, 0 closed.
std::optional<int64_t> status(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf);

}  // namespace iq::offsets_cf
