#pragma once
// Test doubles for the runtime's broker seams: logs in memory that every consumer reads at once.
// For unit tests of tasks and threads without the simulator.

#include <filesystem>
#include <map>
#include <set>

#include "io/consumer.h"
#include "io/group_membership.h"
#include "io/record_collector.h"
#include "processor/processor_state_manager.h"
#include "processor/store_changelog_reader.h"
#include "processor/task.h"

namespace iq::testing_fakes {

// Topic-partition logs, offsets from 0.
struct FakeBroker {
  std::map<TopicPartition, std::vector<ConsumerRecord>> logs;
  int64_t append(ConsumerRecord r) {
    auto& log = logs[{r.topic, r.partition}];
    r.offset = static_cast<int64_t>(log.size());
    log.push_back(std::move(r));
    return log.back().offset;
  }
};

class FakeCollector final : public RecordCollector {
 public:
  explicit FakeCollector(FakeBroker& b) : broker_(b) {}
  base::Expected<int64_t, StreamsError> send(const std::string& topic, int32_t partition,
                                             const Bytes& key, const std::optional<Bytes>& value,
                                             int64_t timestamp, const Headers& headers) override {
    return broker_.append(ConsumerRecord{topic, partition, 0, timestamp, key, value, headers});
  }

 private:
  FakeBroker& broker_;
};

class FakeConsumer final : public Consumer {
 public:
  explicit FakeConsumer(FakeBroker& b) : broker_(b) {}
  void assign(const std::vector<TopicPartition>& partitions) override {
    std::map<TopicPartition, int64_t> kept;
    for (const auto& tp : partitions) kept[tp] = positions_.count(tp) ? positions_[tp] : 0;
    positions_ = kept;
  }
  std::vector<TopicPartition> assignment() const override {
    std::vector<TopicPartition> out;
    for (const auto& [tp, _] : positions_) out.push_back(tp);
    return out;
  }
  void seek(const TopicPartition& tp, int64_t next) override { positions_[tp] = next; }
  void seek_to_beginning(const TopicPartition& tp) override { positions_[tp] = 0; }
  std::optional<int64_t> position(const TopicPartition& tp) const override {
    auto it = positions_.find(tp);
    return it == positions_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  void pause(const std::vector<TopicPartition>& ps) override {
    paused_.insert(ps.begin(), ps.end());
  }
  void resume(const std::vector<TopicPartition>& ps) override {
    for (const auto& tp : ps) paused_.erase(tp);
  }
  std::vector<ConsumerRecord> poll(size_t max_records) override {
    std::vector<ConsumerRecord> out;
    for (auto& [tp, next] : positions_) {
      if (paused_.count(tp)) continue;
      const auto& log = broker_.logs[tp];
      while (next < static_cast<int64_t>(log.size()) && out.size() < max_records)
        out.push_back(log[next++]);
    }
    return out;
  }
  bool paused(const TopicPartition& tp) const { return paused_.count(tp) != 0; }

 private:
  FakeBroker& broker_;
  std::map<TopicPartition, int64_t> positions_;
  std::set<TopicPartition> paused_;
};

class FakeAdmin final : public Admin {
 public:
  explicit FakeAdmin(FakeBroker& b) : broker_(b) {}
  base::Expected<TopicPartitionOffsets, StreamsError> end_offsets(
      const std::vector<TopicPartition>& ps) override {
    if (end_offsets_error) return base::unexpected(*end_offsets_error);
    TopicPartitionOffsets out;
    for (const auto& tp : ps) out[tp] = static_cast<int64_t>(broker_.logs[tp].size());
    return out;
  }
  std::optional<StreamsError> end_offsets_error;  // set: every lookup fails with it

 private:
  FakeBroker& broker_;
};

// A group of exactly one member: every (re)join assigns everything to it at once, inside poll(),
// as KafkaConsumer.poll runs the rebalance callbacks. Commits are kept in memory. With `hold`, a
// rejoin sends its JoinGroup (the listener builds its subscription) and then waits, poll after
// poll, until `hold` is cleared: a rebalance that stays in progress.
class FakeMembership final : public GroupMembership {
 public:
  void poll(RebalanceListener& listener) override {
    if (!rejoin_) return;
    if (!subscription_) subscription_ = listener.subscription_user_data();
    if (hold) return;
    rejoin_ = false;
    ++generation_;
    JoinedMember me{"member-1", std::move(*subscription_), listener.owned_partitions()};
    subscription_.reset();
    auto assignments = listener.assign({me});
    IQ_ASSERT(assignments.has_value(), "{}", assignments ? "" : assignments.error().to_string());
    auto s = listener.on_assignment(generation_, assignments->at("member-1"));
    IQ_ASSERT(s.has_value(), "{}", s ? "" : s.error().to_string());
  }
  void enforce_rebalance() override {
    rejoin_ = true;
    ++rebalances_requested;
  }
  std::string member_id() const override { return "member-1"; }
  int32_t generation() const override { return generation_; }
  Status commit_offsets(const TopicPartitionOffsets& offsets) override {
    if (commit_error) return base::unexpected(*commit_error);  // nothing reaches the broker
    for (const auto& [tp, o] : offsets) committed_[tp] = o;
    ++commits;
    return ok_status();
  }
  std::optional<int64_t> committed(const TopicPartition& tp) const override {
    auto it = committed_.find(tp);
    return it == committed_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  int rebalances_requested = 0;
  int commits = 0;
  bool hold = false;
  std::optional<StreamsError> commit_error;  // set: every commit fails with it

 private:
  bool rejoin_ = true;
  std::optional<Bytes> subscription_;  // the JoinGroup sent and not yet answered
  int32_t generation_ = 0;
  TopicPartitionOffsets committed_;
};

// One "instance": its own state directory, cache, restore consumer and reader.
struct Instance {
  Instance(FakeBroker& broker, const std::filesystem::path& dir, bool consistency)
      : collector(broker),
        restore_consumer(broker),
        admin(broker),
        reader(restore_consumer, admin, /*max_poll_records=*/1000) {
    env.application_id = "app";
    env.task_dir = (dir / "app" / "0_0").string();
    env.consistency_enabled = consistency;
    env.fs = &fs;
    env.cache = &cache;
    env.standby_cache = &standby_cache;
    env.collector = &collector;
  }
  PosixFileSystem fs;
  ThreadCache cache{1 << 20};
  ThreadCache standby_cache{0};
  FakeCollector collector;
  FakeConsumer restore_consumer;
  FakeAdmin admin;
  StoreChangelogReader reader;
  TaskEnvironment env;
};

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
  KafkaPin kafka_pin() const override { return pin_; }
  bool eos_enabled() const override { return eos_; }
  size_t rocksdb_write_buffer_size() const override { return write_buffer_size_; }
  void set_kafka_pin(KafkaPin pin) { pin_ = pin; }
  void set_eos_enabled(bool eos) { eos_ = eos; }
  void set_rocksdb_write_buffer_size(size_t bytes) { write_buffer_size_ = bytes; }

 private:
  std::string app_ = "app";
  KafkaPin pin_ = KafkaPin::k2024_10_25;
  bool eos_ = false;
  size_t write_buffer_size_ = kRocksDbWriteBufferSizeDefault;
  ProcessorStateManager& psm_;
  FileSystem& fs_;
  std::string dir_;
};

}  // namespace iq::testing_fakes
