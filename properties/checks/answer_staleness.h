#pragma once
// Answer staleness by replica role, in a form that sums over the seeds of a sweep, so a sweep that
// draws both processing guarantees can compare them (issue 13: standbys under read_committed lag
// until the commit). Omniscient, from the trace: for each successful partition result, how far the
// answer's position was behind the source log's end at the answer's time,
// - in records: the source records of that partition appended at or before the answer's time
//   whose offset the position does not include;
// - in virtual ms: the age, at the answer, of the oldest of them (0 when none).
// Counted against the source log, not the changelog: under exactly_once_v2 the changelog also
// holds transaction markers and aborted records, so changelog offsets would not compare across
// the guarantees. The role is the serving replica's in the snapshot taken when it answered
// (active, restoring, standby, warmup). reports/staleness.h keeps the run page's exact tables.
//
// The values go into a histogram with bounded buckets (StalenessHistogram) so that a seed's
// result and a sweep's sum stay small whatever the number of answers: values below
// kExactBelow exactly, larger ones in kSubBuckets buckets per power of two (a bucket is reported
// by its lower bound, within 1/kSubBuckets of the value); the maximum is kept exactly.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "trace/run_trace.h"

namespace iq::properties {

class StalenessHistogram {
 public:
  static constexpr int64_t kExactBelow = 32;
  static constexpr int64_t kSubBuckets = 8;

  void add(int64_t value, uint64_t times = 1);
  void merge(const StalenessHistogram& other);
  // Read back from counts: the exact maximum, which the buckets give only to 1/kSubBuckets.
  void raise_max(int64_t value);
  uint64_t count() const { return count_; }
  int64_t max() const { return max_; }
  // Nearest rank (q in (0, 1]): the lower bound of the bucket that holds the value of rank
  // ceil(q * count); 0 when empty.
  int64_t quantile(double q) const;
  // The lower bound of the bucket `value` falls in (values below kExactBelow are their own).
  static int64_t bucket_of(int64_t value);
  const std::map<int64_t, uint64_t>& buckets() const { return buckets_; }
  bool operator==(const StalenessHistogram&) const = default;

 private:
  std::map<int64_t, uint64_t> buckets_;  // bucket lower bound -> values in it
  uint64_t count_ = 0;
  int64_t max_ = 0;
};

struct RoleStaleness {
  StalenessHistogram records;     // source records behind the log end
  StalenessHistogram virtual_ms;  // age of the oldest source record the answer lacked
  bool operator==(const RoleStaleness&) const = default;
};

// By role label: "active", "restoring", "standby", "warmup" (answers without a snapshot of the
// serving replica are not counted).
using AnswerStaleness = std::map<std::string, RoleStaleness>;

AnswerStaleness answer_staleness(const sim::RunTrace& trace);

// As flat counts, the way summaries keep and merge them: "<role>.<unit>.b<lower bound>" -> count
// (units "records" and "ms"), and "<role>.<unit>.max" (merged as a maximum; every other key sums).
std::map<std::string, uint64_t> staleness_counts(const AnswerStaleness& staleness);
// The inverse; keys it does not know are refused (nullopt).
std::optional<AnswerStaleness> staleness_from_counts(const std::map<std::string, uint64_t>& counts);
void merge(AnswerStaleness& into, const AnswerStaleness& from);

}  // namespace iq::properties
