#include "explore_report.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "charts.h"
#include "findings_catalogue.h"
#include "page.h"
#include "report_common.h"
#include "sweep_sections.h"

namespace iq::reports {

namespace {

const char* kRoles[] = {"active", "restoring", "standby", "warmup"};

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// Outcomes in a fixed order: answered first, then Kafka's reasons, then what never reached a store.
std::vector<std::string> outcome_order(const std::vector<std::map<std::string, uint64_t>>& rows) {
  std::set<std::string> seen;
  for (const auto& outcomes : rows) {
    for (const auto& [o, n] : outcomes) seen.insert(o);
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

std::vector<std::string> row_labels(const ExploreInput& in) {
  std::vector<std::string> rows;
  for (size_t k = 0; k < in.configurations.size(); ++k) rows.push_back(short_label(in, k));
  return rows;
}

// One bar per configuration, scaled to 100%: the share of attempts that ended each way.
BarChart outcomes_chart(const ExploreInput& in) {
  std::vector<std::map<std::string, uint64_t>> rows;
  for (const ExploreConfiguration& c : in.configurations) rows.push_back(c.outcomes);
  return outcome_shares_chart("chart-explore-outcomes",
                              "How the query clients' attempts ended, per configuration",
                              row_labels(in), rows);
}

// The p90 staleness of each role's answers per configuration, a bar per role; a role that served
// no answer under a configuration is "none" there (charts.h), not a fresh 0. A log scale: a
// standby's thousands of records would flatten an active's few.
BarChart staleness_chart(const ExploreInput& in, bool records) {
  BarChart chart{.id = records ? "chart-explore-staleness-records" : "chart-explore-staleness-ms",
                 .title = records ? "p90 staleness by replica role: source records behind"
                                  : "p90 staleness by replica role: virtual ms behind",
                 .unit = records ? "records" : "virtual ms",
                 .rows = row_labels(in),
                 .scale = BarChart::Scale::kLog};
  std::vector<std::string> roles;
  for (const char* role : kRoles) {
    for (const ExploreConfiguration& c : in.configurations) {
      if (find_role(c, role) == nullptr) continue;
      roles.emplace_back(role);
      chart.series.push_back({std::string(role) + " p90", role_colour(role)});
      break;
    }
  }
  for (const ExploreConfiguration& c : in.configurations) {
    std::vector<double> row;
    for (const std::string& role : roles) {
      const ExploreRole* r = find_role(c, role);
      row.push_back(r == nullptr ? std::nan("")
                                 : static_cast<double>(records ? r->records_p90 : r->ms_p90));
    }
    chart.values.push_back(std::move(row));
  }
  return chart;
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
  std::string html =
      "<p>Seeds of each configuration that met each declared Kafka behaviour; each links its "
      "explanation below.</p><table><tr><th>declared Kafka behaviour (seeds)</th>";
  for (const ExploreConfiguration& c : in.configurations) {
    html += "<th>" + html_escape(c.name) + "</th>";
  }
  html += "</tr>";
  for (const std::string& b : names) {
    html += fmt::format("<tr class=\"known\"><td><a href=\"#about-{}\">{}</a> <code>{}</code></td>",
                        html_escape(b), html_escape(class_words(b)), html_escape(b));
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

std::string page_header(const ExploreInput& in, const std::string& title) {
  std::string keys;
  for (const std::string& k : in.grid_keys) keys += (keys.empty() ? "" : " x ") + k;
  return fmt::format(
      "<header><h1>{}</h1><p>{} &middot; {} configurations ({}) &middot; seeds {}..{} in each{}"
      "</p></header>\n<main>\n",
      html_escape(title), html_escape(in.title), in.configurations.size(), html_escape(keys),
      in.first_seed, in.first_seed + in.seed_count - 1,
      in.shards.size() > 1 || (in.shards.size() == 1 && in.shards[0] != "0/1")
          ? " &middot; shards " + html_escape(joined(in.shards))
          : "");
}

// Declared behaviour -> seeds that met it, over every configuration: what the findings explain.
std::map<std::string, uint64_t> seeds_by_class(const ExploreInput& in) {
  std::map<std::string, uint64_t> out;
  for (const ExploreConfiguration& c : in.configurations) {
    for (const auto& [b, n] : c.behaviours) out[b] += n;
  }
  return out;
}

std::string configurations_section(const ExploreInput& in) {
  std::string html =
      "<section id=\"configurations\"><h2>Configurations</h2><table><tr><th>configuration</th>"
      "<th>seeds</th><th>its template</th></tr>";
  for (const ExploreConfiguration& c : in.configurations) {
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td><code>{}</code></td></tr>",
                        html_escape(c.name), c.seeds, html_escape(c.file));
  }
  return html + "</table></section>\n";
}

}  // namespace

BarChart outcome_shares_chart(const std::string& id, const std::string& title,
                              const std::vector<std::string>& labels,
                              const std::vector<std::map<std::string, uint64_t>>& rows) {
  BarChart chart{.id = id,
                 .title = title,
                 .unit = "attempts",
                 .rows = labels,
                 .layout = BarChart::Layout::kShares};
  const std::vector<std::string> order = outcome_order(rows);
  for (const std::string& o : order) chart.series.push_back({outcome_name(o), outcome_colour(o)});
  for (const auto& outcomes : rows) {
    std::vector<double> row;
    for (const std::string& o : order) {
      auto it = outcomes.find(o);
      row.push_back(it == outcomes.end() ? 0.0 : static_cast<double>(it->second));
    }
    chart.values.push_back(std::move(row));
  }
  return chart;
}

std::string render_explore_measures(const ExploreInput& in) {
  return metrics_table(in);
}

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
  std::vector<std::map<std::string, uint64_t>> outcomes;
  for (const ExploreConfiguration& c : in.configurations) outcomes.push_back(c.outcomes);
  for (const std::string& o : outcome_order(outcomes)) {
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
  std::string html = page_head(title) + page_header(in, title);
  html +=
      "<section id=\"outcomes\"><h2>How the queries ended</h2>"
      "<p>The query clients' attempts under each configuration, the same seeds in each: "
      "answered, or refused with Kafka's reason. Each row is a configuration: its number and its "
      "values of " +
      html_escape(joined(in.grid_keys)) + ".</p>" + render_bar_figure(outcomes_chart(in)) +
      "</section>\n";
  html +=
      "<section id=\"staleness\"><h2>How stale the answers were</h2>"
      "<p>p90 of each role's answers: source records the answer's position lacked at the time "
      "of the answer, and the age of the oldest of them in virtual ms.</p>" +
      render_bar_figure(staleness_chart(in, true)) + render_bar_figure(staleness_chart(in, false)) +
      "<details class=\"numbers\"><summary>p50, p90 and max of every role</summary>" +
      staleness_table(in) + "</details></section>\n";
  html +=
      "<section id=\"differences\"><h2>Every measure side by side</h2>"
      "<p>Cells of a measure that differs between configurations are marked: "
      "<span style=\"background:#fde0dc\">worst</span>, <span "
      "style=\"background:#e2f5e1\">best</span>, <span "
      "style=\"background:#fff7d6\">in between</span>.</p>" +
      metrics_table(in) + "</section>\n";
  html += "<section id=\"behaviours\"><h2>Declared Kafka behaviours met</h2>" +
          behaviours_table(in) + "</section>\n";
  html += render_findings_section(seeds_by_class(in), "findings", "seeds");
  html += "<section id=\"failures\"><h2>Failures</h2>" + failures_section(in) + "</section>\n";
  html += configurations_section(in) + "</main>\n</body></html>\n";
  return html;
}

}  // namespace iq::reports
