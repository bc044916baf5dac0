// check_bench: how many query records per second the checker judges (docs/design.md §5, "the
// checker judges far more query results per second than the simulator produces them").
//
// The trace: properties::testing::synthetic_trace(seed 7, 100'000 records): a Count topology over
// 4 partitions and 64 keys with the consistency switch on; each record is one KeyQuery,
// TimestampedKeyQuery, RangeQuery or TimestampedRangeQuery (a quarter each; ranges of 16 keys, 4
// of them on the queried partition), half of them bounded by the client's session position,
// answered by a RUNNING active with the exact position, plus a lag sample every 16 records. It is
// the happy path: checks_test proves every check finds nothing in such a trace, and each
// iteration here stops the benchmark if a violation shows up. The header is test-only; the
// benchmark uses it so that it measures exactly the trace the test validates.
//
// Benchmarks (wall time, UseRealTime):
//   BM_JudgeAll          JudgeContext (model built from the 100k-record source log) + every
//                        check of all_checks(); records_per_s = 100k x iterations / wall time
//   BM_JudgeContext      building the JudgeContext alone
//   BM_Check/<name>      one check over a context built once outside the loop
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace {

using iq::properties::all_checks;
using iq::properties::CheckInfo;
using iq::properties::JudgeContext;

constexpr uint64_t kSeed = 7;
constexpr int64_t kRecords = 100'000;

const iq::sim::RunTrace& trace() {
  static const iq::sim::RunTrace t = iq::properties::testing::synthetic_trace(kSeed, kRecords);
  return t;
}

void set_rate(benchmark::State& state) {
  state.counters["records_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(kRecords),
                         benchmark::Counter::kIsRate);
}

void BM_JudgeAll(benchmark::State& state) {
  const iq::sim::RunTrace& t = trace();
  for (auto _ : state) {
    JudgeContext context(t);
    size_t violations = 0;
    for (const CheckInfo& check : all_checks()) violations += check.run(context).size();
    if (violations != 0) {
      state.SkipWithError("the synthetic trace has violations");
      return;
    }
    benchmark::DoNotOptimize(violations);
  }
  set_rate(state);
  state.SetLabel("seed=" + std::to_string(kSeed) + " records=" + std::to_string(kRecords));
}
BENCHMARK(BM_JudgeAll)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_JudgeContext(benchmark::State& state) {
  const iq::sim::RunTrace& t = trace();
  for (auto _ : state) {
    JudgeContext context(t);
    benchmark::DoNotOptimize(&context.store());
  }
  set_rate(state);
}
BENCHMARK(BM_JudgeContext)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Check(benchmark::State& state, const CheckInfo* check) {
  const JudgeContext context(trace());
  for (auto _ : state) {
    const auto violations = check->run(context);
    if (!violations.empty()) {
      state.SkipWithError("the synthetic trace has violations");
      return;
    }
    benchmark::DoNotOptimize(violations.data());
  }
  set_rate(state);
}

}  // namespace

int main(int argc, char** argv) {
  for (const CheckInfo& check : all_checks()) {
    benchmark::RegisterBenchmark((std::string("BM_Check/") + check.name).c_str(), BM_Check, &check)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
