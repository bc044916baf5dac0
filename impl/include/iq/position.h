#pragma once
// Position: topic -> partition -> offset of the LAST APPLIED record (not the next to read).
// Mirrors org.apache.kafka.streams.query.Position. Kafka keeps concurrent hash maps; here the maps
// are ordered so that to_string(), serialization and every trace are deterministic. Kafka's
// equality rules are kept: {t:{}} is not empty and not equal to {}.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "iq/offsets.h"

namespace iq {

class Position {
 public:
  using PartitionOffsets = std::map<int32_t, int64_t>;
  using Map = std::map<std::string, PartitionOffsets>;

  static Position empty_position() { return Position(); }
  static Position from_map(const Map& map) { return Position(map); }

  // Monotone max: a lower or equal offset is ignored. Mutates and returns *this, as Kafka's does.
  // One search per map (every processed record comes through here): the topic found before
  // anything is allocated for it, the partition's slot reused rather than searched again.
  Position& with_component(const std::string& topic, int32_t partition, int64_t offset) {
    auto t = map_.find(topic);
    if (t == map_.end()) t = map_.emplace(topic, PartitionOffsets{}).first;
    const auto [it, inserted] = t->second.try_emplace(partition, offset);
    if (!inserted && offset > it->second) it->second = offset;
    return *this;
  }

  // The typed way in: a Position holds source-topic offsets only. A ChangelogOffset does not
  // convert to either overload, so passing one is a compile error (impl/iq/offsets_test.cc).
  Position& with_component(const std::string& topic, int32_t partition, SourceOffset offset) {
    return with_component(topic, partition, offset.value());
  }
  Position& with_component(const std::string& topic, int32_t partition,
                           ChangelogOffset offset) = delete;

  // Per-partition max. A topic present in `other` is created here even when its map is empty.
  Position& merge(const Position& other) {
    for (const auto& [topic, partitions] : other.map_) {
      auto& mine = map_[topic];
      for (const auto& [partition, offset] : partitions) {
        const auto [it, inserted] = mine.try_emplace(partition, offset);
        if (!inserted && offset > it->second) it->second = offset;
      }
    }
    return *this;
  }

  Position copy() const { return *this; }
  bool is_empty() const { return map_.empty(); }
  const Map& map() const { return map_; }

  std::vector<std::string> topics() const {
    std::vector<std::string> out;
    for (const auto& [topic, _] : map_) out.push_back(topic);
    return out;
  }
  PartitionOffsets partition_positions(const std::string& topic) const {
    auto it = map_.find(topic);
    return it == map_.end() ? PartitionOffsets{} : it->second;
  }
  // Offset for (topic, partition), or nullptr.
  const int64_t* offset(const std::string& topic, int32_t partition) const {
    auto t = map_.find(topic);
    if (t == map_.end()) return nullptr;
    auto p = t->second.find(partition);
    return p == t->second.end() ? nullptr : &p->second;
  }

  // The typed way out: the source offset at (topic, partition), if any.
  std::optional<SourceOffset> source_offset(const std::string& topic, int32_t partition) const {
    const int64_t* o = offset(topic, partition);
    return o == nullptr ? std::nullopt : std::optional<SourceOffset>(SourceOffset(*o));
  }

  // Kafka's toString: Position{position={topic={0=5, 1=3}}}
  std::string to_string() const {
    std::string out = "Position{position={";
    bool first_topic = true;
    for (const auto& [topic, partitions] : map_) {
      if (!first_topic) out += ", ";
      first_topic = false;
      out += topic + "={";
      bool first = true;
      for (const auto& [partition, offset] : partitions) {
        if (!first) out += ", ";
        first = false;
        out += std::to_string(partition) + "=" + std::to_string(offset);
      }
      out += "}";
    }
    return out + "}}";
  }

  friend bool operator==(const Position&, const Position&) = default;

 private:
  Position() = default;
  explicit Position(Map map) : map_(std::move(map)) {}
  Map map_;
};

}  // namespace iq
