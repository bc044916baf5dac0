#include "state/offset_checkpoint.h"

#include <charconv>
#include <sstream>
#include <vector>

#include "base/assert.h"

namespace iq {
namespace {

StreamsError corrupt(const std::string& path, const std::string& why) {
  return {StreamsError::Kind::ProcessorState,
          "Error reading checkpoint file " + path + ": " + why};
}

bool parse_int64(std::string_view s, int64_t& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

std::vector<std::string_view> split_spaces(std::string_view line) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    if (j > i) parts.push_back(line.substr(i, j - i));
    i = j;
  }
  return parts;
}

}  // namespace

std::string OffsetCheckpoint::format(const TopicPartitionOffsets& offsets) {
  std::string out = "0\n" + std::to_string(offsets.size()) + "\n";
  for (const auto& [tp, offset] : offsets) {
    out += tp.first + " " + std::to_string(tp.second) + " " + std::to_string(offset) + "\n";
  }
  return out;
}

Status OffsetCheckpoint::write(const TopicPartitionOffsets& offsets) {
  if (offsets.empty()) return fs_.delete_file(path_);
  for (const auto& [tp, offset] : offsets) {
    if (offset < 0 && offset != kOffsetUnknown) {
      return base::unexpected(StreamsError{
          StreamsError::Kind::IllegalState,
          "Attempted to write a negative offset " + std::to_string(offset) + " for " + tp.first +
              "-" + std::to_string(tp.second) + " to the checkpoint file " + path_});
    }
  }
  return fs_.write_file_atomically(path_, format(offsets));
}

base::Expected<TopicPartitionOffsets, StreamsError> OffsetCheckpoint::read() {
  auto content = fs_.read_file(path_);
  if (!content) return base::unexpected(content.error());
  TopicPartitionOffsets offsets;
  if (!content->has_value()) return offsets;
  std::istringstream in(**content);
  std::string line;
  int64_t version = -1;
  if (!std::getline(in, line) || !parse_int64(line, version)) return base::unexpected(corrupt(path_, "no version line"));
  if (version != 0) {
    return base::unexpected(corrupt(path_, "Unknown offset checkpoint version: " + std::to_string(version)));
  }
  int64_t expected = -1;
  if (!std::getline(in, line) || !parse_int64(line, expected) || expected < 0) {
    return base::unexpected(corrupt(path_, "no entry count"));
  }
  int64_t seen = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto parts = split_spaces(line);
    int64_t partition = 0;
    int64_t offset = 0;
    if (parts.size() != 3 || !parse_int64(parts[1], partition) || !parse_int64(parts[2], offset)) {
      return base::unexpected(corrupt(path_, "Malformed line in offset checkpoint file: '" + line + "'."));
    }
    ++seen;
    // Kafka drops negative offsets other than the unknown sentinel with a warning.
    if (offset < 0 && offset != kOffsetUnknown) continue;
    offsets[{std::string(parts[0]), static_cast<int32_t>(partition)}] = offset;
  }
  if (seen != expected) {
    return base::unexpected(corrupt(path_, "Expected " + std::to_string(expected) +
                                               " entries but found only " + std::to_string(seen)));
  }
  return offsets;
}

Status checkpoint_position(OffsetCheckpoint& checkpoint, const Position& position) {
  TopicPartitionOffsets offsets;
  for (const auto& [topic, partitions] : position.map()) {
    for (const auto& [partition, offset] : partitions) offsets[{topic, partition}] = offset;
  }
  return checkpoint.write(offsets);
}

base::Expected<Position, StreamsError> read_position_from_checkpoint(OffsetCheckpoint& checkpoint) {
  auto offsets = checkpoint.read();
  if (!offsets) return base::unexpected(offsets.error());
  Position position = Position::empty_position();
  for (const auto& [tp, offset] : *offsets) position.with_component(tp.first, tp.second, offset);
  // Both sides of the boundary: what was written is what was read.
  IQ_ASSERT(position.map().size() <= offsets->size());
  return position;
}

}  // namespace iq
