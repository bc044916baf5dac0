#pragma once
// ProcessorContextImpl (PI/ProcessorContextImpl.java), the parts stores use: the task's record
// context, registration with the state manager, the thread cache, and logChange, which sends a
// changelog record with the "v"/"c" position headers when the consistency switch is on.

#include "io/record_collector.h"
#include "processor/processor_state_manager.h"
#include "state/state_store_context.h"
#include "state/thread_cache.h"

namespace iq {

enum class TaskType { kActive, kStandby };

class ProcessorContextImpl final : public StateStoreContext {
 public:
  struct Config {
    std::string application_id;
    TaskId task;
    TaskType type = TaskType::kActive;
    bool consistency_enabled = false;  // __iq.consistency.offset.vector.enabled__
    size_t rocksdb_write_buffer_size = kRocksDbWriteBufferSizeDefault;
    KafkaPin kafka_pin = KafkaPin::k2024_10_25;
    bool eos_enabled = false;  // processing.guarantee=exactly_once_v2
    KafkaQuirks quirks;
    // enable.transactional.statestores, true only at the new pin (KafkaStreams decides).
    bool transactional_state_stores = false;
  };

  ProcessorContextImpl(Config config, ProcessorStateManager& state_manager, FileSystem& fs,
                       rocksdb::Env* env, ThreadCache* cache, RecordCollector* collector)
      : config_(std::move(config)),
        state_manager_(state_manager),
        fs_(fs),
        env_(env),
        cache_(cache),
        collector_(collector) {}

  const std::string& application_id() const override { return config_.application_id; }
  TaskId task_id() const override { return config_.task; }
  const RecordContext* record_context() const override {
    return record_context_ ? &*record_context_ : nullptr;
  }
  void set_record_context(std::optional<RecordContext> context) override {
    record_context_ = std::move(context);
  }
  bool consistency_enabled() const override { return config_.consistency_enabled; }
  KafkaPin kafka_pin() const override { return config_.kafka_pin; }
  bool eos_enabled() const override { return config_.eos_enabled; }
  bool transactional_state_stores() const override { return config_.transactional_state_stores; }
  const KafkaQuirks& quirks() const override { return config_.quirks; }
  Status log_change(const std::string& store_name, const Bytes& key, const ValueBytes& value,
                    int64_t timestamp, const Position& position) override;
  void register_store(StateStore& store, RestoreCallback restore, CommitCallback commit) override {
    state_manager_.register_store(store, std::move(restore), std::move(commit));
  }
  ThreadCache* cache() override { return cache_; }
  TaskType task_type() const { return config_.type; }
  // transitionToActive / transitionToStandby on recycle: the same context (and so the same store
  // objects) now serve the other kind of task, with that kind's cache and collector.
  void transition(TaskType type, ThreadCache* cache, RecordCollector* collector) {
    config_.type = type;
    cache_ = cache;
    collector_ = collector;
  }
  const std::string& state_dir() const override { return state_manager_.task_dir(); }
  FileSystem& file_system() override { return fs_; }
  rocksdb::Env* rocksdb_env() override { return env_; }
  size_t rocksdb_write_buffer_size() const override { return config_.rocksdb_write_buffer_size; }

 private:
  Config config_;
  ProcessorStateManager& state_manager_;
  FileSystem& fs_;
  rocksdb::Env* env_;
  ThreadCache* cache_;
  RecordCollector* collector_;
  std::optional<RecordContext> record_context_;
};

}  // namespace iq
