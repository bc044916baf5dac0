// Unit tests of StoreQueryUtils: the bound check (isPermitted), the failure messages of
// QueryResult it produces, and ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition
// (Kafka's StoreQueryUtilsTest and ChangelogRecordDeserializationHelper; docs/iqv2-semantics.md §2,
// §6).
#include "state/store_query_utils.h"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "iq/key_query.h"
#include "iq/query_config.h"
#include "iq/query_result.h"
#include "iq/timestamped_key_query.h"
#include "state/position_serde.h"

namespace iq {

// How gtest prints a Position in a failure message (Kafka's toString).
static void PrintTo(const Position& p, std::ostream* os) {
  *os << p.to_string();
}

namespace {

using store_query_utils::apply_checks_and_update_position;
using store_query_utils::handle_basic_queries;
using store_query_utils::is_permitted;

Position pos(Position::Map map) {
  return Position::from_map(map);
}
PositionBound bound_at(Position::Map map) {
  return PositionBound::at(Position::from_map(map));
}

// ---------------------------------------------------------------------------------------------
// isPermitted: every rule of docs/iqv2-semantics.md §2, for a store on task partition 0.

TEST(StoreQueryUtilsTest, EmptyBoundPermitsAnything) {
  // Proves row 1: the bound {} permits any store position, including the empty one.
  for (const Position& store : {pos({}), pos({{"A", {{0, 5}}}}), pos({{"B", {}}}),
                                pos({{"A", {{1, 1}}}, {"B", {{0, 99}}}})}) {
    EXPECT_TRUE(is_permitted(store, PositionBound::unbounded(), 0)) << store.to_string();
    EXPECT_TRUE(is_permitted(store, bound_at({}), 7)) << store.to_string();
  }
}

TEST(StoreQueryUtilsTest, EqualOffsetIsPermitted) {
  // Proves row 2: {A:{0:5}} against a store at {A:{0:5}} is permitted (the check is >=).
  EXPECT_TRUE(is_permitted(pos({{"A", {{0, 5}}}}), bound_at({{"A", {{0, 5}}}}), 0));
  EXPECT_TRUE(is_permitted(pos({{"A", {{0, 6}}}}), bound_at({{"A", {{0, 5}}}}), 0));
}

TEST(StoreQueryUtilsTest, LowerOffsetIsNotUpToBound) {
  // Proves row 3: {A:{0:5}} against a store at {A:{0:4}} is refused.
  EXPECT_FALSE(is_permitted(pos({{"A", {{0, 4}}}}), bound_at({{"A", {{0, 5}}}}), 0));
}

TEST(StoreQueryUtilsTest, MissingComponentIsNotUpToBound) {
  // Proves row 4: {A:{0:5}} against a store at {} or {B:{0:99}} or {A:{1:9}} is refused.
  const PositionBound bound = bound_at({{"A", {{0, 5}}}});
  EXPECT_FALSE(is_permitted(pos({}), bound, 0));
  EXPECT_FALSE(is_permitted(pos({{"B", {{0, 99}}}}), bound, 0));
  EXPECT_FALSE(is_permitted(pos({{"A", {{1, 9}}}}), bound, 0));
  EXPECT_FALSE(is_permitted(pos({{"A", {}}}), bound, 0));
}

TEST(StoreQueryUtilsTest, BoundEntriesForOtherPartitionsAreIgnored) {
  // Proves row 5: {A:{1:5}} against an empty store on partition 0 is permitted.
  EXPECT_TRUE(is_permitted(pos({}), bound_at({{"A", {{1, 5}}}}), 0));
  // The same bound does constrain a store on partition 1.
  EXPECT_FALSE(is_permitted(pos({}), bound_at({{"A", {{1, 5}}}}), 1));
  EXPECT_TRUE(is_permitted(pos({{"A", {{1, 5}}}}), bound_at({{"A", {{1, 5}}}}), 1));
}

TEST(StoreQueryUtilsTest, EveryConstrainingTopicMustBeMet) {
  // Proves row 6: {A:{0:5},B:{0:3}} against {A:{0:9}} is refused because B is missing.
  EXPECT_FALSE(
      is_permitted(pos({{"A", {{0, 9}}}}), bound_at({{"A", {{0, 5}}}, {"B", {{0, 3}}}}), 0));
  EXPECT_TRUE(is_permitted(pos({{"A", {{0, 9}}}, {"B", {{0, 3}}}}),
                           bound_at({{"A", {{0, 5}}}, {"B", {{0, 3}}}}), 0));
}

TEST(StoreQueryUtilsTest, TopicWithEmptyPartitionMapPermitsEverything) {
  // Proves row 7: {A:{}} against {} is permitted, although at({A:{}}) is not "unbounded".
  const PositionBound bound = bound_at({{"A", {}}});
  EXPECT_FALSE(bound.is_unbounded());
  EXPECT_TRUE(is_permitted(pos({}), bound, 0));
  EXPECT_TRUE(is_permitted(pos({{"B", {{3, 1}}}}), bound, 3));
}

TEST(StoreQueryUtilsTest, StoreComponentsTheBoundDoesNotNameAreIrrelevant) {
  // Proves extra store topics and partitions neither help nor hurt the check.
  const PositionBound bound = bound_at({{"A", {{0, 5}}}});
  EXPECT_TRUE(is_permitted(pos({{"A", {{0, 5}, {1, 0}}}, {"Z", {{0, 0}}}}), bound, 0));
  EXPECT_FALSE(is_permitted(pos({{"A", {{0, 4}, {1, 100}}}, {"Z", {{0, 100}}}}), bound, 0));
}

// ---------------------------------------------------------------------------------------------
// QueryResult failure messages.

TEST(StoreQueryUtilsTest, NotUpToBoundMessageWithoutContext) {
  // Proves the "not initialized" NOT_UP_TO_BOUND message is Kafka's, word for word.
  const QueryResult r = QueryResult::not_up_to_bound(pos({{"topic", {{0, 0}}}}),
                                                     bound_at({{"topic", {{0, 1}}}}), std::nullopt);
  ASSERT_TRUE(r.is_failure());
  EXPECT_EQ(r.failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  EXPECT_EQ(r.failure_message(),
            "The store is not initialized yet, so it is not yet up to the bound "
            "PositionBound{position=Position{position={topic={0=1}}}}");
}

TEST(StoreQueryUtilsTest, NotUpToBoundMessageBehindTheBound) {
  // Proves the "behind the bound" NOT_UP_TO_BOUND message is Kafka's, word for word.
  const QueryResult r =
      QueryResult::not_up_to_bound(pos({{"topic", {{0, 0}}}}), bound_at({{"topic", {{0, 1}}}}), 0);
  ASSERT_TRUE(r.is_failure());
  EXPECT_EQ(r.failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  EXPECT_EQ(r.failure_message(),
            "For store partition 0, the current position Position{position={topic={0=0}}} is not "
            "yet up to the bound PositionBound{position=Position{position={topic={0=1}}}}");
  // The factory attaches no position: the layer that runs the check sets one.
  EXPECT_FALSE(r.position().has_value());
}

TEST(StoreQueryUtilsTest, UnknownQueryTypeMessageShape) {
  // Proves for_unknown_query_type names the store class and the query's Object.toString.
  const auto query = KeyQuery<Bytes, Bytes>::with_key(Bytes("k"));
  const std::string store_class = "class org.apache.kafka.streams.state.internals.RocksDBStore";
  const QueryResult r = QueryResult::for_unknown_query_type(query, store_class);
  ASSERT_TRUE(r.is_failure());
  EXPECT_EQ(r.failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
  EXPECT_EQ(r.failure_message(),
            "This store (class org.apache.kafka.streams.state.internals.RocksDBStore) doesn't know "
            "how to execute the given query (" +
                query.to_string() +
                "). Contact the store maintainer if you need support for a new query type.");
  EXPECT_EQ(query.to_string().rfind("org.apache.kafka.streams.query.KeyQuery@", 0), 0u)
      << query.to_string();
}

TEST(StoreQueryUtilsTest, SucceededAndFailedResultsAnswerTheirOwnAccessors) {
  // Proves a success has no failure reason or message and a failure has both.
  const QueryResult ok = QueryResult::for_result(std::optional<Bytes>(Bytes("v")));
  EXPECT_TRUE(ok.is_success());
  EXPECT_FALSE(ok.failure_reason().has_value());
  EXPECT_FALSE(ok.failure_message().has_value());
  EXPECT_EQ(ok.result<std::optional<Bytes>>(), std::optional<Bytes>(Bytes("v")));
  const QueryResult failed = QueryResult::for_failure(FailureReason::STORE_EXCEPTION, "boom");
  EXPECT_TRUE(failed.is_failure());
  EXPECT_EQ(failed.failure_message(), "boom");
}

// ---------------------------------------------------------------------------------------------
// handleBasicQueries, for the paths that need no store context.

// The least a StateStore can be: no key-value interface, a fixed class name.
class InertStore final : public StateStore {
 public:
  const std::string& name() const override { return name_; }
  Status init(StateStoreContext&, StateStore&) override { return ok_status(); }
  Status flush() override { return ok_status(); }
  void close() override {}
  bool persistent() const override { return false; }
  bool is_open() const override { return true; }
  QueryOutcome query(const Query&, const PositionBound&, const QueryConfig&) override {
    return base::unexpected(StreamsError{StreamsError::Kind::IllegalState, "not used"});
  }
  Position position() const override { return Position::empty_position(); }
  std::string_view java_class() const override { return "class test.InertStore"; }

 private:
  std::string name_ = "inert";
};

TEST(StoreQueryUtilsTest, UnknownQueryTypeWinsOverTheBoundCheck) {
  // Proves an unknown query class fails UNKNOWN_QUERY_TYPE even with no context and an unmet bound.
  InertStore store;
  const Position position = pos({{"t", {{0, 1}}}});
  const auto query = TimestampedKeyQuery<Bytes, Bytes>::with_key(Bytes("k"));
  const QueryResult r = handle_basic_queries(query, bound_at({{"t", {{0, 9}}}}), QueryConfig(false),
                                             store, position, nullptr);
  EXPECT_EQ(r.failure_reason(), FailureReason::UNKNOWN_QUERY_TYPE);
  ASSERT_TRUE(r.position().has_value());
  EXPECT_EQ(*r.position(), position);
}

TEST(StoreQueryUtilsTest, NoContextIsNotUpToBoundEvenWhenUnbounded) {
  // Proves a known query on a store without context is refused, even with an unbounded bound,
  // and the result still carries a copy of the position and the execution info line.
  InertStore store;
  const Position position = pos({{"t", {{0, 1}}}});
  const auto query = KeyQuery<Bytes, Bytes>::with_key(Bytes("k"));
  const QueryResult r = handle_basic_queries(query, PositionBound::unbounded(), QueryConfig(true),
                                             store, position, nullptr);
  EXPECT_EQ(r.failure_reason(), FailureReason::NOT_UP_TO_BOUND);
  EXPECT_EQ(r.failure_message(),
            "The store is not initialized yet, so it is not yet up to the bound "
            "PositionBound{position=Position{position={}}}");
  ASSERT_TRUE(r.position().has_value());
  EXPECT_EQ(*r.position(), position);
  EXPECT_EQ(r.execution_info(), (std::vector<std::string>{"Handled in class test.InertStore"}));
}

TEST(StoreQueryUtilsTest, UpdatePositionWithoutContextIsANoOp) {
  // Proves update_position leaves the position alone when there is no context.
  Position position = pos({{"t", {{0, 1}}}});
  store_query_utils::update_position(position, nullptr);
  EXPECT_EQ(position, pos({{"t", {{0, 1}}}}));
}

// ---------------------------------------------------------------------------------------------
// applyChecksAndUpdatePosition: each header case of docs/iqv2-semantics.md §8.

// A changelog record as logChange writes it with the consistency switch on.
ConsumerRecord record_with_vector(const Position& vector, int64_t offset,
                                  std::optional<Bytes> value = Bytes("v")) {
  ConsumerRecord r;
  r.topic = "app-store-changelog";
  r.offset = offset;
  r.key = Bytes("k");
  r.value = std::move(value);
  r.headers = {Header{"v", Bytes(std::string(1, '\0'))},
               Header{"c", Bytes(position_serde::serialize_padded(vector))}};
  return r;
}

Position restore(const std::vector<ConsumerRecord>& records, bool consistency_enabled) {
  Position position = Position::empty_position();
  for (const auto& r : records) {
    auto status = apply_checks_and_update_position(r, consistency_enabled, position);
    EXPECT_TRUE(status.has_value()) << status.error().to_string();
  }
  return position;
}

TEST(StoreQueryUtilsTest, RestoreMergesEachRecordsVector) {
  // Proves headers (∅,0,1), (∅,0,2), (∅,0,3) restore to {"":{0:3}}.
  const Position p = restore(
      {record_with_vector(pos({{"", {{0, 1}}}}), 0), record_with_vector(pos({{"", {{0, 2}}}}), 1),
       record_with_vector(pos({{"", {{0, 3}}}}), 2)},
      true);
  EXPECT_EQ(p, pos({{"", {{0, 3}}}}));
}

TEST(StoreQueryUtilsTest, RestoreMergesVectorsOfSeveralTopics) {
  // Proves headers A:1, B:2, A:3 restore to {A:{0:3}, B:{0:2}}.
  const Position p = restore(
      {record_with_vector(pos({{"A", {{0, 1}}}}), 0), record_with_vector(pos({{"B", {{0, 2}}}}), 1),
       record_with_vector(pos({{"A", {{0, 3}}}}), 2)},
      true);
  EXPECT_EQ(p, pos({{"A", {{0, 3}}}, {"B", {{0, 2}}}}));
}

TEST(StoreQueryUtilsTest, RestoreOfATombstoneAdvancesThePosition) {
  // Proves a tombstone carrying A:2 advances the position to {A:{0:2}}.
  const Position p = restore({record_with_vector(pos({{"A", {{0, 2}}}}), 0, std::nullopt)}, true);
  EXPECT_EQ(p, pos({{"A", {{0, 2}}}}));
}

TEST(StoreQueryUtilsTest, RestoreNeverLowersThePosition) {
  // Proves an older vector arriving after a newer one does not move the position back.
  const Position p = restore({record_with_vector(pos({{"A", {{0, 7}}}}), 0),
                              record_with_vector(pos({{"A", {{0, 3}}}}), 1)},
                             true);
  EXPECT_EQ(p, pos({{"A", {{0, 7}}}}));
}

TEST(StoreQueryUtilsTest, ConsistencyOffIgnoresHeaders) {
  // Proves with the switch off the headers are ignored and the position stays {}.
  const Position p = restore({record_with_vector(pos({{"A", {{0, 1}}}}), 0)}, false);
  EXPECT_TRUE(p.is_empty());
  // Even a record that would be an error with the switch on is fine with it off.
  ConsumerRecord broken;
  broken.headers = {Header{"v", Bytes(std::string(1, '\0'))}};
  Position position = Position::empty_position();
  EXPECT_TRUE(apply_checks_and_update_position(broken, false, position).has_value());
  EXPECT_TRUE(position.is_empty());
}

TEST(StoreQueryUtilsTest, RecordsWithoutHeadersLeaveThePositionEmpty) {
  // Proves records with no headers restore to {} with no error, even with the switch on.
  ConsumerRecord plain;
  plain.key = Bytes("k");
  plain.value = Bytes("v");
  const Position p = restore({plain, plain}, true);
  EXPECT_TRUE(p.is_empty());
}

TEST(StoreQueryUtilsTest, VersionZeroWithoutVectorIsAnError) {
  // Proves "v"=0 without a "c" header is a StreamsException and leaves the position unchanged.
  ConsumerRecord r;
  r.headers = {Header{"v", Bytes(std::string(1, '\0'))}};
  Position position = pos({{"A", {{0, 1}}}});
  auto status = apply_checks_and_update_position(r, true, position);
  ASSERT_FALSE(status.has_value());
  EXPECT_EQ(status.error().kind, StreamsError::Kind::Streams);
  EXPECT_EQ(position, pos({{"A", {{0, 1}}}}));
}

TEST(StoreQueryUtilsTest, LaterVersionIsIgnored) {
  // Proves "v"=1 (a version this server does not understand) is skipped with no error.
  ConsumerRecord r = record_with_vector(pos({{"A", {{0, 9}}}}), 0);
  r.headers[0].value = Bytes(std::string(1, '\1'));
  Position position = Position::empty_position();
  auto status = apply_checks_and_update_position(r, true, position);
  EXPECT_TRUE(status.has_value()) << status.error().to_string();
  EXPECT_TRUE(position.is_empty());
}

TEST(StoreQueryUtilsTest, LastHeaderWins) {
  // Proves the check reads the LAST "v" and "c" headers, as Headers.lastHeader does.
  ConsumerRecord r = record_with_vector(pos({{"A", {{0, 1}}}}), 0);
  r.headers.push_back(Header{"c", Bytes(position_serde::serialize(pos({{"B", {{0, 2}}}})))});
  Position position = Position::empty_position();
  ASSERT_TRUE(apply_checks_and_update_position(r, true, position).has_value());
  EXPECT_EQ(position, pos({{"B", {{0, 2}}}}));
  // A later "v" of 1 switches the record off.
  r.headers.push_back(Header{"v", Bytes(std::string(1, '\1'))});
  Position untouched = Position::empty_position();
  ASSERT_TRUE(apply_checks_and_update_position(r, true, untouched).has_value());
  EXPECT_TRUE(untouched.is_empty());
}

TEST(StoreQueryUtilsTest, TruncatedVectorIsAnError) {
  // Proves a "c" header cut short surfaces the deserializer's BufferUnderflow error.
  ConsumerRecord r = record_with_vector(pos({{"A", {{0, 1}}}}), 0);
  r.headers[1].value = Bytes(position_serde::serialize(pos({{"A", {{0, 1}}}})).substr(0, 10));
  Position position = Position::empty_position();
  auto status = apply_checks_and_update_position(r, true, position);
  ASSERT_FALSE(status.has_value());
  EXPECT_EQ(status.error().kind, StreamsError::Kind::BufferUnderflow);
  EXPECT_TRUE(position.is_empty());
}

}  // namespace
}  // namespace iq
