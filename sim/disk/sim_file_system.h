#pragma once
// SimFileSystem: the iq::FileSystem seam on a SimDisk, so that the .checkpoint and .position files
// and the state directories of a simulated instance live on its simulated disk and a crash treats
// them as the kernel would. It does what PosixFileSystem does, call for call: the same fsyncs,
// the same missing-file rules, sorted listings.

#include <optional>
#include <string>
#include <vector>

#include "disk/sim_disk.h"
#include "io/file_system.h"

namespace iq::sim {

class SimFileSystem final : public FileSystem {
 public:
  // `disk` must outlive this object.
  explicit SimFileSystem(SimDisk& disk) : disk_(disk) {}

  base::Expected<std::optional<std::string>, StreamsError> read_file(
      const std::string& path) override;
  // Writes `path.tmp`, syncs it, renames it over `path` and syncs the directory: once this
  // returns, a crash leaves the new content; before, the old one; never a mix.
  Status write_file_atomically(const std::string& path, const std::string& content) override;
  // A missing file is fine. The removal is not synced (Files.deleteIfExists does not fsync the
  // directory either), so a crash before the directory's next sync brings the file back.
  Status delete_file(const std::string& path) override;
  Status create_directories(const std::string& path) override;
  Status delete_recursively(const std::string& path) override;
  bool exists(const std::string& path) override;
  std::vector<std::string> list_directory(const std::string& path) override;
  // A directory's modification time on the disk's clock (SimDisk::set_clock); nullopt for a
  // missing path. Files have no time in ms here: asking for one is a caller's bug.
  std::optional<int64_t> last_modified_ms(const std::string& path) override;
  Status set_last_modified_ms(const std::string& path, int64_t mtime_ms) override;

  SimDisk& disk() { return disk_; }

 private:
  Status remove_tree(const std::string& path, size_t depth);

  SimDisk& disk_;
};

}  // namespace iq::sim
