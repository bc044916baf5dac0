// History tests: the append-only record of query attempts, as plain data.
#include "trace/history.h"

#include <gtest/gtest.h>

namespace iq::sim {
namespace {

QueryRecord record(History& h, int64_t invoke_ms, int64_t complete_ms) {
  QueryRecord r;
  r.id = h.next_id();
  r.invoke_ms = base::Instant::from_ms(invoke_ms);
  r.complete_ms = base::Instant::from_ms(complete_ms);
  r.request.store = "counts";
  r.request.query = "KeyQuery{key=1, skipCache=false}";
  r.outcome = OutcomeKind::kAnswered;
  PartitionOutcome p;
  p.partition = 0;
  p.success = true;
  p.value = std::optional<int64_t>(3);
  p.position = Position::empty_position().with_component("words", 0, 9);
  r.partitions.push_back(p);
  return r;
}

// Proves records keep completion order (ids in invoke order) and print the same way every time.
TEST(HistoryTest, AppendKeepsOrderAndPrintsStably) {
  History h(10);
  QueryRecord first = record(h, 0, 20);
  QueryRecord second = record(h, 5, 10);
  h.append(std::move(second));
  h.append(std::move(first));
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h.records()[0].id, 2u);
  EXPECT_EQ(h.records()[1].id, 1u);
  const std::string text = h.to_string();
  EXPECT_EQ(text, h.to_string());
  EXPECT_NE(text.find("#2 client=-1 query=0 attempt=1 t=5..10 store=counts "
                      "query=KeyQuery{key=1, skipCache=false} partitions=all"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("{p=0 ok value=3 pos=Position{position={words={0=9}}}}"), std::string::npos)
      << text;
}

// Proves a replica prints its recorded states under Kafka's names, the text a run's history and
// the reports show.
TEST(HistoryTest, ReplicaPrintsRecordedStatesByKafkaName) {
  ReplicaSnapshot r;
  r.partition = 2;
  r.instance = "instance-3";
  r.running = true;
  r.client_state = ReplicaSnapshot::StreamsState::REBALANCING;
  r.role = ReplicaRole::kStandby;
  r.task_state = ReplicaSnapshot::TaskState::RESTORING;
  r.thread_state = ReplicaSnapshot::ThreadState::PARTITIONS_ASSIGNED;
  r.changelog_offset = ChangelogOffset(4);
  r.changelog_end_offset = ChangelogOffset(9);
  r.lag = 4;
  EXPECT_EQ(r.to_string(),
            "{p=2 instance-3 client=REBALANCING role=standby task=RESTORING "
            "thread=PARTITIONS_ASSIGNED pos=- changelog=4/9 lag=4}");
}

}  // namespace
}  // namespace iq::sim
