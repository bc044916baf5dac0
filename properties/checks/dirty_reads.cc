// Dirty reads under exactly_once_v2 (dirty_reads.h states what is counted and why).

#include "checks/dirty_reads.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "base/assert.h"
#include "checks/check.h"
#include "checks/check_util.h"

namespace iq::properties {
namespace {

// The outcome and the time to the last decision of the records one dirty read reflected.
void decide(DirtyRead& d, const detail::UncommittedReflected& u) {
  std::optional<base::Instant> last;
  bool open = false;
  for (const sim::ChangelogRecord* r : u.records) {
    if (r->txn == sim::TxnOutcome::kAborted) d.outcome = sim::TxnOutcome::kAborted;
    if (r->txn == sim::TxnOutcome::kOpen) open = true;
    if (r->decided_ms) last = std::max(last.value_or(*r->decided_ms), *r->decided_ms);
  }
  if (d.outcome != sim::TxnOutcome::kAborted && !u.records.empty()) {
    d.outcome = open ? sim::TxnOutcome::kOpen : sim::TxnOutcome::kCommitted;
  }
  if (last && !open) d.uncommitted_for_ms = *last - d.at_ms;
}

void count(DirtyReadStats& stats, const DirtyRead& d, sim::ReplicaRole role) {
  ++stats.dirty;
  if (d.outcome == sim::TxnOutcome::kAborted) ++stats.aborted;
  if (d.outcome == sim::TxnOutcome::kOpen) ++stats.open_at_end;
  if (d.outcome == sim::TxnOutcome::kNone) ++stats.unsent_only;
  if (role == sim::ReplicaRole::kStandby) ++stats.by_standby;
  if (d.uncommitted_for_ms) {
    const int64_t ms = d.uncommitted_for_ms->ms();
    IQ_ASSERT(ms >= 0, "record #{}: decided {} ms before the answer", d.record_id, ms);
    ++stats.uncommitted_ms_count;
    stats.uncommitted_ms_sum += ms;
    stats.uncommitted_ms_max = std::max(stats.uncommitted_ms_max, ms);
  }
}

// Marks the dirty reads a later answer of the same instance on the same partition followed at a
// lower reported component. History records complete in order, so one pass backwards keeps, per
// (partition, instance), the lowest component answered later.
void mark_lower_followed(const JudgeContext& context, std::vector<DirtyRead>& reads,
                         std::map<uint64_t, std::vector<size_t>>& by_record) {
  std::map<std::pair<int32_t, std::string>, int64_t> lowest_later;
  const auto& records = context.trace().history.records();
  for (auto it = records.rbegin(); it != records.rend(); ++it) {
    const sim::QueryRecord& record = *it;
    if (record.outcome != sim::OutcomeKind::kAnswered) continue;
    auto dirty = by_record.find(record.id);
    for (const sim::PartitionOutcome& outcome : record.partitions) {
      if (!outcome.success || !outcome.position) continue;
      const int64_t component =
          detail::reported_offset(context, *outcome.position, outcome.partition);
      const auto key = std::pair(outcome.partition, record.target_instance);
      if (dirty != by_record.end()) {
        for (size_t i : dirty->second) {
          if (reads[i].partition != outcome.partition) continue;
          auto low = lowest_later.find(key);
          reads[i].lower_position_followed = low != lowest_later.end() && low->second < component;
        }
      }
      auto [low, fresh] = lowest_later.emplace(key, component);
      if (!fresh) low->second = std::min(low->second, component);
    }
  }
}

}  // namespace

bool transactional(const sim::RunTrace& trace) {
  return trace.changelog_markers > 0 ||
         std::any_of(trace.changelog.begin(), trace.changelog.end(),
                     [](const sim::ChangelogRecord& r) { return r.txn != sim::TxnOutcome::kNone; });
}

namespace {

void count_level(DirtyReadStats& stats, const std::string& level, const DirtyRead* dirty) {
  ++stats.by_level[level + "/answers"];
  stats.by_level[level + "/dirty"] += dirty != nullptr ? 1 : 0;
  stats.by_level[level + "/aborted"] +=
      dirty != nullptr && dirty->outcome == sim::TxnOutcome::kAborted ? 1 : 0;
}

}  // namespace

DirtyReadStats dirty_reads(const JudgeContext& context) {
  DirtyReadStats stats;
  if (!transactional(context.trace())) return stats;
  std::vector<DirtyRead> reads;
  std::vector<sim::ReplicaRole> roles;
  std::map<uint64_t, std::vector<size_t>> by_record;  // record id -> indexes into reads
  for (const sim::QueryRecord& record : context.trace().history.records()) {
    if (record.outcome != sim::OutcomeKind::kAnswered) continue;
    for (const sim::PartitionOutcome& outcome : record.partitions) {
      if (!outcome.success) continue;
      const detail::WitnessResult w = detail::witness_verdict(context, record, outcome);
      if (w.verdict != detail::Witness::kHolds) {
        ++stats.not_decided;
        continue;
      }
      ++stats.answers;
      const detail::UncommittedReflected u =
          detail::uncommitted_reflected(context, record, outcome, w);
      const bool new_pin = at_least(context.trace().kafka_pin, KafkaPin::k2026_08_20);
      if (u.records.empty() && !u.unsent) {
        if (new_pin)
          count_level(stats, to_string(detail::effective_level(context, record.request)), nullptr);
        continue;
      }
      DirtyRead d;
      d.record_id = record.id;
      d.partition = outcome.partition;
      d.instance = w.replica->instance;
      d.at_ms = detail::answered_at(record);
      d.uncommitted_records = static_cast<uint32_t>(u.records.size());
      d.unsent = u.unsent;
      decide(d, u);
      if (new_pin)
        count_level(stats, to_string(detail::effective_level(context, record.request)), &d);
      by_record[record.id].push_back(reads.size());
      reads.push_back(std::move(d));
      roles.push_back(w.replica->role);
    }
  }
  mark_lower_followed(context, reads, by_record);
  for (size_t i = 0; i < reads.size(); ++i) {
    count(stats, reads[i], roles[i]);
    if (reads[i].lower_position_followed) ++stats.lower_followed;
    if (stats.listed.size() < DirtyReadStats::kListedMax) stats.listed.push_back(reads[i]);
  }
  IQ_ASSERT(stats.dirty == reads.size() && stats.dirty <= stats.answers, "{} dirty of {} answers",
            stats.dirty, stats.answers);
  return stats;
}

std::map<std::string, uint64_t> dirty_read_counts(const DirtyReadStats& d) {
  if (d.answers == 0 && d.not_decided == 0) return {};
  const auto ms = [](int64_t v) {
    IQ_ASSERT(v >= 0, "a negative duration {}", v);
    return static_cast<uint64_t>(v);
  };
  std::map<std::string, uint64_t> out{{"answers", d.answers},
                                      {"not_decided", d.not_decided},
                                      {"dirty", d.dirty},
                                      {"aborted", d.aborted},
                                      {"open_at_end", d.open_at_end},
                                      {"unsent_only", d.unsent_only},
                                      {"lower_position_followed", d.lower_followed},
                                      {"by_standby", d.by_standby},
                                      {"uncommitted_ms_count", d.uncommitted_ms_count},
                                      {"uncommitted_ms_sum", ms(d.uncommitted_ms_sum)},
                                      {"uncommitted_ms_max", ms(d.uncommitted_ms_max)}};
  out.insert(d.by_level.begin(), d.by_level.end());
  return out;
}

namespace detail {

// The two ways Kafka at the 2026-08-20 pin answers a READ_COMMITTED query from staged data, each
// proven from what the trace records of the answering replica and the run: the witness held for
// the answer over its replica's staged fold (it is the dirty read), and either the replica's store
// has no transactional form (no committed position recorded; transactional stores off, or the
// LRU supplier of a key-value topology, which Kafka never makes transactional), or it is
// transactional and the query is a KeyQuery the caching layer answers (pin delta 8).
ClassProof prove_read_committed_not_honoured(const JudgeContext& context,
                                             const sim::QueryRecord& record,
                                             const sim::PartitionOutcome& outcome,
                                             ViolationClass& proven_class) {
  proven_class = ViolationClass::kFailure;
  const sim::RunTrace& trace = context.trace();
  if (!at_least(trace.kafka_pin, KafkaPin::k2026_08_20) ||
      effective_level(context, record.request) != IsolationLevel::READ_COMMITTED) {
    return {false, "not a READ_COMMITTED answer at the 2026-08-20 pin"};
  }
  const WitnessResult w = witness_verdict(context, record, outcome);
  if (w.verdict != Witness::kHolds || w.replica == nullptr) {
    return {false, "the answer is not its replica's changelog fold"};
  }
  const sim::ReplicaSnapshot& replica = *w.replica;
  if (reads_committed(context, record.request, replica)) {
    return {false, fmt::format("{}'s store read its committed state (a transactional store, not "
                               "a cached KeyQuery): the dirty read is not Kafka's",
                               replica.instance)};
  }
  const TopologyConfig& topology = trace.topology;
  if (!replica.committed_position) {
    const bool lru = topology.supplier == KeyValueSupplier::kLruMap && !topology.windowed() &&
                     !topology.session() && !topology.versioned();
    if (trace.transactional_state_stores && !lru) {
      return {false, fmt::format("{}'s store recorded no committed position although "
                                 "enable.transactional.statestores is on and it has a "
                                 "transactional form",
                                 replica.instance)};
    }
    proven_class = ViolationClass::kReadCommittedStoreNotTransactional;
    return {true, fmt::format("record #{} is {}'s staged fold, and its store has no transaction "
                              "buffer ({})",
                              record.id, replica.instance,
                              lru ? "an LRU store" : "enable.transactional.statestores off")};
  }
  proven_class = ViolationClass::kCachedKeyQueryIgnoresIsolation;
  return {true, fmt::format("record #{} is a {} the caching layer of {}'s transactional store "
                            "answered from its staged fold and cache",
                            record.id, to_string(record.request.kind), replica.instance)};
}

}  // namespace detail

}  // namespace iq::properties
