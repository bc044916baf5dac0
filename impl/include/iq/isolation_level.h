#pragma once

namespace iq {

// Kafka's org.apache.kafka.common.IsolationLevel: what a fetch or ListOffsets may see.
// READ_UNCOMMITTED reads up to the high watermark, records of open and aborted transactions
// included; READ_COMMITTED reads up to the last stable offset and drops aborted records. Neither
// hands out transaction markers. A consumer's isolation.level is part of its configuration (sim/
// sets it where it builds the consumer); Streams uses READ_COMMITTED under exactly_once_v2.
// At the 2026-08-20 pin the same enum is also an IQv2 request's level (QueryConfig, KIP-892).
enum class IsolationLevel { READ_UNCOMMITTED, READ_COMMITTED };

inline const char* to_string(IsolationLevel level) {
  return level == IsolationLevel::READ_COMMITTED ? "READ_COMMITTED" : "READ_UNCOMMITTED";
}

}  // namespace iq
