#pragma once
// SegmentedTestContext: a StateStoreContext for unit tests of the window and session stacks
// (in-memory and RocksDB): a task directory on the real file system (removed when the context
// goes), a thread cache, a captured changelog, and the restore and commit callbacks register_store
// received. Test-only; nothing in iqsim_impl includes it.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "state/state_store_context.h"
#include "state/thread_cache.h"

namespace iq {

class SegmentedTestContext final : public StateStoreContext {
 public:
  struct Logged {
    Bytes key;
    ValueBytes value;
    int64_t timestamp;
    Position position;
  };

  // `tag` makes the directory unique within one test (several contexts per test).
  explicit SegmentedTestContext(int32_t partition, const std::string& tag = "",
                                bool consistency = false)
      : partition_(partition), consistency_(consistency), cache_(1 << 20) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string tmp = ::testing::TempDir();
    if (tmp.empty() || tmp.back() != '/') tmp += '/';
    root_ = tmp + "iqsim_segmented_" + info->test_suite_name() + "_" + info->name() + tag + "_p" +
            std::to_string(partition);
    IQ_ASSERT(fs_.delete_recursively(root_).has_value());
    dir_ = root_ + "/app/0_" + std::to_string(partition);
    IQ_ASSERT(fs_.create_directories(dir_).has_value());
  }
  ~SegmentedTestContext() override { (void)fs_.delete_recursively(root_); }

  const std::string& application_id() const override { return app_; }
  TaskId task_id() const override { return TaskId{0, partition_}; }
  const RecordContext* record_context() const override { return rc_ ? &*rc_ : nullptr; }
  void set_record_context(std::optional<RecordContext> c) override { rc_ = std::move(c); }
  bool consistency_enabled() const override { return consistency_; }
  KafkaPin kafka_pin() const override { return pin_; }
  void set_kafka_pin(KafkaPin pin) { pin_ = pin; }
  Status log_change(const std::string&, const Bytes& key, const ValueBytes& value,
                    int64_t timestamp, const Position& position) override {
    logged.push_back({key, value, timestamp, position});
    return ok_status();
  }
  void register_store(StateStore&, RestoreCallback restore, CommitCallback commit) override {
    restore_ = std::move(restore);
    commit_ = std::move(commit);
  }
  ThreadCache* cache() override { return &cache_; }
  const std::string& state_dir() const override { return dir_; }
  FileSystem& file_system() override { return fs_; }
  rocksdb::Env* rocksdb_env() override { return nullptr; }

  void at(const std::string& topic, int64_t offset, int64_t timestamp) {
    rc_ = RecordContext{topic, partition_, offset, timestamp, {}};
  }
  Status restore(const std::vector<ConsumerRecord>& records) { return restore_(records); }
  // The store's commit callback (a RocksDB store writes <name>.position); none for in-memory.
  Status commit() { return commit_ ? commit_() : ok_status(); }
  PosixFileSystem& fs() { return fs_; }

  std::vector<Logged> logged;

 private:
  std::string app_ = "app";
  int32_t partition_;
  bool consistency_;
  KafkaPin pin_ = KafkaPin::k2024_10_25;
  PosixFileSystem fs_;
  std::string root_;
  std::string dir_;
  ThreadCache cache_;
  std::optional<RecordContext> rc_;
  RestoreCallback restore_;
  CommitCallback commit_;
};

}  // namespace iq
