#include "upgrade_report.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "charts.h"
#include "findings_catalogue.h"
#include "page.h"
#include "report_common.h"
#include "sweep_sections.h"

namespace iq::reports {

namespace {

// Seeds listed per cell before "and N more".
constexpr size_t kSeedsListedMax = 40;
const char* kOldColour = "#4c78a8";
const char* kNewColour = "#f58518";

// "12, 15 (page), ..." with each seed that has a run page linked.
std::string seed_links(const std::vector<uint64_t>& seeds, const UpgradePin& pin) {
  std::string html;
  for (size_t i = 0; i < seeds.size() && i < kSeedsListedMax; ++i) {
    auto page = pin.pages.find(seeds[i]);
    html += i == 0 ? "" : ", ";
    html += page == pin.pages.end()
                ? std::to_string(seeds[i])
                : fmt::format("<a href=\"{}\">{}</a>", html_escape(page->second), seeds[i]);
  }
  if (seeds.size() > kSeedsListedMax) {
    html += fmt::format(" and {} more", seeds.size() - kSeedsListedMax);
  }
  return html.empty() ? "-" : html;
}

// The diff of one kind of key (classes or properties) as a table; `words` names a key.
std::string diff_table(const std::vector<SeedSetDiff>& diffs, const UpgradeInput& in,
                       const std::string& what, bool classes) {
  if (diffs.empty()) return "<p>No " + what + " under either pin.</p>";
  std::string html = fmt::format(
      "<table><tr><th>{}</th><th>seeds at {}</th><th>seeds at {}</th><th>only at {}</th>"
      "<th>only at {}</th></tr>",
      html_escape(what), in.old_pin.pin, in.new_pin.pin, in.old_pin.pin, in.new_pin.pin);
  for (const SeedSetDiff& d : diffs) {
    const std::string name =
        classes
            ? fmt::format("{} <code>{}</code>", html_escape(class_words(d.key)), html_escape(d.key))
            : html_escape(d.key);
    html += fmt::format(
        "<tr{}><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td>"
        "<td>{}</td></tr>",
        d.changed() ? " class=\"differs\"" : "", name, d.seeds_old, d.seeds_new,
        seed_links(d.old_only, in.old_pin), seed_links(d.new_only, in.new_pin));
  }
  return html + "</table>";
}

// Per class: seeds under each pin, a bar each; "no failure" first, so the chart is never empty.
BarChart classes_chart(const UpgradeInput& in, const std::vector<SeedSetDiff>& diffs) {
  BarChart chart{.id = "chart-upgrade-classes",
                 .title = "Seeds per verdict class under each pin",
                 .unit = "seeds",
                 .series = {{in.old_pin.pin, kOldColour}, {in.new_pin.pin, kNewColour}}};
  chart.rows.push_back("no failure");
  chart.values.push_back({static_cast<double>(in.old_pin.seeds - in.old_pin.failed),
                          static_cast<double>(in.new_pin.seeds - in.new_pin.failed)});
  for (const SeedSetDiff& d : diffs) {
    chart.rows.push_back(class_words(d.key));
    chart.values.push_back({static_cast<double>(d.seeds_old), static_cast<double>(d.seeds_new)});
  }
  return chart;
}

// A lane per changed key and pin: the seeds where it appeared under that pin only.
SeedStrip changed_strip(const UpgradeInput& in, const std::vector<SeedSetDiff>& classes,
                        const std::vector<SeedSetDiff>& properties) {
  SeedStrip strip{.id = "chart-upgrade-changed",
                  .title =
                      "Seeds where a class or a property's violation appears under one pin "
                      "only",
                  .first_seed = in.first_seed,
                  .seed_count = in.seed_count};
  for (const auto* diffs : {&classes, &properties}) {
    for (const SeedSetDiff& d : *diffs) {
      const std::string name = diffs == &classes ? class_words(d.key) : d.key;
      if (!d.old_only.empty()) {
        strip.rows.push_back({name + ": only at " + in.old_pin.pin, kOldColour, d.old_only});
      }
      if (!d.new_only.empty()) {
        strip.rows.push_back({name + ": only at " + in.new_pin.pin, kNewColour, d.new_only});
      }
    }
  }
  return strip;
}

std::string changed_section(const UpgradeInput& in) {
  const auto classes = diff_seed_sets(in.old_pin.seeds_by_class, in.new_pin.seeds_by_class);
  const auto properties =
      diff_seed_sets(in.old_pin.seeds_by_property, in.new_pin.seeds_by_property);
  std::set<uint64_t> changed;
  for (const auto* diffs : {&classes, &properties}) {
    for (const SeedSetDiff& d : *diffs) {
      changed.insert(d.old_only.begin(), d.old_only.end());
      changed.insert(d.new_only.begin(), d.new_only.end());
    }
  }
  std::string html = fmt::format(
      "<section id=\"changed\"><h2>What changes between the pins</h2><p><b>{}</b> of {} seeds "
      "meet a verdict class or a property's violation under one pin only. Each seed is the same "
      "world under both pins (every draw alike but the pin), so a difference is Kafka's change "
      "or a different path the change sent the run on. Linked seeds have their run page.</p>",
      changed.size(), in.seed_count);
  html += render_bar_figure(classes_chart(in, classes));
  const SeedStrip strip = changed_strip(in, classes, properties);
  if (!strip.rows.empty()) html += render_seed_strip_figure(strip);
  html += "<h3>Verdict classes</h3>" + diff_table(classes, in, "class", true);
  html += "<h3>Properties violated</h3>" + diff_table(properties, in, "property", false);
  return html + "</section>\n";
}

// "ALOS" and "EOS" for the guarantees, so that a row label with its pin fits the chart.
std::string short_guarantee(const std::string& g) {
  return g == "at_least_once" ? "ALOS" : g == "exactly_once_v2" ? "EOS" : g;
}

// The two pins' maps side by side, each key as "GUARANTEE @ PIN".
template <typename T>
std::map<std::string, T> side_by_side(const std::map<std::string, T>& old_pin,
                                      const std::map<std::string, T>& new_pin,
                                      const UpgradeInput& in) {
  std::map<std::string, T> out;
  for (const auto& [k, v] : old_pin) out[short_guarantee(k) + " @ " + in.old_pin.pin] = v;
  for (const auto& [k, v] : new_pin) out[short_guarantee(k) + " @ " + in.new_pin.pin] = v;
  return out;
}

BarChart outcomes_chart(const std::string& id, const std::string& title,
                        const std::map<std::string, std::map<std::string, uint64_t>>& rows) {
  std::vector<std::string> labels;
  std::vector<std::map<std::string, uint64_t>> values;
  for (const auto& [label, outcomes] : rows) {
    labels.push_back(label);
    values.push_back(outcomes);
  }
  return outcome_shares_chart(id, title, labels, values);
}

std::string staleness_section(const UpgradeInput& in) {
  const auto staleness =
      side_by_side(in.old_pin.staleness_by_guarantee, in.new_pin.staleness_by_guarantee, in);
  const auto outcomes =
      side_by_side(in.old_pin.outcomes_by_guarantee, in.new_pin.outcomes_by_guarantee, in);
  std::string html =
      "<section id=\"staleness\"><h2>Staleness and availability, side by side</h2><p>Each row "
      "is a replica role and processing guarantee (ALOS at_least_once, EOS exactly_once_v2) under "
      "one pin: median, p90 and max of the answers' staleness behind the source log.</p>";
  if (!staleness.empty()) {
    html += render_bar_figure(staleness_chart(staleness, false, "chart-upgrade-staleness-records"));
    html += render_bar_figure(staleness_chart(staleness, true, "chart-upgrade-staleness-ms"));
  }
  html +=
      "<p>How the query clients' attempts ended, per guarantee and pin: answered, or refused "
      "with Kafka's reason.</p>";
  if (!outcomes.empty()) {
    html += render_bar_figure(outcomes_chart(
        "chart-upgrade-outcomes", "How the queries ended, by guarantee and pin", outcomes));
  }
  return html + "</section>\n";
}

uint64_t count_of(const std::map<std::string, uint64_t>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

// Per pin and level: the answers the witness decided, and the dirty and aborted ones among them.
std::string dirty_table(const UpgradeInput& in) {
  std::string html =
      "<table><tr><th>pin</th><th>level</th><th>answers decided</th><th>dirty</th><th>of "
      "them aborted later</th></tr>";
  const auto row = [&](const std::string& pin, const std::string& level, uint64_t answers,
                       uint64_t dirty, uint64_t aborted) {
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td></tr>",
        pin, level, answers, dirty, aborted);
  };
  const auto& o = in.old_pin.dirty_reads;
  row(in.old_pin.pin, "(none: reads as READ_UNCOMMITTED)", count_of(o, "answers"),
      count_of(o, "dirty"), count_of(o, "aborted"));
  const auto& n = in.new_pin.dirty_reads;
  for (const char* level : {"READ_COMMITTED", "READ_UNCOMMITTED"}) {
    const std::string l(level);
    row(in.new_pin.pin, l, count_of(n, l + "/answers"), count_of(n, l + "/dirty"),
        count_of(n, l + "/aborted"));
  }
  return html + "</table>";
}

std::string levels_table(const UpgradePin& pin) {
  std::string html =
      "<table><tr><th>level</th><th>attempts</th><th>answered</th><th>refused or failed, by "
      "reason</th></tr>";
  for (const auto& [level, outcomes] : pin.outcomes_by_level) {
    uint64_t attempts = 0;
    std::string reasons;
    for (const auto& [o, n] : outcomes) {
      attempts += n;
      if (o != "ok") reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", o, n);
    }
    const uint64_t ok = count_of(outcomes, "ok");
    html += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{} ({:.1f}%)</td><td>{}</td>"
        "</tr>",
        html_escape(level), attempts, ok, attempts == 0 ? 0.0 : 100.0 * ok / attempts,
        html_escape(reasons.empty() ? "-" : reasons));
  }
  return html + "</table>";
}

std::string isolation_section(const UpgradeInput& in) {
  std::string html = fmt::format(
      "<section id=\"isolation\"><h2>READ_COMMITTED against READ_UNCOMMITTED at {}</h2><p>Each "
      "query's level is its own (StateQueryRequest.withIsolationLevel, drawn per query where the "
      "template says so) or the client's default.interactive.query.isolation.level. A dirty "
      "read is an answer that reflected a write of a transaction not committed yet "
      "(exactly_once_v2 runs; counted where the changelog witness decides the answer).</p>",
      in.new_pin.pin);
  if (!in.new_pin.outcomes_by_level.empty()) {
    html += render_bar_figure(outcomes_chart(
        "chart-upgrade-levels", "How the queries ended, by isolation level at " + in.new_pin.pin,
        in.new_pin.outcomes_by_level));
    html += levels_table(in.new_pin);
  }
  return html + "<h3>Dirty reads by pin and level</h3>" + dirty_table(in) + "</section>\n";
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

std::string speed_section(const UpgradeInput& in) {
  BarChart chart{.id = "chart-upgrade-cpu",
                 .title = "CPU ms per seed under each pin",
                 .unit = "CPU ms",
                 .series = {{"mean", "#4c78a8"}, {"median", "#9ecae9"}, {"max", "#7f7f7f"}}};
  std::string table =
      "<table><tr><th>pin</th><th>seeds</th><th>CPU ms per seed (mean)</th><th>median</th>"
      "<th>events per seed (mean)</th></tr>";
  for (const UpgradePin* p : {&in.old_pin, &in.new_pin}) {
    const double max =
        p->cpu_ms.empty() ? 0 : *std::max_element(p->cpu_ms.begin(), p->cpu_ms.end());
    chart.rows.push_back(p->pin);
    chart.values.push_back({mean(p->cpu_ms), median(p->cpu_ms), max});
    std::vector<double> events(p->events.begin(), p->events.end());
    table += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.0f}</td><td "
        "class=\"num\">{:.0f}</td><td class=\"num\">{:.0f}</td></tr>",
        p->pin, p->seeds, mean(p->cpu_ms), median(p->cpu_ms), mean(events));
  }
  return "<section id=\"speed\"><h2>What each pin costs</h2><p>Each seed's child process, user "
         "plus system CPU time (wait4), and the simulator's events.</p>" +
         render_bar_figure(chart) + table + "</table></section>\n";
}

std::string pins_section(const UpgradeInput& in) {
  std::string html =
      "<section id=\"pins\"><h2>The two runs of each seed</h2><table><tr><th>pin</th>"
      "<th>seeds</th><th>failing</th><th>its template (iqsim replay FILE --seed S)</th></tr>";
  for (const UpgradePin* p : {&in.old_pin, &in.new_pin}) {
    html += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td><code>{}</code>"
        "</td></tr>",
        p->pin, p->seeds, p->failed, html_escape(p->file));
  }
  return html + "</table></section>\n";
}

}  // namespace

std::vector<SeedSetDiff> diff_seed_sets(const SeedSets& old_pin, const SeedSets& new_pin) {
  std::set<std::string> keys;
  for (const auto* side : {&old_pin, &new_pin}) {
    for (const auto& [k, seeds] : *side) {
      if (!seeds.empty()) keys.insert(k);
    }
  }
  const std::set<uint64_t> none;
  std::vector<SeedSetDiff> out;
  for (const std::string& k : keys) {
    const auto o = old_pin.find(k), n = new_pin.find(k);
    const std::set<uint64_t>& a = o == old_pin.end() ? none : o->second;
    const std::set<uint64_t>& b = n == new_pin.end() ? none : n->second;
    SeedSetDiff d{k, a.size(), b.size(), {}, {}};
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(d.old_only));
    std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(d.new_only));
    out.push_back(std::move(d));
  }
  return out;
}

std::string render_upgrade_report(const UpgradeInput& in) {
  const std::string title = "iqsim upgrade: " + in.scenario;
  std::string html = page_head(title);
  html += fmt::format(
      "<header><h1>{}</h1><p>{} &middot; seeds {}..{}, each run at {} and at {}</p></header>\n"
      "<main>\n",
      html_escape(title), html_escape(in.title), in.first_seed, in.first_seed + in.seed_count - 1,
      in.old_pin.pin, in.new_pin.pin);
  html += changed_section(in) + isolation_section(in) + speed_section(in) + staleness_section(in);
  html +=
      "<section id=\"differences\"><h2>Every measure side by side</h2><p>The explorer's "
      "measures, a column per pin; cells of a measure that differs are marked.</p>" +
      render_explore_measures(in.measures) + "</section>\n";
  std::map<std::string, uint64_t> met;
  for (const UpgradePin* p : {&in.old_pin, &in.new_pin}) {
    for (const auto& [k, seeds] : p->seeds_by_class) {
      if (k != "failure" && !seeds.empty()) met[k] += seeds.size();
    }
  }
  html += render_findings_section(met, "findings", "seeds (both pins)");
  return html + pins_section(in) + "</main>\n</body></html>\n";
}

}  // namespace iq::reports
