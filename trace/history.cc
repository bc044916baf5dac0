#include "trace/history.h"

#include "base/assert.h"

namespace iq::sim {

void History::append(QueryRecord record) {
  // The bound is a scenario knob: past it records are dropped and full() says so, and the driver
  // ends the run with a verdict naming the knob.
  if (records_.size() >= records_max_) {
    full_ = true;
    return;
  }
  IQ_ASSERT(record.id >= 1 && record.id < next_id_, "record id {} was not handed out (next {})",
            record.id, next_id_);
  IQ_ASSERT(record.complete_ms >= record.invoke_ms, "record {} completes at {} before {}",
            record.id, record.complete_ms, record.invoke_ms);
  if (!records_.empty()) {
    IQ_ASSERT(record.complete_ms >= records_.back().complete_ms,
              "record {} completes at {}, before the previous one at {}", record.id,
              record.complete_ms, records_.back().complete_ms);
  }
  records_.push_back(std::move(record));
}

std::string History::to_string() const {
  std::string out;
  for (const auto& r : records_) {
    out += r.to_string();
    out += '\n';
  }
  return out;
}

base::Digest History::digest() const {
  base::Digest d;
  d.add(to_string());
  return d;
}

}  // namespace iq::sim
