#include "html_report.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "findings_catalogue.h"
#include "page.h"
#include "query_phases.h"
#include "report_common.h"
#include "staleness.h"
#include "sweep_sections.h"
#include "violation_page.h"

namespace iq::reports {

namespace {

std::string verdict_badge(bool passed) {
  return passed ? "<span class=\"verdict pass\">PASSED</span>"
                : "<span class=\"verdict fail\">FAILED</span>";
}

// Beside the verdict: how many declared Kafka behaviours were met, in the amber of known ones.
std::string known_badge(uint64_t classes, uint64_t count, const char* unit) {
  if (classes == 0) return {};
  return fmt::format(" <span class=\"verdict known\">{} known Kafka behaviour{} ({} {})</span>",
                     classes, classes == 1 ? "" : "s", count, unit);
}

// The declared behaviours of a run's violations (a declared finding's too, when its violation
// was classified): class key -> violations.
std::map<std::string, uint64_t> known_classes(const properties::RunReport& r) {
  std::map<std::string, uint64_t> out;
  for (const auto* list : {&r.violations, &r.expected_violations}) {
    for (const properties::Violation& v : *list) {
      if (v.violation_class != properties::ViolationClass::kFailure) {
        ++out[properties::class_key(v.violation_class)];
      }
    }
  }
  return out;
}

std::string legend() {
  std::string html = "<p class=\"legend\"><b>replica role:</b> ";
  for (const char* role : {"active", "restoring", "standby", "warmup", "down"}) {
    html += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", role_colour(role), role);
  }
  html += "<span><i style=\"border-top:2px dashed #444;height:0\"></i>changelog end offset</span>";
  html += "<br><b>query outcome:</b> ";
  for (const char* o : {"ok", "NOT_UP_TO_BOUND", "NOT_ACTIVE", "NOT_PRESENT", "error"}) {
    html += fmt::format("<span><i style=\"background:{};border-radius:5px\"></i>{}</span>",
                        outcome_colour(o), o == std::string("error") ? "error / timeout" : o);
  }
  html +=
      "<span><i style=\"border:3px solid #d62728;border-radius:7px\"></i>violating query "
      "(click)</span>";
  html += "<span><i style=\"background:#d62728;width:2px\"></i>crash / pause / isolate</span>";
  html += "<span><i style=\"background:#2ca02c;width:2px\"></i>restart / resume / heal</span>";
  html += "<span><i style=\"background:#ff7f0e;width:2px\"></i>placement change</span>";
  html +=
      "<span><i style=\"background:#e377c2;height:8px\"></i>records processed again "
      "(at-least-once)</span></p>\n";
  return html;
}

// A <details> list of each item's to_string(), the first kListedMax of them, the cut said; nothing
// for no items.
template <typename T>
std::string capped_list(const std::string& opening, const char* what, const std::vector<T>& items) {
  constexpr size_t kListedMax = 100;
  if (items.empty()) return "";
  std::string html = opening + "<ol>\n";
  for (size_t i = 0; i < items.size() && i < kListedMax; ++i) {
    html += "<li>" + html_escape(items[i].to_string()) + "</li>\n";
  }
  if (items.size() > kListedMax) {
    html += fmt::format("<li class=\"cut\">cut: {} more {} not listed</li>\n",
                        items.size() - kListedMax, what);
  }
  return html + "</ol></details>\n";
}

std::string query_counts(const sim::RunTrace& trace) {
  std::map<std::string, uint64_t> by_outcome;
  std::map<std::string, uint64_t> by_reason;
  for (const sim::QueryRecord& q : trace.history.records()) {
    ++by_outcome[to_string(q.outcome)];
    if (q.error) ++by_reason[StreamsError::kind_name(q.error->kind)];
    if (q.outcome == sim::OutcomeKind::kNotRouted) {
      // The reason without its numbers, so that alike reasons count together.
      ++by_reason["not routed: " + violation_cause(q.not_routed_reason)];
    }
    for (const sim::PartitionOutcome& p : q.partitions) {
      ++by_reason[p.success ? "success" : outcome_class(q, &p)];
    }
  }
  std::string html = "<table><tr><th>query outcome</th><th>count</th></tr>\n";
  for (const auto& [k, n] : by_outcome) {
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td></tr>\n", html_escape(k), n);
  }
  html += "</table>\n<table><tr><th>partition result / failure reason</th><th>count</th></tr>\n";
  for (const auto& [k, n] : by_reason) {
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td></tr>\n", html_escape(k), n);
  }
  return html + "</table>\n";
}

// Violations by class, in the class's words ("failure", "known Kafka behaviour: ...").
std::map<std::string, uint64_t> class_counts(const std::vector<properties::Violation>& violations) {
  std::map<std::string, uint64_t> counts;
  for (const properties::Violation& v : violations)
    ++counts[properties::to_string(v.violation_class)];
  return counts;
}

// The dirty reads of a run or a sweep (exactly_once_v2; properties::dirty_read_counts keys) as
// a table of what each count means; nothing under at-least-once.
std::string dirty_reads_table(const std::map<std::string, uint64_t>& counts, uint64_t runs) {
  if (counts.empty()) return {};
  const auto get = [&](const char* key) {
    auto it = counts.find(key);
    return it == counts.end() ? uint64_t{0} : it->second;
  };
  std::string html =
      "<h4 id=\"dirty-reads\">Dirty reads (exactly_once_v2)</h4>\n<p>Answers that reflected data "
      "of "
      "a transaction not committed yet (an active's store holds its open transaction's writes; "
      "read_committed replicas never should), from the changelog's markers: an omniscient "
      "fact, not a verdict.</p>\n<table><tr><th>what</th><th>count</th></tr>\n";
  const auto row = [&](const std::string& what, uint64_t n) {
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td></tr>\n", html_escape(what), n);
  };
  if (runs > 0) row("runs with a dirty read", runs);
  row("answers judged (the witness holds)", get("answers"));
  row("answers not decided (the witness did not hold)", get("not_decided"));
  row("dirty reads", get("dirty"));
  row("... whose transaction then aborted", get("aborted"));
  row("... whose transaction was still open at the end", get("open_at_end"));
  row("... of cached writes not sent yet, only", get("unsent_only"));
  row("... served by a standby (read_committed: never)", get("by_standby"));
  row("... followed by a lower position from the same instance", get("lower_position_followed"));
  const uint64_t n = get("uncommitted_ms_count");
  row("uncommitted for, mean ms (until commit or abort)", n ? get("uncommitted_ms_sum") / n : 0);
  row("uncommitted for, max ms", get("uncommitted_ms_max"));
  return html + "</table>\n";
}

// The sweep's dirty reads by Kafka pin and, at the 2026-08-20 pin, by isolation level (a dirty
// read under READ_COMMITTED is a ChangelogWitness violation there, under READ_UNCOMMITTED a
// statistic); nothing when no pin had a transaction.
std::string dirty_reads_by_pin_table(
    const std::map<std::string, std::map<std::string, uint64_t>>& by_pin) {
  if (by_pin.empty()) return {};
  std::string html =
      "<h4 id=\"dirty-reads-by-pin\">Dirty reads by Kafka pin and isolation level</h4>\n"
      "<table><tr><th>pin</th><th>level</th><th>answers</th><th>dirty</th><th>aborted</th></tr>\n";
  const auto get = [](const std::map<std::string, uint64_t>& c, const std::string& key) {
    auto it = c.find(key);
    return it == c.end() ? uint64_t{0} : it->second;
  };
  for (const auto& [pin, counts] : by_pin) {
    const auto row = [&](const std::string& level, const std::string& prefix) {
      html += fmt::format(
          "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{}</td></tr>\n",
          html_escape(pin), html_escape(level), get(counts, prefix + "answers"),
          get(counts, prefix + "dirty"), get(counts, prefix + "aborted"));
    };
    row("all", "");
    for (const char* level : {"READ_COMMITTED", "READ_UNCOMMITTED"}) {
      if (counts.count(std::string(level) + "/answers") != 0) row(level, std::string(level) + "/");
    }
  }
  return html + "</table>\n";
}

// The run's first dirty reads, one row each.
std::string dirty_reads_list(const properties::DirtyReadStats& d) {
  if (d.listed.empty()) return {};
  std::string html = fmt::format(
      "<details><summary>the first {} dirty reads</summary>\n<table><tr><th>record</th>"
      "<th>partition</th><th>instance</th><th>at ms</th><th>uncommitted records</th><th>unsent</th>"
      "<th>outcome</th><th>uncommitted for ms</th><th>lower position followed</th></tr>\n",
      d.listed.size());
  for (const properties::DirtyRead& r : d.listed) {
    html += fmt::format(
        "<tr><td>#{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td>{}</td><td>{}</td><td "
        "class=\"num\">{}</td><td>{}</td></tr>\n",
        r.record_id, r.partition, html_escape(r.instance), r.at_ms.ms_since_epoch(),
        r.uncommitted_records, r.unsent ? "yes" : "no", sim::to_string(r.outcome),
        r.uncommitted_for_ms ? std::to_string(r.uncommitted_for_ms->ms()) : std::string("-"),
        r.lower_position_followed ? "yes" : "no");
  }
  return html + "</table></details>\n";
}

std::string summary_section(
    const properties::RunReport& r, const std::string* scenario_toml,
    const std::vector<std::pair<std::string, const properties::Violation*>>& anchors) {
  std::string html =
      "<section id=\"summary\"><h2>Summary</h2>\n<div class=\"cols\"><div>\n<table>\n";
  html += "<tr><th>verdict</th><td>" + verdict_badge(r.passed()) + "</td></tr>\n";
  html += "<tr><th>scenario</th><td>" + html_escape(r.scenario) + "</td></tr>\n";
  html += "<tr><th>title</th><td>" + html_escape(r.title) + "</td></tr>\n";
  html += fmt::format("<tr><th>seed</th><td>{}</td></tr>\n", r.seed);
  html += fmt::format("<tr><th>queries judged</th><td>{} of {}</td></tr>\n", r.queries_judged,
                      r.queries_total);
  html += fmt::format("<tr><th>virtual time</th><td>{} ms, {} events</td></tr>\n", r.virtual_ms,
                      r.events);
  html += "<tr><th>digest</th><td><code>" + html_escape(r.digest) + "</code></td></tr>\n";
  if (r.trace) {
    // An omniscient fact the reader needs before judging answers: whether at-least-once
    // processing handled some input twice (and so may have applied it twice).
    html += fmt::format(
        "<tr><th>reprocessing</th><td>{} input records processed again, in {} ranges{}</td></tr>\n",
        r.records_reprocessed, r.trace->reprocessed.size(),
        r.trace->reprocessed_dropped > 0
            ? fmt::format(" (and {} ranges past the cap, not kept)", r.trace->reprocessed_dropped)
            : std::string());
  }
  // Violations by class: only failures fail the run; a declared Kafka behaviour is counted apart.
  for (const auto& [cls, n] : class_counts(r.violations)) {
    html += fmt::format("<tr><th>{}</th><td>{} violation{}</td></tr>\n", html_escape(cls), n,
                        n == 1 ? "" : "s");
  }
  if (!r.passed(/*strict=*/true)) {
    html += "<tr><th>reproduce</th><td><code>" + html_escape(r.reproduce_command()) +
            "</code></td></tr>\n";
  }
  html += "</table>\n";
  html += dirty_reads_table(properties::dirty_read_counts(r.dirty_reads), 0);
  html += dirty_reads_list(r.dirty_reads);
  html +=
      "<h4>Properties</h4>\n<table><tr><th>property</th><th>verdict</th><th>violations</"
      "th><th>judged</th><th>not judged (why)</th></tr>\n";
  std::set<std::string> held(r.unexpectedly_held.begin(), r.unexpectedly_held.end());
  std::map<std::string, uint64_t> failing, known, findings;
  for (const properties::Violation& v : r.violations) {
    ++(v.violation_class == properties::ViolationClass::kFailure ? failing : known)[v.property];
  }
  for (const properties::Violation& v : r.expected_violations) ++findings[v.property];
  for (const std::string& p : r.properties_checked) {
    std::string verdict =
        failing.count(p)    ? "<span class=\"verdict fail\">violated</span>"
        : held.count(p)     ? "<span class=\"verdict fail\">declared finding held</span>"
        : known.count(p)    ? "<span class=\"verdict finding\">known Kafka behaviour</span>"
        : findings.count(p) ? "<span class=\"verdict finding\">finding (expected)</span>"
                            : "<span class=\"verdict pass\">held</span>";
    uint64_t n = failing.count(p)    ? failing[p] + (known.count(p) ? known[p] : 0)
                 : known.count(p)    ? known[p]
                 : findings.count(p) ? findings[p]
                                     : 0;
    // What the check compared, and what it passed over by reason (never counted a pass).
    const auto tally = r.tallies.find(p);
    std::string passed_over;
    if (tally != r.tallies.end()) {
      for (const auto& [reason, count] : tally->second.not_judged) {
        passed_over +=
            fmt::format("{}{}: {}", passed_over.empty() ? "" : "<br>", html_escape(reason), count);
      }
    }
    html += "<tr><td>" + html_escape(p) + "</td><td>" + verdict +
            fmt::format(
                "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n", n,
                tally == r.tallies.end() ? std::string("-") : std::to_string(tally->second.judged),
                passed_over.empty() ? std::string("none") : passed_over);
  }
  html += "</table>\n</div><div>\n";
  if (r.trace) html += "<h4>Queries</h4>\n" + query_counts(*r.trace);
  html += "<h4>Violations and findings</h4>\n<ul>\n";
  for (const auto& [anchor, v] : anchors) {
    html += "<li>[" + html_escape(properties::to_string(v->violation_class)) + "] <a href=\"#" +
            html_escape(anchor) + "\">" + html_escape(v->property) +
            "</a>: " + html_escape(v->summary) + "</li>\n";
  }
  if (anchors.empty()) html += "<li>none</li>\n";
  html += "</ul>\n</div></div>\n";
  if (scenario_toml != nullptr) {
    html +=
        "<details><summary>configuration (the concrete scenario, every choice "
        "drawn)</summary><pre>" +
        html_escape(*scenario_toml) + "</pre></details>\n";
  }
  if (r.trace) {
    html += capped_list("<details open><summary>faults</summary>", "faults", r.trace->faults);
    html += capped_list("<details><summary>input records processed again (at-least-once)</summary>",
                        "ranges", r.trace->reprocessed);
  }
  return html + "</section>\n";
}

const sim::QueryRecord* find_record(const sim::RunTrace* trace, uint64_t id) {
  if (trace == nullptr || id == 0) return nullptr;
  const auto& records = trace->history.records();
  for (const sim::QueryRecord& q : records) {
    if (q.id == id) return &q;
  }
  return nullptr;
}

}  // namespace

std::string render_run_report(const properties::RunReport& r, const std::string* scenario_toml,
                              const ReportCaps& caps) {
  // Anchors: violation-1.. for violations, then finding-1.. for expected ones.
  std::vector<std::pair<std::string, const properties::Violation*>> anchors;
  for (size_t i = 0; i < r.violations.size() && anchors.size() < caps.violation_sections_max; ++i) {
    anchors.push_back({fmt::format("violation-{}", i + 1), &r.violations[i]});
  }
  size_t unexpected_shown = anchors.size();
  for (size_t i = 0;
       i < r.expected_violations.size() && anchors.size() < caps.violation_sections_max; ++i) {
    anchors.push_back({fmt::format("finding-{}", i + 1), &r.expected_violations[i]});
  }
  std::map<uint64_t, std::string> anchor_by_record;
  for (const auto& [anchor, v] : anchors) {
    if (v->record_id != 0) anchor_by_record.emplace(v->record_id, anchor);
  }
  std::string title =
      fmt::format("iqsim report: {} seed {}", r.title.empty() ? r.scenario : r.title, r.seed);
  std::string html = page_head(title);
  const std::map<std::string, uint64_t> known = known_classes(r);
  uint64_t known_violations = 0;
  for (const auto& [key, n] : known) known_violations += n;
  html += "<header><h1>" + html_escape(title) + " " + verdict_badge(r.passed()) +
          known_badge(known.size(), known_violations, "violations") + "</h1><p>" +
          html_escape(r.scenario) + "</p></header>\n";
  html +=
      "<nav><a href=\"#summary\">summary</a><a href=\"#outcomes\">query outcomes</a>"
      "<a href=\"#timelines\">position timelines</a>"
      "<a href=\"#violations\">violations</a><a href=\"#findings\">known behaviours</a>"
      "<a href=\"#placement\">placement</a>"
      "<a href=\"#staleness\">staleness</a></nav>\n<main>\n";
  html += summary_section(r, scenario_toml, anchors);
  html += "<section id=\"outcomes\"><h2>How queries ended</h2>\n";
  if (r.trace) {
    html += render_bar_figure(
        phase_outcomes_chart(query_outcomes_by_phase(*r.trace), "chart-outcomes-by-phase"));
  } else {
    html += "<p>No trace kept for this run.</p>\n";
  }
  html += "</section>\n";

  html += "<section id=\"timelines\"><h2>Replica positions over virtual time</h2>\n";
  if (!r.trace) {
    html += "<p>No trace kept for this run (the report was rendered without one).</p>\n";
  } else {
    html +=
        "<p>One lane per instance: the thick line is how many changelog records that "
        "instance's replica had applied, coloured by its role; the dashed line is the "
        "changelog's end (it stands still while no active replica processes). A gap between them "
        "is lag; lanes at different heights are "
        "diverging replicas. Dots are queries, drawn where they were served. Hover for "
        "details.</p>\n" +
        legend();
    std::vector<PartitionTimeline> timelines =
        build_timelines(*r.trace, anchor_by_record, caps.timeline);
    if (timelines.empty())
      html += "<p>No placement was observed (no queries, no lag samples).</p>\n";
    for (const PartitionTimeline& t : timelines) {
      html +=
          fmt::format("<div class=\"timeline-part\" id=\"timeline-p{}\"><h3>{} partition {}</h3>\n",
                      t.partition, html_escape(r.trace->topology.store_name), t.partition);
      html +=
          render_timeline_svg(t, r.trace->faults, r.trace->end_ms.ms_since_epoch(), caps.timeline);
      for (const std::string& n : t.cut_notes)
        html += "<p class=\"cut\">cut: " + html_escape(n) + "</p>\n";
      html += "</div>\n";
    }
  }
  html += "</section>\n";

  std::string violations_html;
  violations_html += "<section id=\"violations\"><h2>Violations</h2>\n";
  if (anchors.empty()) violations_html += "<p>No property was violated.</p>\n";
  size_t total = r.violations.size() + r.expected_violations.size();
  if (anchors.size() < total) {
    violations_html += fmt::format(
        "<p class=\"cut\">cut: {} of {} violations shown (cap {}); iqsim replay prints all.</p>\n",
        anchors.size(), total, caps.violation_sections_max);
  }
  for (size_t i = 0; i < anchors.size(); ++i) {
    const auto& [anchor, v] = anchors[i];
    violations_html += render_violation_section(
        *v, find_record(r.trace.get(), v->record_id), anchor, r.reproduce_command(),
        i >= unexpected_shown, i < caps.violation_diagrams_max, caps.cluster_dot,
        r.trace ? &r.trace->topology : nullptr);
  }
  violations_html += "</section>\n";

  html += violations_html;
  html += render_findings_section(known, "findings", "violations");

  html += "<section id=\"placement\"><h2>Placement and movement</h2>\n";
  if (r.trace) {
    html +=
        "<p>Each column is a stretch of time in which no replica changed role; red arrows "
        "follow a partition's active replica to its next instance, green dashed ones a "
        "standby. A warmup is a standby the assignor placed where an active is meant to move "
        "once it has caught up (the probing rebalance moves it).</p>\n";
    std::vector<PlacementEpoch> epochs = placement_epochs(*r.trace);
    if (epochs.empty()) {
      html += "<p>No placement was observed.</p>\n";
    } else {
      DotWriter dot = placement_dot(epochs, caps.placement);
      RenderedGraph g = render_graph(dot);
      html +=
          "<div class=\"diagram\">" +
          (g.svg.empty() ? "<p class=\"cut\">diagram not rendered: " + html_escape(g.error) + "</p>"
                         : g.svg) +
          "</div>\n";
      if (epochs.size() > caps.placement.epochs_max) {
        html += fmt::format(
            "<p class=\"cut\">cut: {} of {} placement epochs drawn (the first {} and the "
            "last).</p>\n",
            caps.placement.epochs_max, epochs.size(), caps.placement.epochs_max - 1);
      }
      for (const std::string& n : g.cut_notes)
        html += "<p class=\"cut\">cut: " + html_escape(n) + "</p>\n";
    }
  }
  html += "</section>\n";

  html += "<section id=\"staleness\"><h2>Staleness of answers</h2>\n";
  if (r.trace) {
    Staleness st = compute_staleness(*r.trace);
    std::string skipped;
    if (st.without_snapshot)
      skipped += fmt::format(", {} without a snapshot of the replica", st.without_snapshot);
    if (st.without_position)
      skipped += fmt::format(", {} without a position to date them", st.without_position);
    html += fmt::format(
        "<p>For each successful partition result ({} in all{}), when it answered: how many "
        "changelog records the serving replica was behind the log end and behind the most "
        "advanced replica of the same partition; then the same in virtual time, as the age of "
        "the oldest source record the answer's position did not include (behind the newest "
        "replica: only records some replica already had).</p>\n",
        st.answers, skipped);
    html += "<h3 id=\"staleness-by-guarantee\">Behind the source log, by role (" +
            html_escape(r.processing_guarantee.empty() ? std::string("guarantee not recorded")
                                                       : r.processing_guarantee) +
            ")</h3>\n<p>Source records appended by the answer that its position did not include, "
            "and the age of the oldest of them; the same table a sweep shows per guarantee.</p>\n";
    html += render_guarantee_staleness_table(
        r.processing_guarantee.empty() ? std::map<std::string, properties::AnswerStaleness>{}
                                       : std::map<std::string, properties::AnswerStaleness>{
                                             {r.processing_guarantee, r.staleness}});
    html += "<h3>In records</h3>\n" + render_staleness_table(st, StalenessUnit::kRecords) +
            render_staleness_svg(st, StalenessUnit::kRecords);
    html += "<h3>In virtual ms</h3>\n" + render_staleness_table(st, StalenessUnit::kVirtualMs) +
            render_staleness_svg(st, StalenessUnit::kVirtualMs);
  }
  html += "</section>\n</main>\n</body></html>\n";
  return html;
}

std::string violation_cause(const std::string& summary) {
  std::string out;
  bool in_number = false;
  for (char c : summary) {
    bool digit = c >= '0' && c <= '9';
    if (digit && !in_number) out += 'N';
    if (!digit) out += c;
    in_number = digit;
  }
  return out;
}

std::string render_sweep_report(const SweepInput& s, const ReportCaps& caps) {
  (void)caps;
  uint64_t failed = 0;
  std::set<std::string> properties;
  std::map<std::string, std::pair<uint64_t, uint64_t>> per_property;  // seeds violating, violations
  // property -> seeds with a listed failure of it (failures are listed first, so a seed's
  // failures are there unless it has more than the list holds)
  std::map<std::string, uint64_t> failing_seeds;
  // property -> cause -> seeds
  std::map<std::string, std::map<std::string, std::vector<uint64_t>>> causes;
  // class -> (seeds, violations listed); the lists may be cut, so these count what is listed
  std::map<std::string, std::pair<uint64_t, uint64_t>> per_class;
  for (const SweepRun& run : s.runs) {
    if (!run.passed) ++failed;
    for (const auto& [cls, n] : class_counts(run.violations)) {
      ++per_class[cls].first;
      per_class[cls].second += n;
    }
    properties.insert(run.properties_checked.begin(), run.properties_checked.end());
    std::map<std::string, uint64_t> counts = run.violations_by_property;
    if (counts.empty()) {
      for (const properties::Violation& v : run.violations) ++counts[v.property];
    }
    for (const auto& [property, n] : counts) {
      ++per_property[property].first;
      per_property[property].second += n;
    }
    std::set<std::string> failing_here(run.unexpectedly_held.begin(), run.unexpectedly_held.end());
    for (const properties::Violation& v : run.violations) {
      if (v.violation_class == properties::ViolationClass::kFailure)
        failing_here.insert(v.property);
    }
    for (const std::string& p : failing_here) ++failing_seeds[p];
    for (const properties::Violation& v : run.violations) {
      auto& seeds =
          causes[v.property]["[" + std::string(properties::to_string(v.violation_class)) + "] " +
                             violation_cause(v.summary) +
                             (v.reprocessed_before.empty()
                                  ? ""
                                  : " (after at-least-once reprocessing of the partition)")];
      if (seeds.empty() || seeds.back() != run.seed) seeds.push_back(run.seed);
    }
  }
  std::string title =
      fmt::format("iqsim sweep: {} seeds {}..{}", s.title.empty() ? s.scenario : s.title,
                  s.first_seed, s.first_seed + (s.seed_count ? s.seed_count - 1 : 0));
  const std::map<std::string, ClassOverSweep> classes = classes_over_sweep(s);
  std::map<std::string, uint64_t> known_seeds;  // class key -> seeds, for the findings section
  std::set<uint64_t> with_known;
  for (const auto& [key, c] : classes) {
    if (key == "failure") continue;
    known_seeds[key] = c.seeds.size();
    with_known.insert(c.seeds.begin(), c.seeds.end());
  }
  const uint64_t seeds_with_known = with_known.size();
  std::string html = page_head(title);
  html += "<header><h1>" + html_escape(title) + " " + verdict_badge(failed == 0) +
          known_badge(known_seeds.size(), seeds_with_known, "seeds") + "</h1><p>" +
          html_escape(s.scenario) + ", shard " + html_escape(s.shard) + "</p></header>\n";
  html +=
      "<nav><a href=\"#shows\">what it shows</a><a href=\"#charts\">pictures</a>"
      "<a href=\"#findings\">known behaviours</a><a href=\"#summary\">summary</a>"
      "<a href=\"#violations\">violations</a><a href=\"#seeds\">failing seeds</a></nav>\n"
      "<main>\n";
  html += render_sweep_shows(s, classes);
  html += render_sweep_charts(s);
  html += render_findings_section(known_seeds, "findings", "seeds");
  html += "<section id=\"summary\"><h2>Summary</h2>\n<table>\n";
  html += fmt::format(
      "<tr><th>runs</th><td>{}</td></tr><tr><th>passed</th><td>{}</td></tr>"
      "<tr><th>failed</th><td>{}</td></tr>\n</table>\n",
      s.runs.size(), s.runs.size() - failed, failed);
  html +=
      "<h4>Violations by class</h4>\n<p>Only failures fail a seed; a violation the run's record "
      "proves to be a declared Kafka behaviour is counted apart.</p>\n<table><tr><th>class</th>"
      "<th>seeds</th><th>violations listed</th></tr>\n";
  if (per_class.empty())
    html += "<tr><td>none</td><td class=\"num\">0</td><td class=\"num\">0</td></tr>\n";
  for (const auto& [cls, counts] : per_class) {
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                        html_escape(cls), counts.first, counts.second);
  }
  html += "</table>\n";
  html += dirty_reads_table(s.dirty_reads, s.runs_with_dirty_reads);
  html += dirty_reads_by_pin_table(s.dirty_reads_by_pin);
  html +=
      "<h4 id=\"staleness-by-guarantee\">Staleness by processing guarantee</h4>\n<p>For each "
      "successful partition result of the sweep's seeds, how far its position was behind the "
      "source log's end when it answered: source records appended by then that it did not "
      "include, and the age of the oldest of them, by the serving replica's role. Under "
      "exactly_once_v2 standbys and restores read read_committed, so they lag until the "
      "commit. Medians and p90s are the lower bounds of histogram buckets (exact below 32, "
      "within 1/8 above); maxima are exact.</p>\n";
  html += render_guarantee_staleness_table(s.staleness_by_guarantee, s.runs_by_guarantee);
  html +=
      "<h4>Verdicts per property</h4>\n<p>Seeds with a failure of the property (red) and "
      "seeds where it was violated only as a known Kafka behaviour (amber).</p>\n"
      "<table><tr><th>property</th><th>seeds failing</th><th>seeds with a known "
      "behaviour only</th><th>violations</th></tr>\n";
  for (const std::string& p : properties) {
    auto it = per_property.find(p);
    uint64_t seeds = it == per_property.end() ? 0 : it->second.first;
    uint64_t n = it == per_property.end() ? 0 : it->second.second;
    uint64_t failing = failing_seeds.count(p) ? failing_seeds[p] : 0;
    uint64_t known = seeds > failing ? seeds - failing : 0;
    html +=
        "<tr><td>" + html_escape(p) + "</td><td>" +
        (failing ? fmt::format("<span class=\"verdict fail\">{}</span>", failing)
                 : std::string("<span class=\"verdict pass\">0</span>")) +
        "</td><td>" +
        (known ? fmt::format("<span class=\"verdict known\">{}</span>", known) : std::string("0")) +
        fmt::format("</td><td class=\"num\">{}</td></tr>\n", n);
  }
  html +=
      "</table>\n</section>\n<section id=\"violations\"><h2>Violations by property and "
      "cause</h2>\n";
  if (causes.empty()) html += "<p>No property was violated.</p>\n";
  std::map<uint64_t, std::string> pages;
  for (const SweepRun& run : s.runs)
    if (!run.page.empty()) pages[run.seed] = run.page;
  for (const auto& [property, by_cause] : causes) {
    html +=
        "<h3>" + html_escape(property) + "</h3>\n<table><tr><th>cause</th><th>seeds</th></tr>\n";
    for (const auto& [cause, seeds] : by_cause) {
      std::string list;
      for (size_t i = 0; i < seeds.size() && i < 50; ++i) {
        auto page = pages.find(seeds[i]);
        std::string seed = std::to_string(seeds[i]);
        list += (list.empty() ? "" : ", ") +
                (page == pages.end()
                     ? seed
                     : "<a href=\"" + html_escape(page->second) + "\">" + seed + "</a>");
      }
      if (seeds.size() > 50)
        list += fmt::format(" <span class=\"cut\">(cut: {} more)</span>", seeds.size() - 50);
      html += "<tr><td>" + html_escape(cause) + "</td><td>" + list + "</td></tr>\n";
    }
    html += "</table>\n";
  }
  html +=
      "</section>\n<section id=\"seeds\"><h2>Failing "
      "seeds</h2>\n<table><tr><th>seed</th><th>violations</th><th>first</th><th>reproduce</"
      "th><th>report</th></tr>\n";
  for (const SweepRun& run : s.runs) {
    if (run.passed) continue;
    std::string first =
        !run.violations.empty()
            ? run.violations.front().property + ": " + run.violations.front().summary +
                  (run.violations.front().reprocessed_before.empty() ? "" : " [after reprocessing]")
        : !run.unexpectedly_held.empty()
            ? run.unexpectedly_held.front() + " held though declared as failing"
            : "";
    html += fmt::format(
        "<tr id=\"seed-{}\"><td>{}</td><td "
        "class=\"num\">{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>\n",
        run.seed, run.seed, run.violations_total, html_escape(first), html_escape(run.reproduce),
        run.page.empty() ? std::string("-")
                         : "<a href=\"" + html_escape(run.page) + "\">run report</a>");
  }
  html += "</table>\n</section>\n</main>\n</body></html>\n";
  return html;
}

}  // namespace iq::reports
