#pragma once
// Dirty reads under exactly_once_v2: which successful answers reflected uncommitted data, an
// omniscient fact derived from the trace (each changelog record's transaction outcome and the
// time its marker was appended, sim::ChangelogRecord::txn and decided_ms), like the reprocessing
// ledger. Not a property: Kafka's active store holds its open transaction's writes and IQv2
// answers from it (docs/iqv2-semantics.md), so a dirty read is Kafka's behaviour; this measures
// how often, for how long, and whether the instance that served one later answered at a lower
// position (the abort rolled its store back: Kafka closes it dirty, wipes it and restores the
// committed changelog).
//
// An answer counts only where the ChangelogWitness holds for it (the fold says exactly which
// records it reflects); the others are counted as not decided. At-least-once traces (no
// transactional record) give all zeros.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/time.h"
#include "trace/run_trace.h"

namespace iq::properties {

class JudgeContext;

struct DirtyRead {
  uint64_t record_id = 0;
  int32_t partition = 0;
  std::string instance;  // the serving replica's
  base::Instant at_ms{};
  uint32_t uncommitted_records = 0;  // changelog records it reflected, undecided at the answer
  bool unsent = false;               // it reflected a cached write not yet sent as well
  // kAborted if any reflected record's transaction aborted later, else kOpen if one never ended,
  // else kCommitted; kNone when it reflected only unsent cache writes (their fate is not traced).
  sim::TxnOutcome outcome = sim::TxnOutcome::kNone;
  // From the answer to the last decision of its reflected records (absent: open at the end, or
  // only unsent writes).
  std::optional<base::Duration> uncommitted_for_ms;
  // A later answer from the same instance on the same partition reported a lower component.
  bool lower_position_followed = false;
};

struct DirtyReadStats {
  static constexpr size_t kListedMax = 50;
  uint64_t answers = 0;      // successful partition results the witness holds for (EOS traces)
  uint64_t not_decided = 0;  // successful partition results it does not (EOS traces)
  uint64_t dirty = 0;
  uint64_t aborted = 0;         // of dirty: reflected a write whose transaction aborted later
  uint64_t open_at_end = 0;     // of dirty: a transaction still open at the end, none aborted
  uint64_t unsent_only = 0;     // of dirty: only cached, unsent writes
  uint64_t lower_followed = 0;  // of dirty: a later answer of that instance went lower
  uint64_t by_standby = 0;      // of dirty: served by a standby or warmup (read_committed: a bug)
  // Over dirty reads with a decision: the time from the answer to it.
  uint64_t uncommitted_ms_count = 0;
  int64_t uncommitted_ms_sum = 0;
  int64_t uncommitted_ms_max = 0;
  std::vector<DirtyRead> listed;  // the first kListedMax, in completion order
  // At the 2026-08-20 pin only: the answers the witness decided, and of them the dirty and the
  // aborted ones, by the query's effective isolation level (its withIsolationLevel, else the
  // client's default): "READ_COMMITTED/answers", "READ_UNCOMMITTED/dirty", ... Empty at the old
  // pin, whose queries have no level.
  std::map<std::string, uint64_t> by_level;
  bool operator==(const DirtyReadStats& o) const {
    return by_level == o.by_level && answers == o.answers && not_decided == o.not_decided &&
           dirty == o.dirty && aborted == o.aborted && open_at_end == o.open_at_end &&
           unsent_only == o.unsent_only && lower_followed == o.lower_followed &&
           by_standby == o.by_standby && uncommitted_ms_count == o.uncommitted_ms_count &&
           uncommitted_ms_sum == o.uncommitted_ms_sum && uncommitted_ms_max == o.uncommitted_ms_max;
  }
};

// Whether the trace holds transactional changelog records (an exactly_once_v2 run).
bool transactional(const sim::RunTrace& trace);

DirtyReadStats dirty_reads(const JudgeContext& context);

// The stats as named counts, as summaries keep and merge them ("answers", "not_decided", "dirty",
// "aborted", "open_at_end", "unsent_only", "lower_position_followed", "by_standby",
// "uncommitted_ms_count", "uncommitted_ms_sum", "uncommitted_ms_max": a maximum merges as one,
// the rest sum; at the new pin also by_level's keys); empty when the run had no transaction.
std::map<std::string, uint64_t> dirty_read_counts(const DirtyReadStats& stats);

}  // namespace iq::properties
