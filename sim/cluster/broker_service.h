#pragma once
// BrokerService: the simulated broker as a node ("broker") on the SimNetwork.
//
// A client sends a request as a network message; the message's delivery handler runs the broker
// call at delivery time, on the broker's state at that instant, and the answer travels back to the
// client as another message on the reverse link. A cut or lossy link therefore loses requests and
// answers alike, and the client learns nothing (it has its own request timeouts).
//
// The GroupCoordinator is a state machine whose deadlines (session timeouts, join and sync
// timeouts, the initial rebalance delay) fire only when it is called. This service keeps exactly
// one tick event scheduled at coordinator().next_deadline_ms(), re-planned after every request and
// every tick, and after each of them drains take_responses() and sends every answer to a parked
// JoinGroup or SyncGroup back to the client node that sent it.
//
// The transaction coordinator's timed-out-transaction scans are planned the same way, as one
// "broker:txn-tick" event at broker().next_deadline_ms(), only while a transaction is open; the
// log cleaner runs one "broker:log-cleaner" step every log.cleaner.backoff.ms, only when
// log.cleaner.enable is on. A run that uses neither schedules exactly the events it did before.
//
// Fetches are long polls (Kafka's DelayedFetch): a fetch that finds nothing to read is parked in
// a DelayedFetchPurgatory (broker/delayed_fetch.h) and answered when a write to one of its
// partitions makes it ready (SimBroker's log-append observer, at the write) or when its
// fetch.max.wait.ms passes ("broker:fetch-expiry", one event at the earliest deadline).
//
// Routing parked answers: a parked request is remembered by (group, member id) with the node and
// the client's callback. A new member has no id when it sends its first JoinGroup; the service
// learns the id the coordinator gave it by comparing the group's members before and after the
// call (the coordinator adds exactly one member per new JoinGroup).

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "broker/delayed_fetch.h"
#include "broker/sim_broker.h"
#include "event_loop/event_loop.h"
#include "network/sim_network.h"

namespace iq::sim {

class BrokerService {
 public:
  static constexpr const char* kNode = "broker";
  // What a request does at the broker: runs there at delivery, returns the handler that runs at
  // the client when the answer arrives (an empty Handler sends no answer).
  using Call = UniqueFunction<Handler(SimBroker& broker, int64_t now_ms)>;
  using JoinCallback = UniqueFunction<void(const JoinGroupResponse&)>;
  using SyncCallback = UniqueFunction<void(const SyncGroupResponse&)>;
  using HeartbeatCallback = UniqueFunction<void(Errors)>;

  BrokerService(EventLoop& loop, SimNetwork& network, SimBrokerConfig config = {});
  ~BrokerService();
  BrokerService(const BrokerService&) = delete;
  BrokerService& operator=(const BrokerService&) = delete;

  // --- requests over the network ---------------------------------------------------------------
  // Sends `label` from `from` to the broker; `call` runs at delivery, its answer goes back
  // labelled label + "-response".
  void request(const std::string& from, const std::string& label, Call call);
  // A requester's node and request label, resolved once: a request by route captures two numbers
  // where it copied the node's name and the label, and its answer's label is not built per
  // request (a consumer fetches again after every answer). `from` must be a registered node.
  struct Route {
    SimNetwork::NodeId from = 0;
    uint32_t label = 0;  // index into labels_
  };
  Route route(const std::string& from, const std::string& label);
  void request(const Route& route, Call call);
  // A fetch (Kafka's FetchRequest with max_wait_ms and fetch.min.bytes = 1): at delivery,
  // `ready` says whether the broker has something for it; if so, or if max_wait_ms is 0, `call`
  // answers at once. Else it waits in the purgatory, watched by `partitions`, and `call` answers
  // it at the first write after which `ready` holds, or max_wait_ms after delivery.
  using FetchReady = UniqueFunction<bool(const SimBroker& broker)>;
  void fetch(const Route& route, int64_t max_wait_ms, std::vector<TopicPartition> partitions,
             FetchReady ready, Call call);
  // Fetches waiting in the purgatory now, and those it refused because it was full.
  size_t fetches_parked() const { return purgatory_.size(); }
  uint64_t fetches_refused() const { return purgatory_.refused(); }
  void join_group(const std::string& from, const std::string& group_id,
                  const std::string& member_id, const std::string& client_id, const Bytes& metadata,
                  int32_t session_timeout_ms, int32_t rebalance_timeout_ms,
                  JoinCallback on_response);
  void sync_group(const std::string& from, const std::string& group_id,
                  const std::string& member_id, int32_t generation_id,
                  std::optional<std::map<std::string, Bytes>> assignments,
                  SyncCallback on_response);
  void heartbeat(const std::string& from, const std::string& group_id, const std::string& member_id,
                 int32_t generation_id, HeartbeatCallback on_response);

  // --- direct access (zero-latency calls, documented where they are used) ----------------------
  SimBroker& broker() { return broker_; }
  const SimBroker& broker() const { return broker_; }
  int64_t now_ms() const { return loop_.now().ms_since_epoch(); }
  EventLoop& loop() { return loop_; }
  SimNetwork& network() { return network_; }
  const SimNetwork& network() const { return network_; }
  // Cuts of the link between `node` and the broker, either way, so far. A change means the
  // connection broke: every request in flight on it failed (Kafka's DisconnectException).
  uint64_t link_cuts(const std::string& node) const;
  uint64_t link_cuts(SimNetwork::NodeId node) const;
  // The link between `node` and the broker is up both ways.
  bool reachable(const std::string& node) const;
  bool reachable(SimNetwork::NodeId node) const;
  // Call after touching the coordinator directly (a commit), so deadlines stay scheduled.
  void after_call();

  // Who produced each record a record collector sent (an omniscient fact for the trace: the
  // changelog witness tells a fenced member's late writes from the active's). Bounded by the
  // broker's own record bound: one entry per record produced.
  void record_writer(const TopicPartition& tp, int64_t offset, const std::string& node);
  // The node that produced `offset` of `tp` through a record collector, or nullptr.
  const std::string* writer(const TopicPartition& tp, int64_t offset) const;

  // Every GroupEvent so far (the latest events_kept_max of them), for tests and traces.
  const std::deque<GroupEvent>& group_events() const { return group_events_; }
  // The transaction coordinator's fences and timeouts, and the cleaner's steps that did work
  // (the latest kEventsKeptMax of each), for tests and traces.
  const std::deque<TxnEvent>& txn_events() const { return txn_events_; }
  const std::deque<CleanerStats>& cleaner_steps() const { return cleaner_steps_; }

 private:
  struct Parked {
    std::string node;
    std::variant<JoinCallback, SyncCallback> callback;
  };
  using MemberKey = std::pair<std::string, std::string>;  // (group, member)

  void reply(const std::string& to, const std::string& label, Handler on_arrival);
  void deliver_parked_responses();
  void drain_events();
  void plan_tick();
  void tick();
  void plan_txn_tick();
  void txn_tick();
  void cleaner_loop();
  // A parked fetch's request, kept until it is answered.
  struct ParkedFetch {
    Route route;
    FetchReady ready;
    Call call;
  };
  void answer_fetch(ParkedFetch& fetch);
  void on_log_append(const TopicPartition& tp);
  void plan_fetch_expiry();
  void fetch_expiry();

  static constexpr size_t kEventsKeptMax = 10'000;
  static constexpr size_t kParkedMax = 10'000;
  static constexpr size_t kLabelsMax = 10'000;

  EventLoop& loop_;
  SimNetwork& network_;
  SimNetwork::NodeId node_;  // kNode's number
  // The request labels routes name (a few per client name: "consumer:fetch", ...).
  std::vector<std::string> labels_;
  SimBroker broker_;
  std::map<MemberKey, Parked> parked_;
  DelayedFetchPurgatory purgatory_;
  std::map<uint64_t, ParkedFetch> parked_fetches_;  // by purgatory id
  uint64_t fetch_id_next_ = 1;
  EventId fetch_expiry_event_;
  EventId tick_event_;
  EventId txn_tick_event_;
  EventId cleaner_event_;
  std::deque<GroupEvent> group_events_;
  std::deque<TxnEvent> txn_events_;
  std::deque<CleanerStats> cleaner_steps_;
  std::vector<std::string> writer_nodes_;  // interned node names; writers_ holds indices
  // Per partition, (offset, index into writer_nodes_) in produce order, so offsets ascending.
  std::map<TopicPartition, std::vector<std::pair<int64_t, uint32_t>>> writers_;
};

}  // namespace iq::sim
