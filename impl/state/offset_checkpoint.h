#pragma once
// OffsetCheckpoint (SI/OffsetCheckpoint.java): the text format of both the task's `.checkpoint`
// file (changelog offsets) and each persistent store's `<store>.position` file (source offsets):
//   0                      <- version
//   <n>                    <- entry count
//   <topic> <partition> <offset>   (n lines)
// Written atomically through the FileSystem seam. An empty map deletes the file. Negative offsets
// other than -4 (the "unknown" sentinel) are refused on write and dropped on read.

#include <map>
#include <string>
#include <utility>

#include "base/expected.h"
#include "io/file_system.h"
#include "iq/offsets.h"
#include "iq/position.h"
#include "iq/topic_partition.h"

namespace iq {

class OffsetCheckpoint {
 public:
  static constexpr int64_t kOffsetUnknown = -4;

  OffsetCheckpoint(FileSystem& fs, std::string path) : fs_(fs), path_(std::move(path)) {}

  [[nodiscard]] Status write(const TopicPartitionOffsets& offsets);
  // A missing file reads as empty. A malformed one is a ProcessorStateException naming the file.
  [[nodiscard]] base::Expected<TopicPartitionOffsets, StreamsError> read();
  [[nodiscard]] Status remove() { return fs_.delete_file(path_); }
  bool exists() const { return fs_.exists(path_); }
  const std::string& path() const { return path_; }

  // The task's `.checkpoint` file, typed: changelog offsets in, changelog offsets out, so a
  // source offset cannot be checkpointed as a changelog offset. The unknown sentinel stays a
  // ChangelogOffset(kOffsetUnknown), as in the file.
  [[nodiscard]] Status write_changelog_offsets(const ChangelogOffsets& offsets);
  [[nodiscard]] base::Expected<ChangelogOffsets, StreamsError> read_changelog_offsets();

  // The text for `offsets`, exposed for the round-trip properties.
  static std::string format(const TopicPartitionOffsets& offsets);
  // What read() makes of `text` (the content of the file at `path`, named in errors).
  static base::Expected<TopicPartitionOffsets, StreamsError> parse(const std::string& path,
                                                                   const std::string& text);

 private:
  FileSystem& fs_;
  std::string path_;
};

// StoreQueryUtils.checkpointPosition / readPositionFromCheckpoint: a Position flattened to
// (topic, partition) -> offset pairs, so a topic with no partitions disappears on write.
[[nodiscard]] Status checkpoint_position(OffsetCheckpoint& checkpoint, const Position& position);
[[nodiscard]] base::Expected<Position, StreamsError> read_position_from_checkpoint(
    OffsetCheckpoint& checkpoint);

}  // namespace iq
