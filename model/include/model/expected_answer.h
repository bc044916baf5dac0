#pragma once
// The right answer to a key-value query at a position, in the shape each store kind gives it:
// values, order, timestamps and the position the store reports.

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/key_bytes.h"
#include "model/reference_store.h"

namespace iq::model {

enum class TimestampMode {
  kReal,      // a timestamped store: ValueAndTimestamp with the record's timestamp
  kMinusOne,  // Kafka's adapter over a plain RocksDB store synthesizes timestamp -1
  kNone,      // a plain store: a value without a timestamp
};

struct ExpectedValue {
  int64_t value;
  std::optional<int64_t> timestamp_ms;  // absent for TimestampMode::kNone
  bool operator==(const ExpectedValue&) const = default;
};

// A Position as the model sees it: topic -> partition -> offset. Its own type rather than impl's
// Position, so that the model cannot inherit impl's mistakes; std::map keeps printing and
// comparison deterministic.
struct ModelPosition {
  std::map<std::string, std::map<int32_t, int64_t>> offsets;
  bool operator==(const ModelPosition&) const = default;
  // Kafka's Position.toString form: Position{position={input-topic={0=5}}}.
  std::string to_string() const;
};

std::ostream& operator<<(std::ostream& out, const ExpectedValue& value);
std::ostream& operator<<(std::ostream& out, const ModelPosition& position);

ExpectedValue expected_value(const ValueAndTimestamp& vt, TimestampMode mode);

// The position a store reports after applying exactly the records up to offset_inclusive of one
// partition: {topic: {partition: last write offset}}, or empty if no record wrote it.
// deletes_advance is false for an in-memory store, whose delete() leaves its position alone.
ModelPosition expected_position(const ReferenceStore& store, const std::string& topic,
                                int32_t partition, int64_t offset_inclusive, bool deletes_advance);

// The offset the model reads out of a reported position: position[topic][partition], or -1.
int64_t offset_at(const ModelPosition& position, const std::string& topic, int32_t partition);

std::optional<ExpectedValue> expected_key_query(const ReferenceStore& store, int32_t partition,
                                                const KeyBytes& key, int64_t offset_inclusive,
                                                TimestampMode mode);

std::vector<std::pair<KeyBytes, ExpectedValue>> expected_range_query(
    const ReferenceStore& store, int32_t partition, const std::optional<KeyBytes>& lower,
    const std::optional<KeyBytes>& upper, Order order, int64_t offset_inclusive,
    TimestampMode mode);

}  // namespace iq::model
