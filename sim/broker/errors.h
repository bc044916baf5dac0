#pragma once
// Errors: the error codes the simulated broker answers with, named as Kafka's
// org.apache.kafka.common.protocol.Errors names them, so a trace reads like a broker log. Only the
// codes the broker, the classic group coordinator and the transaction coordinator can return
// here are listed.

#include <ostream>

namespace iq::sim {

enum class Errors {
  NONE,
  UNKNOWN_TOPIC_OR_PARTITION,  // produce/fetch/list-offsets/commit on a topic or partition that
                               // does not exist
  OFFSET_OUT_OF_RANGE,         // fetch below the log start or past the log end
  TOPIC_ALREADY_EXISTS,        // create_topic with another partition count
  INVALID_PARTITIONS,          // create_topic with a partition count out of range
  INVALID_TIMESTAMP,           // produce with a negative timestamp other than -1 (NO_TIMESTAMP)
  ILLEGAL_GENERATION,          // sync/heartbeat/commit with a generation that is not the group's
  UNKNOWN_MEMBER_ID,           // the member is not (or no longer) in the group
  REBALANCE_IN_PROGRESS,       // the group is rebalancing: the member must (re)join
  INVALID_SESSION_TIMEOUT,     // session timeout outside [min, max] of the coordinator's config
  GROUP_MAX_SIZE_REACHED,      // the group already holds group_max_size members
  NON_EMPTY_GROUP,             // delete_group on a group that still has members
  GROUP_ID_NOT_FOUND,          // delete_group on a group that does not exist
  // Transactions (the transaction coordinator, transactional produce, read_committed offsets):
  INVALID_REQUEST,              // InitProducerId with an empty transactional.id
  INVALID_TRANSACTION_TIMEOUT,  // transaction.timeout.ms above transaction.max.timeout.ms
  CONCURRENT_TRANSACTIONS,      // the transactional id is completing a transaction: retry
  PRODUCER_FENCED,              // a newer incarnation of the transactional.id bumped the epoch
  INVALID_PRODUCER_EPOCH,       // a produce with an epoch older than the one the log saw
  INVALID_PRODUCER_ID_MAPPING,  // the producer id is not the transactional id's current one
  INVALID_TXN_STATE,            // the request does not fit the transaction's state
  UNSTABLE_OFFSET_COMMIT,       // OffsetFetch(require_stable) with a transactional commit pending
  INVALID_CONFIG,               // create_topic with a topic config out of range
  INVALID_RECORD,               // a record without a key for a compacted topic
};

inline const char* errors_name(Errors e) {
  switch (e) {
    case Errors::NONE:
      return "NONE";
    case Errors::UNKNOWN_TOPIC_OR_PARTITION:
      return "UNKNOWN_TOPIC_OR_PARTITION";
    case Errors::OFFSET_OUT_OF_RANGE:
      return "OFFSET_OUT_OF_RANGE";
    case Errors::TOPIC_ALREADY_EXISTS:
      return "TOPIC_ALREADY_EXISTS";
    case Errors::INVALID_PARTITIONS:
      return "INVALID_PARTITIONS";
    case Errors::INVALID_TIMESTAMP:
      return "INVALID_TIMESTAMP";
    case Errors::ILLEGAL_GENERATION:
      return "ILLEGAL_GENERATION";
    case Errors::UNKNOWN_MEMBER_ID:
      return "UNKNOWN_MEMBER_ID";
    case Errors::REBALANCE_IN_PROGRESS:
      return "REBALANCE_IN_PROGRESS";
    case Errors::INVALID_SESSION_TIMEOUT:
      return "INVALID_SESSION_TIMEOUT";
    case Errors::GROUP_MAX_SIZE_REACHED:
      return "GROUP_MAX_SIZE_REACHED";
    case Errors::NON_EMPTY_GROUP:
      return "NON_EMPTY_GROUP";
    case Errors::GROUP_ID_NOT_FOUND:
      return "GROUP_ID_NOT_FOUND";
    case Errors::INVALID_REQUEST:
      return "INVALID_REQUEST";
    case Errors::INVALID_TRANSACTION_TIMEOUT:
      return "INVALID_TRANSACTION_TIMEOUT";
    case Errors::CONCURRENT_TRANSACTIONS:
      return "CONCURRENT_TRANSACTIONS";
    case Errors::PRODUCER_FENCED:
      return "PRODUCER_FENCED";
    case Errors::INVALID_PRODUCER_EPOCH:
      return "INVALID_PRODUCER_EPOCH";
    case Errors::INVALID_PRODUCER_ID_MAPPING:
      return "INVALID_PRODUCER_ID_MAPPING";
    case Errors::INVALID_TXN_STATE:
      return "INVALID_TXN_STATE";
    case Errors::UNSTABLE_OFFSET_COMMIT:
      return "UNSTABLE_OFFSET_COMMIT";
    case Errors::INVALID_CONFIG:
      return "INVALID_CONFIG";
    case Errors::INVALID_RECORD:
      return "INVALID_RECORD";
  }
  return "?";
}

// So that gtest and traces print the name, not the number.
inline std::ostream& operator<<(std::ostream& out, Errors e) {
  return out << errors_name(e);
}

}  // namespace iq::sim
