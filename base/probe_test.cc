// Proves that probes register before they are reached, record hits only into the innermost
// ProbeScope of the run, and never leak hits from one run into the next.
#include <gtest/gtest.h>

#include "base/probe.h"

namespace {

using iq::base::ProbeHits;
using iq::base::ProbeRegistry;
using iq::base::ProbeScope;

void reached() { IQ_PROBE("test.reached", "a probe the tests reach"); }
void never_called() { IQ_PROBE("test.never_reached", "a probe no test reaches"); }
void reached_twice_a() { IQ_PROBE("test.shared", "one probe at two sites"); }
void reached_twice_b() { IQ_PROBE("test.shared", "one probe at two sites"); }

bool registered(std::string_view name) {
  for (const auto& p : ProbeRegistry::all()) {
    if (p.name == name) return true;
  }
  return false;
}

}  // namespace

TEST(Probe, RegisteredBeforeReached) {
  EXPECT_TRUE(registered("test.never_reached"));
  EXPECT_TRUE(registered("test.reached"));
  auto all = ProbeRegistry::all();
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(),
                             [](const auto& a, const auto& b) { return a.name < b.name; }));
  (void)&never_called;
}

TEST(Probe, HitsGoToTheInnermostScopeOnly) {
  ProbeHits outer;
  ProbeHits inner;
  reached();  // no scope: dropped
  {
    ProbeScope a(outer);
    reached_twice_a();
    {
      ProbeScope b(inner);
      reached();
    }
    reached_twice_b();
  }
  reached();  // no scope again
  EXPECT_EQ(outer.names(), std::vector<std::string>{"test.shared"});
  EXPECT_EQ(inner.names(), std::vector<std::string>{"test.reached"});
  EXPECT_TRUE(inner.hit("test.reached"));
  EXPECT_FALSE(inner.hit("test.never_reached"));
}

TEST(Probe, ASecondRunStartsEmpty) {
  ProbeHits first;
  {
    ProbeScope s(first);
    reached();
  }
  ProbeHits second;
  { ProbeScope s(second); }
  EXPECT_EQ(first.names(), std::vector<std::string>{"test.reached"});
  EXPECT_TRUE(second.names().empty());
}

TEST(Probe, SameNameOtherDescriptionIsAProgrammerError) {
  EXPECT_DEATH(ProbeRegistry::add({"test.reached", "another description"}),
               "probe 'test.reached' declared twice");
}
