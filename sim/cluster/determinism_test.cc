// Determinism of whole-cluster runs: several scenarios with crashes, restarts and rebalances give
// the same digest for the same seed and another digest for another seed; a trace comparison names
// the first event where two runs part.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "cluster/cluster_test_utils.h"

namespace iq::sim {
namespace {

// One dispatched event as the trace keeps it.
struct TracedEvent {
  int64_t at_ms = 0;
  uint64_t seq = 0;
  std::string label;
  friend bool operator==(const TracedEvent&, const TracedEvent&) = default;
};

std::string event_text(const TracedEvent& e) {
  return "(t=" + std::to_string(e.at_ms) + " ms, seq=" + std::to_string(e.seq) + ", " + e.label +
         ")";
}

// The first index at which two traces differ, with both records; nullopt when equal. A trace
// that is a prefix of the other differs at the end of the shorter one.
std::optional<std::string> first_difference(const std::vector<TracedEvent>& a,
                                            const std::vector<TracedEvent>& b,
                                            const std::string& a_name, const std::string& b_name) {
  const size_t common = std::min(a.size(), b.size());
  for (size_t i = 0; i < common; ++i) {
    if (a[i] == b[i]) continue;
    return "first differing event #" + std::to_string(i) + ": " + a_name + " " + event_text(a[i]) +
           " vs " + b_name + " " + event_text(b[i]);
  }
  if (a.size() == b.size()) return std::nullopt;
  const bool a_shorter = a.size() < b.size();
  return "first differing event #" + std::to_string(common) + ": " + (a_shorter ? a_name : b_name) +
         " ended, " + (a_shorter ? b_name : a_name) + " has " +
         event_text(a_shorter ? b[common] : a[common]);
}

// The shared Count configuration, with link delays drawn from the seed.
ClusterConfig delayed_count_config(uint64_t seed, int32_t instances, int32_t partitions) {
  ClusterConfig c = testing_utils::count_config(seed, instances, partitions);
  c.link = LinkConfig{.delay_ms_min = 1, .delay_ms_max = 20};
  return c;
}
void produce_steadily(Cluster& cluster, int64_t until_ms, int32_t keys, int32_t& next_key) {
  while (cluster.now_ms() < until_ms) {
    for (int32_t i = 0; i < 2; ++i) {
      cluster.produce(next_key, 1);
      next_key = next_key % keys + 1;
    }
    (void)cluster.run_until(std::min(until_ms, cluster.now_ms() + 100));
  }
}

// A scenario drives a cluster built from a seed; the result is the run's digest.
using Scenario = std::function<void(Cluster&)>;

// 3 instances, 1 standby: instance-1 crashes at 10 s and restarts on its kept disk at 15 s.
void crash_and_restart(Cluster& cluster) {
  int32_t next_key = 1;
  produce_steadily(cluster, 10'000, 12, next_key);
  cluster.instance(1).crash();
  produce_steadily(cluster, 15'000, 12, next_key);
  cluster.instance(1).restart(/*wipe=*/false);
  produce_steadily(cluster, 25'000, 12, next_key);
  (void)cluster.run_until(70'000);
}

// 1 instance with state, then 2 more join (warmups, a probing rebalance at 60 s).
void scale_out(Cluster& cluster) {
  for (int32_t k = 0; k < 2'000; ++k) cluster.produce(k, 1);
  (void)cluster.run_until(5'000);
  cluster.add_instance().start();
  cluster.add_instance().start();
  (void)cluster.run_until(80'000);
}

// 2 instances, 1 standby: instance-2 crashes and restarts on a wiped disk.
void wiped_restart(Cluster& cluster) {
  int32_t next_key = 1;
  produce_steadily(cluster, 8'000, 8, next_key);
  cluster.instance(2).crash();
  produce_steadily(cluster, 12'000, 8, next_key);
  cluster.instance(2).restart(/*wipe=*/true);
  (void)cluster.run_until(65'000);
}

struct NamedScenario {
  const char* name;
  int32_t instances;
  int64_t acceptable_recovery_lag;
  Scenario run;
};

std::vector<NamedScenario> scenarios() {
  return {
      {"crash_and_restart", 3, AssignmentConfigs::kDefaultAcceptableRecoveryLag, crash_and_restart},
      {"scale_out", 1, 100, scale_out},
      {"wiped_restart", 2, AssignmentConfigs::kDefaultAcceptableRecoveryLag, wiped_restart},
  };
}

struct RunOutput {
  std::string digest;
  uint64_t events = 0;
  std::vector<TracedEvent> trace;
};

RunOutput run_scenario(const NamedScenario& s, uint64_t seed, bool record_trace) {
  ClusterConfig config = delayed_count_config(seed, s.instances, 4);
  config.streams.assignment.num_standby_replicas = 1;
  config.streams.assignment.acceptable_recovery_lag = s.acceptable_recovery_lag;
  config.streams.assignment.probing_rebalance_interval_ms = 60'000;
  RunOutput out;
  Cluster cluster(config);
  if (record_trace) {
    cluster.loop().on_event([&out](const EventRecord& e) {
      out.trace.push_back({e.at.ms_since_epoch(), e.seq, std::string(e.label)});
    });
  }
  cluster.start_all();
  s.run(cluster);
  out.digest = cluster.digest().hex();
  out.events = cluster.loop().events_dispatched();
  for (int32_t n = 1; n <= cluster.instance_count(); ++n) {
    const auto& errors = cluster.instance(n).errors();
    EXPECT_TRUE(errors.empty()) << s.name << " seed=" << seed << " instance-" << n << ": "
                                << (errors.empty() ? "" : errors.front());
  }
  return out;
}

// Proves every scenario (crash and restart, scale-out with warmups, wiped restart) gives the same
// digest and the same event trace for the same seed; on a mismatch it names the first event.
TEST(DeterminismTest, SameSeedSameDigestForEveryScenario) {
  constexpr uint64_t kSeed = 201;
  for (const NamedScenario& s : scenarios()) {
    const RunOutput a = run_scenario(s, kSeed, true);
    const RunOutput b = run_scenario(s, kSeed, true);
    // Since the loop waits in poll (no 10 ms ticks) these runs take 2 500 to 5 500 events.
    EXPECT_GT(a.events, 2'000u) << s.name << " seed=" << kSeed << ": suspiciously few events";
    EXPECT_EQ(a.digest, b.digest) << s.name << " seed=" << kSeed << " ran twice: "
                                  << first_difference(a.trace, b.trace, "run 1", "run 2")
                                         .value_or("traces equal, digests not");
  }
}

// Proves another seed gives another run: with link delays drawn from 1..20 ms the digests of
// seeds 201 and 202 differ in every scenario.
TEST(DeterminismTest, OtherSeedOtherDigestForEveryScenario) {
  for (const NamedScenario& s : scenarios()) {
    const RunOutput a = run_scenario(s, 201, false);
    const RunOutput b = run_scenario(s, 202, false);
    EXPECT_NE(a.digest, b.digest) << s.name << " seeds 201 and 202 gave the same digest";
  }
}

// Proves the trace comparison finds and describes the first differing event: two seeds of the
// crash scenario part at some event, and the message names its index and both records.
TEST(DeterminismTest, TraceComparisonReportsFirstDifferingEvent) {
  const NamedScenario s = scenarios().front();
  const RunOutput a = run_scenario(s, 201, true);
  const RunOutput b = run_scenario(s, 202, true);
  const auto diff = first_difference(a.trace, b.trace, "seed=201", "seed=202");
  ASSERT_TRUE(diff.has_value()) << "seeds 201 and 202 gave identical traces";
  // Find the index independently and check the message names it and both records.
  size_t index = 0;
  while (index < a.trace.size() && index < b.trace.size() && a.trace[index] == b.trace[index])
    ++index;
  ASSERT_LT(index, std::min(a.trace.size(), b.trace.size()));
  EXPECT_NE(diff->find("#" + std::to_string(index) + ":"), std::string::npos) << *diff;
  EXPECT_NE(diff->find("seed=201 " + event_text(a.trace[index])), std::string::npos) << *diff;
  EXPECT_NE(diff->find("seed=202 " + event_text(b.trace[index])), std::string::npos) << *diff;
  // Equal traces have no difference, and a truncated trace differs where it ends.
  EXPECT_EQ(first_difference(a.trace, a.trace, "x", "y"), std::nullopt);
  std::vector<TracedEvent> prefix(a.trace.begin(), a.trace.begin() + 5);
  EXPECT_EQ(first_difference(prefix, a.trace, "short", "full"),
            "first differing event #5: short ended, full has " + event_text(a.trace[5]));
  RecordProperty("first_difference", *diff);
}

}  // namespace
}  // namespace iq::sim
