// StoreLifeRecorder writes down what impl/ reports of a store's life: the opening's facts, runs of
// consecutive given or written offsets as one event each, a gap or a change of kind as a new one,
// the close, the end of a crashed process's open lives, and a wipe of the ended lives' task.
#include "cluster/store_life_recorder.h"

#include <gtest/gtest.h>

#include "event_loop/event_loop.h"
#include "iq/serdes.h"

namespace iq::sim {
namespace {

using Kind = StoreLifeEvent::Kind;

StoreLifeOpening opening_over(std::vector<KeyValue<Bytes, Bytes>> kept,
                              std::optional<ChangelogOffset> checkpoint) {
  StoreLifeOpening o;
  o.task = TaskId{0, 1};
  o.store = "counts";
  o.persistent = true;
  o.over_kept_data = !kept.empty();
  o.kept = std::move(kept);
  o.loaded_checkpoint = checkpoint;
  o.checkpoint_entry_loaded = checkpoint.has_value();
  return o;
}

TEST(StoreLifeRecorderTest, RecordsALifeAsItHappened) {
  EventLoop loop;
  TopologyConfig topology;  // a key-value store: keys are ints, values longs
  StoreLifeLog log(topology);
  StoreLifeRecorder recorder(log, loop, "instance-2", nullptr);
  const StoreLifeId id = recorder.opened(opening_over(
      {{Serde<int32_t>::serialize(7), timestamped_bytes::make(40, Serde<int64_t>::serialize(5))}},
      ChangelogOffset(3)));
  ASSERT_EQ(id, 1u);
  for (int64_t o : {4, 5, 6, 8}) recorder.given(id, ChangelogOffset(o));
  recorder.wrote(id, ChangelogOffset(9));
  recorder.wrote(id, ChangelogOffset(10));
  recorder.checkpoint(id, ChangelogOffset(10));
  recorder.closed(id, StoreCloseKind::kClean);
  const StoreLife& life = log.lives().at(0);
  EXPECT_EQ(life.instance, "instance-2");
  EXPECT_EQ(life.partition, 1);
  EXPECT_TRUE(life.over_kept_data);
  EXPECT_EQ(life.loaded_checkpoint, ChangelogOffset(3));
  EXPECT_TRUE(life.checkpoint_entry_loaded);
  ASSERT_EQ(life.kept.size(), 1u);
  EXPECT_EQ(life.kept[0].key, 7);
  EXPECT_EQ(life.kept[0].value, 5);
  EXPECT_EQ(life.kept[0].timestamp_ms, 40);
  const auto event = [](Kind k, int64_t first, int64_t last) {
    return StoreLifeEvent{k, ChangelogOffset(first), ChangelogOffset(last), base::Instant{}};
  };
  EXPECT_EQ(life.events, (std::vector<StoreLifeEvent>{
                             event(Kind::kGiven, 4, 6), event(Kind::kGiven, 8, 8),
                             event(Kind::kWrote, 9, 10), event(Kind::kCheckpoint, 10, 10)}));
  EXPECT_EQ(life.end, StoreLifeEnd::kClosedClean);
}

// A crash drops the process: its open lives end with it; a life closed before keeps its close,
// and a wipe of the task marks the ended lives of that task only.
TEST(StoreLifeRecorderTest, ACrashEndsTheOpenLivesAndAWipeMarksThem) {
  EventLoop loop;
  StoreLifeLog log{TopologyConfig{}};
  StoreLifeRecorder recorder(log, loop, "instance-1", nullptr);
  const StoreLifeId closed = recorder.opened(opening_over({}, std::nullopt));
  recorder.closed(closed, StoreCloseKind::kDirty);
  const StoreLifeId open = recorder.opened(opening_over({}, std::nullopt));
  recorder.given(open, ChangelogOffset(0));
  recorder.process_died();
  EXPECT_EQ(log.life(closed).end, StoreLifeEnd::kClosedDirty);
  EXPECT_EQ(log.life(open).end, StoreLifeEnd::kProcessDied);
  EXPECT_FALSE(log.life(open).over_kept_data);
  recorder.wiped(TaskId{0, 2});
  EXPECT_FALSE(log.life(closed).wiped);
  recorder.wiped(TaskId{0, 1});
  EXPECT_TRUE(log.life(closed).wiped);
  EXPECT_TRUE(log.life(open).wiped);
}

}  // namespace
}  // namespace iq::sim
