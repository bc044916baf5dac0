#pragma once
// What every report page begins with: the <head> holding the one style sheet all pages share (run,
// sweep and explorer pages, charts.h's figures, the timelines) and the tiny script the browser
// test reads. One sheet, so that a colour or a chart looks the same on every page.
//
//   std::string html = page_head("iqsim report: Count seed 7") + "<header>...";

#include <string>

namespace iq::reports {

// "<!DOCTYPE html>...<body>\n": the title escaped, the style sheet, and a script that marks the
// body `data-rendered="ok"` once loaded and shows any script error as `<div id="script-error">`.
std::string page_head(const std::string& title);

}  // namespace iq::reports
