// Store-level properties of the window and session families: for every configuration (window
// supplier in-memory / RocksDB / timestamped RocksDB, session supplier in-memory / RocksDB, x
// cache x logging x consistency switch, plus retainDuplicates), random sequences of store-level
// writes (in order, out of order, late beyond retention, stream-time jumps that expire
// segments), flushes, commits and clean reopens, interleaved with WindowKeyQuery and
// WindowRangeQuery under random time ranges and bounds, are compared with model/'s
// WindowHistory and SessionHistory (entries, order, timestamps) and with an independent account
// of the position Kafka's rules give the bytes store. A failure shrinks to a minimal command
// sequence and prints the seed that reproduces it (RC_PARAMS="reproduce=...").
//
// What the account below knows of Kafka's layers: the caching layer answers no query (IQv2 reads
// the store beneath it, so answers and positions change at a flush only) and flushes its dirty
// entries in the order of their last write, one put per (key, window) or session, a session
// remove becoming a put of null; the change-logging layer logs each operation with the bytes
// store's position after it; a reopened persistent store reads its position from
// <store>.position, an in-memory one rebuilds it from the changelog headers (consistency switch
// on) or not at all; a reopened segmented store forgets its observed stream time.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <variant>

#include "iq/window_key_query.h"
#include "iq/window_range_query.h"
#include "model/key_bytes.h"
#include "model/session_history.h"
#include "model/window_history.h"
#include "store_property_support.h"
#include "window_store_harness.h"

namespace iq::properties {
namespace {

constexpr int32_t kPartition = 2;
constexpr int64_t kSize = 10;
constexpr int64_t kRetention = 60;
constexpr int64_t kWindowSegment = 20;

// One operation the bytes store (beneath cache and logging) receives, or a reopen of a segmented
// store, which resets its stream time.
struct Event {
  enum class Kind { kPut, kRemove, kReopen } kind;
  int64_t source_offset = -1;
  int64_t timestamp = 0;
  int32_t key = 0;
  int64_t start = 0;  // window start, or session start
  int64_t end = 0;    // session end
  std::optional<int64_t> value;
};

// A dirty cache entry: the last write to one (key, window) or session since the last flush.
struct Dirty {
  int32_t key;
  int64_t start;
  int64_t end;
  std::optional<int64_t> value;
  int64_t source_offset;
  int64_t timestamp;
};

struct Shadow {
  WindowedStoreConfiguration config;
  std::shared_ptr<const std::vector<Event>> events = std::make_shared<std::vector<Event>>();
  std::vector<Dirty> dirty;  // flush order
  int64_t last_offset = -1;
  int64_t max_time = 0;  // the largest window start or session end written, for drawing times
  std::optional<int64_t> inner_pos;        // the bytes store's position
  std::optional<int64_t> pos_file;         // <store>.position as of the last commit
  std::optional<int64_t> pos_at_last_log;  // the position in the newest changelog record

  bool window() const { return config.family == WindowedFamily::kWindow; }
  bool can_lose_everything() const { return !config.persistent() && !config.logging; }
};

using ModelStore = std::variant<model::WindowHistory, model::SessionHistory>;

int64_t session_segment_interval(int64_t retention) {
  // RocksDbSessionBytesStoreSupplier: Stores' default, max(retention / 2, 60 s).
  return std::max<int64_t>(retention / 2, 60'000);
}

ModelStore build_model(const Shadow& s) {
  const bool segmented = s.config.persistent();
  const auto backing = segmented ? model::StoreBacking::kSegmented : model::StoreBacking::kInMemory;
  ModelStore m =
      s.window()
          ? ModelStore(model::WindowHistory(model::WindowSpec{
                model::WindowAggregation::kLatest, kSize, kSize, 0, s.config.retention_ms, backing,
                segmented ? s.config.segment_interval_ms : 1, s.config.retain_duplicates}))
          : ModelStore(model::SessionHistory(model::SessionSpec{
                model::SessionAggregation::kLatest, 0, 0, s.config.retention_ms, backing,
                segmented ? session_segment_interval(s.config.retention_ms) : 1, false}));
  // The model's offsets are the events' indexes: the store's own order, which a cache flush
  // makes differ from the source offsets.
  for (size_t i = 0; i < s.events->size(); ++i) {
    const Event& e = (*s.events)[i];
    const auto at = static_cast<int64_t>(i);
    const auto key = model::serialize_int32_key(e.key);
    if (auto* w = std::get_if<model::WindowHistory>(&m)) {
      if (e.kind == Event::Kind::kReopen) {
        w->reopen_store(kPartition, at, -1);
      } else {
        w->put(kPartition, at, key, e.value, e.timestamp, e.start);
      }
    } else {
      auto& h = std::get<model::SessionHistory>(m);
      if (e.kind == Event::Kind::kReopen) {
        h.reopen_store(kPartition, at, -1);
      } else if (e.kind == Event::Kind::kRemove) {
        h.remove(kPartition, at, key, e.start, e.end);
      } else {
        h.put(kPartition, at, key, e.start, e.end, e.value);
      }
    }
  }
  return m;
}

int64_t model_now(const Shadow& s) {
  return static_cast<int64_t>(s.events->size()) - 1;
}

// An operation reaches the bytes store: the model says whether it updated the position.
void reach_store(Shadow& s, const Event& e) {
  auto events = std::make_shared<std::vector<Event>>(*s.events);
  events->push_back(e);
  s.events = events;
  if (e.kind != Event::Kind::kReopen) {
    const ModelStore m = build_model(s);
    const int64_t at = model_now(s);
    const auto updated = std::visit(
        [&](const auto& h) { return h.position_offset(kPartition, at) == std::optional(at); }, m);
    if (updated) s.inner_pos = max_opt(s.inner_pos, e.source_offset);
    if (s.config.logging) s.pos_at_last_log = s.inner_pos;
  }
}

void flush_cache(Shadow& s) {
  for (const Dirty& d : s.dirty) {
    reach_store(
        s, Event{Event::Kind::kPut, d.source_offset, d.timestamp, d.key, d.start, d.end, d.value});
  }
  s.dirty.clear();
}

// A write through the layers: into the cache (moved to the end of the dirty order), or straight
// to the bytes store.
void shadow_write(Shadow& s, const Event& e) {
  if (!s.config.cached()) {
    reach_store(s, e);
    return;
  }
  std::erase_if(s.dirty, [&](const Dirty& d) {
    return d.key == e.key && d.start == e.start && (s.window() || d.end == e.end);
  });
  // CachingSessionStore.remove puts null into the cache.
  s.dirty.push_back(Dirty{e.key, e.start, e.end,
                          e.kind == Event::Kind::kRemove ? std::nullopt : e.value, e.source_offset,
                          e.timestamp});
}

// A uniform draw over [min, max): rc::gen::inRange scales its range with the generation size,
// which rc::state keeps small for each command, so unscaled draws come from here.
template <typename T>
T uniform(T min, T max) {
  return *rc::gen::resize(100, rc::gen::inRange<T>(min, max));
}

// A time near the largest one written: mostly in order, often out of order or late beyond
// retention, sometimes a jump that expires segments (RocksDB session segments are a minute).
int64_t draw_time(const Shadow& s) {
  const int mode = uniform<int>(0, 20);
  int64_t t = s.max_time;
  if (mode < 12) {
    t += uniform<int64_t>(-15, 16);
  } else if (mode < 17) {
    t -= uniform<int64_t>(0, 2 * kRetention);
  } else if (mode < 19) {
    t += uniform<int64_t>(kRetention / 2, 5 * kRetention / 2);
  } else {
    t += uniform<int64_t>(1, 3) * 60'000;
  }
  return std::max<int64_t>(t, 0);
}

std::optional<int64_t> draw_value() {
  return uniform<int>(0, 6) == 0 ? std::nullopt : std::optional<int64_t>(uniform<int64_t>(0, 99));
}

using Harness = WindowStoreHarness;
using Cmd = rc::state::Command<Shadow, Harness>;

struct WindowPut final : Cmd {
  int32_t key;
  int64_t start;
  int64_t timestamp;
  std::optional<int64_t> value;

  explicit WindowPut(const Shadow& s)
      : key(uniform<int>(0, 3)),
        start(draw_time(s) / kSize * kSize),
        timestamp(start + uniform<int64_t>(0, kSize)),
        value(draw_value()) {}

  void checkPreconditions(const Shadow& s) const override { RC_PRE(s.window()); }
  void apply(Shadow& s) const override {
    const int64_t offset = ++s.last_offset;
    s.max_time = std::max(s.max_time, start);
    shadow_write(s, Event{Event::Kind::kPut, offset, timestamp, key, start, start + kSize, value});
  }
  void run(const Shadow& s, Harness& h) const override {
    h.put_window(s.last_offset + 1, timestamp, key, value, start);
  }
  void show(std::ostream& os) const override {
    os << "WindowPut(" << key << ", " << (value ? std::to_string(*value) : "null")
       << ", start=" << start << ", ts=" << timestamp << ")";
  }
};

struct SessionPut final : Cmd {
  int32_t key;
  int64_t end;
  int64_t start;
  std::optional<int64_t> value;

  explicit SessionPut(const Shadow& s)
      : key(uniform<int>(0, 3)),
        end(draw_time(s)),
        start(std::max<int64_t>(0, end - uniform<int64_t>(0, 20))),
        value(draw_value()) {}

  void checkPreconditions(const Shadow& s) const override { RC_PRE(!s.window()); }
  void apply(Shadow& s) const override {
    const int64_t offset = ++s.last_offset;
    s.max_time = std::max(s.max_time, end);
    shadow_write(s, Event{Event::Kind::kPut, offset, end, key, start, end, value});
  }
  void run(const Shadow& s, Harness& h) const override {
    h.put_session(s.last_offset + 1, end, key, start, end, value);
  }
  void show(std::ostream& os) const override {
    os << "SessionPut(" << key << ", [" << start << ", " << end << "], "
       << (value ? std::to_string(*value) : "null") << ")";
  }
};

// A remove of a session written before (the newest one of a drawn key), or of one never written.
struct SessionRemove final : Cmd {
  int32_t key;
  int64_t start = 0;
  int64_t end = 0;

  explicit SessionRemove(const Shadow& s) : key(uniform<int>(0, 3)) {
    for (const Event& e : *s.events) {
      if (e.kind == Event::Kind::kPut && e.key == key) start = e.start, end = e.end;
    }
    for (const Dirty& d : s.dirty) {
      if (d.key == key) start = d.start, end = d.end;
    }
  }

  void checkPreconditions(const Shadow& s) const override { RC_PRE(!s.window()); }
  void apply(Shadow& s) const override {
    const int64_t offset = ++s.last_offset;
    shadow_write(s, Event{Event::Kind::kRemove, offset, end, key, start, end, std::nullopt});
  }
  void run(const Shadow& s, Harness& h) const override {
    h.remove_session(s.last_offset + 1, end, key, start, end);
  }
  void show(std::ostream& os) const override {
    os << "SessionRemove(" << key << ", [" << start << ", " << end << "])";
  }
};

struct Flush final : Cmd {
  void apply(Shadow& s) const override { flush_cache(s); }
  void run(const Shadow&, Harness& h) const override { h.flush(); }
  void show(std::ostream& os) const override { os << "Flush"; }
};

void shadow_commit(Shadow& s) {
  flush_cache(s);
  if (s.config.persistent()) s.pos_file = s.inner_pos;
}

struct Commit final : Cmd {
  void apply(Shadow& s) const override { shadow_commit(s); }
  void run(const Shadow&, Harness& h) const override { h.commit(); }
  void show(std::ostream& os) const override { os << "Commit"; }
};

// A clean close and reopen: everything is flushed and checkpointed, so a persistent store
// restores nothing and keeps its data, under the position of its .position file and a stream
// time back at -1; an in-memory store restores its whole changelog through put() (the same
// operations in the same order, so the model stays as it is) and its position from the headers.
struct CloseReopen final : Cmd {
  void checkPreconditions(const Shadow& s) const override { RC_PRE(!s.can_lose_everything()); }
  void apply(Shadow& s) const override {
    shadow_commit(s);
    if (s.config.persistent()) {
      reach_store(s, Event{Event::Kind::kReopen, -1, 0, 0, 0, 0, std::nullopt});
      s.inner_pos = s.pos_file;
    } else {
      s.inner_pos = s.config.consistency ? s.pos_at_last_log : std::nullopt;
    }
  }
  void run(const Shadow&, Harness& h) const override { h.close_and_reopen(); }
  void show(std::ostream& os) const override { os << "CloseReopen"; }
};

// (key, start, end, value, timestamp) of an answer; timestamp 0 where the stack has none.
using Row = std::tuple<int32_t, int64_t, int64_t, int64_t, int64_t>;

struct QueryCmd final : Cmd {
  bool range;  // window stores: WindowRangeQuery by window start, else WindowKeyQuery
  int32_t key;
  int64_t from;
  int64_t to;
  BoundChoice bound{uniform<int>(0, 4), uniform<int64_t>(-1, 20), kPartition};

  explicit QueryCmd(const Shadow& s)
      : range(*rc::gen::arbitrary<bool>()),
        key(uniform<int>(0, 3)),
        from(std::max<int64_t>(0, s.max_time - uniform<int64_t>(-10, 2 * kRetention))),
        // Mostly up to about the newest window, sometimes an inverted range (empty in Kafka).
        to(uniform<int>(0, 8) == 0 ? from - 1 : s.max_time + uniform<int64_t>(-30, 30)) {}

  void apply(Shadow&) const override {}
  void run(const Shadow& s, Harness& h) const override {
    if (s.window() && !range) {
      const auto q =
          WindowKeyQuery<int32_t, int64_t>::with_key_and_window_start_range(key, from, to);
      check(s, h.query(q, bound.bound()));
    } else if (s.window()) {
      check(s, h.query(WindowRangeQuery<int32_t, int64_t>::with_window_start_range(from, to),
                       bound.bound()));
    } else {
      check(s, h.query(WindowRangeQuery<int32_t, int64_t>::with_key(key), bound.bound()));
    }
  }

  void check(const Shadow& s, const QueryOutcome& outcome) const {
    RC_ASSERT(outcome.has_value());
    const QueryResult& r = *outcome;
    // The caching layer answers nothing itself: the bytes store's position, refusal or not.
    RC_ASSERT(r.position() == as_position(kPartition, s.inner_pos));
    if (!bound.permits(s.inner_pos)) {
      RC_ASSERT(r.failure_reason() == std::optional(FailureReason::NOT_UP_TO_BOUND));
      return;
    }
    RC_ASSERT(r.is_success());
    RC_ASSERT(got(s, r) == want(s));
  }

  std::vector<Row> want(const Shadow& s) const {
    const ModelStore m = build_model(s);
    const int64_t now = model_now(s);
    const bool ts = s.config.timestamped;
    std::vector<Row> out;
    if (const auto* w = std::get_if<model::WindowHistory>(&m)) {
      const auto a = range ? w->fetch_all(kPartition, from, to, now)
                           : w->fetch(kPartition, model::serialize_int32_key(key), from, to, now);
      for (const auto& e : a.entries) {
        out.emplace_back(range ? model::deserialize_int32_key(e.key) : 0, e.window_start_ms,
                         range ? e.window_end_ms : 0, e.value, ts ? e.timestamp_ms : 0);
      }
      return out;
    }
    const auto a =
        std::get<model::SessionHistory>(m).fetch(kPartition, model::serialize_int32_key(key), now);
    for (const auto& e : a.entries) {
      out.emplace_back(model::deserialize_int32_key(e.key), e.start_ms, e.end_ms, e.value, 0);
    }
    return out;
  }

  std::vector<Row> got(const Shadow& s, const QueryResult& r) const {
    std::vector<Row> out;
    const bool ts = s.config.timestamped;
    if (s.window() && !range) {
      if (ts) {
        for (const auto& e :
             r.result<KeyValueIterator<int64_t, ValueAndTimestamp<int64_t>>>().entries)
          out.emplace_back(0, e.key, 0, e.value.value, e.value.timestamp);
      } else {
        for (const auto& e : r.result<KeyValueIterator<int64_t, int64_t>>().entries)
          out.emplace_back(0, e.key, 0, e.value, 0);
      }
      return out;
    }
    if (ts) {
      for (const auto& e :
           r.result<KeyValueIterator<Windowed<int32_t>, ValueAndTimestamp<int64_t>>>().entries)
        out.emplace_back(e.key.key, e.key.start_ms, e.key.end_ms, e.value.value, e.value.timestamp);
      return out;
    }
    for (const auto& e : r.result<KeyValueIterator<Windowed<int32_t>, int64_t>>().entries)
      out.emplace_back(e.key.key, e.key.start_ms, e.key.end_ms, e.value, 0);
    return out;
  }

  void show(std::ostream& os) const override {
    os << (range ? "WindowRangeQuery" : "WindowKeyQuery") << "(key=" << key << ", from=" << from
       << ", to=" << to << ", bound=" << bound.bound().to_string() << ")";
  }
};

std::vector<WindowedStoreConfiguration> all_configurations() {
  std::vector<WindowedStoreConfiguration> out;
  const auto each_switch = [&](WindowedStoreConfiguration c, bool cache_allowed) {
    for (bool caching : {false, true}) {
      if (caching && !cache_allowed) continue;
      for (bool logging : {false, true}) {
        for (bool consistency : {false, true}) {
          c.caching = caching;
          c.logging = logging;
          c.consistency = consistency;
          c.partition = kPartition;
          c.retention_ms = kRetention;
          c.window_size_ms = kSize;
          c.segment_interval_ms = kWindowSegment;
          out.push_back(c);
        }
      }
    }
  };
  for (const auto& [supplier, timestamped] :
       {std::pair{WindowSupplier::kInMemory, false}, std::pair{WindowSupplier::kInMemory, true},
        std::pair{WindowSupplier::kRocksDB, false},
        std::pair{WindowSupplier::kRocksDBTimestamped, true}}) {
    WindowedStoreConfiguration c;
    c.family = WindowedFamily::kWindow;
    c.window_supplier = supplier;
    c.timestamped = timestamped;
    each_switch(c, true);
    if (!timestamped) {  // retainDuplicates, which the builders run without a cache
      c.retain_duplicates = true;
      each_switch(c, false);
    }
  }
  for (const auto supplier : {SessionSupplier::kInMemory, SessionSupplier::kRocksDB}) {
    WindowedStoreConfiguration c;
    c.family = WindowedFamily::kSession;
    c.session_supplier = supplier;
    each_switch(c, true);
  }
  return out;
}

}  // namespace

void PrintTo(const WindowedStoreConfiguration& c, std::ostream* os) {
  *os << c.describe();
}

namespace {

class WindowStoreProperties : public testing::TestWithParam<WindowedStoreConfiguration> {
 protected:
  static void SetUpTestSuite() {
    // Fewer cases than the key-value suite: there are as many configurations, and each case
    // rebuilds the model per operation. RapidCheck reads RC_PARAMS once, on first use.
    if (std::getenv("RC_PARAMS") == nullptr) setenv("RC_PARAMS", "max_success=60 max_size=60", 0);
  }
};

TEST_P(WindowStoreProperties, CommandSequencesAgreeWithTheModel) {
  const WindowedStoreConfiguration config = GetParam();
  const bool ok = rc::check(config.describe(), [&] {
    Shadow initial;
    initial.config = config;
    Harness harness(config, scratch_state_dir("iqsim-window-props-"));
    if (initial.window()) {
      rc::state::check(
          initial, harness,
          rc::state::gen::execOneOfWithArgs<WindowPut, WindowPut, WindowPut, WindowPut, Flush,
                                            Commit, CloseReopen, QueryCmd, QueryCmd, QueryCmd>());
    } else {
      rc::state::check(
          initial, harness,
          rc::state::gen::execOneOfWithArgs<SessionPut, SessionPut, SessionPut, SessionPut,
                                            SessionRemove, Flush, Commit, CloseReopen, QueryCmd,
                                            QueryCmd, QueryCmd>());
    }
  });
  EXPECT_TRUE(ok) << "configuration: " << config.describe();
}

INSTANTIATE_TEST_SUITE_P(WindowedConfigurations, WindowStoreProperties,
                         testing::ValuesIn(all_configurations()),
                         param_name<WindowedStoreConfiguration>);

}  // namespace
}  // namespace iq::properties
