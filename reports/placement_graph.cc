#include "placement_graph.h"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace iq::reports {

namespace {

struct Observation {
  int64_t at_ms;
  const sim::ReplicaSnapshot* replica;
  std::string instance;
  int32_t partition;
};

std::string node_id(size_t epoch, const std::string& instance) {
  return fmt::format("e{}_{}", epoch, instance);
}

std::string node_label(const std::string& instance, const std::map<int32_t, std::string>& roles) {
  std::string label = instance;
  size_t shown = 0;
  bool down = false;
  for (const auto& [partition, role] : roles) {
    if (role == "down") {
      down = true;
      continue;
    }
    if (role == "none") continue;
    if (shown++ == 8) {
      label += "\n...";
      break;
    }
    label += fmt::format("\nP{} {}", partition, role);
  }
  if (down) label += "\n(down)";
  return label;
}

std::optional<std::string> holder(const PlacementEpoch& e, int32_t partition, const char* role) {
  for (const auto& [instance, roles] : e.roles) {
    auto it = roles.find(partition);
    if (it != roles.end() && it->second == role) return instance;
  }
  return std::nullopt;
}

}  // namespace

std::vector<PlacementEpoch> placement_epochs(const sim::RunTrace& trace) {
  std::vector<Observation> seen;
  for (const sim::QueryRecord& q : trace.history.records()) {
    for (const sim::ReplicaSnapshot& r : q.placement_at_invoke.replicas) {
      seen.push_back({q.placement_at_invoke.at_ms.ms_since_epoch(), &r, r.instance, r.partition});
    }
    if (!q.placement_at_answer) continue;
    for (const sim::ReplicaSnapshot& r : q.placement_at_answer->replicas) {
      seen.push_back({q.placement_at_answer->at_ms.ms_since_epoch(), &r, r.instance, r.partition});
    }
  }
  for (const sim::LagRecord& l : trace.lags) {
    seen.push_back({l.at_ms.ms_since_epoch(), &l.actual, l.instance, l.partition});
  }
  std::stable_sort(seen.begin(), seen.end(),
                   [](const Observation& a, const Observation& b) { return a.at_ms < b.at_ms; });
  // Grouped by instant: a new epoch starts when a replica already seen changes role; a replica
  // seen for the first time is added to the current epoch (it was there, just not looked at).
  std::vector<PlacementEpoch> epochs;
  size_t i = 0;
  while (i < seen.size()) {
    int64_t at_ms = seen[i].at_ms;
    PlacementEpoch next = epochs.empty() ? PlacementEpoch{at_ms, {}} : epochs.back();
    bool changed = false;
    for (; i < seen.size() && seen[i].at_ms == at_ms; ++i) {
      std::string role = role_label(*seen[i].replica);
      auto& slot = next.roles[seen[i].instance][seen[i].partition];
      changed = changed || (!slot.empty() && slot != role);
      slot = role;
    }
    if (epochs.empty()) {
      epochs.push_back(std::move(next));
    } else if (changed) {
      next.start_ms = at_ms;
      epochs.push_back(std::move(next));
    } else {
      epochs.back().roles = std::move(next.roles);
    }
  }
  return epochs;
}

DotWriter placement_dot(const std::vector<PlacementEpoch>& all, const PlacementCaps& caps) {
  DotWriter dot("placement", caps.dot);
  dot.graph_attr("rankdir", "LR");
  dot.graph_attr("fontname", "Helvetica");
  dot.graph_attr("fontsize", "11");
  dot.graph_attr("nodesep", "0.15");
  dot.graph_attr("ranksep", "0.6");
  dot.node_defaults({{"shape", "box"},
                     {"style", "rounded,filled"},
                     {"fontname", "Helvetica"},
                     {"fontsize", "10"},
                     {"fillcolor", "#f4f6fb"}});
  std::vector<const PlacementEpoch*> epochs;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i + 1 < caps.epochs_max || i + 1 == all.size()) epochs.push_back(&all[i]);
  }
  std::vector<std::string> notes;
  if (epochs.size() < all.size()) {
    dot.graph_attr("label",
                   fmt::format("{} of {} placement epochs drawn (the first {} and the last)",
                               epochs.size(), all.size(), caps.epochs_max - 1));
  }
  for (size_t e = 0; e < epochs.size(); ++e) {
    dot.begin_cluster(fmt::format("epoch{}", e), fmt::format("from {} ms", epochs[e]->start_ms),
                      {{"style", "rounded"}, {"color", "#bbbbbb"}});
    for (const auto& [instance, roles] : epochs[e]->roles) {
      bool down = std::any_of(roles.begin(), roles.end(),
                              [](const auto& kv) { return kv.second == "down"; });
      dot.node(node_id(e, instance), node_label(instance, roles),
               down ? DotAttrs{{"fillcolor", "#f8d7d7"}, {"color", "#d62728"}} : DotAttrs{});
    }
    dot.end_cluster();
  }
  for (size_t e = 0; e + 1 < epochs.size(); ++e) {
    // Keep each instance on its row: invisible heavy edges between its boxes.
    for (const auto& [instance, roles] : epochs[e]->roles) {
      if (epochs[e + 1]->roles.count(instance) == 0) continue;
      dot.edge(node_id(e, instance), node_id(e + 1, instance),
               {{"style", "invis"}, {"weight", "10"}});
    }
  }
  // Movement: each partition's active (and standby) followed from the last epoch where some
  // instance held it to the next epoch where a different instance holds it, even across epochs
  // in which nobody held it (the failover gap after a crash).
  std::map<std::pair<int32_t, std::string>, std::pair<size_t, std::string>> last_holder;
  for (size_t e = 0; e < epochs.size(); ++e) {
    std::set<int32_t> partitions;
    for (const auto& [instance, roles] : epochs[e]->roles) {
      for (const auto& [p, role] : roles) partitions.insert(p);
    }
    for (int32_t p : partitions) {
      for (const char* role : {"active", "standby"}) {
        auto to = holder(*epochs[e], p, role);
        if (!to && std::string(role) == "active") to = holder(*epochs[e], p, "restoring");
        if (!to) continue;
        auto key = std::make_pair(p, std::string(role));
        auto last = last_holder.find(key);
        if (last != last_holder.end() && last->second.second != *to) {
          bool active = std::string(role) == "active";
          dot.edge(node_id(last->second.first, last->second.second), node_id(e, *to),
                   {{"label", fmt::format("P{} {}", p, role)},
                    {"color", active ? "#d62728" : "#2ca02c"},
                    {"fontcolor", active ? "#d62728" : "#2ca02c"},
                    {"fontsize", "10"},
                    {"style", active ? "bold" : "dashed"},
                    {"constraint", "false"}});
        }
        last_holder[key] = {e, *to};
      }
    }
  }
  return dot;
}

}  // namespace iq::reports
