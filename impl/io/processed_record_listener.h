#pragma once
// ProcessedRecordListener: told of every input record an active task has processed, after its
// topology ran without error. An observation seam for the simulator, not a Kafka API: Kafka's
// nearest hook, a ConsumerInterceptor, sees records delivered, which is not the same (a task can
// lose delivered records it never processed). sim/ uses it to know, as an omniscient observer,
// which records at-least-once processing handled more than once. Nothing in impl/ reads it back.

#include <cstdint>
#include <string>

namespace iq {

class ProcessedRecordListener {
 public:
  virtual ~ProcessedRecordListener() = default;
  virtual void on_processed(const std::string& topic, int32_t partition, int64_t offset) = 0;
};

}  // namespace iq
