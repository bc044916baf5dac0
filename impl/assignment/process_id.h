#pragma once
// ProcessId (org.apache.kafka.streams.processor.assignment.ProcessId): the identity of one
// KafkaStreams client in the group, a wrapper around a java.util.UUID.
//
// It is a 128-bit value and not a string because its order drives the whole assignment: the
// assignor walks clients in ProcessId order (round-robin, balancing, tie-breaks between equally
// loaded clients). Java's UUID.compareTo compares the two 64-bit halves as *signed* longs, so
// "80000000-..." sorts before "00000000-...". Comparing the text would get that case wrong.

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iq {

class ProcessId {
 public:
  // The nil UUID, 00000000-0000-0000-0000-000000000000.
  constexpr ProcessId() = default;
  constexpr ProcessId(int64_t most_sig_bits, int64_t least_sig_bits)
      : most_sig_bits_(most_sig_bits), least_sig_bits_(least_sig_bits) {}

  // AssignmentTestUtils.processIdForInt: new UUID(0, n). Order follows n for n >= 0.
  static constexpr ProcessId for_int(int64_t n) { return ProcessId(0, n); }
  // UUID.randomUUID's layout (version 4, IETF variant) over 128 bits the caller drew from its Prng.
  static ProcessId random_v4(uint64_t high_bits, uint64_t low_bits);
  // The canonical 36-character form (8-4-4-4-12 hex digits, either case); nullopt otherwise.
  // Stricter than UUID.fromString, which also takes shortened groups.
  static std::optional<ProcessId> from_string(std::string_view text);

  // UUID.toString: lower-case canonical form.
  std::string to_string() const;
  int64_t most_sig_bits() const { return most_sig_bits_; }
  int64_t least_sig_bits() const { return least_sig_bits_; }
  // UUID.hashCode, which ProcessId.hashCode returns. Only needed to reproduce the iteration order
  // of the one java.util.HashSet whose order can reach an assignment (constrained_priority_set.h).
  int32_t java_hash_code() const;

  friend constexpr bool operator==(const ProcessId&, const ProcessId&) = default;
  // UUID.compareTo: most significant half first, both halves signed.
  friend constexpr std::strong_ordering operator<=>(const ProcessId& a, const ProcessId& b) {
    if (auto c = a.most_sig_bits_ <=> b.most_sig_bits_; c != 0) return c;
    return a.least_sig_bits_ <=> b.least_sig_bits_;
  }

 private:
  int64_t most_sig_bits_ = 0;
  int64_t least_sig_bits_ = 0;
};

}  // namespace iq
