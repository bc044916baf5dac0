// Deterministic: two traces of one seed compare equal, or the first difference is reported.

#include <gtest/gtest.h>

#include "checks/check.h"
#include "checks/test_trace.h"

namespace iq::properties {
namespace {

using testing::kSeed;
using testing::pos;
using testing::TraceBuilder;

TraceBuilder run(int64_t value_of_second = 2) {
  TraceBuilder b;
  b.produce(0, 1, 1);
  b.add(b.key_query(0, 1).ok(1, pos(0, 0)));
  b.add(b.key_query(0, 1).ok(value_of_second, pos(0, 0)));
  b.add(b.key_query(0, 1).ok(3, pos(0, 0)));
  b.trace().digest = "abc";
  b.trace().events = 1'000;
  b.trace().end_ms = testing::instant(5'000);
  return b;
}

TEST(DeterministicTest, IdenticalRunsPass) {
  TraceBuilder a = run();
  TraceBuilder b = run();
  EXPECT_TRUE(check_deterministic(a.trace(), b.trace()).empty()) << "seed " << kSeed;
  EXPECT_TRUE(check_deterministic(a.trace(), a.trace()).empty()) << "seed " << kSeed;
}

TEST(DeterministicTest, ADifferentDigestFails) {
  TraceBuilder a = run();
  TraceBuilder b = run();
  b.trace().digest = "abd";
  auto vs = check_deterministic(a.trace(), b.trace());
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].expected, "digest=abc events=1000 end_ms=5000 history=3 records")
      << "seed " << kSeed;
  b.trace().digest = "abc";
  b.trace().events = 999;
  EXPECT_EQ(check_deterministic(a.trace(), b.trace()).size(), 1u) << "seed " << kSeed;
}

TEST(DeterministicTest, TheFirstDifferingHistoryRecordIsReported) {
  TraceBuilder a = run();
  TraceBuilder b = run(7);
  auto vs = check_deterministic(a.trace(), b.trace());
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].record_id, 2u) << "seed " << kSeed;
  EXPECT_NE(vs[0].expected.find("ok value=2"), std::string::npos) << vs[0].expected;
  EXPECT_NE(vs[0].returned.find("ok value=7"), std::string::npos) << vs[0].returned;

  TraceBuilder longer = run();
  longer.add(longer.key_query(0, 1).ok(4, pos(0, 0)));
  vs = check_deterministic(a.trace(), longer.trace());
  ASSERT_EQ(vs.size(), 1u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].record_id, 4u) << "seed " << kSeed;
  EXPECT_EQ(vs[0].expected, "no record") << "seed " << kSeed;
}

}  // namespace
}  // namespace iq::properties
