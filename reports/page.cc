#include "page.h"

#include "report_common.h"

namespace iq::reports {

namespace {

// The page: header, navigation, sections, tables, verdict badges, run pages' timelines.
constexpr const char* kPageStyle = R"(
body{font:14px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#222;background:#fff}
header{background:#26324a;color:#fff;padding:14px 24px}
header h1{margin:0;font-size:20px} header p{margin:4px 0 0;color:#cfd6e6}
nav{padding:6px 24px;background:#eef1f7;border-bottom:1px solid #d6dbe6}
nav a{margin-right:16px;color:#26324a}
main{padding:8px 24px 40px}
section{margin:18px 0 26px}
h2{font-size:18px;border-bottom:2px solid #26324a;padding-bottom:3px}
h3{font-size:15px;margin:14px 0 6px} h4{margin:10px 0 4px;font-size:13px;color:#444}
table{border-collapse:collapse;margin:6px 0} th,td{border:1px solid #d6dbe6;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f6fb} td.num{text-align:right}
.verdict{display:inline-block;padding:2px 10px;border-radius:3px;color:#fff;font-weight:bold}
.pass{background:#2ca02c} .fail{background:#d62728} .finding{background:#f0b429;color:#3d2a00}
.cut{color:#a04000;font-style:italic}
.violation{border-left:5px solid #d62728;padding:4px 14px;background:#fdf6f6}
.violation.known{border-left-color:#f0b429;background:#fffaf0}
.cols{display:flex;gap:24px;flex-wrap:wrap} .cols>div{flex:1 1 520px;min-width:0}
.kv td code{white-space:pre-wrap;word-break:break-word}
.steps li{margin:2px 0} .steps li.bad{color:#d62728;font-weight:bold}
.diagram svg{max-width:100%;height:auto}
.legend span{display:inline-block;margin-right:14px} .legend i{display:inline-block;width:14px;height:10px;margin-right:4px;vertical-align:middle}
svg.timeline .lane{fill:#fafbfd;stroke:#d6dbe6}
svg.timeline .lanelabel{font:12px Helvetica,Arial,sans-serif;text-anchor:end;font-weight:bold}
svg.timeline .scale{font:9px Helvetica,Arial,sans-serif;text-anchor:end;fill:#888}
svg.timeline .tick{font:10px Helvetica,Arial,sans-serif;text-anchor:middle;fill:#555}
svg.timeline .axis{stroke:#555}
svg.timeline .logend{fill:none;stroke:#444;stroke-dasharray:4 3;stroke-width:1.2}
svg.timeline .pos{fill:none;stroke-width:3}
svg.timeline .change{stroke:#ff7f0e;stroke-width:2}
svg.timeline .reproc{fill:#e377c2;stroke:#7f2060;stroke-width:0.8}
svg.timeline .fault{stroke-width:1.5;stroke-dasharray:6 3}
svg.timeline .faultlabel{font:11px Helvetica,Arial,sans-serif;font-weight:bold}
svg.stalechart text{font:11px Helvetica,Arial,sans-serif} svg.stalechart .l{text-anchor:end}
pre{background:#f4f6fb;padding:8px;overflow:auto;max-height:420px}
)";

// Verdict colours beside the badges, the findings' boxes and charts.h's figures.
constexpr const char* kChartStyle = R"(
.verdict.known{background:#f0b429;color:#3d2a00}
.known-text{color:#8a5a00} .fail-text{color:#d62728}
tr.failure td:first-child{border-left:5px solid #d62728} tr.known td:first-child{border-left:5px solid #f0b429}
.about{border-left:5px solid #f0b429;background:#fffaf0;padding:4px 14px;margin:10px 0}
.about h3 .verdict{font-size:11px;vertical-align:middle}
figure.chart{margin:14px 0 22px} figure.chart figcaption{font-weight:bold;margin-bottom:4px}
svg.chart text{font:11px Helvetica,Arial,sans-serif;fill:#333}
svg.chart .rowlabel,svg.chart .unit{text-anchor:end} svg.chart .unit{font-style:italic} svg.chart .tick{text-anchor:middle;fill:#666}
svg.chart .axis{stroke:#888} svg.chart .lane{fill:#f4f6fb}
svg.chart .val{fill:#555;font-size:10px} svg.chart a text,svg.chart a{fill:#26324a;text-decoration:underline}
details.numbers summary{cursor:pointer;color:#26324a;font-size:12px}
.shows-lead{font-size:15px}
)";

// The explorer's side-by-side table: a measure that differs, its worst and its best value.
constexpr const char* kCompareStyle = R"(
td.differs{background:#fff7d6} td.worst{background:#fde0dc;font-weight:bold} td.best{background:#e2f5e1;font-weight:bold}
code{background:#f4f6fb;padding:0 3px}
)";

// Marks the page as rendered, and any script error visibly, for the browser test.
constexpr const char* kScript =
    "<script>window.addEventListener('error',function(e){var d=document.createElement('div');"
    "d.id='script-error';d.textContent='script error: '+e.message;document.body.appendChild(d);});"
    "document.addEventListener('DOMContentLoaded',function(){document.body.setAttribute("
    "'data-rendered','ok');});</script>\n";

}  // namespace

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
         html_escape(title) + "</title>\n<style>" + kPageStyle + kChartStyle + kCompareStyle +
         "</style>\n" + kScript + "</head>\n<body>\n";
}

}  // namespace iq::reports
