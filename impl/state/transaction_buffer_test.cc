// Unit tests of the transaction buffer (KIP-892, pin delta 5): ports of Kafka's
// AbstractTransactionBufferTest, StagedMergeIteratorTest and InMemoryTransactionBufferTest at
// 8f4e08b5a3, over a std::map base as Kafka's tests use a TreeMap-backed buffer. Kafka's
// thread cases (non-owner reads, snapshots surviving a concurrent commit, owner stages during an
// owner iteration) have no counterpart: iqsim is single-threaded and materializes every iterator
// when it is made, which is what those tests assert of the snapshot.
#include "state/transaction_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "state/test_state_store_context.h"

namespace iq {
namespace {

Bytes b(const std::string& s) {
  return Bytes(s);
}

using Entries = std::vector<KeyValue<Bytes, Bytes>>;

class TransactionBufferTest : public ::testing::Test {
 protected:
  // commit with the in-memory backend's flushToBase: each staged write applied to the map.
  Status commit() {
    return buffer_.commit([&](const StagedWrites& staged) {
      for (const auto& [k, v] : staged) {
        if (v) {
          base_.insert_or_assign(k, *v);
        } else {
          base_.erase(k);
        }
      }
      return ok_status();
    });
  }
  // A scan over the base, in order, merged with the staged writes of the same range.
  Entries scan(std::optional<Bytes> from, std::optional<Bytes> to, bool reverse, bool to_inclusive,
               IsolationLevel level = IsolationLevel::READ_UNCOMMITTED) {
    Entries base;
    for (const auto& [k, v] : base_) {
      if (from && k < *from) continue;
      if (to && (to_inclusive ? k > *to : k >= *to)) continue;
      base.push_back({k, v});
    }
    if (reverse) std::reverse(base.begin(), base.end());
    return staged_merge(buffer_.staging_snapshot(from, to, to_inclusive, level), base, reverse);
  }
  static std::vector<std::string> keys(const Entries& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries) out.push_back(e.key.get());
    return out;
  }

  std::map<Bytes, Bytes> base_;
  TransactionBuffer buffer_;
};

TEST_F(TransactionBufferTest, GetStagedValueTombstoneAndUnstagedKey) {
  buffer_.stage(b("a"), b("1"));
  buffer_.stage(b("t"), std::nullopt);
  ASSERT_NE(buffer_.get(b("a")), nullptr);
  EXPECT_EQ(*buffer_.get(b("a")), ValueBytes(b("1")));
  ASSERT_NE(buffer_.get(b("t")), nullptr);
  EXPECT_EQ(*buffer_.get(b("t")), std::nullopt);  // Optional.empty(): a pending delete
  EXPECT_EQ(buffer_.get(b("x")), nullptr);        // null: read the base
}

TEST_F(TransactionBufferTest, ByteCountCountsEveryStageOverwritesIncluded) {
  EXPECT_TRUE(buffer_.is_empty());
  EXPECT_EQ(buffer_.approximate_num_uncommitted_bytes(), 0);
  buffer_.stage(b("key"), b("value"));
  EXPECT_FALSE(buffer_.is_empty());
  EXPECT_EQ(buffer_.approximate_num_uncommitted_bytes(), 8);
  buffer_.stage(b("key"), std::nullopt);  // a tombstone counts its key only
  EXPECT_EQ(buffer_.approximate_num_uncommitted_bytes(), 11);
  buffer_.stage(b("key"), b("v2"));  // an overwrite counts again (Kafka's approximation)
  EXPECT_EQ(buffer_.approximate_num_uncommitted_bytes(), 16);
}

TEST_F(TransactionBufferTest, CommitAppliesValuesAndTombstonesThenClears) {
  base_[b("gone")] = b("old");
  buffer_.stage(b("a"), b("1"));
  buffer_.stage(b("gone"), std::nullopt);
  EXPECT_EQ(base_.count(b("a")), 0u);  // staged, not yet in the base
  ASSERT_TRUE(commit().has_value());
  EXPECT_EQ(base_.at(b("a")), b("1"));
  EXPECT_EQ(base_.count(b("gone")), 0u);
  EXPECT_TRUE(buffer_.is_empty());
  EXPECT_EQ(buffer_.approximate_num_uncommitted_bytes(), 0);
  // The next batch is independent of the one committed.
  buffer_.stage(b("b"), b("2"));
  EXPECT_EQ(buffer_.get(b("a")), nullptr);
  EXPECT_EQ(buffer_.approximate_num_uncommitted_bytes(), 2);
}

TEST_F(TransactionBufferTest, FailedFlushKeepsTheStagedWrites) {
  buffer_.stage(b("a"), b("1"));
  auto s = buffer_.commit([](const StagedWrites&) -> Status {
    return base::unexpected(StreamsError{StreamsError::Kind::ProcessorState, "boom"});
  });
  EXPECT_FALSE(s.has_value());
  EXPECT_FALSE(buffer_.is_empty());
  EXPECT_EQ(buffer_.approximate_num_uncommitted_bytes(), 2);
}

TEST_F(TransactionBufferTest, RollbackDiscardsWritesBytesAndPendingPosition) {
  PosixFileSystem fs;
  TestStateStoreContext context(fs, "/unused");
  base_[b("a")] = b("base");
  buffer_.stage(b("a"), b("staged"));
  buffer_.stage(b("new"), b("x"));
  context.at("in", 0, 7);
  buffer_.update_position(&context);
  EXPECT_FALSE(buffer_.pending_position().is_empty());
  buffer_.rollback();
  EXPECT_TRUE(buffer_.is_empty());
  EXPECT_EQ(buffer_.approximate_num_uncommitted_bytes(), 0);
  EXPECT_TRUE(buffer_.pending_position().is_empty());
  EXPECT_EQ(base_.at(b("a")), b("base"));  // the base is untouched
  EXPECT_EQ(base_.count(b("new")), 0u);
  EXPECT_EQ(keys(scan(std::nullopt, std::nullopt, false, true)), std::vector<std::string>{"a"});
}

TEST_F(TransactionBufferTest, PendingPositionMergesIntoCommittedAndEmpties) {
  PosixFileSystem fs;
  TestStateStoreContext context(fs, "/unused");
  Position committed = Position::empty_position();
  committed.with_component("in", 0, 3);
  context.at("in", 0, 9);
  buffer_.update_position(&context);
  context.at(std::nullopt, -1, -1);  // a punctuation advances nothing
  buffer_.update_position(&context);
  EXPECT_EQ(*committed.offset("in", 0), 3);  // the committed one does not move while staged
  // getPosition(): the committed one merged with the pending one, a copy.
  const Position staged = buffer_.staged_over(committed);
  EXPECT_EQ(*staged.offset("in", 0), 9);
  EXPECT_EQ(*committed.offset("in", 0), 3);
  EXPECT_FALSE(buffer_.pending_position().is_empty());
  buffer_.merge_pending_position_into(committed);
  EXPECT_EQ(*committed.offset("in", 0), 9);
  EXPECT_TRUE(buffer_.pending_position().is_empty());
}

TEST_F(TransactionBufferTest, AllMergesForwardAndReverseTombstoneHidesBase) {
  base_[b("a")] = b("A");
  base_[b("c")] = b("C");
  base_[b("e")] = b("E");
  buffer_.stage(b("b"), b("b'"));
  buffer_.stage(b("c"), b("c'"));
  buffer_.stage(b("e"), std::nullopt);
  const Entries forward = scan(std::nullopt, std::nullopt, false, true);
  EXPECT_EQ(keys(forward), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(forward[2].value, b("c'"));  // staging wins over the base
  EXPECT_EQ(keys(scan(std::nullopt, std::nullopt, true, true)),
            (std::vector<std::string>{"c", "b", "a"}));
  // READ_COMMITTED: the base alone.
  EXPECT_EQ(keys(scan(std::nullopt, std::nullopt, false, true, IsolationLevel::READ_COMMITTED)),
            (std::vector<std::string>{"a", "c", "e"}));
}

TEST_F(TransactionBufferTest, RangeBoundsInclusiveExclusiveAndOpen) {
  for (const char* k : {"a", "b", "c", "d"}) buffer_.stage(b(k), b(k));
  EXPECT_EQ(keys(scan(b("b"), b("d"), false, true)), (std::vector<std::string>{"b", "c", "d"}));
  EXPECT_EQ(keys(scan(b("b"), b("d"), false, false)), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(keys(scan(std::nullopt, b("b"), false, true)), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(keys(scan(std::nullopt, b("b"), false, false)), (std::vector<std::string>{"a"}));
  EXPECT_EQ(keys(scan(b("c"), std::nullopt, false, true)), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(keys(scan(std::nullopt, std::nullopt, true, true)),
            (std::vector<std::string>{"d", "c", "b", "a"}));
  EXPECT_EQ(
      buffer_.staging_snapshot(std::nullopt, std::nullopt, true, IsolationLevel::READ_UNCOMMITTED)
          .size(),
      4u);
}

TEST_F(TransactionBufferTest, SnapshotTakenBeforeACommitIsUnchangedByIt) {
  base_[b("a")] = b("A");
  buffer_.stage(b("b"), b("B"));
  const Entries before = scan(std::nullopt, std::nullopt, false, true);
  ASSERT_TRUE(commit().has_value());
  buffer_.stage(b("c"), b("C"));
  EXPECT_EQ(keys(before), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(keys(scan(std::nullopt, std::nullopt, false, true)),
            (std::vector<std::string>{"a", "b", "c"}));
}

// StagedMergeIteratorTest.
Entries merge(const StagedWrites& staging, const Entries& base, bool reverse = false) {
  return staged_merge(staging, base, reverse);
}

TEST(StagedMergeIteratorTest, DisjointInterleavedAndEmptySides) {
  const StagedWrites staging{{b("b"), b("2")}, {b("d"), b("4")}};
  const Entries base{{b("a"), b("1")}, {b("c"), b("3")}, {b("e"), b("5")}};
  EXPECT_EQ(merge(staging, base), (Entries{{b("a"), b("1")},
                                           {b("b"), b("2")},
                                           {b("c"), b("3")},
                                           {b("d"), b("4")},
                                           {b("e"), b("5")}}));
  const Entries reversed_base{{b("e"), b("5")}, {b("c"), b("3")}, {b("a"), b("1")}};
  EXPECT_EQ(merge(staging, reversed_base, true), (Entries{{b("e"), b("5")},
                                                          {b("d"), b("4")},
                                                          {b("c"), b("3")},
                                                          {b("b"), b("2")},
                                                          {b("a"), b("1")}}));
  EXPECT_EQ(merge({}, base), base);
  EXPECT_EQ(merge(staging, {}), (Entries{{b("b"), b("2")}, {b("d"), b("4")}}));
  EXPECT_TRUE(merge({}, {}).empty());
}

TEST(StagedMergeIteratorTest, StagingWinsAndTombstonesHide) {
  const StagedWrites staging{
      {b("a"), b("new")}, {b("b"), std::nullopt}, {b("c"), std::nullopt}, {b("x"), std::nullopt}};
  const Entries base{{b("a"), b("old")}, {b("b"), b("B")}, {b("d"), b("D")}};
  EXPECT_EQ(merge(staging, base), (Entries{{b("a"), b("new")}, {b("d"), b("D")}}));
  const Entries reversed_base{{b("d"), b("D")}, {b("b"), b("B")}, {b("a"), b("old")}};
  EXPECT_EQ(merge(staging, reversed_base, true), (Entries{{b("d"), b("D")}, {b("a"), b("new")}}));
  // Only tombstones: nothing.
  EXPECT_TRUE(merge({{b("a"), std::nullopt}, {b("b"), std::nullopt}}, {}).empty());
}

}  // namespace
}  // namespace iq
