#pragma once
// Turning what KafkaStreams::query returned into plain history data, shared by every caller that
// queries (query clients, scripted steps and liveness probes of the scenario driver), so that a
// result prints and compares the same whoever asked.
//
// - convert_partition_result: one partition's QueryResult as a PartitionOutcome (success with the
//   value or entries of any of the four key-value result shapes, plain or timestamped, or the
//   versioned record(s) of a VersionedKeyQuery or MultiVersionedKeyQuery, or the windows of a
//   WindowKeyQuery or WindowRangeQuery on a window or session store; or the failure reason and
//   message; the position and execution info either way).
// - record_outcome: the whole answer into a QueryRecord: kStreamsError with the error, or
//   kAnswered with every partition's outcome, ordered by partition.

#include <cstdint>
#include <optional>

#include "base/expected.h"
#include "iq/query_result.h"
#include "iq/state_query_result.h"
#include "iq/streams_error.h"
#include "trace/query_record.h"

namespace iq::sim {

// Asserts that a success carries one of the key-value, versioned or windowed result types over
// <int32_t, int64_t>. `window_key`: the key a WindowKeyQuery asked for (its entries carry only
// their window start).
PartitionOutcome convert_partition_result(int32_t partition, const QueryResult& result,
                                          std::optional<int32_t> window_key = std::nullopt);

void record_outcome(QueryRecord& record,
                    const base::Expected<StateQueryResult, StreamsError>& answer);

}  // namespace iq::sim
