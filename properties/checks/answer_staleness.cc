#include "checks/answer_staleness.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

#include "base/assert.h"
#include "checks/check_util.h"
#include "checks/source_appends.h"

namespace iq::properties {

namespace {

// A replica's role as the reports name it (reports/report_common.cc role_label, which the checks
// cannot link): a restoring active apart, a warmup apart from the standbys.
std::optional<std::string> role_of(const sim::ReplicaSnapshot& r) {
  if (!r.running) return std::nullopt;
  switch (r.role) {
    case sim::ReplicaRole::kActive:
      return r.task_state == sim::ReplicaSnapshot::TaskState::RESTORING ? "restoring" : "active";
    case sim::ReplicaRole::kStandby:
      return r.warmup ? "warmup" : "standby";
    case sim::ReplicaRole::kNone:
      break;
  }
  return std::nullopt;
}

constexpr const char* kRecords = "records";
constexpr const char* kMs = "ms";

}  // namespace

int64_t StalenessHistogram::bucket_of(int64_t value) {
  IQ_ASSERT(value >= 0, "staleness {} below 0", value);
  if (value < kExactBelow) return value;
  // The power of two at or below the value, split into kSubBuckets equal buckets.
  const int32_t exponent = std::bit_width(static_cast<uint64_t>(value)) - 1;
  const int64_t base = int64_t{1} << exponent;
  const int64_t width = base / kSubBuckets;
  return base + (value - base) / width * width;
}

void StalenessHistogram::add(int64_t value, uint64_t times) {
  if (times == 0) return;
  buckets_[bucket_of(value)] += times;
  count_ += times;
  max_ = std::max(max_, value);
}

void StalenessHistogram::raise_max(int64_t value) {
  IQ_ASSERT(value >= 0, "staleness maximum {} below 0", value);
  max_ = std::max(max_, value);
}

void StalenessHistogram::merge(const StalenessHistogram& other) {
  for (const auto& [bucket, n] : other.buckets_) buckets_[bucket] += n;
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
}

int64_t StalenessHistogram::quantile(double q) const {
  IQ_ASSERT(q > 0 && q <= 1, "quantile {}", q);
  if (count_ == 0) return 0;
  const auto rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (const auto& [bucket, n] : buckets_) {
    seen += n;
    if (seen >= rank) return std::min(bucket, max_);
  }
  IQ_ASSERT(false, "histogram of {} values holds {}", count_, seen);
  return max_;
}

AnswerStaleness answer_staleness(const sim::RunTrace& trace) {
  AnswerStaleness out;
  const SourceAppends appends(trace.source_log);
  const std::string& topic = trace.topology.source_topic;
  for (const sim::QueryRecord& q : trace.history.records()) {
    if (q.outcome != sim::OutcomeKind::kAnswered) continue;
    const sim::PlacementSnapshot& snap = detail::explaining_placement(q);
    for (const sim::PartitionOutcome& p : q.partitions) {
      if (!p.success) continue;
      const sim::ReplicaSnapshot* r = detail::find_replica(snap, q.target_instance, p.partition);
      if (r == nullptr) continue;
      std::optional<std::string> role = role_of(*r);
      const std::optional<Position>& position = p.position ? p.position : r->store_position;
      if (!role || !position) continue;
      // A position without the partition includes none of its records.
      const int64_t* offset = position->offset(topic, p.partition);
      const int64_t included = offset != nullptr ? *offset : appends.first(p.partition) - 1;
      const SourceAppends::Behind behind = appends.behind(p.partition, included, snap.at_ms);
      RoleStaleness& s = out[*role];
      s.records.add(behind.records);
      s.virtual_ms.add(behind.ms);
    }
  }
  return out;
}

std::map<std::string, uint64_t> staleness_counts(const AnswerStaleness& staleness) {
  std::map<std::string, uint64_t> out;
  for (const auto& [role, s] : staleness) {
    for (const auto& [unit, h] : {std::pair{kRecords, &s.records}, std::pair{kMs, &s.virtual_ms}}) {
      for (const auto& [bucket, n] : h->buckets()) {
        out[role + "." + unit + ".b" + std::to_string(bucket)] = n;
      }
      out[role + "." + unit + ".max"] = static_cast<uint64_t>(h->max());
    }
  }
  return out;
}

std::optional<AnswerStaleness> staleness_from_counts(
    const std::map<std::string, uint64_t>& counts) {
  AnswerStaleness out;
  for (const auto& [key, n] : counts) {
    const size_t first_dot = key.find('.');
    const size_t second_dot = key.find('.', first_dot == std::string::npos ? 0 : first_dot + 1);
    if (first_dot == std::string::npos || second_dot == std::string::npos) return std::nullopt;
    const std::string role = key.substr(0, first_dot);
    const std::string unit = key.substr(first_dot + 1, second_dot - first_dot - 1);
    const std::string rest = key.substr(second_dot + 1);
    if (unit != kRecords && unit != kMs) return std::nullopt;
    StalenessHistogram& h = unit == kRecords ? out[role].records : out[role].virtual_ms;
    if (rest == "max") {
      h.raise_max(static_cast<int64_t>(n));
      continue;
    }
    if (rest.size() < 2 || rest[0] != 'b') return std::nullopt;
    int64_t bucket = -1;
    const char* end = rest.data() + rest.size();
    auto [ptr, ec] = std::from_chars(rest.data() + 1, end, bucket);
    if (ec != std::errc{} || ptr != end || bucket < 0) return std::nullopt;
    if (StalenessHistogram::bucket_of(bucket) != bucket) return std::nullopt;
    h.add(bucket, n);
  }
  return out;
}

void merge(AnswerStaleness& into, const AnswerStaleness& from) {
  for (const auto& [role, s] : from) {
    into[role].records.merge(s.records);
    into[role].virtual_ms.merge(s.virtual_ms);
  }
}

}  // namespace iq::properties
