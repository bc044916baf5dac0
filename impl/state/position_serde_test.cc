// Unit tests of PositionSerde, the byte layout of a Position in the changelog header "c"
// (docs/iqv2-semantics.md §3). Kafka has no dedicated PositionSerdeTest; the byte
// examples are ones checked against Java's PositionSerde.
#include "state/position_serde.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace iq {

// How gtest prints a Position in a failure message (Kafka's toString).
static void PrintTo(const Position& p, std::ostream* os) {
  *os << p.to_string();
}

namespace {

// Lower-case hex of every byte, no separators.
std::string hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
  }
  return out;
}

// The bytes written by hex digits, for building inputs by hand.
std::string from_hex(std::string_view digits) {
  std::string out;
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (size_t i = 0; i + 1 < digits.size(); i += 2) {
    out.push_back(static_cast<char>(nibble(digits[i]) * 16 + nibble(digits[i + 1])));
  }
  return out;
}

bool all_zero(std::string_view bytes) {
  for (char c : bytes) {
    if (c != '\0') return false;
  }
  return true;
}

TEST(PositionSerdeTest, SingleTopicPayloadMatchesKafkaBytes) {
  // Proves {input:{0:5}} serializes to Kafka's exact 30-byte payload inside a 205-byte value.
  const Position position = Position::from_map({{"input", {{0, 5}}}});
  const std::string payload = position_serde::serialize(position);
  EXPECT_EQ(payload.size(), 30u);
  EXPECT_EQ(hex(payload),
            "00"
            "00000001"
            "00000005"
            "696e707574"
            "00000001"
            "00000000"
            "0000000000000005");
  const std::string padded = position_serde::serialize_padded(position);
  EXPECT_EQ(position_serde::padded_size(position), 205u);
  ASSERT_EQ(padded.size(), 205u);
  EXPECT_EQ(padded.substr(0, 30), payload);
  EXPECT_TRUE(all_zero(std::string_view(padded).substr(30)));
}

TEST(PositionSerdeTest, EmptyPositionIsFiveBytesInForty) {
  // Proves the empty position is version + zero count (5 bytes), padded to Kafka's 40 bytes.
  const Position empty = Position::empty_position();
  const std::string payload = position_serde::serialize(empty);
  EXPECT_EQ(hex(payload), "0000000000");
  const std::string padded = position_serde::serialize_padded(empty);
  ASSERT_EQ(padded.size(), 40u);
  EXPECT_TRUE(all_zero(padded));
  EXPECT_EQ(position_serde::padded_size(empty), 40u);
}

TEST(PositionSerdeTest, TwoTopicsAreSixtyBytesInFourHundredFiftyNine) {
  // Proves {a:{0:1,1:2}, bb:{3:4}} is a 60-byte payload in a 459-byte value, with Kafka's layout.
  const Position position = Position::from_map({{"a", {{0, 1}, {1, 2}}}, {"bb", {{3, 4}}}});
  const std::string payload = position_serde::serialize(position);
  ASSERT_EQ(payload.size(), 60u);
  // Topic and partition order is Kafka's hash order there and sorted here; both readers accept
  // any order, and the sorted one is what iqsim writes.
  EXPECT_EQ(hex(payload),
            "00"
            "00000002"
            "00000001"
            "61"
            "00000002"
            "00000000"
            "0000000000000001"
            "00000001"
            "0000000000000002"
            "00000002"
            "6262"
            "00000001"
            "00000003"
            "0000000000000004");
  const std::string padded = position_serde::serialize_padded(position);
  ASSERT_EQ(padded.size(), 459u);
  EXPECT_EQ(padded.substr(0, 60), payload);
  EXPECT_TRUE(all_zero(std::string_view(padded).substr(60)));
}

TEST(PositionSerdeTest, InputTopicHeaderIsThirtySixBytesInTwoHundredEleven) {
  // Proves the example {input-topic:{0:100}} is 36 meaningful bytes in 211.
  const Position position = Position::from_map({{"input-topic", {{0, 100}}}});
  const std::string payload = position_serde::serialize(position);
  EXPECT_EQ(payload.size(), 36u);
  EXPECT_EQ(hex(payload),
            "00"
            "00000001"
            "0000000b"
            "696e7075742d746f706963"
            "00000001"
            "00000000"
            "0000000000000064");
  const std::string padded = position_serde::serialize_padded(position);
  ASSERT_EQ(padded.size(), 211u);
  EXPECT_TRUE(all_zero(std::string_view(padded).substr(36)));
}

TEST(PositionSerdeTest, DeserializeReadsKafkaBytes) {
  // Proves the Kafka payload bytes written by hand deserialize to {input:{0:5}}.
  const std::string bytes = from_hex(
      "00"
      "00000001"
      "00000005"
      "696e707574"
      "00000001"
      "00000000"
      "0000000000000005");
  auto position = position_serde::deserialize(bytes);
  ASSERT_TRUE(position.has_value()) << position.error().to_string();
  EXPECT_EQ(*position, Position::from_map({{"input", {{0, 5}}}}));
}

TEST(PositionSerdeTest, DeserializeIgnoresTrailingPadding) {
  // Proves deserialize reads only what the counts say, so Kafka's zero padding is ignored.
  const Position position =
      Position::from_map({{"a", {{0, 1}, {1, 2}}}, {"bb", {{3, 4}}}, {"input-topic", {{0, 100}}}});
  auto from_padded = position_serde::deserialize(position_serde::serialize_padded(position));
  ASSERT_TRUE(from_padded.has_value()) << from_padded.error().to_string();
  EXPECT_EQ(*from_padded, position);
  // Arbitrary trailing garbage is ignored too, not only zeros.
  auto from_garbage = position_serde::deserialize(position_serde::serialize(position) + "xyz\x01");
  ASSERT_TRUE(from_garbage.has_value()) << from_garbage.error().to_string();
  EXPECT_EQ(*from_garbage, position);
}

TEST(PositionSerdeTest, RoundTripKeepsTopicsWithEmptyPartitionMaps) {
  // Proves a topic with no partitions survives a round trip, as Java's deserialize puts the
  // (empty) partition map of every topic it reads.
  const Position position = Position::from_map({{"t", {}}, {"u", {{0, 1}}}});
  auto back = position_serde::deserialize(position_serde::serialize(position));
  ASSERT_TRUE(back.has_value()) << back.error().to_string();
  EXPECT_EQ(*back, position);
  EXPECT_FALSE(back->is_empty());
}

TEST(PositionSerdeTest, RoundTripOfExtremeValues) {
  // Proves negative partitions and offsets and 64-bit offsets survive the big-endian encoding.
  const Position position = Position::from_map(
      {{"t", {{-1, -1}, {0, INT64_MAX}, {INT32_MAX, INT64_MIN}}}, {"", {{7, 0}}}});
  auto back = position_serde::deserialize(position_serde::serialize_padded(position));
  ASSERT_TRUE(back.has_value()) << back.error().to_string();
  EXPECT_EQ(*back, position);
}

TEST(PositionSerdeTest, UnknownVersionIsIllegalArgument) {
  // Proves a version byte other than 0 fails with Kafka's exact IllegalArgumentException message.
  std::string bytes = position_serde::serialize(Position::from_map({{"t", {{0, 1}}}}));
  bytes[0] = 1;
  auto result = position_serde::deserialize(bytes);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().kind, StreamsError::Kind::IllegalArgument);
  EXPECT_EQ(result.error().message, "Unknown version 1 when deserializing Position");
}

// Was a bug, found by this test and fixed: position_serde.cc deserialize() reads the version as
// uint8_t, while Java's ByteBuffer.get() returns a signed byte, so a version byte of 0x80 or above
// prints as a negative number in Kafka ("Unknown version -128 ...") but as 128 here.
TEST(PositionSerdeTest, UnknownVersionIsPrintedAsASignedByte) {
  // Proves a high version byte is reported with Java's signed rendering of the byte.
  std::string bytes = position_serde::serialize(Position::empty_position());
  bytes[0] = static_cast<char>(0x80);
  auto result = position_serde::deserialize(bytes);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().kind, StreamsError::Kind::IllegalArgument);
  EXPECT_EQ(result.error().message, "Unknown version -128 when deserializing Position");
}

// Was a bug, found by this test and fixed: position_serde.cc deserialize() does `auto& partitions =
// map[topic]` and adds to it, so a topic that appears twice in the bytes has its two partition maps
// MERGED. Java builds a fresh map per occurrence and does position.put(topic, partitionOffsets), so
// the later occurrence REPLACES the earlier one. Kafka's own writer never repeats a topic; the
// difference shows only on hand-made or foreign bytes.
TEST(PositionSerdeTest, RepeatedTopicReplacesTheEarlierOccurrence) {
  // Proves a topic repeated in the bytes keeps only its last partition map, as Java's reader does.
  const std::string bytes = from_hex(
      "00"
      "00000002"
      "00000001"
      "74"
      "00000001"
      "00000000"
      "0000000000000001"
      "00000001"
      "74"
      "00000001"
      "00000001"
      "0000000000000002");
  auto result = position_serde::deserialize(bytes);
  ASSERT_TRUE(result.has_value()) << result.error().to_string();
  EXPECT_EQ(*result, Position::from_map({{"t", {{1, 2}}}}));
}

TEST(PositionSerdeTest, EveryProperPrefixIsBufferUnderflow) {
  // Proves a truncated header fails with BufferUnderflow for every proper prefix of a position.
  const Position position =
      Position::from_map({{"a", {{0, 1}, {1, 2}}}, {"bb", {{3, 4}}}, {"c", {}}});
  const std::string bytes = position_serde::serialize(position);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto result = position_serde::deserialize(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(result.has_value()) << "prefix of " << n << " bytes deserialized";
    EXPECT_EQ(result.error().kind, StreamsError::Kind::BufferUnderflow) << "prefix " << n;
  }
  EXPECT_TRUE(position_serde::deserialize(bytes).has_value());
}

TEST(PositionSerdeTest, EveryProperPrefixOfTheEmptyPositionIsBufferUnderflow) {
  // Proves the five bytes of the empty position are all needed.
  const std::string bytes = position_serde::serialize(Position::empty_position());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto result = position_serde::deserialize(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(result.has_value()) << "prefix " << n;
    EXPECT_EQ(result.error().kind, StreamsError::Kind::BufferUnderflow);
  }
  auto whole = position_serde::deserialize(bytes);
  ASSERT_TRUE(whole.has_value());
  EXPECT_TRUE(whole->is_empty());
}

}  // namespace
}  // namespace iq
