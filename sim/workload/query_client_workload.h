#pragma once
// QueryClientWorkload: N query clients, each a network node ("client-0", ...) that issues one
// logical query at a time, routes it the way an application's RPC layer does and retries it with
// backoff. Every attempt lands in the History with placement snapshots.
//
// One attempt:
//   1. Pick a home: a live instance, drawn from the client's Prng. Its KafkaStreams answers
//      query_metadata_for_key(store, key) (a local call inside the application process).
//   2. Route: the active host, or (with standby_odds, when there is one) a standby host.
//   3. Send "query" over SimNetwork client -> instance. At delivery, if the instance process is
//      alive, KafkaStreams::query runs there and the answer goes back as "reply" instance ->
//      client. A dead instance drops the request; the client learns it only by its timeout.
//   4. Complete on the reply or on the timeout, whichever comes first; record; retry or move on.
//
// Each logical query draws, once: KeyQuery or RangeQuery, plain or Timestamped*, [key, key +
// range_width - 1] or with an open end (null lower, upper or both), its ResultOrder, a key that
// was never produced, skipCache, the partitions named (the key's only, the key's and others, or
// all), the bound mode (unbounded, session = the client's merged Position of all its successful
// partition results so far, produced = the producer's acknowledged Position), require_active
// (with or without a bound), and whether to prefer a standby. The bound itself is recomputed per
// attempt. The request is routed by its key, so a request naming several partitions reaches the
// host of one of them and the others answer as Kafka answers there (NOT_PRESENT, or a standby's
// or a co-hosted active's result). Rarer draws (each off unless configured) make requests Kafka
// refuses: a window query against the key-value store (UNKNOWN_QUERY_TYPE), a store name the
// topology does not have (UnknownStateStoreException), and a request sent without metadata to
// any instance, which may be added but not started (StreamsNotStartedException) or closed
// (StreamsStoppedException: a closed client's application still answers, see serve()).
//
// The workload must be destroyed before the Cluster (its events live in the cluster's loop); its
// handlers hold a weak liveness token and do nothing once it is gone.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/prng.h"
#include "cluster/cluster.h"
#include "iq/isolation_level.h"
#include "iq/result_order.h"
#include "trace/history.h"
#include "workload/key_distribution.h"
#include "workload/producer_workload.h"

namespace iq::sim {

// Which outcomes a client retries (with exponential backoff) before giving up on a query.
struct RetryPolicy {
  int32_t attempts_max = 3;  // including the first
  int64_t backoff_ms = 100;  // before attempt 2; doubled for each further attempt
  bool on_not_up_to_bound = true;
  bool on_not_active = true;
  bool on_not_present = true;
  bool on_streams_error = true;
  bool on_timeout = true;
  bool on_not_routed = true;
  bool operator==(const RetryPolicy&) const = default;
};

struct QueryClientConfig {
  int32_t clients = 2;
  int64_t start_ms = 0;
  int64_t stop_ms = 0;        // no new logical query starts at or after it (retries may)
  int64_t interval_ms = 100;  // from one logical query's end to the next one's start
  std::string store = "counts";
  int32_t keys = 16;
  KeyDistribution distribution = KeyDistribution::kUniform;
  base::Ratio range_odds{1, 4};        // RangeQuery instead of KeyQuery
  base::Ratio timestamped_odds{1, 2};  // the Timestamped* variant of the chosen query
  int32_t range_width = 4;
  std::vector<BoundMode> bound_modes{BoundMode::kUnbounded, BoundMode::kSession,
                                     BoundMode::kProduced};
  base::Ratio require_active_odds{1, 2};
  // True: a requireActive query keeps its drawn bound, which Kafka replaces with unbounded
  // (quirk 3, scenarios/findings/require_active_drops_bound.toml), so BoundHonored flags it. Off
  // by default (issue 31): the query clients a newcomer's first scenario gets must not fail a
  // correct scenario on a known quirk; a file that wants the quirk swept says so.
  bool require_active_bounded = false;
  base::Ratio standby_odds{1, 3};  // send to a standby host when the metadata lists one
  // The rest of the request space (docs/iqv2-semantics.md); each off by default, and a draw that
  // is off takes nothing from the client's Prng, so a workload without them runs as before.
  // Which partitions a query names: the key's partition alone (the rest), the key's partition and
  // at least one other (several), or none, i.e. all partitions (no with_partitions).
  base::Ratio multi_partition_odds{0, 1};
  base::Ratio all_partitions_odds{0, 1};
  // The ResultOrder of a range query, drawn from this list (ANY: Kafka's default, no call).
  std::vector<ResultOrder> range_orders{ResultOrder::ANY};
  base::Ratio open_range_odds{0, 1};  // a range with a null lower and/or upper bound
  base::Ratio absent_key_odds{0, 1};  // a key in [keys, 2 * keys): never produced
  base::Ratio skip_cache_odds{0, 1};  // skipCache() on a key query
  // A closed range asked upside down, [key + range_width - 1, key] (at least [key + 1, key]):
  // empty on most stores, ClassCastException out of the DSL adapter over a plain RocksDB store
  // (docs/iqv2-semantics.md quirk 10).
  base::Ratio inverted_range_odds{0, 1};
  // Requests Kafka refuses, each off by default (and then drawing nothing):
  // a WindowKeyQuery or WindowRangeQuery (evenly) instead of the key-value query: the key-value
  // store answers UNKNOWN_QUERY_TYPE (after its bound check, docs/iqv2-semantics.md quirk 11);
  base::Ratio window_query_odds{0, 1};
  // a store name the topology does not have (kUnknownStoreSuffix after the store's), routed by
  // the key as usual: UnknownStateStoreException, before any state check;
  base::Ratio unknown_store_odds{0, 1};
  // sent to an instance drawn among all that are not removed, without metadata, as a load
  // balancer's pick whose handler queries its local KafkaStreams: an added instance not started
  // yet answers StreamsNotStartedException, one that closed its client StreamsStoppedException,
  // a crashed one nothing (a timeout), the others their local replicas or NOT_PRESENT.
  base::Ratio direct_odds{0, 1};
  // Against a versioned store (the VersionedTable topology) every query is a VersionedKeyQuery or
  // a MultiVersionedKeyQuery (KeyQuery and RangeQuery throw there, quirk 15): with these odds a
  // MultiVersionedKeyQuery (time range drawn in [0, now], each end open with odds 1/4, any
  // ResultOrder), else a VersionedKeyQuery, asOf a time in [0, now] with
  // as_of_odds, else the latest.
  base::Ratio multi_versioned_odds{1, 2};
  base::Ratio as_of_odds{1, 2};
  // Against a window store (WindowedCount, WindowedSum, WindowPapiWriter) every query is a
  // WindowKeyQuery (the key's windows starting in a time range) or, with these odds, a
  // WindowRangeQuery.withWindowStartRange (every key's windows starting in a time range); against
  // a session store (SessionCount, SessionSum, SessionPapiWriter) a WindowRangeQuery.withKey. A
  // time range's ends are drawn in [0, event time] (Cluster::max_timestamp_ms, or now if later),
  // so ranges fall below the retention floor, among live windows and past the newest; sorted,
  // unless inverted_range_odds turns it upside down (from > to: an empty range). Then
  // window_query_odds draws, instead, the form the store refuses: WindowRangeQuery.withKey on a
  // window store, WindowKeyQuery or WindowRangeQuery.withWindowStartRange on a session store.
  base::Ratio window_range_odds{1, 4};
  // 2026-08-20 pin only (the scenario parser leaves it off at the old pin): with these odds a
  // query calls StateQueryRequest.withIsolationLevel with a level drawn evenly, else it keeps the
  // client's default.interactive.query.isolation.level. Drawn from the client's own "isolation"
  // split, so every other draw of the client is the same whether it is on or off: a seed run at
  // each pin differs only by this draw and by Kafka's behaviour (`iqsim upgrade`).
  base::Ratio isolation_level_odds{0, 1};
  // Time edges, against a window or versioned store: with these odds a query's time bound is
  // moved to, one ms below or one ms above a time the store compares against, computed from what
  // the run wrote (time_edges.h): a window start or end of one of the key's records, the window
  // store's retention floor, a version's timestamp, the history retention's edge. A
  // VersionedKeyQuery takes it as its asOf; a time range as its lower end, its upper end or both.
  // Off by default.
  base::Ratio time_edge_odds{0, 1};
  int64_t timeout_ms = 1'000;
  RetryPolicy retry;
  bool operator==(const QueryClientConfig&) const = default;
};

class QueryClientWorkload {
 public:
  // Appended to the store's name for a query that names a store the topology does not have.
  static constexpr const char* kUnknownStoreSuffix = "-unknown";
  // The "produced" bound of an attempt, read when the attempt starts.
  using ProducedBound = std::function<Position()>;

  // `producer` may be null only if bound_modes has no kProduced. `prng` is the workload's own
  // child stream (world.split("query-clients")); client i splits "client-i" from it.
  QueryClientWorkload(Cluster& cluster, History& history, QueryClientConfig config, base::Prng prng,
                      const ProducerWorkload* producer);
  // The same with the produced bound from elsewhere (the scenario driver without a producer in
  // the test uses the broker's end offsets); empty only if bound_modes has no kProduced.
  QueryClientWorkload(Cluster& cluster, History& history, QueryClientConfig config, base::Prng prng,
                      ProducedBound produced);
  ~QueryClientWorkload();
  QueryClientWorkload(const QueryClientWorkload&) = delete;
  QueryClientWorkload& operator=(const QueryClientWorkload&) = delete;

  // Adds the client nodes to the network and schedules every client's first query at start_ms.
  void start();

  static std::string node_name(int32_t client) { return "client-" + std::to_string(client); }
  // The client's merged position of every successful partition result so far.
  const Position& session_position(int32_t client) const;
  uint64_t queries_started() const { return queries_started_; }
  uint64_t queries_given_up() const { return queries_given_up_; }

 private:
  struct Spec;
  struct Client;
  struct Pending;
  struct Alive {};

  void start_query(int32_t client);
  void attempt(int32_t client);
  void draw_versioned(Client& c, Spec& s);
  void draw_windowed(Client& c, Spec& s);
  void draw_time_range(Client& c, Spec& s);
  void draw_time_edge(Client& c, Spec& s);
  int64_t event_time_ms() const;
  bool route(Client& c, QueryRecord& record, int32_t& partition);
  bool route_direct(Client& c, QueryRecord& record);
  void send(int32_t client, QueryRecord record, int32_t partition);
  void serve(uint64_t id, const std::string& target, const std::string& from);
  void complete(uint64_t id);
  void on_timeout(uint64_t id);
  void finish_attempt(int32_t client, QueryRecord record);
  bool should_retry(const QueryRecord& record) const;
  Instance* instance_named(const std::string& name);

  Cluster& cluster_;
  History& history_;
  QueryClientConfig config_;
  base::Prng prng_;
  ProducedBound produced_;
  std::vector<std::unique_ptr<Client>> clients_;
  std::map<uint64_t, std::unique_ptr<Pending>> pending_;  // by record id
  uint64_t queries_started_ = 0;
  uint64_t queries_given_up_ = 0;
  std::shared_ptr<Alive> alive_ = std::make_shared<Alive>();
};

}  // namespace iq::sim
