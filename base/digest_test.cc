// Proves that Digest is FNV-1a 64 over its documented byte encoding, so a digest recorded today
// (in a regression file, in CI) still means the same run tomorrow and on another machine.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/digest.h"

namespace iq::base {
namespace {

// Published FNV-1a 64 test vectors (Fowler, Noll, Vo).
TEST(Digest, RawBytesMatchPublishedFnv1a64Vectors) {
  EXPECT_EQ(Digest().value(), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Digest().add_bytes("a").value(), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Digest().add_bytes("foobar").value(), 0x85944171f73967e8ULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

// Golden values of the structured encoding: add(int64) is 8 little-endian bytes, add(string) is
// the length as an int64 followed by the bytes. Computed independently of this code.
TEST(Digest, StructuredEncodingGoldenValues) {
  EXPECT_EQ(Digest().add(int64_t{-1}).value(), 0x8cf51a8bfca3883dULL);
  EXPECT_EQ(Digest().add("abc").value(), 0xc11ab6d2519bc2b2ULL);
  EXPECT_EQ(Digest().add("abc").hex(), "c11ab6d2519bc2b2");
}

// add(int64) folds a value's high zero bytes into one multiply; it must equal hashing the eight
// little-endian bytes one by one, for every length of zero tail and zeros in the middle.
TEST(Digest, IntegerEncodingEqualsItsEightBytes) {
  std::vector<int64_t> values = {0,
                                 1,
                                 -1,
                                 255,
                                 256,
                                 65'536,
                                 0x0100'0000'0000'0000,
                                 INT64_MAX,
                                 INT64_MIN,
                                 0x00ff'0000'00ff'0000};
  for (int shift = 0; shift < 64; shift += 4) values.push_back(int64_t{0x5a} << shift);
  for (const int64_t v : values) {
    std::string bytes;
    for (int i = 0; i < 8; ++i)
      bytes.push_back(static_cast<char>(static_cast<uint64_t>(v) >> (8 * i)));
    EXPECT_EQ(Digest().add_bytes("x").add(v).value(),
              Digest().add_bytes("x").add_bytes(bytes).value())
        << v;
  }
}

TEST(Digest, HexIsSixteenZeroPaddedLowercaseDigits) {
  EXPECT_EQ(Digest().hex(), "cbf29ce484222325");
  EXPECT_EQ(Digest().hex().size(), 16u);
}

// The length prefix keeps field boundaries: ("ab", "c") is not ("a", "bc").
TEST(Digest, StringBoundariesMatter) {
  EXPECT_NE(Digest().add("ab").add("c"), Digest().add("a").add("bc"));
  EXPECT_EQ(Digest().add_bytes("ab").add_bytes("c"), Digest().add_bytes("a").add_bytes("bc"));
}

TEST(Digest, OrderAndEveryValueMatter) {
  EXPECT_EQ(Digest().add(int64_t{1}).add("x"), Digest().add(int64_t{1}).add("x"));
  EXPECT_NE(Digest().add(int64_t{1}).add("x"), Digest().add("x").add(int64_t{1}));
  EXPECT_NE(Digest().add(int64_t{1}), Digest().add(int64_t{2}));
  EXPECT_NE(Digest().add(int64_t{0}), Digest());
}

}  // namespace
}  // namespace iq::base
