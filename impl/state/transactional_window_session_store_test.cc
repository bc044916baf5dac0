// Unit tests of the transactional window and session stores (KIP-892 at the 2026-08-20 pin, pin
// deltas 5 and 7; docs/kafka-2026-08-20.md §3.3, §3.4.3-4): InMemoryWindowStore,
// RocksDBWindowStore, InMemorySessionStore and RocksDBSessionStore with
// enable.transactional.statestores. Ports of Kafka's tests at 8f4e08b5a3:
// InMemoryTransactionalWindowStoreTest.shouldReadAcrossCommitBoundaries,
// InMemoryTransactionalSessionStoreTest.shouldReadAcrossCommitBoundaries (run here against the
// RocksDB stores too, as RocksDBTransactionalWindowStoreTest and
// RocksDBTransactionalSessionStoreTest run the same suites with transactions on),
// InMemoryWindowTransactionBufferTest and InMemorySessionTransactionBufferTest (staged put,
// tombstone, unstaged entry), plus the isolation cases of IQv2IsolationLevelIntegrationTest at
// the store (READ_COMMITTED views, committed vs staged position in query()) and the close, crash
// and restore cases. Each isolation case is checked against the same store without transactions,
// where both levels answer alike, so no test passes by accident.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "iq/window_key_query.h"
#include "iq/window_range_query.h"
#include "state/in_memory_session_store.h"
#include "state/in_memory_window_store.h"
#include "state/rocksdb_session_store.h"
#include "state/rocksdb_window_store.h"
#include "state/test_state_store_context.h"
#include "state/timestamped_window_adapter.h"

namespace iq {
namespace {

Bytes b(const std::string& s) {
  return Bytes(s);
}
const QueryConfig kCommitted(false, IsolationLevel::READ_COMMITTED);
const QueryConfig kUncommitted(false, IsolationLevel::READ_UNCOMMITTED);
constexpr int64_t kWindowSize = 100;
constexpr int64_t kRetention = 600000;
constexpr int64_t kInterval = 60000;

Position at(int64_t offset) {
  return Position::from_map({{"in", {{0, offset}}}});
}

// The parameter: "<in_memory|rocksdb>/<txn|plain>".
class TransactionalStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string tmp = ::testing::TempDir();
    if (tmp.empty() || tmp.back() != '/') tmp += '/';
    std::string tag = GetParam();
    std::replace(tag.begin(), tag.end(), '/', '_');
    root_ = tmp + "iqsim_txn_ws_" + info->test_suite_name() + "_" + std::to_string(info->line()) +
            "_" + tag;
    ASSERT_TRUE(fs_.delete_recursively(root_).has_value());
    context_ = std::make_unique<TestStateStoreContext>(fs_, root_ + "/app/0_0");
    context_->set_kafka_pin(KafkaPin::k2026_08_20);
    context_->set_transactional(transactional());
  }
  bool rocksdb() const { return GetParam().starts_with("rocksdb"); }
  bool transactional() const { return GetParam().ends_with("txn"); }
  Status commit(StateStore& store) {
    return store.commit({{TopicPartition{"changelog", 0}, ChangelogOffset(0)}});
  }

  PosixFileSystem fs_;
  std::string root_;
  std::unique_ptr<TestStateStoreContext> context_;
};

const auto kParams =
    ::testing::Values("in_memory/txn", "rocksdb/txn", "in_memory/plain", "rocksdb/plain");

class TransactionalWindowStoreTest : public TransactionalStoreTest {
 protected:
  void TearDown() override {
    store_.reset();
    EXPECT_TRUE(fs_.delete_recursively(root_).has_value());
  }
  // A new store object on the directory; the old one is destroyed first (a crash if still open).
  WindowBytesStore& open() {
    store_.reset();
    if (rocksdb()) {
      store_ = std::make_unique<RocksDBWindowStore>("w", kRetention, kInterval, kWindowSize,
                                                    /*retain_duplicates=*/false);
    } else {
      store_ = std::make_unique<InMemoryWindowStore>("w", kRetention, kWindowSize,
                                                     /*retain_duplicates=*/false);
    }
    EXPECT_TRUE(store_->init(*context_, *store_).has_value());
    return *store_;
  }
  void put(const std::string& key, const ValueBytes& value, int64_t start, int64_t offset) {
    context_->at("in", 0, offset);
    ASSERT_TRUE(store_->put(b(key), value, start).has_value());
  }
  // (window start, value) of `key` in [0, 10 windows], read as the processor does.
  std::vector<std::pair<int64_t, std::string>> fetched(const std::string& key) {
    auto it = store_->fetch(b(key), 0, kWindowSize * 10, /*forward=*/true);
    EXPECT_TRUE(it.has_value());
    std::vector<std::pair<int64_t, std::string>> out;
    for (const auto& e : it->entries) out.emplace_back(e.key, e.value.get());
    return out;
  }
  QueryResult key_query(const std::string& key, const QueryConfig& config,
                        const PositionBound& bound = PositionBound::unbounded()) {
    auto r = store_->query(WindowKeyQuery<Bytes, Bytes>::with_key_and_window_start_range(
                               b(key), 0, kWindowSize * 10, KafkaPin::k2026_08_20),
                           bound, config);
    EXPECT_TRUE(r.has_value());
    return *r;
  }
  std::vector<std::string> key_query_values(const std::string& key, const QueryConfig& config) {
    const QueryResult r = key_query(key, config);
    EXPECT_TRUE(r.is_success());
    std::vector<std::string> out;
    for (const auto& e : r.result<WindowStoreBytesIterator>().entries) out.push_back(e.value.get());
    return out;
  }
  std::vector<std::string> range_query_keys(const QueryConfig& config) {
    auto r =
        store_->query(WindowRangeQuery<Bytes, Bytes>::with_window_start_range(0, kWindowSize * 10),
                      PositionBound::unbounded(), config);
    EXPECT_TRUE(r.has_value() && r->is_success());
    std::vector<std::string> out;
    for (const auto& e : r->result<WindowedBytesIterator>().entries) out.push_back(e.key.key.get());
    return out;
  }

  std::unique_ptr<WindowBytesStore> store_;
};

INSTANTIATE_TEST_SUITE_P(Stores, TransactionalWindowStoreTest, kParams);

// InMemoryTransactionalWindowStoreTest.shouldReadAcrossCommitBoundaries: the owner's reads see the
// committed windows and the staged ones alike, before and after each commit; a staged tombstone
// hides a committed window.
TEST_P(TransactionalWindowStoreTest, ShouldReadAcrossCommitBoundaries) {
  open();
  put("1", b("one"), 0, 0);
  ASSERT_TRUE(commit(*store_).has_value());
  put("1", b("two"), kWindowSize * 10, 1);
  const std::vector<std::pair<int64_t, std::string>> both = {{0, "one"}, {kWindowSize * 10, "two"}};
  EXPECT_EQ(fetched("1"), both);
  ASSERT_TRUE(commit(*store_).has_value());
  EXPECT_EQ(fetched("1"), both);
  put("1", std::nullopt, 0, 2);
  const std::vector<std::pair<int64_t, std::string>> second = {{kWindowSize * 10, "two"}};
  EXPECT_EQ(fetched("1"), second);
  ASSERT_TRUE(commit(*store_).has_value());
  EXPECT_EQ(fetched("1"), second);
  auto single = store_->fetch(b("1"), 0);
  ASSERT_TRUE(single.has_value());
  EXPECT_FALSE(single->has_value());
}

// IQv2IsolationLevelIntegrationTest at the store: a staged window is visible to READ_UNCOMMITTED
// and not to READ_COMMITTED before the commit, and to both after it; a staged tombstone hides the
// committed window from READ_UNCOMMITTED only.
TEST_P(TransactionalWindowStoreTest, ReadCommittedWindowQueriesDoNotSeeStagedWritesUntilCommit) {
  open();
  put("a", b("1"), 0, 0);
  ASSERT_TRUE(commit(*store_).has_value());
  put("a", b("2"), kWindowSize, 1);
  put("b", b("3"), kWindowSize, 2);
  put("a", std::nullopt, 0, 3);
  const std::vector<std::string> staged = {"2"};
  const std::vector<std::string> committed = {"1"};
  EXPECT_EQ(key_query_values("a", kUncommitted), staged);
  EXPECT_EQ(key_query_values("a", kCommitted), transactional() ? committed : staged);
  EXPECT_EQ(range_query_keys(kUncommitted), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(range_query_keys(kCommitted), transactional() ? (std::vector<std::string>{"a"})
                                                          : (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(commit(*store_).has_value());
  EXPECT_EQ(key_query_values("a", kCommitted), staged);
  EXPECT_EQ(range_query_keys(kCommitted), (std::vector<std::string>{"a", "b"}));
}

// The position each level is bounded by and labelled with (§3.3, 704fcb2655 for the segmented
// store): READ_COMMITTED the committed one, READ_UNCOMMITTED (and getPosition()) the staged one.
TEST_P(TransactionalWindowStoreTest, BoundsCheckedAgainstCommittedOrStagedPosition) {
  open();
  put("a", b("1"), 0, 4);
  ASSERT_TRUE(commit(*store_).has_value());
  put("b", b("2"), 0, 9);
  EXPECT_EQ(store_->position(), at(9));
  EXPECT_EQ(key_query("a", kCommitted).position(), transactional() ? at(4) : at(9));
  EXPECT_EQ(key_query("a", kUncommitted).position(), at(9));
  EXPECT_EQ(store_->committed_position(), transactional() ? std::optional(at(4)) : std::nullopt);
  const PositionBound bound = PositionBound::at(at(9));
  const QueryResult committed = key_query("b", kCommitted, bound);
  if (transactional()) {
    EXPECT_EQ(committed.failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  } else {
    EXPECT_TRUE(committed.is_success());
  }
  EXPECT_TRUE(key_query("b", kUncommitted, bound).is_success());
  ASSERT_TRUE(commit(*store_).has_value());
  EXPECT_TRUE(key_query("b", kCommitted, bound).is_success());
  EXPECT_EQ(key_query("a", kCommitted).position(), at(9));
}

// close() (a dirty close too) discards the staged writes and their position; for RocksDB what a
// reopened store finds is the last commit's, and a crash (the object dropped) loses the staged
// writes as well.
TEST_P(TransactionalWindowStoreTest, CloseAndCrashDiscardStagedWrites) {
  if (!rocksdb()) GTEST_SKIP() << "an in-memory store keeps nothing across close";
  open();
  put("a", b("1"), 0, 0);
  ASSERT_TRUE(commit(*store_).has_value());
  put("a", b("2"), kWindowSize, 1);
  EXPECT_GT(store_->approximate_num_uncommitted_bytes(), transactional() ? 0 : -1);
  store_->close();
  open();
  const std::vector<std::string> after_close =
      transactional() ? std::vector<std::string>{"1"} : std::vector<std::string>{"1", "2"};
  EXPECT_EQ(key_query_values("a", kUncommitted), after_close);
  // Kafka's quirk kept (as for RocksDBStore): each segment's empty WriteBatch counts its 12-byte
  // header.
  EXPECT_EQ(store_->approximate_num_uncommitted_bytes(), transactional() ? 12 : 0);
  put("a", b("3"), 2 * kWindowSize, 2);
  kill_leaving_disk(store_, root_ + "/app/0_0");  // the process dies: its close flushes nothing
  open();
  EXPECT_EQ(key_query_values("a", kUncommitted), after_close);
}

// Restoration writes the base and the committed position directly: restored windows are
// committed on arrival, visible to READ_COMMITTED before any commit.
TEST_P(TransactionalWindowStoreTest, RestoreWritesCommittedState) {
  open();
  ConsumerRecord record;
  record.topic = "changelog";
  record.key = window_key_schema::to_store_key_binary(b("a"), kWindowSize, 0);
  record.value = b("r");
  record.offset = 0;
  ASSERT_TRUE(context_->restore({record}).has_value());
  EXPECT_EQ(key_query_values("a", kCommitted), (std::vector<std::string>{"r"}));
  // Nothing staged (a RocksDB segment's empty WriteBatch still counts its 12-byte header).
  EXPECT_EQ(store_->approximate_num_uncommitted_bytes(), rocksdb() && transactional() ? 12 : 0);
}

// H7 of docs/kafka-2026-08-20.md §10, Kafka's behaviour at 8f4e08b5a3 kept: a put raises the
// observed stream time before it is staged (InMemoryWindowStore.put,
// AbstractRocksDBSegmentedBytesStore.put), and every read applies the raised floor, so a
// READ_COMMITTED query loses a committed window that a staged put one retention later expires.
// The store reports that stream time to the trace (StateStore::observed_stream_time).
TEST_P(TransactionalWindowStoreTest, AStagedPutRaisesTheStreamTimeOverCommittedWindows) {
  open();
  put("a", b("1"), 0, 0);
  ASSERT_TRUE(commit(*store_).has_value());
  EXPECT_EQ(store_->observed_stream_time(), std::optional<int64_t>(0));
  EXPECT_EQ(key_query_values("a", kCommitted), (std::vector<std::string>{"1"}));
  put("b", b("2"), kRetention + kWindowSize, 1);  // staged: floor kWindowSize hides window 0
  EXPECT_EQ(store_->observed_stream_time(), std::optional<int64_t>(kRetention + kWindowSize));
  EXPECT_EQ(key_query_values("a", kCommitted), std::vector<std::string>{});
  EXPECT_EQ(key_query_values("a", kUncommitted), std::vector<std::string>{});
  EXPECT_EQ(key_query("a", kCommitted).position(), transactional() ? at(0) : at(1));
}

// WindowToTimestampedWindowByteStoreAdapter passes approximateNumUncommittedBytes down as Kafka's
// does (TaskManager's early commit counts a transactional store under it), and the committed
// position and observed stream time the trace reads with it.
TEST_P(TransactionalWindowStoreTest, TheTimestampedAdapterPassesTheStoreBelowThrough) {
  if (!rocksdb()) GTEST_SKIP() << "the adapter wraps a plain persistent supplier only";
  store_ = std::make_unique<WindowToTimestampedWindowByteStoreAdapter>(
      std::make_unique<RocksDBWindowStore>("w", kRetention, kInterval, kWindowSize,
                                           /*retain_duplicates=*/false));
  ASSERT_TRUE(store_->init(*context_, *store_).has_value());
  context_->at("in", 0, 3);
  ASSERT_TRUE(store_->put(b("a"), timestamped_bytes::make(5, b("1")), kWindowSize).has_value());
  EXPECT_EQ(store_->observed_stream_time(), std::optional<int64_t>(kWindowSize));
  if (!transactional()) {
    EXPECT_EQ(store_->approximate_num_uncommitted_bytes(), 0);
    EXPECT_EQ(store_->committed_position(), std::nullopt);
    return;
  }
  EXPECT_GT(store_->approximate_num_uncommitted_bytes(), 12);  // more than the batch header
  EXPECT_EQ(store_->committed_position(), std::optional(Position::empty_position()));
  ASSERT_TRUE(commit(*store_).has_value());
  EXPECT_EQ(store_->committed_position(), std::optional(at(3)));
}

// approximateNumUncommittedBytes: the in-memory buffer counts Long.BYTES + key + value per stage
// call (InMemoryWindowTransactionBuffer.estimateKeySize), overwrites included; the segments' the
// RocksDB buffer's count (staged bytes plus the WriteBatch's data); nothing without transactions.
TEST_P(TransactionalWindowStoreTest, UncommittedBytesCountEveryStageUntilCommit) {
  open();
  put("ab", b("xyz"), 0, 0);
  put("ab", b("xyz"), 0, 1);
  if (!transactional()) {
    EXPECT_EQ(store_->approximate_num_uncommitted_bytes(), 0);
    return;
  }
  if (rocksdb()) {
    EXPECT_GT(store_->approximate_num_uncommitted_bytes(), 2 * (14 + 3));
  } else {
    EXPECT_EQ(store_->approximate_num_uncommitted_bytes(), 2 * (8 + 2 + 3));
  }
  ASSERT_TRUE(commit(*store_).has_value());
  EXPECT_EQ(store_->approximate_num_uncommitted_bytes(), rocksdb() ? 12 : 0);  // the batch header
}

class TransactionalSessionStoreTest : public TransactionalStoreTest {
 protected:
  void TearDown() override {
    store_.reset();
    EXPECT_TRUE(fs_.delete_recursively(root_).has_value());
  }
  SessionBytesStore& open() {
    store_.reset();
    if (rocksdb()) {
      store_ = std::make_unique<RocksDBSessionStore>("s", kRetention, kInterval);
    } else {
      store_ = std::make_unique<InMemorySessionStore>("s", kRetention);
    }
    EXPECT_TRUE(store_->init(*context_, *store_).has_value());
    return *store_;
  }
  void put(const Windowed<Bytes>& session, const ValueBytes& value, int64_t offset) {
    context_->at("in", 0, offset);
    ASSERT_TRUE(store_->put(session, value).has_value());
  }
  std::set<std::string> fetched(const std::string& key) {
    auto it = store_->fetch(b(key), /*forward=*/true);
    EXPECT_TRUE(it.has_value());
    std::set<std::string> out;
    for (const auto& e : it->entries) out.insert(e.value.get());
    return out;
  }
  QueryResult query(const std::string& key, const QueryConfig& config,
                    const PositionBound& bound = PositionBound::unbounded()) {
    auto r = store_->query(WindowRangeQuery<Bytes, Bytes>::with_key(b(key)), bound, config);
    EXPECT_TRUE(r.has_value());
    return *r;
  }
  std::vector<std::string> query_values(const std::string& key, const QueryConfig& config) {
    const QueryResult r = query(key, config);
    EXPECT_TRUE(r.is_success());
    std::vector<std::string> out;
    for (const auto& e : r.result<SessionBytesIterator>().entries) out.push_back(e.value.get());
    return out;
  }

  std::unique_ptr<SessionBytesStore> store_;
};

INSTANTIATE_TEST_SUITE_P(Stores, TransactionalSessionStoreTest, kParams);

// InMemoryTransactionalSessionStoreTest.shouldReadAcrossCommitBoundaries.
TEST_P(TransactionalSessionStoreTest, ShouldReadAcrossCommitBoundaries) {
  open();
  const Windowed<Bytes> a0{b("a"), 0, 0};
  const Windowed<Bytes> a1{b("a"), 10, 20};
  put(a0, b("1"), 0);
  ASSERT_TRUE(commit(*store_).has_value());
  put(a1, b("2"), 1);
  EXPECT_EQ(fetched("a"), (std::set<std::string>{"1", "2"}));
  ASSERT_TRUE(commit(*store_).has_value());
  EXPECT_EQ(fetched("a"), (std::set<std::string>{"1", "2"}));
  ASSERT_TRUE(store_->remove(a0).has_value());
  EXPECT_EQ(fetched("a"), (std::set<std::string>{"2"}));
  ASSERT_TRUE(commit(*store_).has_value());
  EXPECT_EQ(fetched("a"), (std::set<std::string>{"2"}));
}

// A session WindowRangeQuery.withKey: committed sessions only under READ_COMMITTED until the
// commit, bounded by and labelled with the committed position.
TEST_P(TransactionalSessionStoreTest, ReadCommittedQuerySeesCommittedSessionsAndPosition) {
  open();
  put({b("a"), 0, 5}, b("1"), 3);
  ASSERT_TRUE(commit(*store_).has_value());
  put({b("a"), 10, 20}, b("2"), 7);
  ASSERT_TRUE(store_->remove({b("a"), 0, 5}).has_value());
  EXPECT_EQ(query_values("a", kUncommitted), (std::vector<std::string>{"2"}));
  EXPECT_EQ(query_values("a", kCommitted),
            transactional() ? std::vector<std::string>{"1"} : std::vector<std::string>{"2"});
  EXPECT_EQ(query("a", kUncommitted).position(), at(7));
  EXPECT_EQ(query("a", kCommitted).position(), transactional() ? at(3) : at(7));
  const QueryResult bounded = query("a", kCommitted, PositionBound::at(at(7)));
  EXPECT_EQ(bounded.is_failure(), transactional());
  ASSERT_TRUE(commit(*store_).has_value());
  EXPECT_EQ(query_values("a", kCommitted), (std::vector<std::string>{"2"}));
  EXPECT_EQ(query("a", kCommitted).position(), at(7));
  auto staged_fetch = store_->fetch_session(b("a"), 10, 20);
  ASSERT_TRUE(staged_fetch.has_value());
  EXPECT_EQ(*staged_fetch, ValueBytes(b("2")));
}

// close() discards the staged sessions (RocksDB: the reopened store has the last commit's).
TEST_P(TransactionalSessionStoreTest, CloseDiscardsStagedSessions) {
  if (!rocksdb()) GTEST_SKIP() << "an in-memory store keeps nothing across close";
  open();
  put({b("a"), 0, 5}, b("1"), 0);
  ASSERT_TRUE(commit(*store_).has_value());
  put({b("a"), 10, 20}, b("2"), 1);
  store_->close();
  open();
  EXPECT_EQ(fetched("a"),
            transactional() ? (std::set<std::string>{"1"}) : (std::set<std::string>{"1", "2"}));
}

// InMemoryWindowTransactionBufferTest / InMemorySessionTransactionBufferTest: a staged put is read
// back by its coordinates, a staged tombstone as an empty value, an unstaged entry as none; the
// session key orders start times descending (the base's forward order, quirk 23).
TEST(TransactionBufferKeysTest, WindowAndSessionBuffersReadBackByCoordinates) {
  BasicTransactionBuffer<WindowEntryKey> window;
  window.stage({5, b("k")}, b("v"));
  window.stage({6, b("k")}, std::nullopt);
  ASSERT_NE(window.get({5, b("k")}), nullptr);
  EXPECT_EQ(*window.get({5, b("k")}), ValueBytes(b("v")));
  ASSERT_NE(window.get({6, b("k")}), nullptr);
  EXPECT_FALSE(window.get({6, b("k")})->has_value());
  EXPECT_EQ(window.get({5, b("j")}), nullptr);
  EXPECT_EQ(window.approximate_num_uncommitted_bytes(), (8 + 1 + 1) + (8 + 1));

  BasicTransactionBuffer<SessionEntryKey> session;
  session.stage({20, b("a"), 10}, b("x"));
  session.stage({20, b("a"), 15}, std::nullopt);
  ASSERT_NE(session.get({20, b("a"), 10}), nullptr);
  EXPECT_EQ(*session.get({20, b("a"), 10}), ValueBytes(b("x")));
  EXPECT_FALSE(session.get({20, b("a"), 15})->has_value());
  EXPECT_EQ(session.get({20, b("a"), 11}), nullptr);
  EXPECT_EQ(session.staged().begin()->first.start, 15);  // start descending
  EXPECT_EQ(session.approximate_num_uncommitted_bytes(), (16 + 1 + 1) + (16 + 1));
}

}  // namespace
}  // namespace iq
