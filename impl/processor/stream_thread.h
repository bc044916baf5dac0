#pragma once
// StreamThread (PI/StreamThread.java): one consumer-group member of a KafkaStreams client. Each
// run_once() is one pass of Kafka's loop, driven by the event loop rather than a real thread:
//   poll the group protocol (rebalance callbacks run inside), fetch input for RUNNING actives,
//   restore actives and update standbys (the state updater's work), move restored actives to
//   RUNNING, process, commit every commit.interval.ms, and trigger a scheduled follow-up or
//   probing rebalance when its time comes.
// The thread is RUNNING only when all its actives are; standbys do not count (1.4), except one
// still waiting for the directory lock another thread of the client holds (allRunning).

#include <memory>
#include <optional>

#include "io/consumer.h"
#include "io/group_membership.h"
#include "processor/streams_partition_assignor.h"
#include "processor/task_manager.h"
#include "processor/thread_state.h"

namespace iq {

struct StreamsThreadConfig {
  int64_t commit_interval_ms = 30'000;  // commit.interval.ms under at-least-once
  size_t max_poll_records = 1000;       // max.poll.records (a Streams override)
  int64_t task_timeout_ms = 300'000;    // task.timeout.ms (KIP-572): how long a task may fail
                                        // with TimeoutException before the thread fails
  KafkaPin kafka_pin = KafkaPin::k2024_10_25;  // the Kafka impl/ follows (iq/kafka_pin.h)
  // statestore.uncommitted.max.bytes over the threads (pin delta 21): a commit runs before the
  // interval once the tasks' transaction buffers hold more; -1 (the old pin's) never.
  int64_t max_uncommitted_bytes = -1;
};

// What the threads of one client share: its identity, its view of the target assignment (the
// metadata every member receives), and the state directory.
struct ClientContext {
  std::string application_id;
  std::string process_id;
  std::string endpoint;  // application.server
  TopologyConfig topology;
  AssignmentConfigs assignment_configs;
  StreamsThreadConfig thread_config;
  StateDirectory* state_directory = nullptr;
  Admin* admin = nullptr;
  // The host maps of the last assignment received (StreamsMetadataState.onChange).
  std::map<HostInfo, std::set<TopicPartitionName>> partitions_by_host;
  std::map<HostInfo, std::set<TopicPartitionName>> standby_partitions_by_host;
  bool metadata_initialized = false;
};

class StreamThread final : public RebalanceListener {
 public:
  // `producer`: the thread's transactional producer under exactly_once_v2, else nullptr.
  StreamThread(std::string name, ClientContext& client, Consumer& main_consumer,
               Consumer& restore_consumer, GroupMembership& membership,
               TaskManager::EnvironmentFactory environment, StreamsProducer* producer = nullptr);
  ~StreamThread() override;

  const std::string& name() const { return name_; }
  ThreadState state() const { return state_; }
  TaskManager& task_manager() { return *task_manager_; }
  const TaskManager& task_manager() const { return *task_manager_; }
  std::optional<int64_t> next_scheduled_rebalance_ms() const { return next_rebalance_ms_; }
  // StreamThread.currentNumIterations (visible for testing in Kafka too).
  size_t current_num_iterations() const { return num_iterations_; }

  // The warmups of the last assignment this thread computed as the group leader, and when.
  // Observer-only (Kafka keeps the set inside the assignor): reports draw warmups apart from
  // standbys with it.
  struct LeaderWarmups {
    int64_t at_ms = 0;
    Warmups warmups;  // by client ProcessId
  };
  const std::optional<LeaderWarmups>& last_leader_warmups() const { return last_leader_warmups_; }

  // StreamThread.maybeCommit's and DefaultStateUpdater.maybeCheckpointTasks' test: strictly more
  // than the interval since the last one.
  static bool interval_elapsed(int64_t now_ms, int64_t last_ms, int64_t interval_ms) {
    return now_ms - last_ms > interval_ms;
  }

  void start() { transition_to(ThreadState::STARTING); }
  // One loop pass at virtual time `now_ms`. An error is a thread failure (Kafka's uncaught
  // exception).
  [[nodiscard]] Status run_once(int64_t now_ms);
  // Clean shutdown: commit, close every task cleanly. (Streams sends no LeaveGroup.)
  [[nodiscard]] Status shutdown();

  // RebalanceListener
  Bytes subscription_user_data() override;
  std::vector<TopicPartition> owned_partitions() override;
  base::Expected<std::map<std::string, Bytes>, StreamsError> assign(
      const std::vector<JoinedMember>& members) override;
  Status on_assignment(int32_t generation, const Bytes& assignment) override;
  Status on_partitions_lost() override;

 private:
  void transition_to(ThreadState next);
  Status restore_and_poll();
  Status process_and_commit(int64_t now_ms);
  base::Expected<bool, StreamsError> maybe_commit(int64_t now_ms);
  Status handle_task_exception(const StreamsError& e);

  std::string name_;
  ClientContext& client_;
  Consumer& main_consumer_;
  GroupMembership& membership_;
  std::unique_ptr<StoreChangelogReader> reader_;
  std::unique_ptr<TaskManager> task_manager_;
  ThreadState state_ = ThreadState::CREATED;
  int64_t now_ms_ = 0;
  int64_t last_commit_ms_ = 0;
  // StreamThread.numIterations: records processed per task in one round of the run-once loop,
  // 1 at start, one more after each round that neither committed nor punctuated, halved after
  // one that committed. Kept across passes, as Kafka keeps it across runOnce calls.
  size_t num_iterations_ = 1;
  // The state updater's lastCommitMs: set at the thread's first pass (Kafka starts the updater
  // when it creates the stream thread).
  std::optional<int64_t> last_updater_checkpoint_ms_;
  std::optional<int64_t> next_rebalance_ms_;
  int32_t unique_field_ = 0;
  std::optional<LeaderWarmups> last_leader_warmups_;
  bool task_migrated_in_callback_ = false;
};

}  // namespace iq
