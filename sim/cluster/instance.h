#pragma once
// Instance: one simulated KafkaStreams process on its own network node and disk.
//
// The disk (SimDisk) belongs to the machine and outlives the process; everything else belongs to
// the process and is rebuilt on every start: the SimFileSystem and SimRocksEnv on the disk, the
// clients (SimAdmin; per stream thread a main consumer, a restore consumer, a group membership and
// a record collector) and the iq::KafkaStreams that uses them, driven by a run-loop event every
// poll_interval_ms that calls KafkaStreams::run_once(now).
//
// Lifecycle:
// - start(): a new process on the current disk.
// - close(): KafkaStreams::close() (commit, checkpoint, close tasks), then the process goes away.
//   No LeaveGroup is sent (Streams' default), so the group notices after the session timeout.
// - crash(): the process goes away without close(): KafkaStreams and the clients are destroyed,
//   which closes every RocksDB database without a flush (RocksDBStore's destructor, as a killed
//   process), then SimDisk::crash() drops everything not synced. Nothing is sent to the broker;
//   answers still in flight to the dead clients are dropped on arrival.
// - restart(wipe): start() again on the same disk, or on a wiped one (a replaced machine, which
//   also gets a new process id; a kept disk keeps the process id, as Kafka's StateDirectory
//   persists it in the state directory).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "assignment/process_id.h"
#include "base/prng.h"
#include "cluster/broker_service.h"
#include "cluster/sim_clients.h"
#include "disk/sim_disk.h"
#include "disk/sim_file_system.h"
#include "disk/sim_rocksdb_env.h"
#include "kafka_streams.h"

namespace iq::sim {

struct InstanceConfig {
  std::string name;       // the network node, "instance-1"; also application.server "<name>:8080"
  StreamsConfig streams;  // state_dir and application_server are set by the instance
  TopologyConfig topology;
  int64_t poll_interval_ms = 10;
  SimConsumerConfig consumer;
  int32_t session_timeout_ms = 45'000;
  int32_t rebalance_timeout_ms = 300'000;
  int64_t heartbeat_interval_ms = 3'000;
};

class Instance {
 public:
  static constexpr const char* kStateDir = "/state";
  static constexpr int32_t kPort = 8080;

  // `prng` is this instance's own child stream (world.split("instance-N")).
  Instance(BrokerService& service, InstanceConfig config, base::Prng prng);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  void start();
  [[nodiscard]] Status close();
  void crash();
  void restart(bool wipe);

  bool running() const { return process_ != nullptr; }
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

 private:
  // One process lifetime. Members are destroyed in reverse order: KafkaStreams first (its stores
  // close their databases), then the clients, then the Env the databases were opened on.
  struct Process;

  void run_loop();
  void check_callback_errors();

  BrokerService& service_;
  InstanceConfig config_;
  base::Prng prng_;
  ProcessId process_id_;
  SimDisk disk_;
  std::unique_ptr<Process> process_;
  EventId run_event_;
  std::vector<std::string> errors_;
  uint64_t starts_ = 0;
};

}  // namespace iq::sim
