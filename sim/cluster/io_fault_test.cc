// IoFaultArm: the Nth matching I/O fails once, only inside the operations of its mask and only of
// its kind, then the arm is spent; the listener hears of the landing with the file and the mask.
#include "cluster/io_fault.h"

#include <gtest/gtest.h>

#include "io/operation_marker.h"

namespace iq::sim {
namespace {

constexpr uint32_t kKeyQuery = static_cast<uint32_t>(iq::Operation::kKeyQuery);
constexpr uint32_t kCommit = static_cast<uint32_t>(iq::Operation::kCommit);

TEST(IoFaultArmTest, FailsTheNthMatchingReadOnceThenIsSpent) {
  IoFaultArm arm;
  std::vector<IoFaultLanding> landed;
  arm.set_on_landed([&](const IoFaultLanding& l) { landed.push_back(l); });
  EXPECT_FALSE(arm.count(IoKind::kRead, "/a", kKeyQuery));  // not armed
  arm.arm({.kind = IoKind::kRead, .n = 2, .during = kKeyQuery});
  EXPECT_TRUE(arm.armed());
  EXPECT_FALSE(arm.count(IoKind::kRead, "/a", kCommit));             // outside a key query
  EXPECT_FALSE(arm.count(IoKind::kWrite, "/a", kKeyQuery));          // a write
  EXPECT_FALSE(arm.count(IoKind::kRead, "/a", 0));                   // nothing in progress
  EXPECT_FALSE(arm.count(IoKind::kRead, "/b", kKeyQuery));           // the first match
  EXPECT_TRUE(arm.count(IoKind::kRead, "/c", kKeyQuery | kCommit));  // the second
  EXPECT_FALSE(arm.armed());
  EXPECT_FALSE(arm.count(IoKind::kRead, "/d", kKeyQuery));  // spent
  ASSERT_EQ(landed.size(), 1u);
  EXPECT_EQ(landed[0].path, "/c");
  EXPECT_EQ(landed[0].to_string(), "read /c (commit+key_query)");
}

TEST(IoFaultArmTest, AnyOperationWhenTheMaskIsEmptyAndDisarmStopsIt) {
  IoFaultArm arm;
  arm.arm({.kind = IoKind::kWrite, .n = 1, .during = 0});
  EXPECT_EQ(IoFaultSpec({.kind = IoKind::kWrite, .n = 1, .during = 0}).to_string(),
            "write 1 during any");
  EXPECT_TRUE(arm.count(IoKind::kWrite, "/x", 0));
  arm.arm({.kind = IoKind::kWrite, .n = 1, .during = 0});
  arm.disarm();
  EXPECT_FALSE(arm.count(IoKind::kWrite, "/x", 0));
}

}  // namespace
}  // namespace iq::sim
