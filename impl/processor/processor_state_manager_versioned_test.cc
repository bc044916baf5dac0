// ProcessorStateManager restoring a versioned store: StateManagerUtil.converterForStore gives
// versioned stores the identity converter (their put takes the version timestamp from the
// record), while every other timestamped store gets the timestamp prepended to each value.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "iq/versioned_key_query.h"
#include "processor/processor_state_manager.h"
#include "state/versioned_stores.h"

namespace iq {
namespace {

// What a store sees of its task, with registration going to the state manager.
class ManagedContext final : public StateStoreContext {
 public:
  ManagedContext(ProcessorStateManager& psm, FileSystem& fs, std::string dir)
      : psm_(psm), fs_(fs), dir_(std::move(dir)) {}
  const std::string& application_id() const override { return app_; }
  TaskId task_id() const override { return TaskId{0, 0}; }
  const RecordContext* record_context() const override { return nullptr; }
  void set_record_context(std::optional<RecordContext>) override {}
  bool consistency_enabled() const override { return false; }
  Status log_change(const std::string&, const Bytes&, const ValueBytes&, int64_t,
                    const Position&) override {
    return ok_status();
  }
  void register_store(StateStore& store, RestoreCallback restore, CommitCallback commit) override {
    psm_.register_store(store, std::move(restore), std::move(commit));
  }
  ThreadCache* cache() override { return nullptr; }
  const std::string& state_dir() const override { return dir_; }
  FileSystem& file_system() override { return fs_; }
  rocksdb::Env* rocksdb_env() override { return nullptr; }

 private:
  std::string app_ = "app";
  ProcessorStateManager& psm_;
  FileSystem& fs_;
  std::string dir_;
};

// Changelog values reach the versioned store as they were logged, so the restored versions are
// the logged values with the records' timestamps.
TEST(ProcessorStateManagerVersionedTest, RestoresVersionedStoresWithoutTimestampConversion) {
  PosixFileSystem fs;
  std::string tmp = ::testing::TempDir();
  if (tmp.empty() || tmp.back() != '/') tmp += '/';
  const std::string dir = tmp + "iqsim_psm_versioned/app/0_0";
  ASSERT_TRUE(fs.delete_recursively(tmp + "iqsim_psm_versioned").has_value());
  ASSERT_TRUE(fs.create_directories(dir).has_value());
  {
    ProcessorStateManager psm("app", TaskId{0, 0}, dir, fs, {"vs"});
    ManagedContext context(psm, fs, dir);
    auto store = stores::versioned_key_value_store<int32_t, int32_t>("vs", {});
    ASSERT_TRUE(store->init(context, *store).has_value());
    ASSERT_EQ(psm.store("vs"), store.get());
    std::vector<ConsumerRecord> records;
    for (int i = 0; i < 3; ++i) {
      ConsumerRecord r;
      r.topic = "app-vs-changelog";
      r.offset = i;
      r.timestamp = 1000 + 10 * i;
      r.key = Serde<int32_t>::serialize(7);
      r.value = Serde<int32_t>::serialize(100 + i);
      records.push_back(std::move(r));
    }
    ASSERT_TRUE(psm.restore("vs", records).has_value());
    auto latest = store->get(7);
    ASSERT_TRUE(latest.has_value() && latest->has_value());
    EXPECT_EQ(**latest, (VersionedRecord<int32_t>{102, 1020, std::nullopt}));
    auto older = store->query(VersionedKeyQuery<int32_t, int32_t>::with_key(7).as_of(1015),
                              PositionBound::unbounded(), QueryConfig(false));
    ASSERT_TRUE(older.has_value() && older->is_success());
    EXPECT_EQ(older->result<std::optional<VersionedRecord<int32_t>>>(),
              (VersionedRecord<int32_t>{101, 1010, 1020}));
    store->close();
  }
  EXPECT_TRUE(fs.delete_recursively(tmp + "iqsim_psm_versioned").has_value());
}

}  // namespace
}  // namespace iq
