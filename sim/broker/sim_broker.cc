#include "broker/sim_broker.h"

#include <algorithm>
#include <set>

#include "base/assert.h"
#include "base/probe.h"

namespace iq::sim {

namespace {

// Bytes an entry takes in a segment: a v2 batch header (61 bytes) and a record's own overhead,
// plus key, value and headers. Only segment.bytes and the cleaner's ratio read it.
int64_t entry_size_bytes(const ConsumerRecord& r) {
  int64_t size = 70;
  if (r.key) size += static_cast<int64_t>(r.key->view().size());
  if (r.value) size += static_cast<int64_t>(r.value->view().size());
  for (const Header& h : r.headers) {
    size += static_cast<int64_t>(h.key.size() + h.value.view().size());
  }
  return size;
}

bool valid_topic_config(const TopicConfig& c) {
  return c.segment_bytes >= 1 && c.segment_ms >= 1 && c.delete_retention_ms >= 0 &&
         c.min_cleanable_dirty_ratio.den > 0 &&
         c.min_cleanable_dirty_ratio.num <= c.min_cleanable_dirty_ratio.den;
}

}  // namespace

SimBroker::SimBroker(SimBrokerConfig config)
    : config_(config), coordinator_(config.coordinator), txn_(config.transactions, *this) {
  IQ_ASSERT(config_.max_total_records > 0, "{}", config_.max_total_records);
  IQ_ASSERT(config_.max_partitions_per_topic > 0, "{}", config_.max_partitions_per_topic);
  IQ_ASSERT(config_.cleaner.backoff_ms > 0 && config_.cleaner.records_per_step_max > 0,
            "cleaner backoff {} records per step {}", config_.cleaner.backoff_ms,
            config_.cleaner.records_per_step_max);
}

Errors SimBroker::create_topic(const std::string& topic, int32_t partitions,
                               const TopicConfig& config) {
  IQ_ASSERT(!topic.empty(), "topic name is empty");
  if (partitions < 1 || partitions > config_.max_partitions_per_topic) {
    return Errors::INVALID_PARTITIONS;
  }
  if (!valid_topic_config(config)) return Errors::INVALID_CONFIG;
  auto it = topics_.find(topic);
  if (it != topics_.end()) {
    const bool same = it->second.partitions.size() == static_cast<size_t>(partitions);
    return same ? Errors::NONE : Errors::TOPIC_ALREADY_EXISTS;
  }
  topics_.emplace(topic, Topic{config, std::vector<PartitionLog>(static_cast<size_t>(partitions))});
  return Errors::NONE;
}

std::optional<int32_t> SimBroker::partition_count(const std::string& topic) const {
  auto it = topics_.find(topic);
  if (it == topics_.end()) return std::nullopt;
  return static_cast<int32_t>(it->second.partitions.size());
}

std::optional<TopicConfig> SimBroker::topic_config(const std::string& topic) const {
  auto it = topics_.find(topic);
  if (it == topics_.end()) return std::nullopt;
  return it->second.config;
}

std::vector<std::string> SimBroker::topics() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : topics_) out.push_back(name);
  return out;
}

base::Expected<int64_t, Errors> SimBroker::produce(const TopicPartition& tp,
                                                   std::optional<Bytes> key,
                                                   std::optional<Bytes> value, int64_t timestamp,
                                                   Headers headers, int64_t now_ms) {
  IQ_ASSERT(now_ms >= now_ms_, "time ran backwards: produce at {} after {}", now_ms, now_ms_);
  now_ms_ = now_ms;
  Topic* topic = find_topic(tp.first);
  PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  if (timestamp < kNoTimestamp) return base::unexpected(Errors::INVALID_TIMESTAMP);
  LogEntry entry;
  entry.record.timestamp = timestamp == kNoTimestamp ? now_ms : timestamp;
  entry.record.key = std::move(key);
  entry.record.value = std::move(value);
  entry.record.headers = std::move(headers);
  entry.append_ms = now_ms;
  auto offset = append(tp, *log, topic->config, std::move(entry));
  if (offset && log_append_observer_) log_append_observer_(tp);
  return offset;
}

base::Expected<int64_t, Errors> SimBroker::produce_transactional(
    const std::string& transactional_id, ProducerIdAndEpoch producer, const TopicPartition& tp,
    std::optional<Bytes> key, std::optional<Bytes> value, int64_t timestamp, Headers headers,
    int64_t now_ms) {
  IQ_ASSERT(now_ms >= now_ms_, "time ran backwards: produce at {} after {}", now_ms, now_ms_);
  now_ms_ = now_ms;
  tick(now_ms);
  Topic* topic = find_topic(tp.first);
  PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  if (timestamp < kNoTimestamp) return base::unexpected(Errors::INVALID_TIMESTAMP);
  if (Errors e = txn_.verify_partition(transactional_id, producer, tp); e != Errors::NONE) {
    if (e == Errors::INVALID_PRODUCER_EPOCH) {
      IQ_PROBE("txn.fenced_produce",
               "a fenced producer's late write was refused (not in the default campaign: a "
               "producer must write after the coordinator timed out its transaction while its "
               "member is still in the group; the default campaign's pauses and cuts under 15 s "
               "stay under its 30 s transaction timeout, and its long outages outlast the session "
               "timeout, so the member learns it was fenced before it writes; "
               "templates/exactly_once.toml reaches it)");
    }
    return base::unexpected(e);
  }
  // ProducerAppendInfo.checkProducerEpoch: the log's own record of the producer's epoch.
  auto state = log->producers.find(producer.producer_id);
  if (state != log->producers.end() && producer.epoch < state->second.epoch) {
    return base::unexpected(Errors::INVALID_PRODUCER_EPOCH);
  }
  LogEntry entry;
  entry.record.timestamp = timestamp == kNoTimestamp ? now_ms : timestamp;
  entry.record.key = std::move(key);
  entry.record.value = std::move(value);
  entry.record.headers = std::move(headers);
  entry.append_ms = now_ms;
  entry.producer_id = producer.producer_id;
  entry.producer_epoch = producer.epoch;
  entry.transactional = true;
  auto offset = append(tp, *log, topic->config, std::move(entry));
  if (!offset) return offset;
  ProducerStateEntry& p = log->producers[producer.producer_id];
  p.epoch = producer.epoch;
  if (!p.current_txn_first_offset) {
    // The producer's transaction begins here on this partition: the LSO cannot pass it.
    p.current_txn_first_offset = *offset;
    log->ongoing_txns.emplace(*offset, producer.producer_id);
  }
  if (log_append_observer_) log_append_observer_(tp);
  return offset;
}

// Appends one entry at the log end offset. Records without a key cannot go to a compacted topic.
base::Expected<int64_t, Errors> SimBroker::append(const TopicPartition& tp, PartitionLog& log,
                                                  const TopicConfig& config, LogEntry entry) {
  if (config.cleanup_policy == CleanupPolicy::kCompact && !entry.control && !entry.record.key) {
    return base::unexpected(Errors::INVALID_RECORD);
  }
  // The bound is a scenario knob (broker_records_max), not an invariant: the record is still
  // written, bound_reached() says so, and the event loop's stop check ends the run after this
  // event with a verdict naming the knob.
  if (total_records_ >= config_.max_total_records) bound_reached_ = true;
  entry.record.topic = tp.first;
  entry.record.partition = tp.second;
  entry.record.offset = log.log_end_offset;
  entry.size_bytes = entry_size_bytes(entry.record);
  IQ_ASSERT(log.entries.empty() || log.entries.back().record.offset < entry.record.offset,
            "{}-{}: offset {} after {}", tp.first, tp.second, entry.record.offset,
            log.entries.back().record.offset);
  roll_if_needed(log, config, entry.size_bytes, entry.append_ms);
  log.segments.back().size_bytes += entry.size_bytes;
  log.entries.push_back(std::move(entry));
  log.log_end_offset++;
  total_records_++;
  return log.entries.back().record.offset;
}

// LogSegment.shouldRoll: a full segment (size + the new entry above segment.bytes) or one older
// than segment.ms (counted from its first entry's append time) rolls to a new active segment.
void SimBroker::roll_if_needed(PartitionLog& log, const TopicConfig& config, int64_t size_bytes,
                               int64_t now_ms) {
  if (!log.segments.empty()) {
    const Segment& active = log.segments.back();
    const bool full = active.size_bytes > config.segment_bytes - size_bytes;
    const bool old = now_ms - active.first_append_ms > config.segment_ms;
    if (active.size_bytes == 0 || (!full && !old)) return;
  }
  log.segments.push_back(Segment{log.log_end_offset, now_ms, 0});
}

// The offsets of `producer_id`'s data records in its open transaction on `log` (observers only):
// from the transaction's first offset to the log end, bounded by the log's entries.
std::vector<int64_t> SimBroker::txn_data_offsets(const PartitionLog& log, int64_t producer_id) {
  std::vector<int64_t> out;
  auto p = log.producers.find(producer_id);
  if (p == log.producers.end() || !p->second.current_txn_first_offset) return out;
  const int64_t first = *p->second.current_txn_first_offset;
  IQ_ASSERT(first >= log.last_stable_offset(), "open transaction at {} below the LSO {}", first,
            log.last_stable_offset());
  for (auto it = log.lower_bound(first); it != log.entries.end(); ++it) {
    if (it->producer_id == producer_id && it->transactional && !it->control) {
      out.push_back(it->record.offset);
    }
  }
  IQ_ASSERT(!out.empty() && out.front() == first, "transaction of producer {} from {} holds {}",
            producer_id, first, out.size());
  return out;
}

void SimBroker::write_txn_markers(const TxnMarkers& markers, int64_t now_ms) {
  for (const TopicPartition& tp : markers.partitions) {
    Topic* topic = find_topic(tp.first);
    PartitionLog* log = find(tp);
    IQ_ASSERT(log != nullptr, "marker for unknown {}-{}", tp.first, tp.second);
    LogEntry entry;
    entry.record.timestamp = now_ms;
    entry.append_ms = now_ms;
    entry.producer_id = markers.producer_id;
    entry.producer_epoch = markers.producer_epoch;
    entry.transactional = true;
    entry.control = markers.result;
    std::vector<int64_t> data_offsets;
    if (txn_marker_observer_) data_offsets = txn_data_offsets(*log, markers.producer_id);
    auto offset = append(tp, *log, topic->config, std::move(entry));
    IQ_ASSERT(offset.has_value(), "marker append to {}-{}", tp.first, tp.second);
    if (txn_marker_observer_) {
      txn_marker_observer_(tp, markers.result, *offset, data_offsets, now_ms);
    }
    // ProducerStateManager: the marker completes the producer's transaction on this partition
    // and carries its (possibly bumped) epoch.
    ProducerStateEntry& p = log->producers[markers.producer_id];
    p.epoch = std::max(p.epoch, markers.producer_epoch);
    if (p.current_txn_first_offset) {
      const int64_t first = *p.current_txn_first_offset;
      p.current_txn_first_offset.reset();
      log->ongoing_txns.erase(first);
      if (markers.result == ControlRecordType::ABORT) {
        log->aborted.push_back({markers.producer_id, first, *offset, log->last_stable_offset()});
      }
    }
    if (log_append_observer_) log_append_observer_(tp);
  }
  for (const std::string& group : markers.groups) {
    coordinator_.complete_txn_offsets(group, markers.producer_id,
                                      markers.result == ControlRecordType::COMMIT);
  }
}

// Offsets rise by one from entry to entry except where the cleaner removed some, so the entry at
// index offset - first is usually the one, and most fetches ask for the log's end: both are
// answered in O(1) before the binary search (every fetch asks; a search over a deque's blocks was
// 2 % of sim_bench, docs/performance.md).
std::deque<SimBroker::LogEntry>::const_iterator SimBroker::PartitionLog::lower_bound(
    int64_t offset) const {
  if (entries.empty() || offset <= entries.front().record.offset) return entries.begin();
  if (offset > entries.back().record.offset) return entries.end();  // a fetch at the log's end
  const auto guess = static_cast<size_t>(offset - entries.front().record.offset);
  if (guess < entries.size() && entries[guess].record.offset == offset) {
    return entries.begin() + static_cast<std::ptrdiff_t>(guess);
  }
  return std::lower_bound(entries.begin(), entries.end(), offset,
                          [](const LogEntry& e, int64_t o) { return e.record.offset < o; });
}

base::Expected<FetchData, Errors> SimBroker::fetch(const TopicPartition& tp, int64_t from_offset,
                                                   int32_t max_records,
                                                   IsolationLevel isolation_level) const {
  IQ_ASSERT(max_records > 0, "fetch of {} records", max_records);
  const PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  if (from_offset < log->log_start_offset || from_offset > log->log_end_offset) {
    return base::unexpected(Errors::OFFSET_OUT_OF_RANGE);
  }
  const bool committed = isolation_level == IsolationLevel::READ_COMMITTED;
  FetchData out;
  out.high_watermark = log->log_end_offset;
  out.last_stable_offset = log->last_stable_offset();
  out.log_start_offset = log->log_start_offset;
  const int64_t upper = committed ? out.last_stable_offset : out.high_watermark;
  out.next_fetch_offset = from_offset;
  // The aborted transactions that overlap the fetched range, per producer (collectAbortedTxns).
  std::map<int64_t, std::vector<const AbortedTxn*>> aborted;
  if (committed) {
    for (const AbortedTxn& a : log->aborted) {
      if (a.last_offset >= from_offset && a.first_offset < upper) {
        aborted[a.producer_id].push_back(&a);
      }
    }
  }
  int32_t examined = 0;
  if (from_offset < upper) {
    out.records.reserve(static_cast<size_t>(std::min<int64_t>(max_records, upper - from_offset)));
  }
  for (auto it = log->lower_bound(from_offset);
       it != log->entries.end() && it->record.offset < upper && examined < max_records; ++it) {
    ++examined;
    out.next_fetch_offset = it->record.offset + 1;
    if (it->control) continue;  // consumers never hand out markers
    if (committed && it->transactional) {
      auto a = aborted.find(it->producer_id);
      const int64_t o = it->record.offset;
      if (a != aborted.end() &&
          std::any_of(a->second.begin(), a->second.end(), [o](const AbortedTxn* t) {
            return t->first_offset <= o && o <= t->last_offset;
          })) {
        IQ_PROBE("fetch.read_committed_skips_aborted", "read_committed dropped an aborted record");
        continue;
      }
    }
    out.records.push_back(it->record);
  }
  // Every entry below `upper` was examined: the next fetch starts at `upper` (past any gap).
  if (examined < max_records && from_offset < upper) out.next_fetch_offset = upper;
  IQ_ASSERT(out.records.empty() || out.records.front().offset >= from_offset,
            "{}-{}: read {} for {}", tp.first, tp.second, out.records.front().offset, from_offset);
  return out;
}

bool SimBroker::fetch_ready(const TopicPartition& tp, int64_t from_offset,
                            IsolationLevel isolation_level) const {
  const PartitionLog* log = find(tp);
  if (log == nullptr) return true;
  if (from_offset < log->log_start_offset || from_offset > log->log_end_offset) return true;
  const int64_t upper = isolation_level == IsolationLevel::READ_COMMITTED
                            ? log->last_stable_offset()
                            : log->log_end_offset;
  return from_offset < upper;
}

base::Expected<std::vector<ConsumerRecord>, Errors> SimBroker::fetch(const TopicPartition& tp,
                                                                     int64_t from_offset,
                                                                     int32_t max_records) const {
  auto data = fetch(tp, from_offset, max_records, IsolationLevel::READ_UNCOMMITTED);
  if (!data) return base::unexpected(data.error());
  return std::move(data->records);
}

base::Expected<int64_t, Errors> SimBroker::end_offset(const TopicPartition& tp) const {
  const PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  return log->log_end_offset;
}

base::Expected<int64_t, Errors> SimBroker::end_offset(const TopicPartition& tp,
                                                      IsolationLevel isolation_level) const {
  if (isolation_level == IsolationLevel::READ_COMMITTED) return last_stable_offset(tp);
  return end_offset(tp);
}

base::Expected<int64_t, Errors> SimBroker::last_stable_offset(const TopicPartition& tp) const {
  const PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  return log->last_stable_offset();
}

base::Expected<int64_t, Errors> SimBroker::beginning_offset(const TopicPartition& tp) const {
  const PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  return log->log_start_offset;
}

base::Expected<int64_t, Errors> SimBroker::append_time_ms(const TopicPartition& tp,
                                                          int64_t offset) const {
  const PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  if (offset < log->log_start_offset || offset >= log->log_end_offset) {
    return base::unexpected(Errors::OFFSET_OUT_OF_RANGE);
  }
  auto it = log->lower_bound(offset);
  // The last entry is never cleaned away (it is in the active segment), so one is found.
  IQ_ASSERT(it != log->entries.end(), "{}-{}: no entry at or after {}", tp.first, tp.second,
            offset);
  return it->append_ms;
}

base::Expected<int64_t, Errors> SimBroker::delete_records(const TopicPartition& tp,
                                                          int64_t before_offset) {
  PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  if (before_offset < 0 || before_offset > log->log_end_offset) {
    return base::unexpected(Errors::OFFSET_OUT_OF_RANGE);
  }
  if (before_offset <= log->log_start_offset) return log->log_start_offset;
  while (!log->entries.empty() && log->entries.front().record.offset < before_offset) {
    log->entries.pop_front();
    total_records_--;
  }
  log->log_start_offset = before_offset;
  // Segments wholly below the new start go; the aborted index forgets what lies below it.
  while (log->segments.size() > 1 && log->segments[1].base_offset <= before_offset) {
    log->segments.erase(log->segments.begin());
  }
  std::erase_if(log->aborted, [&](const AbortedTxn& a) { return a.last_offset < before_offset; });
  IQ_ASSERT(log->entries.empty() || log->entries.front().record.offset >= log->log_start_offset,
            "{}-{}: first record {} but log start {}", tp.first, tp.second,
            log->entries.front().record.offset, log->log_start_offset);
  return log->log_start_offset;
}

std::vector<AbortedTxn> SimBroker::aborted_transactions(const TopicPartition& tp) const {
  const PartitionLog* log = find(tp);
  return log == nullptr ? std::vector<AbortedTxn>{} : log->aborted;
}

int64_t SimBroker::retained_entries(const TopicPartition& tp) const {
  const PartitionLog* log = find(tp);
  return log == nullptr ? 0 : static_cast<int64_t>(log->entries.size());
}

std::vector<int64_t> SimBroker::segment_base_offsets(const TopicPartition& tp) const {
  std::vector<int64_t> out;
  if (const PartitionLog* log = find(tp)) {
    for (const Segment& s : log->segments) out.push_back(s.base_offset);
  }
  return out;
}

Errors SimBroker::commit_offsets(const std::string& group_id, int32_t generation_id,
                                 const std::string& member_id, const OffsetCommitMap& offsets,
                                 int64_t now_ms) {
  for (const auto& [tp, om] : offsets) {
    if (find(tp) == nullptr) return Errors::UNKNOWN_TOPIC_OR_PARTITION;
  }
  return coordinator_.commit_offsets(group_id, generation_id, member_id, offsets, now_ms);
}

std::optional<OffsetAndMetadata> SimBroker::committed(const std::string& group_id,
                                                      const TopicPartition& tp) const {
  return coordinator_.committed(group_id, tp);
}

// ---- transactions -------------------------------------------------------------------------------

base::Expected<ProducerIdAndEpoch, Errors> SimBroker::init_producer_id(
    const std::string& transactional_id, int32_t transaction_timeout_ms, int64_t now_ms) {
  return txn_.init_producer_id(transactional_id, transaction_timeout_ms, now_ms);
}

Errors SimBroker::add_partitions_to_txn(const std::string& transactional_id,
                                        ProducerIdAndEpoch producer,
                                        const std::vector<TopicPartition>& partitions,
                                        int64_t now_ms) {
  for (const auto& tp : partitions) {
    if (find(tp) == nullptr) return Errors::UNKNOWN_TOPIC_OR_PARTITION;
  }
  return txn_.add_partitions_to_txn(transactional_id, producer, partitions, now_ms);
}

Errors SimBroker::add_offsets_to_txn(const std::string& transactional_id,
                                     ProducerIdAndEpoch producer, const std::string& group_id,
                                     int64_t now_ms) {
  return txn_.add_offsets_to_txn(transactional_id, producer, group_id, now_ms);
}

Errors SimBroker::txn_offset_commit(const std::string& transactional_id,
                                    ProducerIdAndEpoch producer, const std::string& group_id,
                                    int32_t generation_id, const std::string& member_id,
                                    const OffsetCommitMap& offsets, int64_t now_ms) {
  tick(now_ms);
  for (const auto& [tp, om] : offsets) {
    if (find(tp) == nullptr) return Errors::UNKNOWN_TOPIC_OR_PARTITION;
  }
  auto txn = txn_.describe(transactional_id);
  if (!txn || txn->producer_id != producer.producer_id) return Errors::INVALID_PRODUCER_ID_MAPPING;
  if (txn->producer_epoch != producer.epoch) return Errors::PRODUCER_FENCED;
  if (txn->state != TransactionState::Ongoing || !txn->groups.contains(group_id)) {
    return Errors::INVALID_TXN_STATE;
  }
  const Errors e = coordinator_.txn_commit_offsets(group_id, producer.producer_id, generation_id,
                                                   member_id, offsets, now_ms);
  if (e == Errors::ILLEGAL_GENERATION || e == Errors::UNKNOWN_MEMBER_ID) {
    IQ_PROBE("txn.zombie_offsets_fenced", "a TxnOffsetCommit from a stale member was refused");
  }
  return e;
}

Errors SimBroker::end_txn(const std::string& transactional_id, ProducerIdAndEpoch producer,
                          ControlRecordType result, int64_t now_ms) {
  return txn_.end_txn(transactional_id, producer, result, now_ms);
}

std::vector<TxnEvent> SimBroker::tick(int64_t now_ms) {
  return txn_.tick(now_ms);
}

// ---- the log cleaner ----------------------------------------------------------------------------

namespace {

// The byte sizes LogToClean compares: the clean part, the cleanable part, and where cleaning must
// stop (the base of the segment holding min(LSO, active segment base)).
struct Cleanable {
  int64_t first_dirty_offset = 0;
  int64_t first_uncleanable_offset = 0;
  int64_t clean_bytes = 0;
  int64_t cleanable_bytes = 0;
};

}  // namespace

std::optional<CleanerStats> SimBroker::clean_step(int64_t now_ms) {
  if (!config_.cleaner.enable) return std::nullopt;
  struct Candidate {
    TopicPartition tp;
    PartitionLog* log;
    const TopicConfig* config;
    Cleanable c;
  };
  std::optional<Candidate> filthiest;
  for (auto& [name, topic] : topics_) {
    if (topic.config.cleanup_policy != CleanupPolicy::kCompact) continue;
    for (size_t p = 0; p < topic.partitions.size(); ++p) {
      PartitionLog& log = topic.partitions[p];
      if (log.segments.empty()) continue;
      Cleanable c;
      c.first_dirty_offset = log.first_dirty_offset;
      if (c.first_dirty_offset < log.log_start_offset ||
          c.first_dirty_offset > log.log_end_offset) {
        c.first_dirty_offset = log.log_start_offset;
      }
      const int64_t uncleanable =
          std::max(c.first_dirty_offset,
                   std::min(log.last_stable_offset(), log.segments.back().base_offset));
      c.first_uncleanable_offset = log.segments.back().base_offset;
      for (size_t i = 0; i + 1 < log.segments.size(); ++i) {
        if (log.segments[i + 1].base_offset > uncleanable) {
          c.first_uncleanable_offset = log.segments[i].base_offset;
          break;
        }
      }
      const int64_t from = std::min(c.first_dirty_offset, c.first_uncleanable_offset);
      for (size_t i = 0; i < log.segments.size(); ++i) {
        const int64_t base = log.segments[i].base_offset;
        const int64_t next =
            i + 1 < log.segments.size() ? log.segments[i + 1].base_offset : log.log_end_offset;
        if (base < c.first_dirty_offset) c.clean_bytes += log.segments[i].size_bytes;
        if (base < c.first_uncleanable_offset && next > from) {
          c.cleanable_bytes += log.segments[i].size_bytes;
        }
      }
      const int64_t total = c.clean_bytes + c.cleanable_bytes;
      if (total == 0 || c.cleanable_bytes == 0) continue;
      // cleanable / total > min.cleanable.dirty.ratio, in integers.
      const base::Ratio& min = topic.config.min_cleanable_dirty_ratio;
      const auto ld = [](auto v) { return static_cast<long double>(v); };
      if (ld(c.cleanable_bytes) * ld(min.den) <= ld(total) * ld(min.num)) continue;
      const long double ratio = ld(c.cleanable_bytes) / ld(total);
      if (filthiest) {
        const long double best = ld(filthiest->c.cleanable_bytes) /
                                 ld(filthiest->c.clean_bytes + filthiest->c.cleanable_bytes);
        if (ratio <= best) continue;  // ties: the first in (topic, partition) order
      }
      filthiest = Candidate{{name, static_cast<int32_t>(p)}, &log, &topic.config, c};
    }
  }
  if (!filthiest) return std::nullopt;
  CleanerStats stats;
  stats.tp = filthiest->tp;
  stats.first_dirty_offset = filthiest->c.first_dirty_offset;
  filthiest->log->first_dirty_offset = filthiest->c.first_dirty_offset;
  clean(*filthiest->log, *filthiest->config, filthiest->c.first_uncleanable_offset, now_ms, stats);
  IQ_PROBE("log_cleaner.cleaned", "the log cleaner compacted a partition");
  return stats;
}

// Cleaner.doClean for one partition: an offset map of the dirty part (latest offset per key, the
// aborted records left out), then one pass over every entry below its end that keeps:
// - a data record that is the latest for its key, or past the map; a tombstone only until its
//   delete horizon (set on the first pass that kept it: now + delete.retention.ms);
// - no aborted record;
// - a marker while records of its transaction remain below it; an emptied transaction's marker
//   until its own delete horizon, as CleanedTransactionMetadata decides.
void SimBroker::clean(PartitionLog& log, const TopicConfig& config, int64_t upper, int64_t now_ms,
                      CleanerStats& stats) {
  // Aborted ranges per producer, to leave aborted records out of the map.
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> aborted_ranges;
  for (const AbortedTxn& a : log.aborted) {
    aborted_ranges[a.producer_id].emplace_back(a.first_offset, a.last_offset);
  }
  auto is_aborted = [&](const LogEntry& e) {
    if (!e.transactional || e.control) return false;
    auto it = aborted_ranges.find(e.producer_id);
    if (it == aborted_ranges.end()) return false;
    const int64_t o = e.record.offset;
    return std::any_of(it->second.begin(), it->second.end(),
                       [o](const auto& r) { return r.first <= o && o <= r.second; });
  };
  std::map<std::string, int64_t> offset_map;  // key bytes -> latest offset
  int64_t end = upper;
  for (auto it = log.lower_bound(stats.first_dirty_offset);
       it != log.entries.end() && it->record.offset < upper; ++it) {
    if (stats.records_read >= config_.cleaner.records_per_step_max) {
      end = it->record.offset;  // the rest of the dirty part waits for the next step
      IQ_PROBE("log_cleaner.step_bound", "a cleaner step stopped at its work bound");
      break;
    }
    ++stats.records_read;
    if (it->control || is_aborted(*it) || !it->record.key) continue;
    offset_map.insert_or_assign(std::string(it->record.key->view()), it->record.offset);
  }
  stats.end_offset = end;
  if (end <= stats.first_dirty_offset) return;

  // CleanedTransactionMetadata over [log start, end).
  std::vector<AbortedTxn> index = log.aborted;  // in marker order; sort by first offset
  std::stable_sort(index.begin(), index.end(), [](const AbortedTxn& a, const AbortedTxn& b) {
    return a.first_offset < b.first_offset;
  });
  size_t next_aborted = 0;
  struct OngoingAborted {
    AbortedTxn txn;
    bool observed = false;  // a record of it was read in this pass
  };
  std::map<int64_t, OngoingAborted> ongoing_aborted;
  std::set<int64_t> ongoing_committed;
  std::vector<AbortedTxn> kept_index;
  std::set<int64_t> consumed_markers;  // ABORT markers read in this pass
  auto consume_up_to = [&](int64_t offset) {
    while (next_aborted < index.size() && index[next_aborted].first_offset <= offset) {
      ongoing_aborted.try_emplace(index[next_aborted].producer_id,
                                  OngoingAborted{index[next_aborted], false});
      ++next_aborted;
    }
  };

  std::deque<LogEntry> kept;
  auto it = log.entries.begin();
  for (; it != log.entries.end() && it->record.offset < end; ++it) {
    LogEntry& e = *it;
    consume_up_to(e.record.offset);
    bool retain = true;
    if (e.control) {
      bool discardable = true;
      if (*e.control == ControlRecordType::ABORT) {
        auto a = ongoing_aborted.find(e.producer_id);
        if (a != ongoing_aborted.end()) {
          if (a->second.observed) {
            discardable = false;
            kept_index.push_back(a->second.txn);
          }
          consumed_markers.insert(a->second.txn.last_offset);
          ongoing_aborted.erase(a);
        }
      } else {
        discardable = ongoing_committed.erase(e.producer_id) == 0;
      }
      if (discardable) {
        if (e.delete_horizon_ms && *e.delete_horizon_ms <= now_ms) {
          retain = false;
        } else if (!e.delete_horizon_ms) {
          e.delete_horizon_ms = now_ms + config.delete_retention_ms;
        }
      }
    } else if (e.transactional && ongoing_aborted.contains(e.producer_id)) {
      ongoing_aborted.at(e.producer_id).observed = true;
      retain = false;  // an aborted record
    } else {
      if (e.transactional) ongoing_committed.insert(e.producer_id);
      if (e.record.key) {
        auto found = offset_map.find(std::string(e.record.key->view()));
        const bool latest = found == offset_map.end() || e.record.offset >= found->second;
        const bool keep_value =
            e.record.value.has_value() || !e.delete_horizon_ms || now_ms < *e.delete_horizon_ms;
        retain = latest && keep_value;
        if (retain && !e.record.value && !e.delete_horizon_ms) {
          e.delete_horizon_ms = now_ms + config.delete_retention_ms;
        }
      } else {
        retain = false;  // Kafka counts it invalid and drops it
      }
    }
    if (retain) {
      kept.push_back(std::move(e));
    } else {
      if (removed_record_observer_ && !e.control) {
        removed_record_observer_(stats.tp, e.record, e.append_ms, now_ms);
      }
      ++stats.records_removed;
    }
  }
  for (; it != log.entries.end(); ++it) kept.push_back(std::move(*it));
  log.entries = std::move(kept);
  total_records_ -= stats.records_removed;
  // The index keeps what the pass did not decide (markers at or past `end`) and what it kept.
  std::vector<AbortedTxn> new_index;
  for (const AbortedTxn& a : log.aborted) {
    const bool decided = consumed_markers.contains(a.last_offset);
    const bool kept_here = std::find(kept_index.begin(), kept_index.end(), a) != kept_index.end();
    if (!decided || kept_here) new_index.push_back(a);
  }
  log.aborted = std::move(new_index);
  log.first_dirty_offset = end;

  // Segment sizes again, and cleaned segments grouped up to segment.bytes (groupSegmentsBySize).
  std::vector<Segment> segments;
  auto e = log.entries.begin();
  for (size_t i = 0; i < log.segments.size(); ++i) {
    Segment s = log.segments[i];
    const int64_t next =
        i + 1 < log.segments.size() ? log.segments[i + 1].base_offset : log.log_end_offset;
    s.size_bytes = 0;
    for (; e != log.entries.end() && e->record.offset < next; ++e) s.size_bytes += e->size_bytes;
    const bool active = i + 1 == log.segments.size();
    if (!segments.empty() && !active && s.base_offset < end &&
        segments.back().size_bytes + s.size_bytes <= config.segment_bytes) {
      segments.back().size_bytes += s.size_bytes;  // merged into the group before it
    } else {
      segments.push_back(s);
    }
  }
  log.segments = std::move(segments);
}

// ---- lookups ------------------------------------------------------------------------------------

SimBroker::Topic* SimBroker::find_topic(const std::string& topic) {
  auto it = topics_.find(topic);
  return it == topics_.end() ? nullptr : &it->second;
}

SimBroker::PartitionLog* SimBroker::find(const TopicPartition& tp) {
  Topic* topic = find_topic(tp.first);
  if (topic == nullptr || tp.second < 0) return nullptr;
  if (static_cast<size_t>(tp.second) >= topic->partitions.size()) return nullptr;
  return &topic->partitions[static_cast<size_t>(tp.second)];
}

const SimBroker::PartitionLog* SimBroker::find(const TopicPartition& tp) const {
  return const_cast<SimBroker*>(this)->find(tp);
}

}  // namespace iq::sim
