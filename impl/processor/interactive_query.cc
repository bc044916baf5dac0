#include "processor/interactive_query.h"

#include "base/probe.h"
#include "state/store_query_utils.h"

namespace iq {
namespace {

QueryResult not_active(ThreadState thread_state, bool task_active) {
  return QueryResult::for_failure(
      FailureReason::NOT_ACTIVE,
      std::string("Query requires a running active task, but partition was in state ") +
          to_string(thread_state) + " and was " + (task_active ? "active" : "not active") + ".");
}

bool all_named_partitions_answered(const StateQueryRequest& request,
                                   const StateQueryResult& result) {
  if (request.is_all_partitions()) return false;
  for (int32_t p : request.partitions()) {
    if (result.partition_results().count(p) == 0) return false;
  }
  return true;
}

// Coverage probes on what a query was asked and what it answered; they never change the answer.
void probe_request(const QueryContext& context, const StateQueryRequest& request) {
  if (request.is_all_partitions()) IQ_PROBE("query.all_partitions", "a query named no partitions");
  if (!request.is_all_partitions() && request.partitions().size() > 1) {
    IQ_PROBE("query.multi_partition", "a query named several partitions");
  }
  if (context.client_state == KafkaStreamsState::REBALANCING) {
    IQ_PROBE("query.during_rebalance", "a query reached a client that was rebalancing");
  }
}

void probe_failure(FailureReason reason) {
  switch (reason) {
    case FailureReason::UNKNOWN_QUERY_TYPE:
      IQ_PROBE("failure.UNKNOWN_QUERY_TYPE", "a partition answered UNKNOWN_QUERY_TYPE");
      break;
    case FailureReason::NOT_ACTIVE:
      IQ_PROBE("failure.NOT_ACTIVE", "a partition answered NOT_ACTIVE (requireActive refused)");
      break;
    case FailureReason::NOT_UP_TO_BOUND:
      IQ_PROBE("failure.NOT_UP_TO_BOUND", "a partition answered NOT_UP_TO_BOUND");
      break;
    case FailureReason::NOT_PRESENT:
      IQ_PROBE("failure.NOT_PRESENT", "a partition answered NOT_PRESENT");
      break;
    case FailureReason::DOES_NOT_EXIST:
      // Kept so that a future Kafka that returns it is seen; scripts/probe-coverage skips a probe
      // whose description says why no campaign reaches it.
      IQ_PROBE(
          "failure.DOES_NOT_EXIST",
          "a partition answered DOES_NOT_EXIST (not in the default campaign: KafkaStreams#query "
          "never returns it at 1eb7644, a named partition not hosted is NOT_PRESENT)");
      break;
    case FailureReason::STORE_EXCEPTION:
      IQ_PROBE("failure.STORE_EXCEPTION",
               "a partition answered STORE_EXCEPTION (an exception from the store's own read: "
               "the random faults' disk read error inside a key query)");
      break;
  }
}

void probe_error(StreamsError::Kind kind) {
  switch (kind) {
    case StreamsError::Kind::UnknownStateStore:
      IQ_PROBE("error.UnknownStateStore", "a query raised UnknownStateStoreException");
      break;
    case StreamsError::Kind::StreamsNotStarted:
      IQ_PROBE("error.StreamsNotStarted", "a query raised StreamsNotStartedException");
      break;
    case StreamsError::Kind::StreamsStopped:
      IQ_PROBE("error.StreamsStopped", "a query raised StreamsStoppedException");
      break;
    default:
      IQ_PROBE("error.store", "a store's exception escaped a query");
      break;
  }
}

base::Expected<StateQueryResult, StreamsError> run_interactive_query_unprobed(
    const QueryContext& context, const StateQueryRequest& request);

// Coverage of the one way an isolation level makes a query refuse (2026-08-20 pin, KIP-892,
// docs/kafka-2026-08-20.md §3.7): a transactional store refused NOT_UP_TO_BOUND under
// READ_COMMITTED, its committed position behind the bound, while its staged one meets it (the
// same query under READ_UNCOMMITTED would have passed the bound). Observes only.
void probe_committed_bound(const StateStore& store, const Task& task, const PositionBound& bound,
                           const QueryConfig& config, int32_t partition, const QueryResult& r) {
  if (r.is_success() || *r.failure_reason() != FailureReason::NOT_UP_TO_BOUND ||
      config.isolation_level() != IsolationLevel::READ_COMMITTED ||
      !store.committed_position().has_value() ||
      !store_query_utils::is_permitted(store.position(), bound, partition)) {
    return;
  }
  IQ_PROBE("kip892.read_committed_bound_unmet_staged_met",
           "a READ_COMMITTED query was refused NOT_UP_TO_BOUND by a transactional store whose "
           "committed position was behind the bound while its staged one met it (new pin)");
  if (task.is_active()) {
    IQ_PROBE("kip892.read_committed_refused_on_active",
             "an active task's transactional store refused a READ_COMMITTED query its staged "
             "writes would have answered: the bound waits for the task's next commit (new pin)");
  }
}

}  // namespace

QueryConfig query_config_for(const QueryContext& context, const StateQueryRequest& request) {
  // Pin delta 6 (99611aa06f, KAFKA-20496): the level reaches the stores.
  if (at_least(context.kafka_pin, KafkaPin::k2026_08_20)) {
    return QueryConfig(request.execution_info_enabled(),
                       request.isolation_level().value_or(context.default_isolation_level));
  }
  return QueryConfig(request.execution_info_enabled());
}

base::Expected<StateQueryResult, StreamsError> run_interactive_query(
    const QueryContext& context, const StateQueryRequest& request) {
  probe_request(context, request);
  auto result = run_interactive_query_unprobed(context, request);
  if (!result) {
    probe_error(result.error().kind);
    return result;
  }
  for (const auto& [partition, r] : result->partition_results()) {
    if (!r.is_success()) probe_failure(*r.failure_reason());
  }
  if (result->global_result() && !result->global_result()->is_success()) {
    probe_failure(*result->global_result()->failure_reason());
  }
  return result;
}

namespace {

base::Expected<StateQueryResult, StreamsError> run_interactive_query_unprobed(
    const QueryContext& context, const StateQueryRequest& request) {
  const std::string& name = request.store_name();
  if (context.store_names.count(name) == 0 && context.global_store_names.count(name) == 0) {
    return base::unexpected(
        StreamsError{StreamsError::Kind::UnknownStateStore,
                     "Cannot get state store " + name +
                         " because no such store is registered in the topology."});
  }
  if (context.client_state == KafkaStreamsState::CREATED) {
    return base::unexpected(
        StreamsError{StreamsError::Kind::StreamsNotStarted,
                     "KafkaStreams has not been started, you can retry after calling start()."});
  }
  const auto s = context.client_state;
  if (s == KafkaStreamsState::PENDING_SHUTDOWN || s == KafkaStreamsState::PENDING_ERROR ||
      s == KafkaStreamsState::NOT_RUNNING || s == KafkaStreamsState::ERROR) {
    return base::unexpected(StreamsError{StreamsError::Kind::StreamsStopped,
                                         std::string("KafkaStreams has been stopped (") +
                                             to_string(s) +
                                             "). This instance can no longer serve queries."});
  }
  StateQueryResult result(context.kafka_pin);
  if (context.global_store_names.count(name) != 0) {
    result.set_global_result(
        QueryResult::for_failure(FailureReason::UNKNOWN_QUERY_TYPE,
                                 "Global stores do not yet support the KafkaStreams#query API. Use "
                                 "KafkaStreams#store instead."));
    return result;
  }
  const QueryConfig config = query_config_for(context, request);
  for (const ThreadView& thread : context.threads) {
    for (Task* task : thread.tasks) {
      const int32_t partition = task->id().partition;  // matched on the partition number only
      if (!request.is_all_partitions() && request.partitions().count(partition) == 0) continue;
      StateStore* store = task->store(name);
      if (store == nullptr) continue;
      if (request.is_require_active() &&
          (thread.state != ThreadState::RUNNING || !task->is_active())) {
        result.add_result(partition, not_active(thread.state, task->is_active()));
      } else {
        // Kafka quirk 3 (docs/iqv2-semantics.md): requireActive replaces the bound with
        // unbounded.
        const PositionBound bound =
            request.is_require_active() ? PositionBound::unbounded() : request.position_bound();
        auto r = store->query(request.query(), bound, config);
        if (!r) return base::unexpected(r.error());  // Kafka lets store exceptions escape
        probe_committed_bound(*store, *task, bound, config, partition, *r);
        result.add_result(partition, std::move(*r));
      }
      if (all_named_partitions_answered(request, result)) return result;
    }
  }
  if (!request.is_all_partitions()) {
    for (int32_t p : request.partitions()) {
      if (result.partition_results().count(p) == 0) {
        result.add_result(p,
                          QueryResult::for_failure(
                              FailureReason::NOT_PRESENT,
                              "The requested partition was not present at the time of the query."));
      }
    }
  }
  return result;
}

}  // namespace

}  // namespace iq
