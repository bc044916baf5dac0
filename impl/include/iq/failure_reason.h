#pragma once

namespace iq {

// org.apache.kafka.streams.query.FailureReason. DOES_NOT_EXIST is never produced at the commit we
// follow (docs/iqv2-semantics.md quirk 4); it exists so that the enum matches Kafka's.
enum class FailureReason {
  UNKNOWN_QUERY_TYPE,
  NOT_ACTIVE,
  NOT_UP_TO_BOUND,
  NOT_PRESENT,
  DOES_NOT_EXIST,
  STORE_EXCEPTION,
};

inline const char* to_string(FailureReason r) {
  switch (r) {
    case FailureReason::UNKNOWN_QUERY_TYPE:
      return "UNKNOWN_QUERY_TYPE";
    case FailureReason::NOT_ACTIVE:
      return "NOT_ACTIVE";
    case FailureReason::NOT_UP_TO_BOUND:
      return "NOT_UP_TO_BOUND";
    case FailureReason::NOT_PRESENT:
      return "NOT_PRESENT";
    case FailureReason::DOES_NOT_EXIST:
      return "DOES_NOT_EXIST";
    case FailureReason::STORE_EXCEPTION:
      return "STORE_EXCEPTION";
  }
  return "?";
}

}  // namespace iq
