// Unit tests of SimFileSystem, the iq::FileSystem seam on a SimDisk: the atomic write survives
// crashes whole, the other calls behave as PosixFileSystem's, and OffsetCheckpoint works on it.
#include "disk/sim_file_system.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "state/offset_checkpoint.h"

namespace iq::sim {
namespace {

class SimFileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(fs_.create_directories("/state/app/0_0").has_value()); }

  std::optional<std::string> read(const std::string& path) {
    auto content = fs_.read_file(path);
    EXPECT_TRUE(content.has_value()) << content.error().to_string();
    return content ? *content : std::nullopt;
  }

  SimDisk disk_;
  SimFileSystem fs_{disk_};
};

// Once write_file_atomically returned, its content survives a crash and no .tmp is left.
TEST_F(SimFileSystemTest, WriteFileAtomicallySurvivesCrash) {
  ASSERT_TRUE(fs_.write_file_atomically("/state/app/0_0/.checkpoint", "first").has_value());
  ASSERT_TRUE(fs_.write_file_atomically("/state/app/0_0/.checkpoint", "second").has_value());
  disk_.crash();
  EXPECT_EQ(read("/state/app/0_0/.checkpoint"), "second");
  EXPECT_EQ(fs_.list_directory("/state/app/0_0"), std::vector<std::string>{".checkpoint"});
}

// The task directory's last-modified time (the cleaner's clock) is the disk's virtual ms: an
// atomic write moves it durably (the directory is synced), an unsynced delete_file moves it until
// a crash takes the delete back, and a missing path has none.
TEST_F(SimFileSystemTest, LastModifiedFollowsTheTaskDirectorysEntries) {
  int64_t now = 10;
  disk_.set_clock([&now] { return now; });
  const std::string dir = "/state/app/0_0";
  now = 500;
  ASSERT_TRUE(fs_.write_file_atomically(dir + "/.checkpoint", "cp").has_value());
  EXPECT_EQ(fs_.last_modified_ms(dir), 500);
  now = 900;
  ASSERT_TRUE(fs_.delete_file(dir + "/.checkpoint").has_value());
  EXPECT_EQ(fs_.last_modified_ms(dir), 900);
  disk_.crash();
  EXPECT_EQ(fs_.last_modified_ms(dir), 500);
  ASSERT_TRUE(fs_.set_last_modified_ms(dir, 1'234).has_value());
  EXPECT_EQ(fs_.last_modified_ms(dir), 1'234);
  EXPECT_EQ(fs_.last_modified_ms("/state/app/9_9"), std::nullopt);
  EXPECT_FALSE(fs_.set_last_modified_ms("/state/app/9_9", 1).has_value());
}

// The disk's I/O fault policy fails the atomic write's append with EIO, as PosixFileSystem's
// write error: a ProcessorState error, the old content kept at the path, the temporary file left.
TEST_F(SimFileSystemTest, AWriteFaultFailsTheAtomicWriteAndKeepsTheOldContent) {
  const std::string path = "/state/app/0_0/.checkpoint";
  ASSERT_TRUE(fs_.write_file_atomically(path, "old").has_value());
  std::vector<std::string> asked;
  disk_.set_io_fault([&asked](IoKind kind, const std::string& p) {
    asked.push_back(std::string(to_string(kind)) + " " + p);
    return kind == IoKind::kWrite;
  });
  auto s = fs_.write_file_atomically(path, "new");
  disk_.set_io_fault(nullptr);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().kind, StreamsError::Kind::ProcessorState) << s.error().to_string();
  EXPECT_EQ(asked, std::vector<std::string>{"write " + path + ".tmp"});
  EXPECT_EQ(read(path), "old");
  EXPECT_EQ(read(path + ".tmp"), "");
}

// A crash at any step of the atomic write's protocol, even one that tears the unsynced tmp file,
// leaves the old content or the new one at the path, never a mix.
TEST_F(SimFileSystemTest, AtomicWriteProtocolNeverLeavesTornFile) {
  const std::string path = "/state/app/0_0/.checkpoint";
  const std::string old_content = "old old old";
  const std::string new_content = "new content, longer";
  constexpr int kSteps = 5;  // open tmp, append, sync tmp, rename, sync dir
  for (int steps = 0; steps <= kSteps; ++steps) {
    for (const size_t keep_halves : {size_t{0}, size_t{1}, size_t{2}}) {
      disk_.wipe();
      ASSERT_TRUE(fs_.create_directories("/state/app/0_0").has_value());
      ASSERT_TRUE(fs_.write_file_atomically(path, old_content).has_value());
      if (steps >= 1) {
        // The steps SimFileSystem::write_file_atomically takes, cut short after `steps`.
        auto tmp = disk_.open(path + ".tmp", SimDisk::OpenMode::Truncate);
        ASSERT_TRUE(tmp.has_value());
        if (steps >= 2) tmp->append(new_content);
        if (steps >= 3) tmp->sync();
      }
      if (steps >= 4) {
        ASSERT_TRUE(disk_.rename_file(path + ".tmp", path).has_value());
      }
      if (steps >= 5) {
        ASSERT_TRUE(disk_.sync_directory("/state/app/0_0").has_value());
      }
      disk_.crash_torn(
          [&](const std::string&, size_t unsynced) { return unsynced * keep_halves / 2; });
      const auto after = read(path);
      ASSERT_TRUE(after.has_value()) << "steps " << steps;
      EXPECT_TRUE(*after == old_content || *after == new_content)
          << "steps " << steps << " keep_halves " << keep_halves << ": " << *after;
      EXPECT_EQ(*after, steps == kSteps ? new_content : old_content) << "steps " << steps;
    }
  }
}

// A missing file reads as nullopt and deleting it is not an error.
TEST_F(SimFileSystemTest, MissingFileReadsAsNulloptAndDeletesQuietly) {
  EXPECT_EQ(read("/state/app/0_0/none"), std::nullopt);
  EXPECT_EQ(read("/no/such/dir/file"), std::nullopt);
  EXPECT_TRUE(fs_.delete_file("/state/app/0_0/none").has_value());
  EXPECT_FALSE(fs_.read_file("/state/app").has_value());  // a directory is not a file
}

// delete_file is not synced (as Files.deleteIfExists), so a crash brings the file back until the
// directory is synced by a later atomic write.
TEST_F(SimFileSystemTest, DeleteFileRevertsUntilDirectorySynced) {
  const std::string path = "/state/app/0_0/s.position";
  ASSERT_TRUE(fs_.write_file_atomically(path, "p").has_value());
  ASSERT_TRUE(fs_.delete_file(path).has_value());
  EXPECT_FALSE(fs_.exists(path));
  disk_.crash();
  EXPECT_EQ(read(path), "p");

  ASSERT_TRUE(fs_.delete_file(path).has_value());
  ASSERT_TRUE(fs_.write_file_atomically("/state/app/0_0/.checkpoint", "c").has_value());
  disk_.crash();
  EXPECT_FALSE(fs_.exists(path));
}

// Directories are created with their parents, listed sorted, and removed with their contents.
TEST_F(SimFileSystemTest, DirectoriesCreateListAndDeleteRecursively) {
  ASSERT_TRUE(fs_.create_directories("/state/app/0_1/rocksdb/s").has_value());
  ASSERT_TRUE(fs_.write_file_atomically("/state/app/0_1/.checkpoint", "c").has_value());
  ASSERT_TRUE(fs_.write_file_atomically("/state/app/0_1/rocksdb/s/x", "x").has_value());
  EXPECT_EQ(fs_.list_directory("/state/app"), (std::vector<std::string>{"0_0", "0_1"}));
  EXPECT_EQ(fs_.list_directory("/state/app/0_1"),
            (std::vector<std::string>{".checkpoint", "rocksdb"}));
  EXPECT_TRUE(fs_.list_directory("/nowhere").empty());
  EXPECT_FALSE(fs_.create_directories("/state/app/0_1/.checkpoint/x").has_value());

  ASSERT_TRUE(fs_.delete_recursively("/state/app/0_1").has_value());
  EXPECT_FALSE(fs_.exists("/state/app/0_1"));
  EXPECT_TRUE(fs_.delete_recursively("/state/app/0_1").has_value());  // already gone: fine
  disk_.crash();
  EXPECT_FALSE(fs_.exists("/state/app/0_1"));  // removing directories is durable
  EXPECT_TRUE(fs_.exists("/state/app/0_0"));
}

// A wiped disk has nothing left: not the files, not the directories.
TEST_F(SimFileSystemTest, WipeRemovesEverything) {
  ASSERT_TRUE(fs_.write_file_atomically("/state/app/0_0/.checkpoint", "c").has_value());
  disk_.wipe();
  EXPECT_FALSE(fs_.exists("/state"));
  EXPECT_TRUE(fs_.list_directory("/").empty());
}

// OffsetCheckpoint writes, reads and removes through the seam, and what it wrote survives a crash.
TEST_F(SimFileSystemTest, OffsetCheckpointWorksAndSurvivesCrash) {
  OffsetCheckpoint checkpoint(fs_, "/state/app/0_0/.checkpoint");
  const TopicPartitionOffsets offsets{{{"app-s-changelog", 0}, 42}, {{"app-t-changelog", 3}, 7}};
  ASSERT_TRUE(checkpoint.write(offsets).has_value());
  auto read_back = checkpoint.read();
  ASSERT_TRUE(read_back.has_value()) << read_back.error().to_string();
  EXPECT_EQ(*read_back, offsets);

  disk_.crash();
  OffsetCheckpoint after_crash(fs_, "/state/app/0_0/.checkpoint");
  auto survived = after_crash.read();
  ASSERT_TRUE(survived.has_value()) << survived.error().to_string();
  EXPECT_EQ(*survived, offsets);

  ASSERT_TRUE(after_crash.write({}).has_value());  // an empty map deletes the file
  auto empty = after_crash.read();
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
}

// The position file helpers round-trip a Position through the seam across a crash.
TEST_F(SimFileSystemTest, PositionCheckpointSurvivesCrash) {
  OffsetCheckpoint checkpoint(fs_, "/state/app/0_0/s.position");
  const Position position = Position::from_map({{"input", {{0, 5}, {1, 9}}}});
  ASSERT_TRUE(checkpoint_position(checkpoint, position).has_value());
  disk_.crash();
  auto read_back = read_position_from_checkpoint(checkpoint);
  ASSERT_TRUE(read_back.has_value()) << read_back.error().to_string();
  EXPECT_EQ(*read_back, position) << read_back->to_string();
}

}  // namespace
}  // namespace iq::sim
