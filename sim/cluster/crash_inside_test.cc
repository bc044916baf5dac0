// Crashes that land inside an operation (cluster/crash_inside.h): the on-disk and broker-side
// effect is that of a kill -9 at that point, and the crash points are named by probes.
#include "cluster/crash_inside.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/probe.h"
#include "cluster/cluster.h"
#include "cluster/cluster_test_utils.h"
#include "disk/sim_rocksdb_env.h"
#include "io/operation_marker.h"

namespace iq::sim {
namespace {

using namespace testing_utils;  // NOLINT: shared test helpers

constexpr uint32_t mask(Operation op) {
  return static_cast<uint32_t>(op);
}

// The one file on the disk whose path ends with `suffix` (asserted unique).
std::string path_ending(const SimDisk& disk, const std::string& suffix) {
  std::string found;
  for (const std::string& p : disk.file_paths()) {
    if (p.size() >= suffix.size() &&
        p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) {
      EXPECT_TRUE(found.empty()) << "two files end with " << suffix << ": " << found << ", " << p;
      found = p;
    }
  }
  return found;
}

std::optional<std::string> content(const SimDisk& disk, const std::string& path) {
  auto c = disk.read_file(path);
  if (!c) return std::nullopt;
  return *c;
}

// Keys in every column family of the RocksDB database under `dir` on the disk (opened
// read-only, as a restart would find it; the timestamped store keeps its keys in its own family).
int count_keys(SimDisk& disk, const std::string& dir) {
  SimRocksEnv rocks(disk);
  rocksdb::Options options;
  options.env = rocks.env();
  std::vector<std::string> families;
  auto status = rocksdb::DB::ListColumnFamilies(options, dir, &families);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (!status.ok()) return -1;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const std::string& f : families) descriptors.emplace_back(f, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  status = rocksdb::DB::OpenForReadOnly(options, dir, descriptors, &handles, &raw);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (!status.ok()) return -1;
  std::unique_ptr<rocksdb::DB> db(raw);
  int keys = 0;
  for (rocksdb::ColumnFamilyHandle* h : handles) {
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), h));
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++keys;
    it.reset();
    (void)db->DestroyColumnFamilyHandle(h);
  }
  return keys;
}

// One instance of a Count topology over one partition that has counted 20 records of 4 keys,
// committed (the RocksDB store flushed) and checkpointed once, at restore completion.
ClusterConfig one_counting_instance(uint64_t seed) {
  ClusterConfig c = count_config(seed, 1, 1);
  c.streams.statestore_cache_max_bytes = 0;
  c.topology.caching = false;
  return c;
}

void count_twenty(Cluster& cluster) {
  cluster.start_all();
  for (int32_t i = 0; i < 20; ++i) cluster.produce(i % 4, 1);
  ASSERT_EQ(cluster.run_until(8'000).stop, RunStop::kTimeReached) << cluster.seed_text();
  ASSERT_EQ(cluster.instance(1).streams().state(), KafkaStreamsState::RUNNING)
      << cluster.seed_text();
}

// Proves a crash armed at the sync of .checkpoint inside a clean close leaves the store's
// flushed data and its new <store>.position, but the old .checkpoint, and names the points.
TEST(CrashInsideTest, CrashAtCheckpointSyncKeepsFlushedDataAndOldCheckpoint) {
  Cluster cluster(one_counting_instance(31));
  count_twenty(cluster);
  Instance& one = cluster.instance(1);
  SimDisk& disk = one.disk();
  const std::string checkpoint = path_ending(disk, "/.checkpoint");
  const std::string position = "/state/app/0_0/counts.position";
  const std::string db_dir =
      path_ending(disk, "/CURRENT")
          .substr(0, path_ending(disk, "/CURRENT").size() - std::string("/CURRENT").size());
  ASSERT_FALSE(checkpoint.empty() || db_dir.empty()) << cluster.seed_text();
  const auto checkpoint_before = content(disk, checkpoint);
  const auto position_before = content(disk, position);

  // write_file_atomically: create .checkpoint.tmp (1), append (2), sync (3), rename, dir sync.
  one.arm_crash_inside({CrashInsideAt::kDiskOp, 3, mask(Operation::kWriteCheckpoint), ""});
  base::ProbeHits hits;
  {
    base::ProbeScope scope(hits);
    (void)one.close();
  }
  EXPECT_FALSE(one.running()) << cluster.seed_text() << ": the close became a crash";
  EXPECT_EQ(one.closed_streams(), nullptr);
  ASSERT_EQ(one.crashes_landed().size(), 1u);
  EXPECT_EQ(one.crashes_landed()[0].what, "sync " + checkpoint + ".tmp");
  EXPECT_EQ(one.crashes_landed()[0].points(), "flush_checkpoint, position_checkpoint, close");
  EXPECT_TRUE(hits.hit("crash.inside"));
  EXPECT_TRUE(hits.hit("crash.point.flush_checkpoint"));
  EXPECT_TRUE(hits.hit("crash.point.position_checkpoint"));
  EXPECT_TRUE(hits.hit("crash.point.close"));
  EXPECT_FALSE(hits.hit("crash.point.send_commit"));

  EXPECT_EQ(content(disk, checkpoint), checkpoint_before) << cluster.seed_text();
  EXPECT_FALSE(disk.exists(checkpoint + ".tmp"));
  ASSERT_TRUE(content(disk, position).has_value());
  EXPECT_NE(content(disk, position), position_before)
      << cluster.seed_text() << ": the .position written before .checkpoint is durable";
  EXPECT_EQ(count_keys(disk, db_dir), 4) << cluster.seed_text() << ": the flushed counts survive";

  // The instance restarts on that disk and counts on correctly.
  one.restart(/*wipe=*/false);
  cluster.produce(0, 1);
  ASSERT_EQ(cluster.run_until(cluster.now_ms() + 60'000).stop, RunStop::kTimeReached);
  EXPECT_EQ(one.crashes_landed().size(), 1u) << "the arm is spent";
  expect_no_errors(cluster);
}

// Proves a crash at the rename of <store>.position leaves both the old .position and the old
// .checkpoint (the flush_checkpoint point, not position_checkpoint).
TEST(CrashInsideTest, CrashAtPositionRenameKeepsOldPositionAndCheckpoint) {
  Cluster cluster(one_counting_instance(32));
  count_twenty(cluster);
  Instance& one = cluster.instance(1);
  SimDisk& disk = one.disk();
  const std::string checkpoint = path_ending(disk, "/.checkpoint");
  const std::string position = "/state/app/0_0/counts.position";
  const auto checkpoint_before = content(disk, checkpoint);
  const auto position_before = content(disk, position);
  one.arm_crash_inside({CrashInsideAt::kDiskOp, 4, mask(Operation::kWritePosition), ""});
  (void)one.close();
  ASSERT_EQ(one.crashes_landed().size(), 1u) << cluster.seed_text();
  EXPECT_EQ(one.crashes_landed()[0].what, "rename " + position);
  EXPECT_EQ(one.crashes_landed()[0].points(), "flush_checkpoint, close");
  EXPECT_EQ(content(disk, position), position_before);
  EXPECT_EQ(content(disk, checkpoint), checkpoint_before);
}

// Proves a path makes only disk events on exactly that path count: armed for the first disk event
// on <store>.position inside a close, the crash lands at its rename (the create, append and sync
// of <store>.position.tmp before it do not count), as the 4th write_position event above does; and
// an arm on a path no event touches never fires, so the close ends cleanly.
TEST(CrashInsideTest, APathCountsOnlyDiskEventsOnThatPath) {
  Cluster cluster(one_counting_instance(32));
  count_twenty(cluster);
  Instance& one = cluster.instance(1);
  const std::string position = "/state/app/0_0/counts.position";
  const CrashInsideSpec on_position{CrashInsideAt::kDiskOp, 1, mask(Operation::kClose), position};
  EXPECT_EQ(on_position.to_string(), "event 1 of kind disk during close on " + position);
  one.arm_crash_inside(on_position);
  (void)one.close();
  ASSERT_EQ(one.crashes_landed().size(), 1u) << cluster.seed_text();
  EXPECT_EQ(one.crashes_landed()[0].what, "rename " + position);
  EXPECT_EQ(one.crashes_landed()[0].subject.path, position);

  Cluster other(one_counting_instance(32));
  count_twenty(other);
  Instance& two = other.instance(1);
  two.arm_crash_inside({CrashInsideAt::kDiskOp, 1, 0, "/state/app/0_9"});
  (void)two.close();
  EXPECT_TRUE(two.crashes_landed().empty()) << other.seed_text() << ": no event is on 0_9";
  EXPECT_TRUE(two.crash_inside_armed()) << other.seed_text() << ": the arm waits on";
  EXPECT_NE(two.closed_streams(), nullptr) << other.seed_text() << ": the close ended cleanly";
}

// Proves a crash at an offset commit keeps the changelog sends made before it at the broker,
// drops the commit, and lets nothing the dead process does later reach the broker.
TEST(CrashInsideTest, CrashAtCommitKeepsSendsAndDropsTheCommit) {
  Cluster cluster(one_counting_instance(33));
  count_twenty(cluster);
  Instance& one = cluster.instance(1);
  const TopicPartition source{"words", 0};
  const TopicPartition changelog{cluster.changelog_topic(), 0};
  const auto committed_before = cluster.broker().broker().committed("app", source);
  ASSERT_TRUE(committed_before.has_value()) << cluster.seed_text();
  EXPECT_EQ(committed_before->offset, 20);
  const int64_t changelog_before = *cluster.broker().broker().end_offset(changelog);

  one.arm_crash_inside({CrashInsideAt::kCommit, 1, 0, ""});
  base::ProbeHits hits;
  {
    base::ProbeScope scope(hits);
    for (int32_t i = 0; i < 10; ++i) cluster.produce(i % 4, 1);
    ASSERT_EQ(cluster.run_until(cluster.now_ms() + 2'000).stop, RunStop::kTimeReached);
  }
  ASSERT_EQ(one.crashes_landed().size(), 1u) << cluster.seed_text();
  EXPECT_EQ(one.crashes_landed()[0].at, CrashInsideAt::kCommit);
  EXPECT_TRUE(hits.hit("crash.point.send_commit"));
  EXPECT_FALSE(one.running());
  EXPECT_EQ(*cluster.broker().broker().end_offset(changelog), changelog_before + 10)
      << cluster.seed_text() << ": every send before the commit reached the broker";
  EXPECT_EQ(cluster.broker().broker().committed("app", source)->offset, 20)
      << cluster.seed_text() << ": the commit it died at never reached the coordinator";
}

// Proves a crash at the 3rd changelog send lets the first two reach the broker and no later one.
TEST(CrashInsideTest, CrashAtThirdSendKeepsExactlyTwo) {
  Cluster cluster(one_counting_instance(34));
  count_twenty(cluster);
  Instance& one = cluster.instance(1);
  const TopicPartition changelog{cluster.changelog_topic(), 0};
  const int64_t changelog_before = *cluster.broker().broker().end_offset(changelog);
  const uint64_t processed_before = cluster.processing_ledger().processed_count();
  one.arm_crash_inside({CrashInsideAt::kSend, 3, 0, ""});
  for (int32_t i = 0; i < 10; ++i) cluster.produce(i % 4, 1);
  ASSERT_EQ(cluster.run_until(cluster.now_ms() + 2'000).stop, RunStop::kTimeReached);
  ASSERT_EQ(one.crashes_landed().size(), 1u) << cluster.seed_text();
  EXPECT_EQ(one.crashes_landed()[0].what, "send " + changelog.first + "-0");
  EXPECT_EQ(*cluster.broker().broker().end_offset(changelog), changelog_before + 2)
      << cluster.seed_text();
  // The ledger hears of a record once its processing (and so its send) is done: it heard of the
  // two whose sends went out, not of the third, whose process died sending, nor of later ones.
  EXPECT_EQ(cluster.processing_ledger().processed_count(), processed_before + 2)
      << cluster.seed_text();
}

// Proves an arm set while the instance is down counts in the next process: a crash at the first
// restore poll after a restart on the kept disk lands inside the restore.
TEST(CrashInsideTest, ArmWhileDownLandsInNextProcessRestore) {
  Cluster cluster(one_counting_instance(35));
  count_twenty(cluster);
  Instance& one = cluster.instance(1);
  one.crash();
  one.arm_crash_inside({CrashInsideAt::kRestorePoll, 1, 0, ""});
  EXPECT_TRUE(one.crash_inside_armed());
  one.restart(/*wipe=*/true);  // a wiped disk restores the whole changelog
  base::ProbeHits hits;
  {
    base::ProbeScope scope(hits);
    ASSERT_EQ(cluster.run_until(cluster.now_ms() + 60'000).stop, RunStop::kTimeReached);
  }
  ASSERT_EQ(one.crashes_landed().size(), 1u) << cluster.seed_text();
  EXPECT_EQ(one.crashes_landed()[0].points(), "restore_batch");
  EXPECT_TRUE(hits.hit("crash.point.restore_batch"));
  EXPECT_FALSE(one.crash_inside_armed());
}

}  // namespace
}  // namespace iq::sim

namespace iq::sim {
namespace {
// Proves a disk arm restricted to a checkpoint lands in the checkpoint that completing a restore
// writes, after a restart on a wiped disk.
TEST(CrashInsideTest, DiskArmDuringCheckpointLandsAtRestoreCompletion) {
  ClusterConfig c = count_config(36, 1, 1);
  c.streams.statestore_cache_max_bytes = 0;
  c.topology.caching = false;
  Cluster cluster(c);
  cluster.start_all();
  for (int32_t i = 0; i < 20; ++i) cluster.produce(i % 4, 1);
  ASSERT_EQ(cluster.run_until(8'000).stop, RunStop::kTimeReached);
  Instance& one = cluster.instance(1);
  one.crash();
  one.arm_crash_inside(
      {CrashInsideAt::kDiskOp, 1, static_cast<uint32_t>(Operation::kCheckpoint), ""});
  one.restart(/*wipe=*/true);
  ASSERT_EQ(cluster.run_until(cluster.now_ms() + 60'000).stop, RunStop::kTimeReached);
  ASSERT_EQ(one.crashes_landed().size(), 1u) << cluster.seed_text();
  EXPECT_EQ(one.crashes_landed()[0].points(), "store_flush, restore_batch")
      << one.crashes_landed()[0].to_string();
}
}  // namespace
}  // namespace iq::sim

namespace iq::sim {
namespace {
// Proves a standby flushes its RocksDB store only inside its checkpoint, as Kafka's StandbyTask
// (prepareCommit flushes nothing, postCommit's maybeCheckpoint flushes then checkpoints): a disk
// arm restricted to checkpoints on the standby's instance lands inside that flush (`store_flush`)
// and not at the later <store>.position write. The checkpoint is the state updater's
// (DefaultStateUpdater.maybeCheckpointTasks), so it runs inside the updater's pass
// (`restore_batch`), not in the thread's commit.
TEST(CrashInsideTest, DiskArmDuringStandbyCheckpointLandsInsideItsFlush) {
  ClusterConfig c = count_config(37, 2, 1);
  c.streams.statestore_cache_max_bytes = 0;
  c.topology.caching = false;
  c.streams.assignment.num_standby_replicas = 1;
  c.streams.offset_delta_threshold_for_checkpoint = 0;  // checkpoint on every commit that moved
  Cluster cluster(c);
  cluster.start_all();
  ASSERT_EQ(cluster.run_until(10'000).stop, RunStop::kTimeReached);
  Instance* standby = nullptr;
  for (int32_t n = 1; n <= 2; ++n) {
    const auto& tm = cluster.instance(n).streams().threads()[0]->task_manager();
    if (!tm.standby_task_ids().empty()) standby = &cluster.instance(n);
  }
  ASSERT_NE(standby, nullptr) << cluster.seed_text();
  standby->arm_crash_inside({CrashInsideAt::kDiskOp, 1, mask(Operation::kCheckpoint), ""});
  base::ProbeHits hits;
  {
    base::ProbeScope scope(hits);
    for (int32_t i = 0; i < 20; ++i) cluster.produce(i % 4, 1);
    ASSERT_EQ(cluster.run_until(cluster.now_ms() + 5'000).stop, RunStop::kTimeReached);
  }
  ASSERT_EQ(standby->crashes_landed().size(), 1u) << cluster.seed_text();
  EXPECT_EQ(standby->crashes_landed()[0].points(), "store_flush, restore_batch")
      << standby->crashes_landed()[0].to_string() << " " << cluster.seed_text();
  EXPECT_TRUE(hits.hit("crash.point.store_flush")) << cluster.seed_text();
}
}  // namespace
}  // namespace iq::sim
