#pragma once
// Instance: one simulated KafkaStreams process on its own network node and disk.
//
// The disk (SimDisk) belongs to the machine and outlives the process; everything else belongs to
// the process and is rebuilt on every start: the SimFileSystem and SimRocksEnv on the disk, the
// clients (SimAdmin; per stream thread a main consumer, a restore consumer, a group membership and
// a record collector) and the iq::KafkaStreams that uses them, driven by loop-pass events that call
// KafkaStreams::run_once(now) when the stream thread's KafkaConsumer.poll(poll.ms) would return
// (see "The loop" below).
//
// The loop (Kafka's StreamThread.runLoop with the state updater on, at the pinned commit): a
// pass is run_once. After it the thread waits in poll, and the next pass runs at the first of:
// - records to hand out: a fetch answer buffered records for the main or the restore consumer
//   (SimConsumer's wakeup; the restore consumer is the state updater's, which polls with poll.ms
//   too, and impl/ runs the state updater inside the pass);
// - a JoinGroup or SyncGroup answer (SimGroupMembership's wakeup: poll runs the rebalance
//   callbacks when it arrives);
// - poll.ms after the pass: the poll timeout (Kafka's pollPhase polls with poll.ms in STARTING,
//   PARTITIONS_ASSIGNED and RUNNING, and with Duration.ZERO in PARTITIONS_REVOKED and
//   PENDING_SHUTDOWN, where it spins until the group answers: the wakeups above end that wait);
// - kBusyPassMs after the pass if it processed records or a consumer still holds records to
//   hand out: Kafka's loop goes on at once (poll returns buffered records without waiting). A pass
//   processes everything its poll handed out, in Kafka's rounds (StreamThread::process_and_commit),
//   so a backlog beyond max.poll.records takes one pass per kBusyPassMs, the virtual time a pass
//   costs.
// The deadlines run_once acts on (commit.interval.ms, a scheduled probing rebalance, the join/sync
// request timeouts, the state updater's checkpoints) are checked in every pass, as Kafka checks
// them after poll returns: at most poll.ms late, as in Kafka.
//
// The state-directory cleaner is a thread of its own in Kafka (KafkaStreams.start schedules it at
// a fixed rate of state.cleanup.delay.ms, first one delay after start; close stops it first), so
// here it is an event of its own at exactly those times, run whatever the stream thread does
// (blocked on the broker included): KafkaStreams::run_state_dir_cleaner, which acts only while
// the client is RUNNING. A paused process runs none; its executor finds the missed runs overdue on
// SIGCONT, so resume() runs the cleaner once at once (back-to-back catch-up runs would see the
// same directories at the same time) and the schedule goes on on its grid.
//
// Lifecycle:
// - create(): a new process whose KafkaStreams is constructed but not started (Kafka's CREATED
//   state, as Kafka's tests that query before start()); no loop pass runs. start() starts it.
// - start(): a new process on the current disk (or starts the one create() built).
// - close(): KafkaStreams::close() (commit, checkpoint, close tasks). No LeaveGroup is sent
//   (Streams' default), so the group notices after the session timeout. The closed KafkaStreams
//   object lingers, in NOT_RUNNING, until the next start, crash or retire: an application that
//   closed its client can still call query() on it (StreamsStoppedException, as Kafka's
//   IQv2IntegrationTest checks); see closed_streams(). Its loop is gone and it sends nothing.
// - crash(): the process goes away without close(): KafkaStreams and the clients are destroyed,
//   which closes every RocksDB database without a flush (RocksDBStore's destructor, as a killed
//   process), then SimDisk::crash() drops everything not synced. Nothing is sent to the broker;
//   answers still in flight to the dead clients are dropped on arrival.
// - restart(wipe): start() again on the same disk, or on a wiped one (a replaced machine, which
//   also gets a new process id; a kept disk keeps the process id, as Kafka's StateDirectory
//   persists it in the state directory). Without a persistent store Kafka keeps no process file
//   (StateDirectory.initializeProcessId), so every start after the first draws a new id.
// - pause() / resume(): SIGSTOP / SIGCONT. While paused no loop pass runs, no heartbeat or fetch
//   goes out, and whatever arrives (fetch and group answers, queries via deliver()) is held and
//   handled in arrival order on resume. The group notices only through the session timeout.
// - Cut from the broker (SimNetwork::isolate or a cut of the instance-broker link): the stream
//   thread is taken as blocked inside a synchronous send/poll, as Kafka's producer retries until
//   delivery.timeout.ms: loop passes are skipped while the link is cut, for at most
//   kDeliveryTimeoutMs since the cut was first seen; after that the passes run again and the
//   zero-latency calls fail as before (a thread failure, surfacing the timeout).
// - retire(): the machine is gone for good (Cluster::remove_instance); start() refuses.
// - arm_crash_inside(spec): a crash that lands inside an operation (cluster/crash_inside.h): at
//   the spec's Nth disk operation, send, commit or restore poll the process is dead to the world;
//   at the end of that event (a loop pass, start, close, a delivered message) the crash is
//   completed as crash() does, the crash points it hit are probed ("crash.point.<name>") and the
//   listener set by set_on_crash_landed hears of it. The arm outlives processes (armed while down,
//   it counts in the next process) until it fires or is disarmed; crash() itself counts nothing.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "assignment/process_id.h"
#include "base/prng.h"
#include "cluster/broker_service.h"
#include "cluster/crash_inside.h"
#include "cluster/io_fault.h"
#include "cluster/processing_ledger.h"
#include "cluster/sim_clients.h"
#include "cluster/store_life_recorder.h"
#include "cluster/streams_client_configs.h"
#include "disk/sim_disk.h"
#include "disk/sim_file_system.h"
#include "disk/sim_rocksdb_env.h"
#include "kafka_streams.h"

namespace iq::sim {

struct InstanceConfig {
  std::string name;       // the network node, "instance-1"; also application.server "<name>:8080"
  StreamsConfig streams;  // state_dir and application_server are set by the instance
  TopologyConfig topology;
  int64_t poll_ms = 100;  // StreamsConfig poll.ms: the stream thread's poll timeout
  SimConsumerConfig consumer;
  StreamsClientConfigs clients;  // isolation levels and the transaction timeout, as given
  int32_t session_timeout_ms = 45'000;
  int32_t rebalance_timeout_ms = 300'000;
  int64_t heartbeat_interval_ms = 3'000;
};

class Instance {
 public:
  static constexpr const char* kStateDir = "/state";
  static constexpr int32_t kPort = 8080;
  // Kafka's delivery.timeout.ms default: how long a send blocks on an unreachable broker.
  static constexpr int64_t kDeliveryTimeoutMs = 120'000;
  static constexpr size_t kCrashesLandedMax = 1'000;
  // The virtual time a loop pass that found work costs before the next one (see "The loop").
  static constexpr int64_t kBusyPassMs = 1;

  // `prng` is this instance's own child stream (world.split("instance-N")). `ledger`, if not
  // null, hears of every input record this instance's tasks process, over all its lifetimes.
  // `store_lives`, if not null, records every store object's life (else the instance keeps its
  // own log, store_lives()).
  Instance(BrokerService& service, InstanceConfig config, base::Prng prng,
           ProcessingLedger* ledger = nullptr, StoreLifeLog* store_lives = nullptr);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  void create();
  void start();
  [[nodiscard]] Status close();
  void crash();
  void restart(bool wipe);
  // restart(false) with the client's Kafka pin set to `pin` first (scenario event `upgrade`, pin
  // delta 13): the new process opens the old pin's files.
  void upgrade(KafkaPin pin);
  KafkaPin kafka_pin() const { return config_.streams.kafka_pin; }
  // SIGSTOP / SIGCONT of the running process (see the header comment).
  void pause();
  void resume();
  // Delivers a message to the process: handled now, or held until resume() while paused.
  // Asserts that it runs.
  void deliver(std::function<void()> f);
  // The machine is gone for good: the process must be down; start() is refused afterwards.
  void retire();
  // A crash inside an operation: see the header comment.
  void arm_crash_inside(const CrashInsideSpec& spec);
  void disarm_crash_inside() { crash_arm_.disarm(); }
  bool crash_inside_armed() const { return crash_arm_.armed(); }
  void set_on_crash_landed(std::function<void(const CrashLanding&)> listener) {
    on_crash_landed_ = std::move(listener);
  }
  // A storage error (cluster/io_fault.h): the spec's Nth read or write of a file on this
  // instance's disk fails with EIO, once. The arm outlives processes, until it lands or is
  // disarmed; the listener hears of the landing (on the thread that made the I/O).
  void arm_io_fault(const IoFaultSpec& spec);
  void disarm_io_fault() { io_arm_.disarm(); }
  bool io_fault_armed() const { return io_arm_.armed(); }
  void set_on_io_fault_landed(std::function<void(const IoFaultLanding&)> listener) {
    io_arm_.set_on_landed(std::move(listener));
  }
  // Crashes that landed inside an operation, over all lifetimes, oldest first (at most 1 000).
  const std::vector<CrashLanding>& crashes_landed() const { return crashes_landed_; }

  // A process exists (created, started, possibly paused).
  bool running() const { return process_ != nullptr; }
  // The KafkaStreams a close() left behind (NOT_RUNNING), until the next start; else nullptr.
  KafkaStreams* closed_streams();
  // A process exists but KafkaStreams::start() was not called yet (create() without start()).
  bool not_started() const;
  bool paused() const;
  bool retired() const { return retired_; }
  // True while the link to the broker is cut (and seen so by the last loop pass), for at most
  // kDeliveryTimeoutMs: the stream thread is blocked and no pass runs.
  bool blocked_on_broker() const { return blocked_; }
  // Loop passes skipped because the broker was unreachable, over all lifetimes.
  uint64_t passes_blocked() const { return passes_blocked_; }
  const std::string& name() const { return config_.name; }
  HostInfo host() const { return HostInfo{config_.name, kPort}; }
  const ProcessId& process_id() const { return process_id_; }
  // The running process's client; asserts that it runs.
  KafkaStreams& streams();
  const KafkaStreams& streams() const;
  SimGroupMembership& membership(size_t thread);
  SimDisk& disk() { return disk_; }
  // Errors returned by run_once or by rebalance callbacks, in order (a healthy run has none).
  const std::vector<std::string>& errors() const { return errors_; }
  uint64_t starts() const { return starts_; }
  // Loop passes run, over all lifetimes (observing, for tests and docs/performance.md).
  uint64_t passes() const { return passes_; }

 private:
  // One process lifetime. Members are destroyed in reverse order: KafkaStreams first (its stores
  // close their databases), then the clients, then the Env the databases were opened on.
  struct Process;

  void build_process();
  // Schedules the next loop pass `delay_ms` from now, unless one is due by then already.
  void schedule_pass(int64_t delay_ms);
  void run_pass();
  // A consumer or the membership has something for the thread blocked in poll.
  void wake();
  // The pass found work: the loop goes on after kBusyPassMs instead of waiting in poll.
  bool busy() const;
  void check_callback_errors();
  // Updates cut_since_ms_ and returns whether this pass is blocked on the broker.
  bool check_blocked();
  // At the end of an event of this process: completes a crash that landed inside it, if any.
  bool land_crash_if_dead();
  // The state-directory cleaner's schedule (see the header comment): started by start(), stopped
  // by close(), crash() and the destructor.
  void start_cleaner();
  void stop_cleaner();
  void run_cleaner();

  BrokerService& service_;
  InstanceConfig config_;
  base::Prng prng_;
  ProcessingLedger* ledger_;
  StoreLifeLog own_store_lives_{config_.topology};  // when the caller gives none
  StoreLifeLog* store_lives_;
  ProcessId process_id_;
  std::string run_label_;      // "<name>:run", built once: a label for every loop pass
  std::string cleaner_label_;  // "<name>:cleaner"
  SimDisk disk_;
  std::unique_ptr<Process> process_;
  std::unique_ptr<Process> closed_process_;  // what close() left behind, see closed_streams()
  EventId run_event_;
  EventId cleaner_event_;
  int64_t cleaner_next_ms_ = 0;  // the next time on the cleaner's fixed-rate grid
  bool cleaner_missed_ = false;  // a run fell due while the process was paused
  std::vector<std::string> errors_;
  uint64_t starts_ = 0;
  uint64_t passes_ = 0;
  uint64_t processed_before_pass_ = 0;
  bool retired_ = false;
  std::optional<int64_t> cut_since_ms_;
  bool blocked_ = false;
  uint64_t passes_blocked_ = 0;
  CrashArm crash_arm_;
  IoFaultArm io_arm_;
  std::function<void(const CrashLanding&)> on_crash_landed_;
  std::vector<CrashLanding> crashes_landed_;
};

}  // namespace iq::sim
