#pragma once
// Position: topic -> partition -> offset of the LAST APPLIED record (not the next to read).
// Mirrors org.apache.kafka.streams.query.Position. Kafka keeps concurrent hash maps; here the maps
// are ordered so that to_string(), serialization and every trace are deterministic. Kafka's
// equality rules are kept: {t:{}} is not empty and not equal to {}.
//
// Copies share one map until either side changes (copy on write). Every query result carries a
// copy of its store's position (handleBasicQueries, the caching layer's merge), so a copy per
// layer per query was most of a KeyQuery's cost above the store; now a copy is a reference count,
// and the map is cloned only when a shared position is next advanced. Nothing observable changes:
// a copy still never sees a later change of the original, nor the original one of the copy.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iq/kafka_pin.h"
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
  // A shared map is cloned only when the offset really changes it.
  Position& with_component(const std::string& topic, int32_t partition, int64_t offset) {
    if (map_ != nullptr && map_.use_count() > 1) {
      const int64_t* current = this->offset(topic, partition);
      if (current != nullptr && offset <= *current) return *this;
    }
    Map& map = mutable_map();
    auto t = map.find(topic);
    if (t == map.end()) t = map.emplace(topic, PartitionOffsets{}).first;
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

  // Per-partition max. At the old pin a topic present in `other` is created here even when its
  // map is empty; pin delta 17 (67fa3656cc): the 2026-08-20 pin merges through withComponent, so
  // an empty topic of `other` is not created (entries only). A merge that would change nothing
  // (the caching layer's, on every KeyQuery, once its writes have been flushed below) leaves a
  // shared map shared. Stores never hold an empty topic (with_component always adds a
  // partition), so the two pins differ only on positions built from a map.
  Position& merge(const Position& other, KafkaPin pin = KafkaPin::k2024_10_25) {
    if (other.map_ == nullptr || other.map_ == map_ || covers(other, pin)) return *this;
    const bool empty_topics = !at_least(pin, KafkaPin::k2026_08_20);
    Map& map = mutable_map();
    for (const auto& [topic, partitions] : *other.map_) {
      if (partitions.empty() && !empty_topics) continue;
      auto& mine = map[topic];
      for (const auto& [partition, offset] : partitions) {
        const auto [it, inserted] = mine.try_emplace(partition, offset);
        if (!inserted && offset > it->second) it->second = offset;
      }
    }
    return *this;
  }

  Position copy() const { return *this; }
  bool is_empty() const { return map().empty(); }
  const Map& map() const { return map_ != nullptr ? *map_ : empty_map(); }

  std::vector<std::string> topics() const {
    std::vector<std::string> out;
    for (const auto& [topic, _] : map()) out.push_back(topic);
    return out;
  }
  PartitionOffsets partition_positions(const std::string& topic) const {
    auto it = map().find(topic);
    return it == map().end() ? PartitionOffsets{} : it->second;
  }
  // Offset for (topic, partition), or nullptr.
  const int64_t* offset(const std::string& topic, int32_t partition) const {
    if (map_ == nullptr) return nullptr;
    auto t = map_->find(topic);
    if (t == map_->end()) return nullptr;
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
    for (const auto& [topic, partitions] : map()) {
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

  friend bool operator==(const Position& a, const Position& b) {
    return a.map_ == b.map_ || a.map() == b.map();
  }

 private:
  Position() = default;
  explicit Position(Map map) : map_(std::make_shared<Map>(std::move(map))) {}

  static const Map& empty_map() {
    static const Map kEmpty;
    return kEmpty;
  }
  // The map to change: a fresh one, this position's own, or a private clone of a shared one.
  Map& mutable_map() {
    if (map_ == nullptr) {
      map_ = std::make_shared<Map>();
    } else if (map_.use_count() > 1) {
      map_ = std::make_shared<Map>(*map_);
    }
    return *map_;
  }
  // Whether merging `other` under `pin` would change nothing: every topic of it present here
  // (under the new pin only the non-empty ones), and every partition of it at an offset here at
  // least as high.
  bool covers(const Position& other, KafkaPin pin) const {
    for (const auto& [topic, partitions] : other.map()) {
      auto t = map().find(topic);
      if (t == map().end() && partitions.empty() && at_least(pin, KafkaPin::k2026_08_20)) continue;
      if (t == map().end()) return false;
      for (const auto& [partition, offset] : partitions) {
        auto p = t->second.find(partition);
        if (p == t->second.end() || p->second < offset) return false;
      }
    }
    return true;
  }

  // nullptr while empty and never changed. Shared between copies; never changed while shared.
  std::shared_ptr<Map> map_;
};

}  // namespace iq
