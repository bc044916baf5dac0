#pragma once
// TaskManager (PI/TaskManager.java): a stream thread's tasks. On each assignment it closes the
// tasks it lost, recycles an active into a standby or the reverse when the task stays on this
// client (stores kept open: no restore), resumes what it keeps and creates what is new. It moves
// restored actives to RUNNING, routes input to tasks, processes, commits, and reports the offset
// sums of every task whose state is on this client's disk.
// A task opens its stores only under its StateDirectory lock, owned by this thread's name. When a
// task moves between two threads of one client, the receiving thread may handle its assignment
// before the other has closed its copy: the new task then stays CREATED (Kafka's LockException in
// initializeIfNeeded) and try_complete_restoration tries again once its backoff has passed
// (addTaskToStateUpdater's BackoffRecord: about 2 s, 4 s, 8 s, then 10 s, jittered). A thread also
// holds, from its rebalance start until its assignment is handled, the lock of every non-empty
// directory no other thread held (handle_rebalance_start): a task of such a directory that another
// thread is assigned waits too.

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "base/prng.h"
#include "io/consumer.h"
#include "io/group_membership.h"
#include "processor/backoff_record.h"
#include "processor/standby_task.h"
#include "processor/state_directory.h"
#include "processor/store_changelog_reader.h"
#include "processor/stream_task.h"
#include "processor/streams_producer.h"

namespace iq {

class TaskManager {
 public:
  // Builds the environment of a task (its directory, caches, collector) for this thread.
  using EnvironmentFactory = std::function<TaskEnvironment(const TaskId&)>;

  TaskManager(TopologyConfig topology, StateDirectory& state_directory,
              StoreChangelogReader& reader, Consumer& main_consumer, GroupMembership& membership,
              EnvironmentFactory environment, std::string thread_name,
              StreamsProducer* producer = nullptr, std::string application_id = {})
      : topology_(std::move(topology)),
        state_directory_(state_directory),
        reader_(reader),
        main_consumer_(main_consumer),
        membership_(membership),
        environment_(std::move(environment)),
        thread_name_(std::move(thread_name)),
        producer_(producer),
        application_id_(std::move(application_id)) {
    IQ_ASSERT(producer_ == nullptr || !application_id_.empty(), "EOS needs the group id");
  }
  ~TaskManager();

  // onPartitionsRevoked: commit and suspend the actives whose input partitions were revoked.
  [[nodiscard]] Status handle_revocation(const std::set<TaskId>& revoked, int64_t now_ms);
  // handleAssignment: close, recycle, keep and create tasks to match the new assignment.
  [[nodiscard]] Status handle_assignment(const std::set<TaskId>& actives,
                                         const std::set<TaskId>& standbys, int64_t now_ms);
  // handleLostAll: close every RUNNING active dirty (uncommitted work is dropped, nothing is
  // flushed; actives still restoring are checkpointed and closed clean, as the state updater
  // hands them back); standbys stay. Under exactly_once_v2 the open transaction is aborted, every
  // dirty-closed task's directory wiped, and the thread's producer made anew
  // (reInitializeProducer).
  void handle_lost_all(int64_t now_ms);
  // handleCorruption (exactly_once_v2): the actives whose state cannot be trusted (the open
  // transaction's, after a send or commit timed out) are closed dirty (the transaction aborted,
  // their directories wiped) and revived: created again, they restore from the committed
  // changelog and resume from the committed input offset. Returns whether an active was among
  // them (the thread then enforces a rebalance, as StreamThread.runLoop does under EOS).
  [[nodiscard]] base::Expected<bool, StreamsError> handle_corruption(int64_t now_ms);
  // Set when an active task's initialization found it corrupted (exactly_once_v2) and revived
  // it; the thread enforces a rebalance and clears it.
  bool take_enforce_rebalance() { return std::exchange(enforce_rebalance_, false); }
  bool eos_enabled() const { return producer_ != nullptr; }
  // task.timeout.ms (StreamsThreadConfig::task_timeout_ms), set by the thread that owns this.
  void set_task_timeout_ms(int64_t ms) { task_timeout_ms_ = ms; }
  // The Kafka impl/ follows (StreamsThreadConfig::kafka_pin), set by the thread that owns this.
  void set_kafka_pin(KafkaPin pin) { kafka_pin_ = pin; }
  // The thread's random source (Java's ThreadLocalRandom: the lock backoff's jitter), seeded by
  // the caller (ThreadIo::random_seed).
  void set_random(base::Prng random) { random_ = random; }
  StreamsProducer* producer() const { return producer_; }
  // First initializes the CREATED tasks whose lock is now free; then actives whose changelogs are
  // restored (or that have none) become RUNNING and start reading input from the committed
  // offset. Returns the tasks that became RUNNING.
  [[nodiscard]] base::Expected<std::vector<TaskId>, StreamsError> try_complete_restoration(
      int64_t now_ms);
  // DefaultStateUpdater.maybeCheckpointTasks: once per commit.interval.ms of the state updater's
  // own clock, every task it updates (restoring actives and standbys) checkpoints under the
  // threshold rule (maybeCheckpoint(false)), under every processing guarantee.
  [[nodiscard]] Status checkpoint_updating_tasks();
  bool all_actives_running() const;
  // tryToCompleteRestoration's allRunning: every active RUNNING and no standby still waiting for
  // its lock. The thread stays PARTITIONS_ASSIGNED until this holds.
  bool all_tasks_running() const;
  const std::string& thread_name() const { return thread_name_; }

  void add_records(const std::vector<ConsumerRecord>& records);
  // Round-robin over RUNNING actives, at most `max_records_per_task` each (TaskExecutor.process
  // with the thread's numIterations). Returns records processed.
  [[nodiscard]] base::Expected<size_t, StreamsError> process(size_t max_records_per_task);
  // Commit every active that processed since its last commit (standbys are the state updater's:
  // checkpoint_updating_tasks). Unconditional:
  // the loop's periodic commit asks rebalance_in_progress() first (shutdown commits regardless).
  [[nodiscard]] Status commit_all(int64_t now_ms);
  // TaskManager.totalUncommittedBytes (pin delta 21): the transaction buffers' bytes of the tasks
  // the thread runs itself (allRunningTasks: its initialized actives past restoration; restoring
  // actives and standbys live in Kafka's state updater and are not counted).
  int64_t total_uncommitted_bytes() const;

  // TaskManager.rebalanceInProgress: set when the thread builds its subscription for a JoinGroup
  // (StreamsPartitionAssignor.subscriptionUserData -> handleRebalanceStart), cleared when the
  // assignment has been handled (StreamsRebalanceListener.onPartitionsAssigned ->
  // handleRebalanceComplete). Meanwhile the periodic commit is skipped ("it is not safe to
  // commit") and a scheduled probing or follow-up rebalance waits; revocation still commits.
  // handleRebalanceStart first locks every non-empty task directory no other thread of this
  // client holds (tryToLockAllNonEmptyTaskDirectories), so this thread alone reports their offset
  // sums; handleRebalanceComplete releases those it was not assigned
  // (releaseLockedUnassignedTaskDirectories). Until then another thread of the client cannot
  // initialize those tasks (they wait in CREATED, Kafka's LockException) and the cleaner skips
  // them. Each JoinGroup of the rebalance starts it again: the set is rebuilt, the locks kept.
  void handle_rebalance_start();
  void handle_rebalance_complete();
  bool rebalance_in_progress() const { return rebalance_in_progress_; }
  // TaskManager.shutdown's last step: after every task closed, the directories this thread still
  // holds from a rebalance start are released.
  void release_locked_unassigned_task_directories();
  // TaskManager.lockedTaskDirectories (for tests, as in Kafka).
  const std::set<TaskId>& locked_task_directories() const { return locked_task_directories_; }
  // The offset sum of every task with state on this client: -2 for a RUNNING active, else the
  // sum of its changelog offsets; the directories locked at the rebalance start and the owned
  // tasks not yet opened report their .checkpoint at the old pin, the state directory's
  // offset-sum cache at the new one (pin delta 14).
  std::map<TaskId, int64_t> task_offset_sums();

  // Every task a query may reach (readOnlyAllTasks: running and restoring actives, standbys).
  std::vector<Task*> all_tasks() const;
  std::set<TaskId> active_task_ids() const;
  std::set<TaskId> standby_task_ids() const;
  StreamTask* active(const TaskId& id) const;
  StandbyTask* standby(const TaskId& id) const;
  std::vector<TopicPartition> owned_input_partitions() const;

 private:
  [[nodiscard]] Status create_active(const TaskId& id, int64_t now_ms);
  [[nodiscard]] Status create_standby(const TaskId& id, int64_t now_ms);
  // initializeIfNeeded: lock the task directory, open the stores, register the changelogs.
  // False (task left CREATED) while another thread of this client holds the lock.
  [[nodiscard]] base::Expected<bool, StreamsError> initialize_if_needed(Task& task, int64_t now_ms);
  // initialize_if_needed, reviving the task (revive_corrupted) when its directory turned out
  // corrupted; a task left CREATED is no error.
  [[nodiscard]] Status initialize_or_revive(Task& task, int64_t now_ms);
  [[nodiscard]] Status initialize_created_tasks(int64_t now_ms);
  // Releases what a closed task held: its lock, and its directory's ownership if it opened it.
  void release_task_directory(const Task& task, int64_t now_ms);
  [[nodiscard]] Status close_active(const TaskId& id, int64_t now_ms);
  [[nodiscard]] Status close_standby(const TaskId& id, int64_t now_ms);
  [[nodiscard]] Status commit_actives(const std::vector<StreamTask*>& tasks, int64_t now_ms);
  // TaskExecutor.commitOffsetsOrTransaction: the consumer's offset commit under at-least-once
  // (none when there are no offsets), the transaction's under exactly_once_v2.
  [[nodiscard]] Status commit_offsets_or_transaction(const TopicPartitionOffsets& offsets);
  // commitOffsetsOrTransaction under exactly_once_v2: one transaction commit with every task's
  // offsets and the group metadata, also when no offsets but a transaction is in flight.
  [[nodiscard]] Status commit_transaction(const TopicPartitionOffsets& offsets);
  // Closes a task dirty; under exactly_once_v2 its directory is wiped while still locked.
  // `corrupted`: the task's changelogs were marked corrupted (closeDirtyAndRevive's
  // markAsCorrupted), which wipes it under EOS even with transactional stores.
  void close_dirty_and_release(Task& task, int64_t now_ms, bool corrupted);
  // TaskManager.closeTaskDirty: flush the caches (prepareCommit, errors swallowed), suspend,
  // close dirty, and abort the open transaction under exactly_once_v2.
  void close_task_dirty(StreamTask& task, int64_t now_ms);
  // Replaces a task found corrupted at initialization by a fresh one on an empty directory.
  [[nodiscard]] Status revive_corrupted(const TaskId& id, int64_t now_ms);
  void reassign_input_partitions();

  TopologyConfig topology_;
  StateDirectory& state_directory_;
  StoreChangelogReader& reader_;
  Consumer& main_consumer_;
  GroupMembership& membership_;
  EnvironmentFactory environment_;
  std::string thread_name_;     // the owner of this thread's task directory locks
  StreamsProducer* producer_;   // the thread's, under exactly_once_v2; else nullptr
  std::string application_id_;  // the group id sendOffsetsToTransaction names (EOS only)
  bool rebalance_in_progress_ = false;
  bool enforce_rebalance_ = false;
  std::map<TaskId, std::unique_ptr<StreamTask>> actives_;
  std::map<TaskId, std::unique_ptr<StandbyTask>> standbys_;
  // The task directories this thread locked at the last rebalance start (lockedTaskDirectories):
  // bounded by the task directories on disk. An id stays after its task closed (and unlocked) until
  // the next rebalance start rebuilds the set, as in Kafka; unlock ignores a lock not held.
  std::set<TaskId> locked_task_directories_;
  // task_offset_sums at each pin.
  std::map<TaskId, int64_t> task_offset_sums_from_checkpoints();
  std::map<TaskId, int64_t> task_offset_sums_from_cache();
  // tryToLockAllNonEmptyTaskDirectories.
  void try_to_lock_all_non_empty_task_directories();
  // The locked directories and every task this thread owns (getTaskOffsetSums' union).
  std::set<TaskId> locked_task_directories_and_owned_tasks() const;
  int64_t task_timeout_ms_ = 300'000;  // task.timeout.ms
  // taskIdToBackoffRecord: bounded by the tasks of the topology.
  std::map<TaskId, BackoffRecord> backoff_records_;
  void record_lock_failure(const TaskId& id, int64_t now_ms);
  base::Prng random_{0};  // set_random; a bare TaskManager (unit tests) draws from seed 0
  KafkaPin kafka_pin_ = KafkaPin::k2024_10_25;
};

}  // namespace iq
