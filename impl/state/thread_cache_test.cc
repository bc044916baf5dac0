// Unit tests of NamedCache and ThreadCache, the byte-bounded record cache of a stream thread
// (Kafka's NamedCacheTest and ThreadCacheTest).
#include "state/thread_cache.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace iq {
namespace {

// The record context a processed record gives its cache entry.
RecordContext context_at(int64_t offset, std::string topic = "t", int32_t partition = 0) {
  return RecordContext{std::move(topic), partition, offset, /*timestamp=*/offset * 10, {}};
}

// A dirty entry written at `offset` with a one-byte topic: 1 + |value| + 20 + 1 bytes.
LRUCacheEntry dirty(std::optional<std::string> value, int64_t offset) {
  ValueBytes v;
  if (value) v = Bytes(*value);
  return LRUCacheEntry{v, context_at(offset), true};
}

// With a one-byte key and value and topic "t", every node is 1 + 24 + (1 + 1 + 20 + 1) = 48 bytes.
constexpr int64_t kNodeBytes = 48;
// A clean one-byte entry under a one-byte key: 1 + 24 + (1 + 1 + 20) = 47 bytes.
constexpr int64_t kCleanNodeBytes = 47;

// Records what each flush handed the listener.
struct FlushLog {
  std::vector<std::vector<DirtyEntry>> calls;
  FlushListener listener() {
    return [this](const std::vector<DirtyEntry>& entries) {
      calls.push_back(entries);
      return ok_status();
    };
  }
  // Keys of one call, in order, as a string ("cab").
  static std::string keys(const std::vector<DirtyEntry>& entries) {
    std::string out;
    for (const auto& e : entries) out += e.key.get();
    return out;
  }
};

std::string keys_of(const std::vector<Bytes>& keys) {
  std::string out;
  for (const auto& k : keys) out += k.get();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sizes

TEST(NamedCacheTest, EntryAndNodeSizeFollowKafkasFormula) {
  // Proves entry size = 1 + value + 8 + 8 + 4 + topic + header bytes, and node = key + 24 + entry.
  LRUCacheEntry entry{Bytes("abc"),
                      RecordContext{std::string("input"), 2, 7, 100, {Header{"h", Bytes("xy")}}},
                      true};
  EXPECT_EQ(entry.size_bytes(), 1 + 3 + 8 + 8 + 4 + 5 + (1 + 2));
  NamedCache cache("0_0-store");
  cache.put(Bytes("key"), entry);
  EXPECT_EQ(cache.size_bytes(), 3 + 24 + 32);
}

TEST(NamedCacheTest, CleanEntrySizeIsValuePlusTwentyOne) {
  // Proves a clean entry (empty topic, no headers) is |value| + 21 bytes, a tombstone counts 0.
  EXPECT_EQ(LRUCacheEntry::clean(Bytes("abcd")).size_bytes(), 4 + 21);
  EXPECT_EQ(dirty(std::nullopt, 1).size_bytes(), 0 + 21 + 1);
  EXPECT_EQ(dirty(std::string("v"), 1).size_bytes(), 1 + 21 + 1);
  // A punctuation's context has no topic; its size counts 0 for it.
  LRUCacheEntry no_topic{Bytes("v"), RecordContext{std::nullopt, -1, -1, 0, {}}, true};
  EXPECT_EQ(no_topic.size_bytes(), 1 + 21);
}

TEST(NamedCacheTest, OverwriteReplacesTheSize) {
  // Proves re-putting a key replaces its old size rather than adding to it.
  NamedCache cache("ns");
  FlushLog log;
  cache.set_listener(log.listener());
  cache.put(Bytes("a"), dirty(std::string("x"), 1));
  EXPECT_EQ(cache.size_bytes(), kNodeBytes);
  cache.put(Bytes("a"), dirty(std::string("xyz"), 2));
  EXPECT_EQ(cache.size_bytes(), kNodeBytes + 2);
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_EQ(cache.dirty_count(), 1u);
}

TEST(ThreadCacheTest, ThreadTotalIsTheSumOfItsNamespaces) {
  // Proves the thread's size is the sum of its namespaces' node sizes.
  ThreadCache cache(1'000'000);
  ASSERT_TRUE(cache.put("0_0-s", Bytes("a"), LRUCacheEntry::clean(Bytes("v"))).has_value());
  ASSERT_TRUE(cache.put("0_1-s", Bytes("bb"), LRUCacheEntry::clean(Bytes("vv"))).has_value());
  EXPECT_EQ(cache.size_bytes(), kCleanNodeBytes + (2 + 24 + 23));
  cache.remove("0_0-s", Bytes("a"));
  EXPECT_EQ(cache.size_bytes(), 2 + 24 + 23);
}

TEST(ThreadCacheTest, NameSpaceIsTaskDashStore) {
  // Proves the namespace of a store is "<task id>-<store name>".
  EXPECT_EQ(ThreadCache::name_space(TaskId{1, 3}, "counts"), "1_3-counts");
}

// ---------------------------------------------------------------------------------------------
// Eviction

TEST(ThreadCacheTest, EvictsOnlyFromTheNamespaceWritten) {
  // Proves going over budget evicts from the namespace just written, never from another one.
  ThreadCache cache(3 * kNodeBytes);
  FlushLog log1;
  FlushLog log2;
  cache.add_dirty_entry_flush_listener("ns1", log1.listener());
  cache.add_dirty_entry_flush_listener("ns2", log2.listener());
  ASSERT_TRUE(cache.put("ns1", Bytes("a"), dirty(std::string("1"), 1)).has_value());
  ASSERT_TRUE(cache.put("ns1", Bytes("b"), dirty(std::string("1"), 2)).has_value());
  ASSERT_TRUE(cache.put("ns2", Bytes("c"), dirty(std::string("1"), 3)).has_value());
  ASSERT_TRUE(cache.put("ns2", Bytes("d"), dirty(std::string("1"), 4)).has_value());
  // ns1's eldest "a" is older than anything in ns2, yet ns2's eldest "c" is the one evicted.
  EXPECT_EQ(cache.named_cache("ns1")->entries(), 2u);
  EXPECT_EQ(cache.named_cache("ns1")->dirty_count(), 2u);
  EXPECT_TRUE(log1.calls.empty());
  EXPECT_EQ(keys_of(cache.named_cache("ns2")->keys_eldest_first()), "d");
  ASSERT_EQ(log2.calls.size(), 1u);
  EXPECT_EQ(FlushLog::keys(log2.calls[0]), "cd");
  EXPECT_EQ(cache.size_bytes(), 3 * kNodeBytes);
}

TEST(ThreadCacheTest, WrittenNamespaceMayEvictItsOnlyEntry) {
  // Proves a put into a small namespace evicts that very entry when only another namespace is big.
  ThreadCache cache(2 * kNodeBytes + 10);
  ASSERT_TRUE(cache.put("big", Bytes("a"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  ASSERT_TRUE(cache.put("big", Bytes("b"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  ASSERT_TRUE(cache.put("small", Bytes("c"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  EXPECT_EQ(cache.named_cache("big")->entries(), 2u);
  EXPECT_TRUE(cache.named_cache("small")->empty());
  EXPECT_EQ(cache.get("small", Bytes("c")), nullptr);
}

TEST(NamedCacheTest, EldestByAccessIsEvictedFirst) {
  // Proves get() refreshes recency, so the least recently accessed entry is evicted first.
  ThreadCache cache(3 * kNodeBytes);
  for (const char* k : {"a", "b", "c"}) {
    ASSERT_TRUE(cache.put("ns", Bytes(k), LRUCacheEntry::clean(Bytes("1"))).has_value());
  }
  ASSERT_NE(cache.get("ns", Bytes("a")), nullptr);
  EXPECT_EQ(keys_of(cache.named_cache("ns")->keys_eldest_first()), "bca");
  ASSERT_TRUE(cache.put("ns", Bytes("d"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  EXPECT_EQ(keys_of(cache.named_cache("ns")->keys_eldest_first()), "cad");
  EXPECT_EQ(cache.get("ns", Bytes("b")), nullptr);
}

TEST(NamedCacheTest, PeekDoesNotRefreshRecency) {
  // Proves peek() looks without moving the entry, unlike get().
  NamedCache cache("ns");
  cache.put(Bytes("a"), LRUCacheEntry::clean(Bytes("1")));
  cache.put(Bytes("b"), LRUCacheEntry::clean(Bytes("1")));
  ASSERT_NE(cache.peek(Bytes("a")), nullptr);
  EXPECT_EQ(keys_of(cache.keys_eldest_first()), "ab");
  ASSERT_NE(cache.get(Bytes("a")), nullptr);
  EXPECT_EQ(keys_of(cache.keys_eldest_first()), "ba");
}

TEST(NamedCacheTest, RePutMovesAKeyToMostRecentlyUsed) {
  // Proves overwriting a key makes it the most recently used.
  NamedCache cache("ns");
  FlushLog log;
  cache.set_listener(log.listener());
  cache.put(Bytes("a"), dirty(std::string("1"), 1));
  cache.put(Bytes("b"), dirty(std::string("1"), 2));
  cache.put(Bytes("a"), dirty(std::string("2"), 3));
  EXPECT_EQ(keys_of(cache.keys_eldest_first()), "ba");
}

TEST(NamedCacheTest, DirtyEvictionFlushesEvictedFirstThenAllDirtyInLastWriteOrder) {
  // Proves evicting a dirty entry flushes it first, then every other dirty entry in the order of
  // its last write (a re-put moves a key to the end), each with its own record context.
  ThreadCache cache(3 * kNodeBytes);
  FlushLog log;
  cache.add_dirty_entry_flush_listener("ns", log.listener());
  ASSERT_TRUE(cache.put("ns", Bytes("a"), dirty(std::string("1"), 1)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("b"), dirty(std::string("1"), 2)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("c"), dirty(std::string("1"), 3)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("b"), dirty(std::string("2"), 4)).has_value());  // dirty: a c b
  ASSERT_NE(cache.get("ns", Bytes("a")), nullptr);                                   // LRU: c b a
  EXPECT_TRUE(log.calls.empty());
  ASSERT_TRUE(cache.put("ns", Bytes("d"), dirty(std::string("1"), 5)).has_value());
  ASSERT_EQ(log.calls.size(), 1u);
  const auto& flushed = log.calls[0];
  EXPECT_EQ(FlushLog::keys(flushed), "cabd");
  // Each entry carries the context of its own (last) write.
  ASSERT_EQ(flushed.size(), 4u);
  EXPECT_EQ(flushed[0].context, context_at(3));
  EXPECT_EQ(flushed[1].context, context_at(1));
  EXPECT_EQ(flushed[2].context, context_at(4));
  EXPECT_EQ(flushed[3].context, context_at(5));
  EXPECT_EQ(flushed[2].new_value, std::optional<Bytes>(Bytes("2")));
  // Everything left is clean; the evicted key is gone.
  const NamedCache* ns = cache.named_cache("ns");
  EXPECT_EQ(ns->dirty_count(), 0u);
  EXPECT_EQ(keys_of(ns->keys_eldest_first()), "bad");
  for (const char* k : {"a", "b", "d"}) EXPECT_FALSE(ns->peek(Bytes(k))->dirty) << k;
}

TEST(NamedCacheTest, CleanEvictionFlushesNothing) {
  // Proves evicting a clean entry just drops it: the listener is not called and dirty entries stay.
  ThreadCache cache(3 * kNodeBytes);
  FlushLog log;
  cache.add_dirty_entry_flush_listener("ns", log.listener());
  ASSERT_TRUE(cache.put("ns", Bytes("x"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("a"), dirty(std::string("1"), 1)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("b"), dirty(std::string("1"), 2)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("c"), dirty(std::string("1"), 3)).has_value());
  EXPECT_TRUE(log.calls.empty());
  EXPECT_EQ(keys_of(cache.named_cache("ns")->keys_eldest_first()), "abc");
  EXPECT_EQ(cache.named_cache("ns")->dirty_count(), 3u);
}

TEST(NamedCacheTest, DirectEvictOfCleanEntryDoesNotNeedAListener) {
  // Proves NamedCache::evict of a clean eldest entry drops it without any flush.
  NamedCache cache("ns");
  cache.put(Bytes("a"), LRUCacheEntry::clean(Bytes("1")));
  ASSERT_TRUE(cache.evict().has_value());
  EXPECT_TRUE(cache.empty());
  EXPECT_EQ(cache.size_bytes(), 0);
  // Evicting from an empty cache is a no-op.
  EXPECT_TRUE(cache.evict().has_value());
}

TEST(NamedCacheTest, FlushedTombstonesLeaveTheCache) {
  // Proves a flush hands tombstones to the listener and then removes them from the cache.
  ThreadCache cache(1'000'000);
  FlushLog log;
  cache.add_dirty_entry_flush_listener("ns", log.listener());
  ASSERT_TRUE(cache.put("ns", Bytes("a"), dirty(std::string("1"), 1)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("b"), dirty(std::nullopt, 2)).has_value());
  ASSERT_TRUE(cache.flush("ns").has_value());
  ASSERT_EQ(log.calls.size(), 1u);
  EXPECT_EQ(FlushLog::keys(log.calls[0]), "ab");
  EXPECT_FALSE(log.calls[0][1].new_value.has_value());
  const NamedCache* ns = cache.named_cache("ns");
  EXPECT_EQ(ns->entries(), 1u);
  EXPECT_EQ(ns->peek(Bytes("b")), nullptr);
  ASSERT_NE(ns->peek(Bytes("a")), nullptr);
  EXPECT_FALSE(ns->peek(Bytes("a"))->dirty);
  EXPECT_EQ(cache.size_bytes(), kNodeBytes);
}

TEST(NamedCacheTest, TombstonesFlushedByAnEvictionLeaveTheCacheToo) {
  // Proves a flush triggered by a dirty eviction also removes the tombstones it flushed.
  ThreadCache cache(3 * kNodeBytes);
  FlushLog log;
  cache.add_dirty_entry_flush_listener("ns", log.listener());
  ASSERT_TRUE(cache.put("ns", Bytes("a"), dirty(std::string("1"), 1)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("b"), dirty(std::nullopt, 2)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("c"), dirty(std::string("1"), 3)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("d"), dirty(std::string("1"), 4)).has_value());
  ASSERT_EQ(log.calls.size(), 1u);
  EXPECT_EQ(FlushLog::keys(log.calls[0]), "abcd");
  EXPECT_EQ(keys_of(cache.named_cache("ns")->keys_eldest_first()), "cd");
}

TEST(NamedCacheTest, ListenerReceivesEachEntrysOwnRecordContext) {
  // Proves a flushed entry carries the exact record context (topic, partition, offset, timestamp,
  // headers) it was written under, not the context current at flush time.
  ThreadCache cache(1'000'000);
  FlushLog log;
  cache.add_dirty_entry_flush_listener("ns", log.listener());
  const RecordContext first{std::string("input-a"), 1, 10, 1000, {Header{"h1", Bytes("x")}}};
  const RecordContext second{std::string("input-b"), 2, 20, 2000, {}};
  const RecordContext punctuation{std::nullopt, -1, -1, 3000, {}};
  ASSERT_TRUE(cache.put("ns", Bytes("k1"), LRUCacheEntry{Bytes("v1"), first, true}).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("k2"), LRUCacheEntry{Bytes("v2"), second, true}).has_value());
  ASSERT_TRUE(
      cache.put("ns", Bytes("k3"), LRUCacheEntry{Bytes("v3"), punctuation, true}).has_value());
  ASSERT_TRUE(cache.flush("ns").has_value());
  ASSERT_EQ(log.calls.size(), 1u);
  ASSERT_EQ(log.calls[0].size(), 3u);
  EXPECT_EQ(log.calls[0][0].context, first);
  EXPECT_EQ(log.calls[0][1].context, second);
  EXPECT_EQ(log.calls[0][2].context, punctuation);
  EXPECT_EQ(log.calls[0][0].new_value, std::optional<Bytes>(Bytes("v1")));
}

TEST(NamedCacheTest, FlushWithNothingDirtyDoesNotCallTheListener) {
  // Proves a flush of a namespace with no dirty entries calls no listener.
  ThreadCache cache(1'000'000);
  FlushLog log;
  cache.add_dirty_entry_flush_listener("ns", log.listener());
  ASSERT_TRUE(cache.put("ns", Bytes("a"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  ASSERT_TRUE(cache.flush("ns").has_value());
  EXPECT_TRUE(log.calls.empty());
  // A second flush after a real one has nothing left to hand over either.
  ASSERT_TRUE(cache.put("ns", Bytes("b"), dirty(std::string("1"), 1)).has_value());
  ASSERT_TRUE(cache.flush("ns").has_value());
  ASSERT_TRUE(cache.flush("ns").has_value());
  EXPECT_EQ(log.calls.size(), 1u);
  // Flushing an unknown namespace is a no-op.
  EXPECT_TRUE(cache.flush("nobody").has_value());
}

TEST(ThreadCacheTest, ClearDropsWithoutFlushing) {
  // Proves clear() drops every entry, dirty ones included, without calling the listener.
  ThreadCache cache(1'000'000);
  FlushLog log;
  cache.add_dirty_entry_flush_listener("ns", log.listener());
  ASSERT_TRUE(cache.put("ns", Bytes("a"), dirty(std::string("1"), 1)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("b"), dirty(std::string("1"), 2)).has_value());
  ASSERT_TRUE(cache.put("other", Bytes("c"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  cache.clear("ns");
  EXPECT_TRUE(log.calls.empty());
  ASSERT_NE(cache.named_cache("ns"), nullptr);  // the namespace stays registered
  EXPECT_TRUE(cache.named_cache("ns")->empty());
  EXPECT_EQ(cache.named_cache("ns")->dirty_count(), 0u);
  EXPECT_EQ(cache.size_bytes(), kCleanNodeBytes);  // only "other" is left
  ASSERT_TRUE(cache.flush("ns").has_value());
  EXPECT_TRUE(log.calls.empty());
  // The listener is kept: a later dirty write is flushed through it.
  ASSERT_TRUE(cache.put("ns", Bytes("d"), dirty(std::string("1"), 3)).has_value());
  ASSERT_TRUE(cache.flush("ns").has_value());
  ASSERT_EQ(log.calls.size(), 1u);
  EXPECT_EQ(FlushLog::keys(log.calls[0]), "d");
}

TEST(ThreadCacheTest, RemoveDoesNotFlush) {
  // Proves remove() takes a dirty entry out without flushing it.
  ThreadCache cache(1'000'000);
  FlushLog log;
  cache.add_dirty_entry_flush_listener("ns", log.listener());
  ASSERT_TRUE(cache.put("ns", Bytes("a"), dirty(std::string("1"), 1)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("b"), dirty(std::string("1"), 2)).has_value());
  auto removed = cache.remove("ns", Bytes("a"));
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(removed->context, context_at(1));
  EXPECT_TRUE(log.calls.empty());
  ASSERT_TRUE(cache.flush("ns").has_value());
  ASSERT_EQ(log.calls.size(), 1u);
  EXPECT_EQ(FlushLog::keys(log.calls[0]), "b");
  EXPECT_FALSE(cache.remove("ns", Bytes("zz")).has_value());
  EXPECT_FALSE(cache.remove("nobody", Bytes("a")).has_value());
}

TEST(ThreadCacheTest, ZeroMaxBytesWritesThroughOnEveryPut) {
  // Proves a cache of 0 bytes flushes each dirty put at once, alone, and keeps nothing.
  ThreadCache cache(0);
  FlushLog log;
  cache.add_dirty_entry_flush_listener("ns", log.listener());
  ASSERT_TRUE(cache.put("ns", Bytes("a"), dirty(std::string("1"), 1)).has_value());
  ASSERT_EQ(log.calls.size(), 1u);
  EXPECT_EQ(FlushLog::keys(log.calls[0]), "a");
  EXPECT_EQ(cache.size_bytes(), 0);
  ASSERT_TRUE(cache.put("ns", Bytes("b"), dirty(std::nullopt, 2)).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("a"), dirty(std::string("2"), 3)).has_value());
  ASSERT_EQ(log.calls.size(), 3u);
  EXPECT_EQ(FlushLog::keys(log.calls[1]), "b");
  EXPECT_EQ(FlushLog::keys(log.calls[2]), "a");
  EXPECT_EQ(log.calls[2][0].context, context_at(3));
  EXPECT_TRUE(cache.named_cache("ns")->empty());
  // A clean entry (a read cached by the stream thread) is dropped at once, with no flush.
  ASSERT_TRUE(cache.put("ns", Bytes("c"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  EXPECT_EQ(log.calls.size(), 3u);
  EXPECT_EQ(cache.get("ns", Bytes("c")), nullptr);
}

TEST(ThreadCacheTest, ResizeShrinkingEvictsRoundRobin) {
  // Proves shrinking evicts one eldest entry per namespace in turn until under the new budget.
  ThreadCache cache(4 * kNodeBytes);
  FlushLog log1;
  FlushLog log2;
  cache.add_dirty_entry_flush_listener("ns1", log1.listener());
  cache.add_dirty_entry_flush_listener("ns2", log2.listener());
  ASSERT_TRUE(cache.put("ns1", Bytes("a"), dirty(std::string("1"), 1)).has_value());
  ASSERT_TRUE(cache.put("ns1", Bytes("b"), dirty(std::string("1"), 2)).has_value());
  ASSERT_TRUE(cache.put("ns2", Bytes("c"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  ASSERT_TRUE(cache.put("ns2", Bytes("d"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  ASSERT_TRUE(cache.resize(2 * kNodeBytes).has_value());
  EXPECT_EQ(cache.max_bytes(), 2 * kNodeBytes);
  EXPECT_EQ(cache.size_bytes(), kNodeBytes + kCleanNodeBytes);
  EXPECT_EQ(keys_of(cache.named_cache("ns1")->keys_eldest_first()), "b");
  EXPECT_EQ(keys_of(cache.named_cache("ns2")->keys_eldest_first()), "d");
  // ns1's dirty eviction flushed all of ns1's dirty entries; ns2's was clean.
  ASSERT_EQ(log1.calls.size(), 1u);
  EXPECT_EQ(FlushLog::keys(log1.calls[0]), "ab");
  EXPECT_TRUE(log2.calls.empty());
}

TEST(ThreadCacheTest, ResizeGrowingEvictsNothing) {
  // Proves growing the budget only raises the limit.
  ThreadCache cache(2 * kNodeBytes);
  ASSERT_TRUE(cache.put("ns", Bytes("a"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  ASSERT_TRUE(cache.put("ns", Bytes("b"), LRUCacheEntry::clean(Bytes("1"))).has_value());
  ASSERT_TRUE(cache.resize(10 * kNodeBytes).has_value());
  EXPECT_EQ(cache.named_cache("ns")->entries(), 2u);
  ASSERT_TRUE(cache.resize(0).has_value());
  EXPECT_EQ(cache.size_bytes(), 0);
  EXPECT_TRUE(cache.named_cache("ns")->empty());
}

TEST(ThreadCacheTest, CloseForgetsTheNamespaceWithoutFlushing) {
  // Proves close() unregisters a namespace and drops its entries without a flush.
  ThreadCache cache(1'000'000);
  FlushLog log;
  cache.add_dirty_entry_flush_listener("ns", log.listener());
  ASSERT_TRUE(cache.put("ns", Bytes("a"), dirty(std::string("1"), 1)).has_value());
  cache.close("ns");
  EXPECT_TRUE(log.calls.empty());
  EXPECT_EQ(cache.named_cache("ns"), nullptr);
  EXPECT_EQ(cache.size_bytes(), 0);
  EXPECT_EQ(cache.get("ns", Bytes("a")), nullptr);
}

}  // namespace
}  // namespace iq
