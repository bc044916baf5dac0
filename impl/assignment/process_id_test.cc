// ProcessId orders, prints and hashes exactly like java.util.UUID, since the assignment depends
// on that order. Expected values were printed by a JVM (UUID.compareTo, toString, hashCode).
#include "assignment/process_id.h"

#include <gtest/gtest.h>

#include <set>

namespace iq {
namespace {

// UUID.compareTo compares signed halves: a set bit 63 sorts first, unlike the text.
TEST(AssignmentProcessIdTest, ordersLikeJavaUuidCompareTo) {
  const ProcessId high_bit(INT64_MIN, 1);
  const ProcessId one = ProcessId::for_int(1);
  const ProcessId z(0x123456789abcdef0, static_cast<int64_t>(0xfedcba9876543210));
  EXPECT_LT(high_bit, one);  // Java: x.compareTo(y) == -1
  EXPECT_LT(one, z);
  EXPECT_GT(high_bit.to_string(), one.to_string());  // text order would say the opposite
  EXPECT_LT(ProcessId::for_int(1), ProcessId::for_int(2));
  EXPECT_LT(ProcessId(0, -1), ProcessId(0, 1));  // the low half is signed too
  const std::set<ProcessId> sorted{one, z, high_bit};
  EXPECT_EQ(*sorted.begin(), high_bit);
}

// toString and fromString round-trip the canonical form, lower case out, either case in.
TEST(AssignmentProcessIdTest, printsAndParsesTheCanonicalForm) {
  const ProcessId high_bit(INT64_MIN, 1);
  EXPECT_EQ(high_bit.to_string(), "80000000-0000-0000-0000-000000000001");
  EXPECT_EQ(ProcessId(0x123456789abcdef0, static_cast<int64_t>(0xfedcba9876543210)).to_string(),
            "12345678-9abc-def0-fedc-ba9876543210");
  const auto parsed = ProcessId::from_string("F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->most_sig_bits(), -568210367123287600);
  EXPECT_EQ(parsed->least_sig_bits(), -6384696206158828554);
  EXPECT_EQ(parsed->to_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
  EXPECT_FALSE(ProcessId::from_string("f81d4fae-7dec-11d0-a765-00a0c91e6bf").has_value());
  EXPECT_FALSE(ProcessId::from_string("f81d4fae_7dec-11d0-a765-00a0c91e6bf6").has_value());
  EXPECT_FALSE(ProcessId::from_string("g81d4fae-7dec-11d0-a765-00a0c91e6bf6").has_value());
}

// hashCode is the xor of the four 32-bit words, as UUID.hashCode computes it.
TEST(AssignmentProcessIdTest, hashesLikeJavaUuidHashCode) {
  EXPECT_EQ(
      ProcessId(0x123456789abcdef0, static_cast<int64_t>(0xfedcba9876543210)).java_hash_code(), 0);
  EXPECT_EQ(ProcessId(INT64_MIN, 1).java_hash_code(), -2147483647);
  EXPECT_EQ(ProcessId::from_string("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")->java_hash_code(),
            -343263960);
}

// random_v4 stamps version 4 and the IETF variant onto the caller's bits, as randomUUID does.
TEST(AssignmentProcessIdTest, randomV4HasVersionAndVariantBits) {
  const ProcessId id = ProcessId::random_v4(~uint64_t{0}, 0);
  EXPECT_EQ(id.to_string(), "ffffffff-ffff-4fff-8000-000000000000");
  EXPECT_EQ(ProcessId::random_v4(0, ~uint64_t{0}).to_string(),
            "00000000-0000-4000-bfff-ffffffffffff");
}

}  // namespace
}  // namespace iq
