// LagReported: reported lags (allLocalStorePartitionLags) equal end offset minus the replica's
// actual offset.
//
// Kafka's convention (KafkaStreams#allLocalStorePartitionLags, docs/iqv2-semantics.md §6), applied
// here to what an omniscient observer read at the same instant (LagRecord::actual), not to
// anything impl/ computed:
//   end offset      the changelog partition's end offset;
//   current offset  for an active task in RUNNING: the end offset itself, so its lag is 0 even
//                   when its changelog offset says otherwise (Kafka's quirk: a running active is
//                   taken to be caught up); for any other task (standby, restoring active): the
//                   last changelog offset applied + 1, or 0 when none was applied yet;
//   lag             max(0, end - current).
// A lag reported for a partition on which the observer saw no local task is a violation too.
// Samples whose observer snapshot has no changelog end offset are not judged (nothing to
// compute from).

#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties {
namespace {

constexpr const char* kLagReportedName = sim::property_names::kLagReported.data();

std::string lag_text(const LagInfo& lag) {
  return "current=" + std::to_string(lag.current_offset_position) +
         " end=" + std::to_string(lag.end_offset_position) +
         " lag=" + std::to_string(lag.offset_lag());
}

Violation lag_violation(const JudgeContext& context, const sim::LagRecord& sample,
                        std::string summary, std::string expected) {
  Violation v;
  v.property = kLagReportedName;
  v.at_ms = sample.at_ms.ms_since_epoch();
  v.summary = sample.instance + " " + sample.store + "[" + std::to_string(sample.partition) +
              "]: " + std::move(summary);
  v.query = "allLocalStorePartitionLags() on " + sample.instance;
  v.expected = std::move(expected);
  v.returned = lag_text(sample.reported);
  v.replica = sample.actual.to_string();
  v.events_before = context.events_before(sample.at_ms);
  return v;
}

}  // namespace

std::vector<Violation> check_lag_reported(const JudgeContext& context) {
  std::vector<Violation> out;
  detail::Tally tally(context, kLagReportedName);
  for (const sim::LagRecord& sample : context.trace().lags) {
    if (!context.judged_at(sample.at_ms, kLagReportedName)) continue;
    const sim::ReplicaSnapshot& actual = sample.actual;
    if (actual.role == sim::ReplicaRole::kNone) {
      tally.judged();
      out.push_back(
          lag_violation(context, sample, "a lag for a partition with no local task", "no entry"));
      continue;
    }
    if (!actual.changelog_end_offset) {
      tally.not_judged("no changelog end offset observed");
      continue;
    }
    tally.judged();
    const ChangelogOffset end = *actual.changelog_end_offset;
    const bool running_active = actual.role == sim::ReplicaRole::kActive &&
                                actual.task_state == sim::ReplicaSnapshot::TaskState::RUNNING;
    ChangelogOffset current(0);
    if (running_active) {
      current = end;
    } else if (actual.changelog_offset) {
      current = *actual.changelog_offset + 1;
    }
    const LagInfo expected = LagInfo::of(current, end);
    if (sample.reported == expected) continue;
    out.push_back(lag_violation(context, sample,
                                running_active
                                    ? "a running active must report current = end (lag 0)"
                                    : "the reported lag is not end - (changelog offset + 1)",
                                lag_text(expected)));
  }
  return out;
}

}  // namespace iq::properties
