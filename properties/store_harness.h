#pragma once
// StoreHarness: one key-value store configuration running as the single store of task 0_<p>,
// with the real layers, a real ProcessorContextImpl and ProcessorStateManager, a changelog kept
// in memory, and the lifecycle a task gives a store: process records, commit (flush +
// checkpoint), clean close and reopen, crash (drop every object without flushing) and restore
// from the changelog, then reprocessing from the last committed source offset (at-least-once).

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "single_store_task.h"
#include "state/stores.h"

namespace iq::properties {

enum class StoreApi {
  kDsl,   // Stores.timestampedKeyValueStoreBuilder (what a KTable gets)
  kPapi,  // Stores.keyValueStoreBuilder (plain values)
};

struct StoreConfiguration {
  KeyValueSupplier supplier = KeyValueSupplier::kInMemory;
  StoreApi api = StoreApi::kDsl;
  bool caching = false;
  int64_t cache_max_bytes = 10 << 20;
  bool logging = true;
  bool consistency = false;
  int32_t partition = 0;
  std::string describe() const;
};

// The real file system, with a way to die part-way through a checkpoint: after
// die_after_writes(n), the first n atomic file writes happen and every later one is dropped (a
// process killed after n of them writes nothing more), until revive().
class DyingFileSystem final : public FileSystem {
 public:
  base::Expected<std::optional<std::string>, StreamsError> read_file(
      const std::string& path) override {
    return real_.read_file(path);
  }
  Status write_file_atomically(const std::string& path, const std::string& content) override {
    if (writes_left_ && *writes_left_ == 0) {
      ++writes_dropped_;
      return ok_status();  // a dead process learns nothing
    }
    if (writes_left_) --*writes_left_;
    return real_.write_file_atomically(path, content);
  }
  Status delete_file(const std::string& path) override { return real_.delete_file(path); }
  Status create_directories(const std::string& path) override {
    return real_.create_directories(path);
  }
  Status delete_recursively(const std::string& path) override {
    return real_.delete_recursively(path);
  }
  bool exists(const std::string& path) override { return real_.exists(path); }
  std::vector<std::string> list_directory(const std::string& path) override {
    return real_.list_directory(path);
  }
  std::optional<int64_t> last_modified_ms(const std::string& path) override {
    return real_.last_modified_ms(path);
  }
  Status set_last_modified_ms(const std::string& path, int64_t mtime_ms) override {
    return real_.set_last_modified_ms(path, mtime_ms);
  }
  void die_after_writes(int writes) { writes_left_ = writes; }
  void revive() { writes_left_.reset(); }
  uint64_t writes_dropped() const { return writes_dropped_; }

 private:
  PosixFileSystem real_;
  std::optional<int> writes_left_;
  uint64_t writes_dropped_ = 0;
};

// A source record as the harness feeds it: key, value (nullopt with kind tombstone), write kind.
enum class WriteKind { kPut, kTombstone, kDelete };
struct SourceWrite {
  int64_t offset;
  int32_t key;
  std::optional<int64_t> value;
  int64_t timestamp;
  WriteKind kind;
};

class StoreHarness {
 public:
  StoreHarness(StoreConfiguration config, std::filesystem::path state_root);

  const StoreConfiguration& config() const { return config_; }
  StateStore& store() { return task_.store(); }

  // Process one source record: set the record context and write through the typed layer.
  void process(const SourceWrite& w);
  // Several writes under ONE record context (putAll).
  void process_put_all(int64_t offset, int64_t timestamp,
                       const std::vector<std::pair<int32_t, int64_t>>& entries);
  // store.flush(): the cache down to the store, the store to disk.
  void flush();
  // A commit: flush every store, checkpoint (.position then .checkpoint), remember the source
  // offset.
  void commit();
  // Clean close (commit first, as a task closing cleanly does), then reopen and restore.
  void close_and_reopen();
  // Kill: drop every object without flushing, reopen, restore the changelog from the checkpoint,
  // then reprocess the source records after the last commit.
  void crash_and_recover();
  // A commit killed inside its checkpoint: the stores flush, the source offset is committed (Kafka
  // commits offsets before postCommit writes the checkpoint), then the process dies after
  // `writes_before_death` of the checkpoint's file writes (<store>.position first, if the store
  // keeps one, then .checkpoint); then crash_and_recover().
  void commit_then_crash(int writes_before_death);

  QueryOutcome query(const Query& q, const PositionBound& bound, bool execution_info = false);
  const std::vector<SourceWrite>& history() const { return history_; }
  std::optional<int64_t> committed_offset() const { return committed_offset_; }
  const InMemoryChangelog& changelog() const { return task_.changelog(); }
  std::string task_dir() const { return task_.task_dir(); }

 private:
  void open();
  void drop_objects();
  void apply(const SourceWrite& w);

  StoreConfiguration config_;
  DyingFileSystem fs_;    // before task_, which uses it to the end
  SingleStoreTask task_;  // owns the stack dsl_ or papi_ points into
  MeteredTimestampedKeyValueStore<int32_t, int64_t>* dsl_ = nullptr;
  MeteredKeyValueStore<int32_t, int64_t>* papi_ = nullptr;
  std::vector<SourceWrite> history_;
  std::optional<int64_t> committed_offset_;
};

}  // namespace iq::properties
