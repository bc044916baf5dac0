#include "staleness.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "base/assert.h"
#include "base/time.h"
#include "checks/source_appends.h"
#include "report_common.h"

namespace iq::reports {

namespace {

int64_t rank(const std::vector<int64_t>& sorted, double q) {
  // Nearest rank: the smallest value with at least q of the values at or below it.
  auto n = static_cast<double>(sorted.size());
  auto index = static_cast<size_t>(std::max(1.0, std::ceil(q * n))) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

struct Samples {
  std::vector<int64_t> end;
  std::vector<int64_t> newest;
  std::vector<int64_t> end_ms;
  std::vector<int64_t> newest_ms;
};

// The last source offset a position includes for `partition` (first - 1 when it includes none).
std::optional<int64_t> source_offset(const std::optional<Position>& position,
                                     const std::string& topic, int32_t partition, int64_t first) {
  if (!position) return std::nullopt;
  const int64_t* offset = position->offset(topic, partition);
  return offset != nullptr ? *offset : first - 1;
}

}  // namespace

const char* to_string(StalenessUnit unit) {
  return unit == StalenessUnit::kRecords ? "records" : "virtual ms";
}

StalenessStats summarize(std::vector<int64_t> values) {
  StalenessStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = values.size();
  s.median = rank(values, 0.5);
  s.p99 = rank(values, 0.99);
  s.max = values.back();
  return s;
}

Staleness compute_staleness(const sim::RunTrace& trace) {
  Staleness out;
  const properties::SourceAppends appended(trace.source_log);
  const std::string& topic = trace.topology.source_topic;
  std::map<std::string, Samples> by_role;
  std::map<std::string, Samples> by_kind;
  for (const sim::QueryRecord& q : trace.history.records()) {
    if (q.outcome != sim::OutcomeKind::kAnswered) continue;
    const sim::PlacementSnapshot& snap = served_snapshot(q);
    for (const sim::PartitionOutcome& p : q.partitions) {
      if (!p.success) continue;
      ++out.answers;
      const sim::ReplicaSnapshot* r = find_replica(snap, q.target_instance, p.partition);
      if (r == nullptr) {
        ++out.without_snapshot;
        continue;
      }
      std::vector<Samples*> groups = {&by_role[role_label(*r)],
                                      &by_kind[iq::to_string(q.request.kind)]};
      // Records: from the changelog offsets of the snapshot.
      std::optional<int64_t> applied = applied_records(*r);
      if (applied && r->changelog_end_offset) {
        int64_t newest = *applied;
        for (const sim::ReplicaSnapshot& other : snap.replicas) {
          if (other.partition == p.partition)
            newest = std::max(newest, applied_records(other).value_or(0));
        }
        for (Samples* s : groups) {
          // Both count changelog records from 0 (applied_records), so the difference is a lag.
          s->end.push_back(std::max<int64_t>(0, r->changelog_end_offset->value() - *applied));
          s->newest.push_back(newest - *applied);
        }
      } else {
        ++out.without_snapshot;
      }
      // Virtual ms: from the answer's position (else the replica's) against append times.
      const int64_t first = appended.first(p.partition);
      std::optional<int64_t> served =
          source_offset(p.position ? p.position : r->store_position, topic, p.partition, first);
      if (!served) {
        ++out.without_position;
        continue;
      }
      int64_t newest = *served;
      for (const sim::ReplicaSnapshot& other : snap.replicas) {
        if (other.partition != p.partition) continue;
        newest = std::max(
            newest,
            source_offset(other.store_position, topic, p.partition, first).value_or(first - 1));
      }
      std::optional<base::Instant> missing_since = appended.at(p.partition, *served + 1);
      const int64_t age =
          missing_since && *missing_since <= snap.at_ms ? (snap.at_ms - *missing_since).ms() : 0;
      for (Samples* s : groups) {
        s->end_ms.push_back(age);
        s->newest_ms.push_back(newest > *served ? age : 0);
      }
    }
  }
  auto group = [](const char* dimension, const std::string& name, Samples& s) {
    return StalenessGroup{dimension,           name,
                          summarize(s.end),    summarize(s.newest),
                          summarize(s.end_ms), summarize(s.newest_ms)};
  };
  for (auto& [role, s] : by_role) out.groups.push_back(group("role", role, s));
  for (auto& [kind, s] : by_kind) out.groups.push_back(group("query type", kind, s));
  return out;
}

std::string render_staleness_table(const Staleness& st, StalenessUnit unit) {
  const char* u = to_string(unit);
  std::string html = fmt::format(
      "<table class=\"stale\"><thead><tr><th>by</th><th>group</th><th>answers</th>"
      "<th>behind log end ({}): median</th><th>p99</th><th>max</th>"
      "<th>behind newest replica ({}): median</th><th>p99</th><th>max</th></tr></thead><tbody>\n",
      u, u);
  for (const StalenessGroup& g : st.groups) {
    const StalenessStats& end = g.log_end(unit);
    const StalenessStats& newest = g.newest_replica(unit);
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        html_escape(g.dimension), html_escape(g.name), end.count, end.median, end.p99, end.max,
        newest.median, newest.p99, newest.max);
  }
  if (st.groups.empty()) html += "<tr><td colspan=\"9\">no successful answers</td></tr>\n";
  return html + "</tbody></table>\n";
}

std::string render_guarantee_staleness_table(
    const std::map<std::string, properties::AnswerStaleness>& by_guarantee,
    const std::map<std::string, uint64_t>& runs) {
  // Roles in the order a task moves through them, so a guarantee's rows line up with the other's.
  const auto order = [](const std::string& role) {
    static const char* kOrder[] = {"active", "restoring", "standby", "warmup"};
    for (int32_t i = 0; i < 4; ++i) {
      if (role == kOrder[i]) return i;
    }
    return 4;
  };
  std::vector<std::tuple<int32_t, std::string, std::string>> rows;
  for (const auto& [guarantee, roles] : by_guarantee) {
    for (const auto& [role, s] : roles) rows.emplace_back(order(role), role, guarantee);
  }
  std::sort(rows.begin(), rows.end());
  std::string html =
      "<table class=\"stale guarantee\"><thead><tr><th>role</th><th>guarantee</th><th>runs</th>"
      "<th>answers</th><th>records behind: median</th><th>p90</th><th>max</th>"
      "<th>virtual ms behind: median</th><th>p90</th><th>max</th></tr></thead><tbody>\n";
  for (const auto& [rank, role, guarantee] : rows) {
    const properties::RoleStaleness& s = by_guarantee.at(guarantee).at(role);
    auto n = runs.find(guarantee);
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        html_escape(role), html_escape(guarantee),
        n == runs.end() ? std::string("-") : std::to_string(n->second), s.records.count(),
        s.records.quantile(0.5), s.records.quantile(0.9), s.records.max(),
        s.virtual_ms.quantile(0.5), s.virtual_ms.quantile(0.9), s.virtual_ms.max());
  }
  if (rows.empty()) html += "<tr><td colspan=\"10\">no successful answers</td></tr>\n";
  return html + "</tbody></table>\n";
}

std::string render_staleness_svg(const Staleness& st, StalenessUnit unit) {
  // One row per group: three bars (median, p99, max) for "behind log end" on the left half and
  // the same for "behind newest replica" on the right half, on a shared scale.
  constexpr double kWidth = 1100, kLabel = 230, kRow = 30, kTop = 30;
  const char* u = to_string(unit);
  double half = (kWidth - kLabel - 20) / 2;
  int64_t max = 1;
  for (const StalenessGroup& g : st.groups) {
    max = std::max({max, g.log_end(unit).max, g.newest_replica(unit).max});
  }
  double height = kTop + kRow * static_cast<double>(std::max<size_t>(st.groups.size(), 1)) + 10;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"stalechart\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\">\n",
      kWidth, height, kWidth, height);
  svg +=
      fmt::format("<text x=\"{:.0f}\" y=\"16\" class=\"h\">{} behind the log end (0..{})</text>\n",
                  kLabel, u, max);
  svg += fmt::format(
      "<text x=\"{:.0f}\" y=\"16\" class=\"h\">{} behind the newest replica (0..{})</text>\n",
      kLabel + half + 10, u, max);
  const char* colours[3] = {"#1f77b4", "#ff7f0e", "#d62728"};
  const char* names[3] = {"median", "p99", "max"};
  for (int32_t k = 0; k < 3; ++k) {
    svg += fmt::format(
        "<rect x=\"{}\" y=\"6\" width=\"10\" height=\"10\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"15\">{}</text>\n",
        10 + 70 * k, colours[k], 24 + 70 * k, names[k]);
  }
  for (size_t i = 0; i < st.groups.size(); ++i) {
    const StalenessGroup& g = st.groups[i];
    double y = kTop + kRow * static_cast<double>(i);
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" class=\"l\">{}: {}</text>\n", kLabel - 8,
                       y + 18, html_escape(g.dimension), html_escape(g.name));
    for (int32_t side = 0; side < 2; ++side) {
      const StalenessStats& s = side == 0 ? g.log_end(unit) : g.newest_replica(unit);
      int64_t v[3] = {s.median, s.p99, s.max};
      double x0 = kLabel + (side == 0 ? 0 : half + 10);
      for (int32_t k = 2; k >= 0; --k) {  // widest first so all three stay visible
        double w =
            std::max(1.0, (half - 10) * static_cast<double>(v[k]) / static_cast<double>(max));
        svg += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
            "<title>{} {}: {} {}</title></rect>\n",
            x0, y + 4 + 4.0 * k, w, 22 - 8.0 * k, colours[k], html_escape(g.name), names[k], v[k],
            u);
      }
    }
  }
  return svg + "</svg>\n";
}

}  // namespace iq::reports
