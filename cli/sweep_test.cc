// Sweeps: the shard partition, --jobs not changing results, --stop-on-failure keeping the same
// prefix whatever the job count, and errors stopping the sweep.

#include "sweep.h"

#include <gtest/gtest.h>

#include <set>

namespace iq::cli {
namespace {

TEST(SweepTest, ParseShard) {
  auto ok = parse_shard("2/5");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->index, 2);
  EXPECT_EQ(ok->count, 5);
  EXPECT_EQ(ok->to_string(), "2/5");
  for (const char* bad : {"5/5", "-1/3", "1", "a/b", "1/0", "1/2/3", "", "/2", "1/"}) {
    EXPECT_FALSE(parse_shard(bad).has_value()) << bad;
  }
  EXPECT_NE(parse_shard("3/3").error().find("between 0 and N-1"), std::string::npos);
}

// Every seed of the range is in exactly one shard, for several shard counts and ranges.
TEST(SweepTest, ShardsPartitionTheSeeds) {
  for (uint64_t first : {uint64_t{0}, uint64_t{1}, uint64_t{1000}}) {
    for (uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{10}, uint64_t{97}}) {
      for (int32_t n : {1, 2, 3, 8, 200}) {
        std::multiset<uint64_t> seen;
        for (int32_t i = 0; i < n; ++i) {
          for (uint64_t seed : shard_seeds(first, count, {i, n})) {
            EXPECT_EQ((seed - first) % static_cast<uint64_t>(n), static_cast<uint64_t>(i));
            seen.insert(seed);
          }
        }
        ASSERT_EQ(seen.size(), count) << "first " << first << " count " << count << " n " << n;
        for (uint64_t s = first; s < first + count; ++s) {
          EXPECT_EQ(seen.count(s), 1u) << "seed " << s << " shards " << n;
        }
      }
    }
  }
}

SeedRun fake_run() {
  return [](uint64_t seed) -> base::Expected<SeedResult, std::string> {
    SeedResult r;
    r.seed = seed;
    r.passed = seed % 10 != 3;
    r.queries_judged = seed;
    r.digest = std::to_string(seed * 31);
    if (!r.passed) r.violations_by_property["BoundHonored"] = 1;
    return r;
  };
}

std::vector<uint64_t> seeds_of(const SweepOutcome& outcome) {
  std::vector<uint64_t> seeds;
  for (const SeedResult& r : outcome.results) seeds.push_back(r.seed);
  return seeds;
}

TEST(SweepTest, ResultsComeBackInSeedOrderWhateverTheJobs) {
  std::vector<uint64_t> seeds = shard_seeds(1, 60, {0, 1});
  SweepOutcome one = run_sweep(seeds, {.jobs = 1}, fake_run(), nullptr);
  for (int32_t jobs : {2, 4, 7}) {
    SweepOutcome many = run_sweep(seeds, {.jobs = jobs}, fake_run(), nullptr);
    EXPECT_EQ(many.results, one.results) << "jobs " << jobs;
    EXPECT_FALSE(many.stopped_early);
  }
  EXPECT_EQ(seeds_of(one), seeds);
}

TEST(SweepTest, StopOnFailureKeepsTheSamePrefixWhateverTheJobs) {
  std::vector<uint64_t> seeds = shard_seeds(1, 60, {0, 1});
  for (int32_t jobs : {1, 2, 5}) {
    SweepOutcome out =
        run_sweep(seeds, {.jobs = jobs, .stop_on_failure = true}, fake_run(), nullptr);
    EXPECT_TRUE(out.stopped_early) << "jobs " << jobs;
    EXPECT_EQ(seeds_of(out), (std::vector<uint64_t>{1, 2, 3})) << "jobs " << jobs;
  }
}

TEST(SweepTest, AnErrorStopsTheSweepAndNamesTheSeed) {
  SeedRun failing = [](uint64_t seed) -> base::Expected<SeedResult, std::string> {
    if (seed == 4) return base::unexpected("seed 4: bad choice");
    SeedResult r;
    r.seed = seed;
    r.passed = true;
    return r;
  };
  for (int32_t jobs : {1, 3}) {
    SweepOutcome out = run_sweep(shard_seeds(1, 20, {0, 1}), {.jobs = jobs}, failing, nullptr);
    EXPECT_EQ(out.error, "seed 4: bad choice") << "jobs " << jobs;
    EXPECT_EQ(seeds_of(out), (std::vector<uint64_t>{1, 2, 3})) << "jobs " << jobs;
  }
}

TEST(SweepTest, ProgressPrintsAboutTenLinesWhenNotATerminal) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  Progress progress(out, /*live=*/false, 100);
  SweepOutcome outcome = run_sweep(shard_seeds(1, 100, {0, 1}), {.jobs = 1}, fake_run(), &progress);
  EXPECT_EQ(outcome.results.size(), 100u);
  std::rewind(out);
  std::string text;
  for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out)) text += static_cast<char>(c);
  std::fclose(out);
  size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  EXPECT_GE(lines, 10u) << text;
  EXPECT_LE(lines, 11u) << text;
  EXPECT_NE(text.find("100/100 seeds"), std::string::npos) << text;
  EXPECT_NE(text.find("10 violations (10 seeds failed)"), std::string::npos) << text;
  EXPECT_NE(text.find("queries judged/s"), std::string::npos) << text;
}

}  // namespace
}  // namespace iq::cli
