#include "scenario/random_faults.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "base/prng.h"
#include "io/operation_marker.h"

namespace iq::sim {
namespace {

std::string seed_text(uint64_t seed) {
  return "seed " + std::to_string(seed);
}

// Proves the crash-inside draw reaches every crash point's target often, not only the commits'
// flushes and sends: over 12,000 draws each (event kind, operation) entry of the table comes up
// at least 3% of the time, the close and a checkpoint's flush included, and nothing else does.
TEST(RandomFaultsDrawTest, EveryCrashPointTargetIsDrawnOften) {
  constexpr uint64_t kSeed = 11;
  constexpr int kDraws = 12'000;
  base::Prng prng(kSeed);
  std::map<std::pair<CrashInsideAt, uint32_t>, int> seen;
  for (int i = 0; i < kDraws; ++i) {
    const CrashInsideSpec spec = draw_crash_inside(prng, 200);
    ++seen[{spec.at, spec.during}];
  }
  const auto op = [](Operation o) { return static_cast<uint32_t>(o); };
  const std::pair<CrashInsideAt, uint32_t> expected[] = {
      {CrashInsideAt::kDiskOp, op(Operation::kCommit)},
      {CrashInsideAt::kDiskOp, op(Operation::kCheckpointFlush)},
      {CrashInsideAt::kDiskOp, op(Operation::kWritePosition)},
      {CrashInsideAt::kDiskOp, op(Operation::kWriteCheckpoint)},
      {CrashInsideAt::kDiskOp, op(Operation::kStateDirectoryCleaner)},
      {CrashInsideAt::kDiskOp, op(Operation::kClose)},
      {CrashInsideAt::kDiskOp, op(Operation::kRestore)},
      {CrashInsideAt::kDiskOp, 0},
      {CrashInsideAt::kRestorePoll, 0},
      {CrashInsideAt::kSend, 0},
      {CrashInsideAt::kCommit, 0},
  };
  for (const auto& target : expected) {
    EXPECT_GE(seen[target], kDraws * 3 / 100)
        << seed_text(kSeed) << ": " << to_string(target.first) << " during "
        << operation_mask_to_string(target.second);
  }
  EXPECT_EQ(seen.size(), std::size(expected)) << seed_text(kSeed);
  // The checkpoint's flush (a standby's only flush) is the most likely single target.
  const int flush = seen[{CrashInsideAt::kDiskOp, op(Operation::kCheckpointFlush)}];
  for (const auto& [target, count] : seen) {
    EXPECT_LE(count, flush) << seed_text(kSeed) << ": " << to_string(target.first);
  }
}

// Proves the occurrence N is log-uniform and bounded: N = 1 about once per octave count, every
// N within [1, n_max], the top octave (cut at n_max) reached, and inside an operation N never
// passes kCrashInsideDuringNMax.
TEST(RandomFaultsDrawTest, OccurrenceIsLogUniformAndBounded) {
  constexpr uint64_t kSeed = 5;
  base::Prng prng(kSeed);
  constexpr int kDraws = 8'000;
  std::map<uint64_t, int> ones_by_max;
  for (int64_t n_max : {1, 16, 200}) {
    int ones = 0;
    uint64_t most = 0;
    for (int i = 0; i < kDraws; ++i) {
      const uint64_t n = draw_occurrence(prng, n_max);
      ASSERT_GE(n, 1u) << seed_text(kSeed);
      ASSERT_LE(n, static_cast<uint64_t>(n_max)) << seed_text(kSeed);
      ones += n == 1 ? 1 : 0;
      most = std::max(most, n);
    }
    ones_by_max[static_cast<uint64_t>(n_max)] = ones;
    EXPECT_GE(most, static_cast<uint64_t>(n_max) / 2 + 1) << seed_text(kSeed) << " n_max " << n_max;
  }
  EXPECT_EQ(ones_by_max[1], kDraws) << seed_text(kSeed);
  // 16: octaves 1, 2-3, 4-7, 8-15, 16 (one in five); 200: eight octaves (one in eight).
  EXPECT_NEAR(ones_by_max[16], kDraws / 5, kDraws / 25) << seed_text(kSeed);
  EXPECT_NEAR(ones_by_max[200], kDraws / 8, kDraws / 40) << seed_text(kSeed);
  for (int i = 0; i < kDraws; ++i) {
    const CrashInsideSpec spec = draw_crash_inside(prng, 1'000);
    if (spec.during != 0) {
      ASSERT_LE(spec.n, static_cast<uint64_t>(RandomFaults::kCrashInsideDuringNMax))
          << seed_text(kSeed);
    }
  }
}

}  // namespace
}  // namespace iq::sim
