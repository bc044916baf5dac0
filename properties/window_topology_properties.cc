// The window and session topologies (impl/topology: KStreamWindowAggregate,
// KStreamSessionWindowAggregate and the PAPI writers, over their real store stacks) against
// model/'s WindowHistory and SessionHistory, built with the checks' own mapping from the
// topology (window_spec_of / session_spec_of): random source records, out of order, late within
// and beyond grace, with stream-time jumps that expire windows and whole segments, for every
// window or session kind x supplier x cache. After each record the store is flushed and every
// key is queried through IQv2 (WindowKeyQuery and WindowRangeQuery by window start, or
// WindowRangeQuery.withKey on session stores); the entries, their order and timestamps, and the
// position must be the model's at that offset. A failure shrinks and prints the seed
// (RC_PARAMS="reproduce=...").

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <atomic>

#include "checks/check.h"
#include "iq/window_key_query.h"
#include "iq/window_range_query.h"
#include "model/key_bytes.h"
#include "state/segmented_test_context.h"
#include "topology/topologies.h"

namespace iq::properties {
namespace {

constexpr int32_t kKeys = 3;

struct Input {
  int32_t key;
  std::optional<int64_t> value;
  int64_t timestamp;
};

// rc::gen::inRange scales its range with the generation size; these draws want the whole range.
template <typename T>
T uniform(T min, T max) {
  return *rc::gen::resize(100, rc::gen::inRange<T>(min, max));
}

// Mostly near the newest timestamp, often late (within grace or beyond), sometimes a jump past
// retention, sometimes past a minute (the RocksDB stores' default segment).
std::vector<Input> draw_inputs() {
  const int n = uniform(1, 30);
  std::vector<Input> out;
  int64_t newest = uniform<int64_t>(0, 200);
  for (int i = 0; i < n; ++i) {
    const int mode = uniform(0, 20);
    int64_t ts = newest;
    if (mode < 10) {
      ts += uniform<int64_t>(-20, 30);
    } else if (mode < 16) {
      ts -= uniform<int64_t>(0, 250);
    } else if (mode < 19) {
      ts += uniform<int64_t>(100, 400);
    } else {
      ts += 60'000 * uniform<int64_t>(1, 3);
    }
    ts = std::max<int64_t>(ts, 0);
    newest = std::max(newest, ts);
    const std::optional<int64_t> value =
        uniform(0, 8) == 0 ? std::nullopt : std::optional<int64_t>(uniform<int64_t>(0, 50));
    out.push_back(Input{uniform(0, kKeys), value, ts});
  }
  return out;
}

TopologyConfig draw_topology(TopologyKind kind, KeyValueSupplier supplier, bool caching) {
  TopologyConfig c;
  c.kind = kind;
  c.supplier = supplier;
  c.caching = caching;
  c.logging = false;
  c.store_name = "windowed-store";
  c.grace_ms = uniform<int64_t>(0, 3) * 40;
  if (c.windowed()) {
    c.window_size_ms = uniform<int64_t>(1, 4) * 50;
    if (kind != TopologyKind::WindowPapiWriter && uniform(0, 2) == 0)
      c.window_advance_ms = c.window_size_ms / uniform<int64_t>(2, 4);
  } else {
    c.session_gap_ms = uniform<int64_t>(1, 6) * 20;
  }
  const int64_t floor_ms = (c.windowed() ? c.window_size_ms : c.session_gap_ms) + c.grace_ms;
  // The DSL's default retention (size or gap + grace), or a longer one; the PAPI writers need one.
  if (uniform(0, 2) == 0 || kind == TopologyKind::WindowPapiWriter ||
      kind == TopologyKind::SessionPapiWriter) {
    c.window_retention_ms = floor_ms + uniform<int64_t>(0, 300);
  }
  if (kind == TopologyKind::WindowPapiWriter) c.retain_duplicates = uniform(0, 3) == 0;
  return c;
}

std::optional<Position> as_position(std::optional<int64_t> offset) {
  if (!offset) return Position::empty_position();
  return Position::from_map({{"input-topic", {{0, *offset}}}});
}

// (key, start, end, value, timestamp); end 0 where the answer has none, timestamp 0 where the
// stack stores none.
using Row = std::tuple<int32_t, int64_t, int64_t, int64_t, int64_t>;

QueryOutcome run(TaskTopology& t, const Query& q) {
  return t.store().query(q, PositionBound::unbounded(), QueryConfig(false));
}

void check_window(TaskTopology& t, const model::WindowHistory& m, int64_t offset) {
  // Behind the window adapter (the timestamped builder over a plain RocksDB supplier) IQv2 sees
  // plain values (quirk 24).
  const bool ts = t.config().timestamped() && t.config().supplier != KeyValueSupplier::kRocksDb;
  const int64_t to = std::numeric_limits<int64_t>::max() / 2;
  for (int32_t key = 0; key < kKeys; ++key) {
    const auto outcome =
        run(t, WindowKeyQuery<int32_t, int64_t>::with_key_and_window_start_range(key, 0, to));
    RC_ASSERT(outcome.has_value() && outcome->is_success());
    std::vector<Row> got, want;
    if (ts) {
      for (const auto& e :
           outcome->result<KeyValueIterator<int64_t, ValueAndTimestamp<int64_t>>>().entries)
        got.emplace_back(key, e.key, 0, e.value.value, e.value.timestamp);
    } else {
      for (const auto& e : outcome->result<KeyValueIterator<int64_t, int64_t>>().entries)
        got.emplace_back(key, e.key, 0, e.value, 0);
    }
    for (const auto& e : m.fetch(0, model::serialize_int32_key(key), 0, to, offset).entries)
      want.emplace_back(key, e.window_start_ms, 0, e.value, ts ? e.timestamp_ms : 0);
    RC_ASSERT(got == want);
    RC_ASSERT(outcome->position() == as_position(m.position_offset(0, offset)));
  }
  const auto outcome = run(t, WindowRangeQuery<int32_t, int64_t>::with_window_start_range(0, to));
  RC_ASSERT(outcome.has_value() && outcome->is_success());
  std::vector<Row> got, want;
  if (ts) {
    for (const auto& e :
         outcome->result<KeyValueIterator<Windowed<int32_t>, ValueAndTimestamp<int64_t>>>().entries)
      got.emplace_back(e.key.key, e.key.start_ms, e.key.end_ms, e.value.value, e.value.timestamp);
  } else {
    for (const auto& e : outcome->result<KeyValueIterator<Windowed<int32_t>, int64_t>>().entries)
      got.emplace_back(e.key.key, e.key.start_ms, e.key.end_ms, e.value, 0);
  }
  for (const auto& e : m.fetch_all(0, 0, to, offset).entries) {
    want.emplace_back(model::deserialize_int32_key(e.key), e.window_start_ms, e.window_end_ms,
                      e.value, ts ? e.timestamp_ms : 0);
  }
  RC_ASSERT(got == want);
}

void check_session(TaskTopology& t, const model::SessionHistory& m, int64_t offset) {
  for (int32_t key = 0; key < kKeys; ++key) {
    const auto outcome = run(t, WindowRangeQuery<int32_t, int64_t>::with_key(key));
    RC_ASSERT(outcome.has_value() && outcome->is_success());
    std::vector<Row> got, want;
    for (const auto& e : outcome->result<KeyValueIterator<Windowed<int32_t>, int64_t>>().entries)
      got.emplace_back(e.key.key, e.key.start_ms, e.key.end_ms, e.value, 0);
    for (const auto& e : m.fetch(0, model::serialize_int32_key(key), offset).entries)
      want.emplace_back(key, e.start_ms, e.end_ms, e.value, 0);
    RC_LOG() << "at offset " << offset << " key " << key << ": store " << got.size()
             << " entries, model " << want.size() << "\n";
    for (const auto& [k, a, b, v, x] : got)
      RC_LOG() << "  store [" << a << "," << b << "]=" << v << "\n";
    for (const auto& [k, a, b, v, x] : want)
      RC_LOG() << "  model [" << a << "," << b << "]=" << v << "\n";
    RC_ASSERT(got == want);
    // A cached session remove reaches the store as put(null), which updates an in-memory store's
    // position where the store's own remove does not: only the uncached stack's is the model's.
    if (!t.config().caching) {
      RC_ASSERT(outcome->position() == as_position(m.position_offset(0, offset)));
    }
  }
}

struct Case {
  TopologyKind kind;
  KeyValueSupplier supplier;
  bool caching;
};

std::string describe(const Case& c) {
  return std::string(to_string(c.kind)) + "_" + to_string(c.supplier) +
         (c.caching ? "_cached" : "_uncached");
}

std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (const auto kind :
       {TopologyKind::WindowedCount, TopologyKind::WindowedSum, TopologyKind::WindowPapiWriter,
        TopologyKind::SessionCount, TopologyKind::SessionSum, TopologyKind::SessionPapiWriter}) {
    for (const auto supplier : {KeyValueSupplier::kInMemory, KeyValueSupplier::kRocksDb,
                                KeyValueSupplier::kRocksDbTimestamped}) {
      for (const bool caching : {false, true}) out.push_back(Case{kind, supplier, caching});
    }
  }
  return out;
}

class WindowTopologyProperties : public testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() {
    // Few cases: a RocksDB stack opens a database per segment, and minute jumps roll many.
    if (std::getenv("RC_PARAMS") == nullptr) setenv("RC_PARAMS", "max_success=15", 0);
  }
};

TEST_P(WindowTopologyProperties, StoreAnswersAreTheModels) {
  const Case c = GetParam();
  static std::atomic<int> counter{0};
  const bool ok = rc::check(describe(c), [&] {
    const TopologyConfig config = draw_topology(c.kind, c.supplier, c.caching);
    const std::vector<Input> inputs = draw_inputs();
    RC_TAG(config.windowed() ? "window" : "session");
    RC_LOG() << "size=" << config.window_size_ms
             << " advance=" << config.effective_window_advance_ms()
             << " gap=" << config.session_gap_ms << " grace=" << config.grace_ms
             << " retention=" << config.effective_window_retention_ms()
             << " duplicates=" << config.retain_duplicates << "\n";
    for (size_t i = 0; i < inputs.size(); ++i) {
      RC_LOG() << "offset " << i << ": key " << inputs[i].key << " value "
               << (inputs[i].value ? std::to_string(*inputs[i].value) : "null") << " ts "
               << inputs[i].timestamp << "\n";
    }
    SegmentedTestContext context(0, "_" + std::to_string(counter++));
    TaskTopology topology(config);
    RC_ASSERT(topology.store().init(context, topology.store()).has_value());
    const bool window = config.windowed();
    std::optional<model::WindowHistory> wm;
    std::optional<model::SessionHistory> sm;
    if (window) {
      wm.emplace(window_spec_of(config));
    } else {
      sm.emplace(session_spec_of(config));
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Input& in = inputs[i];
      const auto offset = static_cast<int64_t>(i);
      context.at("input-topic", offset, in.timestamp);
      ConsumerRecord r{
          "input-topic", 0, offset, in.timestamp, Serde<int32_t>::serialize(in.key), {}, {}};
      if (in.value) r.value = Serde<int64_t>::serialize(*in.value);
      RC_ASSERT(topology.process(r).has_value());
      // The caching layer answers no query: flush so that the store beneath has every write,
      // in the order the record made them. (An uncached stack needs none, and a RocksDB flush
      // costs a file.)
      if (config.caching) RC_ASSERT(topology.store().flush().has_value());
      const model::SourceRecord record{
          offset, model::serialize_int32_key(in.key), in.value, in.timestamp,
          in.value ? model::WriteKind::kPut : model::WriteKind::kTombstone};
      if (window) {
        wm->apply(0, record);
        check_window(topology, *wm, offset);
      } else {
        sm->apply(0, record);
        check_session(topology, *sm, offset);
      }
    }
    topology.store().close();
  });
  EXPECT_TRUE(ok) << describe(c);
}

INSTANTIATE_TEST_SUITE_P(WindowTopologies, WindowTopologyProperties, testing::ValuesIn(all_cases()),
                         [](const testing::TestParamInfo<Case>& param_info) {
                           return describe(param_info.param);
                         });

}  // namespace
}  // namespace iq::properties
