#pragma once
// SingleStoreTask: what StoreHarness and WindowStoreHarness share: active task 0_<p> of one
// application with one store, over a real state directory (removed when the task object goes):
// the thread cache, ProcessorStateManager and ProcessorContextImpl, the changelog kept in memory
// (InMemoryChangelog), and the lifecycle a task gives its store. Each harness builds its own stack
// and keeps typed pointers into it; this class owns the stack once built.

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/record_collector.h"
#include "processor/processor_context_impl.h"
#include "state/state_store.h"

namespace iq::properties {

inline constexpr const char* kSourceTopic = "input-topic";

// The changelog as the broker would keep it: appended records, offsets from 0.
class InMemoryChangelog final : public RecordCollector {
 public:
  base::Expected<int64_t, StreamsError> send(const std::string& topic, int32_t partition,
                                             const Bytes& key, const std::optional<Bytes>& value,
                                             int64_t timestamp, const Headers& headers) override;
  // Records of (topic, partition) with offset > after, in offset order.
  std::vector<ConsumerRecord> records_after(const std::string& topic, int32_t partition,
                                            int64_t after) const;
  const std::map<std::pair<std::string, int32_t>, std::vector<ConsumerRecord>>& logs() const {
    return logs_;
  }

 private:
  std::map<std::pair<std::string, int32_t>, std::vector<ConsumerRecord>> logs_;
};

class SingleStoreTask {
 public:
  struct Config {
    std::string application_id;
    std::string store_name;
    int32_t partition = 0;
    int64_t cache_max_bytes = 0;  // 0: no record cache
    bool logging = true;
    bool consistency = false;
  };
  using StoreBuilder = std::function<std::unique_ptr<StateStore>()>;

  // `fs` must outlive the task. The state directory starts empty.
  SingleStoreTask(Config config, std::filesystem::path state_root, FileSystem& fs);
  ~SingleStoreTask();
  SingleStoreTask(const SingleStoreTask&) = delete;
  SingleStoreTask& operator=(const SingleStoreTask&) = delete;

  // Open the task (cache, state manager, context), build the store, init it, read .checkpoint
  // and, when logged, restore the changelog after the checkpointed offset.
  void open(const StoreBuilder& build);
  // Destroy every object without close(): RocksDB loses its memtable (WAL off), caches and maps
  // vanish, as in a crash.
  void drop_objects();
  // A clean close of the state manager (its stores), before drop_objects() and open().
  void close() { state_manager_->close(StoreCloseKind::kClean); }

  void set_record_context(int64_t offset, int64_t timestamp);
  // store.flush(): the cache down to the store, the store to disk.
  void flush();
  // The first half of a commit: flush every store.
  void flush_stores();
  // The second half: .position then .checkpoint; the result says whether the writes went through.
  [[nodiscard]] Status checkpoint();
  // flush_stores() then checkpoint(), which must succeed.
  void commit();

  StateStore& store() { return *root_; }
  QueryOutcome query(const Query& q, const PositionBound& bound, bool execution_info);
  const InMemoryChangelog& changelog() const { return changelog_; }
  std::string task_dir() const;

 private:
  TaskId task_id() const { return TaskId{0, config_.partition}; }

  Config config_;
  std::filesystem::path state_root_;
  FileSystem& fs_;
  InMemoryChangelog changelog_;
  std::unique_ptr<ThreadCache> cache_;
  std::unique_ptr<ProcessorStateManager> state_manager_;
  std::unique_ptr<ProcessorContextImpl> context_;
  std::unique_ptr<StateStore> root_;
};

// IQ_ASSERTs that a harness step succeeded, naming it.
void check(const Status& s, const char* what);

}  // namespace iq::properties
