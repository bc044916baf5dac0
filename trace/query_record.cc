#include "trace/query_record.h"

namespace iq::sim {
namespace {

template <typename T>
std::string opt_string(const std::optional<T>& o) {
  if (!o) return "-";
  if constexpr (std::is_same_v<T, Position>) {
    return o->to_string();
  } else if constexpr (std::is_same_v<T, FailureReason>) {
    return iq::to_string(*o);
  } else if constexpr (std::is_enum_v<T>) {
    return sim::to_string(*o);
  } else if constexpr (std::is_same_v<T, ChangelogOffset>) {
    return o->to_string();
  } else {
    return std::to_string(*o);
  }
}

std::string value_string(const ResultValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return "-";
  if (const auto* one = std::get_if<std::optional<int64_t>>(&v)) {
    return one->has_value() ? std::to_string(**one) : "null";
  }
  std::string out = "[";
  bool first = true;
  if (const auto* windows = std::get_if<WindowedList>(&v)) {
    for (const WindowedValue& w : *windows) {
      if (!first) out += ", ";
      first = false;
      out += to_string(w);
    }
    return out + "]";
  }
  if (const auto* versions = std::get_if<VersionedList>(&v)) {
    for (const VersionedValue& version : *versions) {
      if (!first) out += ", ";
      first = false;
      out += to_string(version);
    }
    return out + "]";
  }
  for (const auto& [k, value] : std::get<KeyValueList>(v)) {
    if (!first) out += ", ";
    first = false;
    out += std::to_string(k) + "=" + std::to_string(value);
  }
  return out + "]";
}

}  // namespace

std::string to_string(const VersionedValue& v) {
  return std::to_string(v.value) + "@[" + std::to_string(v.valid_from_ms) + "," +
         (v.valid_to_ms ? std::to_string(*v.valid_to_ms) : "") + ")";
}

std::string to_string(const WindowedValue& v) {
  if (!v.end_ms) return "@" + std::to_string(v.start_ms) + "=" + std::to_string(v.value);
  return std::to_string(v.key) + "@" + std::to_string(v.start_ms) + ".." +
         std::to_string(*v.end_ms) + "=" + std::to_string(v.value);
}

const char* to_string(ReplicaRole r) {
  switch (r) {
    case ReplicaRole::kNone:
      return "none";
    case ReplicaRole::kActive:
      return "active";
    case ReplicaRole::kStandby:
      return "standby";
  }
  return "?";
}

const char* to_string(ReplicaSnapshot::StreamsState s) {
  using S = ReplicaSnapshot::StreamsState;
  switch (s) {
    case S::CREATED:
      return "CREATED";
    case S::REBALANCING:
      return "REBALANCING";
    case S::RUNNING:
      return "RUNNING";
    case S::PENDING_SHUTDOWN:
      return "PENDING_SHUTDOWN";
    case S::NOT_RUNNING:
      return "NOT_RUNNING";
    case S::PENDING_ERROR:
      return "PENDING_ERROR";
    case S::ERROR:
      return "ERROR";
  }
  return "?";
}

const char* to_string(ReplicaSnapshot::ThreadState s) {
  using S = ReplicaSnapshot::ThreadState;
  switch (s) {
    case S::CREATED:
      return "CREATED";
    case S::STARTING:
      return "STARTING";
    case S::PARTITIONS_REVOKED:
      return "PARTITIONS_REVOKED";
    case S::PARTITIONS_ASSIGNED:
      return "PARTITIONS_ASSIGNED";
    case S::RUNNING:
      return "RUNNING";
    case S::PENDING_SHUTDOWN:
      return "PENDING_SHUTDOWN";
    case S::DEAD:
      return "DEAD";
  }
  return "?";
}

const char* to_string(ReplicaSnapshot::TaskState s) {
  using S = ReplicaSnapshot::TaskState;
  switch (s) {
    case S::CREATED:
      return "CREATED";
    case S::RESTORING:
      return "RESTORING";
    case S::RUNNING:
      return "RUNNING";
    case S::SUSPENDED:
      return "SUSPENDED";
    case S::CLOSED:
      return "CLOSED";
  }
  return "?";
}

const char* to_string(BoundMode m) {
  switch (m) {
    case BoundMode::kUnbounded:
      return "unbounded";
    case BoundMode::kSession:
      return "session";
    case BoundMode::kProduced:
      return "produced";
  }
  return "?";
}

const char* to_string(OutcomeKind k) {
  switch (k) {
    case OutcomeKind::kAnswered:
      return "answered";
    case OutcomeKind::kStreamsError:
      return "streams_error";
    case OutcomeKind::kTimedOut:
      return "timed_out";
    case OutcomeKind::kNotRouted:
      return "not_routed";
  }
  return "?";
}

std::string ReplicaSnapshot::to_string() const {
  std::string out = "{p=" + std::to_string(partition) + " " + instance;
  if (!running) return out + " down}";
  out += " client=" + opt_string(client_state);
  out += " role=" + std::string(sim::to_string(role));
  if (warmup) out += "(warmup)";
  if (role == ReplicaRole::kNone) return out + "}";
  out += " task=" + opt_string(task_state) + " thread=" + opt_string(thread_state);
  out += " pos=" + opt_string(store_position);
  if (committed_position) {
    out += " committed=" + opt_string(committed_position) + "@" +
           opt_string(committed_changelog_offset);
    if (observed_stream_time_ms) out += " ost=" + std::to_string(*observed_stream_time_ms);
  }
  out += " changelog=" + opt_string(changelog_offset) + "/" + opt_string(changelog_end_offset);
  out += " lag=" + opt_string(lag);
  if (!unlogged_writes.empty()) out += " unlogged=" + std::to_string(unlogged_writes.size());
  if (versioned_store_reopened) out += " reopened";
  return out + "}";
}

int32_t PlacementSnapshot::count(int32_t partition, ReplicaRole role) const {
  int32_t n = 0;
  for (const auto& r : replicas) n += (r.partition == partition && r.role == role) ? 1 : 0;
  return n;
}

std::string PlacementSnapshot::to_string() const {
  std::string out = "@" + std::to_string(at_ms.ms_since_epoch()) + "[";
  bool first = true;
  for (const auto& r : replicas) {
    if (!first) out += " ";
    first = false;
    out += r.to_string();
  }
  return out + "]";
}

std::string QueryRequestRecord::to_string() const {
  std::string out = "store=" + store + " query=" + query;
  out += " partitions=";
  if (!partitions) {
    out += "all";
  } else {
    out += "{";
    bool first = true;
    for (int32_t p : *partitions) {
      if (!first) out += ",";
      first = false;
      out += std::to_string(p);
    }
    out += "}";
  }
  out += " bound=" + std::string(sim::to_string(bound_mode)) + ":" + bound.to_string();
  out += std::string(" require_active=") + (require_active ? "true" : "false");
  if (collect_execution_info) out += " execution_info";
  if (isolation_level) out += std::string(" isolation=") + iq::to_string(*isolation_level);
  return out;
}

std::string PartitionOutcome::to_string() const {
  std::string out = "{p=" + std::to_string(partition);
  if (success) {
    out += " ok value=" + value_string(value);
    if (!timestamps.empty()) {
      out += " ts=[";
      for (size_t i = 0; i < timestamps.size(); ++i)
        out += (i ? "," : "") + std::to_string(timestamps[i]);
      out += "]";
    }
  } else {
    out += " failed " + opt_string(failure_reason) + " '" + failure_message + "'";
  }
  if (!execution_info.empty()) out += " info=" + std::to_string(execution_info.size());
  return out + " pos=" + opt_string(position) + "}";
}

std::string QueryRecord::to_string() const {
  std::string out = "#" + std::to_string(id) + " client=" + std::to_string(client) +
                    " query=" + std::to_string(query) + " attempt=" + std::to_string(attempt) +
                    " t=" + std::to_string(invoke_ms.ms_since_epoch()) + ".." +
                    std::to_string(complete_ms.ms_since_epoch()) + " " + request.to_string() +
                    " home=" + (home_instance.empty() ? "-" : home_instance) +
                    " target=" + (target_instance.empty() ? "-" : target_instance) +
                    (to_standby ? "(standby)" : "") + " outcome=" + sim::to_string(outcome);
  if (error) out += " error=" + error->to_string();
  if (!not_routed_reason.empty()) out += " reason='" + not_routed_reason + "'";
  for (const auto& p : partitions) out += " " + p.to_string();
  out += " placement_invoke=" + placement_at_invoke.to_string();
  if (placement_at_answer) out += " placement_answer=" + placement_at_answer->to_string();
  return out;
}

}  // namespace iq::sim
