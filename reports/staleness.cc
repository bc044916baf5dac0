#include "staleness.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

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
};

}  // namespace

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
  std::map<std::string, Samples> by_role;
  std::map<std::string, Samples> by_kind;
  for (const sim::QueryRecord& q : trace.history.records()) {
    if (q.outcome != sim::OutcomeKind::kAnswered) continue;
    const sim::PlacementSnapshot& snap = served_snapshot(q);
    for (const sim::PartitionOutcome& p : q.partitions) {
      if (!p.success) continue;
      ++out.answers;
      const sim::ReplicaSnapshot* r = find_replica(snap, q.target_instance, p.partition);
      std::optional<int64_t> applied = r != nullptr ? applied_records(*r) : std::nullopt;
      if (!applied || !r->changelog_end_offset) {
        ++out.without_snapshot;
        continue;
      }
      int64_t newest = *applied;
      for (const sim::ReplicaSnapshot& other : snap.replicas) {
        if (other.partition == p.partition)
          newest = std::max(newest, applied_records(other).value_or(0));
      }
      int64_t behind_end = std::max<int64_t>(0, *r->changelog_end_offset - *applied);
      for (Samples* s : {&by_role[role_label(*r)], &by_kind[iq::to_string(q.request.kind)]}) {
        s->end.push_back(behind_end);
        s->newest.push_back(newest - *applied);
      }
    }
  }
  for (auto& [role, s] : by_role) {
    out.groups.push_back({"role", role, summarize(s.end), summarize(s.newest)});
  }
  for (auto& [kind, s] : by_kind) {
    out.groups.push_back({"query type", kind, summarize(s.end), summarize(s.newest)});
  }
  return out;
}

std::string render_staleness_table(const Staleness& st) {
  std::string html =
      "<table class=\"stale\"><thead><tr><th>by</th><th>group</th><th>answers</th>"
      "<th>behind log end: median</th><th>p99</th><th>max</th>"
      "<th>behind newest replica: median</th><th>p99</th><th>max</th></tr></thead><tbody>\n";
  for (const StalenessGroup& g : st.groups) {
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        html_escape(g.dimension), html_escape(g.name), g.behind_log_end.count,
        g.behind_log_end.median, g.behind_log_end.p99, g.behind_log_end.max,
        g.behind_newest_replica.median, g.behind_newest_replica.p99, g.behind_newest_replica.max);
  }
  if (st.groups.empty()) html += "<tr><td colspan=\"9\">no successful answers</td></tr>\n";
  return html + "</tbody></table>\n";
}

std::string render_staleness_svg(const Staleness& st) {
  // One row per group: three bars (median, p99, max) for "behind log end" on the left half and
  // the same for "behind newest replica" on the right half, on a shared scale.
  constexpr double kWidth = 1100, kLabel = 230, kRow = 30, kTop = 30;
  double half = (kWidth - kLabel - 20) / 2;
  int64_t max = 1;
  for (const StalenessGroup& g : st.groups) {
    max = std::max({max, g.behind_log_end.max, g.behind_newest_replica.max});
  }
  double height = kTop + kRow * static_cast<double>(std::max<size_t>(st.groups.size(), 1)) + 10;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"stalechart\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\">\n",
      kWidth, height, kWidth, height);
  svg += fmt::format(
      "<text x=\"{:.0f}\" y=\"16\" class=\"h\">records behind the log end (0..{})</text>\n", kLabel,
      max);
  svg += fmt::format(
      "<text x=\"{:.0f}\" y=\"16\" class=\"h\">records behind the newest replica (0..{})</text>\n",
      kLabel + half + 10, max);
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
      const StalenessStats& s = side == 0 ? g.behind_log_end : g.behind_newest_replica;
      int64_t v[3] = {s.median, s.p99, s.max};
      double x0 = kLabel + (side == 0 ? 0 : half + 10);
      for (int32_t k = 2; k >= 0; --k) {  // widest first so all three stay visible
        double w =
            std::max(1.0, (half - 10) * static_cast<double>(v[k]) / static_cast<double>(max));
        svg += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
            "<title>{} {}: {} records</title></rect>\n",
            x0, y + 4 + 4.0 * k, w, 22 - 8.0 * k, colours[k], html_escape(g.name), names[k], v[k]);
      }
    }
  }
  return svg + "</svg>\n";
}

}  // namespace iq::reports
