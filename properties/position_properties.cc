// RapidCheck properties of Position, PositionBound, the bound check, PositionSerde and the
// offset-checkpoint text format. They state in general what the unit tests beside the code show
// by example (docs/iqv2-semantics.md §1-§3; Kafka's PositionTest, PositionBoundTest and
// StoreQueryUtilsTest). Each property runs RapidCheck's default 100 cases; RC_PARAMS="seed=N"
// replays a failure.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "io/file_system.h"
#include "iq/position.h"
#include "iq/position_bound.h"
#include "state/offset_checkpoint.h"
#include "state/position_serde.h"
#include "state/store_query_utils.h"

// ---------------------------------------------------------------------------------------------
// Generators

namespace iq {

// How RapidCheck prints a counterexample (found by argument-dependent lookup).
static void showValue(const Position& p, std::ostream& os) {
  os << p.to_string();
}
static void showValue(const PositionBound& b, std::ostream& os) {
  os << b.to_string();
}

namespace gens {

// A few topics from a small alphabet, so that two generated positions often share components.
inline const std::vector<std::string>& topic_alphabet() {
  static const std::vector<std::string> kTopics = {"a", "b", "input-topic"};
  return kTopics;
}
constexpr int32_t kPartitions = 4;  // partitions 0..3

// Offsets 0..1000, with extra weight on a handful of small values so that equal offsets (the
// boundary of the >= check) come up often.
inline rc::Gen<int64_t> offset() {
  return rc::gen::weightedOneOf<int64_t>(
      {{3, rc::gen::inRange<int64_t>(0, 1001)}, {2, rc::gen::inRange<int64_t>(0, 4)}});
}

// A partition map over 0..3: each partition present or not. All absent (an empty map) comes up
// about one time in sixteen.
inline rc::Gen<Position::PartitionOffsets> partitions() {
  using Slot = std::pair<bool, int64_t>;
  return rc::gen::map(rc::gen::container<std::vector<Slot>>(
                          kPartitions, rc::gen::pair(rc::gen::arbitrary<bool>(), offset())),
                      [](const std::vector<Slot>& slots) {
                        Position::PartitionOffsets out;
                        for (int32_t p = 0; p < kPartitions; ++p) {
                          if (slots[static_cast<size_t>(p)].first)
                            out[p] = slots[static_cast<size_t>(p)].second;
                        }
                        return out;
                      });
}

inline rc::Gen<Position> position() {
  using Slot = std::pair<bool, Position::PartitionOffsets>;
  const size_t n = topic_alphabet().size();
  return rc::gen::map(rc::gen::container<std::vector<Slot>>(
                          n, rc::gen::pair(rc::gen::arbitrary<bool>(), partitions())),
                      [](const std::vector<Slot>& slots) {
                        Position::Map map;
                        for (size_t i = 0; i < slots.size(); ++i) {
                          if (slots[i].first) map[topic_alphabet()[i]] = slots[i].second;
                        }
                        return Position::from_map(map);
                      });
}

inline rc::Gen<PositionBound> bound() {
  return rc::gen::weightedOneOf<PositionBound>(
      {{1, rc::gen::just(PositionBound::unbounded())},
       {6, rc::gen::map(position(), [](const Position& p) { return PositionBound::at(p); })}});
}

inline rc::Gen<int32_t> partition() {
  return rc::gen::inRange<int32_t>(0, kPartitions);
}
inline rc::Gen<std::string> topic() {
  return rc::gen::elementOf(topic_alphabet());
}

}  // namespace gens
}  // namespace iq

namespace rc {
template <>
struct Arbitrary<iq::Position> {
  static Gen<iq::Position> arbitrary() { return iq::gens::position(); }
};
template <>
struct Arbitrary<iq::PositionBound> {
  static Gen<iq::PositionBound> arbitrary() { return iq::gens::bound(); }
};
}  // namespace rc

namespace iq {
namespace {

// ---------------------------------------------------------------------------------------------
// Independent formulations, written over flattened triples rather than nested maps.

using Triple = std::tuple<std::string, int32_t, int64_t>;

std::vector<Triple> flatten(const Position& p) {
  std::vector<Triple> out;
  for (const auto& topic : p.topics()) {
    for (const auto& [partition, offset] : p.partition_positions(topic)) {
      out.emplace_back(topic, partition, offset);
    }
  }
  return out;
}

// "For all (t, p', o) in the bound with p' == partition, the store has some (t, partition, o')
// with o' >= o."
bool permitted_by_triples(const Position& store, const PositionBound& bound, int32_t partition) {
  const std::vector<Triple> have = flatten(store);
  const std::vector<Triple> need = flatten(bound.position());
  return std::all_of(need.begin(), need.end(), [&](const Triple& n) {
    if (std::get<1>(n) != partition) return true;
    return std::any_of(have.begin(), have.end(), [&](const Triple& h) {
      return std::get<0>(h) == std::get<0>(n) && std::get<1>(h) == partition &&
             std::get<2>(h) >= std::get<2>(n);
    });
  });
}

// The offset of (t, p) in a triple list, or nothing.
std::optional<int64_t> find_offset(const std::vector<Triple>& triples, const std::string& t,
                                   int32_t p) {
  for (const auto& [topic, partition, offset] : triples) {
    if (topic == t && partition == p) return offset;
  }
  return std::nullopt;
}

// A fresh directory per property case, removed when the case ends.
class ScratchDir {
 public:
  ScratchDir() {
    static int counter = 0;
    path_ =
        (std::filesystem::path(::testing::TempDir()) /
         ("position_properties_" + std::to_string(::getpid()) + "_" + std::to_string(++counter)))
            .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---------------------------------------------------------------------------------------------
// Position: merge and with_component

RC_GTEST_PROP(PositionProperties, MergeIsCommutative, (const Position& a, const Position& b)) {
  // Proves a.merge(b) == b.merge(a).
  RC_ASSERT(a.copy().merge(b) == b.copy().merge(a));
}

RC_GTEST_PROP(PositionProperties, MergeIsAssociative,
              (const Position& a, const Position& b, const Position& c)) {
  // Proves (a.merge(b)).merge(c) == a.merge(b.merge(c)).
  Position left = a.copy();
  left.merge(b).merge(c);
  Position bc = b.copy();
  bc.merge(c);
  Position right = a.copy();
  right.merge(bc);
  RC_ASSERT(left == right);
}

RC_GTEST_PROP(PositionProperties, MergeIsIdempotent, (const Position& a, const Position& b)) {
  // Proves a.merge(a) == a, and merging the same position twice is the same as once.
  RC_ASSERT(a.copy().merge(a) == a);
  Position once = a.copy();
  once.merge(b);
  Position twice = once.copy();
  twice.merge(b);
  RC_ASSERT(once == twice);
}

RC_GTEST_PROP(PositionProperties, MergeIsTheComponentwiseMax,
              (const Position& a, const Position& b)) {
  // Proves every component of a.merge(b) is >= a's and b's, it is exactly the larger of the two,
  // no other component appears, and the topics are the union (empty partition maps included).
  Position merged = a.copy();
  merged.merge(b);
  const auto fa = flatten(a);
  const auto fb = flatten(b);
  for (const auto& [t, p, o] : fa) RC_ASSERT(*merged.offset(t, p) >= o);
  for (const auto& [t, p, o] : fb) RC_ASSERT(*merged.offset(t, p) >= o);
  for (const auto& [t, p, o] : flatten(merged)) {
    const auto oa = find_offset(fa, t, p);
    const auto ob = find_offset(fb, t, p);
    RC_ASSERT(oa.has_value() || ob.has_value());
    RC_ASSERT(o == std::max(oa.value_or(INT64_MIN), ob.value_or(INT64_MIN)));
  }
  std::vector<std::string> topics = a.topics();
  for (const auto& t : b.topics()) topics.push_back(t);
  std::sort(topics.begin(), topics.end());
  topics.erase(std::unique(topics.begin(), topics.end()), topics.end());
  RC_ASSERT(merged.topics() == topics);
}

RC_GTEST_PROP(PositionProperties, MergeLeavesItsArgumentAlone,
              (const Position& a, const Position& b)) {
  // Proves merge reads its argument only.
  const Position before = b.copy();
  Position receiver = a.copy();
  receiver.merge(b);
  RC_ASSERT(b == before);
}

RC_GTEST_PROP(PositionProperties, WithComponentIsMonotone, (const Position& a)) {
  // Proves with_component(t, p, o) sets (t, p) to max(old, o) and changes nothing else.
  const std::string t = *gens::topic();
  const int32_t p = *gens::partition();
  const int64_t o = *gens::offset();
  Position updated = a.copy();
  updated.with_component(t, p, o);
  const int64_t* before = a.offset(t, p);
  RC_ASSERT(*updated.offset(t, p) == (before == nullptr ? o : std::max(*before, o)));
  for (const auto& [topic, partition, offset] : flatten(a)) {
    if (topic == t && partition == p) continue;
    RC_ASSERT(*updated.offset(topic, partition) == offset);
  }
  RC_ASSERT(flatten(updated).size() == flatten(a).size() + (before == nullptr ? 1u : 0u));
  // And it agrees with merging the single component.
  Position merged = a.copy();
  merged.merge(Position::from_map({{t, {{p, o}}}}));
  RC_ASSERT(merged == updated);
}

RC_GTEST_PROP(PositionProperties, CopyIsEqualAndIndependent, (const Position& a)) {
  // Proves copy() is equal to the original and unaffected by later changes to it.
  Position original = a.copy();
  const Position copied = original.copy();
  RC_ASSERT(copied == a);
  original.with_component("fresh-topic", 0, 1);
  RC_ASSERT(copied == a);
}

// ---------------------------------------------------------------------------------------------
// PositionBound and the bound check

RC_GTEST_PROP(PositionProperties, IsPermittedAgreesWithTheTripleFormulation,
              (const Position& store, const PositionBound& bound)) {
  // Proves is_permitted equals "every bound triple on this partition is met by a store triple".
  const int32_t partition = *gens::partition();
  const bool permitted = store_query_utils::is_permitted(store, bound, partition);
  // Both outcomes must come up, or the property says little; RapidCheck prints the split.
  RC_CLASSIFY(permitted, "permitted");
  RC_CLASSIFY(!permitted, "not up to bound");
  RC_ASSERT(permitted == permitted_by_triples(store, bound, partition));
}

RC_GTEST_PROP(PositionProperties, IsPermittedAgreesOnBoundsDerivedFromTheStore,
              (const Position& store, const Position& other)) {
  // Proves the agreement also on bounds near the store position, where both outcomes are common:
  // the store's own position merged with another, or the store itself.
  const int32_t partition = *gens::partition();
  Position near = store.copy();
  near.merge(other);
  for (const Position& b : {near, store, other}) {
    const PositionBound bound = PositionBound::at(b);
    RC_ASSERT(store_query_utils::is_permitted(store, bound, partition) ==
              permitted_by_triples(store, bound, partition));
  }
}

RC_GTEST_PROP(PositionProperties, StoreAlwaysMeetsItsOwnPosition, (const Position& store)) {
  // Proves a store is always up to a bound equal to (or below) its own position.
  const int32_t partition = *gens::partition();
  RC_ASSERT(store_query_utils::is_permitted(store, PositionBound::at(store), partition));
  RC_ASSERT(store_query_utils::is_permitted(store, PositionBound::unbounded(), partition));
}

RC_GTEST_PROP(PositionProperties, PermittedIsMonotoneInTheStorePosition,
              (const Position& store, const PositionBound& bound, const Position& more)) {
  // Proves if a store at P is up to a bound, so is a store at P.merge(anything).
  const int32_t partition = *gens::partition();
  RC_PRE(store_query_utils::is_permitted(store, bound, partition));
  Position advanced = store.copy();
  advanced.merge(more);
  RC_ASSERT(store_query_utils::is_permitted(advanced, bound, partition));
}

RC_GTEST_PROP(PositionProperties, PermittedIsAntitoneInTheBound,
              (const Position& store, const Position& bound_position, const Position& more)) {
  // Proves raising a bound can only turn a permitted query into a refused one, never the reverse.
  const int32_t partition = *gens::partition();
  Position raised = bound_position.copy();
  raised.merge(more);
  if (store_query_utils::is_permitted(store, PositionBound::at(raised), partition)) {
    RC_ASSERT(store_query_utils::is_permitted(store, PositionBound::at(bound_position), partition));
  }
}

RC_GTEST_PROP(PositionProperties, BoundSnapshotsItsPosition, (const Position& p)) {
  // Proves at(p) keeps a copy: changing p afterwards leaves the bound as it was, and
  // is_unbounded() is exactly p.is_empty().
  Position mutable_p = p.copy();
  const PositionBound bound = PositionBound::at(mutable_p);
  mutable_p.with_component("fresh-topic", 0, 1);
  RC_ASSERT(bound.position() == p);
  RC_ASSERT(bound.is_unbounded() == p.is_empty());
  RC_ASSERT((bound == PositionBound::unbounded()) == p.is_empty());
}

// ---------------------------------------------------------------------------------------------
// PositionSerde

RC_GTEST_PROP(PositionSerdeProperties, RoundTrip, (const Position& p)) {
  // Proves deserialize(serialize(p)) == p, also through Kafka's zero-padded header value.
  auto plain = position_serde::deserialize(position_serde::serialize(p));
  RC_ASSERT(plain.has_value());
  RC_ASSERT(*plain == p);
  auto padded = position_serde::deserialize(position_serde::serialize_padded(p));
  RC_ASSERT(padded.has_value());
  RC_ASSERT(*padded == p);
}

RC_GTEST_PROP(PositionSerdeProperties, SizesFollowKafkasFormulas, (const Position& p)) {
  // Proves the payload is 5 + sum(8 + name + 12n) bytes and the padded value 40 + sum(64 + name
  // + 96n) bytes, with nothing but zeros after the payload.
  size_t payload = 5;
  size_t padded = 40;
  for (const auto& t : p.topics()) {
    const size_t n = p.partition_positions(t).size();
    payload += 8 + t.size() + 12 * n;
    padded += 64 + t.size() + 96 * n;
  }
  const std::string bytes = position_serde::serialize(p);
  const std::string value = position_serde::serialize_padded(p);
  RC_ASSERT(bytes.size() == payload);
  RC_ASSERT(value.size() == padded);
  RC_ASSERT(position_serde::padded_size(p) == padded);
  RC_ASSERT(value.compare(0, bytes.size(), bytes) == 0);
  RC_ASSERT(std::all_of(value.begin() + static_cast<std::ptrdiff_t>(bytes.size()), value.end(),
                        [](char c) { return c == '\0'; }));
}

RC_GTEST_PROP(PositionSerdeProperties, ProperPrefixesUnderflow, (const Position& p)) {
  // Proves a random proper prefix of a serialized position is a BufferUnderflow error.
  const std::string bytes = position_serde::serialize(p);
  const auto n = *rc::gen::inRange<size_t>(0, bytes.size());
  auto result = position_serde::deserialize(std::string_view(bytes).substr(0, n));
  RC_ASSERT(!result.has_value());
  RC_ASSERT(result.error().kind == StreamsError::Kind::BufferUnderflow);
}

// ---------------------------------------------------------------------------------------------
// OffsetCheckpoint

TopicPartitionOffsets flatten_to_offsets(const Position& p) {
  TopicPartitionOffsets out;
  for (const auto& [t, partition, offset] : flatten(p)) out[{t, partition}] = offset;
  return out;
}

RC_GTEST_PROP(OffsetCheckpointProperties, WriteThenReadRoundTrips, (const Position& source)) {
  // Proves write() puts exactly format(offsets) on disk and read() returns the map (an empty map
  // deletes the file, which reads back as empty).
  const TopicPartitionOffsets offsets = flatten_to_offsets(source);
  ScratchDir dir;
  PosixFileSystem fs;
  OffsetCheckpoint checkpoint(fs, dir.file("store.position"));
  RC_ASSERT(checkpoint.write(offsets).has_value());
  RC_ASSERT(std::filesystem::exists(checkpoint.path()) == !offsets.empty());
  if (!offsets.empty()) RC_ASSERT(read_all(checkpoint.path()) == OffsetCheckpoint::format(offsets));
  auto read = checkpoint.read();
  RC_ASSERT(read.has_value());
  RC_ASSERT(*read == offsets);
  RC_ASSERT(!std::filesystem::exists(checkpoint.path() + ".tmp"));
}

RC_GTEST_PROP(OffsetCheckpointProperties, FormattedTextReadsBack, (const Position& source)) {
  // Proves text written by format() (by any writer, not only write()) reads back as the same map.
  const TopicPartitionOffsets offsets = flatten_to_offsets(source);
  ScratchDir dir;
  const std::string path = dir.file("task.checkpoint");
  {
    std::ofstream out(path, std::ios::binary);
    out << OffsetCheckpoint::format(offsets);
  }
  PosixFileSystem fs;
  OffsetCheckpoint checkpoint(fs, path);
  auto read = checkpoint.read();
  RC_ASSERT(read.has_value());
  RC_ASSERT(*read == offsets);
}

RC_GTEST_PROP(OffsetCheckpointProperties, CheckpointPositionDropsOnlyEmptyTopics,
              (const Position& p)) {
  // Proves read_position_from_checkpoint(checkpoint_position(p)) is p without its empty topics.
  ScratchDir dir;
  PosixFileSystem fs;
  OffsetCheckpoint checkpoint(fs, dir.file("store.position"));
  RC_ASSERT(checkpoint_position(checkpoint, p).has_value());
  auto read = read_position_from_checkpoint(checkpoint);
  RC_ASSERT(read.has_value());
  Position::Map expected;
  for (const auto& t : p.topics()) {
    const auto partitions = p.partition_positions(t);
    if (!partitions.empty()) expected[t] = partitions;
  }
  RC_ASSERT(*read == Position::from_map(expected));
}

}  // namespace
}  // namespace iq
