// Log compaction in the simulated broker: segments, the cleaner's choice and its bounded step,
// latest record per key, tombstones and transaction markers as Kafka's cleaner treats them.
#include <gtest/gtest.h>

#include <memory>

#include "broker/sim_broker.h"

namespace iq::sim {
namespace {

constexpr int32_t kTimeoutMs = 10'000;
const TopicPartition kTp{"changelog", 0};

Bytes b(const std::string& s) {
  return Bytes(std::string(s));
}

// Every record of these tests takes 70 bytes of overhead + a 1-byte key + a 2-byte value (73):
// a segment.bytes of 3 * 73 holds three of them.
constexpr int64_t kRecordBytes = 73;

struct World {
  explicit World(SimBrokerConfig config = cleaner_on(), TopicConfig topic = compacted()) {
    broker = std::make_unique<SimBroker>(config);
    EXPECT_EQ(broker->create_topic("changelog", 1, topic), Errors::NONE);
  }
  static SimBrokerConfig cleaner_on() {
    SimBrokerConfig c;
    c.cleaner.enable = true;
    return c;
  }
  static TopicConfig compacted() {
    TopicConfig t;
    t.cleanup_policy = CleanupPolicy::kCompact;
    t.segment_bytes = 3 * kRecordBytes;
    t.delete_retention_ms = 1'000;
    t.min_cleanable_dirty_ratio = {0, 1};  // any dirty byte is enough
    return t;
  }
  int64_t put(const std::string& key, std::optional<std::string> value, int64_t now_ms) {
    std::optional<Bytes> v;
    if (value) v = b(*value);
    auto o = broker->produce(kTp, b(key), v, now_ms, {}, now_ms);
    EXPECT_TRUE(o.has_value());
    return o ? *o : -1;
  }
  // (offset, key, value or "-" for a tombstone) of every record read_uncommitted returns.
  std::vector<std::string> contents(IsolationLevel level = IsolationLevel::READ_UNCOMMITTED) {
    auto data = broker->fetch(kTp, *broker->beginning_offset(kTp), 1'000, level);
    EXPECT_TRUE(data.has_value());
    std::vector<std::string> out;
    for (const auto& r : data->records) {
      out.push_back(std::to_string(r.offset) + ":" + std::string(r.key->view()) + "=" +
                    (r.value ? std::string(r.value->view()) : "-"));
    }
    return out;
  }
  std::unique_ptr<SimBroker> broker;
};

TEST(SimBrokerCompactionTest, TheCleanerKeepsTheLatestRecordPerKeyBeyondTheActiveSegment) {
  // Records roll into segments of segment.bytes; one cleaner step keeps only the latest record
  // of each key below the active segment, keeps offsets (gaps, not renumbering), leaves the
  // active segment alone, and a fetch continues past the gaps.
  World w;
  const char* keys[] = {"a", "b", "a", "c", "a", "b", "c", "a"};
  for (int i = 0; i < 8; ++i) w.put(keys[i], "v" + std::to_string(i), i);
  EXPECT_EQ(w.broker->segment_base_offsets(kTp), (std::vector<int64_t>{0, 3, 6}));
  auto stats = w.broker->clean_step(100);
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->first_dirty_offset, 0);
  EXPECT_EQ(stats->end_offset, 6);  // the active segment starts at 6
  EXPECT_EQ(stats->records_read, 6);
  // Below 6: a's latest there is 4 (7 is in the active segment, so a@4 stays), b@5, c@3.
  EXPECT_EQ(w.contents(),
            (std::vector<std::string>{"3:c=v3", "4:a=v4", "5:b=v5", "6:c=v6", "7:a=v7"}));
  EXPECT_EQ(stats->records_removed, 3);
  EXPECT_EQ(w.broker->total_records(), 5);
  EXPECT_EQ(*w.broker->beginning_offset(kTp), 0);  // cleaning never moves the log start
  EXPECT_EQ(*w.broker->end_offset(kTp), 8);
  auto from_gap = w.broker->fetch(kTp, 1, 10, IsolationLevel::READ_UNCOMMITTED);
  ASSERT_TRUE(from_gap.has_value());
  EXPECT_EQ(from_gap->records.front().offset, 3);
  EXPECT_EQ(from_gap->next_fetch_offset, 8);
  // Nothing dirty is left below the active segment: the next step has nothing to do.
  EXPECT_FALSE(w.broker->clean_step(200).has_value());
  // New records fill the active segment [6, 9) and roll a new one at 9; the next step cleans
  // [6, 9) and, against its map (c@6, a@8), the older segments too: b@5 stays, its key is not in
  // the map.
  w.put("a", "v8", 300);
  w.put("b", "v9", 301);
  w.put("c", "v10", 302);
  EXPECT_EQ(w.broker->segment_base_offsets(kTp), (std::vector<int64_t>{0, 6, 9}));
  ASSERT_TRUE(w.broker->clean_step(400).has_value());
  EXPECT_EQ(w.contents(),
            (std::vector<std::string>{"5:b=v5", "6:c=v6", "8:a=v8", "9:b=v9", "10:c=v10"}));
}

TEST(SimBrokerCompactionTest, TombstonesAreRemovedOnlyAfterDeleteRetentionMs) {
  // A tombstone that is its key's latest record survives the cleaning that first sees it and
  // every cleaning before that one's time + delete.retention.ms; the first cleaning after it
  // removes the tombstone (and with it the key).
  World w;
  w.put("a", "v0", 0);
  w.put("a", std::nullopt, 1);  // tombstone at 1
  w.put("b", "v2", 2);
  w.put("b", "v3", 3);  // rolls: segment [3..5]
  w.put("c", "v4", 4);
  w.put("c", "v5", 5);
  w.put("d", "v6", 6);                                    // active segment from 6
  ASSERT_TRUE(w.broker->clean_step(10'000).has_value());  // horizon of the tombstone: 11 000
  EXPECT_EQ(w.contents(), (std::vector<std::string>{"1:a=-", "3:b=v3", "5:c=v5", "6:d=v6"}));
  // More dirty data, cleaned before the horizon: the tombstone stays.
  w.put("d", "v7", 10'500);
  w.put("d", "v8", 10'501);  // rolls at 9
  w.put("e", "v9", 10'502);
  ASSERT_TRUE(w.broker->clean_step(10'999).has_value());
  EXPECT_EQ(w.contents()[0], "1:a=-");
  w.put("e", "v10", 11'500);  // more dirty data, so that the cleaner runs again
  w.put("f", "v11", 11'501);
  w.put("f", "v12", 11'502);
  w.put("g", "v13", 11'503);
  ASSERT_TRUE(w.broker->clean_step(11'000).has_value());
  const auto after = w.contents();
  ASSERT_FALSE(after.empty());
  EXPECT_NE(after[0], "1:a=-") << "the tombstone outlived delete.retention.ms";
  for (const auto& r : after) EXPECT_NE(r.rfind("1:", 0), 0u) << r;
}

TEST(SimBrokerCompactionTest, AbortedRecordsGoFirstAndTheirMarkerAfterItsHorizon) {
  // As Kafka's CleanedTransactionMetadata decides: the first cleaning drops the aborted records
  // and keeps their ABORT marker (and index entry); a later cleaning finds the transaction empty
  // and sets the marker's delete horizon; one after delete.retention.ms removes it. Committed
  // records are compacted like any other, read_committed sees the same records before and after.
  World w;
  auto init = w.broker->init_producer_id("app-1", kTimeoutMs, 0);
  ASSERT_TRUE(init.has_value());
  ASSERT_EQ(w.broker->add_partitions_to_txn("app-1", *init, {kTp}, 0), Errors::NONE);
  ASSERT_TRUE(w.broker->produce_transactional("app-1", *init, kTp, b("a"), b("x0"), 0, {}, 0));
  ASSERT_TRUE(w.broker->produce_transactional("app-1", *init, kTp, b("b"), b("x1"), 1, {}, 1));
  ASSERT_EQ(w.broker->end_txn("app-1", *init, ControlRecordType::ABORT, 2), Errors::NONE);  // @2
  w.put("c", "v3", 3);
  w.put("c", "v4", 4);
  w.put("d", "v5", 5);
  w.put("d", "v6", 6);  // active from 6
  EXPECT_EQ(w.contents(IsolationLevel::READ_COMMITTED),
            (std::vector<std::string>{"3:c=v3", "4:c=v4", "5:d=v5", "6:d=v6"}));
  ASSERT_TRUE(w.broker->clean_step(100).has_value());
  EXPECT_EQ(w.broker->retained_entries(kTp), 4);  // marker@2, c@4, d@5, d@6
  EXPECT_EQ(w.broker->aborted_transactions(kTp).size(), 1u);
  EXPECT_EQ(w.contents(IsolationLevel::READ_COMMITTED),
            (std::vector<std::string>{"4:c=v4", "5:d=v5", "6:d=v6"}));
  // Roll more segments so the cleaner runs again: the emptied transaction's marker gets its
  // horizon (300 + 1 000) and its index entry goes; d@5 is superseded by d@6, e@7 by e@8.
  w.put("e", "v7", 200);
  w.put("e", "v8", 201);
  w.put("f", "v9", 202);
  ASSERT_TRUE(w.broker->clean_step(300).has_value());
  EXPECT_TRUE(w.broker->aborted_transactions(kTp).empty());
  EXPECT_EQ(w.broker->retained_entries(kTp), 5);  // marker@2, c@4, d@6, e@8, f@9
  EXPECT_EQ(w.contents(IsolationLevel::READ_COMMITTED),
            (std::vector<std::string>{"4:c=v4", "6:d=v6", "8:e=v8", "9:f=v9"}));
  w.put("f", "v10", 2'000);
  w.put("g", "v11", 2'001);
  w.put("g", "v12", 2'002);
  w.put("h", "v13", 2'003);
  ASSERT_TRUE(w.broker->clean_step(2'000).has_value());  // past 300 + 1 000
  auto all = w.broker->fetch(kTp, 0, 1'000, IsolationLevel::READ_UNCOMMITTED);
  ASSERT_TRUE(all.has_value());
  // Every retained entry is a data record: the marker is gone.
  EXPECT_EQ(w.broker->retained_entries(kTp), static_cast<int64_t>(all->records.size()))
      << "a marker is still retained";
  EXPECT_TRUE(w.broker->aborted_transactions(kTp).empty());
}

TEST(SimBrokerCompactionTest, TheCleanerNeverPassesTheLastStableOffset) {
  // An open transaction pins the cleanable range below its first offset, whatever the segments:
  // nothing at or after the LSO's segment is cleaned.
  World w;
  auto init = w.broker->init_producer_id("app-1", kTimeoutMs, 0);
  ASSERT_TRUE(init.has_value());
  w.put("a", "v0", 0);
  w.put("a", "v1", 1);
  w.put("a", "v2", 2);
  ASSERT_EQ(w.broker->add_partitions_to_txn("app-1", *init, {kTp}, 3), Errors::NONE);
  ASSERT_TRUE(w.broker->produce_transactional("app-1", *init, kTp, b("a"), b("t3"), 3, {}, 3));
  w.put("a", "v4", 4);
  w.put("a", "v5", 5);
  w.put("a", "v6", 6);  // active from 6
  EXPECT_EQ(*w.broker->last_stable_offset(kTp), 3);
  auto stats = w.broker->clean_step(10);
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->end_offset, 3);
  // a@0 and a@1 are superseded by a@2 within the cleanable part; 3.. are untouched.
  EXPECT_EQ(w.contents(),
            (std::vector<std::string>{"2:a=v2", "3:a=t3", "4:a=v4", "5:a=v5", "6:a=v6"}));
}

TEST(SimBrokerCompactionTest, AStepReadsAtMostItsBoundAndTheRestWaits) {
  // records_per_step_max bounds the dirty records one step reads into its offset map; the first
  // dirty offset then advances by that much, and the next steps finish the work.
  SimBrokerConfig config = World::cleaner_on();
  config.cleaner.records_per_step_max = 2;
  World w(config);
  for (int i = 0; i < 7; ++i) w.put("a", "v" + std::to_string(i), i);  // active from 6
  auto first = w.broker->clean_step(10);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->records_read, 2);
  EXPECT_EQ(first->end_offset, 2);
  EXPECT_EQ(first->records_removed, 1);  // a@0 (a@1 is the map's latest)
  auto second = w.broker->clean_step(20);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->first_dirty_offset, 2);
  EXPECT_EQ(second->end_offset, 4);
  int steps = 2;
  while (w.broker->clean_step(30 + steps).has_value()) ASSERT_LE(++steps, 10);
  EXPECT_EQ(w.contents(), (std::vector<std::string>{"5:a=v5", "6:a=v6"}));
}

TEST(SimBrokerCompactionTest, MinCleanableDirtyRatioAndTheSwitchDecideWhetherToClean) {
  // A partition is cleaned only once its dirty share exceeds min.cleanable.dirty.ratio, only on
  // a compacted topic, and never while log.cleaner.enable is off (the default).
  TopicConfig half = World::compacted();
  half.min_cleanable_dirty_ratio = {1, 2};
  World w(World::cleaner_on(), half);
  for (int i = 0; i < 7; ++i) w.put("a", "v" + std::to_string(i), i);  // segments 0, 3, 6
  ASSERT_TRUE(w.broker->clean_step(10).has_value());                   // all dirty: ratio 1
  // The clean part is a@5 (73 bytes); the active segment [6, 9) fills and one more record rolls
  // it: 219 dirty bytes of 292, a ratio of 0.75 > 0.5.
  w.put("a", "v7", 11);
  w.put("a", "v8", 12);
  EXPECT_FALSE(w.broker->clean_step(15).has_value());  // nothing below the active segment
  w.put("a", "v9", 13);
  EXPECT_TRUE(w.broker->clean_step(20).has_value());
  // A ratio must exceed the minimum: with 1.0 nothing is ever cleaned.
  TopicConfig never = World::compacted();
  never.min_cleanable_dirty_ratio = {1, 1};
  World full(World::cleaner_on(), never);
  for (int i = 0; i < 7; ++i) full.put("a", "v" + std::to_string(i), i);
  EXPECT_FALSE(full.broker->clean_step(10).has_value());

  World off(SimBrokerConfig{}, World::compacted());
  for (int i = 0; i < 7; ++i) off.put("a", "v" + std::to_string(i), i);
  EXPECT_FALSE(off.broker->clean_step(10).has_value());
  EXPECT_EQ(off.broker->total_records(), 7);

  World plain(World::cleaner_on(), TopicConfig{});
  for (int i = 0; i < 7; ++i) plain.put("a", "v" + std::to_string(i), i);
  EXPECT_FALSE(plain.broker->clean_step(10).has_value());
  auto keyless = w.broker->produce(kTp, std::nullopt, b("v"), 30, {}, 30);
  ASSERT_FALSE(keyless.has_value());
  EXPECT_EQ(keyless.error(), Errors::INVALID_RECORD);
}

}  // namespace
}  // namespace iq::sim
