#include "cluster/instance.h"

#include <algorithm>
#include <utility>

#include "base/probe.h"
#include "cluster/sim_producer.h"
#include "io/operation_marker.h"
#include "topology/topologies.h"

namespace iq::sim {

// Tells the run's ProcessingLedger of each input record this process's tasks processed.
class LedgerListener final : public ProcessedRecordListener {
 public:
  LedgerListener(ProcessingLedger* ledger, EventLoop& loop, std::string instance,
                 std::string source_topic, const CrashArm* arm)
      : ledger_(ledger),
        arm_(arm),
        loop_(loop),
        instance_(std::move(instance)),
        source_topic_(std::move(source_topic)) {}
  void on_processed(const std::string& topic, int32_t partition, int64_t offset) override {
    IQ_ASSERT(topic == source_topic_, "{} processed {}-{}, not its source topic {}", instance_,
              topic, partition, source_topic_);
    ++count_;
    // A dead process (a crash that landed inside an operation) processes nothing to the world.
    if (ledger_ != nullptr && !arm_->dead())
      ledger_->processed(loop_.now().ms_since_epoch(), instance_, partition, offset);
  }
  // Input records processed by this process so far.
  uint64_t count() const { return count_; }

 private:
  uint64_t count_ = 0;
  ProcessingLedger* ledger_;
  const CrashArm* arm_;
  EventLoop& loop_;
  std::string instance_;
  std::string source_topic_;
};

struct Instance::Process {
  Process(SimDisk& disk, LedgerListener listener, StoreLifeRecorder recorder)
      : fs(disk), rocks(disk), processed(std::move(listener)), store_lives(std::move(recorder)) {}
  ProcessGate gate;  // first member: destroyed last, after every client that points at it
  SimFileSystem fs;
  SimRocksEnv rocks;
  std::unique_ptr<SimAdmin> admin;
  std::vector<std::unique_ptr<SimRecordCollector>> collectors;
  // Under exactly_once_v2 KafkaStreams owns each thread's StreamsProducer, which owns the
  // SimTransactionalProducer the factory makes; they point at `gate`, which outlives them.
  std::vector<std::unique_ptr<SimConsumer>> main_consumers;
  std::vector<std::unique_ptr<SimConsumer>> restore_consumers;
  std::vector<std::unique_ptr<SimGroupMembership>> memberships;
  LedgerListener processed;
  StoreLifeRecorder store_lives;
  std::unique_ptr<KafkaStreams> streams;
};

namespace {

ProcessId draw_process_id(base::Prng& prng) {
  const uint64_t high = prng.next();
  const uint64_t low = prng.next();
  return ProcessId::random_v4(high, low);
}

}  // namespace

Instance::Instance(BrokerService& service, InstanceConfig config, base::Prng prng,
                   ProcessingLedger* ledger, StoreLifeLog* store_lives)
    : service_(service),
      config_(std::move(config)),
      prng_(prng),
      ledger_(ledger),
      store_lives_(store_lives != nullptr ? store_lives : &own_store_lives_),
      process_id_(draw_process_id(prng_)),
      run_label_(config_.name + ":run"),
      cleaner_label_(config_.name + ":cleaner") {
  IQ_ASSERT(!config_.name.empty() && config_.poll_ms >= 0);
  config_.streams.state_dir = kStateDir;
  config_.streams.application_server = config_.name + ":" + std::to_string(kPort);
  if (!service_.network().has_node(config_.name)) service_.network().add_node(config_.name);
  disk_.set_op_observer([this](DiskOp op, const std::string& path) {
    // A crash that landed at a send, a commit or a restore poll killed the process too: nothing it
    // writes or syncs afterwards may become durable (it would let a .checkpoint name changelog
    // records the broker never got). Freezing at its next disk operation keeps exactly the durable
    // state of the moment it died, since only disk operations change that state.
    // So is a process being torn down after a crash: RocksDB's Close would flush its memtables
    // (avoid_flush_during_shutdown is false, as in Kafka), which a killed process never does.
    if (crash_arm_.dead() || crash_arm_.suspended()) return true;
    if (!crash_arm_.armed()) return false;
    return crash_arm_.count(CrashInsideAt::kDiskOp, std::string(to_string(op)) + " " + path,
                            CrashSubject::file(path));
  });
  // Directory mtimes in the simulation's virtual ms, the clock the cleaner compares them with.
  disk_.set_clock([this] { return service_.now_ms(); });
  disk_.set_io_fault([this](IoKind kind, const std::string& path) {
    // The store-life recorder's read of what a store kept is no read of Kafka's: not counted.
    const uint32_t operations = iq::operations_in_progress();
    if (iq::in_progress(operations, iq::Operation::kObserve)) return false;
    return io_arm_.count(kind, path, operations);
  });
}

Instance::~Instance() {
  if (run_event_.valid()) service_.loop().cancel(run_event_);
  stop_cleaner();
  process_.reset();  // KafkaStreams before the disk its databases live on
}

void Instance::create() {
  IQ_ASSERT(!running(), "{} created while running", config_.name);
  IQ_ASSERT(!retired_, "{} was removed", config_.name);
  build_process();
  (void)land_crash_if_dead();
}

void Instance::start() {
  IQ_ASSERT(!retired_, "{} was removed", config_.name);
  if (running()) {
    // Only a created process may be started in place.
    IQ_ASSERT(not_started() && !paused(), "{} started twice", config_.name);
  } else {
    // StateDirectory.initializeProcessId: without a persistent store there is no process file,
    // so every process life draws a fresh id (the first life's was drawn with the instance).
    if (starts_ > 0 && !has_persistent_stores(config_.topology)) {
      process_id_ = draw_process_id(prng_);
    }
    build_process();
  }
  ++starts_;
  auto started = process_->streams->start();
  IQ_ASSERT(!run_event_.valid(), "{} has a loop before start", config_.name);
  schedule_pass(0);
  if (started) start_cleaner();      // KafkaStreams.start schedules it once the threads started
  if (land_crash_if_dead()) return;  // it died inside start: no errors
  if (!started) errors_.push_back("start: " + started.error().to_string());
}

// A new process on the current disk with its clients and a KafkaStreams in CREATED.
void Instance::build_process() {
  closed_process_.reset();  // the closed client goes before a new one opens the same stores
  cut_since_ms_.reset();
  blocked_ = false;
  process_ = std::make_unique<Process>(
      disk_,
      LedgerListener(ledger_, service_.loop(), config_.name, config_.topology.source_topic,
                     &crash_arm_),
      StoreLifeRecorder(*store_lives_, service_.loop(), config_.name, &crash_arm_));
  Process& p = *process_;
  p.gate.arm = &crash_arm_;
  SimNetwork& network = service_.network();
  p.admin = std::make_unique<SimAdmin>(service_, network, config_.name);
  ClientIo io{p.admin.get(), &p.fs, p.rocks.env(), {}, &p.processed, &p.store_lives};
  // StreamsConfig under exactly_once_v2 sets isolation.level=read_committed on the main and
  // restore consumers (getMainConsumerConfigs / getRestoreConsumerConfigs), unless a
  // main.consumer. or restore.consumer. prefixed setting overrides it (StreamsClientConfigs).
  const ProcessingGuarantee guarantee = config_.streams.processing_guarantee;
  const bool eos = guarantee == ProcessingGuarantee::EXACTLY_ONCE_V2;
  SimConsumerConfig consumer = config_.consumer;
  consumer.isolation_level = config_.clients.main_isolation_level(guarantee);
  SimConsumerConfig restore_consumer = config_.consumer;
  restore_consumer.isolation_level = config_.clients.restore_isolation_level(guarantee);
  for (int32_t i = 1; i <= config_.streams.num_stream_threads; ++i) {
    const std::string thread = "StreamThread-" + std::to_string(i);
    p.collectors.push_back(
        std::make_unique<SimRecordCollector>(service_, network, config_.name, &p.gate));
    p.main_consumers.push_back(std::make_unique<SimConsumer>(
        service_, config_.name, thread + "-consumer", consumer, &p.gate));
    p.restore_consumers.push_back(std::make_unique<SimConsumer>(
        service_, config_.name, thread + "-restore-consumer", restore_consumer, &p.gate));
    p.restore_consumers.back()->set_restore_consumer(true);
    p.main_consumers.back()->set_wakeup([this] { wake(); });
    p.restore_consumers.back()->set_wakeup([this] { wake(); });
    SimMembershipConfig m;
    m.group_id = config_.streams.application_id;
    // Kafka's "<application.id>-<process id>-StreamThread-<n>-consumer".
    m.client_id =
        config_.streams.application_id + "-" + process_id_.to_string() + "-" + thread + "-consumer";
    m.session_timeout_ms = config_.session_timeout_ms;
    m.rebalance_timeout_ms = config_.rebalance_timeout_ms;
    m.heartbeat_interval_ms = config_.heartbeat_interval_ms;
    p.memberships.push_back(
        std::make_unique<SimGroupMembership>(service_, network, config_.name, m, &p.gate));
    p.memberships.back()->set_wakeup([this] { wake(); });
    io.threads.push_back(ThreadIo{p.main_consumers.back().get(),
                                  p.restore_consumers.back().get(),
                                  p.memberships.back().get(),
                                  p.collectors.back().get(),
                                  {}});
    // Each thread of each process life its own stream, split off (the instance's own draws, such
    // as its process ids, stay where they were).
    io.threads.back().random_seed = prng_.split(thread + "-life-" + std::to_string(starts_)).seed();
    if (eos) {
      io.threads.back().producer_factory =
          [this, gate = &p.gate](const std::string& transactional_id) -> std::unique_ptr<Producer> {
        return std::make_unique<SimTransactionalProducer>(
            service_, config_.name,
            SimProducerConfig{transactional_id, config_.clients.effective_transaction_timeout_ms()},
            gate);
      };
    }
  }
  p.streams = std::make_unique<KafkaStreams>(config_.streams, config_.topology, std::move(io),
                                             process_id_.to_string());
}

Status Instance::close() {
  IQ_ASSERT(running(), "{} closed while not running", config_.name);
  IQ_ASSERT(!paused(), "{} closed while paused (a stopped process cannot close)", config_.name);
  stop_cleaner();  // shutdownHelper: stateDirCleaner.shutdownNow() comes first
  auto s = process_->streams->close();
  if (land_crash_if_dead()) return s;  // died inside close: what it says no longer matters
  if (!s) errors_.push_back("close: " + s.error().to_string());
  service_.loop().cancel(run_event_);
  run_event_ = {};
  process_->gate.closed = true;
  closed_process_ = std::move(process_);
  return s;
}

KafkaStreams* Instance::closed_streams() {
  return closed_process_ != nullptr ? closed_process_->streams.get() : nullptr;
}

void Instance::crash() {
  IQ_ASSERT(running(), "{} crashed while not running", config_.name);
  service_.loop().cancel(run_event_);
  run_event_ = {};
  stop_cleaner();
  for (const auto& thread : process_->streams->threads()) {
    for (Task* task : thread->task_manager().all_tasks()) {
      if (task->is_active() && task->state() == TaskState::RESTORING) {
        IQ_PROBE("crash.during_restore", "a crash cut short an active task's restore");
      }
    }
  }
  // Destroying KafkaStreams closes every database; SimDisk::crash() asserts that no handle or
  // lock is left. A killed process writes nothing: while the arm is suspended the disk is frozen
  // (the op observer above), so what RocksDB's Close flushes is dropped by the crash, and nothing
  // the teardown writes counts for a crash arm. A crash that landed inside an operation is
  // complete once the disk reverted to what was durable when it landed.
  crash_arm_.set_suspended(true);
  process_->store_lives.process_died();
  process_.reset();
  disk_.crash();
  crash_arm_.set_suspended(false);
  crash_arm_.clear_landing();
}

void Instance::arm_io_fault(const IoFaultSpec& spec) {
  IQ_ASSERT(!retired_, "{} was removed", config_.name);
  io_arm_.arm(spec);
}

void Instance::arm_crash_inside(const CrashInsideSpec& spec) {
  IQ_ASSERT(!retired_, "{} was removed", config_.name);
  crash_arm_.arm(spec);
}

bool Instance::land_crash_if_dead() {
  if (!running() || !crash_arm_.dead()) return false;
  const std::optional<CrashLanding> landing = crash_arm_.landing();
  IQ_ASSERT(landing.has_value());
  probe_crash_points(*landing);
  crash();
  IQ_ASSERT(!crash_arm_.dead() && !disk_.frozen(), "{}: crash not complete", config_.name);
  if (crashes_landed_.size() < kCrashesLandedMax) crashes_landed_.push_back(*landing);
  if (on_crash_landed_) on_crash_landed_(*landing);
  return true;
}

void Instance::restart(bool wipe) {
  IQ_ASSERT(!running(), "{} restarted while running", config_.name);
  if (wipe) {
    closed_process_.reset();  // a wiped disk has no open handle left
    disk_.wipe();
    store_lives_->disk_wiped(config_.name);
    // The process file went with the disk: a fresh id (start() draws it without a persistent
    // store, which keeps no process file).
    if (has_persistent_stores(config_.topology)) process_id_ = draw_process_id(prng_);
  }
  start();
}

void Instance::upgrade(KafkaPin pin) {
  IQ_ASSERT(!running(), "{} upgraded while running", config_.name);
  IQ_ASSERT(pin > config_.streams.kafka_pin, "{} upgraded to the pin it runs", config_.name);
  config_.streams.kafka_pin = pin;
  restart(/*wipe=*/false);
}

void Instance::pause() {
  IQ_ASSERT(running() && !paused(), "{} paused while not running or already paused", config_.name);
  process_->gate.paused = true;
  if (run_event_.valid()) service_.loop().cancel(run_event_);
  run_event_ = {};
}

void Instance::resume() {
  IQ_ASSERT(running() && paused(), "{} resumed while not paused", config_.name);
  process_->gate.resume();
  if (land_crash_if_dead()) return;
  if (std::exchange(cleaner_missed_, false)) {
    (void)process_->streams->run_state_dir_cleaner(service_.now_ms());
    if (land_crash_if_dead()) return;
  }
  // A created process gets its loop from start(); a continued one polls again at once.
  if (!not_started()) schedule_pass(0);
}

bool Instance::not_started() const {
  return running() && process_->streams->state() == KafkaStreamsState::CREATED;
}

bool Instance::paused() const {
  return running() && process_->gate.paused;
}

void Instance::deliver(std::function<void()> f) {
  IQ_ASSERT(running(), "{} is not running", config_.name);
  process_->gate.deliver(std::move(f));
  (void)land_crash_if_dead();
}

void Instance::retire() {
  IQ_ASSERT(!running(), "{} retired while running", config_.name);
  closed_process_.reset();
  retired_ = true;
}

bool Instance::check_blocked() {
  if (!service_.network().is_cut(config_.name, BrokerService::kNode)) {
    cut_since_ms_.reset();
    blocked_ = false;
    return false;
  }
  const int64_t now = service_.now_ms();
  if (!cut_since_ms_) cut_since_ms_ = now;
  blocked_ = now - *cut_since_ms_ < kDeliveryTimeoutMs;
  return blocked_;
}

KafkaStreams& Instance::streams() {
  IQ_ASSERT(running(), "{} is not running", config_.name);
  return *process_->streams;
}

const KafkaStreams& Instance::streams() const {
  IQ_ASSERT(running(), "{} is not running", config_.name);
  return *process_->streams;
}

SimGroupMembership& Instance::membership(size_t thread) {
  IQ_ASSERT(running() && thread < process_->memberships.size(), "{} thread {}", config_.name,
            thread);
  return *process_->memberships[thread];
}

void Instance::schedule_pass(int64_t delay_ms) {
  const base::Instant at = service_.loop().now() + base::Duration::millis(delay_ms);
  if (run_event_.valid()) {
    if (run_event_.at <= at) return;
    service_.loop().cancel(run_event_);
  }
  run_event_ = service_.loop().schedule_at(at, run_label_, [this] { run_pass(); });
}

// The loop pass only of a started, running, unpaused process (a created or closed one has no
// loop, a paused one none until resume, a crashed one none at all).
void Instance::wake() {
  if (!running() || paused() || not_started() || process_->gate.dead()) return;
  schedule_pass(0);
}

void Instance::run_pass() {
  run_event_ = {};
  if (check_blocked()) {
    ++passes_blocked_;
    schedule_pass(config_.poll_ms);
    return;
  }
  ++passes_;
  processed_before_pass_ = process_->processed.count();
  auto s = process_->streams->run_once(service_.now_ms());
  if (land_crash_if_dead()) return;  // it died inside this pass: no loop, no errors
  if (!s) errors_.push_back("run_once: " + s.error().to_string());
  check_callback_errors();
  schedule_pass(busy() ? kBusyPassMs : config_.poll_ms);
}

void Instance::start_cleaner() {
  stop_cleaner();
  IQ_ASSERT(config_.streams.state_cleanup_delay_ms > 0, "{}: cleaner period {} ms", config_.name,
            config_.streams.state_cleanup_delay_ms);
  cleaner_next_ms_ = service_.now_ms() + config_.streams.state_cleanup_delay_ms;
  const base::Instant at =
      service_.loop().now() + base::Duration::millis(config_.streams.state_cleanup_delay_ms);
  cleaner_event_ = service_.loop().schedule_at(at, cleaner_label_, [this] { run_cleaner(); });
}

void Instance::stop_cleaner() {
  if (cleaner_event_.valid()) service_.loop().cancel(cleaner_event_);
  cleaner_event_ = {};
  cleaner_missed_ = false;
}

void Instance::run_cleaner() {
  cleaner_event_ = {};
  IQ_ASSERT(running() && !process_->gate.dead(), "{}: cleaner of a gone process", config_.name);
  const int64_t now = service_.now_ms();
  IQ_ASSERT(now == cleaner_next_ms_, "{}: cleaner at {} ms, due at {}", config_.name, now,
            cleaner_next_ms_);
  if (paused()) {
    cleaner_missed_ = true;
  } else {
    (void)process_->streams->run_state_dir_cleaner(now);
    if (land_crash_if_dead()) return;  // died inside the cleaner: crash() stopped it
  }
  cleaner_next_ms_ += config_.streams.state_cleanup_delay_ms;
  const base::Instant at =
      service_.loop().now() + base::Duration::millis(config_.streams.state_cleanup_delay_ms);
  cleaner_event_ = service_.loop().schedule_at(at, cleaner_label_, [this] { run_cleaner(); });
}

bool Instance::busy() const {
  if (process_->processed.count() != processed_before_pass_) return true;
  const auto pollable = [](const auto& consumers) {
    return std::any_of(consumers.begin(), consumers.end(),
                       [](const auto& c) { return c->has_pollable_records(); });
  };
  return pollable(process_->main_consumers) || pollable(process_->restore_consumers);
}

void Instance::check_callback_errors() {
  for (const auto& m : process_->memberships) {
    if (auto e = m->take_callback_error())
      errors_.push_back("rebalance callback: " + e->to_string());
  }
}

}  // namespace iq::sim
