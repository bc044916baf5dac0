#pragma once
// Task (PI/Task.java, PI/AbstractTask.java): what StreamTask and StandbyTask share: the id, the
// state machine, the state manager and context, the store stack built from the topology, and the
// checkpoint rule.

#include <memory>

#include "io/processed_record_listener.h"
#include "io/record_collector.h"
#include "processor/processor_context_impl.h"
#include "processor/processor_state_manager.h"
#include "topology/topologies.h"

namespace iq {

class StateDirectory;

// CREATED -> RESTORING | SUSPENDED; RESTORING -> RUNNING | SUSPENDED; RUNNING -> SUSPENDED;
// SUSPENDED -> RESTORING | CLOSED; CLOSED -> CREATED (revive).
enum class TaskState { CREATED, RESTORING, RUNNING, SUSPENDED, CLOSED };
const char* to_string(TaskState s);
bool is_valid_transition(TaskState from, TaskState to);

// Everything a task needs from its thread and instance.
struct TaskEnvironment {
  std::string application_id;
  std::string task_dir;  // <state.dir>/<application.id>/<task id>
  bool consistency_enabled = false;
  KafkaPin kafka_pin = KafkaPin::k2024_10_25;  // the Kafka impl/ follows (iq/kafka_pin.h)
  KafkaQuirks quirks;                          // each on, as Kafka has it (iq/kafka_quirks.h)
  bool eos_enabled = false;                    // processing.guarantee=exactly_once_v2
  // enable.transactional.statestores (KIP-892): true only at the new pin.
  bool transactional_state_stores = false;
  // StateManagerUtil.OFFSET_DELTA_THRESHOLD_FOR_CHECKPOINT (StreamsConfig says why it is settable)
  int64_t offset_delta_threshold_for_checkpoint = 10'000;
  FileSystem* fs = nullptr;
  rocksdb::Env* rocksdb_env = nullptr;
  // The RocksDB stores' write_buffer_size (StreamsConfig::rocksdb_write_buffer_size).
  size_t rocksdb_write_buffer_size = StateStoreContext::kRocksDbWriteBufferSizeDefault;
  ThreadCache* cache = nullptr;          // the thread's cache (actives)
  ThreadCache* standby_cache = nullptr;  // a zero-byte cache (standbys)
  RecordCollector* collector = nullptr;
  ProcessedRecordListener* processed = nullptr;  // optional observer (sim/), see its header
  StoreLifeObserver* store_lives = nullptr;      // optional observer (sim/), see its header
  // The instance's state directory, whose offset-sum cache the task keeps up to date at the new
  // pin (pin delta 14); optional (unit tests of a lone task).
  StateDirectory* state_directory = nullptr;
};

class Task {
 public:
  // TaskManager / SubscriptionInfo: the offset sum a RUNNING active reports.
  static constexpr int64_t kLatestOffset = -2;

  Task(TaskId id, TaskType type, const TopologyConfig& topology, const TaskEnvironment& env);
  virtual ~Task() = default;
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  TaskId id() const { return id_; }
  bool is_active() const { return context_->task_type() == TaskType::kActive; }
  TaskState state() const { return state_; }
  // Whether initialize() registered the stores (AbstractTask's stores are open). A task left in
  // CREATED because another thread of this client still held its directory lock is not; neither
  // is one suspended or closed before it ever got the lock.
  bool initialized() const { return initialized_; }
  const TopologyConfig& topology_config() const { return topology_->config(); }
  // AbstractTask.store(name): null until the store is registered.
  StateStore* store(const std::string& name) const { return state_manager_->store(name); }
  ProcessorStateManager& state_manager() { return *state_manager_; }
  // The changelog partitions of this task's logged stores.
  std::vector<TopicPartition> changelog_partitions() const;
  // The record cache an active's caching stores write into (the thread's), nullptr for a standby.
  // For observers (sim/ records its dirty entries as writes not yet in the changelog).
  const ThreadCache* active_cache() const { return is_active() ? env_.cache : nullptr; }
  // Changelog offsets of the stores (the last applied or written record), for lags and offset sums.
  ChangelogOffsets changelog_offsets() const;

  // Register the stores and load .checkpoint: CREATED -> RESTORING.
  [[nodiscard]] virtual Status initialize();
  // AbstractTask.maybeCheckpoint: flush and checkpoint when enforced or when the changelog
  // offsets moved more than 10,000 since the last checkpoint. At the new pin (pin delta 3), when
  // the stores keep their offsets: every store's commit, at every call, with no flush.
  [[nodiscard]] Status maybe_checkpoint(bool enforce);
  // Pin deltas 1 and 3 (KIP-1035): whether this task's offsets live in its stores (the new pin,
  // every persistent store managing its offsets) instead of .checkpoint and .position.
  bool offsets_in_stores() const;
  // enable.transactional.statestores as this task's stores were opened with (pin delta 5).
  bool transactional_state_stores() const { return env_.transactional_state_stores; }
  // Close without flushing or checkpointing (the stores' DB close still flushes their memtables,
  // as RocksDB's does in Kafka; a crash is dropping the object on a frozen disk). Under
  // exactly_once_v2 the caller then wipes the task directory (StateManagerUtil.closeStateManager:
  // an unclean close leaves state that may hold uncommitted writes).
  void close_dirty();
  // Tells the store-life observer that the caller wiped this task's directory.
  void report_wiped() const;
  bool eos_enabled() const { return env_.eos_enabled; }
  [[nodiscard]] Status close_clean();

  // AbstractTask.maybeInitTaskTimeoutOrThrow (KIP-572): the first TimeoutException starts a
  // deadline task.timeout.ms away; one after the deadline fails the task with a
  // StreamsException. clearTaskTimeout: progress (a record processed, a commit) ends it.
  [[nodiscard]] Status maybe_init_task_timeout_or_throw(int64_t now_ms, int64_t task_timeout_ms,
                                                        const StreamsError& cause);
  void clear_task_timeout() { task_timeout_deadline_ms_.reset(); }

 protected:
  // Recycling (TaskManager.convertActiveToStandby / convertStandbyToActive): take over the other
  // task's stores, state manager and context, which now serve `type`. The caches are cleared
  // (KAFKA-14172: restore writes bypass the cache, so stale entries would shadow them).
  Task(Task&& recycled, TaskType type);
  void transition_to(TaskState next);

  TaskId id_;
  TaskEnvironment env_;
  TaskState state_ = TaskState::CREATED;
  std::unique_ptr<TaskTopology> topology_;
  std::unique_ptr<ProcessorStateManager> state_manager_;
  std::unique_ptr<ProcessorContextImpl> context_;
  std::optional<ChangelogOffsets> offsets_at_last_checkpoint_;
  bool initialized_ = false;
  std::optional<int64_t> task_timeout_deadline_ms_;  // AbstractTask.deadlineMs; absent: none
};

}  // namespace iq
