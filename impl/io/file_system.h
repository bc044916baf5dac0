#pragma once
// FileSystem: the seam through which impl/ touches files (.checkpoint, .position, state
// directories). PosixFileSystem is the real one; sim/ supplies one whose unsynced writes a crash
// loses. RocksDB reaches files through its own rocksdb::Env, which sim/ wraps the same way.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"
#include "iq/status.h"
#include "iq/streams_error.h"

namespace iq {

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // The whole file, or nullopt when it does not exist.
  virtual base::Expected<std::optional<std::string>, StreamsError> read_file(
      const std::string& path) = 0;
  // Writes `path.tmp`, fsyncs it, renames it over `path` and fsyncs the directory: either the old
  // or the new content survives a crash, never a torn one (Kafka's OffsetCheckpoint.write).
  virtual Status write_file_atomically(const std::string& path, const std::string& content) = 0;
  // Deleting a missing file is not an error (Files.deleteIfExists).
  virtual Status delete_file(const std::string& path) = 0;
  virtual Status create_directories(const std::string& path) = 0;
  virtual Status delete_recursively(const std::string& path) = 0;
  virtual bool exists(const std::string& path) = 0;
  virtual std::vector<std::string> list_directory(const std::string& path) = 0;
  // File.lastModified of a directory, in ms on the file system's clock (the wall clock for
  // PosixFileSystem, virtual time for sim/'s disk). POSIX moves it when an entry directly in the
  // directory is created, renamed or removed, not when a file's bytes change. nullopt when it
  // cannot be read (Kafka's lastModified answers 0 then).
  virtual std::optional<int64_t> last_modified_ms(const std::string& path) = 0;
  // File.setLastModified: sets that time (an error for a missing path).
  virtual Status set_last_modified_ms(const std::string& path, int64_t mtime_ms) = 0;
};

// The real file system (POSIX calls, fsync on every atomic write).
class PosixFileSystem final : public FileSystem {
 public:
  base::Expected<std::optional<std::string>, StreamsError> read_file(
      const std::string& path) override;
  Status write_file_atomically(const std::string& path, const std::string& content) override;
  Status delete_file(const std::string& path) override;
  Status create_directories(const std::string& path) override;
  Status delete_recursively(const std::string& path) override;
  bool exists(const std::string& path) override;
  std::vector<std::string> list_directory(const std::string& path) override;
  std::optional<int64_t> last_modified_ms(const std::string& path) override;
  Status set_last_modified_ms(const std::string& path, int64_t mtime_ms) override;
};

}  // namespace iq
