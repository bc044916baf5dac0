// store_bench: what an IQv2 query costs through iqsim's full key-value store stack, next to the
// raw operation underneath it, measured on the same data in the same run (docs/design.md §5, which
// also gives the raw floors of this machine class).
//
// Every full-stack fixture is what a DSL KTable gets: MeteredTimestampedKeyValueStore ->
// CachingKeyValueStore -> ChangeLoggingTimestampedKeyValueBytesStore -> supplier store, opened
// with a real ProcessorContextImpl, ProcessorStateManager, ThreadCache and PosixFileSystem in a
// fresh temporary state directory. The raw fixtures (a RocksDB DB opened directly, a std::map)
// hold exactly the bytes the store holds: big-endian int32 keys, [8-byte timestamp][int64] values.
//
// Pairs, registered next to each other so that they print together:
//   BM_KeyQuery/full_stack_rocksdb_cache_{cold,hit}      vs BM_KeyQuery/raw_rocksdb_get
//   BM_KeyQuery/full_stack_in_memory_cache_{cold,hit}    vs BM_KeyQuery/std_map_find
//   BM_RangeQuery100/full_stack_rocksdb                  vs BM_RangeQuery100/raw_rocksdb_iterator
//   BM_RangeQuery100/full_stack_in_memory                vs BM_RangeQuery100/std_map_lower_bound
//   BM_WindowKeyQuery10/full_stack_rocksdb               vs
//   BM_WindowKeyQuery10/raw_rocksdb_iterator BM_VersionedKeyQuery/full_stack_latest vs
//   BM_VersionedKeyQuery/raw_rocksdb_get BM_VersionedKeyQuery/full_stack_as_of                vs
//   BM_VersionedKeyQuery/raw_rocksdb_two_gets
// The window and versioned raw fixtures are copies of the bytes the full stacks wrote (their
// RocksDB directories read back after the flush), so each pair reads the same rows.
// "cache_cold": the thread cache was cleared after the flush, so a KeyQuery misses the cache and
// reads the store below (a query never fills the cache). "cache_hit": every key stays cached as
// a clean entry after the flush, so a KeyQuery is answered by the cache. A RangeQuery always
// bypasses the cache (CachingKeyValueStore serves only KeyQuery), so it has one variant.
//
// Fixtures are built lazily, once, by the first benchmark that needs one (outside the timed
// loop), and torn down in main() after the run: stores closed, temporary directories removed.
#include <benchmark/benchmark.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <stdlib.h>  // mkdtemp

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "base/assert.h"
#include "io/file_system.h"
#include "io/record_collector.h"
#include "iq/key_query.h"
#include "iq/key_value_iterator.h"
#include "iq/position_bound.h"
#include "iq/query_config.h"
#include "iq/range_query.h"
#include "iq/serdes.h"
#include "iq/task_id.h"
#include "iq/value_and_timestamp.h"
#include "iq/versioned_key_query.h"
#include "iq/window_key_query.h"
#include "processor/processor_context_impl.h"
#include "processor/processor_state_manager.h"
#include "ratio_reporter.h"
#include "state/caching_key_value_store.h"
#include "state/stores.h"
#include "state/thread_cache.h"
#include "state/versioned_stores.h"
#include "state/window_stores.h"

namespace iq::bench {
namespace {

constexpr int32_t kKeyCount = 100'000;
constexpr int32_t kRangeLength = 100;
// The query sequences are drawn once and cycled; a power of two so an index is a mask.
constexpr size_t kSequenceLength = size_t{1} << 16;
constexpr size_t kSequenceMask = kSequenceLength - 1;
// Fixed on purpose: every benchmark, in every run, asks for the same keys in the same order.
constexpr uint32_t kSeed = 0x10b5eed;
// Large enough to hold all 100 k entries (about 70 bytes each by Kafka's size estimate), so the
// cache_hit fixtures really hit on every key.
constexpr int64_t kThreadCacheBytes = int64_t{10} * 1024 * 1024;
constexpr const char* kApplicationId = "bench";
constexpr const char* kStoreName = "bench-store";
constexpr const char* kSourceTopic = "input";
constexpr TaskId kTask{0, 0};
// The window stack: kWindowKeys keys with kWindowsPerKey windows each, every window start within
// the first segment (retention 1 day, so the segment interval is 12 h), so a WindowKeyQuery over
// all of a key's windows reads one segment, as the raw floor reads one database.
constexpr const char* kWindowStoreName = "bench-window";
constexpr int32_t kWindowKeys = 10'000;
constexpr int32_t kWindowsPerKey = 10;
constexpr int64_t kWindowSizeMs = 60'000;
// The versioned stack: kKeyCount keys with kVersionsPerKey versions each, kVersionStepMs apart
// from 0; retention 1 day (segment interval 1 h), so every older version is in segment 0.
constexpr const char* kVersionedStoreName = "bench-versioned";
constexpr int32_t kVersionsPerKey = 4;
constexpr int64_t kVersionStepMs = 1'000;
// VersionedKeyQuery asOf this time finds the version put at 1,000, valid until 2,000, in the
// segment row (the latest version, put at 3,000, is too new).
constexpr int64_t kAsOfMs = 1'500;

// iterations > 0: every benchmark runs exactly that many iterations (--store_bench_iterations).
void register_benchmarks(int64_t iterations);
void tear_down_fixtures();

// Takes --store_bench_iterations=N out of argv (libbenchmark would reject it) and returns N, or 0.
// A fixed count makes instruction counts comparable: run a benchmark under callgrind at two
// counts and the difference, divided by the difference of the counts, is the cost of one
// iteration with the fixture's construction cancelled out (docs/performance.md).
int64_t take_iterations_flag(int& argc, char** argv) {
  constexpr std::string_view kFlag = "--store_bench_iterations=";
  int64_t iterations = 0;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with(kFlag)) {
      iterations = std::stoll(std::string(arg.substr(kFlag.size())));
      IQ_ASSERT(iterations > 0, "--store_bench_iterations wants a positive count, got {}", arg);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return iterations;
}

}  // namespace
}  // namespace iq::bench

int main(int argc, char** argv) {
  iq::bench::register_benchmarks(iq::bench::take_iterations_flag(argc, argv));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("store_bench.keys", std::to_string(iq::bench::kKeyCount));
  benchmark::AddCustomContext("store_bench.seed", std::to_string(iq::bench::kSeed));
  benchmark::AddCustomContext("store_bench.thread_cache_bytes",
                              std::to_string(iq::bench::kThreadCacheBytes));
  // Each stack operation against the raw operation under it, with issue 14's goals.
  iq::bench::RatioReporter reporter({
      {"KeyQuery RocksDB stack, cache cold / Get", "BM_KeyQuery/full_stack_rocksdb_cache_cold",
       "BM_KeyQuery/raw_rocksdb_get", 1.3},
      {"KeyQuery RocksDB stack, cache hit / Get", "BM_KeyQuery/full_stack_rocksdb_cache_hit",
       "BM_KeyQuery/raw_rocksdb_get", 1.3},
      {"KeyQuery in-memory stack, cache cold / map::find",
       "BM_KeyQuery/full_stack_in_memory_cache_cold", "BM_KeyQuery/std_map_find", 0},
      {"KeyQuery in-memory stack, cache hit / map::find",
       "BM_KeyQuery/full_stack_in_memory_cache_hit", "BM_KeyQuery/std_map_find", 0},
      {"RangeQuery100 RocksDB stack / iterator", "BM_RangeQuery100/full_stack_rocksdb",
       "BM_RangeQuery100/raw_rocksdb_iterator", 1.5},
      {"RangeQuery100 in-memory stack / map scan", "BM_RangeQuery100/full_stack_in_memory",
       "BM_RangeQuery100/std_map_lower_bound", 2.0},
      {"RangeQuery100 in-memory stack / map scan+decode", "BM_RangeQuery100/full_stack_in_memory",
       "BM_RangeQuery100/std_map_decode_into_vector", 0},
      {"WindowKeyQuery10 RocksDB stack / iterator", "BM_WindowKeyQuery10/full_stack_rocksdb",
       "BM_WindowKeyQuery10/raw_rocksdb_iterator", 0},
      {"VersionedKeyQuery latest / Get", "BM_VersionedKeyQuery/full_stack_latest",
       "BM_VersionedKeyQuery/raw_rocksdb_get", 0},
      {"VersionedKeyQuery asOf / two Gets", "BM_VersionedKeyQuery/full_stack_as_of",
       "BM_VersionedKeyQuery/raw_rocksdb_two_gets", 0},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  // Explicitly, rather than from static destructors, so stores close while RocksDB's own
  // statics are certainly alive, and the temporary directories are gone when main returns.
  iq::bench::tear_down_fixtures();
  return 0;
}

namespace iq::bench {
namespace {

// ---- The data: one definition of every key and value, shared by all fixtures. ----

int64_t value_for(int32_t key) {
  return int64_t{key} * 1'000'003 + 17;
}
int64_t timestamp_for(int32_t key) {
  return key;
}  // record i: offset i, timestamp i

Bytes key_bytes(int32_t key) {
  return Serde<int32_t>::serialize(key);
}
// What MeteredTimestampedKeyValueStore writes for ValueAndTimestamp{value_for(key),
// timestamp_for(key)}.
Bytes stored_value_bytes(int32_t key) {
  return timestamped_bytes::make(timestamp_for(key), Serde<int64_t>::serialize(value_for(key)));
}

struct QuerySequences {
  std::vector<int32_t> keys;        // KeyQuery / Get / find
  std::vector<int32_t> range_lows;  // first key of each 100-key range
};

const QuerySequences& sequences() {
  static const QuerySequences s = [] {
    std::mt19937 prng(kSeed);
    std::uniform_int_distribution<int32_t> key(0, kKeyCount - 1);
    std::uniform_int_distribution<int32_t> low(0, kKeyCount - kRangeLength);
    QuerySequences out;
    out.keys.reserve(kSequenceLength);
    out.range_lows.reserve(kSequenceLength);
    for (size_t i = 0; i < kSequenceLength; ++i) out.keys.push_back(key(prng));
    for (size_t i = 0; i < kSequenceLength; ++i) out.range_lows.push_back(low(prng));
    IQ_ASSERT(out.keys.size() == kSequenceLength && out.range_lows.size() == kSequenceLength);
    return out;
  }();
  return s;
}

void must(const Status& status, std::string_view what) {
  IQ_ASSERT(status.has_value(), "{}: {}", what,
            status ? std::string() : status.error().to_string());
}

// ---- Helpers ----

// A fresh directory under /tmp, removed with everything in it when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) {
    std::string pattern = "/tmp/" + prefix + "-XXXXXX";
    const char* made = ::mkdtemp(pattern.data());
    IQ_ASSERT(made != nullptr, "mkdtemp {}: {}", pattern, std::strerror(errno));
    path_ = made;
  }
  ~TempDir() {
    std::error_code ignored;  // best effort at exit; a leftover directory in /tmp harms nobody
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The broker seam reduced to a counter: every changelog record is "appended" at the next offset.
class CountingRecordCollector final : public RecordCollector {
 public:
  base::Expected<int64_t, StreamsError> send(const std::string& /*topic*/, int32_t /*partition*/,
                                             const Bytes& /*key*/,
                                             const std::optional<Bytes>& /*value*/,
                                             int64_t /*timestamp*/,
                                             const Headers& /*headers*/) override {
    return next_offset_++;
  }
  int64_t records_sent() const { return next_offset_; }

 private:
  int64_t next_offset_ = 0;
};

// A task of its own in a fresh temporary state directory: a real ProcessorStateManager for one
// store, a ProcessorContextImpl with a 10 MiB thread cache, a PosixFileSystem, the default
// RocksDB Env and a collector that only counts. Every full-stack fixture runs on one.
class TaskFixture {
 public:
  TaskFixture(const std::string& dir_prefix, const std::string& store_name)
      : dir_("iqsim-bench-" + dir_prefix),
        cache_(kThreadCacheBytes),
        state_manager_(kApplicationId, kTask,
                       dir_.path() + "/" + kApplicationId + "/" + kTask.to_string(), fs_,
                       {store_name}),
        context_(context_config(), state_manager_, fs_,
                 /*env=*/nullptr, &cache_, &collector_) {
    must(fs_.create_directories(state_manager_.task_dir()), "creating the task directory");
  }
  TaskFixture(const TaskFixture&) = delete;
  TaskFixture& operator=(const TaskFixture&) = delete;

  static ProcessorContextImpl::Config context_config() {
    ProcessorContextImpl::Config config;
    config.application_id = kApplicationId;
    config.task = kTask;
    config.type = TaskType::kActive;
    return config;
  }

  // Reads .checkpoint once the store has registered itself (at its init).
  void after_store_init() {
    must(state_manager_.initialize_store_offsets_from_checkpoint(), "reading .checkpoint");
  }
  // The record context of source record `offset` with `timestamp_ms`, as a task sets it.
  void set_record(int64_t offset, int64_t timestamp_ms) {
    context_.set_record_context(RecordContext{kSourceTopic, 0, offset, timestamp_ms, {}});
  }

  ProcessorContextImpl& context() { return context_; }
  const ProcessorStateManager& state_manager() const { return state_manager_; }
  const ThreadCache& cache() const { return cache_; }
  int64_t records_sent() const { return collector_.records_sent(); }
  const std::string& task_dir() const { return state_manager_.task_dir(); }

 private:
  // Declaration order is destruction order reversed: the directory goes last.
  TempDir dir_;
  PosixFileSystem fs_;
  ThreadCache cache_;
  CountingRecordCollector collector_;
  ProcessorStateManager state_manager_;
  ProcessorContextImpl context_;
};

enum class CacheState { kCold, kHit };

// A timestamped key-value store (caching and logging on) in its own task directory, loaded with
// kKeyCount records through the processor path and flushed, so the data is in the supplier store
// (for RocksDB: in an SST file) and the thread cache holds no dirty entry.
class FullStackFixture {
 public:
  FullStackFixture(KeyValueSupplier supplier, CacheState cache_state)
      : task_(to_string(supplier), kStoreName),
        store_(stores::timestamped_key_value_store<int32_t, int64_t>(
            supplier, kStoreName, {.caching = true, .logging = true})) {
    must(store_->init(task_.context(), *store_), "init");
    task_.after_store_init();
    load();
    if (cache_state == CacheState::kCold) caching().clear_cache();
    check_loaded(cache_state);
  }
  ~FullStackFixture() { store_->close(); }
  FullStackFixture(const FullStackFixture&) = delete;
  FullStackFixture& operator=(const FullStackFixture&) = delete;

  MeteredTimestampedKeyValueStore<int32_t, int64_t>& store() { return *store_; }

 private:
  void load() {
    for (int32_t key = 0; key < kKeyCount; ++key) {
      task_.set_record(key, timestamp_for(key));
      must(store_->put(key, ValueAndTimestamp<int64_t>{value_for(key), timestamp_for(key)}), "put");
    }
    must(store_->flush(), "flush");
  }

  CachingKeyValueStore& caching() {
    auto* layer = dynamic_cast<CachingKeyValueStore*>(&store_->wrapped());
    IQ_ASSERT(layer != nullptr, "the layer under the metered store of {} is not the caching store",
              kStoreName);
    return *layer;
  }

  // The load went where it should: every write logged once, nothing dirty left, the cache as the
  // variant wants it, and one query through the stack reads back what was written.
  void check_loaded(CacheState cache_state) {
    IQ_ASSERT(task_.records_sent() == kKeyCount, "{} changelog records", task_.records_sent());
    IQ_ASSERT(task_.state_manager().changelog_offset(kStoreName) == ChangelogOffset(kKeyCount - 1));
    const NamedCache* named = task_.cache().named_cache(caching().cache_name());
    IQ_ASSERT(named != nullptr && named->dirty_count() == 0);
    const size_t cached_expected =
        cache_state == CacheState::kHit ? static_cast<size_t>(kKeyCount) : 0;
    IQ_ASSERT(named->entries() == cached_expected, "{} cached entries, expected {}",
              named->entries(), cached_expected);
    const int32_t key = kKeyCount / 2;
    auto outcome = store_->query(KeyQuery<int32_t, int64_t>::with_key(key),
                                 PositionBound::unbounded(), QueryConfig(false));
    IQ_ASSERT(outcome.has_value() && outcome->is_success());
    IQ_ASSERT(outcome->result<std::optional<int64_t>>() == std::optional<int64_t>(value_for(key)));
    IQ_ASSERT(named->entries() == cached_expected, "a query changed what is cached");
  }

  TaskFixture task_;
  std::unique_ptr<MeteredTimestampedKeyValueStore<int32_t, int64_t>> store_;
};

// A RocksDB database opened directly, with the options RocksDBStore uses (impl/state/
// rocksdb_store.cc, db_options(); copied because they are private to that file), loaded with the
// same bytes and flushed to one SST file.
class RawRocksDbFixture {
 public:
  RawRocksDbFixture() : dir_("iqsim-bench-raw-rocksdb") {
    open();
    for (int32_t key = 0; key < kKeyCount; ++key)
      put(key_bytes(key).get(), stored_value_bytes(key).get());
    flush();
  }
  // A copy of every row of the data column family (the last one) of the RocksDB database at
  // `source_dir`, which a store holds open and has flushed: read back through a read-only open,
  // which takes no lock and sees what is in its SST files.
  RawRocksDbFixture(const std::string& source_dir, const std::string& name, size_t rows_expected)
      : dir_("iqsim-bench-raw-" + name) {
    open();
    std::vector<std::string> family_names;
    rocksdb::Status listed = rocksdb::DB::ListColumnFamilies(options(), source_dir, &family_names);
    IQ_ASSERT(listed.ok() && !family_names.empty(), "{}: {}", source_dir, listed.ToString());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const std::string& f : family_names)
      families.emplace_back(f, rocksdb::ColumnFamilyOptions(options()));
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* source = nullptr;
    const rocksdb::Status opened =
        rocksdb::DB::OpenForReadOnly(options(), source_dir, families, &handles, &source);
    IQ_ASSERT(opened.ok(), "opening {} read-only: {}", source_dir, opened.ToString());
    size_t rows = 0;
    {
      std::unique_ptr<rocksdb::Iterator> it(source->NewIterator({}, handles.back()));
      for (it->SeekToFirst(); it->Valid(); it->Next(), ++rows) {
        IQ_ASSERT(rows < rows_expected, "{} holds more than {} rows", source_dir, rows_expected);
        put(it->key().ToString(), it->value().ToString());
      }
      IQ_ASSERT(it->status().ok(), "{}", it->status().ToString());
    }
    IQ_ASSERT(rows == rows_expected, "{} holds {} rows, expected {}", source_dir, rows,
              rows_expected);
    for (rocksdb::ColumnFamilyHandle* h : handles) (void)source->DestroyColumnFamilyHandle(h);
    delete source;
    flush();
  }
  ~RawRocksDbFixture() {
    // Close()'s status is ignored: the data is thrown away with the directory anyway.
    (void)db_->Close();
  }
  RawRocksDbFixture(const RawRocksDbFixture&) = delete;
  RawRocksDbFixture& operator=(const RawRocksDbFixture&) = delete;

  rocksdb::DB& db() { return *db_; }

 private:
  void open() {
    rocksdb::DB* db = nullptr;
    const rocksdb::Status opened = rocksdb::DB::Open(options(), dir_.path() + "/db", &db);
    IQ_ASSERT(opened.ok(), "opening raw RocksDB: {}", opened.ToString());
    db_.reset(db);
  }
  void put(const std::string& key, const std::string& value) {
    rocksdb::WriteOptions write;
    write.disableWAL = true;
    const rocksdb::Status status = db_->Put(write, key, value);
    IQ_ASSERT(status.ok(), "{}", status.ToString());
  }
  // Into one SST file, as the stores' data is after their flush.
  void flush() {
    rocksdb::FlushOptions flush;
    flush.wait = true;
    const rocksdb::Status flushed = db_->Flush(flush);
    IQ_ASSERT(flushed.ok(), "{}", flushed.ToString());
    uint64_t in_memtable = 1;
    IQ_ASSERT(db_->GetIntProperty("rocksdb.num-entries-active-mem-table", &in_memtable) &&
              in_memtable == 0);
  }

  static rocksdb::Options options() {
    rocksdb::Options options;
    rocksdb::BlockBasedTableOptions table;
    table.block_cache = rocksdb::NewLRUCache(50 * 1024 * 1024);
    table.block_size = 4096;
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    options.optimize_filters_for_hits = true;
    options.write_buffer_size = 64 * 1024 * 1024;
    options.compression = rocksdb::kNoCompression;
    options.compaction_style = rocksdb::kCompactionStyleUniversal;
    options.disable_auto_compactions = true;
    options.max_write_buffer_number = 3;
    options.create_if_missing = true;
    options.avoid_flush_during_shutdown = true;
    options.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
    return options;
  }

  TempDir dir_;
  std::unique_ptr<rocksdb::DB> db_;
};

// The same bytes in the container InMemoryKeyValueStore is built on.
class StdMapFixture {
 public:
  StdMapFixture() {
    for (int32_t key = 0; key < kKeyCount; ++key)
      map_.emplace(key_bytes(key).get(), stored_value_bytes(key).get());
    IQ_ASSERT(map_.size() == static_cast<size_t>(kKeyCount));
  }
  const std::map<std::string, std::string>& map() const { return map_; }

 private:
  std::map<std::string, std::string> map_;
};

// ---- The window and versioned stacks, and the bytes under them ----

constexpr int64_t kOneDayMs = int64_t{24} * 60 * 60 * 1000;

int64_t window_start_for(int32_t window) {
  return int64_t{window} * kWindowSizeMs;
}
int64_t window_value_for(int32_t key, int32_t window) {
  return value_for(key) + window;
}
int64_t version_timestamp_for(int32_t version) {
  return int64_t{version} * kVersionStepMs;
}
int64_t version_value_for(int32_t key, int32_t version) {
  return value_for(key) * 10 + version;
}
// LogicalKeyValueSegment's row key: the 8-byte big-endian segment id, then the record key (-1 is
// the latest-value store).
std::string segment_row_key(int64_t segment_id, int32_t key) {
  return serde_detail::to_big_endian(static_cast<uint64_t>(segment_id)) + key_bytes(key).get();
}

// What a DSL windowed aggregation gets (MeteredTimestampedWindowStore -> CachingWindowStore ->
// ChangeLoggingTimestampedWindowBytesStore -> RocksDBTimestampedWindowStore), loaded with
// kWindowsPerKey windows of every key through the processor path and flushed. IQv2 goes past the
// caching layer (quirk 19), so the query reads the segment below.
class WindowStackFixture {
 public:
  WindowStackFixture()
      : task_("window", kWindowStoreName),
        store_(stores::timestamped_window_store<int32_t, int64_t>(
            WindowSupplier::kRocksDBTimestamped, kWindowStoreName,
            {.retention_period_ms = kOneDayMs,
             .window_size_ms = kWindowSizeMs,
             .retain_duplicates = false,
             .segment_interval_ms = 0},
            {.caching = true, .logging = true})) {
    must(store_->init(task_.context(), *store_), "init");
    task_.after_store_init();
    int64_t offset = 0;
    for (int32_t window = 0; window < kWindowsPerKey; ++window) {
      for (int32_t key = 0; key < kWindowKeys; ++key) {
        task_.set_record(offset++, window_start_for(window));
        must(store_->put(key,
                         ValueAndTimestamp<int64_t>{window_value_for(key, window),
                                                    window_start_for(window)},
                         window_start_for(window)),
             "put");
      }
    }
    must(store_->flush(), "flush");
    IQ_ASSERT(task_.records_sent() == offset, "{} changelog records of {}", task_.records_sent(),
              offset);
    const int32_t key = kWindowKeys / 2;
    auto outcome = store_->query(query(key), PositionBound::unbounded(), QueryConfig(false));
    IQ_ASSERT(outcome.has_value() && outcome->is_success());
    const auto& entries = outcome->result<Result>().entries;
    IQ_ASSERT(entries.size() == static_cast<size_t>(kWindowsPerKey), "{} windows", entries.size());
    IQ_ASSERT(entries.back().key == window_start_for(kWindowsPerKey - 1) &&
              entries.back().value.value == window_value_for(key, kWindowsPerKey - 1));
  }
  ~WindowStackFixture() { store_->close(); }
  WindowStackFixture(const WindowStackFixture&) = delete;
  WindowStackFixture& operator=(const WindowStackFixture&) = delete;

  using Result = KeyValueIterator<int64_t, ValueAndTimestamp<int64_t>>;
  // Every window of the key: window starts 0 .. the last one.
  static WindowKeyQuery<int32_t, int64_t> query(int32_t key) {
    return WindowKeyQuery<int32_t, int64_t>::with_key_and_window_start_range(
        key, 0, window_start_for(kWindowsPerKey - 1));
  }
  MeteredTimestampedWindowStore<int32_t, int64_t>& store() { return *store_; }
  // The one segment's database (KeyValueSegments names it <store>.<segment start>).
  std::string segment_dir() const {
    return task_.task_dir() + "/" + kWindowStoreName + "/" + kWindowStoreName + ".0";
  }

 private:
  TaskFixture task_;
  std::unique_ptr<MeteredTimestampedWindowStore<int32_t, int64_t>> store_;
};

// Stores.persistentVersionedKeyValueStore with logging (MeteredVersionedKeyValueStore ->
// ChangeLoggingVersionedKeyValueBytesStore -> adapter -> RocksDBVersionedStore), loaded with
// kVersionsPerKey versions of every key in timestamp order and flushed: the latest version of
// each key in the latest-value store, the older ones in one row of segment 0.
class VersionedStackFixture {
 public:
  VersionedStackFixture()
      : task_("versioned", kVersionedStoreName),
        store_(stores::versioned_key_value_store<int32_t, int64_t>(
            kVersionedStoreName,
            {.history_retention_ms = kOneDayMs, .segment_interval_ms = std::nullopt})) {
    must(store_->init(task_.context(), *store_), "init");
    task_.after_store_init();
    int64_t offset = 0;
    for (int32_t version = 0; version < kVersionsPerKey; ++version) {
      for (int32_t key = 0; key < kKeyCount; ++key) {
        task_.set_record(offset++, version_timestamp_for(version));
        auto put =
            store_->put(key, version_value_for(key, version), version_timestamp_for(version));
        IQ_ASSERT(put.has_value(), "put {}", put ? std::string() : put.error().to_string());
      }
    }
    must(store_->flush(), "flush");
    IQ_ASSERT(task_.records_sent() == offset, "{} changelog records of {}", task_.records_sent(),
              offset);
    const int32_t key = kKeyCount / 2;
    const auto latest = get(VersionedKeyQuery<int32_t, int64_t>::with_key(key));
    IQ_ASSERT(latest && latest->value == version_value_for(key, kVersionsPerKey - 1) &&
              !latest->valid_to);
    const auto as_of = get(VersionedKeyQuery<int32_t, int64_t>::with_key(key).as_of(kAsOfMs));
    IQ_ASSERT(as_of && as_of->value == version_value_for(key, 1) &&
              as_of->timestamp == version_timestamp_for(1) &&
              as_of->valid_to == version_timestamp_for(2));
  }
  ~VersionedStackFixture() { store_->close(); }
  VersionedStackFixture(const VersionedStackFixture&) = delete;
  VersionedStackFixture& operator=(const VersionedStackFixture&) = delete;

  using Result = std::optional<VersionedRecord<int64_t>>;
  MeteredVersionedKeyValueStore<int32_t, int64_t>& store() { return *store_; }
  // The physical RocksDB holding the latest values and every segment.
  std::string physical_dir() const { return task_.task_dir() + "/rocksdb/" + kVersionedStoreName; }

 private:
  Result get(const VersionedKeyQuery<int32_t, int64_t>& q) {
    auto outcome = store_->query(q, PositionBound::unbounded(), QueryConfig(false));
    IQ_ASSERT(outcome.has_value() && outcome->is_success());
    return outcome->result<Result>();
  }

  TaskFixture task_;
  std::unique_ptr<MeteredVersionedKeyValueStore<int32_t, int64_t>> store_;
};

// ---- Fixture registry: built on first use, torn down by main(). ----

enum class Stack { kRocksDbCacheCold, kRocksDbCacheHit, kInMemoryCacheCold, kInMemoryCacheHit };
constexpr size_t kStackCount = 4;

struct Fixtures {
  std::unique_ptr<FullStackFixture> full_stacks[kStackCount];
  std::unique_ptr<RawRocksDbFixture> raw_rocksdb;
  std::unique_ptr<StdMapFixture> std_map;
  std::unique_ptr<WindowStackFixture> window_stack;
  std::unique_ptr<RawRocksDbFixture> raw_window;
  std::unique_ptr<VersionedStackFixture> versioned_stack;
  std::unique_ptr<RawRocksDbFixture> raw_versioned;
};

Fixtures& fixtures() {
  static Fixtures f;
  return f;
}

FullStackFixture& full_stack(Stack stack) {
  auto& slot = fixtures().full_stacks[static_cast<size_t>(stack)];
  if (!slot) {
    const bool rocksdb = stack == Stack::kRocksDbCacheCold || stack == Stack::kRocksDbCacheHit;
    const bool cold = stack == Stack::kRocksDbCacheCold || stack == Stack::kInMemoryCacheCold;
    slot = std::make_unique<FullStackFixture>(
        rocksdb ? KeyValueSupplier::kRocksDbTimestamped : KeyValueSupplier::kInMemory,
        cold ? CacheState::kCold : CacheState::kHit);
  }
  return *slot;
}

RawRocksDbFixture& raw_rocksdb() {
  auto& slot = fixtures().raw_rocksdb;
  if (!slot) slot = std::make_unique<RawRocksDbFixture>();
  return *slot;
}

const StdMapFixture& std_map() {
  auto& slot = fixtures().std_map;
  if (!slot) slot = std::make_unique<StdMapFixture>();
  return *slot;
}

WindowStackFixture& window_stack() {
  auto& slot = fixtures().window_stack;
  if (!slot) slot = std::make_unique<WindowStackFixture>();
  return *slot;
}

// A copy of the window stack's segment: one row per (key, window).
RawRocksDbFixture& raw_window() {
  auto& slot = fixtures().raw_window;
  if (!slot) {
    slot = std::make_unique<RawRocksDbFixture>(
        window_stack().segment_dir(), "window",
        static_cast<size_t>(kWindowKeys) * static_cast<size_t>(kWindowsPerKey));
  }
  return *slot;
}

VersionedStackFixture& versioned_stack() {
  auto& slot = fixtures().versioned_stack;
  if (!slot) slot = std::make_unique<VersionedStackFixture>();
  return *slot;
}

// A copy of the versioned stack's physical database: per key a latest value and a segment row.
RawRocksDbFixture& raw_versioned() {
  auto& slot = fixtures().raw_versioned;
  if (!slot) {
    slot = std::make_unique<RawRocksDbFixture>(versioned_stack().physical_dir(), "versioned",
                                               2 * static_cast<size_t>(kKeyCount));
  }
  return *slot;
}

void tear_down_fixtures() {
  Fixtures& f = fixtures();
  for (auto& slot : f.full_stacks) slot.reset();
  f.raw_rocksdb.reset();
  f.std_map.reset();
  f.raw_window.reset();
  f.window_stack.reset();
  f.raw_versioned.reset();
  f.versioned_stack.reset();
}

// ---- Benchmarks: KeyQuery and its floors ----

void bm_key_query_full_stack(benchmark::State& state, Stack stack) {
  auto& store = full_stack(stack).store();
  const std::vector<int32_t>& keys = sequences().keys;
  size_t i = 0;
  for (auto _ : state) {
    const int32_t key = keys[i++ & kSequenceMask];
    auto outcome = store.query(KeyQuery<int32_t, int64_t>::with_key(key),
                               PositionBound::unbounded(), QueryConfig(false));
    if (!outcome.has_value() || outcome->is_failure()) {
      state.SkipWithError("KeyQuery failed");
      break;
    }
    const auto& value = outcome->result<std::optional<int64_t>>();
    if (!value.has_value()) {
      state.SkipWithError("KeyQuery found no value");
      break;
    }
    benchmark::DoNotOptimize(*value);
  }
}

void bm_key_query_raw_rocksdb_get(benchmark::State& state) {
  rocksdb::DB& db = raw_rocksdb().db();
  const std::vector<int32_t>& keys = sequences().keys;
  const rocksdb::ReadOptions read;
  std::string value;
  size_t i = 0;
  for (auto _ : state) {
    const Bytes key = key_bytes(keys[i++ & kSequenceMask]);
    const rocksdb::Status status = db.Get(read, db.DefaultColumnFamily(), key.get(), &value);
    if (!status.ok()) {
      state.SkipWithError("RocksDB Get failed");
      break;
    }
    benchmark::DoNotOptimize(value.data());
  }
}

void bm_key_query_std_map_find(benchmark::State& state) {
  const std::map<std::string, std::string>& map = std_map().map();
  const std::vector<int32_t>& keys = sequences().keys;
  size_t i = 0;
  for (auto _ : state) {
    const Bytes key = key_bytes(keys[i++ & kSequenceMask]);
    const auto it = map.find(key.get());
    if (it == map.end()) {
      state.SkipWithError("std::map find missed");
      break;
    }
    benchmark::DoNotOptimize(it->second.data());
  }
}

// ---- Benchmarks: RangeQuery of 100 keys and its floors ----

void bm_range_query_full_stack(benchmark::State& state, Stack stack) {
  auto& store = full_stack(stack).store();
  const std::vector<int32_t>& lows = sequences().range_lows;
  size_t i = 0;
  for (auto _ : state) {
    const int32_t low = lows[i++ & kSequenceMask];
    auto outcome =
        store.query(RangeQuery<int32_t, int64_t>::with_range(low, low + kRangeLength - 1),
                    PositionBound::unbounded(), QueryConfig(false));
    if (!outcome.has_value() || outcome->is_failure()) {
      state.SkipWithError("RangeQuery failed");
      break;
    }
    const auto& entries = outcome->result<KeyValueIterator<int32_t, int64_t>>().entries;
    if (entries.size() != static_cast<size_t>(kRangeLength)) {
      state.SkipWithError("RangeQuery returned the wrong number of entries");
      break;
    }
    benchmark::DoNotOptimize(entries.data());
  }
}

// Seek, then read 100 entries; the iterator is created per query, as RocksDBStore does.
void bm_range_query_raw_rocksdb_iterator(benchmark::State& state) {
  rocksdb::DB& db = raw_rocksdb().db();
  const std::vector<int32_t>& lows = sequences().range_lows;
  const rocksdb::ReadOptions read;
  size_t i = 0;
  for (auto _ : state) {
    const Bytes low = key_bytes(lows[i++ & kSequenceMask]);
    std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(read));
    int32_t read_count = 0;
    for (it->Seek(low.get()); it->Valid() && read_count < kRangeLength; it->Next(), ++read_count) {
      benchmark::DoNotOptimize(it->key().data());
      benchmark::DoNotOptimize(it->value().data());
    }
    if (read_count != kRangeLength || !it->status().ok()) {
      state.SkipWithError("RocksDB iterator scan failed");
      break;
    }
  }
}

void bm_range_query_std_map_lower_bound(benchmark::State& state) {
  const std::map<std::string, std::string>& map = std_map().map();
  const std::vector<int32_t>& lows = sequences().range_lows;
  size_t i = 0;
  for (auto _ : state) {
    const Bytes low = key_bytes(lows[i++ & kSequenceMask]);
    auto it = map.lower_bound(low.get());
    int32_t read_count = 0;
    for (; it != map.end() && read_count < kRangeLength; ++it, ++read_count) {
      benchmark::DoNotOptimize(it->first.data());
      benchmark::DoNotOptimize(it->second.data());
    }
    if (read_count != kRangeLength) {
      state.SkipWithError("std::map scan came up short");
      break;
    }
  }
}

// The same scan, but producing what a RangeQuery returns: each entry read and decoded (the int32
// key, the value as ValueAndTimestamp<int64_t>) into a vector of 100. The floor above never
// reads a value's bytes (it only takes their address), so it is the cost of walking the tree; this
// one is the cost of the answer itself with no store layer in between. Both are printed.
void bm_range_query_std_map_decode(benchmark::State& state) {
  const std::map<std::string, std::string>& map = std_map().map();
  const std::vector<int32_t>& lows = sequences().range_lows;
  size_t i = 0;
  for (auto _ : state) {
    const Bytes low = key_bytes(lows[i++ & kSequenceMask]);
    std::vector<KeyValue<int32_t, ValueAndTimestamp<int64_t>>> out;
    for (auto it = map.lower_bound(low.get());
         it != map.end() && out.size() < static_cast<size_t>(kRangeLength); ++it) {
      // Decoded in place (big-endian, as Serde writes them): no copy of the bytes on the way.
      const auto be = [](const char* p, auto zero) {
        decltype(zero) v = 0;
        for (size_t b = 0; b < sizeof v; ++b) v = (v << 8) | static_cast<unsigned char>(p[b]);
        return v;
      };
      const char* value = it->second.data();
      out.push_back({static_cast<int32_t>(be(it->first.data(), uint32_t{0})),
                     ValueAndTimestamp<int64_t>{static_cast<int64_t>(be(value + 8, uint64_t{0})),
                                                static_cast<int64_t>(be(value, uint64_t{0}))}});
    }
    if (out.size() != static_cast<size_t>(kRangeLength)) {
      state.SkipWithError("std::map scan came up short");
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
}

// ---- Benchmarks: WindowKeyQuery over all of a key's windows, and its floor ----

void bm_window_key_query_full_stack(benchmark::State& state) {
  auto& store = window_stack().store();
  const std::vector<int32_t>& keys = sequences().keys;
  size_t i = 0;
  for (auto _ : state) {
    const int32_t key = keys[i++ & kSequenceMask] % kWindowKeys;
    auto outcome =
        store.query(WindowStackFixture::query(key), PositionBound::unbounded(), QueryConfig(false));
    if (!outcome.has_value() || outcome->is_failure()) {
      state.SkipWithError("WindowKeyQuery failed");
      break;
    }
    const auto& entries = outcome->result<WindowStackFixture::Result>().entries;
    if (entries.size() != static_cast<size_t>(kWindowsPerKey)) {
      state.SkipWithError("WindowKeyQuery returned the wrong number of windows");
      break;
    }
    benchmark::DoNotOptimize(entries.data());
  }
}

// What the segment's fetch does underneath: one iterator, Seek to [key][first start][seq 0], read
// while at or below [key][last start][seq max].
void bm_window_key_query_raw_rocksdb_iterator(benchmark::State& state) {
  rocksdb::DB& db = raw_window().db();
  const std::vector<int32_t>& keys = sequences().keys;
  const rocksdb::ReadOptions read;
  const std::string first =
      serde_detail::to_big_endian(uint64_t{0}) + serde_detail::to_big_endian(uint32_t{0});
  const std::string last =
      serde_detail::to_big_endian(static_cast<uint64_t>(window_start_for(kWindowsPerKey - 1))) +
      serde_detail::to_big_endian(static_cast<uint32_t>(INT32_MAX));
  size_t i = 0;
  for (auto _ : state) {
    const std::string key = key_bytes(keys[i++ & kSequenceMask] % kWindowKeys).get();
    const std::string lower = key + first;
    const std::string upper = key + last;
    std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(read));
    int32_t read_count = 0;
    for (it->Seek(lower); it->Valid() && it->key().compare(upper) <= 0; it->Next(), ++read_count) {
      benchmark::DoNotOptimize(it->value().data());
    }
    if (read_count != kWindowsPerKey || !it->status().ok()) {
      state.SkipWithError("RocksDB window scan failed");
      break;
    }
  }
}

// ---- Benchmarks: VersionedKeyQuery, latest and asOf, and their floors ----

void bm_versioned_key_query_full_stack(benchmark::State& state, bool as_of) {
  auto& store = versioned_stack().store();
  const std::vector<int32_t>& keys = sequences().keys;
  size_t i = 0;
  for (auto _ : state) {
    const int32_t key = keys[i++ & kSequenceMask];
    auto query = VersionedKeyQuery<int32_t, int64_t>::with_key(key);
    if (as_of) query = query.as_of(kAsOfMs);
    auto outcome = store.query(query, PositionBound::unbounded(), QueryConfig(false));
    if (!outcome.has_value() || outcome->is_failure()) {
      state.SkipWithError("VersionedKeyQuery failed");
      break;
    }
    const auto& record = outcome->result<VersionedStackFixture::Result>();
    if (!record.has_value()) {
      state.SkipWithError("VersionedKeyQuery found no version");
      break;
    }
    benchmark::DoNotOptimize(record->value);
  }
}

// Latest: one Get from the latest-value store. asOf an older time: that Get (the latest version
// is too new), then one Get of segment 0's row, as RocksDBVersionedStore.get(key, asOf) does.
void bm_versioned_key_query_raw_rocksdb(benchmark::State& state, bool as_of) {
  rocksdb::DB& db = raw_versioned().db();
  const std::vector<int32_t>& keys = sequences().keys;
  const rocksdb::ReadOptions read;
  std::string latest;
  std::string row;
  size_t i = 0;
  for (auto _ : state) {
    const int32_t key = keys[i++ & kSequenceMask];
    rocksdb::Status status =
        db.Get(read, db.DefaultColumnFamily(), segment_row_key(-1, key), &latest);
    if (status.ok() && as_of) {
      status = db.Get(read, db.DefaultColumnFamily(), segment_row_key(0, key), &row);
    }
    if (!status.ok()) {
      state.SkipWithError("RocksDB Get failed");
      break;
    }
    benchmark::DoNotOptimize(latest.data());
    benchmark::DoNotOptimize(row.data());
  }
}

// Registration order is print order: each full-stack variant right above its floor.
void register_benchmarks(int64_t iterations) {
  std::vector<benchmark::internal::Benchmark*> registered;
  auto key_query = [](Stack stack) {
    return [stack](benchmark::State& s) { bm_key_query_full_stack(s, stack); };
  };
  auto range_query = [](Stack stack) {
    return [stack](benchmark::State& s) { bm_range_query_full_stack(s, stack); };
  };

  registered.push_back(benchmark::RegisterBenchmark("BM_KeyQuery/full_stack_rocksdb_cache_cold",
                                                    key_query(Stack::kRocksDbCacheCold)));
  registered.push_back(benchmark::RegisterBenchmark("BM_KeyQuery/full_stack_rocksdb_cache_hit",
                                                    key_query(Stack::kRocksDbCacheHit)));
  registered.push_back(
      benchmark::RegisterBenchmark("BM_KeyQuery/raw_rocksdb_get", bm_key_query_raw_rocksdb_get));
  registered.push_back(benchmark::RegisterBenchmark("BM_KeyQuery/full_stack_in_memory_cache_cold",
                                                    key_query(Stack::kInMemoryCacheCold)));
  registered.push_back(benchmark::RegisterBenchmark("BM_KeyQuery/full_stack_in_memory_cache_hit",
                                                    key_query(Stack::kInMemoryCacheHit)));
  registered.push_back(
      benchmark::RegisterBenchmark("BM_KeyQuery/std_map_find", bm_key_query_std_map_find));

  registered.push_back(benchmark::RegisterBenchmark("BM_RangeQuery100/full_stack_rocksdb",
                                                    range_query(Stack::kRocksDbCacheCold)));
  registered.push_back(benchmark::RegisterBenchmark("BM_RangeQuery100/raw_rocksdb_iterator",
                                                    bm_range_query_raw_rocksdb_iterator));
  registered.push_back(benchmark::RegisterBenchmark("BM_RangeQuery100/full_stack_in_memory",
                                                    range_query(Stack::kInMemoryCacheCold)));
  registered.push_back(benchmark::RegisterBenchmark("BM_RangeQuery100/std_map_lower_bound",
                                                    bm_range_query_std_map_lower_bound));
  registered.push_back(benchmark::RegisterBenchmark("BM_RangeQuery100/std_map_decode_into_vector",
                                                    bm_range_query_std_map_decode));

  registered.push_back(benchmark::RegisterBenchmark("BM_WindowKeyQuery10/full_stack_rocksdb",
                                                    bm_window_key_query_full_stack));
  registered.push_back(benchmark::RegisterBenchmark("BM_WindowKeyQuery10/raw_rocksdb_iterator",
                                                    bm_window_key_query_raw_rocksdb_iterator));

  auto versioned = [](bool as_of) {
    return [as_of](benchmark::State& s) { bm_versioned_key_query_full_stack(s, as_of); };
  };
  auto versioned_raw = [](bool as_of) {
    return [as_of](benchmark::State& s) { bm_versioned_key_query_raw_rocksdb(s, as_of); };
  };
  registered.push_back(
      benchmark::RegisterBenchmark("BM_VersionedKeyQuery/full_stack_latest", versioned(false)));
  registered.push_back(
      benchmark::RegisterBenchmark("BM_VersionedKeyQuery/raw_rocksdb_get", versioned_raw(false)));
  registered.push_back(
      benchmark::RegisterBenchmark("BM_VersionedKeyQuery/full_stack_as_of", versioned(true)));
  registered.push_back(benchmark::RegisterBenchmark("BM_VersionedKeyQuery/raw_rocksdb_two_gets",
                                                    versioned_raw(true)));
  if (iterations > 0) {
    for (benchmark::internal::Benchmark* b : registered) b->Iterations(iterations);
  }
}

}  // namespace
}  // namespace iq::bench
