#include "shrink.h"

#include <algorithm>
#include <utility>

#include "base/assert.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_writer.h"

namespace iq::properties {

namespace {

using sim::Scenario;
using sim::TestSpec;

// Bounds every pass: a scenario file never has more of anything than this, and a pass never
// tries more candidates.
constexpr size_t kCandidatesMax = 4'096;
// Produce steps with at most this many records also try dropping records one by one.
constexpr size_t kSingleRecordDropsMax = 8;
// Below this a duration is not halved again: the world needs some time to do anything at all.
constexpr int64_t kDurationMsMin = 100;

// What a candidate must keep: a violation of `property`, and, when the original run had one of
// class failure, one of that class. Otherwise a failure hidden among a property's known Kafka
// behaviours (at-least-once reprocessing beside a wrong answer) would shrink to a scenario that
// shows only the known behaviour, which passes.
struct Target {
  std::string property;
  bool failure_only = false;
};

bool violates(const RunReport& report, const Target& target) {
  auto is = [&](const Violation& v) {
    return v.property == target.property &&
           (!target.failure_only || v.violation_class == ViolationClass::kFailure);
  };
  return std::any_of(report.violations.begin(), report.violations.end(), is) ||
         (!target.failure_only &&
          std::any_of(report.expected_violations.begin(), report.expected_violations.end(), is));
}

// The first property with a violation of class failure, else the first violated at all.
std::string first_violated(const RunReport& report) {
  for (const Violation& v : report.violations) {
    if (v.violation_class == ViolationClass::kFailure) return v.property;
  }
  if (!report.violations.empty()) return report.violations.front().property;
  if (!report.expected_violations.empty()) return report.expected_violations.front().property;
  return {};
}

// Collects candidates, keeping only valid ones, in the order they are offered.
class Candidates {
 public:
  void offer(std::string what, Scenario scenario) {
    if (out_.size() >= kCandidatesMax) return;
    if (!shrink_candidate_valid(scenario)) return;
    out_.push_back({std::move(what), std::move(scenario)});
  }
  std::vector<ShrinkCandidate> take() { return std::move(out_); }

 private:
  std::vector<ShrinkCandidate> out_;
};

std::string test_name(size_t t) {
  return "test " + std::to_string(t);
}

// Instance numbers are 1-based; removing instance n shifts every later number down by one, and
// whatever named n itself goes with it.
enum class Renumber { kKeep, kDrop };
Renumber renumber(int32_t& instance, int32_t removed) {
  if (instance == removed) return Renumber::kDrop;
  if (instance > removed) --instance;
  return Renumber::kKeep;
}

Scenario without_instance(const Scenario& scenario, int32_t removed) {
  Scenario s = scenario;
  s.cluster.instances -= 1;
  for (TestSpec& test : s.tests) {
    std::erase_if(test.workloads, [&](sim::WorkloadSpec& w) {
      auto* fault = std::get_if<sim::FaultWorkloadSpec>(&w);
      if (fault == nullptr || fault->action == sim::FaultAction::kAddInstance) return false;
      return renumber(fault->instance, removed) == Renumber::kDrop;
    });
    std::erase_if(test.steps, [&](sim::Step& step) {
      if (auto* fault = std::get_if<sim::FaultStep>(&step)) {
        if (fault->action == sim::FaultAction::kAddInstance) return false;
        return renumber(fault->instance, removed) == Renumber::kDrop;
      }
      if (auto* query = std::get_if<sim::QueryStep>(&step)) {
        return renumber(query->instance, removed) == Renumber::kDrop;
      }
      return false;
    });
  }
  return s;
}

void offer_structure(const Scenario& scenario, Candidates& out) {
  for (size_t t = 0; scenario.tests.size() > 1 && t < scenario.tests.size(); ++t) {
    Scenario s = scenario;
    s.tests.erase(s.tests.begin() + static_cast<ptrdiff_t>(t));
    out.offer("drop " + test_name(t) + " '" + scenario.tests[t].title + "'", std::move(s));
  }
  // The highest number first: it renumbers nothing.
  for (int32_t n = scenario.cluster.instances; n >= 1 && scenario.cluster.instances > 1; --n) {
    out.offer("drop instance " + std::to_string(n), without_instance(scenario, n));
  }
  for (size_t t = 0; t < scenario.tests.size(); ++t) {
    for (size_t w = 0; w < scenario.tests[t].workloads.size(); ++w) {
      Scenario s = scenario;
      auto& workloads = s.tests[t].workloads;
      workloads.erase(workloads.begin() + static_cast<ptrdiff_t>(w));
      out.offer("drop " + test_name(t) + " workload " + std::to_string(w), std::move(s));
    }
  }
  for (size_t t = 0; t < scenario.tests.size(); ++t) {
    for (size_t i = 0; i < scenario.tests[t].steps.size(); ++i) {
      Scenario s = scenario;
      auto& steps = s.tests[t].steps;
      steps.erase(steps.begin() + static_cast<ptrdiff_t>(i));
      out.offer("drop " + test_name(t) + " step " + std::to_string(i), std::move(s));
    }
  }
}

// Produce steps: the back half of the records, the front half, then single records.
void offer_records(const Scenario& scenario, Candidates& out) {
  for (size_t t = 0; t < scenario.tests.size(); ++t) {
    for (size_t i = 0; i < scenario.tests[t].steps.size(); ++i) {
      const auto* produce = std::get_if<sim::ProduceStep>(&scenario.tests[t].steps[i]);
      if (produce == nullptr || produce->records.size() < 2) continue;
      size_t n = produce->records.size();
      std::string where = test_name(t) + " step " + std::to_string(i);
      auto with = [&](std::vector<sim::ProduceRecordSpec> records) {
        Scenario s = scenario;
        std::get<sim::ProduceStep>(s.tests[t].steps[i]).records = std::move(records);
        return s;
      };
      auto begin = produce->records.begin();
      auto middle = begin + static_cast<ptrdiff_t>(n / 2);
      out.offer("keep the first " + std::to_string(n / 2) + " records of " + where,
                with({begin, middle}));
      out.offer("keep the last " + std::to_string(n - n / 2) + " records of " + where,
                with({middle, produce->records.end()}));
      for (size_t r = 0; n <= kSingleRecordDropsMax && r < n; ++r) {
        std::vector<sim::ProduceRecordSpec> records = produce->records;
        records.erase(records.begin() + static_cast<ptrdiff_t>(r));
        out.offer("drop record " + std::to_string(r) + " of " + where, with(std::move(records)));
      }
    }
  }
}

// Faults: fewer kinds of random fault, no undo, no wipe, fewer down at once, no liveness phase.
void offer_faults(const Scenario& scenario, Candidates& out) {
  if (scenario.liveness.enabled) {
    Scenario s = scenario;
    s.liveness.enabled = false;
    out.offer("no liveness phase", std::move(s));
  }
  for (size_t t = 0; t < scenario.tests.size(); ++t) {
    for (size_t w = 0; w < scenario.tests[t].workloads.size(); ++w) {
      std::string where = test_name(t) + " workload " + std::to_string(w);
      auto edit = [&](const std::string& what, auto&& change) {
        Scenario s = scenario;
        change(s.tests[t].workloads[w]);
        out.offer(what + " in " + where, std::move(s));
      };
      const sim::WorkloadSpec& spec = scenario.tests[t].workloads[w];
      if (const auto* f = std::get_if<sim::FaultWorkloadSpec>(&spec)) {
        if (f->wipe) {
          edit("no wipe", [](auto& x) { std::get<sim::FaultWorkloadSpec>(x).wipe = false; });
        }
        if (f->undo_after_ms) {
          edit("no undo",
               [](auto& x) { std::get<sim::FaultWorkloadSpec>(x).undo_after_ms.reset(); });
        }
      }
      const auto* r = std::get_if<sim::RandomFaultsWorkloadSpec>(&spec);
      if (r == nullptr) continue;
      using RF = sim::RandomFaultsWorkloadSpec;
      const std::pair<const char*, base::Ratio RF::*> odds[] = {{"crash_odds", &RF::crash_odds},
                                                                {"wipe_odds", &RF::wipe_odds},
                                                                {"pause_odds", &RF::pause_odds},
                                                                {"isolate_odds", &RF::isolate_odds},
                                                                {"close_odds", &RF::close_odds}};
      for (const auto& [name, member] : odds) {
        if ((r->*member).num == 0) continue;
        edit(std::string("no ") + name, [m = member](auto& x) {
          (std::get<RF>(x).*m) = base::Ratio{0, 1};
        });
      }
      if (r->max_down > 1) {
        edit("max_down " + std::to_string(r->max_down / 2),
             [](auto& x) { std::get<RF>(x).max_down /= 2; });
      }
      if (r->stop_ms - r->start_ms >= 2 * r->interval_ms) {
        int64_t stop = r->start_ms + (r->stop_ms - r->start_ms) / 2;
        edit("stop_ms " + std::to_string(stop),
             [stop](auto& x) { std::get<RF>(x).stop_ms = stop; });
      }
    }
  }
}

// An earlier stop for a workload whose active span is long enough to halve.
bool halvable_span(int64_t start_ms, int64_t stop_ms) {
  return stop_ms - start_ms >= 2 * kDurationMsMin;
}

void offer_producer(const Scenario& scenario, size_t t, size_t w, Candidates& out) {
  const auto& c = std::get<sim::ProducerWorkloadSpec>(scenario.tests[t].workloads[w]).config;
  std::string where = " in " + test_name(t) + " workload " + std::to_string(w);
  auto edit = [&](const std::string& what, auto&& change) {
    Scenario s = scenario;
    change(std::get<sim::ProducerWorkloadSpec>(s.tests[t].workloads[w]).config);
    out.offer(what + where, std::move(s));
  };
  if (c.records_per_second > 1) {
    edit("records_per_second " + std::to_string(c.records_per_second / 2),
         [](sim::ProducerConfig& x) { x.records_per_second /= 2; });
  }
  if (halvable_span(c.start_ms, c.stop_ms)) {
    int64_t stop = c.start_ms + (c.stop_ms - c.start_ms) / 2;
    edit("stop_ms " + std::to_string(stop), [stop](sim::ProducerConfig& x) { x.stop_ms = stop; });
  }
  if (c.keys > 1) {
    edit("keys " + std::to_string(c.keys / 2), [](sim::ProducerConfig& x) { x.keys /= 2; });
  }
}

void offer_query_clients(const Scenario& scenario, size_t t, size_t w, Candidates& out) {
  const auto& c = std::get<sim::QueryClientsWorkloadSpec>(scenario.tests[t].workloads[w]).config;
  std::string where = " in " + test_name(t) + " workload " + std::to_string(w);
  auto edit = [&](const std::string& what, auto&& change) {
    Scenario s = scenario;
    change(std::get<sim::QueryClientsWorkloadSpec>(s.tests[t].workloads[w]).config);
    out.offer(what + where, std::move(s));
  };
  if (c.clients > 1) {
    edit("clients " + std::to_string(c.clients / 2),
         [](sim::QueryClientConfig& x) { x.clients /= 2; });
  }
  if (halvable_span(c.start_ms, c.stop_ms)) {
    int64_t stop = c.start_ms + (c.stop_ms - c.start_ms) / 2;
    edit("stop_ms " + std::to_string(stop),
         [stop](sim::QueryClientConfig& x) { x.stop_ms = stop; });
  }
  if (c.retry.attempts_max > 1) {
    edit("retry attempts_max 1", [](sim::QueryClientConfig& x) { x.retry.attempts_max = 1; });
  }
  for (size_t m = 0; c.bound_modes.size() > 1 && m < c.bound_modes.size(); ++m) {
    sim::BoundMode mode = c.bound_modes[m];
    edit(std::string("bound_modes [") + sim::to_string(mode) + "]",
         [mode](sim::QueryClientConfig& x) { x.bound_modes = {mode}; });
  }
  if (c.keys > 1) {
    edit("keys " + std::to_string(c.keys / 2), [](sim::QueryClientConfig& x) { x.keys /= 2; });
  }
}

// A shorter test: workloads clamped to the new duration, scheduled faults after it dropped.
Scenario with_duration(const Scenario& scenario, size_t t, int64_t duration_ms) {
  Scenario s = scenario;
  TestSpec& test = s.tests[t];
  test.duration_ms = duration_ms;
  std::erase_if(test.workloads, [&](sim::WorkloadSpec& w) {
    if (auto* p = std::get_if<sim::ProducerWorkloadSpec>(&w)) {
      p->config.stop_ms = std::min(p->config.stop_ms, duration_ms);
      return p->config.start_ms >= duration_ms;
    }
    if (auto* q = std::get_if<sim::QueryClientsWorkloadSpec>(&w)) {
      q->config.stop_ms = std::min(q->config.stop_ms, duration_ms);
      return q->config.start_ms >= duration_ms;
    }
    if (auto* r = std::get_if<sim::RandomFaultsWorkloadSpec>(&w)) {
      r->stop_ms = std::min(r->stop_ms, duration_ms);
      return r->start_ms >= duration_ms;
    }
    return std::get<sim::FaultWorkloadSpec>(w).at_ms >= duration_ms;
  });
  return s;
}

void offer_numbers(const Scenario& scenario, Candidates& out) {
  for (size_t t = 0; t < scenario.tests.size(); ++t) {
    const TestSpec& test = scenario.tests[t];
    if (test.duration_ms >= 2 * kDurationMsMin) {
      out.offer("duration_ms " + std::to_string(test.duration_ms / 2) + " in " + test_name(t),
                with_duration(scenario, t, test.duration_ms / 2));
    }
    for (size_t w = 0; w < test.workloads.size(); ++w) {
      if (std::holds_alternative<sim::ProducerWorkloadSpec>(test.workloads[w])) {
        offer_producer(scenario, t, w, out);
      } else if (std::holds_alternative<sim::QueryClientsWorkloadSpec>(test.workloads[w])) {
        offer_query_clients(scenario, t, w, out);
      }
    }
    for (size_t i = 0; i < test.steps.size(); ++i) {
      const auto* run = std::get_if<sim::RunUntilStep>(&test.steps[i]);
      if (run == nullptr || run->quiescent || run->for_ms < 2 * kDurationMsMin) continue;
      Scenario s = scenario;
      std::get<sim::RunUntilStep>(s.tests[t].steps[i]).for_ms /= 2;
      out.offer("run_until for_ms " + std::to_string(run->for_ms / 2) + " in " + test_name(t) +
                    " step " + std::to_string(i),
                std::move(s));
    }
  }
}

// The largest key a scripted step names (scripted keys may lie outside [0, keys); halving the
// key space must not push one of them out), or -1.
int32_t steps_key_max(const Scenario& scenario) {
  int32_t key_max = -1;
  auto see = [&](const std::optional<int32_t>& k) {
    if (k) key_max = std::max(key_max, *k);
  };
  for (const TestSpec& test : scenario.tests) {
    for (const sim::Step& step : test.steps) {
      if (const auto* produce = std::get_if<sim::ProduceStep>(&step)) {
        for (const sim::ProduceRecordSpec& r : produce->records) see(r.key);
      } else if (const auto* q = std::get_if<sim::QueryStep>(&step)) {
        see(q->key);
        see(q->lower);
        see(q->upper);
      }
    }
  }
  return key_max;
}

// The world itself: fewer standbys and threads, fewer keys and partitions.
void offer_world(const Scenario& scenario, Candidates& out) {
  const auto& streams = scenario.cluster.streams;
  if (streams.assignment.num_standby_replicas > 0) {
    Scenario s = scenario;
    s.cluster.streams.assignment.num_standby_replicas -= 1;
    out.offer("num.standby.replicas " + std::to_string(streams.assignment.num_standby_replicas - 1),
              std::move(s));
  }
  if (streams.num_stream_threads > 1) {
    Scenario s = scenario;
    s.cluster.streams.num_stream_threads -= 1;
    out.offer("num.stream.threads " + std::to_string(streams.num_stream_threads - 1), std::move(s));
  }
  if (scenario.keys > 1 && steps_key_max(scenario) < scenario.keys / 2) {
    Scenario s = scenario;
    s.keys /= 2;
    // Workloads draw keys from their own key count, which never exceeds the scenario's.
    for (TestSpec& test : s.tests) {
      for (sim::WorkloadSpec& w : test.workloads) {
        if (auto* p = std::get_if<sim::ProducerWorkloadSpec>(&w)) {
          p->config.keys = std::min(p->config.keys, s.keys);
        } else if (auto* q = std::get_if<sim::QueryClientsWorkloadSpec>(&w)) {
          q->config.keys = std::min(q->config.keys, s.keys);
        }
      }
    }
    out.offer("keys " + std::to_string(s.keys), std::move(s));
  }
  if (scenario.cluster.topology.source_partitions > 1) {
    Scenario s = scenario;
    s.cluster.topology.source_partitions /= 2;
    out.offer("source_partitions " + std::to_string(s.cluster.topology.source_partitions),
              std::move(s));
  }
}

// ---- validity ----

int32_t instances_max(const Scenario& s) {
  int32_t added = 0;
  for (const TestSpec& test : s.tests) {
    for (const sim::WorkloadSpec& w : test.workloads) {
      const auto* f = std::get_if<sim::FaultWorkloadSpec>(&w);
      if (f != nullptr && f->action == sim::FaultAction::kAddInstance) ++added;
    }
    for (const sim::Step& step : test.steps) {
      const auto* f = std::get_if<sim::FaultStep>(&step);
      if (f != nullptr && f->action == sim::FaultAction::kAddInstance) ++added;
    }
  }
  return s.cluster.instances + added;
}

bool position_in_range(const Position& position, const Scenario& s) {
  for (const auto& [topic, offsets] : position.map()) {
    if (topic != s.cluster.topology.source_topic) continue;
    for (const auto& [partition, offset] : offsets) {
      if (partition >= s.cluster.topology.source_partitions) return false;
    }
  }
  return true;
}

bool query_in_range(const sim::QueryStep& q, const Scenario& s, int32_t instances) {
  int32_t partitions = s.cluster.topology.source_partitions;
  auto partition_ok = [&](int32_t p) { return p >= 0 && p < partitions; };
  if (q.instance < 1 || q.instance > instances) return false;
  if (q.partitions && !std::all_of(q.partitions->begin(), q.partitions->end(), partition_ok)) {
    return false;
  }
  if (q.expect_partitions &&
      !std::all_of(q.expect_partitions->begin(), q.expect_partitions->end(), partition_ok)) {
    return false;
  }
  for (const sim::ExpectedPartition& e : q.expect) {
    if (!partition_ok(e.partition)) return false;
    if (e.position && !position_in_range(*e.position, s)) return false;
  }
  return !q.bound || position_in_range(*q.bound, s);
}

bool step_in_range(const sim::Step& step, const Scenario& s, int32_t instances) {
  if (const auto* produce = std::get_if<sim::ProduceStep>(&step)) {
    return std::all_of(
        produce->records.begin(), produce->records.end(), [&](const sim::ProduceRecordSpec& r) {
          bool partition_ok = !r.partition || (*r.partition >= 0 &&
                                               *r.partition < s.cluster.topology.source_partitions);
          return partition_ok;
        });
  }
  if (const auto* fault = std::get_if<sim::FaultStep>(&step)) {
    return fault->action == sim::FaultAction::kAddInstance ||
           (fault->instance >= 1 && fault->instance <= instances);
  }
  if (const auto* query = std::get_if<sim::QueryStep>(&step)) {
    return query_in_range(*query, s, instances);
  }
  return true;
}

bool workload_in_range(const sim::WorkloadSpec& w, const Scenario& s, int32_t instances) {
  if (const auto* f = std::get_if<sim::FaultWorkloadSpec>(&w)) {
    return f->action == sim::FaultAction::kAddInstance ||
           (f->instance >= 1 && f->instance <= instances);
  }
  if (const auto* p = std::get_if<sim::ProducerWorkloadSpec>(&w)) {
    return p->config.keys >= 1 && p->config.keys <= s.keys;
  }
  if (const auto* q = std::get_if<sim::QueryClientsWorkloadSpec>(&w)) {
    return q->config.keys >= 1 && q->config.keys <= s.keys && q->config.clients >= 1;
  }
  return true;
}

// Runs one candidate, counting it against the budget.
struct Budget {
  const ScenarioRunner& runner;
  int32_t runs_max;
  int32_t runs = 0;
  bool spent() const { return runs >= runs_max; }
  RunReport run(const Scenario& s) {
    IQ_ASSERT(!spent(), "shrink budget of {} runs exceeded", runs_max);
    ++runs;
    return runner(s);
  }
};

// The candidate as `iqsim run` reads it back from the file the shrinker writes: what runs is
// what the user gets. The parser also catches whatever shrink_candidate_valid() does not.
base::Expected<Scenario, std::string> as_written(const Scenario& candidate) {
  auto parsed =
      sim::parse_scenario_text(sim::to_toml(candidate), "<shrink candidate>", candidate.seed);
  if (!parsed) return base::unexpected(parsed.error().to_string());
  Scenario s = std::move(parsed).value();
  s.file = candidate.file;
  return s;
}

std::string verdict(const RunReport& report, const Target& target) {
  const std::string what = target.property + (target.failure_only ? " (a failure)" : "");
  return violates(report, target) ? "still violates " + what + ": kept"
                                  : "no " + what + " violation: rejected";
}

}  // namespace

bool shrink_candidate_valid(const Scenario& s) {
  if (s.cluster.instances < 1 || s.keys < 1 || s.cluster.topology.source_partitions < 1) {
    return false;
  }
  int32_t instances = instances_max(s);
  for (const TestSpec& test : s.tests) {
    for (const sim::WorkloadSpec& w : test.workloads) {
      if (!workload_in_range(w, s, instances)) return false;
    }
    for (const sim::Step& step : test.steps) {
      if (!step_in_range(step, s, instances)) return false;
    }
  }
  return !s.tests.empty();
}

std::vector<ShrinkCandidate> shrink_candidates(const Scenario& scenario) {
  Candidates out;
  offer_structure(scenario, out);
  offer_records(scenario, out);
  offer_faults(scenario, out);
  offer_numbers(scenario, out);
  offer_world(scenario, out);
  return out.take();
}

ShrinkResult shrink_scenario(const Scenario& scenario, const std::string& property,
                             int32_t runs_max) {
  return shrink_scenario(scenario, property, runs_max,
                         [](const Scenario& s) { return run_scenario(s, RunOptions{}); });
}

ShrinkResult shrink_scenario(const Scenario& scenario, const std::string& property,
                             int32_t runs_max, const ScenarioRunner& runner) {
  Budget budget{runner, std::max<int32_t>(runs_max, 1)};
  ShrinkResult result;
  result.minimal = scenario;
  result.report = budget.run(scenario);
  result.property = property.empty() ? first_violated(result.report) : property;
  const Target target{result.property,
                      violates(result.report, Target{result.property, /*failure_only=*/true})};
  result.reproduced = !result.property.empty() && violates(result.report, target);
  if (!result.reproduced) {
    result.log.push_back("run 1: the scenario does not violate " +
                         (result.property.empty() ? std::string("any property") : result.property));
    result.runs = budget.runs;
    return result;
  }
  result.log.push_back("run 1: the scenario violates " + result.property +
                       (target.failure_only ? " (a failure: each candidate must keep one)" : ""));
  // Each pass walks the candidates of the current scenario; a kept candidate replaces it and the
  // walk goes on at the same index of the new list (the earlier ones were just rejected).
  bool progress = true;
  while (progress && !budget.spent()) {
    progress = false;
    std::vector<ShrinkCandidate> candidates = shrink_candidates(result.minimal);
    for (size_t i = 0; i < candidates.size() && !budget.spent();) {
      auto written = as_written(candidates[i].scenario);
      if (!written) {
        result.log.push_back("skipped " + candidates[i].what + ": " + written.error());
        ++i;
        continue;
      }
      RunReport report = budget.run(*written);
      bool kept = violates(report, target);
      result.log.push_back("run " + std::to_string(budget.runs) + ": " + candidates[i].what + ": " +
                           verdict(report, target));
      if (!kept) {
        ++i;
        continue;
      }
      result.minimal = std::move(written).value();
      result.report = std::move(report);
      progress = true;
      candidates = shrink_candidates(result.minimal);
    }
  }
  result.runs = budget.runs;
  result.log.push_back(budget.spent() ? "stopped: the budget of " +
                                            std::to_string(budget.runs_max) + " runs is spent"
                                      : "done: no candidate still violates " + result.property);
  return result;
}

}  // namespace iq::properties
