#pragma once
// Small inline-SVG charts for report pages, drawn by our own code (no script, no network), each
// with its numbers one click away: render_*_figure returns a <figure> holding the SVG, its
// legend and a <details> table of the very values drawn. The data types are plain values, so any
// page (a sweep, a run, a configuration comparison) fills them from its own figures.
//
//   BarChart c{.id = "staleness-records", .title = "records behind", .unit = "records",
//              .rows = {"active / at_least_once", "standby / at_least_once"},
//              .series = {{"median", "#1f77b4"}, {"p90", "#ff7f0e"}, {"max", "#7f7f7f"}},
//              .values = {{0, 2, 40}, {3, 18, 210}}, .scale = BarChart::Scale::kLog};
//   html += render_bar_figure(c);
//
// Shape, so that tests (and readers of the SVG) can count what was drawn: every bar or bar
// segment is a <rect class="bar"> with data-row and data-series (indices), its <title> giving
// the row, series and value; every row label a <text class="rowlabel">; every legend entry a
// <g class="key">. A seed strip marks each seed as a <rect class="mark" data-seed="S">.

#include <cstdint>
#include <string>
#include <vector>

namespace iq::reports {

struct ChartSeries {
  std::string name{};
  std::string colour{};  // CSS colour
};

struct BarChart {
  enum class Layout {
    kGrouped,  // one bar per series in each row, side by side (top to bottom)
    kStacked,  // one bar per row, a segment per series, lengths in the unit
    kShares,   // as kStacked, each row scaled to 100% (rows of different totals compared)
  };
  enum class Scale { kLinear, kLog };  // kLog: log10(1 + v), for kGrouped only
  std::string id{};                    // the figure's element id
  std::string title{};
  std::string unit{};
  std::vector<std::string> rows{};
  std::vector<ChartSeries> series{};
  // [row][series]; a missing cell counts 0. A NaN cell is "not measured there" (a replica role
  // that served no answer under one configuration): kGrouped draws no bar and prints "none"
  // (not a 0 that would read as fresh), the numbers table "-"; other layouts count it 0.
  std::vector<std::vector<double>> values{};
  Layout layout = Layout::kGrouped;
  Scale scale = Scale::kLinear;
  // Optional link per row (same size as rows, or empty): the row label links there.
  std::vector<std::string> row_links{};
};

// Presence of something per seed: one lane per row, a mark at each seed it names.
struct SeedStrip {
  struct Row {
    std::string label{};
    std::string colour{};
    std::vector<uint64_t> seeds{};  // any order; each drawn once
    std::string link{};             // the label links there, or empty
  };
  std::string id{};
  std::string title{};
  uint64_t first_seed = 0;
  uint64_t seed_count = 0;  // the axis: [first_seed, first_seed + seed_count)
  std::vector<Row> rows{};
};

std::string render_bar_svg(const BarChart& chart);
std::string render_bar_numbers(const BarChart& chart);  // <details> with a <table>
std::string render_bar_figure(const BarChart& chart);   // <figure>: svg + numbers

std::string render_seed_strip_svg(const SeedStrip& strip);
std::string render_seed_strip_numbers(const SeedStrip& strip);
std::string render_seed_strip_figure(const SeedStrip& strip);

}  // namespace iq::reports
