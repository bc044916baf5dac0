// Round trips of the window and session stacks through the runtime's changelog path: an active
// task's ProcessorContextImpl logs every write (with the consistency headers), and a fresh task
// restores that changelog through ProcessorStateManager (with its timestamped record converter)
// into a new store, which must then answer IQv2 queries with the same values and position.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "processor/processor_context_impl.h"
#include "processor/test_fakes.h"
#include "state/session_stores.h"
#include "state/window_stores.h"

namespace iq {
namespace {

using testing_fakes::FakeBroker;
using testing_fakes::FakeCollector;

constexpr int64_t kMin5 = 300000;

// One task instance on its own directory: state manager, context, and a store built by `make`.
template <typename Store>
struct TaskInstance {
  TaskInstance(const std::string& dir, FakeBroker& broker, TaskType type)
      : collector(broker),
        manager("app", TaskId{0, 0}, dir, fs, {"w"}),
        context(config(type), manager, fs, nullptr, nullptr, &collector) {}
  static ProcessorContextImpl::Config config(TaskType type) {
    ProcessorContextImpl::Config c;
    c.application_id = "app";
    c.type = type;
    c.consistency_enabled = true;
    return c;
  }
  PosixFileSystem fs;
  FakeCollector collector;
  ProcessorStateManager manager;
  ProcessorContextImpl context;
  std::unique_ptr<Store> store;
};

std::string fresh_dir(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string dir = ::testing::TempDir();
  if (dir.empty() || dir.back() != '/') dir += '/';
  dir += std::string("iqsim_changelog_") + info->name() + "_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(WindowSessionChangelogTest, TimestampedWindowStacksRestoreWhatTheyLogged) {
  // Proves, for the timestamped builder over kRocksDBTimestamped (values converted back to
  // [timestamp][value] on restore) and over kRocksDB (the adapter: no conversion, quirk 24), that
  // a restored store answers WindowKeyQuery as the writer did, with the writer's position: the
  // writer dropped a late put into an expired segment without a position update (but logged
  // it), and the restore drops it and the records of segments expired by the batch's stream
  // time, headers included.
  for (WindowSupplier s : {WindowSupplier::kRocksDBTimestamped, WindowSupplier::kRocksDB}) {
    FakeBroker broker;
    WindowStoreOptions w;
    w.retention_period_ms = 2 * kMin5;
    w.window_size_ms = kMin5;
    w.segment_interval_ms = kMin5;
    const auto q =
        WindowKeyQuery<int32_t, int32_t>::with_key_and_window_start_range(1, 0, 100 * kMin5);
    auto values = [&](MeteredTimestampedWindowStore<int32_t, int32_t>& store) {
      auto r = store.query(q, PositionBound::unbounded(), QueryConfig(false));
      EXPECT_TRUE(r.has_value() && r->is_success());
      std::vector<int32_t> out;
      if (s == WindowSupplier::kRocksDB) {
        for (const auto& e : r->result<KeyValueIterator<int64_t, int32_t>>().entries)
          out.push_back(e.value);
      } else {
        for (const auto& e :
             r->result<KeyValueIterator<int64_t, ValueAndTimestamp<int32_t>>>().entries) {
          EXPECT_EQ(e.value.timestamp, e.key + 1) << to_string(s);
          out.push_back(e.value.value);
        }
      }
      return std::make_pair(out, r->position());
    };
    TaskInstance<MeteredTimestampedWindowStore<int32_t, int32_t>> writer(
        fresh_dir(std::string(to_string(s)) + "_w"), broker, TaskType::kActive);
    writer.store = stores::timestamped_window_store<int32_t, int32_t>(s, "w", w, {false, true});
    ASSERT_TRUE(writer.store->init(writer.context, *writer.store).has_value());
    // The last is late: its segment (2) is below segmentId(25 min - 10 min) = 3.
    const int64_t starts[] = {0, kMin5, 5 * kMin5, 2 * kMin5};
    for (int64_t i = 0; i < 4; ++i) {
      writer.context.set_record_context(RecordContext{"in", 0, i, starts[i] + 1, {}});
      ASSERT_TRUE(writer.store
                      ->put(1, ValueAndTimestamp<int32_t>{static_cast<int32_t>(i), starts[i] + 1},
                            starts[i])
                      .has_value());
    }
    const auto written = values(*writer.store);
    const auto& log = broker.logs[{"app-w-changelog", 0}];
    ASSERT_EQ(log.size(), 4u);

    TaskInstance<MeteredTimestampedWindowStore<int32_t, int32_t>> restored(
        fresh_dir(std::string(to_string(s)) + "_r"), broker, TaskType::kStandby);
    restored.store = stores::timestamped_window_store<int32_t, int32_t>(s, "w", w, {false, true});
    ASSERT_TRUE(restored.store->init(restored.context, *restored.store).has_value());
    ASSERT_TRUE(restored.manager.restore("w", log).has_value());
    const auto read_back = values(*restored.store);
    EXPECT_EQ(read_back.first, written.first) << to_string(s);
    // Stream time 25 min, retention 10 min: only the window at 25 min is above the floor.
    EXPECT_EQ(read_back.first, (std::vector<int32_t>{2})) << to_string(s);
    EXPECT_EQ(read_back.second, written.second) << to_string(s);
    EXPECT_EQ(read_back.second, Position::from_map({{"in", {{0, 2}}}})) << to_string(s);
  }
}

TEST(WindowSessionChangelogTest, SessionStacksRestoreWhatTheyLogged) {
  // Proves, for the in-memory and RocksDB session stores, that a restored store answers
  // WindowRangeQuery.withKey as the writer did (a removed session stays removed), with the
  // writer's position.
  for (SessionSupplier s : {SessionSupplier::kInMemory, SessionSupplier::kRocksDB}) {
    FakeBroker broker;
    const auto q = WindowRangeQuery<int32_t, int32_t>::with_key(1);
    auto answer = [&](MeteredSessionStore<int32_t, int32_t>& store) {
      auto r = store.query(q, PositionBound::unbounded(), QueryConfig(false));
      EXPECT_TRUE(r.has_value() && r->is_success());
      std::vector<Windowed<int32_t>> out;
      for (const auto& e : r->result<KeyValueIterator<Windowed<int32_t>, int32_t>>().entries)
        out.push_back(e.key);
      return std::make_pair(out, r->position());
    };
    TaskInstance<MeteredSessionStore<int32_t, int32_t>> writer(
        fresh_dir(std::string(to_string(s)) + "_w"), broker, TaskType::kActive);
    writer.store =
        stores::session_store<int32_t, int32_t>(s, "w", SessionStoreOptions{}, {false, true});
    ASSERT_TRUE(writer.store->init(writer.context, *writer.store).has_value());
    writer.context.set_record_context(RecordContext{"in", 0, 0, 10, {}});
    ASSERT_TRUE(writer.store->put(Windowed<int32_t>{1, 10, 10}, 1).has_value());
    writer.context.set_record_context(RecordContext{"in", 0, 1, 20, {}});
    ASSERT_TRUE(writer.store->remove(Windowed<int32_t>{1, 10, 10}).has_value());
    ASSERT_TRUE(writer.store->put(Windowed<int32_t>{1, 10, 20}, 2).has_value());
    writer.context.set_record_context(RecordContext{"in", 0, 2, 90, {}});
    ASSERT_TRUE(writer.store->put(Windowed<int32_t>{1, 90, 90}, 3).has_value());
    const auto written = answer(*writer.store);
    const auto& log = broker.logs[{"app-w-changelog", 0}];
    ASSERT_EQ(log.size(), 4u);

    TaskInstance<MeteredSessionStore<int32_t, int32_t>> restored(
        fresh_dir(std::string(to_string(s)) + "_r"), broker, TaskType::kStandby);
    restored.store =
        stores::session_store<int32_t, int32_t>(s, "w", SessionStoreOptions{}, {false, true});
    ASSERT_TRUE(restored.store->init(restored.context, *restored.store).has_value());
    ASSERT_TRUE(restored.manager.restore("w", log).has_value());
    const auto read_back = answer(*restored.store);
    EXPECT_EQ(read_back.first, written.first) << to_string(s);
    EXPECT_EQ(read_back.first, (std::vector<Windowed<int32_t>>{{1, 10, 20}, {1, 90, 90}}))
        << to_string(s);
    EXPECT_EQ(read_back.second, written.second) << to_string(s);
    EXPECT_EQ(read_back.second, Position::from_map({{"in", {{0, 2}}}})) << to_string(s);
  }
}

}  // namespace
}  // namespace iq
