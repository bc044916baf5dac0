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
    // A topic name with a separator in it would not read back as one field (Kafka's topic names
    // are [a-zA-Z0-9._-]+); a negative partition is nobody's.
    IQ_ASSERT(!tp.first.empty() && tp.first.find_first_of(" \t\r\n\f\v") == std::string::npos,
              "checkpoint topic '{}'", tp.first);
    IQ_ASSERT(tp.second >= 0, "checkpoint partition {}-{}", tp.first, tp.second);
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
  const std::string text = format(offsets);
  // Paired with read(): what is written reads back as exactly the map given.
  const auto read_back = parse(path_, text);
  IQ_ASSERT(read_back.has_value() && *read_back == offsets,
            "{} does not read back as written ({} entries)", path_, offsets.size());
  return fs_.write_file_atomically(path_, text);
}

base::Expected<TopicPartitionOffsets, StreamsError> OffsetCheckpoint::read() {
  auto content = fs_.read_file(path_);
  if (!content) return base::unexpected(content.error());
  if (!content->has_value()) return TopicPartitionOffsets{};
  auto offsets = parse(path_, **content);
  if (offsets) {
    // Paired with write(): only non-negative offsets and the unknown sentinel come back.
    for (const auto& [tp, offset] : *offsets) {
      IQ_ASSERT(offset >= 0 || offset == kOffsetUnknown, "{}: {}-{} at {}", path_, tp.first,
                tp.second, offset);
    }
  }
  return offsets;
}

base::Expected<TopicPartitionOffsets, StreamsError> OffsetCheckpoint::parse(
    const std::string& path, const std::string& text) {
  TopicPartitionOffsets offsets;
  std::istringstream in(text);
  std::string line;
  int64_t version = -1;
  if (!std::getline(in, line) || !parse_int64(line, version))
    return base::unexpected(corrupt(path, "no version line"));
  if (version != 0) {
    return base::unexpected(
        StreamsError{StreamsError::Kind::IllegalArgument,
                     "Unknown offset checkpoint version: " + std::to_string(version)});
  }
  int64_t expected = -1;
  if (!std::getline(in, line) || !parse_int64(line, expected) || expected < 0) {
    return base::unexpected(corrupt(path, "no entry count"));
  }
  while (std::getline(in, line)) {
    const auto parts = split_whitespace(line);
    int32_t partition = 0;
    int64_t offset = 0;
    if (parts.size() != 3 || !parse_int32(parts[1], partition) || !parse_int64(parts[2], offset)) {
      return base::unexpected(
          corrupt(path, "Malformed line in offset checkpoint file: '" + line + "'."));
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
    return base::unexpected(corrupt(path, "Expected " + std::to_string(expected) +
                                              " entries but found only " +
                                              std::to_string(offsets.size())));
  }
  return offsets;
}

Status OffsetCheckpoint::write_changelog_offsets(const ChangelogOffsets& offsets) {
  TopicPartitionOffsets raw;
  for (const auto& [tp, offset] : offsets) raw[tp] = offset.value();
  IQ_ASSERT(raw.size() == offsets.size());
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
    for (const auto& [partition, offset] : partitions) {
      // A position holds offsets of applied source records: never negative, so never the
      // checkpoint's unknown sentinel either.
      IQ_ASSERT(offset >= 0, "{}: position {}-{} at {}", checkpoint.path(), topic, partition,
                offset);
      offsets[{topic, partition}] = offset;
    }
  }
  return checkpoint.write(offsets);
}

base::Expected<Position, StreamsError> read_position_from_checkpoint(OffsetCheckpoint& checkpoint) {
  auto offsets = checkpoint.read();
  if (!offsets) return base::unexpected(offsets.error());
  Position position = Position::empty_position();
  for (const auto& [tp, offset] : *offsets) position.with_component(tp.first, tp.second, offset);
  // Both sides of the boundary: every entry of the file is in the position, with its offset (a
  // file's entries are distinct partitions, so with_component's max never drops one).
  size_t entries = 0;
  for (const auto& [topic, partitions] : position.map()) entries += partitions.size();
  IQ_ASSERT(entries == offsets->size(), "{}: {} entries, position has {}", checkpoint.path(),
            offsets->size(), entries);
  for (const auto& [tp, offset] : *offsets) {
    const int64_t* in_position = position.offset(tp.first, tp.second);
    IQ_ASSERT(in_position != nullptr && *in_position == offset, "{}: {}-{} at {}",
              checkpoint.path(), tp.first, tp.second, offset);
  }
  return position;
}

}  // namespace iq
