#include "cluster/sim_clients.h"

#include <algorithm>

#include "base/probe.h"

namespace iq::sim {

namespace {

StreamsError timeout_error(const std::string& what, const std::string& node) {
  // Kafka's client would throw org.apache.kafka.common.errors.TimeoutException after
  // default.api.timeout.ms; the simulation fails at once instead of waiting.
  return StreamsError{StreamsError::Kind::Timeout, what + " from " + node + ": broker unreachable"};
}

void put_u32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}

bool get_u32(std::string_view in, size_t& at, uint32_t& v) {
  if (in.size() - at < 4) return false;
  v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(in[at++]);
  return true;
}

}  // namespace

// ---- SimConsumer
// ---------------------------------------------------------------------------------

SimConsumer::SimConsumer(BrokerService& service, std::string node, std::string name,
                         SimConsumerConfig config, ProcessGate* gate)
    : service_(service),
      node_(std::move(node)),
      name_(std::move(name)),
      fetch_label_(name_ + ":fetch"),
      config_(config),
      gate_(gate) {
  IQ_ASSERT(config_.fetch_max_wait_ms >= 0 && config_.max_records_per_fetch > 0);
}

SimConsumer::~SimConsumer() = default;
void SimConsumer::assign(const std::vector<TopicPartition>& partitions) {
  std::map<TopicPartition, PartitionState> kept;
  for (const auto& tp : partitions) {
    auto it = partitions_.find(tp);
    if (it != partitions_.end()) {
      kept.emplace(tp, std::move(it->second));
      continue;
    }
    // A new partition starts at the log start (auto.offset.reset=earliest); Streams seeks it to
    // the committed offset or checkpoint right after. Metadata is read with zero latency.
    auto begin = service_.broker().beginning_offset(tp);
    PartitionState state;
    reset(state, begin ? *begin : 0);
    kept.emplace(tp, std::move(state));
  }
  partitions_ = std::move(kept);
}

std::vector<TopicPartition> SimConsumer::assignment() const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, state] : partitions_) out.push_back(tp);
  return out;
}

void SimConsumer::seek(const TopicPartition& tp, int64_t next_offset) {
  auto it = partitions_.find(tp);
  IQ_ASSERT(it != partitions_.end(), "{}: seek on unassigned {}-{}", name_, tp.first, tp.second);
  IQ_ASSERT(next_offset >= 0, "{}: seek {}-{} to {}", name_, tp.first, tp.second, next_offset);
  reset(it->second, next_offset);
}

void SimConsumer::seek_to_beginning(const TopicPartition& tp) {
  auto begin = service_.broker().beginning_offset(tp);
  seek(tp, begin ? *begin : 0);
}

std::optional<int64_t> SimConsumer::position(const TopicPartition& tp) const {
  auto it = partitions_.find(tp);
  if (it == partitions_.end()) return std::nullopt;
  return it->second.position;
}

void SimConsumer::pause(const std::vector<TopicPartition>& partitions) {
  for (const auto& tp : partitions) {
    if (auto it = partitions_.find(tp); it != partitions_.end()) it->second.paused = true;
  }
}

void SimConsumer::resume(const std::vector<TopicPartition>& partitions) {
  for (const auto& tp : partitions) {
    if (auto it = partitions_.find(tp); it != partitions_.end()) it->second.paused = false;
  }
}

// Buffered records of unpaused partitions, partition by partition, each in offset order.
std::vector<ConsumerRecord> SimConsumer::poll(size_t max_records) {
  std::vector<ConsumerRecord> out;
  if (restore_ && gate_ != nullptr && gate_->arm != nullptr) {
    const bool any = std::any_of(partitions_.begin(), partitions_.end(), [](const auto& p) {
      return !p.second.paused && !p.second.buffer.empty();
    });
    if (any) (void)gate_->dies_at(CrashInsideAt::kRestorePoll, name_ + " poll");
  }
  for (auto& [tp, state] : partitions_) {
    if (state.paused) continue;
    while (!state.buffer.empty() && out.size() < max_records) {
      IQ_ASSERT(state.buffer.front().offset >= state.position, "{}: buffered offset {} position {}",
                name_, state.buffer.front().offset, state.position);
      state.position = state.buffer.front().offset + 1;
      out.push_back(std::move(state.buffer.front()));
      state.buffer.pop_front();
      // Past the last record, the position moves on to where the fetch said to continue.
      if (state.buffer.empty()) state.position = std::max(state.position, state.buffer_end);
    }
  }
  // Fetcher.sendFetches after collecting (KafkaConsumer.poll): the drained partitions go into the
  // next fetch, unless one is still outstanding.
  send_fetch();
  return out;
}

bool SimConsumer::has_pollable_records() const {
  return std::any_of(partitions_.begin(), partitions_.end(),
                     [](const auto& p) { return !p.second.paused && !p.second.buffer.empty(); });
}

size_t SimConsumer::buffered(const TopicPartition& tp) const {
  auto it = partitions_.find(tp);
  return it == partitions_.end() ? 0 : it->second.buffer.size();
}

void SimConsumer::reset(PartitionState& state, int64_t position) {
  state.position = position;
  state.epoch = epoch_next_++;
  state.fetch_in_flight.reset();
  state.buffer.clear();
  state.buffer_end = position;
}

// One FetchRequest (AbstractFetch.prepareFetchRequests) for every assigned, unpaused partition
// with nothing buffered, unless a fetch is still outstanding: Kafka sends at most one fetch to a
// node at a time, and there is one broker. The broker holds it up to fetch.max.wait.ms while it
// has nothing to read (BrokerService::fetch).
//
// Nothing goes out while the link to the broker is cut (the node is not ready). A fetch whose
// connection a cut broke is failed (Kafka's NetworkClient fails every request in flight on a
// closed connection, DisconnectException), and one unanswered for request.timeout.ms is taken as
// lost; either way the next one goes out now.
void SimConsumer::send_fetch() {
  // A stopped, dead or closed process sends nothing.
  if (gate_ != nullptr && (gate_->paused || gate_->dead() || gate_->closed)) return;
  if (!route_) {
    if (!service_.network().has_node(node_)) return;
    route_ = service_.route(node_, fetch_label_);
  }
  if (!service_.reachable(route_->from)) return;
  const uint64_t cuts = service_.link_cuts(route_->from);
  if (in_flight_ && in_flight_->cuts == cuts &&
      now_ms() - in_flight_->sent_ms < config_.request_timeout_ms) {
    return;
  }
  in_flight_.reset();
  struct Want {
    TopicPartition tp;
    int64_t offset;
    uint64_t epoch;
  };
  std::vector<Want> wants;
  std::vector<TopicPartition> partitions;
  const uint64_t fetch_id = fetch_id_next_;
  for (auto& [tp, state] : partitions_) {
    if (state.paused || !state.buffer.empty()) continue;
    state.fetch_in_flight = fetch_id;
    wants.push_back({tp, state.position, state.epoch});
    partitions.push_back(tp);
  }
  if (wants.empty()) return;
  ++fetch_id_next_;
  ++fetches_sent_;
  in_flight_ = InFlight{fetch_id, now_ms(), cuts};
  const int32_t max_records = config_.max_records_per_fetch;
  const IsolationLevel isolation = config_.isolation_level;
  BrokerService::FetchReady ready = [wants, isolation](const SimBroker& broker) {
    return std::any_of(wants.begin(), wants.end(), [&](const Want& w) {
      return broker.fetch_ready(w.tp, w.offset, isolation);
    });
  };
  // Runs once, at the broker (at delivery or when the parked fetch completes): the wants'
  // partitions move into the results.
  BrokerService::Call call = [this, alive = std::weak_ptr<Alive>(alive_), wants = std::move(wants),
                              fetch_id, max_records, isolation,
                              cuts](SimBroker& broker, int64_t) mutable -> Handler {
    std::vector<FetchResult> results;
    results.reserve(wants.size());
    for (Want& w : wants) {
      auto data = broker.fetch(w.tp, w.offset, max_records, isolation);
      FetchResult& r =
          results.emplace_back(FetchResult{std::move(w.tp), w.epoch, fetch_id, {}, std::nullopt});
      if (data) {
        r.records = std::move(data->records);
        r.next_fetch_offset = data->next_fetch_offset;
      }
    }
    return FetchAnswer{this, std::move(alive), cuts, std::move(results)};
  };
  service_.fetch(*route_, config_.fetch_max_wait_ms, std::move(partitions), std::move(ready),
                 std::move(call));
}

// At the consumer's node: handled now, or when the paused process resumes. An answer sent after
// a cut broke its connection (a fetch the broker held across the cut) is not delivered.
void SimConsumer::FetchAnswer::operator()() {
  if (alive.expired()) return;  // the process died meanwhile
  if (consumer->route_ && consumer->service_.link_cuts(consumer->route_->from) != cuts) return;
  ProcessGate* gate = consumer->gate_;
  auto handle = [answer = std::move(*this)]() mutable {
    if (answer.alive.expired()) return;
    const uint64_t id = answer.results.empty() ? 0 : answer.results.front().fetch_id;
    answer.consumer->on_fetch_response(id, answer.results);
  };
  if (gate != nullptr) {
    gate->deliver(std::move(handle));
  } else {
    handle();
  }
}

// Data of a partition that was sought, reassigned or revoked since the fetch went out is stale.
// Then, as the fetcher inside a blocked KafkaConsumer.poll: records to hand out wake the thread;
// an answer with nothing (a long poll that expired) is followed by the next fetch at once.
void SimConsumer::on_fetch_response(uint64_t fetch_id, std::vector<FetchResult>& results) {
  if (in_flight_ && in_flight_->id == fetch_id) in_flight_.reset();
  bool pollable = false;
  bool failed = false;
  for (FetchResult& r : results) {
    auto it = partitions_.find(r.tp);
    if (it == partitions_.end()) continue;
    PartitionState& state = it->second;
    if (state.epoch != r.epoch || state.fetch_in_flight != r.fetch_id) continue;
    state.fetch_in_flight.reset();
    IQ_ASSERT(state.buffer.empty(), "{}: fetched into a non-empty buffer", name_);
    for (ConsumerRecord& rec : r.records) {
      const int64_t after = state.buffer.empty() ? state.position : state.buffer.back().offset + 1;
      IQ_ASSERT(rec.offset >= after, "{}: fetched offset {} after {}", name_, rec.offset, after);
      state.buffer.push_back(std::move(rec));
    }
    if (!state.paused && !state.buffer.empty()) pollable = true;
    if (!r.next_fetch_offset) {
      failed = true;
      continue;
    }
    IQ_ASSERT(state.buffer.empty() || *r.next_fetch_offset > state.buffer.back().offset,
              "{}: next fetch offset {} before fetched {}", name_, *r.next_fetch_offset,
              state.buffer.back().offset);
    state.buffer_end = std::max(state.position, *r.next_fetch_offset);
    // Only markers, aborted records or removed offsets: the position moves past them now.
    if (state.buffer.empty()) state.position = state.buffer_end;
  }
  if (pollable) {
    if (wakeup_) wakeup_();
    return;
  }
  // An error waits for the next poll (Kafka backs off before it fetches such a partition again);
  // so does a fetch the broker could not hold (fetch.max.wait.ms = 0), or the loop would spin.
  if (!failed && config_.fetch_max_wait_ms > 0) send_fetch();
}

// ---- SimAdmin, SimRecordCollector
// ----------------------------------------------------------------

base::Expected<TopicPartitionOffsets, StreamsError> SimAdmin::end_offsets(
    const std::vector<TopicPartition>& partitions) {
  if (network_.is_cut(node_, BrokerService::kNode)) {
    return base::unexpected(timeout_error("listOffsets", node_));
  }
  TopicPartitionOffsets out;
  for (const auto& tp : partitions) {
    auto end = service_.broker().end_offset(tp);
    if (!end) {
      return base::unexpected(StreamsError{
          StreamsError::Kind::Streams, "listOffsets " + tp.first + "-" + std::to_string(tp.second) +
                                           ": " + errors_name(end.error())});
    }
    out[tp] = *end;
  }
  return out;
}

base::Expected<TopicPartitionOffsets, StreamsError> SimAdmin::list_end_offsets(
    const std::vector<TopicPartition>& partitions, IsolationLevel isolation_level) {
  if (network_.is_cut(node_, BrokerService::kNode)) {
    return base::unexpected(timeout_error("listOffsets", node_));
  }
  TopicPartitionOffsets out;
  for (const auto& tp : partitions) {
    auto end = service_.broker().end_offset(tp, isolation_level);
    if (!end) {
      return base::unexpected(StreamsError{
          StreamsError::Kind::Streams, "listOffsets " + tp.first + "-" + std::to_string(tp.second) +
                                           ": " + errors_name(end.error())});
    }
    out[tp] = *end;
  }
  return out;
}

base::Expected<int64_t, StreamsError> SimRecordCollector::send(const std::string& topic,
                                                               int32_t partition, const Bytes& key,
                                                               const std::optional<Bytes>& value,
                                                               int64_t timestamp,
                                                               const Headers& headers) {
  if (gate_ != nullptr &&
      gate_->dies_at(CrashInsideAt::kSend, "send " + topic + "-" + std::to_string(partition),
                     CrashSubject::send_to(topic, partition))) {
    const auto end = service_.broker().end_offset({topic, partition});
    return (end ? *end : 0) + dropped_[{topic, partition}]++;
  }
  if (network_.is_cut(node_, BrokerService::kNode)) {
    return base::unexpected(timeout_error("produce to " + topic, node_));
  }
  auto offset = service_.broker().produce({topic, partition}, key, value, timestamp, headers,
                                          service_.now_ms());
  if (!offset) {
    return base::unexpected(StreamsError{StreamsError::Kind::Streams,
                                         "produce to " + topic + "-" + std::to_string(partition) +
                                             ": " + errors_name(offset.error())});
  }
  service_.record_writer({topic, partition}, *offset, node_);
  return *offset;
}

// ---- the subscription envelope
// -------------------------------------------------------------------

Bytes encode_subscription(const std::vector<TopicPartition>& owned, const Bytes& user_data) {
  std::string out;
  put_u32(out, static_cast<uint32_t>(owned.size()));
  for (const auto& [topic, partition] : owned) {
    put_u32(out, static_cast<uint32_t>(topic.size()));
    out += topic;
    put_u32(out, static_cast<uint32_t>(partition));
  }
  out += user_data.get();
  return Bytes(std::move(out));
}

std::optional<DecodedSubscription> decode_subscription(const Bytes& metadata) {
  const std::string_view in = metadata.view();
  size_t at = 0;
  uint32_t count = 0;
  if (!get_u32(in, at, count)) return std::nullopt;
  DecodedSubscription out;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t len = 0;
    uint32_t partition = 0;
    if (!get_u32(in, at, len) || in.size() - at < len) return std::nullopt;
    std::string topic(in.substr(at, len));
    at += len;
    if (!get_u32(in, at, partition)) return std::nullopt;
    out.owned_partitions.emplace_back(std::move(topic), static_cast<int32_t>(partition));
  }
  out.user_data = Bytes(std::string(in.substr(at)));
  return out;
}

// ---- SimGroupMembership
// --------------------------------------------------------------------------

SimGroupMembership::SimGroupMembership(BrokerService& service, SimNetwork& network,
                                       std::string node, SimMembershipConfig config,
                                       ProcessGate* gate)
    : service_(service),
      network_(network),
      node_(std::move(node)),
      config_(std::move(config)),
      gate_(gate) {
  IQ_ASSERT(!config_.group_id.empty() && !config_.client_id.empty());
  IQ_ASSERT(config_.heartbeat_interval_ms > 0 &&
                config_.heartbeat_interval_ms < config_.session_timeout_ms,
            "heartbeat {} session {}", config_.heartbeat_interval_ms, config_.session_timeout_ms);
  heartbeat_loop();
}

SimGroupMembership::~SimGroupMembership() {
  if (heartbeat_event_.valid()) service_.loop().cancel(heartbeat_event_);
}

// Like KafkaConsumer.poll: handles what arrived (running the listener's callbacks here), then
// (re)joins if it has to, once the coordinator is reachable (AbstractCoordinator's
// ensureCoordinatorReady). A request whose answer can no longer come is failed first.
void SimGroupMembership::poll(RebalanceListener& listener) {
  if (gate_ != nullptr && gate_->dead()) return;  // a dead process handles and sends nothing
  while (!arrived_.empty()) {
    Arrived a = std::move(arrived_.front());
    arrived_.pop_front();
    std::visit([&](const auto& r) { handle(listener, a.request_id, r); }, a.response);
  }
  fail_lost_request();
  if (rejoin_needed_ && !join_in_flight_ && !sync_in_flight_ && coordinator_reachable()) {
    if (partitions_lost_) {
      // ConsumerCoordinator: a member whose generation was reset gives up what it owned
      // (onPartitionsLost) before it rejoins.
      partitions_lost_ = false;
      auto s = listener.on_partitions_lost();
      if (!s) callback_error_ = s.error();
    }
    send_join(listener);
  }
}

// The JoinGroup or SyncGroup in flight is failed, and the member rejoins, when its answer cannot
// come any more:
// - a cut broke the connection it went out on. Kafka's NetworkClient fails every request in
//   flight on a closed connection (DisconnectException); AbstractCoordinator marks the coordinator
//   unknown and retries the JoinGroup once it reaches the coordinator again. Without this, a
//   JoinGroup whose answer a cut dropped was waited on for its full timeout (305 s);
// - it timed out: a JoinGroup after the rebalance timeout + 5 s (Kafka's joinGroupTimeoutMs), a
//   SyncGroup after request.timeout.ms. This covers answers lost on a link that stayed up.
void SimGroupMembership::fail_lost_request() {
  if (!join_in_flight_ && !sync_in_flight_) return;
  const bool disconnected = connection_cuts() != request_cuts_;
  const int64_t waited_ms = now_ms() - request_sent_ms_;
  const int64_t timeout_ms =
      join_in_flight_ ? int64_t{config_.rebalance_timeout_ms} + 5'000 : config_.sync_timeout_ms;
  if (!disconnected && waited_ms <= timeout_ms) return;
  if (disconnected) ++requests_disconnected_;
  join_in_flight_.reset();
  sync_in_flight_.reset();
  rejoin_needed_ = true;
}

void SimGroupMembership::send_join(RebalanceListener& listener) {
  IQ_ASSERT(coordinator_reachable(), "{}: JoinGroup on a cut link", node_);
  rejoin_needed_ = false;
  joined_ = false;
  stable_ = false;
  const uint64_t id = request_id_next_++;
  join_in_flight_ = id;
  request_sent_ms_ = now_ms();
  request_cuts_ = connection_cuts();
  const Bytes metadata =
      encode_subscription(listener.owned_partitions(), listener.subscription_user_data());
  std::weak_ptr<Alive> alive = alive_;
  const uint64_t cuts = request_cuts_;
  service_.join_group(node_, config_.group_id, member_id_, config_.client_id, metadata,
                      config_.session_timeout_ms, config_.rebalance_timeout_ms,
                      [this, alive, id, cuts](const JoinGroupResponse& r) {
                        // An answer to a request whose connection broke cannot arrive.
                        if (alive.expired() || connection_cuts() != cuts) return;
                        arrive([this, alive, id, r] {
                          if (alive.expired()) return;
                          arrived_.push_back({id, r});
                          if (wakeup_) wakeup_();
                        });
                      });
}

void SimGroupMembership::handle(RebalanceListener& listener, uint64_t request_id,
                                const JoinGroupResponse& r) {
  if (join_in_flight_ != request_id) return;  // timed out and replaced
  join_in_flight_.reset();
  if (r.error != Errors::NONE) return on_error(r.error);
  member_id_ = r.member_id;
  generation_ = r.generation_id;
  joined_ = true;
  std::optional<std::map<std::string, Bytes>> assignments;
  if (r.is_leader()) {
    std::vector<JoinedMember> members;
    for (const JoinGroupMember& m : r.members) {
      auto decoded = decode_subscription(m.metadata);
      IQ_ASSERT(decoded.has_value(), "member {}: metadata is not a subscription envelope",
                m.member_id);
      members.push_back(
          {m.member_id, std::move(decoded->user_data), std::move(decoded->owned_partitions)});
    }
    auto assigned = listener.assign(members);
    if (!assigned) {
      // Kafka's leader would throw out of poll(); we keep the error and sync an empty assignment.
      callback_error_ = assigned.error();
      assignments.emplace();
    } else {
      assignments = std::move(*assigned);
    }
  }
  if (!coordinator_reachable()) {
    // The connection broke after the JoinGroup answer arrived: the SyncGroup cannot go out
    // (Kafka fails it with a DisconnectException), so the member rejoins once it can.
    ++requests_disconnected_;
    rejoin_needed_ = true;
    return;
  }
  const uint64_t id = request_id_next_++;
  sync_in_flight_ = id;
  request_sent_ms_ = now_ms();
  request_cuts_ = connection_cuts();
  std::weak_ptr<Alive> alive = alive_;
  const uint64_t cuts = request_cuts_;
  service_.sync_group(node_, config_.group_id, member_id_, generation_, std::move(assignments),
                      [this, alive, id, cuts](const SyncGroupResponse& s) {
                        if (alive.expired() || connection_cuts() != cuts) return;
                        arrive([this, alive, id, s] {
                          if (alive.expired()) return;
                          arrived_.push_back({id, s});
                          if (wakeup_) wakeup_();
                        });
                      });
}

void SimGroupMembership::handle(RebalanceListener& listener, uint64_t request_id,
                                const SyncGroupResponse& r) {
  if (sync_in_flight_ != request_id) return;
  sync_in_flight_.reset();
  if (r.error != Errors::NONE) return on_error(r.error);
  stable_ = true;
  auto s = listener.on_assignment(generation_, r.assignment);
  if (!s) callback_error_ = s.error();
}

// AbstractCoordinator's error handling: rejoin; an unknown member also forgets its id.
void SimGroupMembership::on_error(Errors e) {
  if (e == Errors::UNKNOWN_MEMBER_ID) {
    member_id_.clear();
    generation_ = kNoGeneration;
  }
  if (e == Errors::ILLEGAL_GENERATION) generation_ = kNoGeneration;
  if (e == Errors::UNKNOWN_MEMBER_ID || e == Errors::ILLEGAL_GENERATION) partitions_lost_ = true;
  joined_ = false;
  stable_ = false;
  rejoin_needed_ = true;
}

void SimGroupMembership::arrive(std::function<void()> f) {
  if (gate_ != nullptr) {
    gate_->deliver(std::move(f));
  } else {
    f();
  }
}

// The heartbeat thread: every heartbeat.interval.ms while joined, one heartbeat at a time, while
// the coordinator is reachable. A heartbeat in flight is lost when a cut broke its connection
// (DisconnectException) or after request.timeout.ms; the next one goes out at the next interval.
void SimGroupMembership::heartbeat_loop() {
  const bool lost =
      heartbeat_in_flight_ && (now_ms() - heartbeat_sent_ms_ > config_.sync_timeout_ms ||
                               connection_cuts() != heartbeat_cuts_);
  const bool paused = gate_ != nullptr && (gate_->paused || gate_->dead());
  if (!paused && joined_ && !join_in_flight_ && (!heartbeat_in_flight_ || lost) &&
      coordinator_reachable()) {
    heartbeat_in_flight_ = true;
    heartbeat_sent_ms_ = now_ms();
    heartbeat_cuts_ = connection_cuts();
    std::weak_ptr<Alive> alive = alive_;
    const int32_t generation = generation_;
    const uint64_t cuts = heartbeat_cuts_;
    service_.heartbeat(node_, config_.group_id, member_id_, generation_,
                       [this, alive, generation, cuts](Errors e) {
                         if (alive.expired() || connection_cuts() != cuts) return;
                         arrive([this, alive, generation, e] {
                           if (alive.expired()) return;
                           heartbeat_in_flight_ = false;
                           // An answer about an older generation says nothing about this one.
                           if (e == Errors::NONE || generation != generation_ || !joined_) return;
                           on_error(e);
                           // The heartbeat thread shares the consumer's network client: its
                           // answer ends the stream thread's blocked poll, whose loop then
                           // rejoins at once (AbstractCoordinator.ensureActiveGroup), not at
                           // the poll timeout.
                           if (wakeup_) wakeup_();
                         });
                       });
  }
  heartbeat_event_ = service_.loop().schedule_after(
      base::Duration::millis(config_.heartbeat_interval_ms),
      node_ + ":" + config_.client_id + ":heartbeat", [this] { heartbeat_loop(); });
}

uint64_t SimGroupMembership::connection_cuts() const {
  return service_.link_cuts(node_);
}

bool SimGroupMembership::coordinator_reachable() const {
  return service_.reachable(node_);
}

// OffsetCommit with zero latency. A stale generation or unknown member fails (Kafka's
// CommitFailedException); REBALANCE_IN_PROGRESS (the group is between JoinGroup and SyncGroup)
// skips the commit and reports success, as Streams retries at the next commit interval (see
// README: the seam has no "retry later" answer).
Status SimGroupMembership::commit_offsets(const TopicPartitionOffsets& offsets) {
  // A dead process's commit never reaches the coordinator; it cannot learn that it failed.
  if (gate_ != nullptr && gate_->dies_at(CrashInsideAt::kCommit, config_.client_id + " commit")) {
    return ok_status();
  }
  if (network_.is_cut(node_, BrokerService::kNode)) {
    return base::unexpected(timeout_error("commitSync", node_));
  }
  OffsetCommitMap map;
  for (const auto& [tp, offset] : offsets) map.emplace(tp, OffsetAndMetadata(offset));
  const Errors e =
      service_.broker().commit_offsets(config_.group_id, generation_, member_id_, map, now_ms());
  service_.after_call();
  if (e == Errors::NONE) return ok_status();
  if (e == Errors::REBALANCE_IN_PROGRESS) {
    ++commits_skipped_;
    return ok_status();
  }
  if (e == Errors::UNKNOWN_MEMBER_ID || e == Errors::ILLEGAL_GENERATION) {
    // CommitFailedException: this member was fenced; Streams turns it into TaskMigratedException.
    // Under at-least-once its writes since the last commit (changelog, sink) are already out:
    // a fenced member's late writes, which the new owner's restore may or may not see.
    if (!offsets.empty()) {
      IQ_PROBE("group.fenced_late_write", "a fenced member's offset commit failed after it wrote");
    }
    on_error(e);
    return base::unexpected(StreamsError{StreamsError::Kind::TaskMigrated,
                                         std::string("CommitFailedException: ") + errors_name(e)});
  }
  return base::unexpected(StreamsError{StreamsError::Kind::Streams,
                                       std::string("CommitFailedException: ") + errors_name(e)});
}

std::optional<int64_t> SimGroupMembership::committed(const TopicPartition& tp) const {
  auto c = service_.broker().committed(config_.group_id, tp);
  if (!c) return std::nullopt;
  return c->offset;
}

}  // namespace iq::sim
