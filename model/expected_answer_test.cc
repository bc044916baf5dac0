// Tests of expected answers: positions, timestamp modes, and the data of Kafka's
// IQv2StoreIntegrationTest replayed through the model.
#include "model/expected_answer.h"

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <vector>

#include "model/key_bytes.h"
#include "model/reference_history.h"
#include "model/reference_store.h"

namespace iq::model {
namespace {

const std::string kTopic = "input-topic";

KeyBytes k(int32_t key) {
  return serialize_int32_key(key);
}

SourceRecord put(int64_t offset, int32_t key, int64_t value, int64_t ts) {
  return {offset, k(key), value, ts, WriteKind::kPut};
}

ModelPosition position_of(int32_t partition, int64_t offset) {
  ModelPosition position;
  position.offsets[kTopic][partition] = offset;
  return position;
}

// ---- Positions -------------------------------------------------------------------------------

TEST(ExpectedPosition, IsTheLastWriteOffsetOrEmpty) {
  // Proves the position names the newest writing record, and is empty before any write.
  ReferenceStore store(Aggregation::kCount);
  store.apply(0, SourceRecord{0, k(1), std::nullopt, 1});
  store.apply(0, put(1, 1, 1, 2));
  store.apply(0, SourceRecord{2, k(1), std::nullopt, 3});
  EXPECT_EQ(expected_position(store, kTopic, 0, -1, true), ModelPosition{});
  EXPECT_EQ(expected_position(store, kTopic, 0, 0, true), ModelPosition{});
  EXPECT_EQ(expected_position(store, kTopic, 0, 1, true), position_of(0, 1));
  EXPECT_EQ(expected_position(store, kTopic, 0, 2, true), position_of(0, 1));
  EXPECT_EQ(expected_position(store, kTopic, 5, 2, true), ModelPosition{});
}

TEST(ExpectedPosition, InMemoryDeleteDoesNotAdvanceIt) {
  // Proves deletes_advance=false ignores delete() writes while a RocksDB store counts them.
  ReferenceStore store(Aggregation::kLatest);
  store.apply(2, put(0, 1, 1, 1));
  store.apply(2, SourceRecord{1, k(1), std::nullopt, 2, WriteKind::kDelete});
  EXPECT_EQ(expected_position(store, kTopic, 2, 1, true), position_of(2, 1));
  EXPECT_EQ(expected_position(store, kTopic, 2, 1, false), position_of(2, 0));
}

TEST(OffsetAt, ReadsTheComponentOrMinusOne) {
  // Proves a missing topic or partition reads as -1, "nothing applied".
  ModelPosition position = position_of(1, 7);
  position.offsets["other"][0] = 3;
  EXPECT_EQ(offset_at(position, kTopic, 1), 7);
  EXPECT_EQ(offset_at(position, kTopic, 0), -1);
  EXPECT_EQ(offset_at(position, "missing", 1), -1);
  EXPECT_EQ(offset_at(ModelPosition{}, kTopic, 1), -1);
}

TEST(ModelPosition, PrintsInKafkasPositionToStringForm) {
  // Proves to_string matches Position.toString, so messages can be compared with Kafka's.
  ModelPosition position = position_of(0, 5);
  position.offsets[kTopic][1] = 3;
  position.offsets["a"][2] = 9;
  EXPECT_EQ(position.to_string(), "Position{position={a={2=9}, input-topic={0=5, 1=3}}}");
  EXPECT_EQ(ModelPosition{}.to_string(), "Position{position={}}");
  std::ostringstream out;
  out << position_of(0, 5);
  EXPECT_EQ(out.str(), "Position{position={input-topic={0=5}}}");
}

// ---- Timestamp modes -------------------------------------------------------------------------

TEST(TimestampMode, ShapesKeyAndRangeAnswers) {
  // Proves kReal keeps the timestamp, kMinusOne gives -1 and kNone drops it, values unchanged.
  ReferenceStore store(Aggregation::kLatest);
  store.apply(0, put(0, 1, 10, 1000));
  store.apply(0, put(1, 2, 20, 2000));
  EXPECT_EQ(expected_key_query(store, 0, k(1), 1, TimestampMode::kReal), (ExpectedValue{10, 1000}));
  EXPECT_EQ(expected_key_query(store, 0, k(1), 1, TimestampMode::kMinusOne),
            (ExpectedValue{10, -1}));
  EXPECT_EQ(expected_key_query(store, 0, k(1), 1, TimestampMode::kNone),
            (ExpectedValue{10, std::nullopt}));
  EXPECT_EQ(expected_key_query(store, 0, k(2), 0, TimestampMode::kReal), std::nullopt);

  using Answer = std::vector<std::pair<KeyBytes, ExpectedValue>>;
  EXPECT_EQ(expected_range_query(store, 0, std::nullopt, std::nullopt, Order::kDescending, 1,
                                 TimestampMode::kReal),
            (Answer{{k(2), {20, 2000}}, {k(1), {10, 1000}}}));
  EXPECT_EQ(expected_range_query(store, 0, std::nullopt, std::nullopt, Order::kAny, 1,
                                 TimestampMode::kMinusOne),
            (Answer{{k(1), {10, -1}}, {k(2), {20, -1}}}));
  EXPECT_EQ(
      expected_range_query(store, 0, k(2), std::nullopt, Order::kAny, 1, TimestampMode::kNone),
      (Answer{{k(2), {20, std::nullopt}}}));
}

// ---- Kafka's IQv2StoreIntegrationTest data ---------------------------------------------------

// Ten records i = 0..9 with key i/2, value i, timestamp W + 2 min * i, into partition key % 2.
constexpr int64_t kWindowStart = 1700000100000;
constexpr int64_t kTwoMinutesMs = 120000;
constexpr int32_t kPartitions = 2;

ReferenceHistory iqv2_history() {
  ReferenceHistory history;
  int64_t next_offset[kPartitions] = {0, 0};
  for (int32_t i = 0; i < 10; ++i) {
    const int32_t key = i / 2;
    const int32_t partition = key % kPartitions;
    history.append(partition,
                   put(next_offset[partition]++, key, i, kWindowStart + kTwoMinutesMs * i));
  }
  return history;
}

// The values of a range query over both partitions, partition 0 first then 1, as Kafka's test
// concatenates the per-partition results.
std::vector<int64_t> range_values(const ReferenceStore& store, std::optional<int32_t> lower,
                                  std::optional<int32_t> upper, Order order) {
  const auto bound = [](std::optional<int32_t> key) {
    return key ? std::optional<KeyBytes>(k(*key)) : std::nullopt;
  };
  std::vector<int64_t> values;
  for (int32_t partition = 0; partition < kPartitions; ++partition) {
    for (const auto& [key, value] :
         expected_range_query(store, partition, bound(lower), bound(upper), order,
                              store.end_offset(partition), TimestampMode::kReal)) {
      values.push_back(value.value);
    }
  }
  return values;
}

TEST(IQv2StoreIntegrationData, PartitionsGetConsecutiveOffsets) {
  // Proves the replayed data puts six records in partition 0 and four in partition 1.
  const ReferenceHistory history = iqv2_history();
  EXPECT_EQ(history.end_offset(0), 5);
  EXPECT_EQ(history.end_offset(1), 3);
  EXPECT_EQ(history.size(), 10);
}

TEST(IQv2StoreIntegrationData, KeyQueriesAtTheEndSeeTheLatestValues) {
  // Proves each key holds its second value with that record's timestamp, in its own partition.
  const ReferenceStore store(iqv2_history(), Aggregation::kLatest);
  const auto at_end = [&](int32_t partition, int32_t key) {
    return expected_key_query(store, partition, k(key), store.end_offset(partition),
                              TimestampMode::kReal);
  };
  EXPECT_EQ(at_end(0, 0), (ExpectedValue{1, kWindowStart + kTwoMinutesMs}));
  EXPECT_EQ(at_end(0, 2), (ExpectedValue{5, kWindowStart + 600000}));
  EXPECT_EQ(at_end(0, 4), (ExpectedValue{9, kWindowStart + 1080000}));
  EXPECT_EQ(at_end(1, 1), (ExpectedValue{3, kWindowStart + 360000}));
  EXPECT_EQ(at_end(1, 3), (ExpectedValue{7, kWindowStart + 840000}));
  EXPECT_EQ(at_end(0, 1), std::nullopt);
  EXPECT_EQ(at_end(1, 0), std::nullopt);
  EXPECT_EQ(at_end(0, 5), std::nullopt);
}

TEST(IQv2StoreIntegrationData, KeyQueriesMidwaySeeTheFirstValues) {
  // Proves a position between a key's two records answers with the first one.
  const ReferenceStore store(iqv2_history(), Aggregation::kLatest);
  EXPECT_EQ(store.get(0, k(2), 2), (ValueAndTimestamp{4, kWindowStart + 480000}));
  EXPECT_EQ(store.get(0, k(4), 2), std::nullopt);
  EXPECT_EQ(store.get(1, k(3), 2), (ValueAndTimestamp{6, kWindowStart + 720000}));
}

TEST(IQv2StoreIntegrationData, RangeQueriesMatchKafkasExpectations) {
  // Proves every bound/order combination the Kafka test checks gives its expected values.
  const ReferenceStore store(iqv2_history(), Aggregation::kLatest);
  using V = std::vector<int64_t>;
  const std::nullopt_t open = std::nullopt;
  EXPECT_EQ(range_values(store, 0, 4, Order::kAscending), (V{1, 5, 9, 3, 7}));
  EXPECT_EQ(range_values(store, 0, 4, Order::kDescending), (V{9, 5, 1, 7, 3}));
  EXPECT_EQ(range_values(store, 1, 3, Order::kAscending), (V{5, 3, 7}));
  EXPECT_EQ(range_values(store, 1, 3, Order::kDescending), (V{5, 7, 3}));
  EXPECT_EQ(range_values(store, 3, open, Order::kAscending), (V{9, 7}));
  EXPECT_EQ(range_values(store, 3, open, Order::kDescending), (V{9, 7}));
  EXPECT_EQ(range_values(store, open, 3, Order::kAscending), (V{1, 5, 3, 7}));
  EXPECT_EQ(range_values(store, open, 3, Order::kDescending), (V{5, 1, 7, 3}));
  EXPECT_EQ(range_values(store, open, open, Order::kAscending), (V{1, 5, 9, 3, 7}));
  EXPECT_EQ(range_values(store, open, open, Order::kDescending), (V{9, 5, 1, 7, 3}));
  EXPECT_EQ(range_values(store, open, open, Order::kAny), (V{1, 5, 9, 3, 7}));
}

TEST(IQv2StoreIntegrationData, PositionAtTheEndIsTheLastOffsetOfEachPartition) {
  // Proves the store of partition 0 reports {input-topic:{0:5}}, as the Kafka test asserts.
  const ReferenceStore store(iqv2_history(), Aggregation::kLatest);
  EXPECT_EQ(expected_position(store, kTopic, 0, store.end_offset(0), true), position_of(0, 5));
  EXPECT_EQ(expected_position(store, kTopic, 0, store.end_offset(0), true).to_string(),
            "Position{position={input-topic={0=5}}}");
  EXPECT_EQ(expected_position(store, kTopic, 1, store.end_offset(1), false), position_of(1, 3));
}

}  // namespace
}  // namespace iq::model
