#pragma once
// RecordCollector: the seam through which a task sends records (changelog writes) to the broker.
// sim/ supplies the simulated producer; tests collect into a vector.

#include "io/record.h"
#include "iq/status.h"

namespace iq {

class RecordCollector {
 public:
  virtual ~RecordCollector() = default;
  // Returns the offset the record was appended at.
  [[nodiscard]] virtual base::Expected<int64_t, StreamsError> send(
      const std::string& topic, int32_t partition, const Bytes& key,
      const std::optional<Bytes>& value, int64_t timestamp, const Headers& headers) = 0;
};

}  // namespace iq
