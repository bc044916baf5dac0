#pragma once
// ReprocessedRange: consecutive input records of one partition that one instance processed again
// (at-least-once), as the simulator's ProcessingLedger (sim/cluster/processing_ledger.h) found
// them. Plain data in the trace; the ledger that finds them lives with the cluster.

#include <cstdint>
#include <string>

#include "base/time.h"
#include "iq/offsets.h"

namespace iq::sim {

struct ReprocessedRange {
  int32_t partition = 0;
  SourceOffset first_offset{0};  // inclusive
  SourceOffset last_offset{0};   // inclusive
  std::string instance;          // who processed them again
  base::Instant start_ms{};      // when it processed first_offset again
  base::Instant end_ms{};        // when it processed last_offset again
  // "offsets 1180-1240 of partition 1 again on instance-2 at 29016-29050 ms"
  std::string to_string() const;
  bool operator==(const ReprocessedRange&) const = default;
};

}  // namespace iq::sim
