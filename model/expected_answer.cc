#include "model/expected_answer.h"

#include <ostream>

#include <fmt/format.h>

#include "base/assert.h"

namespace iq::model {

ModelPosition expected_position(const ReferenceStore& store, const std::string& topic,
                                int32_t partition, int64_t offset_inclusive, bool deletes_advance) {
  const std::optional<int64_t> last =
      deletes_advance ? store.last_write_offset(partition, offset_inclusive)
                      : store.last_write_offset_excluding_deletes(partition, offset_inclusive);
  ModelPosition position;
  if (last) position.offsets[topic][partition] = *last;
  IQ_ASSERT(!last || *last <= offset_inclusive, "last={} offset_inclusive={}", *last,
            offset_inclusive);
  return position;
}

int64_t offset_at(const ModelPosition& position, const std::string& topic, int32_t partition) {
  const auto topic_it = position.offsets.find(topic);
  if (topic_it == position.offsets.end()) return -1;
  const auto partition_it = topic_it->second.find(partition);
  if (partition_it == topic_it->second.end()) return -1;
  IQ_ASSERT(partition_it->second >= 0, "{} holds a negative offset", position.to_string());
  return partition_it->second;
}

std::optional<ExpectedValue> expected_key_query(const ReferenceStore& store, int32_t partition,
                                                const KeyBytes& key, int64_t offset_inclusive,
                                                TimestampMode mode) {
  const std::optional<ValueAndTimestamp> vt = store.get(partition, key, offset_inclusive);
  if (!vt) return std::nullopt;
  return expected_value(*vt, mode);
}

std::vector<std::pair<KeyBytes, ExpectedValue>> expected_range_query(
    const ReferenceStore& store, int32_t partition, const std::optional<KeyBytes>& lower,
    const std::optional<KeyBytes>& upper, Order order, int64_t offset_inclusive,
    TimestampMode mode) {
  std::vector<std::pair<KeyBytes, ExpectedValue>> answer;
  for (Entry& entry : store.range(partition, lower, upper, order, offset_inclusive)) {
    answer.emplace_back(std::move(entry.key), expected_value(entry.vt, mode));
  }
  return answer;
}

ExpectedValue expected_value(const ValueAndTimestamp& vt, TimestampMode mode) {
  switch (mode) {
    case TimestampMode::kReal:
      return {vt.value, vt.timestamp_ms};
    case TimestampMode::kMinusOne:
      return {vt.value, -1};
    case TimestampMode::kNone:
      return {vt.value, std::nullopt};
  }
  IQ_ASSERT(false, "unknown timestamp mode {}", static_cast<int>(mode));
  return {vt.value, std::nullopt};
}

std::string ModelPosition::to_string() const {
  std::string text = "Position{position={";
  const char* topic_separator = "";
  for (const auto& [topic, partitions] : offsets) {
    text += fmt::format("{}{}={{", topic_separator, topic);
    const char* separator = "";
    for (const auto& [partition, offset] : partitions) {
      text += fmt::format("{}{}={}", separator, partition, offset);
      separator = ", ";
    }
    text += "}";
    topic_separator = ", ";
  }
  return text + "}}";
}

std::ostream& operator<<(std::ostream& out, const ExpectedValue& value) {
  if (!value.timestamp_ms) return out << fmt::format("{{value={}}}", value.value);
  return out << fmt::format("{{value={}, timestamp_ms={}}}", value.value, *value.timestamp_ms);
}

std::ostream& operator<<(std::ostream& out, const ModelPosition& position) {
  return out << position.to_string();
}

}  // namespace iq::model
