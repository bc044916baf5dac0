#pragma once
// StoreQueryUtils (SI/StoreQueryUtils.java): the bound check, position updates from the record
// context, and the dispatch every position owner runs for a query (handleBasicQueries).
// ChangelogRecordDeserializationHelper's header handling lives here too, beside the other
// position rules.

#include "io/record.h"
#include "iq/position.h"
#include "iq/position_bound.h"
#include "state/state_store.h"

namespace iq {

class StateStoreContext;

namespace store_query_utils {

// isPermitted: for every topic of the bound that has an entry for `partition` (the store's TASK
// partition), the store must have an entry for (topic, partition) at least as high. Entries for
// other partitions are ignored; an empty bound permits everything (docs/iqv2-semantics.md §2).
bool is_permitted(const Position& store_position, const PositionBound& bound, int32_t partition);

// updatePosition: advance to the current record context's (topic, partition, offset), unless
// there is no context or its topic is null (punctuation; the KAFKA-13714 guard).
void update_position(Position& position, const StateStoreContext* context);

// handleBasicQueries, run by the position owner: unknown class -> UNKNOWN_QUERY_TYPE; no context
// -> NOT_UP_TO_BOUND "not initialized"; bound unmet -> NOT_UP_TO_BOUND; otherwise the handler.
// Every outcome carries a copy of `position`.
QueryResult handle_basic_queries(const Query& query, const PositionBound& bound,
                                 const QueryConfig& config, StateStore& store,
                                 const Position& position, const StateStoreContext* context);

// The UNKNOWN_QUERY_TYPE message of WindowRangeQuery.withKey on a window store (MeteredWindowStore
// and runWindowRangeQuery word it alike; note "supports", where the session one says "support").
std::string window_range_with_key_message(std::string_view store_class, const Query& query);

// The UNKNOWN_QUERY_TYPE message of WindowRangeQuery.withWindowStartRange on a session store
// (MeteredSessionStore and runWindowRangeQuery word it alike: "SessionStores only support").
std::string session_range_with_time_message(std::string_view store_class, const Query& query);

// The line a layer appends to a result's execution info. Kafka appends elapsed nanoseconds too;
// impl/ has no wall clock, so the line names the layer only.
std::string execution_info(std::string_view java_class);

// ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition: with the switch on, merge
// the "c" header of a record whose "v" header is 0. A "v" of 0 without "c" is a StreamsException.
[[nodiscard]] Status apply_checks_and_update_position(const ConsumerRecord& record,
                                                      bool consistency_enabled, Position& position);

// The header names and version byte ProcessorContextImpl.logChange writes.
inline constexpr const char* kVectorVersionHeader = "v";
inline constexpr const char* kVectorHeader = "c";
inline constexpr uint8_t kVectorVersion = 0;

}  // namespace store_query_utils
}  // namespace iq
