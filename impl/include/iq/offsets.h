#pragma once
// Typed offsets. Kafka speaks of two kinds of offset that are both Java longs, and mixing them up
// is a silent bug:
// - a SourceOffset is an offset in a source (input) topic partition: what Position holds
//   (org.apache.kafka.streams.query.Position), what a store's `.position` file and a query bound
//   hold;
// - a ChangelogOffset is an offset in a store's changelog topic partition: what a task's
//   `.checkpoint` file holds (ProcessorStateManager.checkpoint), what restoration and
//   StoreChangelogReader track, and what a LagInfo's positions are.
// Each is a strong type over int64_t: construction from a raw number is explicit, the two do not
// convert into each other, and only the arithmetic that means something exists (offset + count is
// an offset, offset - offset is a count of offsets, a lag). Raw numbers cross the boundary with
// value() and the explicit constructor, where a Kafka API or a file format speaks longs.
// Virtual time has its own strong types, base::Instant and base::Duration (base/time.h).

#include <compare>
#include <cstdint>
#include <ostream>
#include <string>

#include <fmt/format.h>

namespace iq {

template <typename Tag>
class BasicOffset {
 public:
  constexpr explicit BasicOffset(int64_t value) : value_(value) {}
  constexpr int64_t value() const { return value_; }

  // The next offset after `count` more records.
  friend constexpr BasicOffset operator+(BasicOffset o, int64_t count) {
    return BasicOffset(o.value_ + count);
  }
  friend constexpr BasicOffset operator-(BasicOffset o, int64_t count) {
    return BasicOffset(o.value_ - count);
  }
  // The number of offsets between two offsets of the same kind (a lag, a restored range).
  friend constexpr int64_t operator-(BasicOffset a, BasicOffset b) { return a.value_ - b.value_; }
  friend constexpr auto operator<=>(BasicOffset, BasicOffset) = default;
  friend constexpr bool operator==(BasicOffset, BasicOffset) = default;

  std::string to_string() const { return std::to_string(value_); }
  friend std::ostream& operator<<(std::ostream& os, BasicOffset o) { return os << o.value_; }

 private:
  int64_t value_;
};

struct SourceOffsetTag {};
struct ChangelogOffsetTag {};
using SourceOffset = BasicOffset<SourceOffsetTag>;
using ChangelogOffset = BasicOffset<ChangelogOffsetTag>;

}  // namespace iq

// So that IQ_ASSERT messages and fmt::format print offsets as their numbers.
template <typename Tag>
struct fmt::formatter<iq::BasicOffset<Tag>> : fmt::formatter<int64_t> {
  template <typename FormatContext>
  auto format(iq::BasicOffset<Tag> o, FormatContext& ctx) const {
    return fmt::formatter<int64_t>::format(o.value(), ctx);
  }
};
