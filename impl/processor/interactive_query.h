#pragma once
// KafkaStreams#query (S/KafkaStreams.java ~L2067-2158) with Kafka's exact order of checks,
// separated from the client so that it can be tested over any set of threads and tasks:
//   1. unknown store                -> UnknownStateStoreException (even before start)
//   2. client CREATED               -> StreamsNotStartedException
//   3. client stopping or stopped   -> StreamsStoppedException
//   4. global store                 -> a global UNKNOWN_QUERY_TYPE result
//   5. per thread, per task (state-updater tasks included): partition filter, store present,
//      requireActive -> NOT_ACTIVE unless the THREAD is RUNNING and the task active; otherwise
//      store.query with the bound, or UNBOUNDED when requireActive is set (Kafka quirk);
//      early return once every named partition answered
//   6. NOT_PRESENT for each named partition without a result
// At the 2026-08-20 pin step 5 hands each store the request's isolation level, or the client's
// default.interactive.query.isolation.level when the request sets none (pin delta 6); at the old
// pin there is no level (stores get QueryConfig's READ_UNCOMMITTED, which none reads).

#include <set>
#include <string>
#include <vector>

#include "iq/kafka_pin.h"
#include "iq/query_config.h"
#include "iq/state_query_request.h"
#include "iq/state_query_result.h"
#include "processor/task.h"
#include "processor/thread_state.h"

namespace iq {

struct ThreadView {
  ThreadState state;
  std::vector<Task*> tasks;  // readOnlyAllTasks(): running tasks and state-updater tasks
};

struct QueryContext {
  std::set<std::string> store_names;         // every store of the topology
  std::set<std::string> global_store_names;  // global stores (IQv2 does not support them)
  KafkaStreamsState client_state;
  std::vector<ThreadView> threads;
  KafkaPin kafka_pin = KafkaPin::k2024_10_25;
  IsolationLevel default_isolation_level = IsolationLevel::READ_UNCOMMITTED;  // new pin only
};

// The QueryConfig KafkaStreams#query hands every store for this request.
QueryConfig query_config_for(const QueryContext& context, const StateQueryRequest& request);

base::Expected<StateQueryResult, StreamsError> run_interactive_query(
    const QueryContext& context, const StateQueryRequest& request);

}  // namespace iq
