#include "sweep.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "base/assert.h"
#include "input_checks.h"

namespace iq::cli {

namespace {

// The live line is redrawn at most this often.
constexpr int64_t kLiveRedrawNs = 250'000'000;
constexpr int32_t kJobsMax = 256;

int64_t now_ns() {
  // The wall clock, for the progress display only.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string duration_text(double seconds) {
  auto s = static_cast<int64_t>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

}  // namespace

base::Expected<Shard, std::string> parse_shard(std::string_view text) {
  size_t slash = text.find('/');
  std::string bad = "--shard '" + shown(text) + "': ";
  const char* accepted = "; accepted: I/N in decimal digits with 0 <= I < N <= 1000000, e.g. 0/4";
  if (slash == std::string_view::npos) {
    return base::unexpected(bad + "expected I/N" + accepted);
  }
  auto index = parse_decimal("I", text.substr(0, slash), 0, UINT64_MAX);
  auto count = parse_decimal("N", text.substr(slash + 1), 0, UINT64_MAX);
  if (!index || !count) return base::unexpected(bad + "expected two integers I/N" + accepted);
  if (*count < 1 || *count > 1'000'000) {
    return base::unexpected(bad + "N must be between 1 and 1000000" + accepted);
  }
  if (*index >= *count) {
    return base::unexpected(bad + "I must be between 0 and N-1 (shards are numbered from 0)" +
                            accepted);
  }
  return Shard{static_cast<int32_t>(*index), static_cast<int32_t>(*count)};
}

std::vector<uint64_t> shard_seeds(uint64_t first, uint64_t count, const Shard& shard) {
  IQ_ASSERT(shard.count >= 1 && shard.index >= 0 && shard.index < shard.count);
  std::vector<uint64_t> seeds;
  auto n = static_cast<uint64_t>(shard.count);
  for (auto i = static_cast<uint64_t>(shard.index); i < count; i += n) seeds.push_back(first + i);
  return seeds;
}

Progress::Progress(std::FILE* out, bool live, uint64_t total)
    : out_(out), live_(live), total_(total), start_ns_(now_ns()) {}

double Progress::elapsed_seconds() const {
  return static_cast<double>(now_ns() - start_ns_) / 1e9;
}

void Progress::update(uint64_t done, uint64_t queries_judged, uint64_t violations,
                      uint64_t failed) {
  int64_t now = now_ns();
  if (live_) {
    if (done < total_ && now - last_print_ns_ < kLiveRedrawNs) return;
  } else {
    if (done < next_line_at_ && done < total_) return;
    // A line per tenth of the sweep (at least one seed apart).
    next_line_at_ = done + std::max<uint64_t>(1, total_ / 10);
  }
  last_print_ns_ = now;
  double seconds = std::max(static_cast<double>(now - start_ns_) / 1e9, 1e-9);
  double seeds_per_second = static_cast<double>(done) / seconds;
  std::string left =
      done == 0
          ? std::string("?")
          : duration_text(static_cast<double>(total_ - done) / std::max(seeds_per_second, 1e-9));
  std::string line = fmt::format(
      "{}/{} seeds, {:.1f} seeds/s, {:.0f} queries judged/s, {} violations ({} seeds failed), "
      "{} left",
      done, total_, seeds_per_second, static_cast<double>(queries_judged) / seconds, violations,
      failed, left);
  if (live_) {
    // \r and clear-to-end-of-line: the line is redrawn in place.
    std::fprintf(out_, "\r%s\x1b[K", line.c_str());
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
  printed_ = true;
}

void Progress::finish() {
  if (live_ && printed_) {
    std::fprintf(out_, "\n");
    std::fflush(out_);
  }
}

SweepOutcome run_sweep(const std::vector<uint64_t>& seeds, const SweepOptions& options,
                       const SeedRun& run, Progress* progress) {
  IQ_ASSERT(options.jobs >= 1 && options.jobs <= kJobsMax, "jobs {}", options.jobs);
  int64_t start = now_ns();
  std::vector<std::optional<SeedResult>> slots(seeds.size());
  std::mutex mu;
  size_t next = 0;                // the next seed index to hand out
  size_t stop_at = seeds.size();  // no index at or after it is handed out
  size_t error_at = seeds.size();
  std::string error;
  auto stopped = [&] { return options.stop != nullptr && options.stop->load(); };
  uint64_t done = 0, queries = 0, violations = 0, failed = 0;

  auto worker = [&] {
    for (;;) {
      size_t i = 0;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (next >= stop_at || stopped()) return;
        i = next++;
      }
      base::Expected<SeedResult, std::string> result = run(seeds[i]);
      std::lock_guard<std::mutex> lock(mu);
      // A seed cut short by the stop (its child killed) did not finish: it is left out.
      if (!result && stopped()) continue;
      if (result && options.on_result) {
        if (std::optional<std::string> refused = options.on_result(*result)) {
          result = base::unexpected(std::move(*refused));
        }
      }
      if (!result) {
        if (i < error_at) {
          error_at = i;
          error = result.error();
        }
        stop_at = std::min(stop_at, i);
        continue;
      }
      ++done;
      queries += result->queries_judged;
      for (const auto& [_, n] : result->violations_by_property) violations += n;
      if (!result->passed) {
        ++failed;
        // Every seed before this one was handed out already and will finish: the kept prefix
        // is the same for any job count.
        if (options.stop_on_failure) stop_at = std::min(stop_at, i + 1);
      }
      slots[i] = std::move(*result);
      if (progress != nullptr) progress->update(done, queries, violations, failed);
    }
  };

  auto threads_n = static_cast<size_t>(options.jobs);
  if (threads_n <= 1 || seeds.size() <= 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    for (size_t t = 0; t < std::min(threads_n, seeds.size()); ++t) threads.emplace_back(worker);
    for (std::thread& t : threads) t.join();
  }
  if (progress != nullptr) progress->finish();

  SweepOutcome outcome;
  outcome.error = error;
  outcome.interrupted = stopped() && done < stop_at;
  outcome.stopped_early = error.empty() && !outcome.interrupted && stop_at < seeds.size();
  if (outcome.interrupted) {
    for (std::optional<SeedResult>& slot : slots) {
      if (slot) outcome.results.push_back(std::move(*slot));
    }
    outcome.wall_seconds = static_cast<double>(now_ns() - start) / 1e9;
    return outcome;
  }
  for (size_t i = 0; i < stop_at; ++i) {
    IQ_ASSERT(slots[i].has_value() || !error.empty(), "seed index {} never ran", i);
    if (slots[i]) outcome.results.push_back(std::move(*slots[i]));
  }
  outcome.wall_seconds = static_cast<double>(now_ns() - start) / 1e9;
  return outcome;
}

}  // namespace iq::cli
