// LabelDigests must give exactly Digest::add(label) from every state: the digest of every run
// depends on it. Checked against Digest itself over many states, repeated labels (the cached path),
// more labels than the table holds (replacements), and labels of every length class.
#include "event_loop/label_digest.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/prng.h"

namespace iq::sim {
namespace {

TEST(LabelDigests, EqualsDigestAddFromAnyState) {
  std::vector<std::string> labels = {"",
                                     "a",
                                     "broker:group-tick",
                                     "net:instance-1->broker:consumer:fetch",
                                     "net:broker->instance-1:consumer:fetch-response",
                                     std::string(200, 'x')};
  for (int i = 0; i < 1'500; ++i) labels.push_back("label-" + std::to_string(i));  // > 2 * 256
  base::Prng prng(7);
  LabelDigests cached;
  base::Digest expected;
  base::Digest actual;
  for (int round = 0; round < 20'000; ++round) {
    // Mostly a few hot labels (the cache's hits), sometimes any (its misses and replacements).
    const size_t pick =
        prng.chance(base::Ratio{3, 4})
            ? static_cast<size_t>(prng.range_inclusive(0, 5))
            : static_cast<size_t>(prng.range_inclusive(0, static_cast<int64_t>(labels.size()) - 1));
    expected.add(labels[pick]);
    cached.add(actual, labels[pick]);
    ASSERT_EQ(actual.value(), expected.value()) << "round " << round << " label " << pick;
    // Move the state on between labels, as the event's time and sequence number do.
    const int64_t v = prng.range_inclusive(0, 1'000'000);
    expected.add(v);
    actual.add(v);
  }
}

TEST(LabelDigests, EqualsDigestAddForEveryLowByte) {
  LabelDigests cached;
  for (uint64_t low = 0; low < 256; ++low) {
    for (const uint64_t high : {uint64_t{0}, uint64_t{0xcbf29ce484222300}, ~uint64_t{0xff}}) {
      base::Digest expected = base::Digest::resume(high | low);
      base::Digest actual = expected;
      expected.add("net:instance-2->broker:heartbeat");
      cached.add(actual, "net:instance-2->broker:heartbeat");
      ASSERT_EQ(actual.value(), expected.value()) << low << " " << high;
    }
  }
}

}  // namespace
}  // namespace iq::sim
