// sim_bench: how fast the deterministic cluster simulator runs (docs/design.md §5, "many virtual
// seconds per wall second for a standard scenario"; issue 3, "Figures for your note").
//
// The standard scenario: 3 instances, a Count topology over 4 partitions, num.standby.replicas=1,
// commit.interval.ms=100, link delays 1..5 ms. A producer writes 20 records per virtual second
// (2 every 100 ms, 20 keys) until 50 s; instance-1 crashes at 20 s and restarts on its kept disk
// at 30 s (its old session expires at ~65 s, then a rebalance hands its tasks back); the run ends
// at 120 virtual seconds. BM_CrashRestart3x4Standby1Eos runs it under exactly_once_v2. Every
// iteration builds a fresh Cluster from the same seed, so every iteration does exactly the same
// work (checked: the digest must not change between iterations).
//
// Counters (wall time is Google Benchmark's own, UseRealTime):
//   virtual_s_per_wall_s  virtual seconds simulated / elapsed wall seconds (kIsRate over the
//                         iterations' total virtual duration, 120 s each)
//   events_per_s          event-loop events dispatched / elapsed wall seconds (kIsRate)
//   events                events per iteration (the same every iteration)
//   virtual_s_per_cpu_s   virtual seconds simulated / CPU seconds the process used meanwhile
//                         (RocksDB's background flush threads included); unlike the wall rate,
//                         it hardly moves with what else the machine runs
//   events_per_cpu_s      events dispatched / the same CPU seconds
#include <benchmark/benchmark.h>

#include <time.h>  // clock_gettime(CLOCK_PROCESS_CPUTIME_ID)

#include <algorithm>
#include <cstdint>
#include <string>

#include "cluster/cluster.h"

namespace {

using iq::sim::Cluster;
using iq::sim::ClusterConfig;

constexpr int64_t kVirtualDurationMs = 120'000;

ClusterConfig scenario_config(uint64_t seed, iq::ProcessingGuarantee guarantee) {
  ClusterConfig c;
  c.streams.processing_guarantee = guarantee;
  c.seed = seed;
  c.instances = 3;
  c.link = iq::sim::LinkConfig{.delay_ms_min = 1, .delay_ms_max = 5};
  c.streams.application_id = "app";
  c.streams.commit_interval_ms = 100;
  c.streams.assignment.num_standby_replicas = 1;
  c.topology.kind = iq::TopologyKind::Count;
  c.topology.source_topic = "words";
  c.topology.source_partitions = 4;
  c.topology.store_name = "counts";
  return c;
}

void produce_until(Cluster& cluster, int64_t until_ms, int32_t& next_key) {
  while (cluster.now_ms() < until_ms) {
    for (int32_t i = 0; i < 2; ++i) {
      cluster.produce(next_key, 1);
      next_key = next_key % 20 + 1;
    }
    (void)cluster.run_until(std::min(until_ms, cluster.now_ms() + 100));
  }
}

struct ScenarioRun {
  uint64_t events = 0;
  std::string digest;
  size_t errors = 0;
};

// The CPU time this process has used so far, all threads. bench/ only: the simulator never reads a
// clock.
double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

ScenarioRun run_scenario(uint64_t seed, iq::ProcessingGuarantee guarantee) {
  Cluster cluster(scenario_config(seed, guarantee));
  cluster.start_all();
  int32_t next_key = 1;
  produce_until(cluster, 20'000, next_key);
  cluster.instance(1).crash();
  produce_until(cluster, 30'000, next_key);
  cluster.instance(1).restart(/*wipe=*/false);
  produce_until(cluster, 50'000, next_key);
  (void)cluster.run_until(kVirtualDurationMs);
  ScenarioRun out;
  out.events = cluster.loop().events_dispatched();
  out.digest = cluster.digest().hex();
  for (int32_t n = 1; n <= cluster.instance_count(); ++n)
    out.errors += cluster.instance(n).errors().size();
  return out;
}

void run_benchmark(benchmark::State& state, iq::ProcessingGuarantee guarantee) {
  constexpr uint64_t kSeed = 42;
  uint64_t events_total = 0;
  uint64_t events_last = 0;
  std::string digest_first;
  const double cpu_s_start = process_cpu_s();
  for (auto _ : state) {
    const ScenarioRun run = run_scenario(kSeed, guarantee);
    if (run.errors != 0) {
      state.SkipWithError("an instance reported errors");
      return;
    }
    if (digest_first.empty()) digest_first = run.digest;
    if (run.digest != digest_first) {
      state.SkipWithError("the same seed gave different digests");
      return;
    }
    events_total += run.events;
    events_last = run.events;
    benchmark::DoNotOptimize(events_last);
  }
  const double cpu_s = process_cpu_s() - cpu_s_start;
  const double virtual_s =
      static_cast<double>(state.iterations()) * static_cast<double>(kVirtualDurationMs) / 1000.0;
  if (cpu_s > 0) {
    state.counters["virtual_s_per_cpu_s"] = benchmark::Counter(virtual_s / cpu_s);
    state.counters["events_per_cpu_s"] =
        benchmark::Counter(static_cast<double>(events_total) / cpu_s);
  }
  state.counters["virtual_s_per_wall_s"] =
      benchmark::Counter(virtual_s, benchmark::Counter::kIsRate);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events_total), benchmark::Counter::kIsRate);
  state.counters["events"] = benchmark::Counter(static_cast<double>(events_last));
  state.SetLabel("seed=" + std::to_string(kSeed) + " digest=" + digest_first);
}
// The standard scenario under Kafka's default at-least-once.
void BM_CrashRestart3x4Standby1(benchmark::State& state) {
  run_benchmark(state, iq::ProcessingGuarantee::AT_LEAST_ONCE);
}
BENCHMARK(BM_CrashRestart3x4Standby1)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same scenario under exactly_once_v2: a transaction per commit (every 100 ms), read_committed
// consumers, and the crashed instance's tasks wiped and restored from the changelog on restart.
void BM_CrashRestart3x4Standby1Eos(benchmark::State& state) {
  run_benchmark(state, iq::ProcessingGuarantee::EXACTLY_ONCE_V2);
}
BENCHMARK(BM_CrashRestart3x4Standby1Eos)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
