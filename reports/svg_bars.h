#pragma once
// Horizontal bar charts as inline SVG, for pages that compare a few rows side by side (the
// configuration explorer): one row per label, either one stacked bar of shares or a group of
// bars on a common scale. Text only, no script; every label and value is escaped, and the numbers
// drawn are in each bar's <title>, so hovering shows them and the page's table has them all.
//
//   std::string svg = stacked_share_bars({{"standbys=0", {{"answered", 0.9, "#2ca02c"}, ...}}});

#include <string>
#include <vector>

namespace iq::reports {

struct BarPart {
  std::string name;    // shown in the legend and the tooltip
  double value = 0;    // a share in [0, 1] (stacked) or a value on the chart's scale (grouped)
  std::string colour;  // a CSS colour
};

struct BarRow {
  std::string label;
  std::vector<BarPart> parts;
};

// One bar per row, its parts stacked left to right as shares of the row (each row is scaled to
// its own sum, so a row of counts works too); the legend lists every part name once.
std::string stacked_share_bars(const std::vector<BarRow>& rows, int width = 1000);

// One group per row, one thin bar per part on a common linear scale from 0 to the largest value,
// each bar labelled with its value followed by `unit`.
std::string grouped_bars(const std::vector<BarRow>& rows, const std::string& unit,
                         int width = 1000);

}  // namespace iq::reports
