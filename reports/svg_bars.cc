#include "svg_bars.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "report_common.h"

namespace iq::reports {

namespace {

constexpr int kLabelWidth = 250;  // left margin for the row labels
constexpr int kRowHeight = 26;
constexpr int kLegendHeight = 24;

// The legend: every part name once, in the order first met.
std::string legend(const std::vector<BarRow>& rows, int y) {
  std::string svg;
  std::set<std::string> seen;
  int x = 4;
  for (const BarRow& row : rows) {
    for (const BarPart& p : row.parts) {
      if (!seen.insert(p.name).second) continue;
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"10\" fill=\"{}\"/><text x=\"{}\" "
          "y=\"{}\">{}</text>",
          x, y, html_escape(p.colour), x + 16, y + 9, html_escape(p.name));
      x += 28 + static_cast<int>(p.name.size()) * 7;
    }
  }
  return svg;
}

std::string open_svg(int width, int height, const char* cls) {
  return fmt::format(
      "<svg class=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\">",
      cls, width, height, width, height);
}

}  // namespace

std::string stacked_share_bars(const std::vector<BarRow>& rows, int width) {
  const int plot = std::max(100, width - kLabelWidth - 10);
  const int height = kLegendHeight + static_cast<int>(rows.size()) * kRowHeight + 6;
  std::string svg = open_svg(width, height, "bars stacked") + legend(rows, 4);
  for (size_t i = 0; i < rows.size(); ++i) {
    const BarRow& row = rows[i];
    const int y = kLegendHeight + static_cast<int>(i) * kRowHeight;
    svg += fmt::format("<text class=\"l\" x=\"{}\" y=\"{}\">{}</text>", kLabelWidth - 6, y + 15,
                       html_escape(row.label));
    double sum = 0;
    for (const BarPart& p : row.parts) sum += std::max(0.0, p.value);
    if (sum <= 0) {
      svg += fmt::format("<text x=\"{}\" y=\"{}\">no queries</text>", kLabelWidth, y + 15);
      continue;
    }
    double x = kLabelWidth;
    for (const BarPart& p : row.parts) {
      const double share = std::max(0.0, p.value) / sum;
      const double w = share * plot;
      if (w <= 0) continue;
      svg += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"18\" fill=\"{}\"><title>{}: "
          "{:.1f}%</title></rect>",
          x, y + 2, w, html_escape(p.colour), html_escape(p.name), share * 100);
      if (w > 44) {
        svg += fmt::format("<text class=\"in\" x=\"{:.1f}\" y=\"{}\">{:.1f}%</text>", x + 4, y + 15,
                           share * 100);
      }
      x += w;
    }
  }
  return svg + "</svg>";
}

std::string grouped_bars(const std::vector<BarRow>& rows, const std::string& unit, int width) {
  const int plot = std::max(100, width - kLabelWidth - 90);
  double top = 0;
  size_t parts = 1;
  for (const BarRow& row : rows) {
    parts = std::max(parts, row.parts.size());
    for (const BarPart& p : row.parts) top = std::max(top, p.value);
  }
  const int bar = 12;
  const int group = static_cast<int>(parts) * (bar + 2) + 8;
  const int height = kLegendHeight + static_cast<int>(rows.size()) * group + 6;
  std::string svg = open_svg(width, height, "bars grouped") + legend(rows, 4);
  for (size_t i = 0; i < rows.size(); ++i) {
    const BarRow& row = rows[i];
    const int y = kLegendHeight + static_cast<int>(i) * group;
    svg += fmt::format("<text class=\"l\" x=\"{}\" y=\"{}\">{}</text>", kLabelWidth - 6,
                       y + group / 2 + 2, html_escape(row.label));
    for (size_t k = 0; k < row.parts.size(); ++k) {
      const BarPart& p = row.parts[k];
      const double w = top > 0 ? std::max(0.0, p.value) / top * plot : 0;
      const int by = y + static_cast<int>(k) * (bar + 2);
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{}: {:g} "
          "{}</title></rect><text x=\"{:.1f}\" y=\"{}\">{:g} {}</text>",
          kLabelWidth, by, std::max(w, 1.0), bar, html_escape(p.colour), html_escape(p.name),
          p.value, html_escape(unit), kLabelWidth + std::max(w, 1.0) + 4, by + 10, p.value,
          html_escape(unit));
    }
  }
  return svg + "</svg>";
}

}  // namespace iq::reports
