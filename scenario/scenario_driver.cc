#include "scenario/scenario_driver.h"
#include "base/probe.h"

#include <fmt/format.h>
#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

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
#include "iq/with_headers_queries.h"
#include "scenario/fault_injector.h"
#include "scenario/quiescence.h"
#include "scenario/random_faults.h"
#include "state/position_serde.h"
#include "state/store_query_utils.h"
#include "workload/producer_workload.h"
#include "workload/query_client_workload.h"
#include "workload/query_conversion.h"

namespace iq::sim {
namespace {

// How often run_until quiescent looks at the cluster.
constexpr int64_t kQuiescenceCheckMs = 10;
// How often the wait for a caught-up warmup's promotion reads the placement: the rule it checks
// allows a whole probing interval, so one second is fine enough and keeps the wait cheap.
constexpr int64_t kPromotionCheckMs = 1'000;
// Records read per fetch when the source log is read back at the end.
constexpr int32_t kSourceFetchRecords = 10'000;
// Lag samples kept (a bound on the trace, not a knob: 1 s probes over the longest runs stay far
// below it).
constexpr size_t kLagRecordsMax = 2'000'000;

// A query class no store knows (Kafka's IQv2StoreIntegrationTest$UnknownQuery): the type
// `Custom` of a scripted query.
class UnknownQuery final : public Query {
 public:
  QueryKind kind() const override { return QueryKind::Custom; }
  bool is_raw() const override { return false; }
  std::string to_string() const override {
    return java_object_string(
        "org.apache.kafka.streams.integration.IQv2StoreIntegrationTest$UnknownQuery", "");
  }
  std::string describe() const override { return "UnknownQuery"; }
};

bool is_range(QueryKind kind) {
  return kind == QueryKind::RangeQuery || kind == QueryKind::TimestampedRangeQuery ||
         kind == QueryKind::TimestampedRangeWithHeadersQuery;
}
bool is_window(QueryKind kind) {
  return kind == QueryKind::WindowKeyQuery || kind == QueryKind::WindowRangeQuery ||
         kind == QueryKind::TimestampedWindowKeyWithHeadersQuery ||
         kind == QueryKind::TimestampedWindowRangeWithHeadersQuery;
}

template <typename Q>
Q ordered(Q q, ResultOrder order) {
  if (order == ResultOrder::ASCENDING) return q.with_ascending_keys();
  if (order == ResultOrder::DESCENDING) return q.with_descending_keys();
  return q;
}

// KIP-1356's header-aware queries of a scripted step (2026-08-20 pin; the parser refuses them at
// the old pin).
StateQueryRequest make_with_headers_request(const QueryStep& step) {
  using K = int32_t;
  using V = int64_t;
  const K key = step.key.value_or(0);
  switch (step.type) {
    case QueryKind::TimestampedKeyWithHeadersQuery:
      return StateQueryRequest::in_store_with_query(
          step.store, TimestampedKeyWithHeadersQuery<K, V>::with_key(key));
    case QueryKind::TimestampedRangeWithHeadersQuery:
      return StateQueryRequest::in_store_with_query(
          step.store,
          ordered(TimestampedRangeWithHeadersQuery<K, V>::with_range(step.lower, step.upper),
                  step.order));
    case QueryKind::TimestampedWindowKeyWithHeadersQuery:
      IQ_ASSERT(step.from_time_ms && step.to_time_ms, "a window key query without its range");
      return StateQueryRequest::in_store_with_query(
          step.store, TimestampedWindowKeyWithHeadersQuery<K, V>::with_key_and_window_start_range(
                          key, *step.from_time_ms, *step.to_time_ms));
    case QueryKind::TimestampedWindowRangeWithHeadersQuery:
      if (step.key) {
        return StateQueryRequest::in_store_with_query(
            step.store, TimestampedWindowRangeWithHeadersQuery<K, V>::with_key(key));
      }
      IQ_ASSERT(step.from_time_ms && step.to_time_ms, "a window range query without key or range");
      return StateQueryRequest::in_store_with_query(
          step.store, TimestampedWindowRangeWithHeadersQuery<K, V>::with_window_start_range(
                          *step.from_time_ms, *step.to_time_ms));
    default:
      break;
  }
  IQ_ASSERT(false, "not a header query kind {}", static_cast<int>(step.type));
  return StateQueryRequest::in_store_with_query(step.store, UnknownQuery());
}

// The query object of a scripted step over <int32_t, int64_t>. Kinds a store does not execute are
// built too, so the store answers them (UNKNOWN_QUERY_TYPE) as Kafka's would; the window queries
// take their window-start range from from_time_ms/to_time_ms. `pin` is the Kafka the client
// links against (WindowKeyQuery's getters differ between the pins).
StateQueryRequest make_request(const QueryStep& step, KafkaPin pin) {
  using K = int32_t;
  using V = int64_t;
  const std::string& store = step.store;
  const K key = step.key.value_or(0);
  switch (step.type) {
    case QueryKind::KeyQuery:
      return StateQueryRequest::in_store_with_query(store, KeyQuery<K, V>::with_key(key));
    case QueryKind::TimestampedKeyQuery:
      return StateQueryRequest::in_store_with_query(store,
                                                    TimestampedKeyQuery<K, V>::with_key(key));
    case QueryKind::RangeQuery:
      return StateQueryRequest::in_store_with_query(
          store, ordered(RangeQuery<K, V>::with_range(step.lower, step.upper), step.order));
    case QueryKind::TimestampedRangeQuery:
      return StateQueryRequest::in_store_with_query(
          store,
          ordered(TimestampedRangeQuery<K, V>::with_range(step.lower, step.upper), step.order));
    case QueryKind::WindowKeyQuery:
      IQ_ASSERT(step.from_time_ms && step.to_time_ms, "WindowKeyQuery without its range");
      return StateQueryRequest::in_store_with_query(
          store, WindowKeyQuery<K, V>::with_key_and_window_start_range(key, *step.from_time_ms,
                                                                       *step.to_time_ms, pin));
    case QueryKind::WindowRangeQuery:
      if (step.key) {
        return StateQueryRequest::in_store_with_query(store, WindowRangeQuery<K, V>::with_key(key));
      }
      IQ_ASSERT(step.from_time_ms && step.to_time_ms, "WindowRangeQuery without key or range");
      return StateQueryRequest::in_store_with_query(
          store,
          WindowRangeQuery<K, V>::with_window_start_range(*step.from_time_ms, *step.to_time_ms));
    case QueryKind::VersionedKeyQuery: {
      auto q = VersionedKeyQuery<K, V>::with_key(key);
      if (step.as_of_ms) q = q.as_of(*step.as_of_ms);
      return StateQueryRequest::in_store_with_query(store, q);
    }
    case QueryKind::MultiVersionedKeyQuery: {
      auto q = MultiVersionedKeyQuery<K, V>::with_key(key);
      if (step.from_time_ms) q = q.from_time(*step.from_time_ms);
      if (step.to_time_ms) q = q.to_time(*step.to_time_ms);
      if (step.order == ResultOrder::ASCENDING) q = q.with_ascending_timestamps();
      if (step.order == ResultOrder::DESCENDING) q = q.with_descending_timestamps();
      return StateQueryRequest::in_store_with_query(store, q);
    }
    case QueryKind::Custom:
      return StateQueryRequest::in_store_with_query(store, UnknownQuery());
    default:
      return make_with_headers_request(step);
  }
  IQ_ASSERT(false, "query kind {}", static_cast<int>(step.type));
  return StateQueryRequest::in_store_with_query(store, UnknownQuery());
}

ScriptedExpectation expectation_of(const QueryStep& step, uint64_t record_id) {
  ScriptedExpectation e;
  e.record_id = record_id;
  if (!step.where.file.empty()) e.where = step.where.to_string();
  e.partitions = step.expect;
  e.error = step.expect_error;
  e.answered_partitions = step.expect_partitions;
  e.values = step.expect_values;
  e.merged_position = step.expect_position;
  return e;
}

// A timed workload's relative [start, stop) as absolute times; a stop of 0 is the phase's end.
std::pair<int64_t, int64_t> absolute(int64_t phase_start_ms, int64_t duration_ms, int64_t start_ms,
                                     int64_t stop_ms) {
  return {phase_start_ms + start_ms, phase_start_ms + (stop_ms <= 0 ? duration_ms : stop_ms)};
}

// "producer-<test>" for a test's first workload of a kind, "producer-<test>-<k>" for the k-th
// further one.
std::string prng_name(const std::string& kind, size_t test, int32_t k) {
  std::string name = kind + "-" + std::to_string(test);
  if (k > 0) name += "-" + std::to_string(k);
  return name;
}

// One changelog record as the trace holds it (see ChangelogRecord).
ChangelogRecord changelog_record(const BrokerService& service, const TopologyConfig& topology,
                                 const TopicPartition& tp, const ConsumerRecord& c,
                                 int64_t append_ms) {
  const int32_t partition = tp.second;
  ChangelogRecord r;
  r.partition = partition;
  // The broker's records carry raw longs; tp is the store's changelog partition.
  r.offset = ChangelogOffset(c.offset);
  const DecodedStoreKey key = decode_store_key(topology, *c.key);
  r.key = key.key;
  r.window_start_ms = key.window_start_ms;
  r.window_end_ms = key.window_end_ms;
  r.window_seqnum = key.window_seqnum;
  if (c.value) r.value = Serde<int64_t>::deserialize(*c.value);
  r.timestamp_ms = c.timestamp;
  r.appended_ms = base::Instant::from_ms(append_ms);  // the broker keeps virtual ms as longs
  if (const std::string* writer = service.writer(tp, c.offset)) r.writer = *writer;
  for (const Header& h : c.headers) {
    if (h.key != store_query_utils::kVectorHeader) continue;
    auto position = position_serde::deserialize(h.value.view());
    IQ_ASSERT(position.has_value(), "position header of {}-{} offset {}", tp.first, partition,
              c.offset);
    r.position = std::move(*position);
  }
  return r;
}

class ScenarioDriver {
 public:
  explicit ScenarioDriver(const Scenario& scenario);
  RunTrace run();

 private:
  void run_test(size_t index, const TestSpec& test);
  void start_workloads(size_t index, const TestSpec& test, int64_t phase_start_ms);
  void run_step(size_t test, size_t index, const Step& step);
  void produce(const ProduceStep& step);
  void run_until_quiescent(const RunUntilStep& step);
  void scripted_query(const QueryStep& step);
  void liveness();
  bool probe_partition(int32_t partition, const Position& bound, base::Prng& prng);
  void audit_replicas(const Position& bound, int64_t deadline_ms);
  void await_progress(int64_t deadline_ms, bool probes_answered = true);
  std::optional<std::string> await_quiescence(int64_t deadline_ms);
  std::optional<std::string> await_warmup_promotion(ProgressRecord& record);
  bool audit_replica(int32_t n, int32_t partition, const Position& bound);
  QueryRecord phase_record(QueryRecord::Source source, const StateQueryRequest& request,
                           std::optional<int32_t> key, int32_t partition, const Position& bound);
  // Rounds of the end-of-run audit (each probe_interval_ms apart): a replica still behind the
  // bound after them is left unjudged.
  static constexpr int32_t kAuditRoundsMax = 40;
  void finish();
  // True once a knob's bound was reached (recorded in trace_.bound_reached; the run stops).
  bool check_bounds();

  // Runs the world to `ms` (capped by virtual_time_ms_max). False once the run must stop: the
  // time limit was reached before `ms`, or the event budget ran out.
  bool advance_to(int64_t ms);
  void schedule_lag_probe();
  void probe_lags();
  // Per non-empty source partition, its end offset - 1: everything produced so far.
  Position produced_bound() const;
  std::set<int32_t> all_partitions() const;
  void read_source_log();
  void read_changelog();
  // The cleaner's removed records of the store's changelog (set_removed_record_observer), in the
  // order removed; read_changelog merges them with the records left in the log.
  void record_removed(const TopicPartition& tp, const ConsumerRecord& c, int64_t append_ms,
                      int64_t removed_ms);
  std::vector<ChangelogRecord> removed_changelog_;
  uint64_t removed_changelog_dropped_ = 0;
  // The store's changelog transactions as the broker decided them (set_txn_marker_observer): per
  // partition, each decided data record's outcome and decision time, and the markers' offsets.
  void record_txn_marker(const TopicPartition& tp, ControlRecordType result, int64_t marker_offset,
                         const std::vector<int64_t>& data_offsets, int64_t now_ms);
  struct TxnDecision {
    TxnOutcome outcome = TxnOutcome::kNone;
    base::Instant decided_ms{};
  };
  std::map<int32_t, std::map<int64_t, TxnDecision>> changelog_txns_;
  std::map<int32_t, std::set<int64_t>> changelog_markers_;

  const Scenario& scenario_;
  RunTrace trace_;
  // Destroyed last: everything below holds events in its loop.
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<FaultInjector> injector_;
  std::vector<std::unique_ptr<ProducerWorkload>> producers_;
  std::vector<std::unique_ptr<QueryClientWorkload>> query_clients_;
  std::vector<std::unique_ptr<RandomFaults>> random_faults_;
  EventId lag_probe_{};
  bool stopped_ = false;
};

ScenarioDriver::ScenarioDriver(const Scenario& scenario) : scenario_(scenario) {
  ClusterConfig config = scenario.cluster;
  config.seed = scenario.seed;
  trace_.scenario = scenario.file.empty() ? scenario.title : scenario.file;
  trace_.seed = scenario.seed;
  // What KafkaStreams builds (rewrite_topology: no caching layer under a cache of 0 bytes).
  trace_.topology = rewrite_topology(config.topology, config.streams);
  trace_.keys = scenario.keys;
  trace_.consistency_offset_vector_enabled = config.streams.consistency_offset_vector_enabled;
  trace_.guarantee = config.streams.processing_guarantee == ProcessingGuarantee::EXACTLY_ONCE_V2
                         ? Guarantee::kExactlyOnceV2
                         : Guarantee::kAtLeastOnce;
  trace_.kafka_pin = config.streams.kafka_pin;
  trace_.default_iq_isolation_level = config.streams.default_iq_isolation_level;
  trace_.transactional_state_stores = config.streams.transactional_state_stores &&
                                      at_least(config.streams.kafka_pin, KafkaPin::k2026_08_20);
  trace_.history = History(scenario.knobs.history_records_max);
  cluster_ = std::make_unique<Cluster>(std::move(config));
  injector_ = std::make_unique<FaultInjector>(*cluster_, trace_.faults);
  // The knobs' bounds end the run after the event that reached them, never abort it.
  cluster_->loop().set_stop_check([this] { return check_bounds(); });
  cluster_->broker().broker().set_removed_record_observer(
      [this](const TopicPartition& tp, const ConsumerRecord& c, int64_t append_ms,
             int64_t removed_ms) { record_removed(tp, c, append_ms, removed_ms); });
  cluster_->broker().broker().set_txn_marker_observer(
      [this](const TopicPartition& tp, ControlRecordType result, int64_t marker_offset,
             const std::vector<int64_t>& data_offsets, int64_t now_ms) {
        record_txn_marker(tp, result, marker_offset, data_offsets, now_ms);
      });
}

void ScenarioDriver::record_txn_marker(const TopicPartition& tp, ControlRecordType result,
                                       int64_t marker_offset,
                                       const std::vector<int64_t>& data_offsets, int64_t now_ms) {
  if (tp.first != cluster_->changelog_topic()) return;
  // Bounded by the changelog itself: one entry per record and per marker the broker holds
  // (broker_records_max).
  const bool inserted = changelog_markers_[tp.second].insert(marker_offset).second;
  IQ_ASSERT(inserted, "two markers at {}-{} offset {}", tp.first, tp.second, marker_offset);
  const TxnDecision decision{
      result == ControlRecordType::COMMIT ? TxnOutcome::kCommitted : TxnOutcome::kAborted,
      base::Instant::from_ms(now_ms)};  // the broker keeps virtual ms as longs
  auto& decided = changelog_txns_[tp.second];
  for (int64_t offset : data_offsets) {
    IQ_ASSERT(offset < marker_offset, "{}-{} record {} after its marker {}", tp.first, tp.second,
              offset, marker_offset);
    const bool first = decided.emplace(offset, decision).second;
    IQ_ASSERT(first, "{}-{} record {} decided twice", tp.first, tp.second, offset);
  }
}

void ScenarioDriver::record_removed(const TopicPartition& tp, const ConsumerRecord& c,
                                    int64_t append_ms, int64_t removed_ms) {
  if (tp.first != cluster_->changelog_topic() || !c.key.has_value()) return;
  if (removed_changelog_.size() >= RunTrace::kChangelogRecordsMax) {
    ++removed_changelog_dropped_;
    return;
  }
  IQ_ASSERT(removed_ms >= append_ms, "{}-{} offset {} removed at {} before its append at {}",
            tp.first, tp.second, c.offset, removed_ms, append_ms);
  ChangelogRecord r =
      changelog_record(cluster_->broker(), cluster_->config().topology, tp, c, append_ms);
  r.removed_ms = base::Instant::from_ms(removed_ms);  // the broker keeps virtual ms as longs
  removed_changelog_.push_back(std::move(r));
}

bool ScenarioDriver::check_bounds() {
  if (!trace_.bound_reached.empty()) return true;
  const SimBroker& broker = cluster_->broker().broker();
  std::string knob;
  int64_t value = 0;
  if (trace_.history.full()) {
    knob = "history_records_max";
    value = static_cast<int64_t>(trace_.history.records_max());
  } else if (broker.bound_reached()) {
    knob = "broker_records_max";
    value = broker.records_max();
  } else if (broker.coordinator().bound_reached()) {
    knob = "coordinator_pending_outputs_max";
    value = broker.coordinator().pending_outputs_max();
  } else if (auto txn = broker.transactions().bound_reached()) {
    knob = txn->knob;  // broker_transactional_ids_max, _transactions_open_max, ...
    value = txn->value;
  } else if (trace_.lags.size() >= kLagRecordsMax) {
    knob = "lag_probe_interval_ms";  // the bound is the driver's; the knob is what fills it
    value = scenario_.knobs.lag_probe_interval_ms;
    trace_.bound_reached = fmt::format(
        "{} lag records (the driver's bound) reached at {} ms: "
        "raise knob {} (now {})",
        kLagRecordsMax, cluster_->now_ms(), knob, value);
    stopped_ = true;
    return true;
  } else {
    return false;
  }
  trace_.bound_reached =
      fmt::format("knob {} = {} reached at {} ms", knob, value, cluster_->now_ms());
  stopped_ = true;
  return true;
}

RunTrace ScenarioDriver::run() {
  IQ_ASSERT(scenario_.virtual_time_ms_max >= 0, "virtual_time_ms_max={}",
            scenario_.virtual_time_ms_max);
  if (scenario_.start_instances) {
    cluster_->start_all();
  } else {
    for (int32_t n = 1; n <= cluster_->instance_count(); ++n) cluster_->instance(n).create();
  }
  schedule_lag_probe();
  for (size_t i = 0; i < scenario_.tests.size() && !stopped_; ++i) run_test(i, scenario_.tests[i]);
  if (scenario_.liveness.enabled && !stopped_) liveness();
  finish();
  return std::move(trace_);
}

void ScenarioDriver::run_test(size_t index, const TestSpec& test) {
  RunTrace::Phase phase;
  phase.title = test.title;
  phase.start_ms = cluster_->loop().now();
  phase.checks = test.checks;
  // The scenario's times are longs (as its file writes them); the driver schedules in those.
  const int64_t start_ms = phase.start_ms.ms_since_epoch();
  start_workloads(index, test, start_ms);
  bool go = test.duration_ms <= 0 || advance_to(start_ms + test.duration_ms);
  // A long outage (RandomFaults) is not cut short by the liveness phase's heal: the phase runs
  // until it is undone.
  for (const auto& r : random_faults_) {
    if (go && r->long_outage_until_ms() > cluster_->now_ms())
      go = advance_to(r->long_outage_until_ms());
  }
  for (size_t s = 0; s < test.steps.size() && go; ++s) {
    run_step(index, s, test.steps[s]);
    go = !stopped_;
  }
  phase.end_ms = cluster_->loop().now();
  trace_.phases.push_back(std::move(phase));
}

void ScenarioDriver::start_workloads(size_t index, const TestSpec& test, int64_t phase_start_ms) {
  const ProducerWorkload* test_producer = nullptr;
  int32_t producers = 0;
  int32_t clients = 0;
  int32_t random = 0;
  for (size_t w = 0; w < test.workloads.size(); ++w) {
    const WorkloadSpec& spec = test.workloads[w];
    if (const auto* p = std::get_if<ProducerWorkloadSpec>(&spec)) {
      ProducerConfig c = p->config;
      std::tie(c.start_ms, c.stop_ms) =
          absolute(phase_start_ms, test.duration_ms, c.start_ms, c.stop_ms);
      c.stop_ms = std::max(c.stop_ms, c.start_ms);
      producers_.push_back(std::make_unique<ProducerWorkload>(
          *cluster_, c, cluster_->split(prng_name("producer", index, producers++))));
      producers_.back()->start();
      if (test_producer == nullptr) test_producer = producers_.back().get();
    }
  }
  for (size_t w = 0; w < test.workloads.size(); ++w) {
    const WorkloadSpec& spec = test.workloads[w];
    const std::string detail = "test " + std::to_string(index) + " workload " + std::to_string(w);
    if (const auto* q = std::get_if<QueryClientsWorkloadSpec>(&spec)) {
      QueryClientConfig c = q->config;
      std::tie(c.start_ms, c.stop_ms) =
          absolute(phase_start_ms, test.duration_ms, c.start_ms, c.stop_ms);
      QueryClientWorkload::ProducedBound bound = [this] { return produced_bound(); };
      if (test_producer != nullptr) {
        bound = [test_producer] { return test_producer->acknowledged(); };
      }
      query_clients_.push_back(std::make_unique<QueryClientWorkload>(
          *cluster_, trace_.history, c,
          cluster_->split(prng_name("query-clients", index, clients++)), std::move(bound)));
      query_clients_.back()->start();
    } else if (const auto* f = std::get_if<FaultWorkloadSpec>(&spec); f != nullptr && f->inside) {
      injector_->schedule_crash_inside(std::max(phase_start_ms + f->at_ms, cluster_->now_ms()),
                                       f->instance, *f->inside, f->wipe, detail, f->undo_after_ms);
    } else if (f != nullptr) {
      injector_->schedule(std::max(phase_start_ms + f->at_ms, cluster_->now_ms()), f->action,
                          f->instance, f->wipe, detail, f->undo_after_ms);
    } else if (const auto* r = std::get_if<RandomFaultsWorkloadSpec>(&spec)) {
      RandomFaultsWorkloadSpec c = *r;
      std::tie(c.start_ms, c.stop_ms) =
          absolute(phase_start_ms, test.duration_ms, c.start_ms, c.stop_ms);
      random_faults_.push_back(std::make_unique<RandomFaults>(
          *cluster_, *injector_, c, cluster_->split(prng_name("random-faults", index, random++))));
      random_faults_.back()->start();
    }
  }
}

void ScenarioDriver::run_step(size_t test, size_t index, const Step& step) {
  if (const auto* p = std::get_if<ProduceStep>(&step)) {
    produce(*p);
  } else if (const auto* u = std::get_if<RunUntilStep>(&step)) {
    if (u->quiescent) {
      run_until_quiescent(*u);
    } else {
      (void)advance_to(cluster_->now_ms() + u->for_ms);
    }
  } else if (const auto* f = std::get_if<FaultStep>(&step)) {
    (void)injector_->apply(f->action, f->instance, f->action == FaultAction::kRestartWiped,
                           "test " + std::to_string(test) + " step " + std::to_string(index));
  } else if (const auto* q = std::get_if<QueryStep>(&step)) {
    scripted_query(*q);
  }
}

void ScenarioDriver::produce(const ProduceStep& step) {
  const int32_t partitions = cluster_->config().topology.source_partitions;
  for (const ProduceRecordSpec& r : step.records) {
    const int32_t partition =
        r.partition ? *r.partition
                    : partition_for_key(Serde<int32_t>::serialize(r.key).view(), partitions);
    (void)cluster_->produce_to(partition, r.key, r.value, r.timestamp_ms.value_or(kNoTimestamp));
  }
}

// Quiescence is defined in quiescence.h; it is looked at now and then every 10 ms of virtual
// time until ms_max has passed.
// Runs until the cluster is quiescent or `deadline_ms`; nullopt once quiescent, else the
// condition that still fails (also when the run stopped on a bound: stopped_ says so).
std::optional<std::string> ScenarioDriver::await_quiescence(int64_t deadline_ms) {
  std::optional<std::string> gap = quiescence_gap(*cluster_);
  while (gap && cluster_->now_ms() < deadline_ms) {
    if (!advance_to(std::min(cluster_->now_ms() + kQuiescenceCheckMs, deadline_ms))) return gap;
    gap = quiescence_gap(*cluster_);
  }
  return gap;
}

void ScenarioDriver::run_until_quiescent(const RunUntilStep& step) {
  const int64_t deadline_ms = cluster_->now_ms() + step.ms_max;
  const std::optional<std::string> gap = await_quiescence(deadline_ms);
  if (!gap || stopped_) return;
  trace_.liveness_failures.push_back(
      {cluster_->loop().now(), "run_until quiescent: not quiescent after " +
                                   std::to_string(step.ms_max) + " ms (" + *gap + ")"});
}

void ScenarioDriver::scripted_query(const QueryStep& step) {
  StateQueryRequest request = make_request(step, scenario_.cluster.streams.kafka_pin);
  if (step.isolation_level) request = request.with_isolation_level(*step.isolation_level);
  QueryRecord r;
  r.id = trace_.history.next_id();
  r.source = QueryRecord::Source::kScripted;
  r.invoke_ms = cluster_->loop().now();
  r.complete_ms = r.invoke_ms;
  r.request.store = step.store;
  r.request.query = request.query().describe();
  r.request.kind = step.type;
  if (is_range(step.type)) {
    r.request.lower = step.lower;
    r.request.upper = step.upper;
    r.request.order = step.order;
  } else if (is_window(step.type)) {
    r.request.key = step.key;
    r.request.from_time_ms = step.from_time_ms;
    r.request.to_time_ms = step.to_time_ms;
  } else {
    r.request.key = step.key;
    if (step.type == QueryKind::MultiVersionedKeyQuery) r.request.order = step.order;
    r.request.as_of_ms = step.as_of_ms;
    r.request.from_time_ms = step.from_time_ms;
    r.request.to_time_ms = step.to_time_ms;
  }
  r.request.partitions = step.partitions;
  if (step.bound_produced) {
    r.request.bound_mode = BoundMode::kProduced;
    r.request.bound = produced_bound();
  } else if (step.bound) {
    r.request.bound_mode = BoundMode::kProduced;
    r.request.bound = *step.bound;
  }
  r.request.require_active = step.require_active;
  r.request.collect_execution_info = step.collect_execution_info;
  r.request.isolation_level = step.isolation_level;

  request =
      step.partitions ? request.with_partitions(*step.partitions) : request.with_all_partitions();
  if (r.request.bound_mode != BoundMode::kUnbounded) {
    request = request.with_position_bound(PositionBound::at(r.request.bound));
  }
  if (step.require_active) request = request.require_active();
  if (step.collect_execution_info) request = request.enable_execution_info();

  const std::set<int32_t> partitions = step.partitions.value_or(all_partitions());
  r.placement_at_invoke = take_placement(*cluster_, step.store, partitions);
  const std::string name = "instance-" + std::to_string(step.instance);
  if (step.instance < 1 || step.instance > cluster_->instance_count()) {
    r.not_routed_reason = "no " + name;
  } else if (Instance& instance = cluster_->instance(step.instance);
             !instance.running() && instance.closed_streams() != nullptr) {
    // An application may call query() on the KafkaStreams it closed (Kafka's own test does).
    r.home_instance = name;
    r.target_instance = name;
    auto answer = instance.closed_streams()->query(request);
    r.placement_at_answer = take_placement(*cluster_, step.store, partitions);
    record_outcome(r, answer);
  } else if (!instance.running()) {
    r.not_routed_reason = name + " is down";
  } else if (instance.paused()) {
    r.not_routed_reason = name + " is paused";
  } else {
    r.home_instance = name;
    r.target_instance = name;
    auto answer = instance.streams().query(request);
    r.placement_at_answer = take_placement(*cluster_, step.store, partitions);
    record_outcome(r, answer);
  }
  if (!r.not_routed_reason.empty()) r.outcome = OutcomeKind::kNotRouted;
  trace_.expectations.push_back(expectation_of(step, r.id));
  trace_.history.append(std::move(r));
}

void ScenarioDriver::liveness() {
  const LivenessSpec& spec = scenario_.liveness;
  IQ_ASSERT(spec.timeout_ms >= 0 && spec.probe_interval_ms >= 1, "timeout {} probe interval {}",
            spec.timeout_ms, spec.probe_interval_ms);
  for (auto& r : random_faults_) r->stop();
  injector_->cancel_pending();
  LivenessRecord record;
  record.faults_stopped_ms = cluster_->loop().now();
  record.timeout_ms = base::Duration::millis(spec.timeout_ms);
  injector_->heal_all("liveness");
  record.bound = produced_bound();
  for (int32_t p : all_partitions()) record.first_success_ms[p] = std::nullopt;
  trace_.liveness = record;
  base::Prng prng = cluster_->split("liveness");
  const int64_t deadline_ms = (record.faults_stopped_ms + record.timeout_ms).ms_since_epoch();
  while (true) {
    bool all = true;
    for (auto& [p, first] : trace_.liveness->first_success_ms) {
      if (!first && probe_partition(p, record.bound, prng)) first = cluster_->loop().now();
      all = all && first.has_value();
    }
    if (all && spec.audit_replicas) audit_replicas(record.bound, deadline_ms);
    if (all && !stopped_) await_progress(deadline_ms);
    if (all) return;
    if (cluster_->now_ms() >= deadline_ms) {
      // Probes that never all answered (a Kafka behaviour may explain it, as quirk 25's dropped
      // tail does) leave the cluster's progress to judge still: read at the deadline, no later.
      if (!stopped_) await_progress(deadline_ms, /*probes_answered=*/false);
      return;
    }
    if (!advance_to(std::min(cluster_->now_ms() + spec.probe_interval_ms, deadline_ms))) return;
  }
}

// Progress after healing, recorded for the Progress property: once every partition answered (and
// the audit, if any, is done; or at the deadline, if some never did), the cluster must settle by
// the liveness deadline: standbys and
// warmups apply their changelogs to the end, restores finish, the group stops rebalancing and the
// input is committed. The wait only advances virtual time while the cluster is not yet quiescent.
void ScenarioDriver::await_progress(int64_t deadline_ms, bool probes_answered) {
  ProgressRecord record;
  record.since_ms = cluster_->loop().now();
  record.probes_answered = probes_answered;
  record.deadline_ms = base::Instant::from_ms(deadline_ms);
  std::optional<std::string> gap = await_quiescence(deadline_ms);
  if (stopped_) return;  // a bound stopped the run: nothing to judge
  if (!gap && probes_answered) {
    gap = await_warmup_promotion(record);
    if (stopped_) return;
  }
  if (gap) {
    record.gap = *gap;
  } else {
    record.quiescent_ms = cluster_->loop().now();
  }
  trace_.progress = record;
}

// Kafka's promise for warmups (KIP-441): the assignor that created a warmup scheduled a probing
// rebalance probing.rebalance.interval.ms later, and that rebalance gives the task's active to the
// warmup's client once the warmup has caught up (HighAvailabilityTaskAssignor moves an active only
// to a caught-up client: lag within acceptable.recovery.lag). So once the cluster is quiescent
// (every warmup has applied all it can read, the group stable), each warmup the assignor counts as
// caught up must be its task's active on the same instance within one probing interval, plus the
// liveness timeout for the rebalance itself. The deadline moves there; a
// warmup still not the active by then is the gap. Later rounds (new warmups the promotion's
// assignment creates, under max.warmup.replicas) are not waited for.
std::optional<std::string> ScenarioDriver::await_warmup_promotion(ProgressRecord& record) {
  const TopologyConfig& t = cluster_->config().topology;
  const int64_t acceptable_lag = cluster_->config().streams.assignment.acceptable_recovery_lag;
  std::vector<std::pair<std::string, int32_t>> warmups;  // (instance, partition)
  for (const ReplicaSnapshot& r :
       take_placement(*cluster_, t.store_name, all_partitions()).replicas) {
    // Caught up as the assignor sees it: the changelog's end offset less the offset sum the client
    // reports (the next offset to apply) within acceptable.recovery.lag. Under exactly-once the
    // log ends with a commit marker, so a warmup that applied every record still lags 1.
    if (r.warmup && r.role == ReplicaRole::kStandby && r.lag && *r.lag <= acceptable_lag) {
      warmups.emplace_back(r.instance, r.partition);
    }
  }
  if (warmups.empty()) return std::nullopt;
  const int64_t caught_up_ms = cluster_->now_ms();
  const int64_t probing_ms = cluster_->config().streams.assignment.probing_rebalance_interval_ms;
  const int64_t deadline_ms = caught_up_ms + probing_ms + scenario_.liveness.timeout_ms;
  // A run whose virtual time limit falls before that cannot tell: its promotion is not judged.
  if (deadline_ms > scenario_.virtual_time_ms_max) return std::nullopt;
  record.deadline_ms = base::Instant::from_ms(deadline_ms);
  while (true) {
    const PlacementSnapshot placement = take_placement(*cluster_, t.store_name, all_partitions());
    std::erase_if(warmups, [&](const auto& w) {
      return std::any_of(placement.replicas.begin(), placement.replicas.end(), [&](const auto& r) {
        return r.instance == w.first && r.partition == w.second && r.role == ReplicaRole::kActive;
      });
    });
    if (warmups.empty()) {
      IQ_PROBE("progress.warmup_promoted",
               "a warmup the assignor counted as caught up became its task's active after the "
               "cluster settled (Progress judges the promotion)");
      return std::nullopt;
    }
    if (cluster_->now_ms() >= deadline_ms) break;
    if (!advance_to(std::min(cluster_->now_ms() + kPromotionCheckMs, deadline_ms))) break;
  }
  return fmt::format(
      "partition {}: the warmup on {}, caught up at {} ms, is not its active {} ms later "
      "(probing.rebalance.interval.ms {} + the liveness timeout)",
      warmups.front().second, warmups.front().first, caught_up_ms,
      cluster_->now_ms() - caught_up_ms, probing_ms);
}

// The end-of-run audit (liveness.audit_replicas), once every partition answered its probe. A
// replica can go wrong where no client looks: a standby restored from a checkpoint past what its
// store kept holds stale keys under a position that claims them, and unless a query happens to
// ask it for one of those keys, no property ever sees it. So every replica the live instances
// host (active, standby or warmup, from an omniscient placement snapshot) is sent a RangeQuery
// over every key of its partition, bounded at what was produced, directly (requireActive false,
// as a client that asks each host in turn). One behind the bound (NOT_UP_TO_BOUND, a standby
// still catching up, or a store restored without a checkpoint under an empty position) is asked
// again every probe_interval_ms, at most kAuditRoundsMax times and not past the liveness
// deadline: being behind is allowed, answering wrongly is not. Every answer is recorded (source
// kAudit) and judged by every property.
void ScenarioDriver::audit_replicas(const Position& bound, int64_t deadline_ms) {
  const TopologyConfig& t = cluster_->config().topology;
  // A versioned store throws on RangeQuery (quirk 15), and window and session stores answer it
  // UNKNOWN_QUERY_TYPE: the audit reads key-value stores only.
  if (t.versioned() || t.windowed() || t.session()) return;
  std::set<std::pair<int32_t, int32_t>> pending;  // (instance number, partition)
  const PlacementSnapshot placement = take_placement(*cluster_, t.store_name, all_partitions());
  for (const ReplicaSnapshot& r : placement.replicas) {
    if (r.role == ReplicaRole::kNone || !r.running) continue;
    for (int32_t n = 1; n <= cluster_->instance_count(); ++n) {
      if (cluster_->instance(n).name() == r.instance) pending.insert({n, r.partition});
    }
  }
  for (int32_t round = 0; round < kAuditRoundsMax && !pending.empty(); ++round) {
    for (auto it = pending.begin(); it != pending.end();) {
      it = audit_replica(it->first, it->second, bound) ? pending.erase(it) : std::next(it);
      if (stopped_) return;
    }
    if (pending.empty() || cluster_->now_ms() >= deadline_ms) return;
    const int64_t next_ms = cluster_->now_ms() + scenario_.liveness.probe_interval_ms;
    if (!advance_to(std::min(next_ms, deadline_ms))) return;
  }
}

// One audit query of one instance's replica of `partition`; true unless it must be asked again
// (the instance is live and answered NOT_UP_TO_BOUND).
bool ScenarioDriver::audit_replica(int32_t n, int32_t partition, const Position& bound) {
  const TopologyConfig& t = cluster_->config().topology;
  Instance& instance = cluster_->instance(n);
  if (!instance.running() || instance.not_started() || instance.paused()) return true;
  const StateQueryRequest request =
      StateQueryRequest::in_store_with_query(t.store_name,
                                             RangeQuery<int32_t, int64_t>::with_no_bounds())
          .with_partitions({partition})
          .with_position_bound(PositionBound::at(bound));
  QueryRecord r =
      phase_record(QueryRecord::Source::kAudit, request, std::nullopt, partition, bound);
  r.target_instance = instance.name();
  auto answer = instance.streams().query(request);
  r.placement_at_answer = take_placement(*cluster_, t.store_name, {partition});
  record_outcome(r, answer);
  const PartitionOutcome* only = r.only_partition();
  const bool behind = r.outcome == OutcomeKind::kAnswered && only != nullptr && !only->success &&
                      only->failure_reason == FailureReason::NOT_UP_TO_BOUND;
  trace_.history.append(std::move(r));
  if (check_bounds()) return true;
  return !behind;
}

// The record of a liveness probe or an audit query of `partition`, bounded at `bound` (everything
// produced), before it is sent.
QueryRecord ScenarioDriver::phase_record(QueryRecord::Source source,
                                         const StateQueryRequest& request,
                                         std::optional<int32_t> key, int32_t partition,
                                         const Position& bound) {
  const TopologyConfig& t = cluster_->config().topology;
  QueryRecord r;
  r.id = trace_.history.next_id();
  r.source = source;
  r.invoke_ms = cluster_->loop().now();
  r.complete_ms = r.invoke_ms;
  r.request.store = t.store_name;
  r.request.query = request.query().describe();
  r.request.kind = request.query().kind();
  r.request.key = key;
  r.request.partitions = std::set<int32_t>{partition};
  r.request.bound_mode = BoundMode::kProduced;
  r.request.bound = bound;
  r.placement_at_invoke = take_placement(*cluster_, t.store_name, {partition});
  return r;
}

// One liveness probe of one partition; true if it answered successfully.
bool ScenarioDriver::probe_partition(int32_t partition, const Position& bound, base::Prng& prng) {
  const TopologyConfig& t = cluster_->config().topology;
  std::optional<int32_t> key;
  for (int32_t k = 0; k < scenario_.keys && !key; ++k) {
    if (partition_for_key(Serde<int32_t>::serialize(k).view(), t.source_partitions) == partition)
      key = k;
  }
  StateQueryRequest request =
      key ? StateQueryRequest::in_store_with_query(t.store_name,
                                                   KeyQuery<int32_t, int64_t>::with_key(*key))
          : StateQueryRequest::in_store_with_query(t.store_name,
                                                   RangeQuery<int32_t, int64_t>::with_no_bounds());
  // A versioned store throws on KeyQuery and RangeQuery (quirk 15): probe it with the latest
  // version of the key instead (key 0 when no key of the key space falls in the partition; the
  // request names the partition, so any key does).
  if (t.versioned()) {
    request = StateQueryRequest::in_store_with_query(
        t.store_name, VersionedKeyQuery<int32_t, int64_t>::with_key(key.value_or(0)));
  }
  // A window or session store answers KeyQuery and RangeQuery UNKNOWN_QUERY_TYPE: probe it with
  // the key's windows from time 0 on, or its sessions.
  std::optional<int64_t> window_to_ms;
  if (t.windowed()) {
    window_to_ms = std::numeric_limits<int64_t>::max();
    request = StateQueryRequest::in_store_with_query(
        t.store_name, WindowKeyQuery<int32_t, int64_t>::with_key_and_window_start_range(
                          key.value_or(0), 0, *window_to_ms, scenario_.cluster.streams.kafka_pin));
  } else if (t.session()) {
    request = StateQueryRequest::in_store_with_query(
        t.store_name, WindowRangeQuery<int32_t, int64_t>::with_key(key.value_or(0)));
  }
  request = request.with_partitions({partition}).with_position_bound(PositionBound::at(bound));
  QueryRecord r = phase_record(QueryRecord::Source::kLiveness, request, key, partition, bound);
  if (window_to_ms) {
    r.request.key = key.value_or(0);
    r.request.from_time_ms = 0;
    r.request.to_time_ms = window_to_ms;
  } else if (t.session()) {
    r.request.key = key.value_or(0);
  }

  std::vector<int32_t> live;
  for (int32_t n = 1; n <= cluster_->instance_count(); ++n) {
    const Instance& i = cluster_->instance(n);
    if (i.running() && !i.not_started() && !i.paused()) live.push_back(n);
  }
  Instance* target = nullptr;
  if (live.empty()) {
    r.not_routed_reason = "no live instance";
  } else {
    Instance& home = cluster_->instance(prng.pick(live));
    r.home_instance = home.name();
    HostInfo host = HostInfo::unavailable();
    if (key) {
      auto meta = home.streams().query_metadata_for_key(t.store_name, *key);
      if (!meta) r.not_routed_reason = "query_metadata_for_key: " + meta.error().to_string();
      if (meta) host = meta->active_host;
    } else {
      auto all = home.streams().streams_metadata_for_store(t.store_name);
      if (!all) r.not_routed_reason = "streams_metadata_for_store: " + all.error().to_string();
      for (const StreamsMetadata& m : all ? *all : std::vector<StreamsMetadata>{}) {
        if (m.topic_partitions.contains({t.source_topic, partition})) host = m.host_info;
      }
    }
    for (int32_t n : live) {
      if (cluster_->instance(n).host() == host) target = &cluster_->instance(n);
    }
    if (r.not_routed_reason.empty() && target == nullptr) {
      r.not_routed_reason = "no live active host (" + host.to_string() + ")";
    }
  }
  bool success = false;
  if (target != nullptr) {
    r.target_instance = target->name();
    auto answer = target->streams().query(request);
    r.placement_at_answer = take_placement(*cluster_, t.store_name, {partition});
    record_outcome(r, answer);
    const PartitionOutcome* only = r.only_partition();
    success = r.outcome == OutcomeKind::kAnswered && only != nullptr &&
              only->partition == partition && only->success;
  } else {
    r.outcome = OutcomeKind::kNotRouted;
  }
  trace_.history.append(std::move(r));
  if (check_bounds()) return false;
  return success;
}

bool ScenarioDriver::advance_to(int64_t ms) {
  if (stopped_) return false;
  const int64_t limit_ms = scenario_.virtual_time_ms_max;
  const int64_t target_ms = std::min(ms, limit_ms);
  if (target_ms > cluster_->now_ms()) {
    const RunResult r = cluster_->run_until(target_ms);
    if (r.stop == RunStop::kStopRequested) return false;
    if (r.stop == RunStop::kEventBudgetExhausted) {
      trace_.liveness_failures.push_back(
          {cluster_->loop().now(), "event budget exhausted running to " +
                                       std::to_string(target_ms) + " ms (" +
                                       std::to_string(r.events) + " events): a livelock?"});
      stopped_ = true;
      return false;
    }
  }
  if (ms > limit_ms) {
    trace_.time_limit_reached = true;
    stopped_ = true;
    return false;
  }
  return true;
}

void ScenarioDriver::schedule_lag_probe() {
  const int64_t interval_ms = scenario_.knobs.lag_probe_interval_ms;
  if (interval_ms <= 0) return;
  lag_probe_ = cluster_->loop().schedule_after(base::Duration::millis(interval_ms),
                                               "driver:lag-probe", [this] {
                                                 lag_probe_ = {};
                                                 probe_lags();
                                                 schedule_lag_probe();
                                               });
}

void ScenarioDriver::probe_lags() {
  // One observer snapshot per (store, partition) per probe, shared by the instances.
  std::map<std::pair<std::string, int32_t>, PlacementSnapshot> snapshots;
  for (int32_t n = 1; n <= cluster_->instance_count(); ++n) {
    Instance& instance = cluster_->instance(n);
    if (!instance.running() || instance.paused()) continue;
    auto lags = instance.streams().all_local_store_partition_lags();
    if (!lags) continue;  // not started, or the admin cannot reach the broker
    for (const auto& [store, partitions] : *lags) {
      for (const auto& [partition, lag] : partitions) {
        auto key = std::make_pair(store, partition);
        auto it = snapshots.find(key);
        if (it == snapshots.end()) {
          it = snapshots.emplace(key, take_placement(*cluster_, store, {partition})).first;
        }
        // Reachable from a file (a short lag_probe_interval_ms over a long run): the stop check
        // ends the run with a verdict rather than an assertion.
        if (trace_.lags.size() >= kLagRecordsMax) return;
        LagRecord record;
        record.at_ms = cluster_->loop().now();
        record.instance = instance.name();
        record.store = store;
        record.partition = partition;
        record.reported = lag;
        for (const ReplicaSnapshot& replica : it->second.replicas) {
          if (replica.instance == instance.name()) record.actual = replica;
        }
        trace_.lags.push_back(std::move(record));
      }
    }
  }
}

Position ScenarioDriver::produced_bound() const {
  const TopologyConfig& t = cluster_->config().topology;
  Position bound = Position::empty_position();
  for (int32_t p = 0; p < t.source_partitions; ++p) {
    auto end = cluster_->broker().broker().end_offset({t.source_topic, p});
    IQ_ASSERT(end.has_value(), "end offset of {}-{}", t.source_topic, p);
    if (*end > 0) bound.with_component(t.source_topic, p, *end - 1);
  }
  return bound;
}

std::set<int32_t> ScenarioDriver::all_partitions() const {
  std::set<int32_t> out;
  for (int32_t p = 0; p < cluster_->config().topology.source_partitions; ++p) out.insert(p);
  return out;
}

void ScenarioDriver::finish() {
  if (lag_probe_.valid()) (void)cluster_->loop().cancel(lag_probe_);
  lag_probe_ = {};
  read_source_log();
  read_changelog();
  for (int32_t n = 1; n <= cluster_->instance_count(); ++n) {
    const Instance& i = cluster_->instance(n);
    for (const std::string& e : i.errors()) trace_.instance_errors.push_back(i.name() + ": " + e);
  }
  trace_.reprocessed = cluster_->processing_ledger().ranges();
  trace_.reprocessed_dropped = cluster_->processing_ledger().ranges_dropped();
  trace_.store_lives = cluster_->store_lives().lives();
  trace_.end_ms = cluster_->loop().now();
  trace_.events = cluster_->loop().events_dispatched();
  trace_.digest = cluster_->digest().hex();
  // The workloads go before the trace they write into is handed out.
  random_faults_.clear();
  query_clients_.clear();
  producers_.clear();
  injector_.reset();
}

void ScenarioDriver::read_source_log() {
  const TopologyConfig& t = cluster_->config().topology;
  const SimBroker& broker = cluster_->broker().broker();
  for (int32_t p = 0; p < t.source_partitions; ++p) {
    const TopicPartition tp{t.source_topic, p};
    auto begin = broker.beginning_offset(tp);
    auto end = broker.end_offset(tp);
    IQ_ASSERT(begin.has_value() && end.has_value(), "offsets of {}-{}", t.source_topic, p);
    int64_t next = *begin;
    while (next < *end) {
      auto records = broker.fetch(tp, next, kSourceFetchRecords);
      IQ_ASSERT(records.has_value() && !records->empty(), "fetch {}-{} at {}", t.source_topic, p,
                next);
      for (const ConsumerRecord& c : *records) {
        IQ_ASSERT(c.offset == next && c.key.has_value(), "{}-{} offset {} (expected {})",
                  t.source_topic, p, c.offset, next);
        SourceLogRecord s;
        s.partition = p;
        // The broker's records carry raw longs; tp is a source topic partition.
        s.offset = SourceOffset(c.offset);
        s.key = Serde<int32_t>::deserialize(*c.key);
        if (c.value) s.value = Serde<int64_t>::deserialize(*c.value);
        s.timestamp_ms = c.timestamp;
        auto appended = broker.append_time_ms(tp, c.offset);
        IQ_ASSERT(appended.has_value(), "append time of {}-{} offset {}", t.source_topic, p,
                  c.offset);
        s.appended_ms = base::Instant::from_ms(*appended);  // the broker keeps virtual ms
        trace_.source_log.push_back(std::move(s));
        ++next;
      }
    }
  }
}

// The store's changelog as it was appended: the records the broker still holds, decoded as the
// store's value type, with the writer of each record (BrokerService's omniscient record) and its
// position header, merged with those the log cleaner removed (record_removed), so that the
// witness can fold the prefix a replica applied even after compaction. Offsets left without a
// record (transaction markers under exactly_once_v2, or removed records past the trace's bound)
// mark the changelog as not whole.
void ScenarioDriver::read_changelog() {
  const TopologyConfig& t = cluster_->config().topology;
  const BrokerService& service = cluster_->broker();
  const SimBroker& broker = service.broker();
  const std::string topic = cluster_->changelog_topic();
  trace_.changelog_recorded = true;
  if (removed_changelog_dropped_ > 0) trace_.changelog_compacted = true;
  // Removed records by partition, offsets ascending (a cleaning removes in offset order, but
  // later cleanings may remove lower offsets than earlier ones did).
  std::stable_sort(removed_changelog_.begin(), removed_changelog_.end(),
                   [](const ChangelogRecord& a, const ChangelogRecord& b) {
                     return std::pair(a.partition, a.offset) < std::pair(b.partition, b.offset);
                   });
  auto removed = removed_changelog_.begin();
  const auto push = [&](ChangelogRecord r) {
    if (trace_.changelog.size() >= RunTrace::kChangelogRecordsMax) {
      ++trace_.changelog_dropped;
      return;
    }
    trace_.changelog.push_back(std::move(r));
  };
  for (int32_t p = 0; p < t.source_partitions; ++p) {
    const TopicPartition tp{topic, p};
    auto begin = broker.beginning_offset(tp);
    auto end = broker.end_offset(tp);
    if (!begin.has_value() || !end.has_value()) continue;  // no changelog topic (unlogged)
    // The next offset a whole log would hold: every offset from 0 holds a record, live or
    // removed, or a transaction marker, unless something else sits there.
    const std::set<int64_t>& markers = changelog_markers_[p];
    const std::map<int64_t, TxnDecision>& decided = changelog_txns_[p];
    trace_.changelog_markers += markers.size();
    const int64_t last_stable = *broker.last_stable_offset(tp);
    int64_t expected = 0;
    const auto skip_markers = [&] {
      while (markers.contains(expected)) ++expected;
    };
    const auto take = [&](ChangelogRecord r) {
      skip_markers();
      if (r.offset.value() != expected) trace_.changelog_compacted = true;
      expected = r.offset.value() + 1;
      if (auto d = decided.find(r.offset.value()); d != decided.end()) {
        r.txn = d->second.outcome;
        r.decided_ms = d->second.decided_ms;
      } else if (r.offset.value() >= last_stable) {
        // At or past the last stable offset and undecided: in a transaction still open at the
        // end (only transactional records stop the LSO; at-least-once leaves it at the end).
        r.txn = TxnOutcome::kOpen;
      }
      push(std::move(r));
    };
    const auto take_removed_below = [&](int64_t offset) {
      while (removed != removed_changelog_.end() && removed->partition == p &&
             removed->offset.value() < offset) {
        take(*removed++);
      }
    };
    while (removed != removed_changelog_.end() && removed->partition < p) ++removed;
    int64_t next = *begin;
    while (next < *end) {
      auto fetched = broker.fetch(tp, next, kSourceFetchRecords, IsolationLevel::READ_UNCOMMITTED);
      IQ_ASSERT(fetched.has_value(), "fetch {}-{} at {}", topic, p, next);
      // Every fetch moves on: past records, transaction markers (exactly_once_v2) or offsets the
      // cleaner removed.
      IQ_ASSERT(fetched->next_fetch_offset > next, "fetch {}-{} at {} below the end {}", topic, p,
                next, *end);
      const int64_t fetched_end = fetched->next_fetch_offset;
      for (const ConsumerRecord& c : fetched->records) {
        IQ_ASSERT(c.offset >= next && c.key.has_value(), "{}-{} offset {} below {}", topic, p,
                  c.offset, next);
        take_removed_below(c.offset);
        auto appended = broker.append_time_ms(tp, c.offset);
        IQ_ASSERT(appended.has_value(), "append time of {}-{} offset {}", topic, p, c.offset);
        take(changelog_record(service, cluster_->config().topology, tp, c, *appended));
        next = c.offset + 1;
      }
      next = fetched_end;
    }
    take_removed_below(*end);
    skip_markers();
    if (expected < *end) trace_.changelog_compacted = true;  // offsets at the end hold nothing
  }
}

}  // namespace

RunTrace drive_scenario(const Scenario& scenario) {
  // The run's own hit set: probes reached by another run in this process never show here.
  base::ProbeHits hits;
  RunTrace trace;
  {
    base::ProbeScope scope(hits);
    ScenarioDriver driver(scenario);
    trace = driver.run();
  }
  trace.probes_hit = hits.names();
  return trace;
}

}  // namespace iq::sim
