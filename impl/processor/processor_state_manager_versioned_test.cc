// ProcessorStateManager restoring a versioned store: StateManagerUtil.converterForStore gives
// versioned stores the identity converter (their put takes the version timestamp from the
// record), while every other timestamped store gets the timestamp prepended to each value.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "iq/versioned_key_query.h"
#include "processor/processor_state_manager.h"
#include "processor/test_fakes.h"
#include "state/versioned_stores.h"

namespace iq {
namespace {

using testing_fakes::ManagedContext;

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
