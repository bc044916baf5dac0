#pragma once
// The client side of one simulated KafkaStreams process: impl/'s broker seams implemented over the
// BrokerService and the SimNetwork, from one instance's node ("instance-1").
//
// - SimConsumer (iq::Consumer): a fetch buffer filled by Kafka's fetcher over the network: one
//   fetch in flight, sent by poll() (and again at once when a long poll came back empty) for the
//   partitions with nothing buffered, parked at the broker up to fetch.max.wait.ms.
// - SimAdmin (iq::Admin): end offsets, answered synchronously (zero latency).
// - SimRecordCollector (iq::RecordCollector): produce, acknowledged synchronously (zero latency).
//   The transactional producer (iq::Producer) is SimTransactionalProducer in sim_producer.h.
// - SimGroupMembership (iq::GroupMembership): JoinGroup/SyncGroup/Heartbeat over the network;
//   offset commits synchronous (zero latency).
//
// Zero-latency calls model the request as taking no virtual time, but they still fail while the
// instance's link to the broker is cut, so an isolated instance cannot produce, commit or list
// offsets. Everything that arrives over the network checks a liveness token first: a crashed
// instance destroys its clients, and answers still in flight to them are dropped on arrival.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "cluster/broker_service.h"
#include "cluster/crash_inside.h"
#include "io/consumer.h"
#include "io/group_membership.h"
#include "io/record_collector.h"

namespace iq::sim {

// Liveness token: shared between a client and the handlers of its in-flight messages, which hold
// only weak references (so the client alone owns it).
struct Alive {};

// A process that can be stopped (SIGSTOP) and continued (SIGCONT). Every client of one process
// shares its gate. While paused the clients send nothing (no fetches, no heartbeats) and whatever
// arrives for them (fetch answers, group answers, heartbeat answers; queries through
// Instance::deliver) is held here and handled in arrival order on resume, as a stopped process's
// sockets keep their data. A process that goes away drops its held messages with the gate.
//
// A crash inside an operation (cluster/crash_inside.h) is counted here too: `arm` is the
// instance's, and once it fired the process is dead (dead()): its clients drop the send or
// commit it died at and every later one, and send nothing over the network, until Instance
// completes the crash at the end of the event.
struct ProcessGate {
  bool paused = false;
  bool closed = false;  // KafkaStreams::close() returned: its consumers fetch no more
  // Move-only, so an arrived answer can own its data (a fetch's records) instead of sharing it.
  std::deque<UniqueFunction<void()>> held;
  CrashArm* arm = nullptr;  // the instance's; null: never dies inside an operation
  bool dead() const { return arm != nullptr && arm->dead(); }
  // Counts one event for the arm; true if the process is dead (now or before).
  bool dies_at(CrashInsideAt at, std::string_view what, CrashSubject subject = {}) {
    if (arm == nullptr) return false;
    return arm->count(at, what, std::move(subject)) || arm->dead();
  }
  // Runs `f` now, or holds it until resume().
  void deliver(UniqueFunction<void()> f) {
    if (paused) {
      held.push_back(std::move(f));
    } else {
      f();
    }
  }
  // Continues the process and handles the held messages in order.
  void resume() {
    paused = false;
    while (!paused && !held.empty()) {
      auto f = std::move(held.front());
      held.pop_front();
      f();
    }
  }
};

struct SimConsumerConfig {
  // fetch.max.wait.ms: how long the broker holds a fetch that finds nothing to read (Kafka's
  // DelayedFetch, with fetch.min.bytes = 1). 0: the broker answers at once.
  int64_t fetch_max_wait_ms = 500;
  int32_t max_records_per_fetch = 500;  // per partition (max.partition.fetch.bytes, in records)
  // request.timeout.ms: a fetch unanswered this long is taken as lost and may be sent again
  // (an answer dropped on a link that stayed up). One whose connection a cut broke is failed
  // and sent again at the next poll once the link is up.
  int64_t request_timeout_ms = 30'000;
  // isolation.level: READ_COMMITTED fetches stop at the last stable offset and drop aborted
  // records. Either way markers are never handed out, and the position moves past them.
  IsolationLevel isolation_level = IsolationLevel::READ_UNCOMMITTED;
  bool operator==(const SimConsumerConfig&) const = default;
};

class SimConsumer final : public Consumer {
 public:
  // `node` is the instance's network node; `name` labels this consumer's events.
  SimConsumer(BrokerService& service, std::string node, std::string name,
              SimConsumerConfig config = {}, ProcessGate* gate = nullptr);
  ~SimConsumer() override;
  SimConsumer(const SimConsumer&) = delete;
  SimConsumer& operator=(const SimConsumer&) = delete;

  void assign(const std::vector<TopicPartition>& partitions) override;
  std::vector<TopicPartition> assignment() const override;
  void seek(const TopicPartition& tp, int64_t next_offset) override;
  void seek_to_beginning(const TopicPartition& tp) override;
  std::optional<int64_t> position(const TopicPartition& tp) const override;
  void pause(const std::vector<TopicPartition>& partitions) override;
  void resume(const std::vector<TopicPartition>& partitions) override;
  std::vector<ConsumerRecord> poll(size_t max_records) override;

  // A restore consumer: a poll that hands out records counts as CrashInsideAt::kRestorePoll.
  void set_restore_consumer(bool restore) { restore_ = restore; }
  // Called when a fetch answer buffered records that poll() would hand out: the thread blocked
  // in Kafka's poll(timeout) returns then (the Instance schedules its loop pass).
  void set_wakeup(std::function<void()> wakeup) { wakeup_ = std::move(wakeup); }
  // Records buffered for an unpaused partition: poll() hands them out without waiting.
  bool has_pollable_records() const;

  // Observing, for tests.
  uint64_t fetches_sent() const { return fetches_sent_; }
  bool fetch_in_flight() const { return in_flight_.has_value(); }
  size_t buffered(const TopicPartition& tp) const;

 private:
  struct PartitionState {
    int64_t position = 0;  // next offset poll() hands out
    uint64_t epoch = 0;    // changes on every seek and (re)assignment: older data is discarded
    bool paused = false;
    std::optional<uint64_t> fetch_in_flight;  // the id of the outstanding fetch it is in
    // Increasing offsets from `position` on; gaps where the fetch skipped markers, aborted
    // records or compacted-away offsets. Without those, buffer[i].offset == position + i.
    std::deque<ConsumerRecord> buffer;
    int64_t buffer_end = 0;  // where the fetch that filled the buffer said to continue
  };
  struct FetchResult {
    TopicPartition tp;
    uint64_t epoch = 0;
    uint64_t fetch_id = 0;
    std::vector<ConsumerRecord> records;       // empty on error
    std::optional<int64_t> next_fetch_offset;  // unset on error
  };
  // The fetch outstanding to the broker (Kafka's nodesWithPendingFetchRequests: one per node).
  struct InFlight {
    uint64_t id = 0;
    int64_t sent_ms = 0;
    uint64_t cuts = 0;  // BrokerService::link_cuts() when it went out
  };
  // A fetch's answer as it travels back: owned by the handlers that carry it (moved, not shared).
  struct FetchAnswer {
    SimConsumer* consumer;
    std::weak_ptr<Alive> alive;
    uint64_t cuts = 0;  // the connection it was sent on: an answer on a broken one never arrives
    std::vector<FetchResult> results;
    void operator()();
  };

  void send_fetch();
  void on_fetch_response(uint64_t fetch_id, std::vector<FetchResult>& results);
  void reset(PartitionState& state, int64_t position);
  int64_t now_ms() const { return service_.now_ms(); }

  BrokerService& service_;
  std::string node_;
  std::string name_;
  std::string fetch_label_;
  // The fetch's route to the broker, resolved at the first fetch that finds node_ registered.
  std::optional<BrokerService::Route> route_;
  SimConsumerConfig config_;
  ProcessGate* gate_ = nullptr;  // the process's; null: never paused
  bool restore_ = false;
  std::map<TopicPartition, PartitionState> partitions_;
  uint64_t epoch_next_ = 1;
  uint64_t fetch_id_next_ = 1;
  uint64_t fetches_sent_ = 0;
  std::optional<InFlight> in_flight_;
  std::function<void()> wakeup_;
  std::shared_ptr<Alive> alive_ = std::make_shared<Alive>();
};

class SimAdmin final : public Admin {
 public:
  SimAdmin(BrokerService& service, SimNetwork& network, std::string node)
      : service_(service), network_(network), node_(std::move(node)) {}
  // ListOffsets with zero latency; a timeout-like StreamsError while the link is cut.
  base::Expected<TopicPartitionOffsets, StreamsError> end_offsets(
      const std::vector<TopicPartition>& partitions) override;
  // The same with an isolation level: READ_COMMITTED answers last stable offsets.
  base::Expected<TopicPartitionOffsets, StreamsError> list_end_offsets(
      const std::vector<TopicPartition>& partitions, IsolationLevel isolation_level) override;

 private:
  BrokerService& service_;
  SimNetwork& network_;
  std::string node_;
};

class SimRecordCollector final : public RecordCollector {
 public:
  SimRecordCollector(BrokerService& service, SimNetwork& network, std::string node,
                     ProcessGate* gate = nullptr)
      : service_(service), network_(network), node_(std::move(node)), gate_(gate) {}
  // Produce with acks=all, acknowledged at once (zero latency); an error while the link is cut.
  // A dead process's send (see ProcessGate) reaches nothing but looks acknowledged to it, with
  // offsets counted on from the log's end, as a killed process never learns otherwise.
  base::Expected<int64_t, StreamsError> send(const std::string& topic, int32_t partition,
                                             const Bytes& key, const std::optional<Bytes>& value,
                                             int64_t timestamp, const Headers& headers) override;

 private:
  BrokerService& service_;
  SimNetwork& network_;
  std::string node_;
  ProcessGate* gate_ = nullptr;
  std::map<TopicPartition, int64_t> dropped_;  // sends a dead process made, per partition
};

struct SimMembershipConfig {
  std::string group_id;   // application.id
  std::string client_id;  // the consumer's client.id; member ids are "<client_id>-<n>"
  int32_t session_timeout_ms = 45'000;
  int32_t rebalance_timeout_ms = 300'000;  // max.poll.interval.ms
  int64_t heartbeat_interval_ms = 3'000;
  int64_t sync_timeout_ms = 30'000;  // request.timeout.ms for SyncGroup
};

// The member's metadata on the wire: Kafka's ConsumerProtocolSubscription carries the owned
// partitions beside the user data; here a small envelope does the same (see README).
Bytes encode_subscription(const std::vector<TopicPartition>& owned, const Bytes& user_data);
struct DecodedSubscription {
  std::vector<TopicPartition> owned_partitions;
  Bytes user_data;
};
std::optional<DecodedSubscription> decode_subscription(const Bytes& metadata);

class SimGroupMembership final : public GroupMembership {
 public:
  SimGroupMembership(BrokerService& service, SimNetwork& network, std::string node,
                     SimMembershipConfig config, ProcessGate* gate = nullptr);
  ~SimGroupMembership() override;
  SimGroupMembership(const SimGroupMembership&) = delete;
  SimGroupMembership& operator=(const SimGroupMembership&) = delete;

  void poll(RebalanceListener& listener) override;
  void enforce_rebalance() override { rejoin_needed_ = true; }
  std::string member_id() const override { return member_id_; }
  int32_t generation() const override { return generation_; }
  Status commit_offsets(const TopicPartitionOffsets& offsets) override;
  std::optional<int64_t> committed(const TopicPartition& tp) const override;

  // Observing, for tests: the error a rebalance callback returned, if any (poll() cannot return
  // it; see README "interface changes").
  std::optional<StreamsError> take_callback_error() {
    auto e = std::move(callback_error_);
    callback_error_.reset();
    return e;
  }
  // Called when a JoinGroup or SyncGroup answer arrived: the thread blocked in KafkaConsumer.poll
  // (ConsumerCoordinator.poll, joinGroupIfNeeded) handles it then, running the rebalance
  // callbacks (the Instance schedules its loop pass).
  void set_wakeup(std::function<void()> wakeup) { wakeup_ = std::move(wakeup); }
  bool stable() const { return stable_; }
  uint64_t commits_skipped() const { return commits_skipped_; }
  // JoinGroup/SyncGroup requests failed because a cut broke the connection they went out on, or
  // a SyncGroup that could not go out because the link was cut (Kafka's DisconnectException).
  uint64_t requests_disconnected() const { return requests_disconnected_; }

 private:
  using Response = std::variant<JoinGroupResponse, SyncGroupResponse>;
  struct Arrived {
    uint64_t request_id;
    Response response;
  };

  void handle(RebalanceListener& listener, uint64_t request_id, const JoinGroupResponse& r);
  void handle(RebalanceListener& listener, uint64_t request_id, const SyncGroupResponse& r);
  void on_error(Errors e);
  void fail_lost_request();
  void send_join(RebalanceListener& listener);
  void heartbeat_loop();
  // The coordinator connection (see README "Cut from the broker"): how many times a cut broke it
  // so far, and whether it is up now.
  uint64_t connection_cuts() const;
  bool coordinator_reachable() const;
  // Handles an arrived answer now, or on resume if the process is paused.
  void arrive(std::function<void()> f);
  int64_t now_ms() const { return service_.now_ms(); }

  BrokerService& service_;
  SimNetwork& network_;
  std::string node_;
  SimMembershipConfig config_;
  ProcessGate* gate_ = nullptr;  // the process's; null: never paused
  std::string member_id_;
  int32_t generation_ = kNoGeneration;
  bool rejoin_needed_ = true;
  bool partitions_lost_ = false;  // fenced: onPartitionsLost before the next join
  bool joined_ = false;           // got a JoinGroup answer for generation_ (heartbeats go out)
  bool stable_ = false;           // got the SyncGroup answer
  std::optional<uint64_t> join_in_flight_;
  std::optional<uint64_t> sync_in_flight_;
  int64_t request_sent_ms_ = 0;
  uint64_t request_cuts_ = 0;  // connection_cuts() when the JoinGroup/SyncGroup in flight went out
  bool heartbeat_in_flight_ = false;
  int64_t heartbeat_sent_ms_ = 0;
  uint64_t heartbeat_cuts_ = 0;  // connection_cuts() when the heartbeat in flight went out
  uint64_t requests_disconnected_ = 0;
  uint64_t request_id_next_ = 1;
  std::deque<Arrived> arrived_;
  std::optional<StreamsError> callback_error_;
  uint64_t commits_skipped_ = 0;
  std::function<void()> wakeup_;
  EventId heartbeat_event_;
  std::shared_ptr<Alive> alive_ = std::make_shared<Alive>();
};

}  // namespace iq::sim
