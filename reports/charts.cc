#include "charts.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "report_common.h"

namespace iq::reports {

namespace {

constexpr double kWidth = 960;
constexpr double kLabel = 270;  // the row labels' column
constexpr double kRight = 90;   // room for a value printed after the longest bar
constexpr double kArea = kWidth - kLabel - kRight;
constexpr double kTop = 30;      // the legend's first line
constexpr double kKeyLine = 18;  // each further line of a legend too long for one
constexpr double kAxis = 26;     // the scale's line under the rows

double cell(const BarChart& c, size_t row, size_t series) {
  if (row >= c.values.size() || series >= c.values[row].size()) return 0;
  return std::max(0.0, c.values[row][series]);
}

bool not_measured(const BarChart& c, size_t row, size_t series) {
  return row < c.values.size() && series < c.values[row].size() &&
         std::isnan(c.values[row][series]);
}

double row_total(const BarChart& c, size_t row) {
  double total = 0;
  for (size_t s = 0; s < c.series.size(); ++s) total += cell(c, row, s);
  return total;
}

// The value a bar of the chart's full length stands for (never 0).
double full_scale(const BarChart& c) {
  double max = 0;
  for (size_t r = 0; r < c.rows.size(); ++r) {
    if (c.layout == BarChart::Layout::kGrouped) {
      for (size_t s = 0; s < c.series.size(); ++s) max = std::max(max, cell(c, r, s));
    } else {
      max = std::max(max, row_total(c, r));
    }
  }
  if (c.layout == BarChart::Layout::kShares) return 1;
  return max > 0 ? max : 1;
}

bool log_scale(const BarChart& c) {
  return c.scale == BarChart::Scale::kLog && c.layout == BarChart::Layout::kGrouped;
}

double length(const BarChart& c, double v, double full) {
  if (log_scale(c)) return kArea * std::log10(1 + v) / std::log10(1 + full);
  return kArea * v / full;
}

std::string number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{:.2f}", v);
}

double row_height(const BarChart& c) {
  return c.layout == BarChart::Layout::kGrouped
             ? 10.0 * static_cast<double>(std::max<size_t>(c.series.size(), 1)) + 10
             : 24;
}

std::string svg_open(const std::string& cls, double height) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart {}\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\">\n",
      cls, kWidth, height, kWidth, height);
}

// Where each legend entry stands: left to right from the label column, on a new line where the
// next would pass the chart's right edge (a width of about 7.5 px a character, capitals included).
std::vector<std::pair<double, double>> legend_places(const std::vector<ChartSeries>& series) {
  std::vector<std::pair<double, double>> places;
  double x = kLabel, y = 8;
  for (const ChartSeries& s : series) {
    const double w = 24 + 7.5 * static_cast<double>(s.name.size());
    if (x + w > kWidth && x > kLabel) {
      x = kLabel;
      y += kKeyLine;
    }
    places.push_back({x, y});
    x += w;
  }
  return places;
}

// The top of the first row: under the legend's last line.
double rows_top(const std::vector<ChartSeries>& series) {
  const auto places = legend_places(series);
  return places.empty() ? kTop : kTop + places.back().second - 8;
}

std::string legend_svg(const std::vector<ChartSeries>& series) {
  std::string svg;
  const auto places = legend_places(series);
  for (size_t i = 0; i < series.size(); ++i) {
    const auto [x, y] = places[i];
    svg += fmt::format(
        "<g class=\"key\"><rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"12\" height=\"12\" "
        "fill=\"{}\"/><text x=\"{:.0f}\" y=\"{:.0f}\">{}</text></g>\n",
        x, y, html_escape(series[i].colour), x + 16, y + 10, html_escape(series[i].name));
  }
  return svg;
}

// A label that fits the label column (about 44 characters of 11px text), the whole of it in
// its tooltip when cut.
std::string fitted(const std::string& label) {
  constexpr size_t kChars = 44;
  if (label.size() <= kChars) return html_escape(label);
  return "<tspan>" + html_escape(label.substr(0, kChars - 1)) + "…<title>" + html_escape(label) +
         "</title></tspan>";
}

std::string row_label(const BarChart& c, size_t r, double y) {
  std::string text = fitted(c.rows[r]);
  if (r < c.row_links.size() && !c.row_links[r].empty()) {
    text = "<a href=\"" + html_escape(c.row_links[r]) + "\">" + text + "</a>";
  }
  return fmt::format("<text class=\"rowlabel\" x=\"{:.0f}\" y=\"{:.1f}\">{}</text>\n", kLabel - 8,
                     y, text);
}

std::string bar_rect(const BarChart& c, size_t r, size_t s, double x, double y, double w, double h,
                     const std::string& shown) {
  return fmt::format(
      "<rect class=\"bar\" data-row=\"{}\" data-series=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" "
      "width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}, {}: {}</title></rect>\n",
      r, s, x, y, std::max(w, 0.5), h, html_escape(c.series[s].colour), html_escape(c.rows[r]),
      html_escape(c.series[s].name), html_escape(shown));
}

std::string grouped_row(const BarChart& c, size_t r, double y, double full) {
  std::string svg = row_label(c, r, y + row_height(c) / 2 + 2);
  for (size_t s = 0; s < c.series.size(); ++s) {
    double v = cell(c, r, s);
    double w = length(c, v, full);
    double by = y + 5 + 10.0 * static_cast<double>(s);
    if (not_measured(c, r, s)) {
      svg += fmt::format("<text class=\"val none\" x=\"{:.0f}\" y=\"{:.1f}\">none ({})</text>\n",
                         kLabel + 4, by + 8, html_escape(c.series[s].name));
      continue;
    }
    svg += bar_rect(c, r, s, kLabel, by, w, 9, number(v) + " " + c.unit);
    svg += fmt::format("<text class=\"val\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
                       kLabel + std::max(w, 0.5) + 4, by + 8, number(v));
  }
  return svg;
}

std::string stacked_row(const BarChart& c, size_t r, double y, double full) {
  std::string svg = row_label(c, r, y + 16);
  const double total = row_total(c, r);
  const bool shares = c.layout == BarChart::Layout::kShares;
  double x = kLabel;
  for (size_t s = 0; s < c.series.size(); ++s) {
    double v = cell(c, r, s);
    if (v <= 0) continue;  // no sliver for nothing: the numbers table has the zeros
    double w = length(c, shares ? v / total : v, full);
    std::string shown =
        number(v) + " " + c.unit + (total > 0 ? fmt::format(" ({:.1f}%)", 100.0 * v / total) : "");
    svg += bar_rect(c, r, s, x, y + 4, w, 16, shown);
    x += w;
  }
  svg += fmt::format("<text class=\"val\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x + 4, y + 16,
                     number(total));
  return svg;
}

std::string axis(const BarChart& c, double y, double full) {
  std::vector<double> ticks;
  if (c.layout == BarChart::Layout::kShares) {
    ticks = {0, 0.25, 0.5, 0.75, 1};
  } else if (log_scale(c)) {
    for (double t = 0; t <= full; t = t == 0 ? 1 : t * 10) ticks.push_back(t);
  } else {
    ticks = {0, full / 2, full};
  }
  std::string svg = fmt::format(
      "<line class=\"axis\" x1=\"{:.0f}\" y1=\"{:.1f}\" x2=\"{:.0f}\" y2=\"{:.1f}\"/>\n", kLabel, y,
      kLabel + kArea, y);
  for (double t : ticks) {
    std::string label = c.layout == BarChart::Layout::kShares ? fmt::format("{:.0f}%", t * 100)
                                                              : number(std::round(t));
    svg += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
                       kLabel + length(c, t, full), y + 14, label);
  }
  std::string unit = c.unit + (log_scale(c) ? " (log scale)" : "") +
                     (c.layout == BarChart::Layout::kShares ? " (share of the row)" : "");
  return svg + fmt::format("<text class=\"unit\" x=\"{:.0f}\" y=\"{:.1f}\">{}</text>\n",
                           kLabel - 16, y + 14, html_escape(unit));
}

}  // namespace

std::string render_bar_svg(const BarChart& c) {
  const double rh = row_height(c);
  const double top = rows_top(c.series);
  const double height = top + rh * static_cast<double>(c.rows.size()) + kAxis;
  const double full = full_scale(c);
  std::string svg = svg_open("bars", height) + legend_svg(c.series);
  for (size_t r = 0; r < c.rows.size(); ++r) {
    double y = top + rh * static_cast<double>(r);
    svg += c.layout == BarChart::Layout::kGrouped ? grouped_row(c, r, y, full)
                                                  : stacked_row(c, r, y, full);
  }
  svg += axis(c, top + rh * static_cast<double>(c.rows.size()) + 2, full);
  return svg + "</svg>\n";
}

std::string render_bar_numbers(const BarChart& c) {
  const bool shares = c.layout != BarChart::Layout::kGrouped;
  std::string html = "<details class=\"numbers\"><summary>the numbers</summary>\n<table><tr><th>" +
                     html_escape(c.title) + "</th>";
  for (const ChartSeries& s : c.series) html += "<th>" + html_escape(s.name) + "</th>";
  html += shares ? "<th>total</th></tr>\n" : "</tr>\n";
  for (size_t r = 0; r < c.rows.size(); ++r) {
    html += "<tr><td>" + html_escape(c.rows[r]) + "</td>";
    const double total = row_total(c, r);
    for (size_t s = 0; s < c.series.size(); ++s) {
      double v = cell(c, r, s);
      if (not_measured(c, r, s)) {
        html += "<td class=\"num\">-</td>";
        continue;
      }
      html += "<td class=\"num\">" + number(v) +
              (shares && total > 0 ? fmt::format(" ({:.1f}%)", 100.0 * v / total) : "") + "</td>";
    }
    html += shares ? "<td class=\"num\">" + number(total) + "</td></tr>\n" : "</tr>\n";
  }
  return html + "</table><p>unit: " + html_escape(c.unit) + "</p></details>\n";
}

std::string render_bar_figure(const BarChart& c) {
  return "<figure class=\"chart\" id=\"" + html_escape(c.id) + "\"><figcaption>" +
         html_escape(c.title) + "</figcaption>\n" +
         (c.rows.empty() ? std::string("<p>nothing to draw</p>\n") : render_bar_svg(c)) +
         render_bar_numbers(c) + "</figure>\n";
}

namespace {

double seed_x(const SeedStrip& s, uint64_t seed) {
  const double count = static_cast<double>(std::max<uint64_t>(s.seed_count, 1));
  return kLabel + kArea * static_cast<double>(seed - s.first_seed) / count;
}

std::string strip_axis(const SeedStrip& s, double y) {
  std::string svg = fmt::format(
      "<line class=\"axis\" x1=\"{:.0f}\" y1=\"{:.1f}\" x2=\"{:.0f}\" y2=\"{:.1f}\"/>\n", kLabel, y,
      kLabel + kArea, y);
  const uint64_t last = s.first_seed + (s.seed_count ? s.seed_count - 1 : 0);
  std::set<uint64_t> ticks{s.first_seed, s.first_seed + s.seed_count / 2, last};
  for (uint64_t t : ticks) {
    svg += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", seed_x(s, t),
                       y + 14, t);
  }
  return svg + fmt::format("<text class=\"unit\" x=\"{:.0f}\" y=\"{:.1f}\">seed</text>\n",
                           kLabel - 16, y + 14);
}

std::string strip_row(const SeedStrip& s, size_t r, double y) {
  const SeedStrip::Row& row = s.rows[r];
  std::set<uint64_t> seeds(row.seeds.begin(), row.seeds.end());
  std::string label = fitted(row.label);
  if (!row.link.empty()) label = "<a href=\"" + html_escape(row.link) + "\">" + label + "</a>";
  std::string svg = fmt::format(
      "<text class=\"rowlabel\" x=\"{:.0f}\" y=\"{:.1f}\">{}</text>\n"
      "<rect class=\"lane\" x=\"{:.0f}\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"14\"/>\n",
      kLabel - 8, y + 12, label, kLabel, y + 1, kArea);
  const double w = std::max(1.5, kArea / static_cast<double>(std::max<uint64_t>(s.seed_count, 1)));
  for (uint64_t seed : seeds) {
    if (seed < s.first_seed || seed - s.first_seed >= s.seed_count) continue;
    svg += fmt::format(
        "<rect class=\"mark\" data-seed=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
        "height=\"14\" fill=\"{}\"><title>seed {}: {}</title></rect>\n",
        seed, seed_x(s, seed), y + 1, w, html_escape(row.colour), seed, html_escape(row.label));
  }
  return svg + fmt::format("<text class=\"val\" x=\"{:.1f}\" y=\"{:.1f}\">{} seeds</text>\n",
                           kLabel + kArea + 8, y + 12, seeds.size());
}

}  // namespace

std::string render_seed_strip_svg(const SeedStrip& s) {
  constexpr double kLane = 18;
  const double height = 10 + kLane * static_cast<double>(s.rows.size()) + kAxis;
  std::string svg = svg_open("strip", height);
  for (size_t r = 0; r < s.rows.size(); ++r) {
    svg += strip_row(s, r, 6 + kLane * static_cast<double>(r));
  }
  svg += strip_axis(s, 8 + kLane * static_cast<double>(s.rows.size()));
  return svg + "</svg>\n";
}

std::string render_seed_strip_numbers(const SeedStrip& s) {
  constexpr size_t kListedMax = 200;
  std::string html =
      "<details class=\"numbers\"><summary>the numbers</summary>\n<table><tr><th>row</th>"
      "<th>seeds</th><th>which</th></tr>\n";
  for (const SeedStrip::Row& row : s.rows) {
    std::set<uint64_t> seeds(row.seeds.begin(), row.seeds.end());
    std::string list;
    size_t n = 0;
    for (uint64_t seed : seeds) {
      if (n++ == kListedMax) {
        list += fmt::format(" (cut: {} more)", seeds.size() - kListedMax);
        break;
      }
      list += (list.empty() ? "" : ", ") + std::to_string(seed);
    }
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                        html_escape(row.label), seeds.size(), list);
  }
  return html + "</table></details>\n";
}

std::string render_seed_strip_figure(const SeedStrip& s) {
  return "<figure class=\"chart\" id=\"" + html_escape(s.id) + "\"><figcaption>" +
         html_escape(s.title) + "</figcaption>\n" +
         (s.rows.empty() ? std::string("<p>nothing to draw</p>\n") : render_seed_strip_svg(s)) +
         render_seed_strip_numbers(s) + "</figure>\n";
}

}  // namespace iq::reports
