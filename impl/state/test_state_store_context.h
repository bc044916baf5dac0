#pragma once
// TestStateStoreContext: a StateStoreContext with just what a bytes store touches (task 0_0, a
// settable record context, the consistency switch, the file system and RocksDB Env it is given,
// and the callbacks register_store received), for unit tests of position owners on real files or
// on the simulated disk. Test-only; nothing in iqsim_impl includes it.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "state/state_store_context.h"

namespace iq {

class TestStateStoreContext final : public StateStoreContext {
 public:
  TestStateStoreContext(FileSystem& fs, std::string state_dir, rocksdb::Env* env = nullptr)
      : fs_(fs), env_(env), state_dir_(std::move(state_dir)) {}

  const std::string& application_id() const override { return application_id_; }
  TaskId task_id() const override { return TaskId{0, 0}; }
  const RecordContext* record_context() const override {
    return record_context_ ? &*record_context_ : nullptr;
  }
  void set_record_context(std::optional<RecordContext> context) override {
    record_context_ = std::move(context);
  }
  bool consistency_enabled() const override { return consistency_enabled_; }
  KafkaPin kafka_pin() const override { return pin_; }
  bool eos_enabled() const override { return eos_enabled_; }
  bool transactional_state_stores() const override { return transactional_; }
  size_t rocksdb_write_buffer_size() const override { return write_buffer_size_; }
  Status log_change(const std::string& /*store_name*/, const Bytes& /*key*/,
                    const ValueBytes& /*value*/, int64_t /*timestamp*/,
                    const Position& /*position*/) override {
    // A bytes store never logs; a call here would be a layering bug the test should see.
    return base::unexpected(StreamsError{StreamsError::Kind::UnsupportedOperation,
                                         "TestStateStoreContext does not log changes"});
  }
  void register_store(StateStore& store, RestoreCallback restore, CommitCallback commit) override {
    registered_ = &store;
    restore_ = std::move(restore);
    commit_ = std::move(commit);
  }
  ThreadCache* cache() override { return nullptr; }
  const std::string& state_dir() const override { return state_dir_; }
  FileSystem& file_system() override { return fs_; }
  rocksdb::Env* rocksdb_env() override { return env_; }

  void set_consistency_enabled(bool enabled) { consistency_enabled_ = enabled; }
  void set_kafka_pin(KafkaPin pin) { pin_ = pin; }
  void set_eos_enabled(bool enabled) { eos_enabled_ = enabled; }
  // enable.transactional.statestores (also sets the new pin, the only one that has it).
  void set_transactional(bool enabled) {
    transactional_ = enabled;
    if (enabled) pin_ = KafkaPin::k2026_08_20;
  }
  void set_rocksdb_write_buffer_size(size_t bytes) { write_buffer_size_ = bytes; }
  // The record being processed: source topic, partition and offset.
  void at(std::optional<std::string> topic, int32_t partition, int64_t offset) {
    set_record_context(RecordContext{std::move(topic), partition, offset, 0, {}});
  }
  // What a commit does for the store: its commit callback (RocksDB writes <store>.position).
  Status commit() { return commit_(); }
  Status restore(const std::vector<ConsumerRecord>& records) { return restore_(records); }
  StateStore* registered() const { return registered_; }

 private:
  std::string application_id_ = "app";
  FileSystem& fs_;
  rocksdb::Env* env_;
  std::string state_dir_;
  std::optional<RecordContext> record_context_;
  bool consistency_enabled_ = false;
  KafkaPin pin_ = KafkaPin::k2024_10_25;
  bool eos_enabled_ = false;
  bool transactional_ = false;
  size_t write_buffer_size_ = kRocksDbWriteBufferSizeDefault;
  StateStore* registered_ = nullptr;
  RestoreCallback restore_;
  CommitCallback commit_;
};

// What a killed process leaves of the stores under `dir`: their files as they were when it died.
// RocksDB runs with its WAL off and, as in Kafka, avoid_flush_during_shutdown false, so destroying
// an open store flushes its memtables, which a killed process never does (the simulator freezes
// its disk instead, sim/cluster/instance.cc). So the directory is copied first, the object
// destroyed (its close writes what it writes), and the copy put back in its place.
template <typename T>
void kill_leaving_disk(std::unique_ptr<T>& object, const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  const fs::path copy = dir.string() + ".killed";
  fs::remove_all(copy);
  if (fs::exists(dir)) fs::copy(dir, copy, fs::copy_options::recursive);
  object.reset();
  fs::remove_all(dir);
  if (fs::exists(copy)) fs::rename(copy, dir);
}

}  // namespace iq
