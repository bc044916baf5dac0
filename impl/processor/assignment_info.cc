#include "processor/assignment_info.h"

#include <charconv>
#include <sstream>

#include "base/assert.h"

namespace iq {
namespace {

StreamsError malformed(const char* what, const std::string& line) {
  return {StreamsError::Kind::IllegalArgument,
          std::string("malformed ") + what + " line: '" + line + "'"};
}

template <typename Int>
bool parse_int(const std::string& s, Int& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

std::optional<TaskId> parse_task(const std::string& s) {
  const auto u = s.find('_');
  if (u == std::string::npos) return std::nullopt;
  TaskId id;
  if (!parse_int(s.substr(0, u), id.subtopology) || !parse_int(s.substr(u + 1), id.partition))
    return std::nullopt;
  return id;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string host_string(const HostInfo& h) {
  return h.host + ":" + std::to_string(h.port);
}

// A word of the line format: what decode() splits on must not be inside it.
bool is_word(const std::string& s) {
  return !s.empty() && s.find_first_of(" \t\r\n\f\v") == std::string::npos;
}

// The assignment as decode() sees it: a host with an empty set of partitions has no line.
AssignmentInfo without_empty_hosts(AssignmentInfo info) {
  std::erase_if(info.partitions_by_host, [](const auto& e) { return e.second.empty(); });
  std::erase_if(info.standby_partitions_by_host, [](const auto& e) { return e.second.empty(); });
  return info;
}

}  // namespace

std::optional<HostInfo> parse_host_info(const std::string& endpoint) {
  const auto colon = endpoint.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  HostInfo h{endpoint.substr(0, colon), 0};
  if (!parse_int(endpoint.substr(colon + 1), h.port)) return std::nullopt;
  return h;
}

Bytes SubscriptionInfo::encode() const {
  std::string out = "process " + process_id + "\n";
  if (!endpoint.empty()) out += "endpoint " + endpoint + "\n";
  out += "unique " + std::to_string(unique_field) + "\n";
  for (const auto& [task, sum] : task_offset_sums)
    out += "task " + task.to_string() + " " + std::to_string(sum) + "\n";
  for (const auto& [task, sum] : task_offset_sums) {
    // getTaskOffsetSums: a sum of non-negative changelog offsets, or LATEST_OFFSET (-2) for a
    // running active; the unknown sentinel (-3) is the leader's, never sent.
    IQ_ASSERT(sum >= 0 || sum == -2, "task {} offset sum {}", task.to_string(), sum);
  }
  // Paired with decode(): what the member sends is what the leader reads.
  IQ_ASSERT(is_word(process_id) && (endpoint.empty() || is_word(endpoint)), "process '{}' '{}'",
            process_id, endpoint);
  const auto read_back = decode(Bytes(out));
  IQ_ASSERT(read_back.has_value() && *read_back == *this, "subscription does not decode: {}", out);
  return Bytes(out);
}

base::Expected<SubscriptionInfo, StreamsError> SubscriptionInfo::decode(const Bytes& bytes) {
  SubscriptionInfo info;
  std::istringstream in(bytes.get());
  for (std::string line; std::getline(in, line);) {
    const auto w = words(line);
    if (w.size() == 2 && w[0] == "process") {
      info.process_id = w[1];
    } else if (w.size() == 2 && w[0] == "endpoint") {
      info.endpoint = w[1];
    } else if (w.size() == 2 && w[0] == "unique") {
      if (!parse_int(w[1], info.unique_field))
        return base::unexpected(malformed("subscription", line));
    } else if (w.size() == 3 && w[0] == "task") {
      auto task = parse_task(w[1]);
      int64_t sum = 0;
      if (!task || !parse_int(w[2], sum)) return base::unexpected(malformed("subscription", line));
      info.task_offset_sums[*task] = sum;
    } else {
      return base::unexpected(malformed("subscription", line));
    }
  }
  if (info.process_id.empty())
    return base::unexpected(malformed("subscription (no process id)", bytes.get()));
  return info;
}

Bytes AssignmentInfo::encode() const {
  std::string out;
  for (const auto& t : active_tasks) out += "active " + t.to_string() + "\n";
  for (const auto& t : standby_tasks) out += "standby " + t.to_string() + "\n";
  for (const auto& tp : partitions)
    out += "partition " + tp.topic + " " + std::to_string(tp.partition) + "\n";
  for (const auto& [host, tps] : partitions_by_host) {
    for (const auto& tp : tps)
      out += "host-active " + host_string(host) + " " + tp.topic + " " +
             std::to_string(tp.partition) + "\n";
  }
  for (const auto& [host, tps] : standby_partitions_by_host) {
    for (const auto& tp : tps)
      out += "host-standby " + host_string(host) + " " + tp.topic + " " +
             std::to_string(tp.partition) + "\n";
  }
  if (next_rebalance_ms) out += "next-rebalance " + std::to_string(*next_rebalance_ms) + "\n";
  // Paired with decode(): the member reads back the assignment the leader computed (topic and
  // host names are words of the line format).
  for (const auto& tp : partitions) IQ_ASSERT(is_word(tp.topic), "topic '{}'", tp.topic);
  const auto read_back = decode(Bytes(out));
  IQ_ASSERT(read_back.has_value() && *read_back == without_empty_hosts(*this),
            "assignment does not decode: {}", out);
  return Bytes(out);
}

base::Expected<AssignmentInfo, StreamsError> AssignmentInfo::decode(const Bytes& bytes) {
  AssignmentInfo info;
  std::istringstream in(bytes.get());
  for (std::string line; std::getline(in, line);) {
    const auto w = words(line);
    if (w.size() == 2 && (w[0] == "active" || w[0] == "standby")) {
      auto task = parse_task(w[1]);
      if (!task) return base::unexpected(malformed("assignment", line));
      if (w[0] == "active") {
        info.active_tasks.push_back(*task);
      } else {
        info.standby_tasks.insert(*task);
      }
    } else if (w.size() == 3 && w[0] == "partition") {
      int32_t p = 0;
      if (!parse_int(w[2], p)) return base::unexpected(malformed("assignment", line));
      info.partitions.push_back({w[1], p});
    } else if (w.size() == 4 && (w[0] == "host-active" || w[0] == "host-standby")) {
      auto host = parse_host_info(w[1]);
      int32_t p = 0;
      if (!host || !parse_int(w[3], p)) return base::unexpected(malformed("assignment", line));
      auto& map = w[0] == "host-active" ? info.partitions_by_host : info.standby_partitions_by_host;
      map[*host].insert({w[2], p});
    } else if (w.size() == 2 && w[0] == "next-rebalance") {
      int64_t t = 0;
      if (!parse_int(w[1], t)) return base::unexpected(malformed("assignment", line));
      info.next_rebalance_ms = t;
    } else {
      return base::unexpected(malformed("assignment", line));
    }
  }
  return info;
}

}  // namespace iq
