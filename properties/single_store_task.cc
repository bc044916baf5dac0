#include "single_store_task.h"

#include <set>

#include "base/assert.h"

namespace iq::properties {

void check(const Status& s, const char* what) {
  IQ_ASSERT(s.has_value(), "{} failed: {}", what, s ? "" : s.error().to_string());
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

SingleStoreTask::SingleStoreTask(Config config, std::filesystem::path state_root, FileSystem& fs)
    : config_(std::move(config)), state_root_(std::move(state_root)), fs_(fs) {
  IQ_ASSERT(!config_.store_name.empty() && config_.cache_max_bytes >= 0, "store {} cache {}",
            config_.store_name, config_.cache_max_bytes);
  std::filesystem::remove_all(state_root_);
}

SingleStoreTask::~SingleStoreTask() {
  drop_objects();
  std::error_code ec;
  std::filesystem::remove_all(state_root_, ec);
}

std::string SingleStoreTask::task_dir() const {
  return (state_root_ / config_.application_id / task_id().to_string()).string();
}

void SingleStoreTask::open(const StoreBuilder& build) {
  IQ_ASSERT(root_ == nullptr, "store {} opened twice", config_.store_name);
  check(fs_.create_directories(task_dir()), "create task dir");
  cache_ = std::make_unique<ThreadCache>(config_.cache_max_bytes);
  std::set<std::string> logged;
  if (config_.logging) logged.insert(config_.store_name);
  state_manager_ = std::make_unique<ProcessorStateManager>(config_.application_id, task_id(),
                                                           task_dir(), fs_, logged);
  ProcessorContextImpl::Config context_config;
  context_config.application_id = config_.application_id;
  context_config.task = task_id();
  context_config.consistency_enabled = config_.consistency;
  context_ = std::make_unique<ProcessorContextImpl>(std::move(context_config), *state_manager_, fs_,
                                                    nullptr, cache_.get(), &changelog_);
  root_ = build();
  IQ_ASSERT(root_ != nullptr && root_->name() == config_.store_name, "built {}",
            root_ ? root_->name() : "nothing");
  check(root_->init(*context_, *root_), "init");
  check(state_manager_->initialize_store_offsets_from_checkpoint(), "read .checkpoint");
  if (config_.logging) {
    const auto tp = *state_manager_->changelog_partition(config_.store_name);
    const int64_t from =
        state_manager_->changelog_offset(config_.store_name).value_or(ChangelogOffset(-1)).value();
    check(state_manager_->restore(config_.store_name,
                                  changelog_.records_after(tp.first, tp.second, from)),
          "restore");
  }
}

void SingleStoreTask::drop_objects() {
  root_.reset();
  context_.reset();
  state_manager_.reset();
  cache_.reset();
}

void SingleStoreTask::set_record_context(int64_t offset, int64_t timestamp) {
  context_->set_record_context(
      RecordContext{std::string(kSourceTopic), config_.partition, offset, timestamp, {}});
}

void SingleStoreTask::flush() {
  check(root_->flush(), "flush");
}

void SingleStoreTask::flush_stores() {
  check(state_manager_->flush(), "commit flush");
}

Status SingleStoreTask::checkpoint() {
  return state_manager_->checkpoint();
}

void SingleStoreTask::commit() {
  flush_stores();
  check(checkpoint(), "checkpoint");
}

QueryOutcome SingleStoreTask::query(const Query& q, const PositionBound& bound,
                                    bool execution_info) {
  return root_->query(q, bound, QueryConfig(execution_info));
}

}  // namespace iq::properties
