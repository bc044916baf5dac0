// Store-level properties: for every key-value store configuration (supplier x cache x logging x
// consistency switch, plus the plain PAPI builder over RocksDB), random command sequences of
// writes, flushes, commits, clean reopens, crashes and commits killed inside their checkpoint,
// interleaved with queries of every
// key-value type under random bounds and orders, are compared with the reference model (values,
// order, timestamps) and with an independent account of the positions Kafka's rules give each
// layer. A failure shrinks to a minimal command sequence and prints the seed that reproduces it
// (RC_PARAMS="reproduce=...").

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <set>

#include "model/expected_answer.h"
#include "model/key_bytes.h"
#include "model/reference_store.h"
#include "store_harness.h"
#include "store_property_support.h"

namespace iq::properties {
namespace {

constexpr int32_t kPartition = 1;

// What the model side knows: the records, and the offsets each layer reflects and claims.
struct Shadow {
  StoreConfiguration config;
  std::shared_ptr<const std::vector<model::SourceRecord>> records =
      std::make_shared<std::vector<model::SourceRecord>>();
  int64_t last_offset = -1;
  std::optional<int64_t> committed;
  std::optional<int64_t> cache_pos;        // the caching layer's own position
  std::optional<int64_t> inner_pos;        // the position owner's
  std::optional<int64_t> pos_file;         // <store>.position as of the last commit
  std::optional<int64_t> pos_at_last_log;  // the vector in the newest changelog record
  std::optional<int64_t> unflushed_max;    // newest cached write not yet written below
  int64_t inner_data_offset = -1;          // the position owner's data = model at this offset
  int64_t durable_data_offset = -1;        // what survives a crash of an unlogged RocksDB store
  std::set<int32_t> cached_with_value;     // keys a cache hit answers with a real timestamp

  bool persistent() const {
    return config.supplier == KeyValueSupplier::kRocksDb ||
           config.supplier == KeyValueSupplier::kRocksDbTimestamped;
  }
  bool write_through() const { return config.caching && config.cache_max_bytes == 0; }
  bool can_lose_everything() const { return !persistent() && !config.logging; }
  bool adapter() const {
    return config.api == StoreApi::kDsl && config.supplier == KeyValueSupplier::kRocksDb;
  }
  bool plain_papi() const { return config.api == StoreApi::kPapi; }
};

// The position owner receives a write: which ones advance its position is store specific.
void inner_write(Shadow& s, int64_t offset, WriteKind kind, bool through_cache) {
  // Only InMemoryKeyValueStore.delete() leaves the position alone (docs/iqv2-semantics.md §7); a
  // cache flush writes put(key, null) instead, which advances it.
  const bool in_memory_delete = kind == WriteKind::kDelete && !through_cache &&
                                s.config.supplier == KeyValueSupplier::kInMemory;
  if (!in_memory_delete) s.inner_pos = max_opt(s.inner_pos, offset);
  s.inner_data_offset = offset;
  if (s.config.logging) s.pos_at_last_log = s.inner_pos;
}

void flush_cache(Shadow& s) {
  if (s.unflushed_max) {
    s.inner_pos = max_opt(s.inner_pos, s.unflushed_max);
    s.inner_data_offset = s.last_offset;
    if (s.config.logging) s.pos_at_last_log = s.inner_pos;
  }
  s.unflushed_max.reset();
}

// One source record (or putAll batch) reaching the store through the layers.
void shadow_write(Shadow& s, int64_t offset, WriteKind kind, const std::vector<int32_t>& keys) {
  if (!s.config.caching) {
    inner_write(s, offset, kind, false);
    return;
  }
  s.cache_pos = max_opt(s.cache_pos, offset);
  s.unflushed_max = offset;
  for (int32_t k : keys) {
    if (kind == WriteKind::kPut && !s.write_through()) {
      s.cached_with_value.insert(k);
    } else {
      s.cached_with_value.erase(k);
    }
  }
  if (s.write_through()) flush_cache(s);  // a zero-byte cache evicts, and so flushes, every put
}

model::ReferenceStore build_model(const Shadow& s) {
  model::ReferenceStore m(model::Aggregation::kLatest);
  for (const auto& r : *s.records) m.apply(kPartition, r);
  return m;
}

using Harness = StoreHarness;
using Cmd = rc::state::Command<Shadow, Harness>;

model::WriteKind to_model(WriteKind k) {
  switch (k) {
    case WriteKind::kPut:
      return model::WriteKind::kPut;
    case WriteKind::kTombstone:
      return model::WriteKind::kTombstone;
    case WriteKind::kDelete:
      return model::WriteKind::kDelete;
  }
  return model::WriteKind::kPut;
}

struct Write final : Cmd {
  WriteKind kind = *rc::gen::element(WriteKind::kPut, WriteKind::kPut, WriteKind::kTombstone,
                                     WriteKind::kDelete);
  int32_t key = *rc::gen::inRange(-2, 8);
  int64_t value = *rc::gen::inRange<int64_t>(0, 1000);
  int64_t timestamp = *rc::gen::inRange<int64_t>(0, 100000);

  void apply(Shadow& s) const override {
    const int64_t offset = ++s.last_offset;
    auto records = std::make_shared<std::vector<model::SourceRecord>>(*s.records);
    records->push_back({offset, model::serialize_int32_key(key),
                        kind == WriteKind::kPut ? std::optional<int64_t>(value) : std::nullopt,
                        timestamp, to_model(kind)});
    s.records = records;
    shadow_write(s, offset, kind, {key});
  }
  void run(const Shadow& s, Harness& h) const override {
    h.process({s.last_offset + 1, key,
               kind == WriteKind::kPut ? std::optional<int64_t>(value) : std::nullopt, timestamp,
               kind});
  }
  void show(std::ostream& os) const override {
    os << (kind == WriteKind::kPut         ? "Put("
           : kind == WriteKind::kTombstone ? "Tombstone("
                                           : "Delete(")
       << key;
    if (kind == WriteKind::kPut) os << ", " << value;
    os << ", ts=" << timestamp << ")";
  }
};

struct PutAll final : Cmd {
  std::vector<int32_t> keys = *rc::gen::unique<std::vector<int32_t>>(rc::gen::inRange(-2, 8));
  int64_t timestamp = *rc::gen::inRange<int64_t>(0, 100000);

  void checkPreconditions(const Shadow&) const override {
    RC_PRE(!keys.empty() && keys.size() <= 4);
  }
  void apply(Shadow& s) const override {
    const int64_t offset = ++s.last_offset;
    auto records = std::make_shared<std::vector<model::SourceRecord>>(*s.records);
    for (int32_t k : keys)
      records->push_back({offset, model::serialize_int32_key(k), k * 10 + offset, timestamp});
    s.records = records;
    shadow_write(s, offset, WriteKind::kPut, keys);
  }
  void run(const Shadow& s, Harness& h) const override {
    const int64_t offset = s.last_offset + 1;
    std::vector<std::pair<int32_t, int64_t>> entries;
    for (int32_t k : keys) entries.emplace_back(k, k * 10 + offset);
    h.process_put_all(offset, timestamp, entries);
  }
  void show(std::ostream& os) const override { os << "PutAll(" << keys.size() << " keys)"; }
};

struct Flush final : Cmd {
  void apply(Shadow& s) const override {
    flush_cache(s);
    s.durable_data_offset = s.inner_data_offset;
  }
  void run(const Shadow&, Harness& h) const override { h.flush(); }
  void show(std::ostream& os) const override { os << "Flush"; }
};

void shadow_commit(Shadow& s) {
  flush_cache(s);
  s.durable_data_offset = s.inner_data_offset;
  if (s.persistent()) s.pos_file = s.inner_pos;
  if (s.last_offset >= 0) s.committed = s.last_offset;
}

struct Commit final : Cmd {
  void apply(Shadow& s) const override { shadow_commit(s); }
  void run(const Shadow&, Harness& h) const override { h.commit(); }
  void show(std::ostream& os) const override { os << "Commit"; }
};

// After a restart: the owner's position is what the .position file said (persistent stores)
// merged with the vectors of the restored changelog records (switch on only).
void shadow_restart_positions(Shadow& s) {
  s.cache_pos.reset();
  s.cached_with_value.clear();
  s.unflushed_max.reset();
  std::optional<int64_t> from_headers =
      (s.config.logging && s.config.consistency) ? s.pos_at_last_log : std::nullopt;
  s.inner_pos = max_opt(s.persistent() ? s.pos_file : std::nullopt, from_headers);
}

struct CloseReopen final : Cmd {
  void checkPreconditions(const Shadow& s) const override { RC_PRE(!s.can_lose_everything()); }
  void apply(Shadow& s) const override {
    shadow_commit(s);
    shadow_restart_positions(s);
  }
  void run(const Shadow&, Harness& h) const override { h.close_and_reopen(); }
  void show(std::ostream& os) const override { os << "CloseReopen"; }
};

struct Crash final : Cmd {
  void checkPreconditions(const Shadow& s) const override { RC_PRE(!s.can_lose_everything()); }
  void apply(Shadow& s) const override {
    // Without a changelog a RocksDB store keeps what its last flush made durable.
    if (!s.config.logging) s.inner_data_offset = s.durable_data_offset;
    shadow_restart_positions(s);
    // At-least-once: every record after the last commit is processed again.
    const int64_t resume_after = s.committed.value_or(-1);
    int64_t previous = -2;
    for (const auto& r : *s.records) {
      if (r.offset <= resume_after || r.offset == previous) continue;
      previous = r.offset;
      std::vector<int32_t> keys;
      for (const auto& x : *s.records) {
        if (x.offset == r.offset) keys.push_back(model::deserialize_int32_key(x.key));
      }
      const WriteKind kind = r.kind == model::WriteKind::kPut         ? WriteKind::kPut
                             : r.kind == model::WriteKind::kTombstone ? WriteKind::kTombstone
                                                                      : WriteKind::kDelete;
      shadow_write(s, r.offset, kind, keys);
    }
  }
  void run(const Shadow&, Harness& h) const override { h.crash_and_recover(); }
  void show(std::ostream& os) const override { os << "Crash"; }
};

// A commit killed inside its checkpoint (crash points flush->checkpoint and
// .position->.checkpoint): the flush and the source offset commit happened, then the first
// `writes` of the checkpoint's file writes (<store>.position, then .checkpoint), then the crash.
struct CheckpointThenCrash final : Cmd {
  int writes = *rc::gen::inRange(0, 3);
  void checkPreconditions(const Shadow& s) const override { RC_PRE(!s.can_lose_everything()); }
  void apply(Shadow& s) const override {
    flush_cache(s);
    s.durable_data_offset = s.inner_data_offset;
    if (s.last_offset >= 0) s.committed = s.last_offset;
    // Only a persistent store keeps a <store>.position, and it is the first file written.
    if (s.persistent() && writes >= 1) s.pos_file = s.inner_pos;
    Crash().apply(s);
  }
  void run(const Shadow&, Harness& h) const override { h.commit_then_crash(writes); }
  void show(std::ostream& os) const override {
    os << "CheckpointThenCrash(after " << writes << " checkpoint file writes)";
  }
};

// An open bound one time in four.
std::optional<int32_t> optional_key() {
  const int32_t k = *rc::gen::inRange(-2, 8);
  return *rc::gen::inRange(0, 4) == 0 ? std::nullopt : std::optional<int32_t>(k);
}

struct QueryCmd final : Cmd {
  int type =
      *rc::gen::inRange(0, 4);  // KeyQuery, TimestampedKeyQuery, RangeQuery, TimestampedRangeQuery
  int32_t key = *rc::gen::inRange(-2, 8);
  std::optional<int32_t> lower = optional_key();
  std::optional<int32_t> upper = optional_key();
  ResultOrder order =
      *rc::gen::element(ResultOrder::ANY, ResultOrder::ASCENDING, ResultOrder::DESCENDING);
  BoundChoice bound{*rc::gen::inRange(0, 4), *rc::gen::inRange<int64_t>(-1, 12), kPartition};

  void apply(Shadow&) const override {}
  void run(const Shadow& s, Harness& h) const override {
    if (type <= 1) {
      check_key_query(s, h);
    } else {
      check_range_query(s, h);
    }
  }

  void check_key_query(const Shadow& s, Harness& h) const {
    const bool timestamped = type == 1;
    const auto outcome =
        timestamped ? h.query(TimestampedKeyQuery<int32_t, int64_t>::with_key(key), bound.bound())
                    : h.query(KeyQuery<int32_t, int64_t>::with_key(key), bound.bound());
    RC_ASSERT(outcome.has_value());
    const QueryResult& r = *outcome;
    if (timestamped && s.plain_papi()) {  // not in the plain typed layer's map: UQT from the owner
      RC_ASSERT(r.failure_reason() == std::optional(FailureReason::UNKNOWN_QUERY_TYPE));
      RC_ASSERT(r.position() == as_position(kPartition, s.inner_pos));
      return;
    }
    const auto claimed = s.config.caching ? max_opt(s.cache_pos, s.inner_pos) : s.inner_pos;
    if (!bound.permits(claimed)) {
      RC_ASSERT(r.failure_reason() == std::optional(FailureReason::NOT_UP_TO_BOUND));
      // The caching layer's refusal carries no position (quirk 7); the owner's carries its own.
      RC_ASSERT(r.position() ==
                (s.config.caching ? std::nullopt : as_position(kPartition, s.inner_pos)));
      return;
    }
    RC_ASSERT(r.is_success());
    RC_ASSERT(r.position() == as_position(kPartition, claimed));
    const auto m = build_model(s);
    const auto expected = m.get(kPartition, model::serialize_int32_key(key), s.last_offset);
    if (!timestamped) {
      const auto got = r.result<std::optional<int64_t>>();
      RC_ASSERT(got == (expected ? std::optional<int64_t>(expected->value) : std::nullopt));
      return;
    }
    const auto got = r.result<std::optional<ValueAndTimestamp<int64_t>>>();
    RC_ASSERT(got.has_value() == expected.has_value());
    if (!expected) return;
    const bool cache_hit = s.config.caching && s.cached_with_value.count(key) != 0;
    RC_ASSERT(got->value == expected->value);
    RC_ASSERT(got->timestamp == ((s.adapter() && !cache_hit) ? -1 : expected->timestamp_ms));
  }

  void check_range_query(const Shadow& s, Harness& h) const {
    const bool timestamped = type == 3;
    auto q = RangeQuery<int32_t, int64_t>::with_range(lower, upper);
    auto tq = TimestampedRangeQuery<int32_t, int64_t>::with_range(lower, upper);
    if (order == ResultOrder::ASCENDING) q = q.with_ascending_keys(), tq = tq.with_ascending_keys();
    if (order == ResultOrder::DESCENDING)
      q = q.with_descending_keys(), tq = tq.with_descending_keys();
    const auto outcome = timestamped ? h.query(tq, bound.bound()) : h.query(q, bound.bound());
    if (timestamped && s.plain_papi()) {
      RC_ASSERT(outcome.has_value());
      RC_ASSERT(outcome->failure_reason() == std::optional(FailureReason::UNKNOWN_QUERY_TYPE));
      return;
    }
    const auto lo = lower ? std::optional(model::serialize_int32_key(*lower)) : std::nullopt;
    const auto hi = upper ? std::optional(model::serialize_int32_key(*upper)) : std::nullopt;
    const bool inverted = lo && hi && model::compare_key_bytes(*lo, *hi) > 0;
    const bool permitted = bound.permits(s.inner_pos);  // ranges bypass the cache
    if (permitted && inverted && s.adapter()) {         // the adapter's ClassCastException (2.3)
      RC_ASSERT(!outcome.has_value());
      RC_ASSERT(outcome.error().kind == StreamsError::Kind::ClassCast);
      return;
    }
    RC_ASSERT(outcome.has_value());
    const QueryResult& r = *outcome;
    RC_ASSERT(r.position() == as_position(kPartition, s.inner_pos));
    if (!permitted) {
      RC_ASSERT(r.failure_reason() == std::optional(FailureReason::NOT_UP_TO_BOUND));
      return;
    }
    RC_ASSERT(r.is_success());
    const auto m = build_model(s);
    const auto model_order = order == ResultOrder::DESCENDING  ? model::Order::kDescending
                             : order == ResultOrder::ASCENDING ? model::Order::kAscending
                                                               : model::Order::kAny;
    const auto expected = m.range(kPartition, lo, hi, model_order, s.inner_data_offset);
    std::vector<std::tuple<int32_t, int64_t, int64_t>> want;
    for (const auto& e : expected) {
      want.emplace_back(model::deserialize_int32_key(e.key), e.vt.value,
                        s.adapter() ? -1 : e.vt.timestamp_ms);
    }
    std::vector<std::tuple<int32_t, int64_t, int64_t>> got;
    if (timestamped) {
      for (const auto& kv :
           r.result<KeyValueIterator<int32_t, ValueAndTimestamp<int64_t>>>().entries) {
        got.emplace_back(kv.key, kv.value.value, kv.value.timestamp);
      }
    } else {
      for (const auto& kv : r.result<KeyValueIterator<int32_t, int64_t>>().entries) {
        got.emplace_back(kv.key, kv.value, 0);
      }
      for (auto& w : want) std::get<2>(w) = 0;
    }
    RC_ASSERT(got == want);
  }

  void show(std::ostream& os) const override {
    static const char* names[] = {"KeyQuery", "TimestampedKeyQuery", "RangeQuery",
                                  "TimestampedRangeQuery"};
    os << names[type] << "(key=" << key << ", lower=" << (lower ? std::to_string(*lower) : "open")
       << ", upper=" << (upper ? std::to_string(*upper) : "open") << ", order=" << to_string(order)
       << ", bound=" << bound.bound().to_string() << ")";
  }
};

std::vector<StoreConfiguration> all_configurations() {
  std::vector<StoreConfiguration> out;
  for (auto supplier : {KeyValueSupplier::kInMemory, KeyValueSupplier::kLruMap,
                        KeyValueSupplier::kRocksDb, KeyValueSupplier::kRocksDbTimestamped}) {
    for (bool caching : {false, true}) {
      for (bool logging : {false, true}) {
        for (bool consistency : {false, true}) {
          StoreConfiguration c;
          c.supplier = supplier;
          c.caching = caching;
          c.logging = logging;
          c.consistency = consistency;
          c.partition = kPartition;
          out.push_back(c);
          if (supplier == KeyValueSupplier::kRocksDb) {  // the plain PAPI builder too
            c.api = StoreApi::kPapi;
            out.push_back(c);
          }
        }
      }
    }
  }
  return out;
}

}  // namespace

void PrintTo(const StoreConfiguration& c, std::ostream* os) {
  *os << c.describe();
}

namespace {

class StoreProperties : public testing::TestWithParam<StoreConfiguration> {
 protected:
  static void SetUpTestSuite() {
    // A few hundred generated cases per configuration unless RC_PARAMS says otherwise. RapidCheck
    // reads RC_PARAMS once, on first use, which is after this.
    if (std::getenv("RC_PARAMS") == nullptr) setenv("RC_PARAMS", "max_success=200 max_size=40", 0);
  }
};

TEST_P(StoreProperties, CommandSequencesAgreeWithTheModel) {
  const StoreConfiguration base = GetParam();
  const bool ok = rc::check(base.describe(), [&] {
    StoreConfiguration config = base;
    // A cache either large enough never to evict, or of zero bytes (every put goes through).
    if (config.caching) config.cache_max_bytes = *rc::gen::element<int64_t>(10 << 20, 0);
    Shadow initial;
    initial.config = config;
    Harness harness(config, scratch_state_dir("iqsim-store-props-"));
    rc::state::check(initial, harness,
                     rc::state::gen::execOneOfWithArgs<Write, Write, Write, PutAll, Flush, Commit,
                                                       CloseReopen, Crash, CheckpointThenCrash,
                                                       QueryCmd, QueryCmd, QueryCmd, QueryCmd>());
  });
  EXPECT_TRUE(ok) << "configuration: " << base.describe();
}

INSTANTIATE_TEST_SUITE_P(KeyValueConfigurations, StoreProperties,
                         testing::ValuesIn(all_configurations()), param_name<StoreConfiguration>);

}  // namespace
}  // namespace iq::properties
