#include "event_loop/label_digest.h"

#include <cstring>

namespace iq::sim {

LabelDigests::LabelDigests() : sets_(kSets) {}

// Any spread will do (a collision only costs a recomputation): the length and the label's 8-byte
// words, the last one read from the label's end.
uint64_t LabelDigests::hash(std::string_view label) {
  uint64_t h = label.size() * 0x9e3779b97f4a7c15ULL;
  const size_t n = label.size();
  for (size_t at = 0; at < n; at += 8) {
    uint64_t word = 0;
    if (n - at >= 8) {
      std::memcpy(&word, label.data() + at, 8);
    } else if (n >= 8) {
      std::memcpy(&word, label.data() + n - 8, 8);
    } else {
      std::memcpy(&word, label.data(), n);
    }
    h = (h ^ word) * 0xff51afd7ed558ccdULL;
  }
  return h ^ (h >> 29);
}

LabelDigests::Way& LabelDigests::find(std::string_view label) {
  std::array<Way, 2>& set = sets_[hash(label) % kSets];
  ++uses_;
  for (Way& way : set) {
    if (way.image != nullptr && way.label == label) {
      way.used = uses_;
      return way;
    }
  }
  Way& way = set[0].image == nullptr || set[0].used <= set[1].used ? set[0] : set[1];
  way.label.assign(label);
  way.power = 1;
  for (size_t i = 0; i < 8 + label.size(); ++i) way.power *= base::Digest::kPrime;
  if (way.image == nullptr) {
    way.image = std::make_unique<Image>();
  } else {
    way.image->known = {};
  }
  way.used = uses_;
  return way;
}

void LabelDigests::add(base::Digest& digest, std::string_view label) {
  Way& way = find(label);
  const uint64_t s = digest.value();
  const uint64_t low = s & 0xff;
  Image& image = *way.image;
  uint64_t& word = image.known[low / 64];
  const uint64_t bit = uint64_t{1} << (low % 64);
  if ((word & bit) == 0) {
    image.state[low] = base::Digest::resume(low).add(label).value();
    word |= bit;
  }
  digest = base::Digest::resume((s - low) * way.power + image.state[low]);
}

}  // namespace iq::sim
