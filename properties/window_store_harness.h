#pragma once
// WindowStoreHarness: one window or session store configuration as the single store of task
// 0_<p>, with the real layers (metered, caching, change-logging, the supplier's bytes store), a
// real ProcessorContextImpl and ProcessorStateManager, the changelog kept in memory
// (store_harness.h's InMemoryChangelog), and the lifecycle a task gives a store: store-level
// writes under a record context (what a PAPI processor does), flush, commit (flush +
// checkpoint), and a clean close and reopen with restore from the changelog.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "state/session_stores.h"
#include "state/window_stores.h"
#include "store_harness.h"

namespace iq::properties {

enum class WindowedFamily { kWindow, kSession };

struct WindowedStoreConfiguration {
  WindowedFamily family = WindowedFamily::kWindow;
  // Window: kInMemory, kRocksDB (plain builder) or kRocksDBTimestamped (timestamped builder);
  // session: kInMemory or kRocksDB.
  WindowSupplier window_supplier = WindowSupplier::kInMemory;
  SessionSupplier session_supplier = SessionSupplier::kInMemory;
  bool timestamped = false;  // window only: Stores.timestampedWindowStoreBuilder
  bool caching = false;
  bool logging = true;
  bool consistency = false;
  bool retain_duplicates = false;  // window only; the builders switch caching off with it
  int64_t retention_ms = 60;
  int64_t window_size_ms = 10;
  int64_t segment_interval_ms = 20;  // the RocksDB suppliers'
  int32_t partition = 0;

  bool persistent() const {
    return family == WindowedFamily::kWindow ? window_supplier != WindowSupplier::kInMemory
                                             : session_supplier == SessionSupplier::kRocksDB;
  }
  bool cached() const { return caching && !retain_duplicates; }
  std::string describe() const;
};

class WindowStoreHarness {
 public:
  WindowStoreHarness(WindowedStoreConfiguration config, std::filesystem::path state_root);
  WindowStoreHarness(const WindowStoreHarness&) = delete;
  WindowStoreHarness& operator=(const WindowStoreHarness&) = delete;

  const WindowedStoreConfiguration& config() const { return config_; }

  // windowStore.put(key, value, windowStart) under the record context (offset, timestamp); a
  // timestamped stack stores ValueAndTimestamp(value, timestamp). nullopt: a delete.
  void put_window(int64_t offset, int64_t timestamp, int32_t key, std::optional<int64_t> value,
                  int64_t window_start_ms);
  // sessionStore.put(Windowed(key, [start, end]), value) / remove(...) under the record context.
  void put_session(int64_t offset, int64_t timestamp, int32_t key, int64_t start_ms, int64_t end_ms,
                   std::optional<int64_t> value);
  void remove_session(int64_t offset, int64_t timestamp, int32_t key, int64_t start_ms,
                      int64_t end_ms);

  void flush() { task_.flush(); }
  // Flush every store and checkpoint (.position then .checkpoint).
  void commit() { task_.commit(); }
  // Commit, close, reopen and restore from the changelog after the checkpoint.
  void close_and_reopen();

  QueryOutcome query(const Query& q, const PositionBound& bound) {
    return task_.query(q, bound, /*execution_info=*/false);
  }
  const InMemoryChangelog& changelog() const { return task_.changelog(); }

 private:
  void open();
  void drop_objects();

  WindowedStoreConfiguration config_;
  PosixFileSystem fs_;    // before task_, which uses it to the end
  SingleStoreTask task_;  // owns the stack the typed pointers below point into
  MeteredWindowStore<int32_t, int64_t>* window_ = nullptr;
  MeteredTimestampedWindowStore<int32_t, int64_t>* timestamped_window_ = nullptr;
  MeteredSessionStore<int32_t, int64_t>* session_ = nullptr;
};

}  // namespace iq::properties
