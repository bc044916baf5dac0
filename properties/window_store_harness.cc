#include "window_store_harness.h"

#include "base/assert.h"

namespace iq::properties {
namespace {

constexpr const char* kApplicationId = "iqsim-window-store";
constexpr const char* kStoreName = "windowed-store";

void check(const Status& s, const char* what) {
  IQ_ASSERT(s.has_value(), "{} failed: {}", what, s ? "" : s.error().to_string());
}

}  // namespace

std::string WindowedStoreConfiguration::describe() const {
  std::string out = family == WindowedFamily::kWindow
                        ? std::string("window supplier=") + to_string(window_supplier) +
                              (timestamped ? " timestamped" : " plain") +
                              (retain_duplicates ? " duplicates" : "")
                        : std::string("session supplier=") + to_string(session_supplier);
  return out + " cache=" + (caching ? "on" : "off") + " log=" + (logging ? "on" : "off") +
         " consistency=" + (consistency ? "on" : "off") +
         " retention=" + std::to_string(retention_ms) +
         " segment=" + std::to_string(segment_interval_ms);
}

WindowStoreHarness::WindowStoreHarness(WindowedStoreConfiguration config,
                                       std::filesystem::path state_root)
    : config_(std::move(config)), state_root_(std::move(state_root)) {
  std::filesystem::remove_all(state_root_);
  open();
}

WindowStoreHarness::~WindowStoreHarness() {
  drop_objects();
  std::error_code ec;
  std::filesystem::remove_all(state_root_, ec);
}

std::string WindowStoreHarness::task_dir() const {
  return (state_root_ / kApplicationId / TaskId{0, config_.partition}.to_string()).string();
}

void WindowStoreHarness::open() {
  check(fs_.create_directories(task_dir()), "create task dir");
  cache_ = std::make_unique<ThreadCache>(config_.caching ? (10 << 20) : 0);
  std::set<std::string> logged;
  if (config_.logging) logged.insert(kStoreName);
  state_manager_ = std::make_unique<ProcessorStateManager>(
      kApplicationId, TaskId{0, config_.partition}, task_dir(), fs_, logged);
  context_ = std::make_unique<ProcessorContextImpl>(
      ProcessorContextImpl::Config{kApplicationId, TaskId{0, config_.partition}, TaskType::kActive,
                                   config_.consistency},
      *state_manager_, fs_, nullptr, cache_.get(), &changelog_);
  const StoreBuilderOptions options{.caching = config_.caching, .logging = config_.logging};
  window_ = nullptr;
  timestamped_window_ = nullptr;
  session_ = nullptr;
  if (config_.family == WindowedFamily::kWindow) {
    const WindowStoreOptions w{config_.retention_ms, config_.window_size_ms,
                               config_.retain_duplicates, config_.segment_interval_ms};
    if (config_.timestamped) {
      auto store = stores::timestamped_window_store<int32_t, int64_t>(config_.window_supplier,
                                                                      kStoreName, w, options);
      timestamped_window_ = store.get();
      root_ = std::move(store);
    } else {
      auto store =
          stores::window_store<int32_t, int64_t>(config_.window_supplier, kStoreName, w, options);
      window_ = store.get();
      root_ = std::move(store);
    }
  } else {
    auto store = stores::session_store<int32_t, int64_t>(
        config_.session_supplier, kStoreName, SessionStoreOptions{config_.retention_ms}, options);
    session_ = store.get();
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

void WindowStoreHarness::drop_objects() {
  root_.reset();
  context_.reset();
  state_manager_.reset();
  cache_.reset();
  window_ = nullptr;
  timestamped_window_ = nullptr;
  session_ = nullptr;
}

void WindowStoreHarness::set_context(int64_t offset, int64_t timestamp) {
  context_->set_record_context(
      RecordContext{std::string(kSourceTopic), config_.partition, offset, timestamp, {}});
}

void WindowStoreHarness::put_window(int64_t offset, int64_t timestamp, int32_t key,
                                    std::optional<int64_t> value, int64_t window_start_ms) {
  IQ_ASSERT(config_.family == WindowedFamily::kWindow, "a window put on {}", config_.describe());
  set_context(offset, timestamp);
  if (timestamped_window_ != nullptr) {
    const auto stored = value ? std::optional(ValueAndTimestamp<int64_t>{*value, timestamp})
                              : std::optional<ValueAndTimestamp<int64_t>>{};
    check(timestamped_window_->put(key, stored, window_start_ms), "put");
  } else {
    check(window_->put(key, value, window_start_ms), "put");
  }
}

void WindowStoreHarness::put_session(int64_t offset, int64_t timestamp, int32_t key,
                                     int64_t start_ms, int64_t end_ms,
                                     std::optional<int64_t> value) {
  IQ_ASSERT(session_ != nullptr, "a session put on {}", config_.describe());
  set_context(offset, timestamp);
  check(session_->put(Windowed<int32_t>{key, start_ms, end_ms}, value), "put");
}

void WindowStoreHarness::remove_session(int64_t offset, int64_t timestamp, int32_t key,
                                        int64_t start_ms, int64_t end_ms) {
  IQ_ASSERT(session_ != nullptr, "a session remove on {}", config_.describe());
  set_context(offset, timestamp);
  check(session_->remove(Windowed<int32_t>{key, start_ms, end_ms}), "remove");
}

void WindowStoreHarness::flush() {
  check(root_->flush(), "flush");
}

void WindowStoreHarness::commit() {
  check(state_manager_->flush(), "commit flush");
  check(state_manager_->checkpoint(), "checkpoint");
}

void WindowStoreHarness::close_and_reopen() {
  commit();
  state_manager_->close();
  drop_objects();
  open();
}

QueryOutcome WindowStoreHarness::query(const Query& q, const PositionBound& bound) {
  return root_->query(q, bound, QueryConfig(false));
}

}  // namespace iq::properties
