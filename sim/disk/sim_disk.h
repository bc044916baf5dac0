#pragma once
// SimDisk: one simulated instance's disk, held in memory, that keeps only what POSIX promises to
// keep across a power cut. Two seams sit on it: SimFileSystem (iq::FileSystem, for .checkpoint and
// .position files and state directories) and SimRocksEnv (the rocksdb::Env RocksDB opens its
// databases on), so a crash treats both kinds of file alike.
//
// The crash model (README.md says the same with examples):
// - A file's bytes are durable only up to its last sync (fsync/fdatasync on an open handle).
//   Each file keeps two copies: the current bytes every reader sees, and the durable ones.
// - A file's name in its directory (create, rename, link, unlink) is durable only once that
//   directory has been synced, as on Linux ext4 without data=journal. Syncing directory D makes
//   exactly D's current file entries its durable ones.
// - Directories themselves are durable at once: mkdir and rmdir never revert. Removing a directory
//   therefore makes the removal of its file entries durable too. (Kafka's StateDirectory does not
//   fsync parents after mkdir; modelling lost directories would only lose the whole state, which
//   a wiped disk already covers.)
// - crash(): every name reverts to its durable entry and every file to its durable bytes. A file
//   created but never synced into its directory disappears; a file whose name was synced but whose
//   bytes never were comes back empty (ext4's zero-length file); an unsynced rename or unlink
//   reverts; unsynced appends and overwrites are lost whole. crash_torn() instead lets a chosen
//   prefix of each unsynced append survive.
// - wipe(): everything is gone, as on a replaced machine.
// - A directory's modification time (virtual ms from set_clock) moves when an entry directly in
//   it is created, renamed, linked or removed, as POSIX's mtime does; a change inside a
//   subdirectory does not move it. It is durable with the entries: a directory sync (or an mkdir
//   or rmdir of a child, durable at once) makes it durable, and a crash takes it back with the
//   unsynced entries that moved it. StateDirectory's cleaner reads it (File.lastModified).
// - Locks (RocksDB's LOCK) and open handles belong to processes, not to the disk: crash() and
// wipe()
//   require that there are none left, i.e. every database on the disk was closed first (a killed
//   process closes nothing cleanly: Instance::crash freezes the disk, then destroys the stores,
//   so what their closes would flush is dropped).
//
// Iteration is in path order (std::map), so listings and anything a trace records are
// deterministic. The bytes held are bounded; going over the bound is an assertion.
//
// Thread safety: RocksDB calls in from its own background threads (a flush writes its table file
// there while Flush(wait=true) blocks the caller), so every operation takes one mutex. The results
// do not depend on that interleaving: the simulator only crashes a disk with no database open.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"
#include "io/file_system.h"

namespace iq::sim {

// The operations that change a disk, as an observer of the process that makes them sees them
// (set_op_observer). Reads, locks and the faults themselves are not among them.
enum class DiskOp {
  kCreate,           // open() creating a file, or truncating a non-empty one
  kAppend,           // a write
  kTruncate,         // ftruncate
  kSync,             // fsync of a file
  kSyncDirectory,    // fsync of a directory
  kRename,           // rename (the path is the target)
  kLink,             // link (the path is the new name)
  kUnlink,           // unlink
  kMakeDirectory,    // mkdir
  kRemoveDirectory,  // rmdir
};
const char* to_string(DiskOp op);

// The I/O a fault may fail (set_io_fault): a read of a file's bytes, or a write (an append).
enum class IoKind { kRead, kWrite };
const char* to_string(IoKind kind);  // "read", "write"

enum class DiskErrc {
  NotFound,       // ENOENT: the path, or its parent, does not exist
  AlreadyExists,  // EEXIST
  NotADirectory,  // ENOTDIR: a path component is a file
  IsADirectory,   // EISDIR: a file operation on a directory
  NotEmpty,       // ENOTEMPTY
  Busy,           // the lock is already held
  Invalid,        // EINVAL: e.g. removing the root
};

struct DiskError {
  DiskErrc code;
  std::string message;  // "<operation> <path>: <reason>", as strerror would say it
};

template <typename T>
using DiskResult = base::Expected<T, DiskError>;
using DiskStatus = DiskResult<Unit>;

class SimDisk {
 public:
  class OpenFile;
  enum class OpenMode {
    Read,      // the file must exist
    Truncate,  // O_CREAT | O_TRUNC: created if missing, emptied if present (same inode)
    Append,    // O_CREAT | O_APPEND: created if missing, bytes kept
  };

  static constexpr uint64_t kBytesMaxDefault = uint64_t{512} << 20;

  explicit SimDisk(uint64_t bytes_max = kBytesMaxDefault);
  ~SimDisk();
  SimDisk(const SimDisk&) = delete;
  SimDisk& operator=(const SimDisk&) = delete;

  // The faults. Both require no open handle and no held lock (see the crash model).
  void crash();
  // A crash in which each file whose unsynced change is a pure append keeps the first
  // keep(path, unsynced_bytes) of those bytes (at most unsynced_bytes); other unsynced changes are
  // lost as in crash(). Files are visited in path order, so a seeded `keep` is deterministic.
  void crash_torn(
      const std::function<size_t(const std::string& path, size_t unsynced_bytes)>& keep);
  void wipe();

  // A crash inside an operation (sim/cluster's crash arm): the observer is called before every
  // operation that changes the disk (DiskOp), under the disk's lock and possibly on a RocksDB
  // thread, so it must not call back into the disk. Returning true makes the process that writes
  // to this disk dead from this operation on: the durable state is frozen as it is now (names,
  // bytes and directories), so neither this operation nor any later one survives the next crash()
  // or crash_torn() (which then behaves as crash()), whatever it writes or syncs meanwhile. The
  // process still sees its own writes until then, as a process that does not know it was killed.
  // A null observer removes it.
  using OpObserver = std::function<bool(DiskOp op, const std::string& path)>;
  void set_op_observer(OpObserver observer);
  // Whether the durable state is frozen (an observer returned true since the last crash or wipe).
  bool frozen() const;

  // I/O errors (EIO), as a failing device or a full one surfaces them: the policy is asked before
  // each read or write of a file's bytes through a handle that a seam checks (io_fails; the
  // RocksDB Env does, for every Read and Append), under the disk's lock and possibly on a RocksDB
  // thread, so it must not call back into the disk. Returning true fails that one operation; the
  // bytes are unchanged, and nothing else about the disk is. A null policy removes it.
  using IoFault = std::function<bool(IoKind kind, const std::string& path)>;
  void set_io_fault(IoFault policy);
  // Asks the policy about `kind` on `path`: true if that operation must fail with EIO.
  bool io_fails(IoKind kind, const std::string& path) const;

  // Directories: durable at once.
  DiskStatus create_directory(const std::string& path);  // the parent must exist
  DiskStatus create_directories(const std::string& path);
  DiskStatus remove_directory(const std::string& path);  // must be empty
  // Names of the files and directories in `path`, sorted.
  DiskResult<std::vector<std::string>> children(const std::string& path) const;
  // fsync on a directory: its current file entries become its durable ones.
  DiskStatus sync_directory(const std::string& path);

  // File names: durable once the directory holding them is synced.
  DiskStatus rename_file(const std::string& from, const std::string& to);  // replaces `to`
  DiskStatus link_file(const std::string& from, const std::string& to);    // `to` must not exist
  DiskStatus unlink(const std::string& path);

  // Files.
  DiskResult<OpenFile> open(const std::string& path, OpenMode mode);
  DiskResult<std::string> read_file(const std::string& path) const;
  DiskResult<uint64_t> file_size(const std::string& path) const;
  DiskStatus truncate(const std::string& path, uint64_t size);
  // A logical modification time: the disk's operation counter at the file's last change. Never
  // the wall clock.
  DiskResult<uint64_t> modification_seq(const std::string& path) const;

  // Directory modification times, in the virtual ms of the clock (0 until one is set). The
  // clock is asked under the disk's lock, possibly on a RocksDB thread, when an entry changes.
  using Clock = std::function<int64_t()>;
  void set_clock(Clock clock);
  // The directory's modification time; NotFound for a missing path, NotADirectory for a file
  // (files keep only the logical modification_seq).
  DiskResult<int64_t> directory_mtime_ms(const std::string& path) const;
  // utimes on a directory (File.setLastModified): the current time only, as an unsynced change;
  // a crash takes it back unless the directory is synced first.
  DiskStatus set_directory_mtime_ms(const std::string& path, int64_t mtime_ms);

  // Advisory locks, held by the process (RocksDB's LockFile). Locking creates the file if missing.
  DiskStatus lock(const std::string& path);
  DiskStatus unlock(const std::string& path);

  bool exists(const std::string& path) const;
  bool is_file(const std::string& path) const;
  bool is_directory(const std::string& path) const;
  // Every file path now visible, sorted (for tests and traces).
  std::vector<std::string> file_paths() const;
  // Bytes held: current plus durable copies of every file, since memory holds both.
  uint64_t bytes() const;
  uint64_t bytes_max() const { return bytes_max_; }
  size_t open_handles() const;
  uint64_t crash_count() const;

  // "/a/b" for "a//b/", "/a/./b", "/a/c/../b": absolute, no trailing slash; relative paths are
  // taken from the root. Exposed for the seams, which name files the same way.
  static std::string normalize(std::string_view path);

 private:
  using InodeId = uint64_t;
  struct Inode {
    std::string current;
    std::string durable;
    uint32_t links = 0;          // current names
    uint32_t durable_links = 0;  // durable names
    uint32_t handles = 0;        // open OpenFiles
    uint64_t modified_seq = 0;
    // True when `durable` is known to be a prefix of `current` (nothing but appends since the
    // last sync or crash), so a sync copies only the tail: a MANIFEST or a log synced after every
    // append would otherwise be copied whole at every sync. Any other change of either copy
    // (set_content_locked) clears it; a sync or a crash's revert sets it.
    bool durable_is_prefix = true;
  };

  // Helpers; the caller holds mu_ and passes normalized paths.
  static std::string parent_of(const std::string& path);
  DiskStatus check_parent_locked(const std::string& op, const std::string& path) const;
  DiskResult<InodeId> file_id_locked(const std::string& op, const std::string& path) const;
  void add_name_locked(const std::string& path, InodeId id);
  void remove_name_locked(const std::string& path);
  void set_durable_name_locked(const std::string& path, InodeId id);
  void remove_durable_name_locked(const std::string& path);
  void collect_locked(InodeId id);
  InodeId new_inode_locked();
  void set_content_locked(Inode& inode, std::string* which, std::string content);
  void check_bytes_locked() const;
  void revert_to_durable_locked(
      const std::function<size_t(const std::string& path, size_t unsynced_bytes)>* keep);
  void check_quiescent_locked(const char* what) const;
  // Asks the observer about `op` on `path`; freezes the durable state if it says so.
  void observe_locked(DiskOp op, const std::string& path);
  // An entry of `dir` changed: its current mtime is now; `durable` also makes that durable (an
  // mkdir or rmdir, durable at once).
  void touch_directory_locked(const std::string& dir, bool durable);
  int64_t now_locked() const { return clock_ ? clock_() : 0; }
  void freeze_locked();
  bool restore_frozen_locked();

  // Used by OpenFile.
  size_t read_at(InodeId id, uint64_t offset, size_t n, char* out) const;
  void append(InodeId id, const std::string& path, std::string_view data);
  void truncate_inode(InodeId id, const std::string& path, uint64_t size);
  void sync_inode(InodeId id, const std::string& path);
  uint64_t size_of(InodeId id) const;
  void release(InodeId id);

  mutable std::mutex mu_;
  const uint64_t bytes_max_;
  uint64_t bytes_ = 0;
  uint64_t seq_ = 0;  // counts mutations; the logical clock of modification_seq
  uint64_t crash_count_ = 0;
  InodeId next_inode_ = 1;
  std::set<std::string> dirs_;  // always holds "/"
  struct DirectoryMtime {
    int64_t current_ms = 0;
    int64_t durable_ms = 0;  // what a crash would leave
  };
  std::map<std::string, DirectoryMtime> dir_mtimes_;  // one per entry of dirs_
  std::map<std::string, InodeId> names_;              // current file names
  std::map<std::string, InodeId> durable_names_;      // what a crash would leave
  std::map<InodeId, Inode> inodes_;
  std::set<std::string> locks_;
  // The durable state frozen when the observer declared the process dead (see set_op_observer).
  struct Frozen {
    std::set<std::string> dirs;
    std::map<std::string, InodeId> durable_names;
    std::map<InodeId, std::string> durable_bytes;   // of every inode a durable name refers to
    std::map<std::string, int64_t> durable_mtimes;  // of every directory
  };
  Clock clock_;
  OpObserver observer_;
  IoFault io_fault_;
  std::optional<Frozen> frozen_;
};

// An open file: the handle a seam reads, writes and syncs through. Like a POSIX descriptor it
// follows the inode, not the name: a rename or unlink after open does not affect it. Movable;
// closes itself on destruction.
class SimDisk::OpenFile {
 public:
  OpenFile(OpenFile&& other) noexcept;
  OpenFile& operator=(OpenFile&& other) noexcept;
  ~OpenFile();
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;

  // Copies up to n bytes from `offset` into `out`; returns how many (0 at or past the end).
  size_t read(uint64_t offset, size_t n, char* out) const;
  void append(std::string_view data);
  // Whether the disk's I/O fault policy fails this handle's next `kind` (SimDisk::io_fails).
  bool io_fails(IoKind kind) const;
  void truncate(uint64_t size);
  // fsync: the current bytes become the durable ones. The name still needs a directory sync.
  void sync();
  uint64_t size() const;
  void close();
  bool is_open() const { return disk_ != nullptr; }
  const std::string& path() const { return path_; }  // the name it was opened by

 private:
  friend class SimDisk;
  OpenFile(SimDisk* disk, InodeId id, std::string path)
      : disk_(disk), id_(id), path_(std::move(path)) {}

  SimDisk* disk_;  // nullptr once closed or moved from
  InodeId id_;
  std::string path_;
};

}  // namespace iq::sim
