#include "workload/query_client_workload.h"

#include <algorithm>

#include "base/probe.h"
#include "history/placement.h"
#include "iq/default_partitioner.h"
#include "iq/key_query.h"
#include "iq/multi_versioned_key_query.h"
#include "iq/range_query.h"
#include "iq/serdes.h"
#include "iq/state_query_request.h"
#include "iq/timestamped_key_query.h"
#include "iq/timestamped_range_query.h"
#include "iq/versioned_key_query.h"
#include "iq/window_key_query.h"
#include "iq/window_range_query.h"
#include "workload/query_conversion.h"
#include "workload/time_edges.h"

namespace iq::sim {

namespace {
// The largest retry backoff: doubling stops here (a scenario time's bound, about 31 years).
constexpr int64_t kRetryBackoffMsMax = 1'000'000'000'000;
}  // namespace

// What a logical query drew once; attempts share it.
struct QueryClientWorkload::Spec {
  uint64_t query = 0;
  bool range = false;
  bool timestamped = false;  // TimestampedKeyQuery / TimestampedRangeQuery
  int32_t key = 0;
  BoundMode bound_mode = BoundMode::kUnbounded;
  bool require_active = false;
  bool prefer_standby = false;
  ResultOrder order = ResultOrder::ANY;
  bool lower_open = false;
  bool upper_open = false;
  bool skip_cache = false;
  // 0: the key-value query drawn above; else a WindowKeyQuery (kWindowKey), a
  // WindowRangeQuery.withKey (kWindowRangeByKey) or .withWindowStartRange (kWindowRangeByTime).
  int32_t window = 0;
  bool inverted = false;  // a closed range with lower > upper
  bool unknown_store = false;
  bool direct = false;  // sent to any instance, without metadata
  // A versioned store's query: VersionedKeyQuery (as_of) or MultiVersionedKeyQuery (from, to,
  // order).
  bool versioned = false;
  bool multi_versioned = false;
  std::optional<int64_t> as_of_ms;
  std::optional<int64_t> from_time_ms;
  std::optional<int64_t> to_time_ms;
  // The partitions named: nullopt for all (no with_partitions); always holds the key's otherwise.
  std::optional<std::set<int32_t>> partitions;
  std::optional<IsolationLevel> isolation_level;  // StateQueryRequest.withIsolationLevel
  int32_t attempt = 0;
  // A previous attempt of this query got NOT_UP_TO_BOUND (for the "bound met after retries" probe).
  bool refused_bound = false;
};

struct QueryClientWorkload::Client {
  Client(int32_t i, std::string n, base::Prng p)
      : index(i), node(std::move(n)), prng(p), isolation_prng(p.split("isolation")) {}
  int32_t index = 0;
  std::string node;
  base::Prng prng;
  // The per-query isolation level's own stream (QueryClientConfig::isolation_level_odds).
  base::Prng isolation_prng;
  Position session = Position::empty_position();
  std::optional<Spec> spec;
};

// An attempt in flight: the record so far, the request, and the instance's answer once served.
struct QueryClientWorkload::Pending {
  QueryRecord record;
  std::optional<StateQueryRequest> request;
  std::set<int32_t> placement_partitions;
  EventId timeout{};
  bool served = false;
  OutcomeKind outcome = OutcomeKind::kAnswered;
  std::optional<StreamsError> error;
  std::vector<PartitionOutcome> partitions;
  std::optional<PlacementSnapshot> placement_at_answer;
};

namespace {

// A range query's order: ANY is Kafka's default (neither call made).
template <typename Q>
Q with_order(Q q, ResultOrder order) {
  if (order == ResultOrder::ASCENDING) return q.with_ascending_keys();
  if (order == ResultOrder::DESCENDING) return q.with_descending_keys();
  return q;
}

// One of the four key-value query types, in the shape the spec drew.
StateQueryRequest make_request(const std::string& store, bool range, bool timestamped,
                               std::optional<int32_t> lower, std::optional<int32_t> upper,
                               ResultOrder order, int32_t key, bool skip_cache) {
  if (range && timestamped) {
    return StateQueryRequest::in_store_with_query(
        store,
        with_order(TimestampedRangeQuery<int32_t, int64_t>::with_range(lower, upper), order));
  }
  if (range) {
    return StateQueryRequest::in_store_with_query(
        store, with_order(RangeQuery<int32_t, int64_t>::with_range(lower, upper), order));
  }
  if (timestamped) {
    auto q = TimestampedKeyQuery<int32_t, int64_t>::with_key(key);
    return StateQueryRequest::in_store_with_query(store, skip_cache ? q.skip_cache() : q);
  }
  auto q = KeyQuery<int32_t, int64_t>::with_key(key);
  return StateQueryRequest::in_store_with_query(store, skip_cache ? q.skip_cache() : q);
}

// The window query shapes of Spec::window.
constexpr int32_t kWindowKey = 1;
constexpr int32_t kWindowRangeByKey = 2;
constexpr int32_t kWindowRangeByTime = 3;

// A window query: a WindowKeyQuery or WindowRangeQuery.withWindowStartRange over [from, to] (a
// key-value store, which knows neither, is asked for windows starting in [0, now]), or a
// WindowRangeQuery.withKey. `pin`: the Kafka the client links against (WindowKeyQuery's getters).
StateQueryRequest make_window_request(const std::string& store, int32_t window, int32_t key,
                                      int64_t from_ms, int64_t to_ms, KafkaPin pin) {
  if (window == kWindowKey) {
    return StateQueryRequest::in_store_with_query(
        store, WindowKeyQuery<int32_t, int64_t>::with_key_and_window_start_range(key, from_ms,
                                                                                 to_ms, pin));
  }
  if (window == kWindowRangeByTime) {
    return StateQueryRequest::in_store_with_query(
        store, WindowRangeQuery<int32_t, int64_t>::with_window_start_range(from_ms, to_ms));
  }
  IQ_ASSERT(window == kWindowRangeByKey, "window shape {}", window);
  return StateQueryRequest::in_store_with_query(store,
                                                WindowRangeQuery<int32_t, int64_t>::with_key(key));
}

// A VersionedKeyQuery or MultiVersionedKeyQuery, in the shape the spec drew.
StateQueryRequest make_versioned_request(const std::string& store, int32_t key, bool multi,
                                         std::optional<int64_t> as_of_ms,
                                         std::optional<int64_t> from_ms,
                                         std::optional<int64_t> to_ms, ResultOrder order) {
  if (!multi) {
    auto q = VersionedKeyQuery<int32_t, int64_t>::with_key(key);
    if (as_of_ms) q = q.as_of(*as_of_ms);
    return StateQueryRequest::in_store_with_query(store, q);
  }
  auto q =
      MultiVersionedKeyQuery<int32_t, int64_t>::with_key(key).from_time(from_ms).to_time(to_ms);
  if (order == ResultOrder::ASCENDING) q = q.with_ascending_timestamps();
  if (order == ResultOrder::DESCENDING) q = q.with_descending_timestamps();
  return StateQueryRequest::in_store_with_query(store, q);
}

// A draw that is off takes nothing from the Prng, so configurations without it keep their runs.
bool maybe(base::Prng& prng, base::Ratio odds) {
  return odds.num > 0 && prng.chance(odds);
}

bool has_reason(const QueryRecord& r, FailureReason reason) {
  for (const auto& p : r.partitions) {
    if (p.failure_reason == reason) return true;
  }
  return false;
}

}  // namespace

QueryClientWorkload::QueryClientWorkload(Cluster& cluster, History& history,
                                         QueryClientConfig config, base::Prng prng,
                                         const ProducerWorkload* producer)
    : QueryClientWorkload(cluster, history, std::move(config), prng,
                          producer == nullptr ? ProducedBound() : ProducedBound([producer] {
                            return producer->acknowledged();
                          })) {}

QueryClientWorkload::QueryClientWorkload(Cluster& cluster, History& history,
                                         QueryClientConfig config, base::Prng prng,
                                         ProducedBound produced)
    : cluster_(cluster),
      history_(history),
      config_(std::move(config)),
      prng_(prng),
      produced_(std::move(produced)) {
  IQ_ASSERT(config_.clients >= 1 && config_.clients <= 1'000, "clients={}", config_.clients);
  IQ_ASSERT(!config_.bound_modes.empty());
  IQ_ASSERT(
      produced_ != nullptr || std::find(config_.bound_modes.begin(), config_.bound_modes.end(),
                                        BoundMode::kProduced) == config_.bound_modes.end(),
      "a produced bound needs a producer");
  IQ_ASSERT(config_.retry.attempts_max >= 1 && config_.retry.attempts_max <= 100, "attempts_max={}",
            config_.retry.attempts_max);
  IQ_ASSERT(config_.timeout_ms >= 1 && config_.interval_ms >= 1 && config_.range_width >= 1);
  for (int32_t i = 0; i < config_.clients; ++i) {
    clients_.push_back(std::make_unique<Client>(i, node_name(i), prng_.split(node_name(i))));
  }
}

QueryClientWorkload::~QueryClientWorkload() {
  // Handlers still queued in the loop hold a weak token and become no-ops; timeouts are dropped.
  for (auto& [id, p] : pending_) (void)cluster_.loop().cancel(p->timeout);
}

void QueryClientWorkload::start() {
  for (auto& c : clients_) {
    if (!cluster_.network().has_node(c->node)) cluster_.network().add_node(c->node);
    const int64_t at_ms = std::max(config_.start_ms, cluster_.now_ms());
    std::weak_ptr<Alive> weak = alive_;
    const int32_t client = c->index;
    (void)cluster_.loop().schedule_at(base::Instant::from_ms(at_ms), c->node + ":start",
                                      [this, weak, client] {
                                        if (!weak.expired()) start_query(client);
                                      });
  }
}

const Position& QueryClientWorkload::session_position(int32_t client) const {
  IQ_ASSERT(client >= 0 && client < config_.clients, "client {}", client);
  return clients_[static_cast<size_t>(client)]->session;
}

void QueryClientWorkload::start_query(int32_t client) {
  Client& c = *clients_[static_cast<size_t>(client)];
  IQ_ASSERT(!c.spec.has_value(), "{} starts a query while one is open", c.node);
  if (cluster_.now_ms() >= config_.stop_ms) return;
  Spec s;
  s.query = ++queries_started_;
  s.range = c.prng.chance(config_.range_odds);
  s.timestamped = c.prng.chance(config_.timestamped_odds);
  s.key = draw_key(c.prng, config_.distribution, config_.keys);
  s.bound_mode = c.prng.pick(config_.bound_modes);
  s.require_active = c.prng.chance(config_.require_active_odds);
  s.prefer_standby = c.prng.chance(config_.standby_odds);
  if (s.require_active && !config_.require_active_bounded) s.bound_mode = BoundMode::kUnbounded;
  if (maybe(c.prng, config_.absent_key_odds)) {
    // A key no producer writes (they draw from [0, keys)): the answer is null or no entries.
    s.key = config_.keys + static_cast<int32_t>(c.prng.below(static_cast<uint64_t>(config_.keys)));
  }
  const TopologyConfig& topology = cluster_.config().topology;
  if (topology.versioned()) draw_versioned(c, s);
  if (topology.windowed() || topology.session()) draw_windowed(c, s);
  if (topology.versioned() || topology.windowed()) draw_time_edge(c, s);
  if (s.range) {
    if (config_.range_orders.size() > 1) s.order = c.prng.pick(config_.range_orders);
    if (config_.range_orders.size() == 1) s.order = config_.range_orders.front();
    if (maybe(c.prng, config_.open_range_odds)) {
      switch (c.prng.below(3)) {
        case 0:
          s.lower_open = true;
          break;
        case 1:
          s.upper_open = true;
          break;
        default:
          s.lower_open = s.upper_open = true;
          break;
      }
    }
  } else {
    s.skip_cache = maybe(c.prng, config_.skip_cache_odds);
  }
  const int32_t source_partitions = cluster_.config().topology.source_partitions;
  const int32_t key_partition =
      partition_for_key(Serde<int32_t>::serialize(s.key).view(), source_partitions);
  s.partitions = std::set<int32_t>{key_partition};
  if (maybe(c.prng, config_.all_partitions_odds)) {
    s.partitions.reset();
  } else if (source_partitions > 1 && maybe(c.prng, config_.multi_partition_odds)) {
    // One other partition surely, each of the rest with even odds.
    const int32_t other = static_cast<int32_t>(
        (key_partition + 1 +
         static_cast<int32_t>(c.prng.below(static_cast<uint64_t>(source_partitions - 1)))) %
        source_partitions);
    s.partitions->insert(other);
    for (int32_t p = 0; p < source_partitions; ++p) {
      if (p != key_partition && p != other && c.prng.chance({1, 2})) s.partitions->insert(p);
    }
  }
  // Drawn last, so that workloads without them keep every earlier draw.
  if (maybe(c.prng, config_.window_query_odds)) {
    if (topology.windowed()) {
      s.window = kWindowRangeByKey;  // a window store answers only the time-range form
      s.from_time_ms.reset();        // withKey asks no window-start range
      s.to_time_ms.reset();
    } else if (topology.session()) {
      // A session store answers only WindowRangeQuery.withKey.
      s.window = c.prng.chance({1, 2}) ? kWindowKey : kWindowRangeByTime;
      draw_time_range(c, s);
    } else {
      s.window = c.prng.chance({1, 2}) ? kWindowKey : kWindowRangeByKey;
      if (s.window == kWindowKey) {
        s.from_time_ms = 0;
        s.to_time_ms = cluster_.now_ms();
      }
    }
    s.range = false;
    s.skip_cache = false;
  }
  if (s.range && !s.lower_open && !s.upper_open) {
    s.inverted = maybe(c.prng, config_.inverted_range_odds);
  }
  s.unknown_store = maybe(c.prng, config_.unknown_store_odds);
  s.direct = maybe(c.prng, config_.direct_odds);
  if (maybe(c.isolation_prng, config_.isolation_level_odds)) {
    s.isolation_level = c.isolation_prng.chance({1, 2}) ? IsolationLevel::READ_COMMITTED
                                                        : IsolationLevel::READ_UNCOMMITTED;
  }
  c.spec = s;
  attempt(client);
}

// The versioned shape of a query, drawn after the key-value draws (which it then overrides), so
// that key-value runs draw exactly as before. Times fall in [0, event time] (now, unless a
// producer's stream-time jumps stamped records ahead of it), so asOf and ranges land among
// versions, before them and beyond history retention.
void QueryClientWorkload::draw_versioned(Client& c, Spec& s) {
  s.versioned = true;
  s.range = false;
  s.timestamped = false;
  const auto time = [&] {
    return static_cast<int64_t>(c.prng.below(static_cast<uint64_t>(event_time_ms()) + 1));
  };
  s.multi_versioned = c.prng.chance(config_.multi_versioned_odds);
  if (!s.multi_versioned) {
    if (c.prng.chance(config_.as_of_odds)) s.as_of_ms = time();
    return;
  }
  int64_t from = time();
  int64_t to = time();
  if (from > to) std::swap(from, to);
  if (!c.prng.chance({1, 4})) s.from_time_ms = from;
  if (!c.prng.chance({1, 4})) s.to_time_ms = to;
  std::vector<ResultOrder> orders{ResultOrder::ANY, ResultOrder::ASCENDING,
                                  ResultOrder::DESCENDING};
  s.order = c.prng.pick(orders);
}

// The window or session shape of a query, drawn after the key-value draws (which it then
// overrides), as draw_versioned does: the query type the store family answers, over a random
// window-start range.
void QueryClientWorkload::draw_windowed(Client& c, Spec& s) {
  s.range = false;
  s.timestamped = false;
  s.skip_cache = false;
  if (cluster_.config().topology.session()) {
    s.window = kWindowRangeByKey;
    return;
  }
  s.window = c.prng.chance(config_.window_range_odds) ? kWindowRangeByTime : kWindowKey;
  draw_time_range(c, s);
}

// A window-start range with both ends in [0, event time]: below the retention floor, among the
// live windows, or reaching the newest; upside down (empty) with inverted_range_odds.
void QueryClientWorkload::draw_time_range(Client& c, Spec& s) {
  const auto time = [&] {
    return static_cast<int64_t>(c.prng.below(static_cast<uint64_t>(event_time_ms()) + 1));
  };
  int64_t from = time();
  int64_t to = time();
  if (from > to) std::swap(from, to);
  if (maybe(c.prng, config_.inverted_range_odds) && from != to) std::swap(from, to);
  s.from_time_ms = from;
  s.to_time_ms = to;
}

// With time_edge_odds, a window or versioned query's time bound moved to an edge the store
// compares against (time_edges.h), in the key's partition: asOf, or one end of the time range
// (the other end is kept on its side of it), or both ends (a window-start range of one instant).
void QueryClientWorkload::draw_time_edge(Client& c, Spec& s) {
  if (config_.time_edge_odds.num == 0 || !c.prng.chance(config_.time_edge_odds)) return;
  const TopologyConfig& t = cluster_.config().topology;
  const int32_t partition =
      partition_for_key(Serde<int32_t>::serialize(s.key).view(), t.source_partitions);
  const int64_t stream_time_ms = cluster_.max_timestamp_ms(partition);
  static const std::vector<int64_t> kNoRecords;
  const auto found = cluster_.produced_timestamps().find(s.key);
  const std::vector<int64_t>& key_timestamps =
      found == cluster_.produced_timestamps().end() ? kNoRecords : found->second;
  const std::vector<int64_t> edges =
      t.versioned() ? time_edges::versioned_query_edges(t, key_timestamps, stream_time_ms, c.prng)
                    : time_edges::window_query_edges(t, key_timestamps, stream_time_ms, c.prng);
  if (edges.empty()) return;
  const int64_t at_ms = time_edges::near(c.prng, c.prng.pick(edges));
  IQ_PROBE("query.time_edge", "a window or versioned query drew a time bound at an edge");
  if (s.versioned && !s.multi_versioned) {
    s.as_of_ms = at_ms;
    return;
  }
  switch (c.prng.below(3)) {
    case 0:
      s.from_time_ms = at_ms;
      if (s.to_time_ms && *s.to_time_ms < at_ms) s.to_time_ms = at_ms;
      break;
    case 1:
      s.to_time_ms = at_ms;
      if (s.from_time_ms && *s.from_time_ms > at_ms) s.from_time_ms = at_ms;
      break;
    default:
      s.from_time_ms = s.to_time_ms = at_ms;
      break;
  }
}

// The event time the source topic reached: records may be stamped ahead of now (a producer's
// stream-time jumps) or behind it.
int64_t QueryClientWorkload::event_time_ms() const {
  return std::max(cluster_.now_ms(), cluster_.max_timestamp_ms());
}

void QueryClientWorkload::attempt(int32_t client) {
  Client& c = *clients_[static_cast<size_t>(client)];
  IQ_ASSERT(c.spec.has_value());
  Spec& s = *c.spec;
  ++s.attempt;
  QueryRecord r;
  r.id = history_.next_id();
  r.client = client;
  r.query = s.query;
  r.attempt = s.attempt;
  r.invoke_ms = cluster_.loop().now();
  r.request.store = s.unknown_store ? config_.store + kUnknownStoreSuffix : config_.store;
  r.request.key = s.key;
  r.request.bound_mode = s.bound_mode;
  r.request.require_active = s.require_active;
  r.request.skip_cache = s.skip_cache;
  if (s.bound_mode == BoundMode::kSession) r.request.bound = c.session;
  if (s.bound_mode == BoundMode::kProduced) r.request.bound = produced_();

  std::optional<int32_t> lower;
  std::optional<int32_t> upper;
  if (s.range) {
    if (!s.lower_open) lower = s.key;
    if (!s.upper_open) upper = s.key + config_.range_width - 1;
    if (s.inverted) {
      lower = s.key + std::max(config_.range_width - 1, 1);
      upper = s.key;
    }
  }
  auto request =
      s.versioned ? make_versioned_request(r.request.store, s.key, s.multi_versioned, s.as_of_ms,
                                           s.from_time_ms, s.to_time_ms, s.order)
      : s.window != 0
          ? make_window_request(r.request.store, s.window, s.key, s.from_time_ms.value_or(0),
                                s.to_time_ms.value_or(0), cluster_.config().streams.kafka_pin)
          : make_request(r.request.store, s.range, s.timestamped, lower, upper, s.order, s.key,
                         s.skip_cache);
  if (s.isolation_level) request = request.with_isolation_level(*s.isolation_level);
  r.request.isolation_level = s.isolation_level;
  r.request.query = request.query().describe();
  r.request.kind = request.query().kind();
  if (s.range) {
    r.request.lower = lower;
    r.request.upper = upper;
    r.request.order = s.order;
  }
  if (s.window != 0) {
    // The window-start range asked (absent on WindowRangeQuery.withKey, whose key is `key`).
    r.request.from_time_ms = s.from_time_ms;
    r.request.to_time_ms = s.to_time_ms;
  }
  if (s.versioned) {
    r.request.as_of_ms = s.as_of_ms;
    r.request.from_time_ms = s.from_time_ms;
    r.request.to_time_ms = s.to_time_ms;
    if (s.multi_versioned) r.request.order = s.order;
  }
  const int32_t source_partitions = cluster_.config().topology.source_partitions;
  const int32_t key_partition =
      partition_for_key(Serde<int32_t>::serialize(s.key).view(), source_partitions);
  IQ_ASSERT(!s.partitions || s.partitions->count(key_partition) == 1, "key {} partition {}", s.key,
            key_partition);
  r.request.partitions = s.partitions;
  std::set<int32_t> placement_partitions;
  if (s.partitions) {
    placement_partitions = *s.partitions;
  } else {
    for (int32_t p = 0; p < source_partitions; ++p) placement_partitions.insert(p);
  }
  r.placement_at_invoke = take_placement(cluster_, r.request.store, placement_partitions);

  int32_t partition = -1;
  const bool routed = s.direct ? route_direct(c, r) : route(c, r, partition);
  if (!routed) {
    r.outcome = OutcomeKind::kNotRouted;
    r.complete_ms = r.invoke_ms;
    finish_attempt(client, std::move(r));
    return;
  }
  IQ_ASSERT(s.direct || partition == key_partition, "metadata partition {} != {} for key {}",
            partition, key_partition, s.key);
  request = s.partitions ? request.with_partitions(*s.partitions) : request.with_all_partitions();
  request = request.with_position_bound(PositionBound::at(r.request.bound));
  if (s.require_active) request = request.require_active();
  auto p = std::make_unique<Pending>();
  p->request = std::move(request);
  p->placement_partitions = std::move(placement_partitions);
  p->record = std::move(r);
  const uint64_t id = p->record.id;
  const std::string target = p->record.target_instance;
  std::weak_ptr<Alive> weak = alive_;
  p->timeout = cluster_.loop().schedule_after(base::Duration::millis(config_.timeout_ms),
                                              c.node + ":timeout", [this, weak, id] {
                                                if (!weak.expired()) on_timeout(id);
                                              });
  pending_.emplace(id, std::move(p));
  const std::string from = c.node;
  cluster_.network().send(from, target, "query", [this, weak, id, target, from] {
    if (!weak.expired()) serve(id, target, from);
  });
}

// The application's routing: metadata from a live home instance, then the active host or a
// standby host. False (with a reason in the record) when there is nowhere to send the query.
bool QueryClientWorkload::route(Client& c, QueryRecord& r, int32_t& partition) {
  std::vector<Instance*> live;
  for (int32_t n = 1; n <= cluster_.instance_count(); ++n) {
    if (cluster_.instance(n).running()) live.push_back(&cluster_.instance(n));
  }
  if (live.empty()) {
    r.not_routed_reason = "no live instance";
    return false;
  }
  Instance* home = c.prng.pick(live);
  r.home_instance = home->name();
  auto meta = home->streams().query_metadata_for_key(config_.store, c.spec->key);
  if (!meta) {
    r.not_routed_reason = "query_metadata_for_key: " + meta.error().to_string();
    return false;
  }
  if (meta->partition < 0 || meta->active_host == HostInfo::unavailable()) {
    r.not_routed_reason = "metadata not available";
    return false;
  }
  HostInfo target = meta->active_host;
  if (c.spec->prefer_standby && !meta->standby_hosts.empty()) {
    std::vector<HostInfo> standbys(meta->standby_hosts.begin(), meta->standby_hosts.end());
    target = c.prng.pick(standbys);
    r.to_standby = true;
  }
  if (instance_named(target.host) == nullptr) {
    r.not_routed_reason = "unknown host " + target.to_string();
    return false;
  }
  r.target_instance = target.host;
  partition = meta->partition;
  return true;
}

// A load balancer's pick: any instance not removed, whatever its state (no metadata asked).
bool QueryClientWorkload::route_direct(Client& c, QueryRecord& r) {
  std::vector<Instance*> present;
  for (int32_t n = 1; n <= cluster_.instance_count(); ++n) {
    if (!cluster_.instance(n).retired()) present.push_back(&cluster_.instance(n));
  }
  if (present.empty()) {
    r.not_routed_reason = "no instance";
    return false;
  }
  r.target_instance = c.prng.pick(present)->name();
  return true;
}

// At the instance, when the request arrives: run the query if the application is alive and
// answer. An application whose KafkaStreams was closed is alive and asks the closed client
// (Kafka's StreamsStoppedException); a crashed one answers nothing.
void QueryClientWorkload::serve(uint64_t id, const std::string& target, const std::string& from) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;  // the client gave up already; nobody reads the answer
  Instance* instance = instance_named(target);
  IQ_ASSERT(instance != nullptr, "target {}", target);
  if (!instance->running() && instance->closed_streams() == nullptr) {
    return;  // a dead process: the request is lost, the client times out
  }
  if (instance->paused()) {
    // A stopped process: the request waits in its socket and is served (in order) on resume.
    std::weak_ptr<Alive> weak = alive_;
    instance->deliver([this, weak, id, target, from] {
      if (!weak.expired()) serve(id, target, from);
    });
    return;
  }
  Pending& p = *it->second;
  IQ_ASSERT(!p.served, "record {} served twice", id);
  p.served = true;
  KafkaStreams& streams = instance->running() ? instance->streams() : *instance->closed_streams();
  auto result = streams.query(*p.request);
  p.placement_at_answer = take_placement(cluster_, p.record.request.store, p.placement_partitions);
  QueryRecord answer;
  // A WindowKeyQuery's entries carry no key (Kafka gives (window start, value) pairs): the
  // conversion takes it from the request.
  answer.request.key = p.record.request.key;
  record_outcome(answer, result);
  p.outcome = answer.outcome;
  p.error = std::move(answer.error);
  p.partitions = std::move(answer.partitions);
  std::weak_ptr<Alive> weak = alive_;
  cluster_.network().send(target, from, "reply", [this, weak, id] {
    if (!weak.expired()) complete(id);
  });
}

void QueryClientWorkload::complete(uint64_t id) {
  auto node = pending_.extract(id);
  if (node.empty()) return;  // timed out before the reply arrived
  Pending& p = *node.mapped();
  IQ_ASSERT(p.served, "reply for record {} that was never served", id);
  (void)cluster_.loop().cancel(p.timeout);
  QueryRecord r = std::move(p.record);
  r.complete_ms = cluster_.loop().now();
  r.outcome = p.outcome;
  r.error = std::move(p.error);
  r.partitions = std::move(p.partitions);
  r.placement_at_answer = std::move(p.placement_at_answer);
  finish_attempt(r.client, std::move(r));
}

void QueryClientWorkload::on_timeout(uint64_t id) {
  auto node = pending_.extract(id);
  IQ_ASSERT(!node.empty(), "timeout of record {} that is not pending", id);
  QueryRecord r = std::move(node.mapped()->record);
  r.complete_ms = cluster_.loop().now();
  r.outcome = OutcomeKind::kTimedOut;
  finish_attempt(r.client, std::move(r));
}

// Records the attempt, feeds the session position, then retries or schedules the next query.
void QueryClientWorkload::finish_attempt(int32_t client, QueryRecord record) {
  Client& c = *clients_[static_cast<size_t>(client)];
  IQ_ASSERT(c.spec.has_value() && c.spec->attempt == record.attempt);
  bool bounded_success = false;
  for (const auto& p : record.partitions) {
    if (p.success && p.position) c.session.merge(*p.position);
    if (p.success && !record.request.bound.is_empty()) bounded_success = true;
  }
  if (has_reason(record, FailureReason::NOT_UP_TO_BOUND)) c.spec->refused_bound = true;
  if (bounded_success && c.spec->refused_bound && !record.request.require_active) {
    IQ_PROBE("query.bound_met_after_retry",
             "a bounded query refused NOT_UP_TO_BOUND succeeded on a later attempt");
  }
  const bool wants_retry = should_retry(record);
  const int32_t attempt_no = record.attempt;
  history_.append(std::move(record));
  std::weak_ptr<Alive> weak = alive_;
  if (wants_retry && attempt_no < config_.retry.attempts_max) {
    // Doubled per attempt up to kRetryBackoffMsMax: 100 attempts would shift past 64 bits.
    int64_t backoff_ms = config_.retry.backoff_ms;
    for (int32_t n = 1; n < attempt_no && backoff_ms < kRetryBackoffMsMax; ++n) backoff_ms *= 2;
    backoff_ms = std::min(backoff_ms, kRetryBackoffMsMax);
    (void)cluster_.loop().schedule_after(base::Duration::millis(backoff_ms), c.node + ":retry",
                                         [this, weak, client] {
                                           if (!weak.expired()) attempt(client);
                                         });
    return;
  }
  if (wants_retry) ++queries_given_up_;
  c.spec.reset();
  (void)cluster_.loop().schedule_after(base::Duration::millis(config_.interval_ms),
                                       c.node + ":next", [this, weak, client] {
                                         if (!weak.expired()) start_query(client);
                                       });
}

bool QueryClientWorkload::should_retry(const QueryRecord& r) const {
  const RetryPolicy& p = config_.retry;
  switch (r.outcome) {
    case OutcomeKind::kNotRouted:
      return p.on_not_routed;
    case OutcomeKind::kTimedOut:
      return p.on_timeout;
    case OutcomeKind::kStreamsError:
      return p.on_streams_error;
    case OutcomeKind::kAnswered:
      return (p.on_not_up_to_bound && has_reason(r, FailureReason::NOT_UP_TO_BOUND)) ||
             (p.on_not_active && has_reason(r, FailureReason::NOT_ACTIVE)) ||
             (p.on_not_present && has_reason(r, FailureReason::NOT_PRESENT));
  }
  return false;
}

Instance* QueryClientWorkload::instance_named(const std::string& name) {
  for (int32_t n = 1; n <= cluster_.instance_count(); ++n) {
    if (cluster_.instance(n).name() == name) return &cluster_.instance(n);
  }
  return nullptr;
}

}  // namespace iq::sim
