#pragma once
// KeyValueSegment, TimestampedSegment and their managers (SI/KeyValueSegment.java,
// SI/TimestampedSegment.java, SI/AbstractSegments.java, SI/KeyValueSegments.java,
// SI/TimestampedSegments.java): a segmented store keeps one RocksDB database per time segment,
// in <task dir>/<store name>/<store name>.<segment id * segment interval>. A segment is a RocksDB
// store opened without registering (no restore callback, no position of its own: the segmented
// store above owns the position). The timestamped segment keeps its data in the column family
// "keyValueWithTimestamp", as RocksDBTimestampedStore does (no upgrade mode, as there).
//
// Segment ids are timestamp / segmentInterval (Java's truncating division, as C++'s). A segment
// is live while its id is at least segmentId(streamTime - retention); getOrCreateSegmentIfLive
// then drops every older segment (closed and its directory deleted), as KeyValueSegments does.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iq/key_value_iterator.h"
#include "state/state_store.h"
#include "state/state_store_context.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
}  // namespace rocksdb

namespace iq {

class KeyValueSegment {
 public:
  // `column_family` is RocksDB's default one for KeyValueSegment, "keyValueWithTimestamp" for
  // TimestampedSegment.
  KeyValueSegment(std::string segment_name, int64_t id, std::string column_family);
  ~KeyValueSegment();
  KeyValueSegment(const KeyValueSegment&) = delete;
  KeyValueSegment& operator=(const KeyValueSegment&) = delete;

  // RocksDBStore.openDB into <parent_dir>/<segment name>, skipping the registering step.
  [[nodiscard]] Status open_db(StateStoreContext& context, const std::string& parent_dir);
  bool is_open() const { return db_ != nullptr; }
  const std::string& name() const { return name_; }
  int64_t id() const { return id_; }

  [[nodiscard]] Status put(const Bytes& key, const ValueBytes& value);
  [[nodiscard]] StoreResult<ValueBytes> get(const Bytes& key);
  // The entries with keys in [from, to] (nullopt = open), ascending or descending, that `keep`
  // accepts (Kafka's HasNextCondition skips the others and goes on).
  using KeyFilter = std::function<bool(const Bytes& key)>;
  [[nodiscard]] Status scan(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                            bool forward, const KeyFilter& keep,
                            std::vector<KeyValue<Bytes, Bytes>>& out);
  // StateStore::kept_entries: whether the segment holds any entry; `out` gets them all.
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out);
  // One write of a restore batch (null values delete).
  [[nodiscard]] Status write_batch(const std::vector<std::pair<Bytes, ValueBytes>>& entries);
  [[nodiscard]] Status flush();
  void close();
  // Segment.destroy: delete the segment's directory (after close).
  [[nodiscard]] Status destroy(FileSystem& fs);

 private:
  // After a write: a full memtable is flushed (flush_if_memtable_full).
  [[nodiscard]] Status maybe_flush_memtable(size_t bytes_written);

  std::string name_;
  size_t write_buffer_size_ = StateStoreContext::kRocksDbWriteBufferSizeDefault;
  size_t memtable_bytes_ = 0;  // written since the last flush (memtable_entry_bytes)
  int64_t id_;
  std::string column_family_;
  std::string dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> cf_handles_;
  rocksdb::ColumnFamilyHandle* cf_ = nullptr;
};

// AbstractSegments + KeyValueSegments / TimestampedSegments (the column family tells them apart).
class KeyValueSegments {
 public:
  KeyValueSegments(std::string name, int64_t retention_period_ms, int64_t segment_interval_ms,
                   std::string column_family);

  int64_t segment_id(int64_t timestamp_ms) const { return timestamp_ms / segment_interval_ms_; }
  // "<name>.<segment id * segment interval>".
  std::string segment_name(int64_t segment_id) const;
  KeyValueSegment* segment_for_timestamp(int64_t timestamp_ms);
  // nullptr when the segment is already expired at `stream_time_ms`; then expired segments are
  // cleaned up whatever the answer.
  [[nodiscard]] StoreResult<KeyValueSegment*> get_or_create_segment_if_live(
      int64_t segment_id, StateStoreContext& context, int64_t stream_time_ms);
  [[nodiscard]] StoreResult<KeyValueSegment*> get_or_create_segment(int64_t segment_id,
                                                                    StateStoreContext& context);
  // Opens the segment directories found under <task dir>/<name>, in id order, then drops those
  // expired at `stream_time_ms`.
  [[nodiscard]] Status open_existing(StateStoreContext& context, int64_t stream_time_ms);
  // The open segments whose ids lie in [segmentId(from), segmentId(to)], in id order or reversed.
  std::vector<KeyValueSegment*> segments(int64_t time_from_ms, int64_t time_to_ms, bool forward);
  [[nodiscard]] Status flush();
  void close();
  void cleanup_expired_segments(int64_t stream_time_ms);
  // StateStore::kept_entries over every open segment, in id order.
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out);
  // The ids of the segments held, ascending (for tests of roll and expiry).
  std::vector<int64_t> segment_ids() const;

 private:
  std::string name_;
  int64_t retention_period_ms_;
  int64_t segment_interval_ms_;
  std::string column_family_;
  StateStoreContext* context_ = nullptr;  // set by the first segment opened (destroy needs its FS)
  std::map<int64_t, std::unique_ptr<KeyValueSegment>> segments_;
};

}  // namespace iq
