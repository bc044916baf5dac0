#include "explore_report.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "report_common.h"
#include "svg_bars.h"

namespace iq::reports {

namespace {

constexpr const char* kStyle = R"(
body{font:14px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#222;background:#fff}
header{background:#26324a;color:#fff;padding:14px 24px}
header h1{margin:0;font-size:20px} header p{margin:4px 0 0;color:#cfd6e6}
main{padding:8px 24px 40px} section{margin:18px 0 26px}
h2{font-size:18px;border-bottom:2px solid #26324a;padding-bottom:3px}
table{border-collapse:collapse;margin:6px 0} th,td{border:1px solid #d6dbe6;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f6fb} td.num{text-align:right}
td.differs{background:#fff7d6} td.worst{background:#fde0dc;font-weight:bold} td.best{background:#e2f5e1;font-weight:bold}
svg.bars text{font:11px Helvetica,Arial,sans-serif} svg.bars .l{text-anchor:end} svg.bars .in{fill:#fff;font-weight:bold}
details{margin:6px 0 14px} summary{cursor:pointer;color:#26324a}
code{background:#f4f6fb;padding:0 3px}
)";

constexpr const char* kScript =
    "<script>window.addEventListener('error',function(e){var d=document.createElement('div');"
    "d.id='script-error';d.textContent='script error: '+e.message;document.body.appendChild(d);});"
    "document.addEventListener('DOMContentLoaded',function(){document.body.setAttribute("
    "'data-rendered','ok');});</script>\n";

const char* kRoles[] = {"active", "restoring", "standby", "warmup"};

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// Outcomes in a fixed order: answered first, then Kafka's reasons, then what never reached a store.
std::vector<std::string> outcome_order(const ExploreInput& in) {
  std::set<std::string> seen;
  for (const ExploreConfiguration& c : in.configurations) {
    for (const auto& [o, n] : c.outcomes) seen.insert(o);
  }
  std::vector<std::string> order;
  for (const char* o : {"ok", "NOT_UP_TO_BOUND", "NOT_ACTIVE", "NOT_PRESENT", "UNKNOWN_QUERY_TYPE",
                        "STORE_EXCEPTION", "DOES_NOT_EXIST", "error", "timeout", "not-routed"}) {
    if (seen.erase(o) > 0) order.emplace_back(o);
  }
  for (const std::string& o : seen) order.push_back(o);
  return order;
}

std::string outcome_name(const std::string& o) {
  return o == "ok" ? "answered" : o == "error" ? "Streams exception" : o;
}

const ExploreRole* find_role(const ExploreConfiguration& c, const std::string& role) {
  for (const ExploreRole& r : c.staleness) {
    if (r.role == role) return &r;
  }
  return nullptr;
}

std::string cell(const std::optional<double>& v) {
  if (!v) return "-";
  return *v == static_cast<double>(static_cast<int64_t>(*v)) ? fmt::format("{}", *v)
                                                             : fmt::format("{:.1f}", *v);
}

// A chart row's label: the configuration's number and its values (the keys are in the header).
std::string short_label(const ExploreInput& in, size_t k) {
  std::string values;
  for (const auto& [key, v] : in.configurations[k].settings) {
    values += (values.empty() ? "" : ", ") + v;
  }
  return fmt::format("[{}] {}", k + 1, values.empty() ? in.configurations[k].name : values);
}

std::string outcomes_chart(const ExploreInput& in) {
  std::vector<BarRow> rows;
  for (size_t k = 0; k < in.configurations.size(); ++k) {
    const ExploreConfiguration& c = in.configurations[k];
    BarRow row{short_label(in, k), {}};
    for (const std::string& o : outcome_order(in)) {
      auto it = c.outcomes.find(o);
      row.parts.push_back(
          {outcome_name(o), it == c.outcomes.end() ? 0.0 : double(it->second), outcome_colour(o)});
    }
    rows.push_back(std::move(row));
  }
  return stacked_share_bars(rows);
}

std::string staleness_chart(const ExploreInput& in, bool records) {
  std::vector<BarRow> rows;
  for (size_t k = 0; k < in.configurations.size(); ++k) {
    const ExploreConfiguration& c = in.configurations[k];
    BarRow row{short_label(in, k), {}};
    for (const char* role : kRoles) {
      const ExploreRole* r = find_role(c, role);
      if (r == nullptr) continue;
      row.parts.push_back({std::string(role) + " p90", double(records ? r->records_p90 : r->ms_p90),
                           role_colour(role)});
    }
    rows.push_back(std::move(row));
  }
  return grouped_bars(rows, records ? "records" : "ms");
}

std::string outcomes_table(const ExploreInput& in) {
  std::string html = "<table><tr><th>configuration</th><th>attempts</th>";
  const auto order = outcome_order(in);
  for (const std::string& o : order) html += "<th>" + html_escape(outcome_name(o)) + "</th>";
  html += "</tr>";
  for (const ExploreConfiguration& c : in.configurations) {
    uint64_t total = 0;
    for (const auto& [o, n] : c.outcomes) total += n;
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td>", html_escape(c.name), total);
    for (const std::string& o : order) {
      auto it = c.outcomes.find(o);
      uint64_t n = it == c.outcomes.end() ? 0 : it->second;
      html += fmt::format("<td class=\"num\">{} ({:.1f}%)</td>", n, 100 * outcome_share(c, o));
    }
    html += "</tr>";
  }
  return html + "</table>";
}

std::string staleness_table(const ExploreInput& in) {
  std::string html =
      "<table><tr><th>configuration</th><th>role</th><th>answers</th><th>records "
      "p50</th><th>p90</th><th>max</th><th>virtual ms p50</th><th>p90</th><th>max</th></tr>";
  for (const ExploreConfiguration& c : in.configurations) {
    for (const ExploreRole& r : c.staleness) {
      html += fmt::format(
          "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
          html_escape(c.name), html_escape(r.role), r.answers, r.records_p50, r.records_p90,
          r.records_max, r.ms_p50, r.ms_p90, r.ms_max);
    }
  }
  return html + "</table>";
}

// Every measure, one column per configuration; a measure that differs is marked, its worst and
// best value coloured.
std::string metrics_table(const ExploreInput& in) {
  std::string html = "<table><tr><th>measure</th>";
  for (size_t k = 0; k < in.configurations.size(); ++k) {
    html += "<th>" + html_escape(short_label(in, k)) + "</th>";
  }
  html += "</tr>";
  for (const ExploreMetric& m : explore_metrics(in)) {
    std::optional<double> lo, hi;
    for (const auto& v : m.values) {
      if (!v) continue;
      lo = lo ? std::min(*lo, *v) : *v;
      hi = hi ? std::max(*hi, *v) : *v;
    }
    html += "<tr><td>" + html_escape(m.name) + "</td>";
    for (const auto& v : m.values) {
      std::string cls = "num";
      if (m.differs() && v) {
        const bool worst = m.higher_is_worse ? *v == *hi : *v == *lo;
        const bool best = m.higher_is_worse ? *v == *lo : *v == *hi;
        cls += worst ? " worst" : best ? " best" : " differs";
      }
      html += fmt::format("<td class=\"{}\">{}</td>", cls, cell(v));
    }
    html += "</tr>";
  }
  return html + "</table>";
}

std::string behaviours_table(const ExploreInput& in) {
  std::set<std::string> names;
  for (const ExploreConfiguration& c : in.configurations) {
    for (const auto& [b, n] : c.behaviours) names.insert(b);
  }
  if (names.empty()) return "<p>No declared Kafka behaviour was met by any configuration.</p>";
  std::string html = "<table><tr><th>declared Kafka behaviour (seeds)</th>";
  for (const ExploreConfiguration& c : in.configurations) {
    html += "<th>" + html_escape(c.name) + "</th>";
  }
  html += "</tr>";
  for (const std::string& b : names) {
    html += "<tr><td>" + html_escape(b) + "</td>";
    for (const ExploreConfiguration& c : in.configurations) {
      auto it = c.behaviours.find(b);
      html += fmt::format("<td class=\"num\">{}</td>", it == c.behaviours.end() ? 0 : it->second);
    }
    html += "</tr>";
  }
  return html + "</table>";
}

std::string failures_section(const ExploreInput& in) {
  std::string html;
  for (const ExploreConfiguration& c : in.configurations) {
    if (c.failed == 0) continue;
    html += fmt::format("<p><b>{}</b>: {} of {} seeds failed</p><ul>", html_escape(c.name),
                        c.failed, c.seeds);
    for (const std::string& r : c.failing) html += "<li><code>" + html_escape(r) + "</code></li>";
    html += "</ul>";
  }
  return html.empty() ? "<p>No configuration had a failing seed.</p>" : html;
}

}  // namespace

bool ExploreMetric::differs() const {
  std::optional<double> first;
  for (const auto& v : values) {
    if (!v) continue;
    if (first && *first != *v) return true;
    first = v;
  }
  return false;
}

double outcome_share(const ExploreConfiguration& c, const std::string& outcome) {
  uint64_t total = 0;
  for (const auto& [o, n] : c.outcomes) total += n;
  auto it = c.outcomes.find(outcome);
  return total == 0 || it == c.outcomes.end() ? 0.0 : double(it->second) / double(total);
}

std::vector<ExploreMetric> explore_metrics(const ExploreInput& in) {
  std::vector<ExploreMetric> out;
  auto add = [&](std::string name, bool higher_is_worse, auto value_of) {
    ExploreMetric m{std::move(name), {}, higher_is_worse};
    for (const ExploreConfiguration& c : in.configurations) m.values.push_back(value_of(c));
    out.push_back(std::move(m));
  };
  add("failed seeds", true, [](const auto& c) { return std::optional<double>(c.failed); });
  for (const std::string& o : outcome_order(in)) {
    add(outcome_name(o) + " %", o != "ok", [&](const auto& c) {
      return std::optional<double>(
          static_cast<double>(static_cast<int64_t>(outcome_share(c, o) * 1000 + 0.5)) / 10);
    });
  }
  for (const char* role : kRoles) {
    using Field = int64_t ExploreRole::*;
    const std::pair<const char*, Field> fields[] = {
        {"records p50", &ExploreRole::records_p50}, {"records p90", &ExploreRole::records_p90},
        {"records max", &ExploreRole::records_max}, {"ms p50", &ExploreRole::ms_p50},
        {"ms p90", &ExploreRole::ms_p90},           {"ms max", &ExploreRole::ms_max}};
    bool any = false;
    for (const ExploreConfiguration& c : in.configurations) any = any || find_role(c, role);
    if (!any) continue;
    for (const auto& [label, field] : fields) {
      add(fmt::format("{} staleness {}", role, label), true,
          [&](const auto& c) -> std::optional<double> {
            const ExploreRole* r = find_role(c, role);
            if (r == nullptr) return std::nullopt;
            return static_cast<double>(r->*field);
          });
    }
  }
  std::set<std::string> behaviours;
  for (const ExploreConfiguration& c : in.configurations) {
    for (const auto& [b, n] : c.behaviours) behaviours.insert(b);
  }
  for (const std::string& b : behaviours) {
    add("seeds meeting: " + b, true, [&](const auto& c) {
      auto it = c.behaviours.find(b);
      return std::optional<double>(it == c.behaviours.end() ? 0 : it->second);
    });
  }
  add("CPU ms per seed", true, [](const auto& c) -> std::optional<double> {
    if (!c.cpu_ms_per_seed) return std::nullopt;
    return static_cast<double>(static_cast<int64_t>(*c.cpu_ms_per_seed + 0.5));
  });
  return out;
}

std::string render_explore_report(const ExploreInput& in) {
  std::string title = "iqsim explore: " + in.scenario;
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
                     html_escape(title) + "</title>\n<style>" + kStyle + "</style>\n" + kScript +
                     "</head>\n<body>\n";
  std::string keys;
  for (const std::string& k : in.grid_keys) keys += (keys.empty() ? "" : " x ") + k;
  html += fmt::format(
      "<header><h1>{}</h1><p>{} &middot; {} configurations ({}) &middot; seeds {}..{} in each{}"
      "</p></header>\n<main>\n",
      html_escape(title), html_escape(in.title), in.configurations.size(), html_escape(keys),
      in.first_seed, in.first_seed + in.seed_count - 1,
      in.shards.size() > 1 || (in.shards.size() == 1 && in.shards[0] != "0/1")
          ? " &middot; shards " + html_escape(joined(in.shards))
          : "");
  html +=
      "<section id=\"outcomes\"><h2>How the queries ended</h2>"
      "<p>The query clients' attempts under each configuration, the same seeds in each: "
      "answered, or refused with Kafka's reason.</p>" +
      outcomes_chart(in) + "<details><summary>the numbers</summary>" + outcomes_table(in) +
      "</details></section>\n";
  html +=
      "<section id=\"staleness\"><h2>How stale the answers were</h2>"
      "<p>p90 of each role's answers: source records the answer's position lacked at the time "
      "of the answer, and the age of the oldest of them in virtual ms.</p>" +
      staleness_chart(in, true) + staleness_chart(in, false) +
      "<details><summary>the numbers (p50, p90, max)</summary>" + staleness_table(in) +
      "</details></section>\n";
  html +=
      "<section id=\"differences\"><h2>Every measure side by side</h2>"
      "<p>Cells of a measure that differs between configurations are marked: "
      "<span style=\"background:#fde0dc\">worst</span>, <span "
      "style=\"background:#e2f5e1\">best</span>, <span "
      "style=\"background:#fff7d6\">in between</span>.</p>" +
      metrics_table(in) + "</section>\n";
  html += "<section id=\"behaviours\"><h2>Declared Kafka behaviours met</h2>" +
          behaviours_table(in) + "</section>\n";
  html += "<section id=\"failures\"><h2>Failures</h2>" + failures_section(in) + "</section>\n";
  html +=
      "<section id=\"configurations\"><h2>Configurations</h2><table><tr><th>configuration</th>"
      "<th>seeds</th><th>its template</th></tr>";
  for (const ExploreConfiguration& c : in.configurations) {
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td><code>{}</code></td></tr>",
                        html_escape(c.name), c.seeds, html_escape(c.file));
  }
  html += "</table></section>\n</main>\n</body></html>\n";
  return html;
}

}  // namespace iq::reports
