#include "state/offsets_column_family.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <memory>
#include <string>
#include <vector>

#include "base/assert.h"
#include "state/position_serde.h"
#include "state/rocksdb_store.h"

namespace iq::offsets_cf {
namespace {

constexpr const char* kStatusKey = "status";
constexpr const char* kPositionKey = "position";
constexpr int64_t kOpenState = 1;
constexpr int64_t kClosedState = 0;

StreamsError processor_state(std::string message) {
  return {StreamsError::Kind::ProcessorState, std::move(message)};
}

// Serdes.LongSerde: 8 bytes, big-endian.
std::string long_bytes(int64_t value) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<char>(static_cast<uint64_t>(value) & 0xff);
    value = static_cast<int64_t>(static_cast<uint64_t>(value) >> 8);
  }
  return out;
}

int64_t long_of(const std::string& bytes) {
  IQ_ASSERT(bytes.size() == 8, "offsets column family: a long of {} bytes", bytes.size());
  uint64_t value = 0;
  for (char c : bytes) value = (value << 8) | static_cast<uint8_t>(c);
  return static_cast<int64_t>(value);
}

// TopicPartition.toString().
std::string partition_key(const TopicPartition& tp) {
  return tp.first + "-" + std::to_string(tp.second);
}

base::Expected<std::optional<std::string>, StreamsError> get(rocksdb::DB& db,
                                                             rocksdb::ColumnFamilyHandle* cf,
                                                             const std::string& key) {
  std::string value;
  const rocksdb::Status s = db.Get(rocksdb::ReadOptions(), cf, key, &value);
  if (s.IsNotFound()) return std::optional<std::string>{};
  if (!s.ok()) return base::unexpected(processor_state("offsets: reading " + key + " failed"));
  return std::optional<std::string>(std::move(value));
}

Status put(rocksdb::WriteBatch& batch, rocksdb::ColumnFamilyHandle* cf, const std::string& key,
           const std::string& value) {
  if (!batch.Put(cf, key, value).ok()) {
    return base::unexpected(processor_state("offsets: batch refused " + key));
  }
  return ok_status();
}

Status write(rocksdb::DB& db, rocksdb::WriteBatch& batch) {
  if (!db.Write(rocksdb_store_write_options(), &batch).ok()) {
    return base::unexpected(processor_state("offsets: write failed"));
  }
  return ok_status();
}

}  // namespace

base::Expected<Position, StreamsError> open(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf,
                                            bool ignore_invalid_state, bool transactional) {
  auto status_bytes = get(db, cf, kStatusKey);
  if (!status_bytes) return base::unexpected(status_bytes.error());
  const bool closed_or_none = !*status_bytes || long_of(**status_bytes) == kClosedState;
  if (!ignore_invalid_state && !closed_or_none) {
    return base::unexpected(processor_state(
        "Invalid state during store open. Expected state to be either empty or closed"));
  }
  // KAFKA-20753: a transactional store writes no status marker (the check above still runs).
  if (!transactional) {
    rocksdb::WriteBatch batch;
    if (auto s = put(batch, cf, kStatusKey, long_bytes(kOpenState)); !s) {
      return base::unexpected(s.error());
    }
    if (auto s = write(db, batch); !s) return base::unexpected(s.error());
  }
  auto position_bytes = get(db, cf, kPositionKey);
  if (!position_bytes) return base::unexpected(position_bytes.error());
  if (!*position_bytes) return Position::empty_position();
  return position_serde::deserialize(**position_bytes);
}

Status commit(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf, const Position& position,
              const ChangelogOffsets& offsets, rocksdb::WriteBatch* staged) {
  rocksdb::WriteBatch own;
  rocksdb::WriteBatch& batch = staged != nullptr ? *staged : own;
  if (offsets.empty()) {
    // wipeOffsets: every key but the status, then the position is written again below.
    std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions(), cf));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->key().ToString() != kStatusKey && !batch.Delete(cf, it->key()).ok()) {
        return base::unexpected(processor_state("offsets: wipe failed"));
      }
    }
    if (!it->status().ok()) return base::unexpected(processor_state("offsets: wipe failed"));
  }
  for (const auto& [tp, offset] : offsets) {
    if (auto s = put(batch, cf, partition_key(tp), long_bytes(offset.value())); !s) return s;
  }
  if (auto s = put(batch, cf, kPositionKey, position_serde::serialize_padded(position)); !s) {
    return s;
  }
  if (staged != nullptr) return ok_status();  // the caller writes it with the staged data
  return write(db, batch);
}

Status close(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf) {
  rocksdb::WriteBatch batch;
  if (auto s = put(batch, cf, kStatusKey, long_bytes(kClosedState)); !s) return s;
  return write(db, batch);
}

base::Expected<std::optional<ChangelogOffset>, StreamsError> committed_offset(
    rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf, const TopicPartition& changelog) {
  auto bytes = get(db, cf, partition_key(changelog));
  if (!bytes) {
    return base::unexpected(processor_state("Error while getting committed offset for partition " +
                                            changelog.first + "-" +
                                            std::to_string(changelog.second)));
  }
  if (!*bytes) return std::optional<ChangelogOffset>{};
  return std::optional<ChangelogOffset>(ChangelogOffset(long_of(**bytes)));
}

std::optional<int64_t> status(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf) {
  auto bytes = get(db, cf, kStatusKey);
  IQ_ASSERT(bytes.has_value(), "offsets: status unreadable");
  if (!*bytes) return std::nullopt;
  return long_of(**bytes);
}

}  // namespace iq::offsets_cf
