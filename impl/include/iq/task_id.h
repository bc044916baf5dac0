#pragma once
#include <compare>
#include <cstdint>
#include <string>

namespace iq {

// TaskId (org.apache.kafka.streams.processor.TaskId): subtopology and partition. Its string form
// names the task directory: "<subtopology>_<partition>".
struct TaskId {
  int32_t subtopology = 0;
  int32_t partition = 0;
  std::string to_string() const {
    return std::to_string(subtopology) + "_" + std::to_string(partition);
  }
  friend auto operator<=>(const TaskId&, const TaskId&) = default;
};

}  // namespace iq
