#pragma once
#include <string>

namespace iq {

// org.apache.kafka.streams.query.ResultOrder. Every built-in key-value store executes ANY as
// ascending; the versioned store executes it as descending.
enum class ResultOrder { ANY, ASCENDING, DESCENDING };

inline const char* to_string(ResultOrder o) {
  switch (o) {
    case ResultOrder::ANY:
      return "ANY";
    case ResultOrder::ASCENDING:
      return "ASCENDING";
    case ResultOrder::DESCENDING:
      return "DESCENDING";
  }
  return "?";
}

}  // namespace iq
