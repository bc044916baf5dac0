#pragma once
// RatioReporter: Google Benchmark's console output, followed by a table of ratios between pairs of
// benchmarks run in the same process (a query through the store stack against the raw operation
// under it). Ratios of two figures from one run are what carry over between machines and loads
// (bench/README.md); printing them saves the reader the arithmetic and the chance of pairing the
// wrong rows.
//
// For each benchmark it keeps the median aggregate when repetitions were asked for
// (--benchmark_repetitions), otherwise the mean over its plain runs, of both the wall time and the
// CPU time per iteration. A pair whose side did not run (filtered out, or stopped with an error)
// prints "n/a". Nothing here times anything itself.

#include <benchmark/benchmark.h>
#include <unistd.h>  // isatty

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace iq::bench {

struct RatioPair {
  std::string label;      // what the ratio means, e.g. "KeyQuery RocksDB cache cold / Get"
  std::string numerator;  // benchmark names, as printed
  std::string denominator;
  double goal_max = 0;  // the ratio the project aims at (issue 14); 0: none
};

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  // Colour only on a terminal, as the library's own default (--benchmark_color=auto) does: a
  // file of results stays plain text.
  explicit RatioReporter(std::vector<RatioPair> pairs)
      : ConsoleReporter(isatty(fileno(stdout)) ? OO_Color : OO_None), pairs_(std::move(pairs)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      Figures& f = figures_[run.run_name.str()];
      if (run.run_type == Run::RT_Aggregate) {
        if (run.aggregate_name == "median") {
          f.median_real = run.GetAdjustedRealTime();
          f.median_cpu = run.GetAdjustedCPUTime();
          f.has_median = true;
        }
      } else {
        f.sum_real += run.GetAdjustedRealTime();
        f.sum_cpu += run.GetAdjustedCPUTime();
        ++f.runs;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::FILE* out = stdout;
    std::fprintf(out, "\nRatios, measured side by side in this run (wall, CPU; goal):\n");
    for (const RatioPair& p : pairs_) {
      const auto num = figures_.find(p.numerator);
      const auto den = figures_.find(p.denominator);
      if (num == figures_.end() || den == figures_.end() || !num->second.usable() ||
          !den->second.usable()) {
        std::fprintf(out, "  %-52s n/a\n", p.label.c_str());
        continue;
      }
      const auto [nr, nc] = num->second.times();
      const auto [dr, dc] = den->second.times();
      std::fprintf(out, "  %-52s %6.2fx wall  %6.2fx CPU", p.label.c_str(), nr / dr, nc / dc);
      if (p.goal_max > 0) std::fprintf(out, "  (goal <= %.2fx)", p.goal_max);
      std::fprintf(out, "\n");
    }
    std::fflush(out);
  }

 private:
  struct Figures {
    double median_real = 0;
    double median_cpu = 0;
    bool has_median = false;
    double sum_real = 0;
    double sum_cpu = 0;
    int runs = 0;
    bool usable() const { return has_median || runs > 0; }
    // (wall, CPU) per iteration: the median if there is one, else the mean of the plain runs.
    std::pair<double, double> times() const {
      if (has_median) return {median_real, median_cpu};
      return {sum_real / runs, sum_cpu / runs};
    }
  };

  std::vector<RatioPair> pairs_;
  std::map<std::string, Figures> figures_;
};

}  // namespace iq::bench
