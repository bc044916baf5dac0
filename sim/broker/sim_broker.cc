#include "broker/sim_broker.h"

#include <algorithm>

#include "base/assert.h"

namespace iq::sim {

SimBroker::SimBroker(SimBrokerConfig config) : config_(config), coordinator_(config.coordinator) {
  IQ_ASSERT(config_.max_total_records > 0, "{}", config_.max_total_records);
  IQ_ASSERT(config_.max_partitions_per_topic > 0, "{}", config_.max_partitions_per_topic);
}

Errors SimBroker::create_topic(const std::string& topic, int32_t partitions) {
  IQ_ASSERT(!topic.empty(), "topic name is empty");
  if (partitions < 1 || partitions > config_.max_partitions_per_topic) {
    return Errors::INVALID_PARTITIONS;
  }
  auto it = topics_.find(topic);
  if (it != topics_.end()) {
    const bool same = it->second.size() == static_cast<size_t>(partitions);
    return same ? Errors::NONE : Errors::TOPIC_ALREADY_EXISTS;
  }
  topics_.emplace(topic, std::vector<PartitionLog>(static_cast<size_t>(partitions)));
  return Errors::NONE;
}

std::optional<int32_t> SimBroker::partition_count(const std::string& topic) const {
  auto it = topics_.find(topic);
  if (it == topics_.end()) return std::nullopt;
  return static_cast<int32_t>(it->second.size());
}

std::vector<std::string> SimBroker::topics() const {
  std::vector<std::string> out;
  for (const auto& [name, partitions] : topics_) out.push_back(name);
  return out;
}

base::Expected<int64_t, Errors> SimBroker::produce(const TopicPartition& tp,
                                                   std::optional<Bytes> key,
                                                   std::optional<Bytes> value, int64_t timestamp,
                                                   Headers headers, int64_t now_ms) {
  IQ_ASSERT(now_ms >= now_ms_, "time ran backwards: produce at {} after {}", now_ms, now_ms_);
  now_ms_ = now_ms;
  PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  if (timestamp < kNoTimestamp) return base::unexpected(Errors::INVALID_TIMESTAMP);
  // The bound is a scenario knob (broker_records_max), not an invariant: the record is still
  // written, bound_reached() says so, and the event loop's stop check ends the run after this
  // event with a verdict naming the knob.
  if (total_records_ >= config_.max_total_records) bound_reached_ = true;
  ConsumerRecord record;
  record.topic = tp.first;
  record.partition = tp.second;
  record.offset = log->end_offset();
  record.timestamp = timestamp == kNoTimestamp ? now_ms : timestamp;
  record.key = std::move(key);
  record.value = std::move(value);
  record.headers = std::move(headers);
  IQ_ASSERT(log->records.empty() || log->records.back().offset + 1 == record.offset,
            "{}-{}: offset {} after {}", tp.first, tp.second, record.offset,
            log->records.back().offset);
  log->records.push_back(std::move(record));
  log->append_ms.push_back(now_ms);
  total_records_++;
  return log->records.back().offset;
}

base::Expected<std::vector<ConsumerRecord>, Errors> SimBroker::fetch(const TopicPartition& tp,
                                                                     int64_t from_offset,
                                                                     int32_t max_records) const {
  IQ_ASSERT(max_records > 0, "fetch of {} records", max_records);
  const PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  if (from_offset < log->log_start_offset || from_offset > log->end_offset()) {
    return base::unexpected(Errors::OFFSET_OUT_OF_RANGE);
  }
  const int64_t first = from_offset - log->log_start_offset;
  const int64_t available = static_cast<int64_t>(log->records.size()) - first;
  const int64_t n = std::min<int64_t>(available, max_records);
  std::vector<ConsumerRecord> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.push_back(log->records[static_cast<size_t>(first + i)]);
  IQ_ASSERT(out.empty() || out.front().offset == from_offset, "{}-{}: read {} for {}", tp.first,
            tp.second, out.front().offset, from_offset);
  return out;
}

base::Expected<int64_t, Errors> SimBroker::end_offset(const TopicPartition& tp) const {
  const PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  return log->end_offset();
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
  if (offset < log->log_start_offset || offset >= log->end_offset()) {
    return base::unexpected(Errors::OFFSET_OUT_OF_RANGE);
  }
  IQ_ASSERT(log->append_ms.size() == log->records.size(), "{}-{}: {} append times, {} records",
            tp.first, tp.second, log->append_ms.size(), log->records.size());
  return log->append_ms[static_cast<size_t>(offset - log->log_start_offset)];
}

base::Expected<int64_t, Errors> SimBroker::delete_records(const TopicPartition& tp,
                                                          int64_t before_offset) {
  PartitionLog* log = find(tp);
  if (log == nullptr) return base::unexpected(Errors::UNKNOWN_TOPIC_OR_PARTITION);
  if (before_offset < 0 || before_offset > log->end_offset()) {
    return base::unexpected(Errors::OFFSET_OUT_OF_RANGE);
  }
  while (log->log_start_offset < before_offset) {
    log->records.pop_front();
    log->append_ms.pop_front();
    log->log_start_offset++;
    total_records_--;
  }
  IQ_ASSERT(log->records.empty() || log->records.front().offset == log->log_start_offset,
            "{}-{}: first record {} but log start {}", tp.first, tp.second,
            log->records.front().offset, log->log_start_offset);
  return log->log_start_offset;
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

SimBroker::PartitionLog* SimBroker::find(const TopicPartition& tp) {
  auto it = topics_.find(tp.first);
  if (it == topics_.end() || tp.second < 0) return nullptr;
  if (static_cast<size_t>(tp.second) >= it->second.size()) return nullptr;
  return &it->second[static_cast<size_t>(tp.second)];
}

const SimBroker::PartitionLog* SimBroker::find(const TopicPartition& tp) const {
  return const_cast<SimBroker*>(this)->find(tp);
}

}  // namespace iq::sim
