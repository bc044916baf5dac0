#include "state/offset_checkpoint.h"

#include <charconv>
#include <sstream>
#include <vector>

#include "base/assert.h"

namespace iq {
namespace {

StreamsError corrupt(const std::string& path, const std::string& why) {
  return {StreamsError::Kind::ProcessorState, "Error reading checkpoint file " + path + ": " + why};
}

bool parse_int64(std::string_view s, int64_t& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// Java's line.split("\\s+"): a leading separator yields an empty first field, trailing empty
// fields are dropped, so "  t 0 5" has four fields and is malformed, as in Kafka.
std::vector<std::string_view> split_whitespace(std::string_view line) {
  auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
  };
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (true) {
    size_t j = i;
    while (j < line.size() && !is_space(line[j])) ++j;
    parts.push_back(line.substr(i, j - i));
    if (j == line.size()) break;
    while (j < line.size() && is_space(line[j])) ++j;
    i = j;
  }
  while (parts.size() > 1 && parts.back().empty()) parts.pop_back();
  return parts;
}

bool parse_int32(std::string_view s, int32_t& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
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
  if (!std::getline(in, line) || !parse_int64(line, version))
    return base::unexpected(corrupt(path_, "no version line"));
  if (version != 0) {
    return base::unexpected(
        StreamsError{StreamsError::Kind::IllegalArgument,
                     "Unknown offset checkpoint version: " + std::to_string(version)});
  }
  int64_t expected = -1;
  if (!std::getline(in, line) || !parse_int64(line, expected) || expected < 0) {
    return base::unexpected(corrupt(path_, "no entry count"));
  }
  while (std::getline(in, line)) {
    const auto parts = split_whitespace(line);
    int32_t partition = 0;
    int64_t offset = 0;
    if (parts.size() != 3 || !parse_int32(parts[1], partition) || !parse_int64(parts[2], offset)) {
      return base::unexpected(
          corrupt(path_, "Malformed line in offset checkpoint file: '" + line + "'."));
    }
    // Kafka drops negative offsets other than the unknown sentinel with a warning, and expects
    // one entry fewer.
    if (offset < 0 && offset != kOffsetUnknown) {
      --expected;
      continue;
    }
    offsets[{std::string(parts[0]), partition}] = offset;
  }
  // Counted as Kafka counts: distinct partitions, so a repeated line is a mismatch.
  if (static_cast<int64_t>(offsets.size()) != expected) {
    return base::unexpected(corrupt(path_, "Expected " + std::to_string(expected) +
                                               " entries but found only " +
                                               std::to_string(offsets.size())));
  }
  return offsets;
}

Status OffsetCheckpoint::write_changelog_offsets(const ChangelogOffsets& offsets) {
  TopicPartitionOffsets raw;
  for (const auto& [tp, offset] : offsets) raw[tp] = offset.value();
  return write(raw);
}

base::Expected<ChangelogOffsets, StreamsError> OffsetCheckpoint::read_changelog_offsets() {
  auto raw = read();
  if (!raw) return base::unexpected(raw.error());
  ChangelogOffsets offsets;
  for (const auto& [tp, offset] : *raw) offsets.emplace(tp, ChangelogOffset(offset));
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
