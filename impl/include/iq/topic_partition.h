#pragma once
// TopicPartition (org.apache.kafka.common.TopicPartition): a topic name and a partition number,
// ordered by topic then partition so that maps keyed by it iterate in a defined order. Consumers,
// the group protocol, checkpoint files and the simulated broker all speak it.

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "iq/offsets.h"

namespace iq {

using TopicPartition = std::pair<std::string, int32_t>;
// Offsets per partition, as consumers report end offsets, groups commit them and `.checkpoint`
// files store them.
using TopicPartitionOffsets = std::map<TopicPartition, int64_t>;
// Changelog offsets per changelog partition: a task's `.checkpoint`, its stores' restore progress.
using ChangelogOffsets = std::map<TopicPartition, ChangelogOffset>;

}  // namespace iq
