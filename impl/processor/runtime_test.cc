// The task runtime without the simulator: StreamTask processing through a topology and writing
// its changelog, StandbyTask and restoring actives fed by StoreChangelogReader, with a broker
// reduced to in-memory logs that every consumer reads instantly.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "iq/key_query.h"
#include "processor/standby_task.h"
#include "processor/store_changelog_reader.h"
#include "processor/stream_task.h"
#include "processor/test_fakes.h"
#include "state/test_state_store_context.h"

namespace iq {
namespace {

using namespace testing_fakes;  // NOLINT: test doubles only

class RuntimeTest : public testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    root_ = std::filesystem::path(testing::TempDir()) /
            ("iqsim-runtime-" +
             std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(root_);
    topology_.kind = TopologyKind::Count;
    topology_.source_topic = "words";
    topology_.store_name = "counts";
    topology_.supplier = KeyValueSupplier::kRocksDbTimestamped;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  ConsumerRecord input(int32_t key, int64_t offset) {
    return ConsumerRecord{"words",
                          0,
                          offset,
                          1000 + offset,
                          Serde<int32_t>::serialize(key),
                          Serde<int64_t>::serialize(1),
                          {}};
  }
  static std::optional<int64_t> count(Task& task, int32_t key) {
    auto r = task.store("counts")->query(KeyQuery<int32_t, int64_t>::with_key(key),
                                         PositionBound::unbounded(), QueryConfig(false));
    EXPECT_TRUE(r.has_value() && r->is_success());
    return r->result<std::optional<int64_t>>();
  }
  static Position position(Task& task) { return task.store("counts")->position(); }
  // `task`, a fresh active on `inst`, restores its empty changelog, processes keys 1 and 2 and
  // commits: its changelog then holds 2 records.
  void run_to_two_changelog_records(Instance& inst, StreamTask& task) {
    ASSERT_TRUE(task.initialize().has_value());
    ASSERT_TRUE(inst.reader.register_task(task, 0).has_value());
    ASSERT_TRUE(task.complete_restoration().has_value());
    task.add_records({input(1, 0), input(2, 1)});
    while (*task.process_one()) {
    }
    ASSERT_TRUE(task.prepare_commit().has_value());
  }

  std::filesystem::path root_;
  TopologyConfig topology_;
  FakeBroker broker_;
};

// An active with an empty changelog is restored at once, counts its input, and its changelog
// carries the position header exactly when the consistency switch is on.
TEST_P(RuntimeTest, ActiveProcessesAndLogsWithPositionHeaders) {
  const bool consistency = GetParam();
  Instance a(broker_, root_ / "a", consistency);
  StreamTask task({0, 0}, topology_, a.env);
  ASSERT_TRUE(task.initialize().has_value());
  ASSERT_TRUE(a.reader.register_task(task, 0).has_value());
  ASSERT_EQ(a.reader.restored_active_tasks(), (std::vector<TaskId>{TaskId{0, 0}}));
  ASSERT_TRUE(task.complete_restoration().has_value());
  task.add_records({input(7, 0), input(7, 1), input(8, 2)});
  while (*task.process_one()) {
  }
  auto offsets = task.prepare_commit();
  ASSERT_TRUE(offsets.has_value());
  EXPECT_EQ(offsets->at({"words", 0}), 3);
  EXPECT_EQ(count(task, 7), 2);
  EXPECT_EQ(position(task), Position::from_map({{"words", {{0, 2}}}}));
  const auto& log = broker_.logs[{"app-counts-changelog", 0}];
  ASSERT_EQ(log.size(), 2u) << "the cache folds the two writes of key 7 into one flush";
  EXPECT_EQ(log[0].headers.empty(), !consistency);
}

// The processed-record observer hears of each input record once its topology ran, in order, and
// of nothing while the task cannot process (restoring).
TEST_P(RuntimeTest, ProcessedRecordListenerHearsEachProcessedRecord) {
  struct Recorder final : ProcessedRecordListener {
    std::vector<std::pair<std::string, int64_t>> heard;
    void on_processed(const std::string& topic, int32_t partition, int64_t offset) override {
      heard.push_back({topic + "-" + std::to_string(partition), offset});
    }
  } recorder;
  Instance a(broker_, root_ / "a", GetParam());
  TaskEnvironment env = a.env;
  env.processed = &recorder;
  StreamTask task({0, 0}, topology_, env);
  ASSERT_TRUE(task.initialize().has_value());
  ASSERT_TRUE(a.reader.register_task(task, 0).has_value());
  task.add_records({input(7, 0), input(7, 1), input(8, 2)});
  ASSERT_FALSE(*task.process_one()) << "a restoring task processes nothing";
  EXPECT_TRUE(recorder.heard.empty());
  ASSERT_TRUE(task.complete_restoration().has_value());
  while (*task.process_one()) {
  }
  using Heard = std::vector<std::pair<std::string, int64_t>>;
  EXPECT_EQ(recorder.heard, (Heard{{"words-0", 0}, {"words-0", 1}, {"words-0", 2}}));
}

// A standby follows the changelog; its position advances from the headers only with the switch.
TEST_P(RuntimeTest, StandbyFollowsChangelogAndPositionOnlyWithSwitch) {
  const bool consistency = GetParam();
  Instance a(broker_, root_ / "a", consistency);
  Instance b(broker_, root_ / "b", consistency);
  StreamTask active({0, 0}, topology_, a.env);
  StandbyTask standby({0, 0}, topology_, b.env);
  ASSERT_TRUE(active.initialize().has_value());
  ASSERT_TRUE(a.reader.register_task(active, 0).has_value());
  ASSERT_TRUE(active.complete_restoration().has_value());
  ASSERT_TRUE(standby.initialize().has_value());
  ASSERT_TRUE(b.reader.register_task(standby, 0).has_value());
  EXPECT_EQ(standby.state(), TaskState::RUNNING);
  EXPECT_EQ(b.reader.mode(), StoreChangelogReader::Mode::STANDBY_UPDATING);
  active.add_records({input(1, 0), input(2, 1), input(1, 2)});
  while (*active.process_one()) {
  }
  ASSERT_TRUE(active.prepare_commit().has_value());
  ASSERT_TRUE(b.reader.restore(0).has_value());
  EXPECT_EQ(count(standby, 1), 2);
  EXPECT_EQ(count(standby, 2), 1);
  EXPECT_EQ(position(standby),
            consistency ? Position::from_map({{"words", {{0, 2}}}}) : Position::empty_position());
}

// A restoring active applies its changelog only up to the end offset fixed at registration.
TEST_P(RuntimeTest, RestoringActiveStopsAtTheEndOffsetFixedAtRegistration) {
  Instance a(broker_, root_ / "a", GetParam());
  Instance c(broker_, root_ / "c", GetParam());
  StreamTask first({0, 0}, topology_, a.env);
  ASSERT_NO_FATAL_FAILURE(run_to_two_changelog_records(a, first));

  StreamTask second({0, 0}, topology_, c.env);
  ASSERT_TRUE(second.initialize().has_value());
  ASSERT_TRUE(c.reader.register_task(second, 0).has_value());
  EXPECT_TRUE(c.reader.restored_active_tasks().empty());
  first.add_records({input(1, 2)});
  ASSERT_TRUE(*first.process_one());
  ASSERT_TRUE(first.prepare_commit().has_value());  // a third record, past the end offset
  ASSERT_TRUE(c.reader.restore(0).has_value());
  EXPECT_EQ(c.reader.restored_active_tasks(), (std::vector<TaskId>{TaskId{0, 0}}));
  EXPECT_EQ(count(second, 1), 1) << "the record appended after registration is not restored";
  EXPECT_EQ(second.state(), TaskState::RESTORING);
  ASSERT_TRUE(second.complete_restoration().has_value());
  EXPECT_EQ(second.state(), TaskState::RUNNING);
}

// StoreChangelogReader.endOffsetForChangelogs: a lookup that times out leaves the active's
// changelog registered (not restoring, not restored) and starts its task timeout; the next
// restore tries again and, once the broker answers, restores up to the end it finds then.
TEST_P(RuntimeTest, AnEndOffsetTimeoutIsRetriedByTheNextRestore) {
  Instance a(broker_, root_ / "a", GetParam());
  Instance c(broker_, root_ / "c", GetParam());
  StreamTask first({0, 0}, topology_, a.env);
  ASSERT_NO_FATAL_FAILURE(run_to_two_changelog_records(a, first));

  c.admin.end_offsets_error = StreamsError{StreamsError::Kind::Timeout, "listOffsets timed out"};
  StreamTask second({0, 0}, topology_, c.env);
  ASSERT_TRUE(second.initialize().has_value());
  ASSERT_TRUE(c.reader.register_task(second, 1'000).has_value())
      << "a timeout is not a failure while task.timeout.ms lasts";
  EXPECT_EQ(c.reader.registered_count(), 1u);
  EXPECT_EQ(c.reader.mode(), StoreChangelogReader::Mode::ACTIVE_RESTORING);
  ASSERT_TRUE(c.reader.restore(2'000).has_value());
  EXPECT_TRUE(c.reader.restored_active_tasks().empty());
  EXPECT_EQ(count(second, 1), std::nullopt) << "nothing restored while the end is unknown";

  first.add_records({input(1, 2)});
  ASSERT_TRUE(*first.process_one());
  ASSERT_TRUE(first.prepare_commit().has_value());  // a third record, before the end is found
  c.admin.end_offsets_error.reset();
  auto applied = c.reader.restore(3'000);
  ASSERT_TRUE(applied.has_value());
  EXPECT_EQ(*applied, 3u) << "the end found at the retry covers the third record";
  EXPECT_EQ(c.reader.registered_count(), 0u);
  EXPECT_EQ(c.reader.restored_active_tasks(), (std::vector<TaskId>{TaskId{0, 0}}));
  EXPECT_EQ(count(second, 1), 2);
}

// The retries end after task.timeout.ms: the lookup that times out past the deadline set by the
// first one fails (Task.maybeInitTaskTimeoutOrThrow), and only then.
TEST_P(RuntimeTest, AnEndOffsetTimeoutFailsOnlyPastTaskTimeoutMs) {
  Instance c(broker_, root_ / "c", GetParam());
  c.reader.set_task_timeout_ms(5'000);
  c.admin.end_offsets_error = StreamsError{StreamsError::Kind::Timeout, "listOffsets timed out"};
  StreamTask task({0, 0}, topology_, c.env);
  ASSERT_TRUE(task.initialize().has_value());
  ASSERT_TRUE(c.reader.register_task(task, 10'000).has_value());
  ASSERT_TRUE(c.reader.restore(15'000).has_value()) << "at the deadline: still waiting";
  auto failed = c.reader.restore(15'001);
  ASSERT_FALSE(failed.has_value());
  EXPECT_NE(failed.error().to_string().find("task.timeout.ms"), std::string::npos)
      << failed.error().to_string();
  // Any other error fails at once, as Kafka's StreamsException does.
  Instance d(broker_, root_ / "d", GetParam());
  d.admin.end_offsets_error = StreamsError{StreamsError::Kind::Streams, "UNKNOWN_TOPIC"};
  StreamTask other({0, 0}, topology_, d.env);
  ASSERT_TRUE(other.initialize().has_value());
  EXPECT_FALSE(d.reader.register_task(other, 0).has_value());
}

// While an active restores on a thread, that thread's standby changelogs are paused.
TEST_P(RuntimeTest, RestoringActivePausesStandbyChangelogs) {
  Instance a(broker_, root_ / "a", GetParam());
  StreamTask writer({0, 0}, topology_, a.env);
  ASSERT_TRUE(writer.initialize().has_value());
  ASSERT_TRUE(a.reader.register_task(writer, 0).has_value());
  ASSERT_TRUE(writer.complete_restoration().has_value());
  writer.add_records({input(1, 0)});
  ASSERT_TRUE(*writer.process_one());
  ASSERT_TRUE(writer.prepare_commit().has_value());

  Instance b(broker_, root_ / "b", GetParam());
  TopologyConfig other = topology_;
  StandbyTask standby({0, 0}, other, b.env);
  ASSERT_TRUE(standby.initialize().has_value());
  ASSERT_TRUE(b.reader.register_task(standby, 0).has_value());
  TaskEnvironment env1 = b.env;
  env1.task_dir = (root_ / "b" / "app" / "1_0").string();
  TopologyConfig t1 = topology_;
  t1.store_name = "counts1";
  broker_.append(ConsumerRecord{"app-counts1-changelog",
                                0,
                                0,
                                0,
                                Serde<int32_t>::serialize(5),
                                Serde<int64_t>::serialize(1),
                                {}});
  StreamTask restoring({1, 0}, t1, env1);
  ASSERT_TRUE(restoring.initialize().has_value());
  ASSERT_TRUE(b.reader.register_task(restoring, 0).has_value());
  EXPECT_EQ(b.reader.mode(), StoreChangelogReader::Mode::ACTIVE_RESTORING);
  EXPECT_TRUE(b.restore_consumer.paused({"app-counts-changelog", 0}));
  ASSERT_TRUE(b.reader.restore(0).has_value());
  EXPECT_EQ(b.reader.mode(), StoreChangelogReader::Mode::STANDBY_UPDATING);
  EXPECT_FALSE(b.restore_consumer.paused({"app-counts-changelog", 0}));
}

// Under at-least-once a commit checkpoints only past 10,000 offsets; an enforced postCommit (a
// revocation's) always does, and suspend writes nothing.
TEST_P(RuntimeTest, CheckpointFollowsTheOffsetDeltaRule) {
  Instance a(broker_, root_ / "a", GetParam());
  StreamTask task({0, 0}, topology_, a.env);
  ASSERT_TRUE(task.initialize().has_value());
  ASSERT_TRUE(a.reader.register_task(task, 0).has_value());
  ASSERT_TRUE(task.complete_restoration().has_value());
  const std::string checkpoint = a.env.task_dir + "/.checkpoint";
  std::filesystem::remove(checkpoint);
  task.add_records({input(1, 0)});
  ASSERT_TRUE(*task.process_one());
  ASSERT_TRUE(task.prepare_commit().has_value());
  ASSERT_TRUE(task.post_commit(false).has_value());
  EXPECT_FALSE(std::filesystem::exists(checkpoint));
  task.suspend();
  EXPECT_FALSE(std::filesystem::exists(checkpoint));
  ASSERT_TRUE(task.post_commit(true).has_value());
  EXPECT_TRUE(std::filesystem::exists(checkpoint));
  EXPECT_TRUE(std::filesystem::exists(a.env.task_dir + "/counts.position"));
}

// StateManagerUtil.checkpointNeeded sums ProcessorStateManager.changelogOffsets' values, the next
// offset to fetch (0 while unknown): a store's first changelog record (offset 0) moves it by 1,
// which passes a threshold of 0. (impl/ summed the last offsets, so it saw 0 and skipped.)
TEST_P(RuntimeTest, FirstChangelogRecordPassesAThresholdOfZero) {
  Instance a(broker_, root_ / "a", GetParam());
  a.env.offset_delta_threshold_for_checkpoint = 0;
  StreamTask task({0, 0}, topology_, a.env);
  ASSERT_TRUE(task.initialize().has_value());
  ASSERT_TRUE(a.reader.register_task(task, 0).has_value());
  ASSERT_TRUE(task.complete_restoration().has_value());  // checkpoints the unknown offset
  const std::string checkpoint = a.env.task_dir + "/.checkpoint";
  ASSERT_TRUE(std::filesystem::remove(checkpoint));
  task.add_records({input(1, 0)});
  ASSERT_TRUE(*task.process_one());
  ASSERT_TRUE(task.prepare_commit().has_value());
  ASSERT_TRUE(task.post_commit(false).has_value());
  EXPECT_TRUE(std::filesystem::exists(checkpoint));
}

// StreamTask.prepareCommit flushes the caches, not the stores: after commits with no checkpoint
// due, a crash (the task dropped, RocksDB closed without a flush, the WAL off) loses the store's
// writes since the last checkpoint, and the restarted task finds only what that checkpoint
// flushed (a killed process: a clean close would flush them, as DB::Close does in Kafka). (impl/
// used to flush every store at every commit, so the crash kept them.)
TEST_P(RuntimeTest, CommitWithoutCheckpointLeavesTheStoreUnflushed) {
  Instance a(broker_, root_ / "a", GetParam());
  {
    auto owned = std::make_unique<StreamTask>(TaskId{0, 0}, topology_, a.env);
    StreamTask& task = *owned;
    ASSERT_TRUE(task.initialize().has_value());
    ASSERT_TRUE(a.reader.register_task(task, 0).has_value());
    ASSERT_TRUE(task.complete_restoration().has_value());  // enforced: the empty store on disk
    task.add_records({input(1, 0), input(1, 1)});
    ASSERT_TRUE(*task.process_one());
    ASSERT_TRUE(*task.process_one());
    for (int commit = 0; commit < 2; ++commit) {
      auto offsets = task.prepare_commit();
      ASSERT_TRUE(offsets.has_value());
      EXPECT_EQ(offsets->size(), commit == 0 ? 1U : 0U);  // nothing processed since: empty
      ASSERT_TRUE(task.post_commit(false).has_value());
    }
    EXPECT_EQ(count(task, 1), 2);
    a.reader.unregister_task({0, 0});
    kill_leaving_disk(owned, a.env.task_dir);  // the process, its thread cache included, dies
  }
  Instance restarted_instance(broker_, root_ / "a", GetParam());
  StreamTask restarted({0, 0}, topology_, restarted_instance.env);
  ASSERT_TRUE(restarted.initialize().has_value());
  EXPECT_EQ(count(restarted, 1), std::nullopt);
}

// RocksDB flushes a memtable that reached write_buffer_size by itself, before any commit: a
// crash then keeps those uncommitted writes on disk, beyond what .checkpoint names.
TEST_P(RuntimeTest, FullMemtableReachesDiskBeforeAnyCommit) {
  Instance a(broker_, root_ / "a", GetParam());
  a.env.rocksdb_write_buffer_size = 4 * 1024;
  topology_.caching = false;  // every write goes to RocksDB at once
  // 150 keys leave the last memtable partly full under both switches (at 200 the last write
  // filled one exactly with the consistency vector on, and every key reached disk).
  constexpr int kKeys = 150;
  {
    auto owned = std::make_unique<StreamTask>(TaskId{0, 0}, topology_, a.env);
    StreamTask& task = *owned;
    ASSERT_TRUE(task.initialize().has_value());
    ASSERT_TRUE(a.reader.register_task(task, 0).has_value());
    ASSERT_TRUE(task.complete_restoration().has_value());
    for (int key = 0; key < kKeys; ++key) {
      task.add_records({input(key, key)});
      ASSERT_TRUE(*task.process_one());
    }
    a.reader.unregister_task({0, 0});
    kill_leaving_disk(owned, a.env.task_dir);  // the process dies, with no commit
  }
  StreamTask restarted({0, 0}, topology_, a.env);
  ASSERT_TRUE(restarted.initialize().has_value());
  int on_disk = 0;
  for (int key = 0; key < kKeys; ++key) on_disk += count(restarted, key).has_value() ? 1 : 0;
  EXPECT_GT(on_disk, 0);      // flushed by the full memtables
  EXPECT_LT(on_disk, kKeys);  // the last memtable was not full: lost
  EXPECT_EQ(count(restarted, 0), 1);
  EXPECT_EQ(count(restarted, kKeys - 1), std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(ConsistencySwitch, RuntimeTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& p) {
                           return p.param ? "vectorOn" : "vectorOff";
                         });

}  // namespace
}  // namespace iq
