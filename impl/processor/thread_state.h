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

// KafkaStreams.State.
enum class ClientState {
  CREATED,
  REBALANCING,
  RUNNING,
  PENDING_SHUTDOWN,
  NOT_RUNNING,
  PENDING_ERROR,
  ERROR
};

inline const char* to_string(ClientState s) {
  switch (s) {
    case ClientState::CREATED:
      return "CREATED";
    case ClientState::REBALANCING:
      return "REBALANCING";
    case ClientState::RUNNING:
      return "RUNNING";
    case ClientState::PENDING_SHUTDOWN:
      return "PENDING_SHUTDOWN";
    case ClientState::NOT_RUNNING:
      return "NOT_RUNNING";
    case ClientState::PENDING_ERROR:
      return "PENDING_ERROR";
    case ClientState::ERROR:
      return "ERROR";
  }
  return "?";
}

inline bool is_valid_transition(ClientState from, ClientState to) {
  switch (from) {
    case ClientState::CREATED:
      return to == ClientState::REBALANCING || to == ClientState::PENDING_SHUTDOWN;
    case ClientState::REBALANCING:
      return to == ClientState::RUNNING || to == ClientState::PENDING_SHUTDOWN ||
             to == ClientState::PENDING_ERROR;
    case ClientState::RUNNING:
      return to == ClientState::REBALANCING || to == ClientState::RUNNING ||
             to == ClientState::PENDING_SHUTDOWN || to == ClientState::PENDING_ERROR;
    case ClientState::PENDING_SHUTDOWN:
      return to == ClientState::NOT_RUNNING;
    case ClientState::PENDING_ERROR:
      return to == ClientState::ERROR;
    case ClientState::NOT_RUNNING:
    case ClientState::ERROR:
      return false;
  }
  return false;
}

}  // namespace iq
