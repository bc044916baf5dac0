#include "processor/interactive_query.h"

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

}  // namespace

base::Expected<StateQueryResult, StreamsError> run_interactive_query(
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
    return base::unexpected(
        StreamsError{StreamsError::Kind::StreamsStopped,
                     std::string("KafkaStreams has been stopped (") + to_string(s) + ")."});
  }
  StateQueryResult result;
  if (context.global_store_names.count(name) != 0) {
    result.set_global_result(
        QueryResult::for_failure(FailureReason::UNKNOWN_QUERY_TYPE,
                                 "Global stores do not yet support the KafkaStreams#query API. Use "
                                 "KafkaStreams#store instead."));
    return result;
  }
  const QueryConfig config(request.execution_info_enabled());
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
        // Kafka quirk (iqv2-semantics.md 6.3 #3): requireActive replaces the bound with unbounded.
        const PositionBound bound =
            request.is_require_active() ? PositionBound::unbounded() : request.position_bound();
        auto r = store->query(request.query(), bound, config);
        if (!r) return base::unexpected(r.error());  // Kafka lets store exceptions escape
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

}  // namespace iq
