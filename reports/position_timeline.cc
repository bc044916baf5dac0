#include "position_timeline.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "base/assert.h"

namespace iq::reports {

namespace {

// Geometry of the figure, in SVG user units.
constexpr double kWidth = 1300;
constexpr double kLeft = 120;  // lane labels
constexpr double kRight = 20;
constexpr double kTop = 64;  // fault labels above the lanes
constexpr double kLaneHeight = 74;
constexpr double kLaneGap = 10;
constexpr double kAxis = 34;

struct Scale {
  int64_t end_ms;
  int64_t offset_max;
  double x(int64_t ms) const {
    double span = static_cast<double>(std::max<int64_t>(end_ms, 1));
    return kLeft + (kWidth - kLeft - kRight) * static_cast<double>(ms) / span;
  }
  // y within a lane whose top is `top`: 0 at the foot, offset_max at the head (4 units margin).
  double y(double top, int64_t applied) const {
    double frac =
        static_cast<double>(applied) / static_cast<double>(std::max<int64_t>(offset_max, 1));
    return top + kLaneHeight - 4 - (kLaneHeight - 8) * frac;
  }
};

std::string num(double v) {
  return fmt::format("{:.1f}", v);
}

void add_sample(PartitionTimeline& t, base::Instant at, const sim::ReplicaSnapshot& r) {
  LaneSample s;
  s.at_ms = at.ms_since_epoch();  // the timeline plots virtual ms as numbers
  s.role = role_label(r);
  s.applied = applied_records(r);
  // Plotted as a number on the applied records' scale (both count changelog records from 0).
  if (r.changelog_end_offset) s.end_offset = r.changelog_end_offset->value();
  s.position = r.store_position ? r.store_position->to_string() : "";
  t.lanes[r.instance].push_back(std::move(s));
}

// Keeps at most `max` samples: every role change, then an even stride over the rest.
std::vector<LaneSample> thin(const std::vector<LaneSample>& samples, size_t max) {
  if (samples.size() <= max) return samples;
  std::vector<LaneSample> out;
  size_t stride = (samples.size() + max / 2 - 1) / (max / 2);
  for (size_t i = 0; i < samples.size(); ++i) {
    bool role_change = i == 0 || samples[i].role != samples[i - 1].role;
    if ((role_change && out.size() < max / 2 + max / 4) || i % stride == 0 ||
        i + 1 == samples.size()) {
      out.push_back(samples[i]);
    }
  }
  return out;
}

std::string dot_tooltip(const sim::QueryRecord& q, const sim::PartitionOutcome* p,
                        const std::string& instance) {
  std::string text = fmt::format("#{} at {} ms on {}: {}", q.id, q.complete_ms.ms_since_epoch(),
                                 instance, q.request.to_string());
  if (p != nullptr)
    text += " -> " + p->to_string();
  else if (q.error)
    text += " -> " + q.error->to_string();
  else
    text += std::string(" -> ") + to_string(q.outcome);
  return text;
}

void add_queries(PartitionTimeline& t, const sim::RunTrace& trace,
                 const std::map<uint64_t, std::string>& anchors) {
  for (const sim::QueryRecord& q : trace.history.records()) {
    auto anchor_it = anchors.find(q.id);
    std::string anchor = anchor_it == anchors.end() ? "" : anchor_it->second;
    const sim::PlacementSnapshot& snap = served_snapshot(q);
    if (q.outcome == sim::OutcomeKind::kAnswered) {
      for (const sim::PartitionOutcome& p : q.partitions) {
        if (p.partition != t.partition) continue;
        const sim::ReplicaSnapshot* r = find_replica(snap, q.target_instance, p.partition);
        t.queries.push_back({q.complete_ms.ms_since_epoch(), q.target_instance,
                             r != nullptr ? applied_records(*r) : std::nullopt,
                             outcome_class(q, &p), dot_tooltip(q, &p, q.target_instance), anchor});
      }
      continue;
    }
    // Unanswered queries for this partition (by request or by routing key's snapshot).
    bool about = false;
    if (q.request.partitions) {
      about = q.request.partitions->count(t.partition) > 0;
    } else {
      for (const sim::ReplicaSnapshot& r : q.placement_at_invoke.replicas) {
        about = about || r.partition == t.partition;
      }
    }
    if (!about || q.target_instance.empty()) continue;
    t.queries.push_back({q.complete_ms.ms_since_epoch(), q.target_instance, std::nullopt,
                         outcome_class(q, nullptr), dot_tooltip(q, nullptr, q.target_instance),
                         anchor});
  }
}

void cap_queries(PartitionTimeline& t, size_t max) {
  std::stable_sort(t.queries.begin(), t.queries.end(),
                   [](const QueryDot& a, const QueryDot& b) { return a.at_ms < b.at_ms; });
  if (t.queries.size() <= max) return;
  size_t total = t.queries.size();
  size_t stride = (total + max / 2 - 1) / (max / 2);
  std::vector<QueryDot> kept;
  for (size_t i = 0; i < total; ++i) {
    // Violations and failures are what the eye looks for: keep them (up to the cap).
    bool notable = !t.queries[i].anchor.empty() || t.queries[i].outcome != "ok";
    if ((notable && kept.size() < max) || (i % stride == 0 && kept.size() < max)) {
      kept.push_back(std::move(t.queries[i]));
    }
  }
  t.cut_notes.push_back(
      fmt::format("partition {}: {} of {} queries drawn (cap {}; violating and failed ones first)",
                  t.partition, kept.size(), total, max));
  t.queries = std::move(kept);
}

}  // namespace

std::vector<PartitionTimeline> build_timelines(const sim::RunTrace& trace,
                                               const std::map<uint64_t, std::string>& anchors,
                                               const TimelineCaps& caps) {
  // Partitions seen in any snapshot or lag sample, ascending.
  std::set<int32_t> partitions;
  for (const sim::QueryRecord& q : trace.history.records()) {
    for (const sim::ReplicaSnapshot& r : q.placement_at_invoke.replicas)
      partitions.insert(r.partition);
  }
  for (const sim::LagRecord& l : trace.lags) partitions.insert(l.partition);
  std::vector<PartitionTimeline> out;
  for (int32_t p : partitions) {
    if (out.size() == caps.partitions_max) break;
    PartitionTimeline t;
    t.partition = p;
    out.push_back(std::move(t));
  }
  std::string partitions_cut;
  if (partitions.size() > out.size()) {
    partitions_cut = fmt::format("{} of {} partitions drawn (cap {})", out.size(),
                                 partitions.size(), caps.partitions_max);
  }
  for (PartitionTimeline& t : out) {
    if (!partitions_cut.empty()) t.cut_notes.push_back(partitions_cut);
    for (const sim::QueryRecord& q : trace.history.records()) {
      for (const sim::ReplicaSnapshot& r : q.placement_at_invoke.replicas) {
        if (r.partition == t.partition) add_sample(t, q.placement_at_invoke.at_ms, r);
      }
      if (!q.placement_at_answer) continue;
      for (const sim::ReplicaSnapshot& r : q.placement_at_answer->replicas) {
        if (r.partition == t.partition) add_sample(t, q.placement_at_answer->at_ms, r);
      }
    }
    for (const sim::LagRecord& l : trace.lags) {
      if (l.partition != t.partition) continue;
      sim::ReplicaSnapshot r = l.actual;
      if (r.instance.empty()) r.instance = l.instance;
      r.partition = l.partition;
      add_sample(t, l.at_ms, r);
    }
    // Lanes past the cap are dropped whole (natural instance order keeps the first ones).
    if (t.lanes.size() > caps.instances_max) {
      size_t total = t.lanes.size();
      while (t.lanes.size() > caps.instances_max) t.lanes.erase(std::prev(t.lanes.end()));
      t.cut_notes.push_back(fmt::format("partition {}: {} of {} instance lanes drawn (cap {})",
                                        t.partition, t.lanes.size(), total, caps.instances_max));
    }
    std::set<int64_t> changes;
    for (auto& [instance, samples] : t.lanes) {
      std::stable_sort(samples.begin(), samples.end(),
                       [](const LaneSample& a, const LaneSample& b) { return a.at_ms < b.at_ms; });
      for (size_t i = 1; i < samples.size(); ++i) {
        if (samples[i].role != samples[i - 1].role) changes.insert(samples[i].at_ms);
      }
      for (const LaneSample& s : samples) {
        t.offset_max = std::max({t.offset_max, s.applied.value_or(0), s.end_offset.value_or(0)});
      }
      if (samples.size() > caps.samples_per_lane_max) {
        size_t total = samples.size();
        samples = thin(samples, caps.samples_per_lane_max);
        t.cut_notes.push_back(
            fmt::format("partition {} {}: {} of {} position samples drawn (cap {})", t.partition,
                        instance, samples.size(), total, caps.samples_per_lane_max));
      }
    }
    t.placement_changes_ms.assign(changes.begin(), changes.end());
    std::map<int64_t, int64_t> end_at;  // at_ms -> the largest end read then
    for (const auto& [instance, samples] : t.lanes) {
      for (const LaneSample& s : samples) {
        if (s.end_offset) end_at[s.at_ms] = std::max(end_at[s.at_ms], *s.end_offset);
      }
    }
    int64_t running = -1;
    for (const auto& [at_ms, end] : end_at) {
      if (end <= running) continue;
      running = end;
      t.log_end.push_back({at_ms, end});
    }
    if (t.log_end.size() > caps.samples_per_lane_max) {
      std::vector<std::pair<int64_t, int64_t>> kept;
      size_t stride =
          (t.log_end.size() + caps.samples_per_lane_max - 1) / caps.samples_per_lane_max;
      for (size_t i = 0; i < t.log_end.size(); ++i) {
        if (i % stride == 0 || i + 1 == t.log_end.size()) kept.push_back(t.log_end[i]);
      }
      t.log_end = std::move(kept);
    }
    for (const sim::ReprocessedRange& r : trace.reprocessed) {
      if (r.partition != t.partition) continue;
      if (t.reprocessing.size() == caps.reprocessed_max) {
        t.cut_notes.push_back(
            fmt::format("partition {}: only the first {} reprocessing ranges drawn", t.partition,
                        caps.reprocessed_max));
        break;
      }
      t.reprocessing.push_back(
          {r.instance, r.start_ms.ms_since_epoch(), r.end_ms.ms_since_epoch(), r.to_string()});
    }
    add_queries(t, trace, anchors);
    cap_queries(t, caps.queries_max);
  }
  return out;
}

namespace {

void draw_lane(std::string& svg, const std::vector<LaneSample>& samples,
               const std::vector<std::pair<int64_t, int64_t>>& log_end, const Scale& sc, double top,
               int64_t end_ms) {
  // The log end: a dashed step line, the same in every lane.
  std::string end_path;
  for (const auto& [at_ms, end] : log_end) {
    double x = sc.x(at_ms);
    double y = sc.y(top, end);
    end_path += end_path.empty() ? "M" + num(x) + " " + num(y) : " H" + num(x) + " V" + num(y);
  }
  if (!end_path.empty()) {
    end_path += " H" + num(sc.x(end_ms));
    svg += "<path class=\"logend\" d=\"" + end_path + "\"/>\n";
  }
  // The replica's progress: one horizontal step per sample, coloured by the role it held.
  for (size_t i = 0; i < samples.size(); ++i) {
    const LaneSample& s = samples[i];
    int64_t until = i + 1 < samples.size() ? samples[i + 1].at_ms : end_ms;
    double x0 = sc.x(s.at_ms), x1 = sc.x(until);
    if (!s.applied) {
      // Down or no replica: a thin band at the foot, in the role's colour.
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"3\" fill=\"{}\" opacity=\"0.5\"/>\n",
          num(x0), num(top + kLaneHeight - 3), num(std::max(x1 - x0, 0.5)), role_colour(s.role));
      continue;
    }
    double y = sc.y(top, *s.applied);
    std::string d = "M" + num(x0) + " " + num(y) + " H" + num(std::max(x1, x0 + 0.5));
    if (i + 1 < samples.size() && samples[i + 1].applied && samples[i + 1].role == s.role) {
      d += " V" + num(sc.y(top, *samples[i + 1].applied));
    }
    svg += fmt::format(
        "<path d=\"{}\" stroke=\"{}\" class=\"pos\"><title>{}</title></path>\n", d,
        role_colour(s.role),
        html_escape(fmt::format("{} from {} ms: {} records applied of {}; position {}", s.role,
                                s.at_ms, *s.applied, s.end_offset.value_or(0), s.position)));
  }
}

}  // namespace

std::string render_timeline_svg(const PartitionTimeline& t,
                                const std::vector<sim::FaultRecord>& faults, int64_t end_ms,
                                const TimelineCaps& caps) {
  Scale sc{std::max<int64_t>(end_ms, 1), std::max<int64_t>(t.offset_max, 1)};
  size_t lanes = std::max<size_t>(t.lanes.size(), 1);
  double height = kTop + static_cast<double>(lanes) * (kLaneHeight + kLaneGap) + kAxis;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\">\n",
      num(kWidth), num(height), num(kWidth), num(height));
  svg +=
      fmt::format("<title>partition {}: replica progress over virtual time</title>\n", t.partition);
  // Lanes.
  size_t lane = 0;
  std::map<std::string, double, InstanceLess> lane_top;
  for (const auto& [instance, samples] : t.lanes) {
    double top = kTop + static_cast<double>(lane++) * (kLaneHeight + kLaneGap);
    lane_top[instance] = top;
    svg += fmt::format("<rect class=\"lane\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                       num(kLeft), num(top), num(kWidth - kLeft - kRight), num(kLaneHeight));
    svg += fmt::format("<text class=\"lanelabel\" x=\"{}\" y=\"{}\">{}</text>\n", num(kLeft - 8),
                       num(top + kLaneHeight / 2 + 4), html_escape(instance));
    svg += fmt::format("<text class=\"scale\" x=\"{}\" y=\"{}\">{}</text>\n", num(kLeft - 8),
                       num(top + 10), sc.offset_max);
    draw_lane(svg, samples, t.log_end, sc, top, sc.end_ms);
  }
  // At-least-once reprocessing: a band atop the lane of the instance that processed again.
  for (const ReprocessingBand& b : t.reprocessing) {
    auto it = lane_top.find(b.instance);
    if (it == lane_top.end()) continue;
    double x0 = sc.x(b.start_ms), x1 = sc.x(b.end_ms);
    svg += fmt::format(
        "<rect class=\"reproc\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"8\"><title>{}"
        "</title></rect>\n",
        num(x0), num(it->second), num(std::max(x1 - x0, 5.0)),
        html_escape("at-least-once reprocessing: " + b.label));
  }
  double lanes_bottom = kTop + static_cast<double>(lanes) * (kLaneHeight + kLaneGap) - kLaneGap;
  // Time axis with ticks every tenth of the run.
  svg += fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(kLeft),
                     num(lanes_bottom + 2), num(kWidth - kRight), num(lanes_bottom + 2));
  for (int32_t k = 0; k <= 10; ++k) {
    int64_t ms = sc.end_ms * k / 10;
    svg += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\">{}</text>\n", num(sc.x(ms)),
                       num(lanes_bottom + 18), format_ms(ms));
  }
  // Placement changes: small ticks under the axis.
  for (int64_t ms : t.placement_changes_ms) {
    svg += fmt::format(
        "<path class=\"change\" d=\"M{} {} v8\"><title>placement changed at {} ms</title></path>\n",
        num(sc.x(ms)), num(lanes_bottom + 2), ms);
  }
  // Faults: a vertical line across every lane, labelled above (labels alternate rows).
  size_t drawn = 0;
  for (const sim::FaultRecord& f : faults) {
    if (drawn == caps.faults_max) break;
    double x = sc.x(f.at_ms.ms_since_epoch());
    // An undo (a start or reconnection) green, every other fault red, applied or skipped.
    const bool undo = f.kind == sim::FaultKind::kRestart ||
                      f.kind == sim::FaultKind::kRestartWiped || f.kind == sim::FaultKind::kStart ||
                      f.kind == sim::FaultKind::kResume || f.kind == sim::FaultKind::kHeal;
    const char* colour = undo ? "#2ca02c" : "#d62728";
    svg += fmt::format(
        "<line class=\"fault\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
        "stroke=\"{}\"><title>{}</title></line>\n",
        num(x), num(kTop - 30 + 12.0 * static_cast<double>(drawn % 3)), num(x), num(lanes_bottom),
        colour, html_escape(f.to_string()));
    svg += fmt::format("<text class=\"faultlabel\" x=\"{}\" y=\"{}\" fill=\"{}\">{} {}</text>\n",
                       num(x + 3), num(kTop - 32 + 12.0 * static_cast<double>(drawn % 3)), colour,
                       sim::to_string(f.kind), html_escape(f.instance));
    ++drawn;
  }
  // Queries: dots in the serving instance's lane.
  for (const QueryDot& q : t.queries) {
    auto it = lane_top.find(q.instance);
    if (it == lane_top.end()) continue;
    double x = sc.x(q.at_ms);
    double y = q.applied ? sc.y(it->second, *q.applied) : it->second + kLaneHeight - 6;
    std::string dot = fmt::format(
        "<circle class=\"q\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"{}><title>{}</title></circle>",
        num(x), num(y), q.anchor.empty() ? "3" : "7", outcome_colour(q.outcome),
        q.anchor.empty() ? "" : " stroke=\"#d62728\" stroke-width=\"3\"", html_escape(q.tooltip));
    if (!q.anchor.empty()) {
      dot = "<a href=\"#" + html_escape(q.anchor) + "\">" + dot + "</a>";
    }
    svg += dot + "\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace iq::reports
