#include "upgrade.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "commands.h"
#include "explore.h"
#include "input_checks.h"
#include "summary.h"
#include "sweep.h"

namespace iq::cli {

namespace {

using nlohmann::json;

constexpr const char* kOldPin = "2024-10-25";
constexpr const char* kNewPin = "2026-08-20";
// Run pages written per pin (page_seeds).
constexpr size_t kPagesPerPinMax = 20;

json diffs_json(const std::vector<reports::SeedSetDiff>& diffs) {
  json out = json::array();
  for (const reports::SeedSetDiff& d : diffs) {
    out.push_back({{"key", d.key},
                   {"seeds_old", d.seeds_old},
                   {"seeds_new", d.seeds_new},
                   {"old_only", d.old_only},
                   {"new_only", d.new_only}});
  }
  return out;
}

std::set<uint64_t> changed_seeds(const reports::UpgradeInput& in) {
  std::set<uint64_t> out;
  for (const auto& diffs :
       {reports::diff_seed_sets(in.old_pin.seeds_by_class, in.new_pin.seeds_by_class),
        reports::diff_seed_sets(in.old_pin.seeds_by_property, in.new_pin.seeds_by_property)}) {
    for (const reports::SeedSetDiff& d : diffs) {
      out.insert(d.old_only.begin(), d.old_only.end());
      out.insert(d.new_only.begin(), d.new_only.end());
    }
  }
  return out;
}

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

json speed_json(const reports::UpgradePin& p) {
  std::vector<double> events(p.events.begin(), p.events.end());
  std::vector<double> cpu = p.cpu_ms;
  std::sort(cpu.begin(), cpu.end());
  return {{"cpu_ms_per_seed_mean", mean_of(p.cpu_ms)},
          {"cpu_ms_per_seed_median", cpu.empty() ? 0 : cpu[cpu.size() / 2]},
          {"events_per_seed_mean", mean_of(events)}};
}

}  // namespace

std::vector<uint64_t> page_seeds(const reports::UpgradeInput& in) {
  std::set<uint64_t> failing;
  for (const reports::UpgradePin* pin : {&in.old_pin, &in.new_pin}) {
    if (auto it = pin->seeds_by_class.find("failure"); it != pin->seeds_by_class.end()) {
      failing.insert(it->second.begin(), it->second.end());
    }
  }
  std::vector<uint64_t> out(failing.begin(), failing.end());
  for (uint64_t seed : changed_seeds(in)) {
    if (!failing.contains(seed)) out.push_back(seed);
  }
  if (out.size() > kPagesPerPinMax) out.resize(kPagesPerPinMax);
  return out;
}

namespace {

// The run pages of page_seeds under each pin, each run again from that pin's template with its
// trace kept (the sweep keeps none).
std::optional<std::string> write_pages(reports::UpgradeInput& in, const std::string& dir) {
  const std::vector<uint64_t> seeds = page_seeds(in);
  for (reports::UpgradePin* pin : {&in.old_pin, &in.new_pin}) {
    for (uint64_t seed : seeds) {
      auto page = write_run_page(pin->file, seed, dir);
      if (!page) return page.error();
      pin->pages[seed] = *page;
    }
  }
  return std::nullopt;
}

// The text summary: each pin's verdict, what changed, the dirty reads by level, the cost.
void print_upgrade(const reports::UpgradeInput& in) {
  std::printf("iqsim upgrade %s ('%s'): seeds %llu..%llu, each at %s and at %s\n",
              in.scenario.c_str(), in.title.c_str(), static_cast<unsigned long long>(in.first_seed),
              static_cast<unsigned long long>(in.first_seed + in.seed_count - 1), kOldPin, kNewPin);
  for (const reports::UpgradePin* p : {&in.old_pin, &in.new_pin}) {
    const json speed = speed_json(*p);
    std::printf(
        "  %s: %llu seeds, %llu failing; CPU ms per seed %.0f (median %.0f), events per "
        "seed %.0f  (%s)\n",
        p->pin.c_str(), static_cast<unsigned long long>(p->seeds),
        static_cast<unsigned long long>(p->failed), speed["cpu_ms_per_seed_mean"].get<double>(),
        speed["cpu_ms_per_seed_median"].get<double>(), speed["events_per_seed_mean"].get<double>(),
        p->file.c_str());
    if (!p->dirty_reads.empty()) {
      std::printf("    dirty reads: %s\n", dirty_reads_text(p->dirty_reads).c_str());
    }
    for (const char* level : {"READ_COMMITTED", "READ_UNCOMMITTED"}) {
      const std::string l(level);
      auto get = [&](const std::string& k) {
        auto it = p->dirty_reads.find(l + "/" + k);
        return static_cast<unsigned long long>(it == p->dirty_reads.end() ? 0 : it->second);
      };
      if (get("answers") == 0) continue;
      std::printf("    %s: %llu dirty of %llu answers decided (%llu aborted later)\n", level,
                  get("dirty"), get("answers"), get("aborted"));
    }
  }
  std::printf("  seeds whose verdict changed between the pins: %zu\n", changed_seeds(in).size());
  for (const auto& [what, diffs] :
       {std::pair{"class",
                  reports::diff_seed_sets(in.old_pin.seeds_by_class, in.new_pin.seeds_by_class)},
        std::pair{"property", reports::diff_seed_sets(in.old_pin.seeds_by_property,
                                                      in.new_pin.seeds_by_property)}}) {
    for (const reports::SeedSetDiff& d : diffs) {
      if (!d.changed()) continue;
      std::printf("    %s %s: %llu seeds at %s, %llu at %s; only at %s: %zu, only at %s: %zu\n",
                  what, d.key.c_str(), static_cast<unsigned long long>(d.seeds_old), kOldPin,
                  static_cast<unsigned long long>(d.seeds_new), kNewPin, kOldPin, d.old_only.size(),
                  kNewPin, d.new_only.size());
    }
  }
}

// Before any seed: the outputs, and the template read as a scenario.
std::optional<std::string> check_input(const UpgradeArgs& args, const std::string& out_dir) {
  const std::vector<OutputPath> outputs{{"--out", out_dir, OutputKind::kDirectory}};
  if (auto refused = check_outputs(outputs, {args.file})) return refused;
  if (auto refused = check_writable(outputs)) return refused;
  return std::nullopt;
}

}  // namespace

reports::UpgradePin upgrade_pin(const std::string& pin, const std::string& file,
                                const SweepSummary& summary,
                                const std::map<uint64_t, double>& cpu_ms_by_seed) {
  reports::UpgradePin p{pin, file, summary.runs(), summary.failed()};
  for (const SeedResult& r : summary.results) {
    for (const auto& [cls, n] : r.violations_by_class) {
      if (n > 0) p.seeds_by_class[cls].insert(r.seed);
    }
    for (const auto& [property, n] : r.violations_by_property) {
      if (n > 0) p.seeds_by_property[property].insert(r.seed);
    }
    auto& by_guarantee = p.outcomes_by_guarantee[r.processing_guarantee];
    for (const auto& [o, n] : r.query_outcomes) by_guarantee[o] += n;
    for (const auto& [key, n] : r.query_outcomes_by_level) {
      const size_t slash = key.find('/');
      p.outcomes_by_level[key.substr(0, slash)][key.substr(slash + 1)] += n;
    }
    p.events.push_back(r.events);
    auto cpu = cpu_ms_by_seed.find(r.seed);
    if (cpu != cpu_ms_by_seed.end()) p.cpu_ms.push_back(cpu->second);
  }
  p.staleness_by_guarantee = summary.staleness_by_guarantee();
  p.dirty_reads = summary.dirty_reads();
  return p;
}

json upgrade_json(const reports::UpgradeInput& in, const std::vector<ConfigurationSweep>& runs) {
  json pins = json::array();
  size_t k = 0;
  for (const reports::UpgradePin* p : {&in.old_pin, &in.new_pin}) {
    json cpu = json::object();
    for (const auto& [seed, ms] : runs[k].cpu_ms_by_seed) cpu[std::to_string(seed)] = ms;
    pins.push_back({{"pin", p->pin},
                    {"file", p->file},
                    {"summary", to_json(runs[k++].summary)},
                    {"cpu_ms_by_seed", cpu},
                    {"outcomes_by_level", p->outcomes_by_level},
                    {"dirty_reads", p->dirty_reads},
                    {"speed", speed_json(*p)}});
  }
  const std::set<uint64_t> changed = changed_seeds(in);
  return {{"tool", {{"name", kToolName}, {"version", kToolVersion}}},
          {"command", "upgrade"},
          {"scenario", in.scenario},
          {"title", in.title},
          {"seeds", {{"first", in.first_seed}, {"count", in.seed_count}}},
          {"pins", pins},
          {"changed_seeds", std::vector<uint64_t>(changed.begin(), changed.end())},
          {"classes", diffs_json(reports::diff_seed_sets(in.old_pin.seeds_by_class,
                                                         in.new_pin.seeds_by_class))},
          {"properties", diffs_json(reports::diff_seed_sets(in.old_pin.seeds_by_property,
                                                            in.new_pin.seeds_by_property))}};
}

int upgrade_command(const UpgradeArgs& args) {
  const std::string out_dir = !args.out_dir.empty()
                                  ? args.out_dir
                                  : std::filesystem::path(args.file).stem().string() + "-upgrade";
  if (auto refused = check_input(args, out_dir)) {
    print_error(*refused);
    return kExitBadInput;
  }
  const std::string both = fmt::format("['{}', '{}']", kOldPin, kNewPin);
  FixedGridArgs grid{.file = args.file,
                     .place = "configuration.kafka",
                     .values = {fmt::format("'{}'", kOldPin), fmt::format("'{}'", kNewPin)},
                     .origin = "iqsim upgrade: [configuration] kafka",
                     .command = "upgrade",
                     .also_set = {{"configuration.kafka_compared", both}},
                     .first_seed = args.first_seed,
                     .seed_count = args.seeds,
                     .seeds = shard_seeds(args.first_seed, args.seeds, Shard{}),
                     .jobs = args.jobs,
                     .configs_dir = (std::filesystem::path(out_dir) / "configs").string()};
  auto ran = explore_fixed(grid);
  if (!ran) {
    print_error(ran.error());
    return kExitBadInput;
  }
  const auto& c = ran->configurations;
  reports::UpgradeInput in{args.file,
                           ran->title,
                           args.first_seed,
                           args.seeds,
                           upgrade_pin(kOldPin, c[0].file, c[0].summary, c[0].cpu_ms_by_seed),
                           upgrade_pin(kNewPin, c[1].file, c[1].summary, c[1].cpu_ms_by_seed),
                           ran->report};
  print_upgrade(in);
  if (auto failed = write_pages(in, out_dir)) {
    print_error(*failed);
    return kExitBadInput;
  }
  const std::string index = (std::filesystem::path(out_dir) / "index.html").string();
  const std::string json_path = (std::filesystem::path(out_dir) / "upgrade.json").string();
  if (!write_output_file(index, reports::render_upgrade_report(in), "--out") ||
      !write_output_file(json_path, upgrade_json(in, c).dump(2) + "\n", "--out")) {
    return kExitBadInput;
  }
  std::printf("report: %s\nsummary: %s\n", index.c_str(), json_path.c_str());
  return in.old_pin.failed + in.new_pin.failed == 0 ? kExitPassed : kExitFailed;
}

}  // namespace iq::cli
