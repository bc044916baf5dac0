// ConstrainedPrioritySet returns the least loaded client that meets its constraints, on top of a
// heap and a HashSet order that behave like Java's. Expected layouts and orders were printed by a
// JVM running java.util.PriorityQueue and java.util.HashSet on the same inputs. Ported in part
// from Kafka's ConstrainedPrioritySetTest.
#include "assignment/constrained_priority_set.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "assignment/assignment_test_utils.h"

namespace iq {
namespace {

using namespace assignment_test;  // NOLINT: test constants

constexpr TaskId kDummyTask{0, 0};

std::string layout(const std::vector<std::pair<int, int>>& heap) {
  std::string out;
  for (const auto& [key, tag] : heap) out += std::to_string(key) + ":" + std::to_string(tag) + " ";
  return out;
}

// Elements with equal keys come out in the order Java's sift rules give, not insertion order.
TEST(AssignmentJavaPriorityQueueTest, keepsJavaHeapLayoutThroughOfferRemoveAndPoll) {
  JavaPriorityQueue<std::pair<int, int>> queue([](const auto& a, const auto& b) {
    return a.first < b.first ? -1 : (a.first > b.first ? 1 : 0);
  });
  for (const auto& e : std::vector<std::pair<int, int>>{
           {5, 0}, {3, 1}, {5, 2}, {1, 3}, {3, 4}, {5, 5}, {1, 6}, {2, 7}}) {
    queue.offer(e);
  }
  EXPECT_EQ(layout(queue.heap_array()), "1:3 2:7 1:6 3:1 3:4 5:5 5:2 5:0 ");
  EXPECT_TRUE(queue.remove({1, 3}));
  EXPECT_FALSE(queue.remove({1, 3}));
  EXPECT_EQ(layout(queue.heap_array()), "1:6 2:7 5:0 3:1 3:4 5:5 5:2 ");
  std::string polled;
  while (!queue.empty()) {
    const auto [key, tag] = queue.poll();
    polled += std::to_string(key) + ":" + std::to_string(tag) + " ";
  }
  EXPECT_EQ(polled, "1:6 2:7 3:1 3:4 5:2 5:0 5:5 ");
}

// HashSet iteration: by bucket of the spread hash code, insertion order within a bucket,
// resizing at 0.75 load and when a bucket of a small table reaches 9 entries.
TEST(AssignmentJavaPriorityQueueTest, reproducesJavaHashSetIterationOrder) {
  std::vector<ProcessId> inserted;
  for (int64_t n = 40; n >= 1; --n) inserted.push_back(ProcessId(0, n * 17));
  std::string order;
  for (const ProcessId& id : java_hash_set_order(inserted)) {
    order += std::to_string(id.least_sig_bits()) + " ";
  }
  EXPECT_EQ(order,
            "578 323 68 646 391 136 459 204 527 272 17 595 340 85 663 408 153 476 221 544 289 34 "
            "612 357 102 680 425 170 493 238 561 306 51 629 374 119 442 187 510 255 ");

  std::vector<ProcessId> colliding;
  for (int64_t n = 1; n <= 10; ++n) colliding.push_back(ProcessId(0, n * 16));
  colliding.push_back(ProcessId(0, 32));  // a duplicate is ignored
  order.clear();
  for (const ProcessId& id : java_hash_set_order(colliding)) {
    order += std::to_string(id.least_sig_bits()) + " ";
  }
  EXPECT_EQ(order, "32 64 96 128 160 16 48 80 112 144 ");
}

// Double.compare: -0.0 below 0.0, NaN above infinity.
TEST(AssignmentJavaPriorityQueueTest, comparesDoublesLikeJava) {
  EXPECT_EQ(java_double_compare(1.0, 2.0), -1);
  EXPECT_EQ(java_double_compare(-0.0, 0.0), -1);
  EXPECT_EQ(java_double_compare(std::nan(""), std::numeric_limits<double>::infinity()), 1);
  EXPECT_EQ(java_double_compare(std::nan(""), std::nan("")), 0);
  EXPECT_EQ(java_double_compare(0.5, 0.5), 0);
}

// The least loaded client comes first, ties go to the smaller ProcessId, and each client is held
// once however often it is offered.
TEST(AssignmentConstrainedPrioritySetTest, shouldReturnLeastLoadedClientOnce) {
  ConstrainedPrioritySet queue([](const ProcessId&, const TaskId&) { return true; },
                               [](const ProcessId& c) {
                                 return c == kPid1 ? 3.0 : c == kPid2 ? 2.0 : 1.0;
                               });
  queue.offer_all(std::vector<ProcessId>{kPid1, kPid2, kPid3});
  queue.offer(kPid1);
  EXPECT_EQ(queue.poll(kDummyTask), kPid3);
  EXPECT_EQ(queue.poll(kDummyTask), kPid2);
  EXPECT_EQ(queue.poll(kDummyTask), kPid1);
  EXPECT_EQ(queue.poll(kDummyTask), std::nullopt);

  ConstrainedPrioritySet ties([](const ProcessId&, const TaskId&) { return true; },
                              [](const ProcessId&) { return 1.0; });
  ties.offer_all(std::vector<ProcessId>{kPid3, kPid1, kPid2});
  EXPECT_EQ(ties.poll(kDummyTask), kPid1);
}

// Clients failing the constraint or the poll filter are skipped but stay available.
TEST(AssignmentConstrainedPrioritySetTest, shouldOnlyReturnValidClientsAndApplyPollFilter) {
  ConstrainedPrioritySet only_pid1([](const ProcessId& c, const TaskId&) { return c == kPid1; },
                                   [](const ProcessId&) { return 1.0; });
  only_pid1.offer_all(std::vector<ProcessId>{kPid1, kPid2});
  EXPECT_EQ(only_pid1.poll(kDummyTask), kPid1);
  EXPECT_EQ(only_pid1.poll(kDummyTask), std::nullopt);

  ConstrainedPrioritySet queue([](const ProcessId&, const TaskId&) { return true; },
                               [](const ProcessId&) { return 1.0; });
  queue.offer_all(std::vector<ProcessId>{kPid1, kPid2});
  const auto is_pid1 = [](const ProcessId& c) { return c == kPid1; };
  EXPECT_EQ(queue.poll(kDummyTask, is_pid1), kPid1);
  EXPECT_EQ(queue.poll(kDummyTask, is_pid1), std::nullopt);
  EXPECT_EQ(queue.poll(kDummyTask), kPid2);
  EXPECT_EQ(queue.poll(kDummyTask), std::nullopt);
}

// A weight read at compare time: re-offering a client whose load changed re-positions it.
TEST(AssignmentConstrainedPrioritySetTest, shouldRepositionAClientWhoseLoadChanged) {
  std::map<ProcessId, double> load{{kPid1, 1.0}, {kPid2, 2.0}, {kPid3, 3.0}};
  ConstrainedPrioritySet queue([](const ProcessId&, const TaskId&) { return true; },
                               [&load](const ProcessId& c) { return load.at(c); });
  queue.offer_all(std::vector<ProcessId>{kPid1, kPid2, kPid3});
  load[kPid3] = 0.5;
  queue.offer(kPid3);
  EXPECT_EQ(queue.poll(kDummyTask), kPid3);
  EXPECT_EQ(queue.poll(kDummyTask), kPid1);
}

// The defaults are StreamsConfig's, and validation words failures as ConfigException does.
TEST(AssignmentConfigsTest, defaultsAndValidationFollowStreamsConfig) {
  const AssignmentConfigs defaults;
  EXPECT_EQ(defaults.acceptable_recovery_lag, 10'000);
  EXPECT_EQ(defaults.max_warmup_replicas, 2);
  EXPECT_EQ(defaults.num_standby_replicas, 0);
  EXPECT_EQ(defaults.probing_rebalance_interval_ms, 600'000);
  EXPECT_EQ(defaults.validate(), std::nullopt);
  AssignmentConfigs bad = defaults;
  bad.max_warmup_replicas = 0;
  EXPECT_EQ(bad.validate(),
            "Invalid value 0 for configuration max.warmup.replicas: Value must be at least 1");
  bad = defaults;
  bad.probing_rebalance_interval_ms = 59'999;
  EXPECT_EQ(bad.validate(),
            "Invalid value 59999 for configuration probing.rebalance.interval.ms: Value must be at "
            "least 60000");
  bad = defaults;
  bad.acceptable_recovery_lag = -1;
  EXPECT_EQ(bad.validate(),
            "Invalid value -1 for configuration acceptable.recovery.lag: Value must be at least 0");
}

}  // namespace
}  // namespace iq
