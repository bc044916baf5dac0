// Unit tests of the report pieces on synthetic traces: DOT and HTML are stable for a run, caps
// bound the output of a huge history and say so on the page, and text is escaped.

#include <gtest/gtest.h>

#include <string>

#include "dot_writer.h"
#include "explore_report.h"
#include "html_report.h"
#include "page.h"
#include "placement_graph.h"
#include "position_timeline.h"
#include "report_common.h"
#include "staleness.h"
#include "violation_page.h"

namespace iq::reports {
namespace {

constexpr uint64_t kSeed = 42;  // the synthetic traces' seed, named in every failure

// The trace's instants, from the virtual milliseconds the tests reason in.
base::Instant instant(int64_t ms) {
  return base::Instant::from_ms(ms);
}

sim::ReplicaSnapshot replica(int32_t partition, int32_t instance, sim::ReplicaRole role,
                             int64_t offset, int64_t end, bool running = true) {
  sim::ReplicaSnapshot r;
  r.partition = partition;
  r.instance = "instance-" + std::to_string(instance);
  r.running = running;
  r.role = running ? role : sim::ReplicaRole::kNone;
  if (running && role != sim::ReplicaRole::kNone) {
    r.task_state = sim::ReplicaSnapshot::TaskState::RUNNING;
    r.changelog_offset = ChangelogOffset(offset);
    r.changelog_end_offset = ChangelogOffset(end);
    r.lag = end - (offset + 1);
    r.store_position = Position::empty_position().with_component("words", partition, offset);
  }
  return r;
}

// `records` queries over `partitions` partitions and `instances` instances; the active of each
// partition moves to the next instance every `move_every` records, and instance-1 is down for a
// while, so there are placement changes, failovers and lag.
sim::RunTrace synthetic_trace(int32_t records, int32_t partitions, int32_t instances,
                              int32_t move_every) {
  sim::RunTrace trace;
  trace.scenario = "synthetic.toml";
  trace.seed = kSeed;
  trace.topology.store_name = "counts";
  sim::FaultRecord crash;
  crash.at_ms = instant(1000);
  crash.kind = sim::FaultKind::kCrash;
  crash.instance = "instance-1";
  crash.detail = "scripted <step> & \"quoted\"";
  trace.faults.push_back(crash);
  sim::FaultRecord restart = crash;
  restart.at_ms = instant(3000);
  restart.kind = sim::FaultKind::kRestart;
  restart.detail = "liveness: heal";
  trace.faults.push_back(restart);
  for (int32_t i = 0; i < records; ++i) {
    sim::QueryRecord q;
    q.id = trace.history.next_id();
    q.invoke_ms = instant(i * 10);
    q.complete_ms = instant(i * 10 + 5);
    int32_t p = i % partitions;
    q.request.store = "counts";
    q.request.query = "KeyQuery(key=" + std::to_string(i % 7) + ")";
    q.request.kind = i % 3 == 0 ? QueryKind::RangeQuery : QueryKind::KeyQuery;
    q.request.partitions = std::set<int32_t>{p};
    int32_t active = (p + i / move_every) % instances;
    int32_t standby = (active + 1) % instances;
    q.target_instance = "instance-" + std::to_string(i % 2 == 0 ? active + 1 : standby + 1);
    q.outcome = sim::OutcomeKind::kAnswered;
    sim::PlacementSnapshot snap;
    snap.at_ms = q.complete_ms;
    for (int32_t k = 0; k < instances; ++k) {
      bool down = k == 0 && q.complete_ms >= instant(1000) && q.complete_ms < instant(3000);
      sim::ReplicaRole role = k == active    ? sim::ReplicaRole::kActive
                              : k == standby ? sim::ReplicaRole::kStandby
                                             : sim::ReplicaRole::kNone;
      int64_t end = i;
      snap.replicas.push_back(
          replica(p, k + 1, role, role == sim::ReplicaRole::kStandby ? i / 2 : i - 1, end, !down));
    }
    q.placement_at_invoke = snap;
    q.placement_at_answer = snap;
    sim::PartitionOutcome outcome;
    outcome.partition = p;
    outcome.success = i % 5 != 0;
    if (!outcome.success)
      outcome.failure_reason = FailureReason::NOT_UP_TO_BOUND;
    else
      outcome.value = std::optional<int64_t>(i);
    q.partitions.push_back(outcome);
    trace.history.append(std::move(q));
  }
  trace.end_ms = instant(records * 10 + 10);
  return trace;
}

properties::RunReport report_for(std::shared_ptr<const sim::RunTrace> trace) {
  properties::RunReport r;
  r.scenario = trace->scenario;
  r.title = "synthetic <title>";
  r.seed = kSeed;
  r.properties_checked = {"ResultMatchesModel", "BoundHonored"};
  r.queries_total = trace->history.size();
  properties::Violation v;
  v.property = "ResultMatchesModel";
  v.record_id = 3;
  v.at_ms = 25;
  v.summary = "value <b>2</b> & not 3";
  v.expected = "value 3";
  v.returned = "value 2";
  v.events_before = {"1000 ms: crash instance-1"};
  r.violations.push_back(v);
  r.violations_by_property["ResultMatchesModel"] = 1;
  r.virtual_ms = trace->end_ms.ms_since_epoch();
  r.trace = std::move(trace);
  return r;
}

// The placement diagram's DOT and the cluster diagram's DOT are the same text for the same run.
TEST(DotWriter, GenerationIsStableForARun) {
  sim::RunTrace trace = synthetic_trace(400, 3, 4, 50);
  std::string first = placement_dot(placement_epochs(trace), {}).str();
  std::string second = placement_dot(placement_epochs(trace), {}).str();
  EXPECT_EQ(first, second) << "seed " << kSeed;
  EXPECT_NE(first.find("P0 active"), std::string::npos) << "seed " << kSeed << "\n" << first;
  const sim::QueryRecord& q = trace.history.records()[10];
  EXPECT_EQ(cluster_dot(q, {}).str(), cluster_dot(q, {}).str()) << "seed " << kSeed;
}

// A whole page (Graphviz SVG included) is byte-for-byte the same when rendered twice.
TEST(HtmlReport, SameRunSameBytes) {
  auto trace = std::make_shared<const sim::RunTrace>(synthetic_trace(300, 2, 3, 60));
  properties::RunReport r = report_for(trace);
  std::string a = render_run_report(r, nullptr);
  std::string b = render_run_report(r, nullptr);
  EXPECT_EQ(a, b) << "seed " << kSeed;
  for (const char* id : {"id=\"summary\"", "id=\"violations\"", "id=\"violation-1\"",
                         "id=\"timeline-p0\"", "id=\"placement\"", "id=\"staleness\""}) {
    EXPECT_NE(a.find(id), std::string::npos) << "seed " << kSeed << ": missing " << id;
  }
  EXPECT_NE(a.find("<svg"), std::string::npos) << "seed " << kSeed;
  EXPECT_EQ(a.find("<?xml"), std::string::npos) << "seed " << kSeed << ": SVG prolog inlined";
  EXPECT_EQ(a.find("http://"), a.find("http://www.w3.org/"))
      << "seed " << kSeed << ": the page references something other than XML namespaces";
}

// The writer's caps hold and the cut is noted.
TEST(DotWriter, CapsHold) {
  DotWriter dot("g", {.nodes_max = 50, .edges_max = 20, .bytes_max = 4096});
  for (int32_t i = 0; i < 10'000; ++i) {
    dot.node("n" + std::to_string(i), std::string(40, 'x'));
    dot.edge("n" + std::to_string(i), "n" + std::to_string(i + 1));
  }
  EXPECT_LE(dot.nodes(), 50u);
  EXPECT_LE(dot.edges(), 20u);
  EXPECT_LE(dot.str().size(), 4096u + 64u);
  EXPECT_TRUE(dot.cut());
  auto svg = render_dot_to_svg(dot.str());
  ASSERT_TRUE(svg) << svg.error();
  EXPECT_EQ(svg->rfind("<svg", 0), 0u);
}

// A huge history (100k queries, 12 partitions, 16 instances, constant movement) still gives a
// bounded page that says what it cut.
TEST(HtmlReport, CapsHoldOnAHugeHistory) {
  auto trace = std::make_shared<const sim::RunTrace>(synthetic_trace(100'000, 12, 16, 40));
  properties::RunReport r = report_for(trace);
  for (int32_t i = 0; i < 500; ++i) r.violations.push_back(r.violations.front());
  ReportCaps caps;
  caps.timeline.instances_max = 8;
  caps.timeline.partitions_max = 6;
  std::string html = render_run_report(r, nullptr, caps);
  EXPECT_LT(html.size(), 12u << 20) << "seed " << kSeed << ": page of " << html.size() << " bytes";
  EXPECT_NE(html.find("cut:"), std::string::npos) << "seed " << kSeed;
  EXPECT_NE(html.find("instance lanes drawn"), std::string::npos) << "seed " << kSeed;
  EXPECT_NE(html.find("partitions drawn"), std::string::npos) << "seed " << kSeed;
  EXPECT_NE(html.find("placement epochs drawn"), std::string::npos) << "seed " << kSeed;
  EXPECT_NE(html.find("violations shown"), std::string::npos) << "seed " << kSeed;
}

TEST(Escaping, HtmlEscapesMarkupQuotesAndBadBytes) {
  EXPECT_EQ(html_escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(html_escape("ok\x01"), "ok\xEF\xBF\xBD");
  EXPECT_EQ(html_escape("\xC3\xA9t\xE9"), "\xC3\xA9t\xEF\xBF\xBD");  // valid é, then a stray byte
  EXPECT_EQ(html_escape("line\nnext"), "line\nnext");
}

TEST(Escaping, DotQuotesLabels) {
  EXPECT_EQ(dot_quote("a \"b\"\\c\nd"), "\"a \\\"b\\\"\\\\c\\nd\"");
}

// Text from the run (summaries, fault details, titles) never reaches the page as markup.
TEST(Escaping, RunTextIsEscapedInThePage) {
  auto trace = std::make_shared<const sim::RunTrace>(synthetic_trace(50, 1, 2, 10));
  properties::RunReport r = report_for(trace);
  r.violations.front().summary = "<script>alert(1)</script>";
  std::string html = render_run_report(r, nullptr);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos) << "seed " << kSeed;
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<b>2</b>"), std::string::npos);
  EXPECT_NE(html.find("synthetic &lt;title&gt;"), std::string::npos);
}

const StalenessGroup* role_group(const Staleness& st, const std::string& role) {
  for (const StalenessGroup& g : st.groups) {
    if (g.dimension == "role" && g.name == role) return &g;
  }
  return nullptr;
}

TEST(Staleness, NearestRankStatistics) {
  std::vector<int64_t> values;
  for (int64_t v = 100; v >= 1; --v) values.push_back(v);
  StalenessStats s = summarize(values);
  EXPECT_EQ(s.count, 100u);
  EXPECT_EQ(s.median, 50);
  EXPECT_EQ(s.p99, 99);
  EXPECT_EQ(s.max, 100);
  EXPECT_EQ(summarize({}).count, 0u);
}

// Standbys in the synthetic trace trail by about half the log; actives are caught up.
TEST(Staleness, ByRoleFromSnapshots) {
  sim::RunTrace trace = synthetic_trace(200, 2, 3, 1000);
  Staleness st = compute_staleness(trace);
  const StalenessGroup* active = role_group(st, "active");
  const StalenessGroup* standby = role_group(st, "standby");
  ASSERT_NE(active, nullptr) << "seed " << kSeed;
  ASSERT_NE(standby, nullptr) << "seed " << kSeed;
  EXPECT_EQ(active->behind_log_end.max, 0) << "seed " << kSeed;
  EXPECT_EQ(active->behind_newest_replica.max, 0) << "seed " << kSeed;
  EXPECT_GT(standby->behind_log_end.median, 10) << "seed " << kSeed;
  EXPECT_GT(standby->behind_newest_replica.median, 10) << "seed " << kSeed;
}

// Virtual-ms staleness is the age of the oldest source record the answer's position lacks: behind
// the log end always, behind the newest replica only when some replica had that record.
TEST(Staleness, VirtualMsFromAppendTimes) {
  sim::RunTrace trace;
  trace.seed = kSeed;
  trace.topology.source_topic = "words";
  for (int64_t offset = 0; offset < 10; ++offset) {
    trace.source_log.push_back(
        {0, SourceOffset(offset), 1, offset, /*timestamp_ms=*/7, instant(100 * offset)});
  }
  // (serving instance, its position, the other replica's position); every query answers at 1 s.
  struct Case {
    int32_t serving;
    std::optional<int64_t> served;
    int64_t other;
  };
  for (const Case& c : {Case{1, 9, 4}, Case{2, 4, 9}, Case{2, 4, 4}, Case{2, std::nullopt, 9}}) {
    sim::QueryRecord q;
    q.id = trace.history.next_id();
    q.complete_ms = instant(1000);
    q.outcome = sim::OutcomeKind::kAnswered;
    q.target_instance = "instance-" + std::to_string(c.serving);
    q.placement_at_invoke.at_ms = instant(1000);
    for (int32_t k = 1; k <= 2; ++k) {
      sim::ReplicaSnapshot r =
          replica(0, k, k == 1 ? sim::ReplicaRole::kActive : sim::ReplicaRole::kStandby, 0, 10);
      const std::optional<int64_t> at = k == c.serving ? c.served : std::optional(c.other);
      r.store_position =
          at ? std::optional(Position::empty_position().with_component("words", 0, *at))
             : std::nullopt;
      q.placement_at_invoke.replicas.push_back(r);
    }
    sim::PartitionOutcome outcome;
    outcome.partition = 0;
    outcome.success = true;
    q.partitions.push_back(outcome);
    trace.history.append(std::move(q));
  }
  Staleness st = compute_staleness(trace);
  EXPECT_EQ(st.answers, 4u) << "seed " << kSeed;
  EXPECT_EQ(st.without_position, 1u) << "seed " << kSeed;
  const StalenessGroup* active = role_group(st, "active");
  const StalenessGroup* standby = role_group(st, "standby");
  ASSERT_NE(active, nullptr) << "seed " << kSeed;
  ASSERT_NE(standby, nullptr) << "seed " << kSeed;
  EXPECT_EQ(active->ms_behind_log_end.count, 1u) << "seed " << kSeed;
  EXPECT_EQ(active->ms_behind_log_end.max, 0) << "seed " << kSeed;
  EXPECT_EQ(active->ms_behind_newest_replica.max, 0) << "seed " << kSeed;
  // Offset 5, the first the standby lacks, was appended at 500 ms: 500 ms old at 1 s.
  EXPECT_EQ(standby->ms_behind_log_end.count, 2u) << "seed " << kSeed;
  EXPECT_EQ(standby->ms_behind_log_end.median, 500) << "seed " << kSeed;
  EXPECT_EQ(standby->ms_behind_log_end.max, 500) << "seed " << kSeed;
  // Behind the newest replica only where the active had offset 5: {500, 0}.
  EXPECT_EQ(standby->ms_behind_newest_replica.max, 500) << "seed " << kSeed;
  EXPECT_EQ(standby->ms_behind_newest_replica.median, 0) << "seed " << kSeed;
  std::string table = render_staleness_table(st, StalenessUnit::kVirtualMs);
  EXPECT_NE(table.find("behind log end (virtual ms)"), std::string::npos) << "seed " << kSeed;
}

TEST(SweepReport, GroupsByPropertyAndCause) {
  SweepInput s;
  s.scenario = "x.toml";
  s.shard = "0/1";
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    SweepRun run;
    run.seed = seed;
    run.passed = seed == 2;
    run.properties_checked = {"BoundHonored"};
    if (!run.passed) {
      properties::Violation v;
      v.property = "BoundHonored";
      v.summary = "partition " + std::to_string(seed) + " behind by " + std::to_string(seed * 7);
      run.violations = {v};
      run.violations_total = 1;
      run.page = "x-seed" + std::to_string(seed) + ".html";
    }
    s.runs.push_back(run);
  }
  std::string html = render_sweep_report(s);
  EXPECT_NE(html.find("partition N behind by N"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"x-seed3.html\">3</a>"), std::string::npos);
  EXPECT_EQ(violation_cause("a 12 b 3"), "a N b N");
  EXPECT_EQ(html.find("after at-least-once reprocessing"), std::string::npos) << "seed " << kSeed;
  // Two seeds, one listed violation each: counted from the lists.
  EXPECT_NE(html.find("<td class=\"num\">2</td>"), std::string::npos) << "seed " << kSeed;

  // A seed whose list was cut at 1 of 30 violations counts 30 on the page, not 1.
  s.runs[0].violations_by_property = {{"BoundHonored", 30}};
  std::string counted = render_sweep_report(s);
  EXPECT_NE(counted.find("<td class=\"num\">31</td>"), std::string::npos) << "seed " << kSeed;
  s.runs[0].violations_by_property.clear();

  // The same summary after reprocessing of the partition is a cause of its own.
  s.runs[2].violations[0].reprocessed_before = {"offsets 0-4 of partition 3 again"};
  html = render_sweep_report(s);
  EXPECT_NE(
      html.find(
          "<tr><td>[failure] partition N behind by N</td><td><a href=\"x-seed1.html\">1</a></td>"),
      std::string::npos)
      << "seed " << kSeed;
  EXPECT_NE(html.find("<tr><td>[failure] partition N behind by N (after at-least-once "
                      "reprocessing of the partition)</td><td><a href=\"x-seed3.html\">3</a></td>"),
            std::string::npos)
      << "seed " << kSeed;

  // Causes and the class table name each violation's class.
  s.runs[2].violations[0].violation_class = properties::ViolationClass::kAtLeastOnceReprocessing;
  html = render_sweep_report(s);
  EXPECT_NE(html.find("<tr><td>[known Kafka behaviour: at-least-once reprocessing] partition N "
                      "behind by N (after at-least-once"),
            std::string::npos)
      << "seed " << kSeed;
  EXPECT_NE(html.find("<tr><td>known Kafka behaviour: at-least-once reprocessing</td><td "
                      "class=\"num\">1</td>"),
            std::string::npos)
      << "seed " << kSeed;
}

// A sweep under exactly_once_v2 shows its dirty reads as a table of counts; at-least-once shows
// none.
TEST(SweepReport, DirtyReadsAreTabledUnderExactlyOnceOnly) {
  SweepInput s;
  s.scenario = "x.toml";
  s.shard = "0/1";
  EXPECT_EQ(render_sweep_report(s).find("id=\"dirty-reads\""), std::string::npos)
      << "seed " << kSeed;
  s.dirty_reads = {{"answers", 900},
                   {"dirty", 41},
                   {"aborted", 3},
                   {"uncommitted_ms_count", 40},
                   {"uncommitted_ms_sum", 4000},
                   {"uncommitted_ms_max", 730}};
  s.runs_with_dirty_reads = 7;
  const std::string html = render_sweep_report(s);
  EXPECT_NE(html.find("id=\"dirty-reads\""), std::string::npos) << "seed " << kSeed;
  EXPECT_NE(html.find("<tr><td>dirty reads</td><td class=\"num\">41</td></tr>"), std::string::npos)
      << "seed " << kSeed;
  EXPECT_NE(html.find("<tr><td>runs with a dirty read</td><td class=\"num\">7</td></tr>"),
            std::string::npos)
      << "seed " << kSeed;
  EXPECT_NE(html.find("mean ms (until commit or abort)</td><td class=\"num\">100</td>"),
            std::string::npos)
      << "seed " << kSeed;
  EXPECT_NE(html.find("max ms</td><td class=\"num\">730</td>"), std::string::npos)
      << "seed " << kSeed;
  // By pin and level: a row per pin, and per level where the pin has levels.
  EXPECT_EQ(html.find("id=\"dirty-reads-by-pin\""), std::string::npos) << "seed " << kSeed;
  s.dirty_reads_by_pin = {{"2024-10-25", {{"answers", 500}, {"dirty", 30}, {"aborted", 2}}},
                          {"2026-08-20",
                           {{"answers", 400},
                            {"dirty", 11},
                            {"aborted", 1},
                            {"READ_COMMITTED/answers", 150},
                            {"READ_COMMITTED/dirty", 0},
                            {"READ_UNCOMMITTED/answers", 250},
                            {"READ_UNCOMMITTED/dirty", 11},
                            {"READ_UNCOMMITTED/aborted", 1}}}};
  const std::string by_pin = render_sweep_report(s);
  EXPECT_NE(by_pin.find("<tr><td>2024-10-25</td><td>all</td><td class=\"num\">500</td><td "
                        "class=\"num\">30</td>"),
            std::string::npos)
      << "seed " << kSeed;
  EXPECT_EQ(by_pin.find("<tr><td>2024-10-25</td><td>READ_COMMITTED"), std::string::npos)
      << "seed " << kSeed;
  EXPECT_NE(by_pin.find("<tr><td>2026-08-20</td><td>READ_COMMITTED</td><td class=\"num\">150</td>"
                        "<td class=\"num\">0</td>"),
            std::string::npos)
      << "seed " << kSeed;
  EXPECT_NE(by_pin.find("<tr><td>2026-08-20</td><td>READ_UNCOMMITTED</td><td class=\"num\">250"
                        "</td><td class=\"num\">11</td><td class=\"num\">1</td>"),
            std::string::npos)
      << "seed " << kSeed;
}

// The guarantees' staleness sits side by side per role, in role order (active before standby
// whatever the map order), with each guarantee's runs, quantiles from the histograms.
TEST(SweepReport, StalenessComparesTheGuaranteesByRole) {
  SweepInput s;
  s.scenario = "x.toml";
  s.shard = "0/1";
  properties::AnswerStaleness alos, eos;
  alos["standby"].records.add(4);
  alos["active"].records.add(0);
  for (int64_t v : {2, 9, 40}) eos["standby"].records.add(v);
  eos["standby"].virtual_ms.add(1'000);
  s.staleness_by_guarantee = {{"at_least_once", alos}, {"exactly_once_v2", eos}};
  s.runs_by_guarantee = {{"at_least_once", 3}, {"exactly_once_v2", 5}};
  const std::string html = render_sweep_report(s);
  const size_t active = html.find("<tr><td>active</td><td>at_least_once</td>");
  const size_t standby_alos = html.find("<tr><td>standby</td><td>at_least_once</td>");
  const size_t standby_eos = html.find(
      "<tr><td>standby</td><td>exactly_once_v2</td><td class=\"num\">5</td>"
      "<td class=\"num\">3</td><td class=\"num\">9</td><td class=\"num\">40</td>"
      "<td class=\"num\">40</td><td class=\"num\">960</td><td class=\"num\">960</td>"
      "<td class=\"num\">1000</td></tr>");
  ASSERT_NE(active, std::string::npos) << "seed " << kSeed;
  ASSERT_NE(standby_alos, std::string::npos) << "seed " << kSeed;
  ASSERT_NE(standby_eos, std::string::npos) << "seed " << kSeed << "\n" << html;
  EXPECT_LT(active, standby_alos) << "seed " << kSeed;
  EXPECT_LT(standby_alos, standby_eos) << "seed " << kSeed;
}

// Reprocessed ranges are drawn as bands in the lane of the instance that processed again, cut at
// the cap with a note, and listed with a total on the run page.
TEST(HtmlReport, ReprocessingIsDrawnListedAndCapped) {
  auto trace = std::make_shared<sim::RunTrace>(synthetic_trace(200, 2, 3, 40));
  for (int32_t i = 0; i < 6; ++i) {
    trace->reprocessed.push_back({0, SourceOffset(10 * i), SourceOffset(10 * i + 4), "instance-2",
                                  instant(300 + 100 * i), instant(340 + 100 * i)});
  }
  trace->reprocessed.push_back(
      {1, SourceOffset(0), SourceOffset(0), "instance-3", instant(900), instant(900)});
  TimelineCaps caps;
  caps.reprocessed_max = 4;
  auto timelines = build_timelines(*trace, {}, caps);
  ASSERT_EQ(timelines.size(), 2u) << "seed " << kSeed;
  EXPECT_EQ(timelines[0].reprocessing.size(), 4u) << "seed " << kSeed;
  EXPECT_EQ(timelines[1].reprocessing.size(), 1u) << "seed " << kSeed;
  bool cut_said = false;
  for (const std::string& n : timelines[0].cut_notes) {
    cut_said = cut_said || n.find("only the first 4 reprocessing ranges") != std::string::npos;
  }
  EXPECT_TRUE(cut_said) << "seed " << kSeed;
  std::string svg =
      render_timeline_svg(timelines[1], trace->faults, trace->end_ms.ms_since_epoch(), caps);
  EXPECT_NE(svg.find("class=\"reproc\""), std::string::npos) << "seed " << kSeed;
  EXPECT_NE(svg.find("offset 0 of partition 1 again on instance-3 at 900 ms"), std::string::npos)
      << "seed " << kSeed;

  properties::RunReport r = report_for(trace);
  r.records_reprocessed = 31;
  r.violations[0].reprocessed_before = {"offsets 0-4 of partition 0 again on instance-2"};
  std::string html = render_run_report(r, nullptr);
  EXPECT_NE(html.find("31 input records processed again, in 7 ranges"), std::string::npos)
      << "seed " << kSeed;
  EXPECT_NE(html.find("input records processed again (at-least-once)"), std::string::npos)
      << "seed " << kSeed;
  EXPECT_NE(
      html.find("reprocessed before</th><td><code>offsets 0-4 of partition 0 again on instance-2<"),
      std::string::npos)
      << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::reports

namespace iq::reports {
namespace {

// Window, session and versioned answers are spelled out with their bounds: a WindowKeyQuery
// entry's end from the window size and its key from the query, a session's inclusive bounds, a
// version's validity; other answers get no extra line.
TEST(ViolationPage, ReadableAnswerGivesWindowSessionAndVersionBounds) {
  TopologyConfig window;
  window.kind = TopologyKind::WindowedCount;
  window.window_size_ms = 10'000;
  sim::QueryRecord record;
  record.request.key = 7;
  sim::PartitionOutcome outcome;
  outcome.success = true;
  outcome.value = sim::WindowedList{{0, 100'000, std::nullopt, 2}, {3, 0, 10'000, 1}};
  EXPECT_EQ(readable_answer(window, record, outcome),
            "key 7, window [100000, 110000) ms: 2\nkey 3, window [0, 10000) ms: 1");
  TopologyConfig session;
  session.kind = TopologyKind::SessionCount;
  outcome.value = sim::WindowedList{{1, 55'000, 62'000, 2}};
  EXPECT_EQ(readable_answer(session, record, outcome), "key 1, session [55000, 62000] ms: 2");
  TopologyConfig versioned;
  versioned.kind = TopologyKind::VersionedTable;
  outcome.value = sim::VersionedList{{12, 3'000, std::nullopt}, {15, 2'500, 3'000}};
  EXPECT_EQ(readable_answer(versioned, record, outcome),
            "12, valid from 3000 ms (latest)\n15, valid from 2500 to 3000 ms");
  outcome.value = sim::VersionedList{};
  EXPECT_EQ(readable_answer(versioned, record, outcome), "null (no version)");
  outcome.value = std::optional<int64_t>(5);
  EXPECT_EQ(readable_answer(versioned, record, outcome), "");
}

// The explorer page: a chart per question with its numbers under it, a measure that differs
// between configurations marked (worst and best), one that does not left plain, names escaped.
TEST(ExploreReport, ChartsTablesAndDifferencesMarked) {
  ExploreInput in;
  in.scenario = "t.toml";
  in.title = "t";
  in.first_seed = 1;
  in.seed_count = 2;
  in.shards = {"0/1"};
  in.grid_keys = {"num.standby.replicas"};
  for (int standbys : {0, 1}) {
    ExploreConfiguration c;
    c.name = "num.standby.replicas=" + std::to_string(standbys) + " <&>";
    c.seeds = 2;
    c.outcomes = {{"ok", 90u + 5u * standbys}, {"NOT_UP_TO_BOUND", 10u - 5u * standbys}};
    c.staleness = {{"active", 50, 0, 3, 9, 0, 100, 400}};
    if (standbys == 1) c.staleness.push_back({"standby", 20, 1, 8, 30, 50, 900, 2000});
    c.behaviours = {{"alos_reprocessing", 1}};
    c.cpu_ms_per_seed = 100.0 + standbys;
    in.configurations.push_back(c);
  }
  const auto metrics = explore_metrics(in);
  auto find = [&](const std::string& name) {
    for (const ExploreMetric& m : metrics) {
      if (m.name == name) return m;
    }
    ADD_FAILURE() << "no measure " << name;
    return ExploreMetric{};
  };
  EXPECT_TRUE(find("answered %").differs());
  EXPECT_EQ(find("answered %").values[0], 90.0);
  EXPECT_FALSE(find("answered %").higher_is_worse);
  EXPECT_FALSE(find("active staleness records p90").differs());
  EXPECT_FALSE(find("standby staleness ms p90").values[0].has_value());
  EXPECT_EQ(find("standby staleness ms p90").values[1], 900.0);
  const std::string html = render_explore_report(in);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* part :
       {"id=\"outcomes\"", "id=\"staleness\"", "id=\"differences\"",
        "id=\"chart-explore-outcomes\"", "id=\"chart-explore-staleness-records\"",
        "id=\"chart-explore-staleness-ms\"", "NOT_UP_TO_BOUND: 10 attempts (10.0%)",
        "none (standby p90)", "class=\"num worst\"", "class=\"num best\"",
        "href=\"#about-alos_reprocessing\"", "id=\"about-alos_reprocessing\"",
        "num.standby.replicas=1 &lt;&amp;&gt;"}) {
    EXPECT_NE(html.find(part), std::string::npos) << part;
  }
  // The charts are charts.h's figures, each with its numbers one click away, in the one style
  // sheet every report page has (page.h).
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = html.find(what); at != std::string::npos; at = html.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("<figure class=\"chart\""), 3u);
  EXPECT_EQ(count("<details class=\"numbers\">"), 4u);  // three figures, the full table
  auto style = [](const std::string& page) {
    const size_t at = page.find("<style>");
    return page.substr(at, page.find("</style>") - at);
  };
  EXPECT_EQ(style(html), style(page_head("x")));
  EXPECT_EQ(html.find("<&>"), std::string::npos) << "a name reached the page unescaped";
}

}  // namespace
}  // namespace iq::reports
