#include "disk/sim_rocksdb_env.h"

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/io_status.h>

#include <cstdarg>
#include <string>
#include <utility>
#include <vector>

#include "base/assert.h"
#include "disk/sim_disk.h"

namespace iq::sim {
namespace {

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

// A missing path is what RocksDB recognizes as IsPathNotFound (and IsNotFound for FileExists);
// everything else is an IOError carrying the disk's message.
IOStatus to_io_status(const DiskError& error) {
  if (error.code == DiskErrc::NotFound) return IOStatus::PathNotFound(error.message);
  if (error.code == DiskErrc::Busy)
    return IOStatus::IOError("lock hold by current process", error.message);
  return IOStatus::IOError(error.message);
}

// EIO from the disk's fault policy (SimDisk::set_io_fault), as PosixRandomAccessFile::Read and
// PosixWritableFile::Append report a failed pread or write: an IOError. RocksDB hands it back to
// the Get that read the block, or to the flush that wrote the table file (which then sets its
// background error: the database refuses writes until it is reopened).
IOStatus io_error(IoKind kind, const std::string& path) {
  return IOStatus::IOError(
      std::string("While ") + (kind == IoKind::kRead ? "pread " : "appending to ") + path,
      "Input/output error");
}

template <typename T>
IOStatus status_of(const DiskResult<T>& result) {
  return result ? IOStatus::OK() : to_io_status(result.error());
}

class SimWritableFile final : public rocksdb::FSWritableFile {
 public:
  explicit SimWritableFile(SimDisk::OpenFile file) : file_(std::move(file)) {}

  using rocksdb::FSWritableFile::Append;
  IOStatus Append(const Slice& data, const IOOptions& /*options*/,
                  IODebugContext* /*dbg*/) override {
    if (file_.io_fails(IoKind::kWrite)) return io_error(IoKind::kWrite, file_.path());
    file_.append({data.data(), data.size()});
    return IOStatus::OK();
  }
  IOStatus Truncate(uint64_t size, const IOOptions& /*options*/, IODebugContext* /*dbg*/) override {
    file_.truncate(size);
    return IOStatus::OK();
  }
  // Closing or flushing a file makes nothing durable, on Linux as here.
  IOStatus Close(const IOOptions& /*options*/, IODebugContext* /*dbg*/) override {
    file_.close();
    return IOStatus::OK();
  }
  IOStatus Flush(const IOOptions& /*options*/, IODebugContext* /*dbg*/) override {
    return IOStatus::OK();
  }
  IOStatus Sync(const IOOptions& /*options*/, IODebugContext* /*dbg*/) override {
    file_.sync();
    return IOStatus::OK();
  }
  IOStatus Fsync(const IOOptions& /*options*/, IODebugContext* /*dbg*/) override {
    file_.sync();
    return IOStatus::OK();
  }
  // sync_file_range starts write-back but promises nothing after a crash.
  IOStatus RangeSync(uint64_t /*offset*/, uint64_t /*nbytes*/, const IOOptions& /*options*/,
                     IODebugContext* /*dbg*/) override {
    return IOStatus::OK();
  }
  bool IsSyncThreadSafe() const override { return true; }  // the disk takes its mutex
  uint64_t GetFileSize(const IOOptions& /*options*/, IODebugContext* /*dbg*/) override {
    return file_.is_open() ? file_.size() : 0;
  }

 private:
  SimDisk::OpenFile file_;
};

class SimSequentialFile final : public rocksdb::FSSequentialFile {
 public:
  explicit SimSequentialFile(SimDisk::OpenFile file) : file_(std::move(file)) {}

  IOStatus Read(size_t n, const IOOptions& /*options*/, Slice* result, char* scratch,
                IODebugContext* /*dbg*/) override {
    if (file_.io_fails(IoKind::kRead)) return io_error(IoKind::kRead, file_.path());
    const size_t got = file_.read(position_, n, scratch);
    position_ += got;
    *result = Slice(scratch, got);
    return IOStatus::OK();
  }
  IOStatus Skip(uint64_t n) override {
    const uint64_t size = file_.size();
    position_ = position_ + n > size ? size : position_ + n;
    return IOStatus::OK();
  }

 private:
  SimDisk::OpenFile file_;
  uint64_t position_ = 0;
};

class SimRandomAccessFile final : public rocksdb::FSRandomAccessFile {
 public:
  explicit SimRandomAccessFile(SimDisk::OpenFile file) : file_(std::move(file)) {}

  IOStatus Read(uint64_t offset, size_t n, const IOOptions& /*options*/, Slice* result,
                char* scratch, IODebugContext* /*dbg*/) const override {
    if (file_.io_fails(IoKind::kRead)) return io_error(IoKind::kRead, file_.path());
    const size_t got = file_.read(offset, n, scratch);
    *result = Slice(scratch, got);
    return IOStatus::OK();
  }

 private:
  SimDisk::OpenFile file_;
};

class SimDirectory final : public rocksdb::FSDirectory {
 public:
  SimDirectory(SimDisk& disk, std::string path) : disk_(disk), path_(std::move(path)) {}

  IOStatus Fsync(const IOOptions& /*options*/, IODebugContext* /*dbg*/) override {
    return status_of(disk_.sync_directory(path_));
  }
  IOStatus Close(const IOOptions& /*options*/, IODebugContext* /*dbg*/) override {
    return IOStatus::OK();
  }

 private:
  SimDisk& disk_;
  std::string path_;
};

class SimFileLock final : public rocksdb::FileLock {
 public:
  explicit SimFileLock(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The info log goes nowhere (see the header for why).
class DiscardingLogger final : public rocksdb::Logger {
 public:
  DiscardingLogger() : rocksdb::Logger(rocksdb::InfoLogLevel::HEADER_LEVEL) {}
  using rocksdb::Logger::Logv;
  void Logv(const char* /*format*/, va_list /*ap*/) override {}
};

class SimRocksFileSystem final : public rocksdb::FileSystem {
 public:
  explicit SimRocksFileSystem(SimDisk& disk) : disk_(disk) {}

  const char* Name() const override { return "IqsimSimFileSystem"; }

  IOStatus NewSequentialFile(const std::string& fname, const FileOptions& /*options*/,
                             std::unique_ptr<rocksdb::FSSequentialFile>* result,
                             IODebugContext* /*dbg*/) override {
    auto file = disk_.open(fname, SimDisk::OpenMode::Read);
    if (!file) return to_io_status(file.error());
    *result = std::make_unique<SimSequentialFile>(std::move(*file));
    return IOStatus::OK();
  }
  IOStatus NewRandomAccessFile(const std::string& fname, const FileOptions& /*options*/,
                               std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                               IODebugContext* /*dbg*/) override {
    auto file = disk_.open(fname, SimDisk::OpenMode::Read);
    if (!file) return to_io_status(file.error());
    *result = std::make_unique<SimRandomAccessFile>(std::move(*file));
    return IOStatus::OK();
  }
  // "Deletes any existing file with the same name and creates a new file": O_TRUNC, as Posix.
  IOStatus NewWritableFile(const std::string& fname, const FileOptions& /*options*/,
                           std::unique_ptr<rocksdb::FSWritableFile>* result,
                           IODebugContext* /*dbg*/) override {
    return open_writable(fname, SimDisk::OpenMode::Truncate, result);
  }
  IOStatus ReopenWritableFile(const std::string& fname, const FileOptions& /*options*/,
                              std::unique_ptr<rocksdb::FSWritableFile>* result,
                              IODebugContext* /*dbg*/) override {
    return open_writable(fname, SimDisk::OpenMode::Append, result);
  }
  // Log recycling (off in the store's options): rename the old file, then write it afresh.
  IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                             const FileOptions& /*options*/,
                             std::unique_ptr<rocksdb::FSWritableFile>* result,
                             IODebugContext* /*dbg*/) override {
    if (auto renamed = disk_.rename_file(old_fname, fname); !renamed) {
      return to_io_status(renamed.error());
    }
    return open_writable(fname, SimDisk::OpenMode::Truncate, result);
  }
  IOStatus NewDirectory(const std::string& name, const IOOptions& /*options*/,
                        std::unique_ptr<rocksdb::FSDirectory>* result,
                        IODebugContext* /*dbg*/) override {
    if (!disk_.is_directory(name)) {
      return IOStatus::PathNotFound("open directory " + SimDisk::normalize(name),
                                    "No such directory");
    }
    *result = std::make_unique<SimDirectory>(disk_, SimDisk::normalize(name));
    return IOStatus::OK();
  }
  IOStatus FileExists(const std::string& fname, const IOOptions& /*options*/,
                      IODebugContext* /*dbg*/) override {
    return disk_.exists(fname) ? IOStatus::OK() : IOStatus::NotFound(SimDisk::normalize(fname));
  }
  IOStatus GetChildren(const std::string& dir, const IOOptions& /*options*/,
                       std::vector<std::string>* result, IODebugContext* /*dbg*/) override {
    auto names = disk_.children(dir);
    if (!names) return to_io_status(names.error());
    *result = std::move(*names);
    return IOStatus::OK();
  }
  IOStatus DeleteFile(const std::string& fname, const IOOptions& /*options*/,
                      IODebugContext* /*dbg*/) override {
    return status_of(disk_.unlink(fname));
  }
  IOStatus Truncate(const std::string& fname, size_t size, const IOOptions& /*options*/,
                    IODebugContext* /*dbg*/) override {
    return status_of(disk_.truncate(fname, size));
  }
  IOStatus CreateDir(const std::string& dirname, const IOOptions& /*options*/,
                     IODebugContext* /*dbg*/) override {
    return status_of(disk_.create_directory(dirname));
  }
  IOStatus CreateDirIfMissing(const std::string& dirname, const IOOptions& /*options*/,
                              IODebugContext* /*dbg*/) override {
    if (disk_.is_directory(dirname)) return IOStatus::OK();
    auto made = disk_.create_directory(dirname);
    if (!made && !disk_.is_directory(dirname)) return to_io_status(made.error());
    return IOStatus::OK();
  }
  IOStatus DeleteDir(const std::string& dirname, const IOOptions& /*options*/,
                     IODebugContext* /*dbg*/) override {
    return status_of(disk_.remove_directory(dirname));
  }
  IOStatus GetFileSize(const std::string& fname, const IOOptions& /*options*/, uint64_t* file_size,
                       IODebugContext* /*dbg*/) override {
    if (disk_.is_directory(fname)) {
      *file_size = 0;
      return IOStatus::OK();
    }
    auto size = disk_.file_size(fname);
    if (!size) return to_io_status(size.error());
    *file_size = *size;
    return IOStatus::OK();
  }
  IOStatus GetFileModificationTime(const std::string& fname, const IOOptions& /*options*/,
                                   uint64_t* file_mtime, IODebugContext* /*dbg*/) override {
    auto seq = disk_.modification_seq(fname);
    if (!seq) return to_io_status(seq.error());
    *file_mtime = *seq;
    return IOStatus::OK();
  }
  IOStatus RenameFile(const std::string& src, const std::string& target,
                      const IOOptions& /*options*/, IODebugContext* /*dbg*/) override {
    return status_of(disk_.rename_file(src, target));
  }
  IOStatus LinkFile(const std::string& src, const std::string& target, const IOOptions& /*options*/,
                    IODebugContext* /*dbg*/) override {
    return status_of(disk_.link_file(src, target));
  }
  IOStatus LockFile(const std::string& fname, const IOOptions& /*options*/,
                    rocksdb::FileLock** lock, IODebugContext* /*dbg*/) override {
    *lock = nullptr;
    if (auto locked = disk_.lock(fname); !locked) return to_io_status(locked.error());
    *lock = new SimFileLock(SimDisk::normalize(fname));
    return IOStatus::OK();
  }
  IOStatus UnlockFile(rocksdb::FileLock* lock, const IOOptions& /*options*/,
                      IODebugContext* /*dbg*/) override {
    // RocksDB only passes back what LockFile returned, so the cast is safe.
    std::unique_ptr<SimFileLock> owned(static_cast<SimFileLock*>(lock));
    IQ_ASSERT(owned != nullptr);
    return status_of(disk_.unlock(owned->path()));
  }
  IOStatus GetTestDirectory(const IOOptions& /*options*/, std::string* path,
                            IODebugContext* /*dbg*/) override {
    *path = "/rocksdb_test";
    return status_of(disk_.create_directories(*path));
  }
  IOStatus NewLogger(const std::string& /*fname*/, const IOOptions& /*options*/,
                     std::shared_ptr<rocksdb::Logger>* result, IODebugContext* /*dbg*/) override {
    *result = std::make_shared<DiscardingLogger>();
    return IOStatus::OK();
  }
  IOStatus GetAbsolutePath(const std::string& db_path, const IOOptions& /*options*/,
                           std::string* output_path, IODebugContext* /*dbg*/) override {
    *output_path = SimDisk::normalize(db_path);
    return IOStatus::OK();
  }
  IOStatus IsDirectory(const std::string& path, const IOOptions& /*options*/, bool* is_dir,
                       IODebugContext* /*dbg*/) override {
    if (!disk_.exists(path)) {
      return IOStatus::PathNotFound(SimDisk::normalize(path), "No such file or directory");
    }
    *is_dir = disk_.is_directory(path);
    return IOStatus::OK();
  }

 private:
  IOStatus open_writable(const std::string& fname, SimDisk::OpenMode mode,
                         std::unique_ptr<rocksdb::FSWritableFile>* result) {
    auto file = disk_.open(fname, mode);
    if (!file) return to_io_status(file.error());
    *result = std::make_unique<SimWritableFile>(std::move(*file));
    return IOStatus::OK();
  }

  SimDisk& disk_;
};

}  // namespace

std::shared_ptr<rocksdb::FileSystem> new_sim_rocksdb_file_system(SimDisk& disk) {
  return std::make_shared<SimRocksFileSystem>(disk);
}

SimRocksEnv::SimRocksEnv(SimDisk& disk)
    : disk_(disk),
      file_system_(new_sim_rocksdb_file_system(disk)),
      env_(rocksdb::NewCompositeEnv(file_system_)) {
  IQ_ASSERT(env_ != nullptr && env_->GetFileSystem() == file_system_);
}

SimRocksEnv::~SimRocksEnv() = default;

}  // namespace iq::sim
