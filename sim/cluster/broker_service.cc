#include "cluster/broker_service.h"

#include <algorithm>
#include <vector>

namespace iq::sim {

uint64_t BrokerService::link_cuts(const std::string& node) const {
  return network_.cuts_between(node, kNode);
}

uint64_t BrokerService::link_cuts(SimNetwork::NodeId node) const {
  return network_.cuts_between(node, node_);
}

bool BrokerService::reachable(const std::string& node) const {
  return !network_.is_cut(node, kNode) && !network_.is_cut(kNode, node);
}

bool BrokerService::reachable(SimNetwork::NodeId node) const {
  return !network_.is_cut(node, node_) && !network_.is_cut(node_, node);
}

// The broker's node is registered before anything else is initialised from it.
static SimNetwork::NodeId broker_node(SimNetwork& network) {
  if (!network.has_node(BrokerService::kNode)) network.add_node(BrokerService::kNode);
  return network.node(BrokerService::kNode);
}

BrokerService::BrokerService(EventLoop& loop, SimNetwork& network, SimBrokerConfig config)
    : loop_(loop), network_(network), node_(broker_node(network)), broker_(config) {
  broker_.set_log_append_observer([this](const TopicPartition& tp) { on_log_append(tp); });
  if (broker_.cleaner_enabled()) {
    cleaner_event_ = loop_.schedule_after(base::Duration::millis(broker_.cleaner_backoff_ms()),
                                          "broker:log-cleaner", [this] { cleaner_loop(); });
  }
}

BrokerService::~BrokerService() {
  if (tick_event_.valid()) loop_.cancel(tick_event_);
  if (txn_tick_event_.valid()) loop_.cancel(txn_tick_event_);
  if (cleaner_event_.valid()) loop_.cancel(cleaner_event_);
  if (fetch_expiry_event_.valid()) loop_.cancel(fetch_expiry_event_);
}

void BrokerService::request(const std::string& from, const std::string& label, Call call) {
  request(route(from, label), std::move(call));
}

BrokerService::Route BrokerService::route(const std::string& from, const std::string& label) {
  const SimNetwork::NodeId node = network_.node(from);
  auto it = std::find(labels_.begin(), labels_.end(), label);
  if (it == labels_.end()) {
    IQ_ASSERT(labels_.size() < kLabelsMax, "{} request labels", labels_.size());
    it = labels_.insert(labels_.end(), label);
  }
  return Route{node, static_cast<uint32_t>(it - labels_.begin())};
}

void BrokerService::request(const Route& route, Call call) {
  IQ_ASSERT(route.label < labels_.size());
  network_.send(
      route.from, node_, labels_[route.label], {}, [this, route, call = std::move(call)]() mutable {
        Handler answer = call(broker_, now_ms());
        if (answer) {
          network_.send(node_, route.from, labels_[route.label], "-response", std::move(answer));
        }
        after_call();
      });
}

void BrokerService::fetch(const Route& route, int64_t max_wait_ms,
                          std::vector<TopicPartition> partitions, FetchReady ready, Call call) {
  IQ_ASSERT(route.label < labels_.size() && max_wait_ms >= 0);
  network_.send(route.from, node_, labels_[route.label], {},
                [this, route, max_wait_ms, partitions = std::move(partitions),
                 ready = std::move(ready), call = std::move(call)]() mutable {
                  ParkedFetch fetch{route, std::move(ready), std::move(call)};
                  // ReplicaManager.fetchMessages: answer now when there is something to read (or
                  // an error), when the fetch may not wait, or when the purgatory is full.
                  const uint64_t id = fetch_id_next_++;
                  if (max_wait_ms == 0 || partitions.empty() || fetch.ready(broker_) ||
                      !purgatory_.park(id, partitions, now_ms() + max_wait_ms)) {
                    answer_fetch(fetch);
                  } else {
                    parked_fetches_.emplace(id, std::move(fetch));
                    plan_fetch_expiry();
                  }
                  after_call();
                });
}

void BrokerService::answer_fetch(ParkedFetch& fetch) {
  Handler answer = fetch.call(broker_, now_ms());
  if (answer) {
    network_.send(node_, fetch.route.from, labels_[fetch.route.label], "-response",
                  std::move(answer));
  }
}

// DelayedFetch.tryComplete for every fetch a write to `tp` may complete, oldest first. Runs
// inside the write (the observer), as Kafka completes delayed fetches in the appending thread.
void BrokerService::on_log_append(const TopicPartition& tp) {
  if (parked_fetches_.empty()) return;
  bool completed = false;
  for (uint64_t id : purgatory_.watchers(tp)) {
    auto it = parked_fetches_.find(id);
    IQ_ASSERT(it != parked_fetches_.end(), "parked fetch {} unknown", id);
    if (!it->second.ready(broker_)) continue;
    purgatory_.remove(id);
    ParkedFetch fetch = std::move(it->second);
    parked_fetches_.erase(it);
    answer_fetch(fetch);
    completed = true;
  }
  if (completed) plan_fetch_expiry();
}

// Exactly one expiry event is scheduled, at the purgatory's earliest deadline.
void BrokerService::plan_fetch_expiry() {
  const std::optional<int64_t> deadline = purgatory_.next_deadline_ms();
  const base::Instant at =
      deadline ? base::Instant::from_ms(std::max(*deadline, now_ms())) : base::Instant::max();
  if (fetch_expiry_event_.valid() && fetch_expiry_event_.at == at) return;
  if (fetch_expiry_event_.valid()) loop_.cancel(fetch_expiry_event_);
  fetch_expiry_event_ = {};
  if (!deadline) return;
  fetch_expiry_event_ = loop_.schedule_at(at, "broker:fetch-expiry", [this] { fetch_expiry(); });
}

// fetch.max.wait.ms passed: DelayedFetch.onComplete answers with whatever is there.
void BrokerService::fetch_expiry() {
  fetch_expiry_event_ = {};
  for (uint64_t id : purgatory_.take_expired(now_ms())) {
    auto it = parked_fetches_.find(id);
    IQ_ASSERT(it != parked_fetches_.end(), "expired fetch {} unknown", id);
    ParkedFetch fetch = std::move(it->second);
    parked_fetches_.erase(it);
    answer_fetch(fetch);
  }
  plan_fetch_expiry();
}

void BrokerService::join_group(const std::string& from, const std::string& group_id,
                               const std::string& member_id, const std::string& client_id,
                               const Bytes& metadata, int32_t session_timeout_ms,
                               int32_t rebalance_timeout_ms, JoinCallback on_response) {
  network_.send(
      from, kNode, "join-group",
      [this, from, group_id, member_id, client_id, metadata, session_timeout_ms,
       rebalance_timeout_ms, on_response = std::move(on_response)]() mutable {
        GroupCoordinator& c = broker_.coordinator();
        const std::vector<std::string> before = c.members(group_id);
        auto answer = c.join_group(group_id, member_id, client_id, metadata, session_timeout_ms,
                                   rebalance_timeout_ms, now_ms());
        if (answer) {
          reply(from, "join-group-response",
                [answer = *answer, cb = std::move(on_response)]() mutable { cb(answer); });
        } else {
          std::string id = member_id;
          if (id.empty()) {
            // The one member the coordinator just added is this request's.
            for (const auto& m : c.members(group_id)) {
              if (!std::binary_search(before.begin(), before.end(), m)) id = m;
            }
          }
          IQ_ASSERT(!id.empty(), "parked JoinGroup from {} in {} has no member id", from, group_id);
          IQ_ASSERT(parked_.size() < kParkedMax, "parked requests {}", parked_.size());
          parked_.insert_or_assign(MemberKey{group_id, id}, Parked{from, std::move(on_response)});
        }
        after_call();
      });
}

void BrokerService::sync_group(const std::string& from, const std::string& group_id,
                               const std::string& member_id, int32_t generation_id,
                               std::optional<std::map<std::string, Bytes>> assignments,
                               SyncCallback on_response) {
  network_.send(
      from, kNode, "sync-group",
      [this, from, group_id, member_id, generation_id, assignments = std::move(assignments),
       on_response = std::move(on_response)]() mutable {
        auto answer = broker_.coordinator().sync_group(group_id, member_id, generation_id,
                                                       assignments, now_ms());
        if (answer) {
          reply(from, "sync-group-response",
                [answer = *answer, cb = std::move(on_response)]() mutable { cb(answer); });
        } else {
          IQ_ASSERT(parked_.size() < kParkedMax, "parked requests {}", parked_.size());
          parked_.insert_or_assign(MemberKey{group_id, member_id},
                                   Parked{from, std::move(on_response)});
        }
        after_call();
      });
}

void BrokerService::heartbeat(const std::string& from, const std::string& group_id,
                              const std::string& member_id, int32_t generation_id,
                              HeartbeatCallback on_response) {
  request(from, "heartbeat",
          [group_id, member_id, generation_id, cb = std::move(on_response)](
              SimBroker& broker, int64_t now) mutable -> Handler {
            const Errors e =
                broker.coordinator().heartbeat(group_id, member_id, generation_id, now);
            return [e, cb = std::move(cb)]() mutable { cb(e); };
          });
}

void BrokerService::after_call() {
  deliver_parked_responses();
  drain_events();
  plan_tick();
  plan_txn_tick();
}

void BrokerService::reply(const std::string& to, const std::string& label, Handler on_arrival) {
  network_.send(kNode, to, label, std::move(on_arrival));
}

// Answers to parked requests go back to the node that sent them, in completion order. An answer
// whose request was replaced (Kafka never answers those) or never parked here is dropped. One
// member has one parked request: its JoinGroup replaces a SyncGroup a cut left parked here, and
// that SyncGroup's answer (REBALANCE_IN_PROGRESS, from the very rebalance the JoinGroup started)
// then finds a JoinGroup parked. It is dropped, and the JoinGroup stays parked for its own answer:
// Kafka answers the old SyncGroup on the connection that broke, and the member never sees it.
void BrokerService::deliver_parked_responses() {
  for (GroupResponse& r : broker_.coordinator().take_responses()) {
    auto it = parked_.find(MemberKey{r.group_id, r.member_id});
    if (it == parked_.end()) continue;
    if (auto* join = std::get_if<JoinGroupResponse>(&r.response)) {
      auto* cb = std::get_if<JoinCallback>(&it->second.callback);
      if (cb == nullptr) continue;  // a SyncGroup is parked; this answer is not for it
      reply(it->second.node, "join-group-response",
            [answer = std::move(*join), cb = std::move(*cb)]() mutable { cb(answer); });
    } else {
      auto& sync = std::get<SyncGroupResponse>(r.response);
      auto* cb = std::get_if<SyncCallback>(&it->second.callback);
      if (cb == nullptr) continue;  // a JoinGroup is parked; this answer is not for it
      reply(it->second.node, "sync-group-response",
            [answer = std::move(sync), cb = std::move(*cb)]() mutable { cb(answer); });
    }
    parked_.erase(it);
  }
}

void BrokerService::drain_events() {
  for (GroupEvent& e : broker_.coordinator().take_events()) {
    group_events_.push_back(std::move(e));
    if (group_events_.size() > kEventsKeptMax) group_events_.pop_front();
  }
  for (TxnEvent& e : broker_.transactions().take_events()) {
    txn_events_.push_back(std::move(e));
    if (txn_events_.size() > kEventsKeptMax) txn_events_.pop_front();
  }
}

// Exactly one tick is scheduled, at the coordinator's earliest deadline.
void BrokerService::plan_tick() {
  const std::optional<int64_t> deadline = broker_.coordinator().next_deadline_ms();
  const base::Instant at =
      deadline ? base::Instant::from_ms(std::max(*deadline, now_ms())) : base::Instant::max();
  if (tick_event_.valid() && tick_event_.at == at) return;
  if (tick_event_.valid()) loop_.cancel(tick_event_);
  tick_event_ = {};
  if (!deadline) return;
  tick_event_ = loop_.schedule_at(at, "broker:group-tick", [this] { tick(); });
}

// At most one txn tick is scheduled, at the transaction coordinator's next abort; none while no
// transaction is open.
void BrokerService::plan_txn_tick() {
  const std::optional<int64_t> deadline = broker_.next_deadline_ms();
  const base::Instant at =
      deadline ? base::Instant::from_ms(std::max(*deadline, now_ms())) : base::Instant::max();
  if (txn_tick_event_.valid() && txn_tick_event_.at == at) return;
  if (txn_tick_event_.valid()) loop_.cancel(txn_tick_event_);
  txn_tick_event_ = {};
  if (!deadline) return;
  txn_tick_event_ = loop_.schedule_at(at, "broker:txn-tick", [this] { txn_tick(); });
}

void BrokerService::txn_tick() {
  txn_tick_event_ = {};
  (void)broker_.tick(now_ms());  // its events also stay in the log drained below
  after_call();
}

// One cleaning step per log.cleaner.backoff.ms (Kafka's cleaner thread sleeps that long when it
// found nothing to clean; here every step waits it, so the work per virtual interval is bounded).
void BrokerService::cleaner_loop() {
  if (auto stats = broker_.clean_step(now_ms())) {
    cleaner_steps_.push_back(*stats);
    if (cleaner_steps_.size() > kEventsKeptMax) cleaner_steps_.pop_front();
  }
  cleaner_event_ = loop_.schedule_after(base::Duration::millis(broker_.cleaner_backoff_ms()),
                                        "broker:log-cleaner", [this] { cleaner_loop(); });
}

void BrokerService::tick() {
  tick_event_ = {};
  (void)broker_.coordinator().tick(now_ms());  // its events also stay in the log drained below
  after_call();
}

void BrokerService::record_writer(const TopicPartition& tp, int64_t offset,
                                  const std::string& node) {
  auto name = std::find(writer_nodes_.begin(), writer_nodes_.end(), node);
  if (name == writer_nodes_.end()) name = writer_nodes_.insert(writer_nodes_.end(), node);
  auto& offsets = writers_[tp];
  IQ_ASSERT(offsets.empty() || offsets.back().first < offset, "writer of {}-{} offset {}", tp.first,
            tp.second, offset);
  offsets.emplace_back(offset, static_cast<uint32_t>(name - writer_nodes_.begin()));
}

const std::string* BrokerService::writer(const TopicPartition& tp, int64_t offset) const {
  auto it = writers_.find(tp);
  if (it == writers_.end()) return nullptr;
  const auto& offsets = it->second;
  auto at = std::lower_bound(offsets.begin(), offsets.end(), std::make_pair(offset, uint32_t{0}));
  if (at == offsets.end() || at->first != offset) return nullptr;
  return &writer_nodes_[at->second];
}

}  // namespace iq::sim
