#pragma once
// LabelDigests: feeds an event's label to the loop's Digest as Digest::add(label) does (its length
// as an int64, then its bytes), with the same result, in O(1) for a label seen before.
//
// Why it is exact: one FNV-1a step is s' = (s ^ b) * kPrime. The XOR touches only the low byte of
// s, and a multiple of 256 stays one after a multiplication, so the state's bytes above the low one
// only ever get multiplied: for a fixed byte string S of m bytes, hashing S from state s gives
//   (s - L) * kPrime^m + image_S[L],   where L = s & 0xff
// and image_S[L] is the hash of S from the state L alone (all modulo 2^64). A label's image has 256
// entries, each computed the first time the state's low byte asks for it (by hashing from L as
// Digest does); after that the label costs one lookup and one multiply instead of a multiply per
// byte, a latency-bound chain that was ~8 % of sim_bench (docs/performance.md, fourth pass).
//
// The labels are a small set (node pairs times message kinds, per-node loop names), so a 2-way
// set-associative table by a hash of the label keeps them; a label that finds no room replaces
// the older way of its set. Nothing here changes the digest's value: base_test checks Digest
// against the published vectors and event_loop_test checks this against Digest::add.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/digest.h"

namespace iq::sim {

class LabelDigests {
 public:
  LabelDigests();
  // Same as digest.add(label).
  void add(base::Digest& digest, std::string_view label);

 private:
  struct Image {
    std::array<uint64_t, 256> state{};  // image_S[L]; meaningful where `known` has bit L
    std::array<uint64_t, 4> known{};
  };
  struct Way {
    std::string label;
    uint64_t power = 1;  // kPrime^(8 + label size)
    std::unique_ptr<Image> image;
    uint64_t used = 0;  // when last used (a counter): the older way of a full set is replaced
  };
  static constexpr size_t kSets = 256;
  static uint64_t hash(std::string_view label);
  Way& find(std::string_view label);

  std::vector<std::array<Way, 2>> sets_;
  uint64_t uses_ = 0;
};

}  // namespace iq::sim
