#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/file_system.h"

namespace iq {
namespace {

StreamsError io_error(const std::string& what, const std::string& path) {
  return {StreamsError::Kind::ProcessorState, what + " " + path + ": " + std::strerror(errno)};
}

// fsync a file or directory by path.
bool fsync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

base::Expected<std::optional<std::string>, StreamsError> PosixFileSystem::read_file(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path)) return std::optional<std::string>{};
    return base::unexpected(io_error("cannot open", path));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::optional<std::string>(ss.str());
}

Status PosixFileSystem::write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return base::unexpected(io_error("cannot create", tmp));
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      ::close(fd);
      return base::unexpected(io_error("cannot write", tmp));
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return base::unexpected(io_error("cannot fsync", tmp));
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return base::unexpected(io_error("cannot rename", tmp));
  const std::string dir = std::filesystem::path(path).parent_path().string();
  if (!fsync_path(dir.empty() ? "." : dir, O_RDONLY | O_DIRECTORY)) {
    return base::unexpected(io_error("cannot fsync directory of", path));
  }
  return ok_status();
}

Status PosixFileSystem::delete_file(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (ec)
    return base::unexpected(StreamsError{StreamsError::Kind::ProcessorState,
                                         "cannot delete " + path + ": " + ec.message()});
  return ok_status();
}

Status PosixFileSystem::create_directories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec)
    return base::unexpected(StreamsError{StreamsError::Kind::ProcessorState,
                                         "cannot create " + path + ": " + ec.message()});
  return ok_status();
}

Status PosixFileSystem::delete_recursively(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec)
    return base::unexpected(StreamsError{StreamsError::Kind::ProcessorState,
                                         "cannot delete " + path + ": " + ec.message()});
  return ok_status();
}

bool PosixFileSystem::exists(const std::string& path) {
  return std::filesystem::exists(path);
}

std::vector<std::string> PosixFileSystem::list_directory(const std::string& path) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    out.push_back(entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());  // deterministic order for traces
  return out;
}

std::optional<int64_t> PosixFileSystem::last_modified_ms(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return int64_t{st.st_mtim.tv_sec} * 1000 + st.st_mtim.tv_nsec / 1'000'000;
}

Status PosixFileSystem::set_last_modified_ms(const std::string& path, int64_t mtime_ms) {
  // The access time stays (UTIME_OMIT), as File.setLastModified leaves it.
  struct timespec times[2] = {{0, UTIME_OMIT},
                              {mtime_ms / 1000, static_cast<long>(mtime_ms % 1000) * 1'000'000}};
  if (::utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) {
    return base::unexpected(io_error("cannot set the modification time of", path));
  }
  return ok_status();
}

}  // namespace iq
