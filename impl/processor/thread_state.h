#pragma once
// The StreamThread and KafkaStreams client state machines (docs/cluster-model.md §1).

namespace iq {

// StreamThread.State: CREATED -> STARTING -> PARTITIONS_REVOKED | PARTITIONS_ASSIGNED <-> RUNNING;
// any -> PENDING_SHUTDOWN -> DEAD.
enum class ThreadState {
  CREATED,
  STARTING,
  PARTITIONS_REVOKED,
  PARTITIONS_ASSIGNED,
  RUNNING,
  PENDING_SHUTDOWN,
  DEAD
};

inline const char* to_string(ThreadState s) {
  switch (s) {
    case ThreadState::CREATED:
      return "CREATED";
    case ThreadState::STARTING:
      return "STARTING";
    case ThreadState::PARTITIONS_REVOKED:
      return "PARTITIONS_REVOKED";
    case ThreadState::PARTITIONS_ASSIGNED:
      return "PARTITIONS_ASSIGNED";
    case ThreadState::RUNNING:
      return "RUNNING";
    case ThreadState::PENDING_SHUTDOWN:
      return "PENDING_SHUTDOWN";
    case ThreadState::DEAD:
      return "DEAD";
  }
  return "?";
}

inline bool is_valid_transition(ThreadState from, ThreadState to) {
  if (to == ThreadState::PENDING_SHUTDOWN)
    return from != ThreadState::DEAD && from != ThreadState::PENDING_SHUTDOWN;
  switch (from) {
    case ThreadState::CREATED:
      return to == ThreadState::STARTING;
    case ThreadState::STARTING:
      return to == ThreadState::PARTITIONS_REVOKED || to == ThreadState::PARTITIONS_ASSIGNED;
    case ThreadState::PARTITIONS_REVOKED:  // PARTITIONS_REVOKED(2, 3, 5): itself included
      return to == ThreadState::PARTITIONS_REVOKED || to == ThreadState::PARTITIONS_ASSIGNED;
    case ThreadState::PARTITIONS_ASSIGNED:
      return to == ThreadState::PARTITIONS_REVOKED || to == ThreadState::PARTITIONS_ASSIGNED ||
             to == ThreadState::RUNNING;
    case ThreadState::RUNNING:  // RUNNING(2, 3, 4, 5): itself included
      return to == ThreadState::PARTITIONS_REVOKED || to == ThreadState::PARTITIONS_ASSIGNED ||
             to == ThreadState::RUNNING;
    case ThreadState::PENDING_SHUTDOWN:
      return to == ThreadState::DEAD;
    case ThreadState::DEAD:
      return false;
  }
  return false;
}

// KafkaStreams.State. Named KafkaStreamsState, not ClientState, because ClientState is the
// assignor's per-client bookkeeping class (assignment/client_state.h, Kafka's ClientState) and
// one name must mean one thing. Not nested in KafkaStreams (Kafka's spelling) so that the query
// path and the trace can name it without including the whole client; the flat name matches
// ThreadState beside it (StreamThread.State).
enum class KafkaStreamsState {
  CREATED,
  REBALANCING,
  RUNNING,
  PENDING_SHUTDOWN,
  NOT_RUNNING,
  PENDING_ERROR,
  ERROR
};

inline const char* to_string(KafkaStreamsState s) {
  switch (s) {
    case KafkaStreamsState::CREATED:
      return "CREATED";
    case KafkaStreamsState::REBALANCING:
      return "REBALANCING";
    case KafkaStreamsState::RUNNING:
      return "RUNNING";
    case KafkaStreamsState::PENDING_SHUTDOWN:
      return "PENDING_SHUTDOWN";
    case KafkaStreamsState::NOT_RUNNING:
      return "NOT_RUNNING";
    case KafkaStreamsState::PENDING_ERROR:
      return "PENDING_ERROR";
    case KafkaStreamsState::ERROR:
      return "ERROR";
  }
  return "?";
}

inline bool is_valid_transition(KafkaStreamsState from, KafkaStreamsState to) {
  switch (from) {
    case KafkaStreamsState::CREATED:
      return to == KafkaStreamsState::REBALANCING || to == KafkaStreamsState::PENDING_SHUTDOWN;
    case KafkaStreamsState::REBALANCING:
      return to == KafkaStreamsState::RUNNING || to == KafkaStreamsState::PENDING_SHUTDOWN ||
             to == KafkaStreamsState::PENDING_ERROR;
    case KafkaStreamsState::RUNNING:
      return to == KafkaStreamsState::REBALANCING || to == KafkaStreamsState::RUNNING ||
             to == KafkaStreamsState::PENDING_SHUTDOWN || to == KafkaStreamsState::PENDING_ERROR;
    case KafkaStreamsState::PENDING_SHUTDOWN:
      return to == KafkaStreamsState::NOT_RUNNING;
    case KafkaStreamsState::PENDING_ERROR:
      return to == KafkaStreamsState::ERROR;
    case KafkaStreamsState::NOT_RUNNING:
    case KafkaStreamsState::ERROR:
      return false;
  }
  return false;
}

}  // namespace iq
