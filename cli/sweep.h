#pragma once
// A seed sweep (`iqsim fuzz`): the seeds of one shard, run on J worker threads, with a progress
// line on stderr.
//
//   auto shard = parse_shard("1/4");            // the second of four shards
//   std::vector<uint64_t> seeds = shard_seeds(1, 1000, *shard);
//   SweepOutcome out = run_sweep(seeds, {.jobs = 2}, run_one_seed, progress);
//
// Threads are safe here because a run shares nothing mutable with another: impl/, sim/, model/
// and the checks keep no mutable globals (checked by grepping the sources for static and
// namespace-scope state, and with `nm` on the static libraries: their only data symbols are const
// tables, function-local const statics and Boost.Asio's per-thread call stack), each run builds
// its own event loop, PRNG, disks and RocksDB environments, and RocksDB's own background threads
// serve several databases by design. cli_test checks that --jobs 1 and --jobs 2 give identical
// per-seed results, digests included. Results come back in seed order whatever the job count, so a
// sweep's summary does not depend on --jobs.

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"
#include "summary.h"

namespace iq::cli {

struct Shard {
  int32_t index = 0;  // 0-based
  int32_t count = 1;
  std::string to_string() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// "I/N" with 0 <= I < N <= 1000000, both decimal digits only.
base::Expected<Shard, std::string> parse_shard(std::string_view text);

// The seeds of [first, first + count) whose index (seed - first) is index mod shard.count: every
// seed belongs to exactly one shard, and each shard's seeds spread over the whole range.
std::vector<uint64_t> shard_seeds(uint64_t first, uint64_t count, const Shard& shard);

struct SweepOptions {
  int32_t jobs = 1;
  // Stop dispatching seeds after a failure. The summary then holds every seed up to the first
  // failing one (in seed order) and nothing after it, whatever the job count.
  bool stop_on_failure = false;
  // Called for each finished seed, in the order seeds finish, one at a time, before the seed
  // counts as done (the journal is written here). An error stops the sweep like a seed error.
  std::function<std::optional<std::string>(const SeedResult&)> on_result = {};
  // Set (by a signal handler) to stop handing out seeds. A seed whose run then fails to finish
  // (its child was killed) is left out, not reported as an error.
  const std::atomic<bool>* stop = nullptr;
};

// One seed's run: its result, or a message saying why the seed could not be run at all (a
// scenario whose seeded choices do not validate).
using SeedRun = std::function<base::Expected<SeedResult, std::string>(uint64_t seed)>;

// Progress display: a live line on a terminal, otherwise a line per tenth of the sweep. Wall
// clock is read here for the display only; nothing it measures reaches a run.
class Progress {
 public:
  Progress(std::FILE* out, bool live, uint64_t total);
  void update(uint64_t done, uint64_t queries_judged, uint64_t violations, uint64_t failed);
  void finish();
  double elapsed_seconds() const;

 private:
  std::FILE* out_;
  bool live_;
  uint64_t total_;
  uint64_t next_line_at_ = 0;  // !live_: the next `done` count that prints a line
  int64_t start_ns_;
  int64_t last_print_ns_ = 0;
  bool printed_ = false;
};

struct SweepOutcome {
  // Seed order. After an interruption: every seed that finished, whatever gaps lie between.
  std::vector<SeedResult> results;
  bool interrupted = false;  // options.stop was set before every seed finished
  bool stopped_early = false;
  std::string error;  // set if a seed could not be run; results are then partial
  double wall_seconds = 0;
};

// `progress` may be null.
SweepOutcome run_sweep(const std::vector<uint64_t>& seeds, const SweepOptions& options,
                       const SeedRun& run, Progress* progress);

}  // namespace iq::cli
