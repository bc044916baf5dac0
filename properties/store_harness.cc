#include "store_harness.h"

#include "base/assert.h"

namespace iq::properties {
namespace {

constexpr const char* kApplicationId = "iqsim-store";
constexpr const char* kStoreName = "kv-store";

}  // namespace

std::string StoreConfiguration::describe() const {
  return std::string("supplier=") + to_string(supplier) +
         " api=" + (api == StoreApi::kDsl ? "DSL" : "PAPI") +
         " cache=" + (caching ? std::to_string(cache_max_bytes) + "B" : "off") +
         " log=" + (logging ? "on" : "off") + " consistency=" + (consistency ? "on" : "off") +
         " partition=" + std::to_string(partition);
}

StoreHarness::StoreHarness(StoreConfiguration config, std::filesystem::path state_root)
    : config_(std::move(config)),
      task_(
          SingleStoreTask::Config{.application_id = kApplicationId,
                                  .store_name = kStoreName,
                                  .partition = config_.partition,
                                  .cache_max_bytes = config_.caching ? config_.cache_max_bytes : 0,
                                  .logging = config_.logging,
                                  .consistency = config_.consistency},
          std::move(state_root), fs_) {
  open();
}

void StoreHarness::open() {
  task_.open([this]() -> std::unique_ptr<StateStore> {
    StoreBuilderOptions options{
        .caching = config_.caching, .logging = config_.logging, .lru_max_entries = 100};
    dsl_ = nullptr;
    papi_ = nullptr;
    if (config_.api == StoreApi::kDsl) {
      auto store = stores::timestamped_key_value_store<int32_t, int64_t>(config_.supplier,
                                                                         kStoreName, options);
      dsl_ = store.get();
      return store;
    }
    auto store = stores::key_value_store<int32_t, int64_t>(config_.supplier, kStoreName, options);
    papi_ = store.get();
    return store;
  });
}

void StoreHarness::drop_objects() {
  task_.drop_objects();
  dsl_ = nullptr;
  papi_ = nullptr;
}

void StoreHarness::apply(const SourceWrite& w) {
  task_.set_record_context(w.offset, w.timestamp);
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
  task_.set_record_context(offset, timestamp);
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
  task_.flush();
}

void StoreHarness::commit() {
  task_.commit();
  if (!history_.empty()) committed_offset_ = history_.back().offset;
}

void StoreHarness::commit_then_crash(int writes_before_death) {
  IQ_ASSERT(writes_before_death >= 0, "writes_before_death={}", writes_before_death);
  task_.flush_stores();
  if (!history_.empty()) committed_offset_ = history_.back().offset;
  fs_.die_after_writes(writes_before_death);
  // What the dead process believes it wrote does not matter: it is dropped with it.
  (void)task_.checkpoint();
  fs_.revive();
  crash_and_recover();
}

void StoreHarness::close_and_reopen() {
  commit();
  task_.close();
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
      task_.set_record_context(w.offset, w.timestamp);
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
  return task_.query(q, bound, execution_info);
}

}  // namespace iq::properties
