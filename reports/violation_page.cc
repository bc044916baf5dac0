#include "violation_page.h"

#include <fmt/format.h>

#include "report_common.h"

namespace iq::reports {

namespace {

std::string replica_label(const sim::ReplicaSnapshot& r) {
  std::string label = fmt::format("P{} {}", r.partition, role_label(r));
  if (auto applied = applied_records(r)) {
    label += fmt::format("\napplied {} of {}", *applied,
                         r.changelog_end_offset.value_or(ChangelogOffset(0)));
  }
  if (r.lag) label += fmt::format("\nlag {}", *r.lag);
  if (r.store_position && !r.store_position->is_empty()) {
    label += "\npos " + r.store_position->to_string();
  }
  return label;
}

std::string kv_row(const std::string& key, const std::string& value) {
  return "<tr><th>" + html_escape(key) + "</th><td><code>" + html_escape(value) +
         "</code></td></tr>\n";
}

std::string describe_outcome(const sim::QueryRecord& q) {
  if (q.outcome == sim::OutcomeKind::kAnswered) {
    std::string out;
    for (const sim::PartitionOutcome& p : q.partitions)
      out += (out.empty() ? "" : "; ") + p.to_string();
    return out.empty() ? "answered, no partitions" : out;
  }
  if (q.error) return q.error->to_string();
  if (q.outcome == sim::OutcomeKind::kNotRouted) return "not routed: " + q.not_routed_reason;
  return to_string(q.outcome);
}

}  // namespace

std::string readable_answer(const TopologyConfig& topology, const sim::QueryRecord& record,
                            const sim::PartitionOutcome& outcome) {
  std::string out;
  const auto line = [&out](const std::string& s) {
    if (!out.empty()) out += "\n";
    out += s;
  };
  if (const auto* windows = std::get_if<sim::WindowedList>(&outcome.value)) {
    if (windows->empty()) return "no window";
    for (const sim::WindowedValue& w : *windows) {
      // WindowKeyQuery entries carry the start only; the key is the query's.
      const int32_t key = w.end_ms ? w.key : record.request.key.value_or(w.key);
      if (topology.session()) {
        line(fmt::format("key {}, session [{}, {}] ms: {}", key, w.start_ms,
                         w.end_ms.value_or(w.start_ms), w.value));
      } else {
        line(fmt::format("key {}, window [{}, {}) ms: {}", key, w.start_ms,
                         w.end_ms.value_or(w.start_ms + topology.window_size_ms), w.value));
      }
    }
    return out;
  }
  if (const auto* versions = std::get_if<sim::VersionedList>(&outcome.value)) {
    if (versions->empty()) return "null (no version)";
    for (const sim::VersionedValue& v : *versions) {
      line(v.valid_to_ms
               ? fmt::format("{}, valid from {} to {} ms", v.value, v.valid_from_ms, *v.valid_to_ms)
               : fmt::format("{}, valid from {} ms (latest)", v.value, v.valid_from_ms));
    }
    return out;
  }
  return "";
}

DotWriter cluster_dot(const sim::QueryRecord& q, const DotCaps& caps) {
  const sim::PlacementSnapshot& snap = served_snapshot(q);
  DotWriter dot(fmt::format("cluster_at_{}", snap.at_ms.ms_since_epoch()), caps);
  dot.graph_attr("rankdir", "TB");
  dot.graph_attr("fontname", "Helvetica");
  dot.graph_attr("fontsize", "11");
  dot.graph_attr("label",
                 fmt::format("cluster at {} ms (query #{})", snap.at_ms.ms_since_epoch(), q.id));
  dot.node_defaults({{"shape", "box"},
                     {"style", "rounded,filled"},
                     {"fontname", "Helvetica"},
                     {"fontsize", "10"},
                     {"fontcolor", "white"}});
  std::string client = fmt::format("query #{}", q.id);
  dot.node("client", client + "\n" + q.request.query,
           {{"shape", "note"}, {"fillcolor", "#fff8dc"}, {"fontcolor", "black"}});
  std::map<std::string, std::vector<const sim::ReplicaSnapshot*>, InstanceLess> by_instance;
  for (const sim::ReplicaSnapshot& r : snap.replicas) by_instance[r.instance].push_back(&r);
  std::string served_node;
  for (const auto& [instance, replicas] : by_instance) {
    const sim::ReplicaSnapshot& first = *replicas.front();
    std::string state = !first.running       ? "DOWN"
                        : first.client_state ? to_string(*first.client_state)
                                             : "running";
    bool is_target = instance == q.target_instance;
    dot.begin_cluster(instance, instance + " (" + state + ")" + (is_target ? " <- asked" : ""),
                      {{"style", "rounded"},
                       {"color", is_target ? "#000000" : "#999999"},
                       {"penwidth", is_target ? "2" : "1"}});
    for (const sim::ReplicaSnapshot* r : replicas) {
      std::string id = fmt::format("{}_p{}", instance, r->partition);
      bool served =
          is_target && q.outcome == sim::OutcomeKind::kAnswered &&
          std::any_of(q.partitions.begin(), q.partitions.end(),
                      [&](const sim::PartitionOutcome& p) { return p.partition == r->partition; });
      DotAttrs attrs{{"fillcolor", role_colour(role_label(*r))}};
      if (served) {
        attrs.push_back({"penwidth", "4"});
        attrs.push_back({"color", "#000000"});
        served_node = id;
      }
      dot.node(id, replica_label(*r), attrs);
    }
    dot.end_cluster();
  }
  if (!served_node.empty()) {
    dot.edge("client", served_node, {{"label", "served here"}, {"penwidth", "2"}});
  }
  return dot;
}

std::string render_violation_section(const properties::Violation& v, const sim::QueryRecord* q,
                                     const std::string& anchor, const std::string& reproduce,
                                     bool expected_failure, bool render_diagram,
                                     const DotCaps& caps, const TopologyConfig* topology) {
  // A failure in red; a declared finding or a known Kafka behaviour in the amber of known ones,
  // linked to its catalogue entry (findings_catalogue.h) on the same page.
  const bool known = v.violation_class != properties::ViolationClass::kFailure;
  std::string html = std::string("<section class=\"violation") +
                     (known || expected_failure ? " known" : "") + "\" id=\"" +
                     html_escape(anchor) + "\">\n";
  std::string cls = html_escape(properties::to_string(v.violation_class));
  if (known) {
    cls = "<a href=\"#about-" + html_escape(properties::class_key(v.violation_class)) + "\">" +
          cls + "</a>";
  }
  html += fmt::format("<h3>{}[{}] {}: {}</h3>\n", expected_failure ? "(finding) " : "", cls,
                      html_escape(v.property), html_escape(v.summary));
  if (!v.class_evidence.empty()) {
    html += "<p class=\"class\">class: " + html_escape(v.class_evidence) + "</p>\n";
  }
  html += "<div class=\"cols\"><div>\n<h4>What happened</h4>\n<ol class=\"steps\">\n";
  for (const std::string& e : v.events_before) html += "<li>" + html_escape(e) + "</li>\n";
  if (q != nullptr) {
    html +=
        "<li>" +
        html_escape(fmt::format(
            "at {} ms, {} asked {}{}: {}", q->invoke_ms.ms_since_epoch(),
            q->source == sim::QueryRecord::Source::kScripted   ? "a scripted step"
            : q->source == sim::QueryRecord::Source::kLiveness ? "the liveness probe"
            : q->source == sim::QueryRecord::Source::kAudit    ? "the end-of-run audit"
                                                            : fmt::format("client {}", q->client),
            q->target_instance.empty() ? "nobody" : q->target_instance,
            q->to_standby ? " (a standby host)" : "", q->request.to_string())) +
        "</li>\n";
    html += "<li>" +
            html_escape(fmt::format("at {} ms it answered: {}", q->complete_ms.ms_since_epoch(),
                                    describe_outcome(*q))) +
            "</li>\n";
  } else {
    html += "<li>" + html_escape(fmt::format("at {} ms: {}", v.at_ms, v.summary)) + "</li>\n";
  }
  html += "<li class=\"bad\">" + html_escape(v.property + " violated: " + v.summary) + "</li>\n";
  html += "</ol>\n<h4>Expected versus returned</h4>\n<table class=\"kv\">\n";
  html += kv_row("expected", v.expected.empty() ? "-" : v.expected);
  html += kv_row("returned", v.returned.empty() ? "-" : v.returned);
  if (q != nullptr && topology != nullptr) {
    for (const sim::PartitionOutcome& p : q->partitions) {
      if (!p.success) continue;
      const std::string words = readable_answer(*topology, *q, p);
      if (!words.empty()) html += kv_row(fmt::format("P{} answer", p.partition), words);
    }
  }
  if (!v.query.empty()) html += kv_row("query", v.query);
  html += kv_row("served by", v.replica.empty() ? "-" : v.replica);
  if (q != nullptr) {
    const sim::PlacementSnapshot& snap = served_snapshot(*q);
    for (const sim::PartitionOutcome& p : q->partitions) {
      const sim::ReplicaSnapshot* r = find_replica(snap, q->target_instance, p.partition);
      if (r == nullptr) continue;
      html += kv_row(
          fmt::format("replica P{}", p.partition),
          fmt::format("{} on {}: position {}, lag {}, applied {} of {}", role_label(*r),
                      r->instance, r->store_position ? r->store_position->to_string() : "-",
                      r->lag ? std::to_string(*r->lag) : "-", applied_records(*r).value_or(0),
                      r->changelog_end_offset.value_or(ChangelogOffset(0))));
    }
  }
  if (!v.reprocessed_before.empty()) {
    // At-least-once context: the reader should know the partition's records were processed
    // twice before this answer; it does not make the violation any less real.
    std::string ranges;
    for (const std::string& r : v.reprocessed_before) ranges += (ranges.empty() ? "" : "; ") + r;
    html += kv_row("reprocessed before", ranges);
  }
  html += kv_row("reproduce", reproduce);
  html += "</table>\n</div>\n";
  if (q != nullptr && render_diagram) {
    RenderedGraph g = render_graph(cluster_dot(*q, caps));
    html += "<div class=\"diagram\"><h4>The cluster at that instant</h4>\n";
    html += g.svg.empty()
                ? "<p class=\"cut\">diagram not rendered: " + html_escape(g.error) + "</p>"
                : g.svg;
    for (const std::string& n : g.cut_notes)
      html += "<p class=\"cut\">cut: " + html_escape(n) + "</p>\n";
    html += "</div>\n";
  } else if (q != nullptr) {
    html +=
        "<div class=\"diagram\"><p class=\"cut\">cut: diagram not rendered (diagram cap "
        "reached)</p></div>\n";
  }
  html += "</div>\n";
  if (!v.placement.empty()) {
    html += "<details><summary>placement snapshot (text)</summary><pre>" +
            html_escape(v.placement) + "</pre></details>\n";
  }
  return html + "</section>\n";
}

}  // namespace iq::reports
