#include "store_harness.h"

#include "base/assert.h"

namespace iq::properties {
namespace {

constexpr const char* kApplicationId = "iqsim-store";
constexpr const char* kStoreName = "kv-store";

void check(const Status& s, const char* what) {
  IQ_ASSERT(s.has_value(), "{} failed: {}", what, s ? "" : s.error().to_string());
}

}  // namespace

std::string StoreConfiguration::describe() const {
  return std::string("supplier=") + to_string(supplier) +
         " api=" + (api == StoreApi::kDsl ? "DSL" : "PAPI") +
         " cache=" + (caching ? std::to_string(cache_max_bytes) + "B" : "off") +
         " log=" + (logging ? "on" : "off") + " consistency=" + (consistency ? "on" : "off") +
         " partition=" + std::to_string(partition);
}

base::Expected<int64_t, StreamsError> InMemoryChangelog::send(const std::string& topic,
                                                              int32_t partition, const Bytes& key,
                                                              const std::optional<Bytes>& value,
                                                              int64_t timestamp,
                                                              const Headers& headers) {
  auto& log = logs_[{topic, partition}];
  const auto offset = static_cast<int64_t>(log.size());
  log.push_back(ConsumerRecord{topic, partition, offset, timestamp, key, value, headers});
  return offset;
}

std::vector<ConsumerRecord> InMemoryChangelog::records_after(const std::string& topic,
                                                             int32_t partition,
                                                             int64_t after) const {
  auto it = logs_.find({topic, partition});
  if (it == logs_.end()) return {};
  std::vector<ConsumerRecord> out;
  for (const auto& r : it->second) {
    if (r.offset > after) out.push_back(r);
  }
  return out;
}

StoreHarness::StoreHarness(StoreConfiguration config, std::filesystem::path state_root)
    : config_(std::move(config)), state_root_(std::move(state_root)) {
  std::filesystem::remove_all(state_root_);
  open();
}

StoreHarness::~StoreHarness() {
  drop_objects();
  std::error_code ec;
  std::filesystem::remove_all(state_root_, ec);
}

std::string StoreHarness::task_dir() const {
  return (state_root_ / kApplicationId / TaskId{0, config_.partition}.to_string()).string();
}

void StoreHarness::open() {
  check(fs_.create_directories(task_dir()), "create task dir");
  cache_ = std::make_unique<ThreadCache>(config_.caching ? config_.cache_max_bytes : 0);
  std::set<std::string> logged;
  if (config_.logging) logged.insert(kStoreName);
  state_manager_ = std::make_unique<ProcessorStateManager>(
      kApplicationId, TaskId{0, config_.partition}, task_dir(), fs_, logged);
  context_ = std::make_unique<ProcessorContextImpl>(
      ProcessorContextImpl::Config{kApplicationId, TaskId{0, config_.partition}, TaskType::kActive,
                                   config_.consistency},
      *state_manager_, fs_, nullptr, cache_.get(), &changelog_);
  StoreBuilderOptions options{
      .caching = config_.caching, .logging = config_.logging, .lru_max_entries = 100};
  dsl_ = nullptr;
  papi_ = nullptr;
  if (config_.api == StoreApi::kDsl) {
    auto store = stores::timestamped_key_value_store<int32_t, int64_t>(config_.supplier, kStoreName,
                                                                       options);
    dsl_ = store.get();
    root_ = std::move(store);
  } else {
    auto store = stores::key_value_store<int32_t, int64_t>(config_.supplier, kStoreName, options);
    papi_ = store.get();
    root_ = std::move(store);
  }
  check(root_->init(*context_, *root_), "init");
  check(state_manager_->initialize_store_offsets_from_checkpoint(), "read .checkpoint");
  if (config_.logging) {
    const auto tp = *state_manager_->changelog_partition(kStoreName);
    const int64_t from =
        state_manager_->changelog_offset(kStoreName).value_or(ChangelogOffset(-1)).value();
    check(state_manager_->restore(kStoreName, changelog_.records_after(tp.first, tp.second, from)),
          "restore");
  }
}

void StoreHarness::drop_objects() {
  // Destroying without close(): RocksDB loses its memtable (WAL off), caches and maps vanish.
  root_.reset();
  context_.reset();
  state_manager_.reset();
  cache_.reset();
  dsl_ = nullptr;
  papi_ = nullptr;
}

void StoreHarness::set_context(int64_t offset, int64_t timestamp) {
  context_->set_record_context(
      RecordContext{std::string(kSourceTopic), config_.partition, offset, timestamp, {}});
}

void StoreHarness::apply(const SourceWrite& w) {
  set_context(w.offset, w.timestamp);
  if (dsl_ != nullptr) {
    if (w.kind == WriteKind::kPut) {
      check(dsl_->put(w.key, ValueAndTimestamp<int64_t>{*w.value, w.timestamp}), "put");
    } else if (w.kind == WriteKind::kTombstone) {
      check(dsl_->put(w.key, std::nullopt), "tombstone");
    } else {
      auto old = dsl_->delete_key(w.key);
      IQ_ASSERT(old.has_value(), "delete failed");
    }
    return;
  }
  if (w.kind == WriteKind::kPut) {
    check(papi_->put(w.key, *w.value), "put");
  } else if (w.kind == WriteKind::kTombstone) {
    check(papi_->put(w.key, std::nullopt), "tombstone");
  } else {
    auto old = papi_->delete_key(w.key);
    IQ_ASSERT(old.has_value(), "delete failed");
  }
}

void StoreHarness::process(const SourceWrite& w) {
  IQ_ASSERT(history_.empty() || w.offset > history_.back().offset, "offsets must grow");
  history_.push_back(w);
  apply(w);
}

void StoreHarness::process_put_all(int64_t offset, int64_t timestamp,
                                   const std::vector<std::pair<int32_t, int64_t>>& entries) {
  IQ_ASSERT(history_.empty() || offset > history_.back().offset, "offsets must grow");
  for (const auto& [k, v] : entries) history_.push_back({offset, k, v, timestamp, WriteKind::kPut});
  set_context(offset, timestamp);
  if (dsl_ != nullptr) {
    std::vector<KeyValue<int32_t, std::optional<ValueAndTimestamp<int64_t>>>> batch;
    for (const auto& [k, v] : entries)
      batch.push_back({k, ValueAndTimestamp<int64_t>{v, timestamp}});
    check(dsl_->put_all(batch), "putAll");
  } else {
    std::vector<KeyValue<int32_t, std::optional<int64_t>>> batch;
    for (const auto& [k, v] : entries) batch.push_back({k, v});
    check(papi_->put_all(batch), "putAll");
  }
}

void StoreHarness::flush() {
  check(root_->flush(), "flush");
}

void StoreHarness::commit() {
  check(state_manager_->flush(), "commit flush");
  check(state_manager_->checkpoint(), "checkpoint");
  if (!history_.empty()) committed_offset_ = history_.back().offset;
}

void StoreHarness::commit_then_crash(int writes_before_death) {
  IQ_ASSERT(writes_before_death >= 0, "writes_before_death={}", writes_before_death);
  check(state_manager_->flush(), "commit flush");
  if (!history_.empty()) committed_offset_ = history_.back().offset;
  fs_.die_after_writes(writes_before_death);
  // What the dead process believes it wrote does not matter: it is dropped with it.
  (void)state_manager_->checkpoint();
  fs_.revive();
  crash_and_recover();
}

void StoreHarness::close_and_reopen() {
  commit();
  state_manager_->close();
  drop_objects();
  open();
}

void StoreHarness::crash_and_recover() {
  drop_objects();
  open();
  // At-least-once: the consumer resumes after the last committed source offset.
  const int64_t resume_after = committed_offset_.value_or(-1);
  int64_t last_offset = -2;
  std::vector<std::pair<int32_t, int64_t>> batch;
  for (const auto& w : history_) {
    if (w.offset <= resume_after) continue;
    // Records that shared one offset were one putAll; replay them as one again.
    if (w.offset == last_offset) continue;
    last_offset = w.offset;
    std::vector<const SourceWrite*> same;
    for (const auto& x : history_) {
      if (x.offset == w.offset) same.push_back(&x);
    }
    if (same.size() == 1) {
      apply(w);
    } else {
      batch.clear();
      for (const auto* x : same) batch.emplace_back(x->key, *x->value);
      set_context(w.offset, w.timestamp);
      if (dsl_ != nullptr) {
        std::vector<KeyValue<int32_t, std::optional<ValueAndTimestamp<int64_t>>>> b;
        for (const auto& [k, v] : batch)
          b.push_back({k, ValueAndTimestamp<int64_t>{v, w.timestamp}});
        check(dsl_->put_all(b), "putAll replay");
      } else {
        std::vector<KeyValue<int32_t, std::optional<int64_t>>> b;
        for (const auto& [k, v] : batch) b.push_back({k, v});
        check(papi_->put_all(b), "putAll replay");
      }
    }
  }
}

QueryOutcome StoreHarness::query(const Query& q, const PositionBound& bound, bool execution_info) {
  return root_->query(q, bound, QueryConfig(execution_info));
}

}  // namespace iq::properties
