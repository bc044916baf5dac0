#include "disk/sim_disk.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/assert.h"

namespace iq::sim {
namespace {

DiskError error(DiskErrc code, const std::string& op, const std::string& path, const char* reason) {
  return {code, op + " " + path + ": " + reason};
}

base::Unexpected<DiskError> fail(DiskErrc code, const std::string& op, const std::string& path,
                                 const char* reason) {
  return base::unexpected(error(code, op, path, reason));
}

constexpr const char* kNoEntry = "No such file or directory";
constexpr const char* kNotDir = "Not a directory";
constexpr const char* kIsDir = "Is a directory";
constexpr const char* kExists = "File exists";

// A path's components are bounded by its length; this bound turns a runaway into a failure.
constexpr size_t kPathComponentsMax = 4096;

}  // namespace

// ---- The faults ----

void SimDisk::crash() {
  std::lock_guard lock(mu_);
  check_quiescent_locked("crash");
  restore_frozen_locked();
  revert_to_durable_locked(nullptr);
}

void SimDisk::crash_torn(
    const std::function<size_t(const std::string& path, size_t unsynced_bytes)>& keep) {
  std::lock_guard lock(mu_);
  check_quiescent_locked("crash_torn");
  // A frozen disk keeps nothing of what came after the freeze, torn appends included.
  const bool was_frozen = restore_frozen_locked();
  revert_to_durable_locked(was_frozen ? nullptr : &keep);
}

void SimDisk::wipe() {
  std::lock_guard lock(mu_);
  check_quiescent_locked("wipe");
  names_.clear();
  durable_names_.clear();
  inodes_.clear();
  dirs_ = {"/"};
  const int64_t now = now_locked();
  dir_mtimes_ = {{"/", DirectoryMtime{now, now}}};
  bytes_ = 0;
  frozen_.reset();
  ++seq_;
  IQ_ASSERT(names_.empty() && inodes_.empty() && dirs_.size() == 1);
}

// ---- A crash inside an operation ----

const char* to_string(DiskOp op) {
  switch (op) {
    case DiskOp::kCreate:
      return "create";
    case DiskOp::kAppend:
      return "append";
    case DiskOp::kTruncate:
      return "truncate";
    case DiskOp::kSync:
      return "sync";
    case DiskOp::kSyncDirectory:
      return "sync_directory";
    case DiskOp::kRename:
      return "rename";
    case DiskOp::kLink:
      return "link";
    case DiskOp::kUnlink:
      return "unlink";
    case DiskOp::kMakeDirectory:
      return "mkdir";
    case DiskOp::kRemoveDirectory:
      return "rmdir";
  }
  return "?";
}

const char* to_string(IoKind kind) {
  return kind == IoKind::kRead ? "read" : "write";
}

void SimDisk::set_io_fault(IoFault policy) {
  std::lock_guard lock(mu_);
  io_fault_ = std::move(policy);
}

bool SimDisk::io_fails(IoKind kind, const std::string& path) const {
  std::lock_guard lock(mu_);
  return io_fault_ && io_fault_(kind, path);
}

void SimDisk::set_op_observer(OpObserver observer) {
  std::lock_guard lock(mu_);
  observer_ = std::move(observer);
}

bool SimDisk::frozen() const {
  std::lock_guard lock(mu_);
  return frozen_.has_value();
}

void SimDisk::observe_locked(DiskOp op, const std::string& path) {
  if (!observer_ || frozen_) return;  // a dead process cannot die twice
  if (observer_(op, path)) freeze_locked();
}

// Copies what a crash would keep now: every directory, every durable name and the durable bytes
// of every inode one refers to.
void SimDisk::freeze_locked() {
  IQ_ASSERT(!frozen_, "frozen twice");
  Frozen f;
  f.dirs = dirs_;
  f.durable_names = durable_names_;
  for (const auto& [path, id] : durable_names_) f.durable_bytes.emplace(id, inodes_.at(id).durable);
  for (const auto& [path, mtime] : dir_mtimes_) f.durable_mtimes.emplace(path, mtime.durable_ms);
  frozen_ = std::move(f);
}

// Puts the frozen durable state back as the durable state (inodes freed since are made again
// under their old ids), so the revert that follows leaves exactly what the freeze saw. Returns
// whether the disk was frozen.
bool SimDisk::restore_frozen_locked() {
  if (!frozen_) return false;
  Frozen f = std::move(*frozen_);
  frozen_.reset();
  for (auto& [id, inode] : inodes_) {
    const auto kept = f.durable_bytes.find(id);
    set_content_locked(inode, &inode.durable, kept == f.durable_bytes.end() ? "" : kept->second);
    inode.durable_links = 0;
  }
  for (auto& [id, bytes] : f.durable_bytes) {
    if (inodes_.contains(id)) continue;
    IQ_ASSERT(id < next_inode_, "frozen inode {} was never made", id);
    Inode& inode = inodes_[id];
    set_content_locked(inode, &inode.durable, std::move(bytes));
  }
  durable_names_ = std::move(f.durable_names);
  for (const auto& [path, id] : durable_names_) ++inodes_.at(id).durable_links;
  dirs_ = std::move(f.dirs);
  IQ_ASSERT(dirs_.contains("/"));
  dir_mtimes_.clear();
  for (const auto& [path, mtime] : f.durable_mtimes) {
    dir_mtimes_.emplace(path, DirectoryMtime{mtime, mtime});
  }
  IQ_ASSERT(dir_mtimes_.size() == dirs_.size());
  return true;
}

// ---- Construction ----

SimDisk::SimDisk(uint64_t bytes_max)
    : bytes_max_(bytes_max), dirs_{"/"}, dir_mtimes_{{"/", DirectoryMtime{}}} {
  IQ_ASSERT(bytes_max_ > 0);
}

SimDisk::~SimDisk() {
  // An OpenFile outliving its disk would point at freed memory.
  IQ_ASSERT(open_handles() == 0, "SimDisk destroyed with {} files open", open_handles());
}

// ---- Directories ----

DiskStatus SimDisk::create_directory(const std::string& raw) {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  if (dirs_.contains(path) || names_.contains(path)) {
    return fail(DiskErrc::AlreadyExists, "mkdir", path, kExists);
  }
  if (auto parent = check_parent_locked("mkdir", path); !parent) return parent;
  observe_locked(DiskOp::kMakeDirectory, path);
  dirs_.insert(path);
  const int64_t now = now_locked();
  dir_mtimes_.insert_or_assign(path, DirectoryMtime{now, now});
  touch_directory_locked(parent_of(path), /*durable=*/true);
  ++seq_;
  return Unit{};
}

DiskStatus SimDisk::create_directories(const std::string& raw) {
  const std::string path = normalize(raw);
  std::string prefix;
  size_t components = 0;
  for (size_t start = 1; start <= path.size(); ++components) {
    IQ_ASSERT(components < kPathComponentsMax, "path {} has too many components", path);
    const size_t end = std::min(path.find('/', start), path.size());
    prefix = path.substr(0, end);
    if (is_file(prefix)) return fail(DiskErrc::NotADirectory, "mkdir", path, kNotDir);
    if (!is_directory(prefix)) {
      auto made = create_directory(prefix);
      // Another thread may have made it meanwhile; only a real failure counts.
      if (!made && made.error().code != DiskErrc::AlreadyExists) return made;
    }
    start = end + 1;
  }
  IQ_ASSERT(path == "/" || is_directory(path) || is_file(path));
  return Unit{};
}

DiskStatus SimDisk::remove_directory(const std::string& raw) {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  if (path == "/") return fail(DiskErrc::Invalid, "rmdir", path, "Invalid argument");
  if (names_.contains(path)) return fail(DiskErrc::NotADirectory, "rmdir", path, kNotDir);
  if (!dirs_.contains(path)) return fail(DiskErrc::NotFound, "rmdir", path, kNoEntry);
  const std::string prefix = path + "/";
  const auto child_dir = dirs_.lower_bound(prefix);
  const auto child_file = names_.lower_bound(prefix);
  if ((child_dir != dirs_.end() && child_dir->starts_with(prefix)) ||
      (child_file != names_.end() && child_file->first.starts_with(prefix))) {
    return fail(DiskErrc::NotEmpty, "rmdir", path, "Directory not empty");
  }
  observe_locked(DiskOp::kRemoveDirectory, path);
  // The directory goes durably, so the unsynced removals of its entries become durable too.
  std::vector<std::string> stale;
  for (auto it = durable_names_.lower_bound(prefix);
       it != durable_names_.end() && it->first.starts_with(prefix); ++it) {
    stale.push_back(it->first);
  }
  for (const std::string& name : stale) remove_durable_name_locked(name);
  dirs_.erase(path);
  dir_mtimes_.erase(path);
  touch_directory_locked(parent_of(path), /*durable=*/true);
  ++seq_;
  IQ_ASSERT(!dirs_.contains(path));
  return Unit{};
}

DiskResult<std::vector<std::string>> SimDisk::children(const std::string& raw) const {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  if (names_.contains(path)) return fail(DiskErrc::NotADirectory, "opendir", path, kNotDir);
  if (!dirs_.contains(path)) return fail(DiskErrc::NotFound, "opendir", path, kNoEntry);
  const std::string prefix = path == "/" ? "/" : path + "/";
  std::set<std::string> out;
  for (auto it = dirs_.lower_bound(prefix); it != dirs_.end() && it->starts_with(prefix); ++it) {
    if (*it != path && parent_of(*it) == path) out.insert(it->substr(prefix.size()));
  }
  for (auto it = names_.lower_bound(prefix); it != names_.end() && it->first.starts_with(prefix);
       ++it) {
    if (parent_of(it->first) == path) out.insert(it->first.substr(prefix.size()));
  }
  return std::vector<std::string>(out.begin(), out.end());
}

DiskStatus SimDisk::sync_directory(const std::string& raw) {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  if (names_.contains(path)) return fail(DiskErrc::NotADirectory, "fsync", path, kNotDir);
  if (!dirs_.contains(path)) return fail(DiskErrc::NotFound, "fsync", path, kNoEntry);
  observe_locked(DiskOp::kSyncDirectory, path);
  // Afterwards path's durable entries are exactly its current ones. One walk over both sorted
  // maps finds the entries that differ (a durable name gone or naming another inode, a current
  // name not yet durable) and touches only those: removing and re-adding every entry, as this did
  // first, gave the same state at the cost of a map erase and insert and a string copy per file,
  // and RocksDB syncs a store's directory at every flush, a directory that keeps every SST the
  // store wrote (docs/performance.md, third pass). Entries of subdirectories share the prefix and
  // are skipped.
  const std::string prefix = path == "/" ? "/" : path + "/";
  const auto child = [&prefix](const std::string& name) {
    return name.starts_with(prefix) && name.find('/', prefix.size()) == std::string::npos;
  };
  const auto in_range = [&prefix](const auto& it, const auto& map) {
    return it != map.end() && it->first.starts_with(prefix);
  };
  std::vector<std::string> stale;
  std::vector<std::pair<std::string, InodeId>> fresh;
  auto d = durable_names_.lower_bound(prefix);
  auto c = names_.lower_bound(prefix);
  size_t synced = 0;
  for (;;) {
    while (in_range(d, durable_names_) && !child(d->first)) ++d;
    while (in_range(c, names_) && !child(c->first)) ++c;
    const bool more_d = in_range(d, durable_names_);
    const bool more_c = in_range(c, names_);
    if (!more_d && !more_c) break;
    const int order = !more_d ? 1 : !more_c ? -1 : d->first.compare(c->first);
    if (order < 0) {  // durable, no longer current
      stale.push_back(d->first);
      ++d;
    } else if (order > 0) {  // current, not yet durable
      fresh.emplace_back(c->first, c->second);
      ++synced;
      ++c;
    } else {
      if (d->second != c->second) {  // the name now refers to another inode
        stale.push_back(d->first);
        fresh.emplace_back(c->first, c->second);
      }
      ++synced;
      ++d;
      ++c;
    }
  }
  for (const std::string& name : stale) remove_durable_name_locked(name);
  for (const auto& [name, id] : fresh) set_durable_name_locked(name, id);
  DirectoryMtime& mtime = dir_mtimes_.at(path);
  mtime.durable_ms = mtime.current_ms;  // the directory's inode is written with its entries
  IQ_ASSERT(synced <= names_.size() && durable_names_.size() >= synced);
  return Unit{};
}

// ---- File names ----

DiskStatus SimDisk::rename_file(const std::string& raw_from, const std::string& raw_to) {
  const std::string from = normalize(raw_from);
  const std::string to = normalize(raw_to);
  std::lock_guard lock(mu_);
  if (dirs_.contains(from)) {
    return fail(DiskErrc::IsADirectory, "rename", from, "renaming a directory is not modelled");
  }
  auto id = file_id_locked("rename", from);
  if (!id) return base::unexpected(id.error());
  if (dirs_.contains(to)) return fail(DiskErrc::IsADirectory, "rename", to, kIsDir);
  if (auto parent = check_parent_locked("rename", to); !parent) return parent;
  // POSIX: renaming a name onto another name of the same file does nothing.
  if (const auto target = names_.find(to); target != names_.end() && target->second == *id) {
    return Unit{};
  }
  observe_locked(DiskOp::kRename, to);
  add_name_locked(to, *id);  // replaces whatever `to` named; the inode keeps a link meanwhile
  remove_name_locked(from);
  touch_directory_locked(parent_of(to), /*durable=*/false);
  touch_directory_locked(parent_of(from), /*durable=*/false);
  ++seq_;
  IQ_ASSERT(names_.at(to) == *id && !names_.contains(from));
  return Unit{};
}

DiskStatus SimDisk::link_file(const std::string& raw_from, const std::string& raw_to) {
  const std::string from = normalize(raw_from);
  const std::string to = normalize(raw_to);
  std::lock_guard lock(mu_);
  auto id = file_id_locked("link", from);
  if (!id) return base::unexpected(id.error());
  if (dirs_.contains(to) || names_.contains(to)) {
    return fail(DiskErrc::AlreadyExists, "link", to, kExists);
  }
  if (auto parent = check_parent_locked("link", to); !parent) return parent;
  observe_locked(DiskOp::kLink, to);
  add_name_locked(to, *id);
  touch_directory_locked(parent_of(to), /*durable=*/false);
  ++seq_;
  IQ_ASSERT(inodes_.at(*id).links >= 2);
  return Unit{};
}

DiskStatus SimDisk::unlink(const std::string& raw) {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  if (dirs_.contains(path)) return fail(DiskErrc::IsADirectory, "unlink", path, kIsDir);
  if (!names_.contains(path)) return fail(DiskErrc::NotFound, "unlink", path, kNoEntry);
  observe_locked(DiskOp::kUnlink, path);
  remove_name_locked(path);
  touch_directory_locked(parent_of(path), /*durable=*/false);
  ++seq_;
  IQ_ASSERT(!names_.contains(path));
  return Unit{};
}

// ---- Files ----

DiskResult<SimDisk::OpenFile> SimDisk::open(const std::string& raw, OpenMode mode) {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  if (dirs_.contains(path)) return fail(DiskErrc::IsADirectory, "open", path, kIsDir);
  InodeId id = 0;
  if (auto found = names_.find(path); found != names_.end()) {
    id = found->second;
    Inode& inode = inodes_.at(id);
    if (mode == OpenMode::Truncate && !inode.current.empty()) {
      observe_locked(DiskOp::kCreate, path);
      set_content_locked(inode, &inode.current, {});
      inode.modified_seq = ++seq_;
    }
  } else {
    if (mode == OpenMode::Read) return fail(DiskErrc::NotFound, "open", path, kNoEntry);
    if (auto parent = check_parent_locked("open", path); !parent) {
      return base::unexpected(parent.error());
    }
    observe_locked(DiskOp::kCreate, path);
    id = new_inode_locked();
    add_name_locked(path, id);
    touch_directory_locked(parent_of(path), /*durable=*/false);
  }
  Inode& inode = inodes_.at(id);
  ++inode.handles;
  IQ_ASSERT(inode.links >= 1 && inode.handles >= 1);
  return OpenFile(this, id, path);
}

DiskResult<std::string> SimDisk::read_file(const std::string& raw) const {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  auto id = file_id_locked("read", path);
  if (!id) return base::unexpected(id.error());
  return inodes_.at(*id).current;
}

DiskResult<uint64_t> SimDisk::file_size(const std::string& raw) const {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  auto id = file_id_locked("stat", path);
  if (!id) return base::unexpected(id.error());
  return uint64_t{inodes_.at(*id).current.size()};
}

DiskStatus SimDisk::truncate(const std::string& raw, uint64_t size) {
  const std::string path = normalize(raw);
  DiskResult<InodeId> id = InodeId{0};
  {
    std::lock_guard lock(mu_);
    id = file_id_locked("truncate", path);
    if (!id) return base::unexpected(id.error());
  }
  truncate_inode(*id, path, size);
  return Unit{};
}

void SimDisk::set_clock(Clock clock) {
  std::lock_guard lock(mu_);
  clock_ = std::move(clock);
}

DiskResult<int64_t> SimDisk::directory_mtime_ms(const std::string& raw) const {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  if (names_.contains(path)) return fail(DiskErrc::NotADirectory, "stat", path, kNotDir);
  const auto it = dir_mtimes_.find(path);
  if (it == dir_mtimes_.end()) return fail(DiskErrc::NotFound, "stat", path, kNoEntry);
  return it->second.current_ms;
}

DiskStatus SimDisk::set_directory_mtime_ms(const std::string& raw, int64_t mtime_ms) {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  if (names_.contains(path)) return fail(DiskErrc::NotADirectory, "utimes", path, kNotDir);
  const auto it = dir_mtimes_.find(path);
  if (it == dir_mtimes_.end()) return fail(DiskErrc::NotFound, "utimes", path, kNoEntry);
  it->second.current_ms = mtime_ms;
  return Unit{};
}

DiskResult<uint64_t> SimDisk::modification_seq(const std::string& raw) const {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  auto id = file_id_locked("stat", path);
  if (!id) return base::unexpected(id.error());
  return inodes_.at(*id).modified_seq;
}

// ---- Locks ----

DiskStatus SimDisk::lock(const std::string& raw) {
  const std::string path = normalize(raw);
  {
    std::lock_guard lock(mu_);
    if (locks_.contains(path)) return fail(DiskErrc::Busy, "lock", path, "lock already held");
  }
  // Creating the file is an ordinary (not yet durable) create, as open(O_CREAT) is.
  auto file = open(path, OpenMode::Append);
  if (!file) return base::unexpected(file.error());
  file->close();
  std::lock_guard lock(mu_);
  if (!locks_.insert(path).second) return fail(DiskErrc::Busy, "lock", path, "lock already held");
  return Unit{};
}

DiskStatus SimDisk::unlock(const std::string& raw) {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  if (locks_.erase(path) == 0) return fail(DiskErrc::NotFound, "unlock", path, "not locked");
  return Unit{};
}

// ---- Introspection ----

bool SimDisk::exists(const std::string& raw) const {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  return dirs_.contains(path) || names_.contains(path);
}

bool SimDisk::is_file(const std::string& raw) const {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  return names_.contains(path);
}

bool SimDisk::is_directory(const std::string& raw) const {
  const std::string path = normalize(raw);
  std::lock_guard lock(mu_);
  return dirs_.contains(path);
}

std::vector<std::string> SimDisk::file_paths() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  out.reserve(names_.size());
  for (const auto& [path, id] : names_) out.push_back(path);
  return out;
}

uint64_t SimDisk::bytes() const {
  std::lock_guard lock(mu_);
  // The running count and a recount agree: asserted here, on the read side of the accounting.
  uint64_t recount = 0;
  for (const auto& [id, inode] : inodes_) recount += inode.current.size() + inode.durable.size();
  IQ_ASSERT(recount == bytes_, "SimDisk byte count drifted: counted {}, tracked {}", recount,
            bytes_);
  return bytes_;
}

size_t SimDisk::open_handles() const {
  std::lock_guard lock(mu_);
  size_t handles = 0;
  for (const auto& [id, inode] : inodes_) handles += inode.handles;
  return handles;
}

uint64_t SimDisk::crash_count() const {
  std::lock_guard lock(mu_);
  return crash_count_;
}

std::string SimDisk::normalize(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t guard = 0; start <= path.size(); ++guard) {
    IQ_ASSERT(guard < kPathComponentsMax, "path {} has too many components", path);
    const size_t end = std::min(path.find('/', start), path.size());
    const std::string_view part = path.substr(start, end - start);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    start = end + 1;
  }
  std::string out;
  for (const std::string_view part : parts) {
    out += '/';
    out += part;
  }
  return out.empty() ? "/" : out;
}

// ---- Helpers (mu_ held) ----

std::string SimDisk::parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  IQ_ASSERT(slash != std::string::npos, "not a normalized path: {}", path);
  return slash == 0 ? "/" : path.substr(0, slash);
}

DiskStatus SimDisk::check_parent_locked(const std::string& op, const std::string& path) const {
  const std::string parent = parent_of(path);
  if (names_.contains(parent)) return fail(DiskErrc::NotADirectory, op, path, kNotDir);
  if (!dirs_.contains(parent)) return fail(DiskErrc::NotFound, op, path, kNoEntry);
  return Unit{};
}

DiskResult<SimDisk::InodeId> SimDisk::file_id_locked(const std::string& op,
                                                     const std::string& path) const {
  if (dirs_.contains(path)) return fail(DiskErrc::IsADirectory, op, path, kIsDir);
  const auto found = names_.find(path);
  if (found == names_.end()) return fail(DiskErrc::NotFound, op, path, kNoEntry);
  return found->second;
}

void SimDisk::touch_directory_locked(const std::string& dir, bool durable) {
  DirectoryMtime& mtime = dir_mtimes_.at(dir);
  mtime.current_ms = now_locked();
  if (durable) mtime.durable_ms = mtime.current_ms;
}

void SimDisk::add_name_locked(const std::string& path, InodeId id) {
  ++inodes_.at(id).links;
  const auto [it, inserted] = names_.try_emplace(path, id);
  if (!inserted) {
    const InodeId replaced = it->second;
    it->second = id;
    --inodes_.at(replaced).links;
    collect_locked(replaced);
  }
  IQ_ASSERT(names_.at(path) == id);
}

void SimDisk::remove_name_locked(const std::string& path) {
  const auto it = names_.find(path);
  IQ_ASSERT(it != names_.end(), "no name {}", path);
  const InodeId id = it->second;
  names_.erase(it);
  Inode& inode = inodes_.at(id);
  IQ_ASSERT(inode.links > 0);
  --inode.links;
  collect_locked(id);
}

void SimDisk::set_durable_name_locked(const std::string& path, InodeId id) {
  IQ_ASSERT(!durable_names_.contains(path), "durable name {} set twice", path);
  durable_names_.emplace(path, id);
  ++inodes_.at(id).durable_links;
}

void SimDisk::remove_durable_name_locked(const std::string& path) {
  const auto it = durable_names_.find(path);
  IQ_ASSERT(it != durable_names_.end(), "no durable name {}", path);
  const InodeId id = it->second;
  durable_names_.erase(it);
  Inode& inode = inodes_.at(id);
  IQ_ASSERT(inode.durable_links > 0);
  --inode.durable_links;
  collect_locked(id);
}

// Frees an inode nothing refers to any more: no name, no durable name, no open handle.
void SimDisk::collect_locked(InodeId id) {
  const auto it = inodes_.find(id);
  IQ_ASSERT(it != inodes_.end());
  const Inode& inode = it->second;
  if (inode.links > 0 || inode.durable_links > 0 || inode.handles > 0) return;
  const uint64_t held = inode.current.size() + inode.durable.size();
  IQ_ASSERT(bytes_ >= held);
  bytes_ -= held;
  inodes_.erase(it);
}

SimDisk::InodeId SimDisk::new_inode_locked() {
  const InodeId id = next_inode_++;
  Inode& inode = inodes_[id];
  inode.modified_seq = ++seq_;
  IQ_ASSERT(inode.links == 0 && inode.current.empty());
  return id;
}

// Replaces one of an inode's two copies, keeping the byte count and checking the bound.
void SimDisk::set_content_locked(Inode& inode, std::string* which, std::string content) {
  IQ_ASSERT(which == &inode.current || which == &inode.durable);
  IQ_ASSERT(bytes_ >= which->size());
  bytes_ = bytes_ - which->size() + content.size();
  *which = std::move(content);
  inode.durable_is_prefix = false;  // the caller that knows better sets it again
  check_bytes_locked();
}

void SimDisk::check_bytes_locked() const {
  IQ_ASSERT(bytes_ <= bytes_max_,
            "SimDisk holds {} bytes (current plus synced copies), over its bound of {}: a runaway "
            "writer, or a scenario that needs a larger disk_bytes_max",
            bytes_, bytes_max_);
}

// The heart of crash(): names become the durable names, bytes the durable bytes (or, when `keep`
// is given, the durable bytes plus a kept prefix of an unsynced append).
void SimDisk::revert_to_durable_locked(
    const std::function<size_t(const std::string& path, size_t unsynced_bytes)>* keep) {
  if (keep != nullptr) {
    std::set<InodeId> seen;
    for (const auto& [path, id] : durable_names_) {
      if (!seen.insert(id).second) continue;  // a hard-linked file is torn once
      Inode& inode = inodes_.at(id);
      const bool pure_append = inode.current.size() > inode.durable.size() &&
                               inode.current.compare(0, inode.durable.size(), inode.durable) == 0;
      if (!pure_append) continue;
      const size_t unsynced = inode.current.size() - inode.durable.size();
      const size_t kept = (*keep)(path, unsynced);
      IQ_ASSERT(kept <= unsynced, "crash_torn kept {} of {} unsynced bytes of {}", kept, unsynced,
                path);
      set_content_locked(inode, &inode.durable,
                         inode.current.substr(0, inode.durable.size() + kept));
    }
  }
  names_ = durable_names_;
  for (auto& [path, mtime] : dir_mtimes_) mtime.current_ms = mtime.durable_ms;
  for (auto& [id, inode] : inodes_) {
    inode.links = inode.durable_links;
    set_content_locked(inode, &inode.current, inode.durable);
    inode.durable_is_prefix = true;
  }
  std::vector<InodeId> gone;
  for (const auto& [id, inode] : inodes_) {
    if (inode.durable_links == 0) gone.push_back(id);
  }
  for (const InodeId id : gone) collect_locked(id);
  for (const auto& [path, id] : names_) {
    IQ_ASSERT(dirs_.contains(parent_of(path)), "durable file {} outside any directory", path);
  }
  ++crash_count_;
  ++seq_;
}

void SimDisk::check_quiescent_locked(const char* what) const {
  size_t handles = 0;
  for (const auto& [id, inode] : inodes_) handles += inode.handles;
  IQ_ASSERT(handles == 0 && locks_.empty(),
            "SimDisk::{} with {} files open and {} locks held (first: {}): close every database "
            "and file on this disk first",
            what, handles, locks_.size(), locks_.empty() ? "-" : *locks_.begin());
}

// ---- OpenFile support ----

size_t SimDisk::read_at(InodeId id, uint64_t offset, size_t n, char* out) const {
  std::lock_guard lock(mu_);
  const std::string& bytes = inodes_.at(id).current;
  if (offset >= bytes.size()) return 0;
  const size_t count = std::min<uint64_t>(n, bytes.size() - offset);
  std::memcpy(out, bytes.data() + offset, count);
  return count;
}

void SimDisk::append(InodeId id, const std::string& path, std::string_view data) {
  std::lock_guard lock(mu_);
  observe_locked(DiskOp::kAppend, path);
  Inode& inode = inodes_.at(id);
  inode.current.append(data);
  bytes_ += data.size();
  inode.modified_seq = ++seq_;
  check_bytes_locked();
}

void SimDisk::truncate_inode(InodeId id, const std::string& path, uint64_t size) {
  std::lock_guard lock(mu_);
  observe_locked(DiskOp::kTruncate, path);
  Inode& inode = inodes_.at(id);
  std::string content = inode.current;
  content.resize(size, '\0');  // extending with zeros, as ftruncate does
  set_content_locked(inode, &inode.current, std::move(content));
  inode.modified_seq = ++seq_;
}

void SimDisk::sync_inode(InodeId id, const std::string& path) {
  std::lock_guard lock(mu_);
  observe_locked(DiskOp::kSync, path);
  Inode& inode = inodes_.at(id);
  if (inode.durable_is_prefix) {
    IQ_ASSERT(inode.current.size() >= inode.durable.size());
    bytes_ += inode.current.size() - inode.durable.size();
    inode.durable.append(inode.current, inode.durable.size());
    check_bytes_locked();
  } else {
    set_content_locked(inode, &inode.durable, inode.current);
  }
  inode.durable_is_prefix = true;
  IQ_ASSERT(inode.durable.size() == inode.current.size());
}

uint64_t SimDisk::size_of(InodeId id) const {
  std::lock_guard lock(mu_);
  return inodes_.at(id).current.size();
}

void SimDisk::release(InodeId id) {
  std::lock_guard lock(mu_);
  Inode& inode = inodes_.at(id);
  IQ_ASSERT(inode.handles > 0);
  --inode.handles;
  collect_locked(id);
}

// ---- OpenFile ----

SimDisk::OpenFile::OpenFile(OpenFile&& other) noexcept
    : disk_(std::exchange(other.disk_, nullptr)), id_(other.id_), path_(std::move(other.path_)) {}

SimDisk::OpenFile& SimDisk::OpenFile::operator=(OpenFile&& other) noexcept {
  if (this != &other) {
    close();
    disk_ = std::exchange(other.disk_, nullptr);
    id_ = other.id_;
    path_ = std::move(other.path_);
  }
  return *this;
}

SimDisk::OpenFile::~OpenFile() {
  close();
}

size_t SimDisk::OpenFile::read(uint64_t offset, size_t n, char* out) const {
  IQ_ASSERT(disk_ != nullptr, "read from closed file {}", path_);
  return disk_->read_at(id_, offset, n, out);
}

bool SimDisk::OpenFile::io_fails(IoKind kind) const {
  IQ_ASSERT(disk_ != nullptr, "{} of closed file {}", to_string(kind), path_);
  return disk_->io_fails(kind, path_);
}

void SimDisk::OpenFile::append(std::string_view data) {
  IQ_ASSERT(disk_ != nullptr, "append to closed file {}", path_);
  disk_->append(id_, path_, data);
}

void SimDisk::OpenFile::truncate(uint64_t size) {
  IQ_ASSERT(disk_ != nullptr, "truncate of closed file {}", path_);
  disk_->truncate_inode(id_, path_, size);
}

void SimDisk::OpenFile::sync() {
  IQ_ASSERT(disk_ != nullptr, "sync of closed file {}", path_);
  disk_->sync_inode(id_, path_);
}

uint64_t SimDisk::OpenFile::size() const {
  IQ_ASSERT(disk_ != nullptr, "size of closed file {}", path_);
  return disk_->size_of(id_);
}

void SimDisk::OpenFile::close() {
  if (disk_ == nullptr) return;
  disk_->release(id_);
  disk_ = nullptr;
}

}  // namespace iq::sim
