// Unit tests of the versioned store's segment row format (Kafka's
// RocksDBVersionedStoreSegmentValueFormatter): the exact byte layout, the degenerate row, the
// searches, and the insert/update operations including Kafka's truncation of a row that a partial
// write left overlapping the next one.
#include "state/rocksdb_versioned_store_segment_value_formatter.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "iq/serdes.h"

namespace iq::versioned_segment_value {
namespace {

std::string be64(int64_t v) {
  return serde_detail::to_big_endian(static_cast<uint64_t>(v));
}
std::string be32(int32_t v) {
  return serde_detail::to_big_endian(static_cast<uint32_t>(v));
}
ValueBytes val(const char* s) {
  return Bytes(std::string(s));
}

// (validFrom, validTo, value or "<null>") of every version of the row, tombstones included,
// newest first, found by walking find() down from next_timestamp (on a copy: find() decodes).
std::vector<std::string> versions(SegmentValue row) {
  std::vector<std::string> out;
  for (int64_t t = row.next_timestamp() - 1; t >= row.min_timestamp() && out.size() < 64;) {
    const auto r = row.find(t, true);
    out.push_back(std::to_string(r.valid_from) + "-" + std::to_string(r.valid_to) + ":" +
                  (r.value ? r.value->get() : "<null>"));
    t = r.valid_from - 1;
  }
  return out;
}

// Every non-tombstone version find_all reports over all time, as versions() prints them.
std::vector<std::string> all_values(const SegmentValue& row) {
  std::vector<std::string> out;
  for (const auto& r :
       row.find_all(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max())) {
    out.push_back(std::to_string(r.valid_from) + "-" + std::to_string(r.valid_to) + ":" +
                  r.value->get());
  }
  return out;
}

// The layout: next, min, (timestamp, size) newest first, then the values oldest first; a tombstone
// has size -1 and no bytes. Decoding the bytes gives the same row back.
TEST(SegmentValueFormatterTest, ShouldUseKafkasByteLayout) {
  SegmentValue row = SegmentValue::with_record(val("a"), 10, 20);
  row.insert_as_latest(20, 30, std::nullopt);
  row.insert_as_latest(30, 45, val("ccc"));
  const std::string expected = be64(45) + be64(10) + be64(30) + be32(3) + be64(20) + be32(-1) +
                               be64(10) + be32(1) + "a" + "ccc";
  EXPECT_EQ(row.serialize().get(), expected);
  EXPECT_EQ(next_timestamp(expected), 45);
  EXPECT_EQ(min_timestamp(expected), 10);
  SegmentValue back = SegmentValue::deserialize(expected);
  EXPECT_EQ(back.serialize().get(), expected);
  EXPECT_EQ(versions(back), (std::vector<std::string>{"30-45:ccc", "20-30:<null>", "10-20:a"}));
  // An empty value is not a tombstone.
  SegmentValue empty = SegmentValue::with_record(val(""), 1, 2);
  EXPECT_EQ(empty.serialize().get(), be64(2) + be64(1) + be64(1) + be32(0));
  EXPECT_EQ(SegmentValue::deserialize(empty.serialize().view()).find(1, true).value, val(""));
}

// find returns the version spanning a time with its validTo; find_all the non-tombstone versions
// overlapping [from, to], newest first.
TEST(SegmentValueFormatterTest, ShouldFindVersions) {
  SegmentValue row = SegmentValue::with_record(val("a"), 10, 20);
  row.insert_as_latest(25, 30, val("b"));  // the gap 20..25 becomes a tombstone at 20
  const auto at22 = row.find(22, true);
  EXPECT_EQ(at22.valid_from, 20);
  EXPECT_EQ(at22.valid_to, 25);
  EXPECT_FALSE(at22.value.has_value());
  EXPECT_EQ(row.find(29, true).value, val("b"));
  EXPECT_EQ(row.find(10, false).index, 2);
  const auto all = row.find_all(std::numeric_limits<int64_t>::min(), 100);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].value, val("b"));
  EXPECT_EQ(all[1].valid_to, 20);
  EXPECT_TRUE(row.find_all(20, 24).empty());
  EXPECT_EQ(row.find_all(19, 19).size(), 1u);
}

// A degenerate row (a lone tombstone with min == next) reports nothing and is replaced by the
// first real insert, at either end.
TEST(SegmentValueFormatterTest, ShouldReplaceDegenerateRows) {
  SegmentValue row = SegmentValue::with_record(std::nullopt, 50, 50);
  EXPECT_TRUE(row.is_degenerate());
  EXPECT_TRUE(row.find_all(0, 100).empty());
  EXPECT_EQ(row.serialize().get(), be64(50) + be64(50) + be64(50) + be32(-1));
  SegmentValue earliest = row;
  earliest.insert_as_earliest(40, val("e"));  // valid until the tombstone at 50
  EXPECT_EQ(versions(earliest), (std::vector<std::string>{"40-50:e"}));
  SegmentValue latest = row;
  latest.insert_as_latest(60, 70, val("l"));  // the tombstone stays, at 50
  EXPECT_EQ(versions(latest), (std::vector<std::string>{"60-70:l", "50-60:<null>"}));
}

// insert, update_record and insert_as_earliest keep min_timestamp right.
TEST(SegmentValueFormatterTest, ShouldInsertAndUpdateAtIndex) {
  SegmentValue row = SegmentValue::with_record(val("a"), 10, 40);
  row.insert(30, val("c"), row.find(30, false).index);
  row.insert_as_earliest(5, val("z"));
  EXPECT_EQ(row.min_timestamp(), 5);
  row.update_record(6, val("y"), row.find(5, false).index);
  EXPECT_EQ(row.min_timestamp(), 6);
  row.update_record(30, val("C"), 0);
  EXPECT_EQ(versions(SegmentValue::deserialize(row.serialize().view())),
            (std::vector<std::string>{"30-40:C", "10-30:a", "6-10:y"}));
}

// Kafka's recovery from a partial write: a version appended as latest below next_timestamp first
// truncates the row to its validFrom (versions at or after it go, the spanning one is cut).
TEST(SegmentValueFormatterTest, ShouldTruncateOnInconsistentInsertAsLatest) {
  SegmentValue row = SegmentValue::with_record(val("a"), 10, 20);
  row.insert_as_latest(20, 30, val("b"));
  row.insert_as_latest(25, 40, val("n"));
  EXPECT_EQ(versions(row), (std::vector<std::string>{"25-40:n", "20-25:b", "10-20:a"}));
  row.insert_as_latest(20, 50, val("m"));
  EXPECT_EQ(versions(row), (std::vector<std::string>{"20-50:m", "10-20:a"}));
  row.insert_as_latest(5, 60, val("x"));  // at or below min: the whole row goes
  EXPECT_EQ(versions(row), (std::vector<std::string>{"5-60:x"}));
}

// After a reopen (quirk 17) the store can call insert_as_earliest with a timestamp above
// min_timestamp. Kafka's insertAsEarliest checks nothing: the entry goes after the one equal to
// min_timestamp and becomes the new min, so the list no longer descends and the version reads
// back valid until the old oldest's validFrom (validTo below its validFrom).
TEST(SegmentValueFormatterTest, ShouldAppendAnEarliestVersionAboveMinUnchecked) {
  SegmentValue row = SegmentValue::with_record(val("b"), 10, 30);
  row.insert_as_latest(30, 40, val("a"));
  row.insert_as_earliest(20, val("c"));
  const std::string expected = be64(40) + be64(20) + be64(30) + be32(1) + be64(10) + be32(1) +
                               be64(20) + be32(1) + "c" + "b" + "a";
  EXPECT_EQ(row.serialize().get(), expected);
  SegmentValue back = SegmentValue::deserialize(expected);
  EXPECT_EQ(all_values(back), (std::vector<std::string>{"30-40:a", "10-30:b", "20-10:c"}));
  // find() stops at the first entry at or below the time: 10, for any time from min (20) on.
  const auto at25 = back.find(25, true);
  EXPECT_EQ(at25.index, 1);
  EXPECT_EQ(at25.valid_from, 10);
  EXPECT_EQ(at25.valid_to, 30);
  EXPECT_EQ(at25.value, val("b"));
  // A second unchecked append goes after the first entry at or below the new min (index 1).
  SegmentValue again = SegmentValue::deserialize(expected);
  again.insert_as_earliest(35, val("d"));
  EXPECT_EQ(again.serialize().get(), be64(40) + be64(20) + be64(30) + be32(1) + be64(10) + be32(1) +
                                         be64(35) + be32(1) + be64(20) + be32(1) + "c" + "d" + "b" +
                                         "a");
  EXPECT_EQ(again.min_timestamp(), 20);  // the entry before it was not the min: min unchanged
}

// An earliest version equal to min_timestamp is appended too, but the walk stops at the first
// entry equal to min_timestamp, so it is never read back; its entry and value bytes stay in the
// row, carried through later edits exactly as Kafka's byte splicing carries them.
TEST(SegmentValueFormatterTest, ShouldKeepAnUnreachableEarliestVersionInTheBytes) {
  SegmentValue row = SegmentValue::with_record(val("a"), 10, 20);
  row.insert_as_earliest(10, val("b"));
  EXPECT_EQ(row.serialize().get(),
            be64(20) + be64(10) + be64(10) + be32(1) + be64(10) + be32(1) + "b" + "a");
  SegmentValue back = SegmentValue::deserialize(row.serialize().view());
  EXPECT_EQ(versions(back), (std::vector<std::string>{"10-20:a"}));
  EXPECT_EQ(all_values(back), (std::vector<std::string>{"10-20:a"}));
  back.insert_as_latest(20, 30, val("c"));
  EXPECT_EQ(back.serialize().get(), be64(30) + be64(10) + be64(20) + be32(1) + be64(10) + be32(1) +
                                        be64(10) + be32(1) + "b" + "a" + "c");
  EXPECT_EQ(all_values(SegmentValue::deserialize(back.serialize().view())),
            (std::vector<std::string>{"20-30:c", "10-20:a"}));
  // Truncation keeps the unreachable bytes too: only the newest entry and its value go.
  back.insert_as_latest(15, 40, val("d"));
  EXPECT_EQ(back.serialize().get(), be64(40) + be64(10) + be64(15) + be32(1) + be64(10) + be32(1) +
                                        be64(10) + be32(1) + "b" + "a" + "d");
  EXPECT_EQ(versions(back), (std::vector<std::string>{"15-40:d", "10-15:a"}));
}

// The list is decoded lazily, as Kafka's: insert and updateRecord need find() to have reached
// the index, and find refuses times outside [min, next), which is what makes a degenerate row's
// truncation throw in Kafka.
TEST(SegmentValueFormatterDeathTest, ShouldRefuseWhatKafkaRefuses) {
  SegmentValue row = SegmentValue::with_record(val("a"), 10, 40);
  row.insert_as_latest(40, 50, val("b"));
  SegmentValue fresh = SegmentValue::deserialize(row.serialize().view());
  EXPECT_DEATH(fresh.insert(45, val("x"), 0), "Must invoke find");
  EXPECT_DEATH(fresh.update_record(45, val("x"), 0), "Must invoke find");
  EXPECT_DEATH(fresh.find(9, false), "too small");
  EXPECT_DEATH(fresh.find(50, false), "too large");
  EXPECT_EQ(fresh.find(45, false).index, 0);
  fresh.insert(45, val("x"), 0);
  EXPECT_EQ(versions(fresh), (std::vector<std::string>{"45-50:x", "40-45:b", "10-40:a"}));
  SegmentValue degenerate = SegmentValue::with_record(std::nullopt, 50, 50);
  EXPECT_DEATH(degenerate.insert_as_latest(40, 60, val("y")), "too large");
}

}  // namespace
}  // namespace iq::versioned_segment_value
