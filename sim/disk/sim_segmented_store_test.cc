// Unit tests of the segmented RocksDB stores (impl/state/rocksdb_window_store.h,
// rocksdb_session_store.h) on a SimDisk: one database per segment under the task directory,
// what a crash keeps of them, and how an expired segment's unsynced deletion comes back.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "disk/sim_disk.h"
#include "disk/sim_file_system.h"
#include "disk/sim_rocksdb_env.h"
#include "state/rocksdb_session_store.h"
#include "state/rocksdb_window_store.h"
#include "state/test_state_store_context.h"

namespace iq::sim {
namespace {

constexpr const char* kTaskDir = "/state/app/0_0";

Bytes key(const std::string& k) {
  return Bytes::wrap(k);
}

std::vector<std::string> values(const StoreResult<WindowStoreBytesIterator>& it) {
  std::vector<std::string> out;
  EXPECT_TRUE(it.has_value());
  if (!it) return out;
  for (const auto& e : it->entries) out.push_back(e.value.get());
  return out;
}

class SimSegmentedStoreTest : public ::testing::Test {
 protected:
  SimDisk disk_;
  SimRocksEnv env_{disk_};
};

TEST_F(SimSegmentedStoreTest, WindowStoreKeepsCommittedSegmentsAcrossCrash) {
  // Proves a RocksDB window store on the simulated disk: segments are databases under
  // <task dir>/w/; after a crash the committed position and the flushed windows of live segments
  // are back, a window written after the commit is lost (its new segment reopens empty), and a
  // segment dropped as expired after the commit stays gone (the disk makes rmdir durable at once,
  // so the removal of the segment's files is durable too), although the committed position
  // still covers the record written into it.
  {
    SimFileSystem fs(disk_);
    TestStateStoreContext context(fs, kTaskDir, env_.env());
    RocksDBWindowStore store("w", 100, 50, 10, false);
    ASSERT_TRUE(store.init(context, store).has_value());
    context.at("in", 0, 1);
    ASSERT_TRUE(store.put(key("k1"), Bytes::wrap("a"), 10).has_value());
    context.at("in", 0, 2);
    ASSERT_TRUE(store.put(key("k1"), Bytes::wrap("b"), 60).has_value());
    ASSERT_TRUE(store.flush().has_value());
    ASSERT_TRUE(context.commit().has_value());
    EXPECT_TRUE(disk_.exists(std::string(kTaskDir) + "/w/w.0"));
    context.at("in", 0, 3);
    ASSERT_TRUE(store.put(key("k2"), Bytes::wrap("c"), 170).has_value());  // drops segment 0
    EXPECT_FALSE(disk_.exists(std::string(kTaskDir) + "/w/w.0"));
    EXPECT_EQ(store.bytes_store().segment_ids(), (std::vector<int64_t>{1, 3}));
    // The crash: a killed process writes nothing durable (Instance::crash freezes the disk so;
    // RocksDB's Close would flush the memtables).
    disk_.set_op_observer([](DiskOp, const std::string&) { return true; });
    store.close();
  }
  disk_.crash();
  disk_.set_op_observer(nullptr);
  SimFileSystem fs(disk_);
  TestStateStoreContext context(fs, kTaskDir, env_.env());
  RocksDBWindowStore store("w", 100, 50, 10, false);
  auto init = store.init(context, store);
  ASSERT_TRUE(init.has_value()) << init.error().to_string();
  EXPECT_EQ(store.position(), Position::from_map({{"in", {{0, 2}}}}));
  EXPECT_EQ(store.bytes_store().segment_ids(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(values(store.fetch(key("k1"), 0, 1000, true)), (std::vector<std::string>{"b"}));
  EXPECT_TRUE(values(store.fetch(key("k2"), 0, 1000, true)).empty());
  store.close();
}

TEST_F(SimSegmentedStoreTest, SessionStoreOnAWipedDiskStartsEmpty) {
  // Proves a RocksDB session store keeps a committed session across a crash and starts empty,
  // with an empty position, on a wiped disk.
  {
    SimFileSystem fs(disk_);
    TestStateStoreContext context(fs, kTaskDir, env_.env());
    RocksDBSessionStore store("s", 100000, 60000);
    ASSERT_TRUE(store.init(context, store).has_value());
    context.at("in", 0, 4);
    ASSERT_TRUE(store.put(Windowed<Bytes>{key("k"), 100, 70000}, Bytes::wrap("v")).has_value());
    ASSERT_TRUE(store.flush().has_value());
    ASSERT_TRUE(context.commit().has_value());
    store.close();
  }
  disk_.crash();
  {
    SimFileSystem fs(disk_);
    TestStateStoreContext context(fs, kTaskDir, env_.env());
    RocksDBSessionStore store("s", 100000, 60000);
    ASSERT_TRUE(store.init(context, store).has_value());
    EXPECT_EQ(store.position(), Position::from_map({{"in", {{0, 4}}}}));
    auto v = store.fetch_session(key("k"), 100, 70000);
    ASSERT_TRUE(v.has_value() && v->has_value());
    EXPECT_EQ((*v)->get(), "v");
    store.close();
  }
  disk_.wipe();
  SimFileSystem fs(disk_);
  TestStateStoreContext context(fs, kTaskDir, env_.env());
  RocksDBSessionStore store("s", 100000, 60000);
  ASSERT_TRUE(store.init(context, store).has_value());
  EXPECT_EQ(store.position(), Position::empty_position());
  EXPECT_TRUE(store.fetch(key("k"), true)->entries.empty());
  store.close();
}

}  // namespace
}  // namespace iq::sim
