// The trace's offsets and times are typed (iq/offsets.h, base/time.h): a source offset cannot be
// compared with or assigned to a changelog offset, an instant cannot be mixed with a duration or a
// raw number, and the records still print the numbers they printed as plain longs.

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>

#include "trace/query_record.h"
#include "trace/reprocessed_range.h"
#include "trace/run_trace.h"

namespace iq::sim {
namespace {

using base::Duration;
using base::Instant;

// Each field has the type of what it holds.
static_assert(std::is_same_v<decltype(SourceLogRecord::offset), SourceOffset>);
static_assert(std::is_same_v<decltype(ChangelogRecord::offset), ChangelogOffset>);
static_assert(std::is_same_v<decltype(UnloggedWrite::source_offset), SourceOffset>);
static_assert(
    std::is_same_v<decltype(ReplicaSnapshot::changelog_offset), std::optional<ChangelogOffset>>);
static_assert(std::is_same_v<decltype(ReplicaSnapshot::changelog_end_offset),
                             std::optional<ChangelogOffset>>);
static_assert(std::is_same_v<decltype(ReprocessedRange::first_offset), SourceOffset>);
static_assert(std::is_same_v<decltype(ReprocessedRange::last_offset), SourceOffset>);
static_assert(std::is_same_v<decltype(SourceLogRecord::appended_ms), Instant>);
static_assert(std::is_same_v<decltype(ChangelogRecord::appended_ms), Instant>);
static_assert(std::is_same_v<decltype(QueryRecord::invoke_ms), Instant>);
static_assert(std::is_same_v<decltype(QueryRecord::complete_ms), Instant>);
static_assert(std::is_same_v<decltype(PlacementSnapshot::at_ms), Instant>);
static_assert(std::is_same_v<decltype(FaultRecord::at_ms), Instant>);
static_assert(std::is_same_v<decltype(LagRecord::at_ms), Instant>);
static_assert(std::is_same_v<decltype(LivenessFailure::at_ms), Instant>);
static_assert(std::is_same_v<decltype(LivenessRecord::faults_stopped_ms), Instant>);
static_assert(std::is_same_v<decltype(LivenessRecord::timeout_ms), Duration>);
static_assert(std::is_same_v<decltype(LivenessRecord::first_success_ms)::mapped_type,
                             std::optional<Instant>>);
static_assert(std::is_same_v<decltype(RunTrace::Phase::start_ms), Instant>);
static_assert(std::is_same_v<decltype(RunTrace::Phase::end_ms), Instant>);
static_assert(std::is_same_v<decltype(RunTrace::end_ms), Instant>);
static_assert(std::is_same_v<decltype(ReprocessedRange::start_ms), Instant>);
static_assert(std::is_same_v<decltype(ReprocessedRange::end_ms), Instant>);

// A source offset and a changelog offset meet in the trace (a source record beside a changelog
// record, an unlogged write beside the replica's changelog offset, a reprocessed range beside the
// changelog): neither assigns to nor compares with the other.
template <typename A, typename B>
concept Assignable = requires(A& a, B b) {
  a = b;
};
template <typename A, typename B>
concept Ordered = requires(A a, B b) {
  a < b;
};
template <typename A, typename B>
concept Equated = requires(A a, B b) {
  a == b;
};
template <typename A, typename B>
concept Added = requires(A a, B b) {
  a + b;
};

static_assert(!Assignable<decltype(SourceLogRecord::offset), decltype(ChangelogRecord::offset)>);
static_assert(!Assignable<decltype(ChangelogRecord::offset), decltype(SourceLogRecord::offset)>);
static_assert(!Assignable<decltype(ReplicaSnapshot::changelog_offset),
                          decltype(UnloggedWrite::source_offset)>);
static_assert(
    !Assignable<decltype(ReprocessedRange::first_offset), decltype(ChangelogRecord::offset)>);
static_assert(!Ordered<decltype(SourceLogRecord::offset), decltype(ChangelogRecord::offset)>);
static_assert(!Equated<decltype(SourceLogRecord::offset), decltype(ChangelogRecord::offset)>);
static_assert(!Ordered<decltype(UnloggedWrite::source_offset), ChangelogOffset>);
static_assert(!Ordered<decltype(ReprocessedRange::last_offset), ChangelogOffset>);
// Same kinds still assign and compare (so the concepts above are not vacuous), and an offset is
// no raw number either way.
static_assert(
    Assignable<decltype(UnloggedWrite::source_offset), decltype(SourceLogRecord::offset)>);
static_assert(Assignable<decltype(ReplicaSnapshot::changelog_offset), ChangelogOffset>);
static_assert(Equated<decltype(ChangelogRecord::offset), ChangelogOffset>);
static_assert(Ordered<decltype(ReprocessedRange::first_offset), decltype(SourceLogRecord::offset)>);
static_assert(Ordered<decltype(ChangelogRecord::offset), ChangelogOffset>);
static_assert(!Assignable<decltype(SourceLogRecord::offset), int64_t>);
static_assert(!Assignable<decltype(ChangelogRecord::offset), int64_t>);
static_assert(!std::is_convertible_v<decltype(ChangelogRecord::offset), int64_t>);
static_assert(!Ordered<decltype(SourceLogRecord::offset), int64_t>);
// A position holds source offsets: a changelog record's offset is refused.
template <typename O>
concept PositionTakes = requires(Position p, O o) {
  p.with_component("t", 0, o);
};
static_assert(PositionTakes<decltype(SourceLogRecord::offset)>);
static_assert(!PositionTakes<decltype(ChangelogRecord::offset)>);

// Instants and durations: an instant minus an instant is a duration, an instant plus a duration
// an instant; an instant plus an instant, an instant compared with a duration, and a raw number
// in either direction do not compile.
static_assert(
    std::is_same_v<decltype(QueryRecord{}.complete_ms - QueryRecord{}.invoke_ms), Duration>);
static_assert(std::is_same_v<
              decltype(LivenessRecord{}.faults_stopped_ms + LivenessRecord{}.timeout_ms), Instant>);
static_assert(Added<decltype(QueryRecord::invoke_ms), decltype(LivenessRecord::timeout_ms)>);
static_assert(!Added<decltype(QueryRecord::invoke_ms), decltype(QueryRecord::complete_ms)>);
static_assert(!Ordered<decltype(QueryRecord::invoke_ms), decltype(LivenessRecord::timeout_ms)>);
static_assert(!Assignable<decltype(LivenessRecord::timeout_ms), decltype(FaultRecord::at_ms)>);
static_assert(!Assignable<decltype(FaultRecord::at_ms), decltype(LivenessRecord::timeout_ms)>);
static_assert(!Assignable<decltype(QueryRecord::invoke_ms), int64_t>);
static_assert(!Added<decltype(QueryRecord::invoke_ms), int64_t>);
static_assert(!Ordered<decltype(RunTrace::end_ms), int64_t>);
static_assert(!std::is_convertible_v<decltype(RunTrace::end_ms), int64_t>);
static_assert(!std::is_convertible_v<decltype(LivenessRecord::timeout_ms), int64_t>);
// An instant is no offset and an offset no instant.
static_assert(!Assignable<decltype(SourceLogRecord::appended_ms), SourceOffset>);
static_assert(
    !Ordered<decltype(ReprocessedRange::start_ms), decltype(ReprocessedRange::first_offset)>);

// Proves the typed fields print the same numbers the plain longs printed (the digests and the
// reports read these lines).
TEST(TypedFieldsTest, RecordsPrintTheirNumbersAsBefore) {
  FaultRecord f;
  f.at_ms = Instant::from_ms(12'000);
  f.kind = FaultKind::kCrash;
  f.instance = "instance-2";
  f.detail = "scripted step 4";
  EXPECT_EQ(f.to_string(), "@12000 crash instance-2 (scripted step 4)");

  ReprocessedRange r;
  r.partition = 1;
  r.first_offset = SourceOffset(1180);
  r.last_offset = SourceOffset(1240);
  r.instance = "instance-2";
  r.start_ms = Instant::from_ms(29'016);
  r.end_ms = Instant::from_ms(29'050);
  EXPECT_EQ(r.to_string(),
            "offsets 1180-1240 of partition 1 again on instance-2 at 29016-29050 ms");
  r.last_offset = r.first_offset;
  r.end_ms = r.start_ms;
  EXPECT_EQ(r.to_string(), "offset 1180 of partition 1 again on instance-2 at 29016 ms");

  ReplicaSnapshot s;
  s.partition = 0;
  s.instance = "instance-1";
  s.running = true;
  s.role = ReplicaRole::kActive;
  s.changelog_offset = ChangelogOffset(41);
  s.changelog_end_offset = ChangelogOffset(42);
  s.lag = 0;
  EXPECT_EQ(s.to_string(),
            "{p=0 instance-1 client=- role=active task=- thread=- pos=- changelog=41/42 lag=0}");

  PlacementSnapshot p;
  p.at_ms = Instant::from_ms(250);
  p.replicas.push_back(s);
  EXPECT_EQ(p.to_string(),
            "@250[{p=0 instance-1 client=- role=active task=- thread=- pos=- changelog=41/42 "
            "lag=0}]");
}

}  // namespace
}  // namespace iq::sim
