#include "trace/reprocessed_range.h"

namespace iq::sim {

std::string ReprocessedRange::to_string() const {
  std::string offsets = first_offset == last_offset
                            ? "offset " + first_offset.to_string()
                            : "offsets " + first_offset.to_string() + "-" + last_offset.to_string();
  const std::string start = std::to_string(start_ms.ms_since_epoch());
  std::string at =
      start_ms == end_ms ? start : start + "-" + std::to_string(end_ms.ms_since_epoch());
  return offsets + " of partition " + std::to_string(partition) + " again on " + instance + " at " +
         at + " ms";
}

}  // namespace iq::sim
