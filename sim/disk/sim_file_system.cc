#include "disk/sim_file_system.h"

#include <utility>

#include "base/assert.h"

namespace iq::sim {
namespace {

// Disk errors become what PosixFileSystem reports: a ProcessorStateException naming the file.
StreamsError io_error(const DiskError& error) {
  return {StreamsError::Kind::ProcessorState, error.message};
}

// A path has fewer components than characters; the bound turns a cycle into a clear failure.
constexpr size_t kTreeDepthMax = 4096;

}  // namespace

base::Expected<std::optional<std::string>, StreamsError> SimFileSystem::read_file(
    const std::string& path) {
  auto content = disk_.read_file(path);
  if (content) return std::optional<std::string>(std::move(*content));
  if (content.error().code == DiskErrc::NotFound) return std::optional<std::string>{};
  return base::unexpected(io_error(content.error()));
}

Status SimFileSystem::write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    auto file = disk_.open(tmp, SimDisk::OpenMode::Truncate);
    if (!file) return base::unexpected(io_error(file.error()));
    // The disk's fault policy (SimDisk::set_io_fault) may fail the write with EIO, as it fails
    // RocksDB's appends: the temporary file stays (empty), `path` keeps its old content.
    if (file->io_fails(IoKind::kWrite)) {
      return base::unexpected(StreamsError{StreamsError::Kind::ProcessorState,
                                           "write " + tmp + ": Input/output error"});
    }
    file->append(content);
    file->sync();
    IQ_ASSERT(file->size() == content.size());
  }  // closed here, as PosixFileSystem closes before the rename
  if (auto renamed = disk_.rename_file(tmp, path); !renamed) {
    return base::unexpected(io_error(renamed.error()));
  }
  const std::string normalized = SimDisk::normalize(path);
  const std::string dir = normalized.substr(0, normalized.rfind('/'));
  if (auto synced = disk_.sync_directory(dir.empty() ? "/" : dir); !synced) {
    return base::unexpected(io_error(synced.error()));
  }
  return ok_status();
}

Status SimFileSystem::delete_file(const std::string& path) {
  if (disk_.is_directory(path)) {
    // std::filesystem::remove removes an empty directory and refuses a full one.
    auto removed = disk_.remove_directory(path);
    if (!removed) return base::unexpected(io_error(removed.error()));
    return ok_status();
  }
  auto removed = disk_.unlink(path);
  if (!removed && removed.error().code != DiskErrc::NotFound) {
    return base::unexpected(io_error(removed.error()));
  }
  return ok_status();
}

Status SimFileSystem::create_directories(const std::string& path) {
  auto made = disk_.create_directories(path);
  if (!made) return base::unexpected(io_error(made.error()));
  return ok_status();
}

Status SimFileSystem::delete_recursively(const std::string& path) {
  if (!disk_.exists(path)) return ok_status();
  return remove_tree(SimDisk::normalize(path), 0);
}

bool SimFileSystem::exists(const std::string& path) {
  return disk_.exists(path);
}

std::vector<std::string> SimFileSystem::list_directory(const std::string& path) {
  // PosixFileSystem lists a missing directory as empty; so does this.
  auto names = disk_.children(path);
  if (!names) return {};
  return std::move(*names);  // sorted by the disk
}

std::optional<int64_t> SimFileSystem::last_modified_ms(const std::string& path) {
  IQ_ASSERT(!disk_.is_file(path), "{}: only directories keep a modification time in ms", path);
  auto mtime = disk_.directory_mtime_ms(path);
  if (!mtime) return std::nullopt;
  return *mtime;
}

Status SimFileSystem::set_last_modified_ms(const std::string& path, int64_t mtime_ms) {
  IQ_ASSERT(!disk_.is_file(path), "{}: only directories keep a modification time in ms", path);
  auto set = disk_.set_directory_mtime_ms(path, mtime_ms);
  if (!set) return base::unexpected(io_error(set.error()));
  return ok_status();
}

// Depth first: files and subdirectories, then the directory itself (never the root).
Status SimFileSystem::remove_tree(const std::string& path, size_t depth) {
  IQ_ASSERT(depth < kTreeDepthMax, "directory tree under {} deeper than {}", path, kTreeDepthMax);
  if (disk_.is_file(path)) {
    auto removed = disk_.unlink(path);
    if (!removed) return base::unexpected(io_error(removed.error()));
    return ok_status();
  }
  auto names = disk_.children(path);
  if (!names) return base::unexpected(io_error(names.error()));
  for (const std::string& name : *names) {
    const std::string child = path == "/" ? "/" + name : path + "/" + name;
    if (auto removed = remove_tree(child, depth + 1); !removed) return removed;
  }
  if (path == "/") return ok_status();
  auto removed = disk_.remove_directory(path);
  if (!removed) return base::unexpected(io_error(removed.error()));
  IQ_ASSERT(!disk_.exists(path));
  return ok_status();
}

}  // namespace iq::sim
