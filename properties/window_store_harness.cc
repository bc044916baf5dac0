#include "window_store_harness.h"

#include "base/assert.h"

namespace iq::properties {
namespace {

constexpr const char* kWindowApplicationId = "iqsim-window-store";
constexpr const char* kWindowStoreName = "windowed-store";

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
    : config_(std::move(config)),
      task_(SingleStoreTask::Config{.application_id = kWindowApplicationId,
                                    .store_name = kWindowStoreName,
                                    .partition = config_.partition,
                                    .cache_max_bytes = config_.caching ? (10 << 20) : 0,
                                    .logging = config_.logging,
                                    .consistency = config_.consistency},
            std::move(state_root), fs_) {
  open();
}

void WindowStoreHarness::open() {
  task_.open([this]() -> std::unique_ptr<StateStore> {
    const StoreBuilderOptions options{.caching = config_.caching, .logging = config_.logging};
    window_ = nullptr;
    timestamped_window_ = nullptr;
    session_ = nullptr;
    if (config_.family == WindowedFamily::kSession) {
      auto store = stores::session_store<int32_t, int64_t>(
          config_.session_supplier, kWindowStoreName, SessionStoreOptions{config_.retention_ms},
          options);
      session_ = store.get();
      return store;
    }
    const WindowStoreOptions w{config_.retention_ms, config_.window_size_ms,
                               config_.retain_duplicates, config_.segment_interval_ms};
    if (config_.timestamped) {
      auto store = stores::timestamped_window_store<int32_t, int64_t>(config_.window_supplier,
                                                                      kWindowStoreName, w, options);
      timestamped_window_ = store.get();
      return store;
    }
    auto store = stores::window_store<int32_t, int64_t>(config_.window_supplier, kWindowStoreName,
                                                        w, options);
    window_ = store.get();
    return store;
  });
}

void WindowStoreHarness::drop_objects() {
  task_.drop_objects();
  window_ = nullptr;
  timestamped_window_ = nullptr;
  session_ = nullptr;
}

void WindowStoreHarness::put_window(int64_t offset, int64_t timestamp, int32_t key,
                                    std::optional<int64_t> value, int64_t window_start_ms) {
  IQ_ASSERT(config_.family == WindowedFamily::kWindow, "a window put on {}", config_.describe());
  task_.set_record_context(offset, timestamp);
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
  task_.set_record_context(offset, timestamp);
  check(session_->put(Windowed<int32_t>{key, start_ms, end_ms}, value), "put");
}

void WindowStoreHarness::remove_session(int64_t offset, int64_t timestamp, int32_t key,
                                        int64_t start_ms, int64_t end_ms) {
  IQ_ASSERT(session_ != nullptr, "a session remove on {}", config_.describe());
  task_.set_record_context(offset, timestamp);
  check(session_->remove(Windowed<int32_t>{key, start_ms, end_ms}), "remove");
}

void WindowStoreHarness::close_and_reopen() {
  commit();
  task_.close();
  drop_objects();
  open();
}

}  // namespace iq::properties
