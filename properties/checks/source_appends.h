#pragma once
// SourceAppends: when each source record was appended, per partition, by offset. Shared by the
// staleness of answers (answer_staleness.cc) and the reports' staleness tables.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "base/assert.h"
#include "base/time.h"
#include "trace/run_trace.h"

namespace iq::properties {

// Each partition's append times by offset (from its first offset): appends happen in virtual-time
// order, so the records appended by an instant are a prefix.
class SourceAppends {
 public:
  explicit SourceAppends(const std::vector<sim::SourceLogRecord>& log) {
    for (const sim::SourceLogRecord& r : log) {
      auto [it, inserted] = partitions_.try_emplace(r.partition, Log{r.offset.value(), {}});
      Log& p = it->second;
      IQ_ASSERT(p.first + static_cast<int64_t>(p.ms.size()) == r.offset.value(),
                "source log of partition {} not in offset order at {}", r.partition, r.offset);
      IQ_ASSERT(p.ms.empty() || p.ms.back() <= r.appended_ms,
                "source log of partition {} appended out of time order at {}", r.partition,
                r.offset);
      p.ms.push_back(r.appended_ms);
    }
  }

  struct Behind {
    int64_t records = 0;
    int64_t ms = 0;
  };
  // How far a position whose last included offset is `included` was behind at `at`.
  Behind behind(int32_t partition, int64_t included, base::Instant at) const {
    auto it = partitions_.find(partition);
    if (it == partitions_.end()) return {};
    const Log& p = it->second;
    const auto appended_by =
        static_cast<int64_t>(std::upper_bound(p.ms.begin(), p.ms.end(), at) - p.ms.begin());
    const int64_t missing_from = std::max<int64_t>(0, included + 1 - p.first);
    if (missing_from >= appended_by) return {};
    return {appended_by - missing_from, (at - p.ms[static_cast<size_t>(missing_from)]).ms()};
  }
  // When `offset` of `partition` was appended, if the log holds it.
  std::optional<base::Instant> at(int32_t partition, int64_t offset) const {
    auto it = partitions_.find(partition);
    if (it == partitions_.end()) return std::nullopt;
    const int64_t i = offset - it->second.first;
    if (i < 0 || i >= static_cast<int64_t>(it->second.ms.size())) return std::nullopt;
    return it->second.ms[static_cast<size_t>(i)];
  }
  // The partition's first offset (0 for a partition the log never saw).
  int64_t first(int32_t partition) const {
    auto it = partitions_.find(partition);
    return it == partitions_.end() ? 0 : it->second.first;
  }

 private:
  struct Log {
    int64_t first = 0;
    std::vector<base::Instant> ms;
  };
  std::map<int32_t, Log> partitions_;
};

}  // namespace iq::properties
