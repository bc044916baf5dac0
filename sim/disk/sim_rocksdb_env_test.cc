// Unit tests of SimRocksEnv: real RocksDB on a SimDisk keeps across SimDisk::crash() what it
// flushed and loses what it did not, a wiped disk opens as an empty database, and RocksDBStore
// runs on it through a StateStoreContext like the simulator's.
#include "disk/sim_rocksdb_env.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "disk/sim_disk.h"
#include "disk/sim_file_system.h"
#include "state/rocksdb_store.h"
#include "state/test_state_store_context.h"

namespace iq::sim {
namespace {

constexpr const char* kDbPath = "/state/app/0_0/rocksdb/s";

// The options RocksDBStore pins (impl/state/rocksdb_store.cc), on the simulated Env, except
// avoid_flush_during_shutdown: here closing a database stands for the process dying.
rocksdb::Options store_like_options(rocksdb::Env* env) {
  rocksdb::Options options;
  options.env = env;
  options.create_if_missing = true;
  options.avoid_flush_during_shutdown = true;
  options.disable_auto_compactions = true;
  options.write_buffer_size = 64 << 20;
  options.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
  return options;
}

rocksdb::WriteOptions no_wal() {
  rocksdb::WriteOptions options;
  options.disableWAL = true;
  return options;
}

std::unique_ptr<rocksdb::DB> open_db(rocksdb::Env* env) {
  rocksdb::DB* db = nullptr;
  const rocksdb::Status status = rocksdb::DB::Open(store_like_options(env), kDbPath, &db);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return std::unique_ptr<rocksdb::DB>(db);
}

std::optional<std::string> get(rocksdb::DB& db, const std::string& key) {
  std::string value;
  const rocksdb::Status status = db.Get(rocksdb::ReadOptions(), key, &value);
  if (status.IsNotFound()) return std::nullopt;
  EXPECT_TRUE(status.ok()) << status.ToString();
  return value;
}

void put(rocksdb::DB& db, const std::string& key, const std::string& value) {
  const rocksdb::Status status = db.Put(no_wal(), key, value);
  ASSERT_TRUE(status.ok()) << status.ToString();
}

void flush(rocksdb::DB& db) {
  rocksdb::FlushOptions options;
  options.wait = true;
  const rocksdb::Status status = db.Flush(options);
  ASSERT_TRUE(status.ok()) << status.ToString();
}

// A process dying: the DB object goes without a flush (the store's close_db does the same).
void kill(std::unique_ptr<rocksdb::DB>& db) {
  (void)db->Close();
  db.reset();
}

class SimRocksEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(disk_.create_directories(kDbPath).has_value()); }

  SimDisk disk_;
  SimRocksEnv env_{disk_};
};

// A key flushed with Flush(wait) survives a crash; a key put after the flush does not.
TEST_F(SimRocksEnvTest, FlushedDataSurvivesCrashUnflushedIsLost) {
  auto db = open_db(env_.env());
  ASSERT_NE(db, nullptr);
  put(*db, "k1", "v1");
  flush(*db);
  put(*db, "k2", "v2");
  EXPECT_EQ(get(*db, "k2"), "v2");
  kill(db);
  disk_.crash();

  db = open_db(env_.env());
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(get(*db, "k1"), "v1");
  EXPECT_EQ(get(*db, "k2"), std::nullopt);
  kill(db);
}

// Crash and reopen cycles accumulate exactly the flushed writes, deletes included.
TEST_F(SimRocksEnvTest, RepeatedCrashesKeepEveryFlushAndNothingElse) {
  auto db = open_db(env_.env());
  put(*db, "a", "1");
  put(*db, "b", "1");
  flush(*db);
  kill(db);
  disk_.crash();

  db = open_db(env_.env());
  put(*db, "c", "2");
  ASSERT_TRUE(db->Delete(no_wal(), "a").ok());
  flush(*db);
  put(*db, "d", "lost");
  kill(db);
  disk_.crash();

  db = open_db(env_.env());
  EXPECT_EQ(get(*db, "a"), std::nullopt);
  EXPECT_EQ(get(*db, "b"), "1");
  EXPECT_EQ(get(*db, "c"), "2");
  EXPECT_EQ(get(*db, "d"), std::nullopt);
  kill(db);
  EXPECT_EQ(disk_.crash_count(), 2u);
}

// A read error from the disk (EIO on a table file's pread) is the IOError a Get returns, as on a
// failing device; the data is intact, and once the device reads again the same Get answers.
TEST_F(SimRocksEnvTest, ReadErrorFailsTheGetThatMeetsIt) {
  auto db = open_db(env_.env());
  put(*db, "k1", "v1");
  flush(*db);
  int failed = 0;
  disk_.set_io_fault([&](IoKind kind, const std::string& path) {
    const bool fail = kind == IoKind::kRead && path.ends_with(".sst");
    failed += fail ? 1 : 0;
    return fail;
  });
  std::string value;
  const rocksdb::Status status = db->Get(rocksdb::ReadOptions(), "k1", &value);
  EXPECT_TRUE(status.IsIOError()) << status.ToString();
  EXPECT_GE(failed, 1);
  disk_.set_io_fault(nullptr);
  EXPECT_EQ(get(*db, "k1"), "v1");
  kill(db);
}

// A write error inside a flush (EIO on the table file's append) fails the flush, and RocksDB
// keeps it as its background error: later writes are refused until the database is reopened,
// which is what a Kafka task meets as a ProcessorStateException on its next put or flush. The
// failed table file never made it into the MANIFEST, so a reopen after a crash has the data of
// the flushes before it only.
TEST_F(SimRocksEnvTest, WriteErrorFailsTheFlushAndLaterWrites) {
  auto db = open_db(env_.env());
  put(*db, "k1", "v1");
  flush(*db);
  put(*db, "k2", "v2");
  disk_.set_io_fault([](IoKind kind, const std::string& path) {
    return kind == IoKind::kWrite && path.ends_with(".sst");
  });
  rocksdb::FlushOptions wait;
  wait.wait = true;
  const rocksdb::Status flushed = db->Flush(wait);
  EXPECT_FALSE(flushed.ok());
  disk_.set_io_fault(nullptr);
  EXPECT_FALSE(db->Put(no_wal(), "k3", "v3").ok());
  kill(db);
  disk_.crash();
  db = open_db(env_.env());
  EXPECT_EQ(get(*db, "k1"), "v1");
  EXPECT_EQ(get(*db, "k2"), std::nullopt);
  kill(db);
}

// A database that never flushed comes back empty but opens cleanly after a crash.
TEST_F(SimRocksEnvTest, NeverFlushedDatabaseReopensEmpty) {
  auto db = open_db(env_.env());
  put(*db, "k", "v");
  kill(db);
  disk_.crash();
  db = open_db(env_.env());
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(get(*db, "k"), std::nullopt);
  kill(db);
}

// A wiped disk (a replaced machine) opens as an empty database, even where data was flushed.
TEST_F(SimRocksEnvTest, WipeThenOpenGivesEmptyDatabase) {
  auto db = open_db(env_.env());
  put(*db, "k1", "v1");
  flush(*db);
  kill(db);
  disk_.wipe();
  EXPECT_TRUE(disk_.file_paths().empty());

  ASSERT_TRUE(disk_.create_directories(kDbPath).has_value());
  db = open_db(env_.env());
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(get(*db, "k1"), std::nullopt);
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it.reset();  // an iterator must not outlive its DB
  kill(db);
}

// RocksDB's files land on the SimDisk and nowhere else: no info LOG, a CURRENT, a LOCK, tables.
TEST_F(SimRocksEnvTest, FilesLiveOnTheDiskWithoutInfoLog) {
  auto db = open_db(env_.env());
  put(*db, "k", "v");
  flush(*db);
  kill(db);
  const std::vector<std::string> paths = disk_.file_paths();
  const auto has = [&](const std::string& name) {
    return std::find(paths.begin(), paths.end(), std::string(kDbPath) + "/" + name) != paths.end();
  };
  EXPECT_TRUE(has("CURRENT"));
  EXPECT_TRUE(has("LOCK"));
  EXPECT_FALSE(has("LOG"));
  EXPECT_TRUE(std::any_of(paths.begin(), paths.end(),
                          [](const std::string& p) { return p.ends_with(".sst"); }));
  EXPECT_GT(disk_.bytes(), 0u);
  EXPECT_EQ(disk_.open_handles(), 0u);
}

// The same operations on two disks leave the same file names: nothing in the names depends on
// the wall clock or on thread timing.
TEST_F(SimRocksEnvTest, SameOperationsGiveSameFileNames) {
  SimDisk other_disk;
  SimRocksEnv other_env(other_disk);
  ASSERT_TRUE(other_disk.create_directories(kDbPath).has_value());
  for (rocksdb::Env* env : {env_.env(), other_env.env()}) {
    auto db = open_db(env);
    put(*db, "a", "1");
    flush(*db);
    put(*db, "b", "2");
    kill(db);
  }
  disk_.crash();
  other_disk.crash();
  EXPECT_EQ(disk_.file_paths(), other_disk.file_paths());
}

// Crashing a disk while a database is open on it is a harness bug (RocksDB's threads could still
// write), stopped with a message naming the held lock.
TEST_F(SimRocksEnvTest, CrashWithOpenDatabaseDies) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto db = open_db(env_.env());
        disk_.crash();
      },
      "locks held \\(first: /state/app/0_0/rocksdb/s/LOCK\\)");
}

// `store` opened in `context`: k1 written at input offset 5, flushed and committed (.position
// says 5), then k2 written at offset 6 and left in the memtable.
void commit_k1_then_write_k2(TestStateStoreContext& context, RocksDBStore& store) {
  ASSERT_TRUE(store.init(context, store).has_value());
  context.at("input", 0, 5);
  ASSERT_TRUE(store.put(Bytes::wrap("k1"), Bytes::wrap("v1")).has_value());
  ASSERT_TRUE(store.flush().has_value());
  ASSERT_TRUE(context.commit().has_value());
  context.at("input", 0, 6);
  ASSERT_TRUE(store.put(Bytes::wrap("k2"), Bytes::wrap("v2")).has_value());
}

// RocksDBStore on the simulated disk: a committed write and its position survive a crash; a
// write after the commit is lost with its position.
TEST_F(SimRocksEnvTest, RocksDBStoreKeepsCommittedStateAcrossCrash) {
  SimFileSystem context_fs(disk_);
  TestStateStoreContext context(context_fs, "/state/app/0_0", env_.env());
  auto store = std::make_unique<RocksDBStore>("s");
  ASSERT_NO_FATAL_FAILURE(commit_k1_then_write_k2(context, *store));
  EXPECT_EQ(store->position(), Position::from_map({{"input", {{0, 6}}}}));
  // The crash: a killed process writes nothing durable (Instance::crash freezes the disk so;
  // RocksDB's Close would flush the memtable).
  disk_.set_op_observer([](DiskOp, const std::string&) { return true; });
  store->close();
  disk_.crash();
  disk_.set_op_observer(nullptr);

  SimFileSystem reopened_fs(disk_);
  TestStateStoreContext reopened(reopened_fs, "/state/app/0_0", env_.env());
  store = std::make_unique<RocksDBStore>("s");
  auto init = store->init(reopened, *store);
  ASSERT_TRUE(init.has_value()) << init.error().to_string();
  auto k1 = store->get(Bytes::wrap("k1"));
  ASSERT_TRUE(k1.has_value());
  ASSERT_TRUE(k1->has_value());
  EXPECT_EQ((*k1)->get(), "v1");
  auto k2 = store->get(Bytes::wrap("k2"));
  ASSERT_TRUE(k2.has_value());
  EXPECT_FALSE(k2->has_value());
  EXPECT_EQ(store->position(), Position::from_map({{"input", {{0, 5}}}}));
  store->close();
}

// RocksDBStore.openDB leaves avoid_flush_during_shutdown at RocksDB's default (false): a store
// closed while the process lives (a dirty close: no flush, no checkpoint) has its memtable flushed
// by DB::Close, so its unflushed write survives a later crash, beyond its committed .position.
TEST_F(SimRocksEnvTest, RocksDBStoreClosedDirtyKeepsItsMemtableOnDisk) {
  SimFileSystem context_fs(disk_);
  TestStateStoreContext context(context_fs, "/state/app/0_0", env_.env());
  auto store = std::make_unique<RocksDBStore>("s");
  ASSERT_NO_FATAL_FAILURE(commit_k1_then_write_k2(context, *store));
  store->close();  // the process lives on: DB::Close flushes
  disk_.crash();

  SimFileSystem reopened_fs(disk_);
  TestStateStoreContext reopened(reopened_fs, "/state/app/0_0", env_.env());
  store = std::make_unique<RocksDBStore>("s");
  ASSERT_TRUE(store->init(reopened, *store).has_value());
  auto k2 = store->get(Bytes::wrap("k2"));
  ASSERT_TRUE(k2.has_value());
  ASSERT_TRUE(k2->has_value()) << "DB::Close flushed the memtable";
  EXPECT_EQ((*k2)->get(), "v2");
  EXPECT_EQ(store->position(), Position::from_map({{"input", {{0, 5}}}}))
      << ".position is written only by a checkpoint";
  store->close();
}

// RocksDBStore on a wiped disk starts empty with an empty position.
TEST_F(SimRocksEnvTest, RocksDBStoreOnWipedDiskStartsEmpty) {
  {
    SimFileSystem context_fs(disk_);
    TestStateStoreContext context(context_fs, "/state/app/0_0", env_.env());
    RocksDBStore store("s");
    ASSERT_TRUE(store.init(context, store).has_value());
    context.at("input", 0, 1);
    ASSERT_TRUE(store.put(Bytes::wrap("k"), Bytes::wrap("v")).has_value());
    ASSERT_TRUE(store.flush().has_value());
    ASSERT_TRUE(context.commit().has_value());
    store.close();
  }
  disk_.wipe();
  SimFileSystem context_fs(disk_);
  TestStateStoreContext context(context_fs, "/state/app/0_0", env_.env());
  RocksDBStore store("s");
  ASSERT_TRUE(store.init(context, store).has_value());
  auto k = store.get(Bytes::wrap("k"));
  ASSERT_TRUE(k.has_value());
  EXPECT_FALSE(k->has_value());
  EXPECT_EQ(store.position(), Position::empty_position());
  store.close();
}

}  // namespace
}  // namespace iq::sim
