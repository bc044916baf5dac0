// SubscriptionInfo and AssignmentInfo survive encoding, and malformed input is an error value.
#include <gtest/gtest.h>

#include "processor/assignment_info.h"

namespace iq {
namespace {

// Proves a subscription with offset sums (including LATEST_OFFSET) round-trips.
TEST(AssignmentInfoTest, SubscriptionRoundTrips) {
  SubscriptionInfo s{"process-1", "instance-1:8080", {{{0, 0}, -2}, {{0, 3}, 1234}}};
  auto back = SubscriptionInfo::decode(s.encode());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, s);
}

// Proves an assignment with host maps and an immediate follow-up round-trips.
TEST(AssignmentInfoTest, AssignmentRoundTrips) {
  AssignmentInfo a;
  a.active_tasks = {{0, 1}, {0, 0}};
  a.standby_tasks = {{0, 2}};
  a.partitions = {{"words", 1}, {"words", 0}};
  a.partitions_by_host[{"instance-1", 8080}] = {{"words", 0}, {"words", 1}};
  a.standby_partitions_by_host[{"instance-2", 8080}] = {{"words", 0}};
  a.next_rebalance_ms = 0;
  auto back = AssignmentInfo::decode(a.encode());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, a);
}

// Proves garbage is refused with a message naming the line.
TEST(AssignmentInfoTest, MalformedInputIsAnError) {
  auto s = SubscriptionInfo::decode(Bytes(std::string("process p\ntask 0-1 5\n")));
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message.find("task 0-1 5"), std::string::npos);
  EXPECT_FALSE(SubscriptionInfo::decode(Bytes(std::string("task 0_1 5\n"))).has_value())
      << "no process id";
  EXPECT_FALSE(
      AssignmentInfo::decode(Bytes(std::string("host-active nohost words 0\n"))).has_value());
}

}  // namespace
}  // namespace iq
