#include "report_common.h"

#include <fmt/format.h>

namespace iq::reports {

namespace {

// Length of the valid UTF-8 sequence at text[i], or 0 if it is not one.
size_t utf8_length(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return n;
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        ++i;
        continue;
      case '<':
        out += "&lt;";
        ++i;
        continue;
      case '>':
        out += "&gt;";
        ++i;
        continue;
      case '"':
        out += "&quot;";
        ++i;
        continue;
      case '\'':
        out += "&#39;";
        ++i;
        continue;
      default:
        break;
    }
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\n' && c != '\t' && c != '\r') {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    size_t n = utf8_length(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string role_label(const sim::ReplicaSnapshot& replica) {
  if (!replica.running) return "down";
  switch (replica.role) {
    case sim::ReplicaRole::kActive:
      return replica.task_state == sim::ReplicaSnapshot::TaskState::RESTORING ? "restoring"
                                                                              : "active";
    case sim::ReplicaRole::kStandby:
      return replica.warmup ? "warmup" : "standby";
    case sim::ReplicaRole::kNone:
      break;
  }
  return "none";
}

const char* role_colour(std::string_view role) {
  if (role == "active") return "#1f77b4";
  if (role == "restoring") return "#ff7f0e";
  if (role == "standby") return "#2ca02c";
  if (role == "warmup") return "#9467bd";
  if (role == "down") return "#d62728";
  return "#9e9e9e";
}

const char* outcome_colour(std::string_view outcome_class) {
  if (outcome_class == "ok") return "#2ca02c";
  if (outcome_class == "NOT_UP_TO_BOUND") return "#ff7f0e";
  if (outcome_class == "NOT_ACTIVE") return "#9467bd";
  if (outcome_class == "NOT_PRESENT") return "#8c564b";
  // What never reached a store's answer: greys, darker the more it says about Kafka (a Streams
  // exception, then a timeout, then no route), told apart when stacked side by side.
  if (outcome_class == "error") return "#4d4d4d";
  if (outcome_class == "timeout") return "#8c8c8c";
  if (outcome_class == "not-routed") return "#c4c4c4";
  return "#e377c2";  // other failure reasons
}

std::optional<int64_t> applied_records(const sim::ReplicaSnapshot& replica) {
  if (!replica.running || replica.role == sim::ReplicaRole::kNone) return std::nullopt;
  // Changelog offsets count from 0, so the records applied are the applied offset + 1: a number
  // the reports plot, no longer an offset.
  if (replica.changelog_offset) return replica.changelog_offset->value() + 1;
  if (replica.changelog_end_offset) return 0;  // a store with nothing applied yet
  return std::nullopt;
}

const sim::ReplicaSnapshot* find_replica(const sim::PlacementSnapshot& snapshot,
                                         const std::string& instance, int32_t partition) {
  for (const sim::ReplicaSnapshot& r : snapshot.replicas) {
    if (r.partition == partition && r.instance == instance) return &r;
  }
  return nullptr;
}

const sim::PlacementSnapshot& served_snapshot(const sim::QueryRecord& record) {
  return record.placement_at_answer ? *record.placement_at_answer : record.placement_at_invoke;
}

std::string outcome_class(const sim::QueryRecord& record, const sim::PartitionOutcome* partition) {
  if (partition != nullptr) {
    if (partition->success) return "ok";
    return partition->failure_reason ? to_string(*partition->failure_reason) : "failed";
  }
  switch (record.outcome) {
    case sim::OutcomeKind::kStreamsError:
      return "error";
    case sim::OutcomeKind::kTimedOut:
      return "timeout";
    case sim::OutcomeKind::kNotRouted:
      return "not-routed";
    case sim::OutcomeKind::kAnswered:
      break;
  }
  return "ok";
}

std::string format_ms(int64_t ms) {
  if (ms % 1000 == 0) return fmt::format("{} s", ms / 1000);
  if (ms >= 10'000) return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
  return fmt::format("{} ms", ms);
}

}  // namespace iq::reports
