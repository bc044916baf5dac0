// Unit tests of SimDisk's crash model: what survives crash(), crash_torn() and wipe(), and the
// POSIX-like rules of names, handles and directories it rests on.
#include "disk/sim_disk.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace iq::sim {
namespace {

// Writes `content` to a new or truncated file and, as asked, syncs the file and its directory.
void write(SimDisk& disk, const std::string& path, const std::string& content, bool sync_file,
           bool sync_dir) {
  auto file = disk.open(path, SimDisk::OpenMode::Truncate);
  ASSERT_TRUE(file.has_value()) << file.error().message;
  file->append(content);
  if (sync_file) file->sync();
  file->close();
  if (sync_dir) {
    const std::string dir = path.substr(0, path.rfind('/'));
    ASSERT_TRUE(disk.sync_directory(dir.empty() ? "/" : dir).has_value());
  }
}

std::string read(const SimDisk& disk, const std::string& path) {
  auto content = disk.read_file(path);
  EXPECT_TRUE(content.has_value()) << content.error().message;
  return content ? *content : std::string("<missing>");
}

class SimDiskTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(disk_.create_directories("/d").has_value()); }
  SimDisk disk_;
};

// Bytes synced before a crash are kept and bytes appended after the last sync are lost.
TEST_F(SimDiskTest, SyncedBytesSurviveCrashAndUnsyncedAreLost) {
  write(disk_, "/d/f", "synced", true, true);
  auto file = disk_.open("/d/f", SimDisk::OpenMode::Append);
  ASSERT_TRUE(file.has_value());
  file->append("+lost");
  EXPECT_EQ(read(disk_, "/d/f"), "synced+lost");  // readers see the current bytes
  file->close();
  disk_.crash();
  EXPECT_EQ(read(disk_, "/d/f"), "synced");
  EXPECT_EQ(disk_.crash_count(), 1u);
}

// An unsynced overwrite (truncate and rewrite) reverts to the last synced bytes.
TEST_F(SimDiskTest, UnsyncedOverwriteRevertsToSyncedBytes) {
  write(disk_, "/d/f", "old", true, true);
  write(disk_, "/d/f", "new but never synced", false, false);
  disk_.crash();
  EXPECT_EQ(read(disk_, "/d/f"), "old");
}

// A file created and synced whose directory was never synced after the create disappears.
TEST_F(SimDiskTest, FileNotSyncedIntoItsDirectoryDisappears) {
  write(disk_, "/d/f", "bytes synced, name not", true, false);
  disk_.crash();
  EXPECT_FALSE(disk_.exists("/d/f"));
  EXPECT_EQ(disk_.bytes(), 0u);  // nothing refers to the inode any more
}

// A file whose name was synced but whose bytes never were comes back empty (ext4's zero-length
// file).
TEST_F(SimDiskTest, FileWhoseBytesWereNeverSyncedComesBackEmpty) {
  write(disk_, "/d/f", "never synced", false, true);
  disk_.crash();
  ASSERT_TRUE(disk_.is_file("/d/f"));
  EXPECT_EQ(read(disk_, "/d/f"), "");
}

// A rename is durable only after the directory sync; before it a crash restores the old file.
TEST_F(SimDiskTest, RenameRevertsUntilDirectorySynced) {
  write(disk_, "/d/f", "old", true, true);
  write(disk_, "/d/f.tmp", "new", true, false);
  ASSERT_TRUE(disk_.rename_file("/d/f.tmp", "/d/f").has_value());
  EXPECT_EQ(read(disk_, "/d/f"), "new");
  disk_.crash();
  EXPECT_EQ(read(disk_, "/d/f"), "old");
  EXPECT_FALSE(disk_.exists("/d/f.tmp"));  // its create was never synced either

  write(disk_, "/d/f.tmp", "new", true, false);
  ASSERT_TRUE(disk_.rename_file("/d/f.tmp", "/d/f").has_value());
  ASSERT_TRUE(disk_.sync_directory("/d").has_value());
  disk_.crash();
  EXPECT_EQ(read(disk_, "/d/f"), "new");
  EXPECT_FALSE(disk_.exists("/d/f.tmp"));
}

// An unlink is durable only after the directory sync; before it a crash brings the file back.
TEST_F(SimDiskTest, UnlinkRevertsUntilDirectorySynced) {
  write(disk_, "/d/f", "kept", true, true);
  ASSERT_TRUE(disk_.unlink("/d/f").has_value());
  disk_.crash();
  EXPECT_EQ(read(disk_, "/d/f"), "kept");

  ASSERT_TRUE(disk_.unlink("/d/f").has_value());
  ASSERT_TRUE(disk_.sync_directory("/d").has_value());
  disk_.crash();
  EXPECT_FALSE(disk_.exists("/d/f"));
}

// Syncing a directory makes only its own entries durable, not those of its subdirectories.
TEST_F(SimDiskTest, DirectorySyncCoversOnlyItsOwnEntries) {
  ASSERT_TRUE(disk_.create_directories("/d/sub").has_value());
  write(disk_, "/d/top", "t", true, false);
  write(disk_, "/d/sub/inner", "i", true, false);
  ASSERT_TRUE(disk_.sync_directory("/d").has_value());
  disk_.crash();
  EXPECT_TRUE(disk_.is_file("/d/top"));
  EXPECT_FALSE(disk_.exists("/d/sub/inner"));
  EXPECT_TRUE(disk_.is_directory("/d/sub"));  // directories are durable at once
}

// Directories survive a crash, and removing one makes the removal of its files durable too.
TEST_F(SimDiskTest, DirectoriesAreDurableAtOnce) {
  ASSERT_TRUE(disk_.create_directories("/a/b/c").has_value());
  write(disk_, "/a/b/c/f", "x", true, true);
  ASSERT_TRUE(disk_.unlink("/a/b/c/f").has_value());
  ASSERT_TRUE(disk_.remove_directory("/a/b/c").has_value());
  disk_.crash();
  EXPECT_TRUE(disk_.is_directory("/a/b"));
  EXPECT_FALSE(disk_.exists("/a/b/c"));
  EXPECT_FALSE(disk_.exists("/a/b/c/f"));
  EXPECT_EQ(disk_.bytes(), 0u);
}

// wipe() leaves an empty disk with only the root, whatever was synced.
TEST_F(SimDiskTest, WipeEmptiesEverything) {
  write(disk_, "/d/f", "synced", true, true);
  disk_.wipe();
  EXPECT_FALSE(disk_.exists("/d"));
  EXPECT_TRUE(disk_.is_directory("/"));
  EXPECT_TRUE(disk_.file_paths().empty());
  EXPECT_EQ(disk_.bytes(), 0u);
  ASSERT_TRUE(disk_.children("/").has_value());
  EXPECT_TRUE(disk_.children("/")->empty());
}

// crash_torn() keeps the chosen prefix of an unsynced append and nothing of an unsynced
// overwrite, visiting files in path order.
TEST_F(SimDiskTest, CrashTornKeepsChosenPrefixOfUnsyncedAppend) {
  write(disk_, "/d/a", "head", true, true);
  write(disk_, "/d/b", "old", true, true);
  {
    auto a = disk_.open("/d/a", SimDisk::OpenMode::Append);
    ASSERT_TRUE(a.has_value());
    a->append("123456");
  }
  write(disk_, "/d/b", "rewritten", false, false);
  std::vector<std::string> asked;
  disk_.crash_torn([&](const std::string& path, size_t unsynced) {
    asked.push_back(path + ":" + std::to_string(unsynced));
    return size_t{2};
  });
  EXPECT_EQ(asked, std::vector<std::string>{"/d/a:6"});  // b's change is not an append
  EXPECT_EQ(read(disk_, "/d/a"), "head12");
  EXPECT_EQ(read(disk_, "/d/b"), "old");
  disk_.crash();  // what the torn crash left is now durable
  EXPECT_EQ(read(disk_, "/d/a"), "head12");
}

// An open handle follows its inode across a rename and an unlink, as a descriptor does, and the
// unlinked file's bytes are freed when the handle closes.
TEST_F(SimDiskTest, OpenHandleFollowsInodeAcrossRenameAndUnlink) {
  auto file = disk_.open("/d/f", SimDisk::OpenMode::Truncate);
  ASSERT_TRUE(file.has_value());
  file->append("ab");
  ASSERT_TRUE(disk_.rename_file("/d/f", "/d/g").has_value());
  file->append("cd");
  EXPECT_EQ(read(disk_, "/d/g"), "abcd");
  ASSERT_TRUE(disk_.unlink("/d/g").has_value());
  file->append("ef");
  char buffer[8] = {};
  EXPECT_EQ(file->read(2, sizeof(buffer), buffer), 4u);
  EXPECT_EQ(std::string(buffer, 4), "cdef");
  EXPECT_EQ(disk_.open_handles(), 1u);
  EXPECT_EQ(disk_.bytes(), 6u);
  file->close();
  EXPECT_EQ(disk_.open_handles(), 0u);
  EXPECT_EQ(disk_.bytes(), 0u);
}

// A hard link is a second name of the same bytes, durable on its own directory sync.
TEST_F(SimDiskTest, LinkAddsSecondNameOfSameFile) {
  write(disk_, "/d/f", "x", true, true);
  ASSERT_TRUE(disk_.link_file("/d/f", "/d/g").has_value());
  EXPECT_EQ(disk_.link_file("/d/f", "/d/g").error().code, DiskErrc::AlreadyExists);
  ASSERT_TRUE(disk_.unlink("/d/f").has_value());
  EXPECT_EQ(read(disk_, "/d/g"), "x");
  ASSERT_TRUE(disk_.sync_directory("/d").has_value());
  disk_.crash();
  EXPECT_FALSE(disk_.exists("/d/f"));
  EXPECT_EQ(read(disk_, "/d/g"), "x");
}

// Listings are sorted and hold both files and directories; paths are normalized.
TEST_F(SimDiskTest, ChildrenAreSortedAndPathsNormalized) {
  ASSERT_TRUE(disk_.create_directories("d//z/").has_value());
  write(disk_, "/d/b", "", false, false);
  write(disk_, "/d/./a", "", false, false);
  auto names = disk_.children("/d/z/..");
  ASSERT_TRUE(names.has_value());
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b", "z"}));
  EXPECT_EQ(SimDisk::normalize("a//b/./c/../"), "/a/b");
  EXPECT_EQ(SimDisk::normalize(""), "/");
  EXPECT_EQ(SimDisk::normalize("/.."), "/");
}

// Misuse is reported as the errno POSIX would give, never silently accepted.
TEST_F(SimDiskTest, ErrorsAreReportedAsErrnoWould) {
  EXPECT_EQ(disk_.open("/missing/f", SimDisk::OpenMode::Truncate).error().code, DiskErrc::NotFound);
  EXPECT_EQ(disk_.open("/d/nope", SimDisk::OpenMode::Read).error().code, DiskErrc::NotFound);
  EXPECT_EQ(disk_.open("/d", SimDisk::OpenMode::Read).error().code, DiskErrc::IsADirectory);
  EXPECT_EQ(disk_.unlink("/d").error().code, DiskErrc::IsADirectory);
  EXPECT_EQ(disk_.create_directory("/d").error().code, DiskErrc::AlreadyExists);
  write(disk_, "/d/f", "x", false, false);
  EXPECT_EQ(disk_.create_directories("/d/f/g").error().code, DiskErrc::NotADirectory);
  EXPECT_EQ(disk_.remove_directory("/d").error().code, DiskErrc::NotEmpty);
  EXPECT_EQ(disk_.remove_directory("/").error().code, DiskErrc::Invalid);
  EXPECT_EQ(disk_.rename_file("/d/nope", "/d/g").error().code, DiskErrc::NotFound);
  ASSERT_TRUE(disk_.lock("/d/LOCK").has_value());
  EXPECT_EQ(disk_.lock("/d/LOCK").error().code, DiskErrc::Busy);
  ASSERT_TRUE(disk_.unlock("/d/LOCK").has_value());
  EXPECT_EQ(disk_.unlock("/d/LOCK").error().code, DiskErrc::NotFound);
}

// Modification times come from the disk's operation counter and grow with every change.
TEST_F(SimDiskTest, ModificationSeqIsLogicalAndGrows) {
  write(disk_, "/d/f", "a", false, false);
  const uint64_t first = *disk_.modification_seq("/d/f");
  write(disk_, "/d/f", "b", false, false);
  EXPECT_GT(*disk_.modification_seq("/d/f"), first);
}

// A directory's mtime is virtual ms from the clock, moved by a create, rename or unlink of an
// entry directly in it (the rename moves both directories), not by a write to a file's bytes nor
// by a change inside a subdirectory; set_directory_mtime_ms sets it.
TEST_F(SimDiskTest, DirectoryMtimeMovesWithItsOwnEntriesOnly) {
  int64_t now = 1'000;
  disk_.set_clock([&now] { return now; });
  ASSERT_TRUE(disk_.create_directories("/d/task/rocksdb").has_value());
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task"), 1'000) << "mkdir of rocksdb/ moved it";
  now = 2'000;
  write(disk_, "/d/task/.checkpoint.tmp", "cp", true, false);
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task"), 2'000);
  now = 3'000;
  write(disk_, "/d/task/rocksdb/000001.sst", "sst", true, true);
  {
    auto file = disk_.open("/d/task/.checkpoint.tmp", SimDisk::OpenMode::Append);
    ASSERT_TRUE(file.has_value());
    file->append("more");
  }
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task"), 2'000) << "bytes and a subdirectory's entries";
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task/rocksdb"), 3'000);
  now = 4'000;
  ASSERT_TRUE(disk_.rename_file("/d/task/.checkpoint.tmp", "/d/task/.checkpoint").has_value());
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task"), 4'000);
  now = 5'000;
  ASSERT_TRUE(disk_.unlink("/d/task/.checkpoint").has_value());
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task"), 5'000);
  ASSERT_TRUE(disk_.set_directory_mtime_ms("/d/task", 42).has_value());
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task"), 42);
  EXPECT_EQ(disk_.directory_mtime_ms("/d/none").error().code, DiskErrc::NotFound);
  EXPECT_EQ(disk_.directory_mtime_ms("/d/task/rocksdb/000001.sst").error().code,
            DiskErrc::NotADirectory);
}

// A directory's mtime is durable with its entries: a crash takes back the mtime of unsynced
// entry changes with them, a directory sync makes it durable, and an mkdir or rmdir of a child
// (durable at once) makes the parent's time durable at once; a set time is an unsynced change.
TEST_F(SimDiskTest, DirectoryMtimeRevertsWithUnsyncedEntries) {
  int64_t now = 1'000;
  disk_.set_clock([&now] { return now; });
  ASSERT_TRUE(disk_.create_directories("/d/task").has_value());
  now = 2'000;
  write(disk_, "/d/task/.checkpoint", "cp", true, true);
  now = 3'000;
  ASSERT_TRUE(disk_.unlink("/d/task/.checkpoint").has_value());
  ASSERT_TRUE(disk_.set_directory_mtime_ms("/d/task", 9'000).has_value());
  disk_.crash();
  EXPECT_EQ(read(disk_, "/d/task/.checkpoint"), "cp");
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task"), 2'000) << "the synced write's time";
  now = 4'000;
  ASSERT_TRUE(disk_.create_directory("/d/task/rocksdb").has_value());
  disk_.crash();
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task"), 4'000) << "mkdir is durable at once";
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task/rocksdb"), 4'000);
  now = 5'000;
  ASSERT_TRUE(disk_.remove_directory("/d/task/rocksdb").has_value());
  disk_.crash();
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task"), 5'000) << "rmdir is durable at once";
}

// A process that died before its cleaner's deletion leaves the task directory with the mtime it
// had durably then: the rmdir after the death moves nothing durable.
TEST_F(SimDiskTest, DeadProcessMovesNoDirectoryMtimeDurably) {
  int64_t now = 1'000;
  disk_.set_clock([&now] { return now; });
  ASSERT_TRUE(disk_.create_directories("/d/task/rocksdb").has_value());
  write(disk_, "/d/task/.checkpoint", "cp", true, true);
  disk_.set_op_observer([&](DiskOp op, const std::string&) { return op == DiskOp::kUnlink; });
  now = 7'000;
  ASSERT_TRUE(disk_.unlink("/d/task/.checkpoint").has_value());
  ASSERT_TRUE(disk_.remove_directory("/d/task/rocksdb").has_value());
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task"), 7'000) << "the process sees its own changes";
  disk_.crash();
  EXPECT_TRUE(disk_.is_directory("/d/task/rocksdb"));
  EXPECT_EQ(*disk_.directory_mtime_ms("/d/task"), 1'000);
}

// The observer sees every changing operation in order, with its path: an atomic write is
// create, append, sync, rename, directory sync; reads are not among them, and a lock only as
// the create of its missing file.
TEST_F(SimDiskTest, ObserverSeesEveryChangingOperationInOrder) {
  std::vector<std::string> seen;
  disk_.set_op_observer([&](DiskOp op, const std::string& path) {
    seen.push_back(std::string(to_string(op)) + " " + path);
    return false;
  });
  write(disk_, "/d/f.tmp", "x", true, false);
  ASSERT_TRUE(disk_.rename_file("/d/f.tmp", "/d/f").has_value());
  ASSERT_TRUE(disk_.sync_directory("/d").has_value());
  EXPECT_EQ(read(disk_, "/d/f"), "x");
  ASSERT_TRUE(disk_.lock("/d/LOCK").has_value());
  ASSERT_TRUE(disk_.unlock("/d/LOCK").has_value());
  const std::vector<std::string> expected{"create /d/f.tmp", "append /d/f.tmp",   "sync /d/f.tmp",
                                          "rename /d/f",     "sync_directory /d", "create /d/LOCK"};
  EXPECT_EQ(seen, expected);
  EXPECT_FALSE(disk_.frozen());
}

// Once the observer declares the process dead, nothing written or synced afterwards survives a
// crash, including the operation it died at: the disk comes back as it was durable just before.
TEST_F(SimDiskTest, DeadProcessWritesAndSyncsNothingDurable) {
  write(disk_, "/d/a", "old", true, true);
  int ops = 0;
  disk_.set_op_observer([&](DiskOp op, const std::string& path) {
    ++ops;
    return op == DiskOp::kSync && path == "/d/a";  // dies at the sync of the new content
  });
  write(disk_, "/d/a", "new", true, true);
  EXPECT_TRUE(disk_.frozen());
  write(disk_, "/d/b", "after death", true, true);
  ASSERT_TRUE(disk_.create_directories("/d/sub").has_value());
  ASSERT_TRUE(disk_.unlink("/d/a").has_value());
  ASSERT_TRUE(disk_.sync_directory("/d").has_value());
  EXPECT_FALSE(disk_.exists("/d/a"));  // the process still sees its own writes
  EXPECT_EQ(read(disk_, "/d/b"), "after death");
  disk_.crash();
  EXPECT_FALSE(disk_.frozen());
  EXPECT_EQ(read(disk_, "/d/a"), "old");
  EXPECT_FALSE(disk_.exists("/d/b"));
  EXPECT_FALSE(disk_.is_directory("/d/sub")) << "mkdir after death is not durable";
  EXPECT_GE(ops, 3);
  EXPECT_EQ(disk_.bytes(), 6u) << "old, twice (current and durable)";
  // The next process lives: without a verdict of death its writes are durable again.
  disk_.set_op_observer(nullptr);
  write(disk_, "/d/a", "next", true, true);
  disk_.crash();
  EXPECT_EQ(read(disk_, "/d/a"), "next");
}

// A death in the middle of a recursive delete (the cleaner's) leaves what was durable then: an
// rmdir after the death does not count, even though rmdir is otherwise durable at once.
TEST_F(SimDiskTest, DeadProcessRemovesNoDirectoryDurably) {
  ASSERT_TRUE(disk_.create_directories("/d/task/rocksdb").has_value());
  write(disk_, "/d/task/.checkpoint", "cp", true, true);
  write(disk_, "/d/task/rocksdb/CURRENT", "db", true, true);
  disk_.set_op_observer(
      [&](DiskOp op, const std::string&) { return op == DiskOp::kRemoveDirectory; });
  ASSERT_TRUE(disk_.unlink("/d/task/.checkpoint").has_value());
  ASSERT_TRUE(disk_.unlink("/d/task/rocksdb/CURRENT").has_value());
  ASSERT_TRUE(disk_.remove_directory("/d/task/rocksdb").has_value());
  ASSERT_TRUE(disk_.remove_directory("/d/task").has_value());
  EXPECT_FALSE(disk_.is_directory("/d/task"));
  disk_.crash();
  EXPECT_EQ(read(disk_, "/d/task/.checkpoint"), "cp");
  EXPECT_EQ(read(disk_, "/d/task/rocksdb/CURRENT"), "db");
}

// crash_torn on a frozen disk keeps no torn prefix of an append made after the death.
TEST_F(SimDiskTest, FrozenDiskKeepsNoTornAppend) {
  write(disk_, "/d/log", "head", true, true);
  disk_.set_op_observer([&](DiskOp op, const std::string&) { return op == DiskOp::kAppend; });
  {
    auto file = disk_.open("/d/log", SimDisk::OpenMode::Append);
    ASSERT_TRUE(file.has_value());
    file->append("-tail");
  }
  disk_.crash_torn([](const std::string&, size_t unsynced) { return unsynced; });
  EXPECT_EQ(read(disk_, "/d/log"), "head");
}

// Crashing with a file still open is a harness bug, stopped with a message naming the cause.
TEST_F(SimDiskTest, CrashWithOpenFileDies) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto file = disk_.open("/d/f", SimDisk::OpenMode::Truncate);
        disk_.crash();
      },
      "crash with 1 files open");
}

// Going over the byte bound is an assertion naming the bound, not an unbounded allocation.
TEST(SimDiskBoundTest, OverCapacityDies) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        SimDisk disk(16);
        auto file = disk.open("/f", SimDisk::OpenMode::Truncate);
        file->append("0123456789");
        file->sync();  // current and synced copies: 20 bytes > 16
      },
      "over its bound of 16");
}

}  // namespace
}  // namespace iq::sim
